//! Profiles of trap handlers (issue 13 §2) on the firmware corpus
//! (`tests/firmware`): a trap is not a call, handlers live under trap
//! roots with exact counts and latencies, nested traps nest, costs split by
//! privilege level, and sampling, instrumentation and folded stacks keep
//! the trap roots.

mod common;

use std::path::Path;
use std::process::Command;

use fwprof_profile::{Profile, TrapSection};

/// Records `elf` with `args` into a profile in `dir`; the guest's stdout
/// and the profile (whose invariants hold).
fn record(dir: &Path, elf: &Path, args: &[&str]) -> (String, Profile) {
    let (out, p) = common::record_into(dir, "p.fwprof", elf, args);
    (String::from_utf8_lossy(&out.stdout).into_owned(), p)
}

/// The number before `word` in the program's output line (e.g. "16 timer").
fn number_before(out: &str, word: &str) -> u64 {
    let i = out
        .find(word)
        .unwrap_or_else(|| panic!("no {word:?} in {out}"));
    out[..i]
        .trim_end()
        .rsplit(|c: char| !c.is_ascii_digit())
        .next()
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("no number before {word:?} in {out}"))
}

fn function(p: &Profile, name: &str) -> usize {
    p.functions
        .iter()
        .position(|f| f.name == name)
        .unwrap_or_else(|| panic!("no function {name}"))
}

/// Calls along every arc `caller → callee`.
fn calls(p: &Profile, caller: usize, callee: usize) -> u64 {
    p.arcs
        .iter()
        .filter(|a| a.caller.map(|c| c.index()) == Some(caller) && a.callee.index() == callee)
        .map(|a| a.calls)
        .sum()
}

fn traps(p: &Profile) -> TrapSection {
    p.section::<TrapSection>()
        .unwrap()
        .expect("a traps section")
}

#[test]
fn timer_spin_main_calls_work_once_and_handlers_are_trap_contexts() {
    for cfg in ["rv64", "rv32"] {
        let elf = common::firmware_elf(&format!("timer_spin.{cfg}.elf"));
        let tmp = tempfile::tempdir().unwrap();
        let (out, p) = record(tmp.path(), &elf, &[]);
        p.check_invariants().unwrap();
        let taken = number_before(&out, "timer interrupts");
        assert_eq!(taken, 16, "{cfg}: {out}");
        let (main, work) = (function(&p, "main"), function(&p, "work"));
        // Before: entering the handler and its mret were tail calls, so
        // main→work counted every return from an interrupt.
        assert_eq!(calls(&p, main, work), 1, "{cfg}");
        assert_eq!(p.functions[work].calls, 1, "{cfg}");
        let root = function(&p, "[interrupt: machine timer]");
        assert_eq!(p.functions[root].calls, taken, "{cfg}");
        // The handler is called from the root only, never from work.
        let entry = function(&p, "m_trap_entry");
        assert_eq!(calls(&p, root, entry), taken, "{cfg}");
        assert_eq!(p.functions[entry].calls, taken, "{cfg}");
        // The root is a root of the context tree; work's context has no
        // handler below it.
        let ctx = |f: usize| p.contexts.iter().filter(move |c| c.function.index() == f);
        assert!(ctx(root).all(|c| c.parent.is_none()), "{cfg}");
        assert!(ctx(entry)
            .all(|c| c.parent.map(|q| p.contexts[q as usize].function.index()) == Some(root)));
        let t = traps(&p);
        assert_eq!(t.causes.len(), 1, "{cfg}");
        let c = &t.causes[0];
        assert_eq!(
            (c.interrupt, c.code, c.count, c.root.index()),
            (true, 7, taken, root)
        );
        // Every instruction of the handler is in the context: the functions
        // reached from it.
        assert_eq!(c.inclusive[0], p.functions[root].inclusive[0], "{cfg}");
        assert_eq!(c.self_cost, c.inclusive, "{cfg}: nothing nests");
        let handler_self: u64 = ["m_trap_entry", "m_trap"]
            .iter()
            .map(|n| p.functions[function(&p, n)].self_cost[0])
            .sum();
        assert_eq!(c.inclusive[0], handler_self, "{cfg}");
        // work's inclusive cost leaves the handler out: it is its own
        // instructions and mix's.
        let mix = function(&p, "mix");
        assert_eq!(
            p.functions[work].inclusive[0],
            p.functions[work].self_cost[0] + p.functions[mix].inclusive[0],
            "{cfg}"
        );
        let l = c.latency.expect("interrupt latency");
        assert_eq!(l.count, taken);
        assert!(l.cycles.is_none(), "no core model");
        if cfg == "rv64" {
            // By hand, from `objdump -d timer_spin.rv64.elf` (fwprof's clock
            // without --icount-shift: one mtime tick per instruction, a
            // CLINT access sees the instructions executed before it).
            // The first interrupt is taken as soon as its deadline passes,
            // with MIE set in work: latency 0. Each of the 15 re-arming
            // handlers reads mtime = t with the `ld a4,-8(a5)` of m_trap
            // and sets mtimecmp = t + 40 (PERIOD): MTIP rises once that ld
            // and the 39 instructions after it have run. From the ld to
            // the mret the handler runs 59 instructions after it: 22 more
            // in m_trap (3 + 5 for `late`, 7 for `ticks`, 7 to store
            // mtimecmp and return) and 37 in m_trap_entry (csrr mstatus,
            // li t1 (2), and, beq, 30 register loads, ld sp, mret). So
            // 59 - 39 = 20 instructions run with MTIP pending under MIE = 0
            // and the next interrupt is taken right after the mret: latency
            // 20. The 16th handler turns the timer off.
            assert_eq!(
                (l.instructions.min, l.instructions.max, l.instructions.total),
                (0, 20, 15 * 20)
            );
        }
    }
}

#[test]
fn nested_traps_nest_under_their_enclosing_context() {
    let elf = common::firmware_elf("nested.rv64.elf");
    let tmp = tempfile::tempdir().unwrap();
    let (out, p) = record(tmp.path(), &elf, &[]);
    p.check_invariants().unwrap();
    // The program counts its interrupts itself.
    let timers = number_before(&out, "timer,");
    let softs = number_before(&out, "software interrupts");
    let nested = number_before(&out, "nested in the timer handler");
    let timer = function(&p, "[interrupt: machine timer]");
    let soft = function(&p, "[interrupt: machine software]");
    assert_eq!(p.functions[timer].calls, timers, "{out}");
    assert_eq!(p.functions[soft].calls, softs, "{out}");
    let (main, work) = (function(&p, "main"), function(&p, "work"));
    assert_eq!(calls(&p, main, work), 1);
    // Software contexts taken inside a timer handler hang from the timer
    // root; the others are roots.
    let parent_fn = |c: &fwprof_profile::ContextRecord| {
        c.parent.map(|q| p.contexts[q as usize].function.index())
    };
    let soft_ctx: Vec<_> = p
        .contexts
        .iter()
        .filter(|c| c.function.index() == soft)
        .collect();
    // The program raises its software interrupt only inside the timer
    // handler, after re-enabling MIE there: every one is taken inside a
    // timer context (its own count of nesting, `nested`, relies on its
    // depth counter, which on this simulator base goes wrong: see the
    // report of issue 13's profile work).
    let _ = nested;
    let inside: u64 = soft_ctx
        .iter()
        .filter(|c| parent_fn(c) == Some(timer))
        .map(|c| c.calls)
        .sum();
    let outside: u64 = soft_ctx
        .iter()
        .filter(|c| c.parent.is_none())
        .map(|c| c.calls)
        .sum();
    assert_eq!((inside, outside), (softs, 0), "{out}");
    assert_eq!(calls(&p, timer, soft), softs);
    // The timer contexts' inclusive cost holds the nested ones; their self
    // cost does not.
    let t = traps(&p);
    let tc = t.causes.iter().find(|c| c.code == 7).unwrap();
    let sc = t.causes.iter().find(|c| c.code == 3).unwrap();
    assert_eq!((tc.count, sc.count), (timers, softs));
    assert!(tc.inclusive[0] > tc.self_cost[0]);
    assert!(tc.inclusive[0] - tc.self_cost[0] <= sc.inclusive[0]);
}

/// Function names with a nonzero self cost in `report --privilege LEVEL`'s JSON.
fn names_at(dir: &Path, level: &str) -> (Vec<String>, serde_json::Value) {
    let json = common::fwprof_stdout(
        dir,
        &[
            "report",
            "--format",
            "json",
            "--privilege",
            level,
            "p.fwprof",
        ],
    );
    let v: serde_json::Value = serde_json::from_str(&json).unwrap();
    let mut names: Vec<String> = v["functions"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|f| f["self"]["instructions"].as_u64() != Some(0))
        .map(|f| f["name"].as_str().unwrap().to_string())
        .collect();
    names.sort();
    (names, v)
}

#[test]
fn report_privilege_s_shows_only_s_mode_code() {
    // The S-mode code of each program, from its source.
    let cases = [
        (
            "ecalls",
            vec![
                "s_back",
                "s_drop_to_u",
                "s_main",
                "s_main_delegating",
                "s_trap",
                "s_trap_entry",
            ],
        ),
        (
            "deleg",
            vec!["after_ssip", "insn_len", "s_main", "s_trap", "s_trap_entry"],
        ),
    ];
    for (name, s_code) in cases {
        for cfg in ["rv64", "rv32"] {
            let elf = common::firmware_elf(&format!("{name}.{cfg}.elf"));
            let tmp = tempfile::tempdir().unwrap();
            let (_, p) = record(tmp.path(), &elf, &[]);
            p.check_invariants().unwrap();
            let (names, s) = names_at(tmp.path(), "S");
            assert_eq!(names, s_code, "{name}.{cfg}");
            let all: serde_json::Value = serde_json::from_str(&common::fwprof_stdout(
                tmp.path(),
                &["report", "--format", "json", "p.fwprof"],
            ))
            .unwrap();
            // The restricted totals are the level's; the levels add up.
            let level = |l: &str| {
                all["privilege_totals"][l]["instructions"]
                    .as_u64()
                    .unwrap_or(0)
            };
            assert_eq!(s["totals"]["instructions"].as_u64(), Some(level("S")));
            assert_eq!(
                level("M") + level("S") + level("U"),
                all["totals"]["instructions"].as_u64().unwrap()
            );
            assert!(level("S") > 0 && level("M") > 0, "{name}.{cfg}");
            // No M-mode function appears at S.
            let (m_names, _) = names_at(tmp.path(), "M");
            assert!(m_names.contains(&"main".to_string()));
            assert!(!names.iter().any(|n| m_names.contains(n)), "{name}.{cfg}");
        }
    }
}

#[test]
fn sampling_and_instrumentation_keep_the_trap_roots() {
    let elf = common::firmware_elf("timer_spin.rv64.elf");
    let tmp = tempfile::tempdir().unwrap();
    let (_, p) = record(tmp.path(), &elf, &["--method", "sample", "--period", "20"]);
    let root = function(&p, "[interrupt: machine timer]");
    let entry = function(&p, "m_trap_entry");
    // Samples in the handler hang from the root, never from work or main.
    let in_handler: Vec<_> = p
        .contexts
        .iter()
        .filter(|c| c.function.index() == entry)
        .collect();
    assert!(!in_handler.is_empty());
    for c in in_handler {
        let parent = c.parent.map(|q| p.contexts[q as usize].function.index());
        assert_eq!(parent, Some(root));
    }
    let t = traps(&p);
    assert_eq!(t.causes[0].count, 16, "counted exactly, not sampled");
    assert!(t.causes[0].inclusive[0] > 0);
    let folded = common::fwprof_stdout(tmp.path(), &["export", "--format", "folded", "p.fwprof"]);
    assert!(folded
        .lines()
        .any(|l| l.starts_with("[interrupt:_machine_timer];m_trap_entry")));

    // Instrumentation: timer_spin built with -finstrument-functions and
    // its own hooks.
    if !common::require(&["riscv64-unknown-elf-gcc"]) {
        return;
    }
    let hooks = tmp.path().join("hooks.c");
    std::fs::write(
        &hooks,
        "__attribute__((no_instrument_function, noinline)) void __cyg_profile_func_enter(void *f, void *c) { (void)f; (void)c; __asm__ volatile(\"\"); }\n\
         __attribute__((no_instrument_function, noinline)) void __cyg_profile_func_exit(void *f, void *c) { (void)f; (void)c; __asm__ volatile(\"\"); }\n",
    )
    .unwrap();
    let src = common::repo().join("tests/firmware/src");
    let ielf = tmp.path().join("ts_inst.elf");
    let st = Command::new("riscv64-unknown-elf-gcc")
        .args([
            "-march=rv64gc",
            "-mabi=lp64d",
            "-mcmodel=medany",
            "-misa-spec=2.2",
            "-O2",
            "-g",
        ])
        .arg("-finstrument-functions")
        .arg("-I")
        .arg(&src)
        .arg(src.join("timer_spin.c"))
        .arg(src.join("fw_common.c"))
        .arg(src.join("fw_trap.S"))
        .arg(&hooks)
        .args([
            "--specs=picolibc.specs",
            "--crt0=semihost",
            "--oslib=semihost",
        ])
        .args([
            "-Wl,--defsym=__flash=0x80000000",
            "-Wl,--defsym=__flash_size=0x400000",
        ])
        .args([
            "-Wl,--defsym=__ram=0x80400000",
            "-Wl,--defsym=__ram_size=0x7c00000",
        ])
        .arg("-Wl,--defsym=__stack_size=0x10000")
        .arg("-o")
        .arg(&ielf)
        .status()
        .unwrap();
    assert!(st.success());
    let (out, p) = record(tmp.path(), &ielf, &["--method", "instrument"]);
    let taken = number_before(&out, "timer interrupts");
    let root = function(&p, "[interrupt: machine timer]");
    let m_trap = function(&p, "m_trap");
    let rec = |f: usize| {
        p.instrumented
            .iter()
            .find(|r| r.function.index() == f)
            .unwrap()
    };
    assert_eq!(rec(root).calls, taken);
    assert_eq!(rec(m_trap).calls, taken);
    assert_eq!(rec(function(&p, "work")).calls, 1);
    assert_eq!(rec(function(&p, "main")).calls, 1);
    // m_trap is called from the root, not from what it interrupted.
    assert!(p
        .contexts
        .iter()
        .filter(|c| c.function.index() == m_trap)
        .all(|c| c.parent.map(|q| p.contexts[q as usize].function.index()) == Some(root)));
    assert_eq!(traps(&p).causes[0].count, taken);
}

#[test]
fn folded_stacks_show_trap_contexts_as_roots() {
    let elf = common::firmware_elf("nested.rv64.elf");
    let tmp = tempfile::tempdir().unwrap();
    let (out, _) = record(tmp.path(), &elf, &[]);
    let nested = number_before(&out, "nested in the timer handler");
    let folded = common::fwprof_stdout(tmp.path(), &["export", "--format", "folded", "p.fwprof"]);
    let roots: std::collections::BTreeSet<&str> = folded
        .lines()
        .map(|l| l.split(';').next().unwrap().split(' ').next().unwrap())
        .collect();
    assert!(roots.contains("[interrupt:_machine_timer]"), "{folded}");
    assert!(roots.contains("_start"), "{folded}");
    // A handler never sits on the interrupted program's stack.
    assert!(!folded
        .lines()
        .any(|l| l.starts_with("_start") && l.contains("m_trap")));
    // The nested software contexts sit right under the timer root.
    let nested_lines = folded
        .lines()
        .filter(|l| l.starts_with("[interrupt:_machine_timer];[interrupt:_machine_software];"))
        .count();
    assert_eq!(nested_lines > 0, nested > 0, "{folded}");
}

#[test]
fn merge_combines_the_trap_and_privilege_sections() {
    let elf = common::firmware_elf("timer_spin.rv64.elf");
    let tmp = tempfile::tempdir().unwrap();
    let (_, p) = record(tmp.path(), &elf, &[]);
    common::fwprof_ok(
        tmp.path(),
        &["merge", "-o", "m.fwprof", "p.fwprof", "p.fwprof"],
    );
    let m = Profile::read(tmp.path().join("m.fwprof")).unwrap();
    m.check_invariants().unwrap();
    assert!(
        !m.meta.warnings.iter().any(|w| w.starts_with("section ")),
        "{:?}",
        m.meta.warnings
    );
    let (a, b) = (traps(&p).causes[0].clone(), traps(&m).causes[0].clone());
    assert_eq!(b.count, 2 * a.count);
    assert_eq!(b.inclusive[0], 2 * a.inclusive[0]);
    let (la, lb) = (a.latency.unwrap(), b.latency.unwrap());
    assert_eq!(
        (lb.count, lb.instructions.max, lb.instructions.total),
        (2 * la.count, la.instructions.max, 2 * la.instructions.total)
    );
    assert_eq!(
        m.functions[b.root.index()].name,
        "[interrupt: machine timer]"
    );
    let pm = m
        .section::<fwprof_profile::PrivilegeSection>()
        .unwrap()
        .unwrap();
    assert_eq!(pm.total(fwprof_profile::Level::M, 1)[0], 2 * p.totals[0]);
}
