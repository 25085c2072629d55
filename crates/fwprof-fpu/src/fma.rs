//! Fused multiply-add `a × b + c` with one rounding (IEEE 754-2019 §5.4.1
//! fusedMultiplyAdd, Unprivileged ISA 20191213 §11.6 `fmadd`), on bit
//! patterns of any [`Format`]: the exact product and the addend are added
//! in 128-bit fixed point (64-bit for binary32), then rounded once.

use crate::arith::{exact_zero, invalid};
use crate::format::Format;
use crate::round::{normalize_round_pack, round_pack128, shift_right_jam, shift_right_jam128};
use crate::{Flags, RoundingMode};

/// `a × b + c` rounded once per `rm`.
///
/// NaN results are canonical. NV is raised for any signalling NaN operand,
/// for `0 × inf` whatever `c` is (RISC-V requires it even when `c` is a
/// quiet NaN, §11.6), and for `inf − inf` between the product and `c`.
/// An exact zero result is -0 only when both terms are -0, or when rounding
/// down and the terms cancel (IEEE 754-2019 §6.3).
#[inline]
pub(crate) fn fma<F: Format>(a: u64, b: u64, c: u64, rm: RoundingMode, fl: &mut Flags) -> u64 {
    let sp = (a ^ b) & F::SIGN; // sign of the product
    let (ma, mb, mc) = (a & !F::SIGN, b & !F::SIGN, c & !F::SIGN);
    if ma >= F::INF || mb >= F::INF || mc >= F::INF {
        return special::<F>(a, b, c, fl);
    }
    if ma == 0 || mb == 0 {
        // The product is an exact ±0: the sum is c, or a signed zero.
        if mc == 0 {
            return if sp == c & F::SIGN {
                c
            } else {
                exact_zero::<F>(rm)
            };
        }
        return c;
    }
    let (ea, sa) = F::unpack(ma);
    let (eb, sb) = F::unpack(mb);
    if 2 * F::FRAC + 2 <= 48 {
        return fma_narrow::<F>(sp != 0, ea + eb - F::BIAS, sa, sb, c, rm, fl);
    }
    // The exact product in [2^124, 2^126), worth p × 2^(ep − BIAS − 124).
    let p = u128::from(sa) * u128::from(sb);
    let ep = ea + eb - F::BIAS;
    if mc == 0 {
        return round_pack128::<F>(sp != 0, ep, p, rm, fl);
    }
    let (ec, sc) = F::unpack(mc);
    // The addend on the same scale, in [2^124, 2^125).
    let q = u128::from(sc) << 62;
    // Align the smaller exponent to the larger. A shift that drops bits is
    // by more than a few places, so at most two leading bits can cancel
    // and the sticky bit stays far below the rounding position.
    let (exp, p, q) = if ep >= ec {
        (ep, p, shift_right_jam128(q, (ep - ec) as u32))
    } else {
        (ec, shift_right_jam128(p, (ec - ep) as u32), q)
    };
    if sp == c & F::SIGN {
        return round_pack128::<F>(sp != 0, exp, p + q, rm, fl);
    }
    if p == q {
        return exact_zero::<F>(rm);
    }
    let (sign, diff) = if p > q {
        (sp != 0, p - q)
    } else {
        (sp == 0, q - p)
    };
    round_pack128::<F>(sign, exp, diff, rm, fl)
}

/// [`fma`] of finite operands, the product nonzero, for formats whose
/// exact product fits in 48 bits (binary32): the same sum in 64-bit fixed
/// point, worth `x × 2^(exp − BIAS − 60)`. The product (48 bits, ending at
/// bit 14) and the addend (ending at bit 37) shift exactly by a few places;
/// a longer shift leaves at least 2^59, so the sticky bit stays far below
/// the rounding position, as in the 128-bit path.
#[inline(always)]
fn fma_narrow<F: Format>(
    sign_p: bool,
    ep: i32,
    sa: u64,
    sb: u64,
    c: u64,
    rm: RoundingMode,
    fl: &mut Flags,
) -> u64 {
    let p = ((sa >> (62 - F::FRAC)) * (sb >> (62 - F::FRAC))) << (60 - 2 * F::FRAC);
    let mc = c & !F::SIGN;
    if mc == 0 {
        return normalize_round_pack::<F>(sign_p, ep + 2, p, rm, fl);
    }
    let (ec, sc) = F::unpack(mc);
    let q = sc >> 2;
    let (exp, p, q) = if ep >= ec {
        (ep, p, shift_right_jam(q, (ep - ec) as u32))
    } else {
        (ec, shift_right_jam(p, (ec - ep) as u32), q)
    };
    let sign_c = c & F::SIGN != 0;
    if sign_p == sign_c {
        return normalize_round_pack::<F>(sign_p, exp + 2, p + q, rm, fl);
    }
    if p == q {
        return exact_zero::<F>(rm);
    }
    let (sign, diff) = if p > q {
        (sign_p, p - q)
    } else {
        (!sign_p, q - p)
    };
    normalize_round_pack::<F>(sign, exp + 2, diff, rm, fl)
}

/// Some operand is infinite or NaN (RISC-V's rules, as SoftFloat's RISCV
/// specialisation applies them).
#[cold]
fn special<F: Format>(a: u64, b: u64, c: u64, fl: &mut Flags) -> u64 {
    let (ma, mb, mc) = (a & !F::SIGN, b & !F::SIGN, c & !F::SIGN);
    if ma > F::INF || mb > F::INF {
        if F::is_snan(a) || F::is_snan(b) || F::is_snan(c) {
            fl.0 |= Flags::NV;
        }
        return F::NAN;
    }
    let product_inf = ma == F::INF || mb == F::INF;
    if product_inf && (ma == 0 || mb == 0) {
        return invalid::<F>(fl); // 0 × inf, even with a quiet NaN addend
    }
    if mc > F::INF {
        if F::is_snan(c) {
            fl.0 |= Flags::NV;
        }
        return F::NAN;
    }
    let sp = (a ^ b) & F::SIGN;
    if product_inf {
        if mc == F::INF && c & F::SIGN != sp {
            return invalid::<F>(fl); // inf − inf
        }
        return sp | F::INF;
    }
    c // c is infinite, the product finite
}
