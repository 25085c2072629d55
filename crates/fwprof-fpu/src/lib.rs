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
//! # Implementation: Berkeley SoftFloat 3e, RISCV specialization
//!
//! The rounding operations (add, sub, mul, div, sqrt, fused multiply-add,
//! comparisons, every conversion) are John Hauser's Berkeley SoftFloat
//! Release 3e, vendored under `softfloat/` (BSD-3-Clause, see
//! `softfloat/COPYING.txt`) and compiled by `build.rs` with its `RISCV`
//! specialization. That specialization was written for RISC-V and is what
//! the RISC-V architecture tests' reference values come from: tininess is
//! detected after rounding, UF is raised only when the tiny result is also
//! inexact, every NaN result is the canonical NaN, `fma(inf, 0, qNaN)`
//! raises NV, and the int conversions saturate exactly as §11.7 Table 11.4.
//! Only `fmin`/`fmax` (IEEE 754-2019 minimumNumber/maximumNumber, which
//! SoftFloat lacks) and `fclass` are written here, in Rust.
//!
//! Why not a crate: `softfloat-sys`/`softfloat-wrapper` wrap the same
//! library and have a `riscv` feature, but their build needs CMake (through
//! the `c99` crate), which the project's machines do not have; vendoring the
//! 84 needed SoftFloat files and building them with `cc` keeps the same code
//! and drops that requirement. `rustc_apfloat` (LLVM's APFloat) detects
//! underflow on the final subnormal result rather than after rounding to
//! unbounded exponent and knows nothing of RISC-V's NaN and conversion
//! rules; `simple-soft-float` allocates big integers per operation, too
//! slow for a simulator's inner loop. A home-grown soft float would be the
//! least certainly correct of all.
//!
//! SoftFloat keeps its rounding mode and flags in `_Thread_local` globals;
//! each entry point here sets the mode, clears the flags, runs one
//! operation and ORs the flags into the caller's [`Flags`], so the
//! functions behave as pure functions and are safe from any thread.
//!
//! Building needs a C compiler with C11 `_Thread_local` (GCC or Clang;
//! the `cc` crate finds it the way it does for any `-sys` crate). Nothing
//! else: no CMake, no system SoftFloat.
//!
//! # Testing
//!
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
#[doc(hidden)]
pub mod reference;
mod round;
mod softfloat;

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
