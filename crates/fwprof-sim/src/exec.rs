//! The general executor: one decoded instruction that has no micro-op form
//! (the plain integer instructions run from micro-ops, `uop.rs`). Zicsr and
//! the privileged instructions here; A in [`crate::exec_amo`], F/D in
//! [`crate::exec_fp`].
//!
//! [`step`] is generic over XLEN (`RV64`) so each configuration is compiled
//! without run-time width checks. It returns the next pc, or an [`Exc`] for
//! an exception (and for `ecall`/`ebreak`, which the simulator resolves into
//! environment calls or traps).

use crate::hart::{Hart, Privilege};
use crate::irq::{MSTATUS_TSR, MSTATUS_TVM, MSTATUS_TW};
use crate::memory::{Access, Memory};
use crate::trap::{
    Exc, CAUSE_BREAKPOINT, CAUSE_CODE_WRITTEN, CAUSE_ECALL_M, CAUSE_ECALL_S, CAUSE_ECALL_U,
    CAUSE_WFI,
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

/// The exception of a failed load at `addr`: an access fault, or a load
/// page fault when `m` says translation failed (`memory/vm.rs`).
#[cold]
pub(crate) fn load_fault(m: &Memory, addr: u64) -> Exc {
    Exc {
        cause: m.fault_cause(Access::Read),
        tval: addr,
    }
}

/// The exception of a failed store or AMO at `addr` (access or page fault).
#[cold]
pub(crate) fn store_fault(m: &Memory, addr: u64) -> Exc {
    Exc {
        cause: m.fault_cause(Access::Write),
        tval: addr,
    }
}

/// The general executor: execute `i`, located at `pc`, one of the
/// instructions that have no micro-op form (see `uop.rs`): F/D, A, Zicsr,
/// `fence.i`, `ecall`, `ebreak`, `mret`, `wfi`, loads into `x0`, illegal
/// encodings, and RV64-only operations on RV32 (illegal there). Returns the
/// next pc.
///
/// # Errors
/// The exception the instruction raises, with the hart unchanged except
/// where the ISA says otherwise. `ecall` returns cause 8/11 and `ebreak`
/// cause 3 for the caller to resolve. A store that modified translated code
/// returns the internal code-written cause with `tval` = next pc (the store
/// itself completed). An integer instruction with a micro-op form is not
/// executed here: it raises illegal instruction.
#[inline(always)]
pub(crate) fn step<const RV64: bool>(
    h: &mut Hart,
    m: &mut Memory,
    i: &Inst,
    pc: u64,
) -> Result<u64, Exc> {
    let next = pc.wrapping_add(i.len as u64);
    let imm = i.imm as i64 as u64;
    let addr = || ea::<RV64>(h.x(i.rs1).wrapping_add(imm));
    // Loads reach here only with rd = x0 (still performed: they can fault).
    let v: u64 = match i.op {
        Op::Lb => m.load_u8(addr()).map_err(|a| load_fault(m, a))? as i8 as i64 as u64,
        Op::Lh => m.load_u16(addr()).map_err(|a| load_fault(m, a))? as i16 as i64 as u64,
        Op::Lw => m.load_u32(addr()).map_err(|a| load_fault(m, a))? as i32 as i64 as u64,
        Op::Lbu => m.load_u8(addr()).map_err(|a| load_fault(m, a))? as u64,
        Op::Lhu => m.load_u16(addr()).map_err(|a| load_fault(m, a))? as u64,
        Op::Lwu if RV64 => m.load_u32(addr()).map_err(|a| load_fault(m, a))? as u64,
        Op::Ld if RV64 => m.load_u64(addr()).map_err(|a| load_fault(m, a))?,
        Op::Fence | Op::FenceI => return Ok(next),
        Op::Ecall => {
            let cause = match h.privilege {
                Privilege::User => CAUSE_ECALL_U,
                Privilege::Supervisor => CAUSE_ECALL_S,
                Privilege::Machine => CAUSE_ECALL_M,
            };
            return Err(Exc { cause, tval: 0 });
        }
        Op::Ebreak => {
            return Err(Exc {
                cause: CAUSE_BREAKPOINT,
                tval: 0,
            })
        }
        // Privileged ISA 20211203 §3.3.2 and QEMU 7.2 `helper_mret`,
        // `helper_sret`: mret only in M-mode; sret in M-mode, or in S-mode
        // unless mstatus.TSR.
        // QEMU 7.2 also refuses an mret to S- or U-mode while no PMP entry
        // is active (`helper_mret`: "PMP is enabled but no rules").
        Op::Mret
            if h.privilege == Privilege::Machine
                && (h.mstatus & crate::irq::MSTATUS_MPP == crate::irq::MSTATUS_MPP
                    || h.vm.pmp.any_active()) =>
        {
            return Ok(h.mret())
        }
        Op::Sret
            if h.privilege == Privilege::Machine
                || (h.privilege == Privilege::Supervisor && h.mstatus & MSTATUS_TSR == 0) =>
        {
            return Ok(h.sret())
        }
        // QEMU 7.2 `helper_wfi`: illegal in U-mode, and in S-mode with
        // mstatus.TW; the simulator decides how long the hart sleeps.
        Op::Wfi
            if h.privilege == Privilege::Machine
                || (h.privilege == Privilege::Supervisor && h.mstatus & MSTATUS_TW == 0) =>
        {
            return Err(Exc {
                cause: CAUSE_WFI,
                tval: 0,
            });
        }
        // QEMU 7.2 `helper_tlb_flush`: illegal in U-mode, and in S-mode
        // with mstatus.TVM (Privileged ISA §3.1.6.5, §4.2.1). rs1/rs2 = x0
        // mean all addresses / all address spaces.
        Op::SfenceVma
            if h.privilege == Privilege::Machine
                || (h.privilege == Privilege::Supervisor && h.mstatus & MSTATUS_TVM == 0) =>
        {
            let vaddr = (i.rs1 != 0).then(|| h.x(i.rs1));
            let asid = (i.rs2 != 0).then(|| h.x(i.rs2));
            m.sfence_vma(vaddr, asid);
            return Ok(next);
        }
        Op::Mret | Op::Sret | Op::Wfi | Op::SfenceVma => return Err(Exc::illegal(i.raw)),
        Op::Csrrw | Op::Csrrs | Op::Csrrc | Op::Csrrwi | Op::Csrrsi | Op::Csrrci => {
            csr_op::<RV64>(h, i)?;
            // satp, sstatus, mstatus, pmpcfg*, pmpaddr*: translation may
            // have changed (`mmu.rs`).
            let csr = (i.imm as u32 & 0xfff) as u16;
            if matches!(csr, 0x100 | 0x180 | 0x300 | 0x3A0..=0x3BF) {
                m.set_translation(h.translation());
            }
            return Ok(next);
        }
        op if op.atomic().is_some() => {
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
        // Everything else is F/D (or not executable here: illegal).
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
