//! Executing the rest of a frame's epilogue: when the code from the pc to
//! the function's return only restores registers from the stack, frees the
//! frame and returns, running it on a copy of the registers gives the
//! caller's state exactly, whatever the CFI says (or whether there is any).
//! This covers epilogues, tail jumps to `__riscv_restore_N` and the
//! `__riscv_save_N`/`__riscv_restore_N` millicode of `-msave-restore`
//! code (GCC's `riscv/save-restore.S` in libgcc has no CFI, and GCC's own
//! CFI at the tail jump to a restore routine already describes the frame
//! as freed).

use fwprof_isa::{decode, InstClass, Op, Xlen};

use crate::UnwindMemory;

/// Most instructions executed before giving up.
const MAX_STEPS: usize = 64;

/// Register values; `None` where unknown.
pub(crate) type Regs = [Option<u64>; 32];

/// Stores made while executing: `(address, size, value)`; a `None` value
/// is a store of unknown data (a floating-point register).
#[derive(Clone, Debug, Default)]
pub(crate) struct Overlay(Vec<(u64, u8, Option<u64>)>);

/// Memory as seen after the executed stores.
pub(crate) struct WithOverlay<'a> {
    pub mem: &'a mut dyn UnwindMemory,
    pub overlay: &'a Overlay,
}

impl WithOverlay<'_> {
    /// `Some(Some(v))`: an overlay store covers exactly this read;
    /// `Some(None)`: one overlaps it but cannot give it; `None`: memory.
    fn overlaid(&self, addr: u64, size: u8) -> Option<Option<u64>> {
        for &(a, s, v) in self.overlay.0.iter().rev() {
            let overlaps = a < addr + u64::from(size) && addr < a + u64::from(s);
            if overlaps {
                return Some(if a == addr && s == size { v } else { None });
            }
        }
        None
    }
}

impl UnwindMemory for WithOverlay<'_> {
    fn read_u32(&mut self, addr: u64) -> Option<u32> {
        match self.overlaid(addr, 4) {
            Some(v) => v.map(|v| v as u32),
            None => self.mem.read_u32(addr),
        }
    }
    fn read_u64(&mut self, addr: u64) -> Option<u64> {
        match self.overlaid(addr, 8) {
            Some(v) => v,
            None => self.mem.read_u64(addr),
        }
    }
}

/// How executing ended: returned through a link register.
#[derive(Clone, Debug)]
pub(crate) struct Returned {
    /// Registers after the return (the caller's, or after a millicode
    /// save routine's `jr t0`, the function's own).
    pub regs: Regs,
    /// Where it returned to.
    pub target: u64,
    /// The link register it returned through: 1 (`ra`) or 5 (`t0`).
    pub via: u8,
    /// Stores made on the way.
    pub overlay: Overlay,
}

/// Read `size` bytes at `addr` (little-endian), through `overlay`.
fn load(mem: &mut WithOverlay<'_>, addr: u64, size: u8) -> Option<u64> {
    match size {
        8 => mem.read_u64(addr),
        4 => mem.read_u32(addr).map(u64::from),
        2 | 1 => {
            if let Some(v) = mem.overlaid(addr, size) {
                return v;
            }
            let w = mem.mem.read_u32(addr)?;
            Some(u64::from(w) & ((1u64 << (8 * size)) - 1))
        }
        _ => None,
    }
}

/// Execute from `pc` with registers `x` until a return (`jalr x0, 0(ra)`
/// or `jalr x0, 0(t0)`), following unconditional jumps (`jal x0`), and
/// accepting only: loads (from `sp`-relative addresses; other loads make
/// their destination unknown), stores to `sp`-relative addresses, integer
/// arithmetic (`addi`, `add`, `sub` and `slli` of known values are computed, any
/// other result is unknown, and `sp` must stay known), and floating-point
/// loads and stores. Anything else — a conditional branch, a call, a
/// store elsewhere, a system instruction, an indirect jump through another
/// register — means the code is not a straight epilogue: `None`.
pub(crate) fn run_to_return(
    x: &Regs,
    pc: u64,
    mem: &mut dyn UnwindMemory,
    overlay: &Overlay,
    rv64: bool,
) -> Option<Returned> {
    let xlen = if rv64 { Xlen::Rv64 } else { Xlen::Rv32 };
    let mask = if rv64 { u64::MAX } else { 0xffff_ffff };
    let mut regs = *x;
    let mut stores = overlay.clone();
    let mut pc = pc;
    for _ in 0..MAX_STEPS {
        let raw = {
            let mut m = WithOverlay {
                mem: &mut *mem,
                overlay: &stores,
            };
            match m.mem.read_u32(pc) {
                Some(w) => w,
                // The last halfword of a mapping: a compressed instruction.
                None => load(&mut m, pc, 2)? as u32,
            }
        };
        let inst = decode(raw, xlen);
        let next = pc.wrapping_add(u64::from(inst.len));
        let sp = regs[2];
        let rd = usize::from(inst.rd);
        let set = |regs: &mut Regs, v: Option<u64>| {
            if rd != 0 {
                regs[rd] = v.map(|v| v & mask);
            }
        };
        match inst.op.class() {
            InstClass::Jal => {
                if inst.rd != 0 {
                    return None;
                }
                pc = pc.wrapping_add(inst.imm as i64 as u64) & mask;
                continue;
            }
            InstClass::Jalr => {
                if inst.rd != 0 || inst.imm != 0 || !(inst.rs1 == 1 || inst.rs1 == 5) {
                    return None;
                }
                let target = regs[usize::from(inst.rs1)]?;
                return Some(Returned {
                    regs,
                    target,
                    via: inst.rs1,
                    overlay: stores,
                });
            }
            InstClass::Load => {
                if inst.rs1 == 2 {
                    let addr = sp?.wrapping_add(inst.imm as i64 as u64) & mask;
                    let (size, signed) = match inst.op {
                        Op::Lb => (1, true),
                        Op::Lbu => (1, false),
                        Op::Lh => (2, true),
                        Op::Lhu => (2, false),
                        Op::Lw => (4, true),
                        Op::Lwu => (4, false),
                        Op::Ld => (8, false),
                        _ => return None,
                    };
                    let mut m = WithOverlay {
                        mem: &mut *mem,
                        overlay: &stores,
                    };
                    let v = load(&mut m, addr, size)?;
                    let v = if signed && size < 8 {
                        let shift = 64 - 8 * u32::from(size);
                        (((v << shift) as i64) >> shift) as u64
                    } else {
                        v
                    };
                    set(&mut regs, Some(v));
                } else {
                    if rd == 2 {
                        return None;
                    }
                    set(&mut regs, None);
                }
            }
            InstClass::Store | InstClass::FpStore => {
                if inst.rs1 != 2 {
                    return None;
                }
                let size = match inst.op {
                    Op::Sb => 1,
                    Op::Sh => 2,
                    Op::Sw | Op::Fsw => 4,
                    Op::Sd | Op::Fsd => 8,
                    _ => return None,
                };
                let addr = sp?.wrapping_add(inst.imm as i64 as u64) & mask;
                let value = if inst.op.class() == InstClass::Store {
                    Some(regs[usize::from(inst.rs2)]?)
                } else {
                    None
                };
                stores.0.push((addr, size, value));
            }
            InstClass::FpLoad => {}
            InstClass::Alu
            | InstClass::Shift
            | InstClass::Mul
            | InstClass::MulH
            | InstClass::Div => {
                let r = |n: u8| regs[usize::from(n)];
                let v = match inst.op {
                    Op::Addi => r(inst.rs1).map(|b| b.wrapping_add(inst.imm as i64 as u64)),
                    Op::Add => r(inst.rs1).zip(r(inst.rs2)).map(|(a, b)| a.wrapping_add(b)),
                    Op::Sub => r(inst.rs1).zip(r(inst.rs2)).map(|(a, b)| a.wrapping_sub(b)),
                    Op::Slli => r(inst.rs1).map(|a| a.wrapping_shl(inst.imm as u32)),
                    _ => None,
                };
                if rd == 2 && v.is_none() {
                    return None;
                }
                set(&mut regs, v);
            }
            _ => return None,
        }
        pc = next;
    }
    None
}

/// What a leaf function stopped at `pc` has done to its frame, by a scan
/// of `[start, pc)` in address order: bytes allocated on the stack (every
/// write to `sp` an `addi sp, sp, -N`) and where it saved registers
/// (`(register, offset from the CFA)`, first store of each).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct LeafFrame {
    pub size: u64,
    pub saved: Vec<(u8, i64)>,
}

/// Scan `[start, pc)` (decoded in sequence) for a leaf's frame set-up:
/// `None` if an instruction saves `ra` (the function is not a leaf, or not
/// at a point where `ra` is live), writes `sp` other than by allocating,
/// cannot be read or decoded, or the range exceeds `max_bytes`.
pub(crate) fn scan_leaf(
    mem: &mut dyn UnwindMemory,
    start: u64,
    pc: u64,
    rv64: bool,
    max_bytes: u64,
) -> Option<LeafFrame> {
    if pc < start || pc - start > max_bytes {
        return None;
    }
    let xlen = if rv64 { Xlen::Rv64 } else { Xlen::Rv32 };
    let mut frame = LeafFrame::default();
    let mut a = start;
    while a < pc {
        let raw = match mem.read_u32(a) {
            Some(w) => w,
            None => mem.read_u32(a.wrapping_sub(2))? >> 16,
        };
        let inst = decode(raw, xlen);
        let class = inst.op.class();
        match class {
            InstClass::Illegal => return None,
            InstClass::Store if inst.rs1 == 2 => {
                if inst.rs2 == 1 {
                    return None;
                }
                let off = i64::from(inst.imm) - frame.size as i64;
                if !frame.saved.iter().any(|s| s.0 == inst.rs2) {
                    frame.saved.push((inst.rs2, off));
                }
            }
            _ if !writes_x(&inst) => {}
            _ if inst.rd == 2 => {
                if inst.op == Op::Addi && inst.rs1 == 2 && inst.imm < 0 {
                    frame.size += u64::from(inst.imm.unsigned_abs());
                } else {
                    return None;
                }
            }
            _ => {}
        }
        a = a.wrapping_add(u64::from(inst.len));
    }
    Some(frame)
}

/// True if the instruction writes integer register `rd` (see
/// [`fwprof_isa::Inst::writes_x`]).
pub(crate) fn writes_x(inst: &fwprof_isa::Inst) -> bool {
    inst.writes_x()
}

/// True if an instruction in `[start, pc)` (decoded in sequence) sets `s0`
/// from `sp` (`addi s0, sp, N`: GCC's frame-pointer set-up), so that `s0`
/// may be this function's frame pointer at `pc`. False if the range cannot
/// be read or exceeds `max_bytes`.
pub(crate) fn sets_frame_pointer(
    mem: &mut dyn UnwindMemory,
    start: u64,
    pc: u64,
    rv64: bool,
    max_bytes: u64,
) -> bool {
    if pc < start || pc - start > max_bytes {
        return false;
    }
    let xlen = if rv64 { Xlen::Rv64 } else { Xlen::Rv32 };
    let mut a = start;
    while a < pc {
        let raw = match mem.read_u32(a) {
            Some(w) => w,
            None => match mem.read_u32(a.wrapping_sub(2)) {
                Some(w) => w >> 16,
                None => return false,
            },
        };
        let inst = decode(raw, xlen);
        if inst.op == Op::Addi && inst.rd == 8 && inst.rs1 == 2 {
            return true;
        }
        a = a.wrapping_add(u64::from(inst.len));
    }
    false
}
