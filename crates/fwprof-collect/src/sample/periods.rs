//! The sampling periods: fixed, or jittered by a seeded generator.

/// The sampling periods: fixed, or drawn uniformly from `[1, 2N-1]` (mean
/// `N`) by SplitMix64 (G. Steele, D. Lea, C. Flood, "Fast splittable
/// pseudorandom number generators", OOPSLA 2014) seeded with `--seed`, the
/// 64-bit output mapped to the range by a 128-bit multiply (D. Lemire,
/// "Fast random integer generation in an interval", 2019, without the
/// rejection step: the bias is below (2N-1)/2^64).
#[derive(Clone, Debug)]
pub struct Periods {
    period: u64,
    jitter: bool,
    state: u64,
}

impl Periods {
    /// Periods of mean `period` (at least 1), jittered from `seed` if
    /// `jitter`.
    pub fn new(period: u64, jitter: bool, seed: u64) -> Periods {
        Periods {
            period: period.max(1),
            jitter,
            state: seed,
        }
    }

    /// The next SplitMix64 output.
    fn next_u64(&mut self) -> u64 {
        self.state = self.state.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.state;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// Skip the sampling points in `[next, end)` without
    /// drawing each period when there are more than 2^20 of them (a long
    /// sleep): returns how many there were and the first point at or after
    /// `end`. Fixed periods are counted exactly; jittered ones are
    /// estimated as the span over the mean period, and the next point is
    /// one fresh period after `end`. `None` when the span is short enough
    /// to walk point by point.
    pub fn skip_long(&mut self, next: u64, end: u64) -> Option<(u64, u64)> {
        let span = end.saturating_sub(next);
        if span <= self.period.saturating_mul(1 << 20) {
            return None;
        }
        if self.jitter {
            let first = end.saturating_add(self.next_period());
            Some((span / self.period, first))
        } else {
            let n = span.div_ceil(self.period);
            Some((n, next.saturating_add(n.saturating_mul(self.period))))
        }
    }

    /// The next period.
    pub fn next_period(&mut self) -> u64 {
        if !self.jitter {
            return self.period;
        }
        let span = self.period.saturating_mul(2).saturating_sub(1).max(1);
        1 + ((u128::from(self.next_u64()) * u128::from(span)) >> 64) as u64
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn long_sleeps_are_skipped_without_walking_every_point() {
        let mut p = Periods::new(10, false, 1);
        assert_eq!(p.skip_long(5, 1000), None);
        // A point already past the sleep: nothing to skip.
        assert_eq!(p.skip_long(2000, 1000), None);
        // Fixed: exactly the multiples in [next, end).
        let end = 5 + 10 * (1 << 20) + 3;
        assert_eq!(
            p.skip_long(5, end),
            Some(((1 << 20) + 1, 5 + 10 * ((1 << 20) + 1)))
        );
        // Jittered: the span over the mean, then one fresh period.
        let mut j = Periods::new(10, true, 1);
        let (n, first) = j.skip_long(0, 10 * (1 << 21)).unwrap();
        assert_eq!(n, 1 << 21);
        assert!((10 * (1 << 21) + 1..10 * (1 << 21) + 20).contains(&first));
    }

    #[test]
    fn fixed_periods() {
        let mut p = Periods::new(97, false, 5);
        assert!((0..10).all(|_| p.next_period() == 97));
        assert_eq!(Periods::new(0, true, 1).next_period(), 1);
    }

    #[test]
    fn jittered_periods_are_uniform_in_range_and_reproducible() {
        let n = 100u64;
        let draw = |seed| {
            let mut p = Periods::new(n, true, seed);
            (0..100_000).map(|_| p.next_period()).collect::<Vec<_>>()
        };
        let a = draw(1);
        assert_eq!(a, draw(1));
        assert_ne!(a, draw(2));
        assert!(a.iter().all(|&v| (1..=2 * n - 1).contains(&v)));
        assert_eq!(*a.iter().min().unwrap(), 1);
        assert_eq!(*a.iter().max().unwrap(), 2 * n - 1);
        let mean = a.iter().sum::<u64>() as f64 / a.len() as f64;
        assert!((mean - n as f64).abs() < 1.0, "mean {mean}");
        // Each of the 199 values about equally often (chi-square, 198
        // degrees of freedom: the 99.9% quantile is about 270).
        let mut counts = vec![0u64; 2 * n as usize];
        for &v in &a {
            counts[v as usize] += 1;
        }
        let expect = a.len() as f64 / (2 * n - 1) as f64;
        let chi2: f64 = counts[1..]
            .iter()
            .map(|&c| (c as f64 - expect).powi(2) / expect)
            .sum();
        assert!(chi2 < 270.0, "chi-square {chi2}");
    }

    #[test]
    fn splitmix64_reference_values() {
        // SplitMix64 from seed 0: the first outputs of the reference
        // implementation (Vigna, splitmix64.c).
        let mut p = Periods::new(1, true, 0);
        assert_eq!(p.next_u64(), 0xe220_a839_7b1d_cdaf);
        assert_eq!(p.next_u64(), 0x6e78_9e6a_a1b9_65f4);
    }
}
