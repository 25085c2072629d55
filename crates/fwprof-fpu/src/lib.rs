//! IEEE 754 arithmetic with RISC-V F and D semantics, on raw bit patterns.
//!
//! Every function takes operands as bits (`u32` for binary32, `u64` for
//! binary64), a [`RoundingMode`] already resolved by the caller (the `dyn`
//! mode replaced by `frm`), and accumulates exception flags into [`Flags`]
//! (the `fflags` bits of Unprivileged ISA 20191213, §11.2). NaN results are
//! the canonical NaN (§11.3): `0x7fc00000` / `0x7ff8000000000000`.
//! NaN-boxing is the caller's business.
#![deny(missing_docs)]

/// Rounding modes (Unprivileged ISA §11.2, Table 11.1), encoded as in `frm`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RoundingMode {
    /// Round to nearest, ties to even (0).
    Rne = 0,
    /// Round towards zero (1).
    Rtz = 1,
    /// Round down, towards -inf (2).
    Rdn = 2,
    /// Round up, towards +inf (3).
    Rup = 3,
    /// Round to nearest, ties to max magnitude (4).
    Rmm = 4,
}

impl RoundingMode {
    /// Decode a 3-bit `rm`/`frm` value; `None` for 5, 6, 7 (7 = dynamic must be resolved first).
    pub fn from_bits(rm: u8) -> Option<RoundingMode> {
        match rm {
            0 => Some(Self::Rne),
            1 => Some(Self::Rtz),
            2 => Some(Self::Rdn),
            3 => Some(Self::Rup),
            4 => Some(Self::Rmm),
            _ => None,
        }
    }
}

/// Accrued exception flags, bit layout of `fflags`: NV=0x10, DZ=0x08, OF=0x04, UF=0x02, NX=0x01.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Flags(pub u8);

impl Flags {
    /// Invalid operation.
    pub const NV: u8 = 0x10;
    /// Divide by zero.
    pub const DZ: u8 = 0x08;
    /// Overflow.
    pub const OF: u8 = 0x04;
    /// Underflow (after rounding, as RISC-V specifies tininess).
    pub const UF: u8 = 0x02;
    /// Inexact.
    pub const NX: u8 = 0x01;
}

/// binary32 → binary64 (`fcvt.d.s`; exact, NV on sNaN).
pub fn f32_to_f64(a: u32, fl: &mut Flags) -> u64 { let _=(a,fl); 0 }
/// binary64 → binary32 (`fcvt.s.d`), rounded per `rm`.
pub fn f64_to_f32(a: u64, rm: RoundingMode, fl: &mut Flags) -> u32 { let _=(a,rm,fl); 0 }

/// binary32 operations on raw bit patterns (`u32`).
pub mod f32 {
    use super::{RoundingMode, Flags};
    /// `fadd`: rounded per `rm`; sets NV/DZ/OF/UF/NX in `fl`; NaN results are canonical.
    pub fn add(a: u32, b: u32, rm: RoundingMode, fl: &mut Flags) -> u32 { let _=(a,b,rm,fl); 0 }
    /// `fsub`: rounded per `rm`; sets NV/DZ/OF/UF/NX in `fl`; NaN results are canonical.
    pub fn sub(a: u32, b: u32, rm: RoundingMode, fl: &mut Flags) -> u32 { let _=(a,b,rm,fl); 0 }
    /// `fmul`: rounded per `rm`; sets NV/DZ/OF/UF/NX in `fl`; NaN results are canonical.
    pub fn mul(a: u32, b: u32, rm: RoundingMode, fl: &mut Flags) -> u32 { let _=(a,b,rm,fl); 0 }
    /// `fdiv`: rounded per `rm`; sets NV/DZ/OF/UF/NX in `fl`; NaN results are canonical.
    pub fn div(a: u32, b: u32, rm: RoundingMode, fl: &mut Flags) -> u32 { let _=(a,b,rm,fl); 0 }
    /// `fsqrt`.
    pub fn sqrt(a: u32, rm: RoundingMode, fl: &mut Flags) -> u32 { let _=(a,rm,fl); 0 }
    /// Fused `a*b+c` with one rounding (`fmadd`; the executor negates operands for fmsub/fnmsub/fnmadd by flipping sign bits).
    pub fn fma(a: u32, b: u32, c: u32, rm: RoundingMode, fl: &mut Flags) -> u32 { let _=(a,b,c,rm,fl); 0 }
    /// `fmin` (IEEE 754-2019 minimumNumber/maximumNumber, -0 < +0; NV on sNaN; both NaN → canonical NaN).
    pub fn min(a: u32, b: u32, fl: &mut Flags) -> u32 { let _=(a,b,fl); 0 }
    /// `fmax` (IEEE 754-2019 minimumNumber/maximumNumber, -0 < +0; NV on sNaN; both NaN → canonical NaN).
    pub fn max(a: u32, b: u32, fl: &mut Flags) -> u32 { let _=(a,b,fl); 0 }
    /// `feq` (quiet: NV only for signalling NaN).
    pub fn eq(a: u32, b: u32, fl: &mut Flags) -> bool { let _=(a,b,fl); false }
    /// `flt` (signalling: NV for any NaN).
    pub fn lt(a: u32, b: u32, fl: &mut Flags) -> bool { let _=(a,b,fl); false }
    /// `fle` (signalling: NV for any NaN).
    pub fn le(a: u32, b: u32, fl: &mut Flags) -> bool { let _=(a,b,fl); false }
    /// `fclass`: the 10-bit class mask (Unprivileged ISA §11.9, Table 11.5).
    pub fn classify(a: u32) -> u64 { let _=a; 0 }
    /// `fcvt.w.*`: to i32, saturating per §11.7 Table 11.4 (NaN → max), NV when out of range, NX when inexact.
    pub fn to_i32(a: u32, rm: RoundingMode, fl: &mut Flags) -> i32 { let _=(a,rm,fl); 0 }
    /// Convert from i32, rounded per `rm`.
    pub fn from_i32(v: i32, rm: RoundingMode, fl: &mut Flags) -> u32 { let _=(v,rm,fl); 0 }
    /// `fcvt.wu.*`: to u32, saturating per §11.7 Table 11.4 (NaN → max), NV when out of range, NX when inexact.
    pub fn to_u32(a: u32, rm: RoundingMode, fl: &mut Flags) -> u32 { let _=(a,rm,fl); 0 }
    /// Convert from u32, rounded per `rm`.
    pub fn from_u32(v: u32, rm: RoundingMode, fl: &mut Flags) -> u32 { let _=(v,rm,fl); 0 }
    /// `fcvt.l.*`: to i64, saturating per §11.7 Table 11.4 (NaN → max), NV when out of range, NX when inexact.
    pub fn to_i64(a: u32, rm: RoundingMode, fl: &mut Flags) -> i64 { let _=(a,rm,fl); 0 }
    /// Convert from i64, rounded per `rm`.
    pub fn from_i64(v: i64, rm: RoundingMode, fl: &mut Flags) -> u32 { let _=(v,rm,fl); 0 }
    /// `fcvt.lu.*`: to u64, saturating per §11.7 Table 11.4 (NaN → max), NV when out of range, NX when inexact.
    pub fn to_u64(a: u32, rm: RoundingMode, fl: &mut Flags) -> u64 { let _=(a,rm,fl); 0 }
    /// Convert from u64, rounded per `rm`.
    pub fn from_u64(v: u64, rm: RoundingMode, fl: &mut Flags) -> u32 { let _=(v,rm,fl); 0 }
}

/// binary64 operations on raw bit patterns (`u64`).
pub mod f64 {
    use super::{RoundingMode, Flags};
    /// `fadd`: rounded per `rm`; sets NV/DZ/OF/UF/NX in `fl`; NaN results are canonical.
    pub fn add(a: u64, b: u64, rm: RoundingMode, fl: &mut Flags) -> u64 { let _=(a,b,rm,fl); 0 }
    /// `fsub`: rounded per `rm`; sets NV/DZ/OF/UF/NX in `fl`; NaN results are canonical.
    pub fn sub(a: u64, b: u64, rm: RoundingMode, fl: &mut Flags) -> u64 { let _=(a,b,rm,fl); 0 }
    /// `fmul`: rounded per `rm`; sets NV/DZ/OF/UF/NX in `fl`; NaN results are canonical.
    pub fn mul(a: u64, b: u64, rm: RoundingMode, fl: &mut Flags) -> u64 { let _=(a,b,rm,fl); 0 }
    /// `fdiv`: rounded per `rm`; sets NV/DZ/OF/UF/NX in `fl`; NaN results are canonical.
    pub fn div(a: u64, b: u64, rm: RoundingMode, fl: &mut Flags) -> u64 { let _=(a,b,rm,fl); 0 }
    /// `fsqrt`.
    pub fn sqrt(a: u64, rm: RoundingMode, fl: &mut Flags) -> u64 { let _=(a,rm,fl); 0 }
    /// Fused `a*b+c` with one rounding (`fmadd`; the executor negates operands for fmsub/fnmsub/fnmadd by flipping sign bits).
    pub fn fma(a: u64, b: u64, c: u64, rm: RoundingMode, fl: &mut Flags) -> u64 { let _=(a,b,c,rm,fl); 0 }
    /// `fmin` (IEEE 754-2019 minimumNumber/maximumNumber, -0 < +0; NV on sNaN; both NaN → canonical NaN).
    pub fn min(a: u64, b: u64, fl: &mut Flags) -> u64 { let _=(a,b,fl); 0 }
    /// `fmax` (IEEE 754-2019 minimumNumber/maximumNumber, -0 < +0; NV on sNaN; both NaN → canonical NaN).
    pub fn max(a: u64, b: u64, fl: &mut Flags) -> u64 { let _=(a,b,fl); 0 }
    /// `feq` (quiet: NV only for signalling NaN).
    pub fn eq(a: u64, b: u64, fl: &mut Flags) -> bool { let _=(a,b,fl); false }
    /// `flt` (signalling: NV for any NaN).
    pub fn lt(a: u64, b: u64, fl: &mut Flags) -> bool { let _=(a,b,fl); false }
    /// `fle` (signalling: NV for any NaN).
    pub fn le(a: u64, b: u64, fl: &mut Flags) -> bool { let _=(a,b,fl); false }
    /// `fclass`: the 10-bit class mask (Unprivileged ISA §11.9, Table 11.5).
    pub fn classify(a: u64) -> u64 { let _=a; 0 }
    /// `fcvt.w.*`: to i32, saturating per §11.7 Table 11.4 (NaN → max), NV when out of range, NX when inexact.
    pub fn to_i32(a: u64, rm: RoundingMode, fl: &mut Flags) -> i32 { let _=(a,rm,fl); 0 }
    /// Convert from i32, rounded per `rm`.
    pub fn from_i32(v: i32, rm: RoundingMode, fl: &mut Flags) -> u64 { let _=(v,rm,fl); 0 }
    /// `fcvt.wu.*`: to u32, saturating per §11.7 Table 11.4 (NaN → max), NV when out of range, NX when inexact.
    pub fn to_u32(a: u64, rm: RoundingMode, fl: &mut Flags) -> u32 { let _=(a,rm,fl); 0 }
    /// Convert from u32, rounded per `rm`.
    pub fn from_u32(v: u32, rm: RoundingMode, fl: &mut Flags) -> u64 { let _=(v,rm,fl); 0 }
    /// `fcvt.l.*`: to i64, saturating per §11.7 Table 11.4 (NaN → max), NV when out of range, NX when inexact.
    pub fn to_i64(a: u64, rm: RoundingMode, fl: &mut Flags) -> i64 { let _=(a,rm,fl); 0 }
    /// Convert from i64, rounded per `rm`.
    pub fn from_i64(v: i64, rm: RoundingMode, fl: &mut Flags) -> u64 { let _=(v,rm,fl); 0 }
    /// `fcvt.lu.*`: to u64, saturating per §11.7 Table 11.4 (NaN → max), NV when out of range, NX when inexact.
    pub fn to_u64(a: u64, rm: RoundingMode, fl: &mut Flags) -> u64 { let _=(a,rm,fl); 0 }
    /// Convert from u64, rounded per `rm`.
    pub fn from_u64(v: u64, rm: RoundingMode, fl: &mut Flags) -> u64 { let _=(v,rm,fl); 0 }
}
