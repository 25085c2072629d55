//! The one rounding routine every operation ends in: an exact-enough
//! intermediate (sign, exponent, 63-bit significand with a sticky bit) is
//! rounded to a format per the RISC-V rounding mode and packed, raising
//! OF, UF and NX as IEEE 754-2019 §7 and Unprivileged ISA 20191213 §11.2
//! (tininess detected after rounding) require.

use crate::format::Format;
use crate::{Flags, RoundingMode};

/// `x >> n` with every bit shifted out ORed into bit 0 (the sticky bit),
/// for any `n` (64 and more give 0 or 1).
#[inline(always)]
pub(crate) fn shift_right_jam(x: u64, n: u32) -> u64 {
    if n == 0 {
        x
    } else if n < 64 {
        (x >> n) | u64::from(x << (64 - n) != 0)
    } else {
        u64::from(x != 0)
    }
}

/// [`shift_right_jam`] on 128 bits.
#[inline(always)]
pub(crate) fn shift_right_jam128(x: u128, n: u32) -> u128 {
    if n == 0 {
        x
    } else if n < 128 {
        (x >> n) | u128::from(x << (128 - n) != 0)
    } else {
        u128::from(x != 0)
    }
}

/// Rounds and packs `(-1)^sign × sig × 2^(exp − BIAS − 62)` into `F`.
///
/// `sig` must lie in `[2^62, 2^63)`: bit 62 is the leading (hidden) bit,
/// the `FRAC` bits below it the fraction, the `62 − FRAC` bits below those
/// the round bits, whose lowest is sticky (the OR of everything the caller
/// dropped). `exp` is the biased exponent the result would have with an
/// unbounded range; it may be far below 1 or above `MAX_EXP`.
///
/// * Tiny results (below the smallest normal after rounding to `FRAC + 1`
///   bits with unbounded exponent, §11.2 / IEEE 754-2019 §7.5) are rounded
///   on the subnormal grid; UF is raised when tiny and inexact.
/// * Overflow gives ±inf, or the largest finite value when the mode rounds
///   towards zero for that sign, with OF and NX (§7.4).
/// * NX whenever the packed result differs from the exact value.
#[inline(always)]
pub(crate) fn round_pack<F: Format>(
    sign: bool,
    mut exp: i32,
    mut sig: u64,
    rm: RoundingMode,
    fl: &mut Flags,
) -> u64 {
    debug_assert!(sig >> 62 == 1, "significand not normalised: {sig:#x}");
    let rb = 62 - F::FRAC;
    let mask = (1u64 << rb) - 1;
    let half = 1u64 << (rb - 1);
    let inc = match rm {
        RoundingMode::Rne | RoundingMode::Rmm => half,
        RoundingMode::Rtz => 0,
        RoundingMode::Rdn => {
            if sign {
                mask
            } else {
                0
            }
        }
        RoundingMode::Rup => {
            if sign {
                0
            } else {
                mask
            }
        }
    };
    let s = if sign { F::SIGN } else { 0 };
    if exp < 1 || exp >= F::MAX_EXP - 1 {
        if exp < 1 {
            // Tiny unless exp == 0 and rounding carries up to 2^emin.
            let tiny = exp < 0 || sig + inc < 1 << 63;
            sig = shift_right_jam(sig, (1 - exp) as u32);
            exp = 1;
            if tiny && sig & mask != 0 {
                fl.0 |= Flags::UF;
            }
        } else if exp > F::MAX_EXP - 1 || sig + inc >= 1 << 63 {
            fl.0 |= Flags::OF | Flags::NX;
            return s | if inc == 0 { F::INF - 1 } else { F::INF };
        }
    }
    let round_bits = sig & mask;
    if round_bits != 0 {
        fl.0 |= Flags::NX;
    }
    let mut m = (sig + inc) >> rb;
    if rm == RoundingMode::Rne && round_bits == half {
        m &= !1; // a tie: to even
    }
    // The hidden bit of `m` adds one to the exponent field; a carry out of
    // the significand adds one more, which is right.
    s | ((((exp - 1) as u64) << F::FRAC) + m)
}

/// [`round_pack`] for any nonzero `sig` (bit 63 allowed): normalises it to
/// `[2^62, 2^63)` first, keeping the value `sig × 2^(exp − BIAS − 62)`.
#[inline(always)]
pub(crate) fn normalize_round_pack<F: Format>(
    sign: bool,
    exp: i32,
    sig: u64,
    rm: RoundingMode,
    fl: &mut Flags,
) -> u64 {
    debug_assert!(sig != 0);
    let lz = sig.leading_zeros();
    if lz == 0 {
        round_pack::<F>(sign, exp + 1, shift_right_jam(sig, 1), rm, fl)
    } else {
        round_pack::<F>(sign, exp - (lz as i32 - 1), sig << (lz - 1), rm, fl)
    }
}

/// [`round_pack`] for a nonzero 128-bit `sig` with value
/// `sig × 2^(exp − BIAS − 124)`: the top 63 significant bits are kept, the
/// rest folded into the sticky bit.
#[inline(always)]
pub(crate) fn round_pack128<F: Format>(
    sign: bool,
    exp: i32,
    sig: u128,
    rm: RoundingMode,
    fl: &mut Flags,
) -> u64 {
    debug_assert!(sig != 0);
    let msb = 127 - sig.leading_zeros() as i32;
    let sig62 = if msb >= 62 {
        shift_right_jam128(sig, (msb - 62) as u32) as u64
    } else {
        (sig as u64) << (62 - msb)
    };
    round_pack::<F>(sign, exp + msb - 124, sig62, rm, fl)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::format::{Binary32, Binary64};

    #[test]
    fn jam_keeps_lost_bits_sticky() {
        assert_eq!(shift_right_jam(0b1000, 3), 0b1);
        assert_eq!(shift_right_jam(0b1001, 3), 0b1 | 1);
        assert_eq!(shift_right_jam(0b1010, 2), 0b11);
        assert_eq!(shift_right_jam(5, 64), 1);
        assert_eq!(shift_right_jam(0, 200), 0);
        assert_eq!(shift_right_jam128(1 << 100, 101), 1);
        assert_eq!(shift_right_jam128(1 << 100, 100), 1);
        assert_eq!(shift_right_jam128(3 << 100, 101), 1);
    }

    #[test]
    fn packs_one_and_rounds_ties_to_even() {
        let mut fl = Flags::default();
        let one = 1u64 << 62;
        assert_eq!(
            round_pack::<Binary64>(false, 1023, one, RoundingMode::Rne, &mut fl),
            0x3ff0_0000_0000_0000
        );
        assert_eq!(
            round_pack::<Binary32>(true, 127, one, RoundingMode::Rne, &mut fl),
            0xbf80_0000
        );
        assert_eq!(fl, Flags::default());
        // 1 + half an ulp of binary32 (2^-24): a tie, RNE keeps 1.0.
        let tie = one | 1 << (62 - 24);
        assert_eq!(
            round_pack::<Binary32>(false, 127, tie, RoundingMode::Rne, &mut fl),
            0x3f80_0000
        );
        assert_eq!(
            round_pack::<Binary32>(false, 127, tie, RoundingMode::Rmm, &mut fl),
            0x3f80_0001
        );
        assert_eq!(fl, Flags(Flags::NX));
    }
}
