//! Which function of REFERENCE is which of OTHER (by the one rule of
//! [`match_functions`]), and each matched pair's shares, errors and sample
//! interval: the rows of a [`Comparison`].
//!
//! [`Comparison`]: super::Comparison

use fwprof_profile::{match_functions, Profile};

use super::statistics::{wilson_interval, SampleCounts, Z_95};
use super::{FunctionComparison, SIGNIFICANT_PERCENT};

/// One row per function with a cost of the event in either profile
/// (`events` and `totals`: the compared event's index and total in
/// REFERENCE and OTHER), in the order of [`match_functions`]; `sampled_n` and
/// `sample_counts` as [`super::statistics::sample_counts`] gives them for
/// OTHER.
pub(super) fn function_rows(
    reference: &Profile,
    other: &Profile,
    events: [usize; 2],
    totals: [u64; 2],
    sampled_n: Option<u64>,
    sample_counts: &SampleCounts,
) -> Vec<FunctionComparison> {
    let [re, oe] = events;
    let pct = |part: u64, whole: u64| crate::percent(part, whole);
    // (reference function, other function), by the one rule of
    // `match_functions`.
    let rows = match_functions(&reference.functions, &other.functions);
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
        let rshare = pct(rself, totals[0]);
        let oshare = pct(oself, totals[1]);
        let samples = sampled_n.map(|n| match sample_counts {
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
            reference_inclusive: pct(rincl, totals[0]),
            other_inclusive: pct(oincl, totals[1]),
            inclusive_abs_error: pct(oincl, totals[1]) - pct(rincl, totals[0]),
            samples,
            interval,
            covers,
            missed: rshare >= SIGNIFICANT_PERCENT && oself == 0,
            invented: rself == 0 && oself > 0,
        });
    }
    functions
}
