//! `fwprof compare`: an exact profile against itself, against a copy with
//! cost deliberately moved between functions, against synthetic sampled
//! profiles drawn from it (an ideal random sampler and one blind to a
//! function), and the one-line errors and warnings.

mod common;

use std::path::{Path, PathBuf};

use common::{repo, run_fwprof};
use fwprof_profile::{FunctionRecord, Method, Profile, SamplingInfo};
use serde_json::Value;

/// Record `elf ARGS` exactly into `dir/name`.
///
/// The run is made independent of the machine: the ELF is copied into
/// `dir` and run by its file name (the guest's `argv[0]`) with an empty
/// environment, so its start-up code, and every count, is the same in
/// every checkout and CI job.
fn record(dir: &Path, name: &str, elf: &str, args: &[&str]) -> PathBuf {
    let out = dir.join(name);
    let src = repo().join(elf);
    let file = src.file_name().unwrap().to_str().unwrap().to_string();
    if !dir.join(&file).exists() {
        std::fs::copy(&src, dir.join(&file)).unwrap();
    }
    let mut a = vec![
        "record",
        "-q",
        "--clear-env",
        "-o",
        out.to_str().unwrap(),
        "--",
        &file,
    ];
    a.extend_from_slice(args);
    let o = run_fwprof(dir, &a);
    assert!(
        o.status.success(),
        "record failed: {}",
        String::from_utf8_lossy(&o.stderr)
    );
    out
}

/// `fwprof compare REF OTHER --format json [extra]`: the document, with
/// stderr, asserting success.
fn compare_json(dir: &Path, r: &Path, o: &Path, extra: &[&str]) -> (Value, String) {
    let mut a = vec![
        "compare",
        r.to_str().unwrap(),
        o.to_str().unwrap(),
        "--format",
        "json",
    ];
    a.extend_from_slice(extra);
    let out = run_fwprof(dir, &a);
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(out.status.success(), "compare failed: {stderr}");
    (serde_json::from_slice(&out.stdout).unwrap(), stderr)
}

fn compare_text(dir: &Path, r: &Path, o: &Path) -> String {
    let out = run_fwprof(dir, &["compare", r.to_str().unwrap(), o.to_str().unwrap()]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

/// The JSON row of function `name`.
fn row<'a>(v: &'a Value, name: &str) -> &'a Value {
    v["functions"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["name"] == name)
        .unwrap_or_else(|| panic!("no row for {name}"))
}

fn index(p: &Profile, name: &str) -> usize {
    p.functions
        .iter()
        .position(|f| f.name == name)
        .unwrap_or_else(|| panic!("{name} not in the profile"))
}

#[test]
fn exact_profile_against_itself_is_good() {
    let dir = tempfile::tempdir().unwrap();
    let p = record(
        dir.path(),
        "crc.fwprof",
        "examples/crc32/crc32.rv32imac.elf",
        &[],
    );
    let (v, stderr) = compare_json(dir.path(), &p, &p, &[]);
    assert_eq!(stderr, "");
    assert_eq!(v["schema"], "fwprof-compare/1");
    assert_eq!(v["event"], "instructions");
    let fns = v["functions"].as_array().unwrap();
    assert!(fns.len() > 10);
    for f in fns {
        assert_eq!(f["abs_error"], 0.0, "{f}");
        assert_eq!(f["inclusive_abs_error"], 0.0, "{f}");
        assert_eq!(f["interval"], Value::Null);
        assert_eq!(f["reference"]["self"], f["other"]["self"]);
    }
    // The exact shares are the report's: crc32_table's self instructions
    // over the total.
    let prof = Profile::read(&p).unwrap();
    let t = &prof.functions[index(&prof, "crc32_table")];
    let share = 100.0 * t.self_cost[0] as f64 / prof.totals[0] as f64;
    assert_eq!(row(&v, "crc32_table")["reference"]["share"], share);
    assert_eq!(v["ranking"]["tau_b"], 1.0);
    // Ranked: the top 10 of the functions with at least 1% of the total.
    let significant = prof
        .functions
        .iter()
        .filter(|f| 100.0 * f.self_cost[0] as f64 / prof.totals[0] as f64 >= 1.0)
        .count();
    assert!(significant >= 3, "{significant}");
    assert_eq!(v["ranking"]["n"], significant.min(10));
    assert_eq!(v["ranking"]["overlap"], significant.min(10));
    assert_eq!(v["missed"].as_array().unwrap().len(), 0);
    assert_eq!(v["invented"].as_array().unwrap().len(), 0);
    assert_eq!(v["verdict"]["grade"], "good");
    assert_eq!(v["summary"]["max_abs_error"], 0.0);

    let text = compare_text(dir.path(), &p, &p);
    assert!(text.starts_with("reference  "), "{text}");
    assert!(text.contains(": exact, "), "{text}");
    assert!(
        text.contains("function  ") && text.contains("95% CI") && text.contains("covers"),
        "{text}"
    );
    let verdict = text.lines().find(|l| l.starts_with("verdict")).unwrap();
    assert!(
        verdict.contains(
            "good: all 5 functions above 1% within ±0.00 points, tau 1.00, top-5 overlap 5/5"
        ),
        "{verdict}"
    );
}

#[test]
fn distorted_copy_shows_what_was_moved() {
    let dir = tempfile::tempdir().unwrap();
    let p = record(
        dir.path(),
        "crc.fwprof",
        "examples/crc32/crc32.rv32imac.elf",
        &[],
    );
    let mut d = Profile::read(&p).unwrap();
    let total = d.totals[0];
    let (table, bitwise, slice4) = (
        index(&d, "crc32_table"),
        index(&d, "crc32_bitwise"),
        index(&d, "crc32_slice4"),
    );
    // 5% of all instructions from crc32_table to crc32_bitwise ...
    let moved = total / 20;
    d.functions[table].self_cost[0] -= moved;
    d.functions[bitwise].self_cost[0] += moved;
    // ... and all of crc32_slice4 to a function the reference never ran.
    let s4 = std::mem::replace(&mut d.functions[slice4].self_cost[0], 0);
    let mut ghost = FunctionRecord::new("phantom", 0xdead_0000, 0xdead_0040);
    ghost.self_cost = vec![s4];
    ghost.inclusive = vec![s4];
    d.add_function(ghost);
    let dp = dir.path().join("distorted.fwprof");
    d.write_atomic(&dp).unwrap();

    let (v, stderr) = compare_json(dir.path(), &p, &dp, &[]);
    assert_eq!(stderr, "", "same program and command: no warning");
    let points = 100.0 * moved as f64 / total as f64;
    let err = |name: &str| row(&v, name)["abs_error"].as_f64().unwrap();
    assert!((err("crc32_table") + points).abs() < 1e-9);
    assert!((err("crc32_bitwise") - points).abs() < 1e-9);
    let s4_points = 100.0 * s4 as f64 / total as f64;
    assert!(s4_points > 30.0);
    assert!((err("crc32_slice4") + s4_points).abs() < 1e-9);
    assert!((err("phantom") - s4_points).abs() < 1e-9);
    assert_eq!(err("main"), 0.0);
    // Relative error: 5 points of crc32_table's ~36%.
    let t_share = row(&v, "crc32_table")["reference"]["share"]
        .as_f64()
        .unwrap();
    let rel = row(&v, "crc32_table")["rel_error"].as_f64().unwrap();
    assert!((rel + 100.0 * points / t_share).abs() < 1e-9);
    // Inclusive costs were left alone.
    assert_eq!(row(&v, "crc32_table")["inclusive_abs_error"], 0.0);
    assert_eq!(row(&v, "phantom")["rel_error"], Value::Null);
    assert_eq!(v["missed"], serde_json::json!(["crc32_slice4"]));
    assert_eq!(v["invented"], serde_json::json!(["phantom"]));
    assert_eq!(row(&v, "crc32_slice4")["missed"], true);
    assert_eq!(row(&v, "phantom")["invented"], true);
    assert_eq!(v["verdict"]["grade"], "unreliable");
    let max = v["summary"]["max_abs_error"].as_f64().unwrap();
    assert!((max - s4_points).abs() < 1e-9);
    // crc32_slice4 fell out of OTHER's top N, phantom came in.
    let n = v["ranking"]["n"].as_u64().unwrap();
    assert!(n >= 3, "{n}");
    assert_eq!(v["ranking"]["overlap"], n - 1);
    assert!(v["ranking"]["tau_b"].as_f64().unwrap() < 1.0);

    let text = compare_text(dir.path(), &p, &dp);
    assert!(text.contains("missed           crc32_slice4\n"), "{text}");
    assert!(text.contains("invented         phantom\n"), "{text}");
    let verdict = text.lines().find(|l| l.starts_with("verdict")).unwrap();
    assert!(
        verdict.starts_with("verdict          unreliable: misses crc32_slice4 ("),
        "{verdict}"
    );
    assert!(verdict.contains("invents phantom"), "{verdict}");
    let line = text
        .lines()
        .find(|l| l.starts_with("crc32_slice4 "))
        .unwrap();
    assert!(line.trim_end().ends_with("missed"), "{line}");
}

/// A small deterministic generator (xorshift64*, Vigna 2016).
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }
}

/// A sampled profile of the run `exact` describes: `n` samples drawn
/// uniformly over its executed instructions (seeded), each attributed to
/// its function, except that `blind` (if any) is never seen: its samples
/// go to the function after it. Costs are samples × period, with a
/// `samples` event.
fn synthetic_sampled(exact: &Profile, n: u64, seed: u64, blind: Option<&str>) -> Profile {
    let total = exact.totals[0];
    let period = total / n;
    let cumulative: Vec<u64> = exact
        .functions
        .iter()
        .scan(0, |acc, f| {
            *acc += f.self_cost[0];
            Some(*acc)
        })
        .collect();
    let mut counts = vec![0u64; exact.functions.len()];
    let mut rng = Rng(seed);
    for _ in 0..n {
        let at = rng.next() % total;
        let mut f = cumulative.partition_point(|&c| c <= at);
        if blind.is_some_and(|b| exact.functions[f].name == b) {
            f = (f + 1) % counts.len();
        }
        counts[f] += 1;
    }
    let mut meta = exact.meta.clone();
    meta.method = Method::Sample;
    meta.sampling = Some(SamplingInfo {
        period,
        unit: "instructions".into(),
        jitter: true,
        seed,
        samples: n,
        unwind_failures: 0,
        idle_samples: 0,
    });
    let mut p = Profile::new(meta, vec!["instructions".into(), "samples".into()]);
    for (f, &k) in exact.functions.iter().zip(&counts) {
        let mut g = FunctionRecord::new(f.name.clone(), f.start, f.end);
        g.self_cost = vec![k * period, k];
        g.inclusive = vec![k * period, k];
        p.add_function(g);
    }
    p.totals = vec![n * period, n];
    p
}

#[test]
fn synthetic_sampled_profiles() {
    let dir = tempfile::tempdir().unwrap();
    let p = record(
        dir.path(),
        "mix.fwprof",
        "bench/coremix.rv64-linux.elf",
        &["3"],
    );
    let exact = Profile::read(&p).unwrap();

    // An ideal random sampler: the 95% intervals cover the exact shares of
    // nearly every function above 1%.
    let s = dir.path().join("sampled.fwprof");
    synthetic_sampled(&exact, 4000, 7, None)
        .write_atomic(&s)
        .unwrap();
    let (v, stderr) = compare_json(dir.path(), &p, &s, &[]);
    assert_eq!(stderr, "");
    assert_eq!(v["other"]["method"], "sample");
    assert_eq!(v["samples"], 4000);
    assert_eq!(v["sample_counts"], "event");
    let sig = v["summary"]["significant"].as_u64().unwrap();
    assert!(sig >= 9, "{sig}");
    assert_eq!(v["summary"]["intervals"], sig);
    eprintln!("ideal sampler: {}", v["verdict"]["text"]);
    // One draw: each 95% interval misses with probability 5%, so of 9+
    // intervals one or two may miss (P(>= 3 misses) < 1%); the calibration
    // over 60 seeds below checks the 95% itself.
    let covered = v["summary"]["covered"].as_u64().unwrap();
    assert!(covered + 2 >= sig, "{covered} of {sig} cover");
    for f in v["functions"].as_array().unwrap() {
        let k = f["other"]["samples"].as_f64().unwrap();
        let [lo, hi] = [0, 1].map(|i| f["interval"][i].as_f64().unwrap() / 100.0);
        let p_hat = k / 4000.0;
        assert!(lo <= p_hat && p_hat <= hi, "{f}");
        let covers = f["covers"].as_bool().unwrap();
        let r = f["reference"]["share"].as_f64().unwrap() / 100.0;
        assert_eq!(covers, lo <= r && r <= hi, "{f}");
    }
    assert!(v["missed"].as_array().unwrap().is_empty());
    assert!(v["invented"].as_array().unwrap().is_empty());
    assert_ne!(
        v["verdict"]["grade"], "unreliable",
        "{}",
        v["verdict"]["text"]
    );
    let text = compare_text(dir.path(), &p, &s);
    assert!(text.contains("sample (4000 samples, period "), "{text}");
    assert!(text.contains("95% Wilson score, sample proportion of n = 4000 samples"));

    // Calibration: over 60 seeds, about 95% of the intervals cover (a
    // too-narrow interval would cover less, a too-wide one nearly all).
    let (mut covered, mut intervals) = (0, 0);
    for seed in 1..=60 {
        let c = fwprof_report::compare(
            &exact,
            &synthetic_sampled(&exact, 4000, seed, None),
            "instructions",
            10,
        )
        .unwrap();
        covered += c.summary.covered;
        intervals += c.summary.intervals;
    }
    let rate = covered as f64 / intervals as f64;
    eprintln!("calibration: {covered} of {intervals} intervals cover");
    assert!((0.92..=0.98).contains(&rate), "{covered} of {intervals}");

    // A sampler blind to list_find (20% of instructions): missed, its
    // interval and its neighbour's do not cover, unreliable.
    let b = dir.path().join("blind.fwprof");
    synthetic_sampled(&exact, 4000, 7, Some("list_find"))
        .write_atomic(&b)
        .unwrap();
    let (v, _) = compare_json(dir.path(), &p, &b, &[]);
    eprintln!("blind sampler: {}", v["verdict"]["text"]);
    assert_eq!(v["missed"], serde_json::json!(["list_find"]));
    assert_eq!(row(&v, "list_find")["covers"], false);
    assert_eq!(row(&v, "list_find")["interval"][0], 0.0);
    assert_eq!(v["verdict"]["grade"], "unreliable");
    assert!(v["verdict"]["text"]
        .as_str()
        .unwrap()
        .starts_with("unreliable: misses list_find ("));
    let covered = v["summary"]["covered"].as_u64().unwrap();
    assert!(covered < sig - 1, "{covered} of {sig}");
}

#[test]
fn one_line_errors_and_warnings() {
    let dir = tempfile::tempdir().unwrap();
    let p = record(
        dir.path(),
        "crc.fwprof",
        "examples/crc32/crc32.rv32imac.elf",
        &[],
    );
    let ps = p.to_str().unwrap();
    let fail = |args: &[&str], start: &str| {
        let o = run_fwprof(dir.path(), args);
        assert_eq!(o.status.code(), Some(125), "{args:?}");
        let e = String::from_utf8_lossy(&o.stderr);
        assert_eq!(e.lines().count(), 1, "{e}");
        assert!(e.starts_with(start), "{e}");
        assert!(o.stdout.is_empty());
    };
    fail(
        &["compare", ps, "missing.fwprof"],
        "fwprof: cannot read missing.fwprof",
    );
    fail(
        &["compare", ps, ps, "--event", "cycles"],
        "fwprof: REFERENCE does not record event `cycles` (it has: instructions)",
    );
    fail(
        &["compare", ps, ps, "--top", "0"],
        "fwprof: --top must be at least 1",
    );

    // With --core both record cycles: compare them.
    let core = dir.path().join("core.fwprof");
    let elf = repo().join("examples/crc32/crc32.rv32imac.elf");
    let o = run_fwprof(
        dir.path(),
        &[
            "record",
            "-q",
            "--core",
            "picorv32",
            "-o",
            core.to_str().unwrap(),
            "--",
            elf.to_str().unwrap(),
        ],
    );
    assert!(o.status.success());
    let (v, _) = compare_json(dir.path(), &core, &core, &["--event", "cycles"]);
    assert_eq!(v["event"], "cycles");
    assert_eq!(v["verdict"]["grade"], "good");
    fail(
        &["compare", core.to_str().unwrap(), ps, "--event", "cycles"],
        "fwprof: OTHER does not record event `cycles`",
    );

    // Another program and another command line: two warnings, one line
    // each, and the comparison still runs.
    let mut other = Profile::read(&p).unwrap();
    other.meta.sha256 = "0".repeat(64);
    other.meta.command.push("--fast".into());
    let op = dir.path().join("other.fwprof");
    other.write_atomic(&op).unwrap();
    let (v, stderr) = compare_json(dir.path(), &p, &op, &[]);
    let lines: Vec<&str> = stderr.lines().collect();
    assert_eq!(lines.len(), 2, "{stderr}");
    assert!(lines[0].starts_with("fwprof: warning: the profiles are of different programs"));
    assert!(lines[1].starts_with("fwprof: warning: the profiles ran different command lines"));
    assert_eq!(v["warnings"].as_array().unwrap().len(), 2);
    assert_eq!(v["verdict"]["grade"], "good");
}
