//! Judging a comparison: rank agreement over the top functions, the error
//! and coverage summary, and the one-line verdict by the rules of
//! `docs/compare.md`.

use super::{kendall_tau_b, FunctionComparison, SIGNIFICANT_PERCENT};

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

/// Rank agreement over the reference's top `top` functions among those
/// with at least [`SIGNIFICANT_PERCENT`] of the reference (`functions` is
/// sorted by reference share): below that, ranks are decided by a handful
/// of samples or instructions and say nothing about the method.
pub(super) fn rank(functions: &[FunctionComparison], top: usize) -> Ranking {
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

pub(super) fn summarise(functions: &[FunctionComparison]) -> Summary {
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
pub(super) fn judge(
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
