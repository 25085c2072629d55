//! Which function of REFERENCE is which of OTHER, and each matched pair's
//! shares, errors and sample interval: the rows of a [`Comparison`].
//!
//! [`Comparison`]: super::Comparison

use std::collections::HashMap;

use fwprof_profile::Profile;

use super::statistics::{wilson_interval, SampleCounts, Z_95};
use super::{FunctionComparison, SIGNIFICANT_PERCENT};

/// One row per function with a cost of the event in either profile
/// (`events` and `totals`: the compared event's index and total in
/// REFERENCE and OTHER), in first-seen order; `sampled_n` and
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
