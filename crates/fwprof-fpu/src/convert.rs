//! Conversions (Unprivileged ISA 20191213 §11.7, §12.5): float to integer
//! with RISC-V's saturation (Table 11.4), integer to float, and binary32 ↔
//! binary64, on bit patterns of any [`Format`].

use crate::arith::nan_result;
use crate::format::{nv_if_snan, Binary32, Binary64, Format};
use crate::round::{normalize_round_pack, round_pack};
use crate::{Flags, RoundingMode};

/// The integer type of a float → integer conversion.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum Int {
    /// `i32` (`fcvt.w.*`).
    I32,
    /// `u32` (`fcvt.wu.*`).
    U32,
    /// `i64` (`fcvt.l.*`).
    I64,
    /// `u64` (`fcvt.lu.*`).
    U64,
}

impl Int {
    const fn signed(self) -> bool {
        matches!(self, Int::I32 | Int::I64)
    }
    const fn bits(self) -> u32 {
        match self {
            Int::I32 | Int::U32 => 32,
            Int::I64 | Int::U64 => 64,
        }
    }
    /// The largest value, zero-extended to 64 bits.
    const fn max(self) -> u64 {
        if self.signed() {
            (1 << (self.bits() - 1)) - 1
        } else {
            u64::MAX >> (64 - self.bits())
        }
    }
    /// The smallest value, sign-extended to 64 bits.
    const fn min(self) -> u64 {
        if self.signed() {
            (1u64 << (self.bits() - 1)).wrapping_neg()
        } else {
            0
        }
    }
}

/// `a` rounded per `rm` to an integer of type `to`, as its two's-complement
/// bits sign-extended to 64 (the caller truncates to 32 bits where needed).
///
/// Out of range (after rounding) and NaN saturate per Table 11.4 with NV
/// and without NX: NaN and too large give the maximum, too small (below
/// the minimum; for unsigned, anything rounding to a negative integer) the
/// minimum. Otherwise NX when `a` was not an integer.
#[inline]
pub(crate) fn to_int<F: Format>(a: u64, to: Int, rm: RoundingMode, fl: &mut Flags) -> u64 {
    let sign = a & F::SIGN != 0;
    let e = F::exp_field(a);
    let frac = a & F::FRAC_MASK;
    let saturate = |fl: &mut Flags| {
        fl.0 |= Flags::NV;
        if sign {
            to.min()
        } else {
            to.max()
        }
    };
    if e == F::MAX_EXP && frac != 0 {
        fl.0 |= Flags::NV;
        return to.max(); // NaN
    }
    if e - F::BIAS >= 64 {
        return saturate(fl); // |a| >= 2^64, infinities included
    }
    if e == 0 && frac == 0 {
        return 0;
    }
    // |a| = sig × 2^shift; in 64.64 fixed point (exact below 2^64, the
    // fraction with a sticky bit).
    let (sig, e) = if e == 0 {
        (frac, 1)
    } else {
        (frac | 1 << F::FRAC, e)
    };
    let point = 64 + e - F::BIAS - F::FRAC as i32;
    let fixed = if point >= 0 {
        u128::from(sig) << point
    } else {
        crate::round::shift_right_jam128(u128::from(sig), (-point) as u32)
    };
    let (int, fraction) = ((fixed >> 64) as u64, fixed as u64);
    const HALF: u64 = 1 << 63;
    let up = match rm {
        RoundingMode::Rne => fraction > HALF || (fraction == HALF && int & 1 == 1),
        RoundingMode::Rmm => fraction >= HALF,
        RoundingMode::Rtz => false,
        RoundingMode::Rdn => sign && fraction != 0,
        RoundingMode::Rup => !sign && fraction != 0,
    };
    let mag = u128::from(int) + u128::from(up);
    let in_range = match (to.signed(), sign) {
        (true, false) => mag <= u128::from(to.max()),
        (true, true) => mag <= 1 << (to.bits() - 1),
        (false, false) => mag <= u128::from(to.max()),
        (false, true) => mag == 0,
    };
    if !in_range {
        return saturate(fl);
    }
    if fraction != 0 {
        fl.0 |= Flags::NX;
    }
    let mag = mag as u64;
    if sign {
        mag.wrapping_neg()
    } else {
        mag
    }
}

/// The integer `(-1)^negative × mag` rounded to `F` per `rm` (NX when
/// inexact; no overflow is possible for 64-bit integers). Zero gives +0.
#[inline]
pub(crate) fn from_int<F: Format>(
    negative: bool,
    mag: u64,
    rm: RoundingMode,
    fl: &mut Flags,
) -> u64 {
    if mag == 0 {
        return 0;
    }
    normalize_round_pack::<F>(negative, F::BIAS + 62, mag, rm, fl)
}

/// binary32 → binary64: exact; NaN → canonical NaN (NV if signalling).
#[inline]
pub(crate) fn widen(a: u32, fl: &mut Flags) -> u64 {
    type S = Binary32;
    type D = Binary64;
    let a = u64::from(a);
    let sign = (a & S::SIGN) << 32;
    let m = a & !S::SIGN;
    if m >= S::INF {
        if m > S::INF {
            nv_if_snan::<S>(a, a, fl);
            return D::NAN;
        }
        return sign | D::INF;
    }
    if m == 0 {
        return sign;
    }
    let (e, sig) = S::unpack(m);
    // Always a normal binary64: pack directly (the hidden bit adds one to
    // the exponent field).
    sign | ((((e - S::BIAS + D::BIAS - 1) as u64) << D::FRAC) + (sig >> (62 - D::FRAC)))
}

/// binary64 → binary32 rounded per `rm`: OF, UF (after rounding), NX;
/// NaN → canonical NaN (NV if signalling).
#[inline]
pub(crate) fn narrow(a: u64, rm: RoundingMode, fl: &mut Flags) -> u32 {
    type S = Binary32;
    type D = Binary64;
    let sign = a & D::SIGN != 0;
    let s = if sign { S::SIGN } else { 0 };
    let m = a & !D::SIGN;
    if m >= D::INF {
        if m > D::INF {
            nan_result::<D>(a, a, fl);
            return S::NAN as u32;
        }
        return (s | S::INF) as u32;
    }
    if m == 0 {
        return s as u32;
    }
    let (e, sig) = D::unpack(m);
    round_pack::<S>(sign, e - D::BIAS + S::BIAS, sig, rm, fl) as u32
}
