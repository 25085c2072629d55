//! Facts about instructions and addresses that both timing models (the fast
//! one in `model.rs` and the reference) read: which integer registers an
//! instruction reads and writes, how it transfers control, what a division's
//! quotient is, and which memory region an address falls in.

use crate::params::MemoryRegion;
use crate::predictor::BranchKind;
use fwprof_isa::{Inst, InstClass, Op, Xlen};
use fwprof_sim::{jump_kind, JumpKind};

/// Wait states and `uncached` of the region holding `addr` (0, false
/// outside every region).
pub(crate) fn wait_states(regions: &[MemoryRegion], addr: u64) -> (u32, bool) {
    regions
        .iter()
        .find(|r| addr.wrapping_sub(r.base) < r.size)
        .map_or((0, false), |r| (r.wait_states, r.uncached))
}

/// The magnitude of the quotient of division-family `op` on operands `a`,
/// `b` (what [`crate::ClassLatencies::div_cycles`] takes): unsigned for the
/// unsigned forms, absolute for the signed ones, all ones (the architectural
/// result) for a division by zero; 32-bit for the `w` forms and on RV32.
pub(crate) fn quotient(op: Op, a: u64, b: u64, rv64: bool) -> u64 {
    let word = !rv64 || matches!(op, Op::Divw | Op::Divuw | Op::Remw | Op::Remuw);
    let signed = matches!(op, Op::Div | Op::Rem | Op::Divw | Op::Remw);
    if word {
        let (a, b) = (a as u32, b as u32);
        if b == 0 {
            return u64::from(u32::MAX);
        }
        if signed {
            u64::from(((a as i32).wrapping_div(b as i32)).unsigned_abs())
        } else {
            u64::from(a / b)
        }
    } else if b == 0 {
        u64::MAX
    } else if signed {
        (a as i64).wrapping_div(b as i64).unsigned_abs()
    } else {
        a / b
    }
}

/// Shifts and rotates (Zbb) by a register amount: their cost on a core
/// without a barrel shifter depends on the amount, known only at run time.
pub(crate) fn is_register_shift(op: Op) -> bool {
    matches!(
        op,
        Op::Sll
            | Op::Srl
            | Op::Sra
            | Op::Sllw
            | Op::Srlw
            | Op::Sraw
            | Op::Rol
            | Op::Ror
            | Op::Rolw
            | Op::Rorw
    )
}

/// Register shifts whose amount is 5 bits on RV64 too (the `w` forms).
pub(crate) fn is_word_shift(op: Op) -> bool {
    matches!(op, Op::Sllw | Op::Srlw | Op::Sraw | Op::Rolw | Op::Rorw)
}

/// Integer registers `i` reads (0 = none) and writes.
pub(crate) fn int_regs(i: &Inst) -> (u8, u8, u8) {
    let c = i.op.class();
    let (r1, r2) = match c {
        InstClass::Alu => match i.op {
            Op::Lui | Op::Auipc => (false, false),
            Op::Addi | Op::Slti | Op::Sltiu | Op::Xori | Op::Ori | Op::Andi | Op::Addiw => {
                (true, false)
            }
            // Unary and immediate bit-manipulation operations.
            Op::Clz
            | Op::Clzw
            | Op::Ctz
            | Op::Ctzw
            | Op::Cpop
            | Op::Cpopw
            | Op::SextB
            | Op::SextH
            | Op::ZextH
            | Op::OrcB
            | Op::Rev8
            | Op::Bclri
            | Op::Bexti
            | Op::Binvi
            | Op::Bseti => (true, false),
            _ => (true, true),
        },
        InstClass::Shift => (true, is_register_shift(i.op)),
        InstClass::Branch | InstClass::Store => (true, true),
        InstClass::Jal => (false, false),
        InstClass::Jalr | InstClass::Load | InstClass::FpLoad | InstClass::FpStore => (true, false),
        InstClass::Mul | InstClass::MulH | InstClass::Div => (true, true),
        InstClass::Csr => (matches!(i.op, Op::Csrrw | Op::Csrrs | Op::Csrrc), false),
        // `lr` has no rs2; `sc` and the AMOs read it.
        InstClass::Atomic => (true, i.op.atomic().is_some_and(|a| a.kind.writes())),
        _ => (false, false),
    };
    let writes = matches!(
        c,
        InstClass::Alu
            | InstClass::Shift
            | InstClass::Jal
            | InstClass::Jalr
            | InstClass::Load
            | InstClass::Mul
            | InstClass::MulH
            | InstClass::Div
            | InstClass::Csr
            | InstClass::Atomic
    );
    (
        if r1 { i.rs1 } else { 0 },
        if r2 { i.rs2 } else { 0 },
        if writes { i.rd } else { 0 },
    )
}

pub(crate) fn branch_kind(i: &Inst) -> Option<BranchKind> {
    match i.op.class() {
        InstClass::Branch => Some(BranchKind::Conditional),
        InstClass::Jal | InstClass::Jalr => Some(match jump_kind(i)? {
            JumpKind::Call | JumpKind::CallReturn => BranchKind::Call,
            JumpKind::Return => BranchKind::Return,
            JumpKind::Jump | JumpKind::LinkOther if i.op == Op::Jal => BranchKind::Jump,
            JumpKind::Jump | JumpKind::LinkOther => BranchKind::Indirect,
        }),
        _ => None,
    }
}

/// The target of `i` at `pc` when its encoding fixes it (conditional
/// branches, taken or not, and `jal`), for an RV64 (`rv64`) or RV32 hart.
pub(crate) fn static_target(pc: u64, i: &Inst, rv64: bool) -> Option<u64> {
    i.direct_target(pc, if rv64 { Xlen::Rv64 } else { Xlen::Rv32 })
}
