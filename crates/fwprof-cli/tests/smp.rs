//! Several harts (issue 15): the `tests/smp` corpus (parallel sum with
//! LR/SC and AMOs, IPI ping-pong with and without interrupts, spinlocks;
//! 2 and 4 harts, RV32 and RV64) under `fwprof run --machine virt
//! --harts N` against live `qemu-system-riscv{32,64} -M virt -smp N`.
//!
//! The comparison with QEMU is by stdout and exit status only: QEMU's
//! round-robin gives each hart a slice of host time, fwprof a quantum of
//! instructions, so the two interleave the harts differently and their
//! per-address counts differ wherever a hart spins or waits. The programs
//! print only what does not depend on the interleaving.
//!
//! Then what only fwprof gives: the per-hart profile splits the work as
//! the program assigns it (tests/smp/README.md, "What a per-hart profile
//! must show"), and the same run twice gives the same profile.

mod common;

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

use common::{run_with_timeout, TimedRun};
use fwprof_profile::Profile;

const TIMEOUT: Duration = Duration::from_secs(30);

/// (program, harts it is built for, harts of the machine).
const CASES: &[(&str, u32)] = &[
    ("psum2", 2),
    ("psum2", 4),
    ("psum4", 4),
    ("ipi2", 2),
    ("ipi2", 4),
    ("ipi4", 4),
    ("ipi_irq2", 2),
    ("ipi_irq2", 4),
    ("ipi_irq4", 4),
    ("spinlock2", 2),
    ("spinlock2", 4),
    ("spinlock4", 4),
];

fn smp_elf(name: &str) -> PathBuf {
    common::built_elf("smp", name)
}

fn qemu_cmd(cfg: &str, harts: u32, elf: &Path) -> Command {
    let mut q = Command::new(match cfg {
        "rv32" => "qemu-system-riscv32",
        _ => "qemu-system-riscv64",
    });
    q.args(["-M", "virt", "-m", "128M", "-nographic"])
        .args(["-accel", "tcg,thread=single"])
        .args(["-smp", &harts.to_string(), "-bios", "none", "-kernel"])
        .arg(elf);
    q
}

fn fwprof_cmd(harts: u32, elf: &Path) -> Command {
    let mut f = Command::new(common::fwprof());
    f.args(["run", "--machine", "virt", "--harts", &harts.to_string()])
        .arg(elf);
    f
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

/// One case under QEMU and fwprof at once: a description of every
/// difference, also from the output recorded in tests/smp/expected.
fn compare(program: &str, cfg: &str, harts: u32) -> Result<String, String> {
    let elf = smp_elf(&format!("{program}.{cfg}.elf"));
    let (q, f): (TimedRun, TimedRun) = std::thread::scope(|s| {
        let q = s.spawn(|| run_with_timeout(qemu_cmd(cfg, harts, &elf), None, TIMEOUT));
        let f = s.spawn(|| run_with_timeout(fwprof_cmd(harts, &elf), None, TIMEOUT));
        (q.join().unwrap(), f.join().unwrap())
    });
    let name = format!("{program} -smp {harts} {cfg}");
    let mut errs = Vec::new();
    for (who, r) in [("QEMU", &q), ("fwprof", &f)] {
        if r.timed_out {
            errs.push(format!("{who} did not end within {TIMEOUT:?}"));
        }
    }
    if q.out.status.code() != f.out.status.code() {
        errs.push(format!(
            "exit status: qemu {:?}, fwprof {:?}",
            q.out.status, f.out.status
        ));
    }
    if q.out.stdout != f.out.stdout {
        errs.push(format!(
            "stdout differs:\n--- qemu\n{}--- fwprof\n{}",
            text(&q.out.stdout),
            text(&f.out.stdout)
        ));
    }
    let stem = if program.ends_with(&harts.to_string()) {
        format!("{program}.{cfg}")
    } else {
        format!("{program}-smp{harts}.{cfg}")
    };
    let recorded = common::repo().join(format!("tests/smp/expected/{stem}.out"));
    if std::fs::read(&recorded).ok().as_deref() != Some(&f.out.stdout[..]) {
        errs.push(format!(
            "fwprof's output differs from {}",
            recorded.display()
        ));
    }
    if errs.is_empty() {
        Ok(format!(
            "same {name}: status {:?} (qemu {:.2?}, fwprof {:.2?})",
            f.out.status.code(),
            q.elapsed,
            f.elapsed
        ))
    } else {
        Err(format!(
            "{name}:\n  {}\n  fwprof stderr: {}",
            errs.join("\n  "),
            text(&f.out.stderr)
        ))
    }
}

#[test]
fn corpus_matches_live_qemu_smp() {
    if !common::require(&[
        "qemu-system-riscv32",
        "qemu-system-riscv64",
        "riscv64-unknown-elf-gcc",
    ]) {
        return;
    }
    let mut failures = Vec::new();
    for cfg in ["rv32", "rv64"] {
        for &(program, harts) in CASES {
            match compare(program, cfg, harts) {
                Ok(line) => eprintln!("{line}"),
                Err(e) => failures.push(e),
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// `record` of `program` on `harts` harts into a temporary directory.
fn record(program: &str, harts: u32, extra: &[&str]) -> (tempfile::TempDir, PathBuf, Profile) {
    let dir = tempfile::tempdir().unwrap();
    let elf = smp_elf(program);
    let h = harts.to_string();
    let mut args = vec!["--machine", "virt", "--harts", &h];
    args.extend_from_slice(extra);
    let (out, p) = common::record_into(dir.path(), "p.prof", &elf, &args);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let path = dir.path().join("p.prof");
    (dir, path, p)
}

/// Per hart: (calls, self instructions) of `function` in the hart's
/// restricted profile.
fn per_hart(p: &Profile, harts: u32, function: &str) -> Vec<(u64, u64)> {
    (0..harts)
        .map(|h| {
            let one = fwprof_report::restrict_to_hart(p, h).unwrap();
            one.functions
                .iter()
                .find(|f| f.name == function)
                .map_or((0, 0), |f| (f.calls, f.self_cost[0]))
        })
        .collect()
}

#[test]
fn the_per_hart_profile_splits_the_work_as_the_program_assigns_it() {
    for cfg in ["rv32", "rv64"] {
        // psum: hart h calls term (h+1)·20000 times, 13 instructions each.
        let (_d, _, p) = record(&format!("psum4.{cfg}.elf"), 4, &[]);
        p.check_invariants().unwrap();
        let term = per_hart(&p, 4, "term");
        let want: Vec<(u64, u64)> = (0..4u64)
            .map(|h| ((h + 1) * 20_000, (h + 1) * 260_000))
            .collect();
        assert_eq!(term, want, "psum4.{cfg}: term per hart");
        let slices: Vec<u64> = per_hart(&p, 4, "sum_slice").iter().map(|c| c.0).collect();
        assert_eq!(slices, vec![1; 4], "psum4.{cfg}: sum_slice per hart");
        let threads: fwprof_profile::ThreadSection = p.section().unwrap().unwrap();
        let executed: u64 = threads.threads.iter().map(|t| t.executed).sum();
        assert_eq!(executed, p.totals[0], "the harts' counts add up");
        for (t, c) in threads.threads.iter().zip(threads.costs(&p)) {
            assert_eq!(t.executed, c[0], "{}: contexts carry its count", t.name);
        }
        // spinlock: 2000 of each lock operation on every hart.
        let (_d, _, p) = record(&format!("spinlock4.{cfg}.elf"), 4, &[]);
        for f in ["inc_amo", "spin_lock_amo", "inc_lrsc", "spin_unlock_lrsc"] {
            let calls: Vec<u64> = per_hart(&p, 4, f).iter().map(|c| c.0).collect();
            assert_eq!(calls, vec![2000; 4], "spinlock4.{cfg}: {f}");
        }
        // ipi_irq: 1000 interrupts handled on each of harts 0 and 1.
        let (_d, _, p) = record(&format!("ipi_irq4.{cfg}.elf"), 4, &[]);
        let calls: Vec<u64> = per_hart(&p, 4, "msi_handler").iter().map(|c| c.0).collect();
        assert_eq!(calls, vec![1000, 1000, 0, 0], "ipi_irq4.{cfg}");
        let pong: Vec<u64> = per_hart(&p, 4, "hit").iter().map(|c| c.0).collect();
        assert_eq!(pong, vec![1000, 1000, 0, 0], "ipi_irq4.{cfg}: hit");
    }
}

#[test]
fn a_run_on_several_harts_is_reproducible_and_the_quantum_is_kept() {
    let (_a, pa, a) = record("spinlock4.rv64.elf", 4, &["--quantum", "777"]);
    let (_b, _, b) = record("spinlock4.rv64.elf", 4, &["--quantum", "777"]);
    assert_eq!(a.totals, b.totals);
    assert_eq!(a.contexts, b.contexts);
    assert_eq!(a.costs, b.costs);
    let ta: fwprof_profile::ThreadSection = a.section().unwrap().unwrap();
    let tb: fwprof_profile::ThreadSection = b.section().unwrap().unwrap();
    assert_eq!(ta, tb);
    assert_eq!(ta.quantum, 777);
    // `report --per-hart` shows each hart; `--hart 9` is refused in one line.
    let dir = pa.parent().unwrap();
    let per_hart = common::fwprof_stdout(dir, &["report", "--per-hart", "-b", "p.prof"]);
    assert!(
        per_hart.contains("Harts: 4 (turns of 777 instructions"),
        "{per_hart}"
    );
    for h in 0..4 {
        assert!(
            per_hart.contains(&format!("==== hart {h} ====")),
            "{per_hart}"
        );
    }
    let out = common::run_fwprof(dir, &["report", "--hart", "9", "p.prof"]);
    assert_eq!(out.status.code(), Some(125));
    let err = text(&out.stderr);
    assert_eq!(
        err.trim(),
        "fwprof: cannot show --hart 9: the profile has no hart 9 (its harts: 0, 1, 2, 3)"
    );
    // A flame graph of one hart: only its stacks.
    let folded = common::fwprof_stdout(
        dir,
        &["export", "--format", "folded", "--hart", "2", "p.prof"],
    );
    assert!(folded.contains("inc_amo"), "{folded}");
    let all = common::fwprof_stdout(dir, &["export", "--format", "folded", "p.prof"]);
    let weight = |t: &str| -> u64 {
        t.lines()
            .filter_map(|l| l.rsplit(' ').next()?.parse::<u64>().ok())
            .sum()
    };
    assert_eq!(weight(&all), a.totals[0]);
    assert_eq!(weight(&folded), ta.threads[2].executed);
}

#[test]
fn several_harts_refuse_what_they_do_not_support_in_one_line() {
    let elf = smp_elf("psum2.rv64.elf");
    let dir = tempfile::tempdir().unwrap();
    for (args, want) in [
        (
            vec!["record", "--harts", "2", "--method", "sample"],
            "--method sample with --harts 2",
        ),
        (
            vec!["record", "--harts", "2", "--core", "generic"],
            "--core with --harts 2",
        ),
        (
            vec!["run", "--harts", "0"],
            "--harts 0: a machine has 1 to 64 harts",
        ),
        (vec!["run", "--harts", "2", "--quantum", "0"], "--quantum 0"),
    ] {
        let mut a = args.clone();
        let e = elf.display().to_string();
        a.push(&e);
        let out = common::run_fwprof(dir.path(), &a);
        assert!(!out.status.success(), "{args:?}");
        let err = text(&out.stderr);
        assert!(err.contains(want), "{args:?}: {err}");
        assert_eq!(err.trim().lines().count(), 1, "{err}");
    }
}
