//! `fwprof record --method counters` (issue 17, the ARC study's methods on
//! emulated counters) on tests/counters/shapes.c (small hot functions,
//! recursion, mutual recursion, indirect and tail calls, a region) and
//! many.c (1000 functions, the study's scaling example), against the exact
//! profile of the same ELF on the same core:
//! * probes of cost 0: every measured function's inclusive instructions
//!   and cycles equal the exact profile's (inclusive mode), its self ones
//!   too (exclusive mode, the arc-hs range filter);
//! * the descent finds exactly the exact profile's functions at or above
//!   1% and 5%, in fewer runs than the subset method;
//! * probes of 40 cycles: the error of a small, often-called function is
//!   large, that of a long one small (the study's pattern);
//! * regions: every execution measured;
//! * what the method cannot do is refused in one line.

mod common;

use std::collections::BTreeMap;
use std::path::PathBuf;

use common::{record_into, repo, run_fwprof};
use fwprof_profile::{CounterSection, Method, Profile};

fn elf(name: &str) -> PathBuf {
    repo().join("tests/counters").join(name)
}

fn tmp() -> tempfile::TempDir {
    tempfile::tempdir().unwrap()
}

/// Record `elf` with `args`; the profile (the run must succeed).
fn record(dir: &std::path::Path, name: &str, elf: &std::path::Path, args: &[&str]) -> Profile {
    let (out, p) = record_into(dir, name, elf, args);
    assert!(
        out.status.success(),
        "{args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    p
}

/// `name → (inclusive, self)` of event `event`.
fn costs(p: &Profile, event: &str) -> BTreeMap<String, (u64, u64)> {
    let e = p.event_index(event).unwrap();
    p.functions
        .iter()
        .map(|f| (f.name.clone(), (f.inclusive[e], f.self_cost[e])))
        .collect()
}

fn section(p: &Profile) -> CounterSection {
    assert_eq!(p.meta.method, Method::Counters);
    p.section::<CounterSection>().unwrap().unwrap()
}

/// Libgcc's millicode (`__riscv_save_N`, `__riscv_restore_N`) jumps into
/// the middle of its siblings: a probe at a function's first instruction
/// never sees those entries, the exact profile does. Not compared.
fn compared(name: &str) -> bool {
    !name.starts_with("__riscv_") && !name.starts_with('[')
}

#[test]
fn probes_of_cost_zero_measure_exactly_what_the_exact_profile_counts() {
    let dir = tmp();
    let shapes = elf("shapes.rv32imac.elf");
    let exact = record(dir.path(), "x.prof", &shapes, &["--core", "generic"]);
    let incl = record(
        dir.path(),
        "c.prof",
        &shapes,
        &["--core", "generic", "--method", "counters"],
    );
    let excl = record(
        dir.path(),
        "e.prof",
        &shapes,
        &[
            "--core",
            "arc-hs",
            "--method",
            "counters",
            "--region-mode",
            "exclusive",
        ],
    );
    let s = section(&incl);
    assert_eq!(s.strategy, "subsets");
    assert_eq!(s.events, vec!["cycles"]);
    // 8 counters: 8 functions per run; every function with code measured.
    let measured: Vec<_> = s
        .functions
        .iter()
        .filter(|f| f.decision == "measured")
        .collect();
    assert!(measured.len() > 40, "{} measured", measured.len());
    assert_eq!(s.runs.len() as u64, 1 + s.subset_runs);
    assert!(s
        .runs
        .iter()
        .skip(1)
        .all(|r| r.functions.len() <= 8 && r.end.is_empty()));
    for event in ["instructions", "cycles"] {
        let want = costs(&exact, event);
        let got = costs(&incl, event);
        let mut checked = 0;
        for (name, &(w, _)) in want.iter().filter(|(n, _)| compared(n)) {
            let (g, _) = got[name];
            assert_eq!(g, w, "{name}: inclusive {event}: counters {g}, exact {w}");
            checked += 1;
        }
        assert!(checked > 40);
        // Exclusive mode: the range filter counts each function's own code.
        let exact_arc = costs(
            &record(dir.path(), "xa.prof", &shapes, &["--core", "arc-hs"]),
            event,
        );
        let got = costs(&excl, event);
        for (name, &(_, w)) in exact_arc.iter().filter(|(n, _)| !n.starts_with('[')) {
            assert_eq!(got[name].1, w, "{name}: self {event}");
        }
    }
    // Recursion is measured once per outermost activation: fib's M equals
    // the exact inclusive, although fib ran thousands of nested calls.
    let fib = s
        .functions
        .iter()
        .find(|f| incl.functions[f.function.index()].name == "fib")
        .unwrap();
    assert_eq!(fib.activations, 1);
    assert!(fib.entries > 1000, "{}", fib.entries);
}

/// The functions whose exact inclusive `event` share is at least `pct`.
fn significant(p: &Profile, event: &str, pct: f64) -> Vec<String> {
    let e = p.event_index(event).unwrap();
    let total = p.totals[e] as f64;
    let mut v: Vec<String> = p
        .functions
        .iter()
        .filter(|f| !f.name.starts_with('[') && f.calls > 0)
        .filter(|f| f.inclusive[e] as f64 >= pct / 100.0 * total)
        .map(|f| f.name.clone())
        .collect();
    v.sort();
    v
}

#[test]
fn the_descent_finds_the_exact_significant_set_in_fewer_runs() {
    let dir = tmp();
    for (program, core) in [
        ("shapes.rv32imac.elf", "generic"),
        ("many.rv32imac.elf", "generic"),
        ("many.rv32imac.elf", "ibex"),
    ] {
        let e = elf(program);
        let exact = record(dir.path(), "x.prof", &e, &["--core", core]);
        for pct in ["1", "5"] {
            let p = record(
                dir.path(),
                "d.prof",
                &e,
                &[
                    "--core",
                    core,
                    "--method",
                    "counters",
                    "--descent",
                    "--threshold",
                    pct,
                ],
            );
            let s = section(&p);
            let cycles = p.event_index("cycles").unwrap();
            let total = p.totals[cycles] as f64;
            let t: f64 = pct.parse().unwrap();
            let mut found: Vec<String> = s
                .functions
                .iter()
                .filter(|f| f.decision == "measured")
                .filter(|f| f.values[0] as f64 >= t / 100.0 * total)
                .map(|f| p.functions[f.function.index()].name.clone())
                .collect();
            found.sort();
            assert_eq!(
                found,
                significant(&exact, "cycles", t),
                "{program} on {core} at {pct}%"
            );
            let runs = s.runs.len() as u64 - 1;
            assert!(
                runs < s.subset_runs,
                "{program} at {pct}%: descent {runs} runs, subsets {}",
                s.subset_runs
            );
            // Every skipped function's true M lies below its bound, and
            // below the threshold.
            let exact_incl = costs(&exact, "cycles");
            for f in s.functions.iter().filter(|f| f.decision == "skipped") {
                let name = &p.functions[f.function.index()].name;
                let m = exact_incl[name].0;
                assert!(m <= f.bound.unwrap(), "{name}: M {m} above its bound");
            }
        }
    }
    // The study's scaling example: 1000 functions, 8 counters.
    let many = record(
        dir.path(),
        "m.prof",
        &elf("many.rv32imac.elf"),
        &[
            "--core",
            "generic",
            "--method",
            "counters",
            "--descent",
            "--threshold",
            "5",
        ],
    );
    let s = section(&many);
    assert!(s.subset_runs >= 1100 / 8, "{}", s.subset_runs);
    assert!(
        (s.runs.len() as u64) * 4 < s.subset_runs,
        "{} runs",
        s.runs.len()
    );
}

/// exprcalc's parser recurses through one call site (primary -> expr ->
/// primary): nested activations with one return address, each ended by
/// its own return.
#[test]
fn recursion_through_one_call_site_is_measured_exactly() {
    let dir = tmp();
    for example in [
        "exprcalc/exprcalc.rv32imac.elf",
        "huffman/huffman.rv32imac.elf",
    ] {
        let e = repo().join("examples").join(example);
        let exact = costs(
            &record(dir.path(), "x.prof", &e, &["--core", "generic"]),
            "cycles",
        );
        let p = record(
            dir.path(),
            "c.prof",
            &e,
            &["--core", "generic", "--method", "counters"],
        );
        let got = costs(&p, "cycles");
        for (name, &(w, _)) in exact.iter().filter(|(n, _)| compared(n)) {
            assert_eq!(got[name].0, w, "{example}: {name}");
        }
    }
}

/// On one program: with probes of cost 0 every measured function's
/// inclusive cycles equal the exact profile's, and the descent at 1% and
/// 5% finds exactly the exact profile's functions at or above them, in
/// fewer runs than the subset method. `Err` names what differs.
fn check_against_exact(dir: &std::path::Path, e: &std::path::Path) -> Result<(), String> {
    // A program may exit with a status of its own (exit_code.c's 3).
    let record = |dir: &std::path::Path, name: &str, e: &std::path::Path, args: &[&str]| {
        record_into(dir, name, e, args).1
    };
    let exact_p = record(dir, "x.prof", e, &["--core", "generic"]);
    let exact = costs(&exact_p, "cycles");
    let p = record(
        dir,
        "c.prof",
        e,
        &["--core", "generic", "--method", "counters"],
    );
    let got = costs(&p, "cycles");
    for (name, &(w, _)) in exact.iter().filter(|(n, _)| compared(n)) {
        if got[name].0 != w {
            return Err(format!(
                "{name}: inclusive cycles {} against {w}",
                got[name].0
            ));
        }
    }
    for pct in ["1", "5"] {
        let d = record(
            dir,
            "d.prof",
            e,
            &[
                "--core",
                "generic",
                "--method",
                "counters",
                "--descent",
                "--threshold",
                pct,
            ],
        );
        let s = section(&d);
        let total = d.totals[d.event_index("cycles").unwrap()] as f64;
        let t: f64 = pct.parse().unwrap();
        let mut found: Vec<String> = s
            .functions
            .iter()
            .filter(|f| f.decision == "measured" && f.values[0] as f64 >= t / 100.0 * total)
            .map(|f| d.functions[f.function.index()].name.clone())
            .collect();
        found.sort();
        let want = significant(&exact_p, "cycles", t);
        if found != want {
            return Err(format!("descent at {pct}%: {found:?}, exact {want:?}"));
        }
        if s.runs.len() as u64 - 1 > s.subset_runs {
            return Err(format!("descent at {pct}%: {} runs", s.runs.len() - 1));
        }
    }
    Ok(())
}

/// A few corpus programs of both widths: dhrystone's strcmp looping back
/// to its entry, qsort's callbacks, tail calls, recursion on RV64
/// (every corpus program, Linux ones too: the ignored test below).
#[test]
fn corpus_programs_are_measured_exactly_and_the_descent_agrees() {
    let dir = tmp();
    for name in [
        "dhrystone.rv32imac.O2.elf",
        "qsort.rv32imac.O2.elf",
        "tailcalls.rv32imac.O2.elf",
        "recursion.rv64gc.O2.elf",
    ] {
        check_against_exact(dir.path(), &common::corpus_elf(name))
            .unwrap_or_else(|e| panic!("{name}: {e}"));
    }
}

/// Every corpus program (several minutes):
/// `cargo test --profile ci -p fwprof-cli --test counters -- --ignored`.
/// setjmp is left out: a `longjmp` leaves activations whose exit probe
/// never runs, so their counters stay on (the method's own limit,
/// docs/counters.md).
#[test]
#[ignore]
fn every_corpus_program_is_measured_exactly_and_the_descent_agrees() {
    let dir = tmp();
    let mut failed = Vec::new();
    for e in common::corpus_elfs() {
        let name = e.file_name().unwrap().to_string_lossy().into_owned();
        if name.starts_with("setjmp") {
            continue;
        }
        if let Err(m) = check_against_exact(dir.path(), &e) {
            failed.push(format!("{name}: {m}"));
        }
    }
    assert!(failed.is_empty(), "{}", failed.join("\n"));
}

#[test]
fn probe_costs_show_the_studys_error_pattern() {
    let dir = tmp();
    let shapes = elf("shapes.rv32imac.elf");
    let exact = costs(
        &record(dir.path(), "x.prof", &shapes, &["--core", "generic"]),
        "cycles",
    );
    let p = record(
        dir.path(),
        "c.prof",
        &shapes,
        &[
            "--core",
            "generic",
            "--method",
            "counters",
            "--probe-cost",
            "40",
        ],
    );
    let got = costs(&p, "cycles");
    let rel = |name: &str| (got[name].0 as f64 - exact[name].0 as f64) / exact[name].0 as f64;
    // tiny: 400 calls of ~30 cycles; one probe (40) per call is counted.
    assert!(rel("tiny") > 0.5, "tiny {}", rel("tiny"));
    // heavy: one call of 140000 cycles: the probe is lost in it.
    assert!(rel("heavy").abs() < 0.001, "heavy {}", rel("heavy"));
    // Exactly one probe per outermost activation for a leaf.
    let s = section(&p);
    let tiny = s
        .functions
        .iter()
        .find(|f| p.functions[f.function.index()].name == "tiny")
        .unwrap();
    assert_eq!(got["tiny"].0 - exact["tiny"].0, 40 * tiny.activations);
    assert_eq!(s.probe_cost, 40);
}

/// The interpreter and translated code (compiled at once or after one
/// run) give the same measurements, probes included.
#[test]
fn every_execution_tier_measures_the_same() {
    let dir = tmp();
    let shapes = elf("shapes.rv32imac.elf");
    let base = [
        "--core",
        "generic",
        "--method",
        "counters",
        "--probe-cost",
        "40",
    ];
    let mut seen: Option<(Vec<u64>, Vec<Vec<u64>>)> = None;
    for tier in [
        &["--tier", "interp"][..],
        &["--tier", "jit", "--jit-threshold", "0"],
        &["--tier", "jit", "--jit-threshold", "1"],
    ] {
        let mut args = base.to_vec();
        args.extend_from_slice(tier);
        let p = record(dir.path(), "t.prof", &shapes, &args);
        let got = (
            p.totals.clone(),
            section(&p)
                .functions
                .iter()
                .map(|f| f.values.clone())
                .collect(),
        );
        match &seen {
            None => seen = Some(got),
            Some(first) => assert_eq!(&got, first, "{tier:?}"),
        }
    }
}

#[test]
fn regions_measure_every_execution() {
    let dir = tmp();
    let shapes = elf("shapes.rv32imac.elf");
    let region = "region_start..region_end";
    let incl = record(
        dir.path(),
        "r.prof",
        &shapes,
        &[
            "--core",
            "generic",
            "--method",
            "counters",
            "--region",
            region,
            "--event",
            "instructions",
            "--event",
            "cycles",
        ],
    );
    let s = section(&incl);
    assert_eq!(s.strategy, "regions");
    assert_eq!(s.runs.len(), 2);
    let r = &s.regions[0];
    assert_eq!(r.executions, 200);
    assert_eq!(r.open_at_end, 0);
    assert!(r.min <= r.max && r.min > 0);
    assert_eq!(r.histogram.iter().sum::<u64>(), 200);
    // Exclusive: only the instructions between the labels, which the
    // exact profile counts per address.
    let excl = record(
        dir.path(),
        "re.prof",
        &shapes,
        &[
            "--core",
            "arc-hs",
            "--method",
            "counters",
            "--region",
            region,
            "--region-mode",
            "exclusive",
        ],
    );
    let exact = record(dir.path(), "x.prof", &shapes, &[]);
    let sym = |n: &str| -> u64 {
        let out = std::process::Command::new("riscv64-unknown-elf-nm")
            .arg(&shapes)
            .output();
        let text = out
            .map(|o| String::from_utf8_lossy(&o.stdout).into_owned())
            .unwrap_or_default();
        text.lines()
            .find(|l| l.ends_with(&format!(" {n}")))
            .map(|l| u64::from_str_radix(&l[..8], 16).unwrap())
            .unwrap_or(0)
    };
    let (a, b) = (sym("region_start"), sym("region_end"));
    if a != 0 && b != 0 {
        let want: u64 = exact
            .costs
            .iter()
            .filter(|c| (a..b).contains(&c.addr))
            .map(|c| c.cost[0])
            .sum();
        let es = section(&excl);
        assert_eq!(es.regions[0].totals[0], want);
        assert!(r.totals[0] > want, "inclusive counts the callees");
    }
}

#[test]
fn a_region_can_be_given_by_source_lines() {
    let dir = tmp();
    let shapes = elf("shapes.rv32imac.elf");
    // shapes.c:53 `s += fib(18);` .. shapes.c:55 `s = finish(s);`: one
    // execution holding fib(18) and heavy(20000) and a few instructions
    // around the calls.
    let p = record(
        dir.path(),
        "r.prof",
        &shapes,
        &[
            "--core",
            "generic",
            "--method",
            "counters",
            "--region",
            "shapes.c:53..shapes.c:55",
        ],
    );
    let exact = costs(
        &record(dir.path(), "x.prof", &shapes, &["--core", "generic"]),
        "cycles",
    );
    let r = &section(&p).regions[0];
    assert_eq!(r.executions, 1);
    let calls = exact["fib"].0 + exact["heavy"].0;
    assert!(
        r.totals[0] > calls && r.totals[0] < calls + 100,
        "{} vs {calls}",
        r.totals[0]
    );
}

#[test]
fn the_call_graph_can_come_from_an_earlier_profile() {
    let dir = tmp();
    let shapes = elf("shapes.rv32imac.elf");
    // An exact profile without a core gives the call graph; the counters
    // count cycles on their own global-count run.
    record(dir.path(), "x.prof", &shapes, &[]);
    let args = [
        "--core",
        "generic",
        "--method",
        "counters",
        "--descent",
        "--threshold",
        "5",
    ];
    let fresh = record(dir.path(), "a.prof", &shapes, &args);
    let mut with_file = args.to_vec();
    with_file.extend_from_slice(&["--call-graph", "x.prof"]);
    let reused = record(dir.path(), "b.prof", &shapes, &with_file);
    let (a, b) = (section(&fresh), section(&reused));
    assert_eq!(b.runs[0].kind, "global-count");
    assert_eq!(a.runs.len(), b.runs.len());
    assert_eq!(fresh.totals, reused.totals);
    let values = |p: &Profile, s: &CounterSection| -> BTreeMap<String, Vec<u64>> {
        s.functions
            .iter()
            .map(|f| {
                (
                    p.functions[f.function.index()].name.clone(),
                    f.values.clone(),
                )
            })
            .collect()
    };
    assert_eq!(values(&fresh, &a), values(&reused, &b));
    // Another program's profile, or a sampled one, is refused.
    let other = repo().join("examples/crc32/crc32.rv32imac.elf");
    record(dir.path(), "o.prof", &other, &[]);
    record(
        dir.path(),
        "s.prof",
        &shapes,
        &["--method", "sample", "--period", "97"],
    );
    for (file, want) in [
        ("o.prof", "another program"),
        ("s.prof", "sampled profile misses calls"),
    ] {
        let mut all = vec!["record", "-q", "-o", "y.prof"];
        all.extend_from_slice(&args);
        all.extend_from_slice(&["--call-graph", file, "--", shapes.to_str().unwrap()]);
        let out = run_fwprof(dir.path(), &all);
        assert!(!out.status.success());
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(
            err.contains(want) && err.trim().lines().count() == 1,
            "{err}"
        );
    }
}

#[test]
fn a_counters_profile_goes_through_every_report_and_export() {
    let dir = tmp();
    let shapes = elf("shapes.rv32imac.elf");
    let p = record(
        dir.path(),
        "d.prof",
        &shapes,
        &[
            "--core",
            "generic",
            "--method",
            "counters",
            "--descent",
            "--threshold",
            "5",
            "--probe-cost",
            "20",
        ],
    );
    // The contexts of each function add up to its self cost.
    let n = p.events.len();
    let mut sums: Vec<Option<Vec<u64>>> = vec![None; p.functions.len()];
    for c in &p.contexts {
        let s = sums[c.function.index()].get_or_insert_with(|| vec![0; n]);
        for (a, v) in s.iter_mut().zip(&c.self_cost) {
            *a += v;
        }
    }
    for (f, s) in p.functions.iter().zip(&sums) {
        if let Some(s) = s {
            assert_eq!(&f.self_cost, s, "{}", f.name);
        }
    }
    for format in [
        "gmon",
        "callgrind",
        "pprof",
        "folded",
        "flamegraph",
        "speedscope",
        "dot",
    ] {
        let out = run_fwprof(
            dir.path(),
            &["export", "d.prof", "--format", format, "-o", "out"],
        );
        assert!(
            out.status.success(),
            "{format}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
    for args in [
        &["report", "d.prof"][..],
        &["report", "--descent", "d.prof"],
        &["report", "--descent", "--format", "json", "d.prof"],
        &["report", "--format", "json", "d.prof"],
        &["html", "d.prof", "-o", "r.html"],
    ] {
        let out = run_fwprof(dir.path(), args);
        assert!(
            out.status.success(),
            "{args:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
    let text = String::from_utf8(run_fwprof(dir.path(), &["report", "--descent", "d.prof"]).stdout)
        .unwrap();
    assert!(text.contains("call-graph descent at 5%"), "{text}");
    assert!(text.contains("skipped"), "{text}");
    // Not a counters profile: one line.
    record(dir.path(), "x.prof", &shapes, &[]);
    let out = run_fwprof(dir.path(), &["report", "--descent", "x.prof"]);
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("not recorded with --method counters"));
}

/// server.c never ends: one run takes the subsets in turn at its idle
/// function; the scaled counts estimate the exact shares.
#[test]
fn a_program_that_never_ends_is_measured_in_turns() {
    let dir = tmp();
    let server = elf("server.rv32imac.elf");
    let limit = ["--max-instructions", "3000000"];
    let mut exact_args = vec!["--core", "generic"];
    exact_args.extend_from_slice(&limit);
    let (_, exact_p) = record_into(dir.path(), "x.prof", &server, &exact_args);
    let exact = costs(&exact_p, "cycles");
    let mut args = exact_args.clone();
    args.extend_from_slice(&[
        "--method",
        "counters",
        "--counters",
        "2",
        "--safe-stop",
        "wait_for_request",
        "--slice",
        "20000",
    ]);
    let (out, p) = record_into(dir.path(), "c.prof", &server, &args);
    assert!(!out.status.success(), "the instruction limit ends the run");
    let s = section(&p);
    assert_eq!(s.strategy, "cyclic");
    assert_eq!(s.runs.len(), 2);
    let got = costs(&p, "cycles");
    for name in [
        "checksum",
        "handle_large",
        "handle_small",
        "wait_for_request",
    ] {
        let (g, w) = (got[name].0 as f64, exact[name].0 as f64);
        assert!((g - w).abs() / w < 0.05, "{name}: estimate {g}, exact {w}");
    }
    let checksum = s
        .functions
        .iter()
        .find(|f| p.functions[f.function.index()].name == "checksum")
        .unwrap();
    assert!(
        checksum.slices > 2 && checksum.span < p.totals[1],
        "{checksum:?}"
    );
    assert!(p
        .meta
        .warnings
        .iter()
        .any(|w| w.contains("cyclic measurement")));
    // With the call graph of a file, no first run: the rotating run's
    // always-on counters give the totals.
    args.extend_from_slice(&["--call-graph", "x.prof"]);
    let (_, q) = record_into(dir.path(), "g.prof", &server, &args);
    let qs = section(&q);
    assert_eq!(qs.runs.len(), 1);
    assert!(qs.functions.iter().all(|f| f.run.is_none_or(|r| r == 0)));
    assert_eq!(q.totals, vec![exact_p.totals[0], exact_p.totals[1]]);
    assert_eq!(costs(&q, "cycles")["checksum"], got["checksum"]);
}

#[test]
fn what_the_counters_cannot_do_is_refused_in_one_line() {
    let dir = tmp();
    let shapes = elf("shapes.rv32imac.elf");
    let s = shapes.to_str().unwrap();
    let refused = |args: &[&str], want: &str| {
        let usage = args.first() != Some(&"--method");
        let mut all = vec!["record", "-q", "-o", "x.prof"];
        all.extend_from_slice(args);
        all.extend_from_slice(&["--", s]);
        let out = run_fwprof(dir.path(), &all);
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(!out.status.success(), "{args:?} was accepted");
        // A usage error (clap's) ends with the usage lines.
        if !usage {
            assert_eq!(err.trim().lines().count(), 1, "{args:?}: {err}");
        }
        assert!(err.contains(want), "{args:?}: {err}");
        assert!(!dir.path().join("x.prof").exists());
    };
    let counters = ["--method", "counters"];
    let with = |extra: &[&'static str]| -> Vec<&'static str> {
        counters
            .iter()
            .copied()
            .chain(extra.iter().copied())
            .collect()
    };
    refused(
        &with(&["--core", "ibex", "--region-mode", "exclusive"]),
        "address range",
    );
    refused(
        &with(&["--core", "generic", "--region-mode", "exclusive"]),
        "range_filter = false",
    );
    refused(&with(&["--core", "generic", "--event", "cpi"]), "ratio");
    refused(
        &with(&["--core", "generic", "--counters", "9"]),
        "has 8 programmable counters",
    );
    refused(&with(&["--core", "picorv32"]), "no programmable counters");
    refused(&with(&["--event", "cycles"]), "needs --core");
    refused(
        &with(&[
            "--core",
            "arc-hs",
            "--descent",
            "--region-mode",
            "exclusive",
        ]),
        "inclusive",
    );
    refused(
        &with(&["--region", "nosuch..main"]),
        "no symbol named `nosuch`",
    );
    refused(&["--probe-cost", "3"], "applies only to --method counters");
    refused(&with(&["--safe-stop", "main"]), "needs --max-instructions");
    refused(
        &with(&[
            "--safe-stop",
            "main",
            "--descent",
            "--max-instructions",
            "100",
        ]),
        "without --descent",
    );
}
