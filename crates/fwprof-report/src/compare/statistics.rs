//! The statistics of a comparison: Wilson and Newcombe intervals of
//! shares, Kendall's tau-b of rankings, and where a sampled profile's
//! per-function sample counts come from.

use std::cmp::Ordering;

use fwprof_profile::{Method, Profile};

/// The normal quantile for a two-sided 95% interval: Φ⁻¹(0.975).
pub const Z_95: f64 = 1.959964;

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

/// Where the per-function sample counts of a sampled profile come from.
pub(super) enum SampleCounts {
    /// The self cost of the `samples` event (its index).
    Event(usize),
    /// Sample records counted by the function of their pc, per function
    /// index.
    Records(Vec<u64>),
    /// `n × share`, from the compared event.
    Shares,
}

impl SampleCounts {
    pub(super) fn as_str(&self) -> &'static str {
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
pub(super) fn sample_counts(p: &Profile) -> (Option<u64>, SampleCounts) {
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
