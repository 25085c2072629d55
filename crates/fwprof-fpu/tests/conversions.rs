//! Conversions: the §11.7 Table 11.4 saturation table for every conversion
//! to integer, integer to float rounding, and binary32 <-> binary64; one
//! expectation per rounding mode (RNE, RTZ, RDN, RUP, RMM), worked by hand.

mod common;

use common::{every, modes};
use fwprof_fpu::{f32 as s, f32_to_f64, f64 as d, f64_to_f32, Flags};

const NV: u8 = Flags::NV;
const OF: u8 = Flags::OF;
const UF: u8 = Flags::UF;
const NX: u8 = Flags::NX;

const QNAN32: u32 = 0x7fc0_0000;
const QNAN64: u64 = 0x7ff8_0000_0000_0000;

/// binary32 / binary64 bit patterns used in the saturation tables.
const S_2P31: u32 = 0x4f00_0000; // 2^31
const S_2P32: u32 = 0x4f80_0000;
const S_2P63: u32 = 0x5f00_0000;
const S_2P64: u32 = 0x5f80_0000;
const S_M03: u32 = 0xbe99_999a; // -0.3
const S_M05: u32 = 0xbf00_0000; // -0.5
const S_M1: u32 = 0xbf80_0000;
const S_INF: u32 = 0x7f80_0000;
const S_NAN_NEG: u32 = 0xffc0_0000; // a NaN with the sign bit set still gives MAX

#[test]
fn saturation_to_i32() {
    for nan in [QNAN32, S_NAN_NEG, 0x7f80_0001] {
        every("NaN -> w", |rm, f| s::to_i32(nan, rm, f), i32::MAX, NV);
    }
    every("+inf -> w", |rm, f| s::to_i32(S_INF, rm, f), i32::MAX, NV);
    every(
        "-inf -> w",
        |rm, f| s::to_i32(S_INF | 0x8000_0000, rm, f),
        i32::MIN,
        NV,
    );
    every("2^31 -> w", |rm, f| s::to_i32(S_2P31, rm, f), i32::MAX, NV);
    every(
        "-2^31 -> w (exact)",
        |rm, f| s::to_i32(S_2P31 | 0x8000_0000, rm, f),
        i32::MIN,
        0,
    );
    every("-0 -> w", |rm, f| s::to_i32(0x8000_0000, rm, f), 0, 0);
    // 2147483647.5 (binary64): rounding up leaves the range (NV, no NX).
    modes(
        "2^31 - 0.5 -> w",
        |rm, f| d::to_i32(0x41df_ffff_ffe0_0000, rm, f),
        [
            (i32::MAX, NV),
            (i32::MAX, NX),
            (i32::MAX, NX),
            (i32::MAX, NV),
            (i32::MAX, NV),
        ],
    );
    // -2147483648.5: RNE ties to the even -2^31; RDN and RMM go below.
    modes(
        "-2^31 - 0.5 -> w",
        |rm, f| d::to_i32(0xc1e0_0000_0010_0000, rm, f),
        [
            (i32::MIN, NX),
            (i32::MIN, NX),
            (i32::MIN, NV),
            (i32::MIN, NX),
            (i32::MIN, NV),
        ],
    );
    modes(
        "2.5 -> w",
        |rm, f| s::to_i32(0x4020_0000, rm, f),
        [(2, NX), (2, NX), (2, NX), (3, NX), (3, NX)],
    );
    modes(
        "-2.5 -> w",
        |rm, f| s::to_i32(0xc020_0000, rm, f),
        [(-2, NX), (-2, NX), (-3, NX), (-2, NX), (-3, NX)],
    );
    modes(
        "1.5 -> w",
        |rm, f| d::to_i32(0x3ff8_0000_0000_0000, rm, f),
        [(2, NX), (1, NX), (1, NX), (2, NX), (2, NX)],
    );
    modes(
        "0.5 -> w",
        |rm, f| s::to_i32(0x3f00_0000, rm, f),
        [(0, NX), (0, NX), (0, NX), (1, NX), (1, NX)],
    );
}

#[test]
fn saturation_to_u32() {
    for nan in [QNAN32, S_NAN_NEG, 0xff80_0001] {
        every("NaN -> wu", |rm, f| s::to_u32(nan, rm, f), u32::MAX, NV);
    }
    every("+inf -> wu", |rm, f| s::to_u32(S_INF, rm, f), u32::MAX, NV);
    every(
        "-inf -> wu",
        |rm, f| s::to_u32(S_INF | 0x8000_0000, rm, f),
        0,
        NV,
    );
    every("2^32 -> wu", |rm, f| s::to_u32(S_2P32, rm, f), u32::MAX, NV);
    every(
        "2^31 -> wu (exact)",
        |rm, f| s::to_u32(S_2P31, rm, f),
        1 << 31,
        0,
    );
    every("-1 -> wu", |rm, f| s::to_u32(S_M1, rm, f), 0, NV);
    every("-0 -> wu", |rm, f| s::to_u32(0x8000_0000, rm, f), 0, 0);
    // -0.3 rounds to 0 (no NV, just NX) except in RDN, which gives -1.
    modes(
        "-0.3 -> wu",
        |rm, f| s::to_u32(S_M03, rm, f),
        [(0, NX), (0, NX), (0, NV), (0, NX), (0, NX)],
    );
    // -0.5: RNE ties to the even 0; RMM ties away to -1; RDN gives -1.
    modes(
        "-0.5 -> wu",
        |rm, f| s::to_u32(S_M05, rm, f),
        [(0, NX), (0, NX), (0, NV), (0, NX), (0, NV)],
    );
    // 4294967295.5 (binary64): RNE ties to the even 2^32, out of range.
    modes(
        "2^32 - 0.5 -> wu",
        |rm, f| d::to_u32(0x41ef_ffff_fff0_0000, rm, f),
        [
            (u32::MAX, NV),
            (u32::MAX, NX),
            (u32::MAX, NX),
            (u32::MAX, NV),
            (u32::MAX, NV),
        ],
    );
    every(
        "2^32 - 1 -> wu (exact)",
        |rm, f| d::to_u32(0x41ef_ffff_ffe0_0000, rm, f),
        u32::MAX,
        0,
    );
}

#[test]
fn saturation_to_64_bit() {
    every("NaN -> l", |rm, f| s::to_i64(QNAN32, rm, f), i64::MAX, NV);
    every(
        "-NaN -> l",
        |rm, f| d::to_i64(0xfff8_0000_0000_0000, rm, f),
        i64::MAX,
        NV,
    );
    every("2^63 -> l", |rm, f| s::to_i64(S_2P63, rm, f), i64::MAX, NV);
    every(
        "-2^63 -> l (exact)",
        |rm, f| s::to_i64(S_2P63 | 0x8000_0000, rm, f),
        i64::MIN,
        0,
    );
    every(
        "-inf -> l",
        |rm, f| d::to_i64(0xfff0_0000_0000_0000, rm, f),
        i64::MIN,
        NV,
    );
    every(
        "-2^64 -> l",
        |rm, f| s::to_i64(S_2P64 | 0x8000_0000, rm, f),
        i64::MIN,
        NV,
    );
    // The largest binary32 below 2^63 is 2^63 - 2^39: exact.
    every(
        "2^63 - 2^39 -> l",
        |rm, f| s::to_i64(0x5eff_ffff, rm, f),
        (1i64 << 63).wrapping_sub(1 << 39),
        0,
    );
    every("NaN -> lu", |rm, f| d::to_u64(QNAN64, rm, f), u64::MAX, NV);
    every("2^64 -> lu", |rm, f| s::to_u64(S_2P64, rm, f), u64::MAX, NV);
    every(
        "2^63 -> lu (exact)",
        |rm, f| d::to_u64(0x43e0_0000_0000_0000, rm, f),
        1 << 63,
        0,
    );
    every(
        "2^64 - 2^40 -> lu",
        |rm, f| s::to_u64(0x5f7f_ffff, rm, f),
        u64::MAX - ((1 << 40) - 1),
        0,
    );
    every("-inf -> lu", |rm, f| s::to_u64(0xff80_0000, rm, f), 0, NV);
    every(
        "-1 -> lu",
        |rm, f| d::to_u64(0xbff0_0000_0000_0000, rm, f),
        0,
        NV,
    );
    modes(
        "-0.3 -> lu",
        |rm, f| s::to_u64(S_M03, rm, f),
        [(0, NX), (0, NX), (0, NV), (0, NX), (0, NX)],
    );
    modes(
        "-0.5 -> lu",
        |rm, f| d::to_u64(0xbfe0_0000_0000_0000, rm, f),
        [(0, NX), (0, NX), (0, NV), (0, NX), (0, NV)],
    );
    modes(
        "2.5 -> l",
        |rm, f| d::to_i64(0x4004_0000_0000_0000, rm, f),
        [(2, NX), (2, NX), (2, NX), (3, NX), (3, NX)],
    );
}

#[test]
fn from_integers() {
    // 2^24 + 1 lies halfway between 2^24 and 2^24 + 2 in binary32.
    modes(
        "2^24+1 -> s",
        |rm, f| s::from_i32((1 << 24) + 1, rm, f),
        [
            (0x4b80_0000, NX),
            (0x4b80_0000, NX),
            (0x4b80_0000, NX),
            (0x4b80_0001, NX),
            (0x4b80_0001, NX),
        ],
    );
    modes(
        "-(2^24+1) -> s",
        |rm, f| s::from_i32(-(1 << 24) - 1, rm, f),
        [
            (0xcb80_0000, NX),
            (0xcb80_0000, NX),
            (0xcb80_0001, NX),
            (0xcb80_0000, NX),
            (0xcb80_0001, NX),
        ],
    );
    every(
        "i32::MIN -> s",
        |rm, f| s::from_i32(i32::MIN, rm, f),
        0xcf00_0000,
        0,
    );
    modes(
        "u32::MAX -> s",
        |rm, f| s::from_u32(u32::MAX, rm, f),
        [
            (0x4f80_0000, NX),
            (0x4f7f_ffff, NX),
            (0x4f7f_ffff, NX),
            (0x4f80_0000, NX),
            (0x4f80_0000, NX),
        ],
    );
    every(
        "-1 -> d (exact)",
        |rm, f| d::from_i32(-1, rm, f),
        0xbff0_0000_0000_0000,
        0,
    );
    every(
        "u32::MAX -> d (exact)",
        |rm, f| d::from_u32(u32::MAX, rm, f),
        0x41ef_ffff_ffe0_0000,
        0,
    );
    modes(
        "2^53+1 -> d",
        |rm, f| d::from_i64((1 << 53) + 1, rm, f),
        [
            (0x4340_0000_0000_0000, NX),
            (0x4340_0000_0000_0000, NX),
            (0x4340_0000_0000_0000, NX),
            (0x4340_0000_0000_0001, NX),
            (0x4340_0000_0000_0001, NX),
        ],
    );
    modes(
        "u64::MAX -> d",
        |rm, f| d::from_u64(u64::MAX, rm, f),
        [
            (0x43f0_0000_0000_0000, NX),
            (0x43ef_ffff_ffff_ffff, NX),
            (0x43ef_ffff_ffff_ffff, NX),
            (0x43f0_0000_0000_0000, NX),
            (0x43f0_0000_0000_0000, NX),
        ],
    );
    every(
        "i64::MIN -> s (exact)",
        |rm, f| s::from_i64(i64::MIN, rm, f),
        0xdf00_0000,
        0,
    );
    modes(
        "u64::MAX -> s",
        |rm, f| s::from_u64(u64::MAX, rm, f),
        [
            (0x5f80_0000, NX),
            (0x5f7f_ffff, NX),
            (0x5f7f_ffff, NX),
            (0x5f80_0000, NX),
            (0x5f80_0000, NX),
        ],
    );
}

#[test]
fn between_formats() {
    // 1 + 2^-24 in binary64 is a binary32 tie.
    modes(
        "1+2^-24 -> s",
        |rm, f| f64_to_f32(0x3ff0_0000_1000_0000, rm, f),
        [
            (0x3f80_0000, NX),
            (0x3f80_0000, NX),
            (0x3f80_0000, NX),
            (0x3f80_0001, NX),
            (0x3f80_0001, NX),
        ],
    );
    modes(
        "1e300 -> s",
        |rm, f| f64_to_f32(1e300f64.to_bits(), rm, f),
        [
            (0x7f80_0000, OF | NX),
            (0x7f7f_ffff, OF | NX),
            (0x7f7f_ffff, OF | NX),
            (0x7f80_0000, OF | NX),
            (0x7f80_0000, OF | NX),
        ],
    );
    // 2^-150: halfway between 0 and the smallest binary32 subnormal.
    modes(
        "2^-150 -> s",
        |rm, f| f64_to_f32(0x3690_0000_0000_0000, rm, f),
        [
            (0, UF | NX),
            (0, UF | NX),
            (0, UF | NX),
            (1, UF | NX),
            (1, UF | NX),
        ],
    );
    every(
        "2^-149 -> s (exact subnormal)",
        |rm, f| f64_to_f32(0x36a0_0000_0000_0000, rm, f),
        1,
        0,
    );
    every(
        "1.5 -> s",
        |rm, f| f64_to_f32(0x3ff8_0000_0000_0000, rm, f),
        0x3fc0_0000,
        0,
    );
    every(
        "sNaN -> s",
        |rm, f| f64_to_f32(0x7ff0_0000_0000_0001, rm, f),
        QNAN32,
        NV,
    );
    every(
        "-qNaN+payload -> s",
        |rm, f| f64_to_f32(0xfff8_0000_0000_0123, rm, f),
        QNAN32,
        0,
    );

    let mut f = Flags::default();
    assert_eq!(f32_to_f64(0x3fc0_0000, &mut f), 0x3ff8_0000_0000_0000);
    assert_eq!(
        f32_to_f64(1, &mut f),
        0x36a0_0000_0000_0000,
        "subnormal widens exactly"
    );
    assert_eq!(f32_to_f64(0xff80_0000, &mut f), 0xfff0_0000_0000_0000);
    assert_eq!(
        f32_to_f64(0xffc0_0123, &mut f),
        QNAN64,
        "NaN payloads are not kept"
    );
    assert_eq!(f, Flags(0));
    assert_eq!(f32_to_f64(0x7f80_0001, &mut f), QNAN64);
    assert_eq!(f, Flags(NV));
}
