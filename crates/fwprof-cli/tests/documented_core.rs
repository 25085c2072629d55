//! Documented-core check: a program whose CPI is published for a core lands
//! within 5% of it when recorded with fwprof's description of that core.
//!
//! The core is PicoRV32 as its README benchmarks it (YosysHQ/picorv32
//! README.md, "Cycles per Instruction Performance"): "The following dhrystone
//! benchmark results are for a core with enabled `ENABLE_FAST_MUL`,
//! `ENABLE_DIV`, and `BARREL_SHIFTER` options. [...] For the Dhrystone
//! benchmark the average CPI is 4.100." Its description is
//! `tests/cores/picorv32-dhrystone.toml`, which cites every number.
//!
//! The program is the corpus Dhrystone 2.1 (`tests/corpus/src/dhrystone.c`)
//! built as PicoRV32's `dhrystone/Makefile` builds it (`-O3 -march=rv32im`,
//! 100 runs): `dhrystone.rv32im.O3.elf`.
//!
//! What is measured is what PicoRV32's `dhrystone/dhry_1.c` measures: the
//! program reads `rdcycle` and then `rdinstret` before the Number_Of_Runs
//! loop and again after it, and prints the differences (argument
//! `--counters`). Under `--core` fwprof's `rdcycle` returns the cycles the
//! model has charged before that instruction and `rdinstret` the
//! instructions executed before it, so the cycles cover
//! `[first rdcycle, second rdcycle)` and the instructions
//! `[first rdinstret, second rdinstret)`: the 100 runs, one counter read and
//! the few stores GCC puts between the loop and the reads. Start-up, printf
//! and the final checks are outside both, as on PicoRV32.

mod common;

use std::process::{Command, Stdio};

use fwprof_profile::{FunctionId, Profile};

/// PicoRV32 README.md: "For the Dhrystone benchmark the average CPI is 4.100."
const PUBLISHED_CPI: f64 = 4.100;
/// The tolerance: within 5% of the published value.
const TOLERANCE: f64 = 0.05;
/// Number_Of_Runs in the corpus program (and in PicoRV32's dhry_1.c).
const RUNS: u64 = 100;

/// `loop: C cycles, I instructions (rdcycle, rdinstret)` from the program's output.
fn loop_counters(stdout: &str) -> Option<(u64, u64)> {
    let line = stdout.lines().find(|l| l.starts_with("loop: "))?;
    let words: Vec<&str> = line.split_whitespace().collect();
    match words.as_slice() {
        ["loop:", c, "cycles,", i, "instructions", ..] => Some((c.parse().ok()?, i.parse().ok()?)),
        _ => None,
    }
}

/// Index of event `name` in `profile.events` (and so in `totals` and every cost vector).
fn event(profile: &Profile, name: &str) -> usize {
    profile
        .events
        .iter()
        .position(|e| e == name)
        .unwrap_or_else(|| panic!("no event {name} in {:?}", profile.events))
}

#[test]
fn dhrystone_on_picorv32_lands_within_5_percent_of_the_published_cpi() {
    // Building the corpus needs the bare-metal toolchain with picolibc.
    if !common::require(&["riscv64-unknown-elf-gcc"]) {
        return;
    }
    let elf = common::corpus_elf("dhrystone.rv32im.O3.elf");
    let core = common::repo().join("tests/cores/picorv32-dhrystone.toml");
    let dir = tempfile::tempdir().unwrap();
    let profile_path = dir.path().join("p.fwprof");
    let out = Command::new(common::fwprof())
        .current_dir(dir.path())
        .arg("record")
        .arg("--core")
        .arg(&core)
        .arg("-o")
        .arg(&profile_path)
        .arg("--")
        .arg(&elf)
        .arg("--counters")
        .stdin(Stdio::null())
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "fwprof record failed: {}\n{stdout}",
        String::from_utf8_lossy(&out.stderr)
    );
    // The benchmark ran correctly: every final value is the one it defines.
    assert!(
        stdout.contains("Arr_2_Glob[8][7]:    110\n")
            && stdout.contains("correct: 0 final values differ from the benchmark's"),
        "Dhrystone's final values are wrong:\n{stdout}"
    );
    let (cycles, instructions) =
        loop_counters(&stdout).unwrap_or_else(|| panic!("no counters printed:\n{stdout}"));
    let cpi = cycles as f64 / instructions as f64;
    let deviation = (cpi - PUBLISHED_CPI) / PUBLISHED_CPI;
    eprintln!(
        "documented core: Dhrystone on {}: {cycles} cycles, {instructions} instructions in the \
         {RUNS}-run loop (rdcycle/rdinstret): CPI {cpi:.3}, published {PUBLISHED_CPI:.3}, \
         deviation {:+.2}%; {} instructions and {} cycles per run, {:.3} DMIPS/MHz \
         (published 0.516)",
        core.file_name().unwrap().to_string_lossy(),
        deviation * 100.0,
        instructions / RUNS,
        cycles / RUNS,
        RUNS as f64 * 1e6 / cycles as f64 / 1757.0,
    );

    // The counters the guest read agree with fwprof's own accounting: the
    // procedures main calls inside the loop (and what they call) are part of
    // the interval, so their inclusive costs from the profile's call arcs
    // cannot exceed it, and they are most of it.
    let profile = Profile::read(&profile_path).unwrap();
    let (ins, cyc) = (event(&profile, "instructions"), event(&profile, "cycles"));
    assert_eq!(profile.meta.core.as_deref(), Some("picorv32-dhrystone"));
    let name = |f: FunctionId| profile.functions[f.0 as usize].name.as_str();
    let (mut arc_ins, mut arc_cyc) = (0u64, 0u64);
    for arc in &profile.arcs {
        let from_main = arc.caller.is_some_and(|c| name(c) == "main");
        let callee = name(arc.callee);
        if from_main && (callee.starts_with("Proc_") || callee.starts_with("Func_")) {
            let (i, c) = (arc.inclusive[ins], arc.inclusive[cyc]);
            eprintln!(
                "  main -> {callee}: {} calls, {i} instructions, {c} cycles (CPI {:.3})",
                arc.calls,
                c as f64 / i as f64
            );
            arc_ins += i;
            arc_cyc += c;
        }
    }
    assert!(
        arc_ins > instructions / 2 && arc_ins < instructions,
        "calls from the loop: {arc_ins} instructions of {instructions} measured"
    );
    assert!(
        arc_cyc > cycles / 2 && arc_cyc < cycles,
        "calls from the loop: {arc_cyc} cycles of {cycles} measured"
    );
    assert!(profile.totals[ins] > instructions && profile.totals[cyc] > cycles);

    assert!(
        deviation.abs() <= TOLERANCE,
        "CPI {cpi:.3} ({cycles} cycles / {instructions} instructions) is {:+.2}% from \
         PicoRV32's published {PUBLISHED_CPI}",
        deviation * 100.0
    );
}
