//! The statistics behind `--fail-above`: how far a sampled profile's
//! totals and shares may be from the run's, and what grew beyond them.

use super::render::percent_text;
use super::{Change, Diff, ShareChange, GATE_Z};
use crate::Profile;

/// How far a sampled profile's instruction or cycle total may be from the
/// run's: it counts whole periods up to the last sample, so it misses up to
/// one period after it, and with jitter the sum of `n` periods drawn
/// uniformly from 1 to 2P−1 has a standard deviation of about
/// P·sqrt(n/3); 1.96 of those are added. 0 for an exact profile.
pub(super) fn total_margin(p: &Profile) -> u64 {
    match (p.meta.method, &p.meta.sampling) {
        (fwprof_profile::Method::Sample, Some(s)) => {
            let spread = if s.jitter {
                fwprof_report::Z_95 * s.period as f64 * (s.samples as f64 / 3.0).sqrt()
            } else {
                0.0
            };
            s.period.saturating_add(spread.ceil() as u64)
        }
        _ => 0,
    }
}

/// The number of samples of a sampled profile, `None` otherwise.
pub(super) fn sample_count(p: &Profile) -> Option<u64> {
    match (p.meta.method, &p.meta.sampling) {
        (fwprof_profile::Method::Sample, Some(s)) => Some(s.samples),
        _ => None,
    }
}

/// The share change of a cost `b` of `tb` (before) to `a` of `ta`
/// (after); a side with `n` samples has a Wilson interval on its share
/// (its count estimated as share × n), an exact side none.
pub(super) fn share_change(
    b: u64,
    tb: u64,
    nb: Option<u64>,
    a: u64,
    ta: u64,
    na: Option<u64>,
) -> ShareChange {
    let share = |c: u64, t: u64| if t == 0 { 0.0 } else { c as f64 / t as f64 };
    let interval = |p: f64, n: Option<u64>, z: f64| match n {
        Some(n) => fwprof_report::wilson_interval(p * n as f64, n, z),
        None => (p, p),
    };
    let (pb, pa) = (share(b, tb), share(a, ta));
    let (lo, hi) = fwprof_report::newcombe_difference(
        pa,
        interval(pa, na, fwprof_report::Z_95),
        pb,
        interval(pb, nb, fwprof_report::Z_95),
    );
    let (gate_lo, _) = fwprof_report::newcombe_difference(
        pa,
        interval(pa, na, GATE_Z),
        pb,
        interval(pb, nb, GATE_Z),
    );
    ShareChange {
        before: 100.0 * pb,
        after: 100.0 * pa,
        low: 100.0 * lo,
        high: 100.0 * hi,
        gate_low: 100.0 * gate_lo,
    }
}

impl Diff {
    /// What grew by more than `pct` percent (`fwprof diff --fail-above`),
    /// one line each: the total of the sort event, then each function's
    /// self cost of the sort event (a function that appeared with a cost
    /// grew without bound). When either profile is sampled, a function
    /// counts only if the 95% interval of its share change lies above 0,
    /// and the total only if it grew by more than `pct` percent even with
    /// the sampled totals' margins of error against it (one period, plus
    /// 1.96 standard deviations of the summed periods with jitter).
    pub fn growth_above(&self, pct: f64) -> Vec<String> {
        let e = self.sort_event;
        let event = &self.events[e];
        let grew = |c: Change| match c.percent() {
            Some(p) => p > pct,
            None => c.after > 0,
        };
        let mut out = Vec::new();
        let t = self.totals[e];
        // A sampled total counts only if it grew beyond its margin of error.
        let [mb, ma] = self.total_margin;
        let t_sure = Change {
            before: t.before.saturating_add(mb),
            after: t.after.saturating_sub(ma),
        };
        if grew(t_sure) && grew(t) {
            out.push(format!(
                "total {event} grew {} ({} to {})",
                percent_text(t),
                t.before,
                t.after
            ));
        }
        for f in &self.functions {
            let c = f.self_cost[e];
            if !grew(c) || f.share.is_some_and(|s| s.gate_low <= 0.0) {
                continue;
            }
            out.push(format!(
                "{}: self {event} grew {} ({} to {})",
                f.label(),
                if c.before == 0 {
                    "from 0".to_string()
                } else {
                    percent_text(c)
                },
                c.before,
                c.after
            ));
        }
        out
    }
}
