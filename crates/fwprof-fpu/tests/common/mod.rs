//! Operand generators shared by the differential tests: a deterministic
//! SplitMix64 stream, and bit patterns biased towards the hard cases
//! (zeros, subnormals, min/max normal, infinities, quiet and signalling
//! NaNs, operands one ulp apart, products and sums that land on rounding
//! ties or at the underflow/overflow thresholds).
#![allow(dead_code)]

use fwprof_fpu::{Flags, RoundingMode};

/// SplitMix64 (Steele, Lea, Flood 2014): tiny, fast, reproducible.
pub struct Rng(pub u64);

impl Rng {
    pub fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }
    pub fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}

/// Shape of a binary format, for building bit patterns.
#[derive(Clone, Copy)]
pub struct Fmt {
    pub frac_bits: u32,
    pub exp_bits: u32,
}

pub const F32: Fmt = Fmt {
    frac_bits: 23,
    exp_bits: 8,
};
pub const F64: Fmt = Fmt {
    frac_bits: 52,
    exp_bits: 11,
};

impl Fmt {
    pub fn sign(self) -> u64 {
        1 << (self.frac_bits + self.exp_bits)
    }
    pub fn max_exp(self) -> u64 {
        (1 << self.exp_bits) - 1
    }
    pub fn bias(self) -> u64 {
        self.max_exp() / 2
    }
    pub fn frac_mask(self) -> u64 {
        (1 << self.frac_bits) - 1
    }
    pub fn all(self) -> u64 {
        (self.sign() << 1).wrapping_sub(1)
    }
    pub fn pack(self, sign: bool, exp: u64, frac: u64) -> u64 {
        (if sign { self.sign() } else { 0 })
            | ((exp & self.max_exp()) << self.frac_bits)
            | (frac & self.frac_mask())
    }
    pub fn exp(self, a: u64) -> u64 {
        (a >> self.frac_bits) & self.max_exp()
    }
    pub fn is_nan(self, a: u64) -> bool {
        self.exp(a) == self.max_exp() && a & self.frac_mask() != 0
    }
    pub fn is_snan(self, a: u64) -> bool {
        self.is_nan(a) && a & (1 << (self.frac_bits - 1)) == 0
    }

    /// Positive special values every test should meet.
    pub fn specials(self) -> Vec<u64> {
        let q = 1u64 << (self.frac_bits - 1);
        let m = self.frac_mask();
        let one = self.bias();
        vec![
            0,                                               // +0
            1,                                               // min subnormal
            2,                                               // 2 * min subnormal
            q,                                               // mid subnormal
            m,                                               // max subnormal
            m - 1,                                           // max subnormal - ulp
            self.pack(false, 1, 0),                          // min normal
            self.pack(false, 1, 1),                          // min normal + ulp
            self.pack(false, 2, 0),                          // 2 * min normal
            self.pack(false, one, 0),                        // 1.0
            self.pack(false, one, 1),                        // 1 + ulp
            self.pack(false, one - 1, m),                    // 1 - ulp/2
            self.pack(false, one, q),                        // 1.5
            self.pack(false, one + 1, 0),                    // 2.0
            self.pack(false, one + 1, q),                    // 3.0
            self.pack(false, one - 2, self.frac_mask() / 3), // ~1/3
            self.pack(false, self.max_exp() - 1, m),         // max finite
            self.pack(false, self.max_exp() - 1, m - 1),
            self.pack(false, self.max_exp() - 1, 0), // 2^emax
            self.pack(false, self.max_exp(), 0),     // inf
            self.pack(false, self.max_exp(), q),     // canonical qNaN
            self.pack(false, self.max_exp(), q | 1), // qNaN with payload
            self.pack(false, self.max_exp(), 1),     // sNaN
            self.pack(false, self.max_exp(), q - 1), // sNaN, full payload
        ]
    }

    /// One operand: a special value, a random pattern, or a random value
    /// with a chosen exponent region.
    pub fn operand(self, r: &mut Rng) -> u64 {
        let sign = r.next() & 1 == 1;
        let s = if sign { self.sign() } else { 0 };
        match r.below(16) {
            0..=3 => {
                let sp = self.specials();
                sp[r.below(sp.len() as u64) as usize] | s
            }
            4..=7 => r.next() & self.all(),
            8 => {
                // subnormal or near the bottom of the normal range
                let e = r.below(4);
                self.pack(sign, e, r.next())
            }
            9 => {
                // near the top
                let e = self.max_exp() - 1 - r.below(3);
                self.pack(sign, e, r.next())
            }
            10 | 11 => {
                // short significand: exact products, ties after rounding
                let keep = 1 + r.below(6) as u32;
                let frac = (r.next() & self.frac_mask()) >> (self.frac_bits - keep)
                    << (self.frac_bits - keep);
                let e = self.bias() - 8 + r.below(17);
                self.pack(sign, e, frac)
            }
            12 => {
                // significand all ones or nearly: carries out of rounding
                let frac = self.frac_mask() ^ r.below(4);
                let e = 1 + r.below(self.max_exp() - 1);
                self.pack(sign, e, frac)
            }
            _ => {
                // moderate exponents, random significand
                let e = self.bias() - 30 + r.below(61);
                self.pack(sign, e, r.next())
            }
        }
    }

    /// A second operand related to `a` so that `a op b` is interesting:
    /// close in magnitude (cancellation), half an ulp of `a` (ties), or
    /// scaled so that a product or quotient lands near the underflow or
    /// overflow threshold.
    pub fn partner(self, r: &mut Rng, a: u64) -> u64 {
        let ea = self.exp(a);
        let sign = r.next() & 1 == 1;
        match r.below(8) {
            0 => a ^ (r.below(8)) ^ if sign { self.sign() } else { 0 },
            1 => {
                // a half-ulp-ish addend: exponent frac_bits+1 below a
                let e = ea.saturating_sub(u64::from(self.frac_bits) + 1 - r.below(3));
                self.pack(sign, e, if r.next() & 1 == 1 { 0 } else { r.next() })
            }
            2 | 3 => {
                // product/quotient exponent near the bottom: ea + eb - bias ~ 0
                let target = r.below(4) as i64 - 2;
                let eb = (self.bias() as i64 + target - ea as i64)
                    .clamp(1, self.max_exp() as i64 - 1) as u64;
                let eb = if r.next() & 1 == 1 {
                    eb
                } else {
                    // for division: ea - eb + bias ~ 0
                    (ea as i64 + self.bias() as i64 - target).clamp(1, self.max_exp() as i64 - 1)
                        as u64
                };
                self.pack(sign, eb, r.next())
            }
            4 => {
                // product near the top
                let eb = (3 * self.bias() as i64 - ea as i64 + r.below(3) as i64 - 1)
                    .clamp(1, self.max_exp() as i64 - 1) as u64;
                self.pack(sign, eb, r.next())
            }
            _ => self.operand(r),
        }
    }

    /// Two operands whose exact product lies just below the smallest
    /// normal number, often inside the window where rounding to the
    /// subnormal grid gives ±min-normal while rounding to full precision
    /// with unbounded exponent stays below it: the one place where
    /// tininess before and after rounding disagree. `a ≈ 2^-e (1 - v 2^-p)`,
    /// `b ≈ 2^(emin+e) (1 + u 2^-p)` with `v ≈ 2u`.
    pub fn near_min_normal_pair(self, r: &mut Rng) -> (u64, u64) {
        let e = r.below(20);
        let u = r.below(1 << (self.frac_bits / 2 + 1));
        let v = (2 * u as i64 + r.below(9) as i64 - 4).clamp(0, self.frac_mask() as i64) as u64;
        let a = self.pack(r.next() & 1 == 1, self.bias() - 1 - e, self.frac_mask() - v);
        let b = self.pack(r.next() & 1 == 1, 1 + e, u);
        if r.next() & 1 == 1 {
            (a, b)
        } else {
            (b, a)
        }
    }
}

/// Checks `op` in all five modes against `[RNE, RTZ, RDN, RUP, RMM]`.
pub fn modes<T: PartialEq + std::fmt::Debug>(
    what: &str,
    op: impl Fn(RoundingMode, &mut Flags) -> T,
    want: [(T, u8); 5],
) {
    for (rm, (v, f)) in RoundingMode::ALL.into_iter().zip(want) {
        let mut fl = Flags::default();
        let got = op(rm, &mut fl);
        assert_eq!(
            (&got, fl.0),
            (&v, f),
            "{what} in {rm:?}: got ({got:?}, {:#04x}), want ({v:?}, {f:#04x})",
            fl.0
        );
    }
}

/// Same result and flags in every mode.
pub fn every<T: PartialEq + std::fmt::Debug + Clone>(
    what: &str,
    op: impl Fn(RoundingMode, &mut Flags) -> T,
    v: T,
    f: u8,
) {
    modes(
        what,
        op,
        [
            (v.clone(), f),
            (v.clone(), f),
            (v.clone(), f),
            (v.clone(), f),
            (v, f),
        ],
    );
}
