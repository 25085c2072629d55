//! Executing one decoded instruction: RV32I/RV64I, M, Zicsr and the
//! privileged instructions here; A in [`crate::exec_amo`], F/D in
//! [`crate::exec_fp`].
//!
//! [`step`] is generic over XLEN (`RV64`) so each configuration is compiled
//! without run-time width checks. It returns the next pc, or an [`Exc`] for
//! an exception (and for `ecall`/`ebreak`, which the simulator resolves into
//! environment calls or traps).

use crate::hart::{Hart, Privilege};
use crate::memory::Memory;
use crate::trap::{
    Exc, CAUSE_BREAKPOINT, CAUSE_CODE_WRITTEN, CAUSE_ECALL_M, CAUSE_ECALL_U, CAUSE_LOAD_ACCESS,
    CAUSE_STORE_ACCESS,
};
use fwprof_isa::{Inst, Op};

/// Effective address: on RV32 addresses are 32 bits (registers hold
/// sign-extended values, so truncate).
#[inline(always)]
pub(crate) fn ea<const RV64: bool>(v: u64) -> u64 {
    if RV64 {
        v
    } else {
        v & 0xffff_ffff
    }
}

#[inline(always)]
pub(crate) fn load_fault(addr: u64) -> Exc {
    Exc {
        cause: CAUSE_LOAD_ACCESS,
        tval: addr,
    }
}

#[inline(always)]
pub(crate) fn store_fault(addr: u64) -> Exc {
    Exc {
        cause: CAUSE_STORE_ACCESS,
        tval: addr,
    }
}

#[inline(always)]
fn sext32(v: u64) -> u64 {
    v as i32 as i64 as u64
}

/// Execute `i` located at `pc`. Returns the next pc.
///
/// # Errors
/// The exception the instruction raises, with the hart unchanged except
/// where the ISA says otherwise. `ecall` returns cause 8/11 and `ebreak`
/// cause 3 for the caller to resolve. A store that modified translated code
/// returns the internal code-written cause with `tval` = next pc (the store
/// itself completed).
#[inline(always)]
pub(crate) fn step<const RV64: bool>(
    h: &mut Hart,
    m: &mut Memory,
    i: &Inst,
    pc: u64,
) -> Result<u64, Exc> {
    let next = pc.wrapping_add(i.len as u64);
    let a = h.x(i.rs1);
    let b = h.x(i.rs2);
    let imm = i.imm as i64 as u64;
    let shmask: u64 = if RV64 { 63 } else { 31 };
    let v: u64 = match i.op {
        Op::Lui => imm,
        Op::Auipc => pc.wrapping_add(imm),
        Op::Jal => {
            h.set_x_xlen::<RV64>(i.rd, next);
            return Ok(ea::<RV64>(pc.wrapping_add(imm)));
        }
        Op::Jalr => {
            let t = ea::<RV64>(a.wrapping_add(imm) & !1);
            h.set_x_xlen::<RV64>(i.rd, next);
            return Ok(t);
        }
        Op::Beq | Op::Bne | Op::Blt | Op::Bge | Op::Bltu | Op::Bgeu => {
            let taken = match i.op {
                Op::Beq => a == b,
                Op::Bne => a != b,
                Op::Blt => (a as i64) < (b as i64),
                Op::Bge => (a as i64) >= (b as i64),
                Op::Bltu => a < b,
                _ => a >= b,
            };
            return Ok(if taken {
                ea::<RV64>(pc.wrapping_add(imm))
            } else {
                next
            });
        }
        Op::Lb => m
            .load_u8(ea::<RV64>(a.wrapping_add(imm)))
            .map_err(load_fault)? as i8 as i64 as u64,
        Op::Lh => m
            .load_u16(ea::<RV64>(a.wrapping_add(imm)))
            .map_err(load_fault)? as i16 as i64 as u64,
        Op::Lw => m
            .load_u32(ea::<RV64>(a.wrapping_add(imm)))
            .map_err(load_fault)? as i32 as i64 as u64,
        Op::Lbu => m
            .load_u8(ea::<RV64>(a.wrapping_add(imm)))
            .map_err(load_fault)? as u64,
        Op::Lhu => m
            .load_u16(ea::<RV64>(a.wrapping_add(imm)))
            .map_err(load_fault)? as u64,
        Op::Lwu if RV64 => m.load_u32(a.wrapping_add(imm)).map_err(load_fault)? as u64,
        Op::Ld if RV64 => m.load_u64(a.wrapping_add(imm)).map_err(load_fault)?,
        Op::Sb | Op::Sh | Op::Sw | Op::Sd => {
            let addr = ea::<RV64>(a.wrapping_add(imm));
            match i.op {
                Op::Sb => m.store_u8(addr, b as u8),
                Op::Sh => m.store_u16(addr, b as u16),
                Op::Sw => m.store_u32(addr, b as u32),
                _ if RV64 => m.store_u64(addr, b),
                _ => return Err(Exc::illegal(i.raw)),
            }
            .map_err(store_fault)?;
            if m.has_code_writes() {
                return Err(Exc {
                    cause: CAUSE_CODE_WRITTEN,
                    tval: next,
                });
            }
            return Ok(next);
        }
        Op::Addi => a.wrapping_add(imm),
        Op::Slti => ((a as i64) < (imm as i64)) as u64,
        Op::Sltiu => (a < imm) as u64,
        Op::Xori => a ^ imm,
        Op::Ori => a | imm,
        Op::Andi => a & imm,
        Op::Slli => a << (imm & shmask),
        Op::Srli => {
            if RV64 {
                a >> (imm & 63)
            } else {
                (a as u32 >> (imm & 31)) as u64
            }
        }
        Op::Srai => {
            if RV64 {
                ((a as i64) >> (imm & 63)) as u64
            } else {
                ((a as i32) >> (imm & 31)) as i64 as u64
            }
        }
        Op::Add => a.wrapping_add(b),
        Op::Sub => a.wrapping_sub(b),
        Op::Sll => a << (b & shmask),
        Op::Slt => ((a as i64) < (b as i64)) as u64,
        Op::Sltu => (a < b) as u64,
        Op::Xor => a ^ b,
        Op::Srl => {
            if RV64 {
                a >> (b & 63)
            } else {
                (a as u32 >> (b & 31)) as u64
            }
        }
        Op::Sra => {
            if RV64 {
                ((a as i64) >> (b & 63)) as u64
            } else {
                ((a as i32) >> (b & 31)) as i64 as u64
            }
        }
        Op::Or => a | b,
        Op::And => a & b,
        Op::Addiw if RV64 => sext32(a.wrapping_add(imm)),
        Op::Slliw if RV64 => sext32(((a as u32) << (imm & 31)) as u64),
        Op::Srliw if RV64 => sext32(((a as u32) >> (imm & 31)) as u64),
        Op::Sraiw if RV64 => ((a as i32) >> (imm & 31)) as i64 as u64,
        Op::Addw if RV64 => sext32(a.wrapping_add(b)),
        Op::Subw if RV64 => sext32(a.wrapping_sub(b)),
        Op::Sllw if RV64 => sext32(((a as u32) << (b & 31)) as u64),
        Op::Srlw if RV64 => sext32(((a as u32) >> (b & 31)) as u64),
        Op::Sraw if RV64 => ((a as i32) >> (b & 31)) as i64 as u64,
        // M extension (Unprivileged ISA §7; division table §7.2).
        Op::Mul => a.wrapping_mul(b),
        Op::Mulh => {
            if RV64 {
                ((a as i64 as i128 * b as i64 as i128) >> 64) as u64
            } else {
                ((a as i64 * b as i64) >> 32) as u64
            }
        }
        Op::Mulhsu => {
            if RV64 {
                ((a as i64 as i128 * b as u128 as i128) >> 64) as u64
            } else {
                ((a as i64 * (b as u32 as i64)) >> 32) as u64
            }
        }
        Op::Mulhu => {
            if RV64 {
                ((a as u128 * b as u128) >> 64) as u64
            } else {
                (a as u32 as u64 * b as u32 as u64) >> 32
            }
        }
        // RV32 values are sign-extended, so 64-bit signed division gives the
        // 32-bit results (i32::MIN / -1 = 2^31, which truncates to i32::MIN).
        Op::Div => {
            if b == 0 {
                u64::MAX
            } else {
                (a as i64).wrapping_div(b as i64) as u64
            }
        }
        Op::Rem => {
            if b == 0 {
                a
            } else {
                (a as i64).wrapping_rem(b as i64) as u64
            }
        }
        Op::Divu => {
            if RV64 {
                a.checked_div(b).unwrap_or(u64::MAX)
            } else {
                (a as u32).checked_div(b as u32).unwrap_or(u32::MAX) as u64
            }
        }
        Op::Remu => {
            if RV64 {
                if b == 0 {
                    a
                } else {
                    a % b
                }
            } else if b as u32 == 0 {
                a
            } else {
                ((a as u32) % (b as u32)) as u64
            }
        }
        Op::Mulw if RV64 => (a as i32).wrapping_mul(b as i32) as i64 as u64,
        Op::Divw if RV64 => {
            if b as i32 == 0 {
                u64::MAX
            } else {
                (a as i32).wrapping_div(b as i32) as i64 as u64
            }
        }
        Op::Divuw if RV64 => sext32((a as u32).checked_div(b as u32).unwrap_or(u32::MAX) as u64),
        Op::Remw if RV64 => {
            if b as i32 == 0 {
                sext32(a)
            } else {
                (a as i32).wrapping_rem(b as i32) as i64 as u64
            }
        }
        Op::Remuw if RV64 => {
            if b as u32 == 0 {
                sext32(a)
            } else {
                sext32(((a as u32) % (b as u32)) as u64)
            }
        }
        Op::Fence => return Ok(next),
        Op::FenceI => return Ok(next),
        Op::Ecall => {
            let cause = if h.privilege == Privilege::User {
                CAUSE_ECALL_U
            } else {
                CAUSE_ECALL_M
            };
            return Err(Exc { cause, tval: 0 });
        }
        Op::Ebreak => {
            return Err(Exc {
                cause: CAUSE_BREAKPOINT,
                tval: 0,
            })
        }
        Op::Mret | Op::Wfi => {
            // Both are illegal in U-mode (Privileged ISA §3.3.2, §3.3.3; QEMU
            // 7.2 raises illegal instruction for `wfi` in U-mode).
            if h.privilege == Privilege::User {
                return Err(Exc::illegal(i.raw));
            }
            if i.op == Op::Mret {
                return Ok(h.mret());
            }
            return Ok(next);
        }
        Op::Csrrw | Op::Csrrs | Op::Csrrc | Op::Csrrwi | Op::Csrrsi | Op::Csrrci => {
            csr_op::<RV64>(h, i)?;
            return Ok(next);
        }
        Op::LrW
        | Op::ScW
        | Op::AmoswapW
        | Op::AmoaddW
        | Op::AmoxorW
        | Op::AmoandW
        | Op::AmoorW
        | Op::AmominW
        | Op::AmomaxW
        | Op::AmominuW
        | Op::AmomaxuW
        | Op::LrD
        | Op::ScD
        | Op::AmoswapD
        | Op::AmoaddD
        | Op::AmoxorD
        | Op::AmoandD
        | Op::AmoorD
        | Op::AmominD
        | Op::AmomaxD
        | Op::AmominuD
        | Op::AmomaxuD => {
            crate::exec_amo::amo::<RV64>(h, m, i)?;
            if m.has_code_writes() {
                return Err(Exc {
                    cause: CAUSE_CODE_WRITTEN,
                    tval: next,
                });
            }
            return Ok(next);
        }
        Op::Illegal => return Err(Exc::illegal(i.raw)),
        // Everything else is F/D, or an RV64-only op on RV32 (illegal).
        _ => {
            crate::exec_fp::fp::<RV64>(h, m, i)?;
            if m.has_code_writes() {
                return Err(Exc {
                    cause: CAUSE_CODE_WRITTEN,
                    tval: next,
                });
            }
            return Ok(next);
        }
    };
    h.set_x_xlen::<RV64>(i.rd, v);
    Ok(next)
}

/// Zicsr (Unprivileged ISA 20191213, §9.1): `csrrw`/`csrrwi` with `rd` = x0
/// do not read; `csrrs`/`csrrc` (and the `i` forms) with `rs1` = x0 / `uimm`
/// = 0 do not write, so they may read read-only CSRs.
fn csr_op<const RV64: bool>(h: &mut Hart, i: &Inst) -> Result<(), Exc> {
    let csr = (i.imm as u32 & 0xfff) as u16;
    let ill = |_| Exc::illegal(i.raw);
    let src = match i.op {
        Op::Csrrwi | Op::Csrrsi | Op::Csrrci => i.rs1 as u64,
        _ => h.x(i.rs1),
    };
    match i.op {
        Op::Csrrw | Op::Csrrwi => {
            if i.rd == 0 {
                h.csr_write(csr, src).map_err(ill)?;
            } else {
                let old = h.csr_read(csr).map_err(ill)?;
                h.csr_write(csr, src).map_err(ill)?;
                h.set_x_xlen::<RV64>(i.rd, old);
            }
        }
        _ => {
            let old = h.csr_read(csr).map_err(ill)?;
            if i.rs1 != 0 {
                let new = if matches!(i.op, Op::Csrrs | Op::Csrrsi) {
                    old | src
                } else {
                    old & !src
                };
                h.csr_write(csr, new).map_err(ill)?;
            }
            h.set_x_xlen::<RV64>(i.rd, old);
        }
    }
    Ok(())
}
