//! Linux signals (issue 15 §2) against `qemu-riscv64` 7.2: the program of
//! `tests/signals` (one case per argument) installs SIGSEGV, SIGILL,
//! SIGTRAP, SIGBUS and SIGFPE handlers and recovers (`siglongjmp`, or a
//! handler that moves the frame's pc past the faulting instruction), reads
//! `siginfo_t` and the `ucontext_t`, runs on a `sigaltstack`, blocks and
//! unblocks signals, waits with `alarm`/`pause`/`sigsuspend`/
//! `sigtimedwait`/`nanosleep`, and dies of default actions. Each prints
//! what it saw. fwprof must give the same stdout and exit status as QEMU
//! and, for the cases without timers, the same executed-instruction count
//! at every address (QEMU's `-singlestep -d nochain,exec` trace,
//! `scripts/qemu-ref.py`): fwprof maps the sigreturn trampoline where
//! QEMU 7.2 maps its own. The timer cases are compared by output and
//! status only: QEMU's timers run in host time, fwprof's in guest time,
//! and the program prints nothing that depends on when they fire.
//!
//! RISC-V has no SIGFPE from arithmetic (division by zero gives -1 and
//! does not trap), so the SIGFPE case sends it with `raise()`.

mod common;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use fwprof_profile::Profile;

/// The committed test program (`tests/signals/build.sh`).
fn program() -> PathBuf {
    common::repo().join("tests/signals/sigtest.rv64-linux.elf")
}

/// Cases run the same way under QEMU, instruction for instruction.
const EXACT: [&str; 14] = [
    "segv",
    "ill",
    "trap_bus",
    "fpe",
    "siginfo",
    "altstack",
    "mask",
    "die_segv_blocked",
    "die_segv_ignored",
    "die_segv_in_handler",
    "die_bad_frame",
    "die_bad_handler",
    "die_abort",
    "die_kill",
];

/// Cases driven by `ITIMER_REAL`: output and status only.
const TIMED: [&str; 2] = ["alarm", "die_alarm"];

/// One run: stdout, the status a shell reports (128 + N for a death by
/// signal N), per-address counts.
struct Run {
    stdout: String,
    status: i64,
    counts: BTreeMap<u64, u64>,
}

/// QEMU's run of `elf CASE` in `dir`; `trace`: single-stepped, with the
/// per-address counts (slow: timers in host time would then fire at other
/// points of the program, so timed cases run without it).
fn qemu(dir: &Path, elf: &Path, case: &str, trace: bool) -> Run {
    let out = Command::new("python3")
        .arg(common::repo().join("scripts/qemu-ref.py"))
        .arg("run")
        .args((!trace).then_some("--no-trace"))
        .arg("--cwd")
        .arg(dir)
        .args(["--timeout", "300"])
        .arg(elf)
        .arg("--")
        .arg(case)
        .output()
        .expect("qemu-ref.py");
    assert!(
        out.status.success(),
        "qemu-ref.py {case}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).expect("qemu-ref.py JSON");
    let code = v["exit_code"].as_i64().expect("exit code");
    Run {
        stdout: v["stdout"].as_str().unwrap_or("").to_string(),
        status: if code < 0 { 128 - code } else { code },
        counts: if trace {
            common::qemu_counts(&v)
        } else {
            BTreeMap::new()
        },
    }
}

/// fwprof's `record` of `elf CASE` in `dir`, with QEMU's environment and
/// `argv[0]`; its run and profile.
fn fwprof(dir: &Path, elf: &Path, case: &str, extra: &[&str]) -> (Run, Profile) {
    let profile = dir.join(format!("{case}.fwprof"));
    let out = Command::new(common::fwprof())
        .current_dir(dir)
        .args(["record", "-q", "-o"])
        .arg(&profile)
        .args(extra)
        .args([
            "--clear-env",
            "-E",
            "PATH=/usr/bin:/bin",
            "-E",
            "LANG=C.UTF-8",
        ])
        .arg("--")
        .arg(elf)
        .arg(case)
        .stdin(Stdio::null())
        .output()
        .expect("fwprof");
    let p = Profile::read(&profile).unwrap_or_else(|e| {
        panic!(
            "{case}: no profile ({e}): {}",
            String::from_utf8_lossy(&out.stderr)
        )
    });
    p.check_invariants().unwrap();
    let run = Run {
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        status: i64::from(out.status.code().unwrap_or(-1)),
        counts: p.costs.iter().map(|c| (c.addr, c.cost[0])).collect(),
    };
    (run, p)
}

/// The program copied into a fresh directory (both runs use that copy).
fn setup() -> Option<(tempfile::TempDir, PathBuf)> {
    if !common::require(&["qemu-riscv64", "python3"]) {
        return None;
    }
    let tmp = tempfile::tempdir().unwrap();
    let elf = tmp.path().join("sigtest.rv64-linux.elf");
    std::fs::copy(program(), &elf).unwrap();
    Some((tmp, elf))
}

#[test]
fn signal_programs_behave_as_under_qemu() {
    let Some((tmp, elf)) = setup() else {
        return;
    };
    let mut failures = Vec::new();
    for case in EXACT.iter().chain(&TIMED) {
        let q = qemu(tmp.path(), &elf, case, EXACT.contains(case));
        let (f, _) = fwprof(tmp.path(), &elf, case, &[]);
        if (f.status, &f.stdout) != (q.status, &q.stdout) {
            failures.push(format!(
                "{case}: status fwprof {} qemu {}\n--- qemu\n{}--- fwprof\n{}",
                f.status, q.status, q.stdout, f.stdout
            ));
            continue;
        }
        if EXACT.contains(case) && f.counts != q.counts {
            let differ: Vec<String> = q
                .counts
                .keys()
                .chain(f.counts.keys())
                .filter(|a| q.counts.get(a) != f.counts.get(a))
                .take(8)
                .map(|a| {
                    format!(
                        "{a:#x}: qemu {:?} fwprof {:?}",
                        q.counts.get(a),
                        f.counts.get(a)
                    )
                })
                .collect();
            failures.push(format!("{case}: per-address counts differ: {differ:?}"));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn what_the_cases_saw() {
    // The expectations the QEMU comparison stands on, spelled out (the
    // kernel's answers): codes, addresses, the stack used, masks, timers.
    let Some((tmp, elf)) = setup() else {
        return;
    };
    let out = |case: &str| fwprof(tmp.path(), &elf, case, &[]).0;
    let segv = out("segv");
    assert_eq!(segv.status, 0);
    assert!(segv
        .stdout
        .contains("SIGSEGV 2: signo 11 code 1 addr-ok 1 pc-is-store 1"));
    assert!(segv
        .stdout
        .contains("read-only store: code 2 addr-ok 1 pc-is-store 1"));
    assert!(segv
        .stdout
        .contains("fetch fault: code 1 addr-ok 1 pc-ok 1"));
    let ill = out("ill").stdout;
    assert!(
        ill.contains("SIGILL: signo 4 code 1 addr-is-pc 1 pc-ok 1"),
        "{ill}"
    );
    assert!(ill.contains("r = 8, handler ran 2 times"), "{ill}");
    let fpe = out("fpe").stdout;
    assert!(
        fpe.contains("1/0 = -1, 1%0 = 1, handler ran 0 times"),
        "{fpe}"
    );
    assert!(
        fpe.contains("raise(SIGFPE): signo 8 code -6 pid-ok 1"),
        "{fpe}"
    );
    let alt = out("altstack").stdout;
    assert!(
        alt.contains("on the alternate stack 1, flags there 1"),
        "{alt}"
    );
    assert!(
        alt.contains("stack overflow caught on the alternate stack 1"),
        "{alt}"
    );
    let mask = out("mask").stdout;
    assert!(mask.contains("order: rb1u"), "{mask}");
    assert!(mask.contains("two at once: 21"), "{mask}");
    let alarm = out("alarm").stdout;
    assert!(
        alarm.contains("pause: -1 EINTR 1, alarms 1, signo 14"),
        "{alarm}"
    );
    assert!(
        alarm.contains("sigsuspend 2: -1 EINTR 1 alarms 3"),
        "{alarm}"
    );
    assert!(
        alarm.contains("sigtimedwait: 14 (SIGALRM 14) si_signo 14 code 128"),
        "{alarm}"
    );
    for (case, status) in [
        ("die_alarm", 142),
        ("die_kill", 143),
        ("die_segv_blocked", 139),
        ("die_segv_in_handler", 139),
        ("die_bad_frame", 139),
        ("die_abort", 134),
    ] {
        assert_eq!(out(case).status, status, "{case}");
    }
}

#[test]
fn sa_mask_is_read_as_linux_lays_it_out() {
    // QEMU 7.2 reads RISC-V's `struct sigaction` with a `sa_restorer` word
    // before `sa_mask` (RISC-V has none), so it blocks whatever follows
    // the caller's struct instead of `sa_mask`: SIGUSR2, raised in the
    // SIGUSR1 handler whose sa_mask blocks it, runs at once there ("121").
    // Linux (checked with the same program on x86-64) defers it until the
    // handler returns, and so does fwprof.
    let tmp = tempfile::tempdir().unwrap();
    let (f, _) = fwprof(tmp.path(), &program(), "sa_mask", &[]);
    assert_eq!(
        f.stdout,
        "sa_mask: order 112, SIGUSR2 blocked in the handler 1\n\
         sa_mask read back: SIGUSR2 1 SIGUSR1 0\n"
    );
}

#[test]
fn a_wait_nothing_can_end_is_a_one_line_error() {
    // pause() with no timer armed: Linux and QEMU would wait forever.
    let tmp = tempfile::tempdir().unwrap();
    let out = common::run_fwprof(
        tmp.path(),
        &["run", "--", program().to_str().unwrap(), "wait_forever"],
    );
    assert_eq!(out.status.code(), Some(125));
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(
        err.contains("pause") && err.contains("no timer is armed") && err.contains("wait forever"),
        "{err}"
    );
}

/// Function index by name.
fn function(p: &Profile, name: &str) -> usize {
    p.functions
        .iter()
        .position(|f| f.name == name)
        .unwrap_or_else(|| panic!("no function {name}"))
}

/// The functions of context `c` and its ancestors, innermost first.
fn path(p: &Profile, mut c: usize) -> Vec<String> {
    let mut v = vec![p.functions[p.contexts[c].function.index()].name.clone()];
    while let Some(parent) = p.contexts[c].parent {
        c = parent as usize;
        v.push(p.functions[p.contexts[c].function.index()].name.clone());
    }
    v
}

#[test]
fn the_handler_costs_sit_under_the_signal_root() {
    // `segv` faults 6 times (3 from `victim`, 3 elsewhere); its handler
    // runs `handler_work(1000)` each time, which `victim` also calls
    // (`handler_work(200)`) before it faults.
    let tmp = tempfile::tempdir().unwrap();
    let (run, p) = fwprof(tmp.path(), &program(), "segv", &[]);
    assert_eq!(run.status, 0);
    let root = function(&p, "[signal: SIGSEGV]");
    let (handler, work, victim) = (
        function(&p, "on_segv"),
        function(&p, "handler_work"),
        function(&p, "victim.constprop.0"),
    );
    assert_eq!(p.functions[root].calls, 6);
    assert_eq!(p.functions[handler].calls, 6);
    // Every context of the handler hangs from the signal root, which is a
    // root of the tree: none is under the interrupted function.
    for (i, c) in p.contexts.iter().enumerate() {
        let f = c.function.index();
        if f == root {
            assert!(c.parent.is_none(), "{:?}", path(&p, i));
        }
        let up = path(&p, i);
        if f == handler {
            assert_eq!(up, ["on_segv", "[signal: SIGSEGV]"]);
        }
        if f == work && up.contains(&"on_segv".to_string()) {
            assert_eq!(up, ["handler_work", "on_segv", "[signal: SIGSEGV]"]);
        }
        assert!(
            !(up.contains(&"on_segv".to_string())
                && up.contains(&"victim.constprop.0".to_string())),
            "{up:?}"
        );
    }
    // victim's inclusive cost is its own code and its 3 handler_work(200)
    // calls: the handler's handler_work(1000) calls are not in it.
    let under_root: u64 = p
        .contexts
        .iter()
        .enumerate()
        .filter(|(i, c)| c.function.index() == work && path(&p, *i).len() == 3)
        .map(|(_, c)| c.self_cost[0])
        .sum();
    let victim_inclusive = p.functions[victim].inclusive[0];
    assert!(
        victim_inclusive < under_root / 3,
        "victim {victim_inclusive}, handler's work {under_root}"
    );
    // The signal root's inclusive cost is its contexts' (the handler, its
    // callees and the siglongjmp out).
    assert!(p.functions[root].inclusive[0] >= under_root);
}

#[test]
fn sampling_keeps_the_signal_root() {
    // The sampler sees the handler's samples under the signal root, and
    // none of the code that runs after siglongjmp left the handler.
    let tmp = tempfile::tempdir().unwrap();
    let (run, p) = fwprof(
        tmp.path(),
        &program(),
        "segv",
        &["--method", "sample", "--period", "97"],
    );
    assert_eq!(run.status, 0);
    let root = function(&p, "[signal: SIGSEGV]");
    let work = function(&p, "handler_work");
    let printf_parts = ["__vfprintf_internal", "_IO_new_file_xsputn"];
    let mut under_root = 0;
    for (i, c) in p.contexts.iter().enumerate() {
        let up = path(&p, i);
        if up.last().map(String::as_str) != Some("[signal: SIGSEGV]") {
            continue;
        }
        assert!(
            !printf_parts.iter().any(|f| up.contains(&f.to_string())),
            "code after siglongjmp kept under the signal root: {up:?}"
        );
        if c.function.index() == work {
            under_root += c.self_cost[0];
        }
    }
    assert!(p.functions[root].inclusive[0] > 0);
    // handler_work(1000) six times under the root: most of its cost.
    assert!(
        under_root * 10 > p.functions[work].self_cost[0] * 7,
        "{under_root}"
    );
}
