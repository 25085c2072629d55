//! `fwprof reliability`: the suite's claims checked on its own output.
//!
//! * On the aliasing workload (`saw`, loop period = sampling period),
//!   fixed-period sampling misses `saw_rare` (30% of the run) and
//!   `--jitter` finds it, its 95% interval covering the exact share; with a
//!   loop period out of step (10107) the fixed sampler sees it too.
//! * Compensated instrumentation of the procedure-call kernel is within 2%
//!   of the exact self instructions of every function (≥ 1%) of the same
//!   instrumented build.
//! * The quick suite runs end to end: every method on every workload, a
//!   `fwprof-reliability/1` document with the documented fields, jittered
//!   intervals covering ≥ 90% of the exact shares ≥ 1%, an SVG chart with
//!   one panel per workload and one line per method, and the text table.
//! * The workloads compute the same under qemu-riscv64 as under fwprof, and
//!   the committed ELFs are a fresh build of their sources.

mod common;

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

use fwprof_profile::Profile;
use serde_json::Value;

use common::{repo, require, run_fwprof as fwprof};

const METHODS: [&str; 8] = [
    "sample",
    "jitter",
    "instrument",
    "compensated",
    "own-build",
    "icount",
    "time",
    "time-jitter",
];

/// The methods that need the `-finstrument-functions` build, which the
/// bare-metal workload does not have (`null` there).
const INSTRUMENTATION: [&str; 3] = ["instrument", "compensated", "own-build"];

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

fn ok(o: Output) -> Output {
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    o
}

fn json_of(o: &Output) -> Value {
    serde_json::from_slice(&o.stdout).expect("reliability JSON")
}

/// The run of `workload` at `param` in a `fwprof-reliability/1` document.
fn run_of<'a>(doc: &'a Value, workload: &str, param: u64) -> &'a Value {
    doc["workloads"]
        .as_array()
        .unwrap()
        .iter()
        .find(|w| w["name"] == workload)
        .unwrap_or_else(|| panic!("no workload {workload}"))["runs"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["param"] == param)
        .unwrap_or_else(|| panic!("no run {workload} {param}"))
}

/// A method's result in a run; it must have succeeded.
fn method<'a>(run: &'a Value, name: &str) -> &'a Value {
    let m = &run["methods"][name];
    assert_eq!(m["ok"], true, "{name} failed: {}", m["error"]);
    m
}

/// The row of `function` in a method's result.
fn function<'a>(m: &'a Value, function: &str) -> Option<&'a Value> {
    m["functions"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["name"] == function)
}

fn names(v: &Value) -> Vec<String> {
    v.as_array()
        .unwrap()
        .iter()
        .map(|x| x.as_str().unwrap().to_string())
        .collect()
}

#[test]
fn fixed_period_sampling_misses_what_jitter_finds_on_the_aliasing_workload() {
    let dir = tempfile::tempdir().unwrap();
    let out = fwprof(
        dir.path(),
        &[
            "reliability",
            "--quick",
            "--only",
            "saw",
            "--format",
            "json",
        ],
    );
    let doc = json_of(&out);
    assert!(matches!(out.status.code(), Some(0 | 1)), "{}", stderr(&out));

    // In step: the loop's period is the sampling period.
    let run = run_of(&doc, "saw", 10007);
    let exact_share = run["reference"]["functions"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["name"] == "saw_rare")
        .expect("saw_rare in the reference")["share"]
        .as_f64()
        .unwrap();
    assert!(
        (20.0..35.0).contains(&exact_share),
        "saw_rare holds {exact_share}% of the exact profile"
    );
    let fixed = method(run, "sample");
    assert!(
        names(&fixed["missed"]).contains(&"saw_rare".to_string()),
        "fixed-period sampling should miss saw_rare: {fixed}"
    );
    let f = function(fixed, "saw_rare").expect("saw_rare row");
    assert_eq!(f["share"].as_f64(), Some(0.0));
    assert_eq!(f["missed"], true);
    assert_eq!(f["covers"], false);
    assert!(fixed["max_abs_error"].as_f64().unwrap() >= exact_share - 1e-9);
    assert_eq!(fixed["verdict"], "unreliable");

    let jitter = method(run, "jitter");
    assert!(
        names(&jitter["missed"]).is_empty(),
        "jitter missed {}",
        jitter["missed"]
    );
    let j = function(jitter, "saw_rare").expect("saw_rare row");
    assert!(j["share"].as_f64().unwrap() > 0.0);
    assert_eq!(j["missed"], false);
    assert_eq!(
        j["covers"], true,
        "jitter's interval {} should cover {exact_share}",
        j["interval"]
    );
    let (lo, hi) = (
        j["interval"][0].as_f64().unwrap(),
        j["interval"][1].as_f64().unwrap(),
    );
    assert!(lo <= exact_share && exact_share <= hi && hi - lo < 10.0);

    // Out of step (drifting 100 instructions a sample): no aliasing.
    let run = run_of(&doc, "saw", 10107);
    let fixed = method(run, "sample");
    assert!(
        !names(&fixed["missed"]).contains(&"saw_rare".to_string()),
        "out of step, the fixed sampler should see saw_rare: {fixed}"
    );
    assert!(
        function(fixed, "saw_rare").unwrap()["share"]
            .as_f64()
            .unwrap()
            > 15.0
    );
}

/// Self instructions per function name in the instructions event.
fn self_instructions(p: &Profile) -> Vec<(String, u64)> {
    let e = p.event_index("instructions").unwrap();
    p.functions
        .iter()
        .map(|f| (f.name.clone(), f.self_cost[e]))
        .collect()
}

#[test]
fn compensated_instrumentation_is_within_2_percent_on_the_procedure_call_kernel() {
    let dir = tempfile::tempdir().unwrap();
    let elf = repo().join("reliability/workloads-instrument.rv64-linux.elf");
    let elf = elf.to_str().unwrap();
    for (name, method) in [("exact.fwprof", "exact"), ("instr.fwprof", "instrument")] {
        ok(fwprof(
            dir.path(),
            &[
                "record", "-q", "--method", method, "-o", name, "--", elf, "calls", "1000000",
            ],
        ));
    }
    let exact = Profile::read(dir.path().join("exact.fwprof")).unwrap();
    let instr = Profile::read(dir.path().join("instr.fwprof")).unwrap();
    let total = exact.totals[exact.event_index("instructions").unwrap()];
    let records: Vec<(String, u64)> = instr
        .instrumented
        .iter()
        .map(|r| {
            (
                instr.functions[r.function.0 as usize].name.clone(),
                r.self_compensated,
            )
        })
        .collect();
    let mut checked = BTreeSet::new();
    for (name, want) in self_instructions(&exact) {
        if want * 100 < total || name.starts_with("__cyg_profile_func_") {
            continue;
        }
        let got = records
            .iter()
            .find(|(n, _)| *n == name)
            .unwrap_or_else(|| panic!("no instrumentation record of {name}"))
            .1;
        let err = (got as f64 - want as f64).abs() / want as f64;
        assert!(
            err <= 0.02,
            "{name}: compensated self {got}, exact self {want} ({:.2}% off)",
            100.0 * err
        );
        checked.insert(name);
    }
    for f in ["foo", "calls_work", "control", "aux"] {
        assert!(checked.contains(f), "{f} not checked: {checked:?}");
    }
    // foo is called a million times: its hooks cost several times its body.
    let hooks: u64 = self_instructions(&exact)
        .iter()
        .filter(|(n, _)| n.starts_with("__cyg_profile_func_"))
        .map(|(_, c)| c)
        .sum();
    assert!(hooks >= 2 * 1_000_000, "hooks ran {hooks} instructions");
}

fn number(v: &Value, what: &str) -> f64 {
    v.as_f64()
        .unwrap_or_else(|| panic!("{what} is not a number: {v}"))
}

#[test]
fn quick_suite_runs_every_method_and_writes_json_svg_and_text() {
    let dir = tempfile::tempdir().unwrap();
    let out = fwprof(
        dir.path(),
        &[
            "reliability",
            "--quick",
            "--format",
            "json",
            "--svg",
            "chart.svg",
        ],
    );
    let out = ok(out);
    let doc = json_of(&out);
    assert_eq!(doc["schema"], "fwprof-reliability/1");
    assert_eq!(doc["event"], "instructions");
    assert_eq!(doc["period"], 10007);
    assert_eq!(doc["time_period"], 10000);
    assert_eq!(doc["seed"], 1);
    assert_eq!(doc["top"], 10);
    assert_eq!(doc["significant_percent"], 1.0);
    let methods: Vec<&str> = doc["methods"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| {
            assert!(m["description"].as_str().is_some_and(|d| !d.is_empty()));
            assert!(m["reference"]
                .as_str()
                .is_some_and(|d| d.starts_with("exact")));
            m["name"].as_str().unwrap()
        })
        .collect();
    assert_eq!(methods, METHODS);
    let workloads: Vec<&str> = doc["workloads"]
        .as_array()
        .unwrap()
        .iter()
        .map(|w| w["name"].as_str().unwrap())
        .collect();
    assert_eq!(
        workloads,
        [
            "nomem",
            "memory",
            "cache",
            "looplen",
            "periodic",
            "ctxloss",
            "ctxloss-bare",
            "misalign",
            "calls",
            "saw",
            "tiny",
            "recursion"
        ]
    );
    // Jittered intervals over every run: coverage of the exact shares ≥ 1%.
    let (mut intervals, mut covered) = (0, 0);
    for w in doc["workloads"].as_array().unwrap() {
        assert!(w["parameter"].as_str().is_some_and(|s| !s.is_empty()));
        assert!(w["breaks"].as_str().is_some_and(|s| !s.is_empty()));
        let runs = w["runs"].as_array().unwrap();
        assert_eq!(runs.len(), 2, "{}: --quick runs two values", w["name"]);
        for r in runs {
            let at = format!("{} {}", w["name"], r["param"]);
            let bare = w["name"] == "ctxloss-bare";
            let reference = &r["reference"];
            assert_eq!(reference["ok"], true, "{at}");
            let total = reference["total"].as_u64().unwrap();
            assert!(
                (1_000_000..30_000_000).contains(&total),
                "{at}: {total} instructions"
            );
            let shares: Vec<f64> = reference["functions"]
                .as_array()
                .unwrap()
                .iter()
                .map(|f| number(&f["share"], "share"))
                .collect();
            // The bare-metal program is its burst loop and little else.
            assert!(
                shares.len() >= if bare { 1 } else { 3 },
                "{at}: too few functions ≥ 1%"
            );
            assert!(shares.windows(2).all(|x| x[0] >= x[1]) && shares[shares.len() - 1] >= 1.0);
            for name in METHODS {
                if bare && INSTRUMENTATION.contains(&name) {
                    assert!(r["methods"][name].is_null(), "{at} {name} applies");
                    continue;
                }
                let m = method(r, name);
                let max = number(&m["max_abs_error"], "max_abs_error");
                let mean = number(&m["mean_abs_error"], "mean_abs_error");
                assert!(
                    max >= 0.0 && mean >= 0.0 && mean <= max + 1e-9,
                    "{at} {name}"
                );
                assert!(m["tau_b"].is_null() || number(&m["tau_b"], "tau").abs() <= 1.0);
                assert!(m["top_overlap"].as_u64().unwrap() <= m["top_n"].as_u64().unwrap());
                assert!(["good", "fair", "unreliable"].contains(&m["verdict"].as_str().unwrap()));
                assert!(m["verdict_text"]
                    .as_str()
                    .unwrap()
                    .starts_with(m["verdict"].as_str().unwrap()));
                let missed = names(&m["missed"]);
                number(&m["missed_share"], "missed_share");
                for f in m["functions"].as_array().unwrap() {
                    let e = number(&f["share"], "share") - number(&f["reference_share"], "ref");
                    assert!((e - number(&f["abs_error"], "abs_error")).abs() < 1e-9);
                    assert!(
                        e.abs() <= max + 1e-9,
                        "{at} {name}: {f} beyond the max error"
                    );
                    if f["missed"] == true {
                        assert!(missed.contains(&f["name"].as_str().unwrap().to_string()));
                    }
                }
                let sampled = ["sample", "jitter", "time", "time-jitter"].contains(&name);
                assert_eq!(m["samples"].is_u64(), sampled, "{at} {name}");
                assert_eq!(m["coverage"].is_f64(), sampled, "{at} {name}");
                assert_eq!(m["idle_samples"].is_u64(), sampled, "{at} {name}");
                if name == "sample" || name == "jitter" {
                    // Paced by instructions: a sleep executes none, so no
                    // sampling point can fall inside one.
                    assert_eq!(m["idle_samples"], 0, "{at} {name}");
                    assert_eq!(m["lost_percent"], 0.0, "{at} {name}");
                    let n = m["samples"].as_u64().unwrap();
                    assert!(
                        n.abs_diff(total / 10007) <= total / 10007 / 10 + 2,
                        "{at} {name}: {n} samples of {total} instructions"
                    );
                }
                if name == "jitter" {
                    for f in m["functions"].as_array().unwrap() {
                        if number(&f["reference_share"], "ref") >= 1.0 {
                            intervals += 1;
                            covered += usize::from(f["covers"] == true);
                        }
                    }
                }
            }
        }
    }
    assert!(intervals >= 60, "{intervals} jittered intervals");
    assert!(
        covered * 10 >= intervals * 9,
        "jittered 95% intervals covered {covered} of {intervals} exact shares ≥ 1%"
    );

    // The chart: one panel per workload, one line per method in each.
    let svg = std::fs::read_to_string(dir.path().join("chart.svg")).unwrap();
    let tree = roxmltree::Document::parse(&svg).expect("well-formed SVG");
    let root = tree.root_element();
    assert_eq!(root.tag_name().name(), "svg");
    assert_eq!(
        root.tag_name().namespace(),
        Some("http://www.w3.org/2000/svg")
    );
    let panels: Vec<_> = root.children().filter(|n| n.has_tag_name("g")).collect();
    assert_eq!(panels.len(), workloads.len());
    for (g, name) in panels.iter().zip(&workloads) {
        let title: String = g
            .descendants()
            .find(|n| n.has_tag_name("text"))
            .unwrap()
            .descendants()
            .filter_map(|n| n.text())
            .collect();
        assert!(title.starts_with(name), "panel {title} for {name}");
        let applicable = if *name == "ctxloss-bare" {
            METHODS.len() - INSTRUMENTATION.len()
        } else {
            METHODS.len()
        };
        let lines = g.children().filter(|n| n.has_tag_name("polyline")).count();
        assert_eq!(lines, applicable, "{name}: one line per method");
        let points = g
            .children()
            .filter(|n| n.has_tag_name("circle") || n.has_tag_name("rect"))
            .count();
        assert_eq!(
            points,
            2 * applicable,
            "{name}: one mark per run and method"
        );
    }
    // The saw panel marks the fixed sampler's miss with a square.
    let saw = panels[workloads.iter().position(|w| *w == "saw").unwrap()];
    assert!(saw.children().any(|n| n.has_tag_name("rect")
        && n.attribute("fill") == Some("#d62728")
        && n.descendants()
            .any(|t| t.text().is_some_and(|x| x.contains("missed saw_rare")))));

    // The text table of the same suite, one workload: a row per value.
    let out = ok(fwprof(
        dir.path(),
        &["reliability", "--quick", "--only", "nomem"],
    ));
    let text = String::from_utf8(out.stdout).unwrap();
    let header = text
        .lines()
        .find(|l| l.starts_with("workload"))
        .expect("header");
    for m in METHODS {
        assert!(header.contains(m), "{header}");
    }
    let rows: Vec<&str> = text
        .lines()
        .skip_while(|l| !l.starts_with("workload"))
        .skip(1)
        .take_while(|l| !l.is_empty())
        .collect();
    assert_eq!(rows.len(), 2, "{text}");
    assert!(rows[0].starts_with("nomem ") && rows[1].starts_with("           "));
    for row in rows {
        let cells: Vec<&str> = row.split_whitespace().collect();
        // [name], param, instr, then one error per method.
        let errors = &cells[cells.len() - METHODS.len()..];
        for e in errors {
            e.parse::<f64>()
                .unwrap_or_else(|_| panic!("cell {e} in {row}"));
        }
    }
    assert!(!text.contains("Failed:"), "{text}");
}

/// `lost_percent` of a method's result.
fn lost(m: &Value) -> f64 {
    number(&m["lost_percent"], "lost_percent")
}

/// Study 003's forced context loss, with the samplers paced by time
/// (`--unit cycles`, 10000 cycles = 1 ms of the 10 MHz clock):
/// * on Linux, `nanosleep(1 ms)` after each burst: the sampler's points
///   that fall in a sleep see no program code, so the share lost grows
///   with the bursts (0.1% at 1, 73% at 4096: 4.1 s asleep against 1.5 s
///   of work) while the shares of what runs stay right;
/// * on bare metal, a `wfi` until the next 1 ms tick of the machine timer:
///   a fixed 1 ms sampler is in step with the timer that wakes the
///   program, every point falls on a wake-up, none is lost, and at 8192
///   bursts all but two land in `pause_tick` just after its `wfi`: `burst`
///   (96% of the cycles) gets 0.02%. Jittered periods lose the 44% asleep
///   and get every share within 2 points.
#[test]
fn time_paced_sampling_loses_the_sleeps_and_aliases_with_the_waking_timer() {
    let dir = tempfile::tempdir().unwrap();
    let out = ok(fwprof(
        dir.path(),
        &["reliability", "--only", "ctxloss", "--format", "json"],
    ));
    let doc = json_of(&out);
    let mut previous = -1.0;
    for b in [1, 16, 256, 4096] {
        let r = run_of(&doc, "ctxloss", b);
        for name in ["time", "time-jitter"] {
            let m = method(r, name);
            assert!(
                m["missed"].as_array().unwrap().is_empty(),
                "{b} {name}: {m}"
            );
            assert!(number(&m["max_abs_error"], "max") < 1.0, "{b} {name}: {m}");
        }
        let l = lost(method(r, "time-jitter"));
        assert!(l > previous, "ctxloss {b}: lost {l}% after {previous}%");
        previous = l;
        // Instruction-paced samplers never see the sleeps.
        assert_eq!(method(r, "jitter")["idle_samples"], 0);
    }
    assert!(lost(method(run_of(&doc, "ctxloss", 1), "time")) < 1.0);
    let l = lost(method(run_of(&doc, "ctxloss", 4096), "time"));
    assert!((65.0..80.0).contains(&l), "ctxloss 4096: lost {l}%");

    let r = run_of(&doc, "ctxloss-bare", 8192);
    let fixed = method(r, "time");
    let share = |m: &Value, f: &str| number(&function(m, f).unwrap()["share"], "share");
    assert!(share(fixed, "burst") < 0.1, "{fixed}");
    assert!(share(fixed, "pause_tick") > 99.9, "{fixed}");
    assert!(number(&fixed["max_abs_error"], "max") > 90.0, "{fixed}");
    assert_eq!(fixed["idle_samples"], 0, "every point falls on a wake-up");
    let jitter = method(r, "time-jitter");
    assert!(names(&jitter["missed"]).is_empty(), "{jitter}");
    assert!(number(&jitter["max_abs_error"], "max") < 2.0, "{jitter}");
    assert!((35.0..55.0).contains(&lost(jitter)), "{jitter}");
    let r = run_of(&doc, "ctxloss-bare", 1);
    for name in ["time", "time-jitter"] {
        assert!(number(&method(r, name)["max_abs_error"], "max") < 1.0);
    }
    // Instruction counting and instruction-paced sampling are immune.
    for b in [1, 256, 1024, 4096, 8192] {
        let r = run_of(&doc, "ctxloss-bare", b);
        for name in ["sample", "jitter", "icount"] {
            let m = method(r, name);
            assert!(number(&m["max_abs_error"], "max") < 2.0, "{b} {name}: {m}");
        }
        for name in INSTRUMENTATION {
            assert!(r["methods"][name].is_null());
        }
    }
}

#[test]
fn unknown_workload_is_a_one_line_error() {
    let dir = tempfile::tempdir().unwrap();
    let out = fwprof(dir.path(), &["reliability", "--only", "nosuch"]);
    assert_eq!(out.status.code(), Some(125));
    let err = stderr(&out);
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(
        err.contains("no workload matches --only nosuch") && err.contains("saw"),
        "{err}"
    );
    assert!(out.stdout.is_empty());
}

/// The workloads' output under `qemu-riscv64` (the reference emulator).
fn qemu(elf: &Path, args: &[&str]) -> Output {
    Command::new("qemu-riscv64")
        .arg(elf)
        .args(args)
        .stdin(Stdio::null())
        .output()
        .unwrap()
}

#[test]
fn workloads_compute_the_same_under_qemu() {
    if !require(&["qemu-riscv64"]) {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let builds: [PathBuf; 2] = [
        repo().join("reliability/workloads.rv64-linux.elf"),
        repo().join("reliability/workloads-instrument.rv64-linux.elf"),
    ];
    // saw's result depends on the instret counter, which QEMU does not
    // count exactly; everything else is deterministic.
    let runs = [
        ("nomem", "100"),
        ("memory", "1024"),
        ("cache", "16"),
        ("looplen", "16"),
        ("periodic", "10"),
        ("ctxloss", "16"),
        ("misalign", "10000"),
        ("calls", "10000"),
        ("tiny", "1000"),
        ("recursion", "1000"),
    ];
    for elf in &builds {
        for (w, p) in runs {
            let want = qemu(elf, &[w, p]);
            assert_eq!(want.status.code(), Some(0), "qemu {w} {p}");
            let got = ok(fwprof(
                dir.path(),
                &["run", "--", elf.to_str().unwrap(), w, p],
            ));
            assert_eq!(
                String::from_utf8_lossy(&got.stdout),
                String::from_utf8_lossy(&want.stdout),
                "{} {w} {p}",
                elf.display()
            );
            assert!(String::from_utf8_lossy(&got.stdout).starts_with(&format!("{w} {p} ")));
        }
    }
    // Bad parameters: usage on stderr, status 2.
    let out = fwprof(
        dir.path(),
        &["run", "--", builds[0].to_str().unwrap(), "saw", "10"],
    );
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("too short"));
    let out = fwprof(
        dir.path(),
        &["run", "--", builds[0].to_str().unwrap(), "nosuch", "1"],
    );
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("unknown workload 'nosuch'"));
}

#[test]
fn committed_workloads_are_a_fresh_build_of_their_sources() {
    if !require(&["riscv64-linux-gnu-gcc", "riscv64-unknown-elf-gcc"]) {
        return;
    }
    let out = tempfile::tempdir().unwrap();
    let st = Command::new(repo().join("reliability/build.sh"))
        .env("OUT", out.path())
        .stdout(Stdio::null())
        .status()
        .unwrap();
    assert!(st.success(), "reliability/build.sh failed");
    for name in [
        "workloads.rv64-linux.elf",
        "workloads-instrument.rv64-linux.elf",
        "ctxloss.rv32imac.elf",
    ] {
        let fresh = std::fs::read(out.path().join(name)).unwrap();
        let committed = std::fs::read(repo().join("reliability").join(name)).unwrap();
        assert!(
            fresh == committed,
            "reliability/{name} is not the build of its sources: run reliability/build.sh"
        );
    }
}
