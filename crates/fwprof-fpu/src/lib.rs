//! IEEE 754 arithmetic with RISC-V F and D semantics, on raw bit patterns.
//!
//! Every function takes operands as bits (`u32` for binary32, `u64` for
//! binary64), a [`RoundingMode`] already resolved by the caller (the `dyn`
//! mode replaced by `frm`), and accumulates exception flags into [`Flags`]
//! (the `fflags` bits of Unprivileged ISA 20191213, §11.2). NaN results are
//! the canonical NaN (§11.3): `0x7fc00000` / `0x7ff8000000000000`.
//! NaN-boxing is the caller's business.
//!
//! ```
//! use fwprof_fpu::{f32, Flags, RoundingMode};
//! let mut fl = Flags::default();
//! // 1.0 + 2^-24 is a tie between 1.0 and 1.0 + 2^-23: RNE picks the even 1.0,
//! // RUP the larger; both are inexact.
//! assert_eq!(f32::add(0x3f80_0000, 0x3380_0000, RoundingMode::Rne, &mut fl), 0x3f80_0000);
//! assert_eq!(f32::add(0x3f80_0000, 0x3380_0000, RoundingMode::Rup, &mut fl), 0x3f80_0001);
//! assert_eq!(fl, Flags(Flags::NX));
//! // 0/0 is invalid and gives the canonical NaN.
//! assert_eq!(f32::div(0, 0, RoundingMode::Rne, &mut fl), 0x7fc0_0000);
//! assert_eq!(fl.0, Flags::NV | Flags::NX);
//! ```
//!
//! # Implementation: fwprof's own, in Rust
//!
//! Floating point is part of the simulator's exactness, which fwprof
//! exists for, so the F and D operations are written here, to IEEE
//! 754-2019 and the RISC-V rules (Unprivileged ISA 20191213 ch. 11-12),
//! and checked against Berkeley SoftFloat 3e's RISCV specialization (what
//! the RISC-V architecture tests' reference values come from; see
//! Testing). Until then this crate wrapped a copy of SoftFloat's C; the
//! alternatives were weighed then and again: `softfloat-sys` builds the
//! same C only on x86_64 Linux and keeps the rounding mode and flags in
//! thread-local globals; `rustc_apfloat` has no square root and no RISC-V
//! NaN or conversion rules; `simple-soft-float` allocates big integers per
//! operation, too slow for a simulator's inner loop.
//!
//! One generic body per operation serves both widths: a `Format` trait
//! gives the field widths as associated constants, bit patterns travel as
//! `u64`, and each operation builds an intermediate significand (64-bit, or
//! 128-bit for binary64 products, quotients and fused multiply-adds) that
//! is exact or carries a sticky bit, then ends in the one rounding routine:
//!
//! * rounding modes RNE, RTZ, RDN, RUP, RMM (§11.2 Table 11.1);
//! * tininess detected after rounding, UF only when tiny and inexact;
//!   overflow to ±inf or the largest finite value per mode, with OF and NX;
//! * every NaN result the canonical NaN (§11.3); NV for signalling NaN
//!   operands, inf − inf, 0 × inf, 0/0, inf/inf, the square root of a
//!   number below zero, and `fma(inf, 0, qNaN)`; DZ for finite nonzero / 0;
//! * conversions to integer saturating per §11.7 Table 11.4 (NaN gives the
//!   largest value; out of range gives NV, not NX);
//! * `feq` quiet (NV only for sNaN), `flt`/`fle` signalling (NV for any NaN);
//!   `fmin`/`fmax` are IEEE 754-2019 minimumNumber/maximumNumber.
//!
//! Square root takes a first guess from the host's binary64 square root
//! and corrects it with exact integer arithmetic, so the result never
//! depends on the host. Nothing allocates and there is no global state:
//! every function is a pure function of its arguments, safe from any
//! thread.
//!
//! # Testing
//!
//! * `tests/oracle.rs` runs 1,048,576 generated cases for each of the 36
//!   rounding operations (add, sub, mul, div, sqrt, fma, eq, lt, le, four
//!   conversions to and four from integer per width, binary32 ↔ binary64),
//!   a random rounding mode per case, operands biased to special values,
//!   the overflow and underflow thresholds, cancellation, ties and integer
//!   boundaries, and requires the digests of result bits and `fflags` that
//!   Berkeley SoftFloat 3e (RISCV) gave on the same cases
//!   (`tests/golden/softfloat3e.digests`, recorded before SoftFloat left
//!   the tree; the two were also compared case by case then).
//! * `tests/qemu.rs` builds `tests/qemu/fpcheck.c` with
//!   `riscv64-linux-gnu-gcc -static -O1`, runs it under `qemu-riscv64`
//!   (QEMU 7.2) on about 250,000 generated cases covering all 48 F/D
//!   computational mnemonics in all five rounding modes, and requires
//!   identical result bits and `fflags`. `fmsub`/`fnmsub`/`fnmadd` are
//!   checked as [`f32::fma`]/[`f64::fma`] with sign-flipped operands.
//! * `tests/host_rne.rs` compares add/sub/mul/div/sqrt/fma with the x86-64
//!   host on 1,000,000+ cases per operation and width in RNE (results also
//!   against Rust's own operators and `mul_add`) and 100,000 per operation
//!   in RTZ/RDN/RUP, flags read from MXCSR. SSE detects tininess after
//!   rounding too, so UF is compared exactly; binary32 add/sub/mul UF is
//!   also recomputed independently from the exact result.
//! * `tests/directed.rs` (arithmetic) and `tests/conversions.rs` (the
//!   saturation table of every conversion to integer, int → float,
//!   binary32 ↔ binary64) hold hand-worked cases for every rounding mode.
#![deny(missing_docs)]

mod arith;
mod convert;
pub mod f32;
pub mod f64;
mod fma;
mod format;
mod round;

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
    /// All five modes in `frm` order.
    pub const ALL: [RoundingMode; 5] = [
        RoundingMode::Rne,
        RoundingMode::Rtz,
        RoundingMode::Rdn,
        RoundingMode::Rup,
        RoundingMode::Rmm,
    ];

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

/// binary32 → binary64 (`fcvt.d.s`, §12.5): always exact; a NaN operand
/// gives the canonical NaN `0x7ff8000000000000`, with NV if it was an sNaN.
#[inline]
pub fn f32_to_f64(a: u32, fl: &mut Flags) -> u64 {
    convert::widen(a, fl)
}

/// binary64 → binary32 (`fcvt.s.d`, §12.5), rounded per `rm`: OF, UF
/// (after rounding), NX; a NaN operand gives `0x7fc00000`, NV if sNaN.
#[inline]
pub fn f64_to_f32(a: u64, rm: RoundingMode, fl: &mut Flags) -> u32 {
    convert::narrow(a, rm, fl)
}
