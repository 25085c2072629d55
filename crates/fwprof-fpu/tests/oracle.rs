//! Oracle for every rounding operation: 2^20 generated cases per operation
//! and width, checked against digests recorded from Berkeley SoftFloat 3e
//! (RISCV specialization), the C library this crate wrapped before it had
//! its own implementation.
//!
//! Each operation's cases are cut into 16 chunks of 65,536; a chunk's
//! digest hashes every case's result bits and `fflags` in order. The
//! golden file `tests/golden/softfloat3e.digests` has one line per
//! (operation, chunk): `name chunk digest`. A mismatch names the operation
//! and chunk. The cases come from a seeded SplitMix64 stream biased towards
//! the hard cases (special values, subnormals, the overflow and underflow
//! thresholds, cancellation, ties and near-ties, integers at the saturation
//! boundaries), with a random rounding mode per case.
//!
//! `FWPROF_FPU_BLESS=1` wrote the golden file from SoftFloat while it was
//! still in the tree (the two implementations were then also compared case
//! by case); the generator and the digest must not change since, and the
//! test now refuses to bless.

mod common;

use common::{Fmt, Rng, F32, F64};
use fwprof_fpu::{Flags, RoundingMode};
use std::collections::BTreeMap;

/// Cases per chunk and chunks per operation: 16 × 65,536 = 1,048,576.
const CHUNK: u64 = 65_536;
const CHUNKS: u64 = 16;
const GOLDEN: &str = "tests/golden/softfloat3e.digests";

/// What an operation does with its operands.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Kind {
    Add,
    Sub,
    Mul,
    Div,
    Sqrt,
    Fma,
    Eq,
    Lt,
    Le,
    ToI32,
    ToU32,
    ToI64,
    ToU64,
    FromI32,
    FromU32,
    FromI64,
    FromU64,
    /// binary32 → binary64 (`fcvt.d.s`).
    Widen,
    /// binary64 → binary32 (`fcvt.s.d`).
    Narrow,
}

/// One operation under test: its golden-file name, kind and width (true = binary64).
#[derive(Clone, Copy)]
struct Op {
    name: &'static str,
    kind: Kind,
    double: bool,
}

const fn op(name: &'static str, kind: Kind, double: bool) -> Op {
    Op { name, kind, double }
}

const OPS: [Op; 36] = [
    op("f32_add", Kind::Add, false),
    op("f32_sub", Kind::Sub, false),
    op("f32_mul", Kind::Mul, false),
    op("f32_div", Kind::Div, false),
    op("f32_sqrt", Kind::Sqrt, false),
    op("f32_fma", Kind::Fma, false),
    op("f32_eq", Kind::Eq, false),
    op("f32_lt", Kind::Lt, false),
    op("f32_le", Kind::Le, false),
    op("f32_to_i32", Kind::ToI32, false),
    op("f32_to_u32", Kind::ToU32, false),
    op("f32_to_i64", Kind::ToI64, false),
    op("f32_to_u64", Kind::ToU64, false),
    op("f32_from_i32", Kind::FromI32, false),
    op("f32_from_u32", Kind::FromU32, false),
    op("f32_from_i64", Kind::FromI64, false),
    op("f32_from_u64", Kind::FromU64, false),
    op("f64_add", Kind::Add, true),
    op("f64_sub", Kind::Sub, true),
    op("f64_mul", Kind::Mul, true),
    op("f64_div", Kind::Div, true),
    op("f64_sqrt", Kind::Sqrt, true),
    op("f64_fma", Kind::Fma, true),
    op("f64_eq", Kind::Eq, true),
    op("f64_lt", Kind::Lt, true),
    op("f64_le", Kind::Le, true),
    op("f64_to_i32", Kind::ToI32, true),
    op("f64_to_u32", Kind::ToU32, true),
    op("f64_to_i64", Kind::ToI64, true),
    op("f64_to_u64", Kind::ToU64, true),
    op("f64_from_i32", Kind::FromI32, true),
    op("f64_from_u32", Kind::FromU32, true),
    op("f64_from_i64", Kind::FromI64, true),
    op("f64_from_u64", Kind::FromU64, true),
    op("f32_to_f64", Kind::Widen, false),
    op("f64_to_f32", Kind::Narrow, true),
];

/// One generated case: operands as raw bits (or integers), and the mode.
#[derive(Clone, Copy, Debug)]
struct Case {
    rm: RoundingMode,
    a: u64,
    b: u64,
    c: u64,
}

/// Runs one case through the crate's public API: (result bits, fflags).
/// Integer results are zero-extended from their own width; comparisons give 0/1.
fn eval(op: Op, k: &Case) -> (u64, u8) {
    use fwprof_fpu::{f32 as s, f64 as d};
    let (a, b, c, rm) = (k.a, k.b, k.c, k.rm);
    let (a32, b32, c32) = (a as u32, b as u32, c as u32);
    let mut fl = Flags::default();
    let f = &mut fl;
    let v = match (op.kind, op.double) {
        (Kind::Add, false) => s::add(a32, b32, rm, f).into(),
        (Kind::Sub, false) => s::sub(a32, b32, rm, f).into(),
        (Kind::Mul, false) => s::mul(a32, b32, rm, f).into(),
        (Kind::Div, false) => s::div(a32, b32, rm, f).into(),
        (Kind::Sqrt, false) => s::sqrt(a32, rm, f).into(),
        (Kind::Fma, false) => s::fma(a32, b32, c32, rm, f).into(),
        (Kind::Eq, false) => s::eq(a32, b32, f).into(),
        (Kind::Lt, false) => s::lt(a32, b32, f).into(),
        (Kind::Le, false) => s::le(a32, b32, f).into(),
        (Kind::ToI32, false) => u64::from(s::to_i32(a32, rm, f) as u32),
        (Kind::ToU32, false) => s::to_u32(a32, rm, f).into(),
        (Kind::ToI64, false) => s::to_i64(a32, rm, f) as u64,
        (Kind::ToU64, false) => s::to_u64(a32, rm, f),
        (Kind::FromI32, false) => s::from_i32(a as i32, rm, f).into(),
        (Kind::FromU32, false) => s::from_u32(a as u32, rm, f).into(),
        (Kind::FromI64, false) => s::from_i64(a as i64, rm, f).into(),
        (Kind::FromU64, false) => s::from_u64(a, rm, f).into(),
        (Kind::Add, true) => d::add(a, b, rm, f),
        (Kind::Sub, true) => d::sub(a, b, rm, f),
        (Kind::Mul, true) => d::mul(a, b, rm, f),
        (Kind::Div, true) => d::div(a, b, rm, f),
        (Kind::Sqrt, true) => d::sqrt(a, rm, f),
        (Kind::Fma, true) => d::fma(a, b, c, rm, f),
        (Kind::Eq, true) => d::eq(a, b, f).into(),
        (Kind::Lt, true) => d::lt(a, b, f).into(),
        (Kind::Le, true) => d::le(a, b, f).into(),
        (Kind::ToI32, true) => u64::from(d::to_i32(a, rm, f) as u32),
        (Kind::ToU32, true) => d::to_u32(a, rm, f).into(),
        (Kind::ToI64, true) => d::to_i64(a, rm, f) as u64,
        (Kind::ToU64, true) => d::to_u64(a, rm, f),
        (Kind::FromI32, true) => d::from_i32(a as i32, rm, f),
        (Kind::FromU32, true) => d::from_u32(a as u32, rm, f),
        (Kind::FromI64, true) => d::from_i64(a as i64, rm, f),
        (Kind::FromU64, true) => d::from_u64(a, rm, f),
        (Kind::Widen, _) => fwprof_fpu::f32_to_f64(a32, f),
        (Kind::Narrow, _) => fwprof_fpu::f64_to_f32(a, rm, f).into(),
    };
    (v, fl.0)
}

/// A significand of alternating runs of ones and zeros (random lengths),
/// so that sums, products and quotients land on ties and near-ties.
fn runs(r: &mut Rng, bits: u32) -> u64 {
    let mut v = 0u64;
    let mut pos = 0;
    let mut one = r.next() & 1 == 1;
    while pos < bits {
        let len = 1 + r.below(u64::from(bits)) as u32;
        let len = len.min(bits - pos);
        if one {
            v |= (u64::MAX >> (64 - len)) << pos;
        }
        pos += len;
        one = !one;
    }
    v
}

/// An operand: the shared generator's mix, or a run-structured significand
/// at a random or threshold exponent.
fn operand(fmt: Fmt, r: &mut Rng) -> u64 {
    let sign = r.next() & 1 == 1;
    match r.below(8) {
        0 => {
            let e = match r.below(4) {
                0 => r.below(4),                     // subnormal / bottom
                1 => fmt.max_exp() - 1 - r.below(3), // top
                2 => fmt.bias() - 4 + r.below(9),    // around 1
                _ => r.below(fmt.max_exp()),         // anywhere finite
            };
            fmt.pack(sign, e, runs(r, fmt.frac_bits))
        }
        _ => fmt.operand(r),
    }
}

/// A second operand for add/sub/compare: same or adjacent exponent
/// (cancellation), the shared partner rules, or an independent operand.
fn addend(fmt: Fmt, r: &mut Rng, a: u64) -> u64 {
    let sign = r.next() & 1 == 1;
    match r.below(6) {
        0 | 1 => {
            let e = (fmt.exp(a) as i64 + r.below(5) as i64 - 2).clamp(0, fmt.max_exp() as i64 - 1);
            let frac = match r.below(3) {
                0 => a ^ r.below(16),
                1 => runs(r, fmt.frac_bits),
                _ => r.next(),
            };
            fmt.pack(sign, e as u64, frac)
        }
        2 | 3 => fmt.partner(r, a),
        _ => operand(fmt, r),
    }
}

/// A value of format `fmt` close to the real number `x` (a host binary64):
/// rounded to the format, then moved 0-2 ulps either way.
fn near(fmt: Fmt, r: &mut Rng, x: f64) -> u64 {
    let bits = if fmt.frac_bits == 23 {
        u64::from((x as f32).to_bits())
    } else {
        x.to_bits()
    };
    match r.below(5) {
        0 => bits.wrapping_add(1),
        1 => bits.wrapping_add(2),
        2 => bits.wrapping_sub(1),
        _ => bits,
    }
}

fn to_host(fmt: Fmt, a: u64) -> f64 {
    if fmt.frac_bits == 23 {
        f64::from(f32::from_bits(a as u32))
    } else {
        f64::from_bits(a)
    }
}

/// Float operands for conversions to integer: saturation boundaries of
/// every integer type and their neighbours, halves and near-halves, small
/// magnitudes, and the general mix.
fn to_int_operand(fmt: Fmt, r: &mut Rng) -> u64 {
    let sign = r.next() & 1 == 1;
    match r.below(6) {
        0 => {
            let k = r.below(8) as f64;
            let frac = [0.0, 0.25, 0.3, 0.5, 0.7, 0.75, 0.999][r.below(7) as usize];
            let v = k + frac;
            near(fmt, r, if sign { -v } else { v })
        }
        1 => {
            let e = [31u64, 32, 63, 64][r.below(4) as usize];
            let x = fmt.pack(sign, fmt.bias() + e - r.below(2), 0);
            x.wrapping_add(r.below(5)).wrapping_sub(2)
        }
        2 => {
            // exponents that put the binary point inside the significand or
            // just past it, with run-structured fractions (x.5 and near)
            let e = fmt.bias() - 2 + r.below(u64::from(fmt.frac_bits) + 4);
            fmt.pack(sign, e, runs(r, fmt.frac_bits))
        }
        3 => fmt.pack(sign, fmt.bias() - 2 + r.below(69), r.next()),
        _ => operand(fmt, r),
    }
}

/// Integer operands for conversions to float: boundaries (2^31, 2^32,
/// 2^63, 2^64 and their neighbours), values with exactly 24/25/53/54
/// significant bits and tie patterns, and random widths of both signs.
fn int_operand(r: &mut Rng) -> u64 {
    match r.below(6) {
        0 => {
            let e = [31u32, 32, 63, 64, 24, 25, 53, 54][r.below(8) as usize];
            let base = if e == 64 { 0 } else { 1u64 << e };
            base.wrapping_add(r.below(9)).wrapping_sub(4)
        }
        1 => {
            // p significant bits, then a tie or near-tie below the precision
            let p = [24u32, 53][r.below(2) as usize];
            let extra = 1 + r.below(u64::from(64 - p)) as u32;
            let top = (r.next() | 1 << 63) >> (64 - p);
            let tail = match r.below(4) {
                0 => 1u64 << (extra - 1),                   // exact tie
                1 => (1u64 << (extra - 1)).wrapping_sub(1), // just below
                2 => (1u64 << (extra - 1)) | 1,             // just above
                _ => r.next() & ((1u64 << (extra - 1)) << 1).wrapping_sub(1),
            };
            let v = (top << extra) | tail;
            if r.next() & 1 == 1 {
                v.wrapping_neg()
            } else {
                v
            }
        }
        2 => r.next() >> r.below(64),
        3 => (r.next() >> r.below(64)).wrapping_neg(),
        4 => runs(r, 64),
        _ => r.next(),
    }
}

/// The fused multiply-add's addend: independent, special, close to the
/// negated product (cancellation), or half an ulp of it (ties).
fn fma_addend(fmt: Fmt, r: &mut Rng, a: u64, b: u64) -> u64 {
    let p = to_host(fmt, a) * to_host(fmt, b);
    match r.below(6) {
        0 | 1 if p.is_finite() && p != 0.0 => near(fmt, r, -p),
        2 if p.is_finite() && p != 0.0 => {
            let shift = 2f64.powi(-(fmt.frac_bits as i32) - 1 - r.below(3) as i32);
            let sign = if r.next() & 1 == 1 { -1.0 } else { 1.0 };
            near(fmt, r, sign * p * shift)
        }
        3 => addend(fmt, r, a),
        _ => operand(fmt, r),
    }
}

/// A binary64 operand for the narrowing conversion: around binary32's
/// overflow and underflow thresholds and its rounding ties, or the mix.
fn narrow_operand(r: &mut Rng) -> u64 {
    let sign = r.next() & 1 == 1;
    // binary32's smallest subnormal is 2^-149; its largest finite 2^128 - 2^104.
    let e = match r.below(4) {
        0 => 1023 + 127 - 2 + r.below(4),
        1 => 1023 - 126 - 26 + r.below(28),
        2 => 1023 - 10 + r.below(20),
        _ => return operand(F64, r),
    };
    let frac = match r.below(4) {
        // a tie at binary32's precision (bit 28 of the 52-bit fraction)
        0 => (r.next() & !((1 << 29) - 1)) | 1 << 28,
        1 => (r.next() & !((1 << 29) - 1)) | ((1 << 28) - r.below(2)),
        2 => runs(r, 52),
        _ => r.next(),
    };
    F64.pack(sign, e, frac)
}

/// A square-root operand: an exact square (of a short significand), one
/// ulp next to it, or the general mix (negative values included).
fn sqrt_operand(fmt: Fmt, r: &mut Rng) -> u64 {
    if r.below(3) == 0 {
        let keep = fmt.frac_bits.div_ceil(2);
        let root = (1u64 << keep) | (r.next() & ((1u64 << keep) - 1));
        let e = r.below(40) as i32 - 20;
        let x = (root as f64 * root as f64) * 2f64.powi(e - 2 * keep as i32);
        near(fmt, r, x)
    } else {
        operand(fmt, r)
    }
}

/// Case `i` of chunk `chunk` of operation `op`: seeded by (op, chunk) so
/// each chunk can be generated on its own.
fn cases(op: Op, chunk: u64) -> impl Iterator<Item = Case> {
    let seed = op.name.bytes().fold(0xcbf2_9ce4_8422_2325u64, |h, c| {
        (h ^ u64::from(c)).wrapping_mul(0x100_0000_01b3)
    });
    let mut r = Rng(seed ^ chunk.wrapping_mul(0x9e37_79b9_7f4a_7c15));
    let fmt = if op.double { F64 } else { F32 };
    (0..CHUNK).map(move |_| {
        let rm = RoundingMode::ALL[r.below(5) as usize];
        let (a, b, c) = match op.kind {
            Kind::Add | Kind::Sub | Kind::Eq | Kind::Lt | Kind::Le => {
                let a = operand(fmt, &mut r);
                let b = if r.below(16) == 0 {
                    a
                } else {
                    addend(fmt, &mut r, a)
                };
                (a, b, 0)
            }
            Kind::Mul | Kind::Div => {
                if r.below(8) == 0 {
                    let (a, b) = fmt.near_min_normal_pair(&mut r);
                    (a, b, 0)
                } else {
                    let a = operand(fmt, &mut r);
                    (a, fmt.partner(&mut r, a), 0)
                }
            }
            Kind::Sqrt => (sqrt_operand(fmt, &mut r), 0, 0),
            Kind::Fma => {
                let a = operand(fmt, &mut r);
                let b = fmt.partner(&mut r, a);
                (a, b, fma_addend(fmt, &mut r, a, b))
            }
            Kind::ToI32 | Kind::ToU32 | Kind::ToI64 | Kind::ToU64 => {
                (to_int_operand(fmt, &mut r), 0, 0)
            }
            Kind::FromI32 | Kind::FromU32 | Kind::FromI64 | Kind::FromU64 => {
                let mut a = int_operand(&mut r);
                if matches!(op.kind, Kind::FromI32 | Kind::FromU32) && r.below(2) == 0 {
                    // the 32-bit boundaries: i32::MAX/MIN, u32::MAX/0, 2^24
                    let base = [0x8000_0000u64, 0, 1 << 24][r.below(3) as usize];
                    a = base.wrapping_add(r.below(9)).wrapping_sub(4);
                }
                (a, 0, 0)
            }
            Kind::Widen => (operand(F32, &mut r), 0, 0),
            Kind::Narrow => (narrow_operand(&mut r), 0, 0),
        };
        Case { rm, a, b, c }
    })
}

/// Order-sensitive 64-bit digest of (result, flags) pairs.
fn mix(h: u64, v: u64) -> u64 {
    (h.rotate_left(23) ^ v).wrapping_mul(0x9e37_79b9_7f4a_7c15)
}

type Eval = fn(Op, &Case) -> (u64, u8);

fn chunk_digest(op: Op, chunk: u64, eval: Eval) -> u64 {
    cases(op, chunk).fold(chunk, |h, k| {
        let (v, f) = eval(op, &k);
        mix(mix(h, v), u64::from(f))
    })
}

/// Every (op, chunk) digest, computed on two threads.
fn all_digests(eval: Eval) -> BTreeMap<(String, u64), u64> {
    let jobs: Vec<(Op, u64)> = OPS
        .iter()
        .flat_map(|&op| (0..CHUNKS).map(move |c| (op, c)))
        .collect();
    let (left, right) = jobs.split_at(jobs.len() / 2);
    let run = |part: &[(Op, u64)]| -> Vec<((String, u64), u64)> {
        part.iter()
            .map(|&(op, c)| ((op.name.to_string(), c), chunk_digest(op, c, eval)))
            .collect()
    };
    std::thread::scope(|s| {
        let t = s.spawn(|| run(left));
        let mut out = run(right);
        out.extend(t.join().expect("digest thread"));
        out.into_iter().collect()
    })
}

fn golden_path() -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(GOLDEN)
}

#[test]
fn every_operation_matches_softfloat_3e_digests() {
    assert!(
        std::env::var_os("FWPROF_FPU_BLESS").is_none(),
        "the digests were recorded from SoftFloat 3e, which is no longer in the tree: \
         they are not re-blessed from the code they check"
    );
    let got = all_digests(eval);
    let text = std::fs::read_to_string(golden_path()).expect("golden digests present");
    let mut want = BTreeMap::new();
    for line in text
        .lines()
        .filter(|l| !l.starts_with('#') && !l.is_empty())
    {
        let f: Vec<&str> = line.split_whitespace().collect();
        assert_eq!(f.len(), 3, "malformed golden line {line:?}");
        let chunk = f[1].parse().expect("chunk number");
        let digest = u64::from_str_radix(f[2], 16).expect("hex digest");
        want.insert((f[0].to_string(), chunk), digest);
    }
    assert_eq!(
        want.len(),
        OPS.len() * CHUNKS as usize,
        "golden file covers every op and chunk"
    );
    let bad: Vec<String> = got
        .iter()
        .filter(|(k, d)| want.get(*k) != Some(d))
        .map(|((name, c), d)| {
            format!(
                "{name} chunk {c} (cases {}..{}): digest {d:016x}, SoftFloat 3e {:016x}",
                c * CHUNK,
                (c + 1) * CHUNK,
                want.get(&(name.clone(), *c)).copied().unwrap_or(0)
            )
        })
        .collect();
    assert!(
        bad.is_empty(),
        "{} chunks differ:\n{}",
        bad.len(),
        bad.join("\n")
    );
}
