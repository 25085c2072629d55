//! Bit-level helpers shared by binary32 and binary64: NaN tests, `fmin`/`fmax`
//! (Unprivileged ISA 20191213 §11.6) and `fclass` (§11.9), done in plain Rust
//! on the bit patterns widened to `u64`.

use crate::Flags;

/// Shape of an IEEE 754 binary interchange format.
#[derive(Clone, Copy)]
pub(crate) struct Format {
    /// Number of fraction (trailing significand) bits: 23 or 52.
    pub frac_bits: u32,
    /// Number of exponent bits: 8 or 11.
    pub exp_bits: u32,
}

pub(crate) const BINARY32: Format = Format {
    frac_bits: 23,
    exp_bits: 8,
};
pub(crate) const BINARY64: Format = Format {
    frac_bits: 52,
    exp_bits: 11,
};

impl Format {
    const fn sign(self) -> u64 {
        1 << (self.frac_bits + self.exp_bits)
    }
    const fn frac_mask(self) -> u64 {
        (1 << self.frac_bits) - 1
    }
    const fn exp_mask(self) -> u64 {
        ((1 << self.exp_bits) - 1) << self.frac_bits
    }
    const fn quiet(self) -> u64 {
        1 << (self.frac_bits - 1)
    }
    /// The canonical NaN of §11.3: positive, quiet bit only.
    pub const fn canonical_nan(self) -> u64 {
        self.exp_mask() | self.quiet()
    }
    pub const fn is_nan(self, a: u64) -> bool {
        (a & !self.sign()) > self.exp_mask()
    }
    pub const fn is_snan(self, a: u64) -> bool {
        self.is_nan(a) && a & self.quiet() == 0
    }
    /// A key whose unsigned order is the numeric order of non-NaN values,
    /// with -0 below +0 (as §11.6 requires for `fmin`/`fmax`).
    const fn order_key(self, a: u64) -> u64 {
        if a & self.sign() != 0 {
            !a & (self.sign() | self.sign().wrapping_sub(1))
        } else {
            a | self.sign()
        }
    }

    /// `fmin`/`fmax`: IEEE 754-2019 minimumNumber/maximumNumber.
    pub fn min_max(self, a: u64, b: u64, max: bool, fl: &mut Flags) -> u64 {
        if self.is_snan(a) || self.is_snan(b) {
            fl.0 |= Flags::NV;
        }
        match (self.is_nan(a), self.is_nan(b)) {
            (true, true) => self.canonical_nan(),
            (true, false) => b,
            (false, true) => a,
            (false, false) => {
                let a_first = self.order_key(a) <= self.order_key(b);
                if a_first != max {
                    a
                } else {
                    b
                }
            }
        }
    }

    /// `fclass`: exactly one of the ten bits of §11.9 Table 11.5.
    pub fn classify(self, a: u64) -> u64 {
        let neg = a & self.sign() != 0;
        let exp = a & self.exp_mask();
        let frac = a & self.frac_mask();
        let bit = if exp == self.exp_mask() {
            if frac == 0 {
                if neg {
                    0
                } else {
                    7
                }
            } else if a & self.quiet() == 0 {
                8
            } else {
                9
            }
        } else if exp == 0 {
            match (frac == 0, neg) {
                (true, true) => 3,
                (true, false) => 4,
                (false, true) => 2,
                (false, false) => 5,
            }
        } else if neg {
            1
        } else {
            6
        };
        1 << bit
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn order_key_is_numeric_order() {
        let vals: [f64; 9] = [
            f64::NEG_INFINITY,
            -1e300,
            -1.0,
            -5e-324,
            -0.0,
            0.0,
            5e-324,
            1.0,
            f64::INFINITY,
        ];
        for w in vals.windows(2) {
            assert!(
                BINARY64.order_key(w[0].to_bits()) < BINARY64.order_key(w[1].to_bits()),
                "{} {}",
                w[0],
                w[1]
            );
            let (a, b) = (w[0] as f32, w[1] as f32);
            if a.to_bits() != b.to_bits() {
                assert!(
                    BINARY32.order_key(a.to_bits() as u64) < BINARY32.order_key(b.to_bits() as u64)
                );
            }
        }
    }
}
