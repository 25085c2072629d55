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

/// Newcombe's hybrid score interval for a difference of proportions
/// `p1 − p2` of two independent samples (R. G. Newcombe, *Interval
/// estimation for the difference between independent proportions:
/// comparison of eleven methods*, Statistics in Medicine 17, 1998,
/// method 10), built from each proportion's interval `(l, u)`:
/// `(p1 − p2 − sqrt((p1 − l1)² + (u2 − p2)²), p1 − p2 + sqrt((u1 − p1)² + (p2 − l2)²))`.
/// With [`wilson_interval`]s this is method 10 exactly; a proportion known
/// exactly (an exact profile's share) is passed as `(p, p)`. Fractions in,
/// fractions out (the bounds lie in `[-1, 1]`).
pub fn newcombe_difference(p1: f64, ci1: (f64, f64), p2: f64, ci2: (f64, f64)) -> (f64, f64) {
    let d = p1 - p2;
    let lo = d - ((p1 - ci1.0).powi(2) + (ci2.1 - p2).powi(2)).sqrt();
    let hi = d + ((ci1.1 - p1).powi(2) + (p2 - ci2.0).powi(2)).sqrt();
    (lo.max(-1.0), hi.min(1.0))
}

/// [`newcombe_difference`] of `k1/n1 − k2/n2` with the Wilson intervals
/// of both (normal quantile `z`, [`Z_95`] for 95%). E.g. 56/70 − 48/80
/// gives (0.0524, 0.3339) (Newcombe 1998, Table II).
pub fn newcombe_interval(k1: f64, n1: u64, k2: f64, n2: u64, z: f64) -> (f64, f64) {
    let p = |k: f64, n: u64| {
        if n == 0 {
            0.0
        } else {
            (k / n as f64).clamp(0.0, 1.0)
        }
    };
    newcombe_difference(
        p(k1, n1),
        wilson_interval(k1, n1, z),
        p(k2, n2),
        wilson_interval(k2, n2, z),
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
    /// functions with at least [`SIGNIFICANT_PERCENT`] of its total.
    pub n: usize,
    /// Kendall's tau-b between the reference and OTHER shares of the
    /// reference's top `n`; `None` when undefined (n < 2, or all shares
    /// of one side equal).
    pub tau_b: Option<f64>,
    /// `|top_n(REFERENCE) ∩ top_n(OTHER)|`.
    pub overlap: usize,
    /// The reference's top `n`, by reference share (ties: by OTHER share,
    /// then name).
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
    /// Where the per-function sample counts of a sampled OTHER come from:
    /// `"event"` (its `samples` event), `"records"` (its sample records,
    /// by the function of each pc) or `"shares"` (n × share); `None` when
    /// OTHER is not sampled.
    pub sample_counts: Option<&'static str>,
    /// The number of samples n of the intervals (sampled OTHER only).
    pub samples: Option<u64>,
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

    // The sample count and where per-function sample counts come from.
    let (sampled_n, sample_counts) = sample_counts(other);
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
        let samples = sampled_n.map(|n| match &sample_counts {
            SampleCounts::Event(se) => of.map_or(0.0, |f| crate::cost(&f.self_cost, *se) as f64),
            SampleCounts::Records(counts) => o.map_or(0.0, |i| counts[i] as f64),
            SampleCounts::Shares => n as f64 * oshare / 100.0,
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
            rside.sha256.get(..12).unwrap_or(&rside.sha256),
            oside.program,
            oside.sha256.get(..12).unwrap_or(&oside.sha256)
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
        sample_counts: sampled_n.map(|_| sample_counts.as_str()),
        samples: sampled_n,
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

/// Where the per-function sample counts of a sampled profile come from.
enum SampleCounts {
    /// The self cost of the `samples` event (its index).
    Event(usize),
    /// Sample records counted by the function of their pc, per function
    /// index.
    Records(Vec<u64>),
    /// `n × share`, from the compared event.
    Shares,
}

impl SampleCounts {
    fn as_str(&self) -> &'static str {
        match self {
            SampleCounts::Event(_) => "event",
            SampleCounts::Records(_) => "records",
            SampleCounts::Shares => "shares",
        }
    }
}

/// `n` and the source of per-function sample counts of `p`; `n` is `None`
/// unless `p` is sampled with samples. With a `samples` event, `n` is
/// `meta.sampling.samples`; else with sample records, `n` is their number
/// and each is counted in the function holding its pc; else `n` is
/// `meta.sampling.samples` and counts are estimated from shares.
fn sample_counts(p: &Profile) -> (Option<u64>, SampleCounts) {
    let n = match (p.meta.method, &p.meta.sampling) {
        (Method::Sample, Some(s)) if s.samples > 0 => s.samples,
        _ => return (None, SampleCounts::Shares),
    };
    if let Some(e) = p.event_index(fwprof_profile::events::SAMPLES) {
        return (Some(n), SampleCounts::Event(e));
    }
    if p.samples.is_empty() {
        return (Some(n), SampleCounts::Shares);
    }
    let mut counts = vec![0u64; p.functions.len()];
    for s in &p.samples {
        let Some(&pc) = s.frames.first() else {
            continue;
        };
        let f = p
            .costs
            .find(pc)
            .map(|c| c.function)
            .or_else(|| p.function_at(pc));
        if let Some(c) = f.and_then(|f| counts.get_mut(f.index())) {
            *c += 1;
        }
    }
    (Some(p.samples.len() as u64), SampleCounts::Records(counts))
}

/// Rank agreement over the reference's top `top` functions among those
/// with at least [`SIGNIFICANT_PERCENT`] of the reference (`functions` is
/// sorted by reference share): below that, ranks are decided by a handful
/// of samples or instructions and say nothing about the method.
fn rank(functions: &[FunctionComparison], top: usize) -> Ranking {
    let ref_top: Vec<&FunctionComparison> = functions
        .iter()
        .filter(|f| f.reference_self > 0 && f.reference_share >= SIGNIFICANT_PERCENT)
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
            .fold(0.0, |a, b| a + b),
        invented_share: functions
            .iter()
            .filter(|f| f.invented)
            .map(|f| f.other_share)
            .fold(0.0, |a, b| a + b),
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
            "samples": self.samples,
            "sample_counts": self.sample_counts,
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
            // A sampled total is samples × period up to the last sample:
            // an estimate that leaves out what ran after it.
            let all = if s.method == Method::Sample {
                format!("~{} {unit} in all (estimated from samples)", s.total)
            } else {
                format!("{} {unit} in all", s.total)
            };
            writeln!(w, "{label:<9}  {}: {}, {all}", s.program, s.describe())?;
        }
        writeln!(
            w,
            "event      {} (shares in % of each profile's total; errors in points)",
            self.event
        )?;
        if let (Some(n), Some(src)) = (self.samples, self.sample_counts) {
            let src = match src {
                "event" => "OTHER's samples event",
                "records" => "OTHER's sample records",
                _ => "OTHER's shares × n",
            };
            writeln!(
                w,
                "intervals  95% Wilson score, sample proportion of n = {n} samples (counts from {src})"
            )?;
        }
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
            let rel = f.rel_error.map_or("n/a".to_string(), |r| {
                format!("{:+.1}%", if r.abs() < 0.05 { 0.0 } else { r })
            });
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
                f.reference_share,
                f.other_share,
                // No "-0.00" for an error that rounds to zero.
                if f.abs_error.abs() < 0.005 { 0.0 } else { f.abs_error }
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
}
