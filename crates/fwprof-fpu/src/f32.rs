//! binary32 operations (the F extension, Unprivileged ISA 20191213 ch. 11) on
//! raw bit patterns: bit 31 sign, bits 30..23 biased exponent (bias 127),
//! bits 22..0 fraction. NaN-boxing in 64-bit registers is the caller's job.
//!
//! Every function ORs the flags it raises into `fl` (never clears any) and
//! returns the canonical NaN `0x7fc00000` whenever the result is a NaN.

use crate::convert::{self, Int};
use crate::format::{self, Binary32, Format};
use crate::{arith, fma, Flags, RoundingMode};

const SIGN: u32 = Binary32::SIGN as u32;

/// `fadd.s`: `a + b` rounded per `rm` (§11.6). Raises NV (inf - inf, sNaN),
/// OF, UF, NX.
#[inline]
pub fn add(a: u32, b: u32, rm: RoundingMode, fl: &mut Flags) -> u32 {
    arith::add::<Binary32>(a.into(), b.into(), rm, fl) as u32
}

/// `fsub.s`: `a - b` rounded per `rm` (§11.6). Raises NV (inf - inf, sNaN),
/// OF, UF, NX.
#[inline]
pub fn sub(a: u32, b: u32, rm: RoundingMode, fl: &mut Flags) -> u32 {
    arith::add::<Binary32>(a.into(), (b ^ SIGN).into(), rm, fl) as u32
}

/// `fmul.s`: `a * b` rounded per `rm` (§11.6). Raises NV (0 * inf, sNaN),
/// OF, UF, NX.
#[inline]
pub fn mul(a: u32, b: u32, rm: RoundingMode, fl: &mut Flags) -> u32 {
    arith::mul::<Binary32>(a.into(), b.into(), rm, fl) as u32
}

/// `fdiv.s`: `a / b` rounded per `rm` (§11.6). Raises NV (0/0, inf/inf,
/// sNaN), DZ (finite nonzero / 0, result ±inf), OF, UF, NX.
#[inline]
pub fn div(a: u32, b: u32, rm: RoundingMode, fl: &mut Flags) -> u32 {
    arith::div::<Binary32>(a.into(), b.into(), rm, fl) as u32
}

/// `fsqrt.s`: square root rounded per `rm` (§11.6). `sqrt(-0) = -0`; NV for
/// any operand below zero (including -inf) and for sNaN; NX when inexact.
#[inline]
pub fn sqrt(a: u32, rm: RoundingMode, fl: &mut Flags) -> u32 {
    arith::sqrt::<Binary32>(a.into(), rm, fl) as u32
}

/// `fmadd.s`: `a * b + c` with a single rounding per `rm` (§11.6). The
/// executor builds `fmsub.s`/`fnmsub.s`/`fnmadd.s` by flipping sign bits of
/// `b`/`c` or of the product operand. NV for `0 * inf` even when `c` is a
/// quiet NaN, for `inf - inf` after the product, and for any sNaN.
#[inline]
pub fn fma(a: u32, b: u32, c: u32, rm: RoundingMode, fl: &mut Flags) -> u32 {
    fma::fma::<Binary32>(a.into(), b.into(), c.into(), rm, fl) as u32
}

/// `fmin.s`: IEEE 754-2019 minimumNumber (§11.6): a NaN operand yields the
/// other operand, two NaNs the canonical NaN, `-0 < +0`; NV if either is
/// an sNaN.
#[inline]
pub fn min(a: u32, b: u32, fl: &mut Flags) -> u32 {
    format::min_max::<Binary32>(a.into(), b.into(), false, fl) as u32
}

/// `fmax.s`: IEEE 754-2019 maximumNumber (§11.6): a NaN operand yields the
/// other operand, two NaNs the canonical NaN, `-0 < +0`; NV if either is
/// an sNaN.
#[inline]
pub fn max(a: u32, b: u32, fl: &mut Flags) -> u32 {
    format::min_max::<Binary32>(a.into(), b.into(), true, fl) as u32
}

/// `feq.s`: quiet equality (§11.8); `false` with any NaN, NV only for sNaN;
/// `-0 == +0`.
#[inline]
pub fn eq(a: u32, b: u32, fl: &mut Flags) -> bool {
    format::eq::<Binary32>(a.into(), b.into(), fl)
}

/// `flt.s`: signalling less-than (§11.8); `false` and NV with any NaN.
#[inline]
pub fn lt(a: u32, b: u32, fl: &mut Flags) -> bool {
    format::less::<Binary32>(a.into(), b.into(), false, fl)
}

/// `fle.s`: signalling less-or-equal (§11.8); `false` and NV with any NaN.
#[inline]
pub fn le(a: u32, b: u32, fl: &mut Flags) -> bool {
    format::less::<Binary32>(a.into(), b.into(), true, fl)
}

/// `fclass.s`: a 10-bit mask with exactly one bit set (§11.9, Table 11.5):
/// bit 0 -inf, 1 negative normal, 2 negative subnormal, 3 -0, 4 +0,
/// 5 positive subnormal, 6 positive normal, 7 +inf, 8 sNaN, 9 qNaN.
#[inline]
pub fn classify(a: u32) -> u64 {
    format::classify::<Binary32>(a.into())
}

/// `fcvt.w.s`: to `i32` rounded per `rm`, saturating per §11.7 Table 11.4:
/// NaN and values above `i32::MAX` give `i32::MAX`, values below `i32::MIN`
/// give `i32::MIN`, with NV (and no NX); otherwise NX when inexact. Also
/// serves RV64, where the executor sign-extends the result.
#[inline]
pub fn to_i32(a: u32, rm: RoundingMode, fl: &mut Flags) -> i32 {
    convert::to_int::<Binary32>(a.into(), Int::I32, rm, fl) as i32
}

/// `fcvt.s.w`: from `i32`, rounded per `rm` (NX when inexact).
#[inline]
pub fn from_i32(v: i32, rm: RoundingMode, fl: &mut Flags) -> u32 {
    convert::from_int::<Binary32>(v < 0, u64::from(v.unsigned_abs()), rm, fl) as u32
}

/// `fcvt.wu.s`: to `u32` rounded per `rm`, saturating per §11.7 Table 11.4:
/// NaN and values above `u32::MAX` give `u32::MAX`; values that round to a
/// negative integer give 0, with NV (and no NX). A negative value that
/// rounds to 0 (e.g. -0.3 with RTZ) gives 0 with NX only.
#[inline]
pub fn to_u32(a: u32, rm: RoundingMode, fl: &mut Flags) -> u32 {
    convert::to_int::<Binary32>(a.into(), Int::U32, rm, fl) as u32
}

/// `fcvt.s.wu`: from `u32`, rounded per `rm` (NX when inexact).
#[inline]
pub fn from_u32(v: u32, rm: RoundingMode, fl: &mut Flags) -> u32 {
    convert::from_int::<Binary32>(false, u64::from(v), rm, fl) as u32
}

/// `fcvt.l.s`: to `i64` rounded per `rm`, saturating per §11.7 Table 11.4
/// (NaN and too large → `i64::MAX`, too negative → `i64::MIN`, with NV and
/// no NX); otherwise NX when inexact.
#[inline]
pub fn to_i64(a: u32, rm: RoundingMode, fl: &mut Flags) -> i64 {
    convert::to_int::<Binary32>(a.into(), Int::I64, rm, fl) as i64
}

/// `fcvt.s.l`: from `i64`, rounded per `rm` (NX when inexact).
#[inline]
pub fn from_i64(v: i64, rm: RoundingMode, fl: &mut Flags) -> u32 {
    convert::from_int::<Binary32>(v < 0, v.unsigned_abs(), rm, fl) as u32
}

/// `fcvt.lu.s`: to `u64` rounded per `rm`, saturating per §11.7 Table 11.4
/// (NaN and too large → `u64::MAX`; rounding to a negative integer → 0,
/// with NV and no NX); otherwise NX when inexact.
#[inline]
pub fn to_u64(a: u32, rm: RoundingMode, fl: &mut Flags) -> u64 {
    convert::to_int::<Binary32>(a.into(), Int::U64, rm, fl)
}

/// `fcvt.s.lu`: from `u64`, rounded per `rm` (NX when inexact).
#[inline]
pub fn from_u64(v: u64, rm: RoundingMode, fl: &mut Flags) -> u32 {
    convert::from_int::<Binary32>(false, v, rm, fl) as u32
}
