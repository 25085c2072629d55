//! Tests of the comparison: statistics against published values, matching,
//! verdicts, JSON and text.

use serde_json::Value;

use super::*;

#[test]
fn newcombe_interval_matches_newcombe_1998() {
    // Table II of Newcombe 1998: 56/70 - 48/80, method 10: 0.0524 to 0.3339.
    let (lo, hi) = newcombe_interval(56.0, 70, 48.0, 80, Z_95);
    assert!(
        (lo - 0.0524).abs() < 5e-5 && (hi - 0.3339).abs() < 5e-5,
        "{lo} {hi}"
    );
    // Equal proportions: an interval symmetric about 0.
    let (lo, hi) = newcombe_interval(5.0, 50, 5.0, 50, Z_95);
    assert!(lo < 0.0 && hi > 0.0 && (lo + hi).abs() < 1e-12);
    // An exactly known proportion has no width of its own.
    let (lo, hi) = newcombe_difference(0.5, (0.5, 0.5), 0.25, (0.25, 0.25));
    assert_eq!((lo, hi), (0.25, 0.25));
}

fn close(a: f64, b: f64, tol: f64) -> bool {
    (a - b).abs() <= tol
}

/// Newcombe, "Two-sided confidence intervals for the single
/// proportion: comparison of seven methods", Stat. Med. 17 (1998)
/// 857–872, Table II, method 3 (Wilson score, no continuity
/// correction), to 4 decimals.
#[test]
fn wilson_matches_newcombe() {
    for (k, n, lo, hi) in [
        (81.0, 263, 0.2553, 0.3662),
        (15.0, 148, 0.0624, 0.1605),
        (0.0, 20, 0.0, 0.1611),
        (1.0, 29, 0.0061, 0.1718),
    ] {
        let (l, h) = wilson_interval(k, n, Z_95);
        assert!(close(l, lo, 5e-5) && close(h, hi, 5e-5), "{k}/{n}: {l} {h}");
    }
}

#[test]
fn wilson_edges() {
    // k = 0: lower bound exactly 0, upper z²/(n+z²).
    let (l, h) = wilson_interval(0.0, 10, Z_95);
    assert_eq!(l, 0.0);
    assert!(close(h, Z_95 * Z_95 / (10.0 + Z_95 * Z_95), 1e-12), "{h}");
    assert!(close(h, 0.2775, 5e-5));
    // k = n/2: symmetric about 1/2.
    let (l, h) = wilson_interval(5.0, 10, Z_95);
    assert!(close(l + h, 1.0, 1e-12));
    assert!(close(l, 0.2366, 5e-5), "{l}");
    // k = n: upper bound exactly 1.
    let (l, h) = wilson_interval(10.0, 10, Z_95);
    assert_eq!(h, 1.0);
    assert!(close(l, 0.7225, 5e-5));
    assert_eq!(wilson_interval(3.0, 0, Z_95), (0.0, 1.0));
    // Wider with a larger z, narrower with more trials.
    let w = |k, n, z| {
        let (l, h) = wilson_interval(k, n, z);
        h - l
    };
    assert!(w(30.0, 100, 2.576) > w(30.0, 100, Z_95));
    assert!(w(300.0, 1000, Z_95) < w(30.0, 100, Z_95));
}

#[test]
fn tau_b_without_ties() {
    assert_eq!(
        kendall_tau_b(&[1.0, 2.0, 3.0, 4.0], &[1.0, 2.0, 3.0, 4.0]),
        1.0
    );
    assert_eq!(
        kendall_tau_b(&[1.0, 2.0, 3.0, 4.0], &[4.0, 3.0, 2.0, 1.0]),
        -1.0
    );
    // x = 1 2 3 4 5, y = 3 4 1 2 5: pairs (i<j) concordant 6, discordant 4
    // → tau = 2/10.
    let t = kendall_tau_b(&[1.0, 2.0, 3.0, 4.0, 5.0], &[3.0, 4.0, 1.0, 2.0, 5.0]);
    assert!(close(t, 0.2, 1e-12), "{t}");
}

#[test]
fn tau_b_with_ties() {
    // x = 1 2 2 3, y = 1 3 2 4. Pairs: (1,2) C, (1,3) C, (1,4) C,
    // (2,3) tie in x only, (2,4) C, (3,4) C → nc 5, nd 0, n1 1, n2 0,
    // n0 6: tau-b = 5 / sqrt(5 · 6).
    let t = kendall_tau_b(&[1.0, 2.0, 2.0, 3.0], &[1.0, 3.0, 2.0, 4.0]);
    assert!(close(t, 5.0 / 30f64.sqrt(), 1e-12), "{t}");
    // x = 1 1 2 2, y = 1 2 1 2: (1,2) tie in x, (1,3) tie in y,
    // (1,4) C, (2,3) D, (2,4) tie in y, (3,4) tie in x → nc 1, nd 1,
    // n1 = n2 = 2, n0 = 6: tau-b = 0.
    let t = kendall_tau_b(&[1.0, 1.0, 2.0, 2.0], &[1.0, 2.0, 1.0, 2.0]);
    assert!(close(t, 0.0, 1e-12), "{t}");
    // A pair tied in both: x = 3 3 1, y = 5 5 2: (1,2) tied in both,
    // (1,3) C, (2,3) C → nc 2, n1 = n2 = 1, n0 = 3 → 2/2 = 1.
    assert_eq!(kendall_tau_b(&[3.0, 3.0, 1.0], &[5.0, 5.0, 2.0]), 1.0);
    // x = 1 2 3, y = 0 0 1: n2 = 1, nc 2 → 2 / sqrt(3·2).
    let t = kendall_tau_b(&[1.0, 2.0, 3.0], &[0.0, 0.0, 1.0]);
    assert!(close(t, 2.0 / 6f64.sqrt(), 1e-12), "{t}");
}

#[test]
fn tau_b_undefined() {
    assert!(kendall_tau_b(&[], &[]).is_nan());
    assert!(kendall_tau_b(&[1.0], &[1.0]).is_nan());
    assert!(kendall_tau_b(&[1.0, 1.0, 1.0], &[1.0, 2.0, 3.0]).is_nan());
    assert!(kendall_tau_b(&[1.0, 2.0, 3.0], &[0.0, 0.0, 0.0]).is_nan());
}
use fwprof_profile::{FunctionRecord, Meta, SampleRecord};

/// A profile with events `events` and functions `(name, start, self,
/// inclusive)` (one value per event each); totals = sum of self.
fn profile(events: &[&str], fns: &[(&str, u64, Vec<u64>, Vec<u64>)]) -> Profile {
    let mut p = Profile::new(
        Meta::new("prog.elf"),
        events.iter().map(|e| e.to_string()).collect(),
    );
    for (name, start, self_cost, inclusive) in fns {
        let mut f = FunctionRecord::new(*name, *start, start + 0x40);
        f.self_cost = self_cost.clone();
        f.inclusive = inclusive.clone();
        for (t, c) in p.totals.iter_mut().zip(self_cost) {
            *t += c;
        }
        p.add_function(f);
    }
    p
}

/// Exact reference: main 10%, a 50%, b 30%, c 10% of 1000.
fn reference() -> Profile {
    profile(
        &["instructions"],
        &[
            ("main", 0x100, vec![100], vec![1000]),
            ("a", 0x200, vec![500], vec![500]),
            ("b", 0x300, vec![300], vec![300]),
            ("c", 0x400, vec![100], vec![100]),
        ],
    )
}

/// A sampled OTHER with a `samples` event: `k` samples per function
/// (main, a, b, c), period 10.
fn sampled(k: [u64; 4]) -> Profile {
    let names = ["main", "a", "b", "c"];
    let fns: Vec<(&str, u64, Vec<u64>, Vec<u64>)> = names
        .iter()
        .enumerate()
        .map(|(i, n)| {
            (
                *n,
                0x100 * (i as u64 + 1),
                vec![k[i] * 10, k[i]],
                vec![k[i] * 10, k[i]],
            )
        })
        .collect();
    let mut p = profile(&["instructions", "samples"], &fns);
    p.meta.method = Method::Sample;
    p.meta.sampling = Some(SamplingInfo {
        period: 10,
        unit: "instructions".into(),
        jitter: true,
        seed: 1,
        samples: k.iter().sum(),
        unwind_failures: 0,
        idle_samples: 0,
    });
    p
}

fn row<'a>(c: &'a Comparison, name: &str) -> &'a FunctionComparison {
    c.functions.iter().find(|f| f.name == name).unwrap()
}

#[test]
fn identical_profiles_are_good() {
    let r = reference();
    let c = compare(&r, &r, "instructions", 10).unwrap();
    assert_eq!(c.functions.len(), 4);
    assert_eq!(c.functions[0].name, "a");
    for f in &c.functions {
        assert_eq!(f.abs_error, 0.0);
        assert_eq!(f.rel_error, Some(0.0));
        assert_eq!(f.inclusive_abs_error, 0.0);
        assert_eq!(f.interval, None);
    }
    assert_eq!(row(&c, "main").reference_inclusive, 100.0);
    // main and c tie at 10%: tau-b handles the tie and is still 1.
    assert_eq!(c.ranking.tau_b, Some(1.0));
    assert_eq!((c.ranking.n, c.ranking.overlap), (4, 4));
    assert!(c.missed.is_empty() && c.invented.is_empty());
    assert_eq!(c.summary.coverage, None);
    // 0, not -0 (an empty f64 sum is -0.0).
    assert!(c.summary.missed_share == 0.0 && c.summary.missed_share.is_sign_positive());
    assert!(c.summary.invented_share.is_sign_positive());
    assert_eq!(c.verdict.grade, Grade::Good, "{}", c.verdict.text);
    assert!(c
        .verdict
        .text
        .starts_with("good: all 4 functions above 1% within ±0.00 points"));
    assert!(c.warnings.is_empty());
}

#[test]
fn moved_cost_is_the_error() {
    let r = reference();
    let mut o = r.clone();
    // 20 instructions (2 points) from a to b.
    o.functions[1].self_cost[0] -= 20;
    o.functions[2].self_cost[0] += 20;
    let c = compare(&r, &o, "instructions", 10).unwrap();
    assert!((row(&c, "a").abs_error + 2.0).abs() < 1e-12);
    assert!((row(&c, "b").abs_error - 2.0).abs() < 1e-12);
    assert!((row(&c, "a").rel_error.unwrap() + 4.0).abs() < 1e-9);
    assert!((c.summary.max_abs_error - 2.0).abs() < 1e-12);
    assert!((c.summary.mean_abs_error - 1.0).abs() < 1e-12);
    assert_eq!(c.verdict.grade, Grade::Fair, "{}", c.verdict.text);
    assert_eq!(c.verdict.text, "fair: max error 2.0 points (a)");
    // All of b to a new function: b missed, ghost invented.
    let mut o = r.clone();
    o.functions[2].self_cost[0] = 0;
    let mut g = FunctionRecord::new("ghost", 0x900, 0x940);
    (g.self_cost, g.inclusive) = (vec![300], vec![300]);
    o.add_function(g);
    let c = compare(&r, &o, "instructions", 10).unwrap();
    assert_eq!(c.missed, ["b"]);
    assert_eq!(c.invented, ["ghost"]);
    assert!(row(&c, "b").missed && row(&c, "ghost").invented);
    assert_eq!(row(&c, "ghost").rel_error, None);
    assert_eq!(c.verdict.grade, Grade::Unreliable);
    assert!(
        c.verdict
            .text
            .starts_with("unreliable: misses b (30.0% of instructions); invents ghost"),
        "{}",
        c.verdict.text
    );
    // b has 0 in OTHER: the ranking of the top 4 by reference share
    // is a 50, b 30, main 10, c 10 vs 50, 0, 10, 10.
    let t = kendall_tau_b(&[50.0, 30.0, 10.0, 10.0], &[50.0, 0.0, 10.0, 10.0]);
    assert_eq!(c.ranking.tau_b, Some(t));
    assert_eq!(c.ranking.other_top, ["a", "ghost", "c", "main"]);
    assert_eq!(c.ranking.overlap, 3);
}

#[test]
fn top_n_limits_the_ranking() {
    let r = reference();
    let mut o = r.clone();
    // Swap c and main's order below the top 2: invisible with --top 2.
    o.functions[0].self_cost[0] = 90;
    o.functions[3].self_cost[0] = 110;
    let c = compare(&r, &o, "instructions", 2).unwrap();
    assert_eq!((c.ranking.requested, c.ranking.n), (2, 2));
    assert_eq!(c.ranking.reference_top, ["a", "b"]);
    assert_eq!(c.ranking.tau_b, Some(1.0));
    let c = compare(&r, &o, "instructions", 4).unwrap();
    assert!(c.ranking.tau_b.unwrap() < 1.0);
    assert!(matches!(
        compare(&r, &o, "instructions", 0),
        Err(CompareError::ZeroTop)
    ));
}

#[test]
fn repeated_names_match_by_start() {
    let fns = |x: u64, y: u64| {
        vec![
            ("main", 0x100, vec![100], vec![1000]),
            ("helper", 0x200, vec![x], vec![x]),
            ("helper", 0x300, vec![y], vec![y]),
        ]
    };
    let r = profile(&["instructions"], &fns(600, 300));
    let o = profile(&["instructions"], &fns(300, 600));
    let c = compare(&r, &o, "instructions", 10).unwrap();
    assert_eq!(c.functions.len(), 3);
    let h: Vec<(u64, f64)> = c
        .functions
        .iter()
        .filter(|f| f.name == "helper")
        .map(|f| (f.start, f.abs_error))
        .collect();
    assert_eq!(h, [(0x200, -30.0), (0x300, 30.0)]);
}

#[test]
fn wilson_intervals_of_a_sampled_profile() {
    let r = reference();
    // 1000 samples spread exactly as the reference: every interval
    // covers.
    let c = compare(&r, &sampled([100, 500, 300, 100]), "instructions", 10).unwrap();
    assert_eq!((c.samples, c.sample_counts), (Some(1000), Some("event")));
    let a = row(&c, "a");
    let (lo, hi) = wilson_interval(500.0, 1000, Z_95);
    assert_eq!(a.samples, Some(500.0));
    assert_eq!(a.interval, Some((lo * 100.0, hi * 100.0)));
    assert_eq!(a.covers, Some(true));
    assert_eq!((c.summary.intervals, c.summary.covered), (4, 4));
    assert_eq!(c.verdict.grade, Grade::Good, "{}", c.verdict.text);
    assert!(c.verdict.text.ends_with("4 of 4 intervals cover"));
    // a at 56%: 50% is outside (52.91%, 59.05%); b at 24%: 30% is
    // outside (21.46%, 26.74%).
    let c = compare(&r, &sampled([100, 560, 240, 100]), "instructions", 10).unwrap();
    assert_eq!(row(&c, "a").covers, Some(false));
    assert_eq!(row(&c, "b").covers, Some(false));
    assert_eq!(row(&c, "c").covers, Some(true));
    assert_eq!(c.summary.coverage, Some(0.5));
    assert_eq!(c.verdict.grade, Grade::Unreliable, "{}", c.verdict.text);
    assert!(c.verdict.text.contains("2 of 4 intervals do not cover"));
    // The interval is the sample proportion's even when the compared
    // event says otherwise: double a's instructions, keep its samples.
    let mut o = sampled([100, 500, 300, 100]);
    o.functions[1].self_cost[0] *= 2;
    let c = compare(&r, &o, "instructions", 10).unwrap();
    assert_eq!(row(&c, "a").covers, Some(true));
    assert!(row(&c, "a").abs_error > 10.0);
}

#[test]
fn sample_counts_from_records_or_shares() {
    let r = reference();
    let mut o = sampled([100, 500, 300, 100]);
    // Without the samples event: estimated from shares.
    o.events.truncate(1);
    o.totals.truncate(1);
    for f in &mut o.functions {
        f.self_cost.truncate(1);
        f.inclusive.truncate(1);
    }
    let c = compare(&r, &o, "instructions", 10).unwrap();
    assert_eq!(c.sample_counts, Some("shares"));
    assert!((row(&c, "b").samples.unwrap() - 300.0).abs() < 1e-9);
    // With sample records: counted by the function of each pc; n is
    // the number of records. 3 in main, 1 in c (n = 4).
    for pc in [0x104, 0x108, 0x110, 0x404] {
        o.samples.push(SampleRecord {
            instret: 0,
            frames: vec![pc],
            truncated: false,
        });
    }
    let c = compare(&r, &o, "instructions", 10).unwrap();
    assert_eq!((c.samples, c.sample_counts), (Some(4), Some("records")));
    assert_eq!(row(&c, "main").samples, Some(3.0));
    assert_eq!(row(&c, "a").samples, Some(0.0));
    assert_eq!(row(&c, "c").samples, Some(1.0));
    let (lo, hi) = wilson_interval(3.0, 4, Z_95);
    assert_eq!(row(&c, "main").interval, Some((lo * 100.0, hi * 100.0)));
}

#[test]
fn errors_and_warnings() {
    let r = reference();
    let e = compare(&r, &r, "cycles", 10).unwrap_err();
    assert_eq!(
        e.to_string(),
        "REFERENCE does not record event `cycles` (it has: instructions); \
         choose an event both profiles record with --event"
    );
    let o = sampled([100, 500, 300, 100]);
    let e = compare(&o, &r, "samples", 10).unwrap_err();
    assert!(e
        .to_string()
        .starts_with("OTHER does not record event `samples`"));
    let empty = profile(&["instructions"], &[("main", 0x100, vec![0], vec![0])]);
    assert!(matches!(
        compare(&empty, &r, "instructions", 10),
        Err(CompareError::EmptyReference { .. })
    ));
    let mut o = r.clone();
    o.meta.sha256 = "b".repeat(64);
    o.meta.command.push("--fast".into());
    o.meta.partial = Some("interrupted".into());
    let mut r2 = r.clone();
    r2.meta.sha256 = "a".repeat(64);
    let c = compare(&r2, &o, "instructions", 10).unwrap();
    assert_eq!(c.warnings.len(), 3, "{:?}", c.warnings);
    assert!(c.warnings[0].starts_with("the profiles are of different programs"));
    assert!(c.warnings[1].starts_with("the profiles ran different command lines"));
    assert_eq!(
        c.warnings[2],
        "OTHER covers only part of the run (interrupted)"
    );
    assert_eq!(c.verdict.grade, Grade::Good);
}

#[test]
fn json_and_text_carry_everything() {
    let r = reference();
    let c = compare(&r, &sampled([100, 560, 240, 100]), "instructions", 3).unwrap();
    let v = c.to_json();
    assert_eq!(v["schema"], "fwprof-compare/1");
    assert_eq!(v["other"]["method"], "sample");
    assert_eq!(v["other"]["sampling"]["samples"], 1000);
    assert_eq!(v["reference"]["sampling"], Value::Null);
    assert_eq!(v["functions"][0]["name"], "a");
    assert_eq!(v["functions"][0]["reference"]["share"], 50.0);
    assert_eq!(v["functions"][0]["other"]["samples"], 560.0);
    assert_eq!(v["functions"][0]["covers"], false);
    assert_eq!(v["functions"][0]["interval"].as_array().unwrap().len(), 2);
    assert_eq!(v["ranking"]["top"], 3);
    assert_eq!(v["summary"]["covered"], 2);
    assert_eq!(v["verdict"]["grade"], "unreliable");
    let mut text = Vec::new();
    c.write_text(&mut text).unwrap();
    let text = String::from_utf8(text).unwrap();
    assert!(text.contains(
        "other      prog.elf: sample (1000 samples, period 10 instructions, jitter, seed 1)"
    ));
    assert!(text.contains("n = 1000 samples (counts from OTHER's samples event)"));
    let a = text.lines().find(|l| l.starts_with("a ")).unwrap();
    let cols: Vec<&str> = a.split_whitespace().collect();
    assert_eq!(
        cols,
        [
            "a",
            "50.00",
            "56.00",
            "+6.00",
            "+12.0%",
            "52.91–59.05",
            "NO"
        ]
    );
    assert!(text.contains("verdict          unreliable: "));
}
