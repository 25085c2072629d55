//! The F and D extensions (Unprivileged ISA 20191213, Chapters 11 and 12),
//! arithmetic delegated to `fwprof_fpu`.
//!
//! * With `mstatus.FS` = Off every F/D instruction raises illegal
//!   instruction (Privileged ISA 20211203, §3.1.6.6).
//! * Rounding mode: the instruction's `rm`, or `frm` when `rm` = 7 (dyn);
//!   a reserved result (5, 6, or 7 in `frm`) raises illegal instruction
//!   (§11.2). QEMU 7.2 checks `rm` for every instruction that has the field,
//!   including exact conversions, and so does this file.
//! * Singles are read through the NaN-box check and written NaN-boxed
//!   (§12.2), except `fmv.x.w` and `fsw`, which move the low 32 bits as they
//!   are (§11.5, §11.7).
//! * Results written to `x` registers that are 32 bits wide (`fcvt.w[u].*`,
//!   `fmv.x.w`) are sign-extended on RV64 (§11.7).
//! * `fmsub`/`fnmsub`/`fnmadd` negate operands by flipping sign bits before
//!   the fused multiply-add (§11.6).

use crate::exec::{ea, load_fault, store_fault};
use crate::hart::Hart;
use crate::memory::Memory;
use crate::trap::Exc;
use fwprof_fpu::{f32 as s, f64 as d, Flags, RoundingMode};
use fwprof_isa::{Inst, Op};

const SIGN_S: u32 = 0x8000_0000;
const SIGN_D: u64 = 0x8000_0000_0000_0000;

fn rounding(h: &Hart, i: &Inst) -> Result<RoundingMode, Exc> {
    let rm = if i.rm == 7 { h.frm } else { i.rm };
    RoundingMode::from_bits(rm).ok_or(Exc::illegal(i.raw))
}

/// Execute an F/D instruction (or reject an op that is not one, or an
/// RV64-only op on RV32, as illegal).
///
/// # Errors
/// Illegal instruction (FS off, bad rounding mode, not an F/D op); access
/// faults for `flw`/`fld`/`fsw`/`fsd`.
pub(crate) fn fp<const RV64: bool>(h: &mut Hart, m: &mut Memory, i: &Inst) -> Result<(), Exc> {
    if h.fs == 0 {
        return Err(Exc::illegal(i.raw));
    }
    let ill = Exc::illegal(i.raw);
    let mut fl = Flags::default();
    let (rd, r1, r2, r3) = (i.rd, i.rs1, i.rs2, i.rs3);
    match i.op {
        // Loads and stores.
        Op::Flw => {
            let v = m
                .load_u32(ea::<RV64>(h.x(r1).wrapping_add(i.imm as i64 as u64)))
                .map_err(|a| load_fault(m, a))?;
            h.set_f32(rd, v);
        }
        Op::Fld => {
            let v = m
                .load_u64(ea::<RV64>(h.x(r1).wrapping_add(i.imm as i64 as u64)))
                .map_err(|a| load_fault(m, a))?;
            h.set_f(rd, v);
        }
        Op::Fsw => {
            let addr = ea::<RV64>(h.x(r1).wrapping_add(i.imm as i64 as u64));
            m.store_u32(addr, h.f(r2) as u32)
                .map_err(|a| store_fault(m, a))?;
        }
        Op::Fsd => {
            let addr = ea::<RV64>(h.x(r1).wrapping_add(i.imm as i64 as u64));
            m.store_u64(addr, h.f(r2)).map_err(|a| store_fault(m, a))?;
        }
        // Single precision arithmetic.
        Op::FaddS | Op::FsubS | Op::FmulS | Op::FdivS | Op::FsqrtS => {
            let rm = rounding(h, i)?;
            let (a, b) = (h.f32(r1), h.f32(r2));
            let v = match i.op {
                Op::FaddS => s::add(a, b, rm, &mut fl),
                Op::FsubS => s::sub(a, b, rm, &mut fl),
                Op::FmulS => s::mul(a, b, rm, &mut fl),
                Op::FdivS => s::div(a, b, rm, &mut fl),
                _ => s::sqrt(a, rm, &mut fl),
            };
            h.set_f32(rd, v);
        }
        Op::FmaddS | Op::FmsubS | Op::FnmsubS | Op::FnmaddS => {
            let rm = rounding(h, i)?;
            let (a, b, c) = (h.f32(r1), h.f32(r2), h.f32(r3));
            let v = match i.op {
                Op::FmaddS => s::fma(a, b, c, rm, &mut fl),
                Op::FmsubS => s::fma(a, b, c ^ SIGN_S, rm, &mut fl),
                Op::FnmsubS => s::fma(a ^ SIGN_S, b, c, rm, &mut fl),
                _ => s::fma(a ^ SIGN_S, b, c ^ SIGN_S, rm, &mut fl), // fnmadd.s
            };
            h.set_f32(rd, v);
        }
        Op::FsgnjS | Op::FsgnjnS | Op::FsgnjxS => {
            let (a, b) = (h.f32(r1), h.f32(r2));
            let v = match i.op {
                Op::FsgnjS => (a & !SIGN_S) | (b & SIGN_S),
                Op::FsgnjnS => (a & !SIGN_S) | (!b & SIGN_S),
                _ => a ^ (b & SIGN_S), // fsgnjx.s
            };
            h.set_f32(rd, v);
        }
        Op::FminS => {
            let v = s::min(h.f32(r1), h.f32(r2), &mut fl);
            h.set_f32(rd, v);
        }
        Op::FmaxS => {
            let v = s::max(h.f32(r1), h.f32(r2), &mut fl);
            h.set_f32(rd, v);
        }
        Op::FcvtWS | Op::FcvtWuS | Op::FcvtLS | Op::FcvtLuS => {
            if !RV64 && matches!(i.op, Op::FcvtLS | Op::FcvtLuS) {
                return Err(ill);
            }
            let rm = rounding(h, i)?;
            let a = h.f32(r1);
            let v = match i.op {
                Op::FcvtWS => s::to_i32(a, rm, &mut fl) as i64 as u64,
                Op::FcvtWuS => s::to_u32(a, rm, &mut fl) as i32 as i64 as u64,
                Op::FcvtLS => s::to_i64(a, rm, &mut fl) as u64,
                _ => s::to_u64(a, rm, &mut fl), // fcvt.lu.s
            };
            h.set_x_xlen::<RV64>(rd, v);
        }
        Op::FcvtSW | Op::FcvtSWu | Op::FcvtSL | Op::FcvtSLu => {
            if !RV64 && matches!(i.op, Op::FcvtSL | Op::FcvtSLu) {
                return Err(ill);
            }
            let rm = rounding(h, i)?;
            let x = h.x(r1);
            let v = match i.op {
                Op::FcvtSW => s::from_i32(x as i32, rm, &mut fl),
                Op::FcvtSWu => s::from_u32(x as u32, rm, &mut fl),
                Op::FcvtSL => s::from_i64(x as i64, rm, &mut fl),
                _ => s::from_u64(x, rm, &mut fl), // fcvt.s.lu
            };
            h.set_f32(rd, v);
        }
        Op::FmvXW => h.set_x_xlen::<RV64>(rd, h.f(r1) as u32 as i32 as i64 as u64),
        Op::FmvWX => h.set_f32(rd, h.x(r1) as u32),
        Op::FeqS | Op::FltS | Op::FleS => {
            let (a, b) = (h.f32(r1), h.f32(r2));
            let v = match i.op {
                Op::FeqS => s::eq(a, b, &mut fl),
                Op::FltS => s::lt(a, b, &mut fl),
                _ => s::le(a, b, &mut fl), // fle.s
            };
            h.set_x_xlen::<RV64>(rd, v as u64);
        }
        Op::FclassS => h.set_x_xlen::<RV64>(rd, s::classify(h.f32(r1))),
        // Double precision arithmetic.
        Op::FaddD | Op::FsubD | Op::FmulD | Op::FdivD | Op::FsqrtD => {
            let rm = rounding(h, i)?;
            let (a, b) = (h.f(r1), h.f(r2));
            let v = match i.op {
                Op::FaddD => d::add(a, b, rm, &mut fl),
                Op::FsubD => d::sub(a, b, rm, &mut fl),
                Op::FmulD => d::mul(a, b, rm, &mut fl),
                Op::FdivD => d::div(a, b, rm, &mut fl),
                _ => d::sqrt(a, rm, &mut fl),
            };
            h.set_f(rd, v);
        }
        Op::FmaddD | Op::FmsubD | Op::FnmsubD | Op::FnmaddD => {
            let rm = rounding(h, i)?;
            let (a, b, c) = (h.f(r1), h.f(r2), h.f(r3));
            let v = match i.op {
                Op::FmaddD => d::fma(a, b, c, rm, &mut fl),
                Op::FmsubD => d::fma(a, b, c ^ SIGN_D, rm, &mut fl),
                Op::FnmsubD => d::fma(a ^ SIGN_D, b, c, rm, &mut fl),
                _ => d::fma(a ^ SIGN_D, b, c ^ SIGN_D, rm, &mut fl), // fnmadd.d
            };
            h.set_f(rd, v);
        }
        Op::FsgnjD | Op::FsgnjnD | Op::FsgnjxD => {
            let (a, b) = (h.f(r1), h.f(r2));
            let v = match i.op {
                Op::FsgnjD => (a & !SIGN_D) | (b & SIGN_D),
                Op::FsgnjnD => (a & !SIGN_D) | (!b & SIGN_D),
                _ => a ^ (b & SIGN_D), // fsgnjx.d
            };
            h.set_f(rd, v);
        }
        Op::FminD => {
            let v = d::min(h.f(r1), h.f(r2), &mut fl);
            h.set_f(rd, v);
        }
        Op::FmaxD => {
            let v = d::max(h.f(r1), h.f(r2), &mut fl);
            h.set_f(rd, v);
        }
        Op::FcvtSD => {
            let rm = rounding(h, i)?;
            let v = fwprof_fpu::f64_to_f32(h.f(r1), rm, &mut fl);
            h.set_f32(rd, v);
        }
        Op::FcvtDS => {
            rounding(h, i)?;
            let v = fwprof_fpu::f32_to_f64(h.f32(r1), &mut fl);
            h.set_f(rd, v);
        }
        Op::FcvtWD | Op::FcvtWuD | Op::FcvtLD | Op::FcvtLuD => {
            if !RV64 && matches!(i.op, Op::FcvtLD | Op::FcvtLuD) {
                return Err(ill);
            }
            let rm = rounding(h, i)?;
            let a = h.f(r1);
            let v = match i.op {
                Op::FcvtWD => d::to_i32(a, rm, &mut fl) as i64 as u64,
                Op::FcvtWuD => d::to_u32(a, rm, &mut fl) as i32 as i64 as u64,
                Op::FcvtLD => d::to_i64(a, rm, &mut fl) as u64,
                _ => d::to_u64(a, rm, &mut fl), // fcvt.lu.d
            };
            h.set_x_xlen::<RV64>(rd, v);
        }
        Op::FcvtDW | Op::FcvtDWu | Op::FcvtDL | Op::FcvtDLu => {
            if !RV64 && matches!(i.op, Op::FcvtDL | Op::FcvtDLu) {
                return Err(ill);
            }
            let rm = rounding(h, i)?;
            let x = h.x(r1);
            let v = match i.op {
                Op::FcvtDW => d::from_i32(x as i32, rm, &mut fl),
                Op::FcvtDWu => d::from_u32(x as u32, rm, &mut fl),
                Op::FcvtDL => d::from_i64(x as i64, rm, &mut fl),
                _ => d::from_u64(x, rm, &mut fl), // fcvt.d.lu
            };
            h.set_f(rd, v);
        }
        Op::FmvXD if RV64 => h.set_x_xlen::<RV64>(rd, h.f(r1)),
        Op::FmvDX if RV64 => h.set_f(rd, h.x(r1)),
        Op::FeqD | Op::FltD | Op::FleD => {
            let (a, b) = (h.f(r1), h.f(r2));
            let v = match i.op {
                Op::FeqD => d::eq(a, b, &mut fl),
                Op::FltD => d::lt(a, b, &mut fl),
                _ => d::le(a, b, &mut fl), // fle.d
            };
            h.set_x_xlen::<RV64>(rd, v as u64);
        }
        Op::FclassD => h.set_x_xlen::<RV64>(rd, d::classify(h.f(r1))),
        _ => return Err(ill),
    }
    h.accrue(fl.0);
    Ok(())
}
