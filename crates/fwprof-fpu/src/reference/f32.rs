//! binary32 operations (the F extension, Unprivileged ISA 20191213 ch. 11) on
//! raw bit patterns: bit 31 sign, bits 30..23 biased exponent (bias 127),
//! bits 22..0 fraction. NaN-boxing in 64-bit registers is the caller's job.
//!
//! Every function ORs the flags it raises into `fl` (never clears any) and
//! returns the canonical NaN `0x7fc00000` whenever the result is a NaN.

use crate::softfloat as sf;
use crate::{Flags, RoundingMode};

/// `fadd.s`: `a + b` rounded per `rm` (§11.6). Raises NV (inf - inf, sNaN),
/// OF, UF, NX.
pub fn add(a: u32, b: u32, rm: RoundingMode, fl: &mut Flags) -> u32 {
    // SAFETY: `fl.0` is a valid, exclusively borrowed byte; see `softfloat`.
    unsafe { sf::fwsf_f32_add(a, b, rm as u8, &mut fl.0) }
}

/// `fsub.s`: `a - b` rounded per `rm` (§11.6). Raises NV (inf - inf, sNaN),
/// OF, UF, NX.
pub fn sub(a: u32, b: u32, rm: RoundingMode, fl: &mut Flags) -> u32 {
    // SAFETY: as in `add`.
    unsafe { sf::fwsf_f32_sub(a, b, rm as u8, &mut fl.0) }
}

/// `fmul.s`: `a * b` rounded per `rm` (§11.6). Raises NV (0 * inf, sNaN),
/// OF, UF, NX.
pub fn mul(a: u32, b: u32, rm: RoundingMode, fl: &mut Flags) -> u32 {
    // SAFETY: as in `add`.
    unsafe { sf::fwsf_f32_mul(a, b, rm as u8, &mut fl.0) }
}

/// `fdiv.s`: `a / b` rounded per `rm` (§11.6). Raises NV (0/0, inf/inf,
/// sNaN), DZ (finite nonzero / 0, result ±inf), OF, UF, NX.
pub fn div(a: u32, b: u32, rm: RoundingMode, fl: &mut Flags) -> u32 {
    // SAFETY: as in `add`.
    unsafe { sf::fwsf_f32_div(a, b, rm as u8, &mut fl.0) }
}

/// `fsqrt.s`: square root rounded per `rm` (§11.6). `sqrt(-0) = -0`; NV for
/// any operand below zero (including -inf) and for sNaN; NX when inexact.
pub fn sqrt(a: u32, rm: RoundingMode, fl: &mut Flags) -> u32 {
    // SAFETY: as in `add`.
    unsafe { sf::fwsf_f32_sqrt(a, rm as u8, &mut fl.0) }
}

/// `fmadd.s`: `a * b + c` with a single rounding per `rm` (§11.6). The
/// executor builds `fmsub.s`/`fnmsub.s`/`fnmadd.s` by flipping sign bits of
/// `b`/`c` or of the product operand. NV for `0 * inf` even when `c` is a
/// quiet NaN, for `inf - inf` after the product, and for any sNaN.
pub fn fma(a: u32, b: u32, c: u32, rm: RoundingMode, fl: &mut Flags) -> u32 {
    // SAFETY: as in `add`.
    unsafe { sf::fwsf_f32_fma(a, b, c, rm as u8, &mut fl.0) }
}

/// `feq.s`: quiet equality (§11.8); `false` with any NaN, NV only for sNaN;
/// `-0 == +0`.
pub fn eq(a: u32, b: u32, fl: &mut Flags) -> bool {
    // SAFETY: as in `add`.
    unsafe { sf::fwsf_f32_eq(a, b, &mut fl.0) != 0 }
}

/// `flt.s`: signalling less-than (§11.8); `false` and NV with any NaN.
pub fn lt(a: u32, b: u32, fl: &mut Flags) -> bool {
    // SAFETY: as in `add`.
    unsafe { sf::fwsf_f32_lt(a, b, &mut fl.0) != 0 }
}

/// `fle.s`: signalling less-or-equal (§11.8); `false` and NV with any NaN.
pub fn le(a: u32, b: u32, fl: &mut Flags) -> bool {
    // SAFETY: as in `add`.
    unsafe { sf::fwsf_f32_le(a, b, &mut fl.0) != 0 }
}

/// `fcvt.w.s`: to `i32` rounded per `rm`, saturating per §11.7 Table 11.4:
/// NaN and values above `i32::MAX` give `i32::MAX`, values below `i32::MIN`
/// give `i32::MIN`, with NV (and no NX); otherwise NX when inexact. Also
/// serves RV64, where the executor sign-extends the result.
pub fn to_i32(a: u32, rm: RoundingMode, fl: &mut Flags) -> i32 {
    // SAFETY: as in `add`.
    unsafe { sf::fwsf_f32_to_i32(a, rm as u8, &mut fl.0) }
}

/// `fcvt.s.w`: from `i32`, rounded per `rm` (NX when inexact).
pub fn from_i32(v: i32, rm: RoundingMode, fl: &mut Flags) -> u32 {
    // SAFETY: as in `add`.
    unsafe { sf::fwsf_f32_from_i32(v, rm as u8, &mut fl.0) }
}

/// `fcvt.wu.s`: to `u32` rounded per `rm`, saturating per §11.7 Table 11.4:
/// NaN and values above `u32::MAX` give `u32::MAX`; values that round to a
/// negative integer give 0, with NV (and no NX). A negative value that
/// rounds to 0 (e.g. -0.3 with RTZ) gives 0 with NX only.
pub fn to_u32(a: u32, rm: RoundingMode, fl: &mut Flags) -> u32 {
    // SAFETY: as in `add`.
    unsafe { sf::fwsf_f32_to_u32(a, rm as u8, &mut fl.0) }
}

/// `fcvt.s.wu`: from `u32`, rounded per `rm` (NX when inexact).
pub fn from_u32(v: u32, rm: RoundingMode, fl: &mut Flags) -> u32 {
    // SAFETY: as in `add`.
    unsafe { sf::fwsf_f32_from_u32(v, rm as u8, &mut fl.0) }
}

/// `fcvt.l.s`: to `i64` rounded per `rm`, saturating per §11.7 Table 11.4
/// (NaN and too large → `i64::MAX`, too negative → `i64::MIN`, with NV and
/// no NX); otherwise NX when inexact.
pub fn to_i64(a: u32, rm: RoundingMode, fl: &mut Flags) -> i64 {
    // SAFETY: as in `add`.
    unsafe { sf::fwsf_f32_to_i64(a, rm as u8, &mut fl.0) }
}

/// `fcvt.s.l`: from `i64`, rounded per `rm` (NX when inexact).
pub fn from_i64(v: i64, rm: RoundingMode, fl: &mut Flags) -> u32 {
    // SAFETY: as in `add`.
    unsafe { sf::fwsf_f32_from_i64(v, rm as u8, &mut fl.0) }
}

/// `fcvt.lu.s`: to `u64` rounded per `rm`, saturating per §11.7 Table 11.4
/// (NaN and too large → `u64::MAX`; rounding to a negative integer → 0,
/// with NV and no NX); otherwise NX when inexact.
pub fn to_u64(a: u32, rm: RoundingMode, fl: &mut Flags) -> u64 {
    // SAFETY: as in `add`.
    unsafe { sf::fwsf_f32_to_u64(a, rm as u8, &mut fl.0) }
}

/// `fcvt.s.lu`: from `u64`, rounded per `rm` (NX when inexact).
pub fn from_u64(v: u64, rm: RoundingMode, fl: &mut Flags) -> u32 {
    // SAFETY: as in `add`.
    unsafe { sf::fwsf_f32_from_u64(v, rm as u8, &mut fl.0) }
}
