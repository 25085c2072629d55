//! `fwprof compare`: how far a profile (sampled, instrumented, or another
//! exact one) is from a reference profile of the same run.
//!
//! Functions are paired by the one rule of
//! [`fwprof_profile::match_functions`] (same name; equal source files
//! first, then address order). For one event (the same
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

mod matching;
mod render;
mod statistics;
#[cfg(test)]
mod tests;
mod verdict;

use std::fmt;

use fwprof_profile::{Method, Profile, SamplingInfo};

use statistics::sample_counts;
pub use statistics::{
    kendall_tau_b, newcombe_difference, newcombe_interval, wilson_interval, Z_95,
};
use verdict::{judge, rank, summarise};
pub use verdict::{
    Grade, Ranking, Summary, Verdict, GOOD_COVERAGE, GOOD_MAX_ERROR, GOOD_TAU, UNRELIABLE_COVERAGE,
    UNRELIABLE_MAX_ERROR, UNRELIABLE_TAU,
};

/// Share (percent of the event total) from which a reference function is
/// *significant*: it counts for coverage, mean error and the verdict, and
/// is *missed* if OTHER gives it nothing.
pub const SIGNIFICANT_PERCENT: f64 = 1.0;

/// Functions whose share is below this (percent) in both profiles are
/// left out of the text table (not out of the JSON or the statistics).
pub const TEXT_MIN_PERCENT: f64 = 0.01;

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

    // The sample count and where per-function sample counts come from.
    let (sampled_n, sample_counts) = sample_counts(other);
    let mut functions = matching::function_rows(
        reference,
        other,
        [re, oe],
        [rside.total, oside.total],
        sampled_n,
        &sample_counts,
    );
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
