//! The firmware trap corpus (`tests/firmware`, issue 13 §3) against QEMU 7.2
//! with deterministic time: QEMU runs with `-icount shift=N,sleep=off`
//! (`scripts/qemu-ref.py run --icount-shift N --with-rom`), fwprof with
//! `record --icount-shift N`. Both must give the same stdout and exit status
//! and the same executed-instruction count at every address, the reset ROM's
//! six instructions at 0x1000 included (QEMU counts them; see
//! docs/simulator.md, "Interrupts and QEMU's icount").
//!
//! The QEMU half (`qemu_reference_*`) runs now: every program passes its own
//! checks under QEMU, deterministically, at two shifts. The fwprof half is
//! runs in the same test file; select
//! one program with `FWPROF_FW_FILTER=timer_spin.rv64`.

mod common;

use std::collections::BTreeMap;
use std::path::Path;
use std::process::{Command, Stdio};

use fwprof_profile::Profile;

/// Every program of tests/firmware/build.sh, per configuration.
const PROGRAMS: &[&str] = &[
    "timer_spin",
    "timer_wfi",
    "soft_irq",
    "nested",
    "vectored",
    "deleg",
    "ecalls",
    "paging",
    "pmp",
    "coop",
];
const CONFIGS: &[&str] = &["rv32", "rv64"];
/// Shifts compared: 1 ns per instruction (100 per mtime tick) and 8 ns,
/// where deadlines fall between instructions and are rounded up.
const SHIFTS: &[u32] = &[0, 3];
/// The reset ROM QEMU runs before the ELF entry (hw/riscv/boot.c).
const ROM: std::ops::Range<u64> = 0x1000..0x1018;

/// QEMU's answer for one program at one shift.
struct QemuRun {
    exit_code: i64,
    stdout: String,
    counts: BTreeMap<u64, u64>,
    rom_instructions: u64,
    /// (instructions before it, async, cause) per trap, in order.
    traps: Vec<(u64, bool, u64)>,
}

fn qemu_run(elf: &Path, shift: u32) -> QemuRun {
    let out = Command::new("python3")
        .arg(common::repo().join("scripts/qemu-ref.py"))
        .args(["run", "--icount-shift", &shift.to_string(), "--with-rom"])
        .args(["--timeout", "300"])
        .arg(elf)
        .output()
        .expect("qemu-ref.py");
    assert!(
        out.status.success(),
        "qemu-ref.py failed on {}: {}",
        elf.display(),
        String::from_utf8_lossy(&out.stderr)
    );
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).expect("qemu-ref.py JSON");
    let counts = common::qemu_counts(&v);
    let traps = v["traps"]
        .as_array()
        .expect("traps")
        .iter()
        .map(|t| {
            (
                t["n"].as_u64().unwrap(),
                t["async"].as_bool().unwrap(),
                t["cause"].as_u64().unwrap(),
            )
        })
        .collect();
    QemuRun {
        exit_code: v["exit_code"].as_i64().unwrap_or(-1),
        stdout: v["stdout"].as_str().unwrap_or("").to_string(),
        counts,
        rom_instructions: v["rom_instructions"].as_u64().unwrap(),
        traps,
    }
}

fn have_tools() -> bool {
    common::require(&[
        "qemu-system-riscv32",
        "qemu-system-riscv64",
        "python3",
        "riscv64-unknown-elf-gcc",
        "riscv64-unknown-elf-nm",
    ])
}

/// The (program, config) pairs selected by `FWPROF_FW_FILTER` (substring of
/// `name.config`; empty = all).
fn selected() -> Vec<String> {
    let filter = std::env::var("FWPROF_FW_FILTER").unwrap_or_default();
    PROGRAMS
        .iter()
        .flat_map(|p| CONFIGS.iter().map(move |c| format!("{p}.{c}")))
        .filter(|n| n.contains(&filter))
        .collect()
}

/// Interrupts each program must take (cause without the interrupt bit).
fn expected_interrupts(program: &str) -> &'static [u64] {
    match program {
        "timer_spin" | "timer_wfi" => &[7],
        "soft_irq" => &[3, 7],
        "nested" => &[3, 7],
        "vectored" => &[3, 7],
        "deleg" => &[1, 5, 7],
        _ => &[],
    }
}

#[test]
fn qemu_reference_runs_every_program_deterministically() {
    if !have_tools() {
        return;
    }
    for name in selected() {
        let elf = common::firmware_elf(&format!("{name}.elf"));
        let program = name.split('.').next().unwrap();
        let mut by_shift = Vec::new();
        for &shift in SHIFTS {
            let q = qemu_run(&elf, shift);
            assert_eq!(
                q.exit_code, 0,
                "{name} at shift {shift}: its own checks failed under QEMU:\n{}",
                q.stdout
            );
            assert!(
                q.stdout.lines().count() >= 1,
                "{name}: no output under QEMU"
            );
            // The reset ROM: six instructions at 0x1000..0x1014, once each.
            assert_eq!(q.rom_instructions, 6, "{name}: reset ROM instructions");
            for a in ROM.clone().step_by(4) {
                assert_eq!(q.counts.get(&a), Some(&1), "{name}: ROM at {a:#x}");
            }
            for cause in expected_interrupts(program) {
                assert!(
                    q.traps.iter().any(|t| t.1 && t.2 == *cause),
                    "{name} at shift {shift}: no interrupt with cause {cause}: {:?}",
                    q.traps
                );
            }
            by_shift.push(q);
        }
        // Deterministic: the same run again gives the same counts and traps.
        let again = qemu_run(&elf, SHIFTS[0]);
        assert_eq!(again.stdout, by_shift[0].stdout, "{name}: stdout varies");
        assert_eq!(again.traps, by_shift[0].traps, "{name}: traps vary");
        assert!(again.counts == by_shift[0].counts, "{name}: counts vary");
        eprintln!(
            "{name}: QEMU deterministic, {} instructions at shift {}, {} traps",
            by_shift[0].counts.values().sum::<u64>(),
            SHIFTS[0],
            by_shift[0].traps.len()
        );
    }
}

/// Records `elf` under fwprof with `--icount-shift shift` and `--tier`
/// arguments `tier`; (exit code, stdout, stderr, profile).
fn fwprof_record(elf: &Path, shift: u32, tier: &[&str]) -> (i64, String, String, Profile) {
    let tmp = tempfile::tempdir().unwrap();
    let name = elf.file_name().unwrap().to_string_lossy().to_string();
    let copy = tmp.path().join(&name);
    std::fs::copy(elf, &copy).unwrap();
    let profile = tmp.path().join("p.fwprof");
    let out = Command::new(common::fwprof())
        .current_dir(tmp.path())
        .arg("record")
        .arg("-q")
        .args(["--icount-shift", &shift.to_string()])
        .arg("--tier")
        .args(tier)
        .arg("-o")
        .arg(&profile)
        .arg("--")
        // qemu-ref.py gives QEMU the base name as the semihosting command line.
        .arg(&name)
        .stdin(Stdio::null())
        .output()
        .expect("fwprof");
    let p = Profile::read(&profile).unwrap_or_else(|e| {
        panic!(
            "{name}: no profile ({e}); fwprof stderr: {}",
            String::from_utf8_lossy(&out.stderr)
        )
    });
    (
        i64::from(out.status.code().unwrap_or(-1)),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
        p,
    )
}

/// Compares one program at one shift; a description of every difference.
fn compare(name: &str, shift: u32) -> Result<(), String> {
    let elf = common::firmware_elf(&format!("{name}.elf"));
    let q = qemu_run(&elf, shift);
    let mut errs = Vec::new();
    for tier in common::TIERS {
        if let Err(e) = compare_tier(&elf, &q, shift, tier) {
            errs.push(format!("--tier {}: {e}", tier.join(" ")));
        }
    }
    if errs.is_empty() {
        Ok(())
    } else {
        Err(format!("{name} at shift {shift}:\n  {}", errs.join("\n  ")))
    }
}

/// Compares one program's run on one tier with QEMU's run `q`.
fn compare_tier(elf: &Path, q: &QemuRun, shift: u32, tier: &[&str]) -> Result<(), String> {
    let (code, stdout, stderr, p) = fwprof_record(elf, shift, tier);
    let mut errs = Vec::new();
    if tier[0] == "jit" {
        if let Err(e) = common::check_translated(&p, tier) {
            errs.push(e);
        }
    }
    if code != q.exit_code {
        errs.push(format!(
            "exit status: fwprof {code}, qemu {} (fwprof stderr: {stderr:?})",
            q.exit_code
        ));
    }
    if stdout != q.stdout {
        errs.push(format!(
            "stdout differs:\n--- qemu\n{}--- fwprof\n{stdout}",
            q.stdout
        ));
    }
    // QEMU counts per virtual address: add up the address spaces (paging
    // runs two programs at 0x400000, two functions at one address).
    let mut ours: BTreeMap<u64, u64> = BTreeMap::new();
    for c in p.costs.iter().filter(|c| c.cost[0] > 0) {
        *ours.entry(c.addr).or_default() += c.cost[0];
    }
    if ours != q.counts {
        let syms = common::nm_functions(elf);
        let mut diffs = Vec::new();
        let addrs: std::collections::BTreeSet<u64> =
            q.counts.keys().chain(ours.keys()).copied().collect();
        for a in addrs {
            let (qn, on) = (
                q.counts.get(&a).copied().unwrap_or(0),
                ours.get(&a).copied().unwrap_or(0),
            );
            if qn != on {
                diffs.push(format!(
                    "{a:#x} {}: qemu {qn} fwprof {on}",
                    common::name_at(&syms, a)
                ));
            }
        }
        errs.push(format!(
            "per-address counts differ at {} addresses (totals qemu {} fwprof {}); first:\n    {}",
            diffs.len(),
            q.counts.values().sum::<u64>(),
            ours.values().sum::<u64>(),
            diffs
                .iter()
                .take(12)
                .cloned()
                .collect::<Vec<_>>()
                .join("\n    ")
        ));
    }
    if errs.is_empty() {
        Ok(())
    } else {
        Err(errs.join("\n  "))
    }
}

#[test]
fn fwprof_matches_qemu_output_status_and_counts() {
    if !have_tools() {
        return;
    }
    let mut failures = Vec::new();
    for name in selected() {
        for &shift in SHIFTS {
            match compare(&name, shift) {
                Ok(()) => eprintln!("same {name} shift {shift}"),
                Err(e) => {
                    eprintln!("DIFFERENT {e}");
                    failures.push(e);
                }
            }
        }
    }
    assert!(
        failures.is_empty(),
        "{} runs differ from QEMU:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

/// main→work: exactly one call, whatever the interrupts in between (the call
/// graph must treat trap entry and mret as a context switch, not calls).
#[test]
fn main_calls_work_exactly_once() {
    if !have_tools() {
        return;
    }
    for name in ["timer_spin", "nested"] {
        for cfg in CONFIGS {
            let elf = common::firmware_elf(&format!("{name}.{cfg}.elf"));
            let (code, _, stderr, p) = fwprof_record(&elf, 0, &["jit"]);
            assert_eq!(code, 0, "{name}.{cfg}: {stderr}");
            let fname = |id| p.function(id).map_or("?", |f| f.name.as_str());
            let calls: u64 = p
                .arcs
                .iter()
                .filter(|a| {
                    a.caller.is_some_and(|c| fname(c) == "main") && fname(a.callee) == "work"
                })
                .map(|a| a.calls)
                .sum();
            assert_eq!(calls, 1, "{name}.{cfg}: main→work calls");
            let work = p.functions.iter().find(|f| f.name == "work").expect("work");
            assert_eq!(work.calls, 1, "{name}.{cfg}: work's call count");
        }
    }
}

/// The privileged instructions only this corpus runs (the differential
/// corpus has no S-mode code): `sret` and `sfence.vma` execute, on rv32 and
/// rv64, in the programs compared with QEMU above.
#[test]
fn sret_and_sfence_vma_are_executed() {
    if !have_tools() {
        return;
    }
    for cfg in CONFIGS {
        let mut sret = 0;
        let mut sfence = 0;
        for name in ["deleg", "paging"] {
            let elf = common::firmware_elf(&format!("{name}.{cfg}.elf"));
            let (code, _, stderr, p) = fwprof_record(&elf, 0, &["jit"]);
            assert_eq!(code, 0, "{name}.{cfg}: {stderr}");
            for c in p.costs.iter() {
                if c.raw == 0x1020_0073 {
                    sret += c.cost[0];
                }
                if c.raw & 0xfe00_7fff == 0x1200_0073 {
                    sfence += c.cost[0];
                }
            }
        }
        assert!(
            sret > 0 && sfence > 0,
            "{cfg}: sret {sret}, sfence.vma {sfence}"
        );
    }
}
