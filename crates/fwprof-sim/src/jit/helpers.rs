//! The functions translated code calls for what it does not do inline: slow
//! loads and stores (another region, a device, a page walk, a fault, a
//! store into translated code), the general path, hooks, and the bit-
//! manipulation values. Each is monomorphised per XLEN and hooks type, and
//! its address is written into the code as a constant.
//!
//! Every helper gets the block's [`JitCall`]. One that may end the block
//! returns 0 to go on, or the status [`crate::uop::exec_block`] would have
//! returned (`EXCEPTION | instructions started`), having set
//! `call.next` to the faulting instruction's pc and the exception in
//! [`Hart::pending`] as the interpreter does.

use super::JitCall;
use crate::exec::{load_fault, store_fault};
use crate::hart::Hart;
use crate::hooks::{Hooks, JumpKind};
use crate::memory::Memory;
use crate::trap::{Exc, CAUSE_CODE_WRITTEN};
use crate::uop::{general as general_step, EXCEPTION};
use fwprof_isa::Inst;

/// The parts of a [`JitCall`], as references.
///
/// # Safety
/// `call` is the live `JitCall` of the block being run: its pointers are
/// valid and unaliased for the duration of the helper (the run loop lent
/// them), and `hooks` points to an `H`.
#[inline(always)]
unsafe fn parts<'a, H: Hooks>(
    call: *mut JitCall,
) -> (&'a mut JitCall, &'a mut Hart, &'a mut Memory, &'a mut H) {
    // SAFETY: see the function's contract.
    unsafe {
        let c = &mut *call;
        let h = &mut *c.hart;
        let m = &mut *c.mem;
        let hooks = &mut *c.hooks.cast::<H>();
        (c, h, m, hooks)
    }
}

/// Instruction `k` of the instruction arena.
///
/// # Safety
/// `k` is the arena index of an instruction of a live block.
#[inline(always)]
unsafe fn inst(c: &JitCall, k: u64) -> Inst {
    // SAFETY: `insts` points to the arena (the caller's contract bounds `k`).
    unsafe { *c.insts.add(k as usize) }
}

/// Unpack a memory helper's `info`: index in the block, access size in
/// bytes, arena index (see `emit.rs`, `Emitter::mem_info`).
fn unpack(info: u64) -> (u64, u64, u64) {
    (info & 0xff, (info >> 8) & 0xff, info >> 16)
}

/// End the block at instruction `n` (at `pc`) with exception `exc`.
#[cold]
fn stop(c: &mut JitCall, h: &mut Hart, exc: Exc, n: u64, pc: u64) -> u64 {
    h.pending = exc;
    c.next = pc;
    EXCEPTION as u64 | (n + 1)
}

/// A load the inline fast path could not do: `size` bytes (1, 2, 4, 8) at
/// `addr` for instruction `n` at `pc` (`info` packs `n`, `size` and the
/// arena index). On success the value, zero-extended, is left in
/// `call.value`.
///
/// # Safety
/// See [`parts`].
pub(super) unsafe extern "C" fn load_slow<H: Hooks>(
    call: *mut JitCall,
    addr: u64,
    info: u64,
    pc: u64,
) -> u64 {
    // SAFETY: the caller's contract.
    let (c, h, m, hooks) = unsafe { parts::<H>(call) };
    let (n, size, _) = unpack(info);
    let r = match size {
        1 => m.load_u8(addr).map(u64::from),
        2 => m.load_u16(addr).map(u64::from),
        4 => m.load_u32(addr).map(u64::from),
        _ => m.load_u64(addr),
    };
    match r {
        Ok(v) => {
            if H::WANTS_MEMORY {
                hooks.on_mem(n as u32, addr, size as u8, false);
            }
            c.value = v;
            0
        }
        Err(a) => stop(c, h, load_fault(m, a), n, pc),
    }
}

/// A store the inline fast path could not do (see [`load_slow`]): after a
/// store into translated code the block ends as the interpreter ends it
/// (the internal code-written cause, `tval` = the next pc).
///
/// # Safety
/// See [`parts`]; `n` is below the block's length.
pub(super) unsafe extern "C" fn store_slow<H: Hooks>(
    call: *mut JitCall,
    addr: u64,
    value: u64,
    info: u64,
    pc: u64,
) -> u64 {
    // SAFETY: the caller's contract.
    let (c, h, m, hooks) = unsafe { parts::<H>(call) };
    let (n, size, k) = unpack(info);
    let r = match size {
        1 => m.store_u8(addr, value as u8),
        2 => m.store_u16(addr, value as u16),
        4 => m.store_u32(addr, value as u32),
        _ => m.store_u64(addr, value),
    };
    if let Err(a) = r {
        return stop(c, h, store_fault(m, a), n, pc);
    }
    if H::WANTS_MEMORY {
        hooks.on_mem(n as u32, addr, size as u8, true);
    }
    if m.has_code_writes() {
        // SAFETY: `k` is the store's arena index (the caller's contract).
        let len = u64::from(unsafe { inst(c, k) }.len);
        let exc = Exc {
            cause: CAUSE_CODE_WRITTEN,
            tval: pc.wrapping_add(len),
        };
        return stop(c, h, exc, n, pc);
    }
    0
}

/// Report a data access the inline fast path made.
///
/// # Safety
/// See [`parts`].
pub(super) unsafe extern "C" fn mem_hook<H: Hooks>(
    call: *mut JitCall,
    n: u64,
    addr: u64,
    size: u64,
    write: u64,
) {
    // SAFETY: the caller's contract.
    let (_, _, _, hooks) = unsafe { parts::<H>(call) };
    hooks.on_mem(n as u32, addr, size as u8, write != 0);
}

/// Report a data access of a plain load or store that the inline
/// data-cache check did not settle ([`Hooks::on_mem_unsettled`]).
///
/// # Safety
/// See [`parts`].
pub(super) unsafe extern "C" fn mem_unsettled_hook<H: Hooks>(
    call: *mut JitCall,
    n: u64,
    addr: u64,
    size: u64,
    write: u64,
) {
    // SAFETY: the caller's contract.
    let (_, _, _, hooks) = unsafe { parts::<H>(call) };
    hooks.on_mem_unsettled(n as u32, addr, size as u8, write != 0);
}

/// Report the operands of a shift by a register amount or a division.
///
/// # Safety
/// See [`parts`].
pub(super) unsafe extern "C" fn operands_hook<H: Hooks>(
    call: *mut JitCall,
    n: u64,
    a: u64,
    b: u64,
) {
    // SAFETY: the caller's contract.
    let (_, _, _, hooks) = unsafe { parts::<H>(call) };
    hooks.on_operands(n as u32, a, b);
}

/// Instruction `n` (at `pc`, arena index `k`) of block `id` on the general
/// path; `last` is 1 when it is the block's last instruction (its next pc
/// goes to `call.next`: `mret` and the like leave the straight line).
/// `id_k` packs `id` (low 32 bits) and `k`. The caller has written the
/// guest registers back to the hart and reloads them after.
///
/// # Safety
/// See [`parts`]; `k` is the instruction's arena index.
pub(super) unsafe extern "C" fn general<const RV64: bool, H: Hooks>(
    call: *mut JitCall,
    id_k: u64,
    n: u64,
    pc: u64,
    last: u64,
) -> u64 {
    // SAFETY: the caller's contract.
    let (c, h, m, hooks) = unsafe { parts::<H>(call) };
    let (id, k) = (id_k & 0xffff_ffff, id_k >> 32);
    // SAFETY: as above.
    let i = unsafe { inst(c, k) };
    match general_step::<RV64, H>(h, m, hooks, id as u32, n as usize, &i, pc) {
        Ok(p) => {
            if last != 0 {
                c.next = p;
            }
            0
        }
        Err(exc) => stop(c, h, exc, n, pc),
    }
}

/// The value of a Zba/Zbb/Zbc/Zbs instruction (arena index `k`: its
/// operation is read from the instruction) with operands `a`, `b` and `imm`.
///
/// # Safety
/// See [`parts`]; `k` is the instruction's arena index.
pub(super) unsafe extern "C" fn bitmanip<const RV64: bool>(
    call: *mut JitCall,
    k: u64,
    a: u64,
    b: u64,
    imm: u64,
) -> u64 {
    // SAFETY: the caller's contract.
    let op = unsafe { inst(&*call, k) }.op;
    crate::bitmanip::value::<RV64>(op, a, b, imm)
}

/// Tell the hooks that block `id` starts, `executed` instructions into the
/// run ([`Hooks::on_block_exec`]), when translated code chains into it.
///
/// # Safety
/// See [`parts`].
pub(super) unsafe extern "C" fn block_exec<H: Hooks>(call: *mut JitCall, id: u64, executed: u64) {
    // SAFETY: the caller's contract.
    let (_, _, _, hooks) = unsafe { parts::<H>(call) };
    hooks.on_block_exec(crate::hooks::BlockId(id as u32), executed);
}

/// Tell the hooks that block `id`'s final branch or jump went to `target`
/// (`taken` nonzero: it left the straight line), as the run loop does
/// ([`Hooks::on_branch`]), when translated code goes on by itself.
///
/// # Safety
/// See [`parts`].
pub(super) unsafe extern "C" fn branch_hook<H: Hooks>(
    call: *mut JitCall,
    id: u64,
    taken: u64,
    target: u64,
) {
    // SAFETY: the caller's contract.
    let (_, _, _, hooks) = unsafe { parts::<H>(call) };
    hooks.on_branch(crate::hooks::BlockId(id as u32), taken != 0, target);
}

/// Record the verdict `word` of the hooks' inline predictor on block
/// `id`'s final transfer ([`Hooks::on_branch_front`]), when translated
/// code finds the event log full.
///
/// # Safety
/// See [`parts`].
pub(super) unsafe extern "C" fn branch_front_hook<H: Hooks>(
    call: *mut JitCall,
    id: u64,
    word: u64,
) {
    // SAFETY: the caller's contract.
    let (_, _, _, hooks) = unsafe { parts::<H>(call) };
    hooks.on_branch_front(crate::hooks::BlockId(id as u32), word);
}

/// The jump kinds as translated code passes them (`emit.rs`).
pub(super) const JUMP_KINDS: [JumpKind; 5] = [
    JumpKind::Call,
    JumpKind::Return,
    JumpKind::CallReturn,
    JumpKind::Jump,
    JumpKind::LinkOther,
];

/// Report the `jal`/`jalr` that ended block `id` (`id_kind`: the id in the
/// low 32 bits, the index of its kind in [`JUMP_KINDS`] above; at `pc`,
/// link value `ret`) and went to `target`, as the run loop reports it
/// ([`crate::sim::report_jump`]). The block's registers and count are in
/// the hart.
///
/// # Safety
/// See [`parts`].
pub(super) unsafe extern "C" fn jump_hook<H: Hooks>(
    call: *mut JitCall,
    id_kind: u64,
    target: u64,
    pc: u64,
    ret: u64,
) {
    // SAFETY: the caller's contract.
    let (_, h, _, hooks) = unsafe { parts::<H>(call) };
    // (`get`, not `%`: a remainder by 5 is a multiply and shifts per jump.)
    let kind = JUMP_KINDS
        .get((id_kind >> 32) as usize)
        .copied()
        .unwrap_or(JumpKind::LinkOther);
    crate::sim::report_jump(hooks, h, id_kind as u32, kind, pc, ret, target);
}
