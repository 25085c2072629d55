//! Correctly rounded add, subtract, multiply, divide and square root
//! (IEEE 754-2019 §5.4.1, Unprivileged ISA 20191213 §11.6) on bit patterns
//! of any [`Format`], with RISC-V's special-value rules: every NaN result
//! is the canonical NaN, NV for signalling NaN operands and for the
//! invalid operations of IEEE 754-2019 §7.2, DZ for finite nonzero / 0.
//!
//! Each operation computes an intermediate significand that is exact or
//! carries a sticky bit below at least two extra bits, then calls
//! [`round_pack`] once.

use crate::format::{nv_if_snan, Format};
use crate::round::{normalize_round_pack, round_pack, shift_right_jam};
use crate::{Flags, RoundingMode};

/// The canonical NaN with NV raised (an invalid operation, §7.2).
#[inline(always)]
pub(crate) fn invalid<F: Format>(fl: &mut Flags) -> u64 {
    fl.0 |= Flags::NV;
    F::NAN
}

/// The canonical NaN, NV only if `a` or `b` is signalling.
#[inline(always)]
pub(crate) fn nan_result<F: Format>(a: u64, b: u64, fl: &mut Flags) -> u64 {
    nv_if_snan::<F>(a, b, fl);
    F::NAN
}

/// The sign of an exact zero sum of operands of opposite signs (§6.3):
/// +0, except -0 when rounding down.
#[inline(always)]
pub(crate) fn exact_zero<F: Format>(rm: RoundingMode) -> u64 {
    if rm == RoundingMode::Rdn {
        F::SIGN
    } else {
        0
    }
}

/// `a + b` (`fadd`); `fsub` is `add(a, b ^ SIGN)`. NV for inf − inf.
#[inline]
pub(crate) fn add<F: Format>(a: u64, b: u64, rm: RoundingMode, fl: &mut Flags) -> u64 {
    let (ma, mb) = (a & !F::SIGN, b & !F::SIGN);
    if ma >= F::INF || mb >= F::INF {
        if ma > F::INF || mb > F::INF {
            return nan_result::<F>(a, b, fl);
        }
        if ma == mb && a != b {
            return invalid::<F>(fl); // inf - inf
        }
        return if ma == F::INF { a } else { b };
    }
    if ma == 0 || mb == 0 {
        if ma == mb {
            return if a == b { a } else { exact_zero::<F>(rm) };
        }
        return if ma == 0 { b } else { a };
    }
    // x is the operand of larger magnitude; it gives the sign.
    let (x, mx, my) = if ma >= mb { (a, ma, mb) } else { (b, mb, ma) };
    let sign = x & F::SIGN != 0;
    let (ex, sx) = F::unpack(mx);
    let (ey, sy) = F::unpack(my);
    // Both at bit 61 (exact: the low bits of an unpacked significand are
    // zero), so a carry fits; y aligned to x with a sticky bit.
    let sx = sx >> 1;
    let sy = shift_right_jam(sy >> 1, (ex - ey) as u32);
    let sum = if (a ^ b) & F::SIGN == 0 {
        sx + sy
    } else {
        let d = sx - sy;
        if d == 0 {
            return exact_zero::<F>(rm);
        }
        d
    };
    normalize_round_pack::<F>(sign, ex + 1, sum, rm, fl)
}

/// `a × b` (`fmul`). NV for 0 × inf.
#[inline]
pub(crate) fn mul<F: Format>(a: u64, b: u64, rm: RoundingMode, fl: &mut Flags) -> u64 {
    let sign = (a ^ b) & F::SIGN != 0;
    let s = if sign { F::SIGN } else { 0 };
    let (ma, mb) = (a & !F::SIGN, b & !F::SIGN);
    if ma >= F::INF || mb >= F::INF {
        if ma > F::INF || mb > F::INF {
            return nan_result::<F>(a, b, fl);
        }
        if ma == 0 || mb == 0 {
            return invalid::<F>(fl); // 0 * inf
        }
        return s | F::INF;
    }
    if ma == 0 || mb == 0 {
        return s;
    }
    let (ea, sa) = F::unpack(ma);
    let (eb, sb) = F::unpack(mb);
    // sa × sb lies in [2^124, 2^126); its top bits with a sticky bit, as a
    // value of the form sig × 2^(exp − BIAS − 62).
    let sig = if 2 * F::FRAC + 2 <= 64 {
        // Narrow formats: the exact product fits in 64 bits.
        let p = (sa >> (62 - F::FRAC)) * (sb >> (62 - F::FRAC));
        p << (62 - 2 * F::FRAC)
    } else {
        let p = u128::from(sa) * u128::from(sb);
        ((p >> 62) as u64) | u64::from(p as u64 & ((1 << 62) - 1) != 0)
    };
    normalize_round_pack::<F>(sign, ea + eb - F::BIAS, sig, rm, fl)
}

/// `a / b` (`fdiv`). NV for 0/0 and inf/inf; DZ for finite nonzero / 0.
#[inline]
pub(crate) fn div<F: Format>(a: u64, b: u64, rm: RoundingMode, fl: &mut Flags) -> u64 {
    let sign = (a ^ b) & F::SIGN != 0;
    let s = if sign { F::SIGN } else { 0 };
    let (ma, mb) = (a & !F::SIGN, b & !F::SIGN);
    if ma >= F::INF || mb >= F::INF {
        if ma > F::INF || mb > F::INF {
            return nan_result::<F>(a, b, fl);
        }
        if ma == mb {
            return invalid::<F>(fl); // inf / inf
        }
        return if ma == F::INF { s | F::INF } else { s };
    }
    if mb == 0 {
        if ma == 0 {
            return invalid::<F>(fl); // 0 / 0
        }
        fl.0 |= Flags::DZ;
        return s | F::INF;
    }
    if ma == 0 {
        return s;
    }
    let (ea, sa) = F::unpack(ma);
    let (eb, sb) = F::unpack(mb);
    // q = sa × 2^k / sb in [2^62, 2^63), k = 62 or 63; sticky from the remainder.
    let k = 62 + u32::from(sa < sb);
    let q = if F::FRAC + 3 <= 32 {
        // Narrow formats: 32-bit significands divide in 64 bits and give a
        // quotient of 31 or 32 bits, enough for FRAC + 1 plus two round bits.
        let (na, nb) = (sa >> 31, sb >> 31);
        let n = na << (k - 31);
        let q = n / nb;
        (q << 31) | u64::from(n % nb != 0)
    } else {
        let n = u128::from(sa) << k;
        let d = u128::from(sb);
        let q = n / d;
        (q as u64) | u64::from(n % d != 0)
    };
    round_pack::<F>(sign, ea - eb + F::BIAS + 62 - k as i32, q, rm, fl)
}

/// `sqrt(a)` (`fsqrt`). `sqrt(-0) = -0`; NV for anything below zero.
#[inline]
pub(crate) fn sqrt<F: Format>(a: u64, rm: RoundingMode, fl: &mut Flags) -> u64 {
    let ma = a & !F::SIGN;
    if ma > F::INF {
        return nan_result::<F>(a, a, fl);
    }
    if ma == 0 {
        return a;
    }
    if a & F::SIGN != 0 {
        return invalid::<F>(fl);
    }
    if ma == F::INF {
        return a;
    }
    let (ea, sa) = F::unpack(ma);
    // a = t × 2^(e − FRAC) with t an integer of FRAC + 1 or FRAC + 2 bits
    // and e even, so sqrt(a) = sqrt(t × 2^(FRAC + 2)) × 2^(e/2 − FRAC − 1).
    let mut e = ea - F::BIAS;
    let mut t = sa >> (62 - F::FRAC);
    if e & 1 != 0 {
        t <<= 1;
        e -= 1;
    }
    // r = floor(sqrt(n)) has FRAC + 2 bits: the result's FRAC + 1 and a
    // round bit; the remainder n − r² gives the sticky bit.
    let n = u128::from(t) << (F::FRAC + 2);
    let guess = (t as f64 * (1u64 << (F::FRAC + 2)) as f64).sqrt() as u64;
    let (r, exact) = isqrt(n, guess);
    let sig = (r << (61 - F::FRAC)) | u64::from(!exact);
    round_pack::<F>(false, F::BIAS + e / 2, sig, rm, fl)
}

/// `(floor(sqrt(n)), floor(sqrt(n))² == n)` for `n < 2^108`, from a
/// `guess` within a few units.
///
/// The guess is a binary64 square root of `n` (`t` and the power of two
/// convert exactly; the one rounding of `sqrt` leaves it within a few
/// units of the 54-bit root). Exact integer steps then fix it, so the
/// host's floating point only affects speed, never the answer.
#[inline(always)]
fn isqrt(n: u128, guess: u64) -> (u64, bool) {
    let sq = |r: u64| u128::from(r) * u128::from(r);
    let mut r = guess;
    while sq(r) > n {
        r -= 1;
    }
    while sq(r + 1) <= n {
        r += 1;
    }
    (r, sq(r) == n)
}
