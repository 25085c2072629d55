//! `fwprof compare`: how far a profile (sampled, instrumented, or another
//! exact one) is from a reference profile of the same run.
//!
//! Functions are matched by name; when a name occurs more than once in
//! either profile, by name and start address. For one event (the same
//! name in both profiles) every function gets its *share* in each profile
//! (self cost / the profile's total, in percent), the absolute error
//! (OTHER − REFERENCE, in percentage points), the relative error
//! ((OTHER − REFERENCE) / REFERENCE, in percent) and the same for
//! inclusive shares. When OTHER is sampled, each function's sample
//! proportion gets a 95% Wilson score interval ([`wilson_interval`]) and
//! whether it covers the reference share. Rank agreement is Kendall's
//! tau-b ([`kendall_tau_b`]) over the reference's top N functions; top-k
//! overlap, the functions the method *missed* (reference share ≥ 1%, 0 in
//! OTHER) and *invented* (0 in the reference, > 0 in OTHER), error and
//! coverage summaries and a one-line [`Verdict`] complete the
//! [`Comparison`]. The rules, the text layout and the JSON shape
//! (`fwprof-compare/1`) are in `docs/compare.md`.
//!
//! ```
//! use fwprof_report::{kendall_tau_b, wilson_interval, Z_95};
//!
//! // Newcombe (1998), example (a): 81 of 263.
//! let (lo, hi) = wilson_interval(81.0, 263, Z_95);
//! assert!((lo - 0.2553).abs() < 5e-5 && (hi - 0.3662).abs() < 5e-5);
//! assert_eq!(kendall_tau_b(&[3.0, 2.0, 1.0], &[30.0, 20.0, 10.0]), 1.0);
//! ```

use std::cmp::Ordering;
use std::collections::HashMap;
use std::fmt;
use std::io::{self, Write};

use fwprof_profile::{Method, Profile, SamplingInfo};
use serde_json::{json, Value};

/// The normal quantile for a two-sided 95% interval: Φ⁻¹(0.975).
pub const Z_95: f64 = 1.959964;

/// Share (percent of the event total) from which a reference function is
/// *significant*: it counts for coverage, mean error and the verdict, and
/// is *missed* if OTHER gives it nothing.
pub const SIGNIFICANT_PERCENT: f64 = 1.0;

/// Functions whose share is below this (percent) in both profiles are
/// left out of the text table (not out of the JSON or the statistics).
pub const TEXT_MIN_PERCENT: f64 = 0.01;

/// Name of the per-function sample-count event a sampled profile may
/// record; used for the sample counts of Wilson intervals when present.
pub const SAMPLES_EVENT: &str = "samples";

/// The Wilson score interval of a binomial proportion: `k` successes in
/// `n` trials, normal quantile `z` (use [`Z_95`] for 95%).
///
/// With p̂ = k/n the interval is
/// `(p̂ + z²/2n ± z·sqrt(p̂(1−p̂)/n + z²/4n²)) / (1 + z²/n)`
/// (E. B. Wilson, *Probable inference, the law of succession, and
/// statistical inference*, JASA 22, 1927; Newcombe 1998, method 3).
/// Returns `(low, high)` as fractions in `[0, 1]`. `k` may be fractional
/// (an estimated count); it is clamped to `[0, n]`. With `n = 0` nothing
/// is known and the interval is `(0, 1)`.
pub fn wilson_interval(k: f64, n: u64, z: f64) -> (f64, f64) {
    if n == 0 {
        return (0.0, 1.0);
    }
    let n = n as f64;
    let p = (k / n).clamp(0.0, 1.0);
    let z2 = z * z;
    let centre = p + z2 / (2.0 * n);
    let half = z * (p * (1.0 - p) / n + z2 / (4.0 * n * n)).sqrt();
    let d = 1.0 + z2 / n;
    let lo = ((centre - half) / d).max(0.0);
    let hi = ((centre + half) / d).min(1.0);
    // p = 0 and p = 1 give exact bounds; rounding must not leave the
    // estimate outside its own interval.
    (
        if p == 0.0 { 0.0 } else { lo },
        if p == 1.0 { 1.0 } else { hi },
    )
}

/// Kendall's tau-b rank correlation of two paired samples (Kendall 1945,
/// the tie-corrected form):
/// `(n_c − n_d) / sqrt((n₀ − n₁)(n₀ − n₂))` with `n_c`/`n_d` the
/// concordant/discordant pairs, `n₀ = n(n−1)/2`, `n₁`/`n₂` the pairs tied
/// in `x`/`y` (a pair tied in both counts in both and in neither `n_c`
/// nor `n_d`). Values are compared exactly. Only the first
/// `min(x.len(), y.len())` pairs are used. Returns NaN when tau-b is
/// undefined: fewer than two pairs, or all of `x` or all of `y` equal.
/// O(n²); meant for the top N functions.
pub fn kendall_tau_b(x: &[f64], y: &[f64]) -> f64 {
    let n = x.len().min(y.len());
    let (mut concordant, mut discordant) = (0i64, 0i64);
    let (mut ties_x, mut ties_y) = (0i64, 0i64);
    for i in 0..n {
        for j in i + 1..n {
            let dx = x[i].partial_cmp(&x[j]).unwrap_or(Ordering::Equal);
            let dy = y[i].partial_cmp(&y[j]).unwrap_or(Ordering::Equal);
            match (dx, dy) {
                (Ordering::Equal, Ordering::Equal) => {
                    ties_x += 1;
                    ties_y += 1;
                }
                (Ordering::Equal, _) => ties_x += 1,
                (_, Ordering::Equal) => ties_y += 1,
                (a, b) if a == b => concordant += 1,
                _ => discordant += 1,
            }
        }
    }
    let pairs = (n as i64) * (n as i64 - 1) / 2;
    let denom = ((pairs - ties_x) as f64 * (pairs - ties_y) as f64).sqrt();
    if n < 2 || denom == 0.0 {
        return f64::NAN;
    }
    (concordant - discordant) as f64 / denom
}

/// Why two profiles cannot be compared.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum CompareError {
    /// One profile does not record the event.
    MissingEvent {
        /// The event asked for.
        event: String,
        /// `"REFERENCE"` or `"OTHER"`.
        which: &'static str,
        /// The events that profile records.
        events: Vec<String>,
    },
    /// The reference's total of the event is 0, so it has no shares.
    EmptyReference {
        /// The event.
        event: String,
    },
    /// `top` was 0.
    ZeroTop,
}

impl fmt::Display for CompareError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            CompareError::MissingEvent {
                event,
                which,
                events,
            } => write!(
                f,
                "{which} does not record event `{event}` (it has: {}); \
                 choose an event both profiles record with --event",
                events.join(", ")
            ),
            CompareError::EmptyReference { event } => {
                write!(
                    f,
                    "REFERENCE has a total of 0 {event}: no shares to compare with"
                )
            }
            CompareError::ZeroTop => write!(f, "--top must be at least 1"),
        }
    }
}

impl std::error::Error for CompareError {}

/// One of the two profiles, as far as the comparison needs it.
#[derive(Clone, Debug, PartialEq)]
pub struct Side {
    /// `meta.program`.
    pub program: String,
    /// `meta.sha256` (empty if unknown).
    pub sha256: String,
    /// `meta.command`.
    pub command: Vec<String>,
    /// How the profile was taken.
    pub method: Method,
    /// Sampling parameters (sampled profiles).
    pub sampling: Option<SamplingInfo>,
    /// `meta.partial`: why the profile covers only part of the run.
    pub partial: Option<String>,
    /// The profile's total of the compared event.
    pub total: u64,
    /// Functions with a non-zero self cost of the event.
    pub functions: usize,
}

impl Side {
    fn of(p: &Profile, e: usize) -> Side {
        Side {
            program: p.meta.program.clone(),
            sha256: p.meta.sha256.clone(),
            command: p.meta.command.clone(),
            method: p.meta.method,
            sampling: p.meta.sampling.clone(),
            partial: p.meta.partial.clone(),
            total: crate::cost(&p.totals, e),
            functions: p
                .functions
                .iter()
                .filter(|f| crate::cost(&f.self_cost, e) > 0)
                .count(),
        }
    }

    /// `"exact"`, `"sample (N samples, period P instructions, jitter)"`,
    /// `"instrument (cyg_profile)"`.
    pub fn describe(&self) -> String {
        match (&self.method, &self.sampling) {
            (Method::Sample, Some(s)) => format!(
                "sample ({} samples, period {} {}{})",
                s.samples,
                s.period,
                s.unit,
                if s.jitter {
                    format!(", jitter, seed {}", s.seed)
                } else {
                    String::new()
                }
            ),
            (m, _) => m.as_str().to_string(),
        }
    }
}

/// One function in both profiles. Shares are percent of the profile's
/// total of the event (0–100); errors are percentage points.
#[derive(Clone, Debug, PartialEq)]
pub struct FunctionComparison {
    /// The function's name.
    pub name: String,
    /// Its start address (the reference's, if it is there).
    pub start: u64,
    /// Self cost in the reference.
    pub reference_self: u64,
    /// Self cost in OTHER (an estimate for sampled profiles).
    pub other_self: u64,
    /// Self share in the reference, percent.
    pub reference_share: f64,
    /// Self share in OTHER, percent.
    pub other_share: f64,
    /// `other_share − reference_share`, percentage points.
    pub abs_error: f64,
    /// `(other_share − reference_share) / reference_share`, percent;
    /// `None` when the reference share is 0.
    pub rel_error: Option<f64>,
    /// Inclusive share in the reference, percent.
    pub reference_inclusive: f64,
    /// Inclusive share in OTHER, percent.
    pub other_inclusive: f64,
    /// `other_inclusive − reference_inclusive`, percentage points.
    pub inclusive_abs_error: f64,
    /// Samples attributed to the function (sampled OTHER only): its
    /// `samples` event self cost, or `n × other_share / 100`.
    pub samples: Option<f64>,
    /// 95% Wilson interval of the sample proportion, percent (sampled
    /// OTHER only).
    pub interval: Option<(f64, f64)>,
    /// Whether `interval` contains `reference_share`.
    pub covers: Option<bool>,
    /// Reference share ≥ [`SIGNIFICANT_PERCENT`] but no cost in OTHER.
    pub missed: bool,
    /// No cost in the reference but some in OTHER.
    pub invented: bool,
}

/// Agreement of the orderings of the reference's top functions.
#[derive(Clone, Debug, PartialEq)]
pub struct Ranking {
    /// N asked for (`--top`).
    pub requested: usize,
    /// N used: `requested`, or fewer if the reference has fewer
    /// functions with a non-zero share.
    pub n: usize,
    /// Kendall's tau-b between the reference and OTHER shares of the
    /// reference's top `n`; `None` when undefined (n < 2, or all shares
    /// of one side equal).
    pub tau_b: Option<f64>,
    /// `|top_n(REFERENCE) ∩ top_n(OTHER)|`.
    pub overlap: usize,
    /// The reference's top `n`, by reference share (ties: by name).
    pub reference_top: Vec<String>,
    /// OTHER's top `n`, by OTHER share (ties: by reference share, then
    /// name), functions with a share of 0 left out.
    pub other_top: Vec<String>,
}

/// Error and coverage summary over the significant functions.
#[derive(Clone, Debug, PartialEq)]
pub struct Summary {
    /// Functions with a reference share ≥ [`SIGNIFICANT_PERCENT`].
    pub significant: usize,
    /// Significant functions with an interval (all of them when OTHER is
    /// sampled, none otherwise).
    pub intervals: usize,
    /// Of those, intervals that contain the reference share.
    pub covered: usize,
    /// `covered / intervals`; `None` without intervals.
    pub coverage: Option<f64>,
    /// Largest |absolute error| of any function, points.
    pub max_abs_error: f64,
    /// The function with that error (`None` if every error is 0).
    pub max_abs_error_function: Option<String>,
    /// Mean |absolute error| over the significant functions, points.
    pub mean_abs_error: f64,
    /// Reference share of the missed functions together, percent.
    pub missed_share: f64,
    /// OTHER share of the invented functions together, percent.
    pub invented_share: f64,
}

/// The verdict's grade.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Grade {
    /// Every rule of `good` holds.
    Good,
    /// Neither good nor unreliable.
    Fair,
    /// A rule of `unreliable` holds.
    Unreliable,
}

impl Grade {
    /// `"good"`, `"fair"` or `"unreliable"`.
    pub fn as_str(self) -> &'static str {
        match self {
            Grade::Good => "good",
            Grade::Fair => "fair",
            Grade::Unreliable => "unreliable",
        }
    }
}

/// Error bound (points) of a `good` profile.
pub const GOOD_MAX_ERROR: f64 = 1.0;
/// Error (points) beyond which a profile is `unreliable`.
pub const UNRELIABLE_MAX_ERROR: f64 = 5.0;
/// Least tau-b of a `good` profile.
pub const GOOD_TAU: f64 = 0.9;
/// Tau-b below which a profile is `unreliable`.
pub const UNRELIABLE_TAU: f64 = 0.5;
/// Least interval coverage of a `good` sampled profile.
pub const GOOD_COVERAGE: f64 = 0.9;
/// Interval coverage below which a sampled profile is `unreliable`.
pub const UNRELIABLE_COVERAGE: f64 = 0.5;

/// A one-line judgement; rules in `docs/compare.md`.
#[derive(Clone, Debug, PartialEq)]
pub struct Verdict {
    /// Good, fair or unreliable.
    pub grade: Grade,
    /// Each failed rule, in words (empty for `good`).
    pub reasons: Vec<String>,
    /// The line: `"good: all N functions above 1% within ±E points, tau T,
    /// top-n overlap o/n[, c of i intervals cover]"`, or
    /// `"<grade>: <reasons joined by "; ">"`.
    pub text: String,
}

/// The comparison of OTHER with REFERENCE; see the module documentation.
#[derive(Clone, Debug, PartialEq)]
pub struct Comparison {
    /// The compared event.
    pub event: String,
    /// The normal quantile used for the intervals ([`Z_95`]).
    pub z: f64,
    /// The reference profile.
    pub reference: Side,
    /// The judged profile.
    pub other: Side,
    /// Every function with a cost of the event in either profile, by
    /// reference share (then OTHER share, name, start) descending.
    pub functions: Vec<FunctionComparison>,
    /// Rank agreement and top-k overlap.
    pub ranking: Ranking,
    /// Names of the missed functions, by reference share.
    pub missed: Vec<String>,
    /// Names of the invented functions, by OTHER share.
    pub invented: Vec<String>,
    /// Errors and coverage.
    pub summary: Summary,
    /// The verdict.
    pub verdict: Verdict,
    /// Notes on what makes the comparison doubtful (different programs or
    /// command lines, partial runs, intervals of another unit).
    pub warnings: Vec<String>,
}

/// Compare `other` with `reference` for the event named `event`, with
/// rank agreement over the reference's top `top` functions.
///
/// Errors: the event missing from either profile, a reference total of 0,
/// `top` = 0 ([`CompareError`]).
pub fn compare(
    reference: &Profile,
    other: &Profile,
    event: &str,
    top: usize,
) -> Result<Comparison, CompareError> {
    if top == 0 {
        return Err(CompareError::ZeroTop);
    }
    let index = |p: &Profile, which| {
        p.event_index(event)
            .ok_or_else(|| CompareError::MissingEvent {
                event: event.to_string(),
                which,
                events: p.events.clone(),
            })
    };
    let re = index(reference, "REFERENCE")?;
    let oe = index(other, "OTHER")?;
    let rside = Side::of(reference, re);
    let oside = Side::of(other, oe);
    if rside.total == 0 {
        return Err(CompareError::EmptyReference {
            event: event.to_string(),
        });
    }

    // Match functions: by name when it is unique in both profiles, else by
    // (name, start).
    let mut once_each: HashMap<&str, (usize, usize)> = HashMap::new();
    for f in &reference.functions {
        once_each.entry(&f.name).or_default().0 += 1;
    }
    for f in &other.functions {
        once_each.entry(&f.name).or_default().1 += 1;
    }
    let key = |name: &str, start: u64| -> (String, Option<u64>) {
        match once_each.get(name) {
            Some(&(r, o)) if r <= 1 && o <= 1 => (name.to_string(), None),
            _ => (name.to_string(), Some(start)),
        }
    };
    // (reference function, other function) per key, in first-seen order.
    let mut rows: Vec<(Option<usize>, Option<usize>)> = Vec::new();
    let mut by_key: HashMap<(String, Option<u64>), usize> = HashMap::new();
    for (i, f) in reference.functions.iter().enumerate() {
        let k = key(&f.name, f.start);
        match by_key.get(&k) {
            Some(&r) => rows[r].0 = rows[r].0.or(Some(i)),
            None => {
                by_key.insert(k, rows.len());
                rows.push((Some(i), None));
            }
        }
    }
    for (i, f) in other.functions.iter().enumerate() {
        let k = key(&f.name, f.start);
        match by_key.get(&k) {
            Some(&r) if rows[r].1.is_none() => rows[r].1 = Some(i),
            Some(_) => {}
            None => {
                by_key.insert(k, rows.len());
                rows.push((None, Some(i)));
            }
        }
    }

    // The sample count and the source of per-function sample counts.
    let sampled_n = match (other.meta.method, &other.meta.sampling) {
        (Method::Sample, Some(s)) if s.samples > 0 => Some(s.samples),
        _ => None,
    };
    let samples_event = other.event_index(SAMPLES_EVENT);
    let pct = |part: u64, whole: u64| crate::percent(part, whole);

    let mut functions = Vec::new();
    for (r, o) in rows {
        let rf = r.map(|i| &reference.functions[i]);
        let of = o.map(|i| &other.functions[i]);
        let rself = rf.map_or(0, |f| crate::cost(&f.self_cost, re));
        let oself = of.map_or(0, |f| crate::cost(&f.self_cost, oe));
        let rincl = rf.map_or(0, |f| crate::cost(&f.inclusive, re));
        let oincl = of.map_or(0, |f| crate::cost(&f.inclusive, oe));
        if rself == 0 && oself == 0 && rincl == 0 && oincl == 0 {
            continue;
        }
        let rshare = pct(rself, rside.total);
        let oshare = pct(oself, oside.total);
        let samples = sampled_n.map(|n| match (samples_event, of) {
            (Some(se), Some(f)) => crate::cost(&f.self_cost, se) as f64,
            (Some(_), None) => 0.0,
            (None, _) => n as f64 * oshare / 100.0,
        });
        let interval = match (sampled_n, samples) {
            (Some(n), Some(k)) => {
                let (lo, hi) = wilson_interval(k, n, Z_95);
                Some((lo * 100.0, hi * 100.0))
            }
            _ => None,
        };
        let covers = interval.map(|(lo, hi)| {
            let eps = 1e-9;
            rshare >= lo - eps && rshare <= hi + eps
        });
        let start = rf.or(of).map_or(0, |f| f.start);
        let name = rf.or(of).map_or_else(String::new, |f| f.name.clone());
        functions.push(FunctionComparison {
            name,
            start,
            reference_self: rself,
            other_self: oself,
            reference_share: rshare,
            other_share: oshare,
            abs_error: oshare - rshare,
            rel_error: (rself > 0).then(|| 100.0 * (oshare - rshare) / rshare),
            reference_inclusive: pct(rincl, rside.total),
            other_inclusive: pct(oincl, oside.total),
            inclusive_abs_error: pct(oincl, oside.total) - pct(rincl, rside.total),
            samples,
            interval,
            covers,
            missed: rshare >= SIGNIFICANT_PERCENT && oself == 0,
            invented: rself == 0 && oself > 0,
        });
    }
    functions.sort_by(|a, b| {
        b.reference_share
            .total_cmp(&a.reference_share)
            .then(b.other_share.total_cmp(&a.other_share))
            .then_with(|| a.name.cmp(&b.name))
            .then(a.start.cmp(&b.start))
    });

    let ranking = rank(&functions, top);
    let missed: Vec<String> = functions
        .iter()
        .filter(|f| f.missed)
        .map(|f| f.name.clone())
        .collect();
    let mut invented_rows: Vec<&FunctionComparison> =
        functions.iter().filter(|f| f.invented).collect();
    invented_rows.sort_by(|a, b| b.other_share.total_cmp(&a.other_share));
    let invented: Vec<String> = invented_rows.iter().map(|f| f.name.clone()).collect();
    let summary = summarise(&functions);
    let verdict = judge(&summary, &ranking, &missed, &invented, &functions, event);

    let mut warnings = Vec::new();
    if !rside.sha256.is_empty() && !oside.sha256.is_empty() && rside.sha256 != oside.sha256 {
        warnings.push(format!(
            "the profiles are of different programs ({} sha256 {}…, {} sha256 {}…); comparing anyway",
            rside.program,
            &rside.sha256[..rside.sha256.len().min(12)],
            oside.program,
            &oside.sha256[..oside.sha256.len().min(12)]
        ));
    }
    if rside.command.get(1..) != oside.command.get(1..) {
        warnings.push(format!(
            "the profiles ran different command lines (`{}` vs `{}`); comparing anyway",
            rside.command.join(" "),
            oside.command.join(" ")
        ));
    }
    for (which, s) in [("REFERENCE", &rside), ("OTHER", &oside)] {
        if let Some(why) = &s.partial {
            warnings.push(format!("{which} covers only part of the run ({why})"));
        }
    }
    if let (Some(_), Some(s)) = (sampled_n, &oside.sampling) {
        if s.unit != event {
            warnings.push(format!(
                "OTHER samples every {} {}: its intervals are for shares of {}, compared here with shares of {event}",
                s.period, s.unit, s.unit
            ));
        }
    }
    if other.meta.method == Method::Sample && sampled_n.is_none() {
        warnings.push("OTHER is sampled but records no sample count: no intervals".to_string());
    }

    Ok(Comparison {
        event: event.to_string(),
        z: Z_95,
        reference: rside,
        other: oside,
        functions,
        ranking,
        missed,
        invented,
        summary,
        verdict,
        warnings,
    })
}

/// Rank agreement over the reference's top `top` functions (`functions`
/// is sorted by reference share).
fn rank(functions: &[FunctionComparison], top: usize) -> Ranking {
    let ref_top: Vec<&FunctionComparison> = functions
        .iter()
        .filter(|f| f.reference_self > 0)
        .take(top)
        .collect();
    let n = ref_top.len();
    let x: Vec<f64> = ref_top.iter().map(|f| f.reference_share).collect();
    let y: Vec<f64> = ref_top.iter().map(|f| f.other_share).collect();
    let tau = kendall_tau_b(&x, &y);
    let mut by_other: Vec<(usize, &FunctionComparison)> = functions
        .iter()
        .enumerate()
        .filter(|(_, f)| f.other_self > 0)
        .collect();
    // Stable sort: equal OTHER shares keep the reference order.
    by_other.sort_by(|a, b| b.1.other_share.total_cmp(&a.1.other_share));
    let other_top: Vec<(usize, &FunctionComparison)> = by_other.into_iter().take(n).collect();
    let overlap = other_top.iter().filter(|(i, _)| *i < n).count();
    Ranking {
        requested: top,
        n,
        tau_b: (!tau.is_nan()).then_some(tau),
        overlap,
        reference_top: ref_top.iter().map(|f| f.name.clone()).collect(),
        other_top: other_top.iter().map(|(_, f)| f.name.clone()).collect(),
    }
}

fn summarise(functions: &[FunctionComparison]) -> Summary {
    let significant: Vec<&FunctionComparison> = functions
        .iter()
        .filter(|f| f.reference_share >= SIGNIFICANT_PERCENT)
        .collect();
    let intervals = significant.iter().filter(|f| f.covers.is_some()).count();
    let covered = significant
        .iter()
        .filter(|f| f.covers == Some(true))
        .count();
    let mut max = 0.0f64;
    let mut max_fn = None;
    for f in functions {
        if f.abs_error.abs() > max {
            max = f.abs_error.abs();
            max_fn = Some(f.name.clone());
        }
    }
    let mean = if significant.is_empty() {
        0.0
    } else {
        significant.iter().map(|f| f.abs_error.abs()).sum::<f64>() / significant.len() as f64
    };
    Summary {
        significant: significant.len(),
        intervals,
        covered,
        coverage: (intervals > 0).then(|| covered as f64 / intervals as f64),
        max_abs_error: max,
        max_abs_error_function: max_fn,
        mean_abs_error: mean,
        missed_share: functions
            .iter()
            .filter(|f| f.missed)
            .map(|f| f.reference_share)
            .sum(),
        invented_share: functions
            .iter()
            .filter(|f| f.invented)
            .map(|f| f.other_share)
            .sum(),
    }
}

/// At most three names, then `and N more`.
fn short_list(names: &[String]) -> String {
    let mut s = names.iter().take(3).cloned().collect::<Vec<_>>().join(", ");
    if names.len() > 3 {
        s.push_str(&format!(" and {} more", names.len() - 3));
    }
    s
}

/// Apply the verdict rules of `docs/compare.md`.
fn judge(
    s: &Summary,
    r: &Ranking,
    missed: &[String],
    invented: &[String],
    functions: &[FunctionComparison],
    event: &str,
) -> Verdict {
    // (reason, true if it makes the profile unreliable), in report order.
    let mut failed: Vec<(String, bool)> = Vec::new();
    if !missed.is_empty() {
        let list: Vec<String> = functions
            .iter()
            .filter(|f| f.missed)
            .map(|f| format!("{} ({:.1}% of {event})", f.name, f.reference_share))
            .collect();
        failed.push((format!("misses {}", short_list(&list)), true));
    }
    if !invented.is_empty() {
        failed.push((
            format!(
                "invents {} ({:.2}% of {event} in all)",
                short_list(invented),
                s.invented_share
            ),
            s.invented_share >= SIGNIFICANT_PERCENT,
        ));
    }
    let err = s.max_abs_error;
    if err > GOOD_MAX_ERROR {
        let who = s.max_abs_error_function.as_deref().unwrap_or("-");
        failed.push((
            format!("max error {err:.1} points ({who})"),
            err > UNRELIABLE_MAX_ERROR,
        ));
    }
    if let Some(t) = r.tau_b.filter(|&t| t < GOOD_TAU) {
        failed.push((format!("tau {t:.2}"), t < UNRELIABLE_TAU));
    }
    if r.overlap < r.n {
        failed.push((
            format!("top-{} overlap {}/{}", r.n, r.overlap, r.n),
            2 * r.overlap < r.n,
        ));
    }
    if let Some(c) = s.coverage.filter(|&c| c < GOOD_COVERAGE) {
        let not = s.intervals - s.covered;
        failed.push((
            format!(
                "{not} of {} intervals {} not cover",
                s.intervals,
                if not == 1 { "does" } else { "do" }
            ),
            c < UNRELIABLE_COVERAGE,
        ));
    }
    let grade = if failed.iter().any(|(_, bad)| *bad) {
        Grade::Unreliable
    } else if !failed.is_empty() {
        Grade::Fair
    } else {
        Grade::Good
    };
    let reasons: Vec<String> = failed.into_iter().map(|(r, _)| r).collect();
    let text = if reasons.is_empty() {
        let tau = r.tau_b.map_or("n/a".to_string(), |t| format!("{t:.2}"));
        let mut t = format!(
            "good: all {} functions above {SIGNIFICANT_PERCENT}% within ±{err:.2} points, \
             tau {tau}, top-{} overlap {}/{}",
            s.significant, r.n, r.overlap, r.n
        );
        if s.intervals > 0 {
            t.push_str(&format!(
                ", {} of {} intervals cover",
                s.covered, s.intervals
            ));
        }
        t
    } else {
        format!("{}: {}", grade.as_str(), reasons.join("; "))
    };
    Verdict {
        grade,
        reasons,
        text,
    }
}

fn opt_f(v: Option<f64>) -> Value {
    v.map_or(Value::Null, |x| json!(x))
}

impl Comparison {
    /// The `fwprof-compare/1` JSON document (`docs/compare.md`).
    pub fn to_json(&self) -> Value {
        let side = |s: &Side| {
            json!({
                "program": s.program,
                "sha256": s.sha256,
                "command": s.command,
                "method": s.method.as_str(),
                "sampling": s.sampling.as_ref().map(|x| json!({
                    "period": x.period,
                    "unit": x.unit,
                    "jitter": x.jitter,
                    "seed": x.seed,
                    "samples": x.samples,
                    "unwind_failures": x.unwind_failures,
                })),
                "partial": s.partial,
                "total": s.total,
                "functions": s.functions,
            })
        };
        let functions: Vec<Value> = self
            .functions
            .iter()
            .map(|f| {
                json!({
                    "name": f.name,
                    "start": f.start,
                    "reference": {
                        "self": f.reference_self,
                        "share": f.reference_share,
                        "inclusive_share": f.reference_inclusive,
                    },
                    "other": {
                        "self": f.other_self,
                        "share": f.other_share,
                        "inclusive_share": f.other_inclusive,
                        "samples": opt_f(f.samples),
                    },
                    "abs_error": f.abs_error,
                    "rel_error": opt_f(f.rel_error),
                    "inclusive_abs_error": f.inclusive_abs_error,
                    "interval": f.interval.map(|(lo, hi)| json!([lo, hi])),
                    "covers": f.covers,
                    "missed": f.missed,
                    "invented": f.invented,
                })
            })
            .collect();
        let r = &self.ranking;
        let s = &self.summary;
        json!({
            "schema": "fwprof-compare/1",
            "event": self.event,
            "z": self.z,
            "significant_percent": SIGNIFICANT_PERCENT,
            "reference": side(&self.reference),
            "other": side(&self.other),
            "warnings": self.warnings,
            "functions": functions,
            "ranking": {
                "top": r.requested,
                "n": r.n,
                "tau_b": opt_f(r.tau_b),
                "overlap": r.overlap,
                "reference_top": r.reference_top,
                "other_top": r.other_top,
            },
            "missed": self.missed,
            "invented": self.invented,
            "summary": {
                "significant": s.significant,
                "intervals": s.intervals,
                "covered": s.covered,
                "coverage": opt_f(s.coverage),
                "max_abs_error": s.max_abs_error,
                "max_abs_error_function": s.max_abs_error_function,
                "mean_abs_error": s.mean_abs_error,
                "missed_share": s.missed_share,
                "invented_share": s.invented_share,
            },
            "verdict": {
                "grade": self.verdict.grade.as_str(),
                "reasons": self.verdict.reasons,
                "text": self.verdict.text,
            },
        })
    }

    /// Write the JSON document, pretty-printed, with a final newline.
    pub fn write_json(&self, w: &mut dyn Write) -> io::Result<()> {
        serde_json::to_writer_pretty(&mut *w, &self.to_json())?;
        writeln!(w)
    }

    /// Write the text report: header, table, rank agreement, missed and
    /// invented functions, verdict (layout in `docs/compare.md`). Warnings
    /// are not included (the CLI prints them on stderr).
    pub fn write_text(&self, w: &mut dyn Write) -> io::Result<()> {
        let unit = crate::unit(&self.event);
        for (label, s) in [("reference", &self.reference), ("other", &self.other)] {
            writeln!(
                w,
                "{label:<9}  {}: {}, {} {unit} in all",
                s.program,
                s.describe(),
                s.total
            )?;
        }
        writeln!(
            w,
            "event      {} (shares in % of each profile's total; errors in points)",
            self.event
        )?;
        writeln!(w)?;
        let name_w = self
            .functions
            .iter()
            .map(|f| f.name.chars().count())
            .max()
            .unwrap_or(8)
            .clamp(8, 40);
        writeln!(
            w,
            "{:<name_w$}  {:>7}  {:>7}  {:>7}  {:>8}  {:>15}  {:>6}",
            "function", "ref %", "other %", "abs err", "rel err", "95% CI", "covers"
        )?;
        let shown = |f: &&FunctionComparison| {
            f.missed || f.reference_share >= TEXT_MIN_PERCENT || f.other_share >= TEXT_MIN_PERCENT
        };
        for f in self.functions.iter().filter(shown) {
            let rel = f
                .rel_error
                .map_or("n/a".to_string(), |r| format!("{r:+.1}%"));
            let ci = f
                .interval
                .map_or("n/a".to_string(), |(lo, hi)| format!("{lo:.2}–{hi:.2}"));
            let covers = match f.covers {
                Some(true) => "yes",
                Some(false) => "NO",
                None => "n/a",
            };
            let mut name = f.name.clone();
            if name.chars().count() > name_w {
                name = name.chars().take(name_w - 1).collect::<String>() + "…";
            }
            let mark = if f.missed {
                "  missed"
            } else if f.invented {
                "  invented"
            } else {
                ""
            };
            writeln!(
                w,
                "{name:<name_w$}  {:>7.2}  {:>7.2}  {:>+7.2}  {rel:>8}  {ci:>15}  {covers:>6}{mark}",
                f.reference_share, f.other_share, f.abs_error
            )?;
        }
        let hidden = self.functions.len() - self.functions.iter().filter(shown).count();
        if hidden > 0 {
            writeln!(
                w,
                "({hidden} functions below {TEXT_MIN_PERCENT}% in both profiles not shown; \
                 --format json lists them)"
            )?;
        }
        writeln!(w)?;
        let r = &self.ranking;
        writeln!(
            w,
            "rank agreement   Kendall tau-b over the reference's top {}: {}",
            r.n,
            r.tau_b.map_or("n/a".to_string(), |t| format!("{t:.3}"))
        )?;
        writeln!(w, "top-{} overlap   {}/{}", r.n, r.overlap, r.n)?;
        let s = &self.summary;
        writeln!(
            w,
            "errors           max {:.2} points{}, mean {:.2} points over the {} functions above {SIGNIFICANT_PERCENT}%",
            s.max_abs_error,
            s.max_abs_error_function
                .as_ref()
                .map_or(String::new(), |n| format!(" ({n})")),
            s.mean_abs_error,
            s.significant
        )?;
        match s.coverage {
            Some(c) => writeln!(
                w,
                "coverage         {} of {} intervals above {SIGNIFICANT_PERCENT}% cover the reference ({:.0}%)",
                s.covered,
                s.intervals,
                c * 100.0
            )?,
            None => writeln!(w, "coverage         n/a (OTHER is not sampled)")?,
        }
        let list = |v: &[String]| {
            if v.is_empty() {
                "none".to_string()
            } else {
                v.join(", ")
            }
        };
        writeln!(w, "missed           {}", list(&self.missed))?;
        writeln!(w, "invented         {}", list(&self.invented))?;
        writeln!(w, "verdict          {}", self.verdict.text)?;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
}
