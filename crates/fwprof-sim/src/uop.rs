//! The executor's fast form of decoded instructions ("micro-ops") and the
//! block interpreter that runs them.
//!
//! At translation each [`fwprof_isa::Inst`] of a block is lowered once into
//! a 16-byte [`Uop`] that keeps only what execution needs, with the work
//! that depends on nothing but the instruction and its address done ahead
//! of time:
//!
//! * branch and `jal` targets, and `auipc` results, are absolute addresses;
//! * shift amounts are masked to XLEN;
//! * writes to `x0` are gone: an integer instruction with `rd` = `x0` whose
//!   only effect is that write becomes [`K::Nop`], so executing a micro-op
//!   writes `x[rd]` without testing `rd` (loads to `x0`, which can still
//!   fault, and everything else stay on the general path);
//! * the pc is not tracked per instruction: a micro-op knows its byte offset
//!   from the block's start, which only faults and the general path use.
//!
//! The plain integer instructions (Unprivileged ISA 20191213, Chapters 2, 5
//! and 7) are defined here and only here; the bit-manipulation extensions
//! Zba/Zbb/Zbc/Zbs are micro-ops too, of two kinds ([`K::Bitmanip`],
//! [`K::Rotate`]) that carry their [`Op`] and take their values from
//! `bitmanip.rs`, so the dispatch of the base instructions is unchanged by
//! them. Instructions without a fast form —
//! F/D, A, Zicsr, the system instructions, loads into `x0`, illegal
//! encodings, RV64-only operations on RV32 — are [`K::General`] and run
//! through the general executor [`crate::exec::step`] with the original
//! `Inst`, which stays in a parallel arena. The differential and lock-step
//! tests against QEMU cover both paths.

use crate::exec::{ea, load_fault, step, store_fault};
use crate::hart::Hart;
use crate::hooks::{BlockId, Hooks};
use crate::memory::Memory;
use crate::trap::{Exc, CAUSE_CODE_WRITTEN};
use fwprof_isa::{Inst, InstClass, Op};

/// Micro-op kinds: the fast integer operations, plus [`K::General`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u8)]
#[allow(missing_docs)]
pub(crate) enum K {
    /// No architectural effect (an ALU op writing `x0`, `fence`).
    Nop,
    /// Executed by [`crate::exec::step`] on the original instruction.
    General,
    /// `rd` = `imm` (`lui`, and `auipc` with `imm` = pc + offset).
    Li,
    Addi,
    Slti,
    Sltiu,
    Xori,
    Ori,
    Andi,
    Slli,
    Srli,
    Srai,
    Add,
    Sub,
    Sll,
    Slt,
    Sltu,
    Xor,
    Srl,
    Sra,
    Or,
    And,
    Addiw,
    Slliw,
    Srliw,
    Sraiw,
    Addw,
    Subw,
    Sllw,
    Srlw,
    Sraw,
    Mul,
    Mulh,
    Mulhsu,
    Mulhu,
    Div,
    Divu,
    Rem,
    Remu,
    Mulw,
    Divw,
    Divuw,
    Remw,
    Remuw,
    Lb,
    Lh,
    Lw,
    Lbu,
    Lhu,
    Lwu,
    Ld,
    Sb,
    Sh,
    Sw,
    Sd,
    /// Branches: `imm` is the taken target.
    Beq,
    Bne,
    Blt,
    Bge,
    Bltu,
    Bgeu,
    /// `jal`: `imm` is the target; the link value is the block's end.
    Jal,
    /// `jalr`: `imm` is the offset; the link value is the block's end.
    Jalr,
    /// A Zba/Zbb/Zbc/Zbs operation ([`Uop::op`]), value from
    /// [`crate::bitmanip::value`] (`imm`: shift amount or bit index).
    Bitmanip,
    /// `rol`, `ror`, `rolw`, `rorw`: as [`K::Bitmanip`], but their timing
    /// may depend on the rotate amount ([`Hooks::on_operands`]).
    Rotate,
}

impl K {
    /// Shifts by a register amount and divisions: their timing may depend
    /// on the operand values ([`Hooks::on_operands`]).
    pub(crate) fn operands_matter(self) -> bool {
        matches!(
            self,
            K::Sll
                | K::Srl
                | K::Sra
                | K::Sllw
                | K::Srlw
                | K::Sraw
                | K::Div
                | K::Divu
                | K::Rem
                | K::Remu
                | K::Divw
                | K::Divuw
                | K::Remw
                | K::Remuw
                | K::Rotate
        )
    }
}

/// One lowered instruction (16 bytes).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Uop {
    /// What to do.
    pub kind: K,
    /// Destination register (never 0 for a kind that writes it, except
    /// `jal`/`jalr`, which restore `x0` themselves).
    pub rd: u8,
    /// First source register.
    pub rs1: u8,
    /// Second source register.
    pub rs2: u8,
    /// Byte offset of the instruction from the block's first pc.
    pub off: u16,
    /// Index of the instruction in its block.
    pub idx: u8,
    /// The decoded operation (read by [`K::Bitmanip`] and [`K::Rotate`]
    /// only; it fills what would be padding).
    pub op: Op,
    /// Immediate, sign-extended; an absolute address for branches, `jal`
    /// and `auipc`; masked to XLEN for immediate shifts.
    pub imm: u64,
}

/// Lower `i`, located at `pc` in a block starting at `start`, for XLEN
/// `rv64`.
/// `idx` is its index in the block (blocks hold at most
/// [`crate::MAX_BLOCK_INSTS`] instructions, so offsets fit 16 bits).
pub(crate) fn lower(i: &Inst, idx: u8, pc: u64, start: u64, rv64: bool) -> Uop {
    let imm = i.imm as i64 as u64;
    let addr = |a: u64| if rv64 { a } else { a & 0xffff_ffff };
    let shamt = if rv64 { imm & 63 } else { imm & 31 };
    let general = Uop {
        kind: K::General,
        rd: i.rd & 31,
        rs1: i.rs1 & 31,
        rs2: i.rs2 & 31,
        off: pc.wrapping_sub(start) as u16,
        idx,
        op: i.op,
        imm,
    };
    let with = |kind: K, imm: u64| Uop {
        kind,
        imm,
        ..general
    };
    // Integer results written to x0 vanish; loads to x0 may still fault.
    let alu = |kind: K, imm: u64| {
        if i.rd == 0 {
            with(K::Nop, 0)
        } else {
            with(kind, imm)
        }
    };
    let load = |kind: K| {
        if i.rd == 0 {
            general
        } else {
            with(kind, imm)
        }
    };
    match i.op {
        Op::Lui => alu(K::Li, imm),
        Op::Auipc => alu(K::Li, pc.wrapping_add(imm)),
        Op::Addi => alu(K::Addi, imm),
        Op::Slti => alu(K::Slti, imm),
        Op::Sltiu => alu(K::Sltiu, imm),
        Op::Xori => alu(K::Xori, imm),
        Op::Ori => alu(K::Ori, imm),
        Op::Andi => alu(K::Andi, imm),
        Op::Slli => alu(K::Slli, shamt),
        Op::Srli => alu(K::Srli, shamt),
        Op::Srai => alu(K::Srai, shamt),
        Op::Add => alu(K::Add, 0),
        Op::Sub => alu(K::Sub, 0),
        Op::Sll => alu(K::Sll, 0),
        Op::Slt => alu(K::Slt, 0),
        Op::Sltu => alu(K::Sltu, 0),
        Op::Xor => alu(K::Xor, 0),
        Op::Srl => alu(K::Srl, 0),
        Op::Sra => alu(K::Sra, 0),
        Op::Or => alu(K::Or, 0),
        Op::And => alu(K::And, 0),
        Op::Mul => alu(K::Mul, 0),
        Op::Mulh => alu(K::Mulh, 0),
        Op::Mulhsu => alu(K::Mulhsu, 0),
        Op::Mulhu => alu(K::Mulhu, 0),
        Op::Div => alu(K::Div, 0),
        Op::Divu => alu(K::Divu, 0),
        Op::Rem => alu(K::Rem, 0),
        Op::Remu => alu(K::Remu, 0),
        Op::Addiw if rv64 => alu(K::Addiw, imm),
        Op::Slliw if rv64 => alu(K::Slliw, imm & 31),
        Op::Srliw if rv64 => alu(K::Srliw, imm & 31),
        Op::Sraiw if rv64 => alu(K::Sraiw, imm & 31),
        Op::Addw if rv64 => alu(K::Addw, 0),
        Op::Subw if rv64 => alu(K::Subw, 0),
        Op::Sllw if rv64 => alu(K::Sllw, 0),
        Op::Srlw if rv64 => alu(K::Srlw, 0),
        Op::Sraw if rv64 => alu(K::Sraw, 0),
        Op::Mulw if rv64 => alu(K::Mulw, 0),
        Op::Divw if rv64 => alu(K::Divw, 0),
        Op::Divuw if rv64 => alu(K::Divuw, 0),
        Op::Remw if rv64 => alu(K::Remw, 0),
        Op::Remuw if rv64 => alu(K::Remuw, 0),
        Op::Lb => load(K::Lb),
        Op::Lh => load(K::Lh),
        Op::Lw => load(K::Lw),
        Op::Lbu => load(K::Lbu),
        Op::Lhu => load(K::Lhu),
        Op::Lwu if rv64 => load(K::Lwu),
        Op::Ld if rv64 => load(K::Ld),
        Op::Sb => with(K::Sb, imm),
        Op::Sh => with(K::Sh, imm),
        Op::Sw => with(K::Sw, imm),
        Op::Sd if rv64 => with(K::Sd, imm),
        Op::Beq => with(K::Beq, addr(pc.wrapping_add(imm))),
        Op::Bne => with(K::Bne, addr(pc.wrapping_add(imm))),
        Op::Blt => with(K::Blt, addr(pc.wrapping_add(imm))),
        Op::Bge => with(K::Bge, addr(pc.wrapping_add(imm))),
        Op::Bltu => with(K::Bltu, addr(pc.wrapping_add(imm))),
        Op::Bgeu => with(K::Bgeu, addr(pc.wrapping_add(imm))),
        Op::Jal => with(K::Jal, addr(pc.wrapping_add(imm))),
        Op::Jalr => with(K::Jalr, imm),
        Op::Fence => with(K::Nop, 0),
        Op::Rol | Op::Ror | Op::Rolw | Op::Rorw => alu(K::Rotate, 0),
        // The decoder gives these only for an XLEN that has them.
        Op::AddUw
        | Op::Sh1add
        | Op::Sh2add
        | Op::Sh3add
        | Op::Sh1addUw
        | Op::Sh2addUw
        | Op::Sh3addUw
        | Op::SlliUw
        | Op::Andn
        | Op::Orn
        | Op::Xnor
        | Op::Clz
        | Op::Clzw
        | Op::Ctz
        | Op::Ctzw
        | Op::Cpop
        | Op::Cpopw
        | Op::Max
        | Op::Maxu
        | Op::Min
        | Op::Minu
        | Op::SextB
        | Op::SextH
        | Op::ZextH
        | Op::Rori
        | Op::Roriw
        | Op::OrcB
        | Op::Rev8
        | Op::Clmul
        | Op::Clmulh
        | Op::Clmulr
        | Op::Bclr
        | Op::Bclri
        | Op::Bext
        | Op::Bexti
        | Op::Binv
        | Op::Binvi
        | Op::Bset
        | Op::Bseti => alu(K::Bitmanip, imm),
        _ => general,
    }
}

/// Flag in [`exec_block`]'s status: an exception is in [`Hart::pending`].
pub(crate) const EXCEPTION: usize = 1 << (usize::BITS - 1);

#[inline(always)]
fn sext32(v: u64) -> u64 {
    v as i32 as i64 as u64
}

/// Run the micro-ops `uops` of a block that starts at `start` and falls
/// through to `end`; `insts` are the original instructions of the same
/// block, index for index (for the general path).
///
/// Returns `(pc, status)`. Normally `status` is the number of instructions
/// run (`uops.len()`) and `pc` the next pc. When an instruction raises an
/// exception, `status` is [`EXCEPTION`] | the instructions that started
/// executing (that one included), `pc` is that instruction's pc and the
/// exception is in `h.pending`; for a store into translated code (which
/// completed) it is the internal code-written cause with `tval` = the next
/// pc.
///
/// With [`Hooks::WANTS_MEMORY`] every completed data access is reported to
/// `hooks` (block `id`); with [`Hooks::MODELS_CYCLES`] a CSR instruction
/// reads cycles from `hooks`.
#[allow(clippy::too_many_arguments)]
#[inline(always)]
pub(crate) fn exec_block<const RV64: bool, H: Hooks>(
    h: &mut Hart,
    m: &mut Memory,
    hooks: &mut H,
    id: u32,
    uops: &[Uop],
    insts: &[Inst],
    start: u64,
    end: u64,
) -> (u64, usize) {
    let mut next = end;
    for u in uops {
        let n = usize::from(u.idx);
        let a = h.x[usize::from(u.rs1)];
        let b = h.x[usize::from(u.rs2)];
        let imm = u.imm;
        macro_rules! fault {
            ($exc:expr) => {{
                h.pending = $exc;
                return (start.wrapping_add(u64::from(u.off)), EXCEPTION | (n + 1));
            }};
        }
        macro_rules! load {
            ($f:ident, $conv:expr, $size:expr) => {{
                let addr = ea::<RV64>(a.wrapping_add(imm));
                match m.$f(addr) {
                    Ok(v) => {
                        if H::WANTS_MEMORY {
                            hooks.on_mem(n as u32, addr, $size, false);
                        }
                        $conv(v)
                    }
                    Err(addr) => fault!(load_fault(m, addr)),
                }
            }};
        }
        macro_rules! store {
            ($f:ident, $t:ty) => {{
                let addr = ea::<RV64>(a.wrapping_add(imm));
                if let Err(addr) = m.$f(addr, b as $t) {
                    fault!(store_fault(m, addr));
                }
                if H::WANTS_MEMORY {
                    hooks.on_mem(n as u32, addr, std::mem::size_of::<$t>() as u8, true);
                }
                if m.has_code_writes() {
                    return code_written(h, u, &insts[n], start);
                }
                continue;
            }};
        }
        if H::WANTS_OPERANDS && u.kind.operands_matter() {
            hooks.on_operands(n as u32, a, b);
        }
        let v: u64 = match u.kind {
            K::Nop => continue,
            K::General => {
                let pc = start.wrapping_add(u64::from(u.off));
                match general::<RV64, H>(h, m, hooks, id, n, &insts[n], pc) {
                    Ok(p) => {
                        // Only a block's last instruction can leave the
                        // straight line (`mret`); elsewhere `p` is just the
                        // next instruction's pc.
                        if n + 1 == uops.len() {
                            next = p;
                        }
                        continue;
                    }
                    // Includes a general-path store into translated code
                    // (F/D stores, AMOs), which `step` reports itself.
                    Err(exc) => fault!(exc),
                }
            }
            K::Li => imm,
            K::Addi => a.wrapping_add(imm),
            K::Slti => ((a as i64) < (imm as i64)) as u64,
            K::Sltiu => (a < imm) as u64,
            K::Xori => a ^ imm,
            K::Ori => a | imm,
            K::Andi => a & imm,
            K::Slli => a << imm,
            K::Srli => {
                if RV64 {
                    a >> imm
                } else {
                    (a as u32 >> imm) as u64
                }
            }
            K::Srai => {
                if RV64 {
                    ((a as i64) >> imm) as u64
                } else {
                    ((a as i32) >> imm) as i64 as u64
                }
            }
            K::Add => a.wrapping_add(b),
            K::Sub => a.wrapping_sub(b),
            K::Sll => a << (b & if RV64 { 63 } else { 31 }),
            K::Slt => ((a as i64) < (b as i64)) as u64,
            K::Sltu => (a < b) as u64,
            K::Xor => a ^ b,
            K::Srl => {
                if RV64 {
                    a >> (b & 63)
                } else {
                    (a as u32 >> (b & 31)) as u64
                }
            }
            K::Sra => {
                if RV64 {
                    ((a as i64) >> (b & 63)) as u64
                } else {
                    ((a as i32) >> (b & 31)) as i64 as u64
                }
            }
            K::Or => a | b,
            K::And => a & b,
            K::Addiw => sext32(a.wrapping_add(imm)),
            K::Slliw => sext32(((a as u32) << imm) as u64),
            K::Srliw => sext32(((a as u32) >> imm) as u64),
            K::Sraiw => ((a as i32) >> imm) as i64 as u64,
            K::Addw => sext32(a.wrapping_add(b)),
            K::Subw => sext32(a.wrapping_sub(b)),
            K::Sllw => sext32(((a as u32) << (b & 31)) as u64),
            K::Srlw => sext32(((a as u32) >> (b & 31)) as u64),
            K::Sraw => ((a as i32) >> (b & 31)) as i64 as u64,
            // M extension (§7; division by zero and overflow per Table 7.1).
            K::Mul => a.wrapping_mul(b),
            K::Mulh => {
                if RV64 {
                    ((a as i64 as i128 * b as i64 as i128) >> 64) as u64
                } else {
                    ((a as i64 * b as i64) >> 32) as u64
                }
            }
            K::Mulhsu => {
                if RV64 {
                    ((a as i64 as i128 * b as u128 as i128) >> 64) as u64
                } else {
                    ((a as i64 * (b as u32 as i64)) >> 32) as u64
                }
            }
            K::Mulhu => {
                if RV64 {
                    ((a as u128 * b as u128) >> 64) as u64
                } else {
                    (a as u32 as u64 * b as u32 as u64) >> 32
                }
            }
            // RV32 values are sign-extended, so 64-bit signed division gives
            // the 32-bit results (i32::MIN / -1 = 2^31, truncated to i32::MIN).
            K::Div => {
                if b == 0 {
                    u64::MAX
                } else {
                    (a as i64).wrapping_div(b as i64) as u64
                }
            }
            K::Rem => {
                if b == 0 {
                    a
                } else {
                    (a as i64).wrapping_rem(b as i64) as u64
                }
            }
            K::Divu => {
                if RV64 {
                    a.checked_div(b).unwrap_or(u64::MAX)
                } else {
                    (a as u32).checked_div(b as u32).unwrap_or(u32::MAX) as u64
                }
            }
            K::Remu => {
                if RV64 {
                    a.checked_rem(b).unwrap_or(a)
                } else {
                    (a as u32).checked_rem(b as u32).map_or(a, u64::from)
                }
            }
            K::Mulw => (a as i32).wrapping_mul(b as i32) as i64 as u64,
            K::Divw => {
                if b as i32 == 0 {
                    u64::MAX
                } else {
                    (a as i32).wrapping_div(b as i32) as i64 as u64
                }
            }
            K::Divuw => sext32((a as u32).checked_div(b as u32).unwrap_or(u32::MAX) as u64),
            K::Remw => {
                if b as i32 == 0 {
                    sext32(a)
                } else {
                    (a as i32).wrapping_rem(b as i32) as i64 as u64
                }
            }
            K::Remuw => {
                if b as u32 == 0 {
                    sext32(a)
                } else {
                    sext32(((a as u32) % (b as u32)) as u64)
                }
            }
            K::Lb => load!(load_u8, |v: u8| v as i8 as u64, 1),
            K::Lh => load!(load_u16, |v: u16| v as i16 as u64, 2),
            K::Lw => load!(load_u32, |v: u32| v as i32 as u64, 4),
            K::Lbu => load!(load_u8, u64::from, 1),
            K::Lhu => load!(load_u16, u64::from, 2),
            K::Lwu => load!(load_u32, u64::from, 4),
            K::Ld => load!(load_u64, |v: u64| v, 8),
            K::Sb => store!(store_u8, u8),
            K::Sh => store!(store_u16, u16),
            K::Sw => store!(store_u32, u32),
            K::Sd => store!(store_u64, u64),
            K::Bitmanip | K::Rotate => crate::bitmanip::value::<RV64>(u.op, a, b, imm),
            K::Beq | K::Bne | K::Blt | K::Bge | K::Bltu | K::Bgeu | K::Jal | K::Jalr => {
                if let Some(t) = exec_term::<RV64>(h, u, end) {
                    next = t;
                }
                continue;
            }
        };
        h.x[usize::from(u.rd)] = if RV64 { v } else { sext32(v) };
    }
    (next, uops.len())
}

/// Execute instruction `n` of block `id`, `inst` at `pc`, which has no
/// micro-op form, on the general path ([`step`]), with the hooks it needs:
/// counter CSRs read the count before it, a timing model supplies the
/// cycles a CSR read sees, and its data accesses are reported. Returns the
/// next pc. Shared by [`exec_block`] and the translation tier
/// (`jit/helpers.rs`).
///
/// # Errors
/// The exception it raises (see [`step`]).
#[inline(always)]
pub(crate) fn general<const RV64: bool, H: Hooks>(
    h: &mut Hart,
    m: &mut Memory,
    hooks: &mut H,
    id: u32,
    n: usize,
    inst: &Inst,
    pc: u64,
) -> Result<u64, Exc> {
    // Counter CSRs read the count before this instruction.
    h.csr_point = h.executed + n as u64;
    let access = if H::WANTS_MEMORY {
        general_access::<RV64>(h, inst)
    } else {
        None
    };
    if H::MODELS_CYCLES && inst.op.class() == InstClass::Csr {
        h.model_cycles = Some(hooks.cycles_before(BlockId(id), n as u32));
        if h.pmu.model_live {
            hooks.model_events(BlockId(id), n as u32, &mut h.pmu.model_now);
        }
    }
    let result = step::<RV64>(h, m, inst, pc);
    if H::MODELS_CYCLES {
        h.model_cycles = None;
    }
    if let (Ok(_), Some(acc)) = (&result, access) {
        report_general_access(h, hooks, n as u32, inst, acc);
    }
    result
}

/// Execute a block's last instruction when it is a branch, `jal` or `jalr`
/// (kinds [`K::Beq`]..=[`K::Jalr`]); `end` is the block's end (the link
/// value). Returns the target if control leaves the straight line, `None`
/// if a branch falls through. These never raise exceptions: with the C
/// extension every target is 2-byte aligned (`jalr` clears bit 0), and a
/// fetch fault belongs to the next block.
#[inline(always)]
pub(crate) fn exec_term<const RV64: bool>(h: &mut Hart, u: &Uop, end: u64) -> Option<u64> {
    let a = h.x[usize::from(u.rs1)];
    let b = h.x[usize::from(u.rs2)];
    let taken = match u.kind {
        K::Beq => a == b,
        K::Bne => a != b,
        K::Blt => (a as i64) < (b as i64),
        K::Bge => (a as i64) >= (b as i64),
        K::Bltu => a < b,
        K::Bgeu => a >= b,
        K::Jal => {
            h.x[usize::from(u.rd)] = if RV64 { end } else { sext32(end) };
            h.x[0] = 0;
            return Some(u.imm);
        }
        K::Jalr => {
            let t = ea::<RV64>(a.wrapping_add(u.imm) & !1);
            h.x[usize::from(u.rd)] = if RV64 { end } else { sext32(end) };
            h.x[0] = 0;
            return Some(t);
        }
        _ => false,
    };
    if taken {
        keep_branch();
        Some(u.imm)
    } else {
        None
    }
}

/// A general-path data access, found before the instruction runs (its
/// registers may change): address, size in bytes, and whether it reads,
/// writes or both.
#[derive(Clone, Copy, Debug)]
struct GeneralAccess {
    addr: u64,
    size: u8,
    read: bool,
    write: bool,
}

/// The data access `i` will make, if it is a load or store on the general
/// path (F/D loads and stores, A, loads into `x0`).
#[cold]
fn general_access<const RV64: bool>(h: &Hart, i: &Inst) -> Option<GeneralAccess> {
    let base = h.x(i.rs1);
    let with_imm = ea::<RV64>(base.wrapping_add(i.imm as i64 as u64));
    let plain = ea::<RV64>(base);
    let (addr, size, read, write) = match i.op {
        Op::Lb | Op::Lbu => (with_imm, 1, true, false),
        Op::Lh | Op::Lhu => (with_imm, 2, true, false),
        Op::Lw | Op::Lwu | Op::Flw => (with_imm, 4, true, false),
        Op::Ld | Op::Fld => (with_imm, 8, true, false),
        Op::Fsw => (with_imm, 4, false, true),
        Op::Fsd => (with_imm, 8, false, true),
        op => match op.atomic() {
            Some(a) => (plain, a.width, a.kind.reads(), a.kind.writes()),
            None => return None,
        },
    };
    Some(GeneralAccess {
        addr,
        size,
        read,
        write,
    })
}

/// Report a completed general-path access (a failed `sc`, which leaves
/// `rd` non-zero, accessed nothing).
#[cold]
fn report_general_access<H: Hooks>(
    h: &Hart,
    hooks: &mut H,
    index: u32,
    i: &Inst,
    acc: GeneralAccess,
) {
    if matches!(i.op, Op::ScW | Op::ScD) && i.rd != 0 && h.x(i.rd) != 0 {
        return;
    }
    if acc.read {
        hooks.on_mem(index, acc.addr, acc.size, false);
    }
    if acc.write {
        hooks.on_mem(index, acc.addr, acc.size, true);
    }
}

/// Placed in one arm of an `if` whose condition depends on guest data, this
/// keeps the compiler from turning the `if` into a conditional move.
///
/// Why: the next block to run depends on guest branch outcomes. As a host
/// branch, the outcome is predicted and the host core runs ahead into the
/// next block; as a conditional move, everything that follows (loading the
/// next block, its micro-ops, their dispatch) waits for the guest registers
/// to be loaded and compared, which serialises the whole interpreter.
/// An empty `asm!` block has side effects for the optimiser, so it can be
/// neither speculated nor merged into a select.
#[inline(always)]
pub(crate) fn keep_branch() {
    // SAFETY: an empty assembly block: no instructions, no operands, no
    // memory or stack access, flags preserved.
    unsafe { std::arch::asm!("", options(nomem, nostack, preserves_flags)) }
}

/// The store `u` (decoded: `inst`) wrote translated code: stop after it.
/// The run resumes at the instruction after the store, which may be the
/// block's final branch (not among the uops `exec_block` runs), so its
/// address comes from the store's own length, not from the next uop or the
/// block's end.
#[cold]
#[inline(never)]
fn code_written(h: &mut Hart, u: &Uop, inst: &Inst, start: u64) -> (u64, usize) {
    let pc = start.wrapping_add(u64::from(u.off));
    h.pending = Exc {
        cause: CAUSE_CODE_WRITTEN,
        tval: pc.wrapping_add(u64::from(inst.len)),
    };
    (pc, EXCEPTION | (usize::from(u.idx) + 1))
}

#[cfg(test)]
mod tests {
    use super::*;
    use fwprof_isa::{decode, Xlen};

    #[test]
    fn uop_is_16_bytes() {
        assert_eq!(std::mem::size_of::<Uop>(), 16);
    }

    #[test]
    fn lowering_precomputes_targets_and_drops_x0_writes() {
        // beq a0, a1, -8 at 0x1010 in a block starting at 0x1000
        let i = decode(0xfeb50ce3, Xlen::Rv64);
        let u = lower(&i, 4, 0x1010, 0x1000, true);
        assert_eq!((u.kind, u.imm, u.off), (K::Beq, 0x1008, 0x10));
        // auipc a0, 0x1 at 0x2000
        let u = lower(&decode(0x00001517, Xlen::Rv64), 0, 0x2000, 0x2000, true);
        assert_eq!((u.kind, u.rd, u.imm), (K::Li, 10, 0x3000));
        // addi x0, x0, 0 (nop) and add x0, a0, a1
        assert_eq!(
            lower(&decode(0x00000013, Xlen::Rv64), 0, 0, 0, true).kind,
            K::Nop
        );
        assert_eq!(
            lower(&decode(0x00b50033, Xlen::Rv64), 0, 0, 0, true).kind,
            K::Nop
        );
        // lw x0, 0(a0) can fault: general path
        assert_eq!(
            lower(&decode(0x00052003, Xlen::Rv64), 0, 0, 0, true).kind,
            K::General
        );
        // addiw on RV32 is illegal: general path (step raises it)
        assert_eq!(
            lower(&decode(0x0015051b, Xlen::Rv32), 0, 0, 0, false).kind,
            K::General
        );
        // branch target wraps to 32 bits on RV32
        let u = lower(&decode(0xfe000ee3, Xlen::Rv32), 0, 0, 0, false);
        assert_eq!(u.imm, 0xffff_fffc);
    }
}
