//! Cross-check against QEMU: `tests/qemu/fpcheck.c` is built with
//! `riscv64-linux-gnu-gcc -static -O1` and run under `qemu-riscv64` on a
//! generated table of cases covering every F/D arithmetic, compare, class
//! and conversion instruction in every rounding mode; result bits and
//! fflags must match exactly.
//!
//! Skips (passing, with a message on stderr) only when the cross compiler
//! or `qemu-riscv64` is missing; set `FWPROF_REQUIRE_TOOLS=1` to make that a
//! failure instead.

mod common;

use common::{Fmt, Rng, F32, F64};
use fwprof_fpu::{f32 as s, f32_to_f64, f64 as d, f64_to_f32, Flags, RoundingMode};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

const CC: &str = "riscv64-linux-gnu-gcc";
const QEMU: &str = "qemu-riscv64";

struct Case {
    mnemonic: &'static str,
    rm: u8,
    a: u64,
    b: u64,
    c: u64,
}

const SIGN32: u32 = 0x8000_0000;
const SIGN64: u64 = 0x8000_0000_0000_0000;

/// Sign-extends the low 32 bits, as RV64 does for S results moved with
/// `fmv.x.w` and for `fcvt.w[u].*` results.
fn sext32(v: u32) -> u64 {
    v as i32 as i64 as u64
}

/// What this crate says for one case: (value as QEMU prints it, fflags).
fn ours(case: &Case) -> (u64, u8) {
    let rm = RoundingMode::from_bits(case.rm).expect("valid rm");
    let (a, b, c) = (case.a, case.b, case.c);
    let (a32, b32, c32) = (a as u32, b as u32, c as u32);
    let mut fl = Flags::default();
    let f = &mut fl;
    let v = match case.mnemonic {
        "fadd.s" => sext32(s::add(a32, b32, rm, f)),
        "fsub.s" => sext32(s::sub(a32, b32, rm, f)),
        "fmul.s" => sext32(s::mul(a32, b32, rm, f)),
        "fdiv.s" => sext32(s::div(a32, b32, rm, f)),
        "fsqrt.s" => sext32(s::sqrt(a32, rm, f)),
        // The executor's mapping of the four fused forms onto `fma`.
        "fmadd.s" => sext32(s::fma(a32, b32, c32, rm, f)),
        "fmsub.s" => sext32(s::fma(a32, b32, c32 ^ SIGN32, rm, f)),
        "fnmsub.s" => sext32(s::fma(a32 ^ SIGN32, b32, c32, rm, f)),
        "fnmadd.s" => sext32(s::fma(a32 ^ SIGN32, b32, c32 ^ SIGN32, rm, f)),
        "fmin.s" => sext32(s::min(a32, b32, f)),
        "fmax.s" => sext32(s::max(a32, b32, f)),
        "feq.s" => u64::from(s::eq(a32, b32, f)),
        "flt.s" => u64::from(s::lt(a32, b32, f)),
        "fle.s" => u64::from(s::le(a32, b32, f)),
        "fclass.s" => s::classify(a32),
        "fcvt.w.s" => s::to_i32(a32, rm, f) as i64 as u64,
        "fcvt.wu.s" => sext32(s::to_u32(a32, rm, f)),
        "fcvt.l.s" => s::to_i64(a32, rm, f) as u64,
        "fcvt.lu.s" => s::to_u64(a32, rm, f),
        "fcvt.s.w" => sext32(s::from_i32(a as i32, rm, f)),
        "fcvt.s.wu" => sext32(s::from_u32(a as u32, rm, f)),
        "fcvt.s.l" => sext32(s::from_i64(a as i64, rm, f)),
        "fcvt.s.lu" => sext32(s::from_u64(a, rm, f)),
        "fadd.d" => d::add(a, b, rm, f),
        "fsub.d" => d::sub(a, b, rm, f),
        "fmul.d" => d::mul(a, b, rm, f),
        "fdiv.d" => d::div(a, b, rm, f),
        "fsqrt.d" => d::sqrt(a, rm, f),
        "fmadd.d" => d::fma(a, b, c, rm, f),
        "fmsub.d" => d::fma(a, b, c ^ SIGN64, rm, f),
        "fnmsub.d" => d::fma(a ^ SIGN64, b, c, rm, f),
        "fnmadd.d" => d::fma(a ^ SIGN64, b, c ^ SIGN64, rm, f),
        "fmin.d" => d::min(a, b, f),
        "fmax.d" => d::max(a, b, f),
        "feq.d" => u64::from(d::eq(a, b, f)),
        "flt.d" => u64::from(d::lt(a, b, f)),
        "fle.d" => u64::from(d::le(a, b, f)),
        "fclass.d" => d::classify(a),
        "fcvt.w.d" => d::to_i32(a, rm, f) as i64 as u64,
        "fcvt.wu.d" => sext32(d::to_u32(a, rm, f)),
        "fcvt.l.d" => d::to_i64(a, rm, f) as u64,
        "fcvt.lu.d" => d::to_u64(a, rm, f),
        "fcvt.d.w" => d::from_i32(a as i32, rm, f),
        "fcvt.d.wu" => d::from_u32(a as u32, rm, f),
        "fcvt.d.l" => d::from_i64(a as i64, rm, f),
        "fcvt.d.lu" => d::from_u64(a, rm, f),
        "fcvt.s.d" => sext32(f64_to_f32(a, rm, f)),
        "fcvt.d.s" => f32_to_f64(a32, f),
        other => panic!("no mapping for {other}"),
    };
    (v, fl.0)
}

/// Floating-point operands for conversions to integer: the saturation
/// boundaries of every integer type, values with fractions of each kind
/// next to them, and random magnitudes from 2^-2 to 2^66.
fn to_int_operand(fmt: Fmt, r: &mut Rng) -> u64 {
    let sign = r.next() & 1 == 1;
    match r.below(4) {
        0 => {
            // k + frac with small k: exact, ties, just below/above ties
            let k = r.below(8) as f64;
            let frac = [0.0, 0.25, 0.3, 0.5, 0.7, 0.75][r.below(6) as usize];
            let v = if sign { -(k + frac) } else { k + frac };
            if fmt.frac_bits == 23 {
                u64::from((v as f32).to_bits())
            } else {
                v.to_bits()
            }
        }
        1 => {
            // 2^31, 2^32, 2^63, 2^64 and their neighbours one ulp away
            let e = [31u64, 32, 63, 64][r.below(4) as usize];
            let x = fmt.pack(sign, fmt.bias() + e, 0);
            match r.below(3) {
                0 => x,
                1 => x - 1, // next value towards zero
                _ => x + 1,
            }
        }
        2 => fmt.pack(sign, fmt.bias() - 2 + r.below(69), r.next()),
        _ => fmt.operand(r),
    }
}

/// Integer operands for conversions to floating point.
fn int_operand(r: &mut Rng) -> u64 {
    match r.below(4) {
        0 => {
            let special = [
                0u64,
                1,
                u64::MAX,
                i32::MAX as u64,
                i32::MIN as i64 as u64,
                u32::MAX as u64,
                i64::MAX as u64,
                i64::MIN as u64,
                (1 << 24) + 1,
                (1 << 53) + 1,
                (1 << 25) + 3,
                (1 << 54) + 3,
            ];
            special[r.below(special.len() as u64) as usize]
        }
        1 => r.next() >> r.below(64),
        2 => (r.next() >> r.below(64)).wrapping_neg(),
        _ => r.next(),
    }
}

fn generate() -> Vec<Case> {
    let mut out = Vec::new();
    let mut r = Rng(0x5eed);
    let fmts: [(Fmt, &str); 2] = [(F32, "s"), (F64, "d")];
    let mn = |m: String| -> &'static str { Box::leak(m.into_boxed_str()) };
    for (fmt, sfx) in fmts {
        let sp: Vec<u64> = fmt
            .specials()
            .into_iter()
            .flat_map(|v| [v, v | fmt.sign()])
            .collect();
        for op in ["fadd", "fsub", "fmul", "fdiv"] {
            let m = mn(format!("{op}.{sfx}"));
            for rm in [0u8, 2] {
                for &a in &sp {
                    for &b in &sp {
                        out.push(Case {
                            mnemonic: m,
                            rm,
                            a,
                            b,
                            c: 0,
                        });
                    }
                }
            }
            for rm in 0..5 {
                for _ in 0..1500 {
                    let (a, b) = if op != "fadd" && op != "fsub" && r.below(8) == 0 {
                        fmt.near_min_normal_pair(&mut r)
                    } else {
                        let a = fmt.operand(&mut r);
                        (a, fmt.partner(&mut r, a))
                    };
                    out.push(Case {
                        mnemonic: m,
                        rm,
                        a,
                        b,
                        c: 0,
                    });
                }
            }
        }
        let m = mn(format!("fsqrt.{sfx}"));
        for rm in 0..5 {
            for &a in &sp {
                out.push(Case {
                    mnemonic: m,
                    rm,
                    a,
                    b: 0,
                    c: 0,
                });
            }
            for _ in 0..1000 {
                out.push(Case {
                    mnemonic: m,
                    rm,
                    a: fmt.operand(&mut r),
                    b: 0,
                    c: 0,
                });
            }
        }
        for op in ["fmadd", "fmsub", "fnmsub", "fnmadd"] {
            let m = mn(format!("{op}.{sfx}"));
            for rm in 0..5 {
                for _ in 0..800 {
                    let a = fmt.operand(&mut r);
                    let b = fmt.partner(&mut r, a);
                    let c = match r.below(4) {
                        0 => {
                            // nearly cancels the product: single rounding matters
                            let p = if fmt.frac_bits == 23 {
                                u64::from(s::mul(
                                    a as u32,
                                    b as u32,
                                    RoundingMode::Rne,
                                    &mut Flags::default(),
                                ))
                            } else {
                                d::mul(a, b, RoundingMode::Rne, &mut Flags::default())
                            };
                            (p ^ fmt.sign()) ^ r.below(4)
                        }
                        1 => sp[r.below(sp.len() as u64) as usize],
                        2 => fmt.partner(&mut r, a),
                        _ => fmt.operand(&mut r),
                    };
                    out.push(Case {
                        mnemonic: m,
                        rm,
                        a,
                        b,
                        c,
                    });
                }
            }
            // special-value triples: inf*0 + qNaN and friends
            for _ in 0..1500 {
                let pick = |r: &mut Rng| sp[r.below(sp.len() as u64) as usize];
                let (a, b, c) = (pick(&mut r), pick(&mut r), pick(&mut r));
                out.push(Case {
                    mnemonic: m,
                    rm: r.below(5) as u8,
                    a,
                    b,
                    c,
                });
            }
        }
        for op in ["fmin", "fmax", "feq", "flt", "fle"] {
            let m = mn(format!("{op}.{sfx}"));
            for &a in &sp {
                for &b in &sp {
                    out.push(Case {
                        mnemonic: m,
                        rm: 0,
                        a,
                        b,
                        c: 0,
                    });
                }
            }
            for _ in 0..1000 {
                let a = fmt.operand(&mut r);
                let b = if r.below(2) == 0 {
                    fmt.operand(&mut r)
                } else {
                    fmt.partner(&mut r, a)
                };
                out.push(Case {
                    mnemonic: m,
                    rm: 0,
                    a,
                    b,
                    c: 0,
                });
            }
        }
        let m = mn(format!("fclass.{sfx}"));
        for &a in &sp {
            out.push(Case {
                mnemonic: m,
                rm: 0,
                a,
                b: 0,
                c: 0,
            });
        }
        for _ in 0..500 {
            out.push(Case {
                mnemonic: m,
                rm: 0,
                a: fmt.operand(&mut r),
                b: 0,
                c: 0,
            });
        }
        for op in ["fcvt.w", "fcvt.wu", "fcvt.l", "fcvt.lu"] {
            let m = mn(format!("{op}.{sfx}"));
            for rm in 0..5 {
                for &a in &sp {
                    out.push(Case {
                        mnemonic: m,
                        rm,
                        a,
                        b: 0,
                        c: 0,
                    });
                }
                for _ in 0..800 {
                    out.push(Case {
                        mnemonic: m,
                        rm,
                        a: to_int_operand(fmt, &mut r),
                        b: 0,
                        c: 0,
                    });
                }
            }
        }
        for ty in ["w", "wu", "l", "lu"] {
            let m = mn(format!("fcvt.{sfx}.{ty}"));
            for rm in 0..5 {
                for _ in 0..600 {
                    out.push(Case {
                        mnemonic: m,
                        rm,
                        a: int_operand(&mut r),
                        b: 0,
                        c: 0,
                    });
                }
            }
        }
    }
    let sp64: Vec<u64> = F64
        .specials()
        .into_iter()
        .flat_map(|v| [v, v | SIGN64])
        .collect();
    let sp32: Vec<u64> = F32
        .specials()
        .into_iter()
        .flat_map(|v| [v, v | u64::from(SIGN32)])
        .collect();
    for rm in 0..5 {
        for &a in &sp64 {
            out.push(Case {
                mnemonic: "fcvt.s.d",
                rm,
                a,
                b: 0,
                c: 0,
            });
        }
        for _ in 0..1500 {
            // binary64 values around the binary32 range: overflow, the
            // subnormal range, and exact-vs-inexact significands
            let e = F64.bias() - 160 + r.below(300);
            let frac = if r.below(3) == 0 {
                r.next() & !((1 << 29) - 1)
            } else {
                r.next()
            };
            let a = F64.pack(r.next() & 1 == 1, e, frac);
            let a = if r.below(4) == 0 {
                F64.operand(&mut r)
            } else {
                a
            };
            out.push(Case {
                mnemonic: "fcvt.s.d",
                rm,
                a,
                b: 0,
                c: 0,
            });
        }
    }
    for &a in &sp32 {
        out.push(Case {
            mnemonic: "fcvt.d.s",
            rm: 0,
            a,
            b: 0,
            c: 0,
        });
    }
    for _ in 0..1000 {
        out.push(Case {
            mnemonic: "fcvt.d.s",
            rm: 0,
            a: F32.operand(&mut r),
            b: 0,
            c: 0,
        });
    }
    out
}

fn have(tool: &str) -> bool {
    Command::new(tool)
        .arg("--version")
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .map(|s| s.success())
        .unwrap_or(false)
}

fn build_fpcheck(dir: &Path) -> PathBuf {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/qemu/fpcheck.c");
    let exe = dir.join("fpcheck");
    let out = Command::new(CC)
        .args([
            "-static",
            "-O1",
            "-march=rv64gc",
            "-mabi=lp64d",
            "-Wall",
            "-Werror",
            "-o",
        ])
        .arg(&exe)
        .arg(&src)
        .output()
        .expect("run the cross compiler");
    assert!(
        out.status.success(),
        "building fpcheck failed:\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    exe
}

#[test]
fn matches_qemu_bit_for_bit() {
    if !have(CC) || !have(QEMU) {
        let msg = format!("SKIPPED matches_qemu_bit_for_bit: {CC} or {QEMU} not found on PATH");
        assert!(std::env::var_os("FWPROF_REQUIRE_TOOLS").is_none(), "{msg}");
        eprintln!("{msg}");
        return;
    }
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("fwprof-fpu-qemu");
    std::fs::create_dir_all(&dir).expect("create temp dir");
    let exe = build_fpcheck(&dir);
    let cases = generate();
    let mut input = String::with_capacity(cases.len() * 64);
    for c in &cases {
        input.push_str(&format!(
            "{} {} {:x} {:x} {:x}\n",
            c.mnemonic, c.rm, c.a, c.b, c.c
        ));
    }
    let mut child = Command::new(QEMU)
        .arg(&exe)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("start qemu-riscv64");
    let mut stdin = child.stdin.take().expect("stdin");
    let writer = std::thread::spawn(move || stdin.write_all(input.as_bytes()));
    let out = child.wait_with_output().expect("qemu output");
    writer.join().expect("writer thread").expect("write cases");
    assert!(
        out.status.success(),
        "fpcheck failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8(out.stdout).expect("utf-8");
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(
        lines.len(),
        cases.len(),
        "fpcheck answered {} of {} cases",
        lines.len(),
        cases.len()
    );
    let mut bad = Vec::new();
    let mut per_op = std::collections::BTreeMap::<&str, usize>::new();
    for (c, line) in cases.iter().zip(&lines) {
        let mut it = line.split_whitespace();
        let v = u64::from_str_radix(it.next().expect("value"), 16).expect("hex value");
        let fl = u8::from_str_radix(it.next().expect("flags"), 16).expect("hex flags");
        *per_op.entry(c.mnemonic).or_default() += 1;
        let o = ours(c);
        if o != (v, fl) {
            bad.push(format!(
                "{} rm={} a={:#x} b={:#x} c={:#x}: qemu=({v:#x},{fl:#04x}) ours=({:#x},{:#04x})",
                c.mnemonic, c.rm, c.a, c.b, c.c, o.0, o.1
            ));
        }
    }
    eprintln!(
        "{} cases over {} mnemonics compared with qemu-riscv64",
        cases.len(),
        per_op.len()
    );
    assert!(cases.len() >= 20_000);
    assert_eq!(
        per_op.len(),
        48,
        "every F/D computational mnemonic is covered"
    );
    assert!(
        bad.is_empty(),
        "{} mismatches, first ones:\n{}",
        bad.len(),
        bad.iter().take(30).cloned().collect::<Vec<_>>().join("\n")
    );
}
