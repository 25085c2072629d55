//! Unwind rules for code without CFI, from its instructions: a data-flow
//! analysis over a function's control-flow graph that tracks, at every
//! instruction, how far `sp` is below the CFA, where `ra` and the
//! callee-saved registers are (in their register, or saved at an offset
//! from the CFA), and whether `s0` holds a fixed offset from the CFA (a
//! frame pointer). This is the stack-height analysis that tools such as
//! the Linux kernel's objtool use to generate unwind tables (ORC) for code
//! the compiler gave none.
//!
//! Transfer rules (RISC-V Unprivileged ISA 20191213; compressed forms are
//! expanded by `fwprof_isa::decode`): `addi sp, sp, imm` changes the height;
//! `sub`/`add sp, sp, rX` with a constant `rX` (from `li`) too; `addi sp, s0,
//! imm` recomputes it from the frame pointer; `addi s0, sp, imm` sets the
//! frame pointer; any other write to `sp` leaves only the frame pointer to
//! find the CFA. Stores of `ra` or `s0`-`s11` to `sp`-relative addresses
//! record where they are saved (the first save wins); loads of them from
//! the stack put them back in their register. A call through `t0` (the
//! `-msave-restore` millicode `jal t0, __riscv_save_N`) is followed into the
//! routine's straight-line code up to its `jr t0`. Calls through `ra` leave
//! the frame unchanged. Conditional branches and jumps inside the function
//! propagate the state to their targets; at a join the states must agree,
//! or the instruction's state is unknown. Targets of indirect jumps (switch
//! tables) are not known: instructions reached only through them get the
//! state of the indirect jump when all indirect jumps of the function agree.

use std::collections::{BTreeMap, VecDeque};

use fwprof_isa::{decode, Inst, InstClass, Op, Xlen};

use crate::UnwindMemory;

/// Largest function analysed, bytes.
const MAX_FUNCTION: u64 = 64 << 10;

/// The frame at one instruction.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct State {
    /// CFA - sp, bytes, if known.
    pub height: Option<i64>,
    /// s0 - CFA, if s0 is a frame pointer.
    pub fp: Option<i64>,
    /// Where `ra` (index 1) and `s0`..`s11` (8, 9, 18..=27) are: `None` in
    /// their register, `Some(off)` saved at CFA + off.
    pub saved: [Option<i64>; 32],
    /// Registers holding a known constant (set by `li`), for `sub sp, sp, t1`.
    consts: [Option<i64>; 32],
}

impl State {
    fn entry() -> State {
        State {
            height: Some(0),
            fp: None,
            saved: [None; 32],
            consts: [None; 32],
        }
    }

    /// Equal as far as unwinding is concerned.
    fn same_frame(&self, o: &State) -> bool {
        self.height == o.height && self.fp == o.fp && self.saved == o.saved
    }
}

fn callee_saved(r: u8) -> bool {
    matches!(r, 1 | 8 | 9 | 18..=27)
}

/// The result for one function: the state before each instruction
/// (`None`: unknown, or the states reaching it disagree).
#[derive(Debug, Default)]
pub(crate) struct Analysis {
    states: BTreeMap<u64, Option<State>>,
}

impl Analysis {
    /// The state before the instruction at `addr`.
    pub fn at(&self, addr: u64) -> Option<State> {
        self.states.get(&addr).copied().flatten()
    }
}

/// Decode the instructions of `[start, end)` in sequence.
fn instructions(
    mem: &mut dyn UnwindMemory,
    start: u64,
    end: u64,
    xlen: Xlen,
) -> Option<Vec<(u64, Inst)>> {
    let mut v = Vec::new();
    let mut a = start;
    while a < end {
        let raw = match mem.read_u32(a) {
            Some(w) => w,
            None => mem.read_u32(a.wrapping_sub(2))? >> 16,
        };
        let inst = decode(raw, xlen);
        v.push((a, inst));
        a += u64::from(inst.len);
    }
    Some(v)
}

/// Apply one instruction to `s`; `None` if the frame becomes unknowable.
fn transfer(mut s: State, inst: &Inst) -> Option<State> {
    let class = inst.op.class();
    let rd = inst.rd;
    let imm = i64::from(inst.imm);
    match class {
        InstClass::Store if inst.rs1 == 2 => {
            if callee_saved(inst.rs2) && s.saved[usize::from(inst.rs2)].is_none() {
                let h = s.height?;
                s.saved[usize::from(inst.rs2)] = Some(imm - h);
            }
            return Some(s);
        }
        InstClass::Store | InstClass::FpStore | InstClass::Branch | InstClass::Fence => {
            return Some(s)
        }
        _ if !crate::emulate::writes_x(inst) => return Some(s),
        InstClass::Load
            if inst.rs1 == 2
                && callee_saved(rd)
                && s.height
                    .is_some_and(|h| s.saved[usize::from(rd)] == Some(imm - h)) =>
        {
            // Reloaded from its save slot: back in its register.
            s.saved[usize::from(rd)] = None;
            if rd == 8 {
                s.fp = None;
            }
            s.consts[usize::from(rd)] = None;
            return Some(s);
        }
        _ => {}
    }
    if rd == 0 || matches!(class, InstClass::Jal | InstClass::Jalr) {
        return Some(s);
    }
    let r = |n: u8| s.consts[usize::from(n)];
    if rd == 2 {
        match inst.op {
            Op::Addi if inst.rs1 == 2 => {
                s.height = s.height.map(|h| h - imm);
            }
            Op::Addi if inst.rs1 == 8 && s.fp.is_some() => {
                // sp = s0 + imm = CFA + fp + imm
                s.height = s.fp.map(|f| -(f + imm));
            }
            Op::Sub if inst.rs1 == 2 && r(inst.rs2).is_some() => {
                s.height = s.height.zip(r(inst.rs2)).map(|(h, c)| h + c);
            }
            Op::Add if inst.rs1 == 2 && r(inst.rs2).is_some() => {
                s.height = s.height.zip(r(inst.rs2)).map(|(h, c)| h - c);
            }
            _ => s.height = None,
        }
        s.height?;
        if s.height.is_some_and(|h| h < 0) {
            return None;
        }
        return Some(s);
    }
    let c = match inst.op {
        Op::Addi if inst.rs1 == 0 => Some(imm),
        Op::Addi => r(inst.rs1).map(|c| c.wrapping_add(imm)),
        Op::Slli => r(inst.rs1).map(|c| c.wrapping_shl(inst.imm as u32)),
        _ => None,
    };
    s.consts[usize::from(rd)] = c;
    if rd == 8 {
        s.fp = match inst.op {
            Op::Addi if inst.rs1 == 2 => s.height.map(|h| imm - h),
            _ => None,
        };
    }
    Some(s)
}

/// Follow a call through `t0` into the routine at `target`: its
/// straight-line code up to `jr t0`, with `jal x0` jumps (as in libgcc's
/// `__riscv_save_N`).
fn through_millicode(
    mut s: State,
    target: u64,
    mem: &mut dyn UnwindMemory,
    xlen: Xlen,
) -> Option<State> {
    let mut pc = target;
    for _ in 0..48 {
        let raw = mem.read_u32(pc)?;
        let inst = decode(raw, xlen);
        match inst.op.class() {
            InstClass::Jalr if inst.rd == 0 && inst.rs1 == 5 => return Some(s),
            InstClass::Jal if inst.rd == 0 => {
                pc = pc.wrapping_add(inst.imm as i64 as u64);
                continue;
            }
            InstClass::Jal | InstClass::Jalr | InstClass::Branch | InstClass::System => {
                return None
            }
            _ => s = transfer(s, &inst)?,
        }
        pc = pc.wrapping_add(u64::from(inst.len));
    }
    None
}

/// Analyse the function `[start, end)`; `None` if its code cannot be read
/// or it is too large.
pub(crate) fn analyse(
    mem: &mut dyn UnwindMemory,
    start: u64,
    end: u64,
    rv64: bool,
) -> Option<Analysis> {
    if end <= start || end - start > MAX_FUNCTION {
        return None;
    }
    let xlen = if rv64 { Xlen::Rv64 } else { Xlen::Rv32 };
    let insts = instructions(mem, start, end, xlen)?;
    let index: BTreeMap<u64, usize> = insts
        .iter()
        .enumerate()
        .map(|(i, (a, _))| (*a, i))
        .collect();
    // Per instruction: not reached yet, a state, or unknown (conflict).
    // One slot per instruction of one function: boxing the state would
    // only add allocations.
    #[allow(clippy::large_enum_variant)]
    #[derive(Clone, Copy)]
    enum Slot {
        Unreached,
        Known(State),
        Unknown,
    }
    let mut slots = vec![Slot::Unreached; insts.len()];
    let mut work: VecDeque<usize> = VecDeque::new();
    let merge = |slots: &mut Vec<Slot>, work: &mut VecDeque<usize>, i: usize, st: Option<State>| {
        let new = match (slots[i], st) {
            (Slot::Unknown, _) => return,
            (_, None) => Slot::Unknown,
            (Slot::Unreached, Some(s)) => Slot::Known(s),
            (Slot::Known(old), Some(s)) if old.same_frame(&s) => {
                // Constants may differ along paths: keep only agreeing ones.
                let mut m = old;
                for (a, b) in m.consts.iter_mut().zip(s.consts) {
                    if *a != b {
                        *a = None;
                    }
                }
                if m.consts == old.consts {
                    return;
                }
                Slot::Known(m)
            }
            (Slot::Known(_), Some(_)) => Slot::Unknown,
        };
        slots[i] = new;
        work.push_back(i);
    };
    merge(&mut slots, &mut work, 0, Some(State::entry()));
    let mut indirect: Vec<Option<State>> = Vec::new();
    let mut seeded = false;
    loop {
        while let Some(i) = work.pop_front() {
            let (addr, inst) = insts[i];
            let st = match slots[i] {
                Slot::Known(s) => Some(s),
                _ => None,
            };
            let next = addr + u64::from(inst.len);
            let fall = index.get(&next).copied();
            let target = addr.wrapping_add(inst.imm as i64 as u64);
            let to = index.get(&target).copied();
            match inst.op.class() {
                InstClass::Branch => {
                    if let Some(t) = to {
                        merge(&mut slots, &mut work, t, st);
                    }
                    if let Some(f) = fall {
                        merge(&mut slots, &mut work, f, st);
                    }
                }
                InstClass::Jal if inst.rd == 0 => {
                    // A jump inside the function, or a tail call out of it.
                    if let Some(t) = to {
                        merge(&mut slots, &mut work, t, st);
                    }
                }
                InstClass::Jal if inst.rd == 5 => {
                    let after = st.and_then(|s| through_millicode(s, target, mem, xlen));
                    if let Some(f) = fall {
                        merge(&mut slots, &mut work, f, after);
                    }
                }
                InstClass::Jal | InstClass::Jalr if inst.rd != 0 => {
                    // A call: the callee returns with the frame unchanged.
                    if let Some(f) = fall {
                        merge(&mut slots, &mut work, f, st);
                    }
                }
                InstClass::Jalr => {
                    if !(inst.rs1 == 1 || inst.rs1 == 5) {
                        indirect.push(st);
                    }
                }
                _ => {
                    let out = st.and_then(|s| transfer(s, &inst));
                    if let Some(f) = fall {
                        merge(&mut slots, &mut work, f, out);
                    }
                }
            }
        }
        // Switch tables: seed what only indirect jumps reach, once.
        if seeded || indirect.is_empty() {
            break;
        }
        seeded = true;
        let first = indirect[0];
        let all_same = indirect.iter().all(|s| match (s, &first) {
            (Some(a), Some(b)) => a.same_frame(b),
            _ => false,
        });
        if !all_same {
            break;
        }
        for i in 0..slots.len() {
            if matches!(slots[i], Slot::Unreached) {
                merge(&mut slots, &mut work, i, first);
            }
        }
    }
    let states = insts
        .iter()
        .zip(&slots)
        .map(|((a, _), s)| {
            (
                *a,
                match s {
                    Slot::Known(s) => Some(*s),
                    _ => None,
                },
            )
        })
        .collect();
    Some(Analysis { states })
}
