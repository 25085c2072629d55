//! A tiny test-only RISC-V encoder and test harness (Unprivileged ISA
//! 20191213, Chapter 24 instruction formats). Each helper names the
//! mnemonic it encodes.

use crate::hooks::{BlockId, Hooks, Jump, JumpKind, TrapInfo};
use crate::{Memory, Simulator, StopReason};
use fwprof_isa::Inst;
use fwprof_os::{GuestMemory, Perm};
use std::sync::atomic::AtomicBool;

pub const BASE: u64 = 0x8000_0000;
pub const DATA: u64 = 0x8000_8000;

pub fn r(op: u32, f3: u32, f7: u32, rd: u32, rs1: u32, rs2: u32) -> u32 {
    f7 << 25 | rs2 << 20 | rs1 << 15 | f3 << 12 | rd << 7 | op
}
pub fn i(op: u32, f3: u32, rd: u32, rs1: u32, imm: i32) -> u32 {
    ((imm as u32) & 0xfff) << 20 | rs1 << 15 | f3 << 12 | rd << 7 | op
}
pub fn s(op: u32, f3: u32, rs1: u32, rs2: u32, imm: i32) -> u32 {
    let imm = imm as u32;
    ((imm >> 5) & 0x7f) << 25 | rs2 << 20 | rs1 << 15 | f3 << 12 | (imm & 0x1f) << 7 | op
}
pub fn b(f3: u32, rs1: u32, rs2: u32, imm: i32) -> u32 {
    let m = imm as u32;
    ((m >> 12) & 1) << 31
        | ((m >> 5) & 0x3f) << 25
        | rs2 << 20
        | rs1 << 15
        | f3 << 12
        | ((m >> 1) & 0xf) << 8
        | ((m >> 11) & 1) << 7
        | 0x63
}
pub fn jal(rd: u32, imm: i32) -> u32 {
    let m = imm as u32;
    ((m >> 20) & 1) << 31
        | ((m >> 1) & 0x3ff) << 21
        | ((m >> 11) & 1) << 20
        | ((m >> 12) & 0xff) << 12
        | rd << 7
        | 0x6f
}
pub fn jalr(rd: u32, rs1: u32, imm: i32) -> u32 {
    i(0x67, 0, rd, rs1, imm)
}
pub fn lui(rd: u32, imm: u32) -> u32 {
    (imm & 0xfffff) << 12 | rd << 7 | 0x37
}
pub fn auipc(rd: u32, imm: u32) -> u32 {
    (imm & 0xfffff) << 12 | rd << 7 | 0x17
}
pub fn addi(rd: u32, rs1: u32, imm: i32) -> u32 {
    i(0x13, 0, rd, rs1, imm)
}
pub fn slli(rd: u32, rs1: u32, sh: i32) -> u32 {
    i(0x13, 1, rd, rs1, sh)
}
pub fn add(rd: u32, rs1: u32, rs2: u32) -> u32 {
    r(0x33, 0, 0, rd, rs1, rs2)
}
pub fn lw(rd: u32, rs1: u32, imm: i32) -> u32 {
    i(0x03, 2, rd, rs1, imm)
}
pub fn ld(rd: u32, rs1: u32, imm: i32) -> u32 {
    i(0x03, 3, rd, rs1, imm)
}
pub fn sw(rs1: u32, rs2: u32, imm: i32) -> u32 {
    s(0x23, 2, rs1, rs2, imm)
}
pub fn sd(rs1: u32, rs2: u32, imm: i32) -> u32 {
    s(0x23, 3, rs1, rs2, imm)
}
pub fn csr(f3: u32, rd: u32, rs1: u32, csr: u32) -> u32 {
    csr << 20 | rs1 << 15 | f3 << 12 | rd << 7 | 0x73
}
pub fn amo(funct5: u32, width: u32, rd: u32, rs1: u32, rs2: u32) -> u32 {
    funct5 << 27 | rs2 << 20 | rs1 << 15 | width << 12 | rd << 7 | 0x2f
}
pub fn fp(f7: u32, rm: u32, rd: u32, rs1: u32, rs2: u32) -> u32 {
    r(0x53, rm, f7, rd, rs1, rs2)
}
pub const ECALL: u32 = 0x0000_0073;
pub const EBREAK: u32 = 0x0010_0073;
pub const MRET: u32 = 0x3020_0073;
pub const FENCE_I: u32 = 0x0000_100f;
pub const NOP: u32 = 0x0000_0013;
pub const WFI: u32 = 0x1050_0073;

/// Load a 32-bit constant into `rd` (lui + addi).
pub fn li(rd: u32, v: i32) -> [u32; 2] {
    let lo = (v << 20) >> 20;
    let hi = (v.wrapping_sub(lo) as u32) >> 12;
    [lui(rd, hi), addi(rd, rd, lo)]
}

/// A recording collector: block sizes, executed count derived from block
/// events, traps, mrets and jumps.
#[derive(Default, Debug)]
pub struct Rec {
    /// Sizes of every block translated, across flushes (block id `i` of
    /// the current generation is `sizes[base + i]`).
    pub sizes: Vec<u32>,
    pub base: usize,
    pub flushes: u32,
    pub pcs: Vec<Vec<u64>>,
    pub count: u64,
    pub cuts: u32,
    pub traps: Vec<TrapInfo>,
    pub mrets: Vec<(u64, u64)>,
    /// `on_jump` calls: (kind, pc, target, instret), and the whole jump.
    pub jumps: Vec<(JumpKind, u64, u64, u64)>,
    pub jumps_full: Vec<Jump>,
    /// Targets of direct jumps (`jal x0`) `on_jump` is not to hear of.
    pub unreported: Vec<u64>,
    /// `on_idle` calls: (ticks, executed).
    pub idles: Vec<(u64, u64)>,
    /// `on_signal` and `on_signal_return` calls.
    pub signals: Vec<crate::SignalDelivery>,
    pub sigreturns: Vec<crate::SignalReturn>,
}

impl Hooks for Rec {
    const WANTS_JUMPS: bool = true;
    fn on_block_translated(&mut self, id: BlockId, pcs: &[u64], insts: &[Inst]) {
        assert_eq!(id.0 as usize, self.sizes.len() - self.base);
        self.sizes.push(insts.len() as u32);
        self.pcs.push(pcs.to_vec());
    }
    fn on_cache_flush(&mut self) {
        self.base = self.sizes.len();
        self.flushes += 1;
    }
    fn on_block_exec(&mut self, id: BlockId, _executed: u64) {
        self.count += self.sizes[self.base + id.0 as usize] as u64;
    }
    fn on_block_cut(&mut self, id: BlockId, executed: u32) {
        self.cuts += 1;
        self.count -= (self.sizes[self.base + id.0 as usize] - executed) as u64;
    }
    fn on_jump(&mut self, j: &Jump) {
        // The block is the one that ends with the jump.
        assert_eq!(self.pcs[self.base + j.block.0 as usize].last(), Some(&j.pc));
        self.jumps.push((j.kind, j.pc, j.target, j.instret));
        self.jumps_full.push(*j);
    }
    fn wants_direct_jump(&mut self, _pc: u64, target: u64) -> bool {
        !self.unreported.contains(&target)
    }
    fn on_trap(&mut self, trap: TrapInfo, _instret: u64, _sp: u64) {
        self.traps.push(trap);
    }
    fn on_trap_return(&mut self, ret: &crate::TrapReturn) {
        self.mrets.push((ret.pc, ret.target));
    }
    fn on_idle(&mut self, ticks: u64, executed: u64) {
        self.idles.push((ticks, executed));
    }
    fn on_signal(&mut self, signal: &crate::SignalDelivery) {
        self.signals.push(*signal);
    }
    fn on_signal_return(&mut self, ret: &crate::SignalReturn) {
        self.sigreturns.push(*ret);
    }
}

/// Memory with 64 KiB of RWX RAM at `BASE` holding `words`.
pub fn memory_with(words: &[u32]) -> Memory {
    let mut m = Memory::new();
    m.map(
        BASE,
        0x10000,
        Perm {
            read: true,
            write: true,
            exec: true,
        },
    )
    .unwrap();
    let bytes: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
    m.write(BASE, &bytes).unwrap();
    m
}

/// A simulator over `words` at `BASE`.
pub fn sim(rv64: bool, words: &[u32]) -> Simulator<Rec> {
    Simulator::bare(memory_with(words), rv64, BASE, Rec::default())
}

/// Run `words` (which should end in `ecall`, which stops with a fault as
/// `mtvec` = 0) and return the simulator and its stop reason.
pub fn run(rv64: bool, words: &[u32]) -> (Simulator<Rec>, StopReason) {
    let mut sm = sim(rv64, words);
    let stop = sm.run(100_000, &AtomicBool::new(false)).unwrap();
    assert_eq!(
        sm.hooks().count,
        sm.executed(),
        "hook-derived count matches"
    );
    (sm, stop)
}

/// Run and assert the program stopped at its final `ecall`.
pub fn run_ok(rv64: bool, words: &[u32]) -> Simulator<Rec> {
    let (sm, stop) = run(rv64, words);
    match stop {
        StopReason::Fault { cause: 11, .. } => sm,
        other => panic!("unexpected stop {other:?}"),
    }
}

/// Runs `sm` for at most `limit` instructions and checks that the
/// recording hooks counted exactly the instructions the simulator executed.
pub fn go(sm: &mut crate::Simulator<Rec>, limit: u64) -> StopReason {
    let stop = sm.run(limit, &AtomicBool::new(false)).unwrap();
    assert_eq!(
        sm.hooks().count,
        sm.executed(),
        "hook-derived count matches"
    );
    stop
}
