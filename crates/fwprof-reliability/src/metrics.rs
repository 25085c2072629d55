//! What the suite keeps of each comparison and each reference: the
//! figures of a method's error against its reference, computed by
//! `fwprof_report::compare`, and the results of one workload at one
//! parameter value.

use fwprof_profile::{events, Profile};
use fwprof_report::compare::SIGNIFICANT_PERCENT;
use fwprof_report::Comparison;

use crate::catalogue::Workload;

/// A function of interest in one comparison: reference or method share
/// ≥ [`SIGNIFICANT_PERCENT`], or missed, or invented. Shares are percent
/// of the profile's total (0–100), errors percentage points.
#[derive(Clone, Debug, PartialEq)]
pub struct FunctionRow {
    /// The function's name.
    pub name: String,
    /// Self share in the reference, percent.
    pub reference_share: f64,
    /// Self share in the method's profile, percent.
    pub other_share: f64,
    /// `other_share − reference_share`, percentage points.
    pub abs_error: f64,
    /// 95% Wilson interval of the sampled share, percent (sampled methods
    /// only).
    pub interval: Option<(f64, f64)>,
    /// Whether `interval` contains the reference share.
    pub covers: Option<bool>,
    /// Significant in the reference, no cost in the method's profile.
    pub missed: bool,
    /// No cost in the reference, some in the method's profile.
    pub invented: bool,
}

/// What the suite keeps of one comparison of a method's profile with its
/// reference (see `fwprof_report::Comparison` for the definitions).
/// Shares are percent, errors percentage points.
#[derive(Clone, Debug, PartialEq)]
pub struct Metrics {
    /// Largest |absolute error| of any function's self share, points.
    pub max_abs_error: f64,
    /// The function with that error (`None` if every error is 0).
    pub max_abs_error_function: Option<String>,
    /// Mean |absolute error| over the significant functions, points.
    pub mean_abs_error: f64,
    /// Kendall's tau-b over the reference's top functions (`None` when
    /// undefined).
    pub tau_b: Option<f64>,
    /// Functions in the rank agreement (≤ [`crate::TOP`]).
    pub top_n: usize,
    /// Functions in both top-`top_n` lists.
    pub top_overlap: usize,
    /// Significant reference functions the method gave nothing.
    pub missed: Vec<String>,
    /// Reference share of the missed functions together, percent.
    pub missed_share: f64,
    /// Functions with a cost in the method's profile only.
    pub invented: Vec<String>,
    /// The method's share of the invented functions together, percent.
    pub invented_share: f64,
    /// Fraction (0–1) of the significant functions whose interval covers
    /// the reference share (sampled only).
    pub coverage: Option<f64>,
    /// Samples taken (sampled only).
    pub samples: Option<u64>,
    /// Sampling points that fell while the program slept (sampled only).
    pub idle_samples: Option<u64>,
    /// The verdict's grade (`Grade::as_str`).
    pub grade: &'static str,
    /// The verdict as a sentence.
    pub verdict: String,
    /// The functions of interest, in the comparison's order.
    pub functions: Vec<FunctionRow>,
}

impl Metrics {
    /// The figures the suite keeps of `c`.
    pub fn of(c: &Comparison) -> Metrics {
        let s = &c.summary;
        let functions = c
            .functions
            .iter()
            .filter(|f| {
                f.reference_share >= SIGNIFICANT_PERCENT
                    || f.other_share >= SIGNIFICANT_PERCENT
                    || f.missed
            })
            .map(|f| FunctionRow {
                name: f.name.clone(),
                reference_share: f.reference_share,
                other_share: f.other_share,
                abs_error: f.abs_error,
                interval: f.interval,
                covers: f.covers,
                missed: f.missed,
                invented: f.invented,
            })
            .collect();
        Metrics {
            max_abs_error: s.max_abs_error,
            max_abs_error_function: s.max_abs_error_function.clone(),
            mean_abs_error: s.mean_abs_error,
            tau_b: c.ranking.tau_b,
            top_n: c.ranking.n,
            top_overlap: c.ranking.overlap,
            missed: c.missed.clone(),
            missed_share: s.missed_share,
            invented: c.invented.clone(),
            invented_share: s.invented_share,
            coverage: s.coverage,
            samples: c.other.sampling.as_ref().map(|x| x.samples),
            idle_samples: c.other.sampling.as_ref().map(|x| x.idle_samples),
            grade: c.verdict.grade.as_str(),
            verdict: c.verdict.text.clone(),
            functions,
        }
    }

    /// The share of sampling points that fell while the program slept, in
    /// percent of all points (`idle / (samples + idle)`); `None` for a
    /// method that does not sample.
    pub fn lost_percent(&self) -> Option<f64> {
        let (n, idle) = (self.samples?, self.idle_samples?);
        Some(percent(idle, n + idle))
    }
}

/// The exact reference of one run, as the table and the JSON show it.
#[derive(Clone, Debug, PartialEq)]
pub struct Reference {
    /// Executed instructions of the whole run.
    pub total: u64,
    /// Functions with ≥ [`SIGNIFICANT_PERCENT`] of the total and their
    /// self shares in percent, largest first (ties by name).
    pub functions: Vec<(String, f64)>,
}

impl Reference {
    /// The reference figures of an exact profile: its `instructions`
    /// total and its functions with ≥ 1% of it. A profile without the
    /// event is read through its first event.
    pub fn of(p: &Profile) -> Reference {
        let e = p.event_index(events::INSTRUCTIONS).unwrap_or(0);
        let total = p.totals.get(e).copied().unwrap_or(0);
        let mut functions: Vec<(String, f64)> = p
            .functions
            .iter()
            .map(|f| {
                let c = f.self_cost.get(e).copied().unwrap_or(0);
                (f.name.clone(), percent(c, total))
            })
            .filter(|(_, s)| *s >= SIGNIFICANT_PERCENT)
            .collect();
        functions.sort_by(|a, b| b.1.total_cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
        Reference { total, functions }
    }
}

/// One method's result on one run: its metrics, or why it has none (the
/// recording or the comparison failed: one line). `None` in
/// [`Run::cells`] where the method does not apply.
pub type Cell = Option<Result<Metrics, String>>;

/// One workload at one parameter value: the reference and every method's
/// result.
#[derive(Debug)]
pub struct Run {
    /// The workload.
    pub workload: &'static Workload,
    /// Its parameter value.
    pub param: u64,
    /// The exact reference, or why it could not be recorded (then every
    /// cell is an error).
    pub reference: Result<Reference, String>,
    /// One result per entry of [`crate::METHODS`], in that order; `None`
    /// where the method does not apply (instrumentation of the bare-metal
    /// workload).
    pub cells: Vec<Cell>,
}

impl Run {
    /// Whether the reference or any applicable method failed (the suite's
    /// exit status 1).
    pub fn failed(&self) -> bool {
        self.reference.is_err() || self.cells.iter().flatten().any(|c| c.is_err())
    }
}

/// `part` as a percentage of `whole` (0 when `whole` is 0).
pub(crate) fn percent(part: u64, whole: u64) -> f64 {
    if whole == 0 {
        0.0
    } else {
        100.0 * part as f64 / whole as f64
    }
}

#[cfg(test)]
mod tests {
    use fwprof_profile::{FunctionRecord, Meta};

    use super::*;

    /// `a` 70, `b` 25, `c` 4.5, `d` 0.5 of 1000 instructions.
    fn profile() -> Profile {
        let mut p = Profile::new(Meta::new("p.elf"), vec![events::INSTRUCTIONS.into()]);
        for (k, (name, cost)) in [("d", 5), ("b", 250), ("a", 700), ("c", 45)]
            .into_iter()
            .enumerate()
        {
            let start = 0x100 + 0x10 * k as u64;
            let id = p.add_function(FunctionRecord::new(name, start, start + 4));
            let f = &mut p.functions[id.index()];
            (f.self_cost, f.inclusive) = (vec![cost], vec![cost]);
        }
        p.totals = vec![1000];
        p
    }

    #[test]
    fn reference_keeps_the_significant_functions_by_share() {
        let r = Reference::of(&profile());
        assert_eq!(r.total, 1000);
        assert_eq!(
            r.functions,
            [
                ("a".to_string(), 70.0),
                ("b".into(), 25.0),
                ("c".into(), 4.5)
            ]
        );
    }

    #[test]
    fn lost_percent_counts_idle_points_among_all() {
        let m = |samples, idle_samples| {
            let c =
                fwprof_report::compare(&profile(), &profile(), events::INSTRUCTIONS, 10).unwrap();
            Metrics {
                samples,
                idle_samples,
                ..Metrics::of(&c)
            }
        };
        // 25 of 25 + 75 points fell while the program slept.
        assert_eq!(m(Some(75), Some(25)).lost_percent(), Some(25.0));
        assert_eq!(m(Some(0), Some(0)).lost_percent(), Some(0.0));
        assert_eq!(m(None, None).lost_percent(), None);
        // A profile compared with itself: no error, nothing missed.
        let same = m(None, None);
        assert_eq!(same.max_abs_error, 0.0);
        assert!(same.missed.is_empty() && same.invented.is_empty());
        assert_eq!(same.top_n, 3);
        assert_eq!(same.top_overlap, 3);
        assert_eq!(
            same.functions
                .iter()
                .map(|f| f.name.as_str())
                .collect::<Vec<_>>(),
            ["a", "b", "c"]
        );
    }
}
