//! binary64 operations (the D extension, Unprivileged ISA 20191213 ch. 12,
//! whose operations follow ch. 11) on raw bit patterns: bit 63 sign, bits
//! 62..52 biased exponent (bias 1023), bits 51..0 fraction.
//!
//! Every function ORs the flags it raises into `fl` (never clears any) and
//! returns the canonical NaN `0x7ff8000000000000` whenever the result is a NaN.

use crate::convert::{self, Int};
use crate::format::{self, Binary64, Format};
use crate::{arith, fma, Flags, RoundingMode};

const SIGN: u64 = Binary64::SIGN;

/// `fadd.d`: `a + b` rounded per `rm` (§11.6). Raises NV (inf - inf, sNaN),
/// OF, UF, NX.
#[inline]
pub fn add(a: u64, b: u64, rm: RoundingMode, fl: &mut Flags) -> u64 {
    arith::add::<Binary64>(a, b, rm, fl)
}

/// `fsub.d`: `a - b` rounded per `rm` (§11.6). Raises NV (inf - inf, sNaN),
/// OF, UF, NX.
#[inline]
pub fn sub(a: u64, b: u64, rm: RoundingMode, fl: &mut Flags) -> u64 {
    arith::add::<Binary64>(a, b ^ SIGN, rm, fl)
}

/// `fmul.d`: `a * b` rounded per `rm` (§11.6). Raises NV (0 * inf, sNaN),
/// OF, UF, NX.
#[inline]
pub fn mul(a: u64, b: u64, rm: RoundingMode, fl: &mut Flags) -> u64 {
    arith::mul::<Binary64>(a, b, rm, fl)
}

/// `fdiv.d`: `a / b` rounded per `rm` (§11.6). Raises NV (0/0, inf/inf,
/// sNaN), DZ (finite nonzero / 0, result ±inf), OF, UF, NX.
#[inline]
pub fn div(a: u64, b: u64, rm: RoundingMode, fl: &mut Flags) -> u64 {
    arith::div::<Binary64>(a, b, rm, fl)
}

/// `fsqrt.d`: square root rounded per `rm` (§11.6). `sqrt(-0) = -0`; NV for
/// any operand below zero (including -inf) and for sNaN; NX when inexact.
#[inline]
pub fn sqrt(a: u64, rm: RoundingMode, fl: &mut Flags) -> u64 {
    arith::sqrt::<Binary64>(a, rm, fl)
}

/// `fmadd.d`: `a * b + c` with a single rounding per `rm` (§11.6). The
/// executor builds `fmsub.d`/`fnmsub.d`/`fnmadd.d` by flipping sign bits of
/// `b`/`c` or of the product operand. NV for `0 * inf` even when `c` is a
/// quiet NaN, for `inf - inf` after the product, and for any sNaN.
#[inline]
pub fn fma(a: u64, b: u64, c: u64, rm: RoundingMode, fl: &mut Flags) -> u64 {
    fma::fma::<Binary64>(a, b, c, rm, fl)
}

/// `fmin.d`: IEEE 754-2019 minimumNumber (§11.6): a NaN operand yields the
/// other operand, two NaNs the canonical NaN, `-0 < +0`; NV if either is
/// an sNaN.
#[inline]
pub fn min(a: u64, b: u64, fl: &mut Flags) -> u64 {
    format::min_max::<Binary64>(a, b, false, fl)
}

/// `fmax.d`: IEEE 754-2019 maximumNumber (§11.6): a NaN operand yields the
/// other operand, two NaNs the canonical NaN, `-0 < +0`; NV if either is
/// an sNaN.
#[inline]
pub fn max(a: u64, b: u64, fl: &mut Flags) -> u64 {
    format::min_max::<Binary64>(a, b, true, fl)
}

/// `feq.d`: quiet equality (§11.8); `false` with any NaN, NV only for sNaN;
/// `-0 == +0`.
#[inline]
pub fn eq(a: u64, b: u64, fl: &mut Flags) -> bool {
    format::eq::<Binary64>(a, b, fl)
}

/// `flt.d`: signalling less-than (§11.8); `false` and NV with any NaN.
#[inline]
pub fn lt(a: u64, b: u64, fl: &mut Flags) -> bool {
    format::less::<Binary64>(a, b, false, fl)
}

/// `fle.d`: signalling less-or-equal (§11.8); `false` and NV with any NaN.
#[inline]
pub fn le(a: u64, b: u64, fl: &mut Flags) -> bool {
    format::less::<Binary64>(a, b, true, fl)
}

/// `fclass.d`: a 10-bit mask with exactly one bit set (§11.9, Table 11.5):
/// bit 0 -inf, 1 negative normal, 2 negative subnormal, 3 -0, 4 +0,
/// 5 positive subnormal, 6 positive normal, 7 +inf, 8 sNaN, 9 qNaN.
#[inline]
pub fn classify(a: u64) -> u64 {
    format::classify::<Binary64>(a)
}

/// `fcvt.w.d`: to `i32` rounded per `rm`, saturating per §11.7 Table 11.4:
/// NaN and values above `i32::MAX` give `i32::MAX`, values below `i32::MIN`
/// give `i32::MIN`, with NV (and no NX); otherwise NX when inexact. Also
/// serves RV64, where the executor sign-extends the result.
#[inline]
pub fn to_i32(a: u64, rm: RoundingMode, fl: &mut Flags) -> i32 {
    convert::to_int::<Binary64>(a, Int::I32, rm, fl) as i32
}

/// `fcvt.d.w`: from `i32`; always exact, so `rm` never matters.
#[inline]
pub fn from_i32(v: i32, rm: RoundingMode, fl: &mut Flags) -> u64 {
    convert::from_int::<Binary64>(v < 0, u64::from(v.unsigned_abs()), rm, fl)
}

/// `fcvt.wu.d`: to `u32` rounded per `rm`, saturating per §11.7 Table 11.4:
/// NaN and values above `u32::MAX` give `u32::MAX`; values that round to a
/// negative integer give 0, with NV (and no NX). A negative value that
/// rounds to 0 (e.g. -0.3 with RTZ) gives 0 with NX only.
#[inline]
pub fn to_u32(a: u64, rm: RoundingMode, fl: &mut Flags) -> u32 {
    convert::to_int::<Binary64>(a, Int::U32, rm, fl) as u32
}

/// `fcvt.d.wu`: from `u32`; always exact, so `rm` never matters.
#[inline]
pub fn from_u32(v: u32, rm: RoundingMode, fl: &mut Flags) -> u64 {
    convert::from_int::<Binary64>(false, u64::from(v), rm, fl)
}

/// `fcvt.l.d`: to `i64` rounded per `rm`, saturating per §11.7 Table 11.4
/// (NaN and too large → `i64::MAX`, too negative → `i64::MIN`, with NV and
/// no NX); otherwise NX when inexact.
#[inline]
pub fn to_i64(a: u64, rm: RoundingMode, fl: &mut Flags) -> i64 {
    convert::to_int::<Binary64>(a, Int::I64, rm, fl) as i64
}

/// `fcvt.d.l`: from `i64`, rounded per `rm` (NX when inexact).
#[inline]
pub fn from_i64(v: i64, rm: RoundingMode, fl: &mut Flags) -> u64 {
    convert::from_int::<Binary64>(v < 0, v.unsigned_abs(), rm, fl)
}

/// `fcvt.lu.d`: to `u64` rounded per `rm`, saturating per §11.7 Table 11.4
/// (NaN and too large → `u64::MAX`; rounding to a negative integer → 0,
/// with NV and no NX); otherwise NX when inexact.
#[inline]
pub fn to_u64(a: u64, rm: RoundingMode, fl: &mut Flags) -> u64 {
    convert::to_int::<Binary64>(a, Int::U64, rm, fl)
}

/// `fcvt.d.lu`: from `u64`, rounded per `rm` (NX when inexact).
#[inline]
pub fn from_u64(v: u64, rm: RoundingMode, fl: &mut Flags) -> u64 {
    convert::from_int::<Binary64>(false, v, rm, fl)
}
