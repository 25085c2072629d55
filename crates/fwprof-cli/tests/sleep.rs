//! Guest time asleep: Linux `nanosleep` and bare-metal `wfi` advance the
//! guest clock (100 ns ticks, one tick per cycle of the nominal 10 MHz
//! clock; with `--core` the clock counts modelled cycles) without running
//! an instruction.
//!
//! * Exact profiles record the time asleep (`meta.sleep_ns` of the report
//!   JSON, the text report's `the program slept ... ms` line): exactly
//!   1 ms per `nanosleep(1 ms)` of `ctxloss B`, 0 for a program that never
//!   sleeps.
//! * A sampler paced by cycles keeps counting while the program sleeps: on
//!   `ctxloss 256` every 1 ms sleep (10,000 cycles) holds exactly one point
//!   of a 10,000-cycle period, so exactly 256 points are `idle_samples`,
//!   and samples + idle points are the period boundaries of busy cycles +
//!   slept cycles. The report header and the Callgrind `desc:` say so. A
//!   sampler paced by instructions has no points in sleeps.
//! * Bare metal (`ctxloss.rv32imac.elf B`): each `wfi` sleeps until the
//!   next 1 ms boundary of `mtime`; the sleeps predicted from the program's
//!   instruction layout equal `meta.sleep_ns` exactly, and partial records
//!   (`--max-instructions`) show each wait ending on a multiple of 10,000
//!   ticks, counted in instructions without a core model and in modelled
//!   cycles with `--core generic`.

mod common;

use std::path::Path;

use serde_json::Value;

use common::{fwprof_output, fwprof_stdout, repo};

/// The Linux reliability workloads (`ctxloss B`: 2^21 units in B bursts,
/// `nanosleep(1 ms)` after each, in `pause_1ms`).
const LINUX: &str = "reliability/workloads.rv64-linux.elf";
/// The bare-metal kernel, run by this name from a scratch copy.
const BARE: &str = "ctxloss.rv32imac.elf";
/// Guest ticks (100 ns) in 1 ms.
const TICKS_PER_MS: u64 = 10_000;
/// Units of work of a `ctxloss` run.
const UNITS: u64 = 1 << 21;

/// `fwprof record OPTS -o NAME -- PROGRAM ARGS` in `dir` (which must
/// succeed), then `fwprof report --format json NAME`.
fn record(dir: &Path, name: &str, opts: &[&str], program: &str, args: &[&str]) -> Value {
    let mut a = vec!["record", "-q", "-o", name];
    a.extend_from_slice(opts);
    if program.ends_with(".rv64-linux.elf") {
        // The guest's environment changes its start-up (glibc's tunables):
        // an empty one keeps the counts below independent of the test's.
        a.push("--clear-env");
    }
    a.push("--");
    a.push(program);
    a.extend_from_slice(args);
    fwprof_output(dir, &a);
    report_json(dir, name)
}

/// `fwprof report --format json NAME` in `dir`.
fn report_json(dir: &Path, name: &str) -> Value {
    serde_json::from_str(&fwprof_stdout(dir, &["report", "--format", "json", name]))
        .expect("report JSON")
}

fn sleep_ns(report: &Value) -> u64 {
    report["meta"]["sleep_ns"].as_u64().expect("meta.sleep_ns")
}

fn total(report: &Value, event: &str) -> u64 {
    report["totals"][event].as_u64().unwrap()
}

/// A function's (calls, self, inclusive) EVENT in a report.
fn row(report: &Value, name: &str, event: &str) -> (u64, u64, u64) {
    let f = report["functions"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["name"] == name)
        .unwrap_or_else(|| panic!("no function {name}"));
    (
        f["calls"].as_u64().unwrap_or(0),
        f["self"][event].as_u64().unwrap(),
        f["inclusive"][event].as_u64().unwrap(),
    )
}

fn linux() -> String {
    repo().join(LINUX).display().to_string()
}

#[test]
fn exact_profiles_record_linux_sleeps() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let prog = linux();
    // ctxloss 16: sixteen nanosleep(1 ms), exactly 16 ms of guest time.
    let r16 = record(d, "c16.fwprof", &[], &prog, &["ctxloss", "16"]);
    assert_eq!(sleep_ns(&r16), 16_000_000);
    assert_eq!(row(&r16, "pause_1ms", "instructions").0, 16);
    let text = fwprof_stdout(d, &["report", "c16.fwprof"]);
    assert!(
        text.contains(
            "the program slept 16.000 ms (guest time): no instruction ran then, \
             so that time is in no function's cost."
        ),
        "{text}"
    );
    let r1 = record(d, "c1.fwprof", &[], &prog, &["ctxloss", "1"]);
    assert_eq!(sleep_ns(&r1), 1_000_000);
    assert!(fwprof_stdout(d, &["report", "c1.fwprof"]).contains("the program slept 1.000 ms"));
    // Sleeping ran no instruction: 15 more sleeps (and 15 more bursts)
    // cost 853 instructions (10,397,929 against 10,397,076 observed), not
    // the 150,000 ticks slept.
    let (i16, i1) = (total(&r16, "instructions"), total(&r1, "instructions"));
    assert!(i16 > i1 && i16 - i1 < 2_000, "{i16} vs {i1} instructions");

    // A program that never sleeps: 0, and no line.
    let none = record(d, "nomem.fwprof", &[], &prog, &["nomem", "100"]);
    assert_eq!(sleep_ns(&none), 0);
    let text = fwprof_stdout(d, &["report", "nomem.fwprof"]);
    assert!(!text.contains("slept"), "{text}");

    // With a core model the Linux sleeps are the same guest time, and no
    // function's cycles hold them: pause_1ms is 11,632 cycles inclusive for
    // 256 calls (45 a call) against 2,560,000 cycles slept.
    let core = record(
        d,
        "core.fwprof",
        &["--core", "generic"],
        &prog,
        &["ctxloss", "256"],
    );
    assert_eq!(sleep_ns(&core), 256_000_000);
    let (calls, _, inclusive) = row(&core, "pause_1ms", "cycles");
    assert_eq!(calls, 256);
    assert!(inclusive < 100 * calls, "pause_1ms {inclusive} cycles");
}

#[test]
fn a_cycles_paced_sampler_counts_the_points_in_sleeps() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let prog = linux();
    let args = ["ctxloss", "256"];
    // The exact busy cycles: 14,828,589 observed (10,411,961 instructions).
    let exact = record(d, "exact.fwprof", &["--core", "generic"], &prog, &args);
    let busy = total(&exact, "cycles");
    let slept = sleep_ns(&exact) / 100;
    assert_eq!(slept, 256 * TICKS_PER_MS);

    let sample = |name: &str, unit: &str, period: u64| -> Value {
        let p = period.to_string();
        let opts = [
            "--method", "sample", "--unit", unit, "--core", "generic", "--period", &p,
        ];
        record(d, name, &opts, &prog, &args)
    };
    let sampling = |r: &Value| -> (u64, u64) {
        let s = &r["sampling"];
        (
            s["samples"].as_u64().unwrap(),
            s["idle_samples"].as_u64().unwrap(),
        )
    };

    // Period 10,000 cycles = 1 ms: observed 1,482 samples and exactly 256
    // idle points (a sleep of one period holds exactly one point of the
    // period grid); 1,738 = ⌊(14,828,589 + 2,560,000) / 10,000⌋ points in
    // all (the last one may fall after the exit).
    let r = sample("s10k.fwprof", "cycles", 10_000);
    let (samples, idle) = sampling(&r);
    assert_eq!(idle, 256);
    assert_eq!(sleep_ns(&r), 256_000_000);
    let points = (busy + slept) / 10_000;
    assert!(
        (points - 1..=points).contains(&(samples + idle)),
        "{samples} + {idle} points, {points} period boundaries"
    );
    assert_eq!(total(&r, "samples"), samples);
    // No idle point is charged to the sleeping code: observed 1 sample in
    // pause_1ms's inclusive cost.
    let (_, _, in_pause) = row(&r, "pause_1ms", "samples");
    assert!(in_pause <= 3, "pause_1ms holds {in_pause} samples");
    let text = fwprof_stdout(d, &["report", "s10k.fwprof"]);
    let all = samples + idle;
    // Observed: `sampled profile: 1482 samples, period 10000 cycles, 1
    // stacks truncated; 256 more sampling points (14.7% of 1738) fell while
    // the program slept and saw no program code`.
    let header = text
        .lines()
        .find(|l| l.starts_with("sampled profile: "))
        .expect("sampling header");
    assert!(
        header.starts_with(&format!(
            "sampled profile: {samples} samples, period 10000 cycles"
        )),
        "{header}"
    );
    let tail = format!(
        "; 256 more sampling points ({:.1}% of {all}) fell while the program slept and saw \
         no program code",
        100.0 * idle as f64 / all as f64
    );
    assert!(header.ends_with(&tail), "{header}");
    assert!(
        text.contains("the program slept 256.000 ms (guest time)"),
        "{text}"
    );
    fwprof_output(
        d,
        &[
            "export",
            "--format",
            "callgrind",
            "s10k.fwprof",
            "-o",
            "s10k.cg",
        ],
    );
    let cg = std::fs::read_to_string(d.join("s10k.cg")).unwrap();
    let desc = cg
        .lines()
        .find(|l| l.starts_with("desc: "))
        .expect("desc line");
    // Observed: `desc: Profile: fwprof, sampled: 1482 samples, one every
    // 10000 cycles, 1 stacks not unwound to a root, 256 more while the
    // program slept (no program code) (values are estimates), ...`.
    assert!(
        desc.contains(&format!(
            "sampled: {samples} samples, one every 10000 cycles, "
        )) && desc.contains(
            ", 256 more while the program slept (no program code) (values are estimates)"
        ),
        "{desc}"
    );

    // Period 5,000: exactly two points in each sleep (observed 2,965 + 512).
    let r = sample("s5k.fwprof", "cycles", 5_000);
    let (samples, idle) = sampling(&r);
    assert_eq!(idle, 512);
    let points = (busy + slept) / 5_000;
    assert!((points - 1..=points).contains(&(samples + idle)));

    // Paced by instructions, a sleep executes none: no idle points, the
    // same sleep recorded, 1,041 = ⌊10,411,961 / 10,000⌋ samples.
    let r = sample("i10k.fwprof", "instructions", 10_000);
    let (samples, idle) = sampling(&r);
    assert_eq!(idle, 0);
    assert_eq!(sleep_ns(&r), 256_000_000);
    let points = total(&exact, "instructions") / 10_000;
    assert!(
        (points - 1..=points).contains(&samples),
        "{samples} vs {points}"
    );
    let text = fwprof_stdout(d, &["report", "i10k.fwprof"]);
    assert!(!text.contains("sampling points"), "{text}");
    assert!(text.contains("the program slept 256.000 ms (guest time)"));
    fwprof_output(
        d,
        &[
            "export",
            "--format",
            "callgrind",
            "i10k.fwprof",
            "-o",
            "i10k.cg",
        ],
    );
    let cg = std::fs::read_to_string(d.join("i10k.cg")).unwrap();
    let desc = cg.lines().find(|l| l.starts_with("desc: ")).unwrap();
    assert!(
        desc.contains("sampled: ") && !desc.contains("slept"),
        "{desc}"
    );
}

// ---- bare metal ----------------------------------------------------------
//
// `run_ctxloss_bare` calls `burst` then `pause_tick` B times. Instruction
// counts from the committed ELF's disassembly (`fwprof annotate`), checked
// against the profile below where they show there:
//
// * `burst`: 13 a unit + 20 a call, W = 13 × 2^21/B + 20.
// * `pause_tick`: 102 a call (51 own + 51 in `__udivdi3`): 4 before the
//   low-word read of `mtime` that the deadline is computed from, 85 from
//   that read through the `wfi`, 13 after it (the loop re-reads `mtime`
//   once and returns).
// * `run_ctxloss_bare`: 27 of prologue and epilogue and 9 a burst: 4 from
//   `burst`'s return to the `pause_tick` call, 1 loop branch, 4 to the next
//   `burst` call.
//
// Without a core model the clock is instructions + ticks asleep. With m the
// clock at the k-th low-word read, the wfi completes at m + 85 and sleeps
// to D = (⌊m / 10,000⌋ + 1) × 10,000; the next read is at D + W + 26
// (13 + 9 + 4). The first read is at P + W + 8, P being the instructions
// before `burst` first runs (start-up and argument parsing), taken from a
// partial record.

/// Instructions of `pause_tick` through its `wfi`.
const TO_WFI: u64 = 89;
/// Instructions from the deadline's `mtime` read through the `wfi`.
const READ_TO_WFI: u64 = 85;
/// Instructions from a wake to the next deadline read, besides a burst.
const WAKE_TO_READ: u64 = 26;
/// Instructions from `burst`'s return to `pause_tick`'s deadline read.
const BURST_TO_READ: u64 = 8;

/// A scratch directory holding a copy of the committed bare-metal ELF.
fn scratch() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    std::fs::copy(repo().join("reliability").join(BARE), dir.path().join(BARE)).unwrap();
    dir
}

/// Instructions per burst call for B bursts.
fn burst_len(bursts: u64) -> u64 {
    13 * (UNITS / bursts) + 20
}

/// P: instructions before `burst` first runs, from a record stopped inside
/// the first burst (everything else that ran is start-up).
fn prologue(dir: &Path, args: &[&str]) -> u64 {
    let mut a = vec![
        "record",
        "-q",
        "--max-instructions",
        "100000",
        "-o",
        "p.fwprof",
        "--",
        BARE,
    ];
    a.extend_from_slice(args);
    let out = common::run_fwprof(dir, &a);
    assert_eq!(
        out.status.code(),
        Some(124),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let r = report_json(dir, "p.fwprof");
    assert_eq!(total(&r, "instructions"), 100_000);
    100_000 - row(&r, "burst", "instructions").1
}

/// The ticks each `wfi` sleeps without a core model, from the layout above.
fn predicted_sleeps(p: u64, bursts: u64) -> Vec<u64> {
    let w = burst_len(bursts);
    let mut read = p + w + BURST_TO_READ;
    (0..bursts)
        .map(|_| {
            let deadline = (read / TICKS_PER_MS + 1) * TICKS_PER_MS;
            let woke = read + READ_TO_WFI;
            assert!(woke < deadline, "the wait at {read} would not sleep");
            read = deadline + w + WAKE_TO_READ;
            deadline - woke
        })
        .collect()
}

#[test]
fn bare_metal_wfi_sleeps_to_the_next_millisecond() {
    let dir = scratch();
    let d = dir.path();
    // Observed: P = 5,671 (B = 1 or 2), 5,689 ("16": strtol reads one more
    // digit), 5,766 ("16 wfi": the mode's strcmp); sleeps 1,240 ticks
    // (B = 1), 2,728 + 8,381 (B = 2), 262 + 15 × 5,933 = 89,257 (B = 16),
    // 185 + 15 × 5,933 (16 wfi).
    let runs: [(&[&str], u64); 4] = [
        (&["1"], 123_400),
        (&["2"], 1_110_300),
        (&["16"], 8_925_100),
        (&["16", "wfi"], 8_917_400),
    ];
    for (args, observed) in runs {
        let bursts: u64 = args[0].parse().unwrap();
        let r = record(d, "w.fwprof", &[], BARE, args);
        // The layout the prediction uses.
        assert_eq!(
            row(&r, "burst", "instructions").1,
            bursts * burst_len(bursts)
        );
        let (calls, _, pause) = row(&r, "pause_tick", "instructions");
        assert_eq!((calls, pause), (bursts, 102 * bursts), "{args:?}");
        assert_eq!(
            row(&r, "run_ctxloss_bare", "instructions").1,
            27 + 9 * bursts
        );

        let sleeps = predicted_sleeps(prologue(d, args), bursts);
        let ticks: u64 = sleeps.iter().sum();
        assert_eq!(sleep_ns(&r), 100 * ticks, "{args:?}: predicted {sleeps:?}");
        assert_eq!(sleep_ns(&r), observed, "{args:?}");
        assert!(sleeps.iter().all(|&s| s > 0 && s < TICKS_PER_MS));
    }
}

#[test]
fn bare_metal_waits_end_on_the_millisecond_with_or_without_a_core() {
    // Partial records of `ctxloss 16` stopped just before and just after
    // the k-th `wfi`: the k-th sleep starts exactly at that `wfi` and ends
    // when the clock (instructions, or modelled cycles with --core) plus
    // the ticks slept is a multiple of 10,000.
    let dir = scratch();
    let d = dir.path();
    let w = burst_len(16);
    let p = prologue(d, &["16"]);
    // Observed ticks slept after the 1st, 2nd and 16th wfi: 262, 6,195,
    // 89,257 without a core; 9,437, 16,667, 118,251 with --core generic
    // (its clock runs 1.62 cycles an instruction here, so each wait
    // starts elsewhere in the millisecond).
    for core in [&[][..], &["--core", "generic"][..]] {
        let event = if core.is_empty() {
            "instructions"
        } else {
            "cycles"
        };
        let mut before = 0;
        for k in [1u64, 2, 16] {
            let n = p + w + 4 + TO_WFI + (k - 1) * (w + READ_TO_WFI + WAKE_TO_READ);
            let at = |n: u64| -> (u64, u64) {
                let limit = n.to_string();
                let mut a = vec![
                    "record",
                    "-q",
                    "--max-instructions",
                    &limit,
                    "-o",
                    "k.fwprof",
                ];
                a.extend_from_slice(core);
                a.extend_from_slice(&["--", BARE, "16"]);
                let out = common::run_fwprof(d, &a);
                assert_eq!(out.status.code(), Some(124));
                let r = report_json(d, "k.fwprof");
                assert_eq!(total(&r, "instructions"), n);
                assert_eq!(sleep_ns(&r) % 100, 0);
                (total(&r, event), sleep_ns(&r) / 100)
            };
            let (_, ticks0) = at(n - 1);
            let (clock, ticks) = at(n);
            match k {
                1 => assert_eq!(ticks0, 0, "{core:?}: slept before the first wfi"),
                2 => assert_eq!(ticks0, before, "{core:?}: slept before the 2nd wfi"),
                _ => {}
            }
            if core.is_empty() {
                let sum: u64 = predicted_sleeps(p, 16)[..k as usize].iter().sum();
                assert_eq!(ticks, sum, "wfi {k}");
            }
            assert!(ticks > ticks0, "{core:?}: wfi {k} did not sleep");
            assert!(ticks - ticks0 < TICKS_PER_MS);
            assert_eq!(
                (clock + ticks) % TICKS_PER_MS,
                0,
                "{core:?} wfi {k}: {clock} + {ticks}"
            );
            before = ticks;
        }
        // Nothing sleeps after the 16th wfi.
        let r = record(d, "full.fwprof", core, BARE, &["16"]);
        assert_eq!(sleep_ns(&r), 100 * before, "{core:?}");
        // Busy polling never sleeps.
        let r = record(d, "poll.fwprof", core, BARE, &["16", "poll"]);
        assert_eq!(sleep_ns(&r), 0, "{core:?}");
    }
}
