//! Address spaces in profiles (issue 13 §2): with translation on, costs are
//! keyed by (address space, virtual address). The firmware corpus's
//! `paging` runs two U-mode programs at the same virtual address 0x400000
//! in two Sv39/Sv32 spaces; `user_a`/`user_b` are those programs linked on
//! their own at 0x400000, for `record --symbols`.

mod common;

use std::path::Path;

use fwprof_profile::{AddressSpaceSection, Profile};

const CONFIGS: [&str; 2] = ["rv32", "rv64"];

/// Records `elf` with `args` into `dir/name`; the profile, whose
/// invariants hold.
fn record(dir: &Path, name: &str, elf: &Path, args: &[&str]) -> Profile {
    let (out, p) = common::record_into(dir, name, elf, args);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    p.check_invariants().unwrap();
    p
}

fn spaces(p: &Profile) -> AddressSpaceSection {
    p.section::<AddressSpaceSection>()
        .expect("readable")
        .expect("an address_spaces section")
}

/// Self instructions of the function named `name` that ran (one at
/// most: `paging` itself also has symbols `user_a` and `user_b`, where
/// their code sits in physical memory, never run there).
fn self_of(p: &Profile, name: &str) -> u64 {
    let ran: Vec<u64> = p
        .functions
        .iter()
        .filter(|f| f.name == name && f.self_cost[0] > 0)
        .map(|f| f.self_cost[0])
        .collect();
    assert_eq!(ran.len(), 1, "one function {name} ran");
    ran[0]
}

/// The space (index) in which function `name` ran, and its cost there.
fn ran_in(p: &Profile, name: &str) -> Vec<(usize, u64)> {
    let id = p
        .functions
        .iter()
        .enumerate()
        .filter(|(_, f)| f.name == name)
        .map(|(i, _)| i)
        .collect::<Vec<_>>();
    spaces(p)
        .spaces
        .iter()
        .enumerate()
        .flat_map(|(i, s)| {
            s.functions
                .iter()
                .filter(|f| id.contains(&f.function.index()))
                .map(move |f| (i, f.self_cost[0]))
        })
        .collect()
}

#[test]
fn two_programs_at_one_virtual_address_never_mix() {
    for cfg in CONFIGS {
        let dir = tempfile::tempdir().unwrap();
        let elf = common::firmware_elf(&format!("paging.{cfg}.elf"));
        let p = record(dir.path(), "p.fwprof", &elf, &[]);
        // The physical space and one per program (ASIDs 1 and 2).
        let s = spaces(&p);
        let asids: Vec<u32> = s.spaces.iter().map(|s| s.asid).collect();
        assert_eq!(asids, [0, 1, 2], "{cfg}");
        let mode = if cfg == "rv32" { "sv32" } else { "sv39" };
        assert_eq!(s.spaces[0].mode, "bare");
        assert!(s.spaces[1..].iter().all(|s| s.mode == mode), "{cfg}");
        // Program a: sum 1..100 (3 instructions × 100) and its system calls;
        // program b: 10! (3 × 10) and a few more. Each is its own function,
        // in its own space.
        let a = self_of(&p, "[unknown 0x400000 in space 1]");
        let b = self_of(&p, "[unknown 0x400000 in space 2]");
        assert!(a > 300 && a < 400, "{cfg}: program a ran {a}");
        assert!(b > 30 && b < 100, "{cfg}: program b ran {b}");
        assert_eq!(ran_in(&p, "[unknown 0x400000 in space 1]"), [(1, a)]);
        assert_eq!(ran_in(&p, "[unknown 0x400000 in space 2]"), [(2, b)]);
        // Per-address costs: 0x400000 once per program.
        let at: Vec<_> = p.costs.iter().filter(|c| c.addr == 0x40_0000).collect();
        assert_eq!(at.len(), 2, "{cfg}");
        assert_ne!(at[0].function, at[1].function);
        // The report names the spaces.
        let text = common::fwprof_stdout(dir.path(), &["report", "p.fwprof"]);
        assert!(text.contains("Address spaces:"), "{text}");
        let json = common::fwprof_stdout(dir.path(), &["report", "--format", "json", "p.fwprof"]);
        let v: serde_json::Value = serde_json::from_str(&json).unwrap();
        assert_eq!(v["address_spaces"].as_array().map(Vec::len), Some(3));
        assert_eq!(v["address_spaces"][1]["asid"], 1);
    }
}

#[test]
fn symbol_files_apply_to_the_space_that_runs_their_code() {
    for cfg in CONFIGS {
        let dir = tempfile::tempdir().unwrap();
        let elf = common::firmware_elf(&format!("paging.{cfg}.elf"));
        let ua = common::firmware_elf(&format!("user_a.{cfg}.elf"));
        let ub = common::firmware_elf(&format!("user_b.{cfg}.elf"));
        let plain = record(dir.path(), "plain.fwprof", &elf, &[]);
        let (ua, ub) = (ua.to_str().unwrap(), ub.to_str().unwrap());
        let p = record(
            dir.path(),
            "p.fwprof",
            &elf,
            &["--symbols", ua, "--symbols", &format!("{ub}@0x400000")],
        );
        // Both files describe 0x400000; each applies where its code runs.
        assert_eq!(
            self_of(&p, "user_a"),
            self_of(&plain, "[unknown 0x400000 in space 1]")
        );
        assert_eq!(
            self_of(&p, "user_b"),
            self_of(&plain, "[unknown 0x400000 in space 2]")
        );
        assert_eq!(ran_in(&p, "user_a")[0].0, 1, "{cfg}");
        assert_eq!(ran_in(&p, "user_b")[0].0, 2, "{cfg}");
        assert!(!p.functions.iter().any(|f| f.name.contains("0x400000")));
        // Only user_a's file: program b's code is not its code.
        let only_a = record(dir.path(), "a.fwprof", &elf, &["--symbols", ua]);
        assert_eq!(self_of(&only_a, "user_a"), self_of(&p, "user_a"));
        assert_eq!(
            self_of(&only_a, "[unknown 0x400000 in space 2]"),
            self_of(&p, "user_b")
        );
        // Same run, same totals.
        assert_eq!(p.totals, plain.totals);
    }
}

#[test]
fn a_symbol_file_of_the_other_xlen_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let elf = common::firmware_elf("paging.rv32.elf");
    let ua = common::firmware_elf("user_a.rv64.elf");
    let out = common::run_fwprof(
        dir.path(),
        &[
            "record",
            "-o",
            "p.fwprof",
            "--symbols",
            ua.to_str().unwrap(),
            elf.to_str().unwrap(),
        ],
    );
    assert_ne!(out.status.code(), Some(0));
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(err.contains("an RV64 ELF for an RV32 program"), "{err}");
    assert!(!dir.path().join("p.fwprof").exists());
}

#[test]
fn core_model_and_merge_keep_spaces_apart() {
    let dir = tempfile::tempdir().unwrap();
    let elf = common::firmware_elf("paging.rv64.elf");
    let p = record(dir.path(), "c.fwprof", &elf, &["--core", "generic"]);
    // Every event of the core model is split by space (invariants above).
    let s = spaces(&p);
    assert_eq!(s.spaces.len(), 3);
    assert!(s.spaces.iter().all(|s| s.cost.len() == p.events.len()));
    assert!(s.spaces[1].cost[1] > 0, "cycles in space 1");
    record(dir.path(), "e.fwprof", &elf, &[]);
    let out = common::run_fwprof(
        dir.path(),
        &["merge", "-o", "m.fwprof", "e.fwprof", "e.fwprof"],
    );
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let m = Profile::read(dir.path().join("m.fwprof")).unwrap();
    m.check_invariants().unwrap();
    let e = Profile::read(dir.path().join("e.fwprof")).unwrap();
    let (se, sm) = (spaces(&e), spaces(&m));
    assert_eq!(sm.spaces.len(), 3);
    for (a, b) in se.spaces.iter().zip(&sm.spaces) {
        assert_eq!(a.satp, b.satp);
        assert_eq!(2 * a.cost[0], b.cost[0]);
    }
    assert_eq!(
        self_of(&m, "[unknown 0x400000 in space 2]"),
        2 * self_of(&e, "[unknown 0x400000 in space 2]")
    );
}

/// A program that never turns translation on has no `address_spaces`
/// section (profiles stay as they were).
#[test]
fn no_translation_no_section() {
    let dir = tempfile::tempdir().unwrap();
    let elf = common::firmware_elf("timer_spin.rv64.elf");
    let p = record(dir.path(), "p.fwprof", &elf, &[]);
    assert!(p.section::<AddressSpaceSection>().unwrap().is_none());
}
