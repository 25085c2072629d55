//! The A extension (Unprivileged ISA 20191213, Chapter 8): `lr`/`sc` and AMOs.
//!
//! LR/SC follow QEMU 7.2 (`target/riscv/insn_trans/trans_rva.c.inc`): `lr`
//! records the address and the loaded value; `sc` fails (rd = 1, no memory
//! access, no trap) unless its address equals the reserved one, and otherwise
//! succeeds iff memory still holds the loaded value (a compare-and-exchange),
//! so a plain store of the *same* value in between does not break the
//! reservation while a store of a different value does. Every `sc` clears
//! the reservation. AMOs do not touch it.
//!
//! Alignment (§8.2, §8.4): `lr` on a misaligned address raises
//! load-address-misaligned (4); AMOs raise store/AMO-address-misaligned (6);
//! `mtval` = the address. Access faults: `lr` → load access fault (5);
//! `sc`/AMOs → store/AMO access fault (7).

use crate::exec::{ea, load_fault, store_fault};
use crate::hart::Hart;
use crate::memory::Memory;
use crate::trap::{Exc, CAUSE_MISALIGNED_LOAD, CAUSE_MISALIGNED_STORE};
use fwprof_isa::{Inst, Op};

/// Execute an A-extension instruction.
///
/// # Errors
/// Misaligned or access-fault exceptions as described in the module docs;
/// illegal instruction for a `.d` form on RV32.
pub(crate) fn amo<const RV64: bool>(h: &mut Hart, m: &mut Memory, i: &Inst) -> Result<(), Exc> {
    let addr = ea::<RV64>(h.x(i.rs1));
    let src = h.x(i.rs2);
    let Some(access) = i.op.atomic() else {
        return Err(Exc::illegal(i.raw));
    };
    let size = access.width as u64;
    let double = size == 8;
    if double && !RV64 {
        return Err(Exc::illegal(i.raw));
    }
    match i.op {
        Op::LrW | Op::LrD => {
            if addr & (size - 1) != 0 {
                return Err(Exc {
                    cause: CAUSE_MISALIGNED_LOAD,
                    tval: addr,
                });
            }
            let v = if double {
                m.load_u64(addr).map_err(|a| load_fault(m, a))?
            } else {
                m.load_u32(addr).map_err(|a| load_fault(m, a))? as i32 as i64 as u64
            };
            h.res_addr = addr;
            h.res_val = v;
            h.set_x_xlen::<RV64>(i.rd, v);
        }
        Op::ScW | Op::ScD => {
            let ok = if h.res_addr != addr {
                false
            } else if addr & (size - 1) != 0 {
                return Err(Exc {
                    cause: CAUSE_MISALIGNED_STORE,
                    tval: addr,
                });
            } else if m.probe_store(addr, size).is_err() {
                return Err(store_fault(m, addr));
            } else if double {
                let cur = m.load_u64(addr).map_err(|a| store_fault(m, a))?;
                if cur == h.res_val {
                    m.store_u64(addr, src).map_err(|a| store_fault(m, a))?;
                    true
                } else {
                    false
                }
            } else {
                let cur = m.load_u32(addr).map_err(|a| store_fault(m, a))? as i32 as i64 as u64;
                if cur == h.res_val {
                    m.store_u32(addr, src as u32)
                        .map_err(|a| store_fault(m, a))?;
                    true
                } else {
                    false
                }
            };
            h.res_addr = u64::MAX;
            h.set_x_xlen::<RV64>(i.rd, (!ok) as u64);
        }
        _ => {
            if addr & (size - 1) != 0 {
                return Err(Exc {
                    cause: CAUSE_MISALIGNED_STORE,
                    tval: addr,
                });
            }
            // Looked up for writing first (paging, PMP): a read-only page
            // faults as a store without a read (QEMU 7.2 atomics).
            m.probe_store(addr, size).map_err(|a| store_fault(m, a))?;
            if double {
                let old = m.load_u64(addr).map_err(|a| store_fault(m, a))?;
                let new = match i.op {
                    Op::AmoswapD => src,
                    Op::AmoaddD => old.wrapping_add(src),
                    Op::AmoxorD => old ^ src,
                    Op::AmoandD => old & src,
                    Op::AmoorD => old | src,
                    Op::AmominD => (old as i64).min(src as i64) as u64,
                    Op::AmomaxD => (old as i64).max(src as i64) as u64,
                    Op::AmominuD => old.min(src),
                    _ => old.max(src), // amomaxu.d
                };
                m.store_u64(addr, new).map_err(|a| store_fault(m, a))?;
                h.set_x_xlen::<RV64>(i.rd, old);
            } else {
                let old = m.load_u32(addr).map_err(|a| store_fault(m, a))?;
                let s = src as u32;
                let new = match i.op {
                    Op::AmoswapW => s,
                    Op::AmoaddW => old.wrapping_add(s),
                    Op::AmoxorW => old ^ s,
                    Op::AmoandW => old & s,
                    Op::AmoorW => old | s,
                    Op::AmominW => (old as i32).min(s as i32) as u32,
                    Op::AmomaxW => (old as i32).max(s as i32) as u32,
                    Op::AmominuW => old.min(s),
                    _ => old.max(s), // amomaxu.w
                };
                m.store_u32(addr, new).map_err(|a| store_fault(m, a))?;
                h.set_x_xlen::<RV64>(i.rd, old as i32 as i64 as u64);
            }
        }
    }
    Ok(())
}
