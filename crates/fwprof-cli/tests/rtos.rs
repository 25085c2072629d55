//! An RTOS's tasks told apart without help from the OS (issue 15, part 3),
//! on `tests/rtos` (a preemptive kernel, three tasks with known work, a
//! queue, an interrupt-driven UART; its facts are in tests/rtos/README.md):
//!
//! * the four builds print what QEMU prints (live `qemu-system-riscv*`,
//!   and the recorded `expected/` output);
//! * `report --per-task`'s tasks get exactly their own calls (every
//!   `work_a` on task A…), the kernel's trap contexts their exact counts,
//!   and the tasks' instructions add up to the run's;
//! * the stack high-water marks equal the ones the program measures by
//!   painting its stacks (the kernel stack's up to 12 bytes deeper: a
//!   frame reserved but not written to its bottom, README "Painted marks
//!   and the lowest sp");
//! * the `-finstrument-functions` builds' compensated self instructions
//!   agree with the exact profile of the same ELF within 2%, across tasks,
//!   interrupts and the scheduler;
//! * a kernel that switches by a call (`tests/firmware/src/coop.c`) is
//!   one task without `--task-hint` and its three with it.

mod common;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

use common::run_with_timeout;
use fwprof_profile::{Profile, StackSection, TaskSection};

const CASES: [&str; 4] = [
    "rtos.rv32",
    "rtos.rv64",
    "rtos_instr.rv32",
    "rtos_instr.rv64",
];

fn elf(case: &str) -> PathBuf {
    common::built_elf("rtos", &format!("{case}.elf"))
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

/// Record `case` exactly (plus `args`) into `dir`; its stdout and profile.
fn record(dir: &Path, case: &str, args: &[&str]) -> (String, Profile) {
    let mut all = vec!["--machine", "virt"];
    all.extend_from_slice(args);
    let (out, p) = common::record_into(dir, &format!("{case}.prof"), &elf(case), &all);
    assert!(out.status.success(), "{case}: {}", text(&out.stderr));
    p.check_invariants()
        .unwrap_or_else(|e| panic!("{case}: invariants: {e}"));
    (text(&out.stdout), p)
}

fn function<'p>(p: &'p Profile, name: &str) -> Option<&'p fwprof_profile::FunctionRecord> {
    p.functions.iter().find(|f| f.name == name)
}

/// Calls of `name` in `p` (0 if it is not there).
fn calls(p: &Profile, name: &str) -> u64 {
    function(p, name).map_or(0, |f| f.calls)
}

#[test]
fn output_and_status_are_qemus() {
    let have_qemu = common::require(&["qemu-system-riscv32", "qemu-system-riscv64"]);
    let dir = tempfile::tempdir().unwrap();
    let mut failures = Vec::new();
    for case in CASES {
        let qemu = if case.ends_with("rv32") {
            "qemu-system-riscv32"
        } else {
            "qemu-system-riscv64"
        };
        let expected = common::repo().join("tests/rtos/expected");
        let want = std::fs::read(expected.join(format!("{case}.out"))).unwrap();
        let status: i32 = std::fs::read_to_string(expected.join(format!("{case}.status")))
            .unwrap()
            .trim()
            .parse()
            .unwrap();
        let mut f = Command::new(common::fwprof());
        f.current_dir(dir.path())
            .args(["record", "-q", "--machine", "virt", "-o"])
            .arg(format!("{case}.prof"))
            .arg("--")
            .arg(elf(case));
        let mut q = Command::new(qemu);
        q.args([
            "-M",
            "virt",
            "-m",
            "128M",
            "-nographic",
            "-bios",
            "none",
            "-kernel",
        ])
        .arg(elf(case));
        let (f, q) = std::thread::scope(|s| {
            let f = s.spawn(|| run_with_timeout(f, None, Duration::from_secs(120)));
            let q = have_qemu.then(|| run_with_timeout(q, None, Duration::from_secs(60)));
            (f.join().unwrap(), q)
        });
        if f.out.stdout != want || f.out.status.code() != Some(status) {
            failures.push(format!(
                "{case}: fwprof {:?}\n{}{}",
                f.out.status.code(),
                text(&f.out.stdout),
                text(&f.out.stderr)
            ));
        }
        if let Some(q) = q {
            if q.out.stdout != f.out.stdout || q.out.status.code() != f.out.status.code() {
                failures.push(format!(
                    "{case}: qemu {:?}\n{}",
                    q.out.status.code(),
                    text(&q.out.stdout)
                ));
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// Each task's own report holds exactly its calls (tests/rtos/README.md,
/// "Calls per task"), and the kernel's contexts theirs.
fn check_tasks(case: &str, p: &Profile) {
    let sec: TaskSection = p.section().unwrap().expect("a tasks section");
    let names: Vec<&str> = sec.tasks.iter().map(|t| t.name.as_str()).collect();
    assert_eq!(names[0], "_start", "{case}: the run starts in _start");
    let mut sorted = names.clone();
    sorted.sort_unstable();
    assert_eq!(
        sorted,
        ["_start", "idle_task", "task_a", "task_b", "task_c"],
        "{case}"
    );
    let executed: u64 = sec.tasks.iter().map(|t| t.executed).sum();
    assert_eq!(executed, p.totals[0], "{case}: the tasks' instructions");
    for (t, c) in sec.tasks.iter().zip(sec.costs(p)) {
        assert_eq!(
            t.executed, c[0],
            "{case} {}: its contexts carry its count",
            t.name
        );
    }
    assert_eq!(
        sec.switches,
        calls(p, "sched_switch"),
        "{case}: one switch per sched_switch that switched"
    );
    // (task, function, calls): the README's table.
    let own: [(&str, &[(&str, u64)]); 4] = [
        (
            "task_a",
            &[
                ("work_a", 300),
                ("queue_send", 300),
                ("task_yield", 3),
                ("kcall", 1204),
                ("task_exit", 1),
            ],
        ),
        (
            "task_b",
            &[
                ("work_b", 200),
                ("queue_send", 200),
                ("task_yield", 4),
                ("kcall", 805),
                ("task_exit", 1),
            ],
        ),
        (
            "task_c",
            &[
                ("work_c", 100),
                ("queue_recv", 500),
                ("task_yield", 4),
                ("uart_write", 2),
                ("kcall", 2007),
            ],
        ),
        (
            "_start",
            &[
                ("thread_create", 4),
                ("uart_write", 10),
                ("kcall", 11),
                ("sched_start", 1),
            ],
        ),
    ];
    let whole = |f: &str| function(p, f).map_or(0, |r| r.self_cost[0]);
    for (task, want) in own {
        let one = fwprof_report::restrict_to_task(p, task).unwrap();
        for &(f, n) in want {
            assert_eq!(calls(&one, f), n, "{case} {task}: calls of {f}");
        }
        for w in ["work_a", "work_b", "work_c"] {
            let mine = want.iter().any(|&(f, _)| f == w);
            let cost = function(&one, w).map_or(0, |r| r.self_cost[0]);
            // All of a work function's instructions are its task's.
            assert_eq!(cost, if mine { whole(w) } else { 0 }, "{case} {task}: {w}");
        }
        let t = sec.tasks.iter().find(|t| t.name == task).unwrap();
        if task != "_start" {
            assert!(t.involuntary > 0, "{case} {task}: pre-empted");
            assert!(t.voluntary > 0, "{case} {task}: yields and blocks");
        }
    }
    // The kernel: one irq_dispatch per trap, one syscall_dispatch per
    // ecall, one timer_isr per timer interrupt, in trap contexts only.
    let traps: u64 = p.traps.iter().map(|t| t.count).sum();
    assert_eq!(calls(p, "irq_dispatch"), traps, "{case}");
    let ecalls: u64 = p
        .traps
        .iter()
        .filter(|t| t.cause == 11)
        .map(|t| t.count)
        .sum();
    assert_eq!(calls(p, "syscall_dispatch"), ecalls, "{case}");
    let idle = fwprof_report::restrict_to_task(p, "idle_task").unwrap();
    assert_eq!(
        ecalls,
        1204 + 805 + 2007 + 11 + calls(&idle, "kcall"),
        "{case}"
    );
    assert_eq!(calls(p, "uart_tx_put"), 12, "{case}");
}

#[test]
fn each_task_gets_exactly_its_work() {
    let dir = tempfile::tempdir().unwrap();
    for case in ["rtos.rv32", "rtos.rv64"] {
        let (_, p) = record(dir.path(), case, &[]);
        check_tasks(case, &p);
    }
}

#[test]
fn with_a_core_model_each_task_gets_its_work_too() {
    let dir = tempfile::tempdir().unwrap();
    let (_, p) = record(dir.path(), "rtos.rv64", &["--core", "generic"]);
    check_tasks("rtos.rv64 --core generic", &p);
    let sec: TaskSection = p.section().unwrap().unwrap();
    // Cycles per task add up too.
    let cycles: u64 = sec.costs(&p).iter().map(|c| c[1]).sum();
    assert_eq!(cycles, p.totals[1]);
}

/// `stack NAME: N bytes` lines the program printed (painted marks).
fn painted(stdout: &str) -> BTreeMap<String, u64> {
    stdout
        .lines()
        .filter_map(|l| l.strip_prefix("stack "))
        .filter_map(|l| {
            let (name, rest) = l.split_once(": ")?;
            Some((name.to_string(), rest.strip_suffix(" bytes")?.parse().ok()?))
        })
        .collect()
}

#[test]
fn stack_marks_are_the_painted_ones() {
    let dir = tempfile::tempdir().unwrap();
    for case in CASES {
        let (stdout, p) = record(dir.path(), case, &[]);
        let paint = painted(&stdout);
        assert_eq!(paint.len(), 6, "{case}: {stdout}");
        let sec: StackSection = p.section().unwrap().expect("a stacks section");
        let mark = |name: &str| {
            sec.stacks
                .iter()
                .find(|s| s.name == name)
                .unwrap_or_else(|| panic!("{case}: no stack {name}: {sec:?}"))
                .bytes
        };
        for (task, painted_name) in [
            ("_start", "main"),
            ("idle_task", "idle"),
            ("task_a", "A"),
            ("task_b", "B"),
            ("task_c", "C"),
        ] {
            assert_eq!(mark(task), paint[painted_name], "{case}: stack of {task}");
        }
        // The kernel stack, per trap cause; the deepest is the stack's mark.
        let irq = sec
            .stacks
            .iter()
            .filter(|s| s.kind == "context")
            .map(|s| s.bytes)
            .max()
            .unwrap();
        let want = paint["irq"];
        assert!(
            (want..=want + 12).contains(&irq),
            "{case}: kernel stack {irq}, painted {want}"
        );
        for s in &sec.stacks {
            assert_eq!(s.top - s.lowest, s.bytes);
            if case.ends_with("rv32") {
                assert!(s.top <= u64::from(u32::MAX), "{case}: {s:?} in 32 bits");
            }
        }
    }
}

#[test]
fn report_per_task_and_stack() {
    let dir = tempfile::tempdir().unwrap();
    record(dir.path(), "rtos.rv64", &[]);
    let out = common::fwprof_stdout(
        dir.path(),
        &[
            "report",
            "--per-task",
            "-b",
            "--no-call-graph",
            "rtos.rv64.prof",
        ],
    );
    assert!(out.starts_with("Tasks: 5 ("), "{out}");
    for t in ["_start", "idle_task", "task_a", "task_b", "task_c"] {
        assert!(out.contains(&format!("==== task {t} ====")), "{t}: {out}");
    }
    let a = common::fwprof_stdout(
        dir.path(),
        &[
            "report",
            "--task",
            "task_a",
            "-b",
            "--no-call-graph",
            "rtos.rv64.prof",
        ],
    );
    assert!(a.contains(" work_a\n") && !a.contains(" work_b\n"), "{a}");
    let stacks = common::fwprof_stdout(dir.path(), &["report", "--stack", "rtos.rv64.prof"]);
    let first = stacks.lines().nth(3).unwrap();
    assert!(first.trim_start().starts_with("592  _start"), "{stacks}");
    let json = common::fwprof_stdout(
        dir.path(),
        &["report", "--stack", "--format", "json", "rtos.rv64.prof"],
    );
    let v: serde_json::Value = serde_json::from_str(&json).unwrap();
    let main = v["stacks"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["name"] == "_start")
        .unwrap();
    assert_eq!(main["bytes"], 592);
    let bad = common::run_fwprof(
        dir.path(),
        &["report", "--task", "task_z", "rtos.rv64.prof"],
    );
    assert!(!bad.status.success());
    let err = text(&bad.stderr);
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(
        err.contains("no task task_z") && err.contains("task_a"),
        "{err}"
    );
}

/// `name → (self, calls)`.
fn selves(p: &Profile) -> BTreeMap<String, (u64, u64)> {
    p.functions
        .iter()
        .map(|f| (f.name.clone(), (f.self_cost[0], f.calls)))
        .collect()
}

/// The RTOS study's end-to-end table: the instrumented kernel and its
/// applications, across tasks, interrupts and the scheduler. A function's
/// compensated self is its own code's instructions plus those of the
/// uninstrumented functions it calls (`kcall`, the string helpers), which
/// the hooks cannot see apart; that is what it is compared with.
#[test]
fn instrumented_kernel_agrees_with_exact_within_2_percent() {
    let dir = tempfile::tempdir().unwrap();
    let mut failures = Vec::new();
    for case in ["rtos_instr.rv32", "rtos_instr.rv64"] {
        let (_, x) = record(dir.path(), case, &[]);
        let (out, i) = common::record_into(
            dir.path(),
            "i.prof",
            &elf(case),
            &["--method", "instrument", "--machine", "virt"],
        );
        assert!(out.status.success(), "{}", text(&out.stderr));
        assert!(out.stderr.is_empty(), "{case}: {}", text(&out.stderr));
        i.check_invariants().unwrap();
        let instrumented: Vec<&str> = i
            .instrumented
            .iter()
            .filter(|r| r.calls > 0)
            .map(|r| i.functions[r.function.index()].name.as_str())
            .collect();
        let is_instrumented = |name: &str| instrumented.contains(&name);
        let inlined: Vec<&str> = instrumented
            .iter()
            .copied()
            .filter(|f| function(&i, f).map(|r| r.calls) != function(&x, f).map(|r| r.calls))
            .collect();
        let hooks = ["__cyg_profile_func_enter", "__cyg_profile_func_exit"];
        let (xs, is) = (selves(&x), selves(&i));
        let mut compared = 0;
        for f in &instrumented {
            // Task entries (started by an mret, not called) and the
            // functions that set up a task's first context are measured
            // from their entry hook only.
            if ["task_a", "task_b", "task_c", "idle_task", "thread_create"].contains(f) {
                continue;
            }
            let fx = x.functions.iter().position(|r| &r.name == f).unwrap();
            // Trap roots hold different things in the two views (the
            // uninstrumented trap entry, the handler's boundaries). A
            // function GCC inlined somewhere still calls the hooks there
            // (with its own address), so the hooks see calls the exact
            // view sees as its caller's code: such a function and its
            // callers are not compared.
            let inlined_callee = i.arcs.iter().any(|a| {
                a.caller.is_some_and(|c| i.functions[c.index()].name == *f)
                    && inlined.contains(&i.functions[a.callee.index()].name.as_str())
            });
            if f.starts_with('[') || inlined.contains(f) || inlined_callee {
                continue;
            }
            let unseen: u64 = x
                .arcs
                .iter()
                .filter(|a| a.caller.map(|c| c.index()) == Some(fx))
                .filter(|a| {
                    let callee = &x.functions[a.callee.index()].name;
                    !is_instrumented(callee) && !hooks.contains(&callee.as_str())
                })
                .map(|a| a.inclusive[0])
                .sum();
            let want = xs[*f].0 + unseen;
            let got = is[*f].0;
            let e = 100.0 * (got as f64 - want as f64) / want.max(1) as f64;
            eprintln!("{case} {f}: compensated self {got}, exact {want} ({e:+.3}%)");
            if is[*f].1 != xs[*f].1 {
                failures.push(format!(
                    "{case} {f}: calls {} vs exact {}",
                    is[*f].1, xs[*f].1
                ));
            }
            if e.abs() > 2.0 {
                failures.push(format!("{case} {f}: {got} vs exact {want} ({e:+.2}%)"));
            }
            compared += 1;
        }
        assert!(compared >= 12, "{case}: {compared} functions compared");
        for f in [
            "work_a",
            "work_b",
            "work_c",
            "queue_send",
            "queue_recv",
            "sem_wait",
            "mutex_lock",
            "sched_switch",
            "irq_dispatch",
            "syscall_dispatch",
            "timer_isr",
            "uart_isr",
        ] {
            assert!(is_instrumented(f), "{case}: {f} compared");
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// tests/firmware's `coop`: main switches to task_one 50 times and to
/// task_two 30 times by calling `coop_switch`, which returns on the other
/// task's stack. No trap is taken: without `--task-hint` it is one task.
#[test]
fn a_kernel_that_switches_by_a_call_needs_the_hint() {
    let dir = tempfile::tempdir().unwrap();
    for config in ["rv32", "rv64"] {
        let elf = common::firmware_elf(&format!("coop.{config}.elf"));
        let (plain_out, plain) =
            common::record_into(dir.path(), "plain.prof", &elf, &["--machine", "virt"]);
        assert!(plain_out.status.success());
        assert!(
            plain.section::<TaskSection>().unwrap().is_none(),
            "{config}"
        );
        let (out, p) = common::record_into(
            dir.path(),
            "hint.prof",
            &elf,
            &["--machine", "virt", "--task-hint", "coop_switch"],
        );
        assert!(out.status.success(), "{}", text(&out.stderr));
        assert_eq!(out.stdout, plain_out.stdout);
        p.check_invariants().unwrap();
        let sec: TaskSection = p.section().unwrap().expect("tasks");
        assert_eq!(sec.hint.as_deref(), Some("coop_switch"));
        let names: Vec<&str> = sec.tasks.iter().map(|t| t.name.as_str()).collect();
        assert_eq!(names, ["_start", "task_one", "task_two"], "{config}");
        let switches: Vec<(u64, u64)> = sec
            .tasks
            .iter()
            .map(|t| (t.voluntary, t.involuntary))
            .collect();
        assert_eq!(switches, [(80, 0), (50, 0), (30, 0)], "{config}");
        assert_eq!(sec.switches, 160);
        assert_eq!(calls(&p, "coop_switch"), 160, "{config}");
        for (task, work, n) in [("task_one", "work_one", 50), ("task_two", "work_two", 30)] {
            let one = fwprof_report::restrict_to_task(&p, task).unwrap();
            assert_eq!(calls(&one, work), n, "{config} {task}");
            let whole = function(&p, work).unwrap().self_cost[0];
            assert_eq!(function(&one, work).unwrap().self_cost[0], whole);
        }
        // Each task's stack is its own: their tops are the two stacks'
        // tops, 2048 bytes apart, and each holds one small frame.
        let stacks: StackSection = p.section().unwrap().unwrap();
        let top = |n: &str| stacks.stacks.iter().find(|s| s.name == n).unwrap();
        let (one, two) = (top("task_one"), top("task_two"));
        assert_eq!(one.top.abs_diff(two.top), 2048, "{config}: {stacks:?}");
        assert!(one.bytes > 0 && one.bytes <= 64, "{config}: {one:?}");
        assert!(top("_start").bytes < 1024, "{config}: {stacks:?}");
        let bad = common::run_fwprof(
            dir.path(),
            &[
                "record",
                "--machine",
                "virt",
                "--task-hint",
                "no_such_fn",
                "--",
                elf.to_str().unwrap(),
            ],
        );
        assert!(!bad.status.success());
        let err = text(&bad.stderr);
        assert_eq!(err.lines().count(), 1, "{err}");
        assert!(err.contains("no symbol named no_such_fn"), "{err}");
    }
}
