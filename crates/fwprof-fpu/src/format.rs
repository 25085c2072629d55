//! The two IEEE 754 binary interchange formats as types, and everything
//! done on their bit patterns without rounding: field access, NaN tests,
//! unpacking, `fmin`/`fmax` (Unprivileged ISA 20191213 §11.6), the
//! comparisons (§11.8) and `fclass` (§11.9).
//!
//! Bit patterns of both widths travel as `u64` (binary32 in the low 32 bits)
//! so one generic body serves `f32` and `f64`; the format's field widths are
//! associated constants, so each instantiation is specialised at compile time.

use crate::Flags;

/// Shape of an IEEE 754-2019 binary interchange format (§3.4): sign bit,
/// `EXP` exponent bits (biased by `BIAS`), `FRAC` trailing significand bits.
pub(crate) trait Format: Copy {
    /// Trailing significand (fraction) bits: 23 or 52.
    const FRAC: u32;
    /// Exponent bits: 8 or 11.
    const EXP: u32;
    /// The sign bit.
    const SIGN: u64 = 1 << (Self::FRAC + Self::EXP);
    /// The all-ones biased exponent of infinities and NaNs: 255 or 2047.
    const MAX_EXP: i32 = (1 << Self::EXP) - 1;
    /// Exponent bias: 127 or 1023.
    const BIAS: i32 = (1 << (Self::EXP - 1)) - 1;
    /// Mask of the fraction field.
    const FRAC_MASK: u64 = (1 << Self::FRAC) - 1;
    /// Positive infinity; also the mask of the exponent field.
    const INF: u64 = ((1 << Self::EXP) - 1) << Self::FRAC;
    /// The quiet bit: the fraction's most significant bit.
    const QUIET: u64 = 1 << (Self::FRAC - 1);
    /// The canonical NaN of §11.3: positive, quiet bit only
    /// (`0x7fc00000`, `0x7ff8000000000000`).
    const NAN: u64 = Self::INF | Self::QUIET;

    /// Biased exponent field.
    #[inline(always)]
    fn exp_field(a: u64) -> i32 {
        ((a >> Self::FRAC) as i32) & Self::MAX_EXP
    }
    /// True for either NaN.
    #[inline(always)]
    fn is_nan(a: u64) -> bool {
        (a & !Self::SIGN) > Self::INF
    }
    /// True for a signalling NaN (quiet bit clear, §11.3).
    #[inline(always)]
    fn is_snan(a: u64) -> bool {
        Self::is_nan(a) && a & Self::QUIET == 0
    }
    /// A finite nonzero magnitude (sign cleared) as `(exp, sig)` with
    /// `sig` in `[2^62, 2^63)` and value `sig × 2^(exp − BIAS − 62)`:
    /// `exp` is the biased exponent for normal numbers and at most 0 for
    /// subnormals, which are normalised here.
    #[inline(always)]
    fn unpack(mag: u64) -> (i32, u64) {
        let e = Self::exp_field(mag);
        let frac = mag & Self::FRAC_MASK;
        if e != 0 {
            (e, (frac | 1 << Self::FRAC) << (62 - Self::FRAC))
        } else {
            let lz = frac.leading_zeros();
            (64 - Self::FRAC as i32 - lz as i32, frac << (lz - 1))
        }
    }
}

/// binary32, the F extension's format.
#[derive(Clone, Copy)]
pub(crate) struct Binary32;
impl Format for Binary32 {
    const FRAC: u32 = 23;
    const EXP: u32 = 8;
}

/// binary64, the D extension's format.
#[derive(Clone, Copy)]
pub(crate) struct Binary64;
impl Format for Binary64 {
    const FRAC: u32 = 52;
    const EXP: u32 = 11;
}

/// Raises NV if either operand is a signalling NaN.
#[inline(always)]
pub(crate) fn nv_if_snan<F: Format>(a: u64, b: u64, fl: &mut Flags) {
    if F::is_snan(a) || F::is_snan(b) {
        fl.0 |= Flags::NV;
    }
}

/// A key whose unsigned order is the numeric order of non-NaN values,
/// with -0 below +0 (as §11.6 requires for `fmin`/`fmax`).
fn order_key<F: Format>(a: u64) -> u64 {
    if a & F::SIGN != 0 {
        !a & (F::SIGN | (F::SIGN - 1))
    } else {
        a | F::SIGN
    }
}

/// `fmin`/`fmax`: IEEE 754-2019 minimumNumber/maximumNumber.
pub(crate) fn min_max<F: Format>(a: u64, b: u64, max: bool, fl: &mut Flags) -> u64 {
    nv_if_snan::<F>(a, b, fl);
    match (F::is_nan(a), F::is_nan(b)) {
        (true, true) => F::NAN,
        (true, false) => b,
        (false, true) => a,
        (false, false) => {
            let a_first = order_key::<F>(a) <= order_key::<F>(b);
            if a_first != max {
                a
            } else {
                b
            }
        }
    }
}

/// True when `a` and `b` are both zeros, whatever their signs.
#[inline(always)]
fn both_zero<F: Format>(a: u64, b: u64) -> bool {
    (a | b) & !F::SIGN == 0
}

/// `feq`: quiet equality; NV only for a signalling NaN.
#[inline]
pub(crate) fn eq<F: Format>(a: u64, b: u64, fl: &mut Flags) -> bool {
    if F::is_nan(a) || F::is_nan(b) {
        nv_if_snan::<F>(a, b, fl);
        return false;
    }
    a == b || both_zero::<F>(a, b)
}

/// `flt` (`or_equal` false) and `fle` (true): signalling, NV for any NaN.
#[inline]
pub(crate) fn less<F: Format>(a: u64, b: u64, or_equal: bool, fl: &mut Flags) -> bool {
    if F::is_nan(a) || F::is_nan(b) {
        fl.0 |= Flags::NV;
        return false;
    }
    let (sa, sb) = (a & F::SIGN != 0, b & F::SIGN != 0);
    if a == b || both_zero::<F>(a, b) {
        return or_equal;
    }
    if sa != sb {
        return sa;
    }
    // Same sign, different values: magnitude order, reversed when negative.
    sa ^ (a < b)
}

/// `fclass`: exactly one of the ten bits of §11.9 Table 11.5.
pub(crate) fn classify<F: Format>(a: u64) -> u64 {
    let neg = a & F::SIGN != 0;
    let exp = a & F::INF;
    let frac = a & F::FRAC_MASK;
    let bit = if exp == F::INF {
        if frac == 0 {
            if neg {
                0
            } else {
                7
            }
        } else if a & F::QUIET == 0 {
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
                order_key::<Binary64>(w[0].to_bits()) < order_key::<Binary64>(w[1].to_bits()),
                "{} {}",
                w[0],
                w[1]
            );
            let (a, b) = (w[0] as f32, w[1] as f32);
            if a.to_bits() != b.to_bits() {
                assert!(
                    order_key::<Binary32>(a.to_bits() as u64)
                        < order_key::<Binary32>(b.to_bits() as u64)
                );
            }
        }
    }

    #[test]
    fn unpack_normalises_subnormals() {
        // The smallest binary64 subnormal, 2^-1074 = 2^62 × 2^(exp − 1023 − 62).
        assert_eq!(Binary64::unpack(1), (-51, 1 << 62));
        // 1.0
        assert_eq!(Binary32::unpack(0x3f80_0000), (127, 1 << 62));
        // The largest binary32 subnormal, (1 − 2^-23) × 2^-126.
        let (e, s) = Binary32::unpack(0x007f_ffff);
        assert_eq!((e, s), (0, 0x7fff_ff00_0000_0000));
    }
}
