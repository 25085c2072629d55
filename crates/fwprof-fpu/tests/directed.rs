//! Hand-worked arithmetic cases, one expectation per rounding mode (in the
//! order RNE, RTZ, RDN, RUP, RMM). The reasoning for each value is in the
//! comment above it. Conversions are in `conversions.rs`.

mod common;

use common::{every, modes};
use fwprof_fpu::{f32 as s, f64 as d, Flags, RoundingMode};

const NV: u8 = Flags::NV;
const DZ: u8 = Flags::DZ;
const OF: u8 = Flags::OF;
const UF: u8 = Flags::UF;
const NX: u8 = Flags::NX;

const QNAN32: u32 = 0x7fc0_0000;
const QNAN64: u64 = 0x7ff8_0000_0000_0000;

#[test]
fn add_ties_and_signed_zero() {
    // 1 + 2^-24 lies exactly halfway between 1 and 1 + 2^-23. RNE keeps the
    // even 1.0; RUP and RMM (ties away) go up.
    modes(
        "1 + 2^-24",
        |rm, f| s::add(0x3f80_0000, 0x3380_0000, rm, f),
        [
            (0x3f80_0000, NX),
            (0x3f80_0000, NX),
            (0x3f80_0000, NX),
            (0x3f80_0001, NX),
            (0x3f80_0001, NX),
        ],
    );
    // The mirror image: RDN and RMM move away from zero.
    modes(
        "-1 - 2^-24",
        |rm, f| s::add(0xbf80_0000, 0xb380_0000, rm, f),
        [
            (0xbf80_0000, NX),
            (0xbf80_0000, NX),
            (0xbf80_0001, NX),
            (0xbf80_0000, NX),
            (0xbf80_0001, NX),
        ],
    );
    // (1 + 2^-23) + 2^-24: halfway between the odd 1+2^-23 and the even
    // 1+2^-22, so RNE rounds up here.
    modes(
        "(1+ulp) + ulp/2",
        |rm, f| s::add(0x3f80_0001, 0x3380_0000, rm, f),
        [
            (0x3f80_0002, NX),
            (0x3f80_0001, NX),
            (0x3f80_0001, NX),
            (0x3f80_0002, NX),
            (0x3f80_0002, NX),
        ],
    );
    // Exact: 1.5 + 1.5 = 3.
    every(
        "1.5 + 1.5",
        |rm, f| s::add(0x3fc0_0000, 0x3fc0_0000, rm, f),
        0x4040_0000,
        0,
    );
    // x - x is +0 except in RDN, where it is -0 (IEEE 754 §6.3).
    modes(
        "1 - 1",
        |rm, f| d::sub(0x3ff0_0000_0000_0000, 0x3ff0_0000_0000_0000, rm, f),
        [(0, 0), (0, 0), (1 << 63, 0), (0, 0), (0, 0)],
    );
    modes(
        "+0 + -0",
        |rm, f| s::add(0, 0x8000_0000, rm, f),
        [(0, 0), (0, 0), (0x8000_0000, 0), (0, 0), (0, 0)],
    );
    every(
        "-0 + -0",
        |rm, f| s::add(0x8000_0000, 0x8000_0000, rm, f),
        0x8000_0000,
        0,
    );
    every(
        "inf - inf",
        |rm, f| s::sub(0x7f80_0000, 0x7f80_0000, rm, f),
        QNAN32,
        NV,
    );
    every(
        "qNaN + 1 (payload dropped)",
        |rm, f| s::add(0x7fc0_1234, 0x3f80_0000, rm, f),
        QNAN32,
        0,
    );
    every(
        "sNaN + 1",
        |rm, f| d::add(0x7ff0_0000_0000_0001, 0x3ff0_0000_0000_0000, rm, f),
        QNAN64,
        NV,
    );
}

#[test]
fn div_and_sqrt() {
    // 1/3 = 1.0101...b x 2^-2: the 23 kept fraction bits are 0x2aaaaa and
    // the rest is 0.1010...b of an ulp, above one half.
    modes(
        "1/3",
        |rm, f| s::div(0x3f80_0000, 0x4040_0000, rm, f),
        [
            (0x3eaa_aaab, NX),
            (0x3eaa_aaaa, NX),
            (0x3eaa_aaaa, NX),
            (0x3eaa_aaab, NX),
            (0x3eaa_aaab, NX),
        ],
    );
    modes(
        "-1/3",
        |rm, f| s::div(0xbf80_0000, 0x4040_0000, rm, f),
        [
            (0xbeaa_aaab, NX),
            (0xbeaa_aaaa, NX),
            (0xbeaa_aaab, NX),
            (0xbeaa_aaaa, NX),
            (0xbeaa_aaab, NX),
        ],
    );
    // Binary64 1/3: fraction 0x5555555555555 and a remainder of 1/3 ulp.
    modes(
        "1/3 (d)",
        |rm, f| d::div(0x3ff0_0000_0000_0000, 0x4008_0000_0000_0000, rm, f),
        [
            (0x3fd5_5555_5555_5555, NX),
            (0x3fd5_5555_5555_5555, NX),
            (0x3fd5_5555_5555_5555, NX),
            (0x3fd5_5555_5555_5556, NX),
            (0x3fd5_5555_5555_5555, NX),
        ],
    );
    every(
        "1/+0",
        |rm, f| s::div(0x3f80_0000, 0, rm, f),
        0x7f80_0000,
        DZ,
    );
    every(
        "1/-0",
        |rm, f| s::div(0x3f80_0000, 0x8000_0000, rm, f),
        0xff80_0000,
        DZ,
    );
    every(
        "inf/0 (no DZ: inf is not finite)",
        |rm, f| s::div(0x7f80_0000, 0, rm, f),
        0x7f80_0000,
        0,
    );
    every("0/0", |rm, f| d::div(0, 0, rm, f), QNAN64, NV);
    every(
        "inf/inf",
        |rm, f| s::div(0x7f80_0000, 0xff80_0000, rm, f),
        QNAN32,
        NV,
    );
    every(
        "qNaN/0 (no DZ)",
        |rm, f| s::div(0x7fc0_0000, 0, rm, f),
        QNAN32,
        0,
    );
    // sqrt(2) = 1.6a09e667f3bcc9...h: the binary32 fraction 0x3504f3 is
    // followed by bits 0011..., below one half.
    modes(
        "sqrt 2",
        |rm, f| s::sqrt(0x4000_0000, rm, f),
        [
            (0x3fb5_04f3, NX),
            (0x3fb5_04f3, NX),
            (0x3fb5_04f3, NX),
            (0x3fb5_04f4, NX),
            (0x3fb5_04f3, NX),
        ],
    );
    // Binary64: ...f3bcc908 -> fraction 0x6a09e667f3bcc, next bits 1001.. > half.
    modes(
        "sqrt 2 (d)",
        |rm, f| d::sqrt(0x4000_0000_0000_0000, rm, f),
        [
            (0x3ff6_a09e_667f_3bcd, NX),
            (0x3ff6_a09e_667f_3bcc, NX),
            (0x3ff6_a09e_667f_3bcc, NX),
            (0x3ff6_a09e_667f_3bcd, NX),
            (0x3ff6_a09e_667f_3bcd, NX),
        ],
    );
    every(
        "sqrt 4",
        |rm, f| s::sqrt(0x4080_0000, rm, f),
        0x4000_0000,
        0,
    );
    every(
        "sqrt -0",
        |rm, f| s::sqrt(0x8000_0000, rm, f),
        0x8000_0000,
        0,
    );
    every(
        "sqrt -1",
        |rm, f| d::sqrt(0xbff0_0000_0000_0000, rm, f),
        QNAN64,
        NV,
    );
    every("sqrt -inf", |rm, f| s::sqrt(0xff80_0000, rm, f), QNAN32, NV);
    every(
        "sqrt +inf",
        |rm, f| s::sqrt(0x7f80_0000, rm, f),
        0x7f80_0000,
        0,
    );
    every("sqrt sNaN", |rm, f| s::sqrt(0x7f80_0001, rm, f), QNAN32, NV);
    every("sqrt -qNaN", |rm, f| s::sqrt(0xffc0_0000, rm, f), QNAN32, 0);
}

#[test]
fn overflow_per_mode() {
    // max * 2: to infinity when the mode rounds away, else to max finite;
    // OF always comes with NX.
    modes(
        "max*2",
        |rm, f| s::mul(0x7f7f_ffff, 0x4000_0000, rm, f),
        [
            (0x7f80_0000, OF | NX),
            (0x7f7f_ffff, OF | NX),
            (0x7f7f_ffff, OF | NX),
            (0x7f80_0000, OF | NX),
            (0x7f80_0000, OF | NX),
        ],
    );
    modes(
        "-max*2",
        |rm, f| s::mul(0xff7f_ffff, 0x4000_0000, rm, f),
        [
            (0xff80_0000, OF | NX),
            (0xff7f_ffff, OF | NX),
            (0xff80_0000, OF | NX),
            (0xff7f_ffff, OF | NX),
            (0xff80_0000, OF | NX),
        ],
    );
    modes(
        "dmax+dmax",
        |rm, f| d::add(0x7fef_ffff_ffff_ffff, 0x7fef_ffff_ffff_ffff, rm, f),
        [
            (0x7ff0_0000_0000_0000, OF | NX),
            (0x7fef_ffff_ffff_ffff, OF | NX),
            (0x7fef_ffff_ffff_ffff, OF | NX),
            (0x7ff0_0000_0000_0000, OF | NX),
            (0x7ff0_0000_0000_0000, OF | NX),
        ],
    );
    // inf * 2 is exact: no OF.
    every(
        "inf*2",
        |rm, f| s::mul(0x7f80_0000, 0x4000_0000, rm, f),
        0x7f80_0000,
        0,
    );
    every("0*inf", |rm, f| s::mul(0, 0xff80_0000, rm, f), QNAN32, NV);
}

#[test]
fn underflow_after_rounding() {
    // min_subnormal * 0.5 = 2^-150: halfway between 0 and 2^-149; tiny and
    // inexact in every mode.
    modes(
        "2^-149 * 0.5",
        |rm, f| s::mul(1, 0x3f00_0000, rm, f),
        [
            (0, UF | NX),
            (0, UF | NX),
            (0, UF | NX),
            (1, UF | NX),
            (1, UF | NX),
        ],
    );
    // Exact subnormal results are tiny but not inexact: no UF.
    every(
        "2 * 2^-149 * 0.5",
        |rm, f| s::mul(2, 0x3f00_0000, rm, f),
        1,
        0,
    );
    every(
        "max_sub * 1",
        |rm, f| s::mul(0x007f_ffff, 0x3f80_0000, rm, f),
        0x007f_ffff,
        0,
    );
    // (2^-126 - 2^-149) * (1 + 2^-23) = 2^-126 (1 - 2^-46). Rounded to 24 bits
    // with unbounded exponent it is 2^-126 in RNE/RUP/RMM: NOT tiny after
    // rounding, so only NX (tiny-before-rounding would also raise UF). In
    // RTZ/RDN it truncates to the largest subnormal: tiny, UF|NX.
    modes(
        "boundary, not tiny after",
        |rm, f| s::mul(0x007f_ffff, 0x3f80_0001, rm, f),
        [
            (0x0080_0000, NX),
            (0x007f_ffff, UF | NX),
            (0x007f_ffff, UF | NX),
            (0x0080_0000, NX),
            (0x0080_0000, NX),
        ],
    );
    // 2^-126 * (1 - 2^-24) = (2^24-1) 2^-150 is exact in 24 bits below
    // 2^-126, so tiny after rounding; on the subnormal grid it is a tie
    // between 0x7fffff (odd) and 0x800000 (even).
    modes(
        "boundary, tiny after",
        |rm, f| s::mul(0x0080_0000, 0x3f7f_ffff, rm, f),
        [
            (0x0080_0000, UF | NX),
            (0x007f_ffff, UF | NX),
            (0x007f_ffff, UF | NX),
            (0x0080_0000, UF | NX),
            (0x0080_0000, UF | NX),
        ],
    );
    // The same boundary in binary64: (2^-1022 - 2^-1074) * (1 + 2^-52).
    modes(
        "d boundary, not tiny after",
        |rm, f| d::mul(0x000f_ffff_ffff_ffff, 0x3ff0_0000_0000_0001, rm, f),
        [
            (0x0010_0000_0000_0000, NX),
            (0x000f_ffff_ffff_ffff, UF | NX),
            (0x000f_ffff_ffff_ffff, UF | NX),
            (0x0010_0000_0000_0000, NX),
            (0x0010_0000_0000_0000, NX),
        ],
    );
}

#[test]
fn fused_multiply_add() {
    // a = 1 + 2^-23: a*a = 1 + 2^-22 + 2^-46, which rounds (RNE) to
    // 1 + 2^-22 = 0x3f800002. fma(a, a, -0x3f800002) recovers the 2^-46
    // exactly (single rounding); separate mul+add would give 0.
    every(
        "fma error term",
        |rm, f| s::fma(0x3f80_0001, 0x3f80_0001, 0xbf80_0002, rm, f),
        0x2880_0000,
        0,
    );
    // fma(a, a, -1) = 2^-22 + 2^-46 = 2^-22 (1 + 2^-24): a tie.
    modes(
        "fma tie",
        |rm, f| s::fma(0x3f80_0001, 0x3f80_0001, 0xbf80_0000, rm, f),
        [
            (0x3480_0000, NX),
            (0x3480_0000, NX),
            (0x3480_0000, NX),
            (0x3480_0001, NX),
            (0x3480_0001, NX),
        ],
    );
    // RISC-V: inf * 0 + qNaN raises NV (§11.6).
    every(
        "fma(inf, 0, qNaN)",
        |rm, f| s::fma(0x7f80_0000, 0, 0x7fc0_0000, rm, f),
        QNAN32,
        NV,
    );
    every(
        "fma(0, -inf, qNaN) d",
        |rm, f| d::fma(0, 0xfff0_0000_0000_0000, QNAN64, rm, f),
        QNAN64,
        NV,
    );
    every(
        "fma(inf, 1, -inf)",
        |rm, f| s::fma(0x7f80_0000, 0x3f80_0000, 0xff80_0000, rm, f),
        QNAN32,
        NV,
    );
    every(
        "fma(qNaN, 1, 1)",
        |rm, f| s::fma(0x7fc0_0001, 0x3f80_0000, 0x3f80_0000, rm, f),
        QNAN32,
        0,
    );
    every(
        "fma(1, 1, sNaN)",
        |rm, f| s::fma(0x3f80_0000, 0x3f80_0000, 0x7f80_0001, rm, f),
        QNAN32,
        NV,
    );
    // Signed zeros: (+0)(1) + (-0) = +0 except RDN; (-0)(1) + (-0) = -0.
    modes(
        "fma(+0, 1, -0)",
        |rm, f| s::fma(0, 0x3f80_0000, 0x8000_0000, rm, f),
        [(0, 0), (0, 0), (0x8000_0000, 0), (0, 0), (0, 0)],
    );
    every(
        "fma(-0, 1, -0)",
        |rm, f| s::fma(0x8000_0000, 0x3f80_0000, 0x8000_0000, rm, f),
        0x8000_0000,
        0,
    );
}

#[test]
fn min_max_compare_classify() {
    let mut f = Flags::default();
    assert_eq!(
        s::min(0x8000_0000, 0, &mut f),
        0x8000_0000,
        "min(-0, +0) = -0"
    );
    assert_eq!(
        s::min(0, 0x8000_0000, &mut f),
        0x8000_0000,
        "min(+0, -0) = -0"
    );
    assert_eq!(s::max(0x8000_0000, 0, &mut f), 0, "max(-0, +0) = +0");
    assert_eq!(d::max(0, 1 << 63, &mut f), 0, "max(+0, -0) = +0");
    assert_eq!(s::max(0x3f80_0000, 0x4000_0000, &mut f), 0x4000_0000);
    assert_eq!(s::min(0xff80_0000, 0x7f7f_ffff, &mut f), 0xff80_0000);
    assert_eq!(
        s::min(0xbf80_0000, 0xc000_0000, &mut f),
        0xc000_0000,
        "min(-1, -2) = -2"
    );
    assert_eq!(f, Flags(0));
    assert_eq!(
        s::min(0x7fc0_0001, 0x3f80_0000, &mut f),
        0x3f80_0000,
        "qNaN operand: the other"
    );
    assert_eq!(
        d::max(0x3ff0_0000_0000_0000, 0xfff8_0000_0000_0000, &mut f),
        0x3ff0_0000_0000_0000
    );
    assert_eq!(f, Flags(0), "quiet NaN in fmin/fmax raises nothing");
    assert_eq!(
        s::min(0x7f80_0001, 0x3f80_0000, &mut f),
        0x3f80_0000,
        "sNaN operand: the other, with NV"
    );
    assert_eq!(f, Flags(NV));
    let mut f = Flags::default();
    assert_eq!(
        s::max(0x7fc0_0001, 0xffc0_0002, &mut f),
        QNAN32,
        "two NaNs: canonical"
    );
    assert_eq!(f, Flags(0));
    assert_eq!(d::min(0x7ff0_0000_0000_0001, QNAN64 | 5, &mut f), QNAN64);
    assert_eq!(f, Flags(NV));

    let mut f = Flags::default();
    assert!(s::eq(0, 0x8000_0000, &mut f), "-0 == +0");
    assert!(!s::lt(0x8000_0000, 0, &mut f), "-0 < +0 is false");
    assert!(s::le(0x8000_0000, 0, &mut f));
    assert!(d::lt(0x3ff0_0000_0000_0000, 0x4000_0000_0000_0000, &mut f));
    assert!(!s::eq(QNAN32, QNAN32, &mut f));
    assert_eq!(f, Flags(0), "feq is quiet on qNaN");
    assert!(!s::eq(0x7f80_0001, 0x3f80_0000, &mut f));
    assert_eq!(f, Flags(NV), "feq signals on sNaN");
    let mut f = Flags::default();
    assert!(!s::lt(QNAN32, 0x3f80_0000, &mut f));
    assert_eq!(f, Flags(NV), "flt signals on qNaN");
    let mut f = Flags::default();
    assert!(!d::le(0, QNAN64, &mut f));
    assert_eq!(f, Flags(NV), "fle signals on qNaN");

    // §11.9 Table 11.5, bit by bit.
    let s_cases: [(u32, u64); 12] = [
        (0xff80_0000, 1 << 0),
        (0xbf80_0000, 1 << 1),
        (0x8000_0001, 1 << 2),
        (0x8000_0000, 1 << 3),
        (0, 1 << 4),
        (0x007f_ffff, 1 << 5),
        (0x3f80_0000, 1 << 6),
        (0x7f80_0000, 1 << 7),
        (0x7f80_0001, 1 << 8),
        (0xffbf_ffff, 1 << 8),
        (0x7fc0_0000, 1 << 9),
        (0xffc0_0001, 1 << 9),
    ];
    for (a, want) in s_cases {
        assert_eq!(s::classify(a), want, "fclass.s {a:#x}");
    }
    let d_cases: [(u64, u64); 10] = [
        (0xfff0_0000_0000_0000, 1 << 0),
        (0xc000_0000_0000_0000, 1 << 1),
        (0x800f_ffff_ffff_ffff, 1 << 2),
        (1 << 63, 1 << 3),
        (0, 1 << 4),
        (1, 1 << 5),
        (0x0010_0000_0000_0000, 1 << 6),
        (0x7ff0_0000_0000_0000, 1 << 7),
        (0x7ff0_0000_0000_0001, 1 << 8),
        (QNAN64, 1 << 9),
    ];
    for (a, want) in d_cases {
        assert_eq!(d::classify(a), want, "fclass.d {a:#x}");
    }
}

#[test]
fn flags_accumulate_and_are_never_cleared() {
    let mut f = Flags(DZ);
    let _ = s::add(0x3f80_0000, 0x3380_0000, RoundingMode::Rne, &mut f);
    assert_eq!(f, Flags(DZ | NX));
    let _ = s::add(0x3f80_0000, 0x3f80_0000, RoundingMode::Rne, &mut f);
    assert_eq!(f, Flags(DZ | NX), "an exact op leaves earlier flags alone");
}

#[test]
fn threads_do_not_share_rounding_state() {
    // SoftFloat's mode and flags are thread-local and reset per call; two
    // threads hammering different modes must each see their own results.
    let spawn = |rm: RoundingMode, want: u32| {
        std::thread::spawn(move || {
            for _ in 0..200_000 {
                let mut f = Flags::default();
                assert_eq!(s::add(0x3f80_0000, 0x3380_0000, rm, &mut f), want);
                assert_eq!(f, Flags(NX));
            }
        })
    };
    let a = spawn(RoundingMode::Rne, 0x3f80_0000);
    let b = spawn(RoundingMode::Rup, 0x3f80_0001);
    a.join().expect("RNE thread");
    b.join().expect("RUP thread");
}
