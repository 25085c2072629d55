//! The bare-metal forced-context-loss kernel
//! (`reliability/ctxloss.rv32imac.elf BURSTS [wfi|poll]`, source
//! `reliability/baremetal/ctxloss.c`): 2^21 units of work cut into BURSTS
//! bursts, each followed by a wait until about 1 ms of guest time has passed.
//!
//! * Under QEMU 7.2 (`qemu-system-riscv32 -M virt`, run as the differential
//!   tests run it, through `scripts/qemu-ref.py`) and under `fwprof run` it
//!   prints the same line and exits with the same status, in both wait modes
//!   and on bad arguments; QEMU really waits in host time.
//! * `wfi` mode: the wait is a `wfi` on the CLINT's machine timer, so it
//!   executes only tens of instructions per call, and the profile holds the
//!   work and almost nothing else; the time waited is guest time asleep
//!   (`meta.sleep_ns`), under 1 ms a call.
//! * `poll` mode: the same wait as a busy loop on the semihosting clock
//!   (`SYS_ELAPSED`), i.e. program code: about 10,000 instructions a call
//!   (1 ms at fwprof's 100 ns per instruction), no sleep; with `--core` the
//!   semihosting clock counts modelled cycles, so the wait is about 10,000
//!   cycles a call and fewer instructions.
//!
//! `tests/sleep.rs` predicts the wfi sleeps exactly.

mod common;

use std::path::Path;
use std::process::{Command, Output, Stdio};

use fwprof_profile::Profile;
use serde_json::Value;

use common::{repo, require, run_fwprof};

/// The committed ELF's file name; tests run a copy by this name from a
/// scratch directory, so QEMU (`arg=<basename>`) and fwprof give the
/// program the same command line.
const ELF: &str = "ctxloss.rv32imac.elf";
/// Units of work of the whole run.
const UNITS: u64 = 1 << 21;
/// Instructions per unit in `burst`'s loop (64-bit LCG step on rv32imac -O2:
/// three `mul`, one `mulhu`, carries, counter, branch).
const PER_UNIT: u64 = 13;
/// Guest ticks (100 ns) in 1 ms: what a busy wait of 1 ms executes at one
/// instruction per tick.
const TICKS_PER_MS: u64 = 10_000;
/// `wfi` (Privileged ISA 20211203, §3.3.3).
const WFI: u32 = 0x1050_0073;

/// The checksum the program prints: the 64-bit LCG state from 1 after
/// BURSTS × (2^21 / BURSTS) steps.
fn checksum(bursts: u64) -> String {
    let mut s: u64 = 1;
    for _ in 0..bursts * (UNITS / bursts) {
        s = s
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
    }
    format!("{s:016x}")
}

/// A scratch directory holding a copy of the committed ELF.
fn scratch() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    std::fs::copy(repo().join("reliability").join(ELF), dir.path().join(ELF)).unwrap();
    dir
}

/// QEMU's run of the copy in `dir`: `{exit_code, stdout, stderr, seconds}`
/// from `scripts/qemu-ref.py run --no-trace`.
fn qemu(dir: &Path, args: &[&str]) -> Value {
    let out = Command::new("python3")
        .arg(repo().join("scripts/qemu-ref.py"))
        .args(["run", "--no-trace", "--timeout", "60", "--cwd"])
        .arg(dir)
        .arg(dir.join(ELF))
        .arg("--")
        .args(args)
        .stdin(Stdio::null())
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "qemu-ref.py {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).expect("qemu-ref.py JSON")
}

/// `fwprof run -- ctxloss.rv32imac.elf ARGS` in `dir`.
fn fwprof_run(dir: &Path, args: &[&str]) -> Output {
    let mut a = vec!["run", "--", ELF];
    a.extend_from_slice(args);
    run_fwprof(dir, &a)
}

#[test]
fn qemu_and_fwprof_print_the_same_in_both_wait_modes() {
    if !require(&["qemu-system-riscv32", "python3"]) {
        return;
    }
    let dir = scratch();
    let runs: [&[&str]; 5] = [
        &["1"],
        &["16"],
        &["16", "wfi"],
        &["1", "poll"],
        &["16", "poll"],
    ];
    for args in runs {
        let q = qemu(dir.path(), args);
        let f = fwprof_run(dir.path(), args);
        let stdout = String::from_utf8_lossy(&f.stdout);
        assert_eq!(q["exit_code"], 0, "qemu {args:?}: {q}");
        assert_eq!(
            f.status.code(),
            Some(0),
            "fwprof {args:?}: {}",
            String::from_utf8_lossy(&f.stderr)
        );
        assert_eq!(q["stdout"].as_str().unwrap(), stdout, "{args:?}");
        // Both ran the whole work: the LCG state after 2^21 steps.
        let b: u64 = args[0].parse().unwrap();
        assert_eq!(stdout, format!("ctxloss {b} {}\n", checksum(b)), "{args:?}");
    }
    // Bad arguments: a message and exit status 2 on both. picolibc's
    // semihosting stdio has one console FILE (`stderr` = `stdout`, written
    // with SYS_WRITEC), so the message is on stdout under both.
    let bad: [(&[&str], &str); 4] = [
        (&[], "usage: ctxloss BURSTS [wfi|poll]"),
        (&["0"], "BURSTS must be an integer in 1..2097152, not '0'"),
        (&["2097153"], "not '2097153'"),
        (&["3", "nap"], "MODE must be wfi or poll, not 'nap'"),
    ];
    for (args, message) in bad {
        let q = qemu(dir.path(), args);
        let f = fwprof_run(dir.path(), args);
        assert_eq!(q["exit_code"], 2, "qemu {args:?}: {q}");
        assert_eq!(f.status.code(), Some(2), "fwprof {args:?}");
        let out = String::from_utf8_lossy(&f.stdout);
        assert!(out.contains(message), "fwprof {args:?}: {out}");
        assert_eq!(q["stdout"].as_str().unwrap(), out, "{args:?}");
        assert_eq!(q["stderr"], "", "{args:?}");
    }
}

#[test]
fn qemu_waits_in_host_time() {
    if !require(&["qemu-system-riscv32", "python3"]) {
        return;
    }
    // After each of b bursts the program waits: `poll` a full 1 ms of
    // SYS_ELAPSED (host nanoseconds in QEMU), `wfi` until the next 1 ms
    // boundary of mtime (QEMU's virtual clock, which follows host time
    // without -icount). Consecutive wfi waits end at distinct boundaries, so
    // b waits span at least b - 1 ms. Observed on the 2-core test machine
    // (QEMU wall time, start-up included): 200 bursts 0.26 s (wfi) and
    // 0.24-0.32 s (poll); 16 bursts 0.05-0.07 s in either mode.
    let dir = scratch();
    for (mode, at_least) in [("wfi", 0.199), ("poll", 0.200)] {
        let q = qemu(dir.path(), &["200", mode]);
        assert_eq!(q["exit_code"], 0, "{q}");
        assert_eq!(
            q["stdout"].as_str().unwrap(),
            format!("ctxloss 200 {}\n", checksum(200))
        );
        let secs = q["seconds"].as_f64().unwrap();
        assert!(
            secs >= at_least,
            "{mode}: 200 waits took {secs} s under QEMU"
        );
    }
}

/// A function's row of `fwprof report --format json`: (calls, self,
/// inclusive) instructions; None when it never ran (the report lists every
/// function of the symbol table).
fn row(report: &Value, name: &str) -> Option<(u64, u64, u64)> {
    report["functions"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["name"] == name && f["inclusive"]["instructions"] != 0)
        .map(|f| {
            (
                f["calls"].as_u64().unwrap(),
                f["self"]["instructions"].as_u64().unwrap(),
                f["inclusive"]["instructions"].as_u64().unwrap(),
            )
        })
}

/// `fwprof record` of ARGS in `dir`, its `report --format json`, and the
/// profile.
fn record(dir: &Path, name: &str, args: &[&str]) -> (Value, Profile) {
    record_with(dir, name, &[], args)
}

/// [`record`] with record options OPTS (e.g. `--core generic`).
fn record_with(dir: &Path, name: &str, opts: &[&str], args: &[&str]) -> (Value, Profile) {
    let mut a = vec!["record", "-q", "-o", name];
    a.extend_from_slice(opts);
    a.extend_from_slice(&["--", ELF]);
    a.extend_from_slice(args);
    let out = run_fwprof(dir, &a);
    assert_eq!(
        out.status.code(),
        Some(0),
        "record {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let b: u64 = args[0].parse().unwrap();
    assert_eq!(
        String::from_utf8_lossy(&out.stdout),
        format!("ctxloss {b} {}\n", checksum(b))
    );
    let rep = run_fwprof(dir, &["report", "--format", "json", name]);
    assert_eq!(rep.status.code(), Some(0));
    let report: Value = serde_json::from_slice(&rep.stdout).expect("report JSON");
    let p = Profile::read(dir.join(name)).unwrap();
    p.check_invariants().unwrap();
    (report, p)
}

fn total(report: &Value) -> u64 {
    report["totals"]["instructions"].as_u64().unwrap()
}

/// `burst`'s self instructions: the 2^21 units of 13 instructions and a few
/// instructions of entry and exit per call (20 observed).
fn check_work(report: &Value, bursts: u64) -> u64 {
    let (calls, work, _) = row(report, "burst").expect("burst ran");
    assert_eq!(calls, bursts);
    assert!(
        (UNITS * PER_UNIT..=UNITS * PER_UNIT + 40 * bursts).contains(&work),
        "burst executed {work} instructions"
    );
    work
}

#[test]
fn wfi_waits_execute_tens_of_instructions() {
    let dir = scratch();
    let (report, p) = record(dir.path(), "wfi.fwprof", &["16"]);
    // Observed: total 27,275,155 instructions, of which burst 27,263,296
    // (16 × (131,072 × 13 + 20)): the work is 99.96% of the run.
    let work = check_work(&report, 16);
    let all = total(&report);
    assert!(
        all >= work && all - work <= work / 100,
        "{all} instructions for {work} of work"
    );
    // pause_tick: 51 instructions a call, 102 with its 64-bit division
    // (__udivdi3); a busy wait of the same sleeps would have executed up to
    // 10,000 a call (one instruction per 100 ns tick).
    let (calls, own, inclusive) = row(&report, "pause_tick").expect("pause_tick ran");
    assert_eq!(calls, 16);
    assert!(own <= 80 * calls, "pause_tick self {own}");
    assert!(inclusive <= 200 * calls, "pause_tick inclusive {inclusive}");
    assert!(inclusive * 50 < TICKS_PER_MS * calls);
    assert!(row(&report, "pause_poll").is_none());
    assert!(row(&report, "sys_semihost_elapsed").is_none());
    // Every call slept in exactly one wfi and woke with mtime past its
    // deadline: the loop `while (mtime() < deadline) wfi` ran once, so
    // the guest clock advanced over the sleep, with no instruction executed.
    let wfi: Vec<(u64, u64)> = p
        .costs
        .iter()
        .filter(|c| c.raw == WFI)
        .map(|c| (c.addr, c.cost[0]))
        .collect();
    assert_eq!(wfi.len(), 1, "{wfi:x?}");
    assert_eq!(wfi[0].1, 16, "wfi executed {} times", wfi[0].1);
    let f = p.functions.iter().find(|f| f.name == "pause_tick").unwrap();
    assert!((f.start..f.end).contains(&wfi[0].0));
    // The clock ran on while the hart slept: 8,925,100 ns observed (the
    // first wait 256 ticks of 100 ns — the reset ROM's six instructions ran
    // before the program — then 5,933 each), in the report
    // JSON as in the profile, and each wait under 1 ms (it ends at the next
    // 1 ms boundary of mtime).
    let slept = p.meta.sleep_ns;
    assert_eq!(report["meta"]["sleep_ns"].as_u64(), Some(slept));
    assert!(slept > 0, "the wfi waits did not sleep");
    assert!(slept < 16 * 1_000_000, "slept {slept} ns in 16 waits");
    assert_eq!(slept, 8_925_100);

    // One burst: the same work and one short wait.
    let (report, _) = record(dir.path(), "wfi1.fwprof", &["1", "wfi"]);
    assert!(check_work(&report, 1) <= work);
    let (calls, _, inclusive) = row(&report, "pause_tick").unwrap();
    assert_eq!(calls, 1);
    assert!(inclusive <= 200);
    // Observed 115,700 ns: the wfi runs 1,157 ticks before a 1 ms boundary
    // (123,400 ns for `1` alone: parsing the mode takes 77 instructions).
    let slept = report["meta"]["sleep_ns"].as_u64().unwrap();
    assert!((1..1_000_000).contains(&slept), "slept {slept} ns");
    assert_eq!(slept, 115_700);
}

#[test]
fn poll_waits_are_program_code() {
    let dir = scratch();
    let (poll, _) = record(dir.path(), "poll.fwprof", &["16", "poll"]);
    let (wfi, _) = record(dir.path(), "wfi.fwprof", &["16", "wfi"]);
    let work = check_work(&poll, 16);
    assert_eq!(work, check_work(&wfi, 16), "same work in both modes");
    // Observed: pause_poll 2,211 self and 10,068 inclusive instructions a
    // call (314 SYS_ELAPSED reads of 25 instructions each, with picolibc's
    // save/restore millicode and the semihosting trap): at 100 ns an
    // instruction, 1 ms of SYS_ELAPSED is 10,000 instructions.
    let (calls, own, inclusive) = row(&poll, "pause_poll").expect("pause_poll ran");
    assert_eq!(calls, 16);
    assert!(own >= 1_000 * calls, "pause_poll self {own}");
    assert!(
        (TICKS_PER_MS * calls..=(TICKS_PER_MS + 200) * calls).contains(&inclusive),
        "pause_poll inclusive {inclusive}"
    );
    let (reads, _, _) = row(&poll, "sys_semihost_elapsed").unwrap();
    assert!(reads >= 300 * calls, "{reads} SYS_ELAPSED reads");
    assert!(row(&poll, "pause_tick").is_none());
    // Total: 27,434,689 (poll) against 27,275,155 (wfi) instructions: the
    // busy waits, 159,534 instructions, are 0.6% of the run, all of it in
    // the profile.
    assert!(total(&poll) >= total(&wfi) + (TICKS_PER_MS - 200) * calls);
    // A busy wait is no sleep: the clock advanced by executing only.
    assert_eq!(poll["meta"]["sleep_ns"], 0);
    // In `wfi` mode each of the 16 waits sleeps until the next 1 ms
    // boundary of mtime: more than 0 and at most 1 ms, in whole 100 ns
    // ticks of the 10 MHz mtime; the run is deterministic (observed
    // 8,917,400 ns: 557 us a wait on average).
    let slept = wfi["meta"]["sleep_ns"].as_u64().unwrap();
    assert!(
        (calls..=calls * 1_000_000).contains(&slept) && slept % 100 == 0,
        "slept {slept} ns in {calls} waits"
    );
    assert_eq!(slept, 8_917_400);

    // With a core model the semihosting clock counts modelled cycles: the
    // wait is 1 ms = 10,000 cycles a call (observed 161,962 cycles
    // inclusive for 16 calls, 10,122 a call) in fewer instructions (8,498 a
    // call, at 1.2 cycles an instruction), and still no sleep.
    let (core, _) = record_with(
        dir.path(),
        "core.fwprof",
        &["--core", "generic"],
        &["16", "poll"],
    );
    assert_eq!(core["meta"]["sleep_ns"], 0);
    let f = core["functions"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["name"] == "pause_poll")
        .unwrap();
    assert_eq!(f["calls"], 16);
    let cycles = f["inclusive"]["cycles"].as_u64().unwrap();
    let instructions = f["inclusive"]["instructions"].as_u64().unwrap();
    assert!(
        (TICKS_PER_MS * calls..=(TICKS_PER_MS + 200) * calls).contains(&cycles),
        "pause_poll inclusive {cycles} cycles"
    );
    assert!(
        instructions < (TICKS_PER_MS - 1_000) * calls,
        "pause_poll inclusive {instructions} instructions"
    );
}
