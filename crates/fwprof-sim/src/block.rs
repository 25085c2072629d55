//! The block cache: instructions decoded once, grouped into straight-line
//! blocks with dense ids, looked up by pc and chained to their successors.
//!
//! A block runs from its entry pc up to and including the first instruction
//! that transfers control or needs the simulator (branch, `jal`, `jalr`,
//! `ecall`, `ebreak`, `mret`, `wfi`, `fence.i`, a CSR access — so counter
//! reads see exact counts — or an illegal instruction), or at most
//! [`MAX_BLOCK_INSTS`] instructions, or the end of the executable region.
//!
//! Lookup: a direct-mapped table of `DIRECT_SLOTS` entries in front of a
//! `HashMap`. Chaining: each block remembers the id of the block that
//! followed it on the fall-through path and on the other path, validated by
//! start pc when used (an indirect jump's target varies). A chain never
//! leads to a dead block: killing a block unlinks every chain to it.
//!
//! Each instruction is kept twice, in parallel arenas: as decoded
//! ([`Inst`], for hooks and the general executor) and lowered for the fast
//! executor ([`Uop`], see `uop.rs`).
//!
//! Invalidation: blocks are registered per 64-byte code line; a write to a
//! line (self-modifying code) kills exactly the blocks whose bytes it
//! overlaps. `fence.i` kills everything. Killed ids are never reused.

use crate::hooks::{BlockId, Hooks, JumpKind};
use crate::memory::{Memory, CODE_LINE_SHIFT};
use crate::trap::{Exc, CAUSE_FETCH_ACCESS};
use crate::uop::{lower, Uop};
use fwprof_isa::{decode, inst_len, Inst, Op, Xlen};
use std::collections::HashMap;

/// Maximum number of instructions in one block.
pub const MAX_BLOCK_INSTS: usize = 64;

const DIRECT_SLOTS: usize = 4096;

/// [`Block::after`]: the block ends in a `jal`/`jalr` (jump hooks).
pub(crate) const AFTER_JUMP: u8 = 1;
/// [`Block::after`]: the block ends in `mret`.
pub(crate) const AFTER_MRET: u8 = 2;
/// [`Block::after`]: the block ends in `fence.i`.
pub(crate) const AFTER_FENCE_I: u8 = 4;

/// "No block" marker for chain slots.
pub(crate) const NO_BLOCK: u32 = u32::MAX;

/// What the run loop reads for every executed block (32 bytes; the rest is
/// in [`BlockInfo`]).
#[derive(Clone, Copy, Debug)]
pub(crate) struct Block {
    /// Entry pc.
    pub start: u64,
    /// Address just past the last instruction (the fall-through pc).
    pub end: u64,
    /// Index of the first instruction in the instruction arenas.
    pub first: u32,
    /// Number of instructions (at most [`MAX_BLOCK_INSTS`]).
    pub count: u16,
    /// The last instruction is a branch, `jal` or `jalr`: the run loop
    /// executes it separately ([`crate::uop::exec_term`]) and picks the
    /// chain by its outcome.
    pub term: bool,
    /// Something to do after the block: [`AFTER_JUMP`], [`AFTER_MRET`],
    /// [`AFTER_FENCE_I`] bits (0 for most blocks).
    pub after: u8,
    /// Chained successor on the fall-through path (`end`).
    pub fall: u32,
    /// Chained successor on any other path (last target seen).
    pub taken: u32,
}

/// The rest of a block's facts, used off the hot path.
#[derive(Clone, Copy, Debug)]
pub(crate) struct BlockInfo {
    /// Address of the last instruction.
    pub last_pc: u64,
    /// How the last instruction jumps, if it is a `jal`/`jalr`.
    pub jump: Option<JumpKind>,
    /// The last instruction's operation.
    pub last_op: Op,
    /// False once invalidated.
    pub live: bool,
}

/// True if `op` must be the last instruction of a block.
pub(crate) fn ends_block(op: Op) -> bool {
    matches!(
        op,
        Op::Beq
            | Op::Bne
            | Op::Blt
            | Op::Bge
            | Op::Bltu
            | Op::Bgeu
            | Op::Jal
            | Op::Jalr
            | Op::Ecall
            | Op::Ebreak
            | Op::Mret
            | Op::Wfi
            | Op::FenceI
            | Op::Csrrw
            | Op::Csrrs
            | Op::Csrrc
            | Op::Csrrwi
            | Op::Csrrsi
            | Op::Csrrci
            | Op::Illegal
    )
}

/// Classify a `jal`/`jalr` (Unprivileged ISA 20191213, §2.5, Table 2.1:
/// link registers are `x1`/`ra` and `x5`/`t0`).
pub fn jump_kind(inst: &Inst) -> Option<JumpKind> {
    let link = |r: u8| r == 1 || r == 5;
    match inst.op {
        Op::Jal => Some(if link(inst.rd) {
            JumpKind::Call
        } else if inst.rd == 0 {
            JumpKind::Jump
        } else {
            JumpKind::LinkOther
        }),
        Op::Jalr => Some(match (link(inst.rd), link(inst.rs1)) {
            (false, false) if inst.rd == 0 => JumpKind::Jump,
            (false, false) => JumpKind::LinkOther,
            (false, true) => JumpKind::Return,
            (true, false) => JumpKind::Call,
            (true, true) if inst.rd == inst.rs1 => JumpKind::Call,
            (true, true) => JumpKind::CallReturn,
        }),
        _ => None,
    }
}

/// All translated blocks and their indexes.
#[derive(Debug)]
pub(crate) struct BlockCache {
    pub blocks: Vec<Block>,
    /// Cold facts, index for index with `blocks`.
    pub info: Vec<BlockInfo>,
    pub insts: Vec<Inst>,
    /// `insts` lowered, index for index.
    pub uops: Vec<Uop>,
    map: HashMap<u64, u32>,
    direct: Vec<(u64, u32)>,
    lines: HashMap<u64, Vec<u32>>,
    /// Maximum instructions per block (1 in single-step mode).
    pub max_len: usize,
}

impl BlockCache {
    pub fn new() -> Self {
        BlockCache {
            blocks: Vec::new(),
            info: Vec::new(),
            insts: Vec::new(),
            uops: Vec::new(),
            map: HashMap::new(),
            direct: vec![(u64::MAX, NO_BLOCK); DIRECT_SLOTS],
            lines: HashMap::new(),
            max_len: MAX_BLOCK_INSTS,
        }
    }

    #[inline(always)]
    fn slot(pc: u64) -> usize {
        ((pc >> 1) as usize) & (DIRECT_SLOTS - 1)
    }

    /// Live block starting at `pc`, if any.
    #[inline]
    pub fn lookup(&mut self, pc: u64) -> Option<u32> {
        let s = Self::slot(pc);
        let (p, id) = self.direct[s];
        if p == pc {
            return Some(id);
        }
        let id = *self.map.get(&pc)?;
        self.direct[s] = (pc, id);
        Some(id)
    }

    /// Decode a new block at `pc`, register it and tell the hooks.
    ///
    /// # Errors
    /// An instruction access fault if the first instruction cannot be
    /// fetched (a later unfetchable instruction just ends the block).
    pub fn translate<H: Hooks>(
        &mut self,
        pc: u64,
        xlen: Xlen,
        mem: &mut Memory,
        hooks: &mut H,
    ) -> Result<u32, Exc> {
        let fault = |addr| Exc {
            cause: CAUSE_FETCH_ACCESS,
            tval: addr,
        };
        let region_end = mem.exec_region_end(pc).ok_or(fault(pc))?;
        let first = self.insts.len();
        let mut pcs = Vec::with_capacity(8);
        let mut p = pc;
        loop {
            let lo = match mem.fetch_u16(p) {
                Ok(v) => v,
                Err(a) if pcs.is_empty() => return Err(fault(a)),
                Err(_) => break,
            };
            let raw = if inst_len(lo) == 4 {
                match mem.fetch_u16(p.wrapping_add(2)) {
                    Ok(hi) => (hi as u32) << 16 | lo as u32,
                    Err(a) if pcs.is_empty() => return Err(fault(a)),
                    Err(_) => break,
                }
            } else {
                lo as u32
            };
            let inst = decode(raw, xlen);
            self.insts.push(inst);
            pcs.push(p);
            p = p.wrapping_add(inst.len as u64);
            if xlen == Xlen::Rv32 {
                p &= 0xffff_ffff;
            }
            if ends_block(inst.op) || pcs.len() >= self.max_len || p >= region_end || p < pc {
                break;
            }
        }
        let keep = hooks.split_block(&pcs).clamp(1, pcs.len());
        pcs.truncate(keep);
        self.insts.truncate(first + keep);
        let count = pcs.len();
        let rv64 = xlen == Xlen::Rv64;
        for (k, &ip) in pcs.iter().enumerate() {
            self.uops
                .push(lower(&self.insts[first + k], k as u8, ip, pc, rv64));
        }
        let last = self.insts[first + count - 1];
        let id = self.blocks.len() as u32;
        let last_pc = pcs[count - 1];
        let end = last_pc.wrapping_add(last.len as u64);
        self.blocks.push(Block {
            start: pc,
            end,
            first: first as u32,
            count: count as u16,
            term: matches!(
                last.op,
                Op::Beq | Op::Bne | Op::Blt | Op::Bge | Op::Bltu | Op::Bgeu | Op::Jal | Op::Jalr
            ),
            after: match last.op {
                Op::Jal | Op::Jalr => AFTER_JUMP,
                Op::Mret => AFTER_MRET,
                Op::FenceI => AFTER_FENCE_I,
                _ => 0,
            },
            fall: NO_BLOCK,
            taken: NO_BLOCK,
        });
        self.info.push(BlockInfo {
            last_pc,
            jump: jump_kind(&last),
            last_op: last.op,
            live: true,
        });
        // Register under every line the block's bytes touch.
        let (l0, l1) = (
            pc >> CODE_LINE_SHIFT,
            (end.max(pc + 1) - 1) >> CODE_LINE_SHIFT,
        );
        for line in l0..=l1 {
            self.lines.entry(line).or_default().push(id);
        }
        for (k, &ip) in pcs.iter().enumerate() {
            mem.mark_code(ip, self.insts[first + k].len as u64);
        }
        self.map.insert(pc, id);
        self.direct[Self::slot(pc)] = (pc, id);
        hooks.on_block_translated(BlockId(id), &pcs, &self.insts[first..first + count]);
        Ok(id)
    }

    /// Mark block `id` dead and drop it from the lookup tables. Chains to it
    /// must be cut afterwards ([`BlockCache::unlink_dead`]).
    fn kill(&mut self, id: u32) {
        let info = &mut self.info[id as usize];
        if !info.live {
            return;
        }
        info.live = false;
        let start = self.blocks[id as usize].start;
        if self.map.get(&start) == Some(&id) {
            self.map.remove(&start);
        }
        let s = Self::slot(start);
        if self.direct[s].1 == id {
            self.direct[s] = (u64::MAX, NO_BLOCK);
        }
    }

    /// Kill every block overlapping one of the written ranges `(addr, len)`.
    /// Returns true if any block died.
    pub fn invalidate(&mut self, writes: &[(u64, u64)], mem: &mut Memory) -> bool {
        let mut any = false;
        for &(addr, len) in writes {
            let end = addr.saturating_add(len.max(1));
            for line in (addr >> CODE_LINE_SHIFT)..=((end - 1) >> CODE_LINE_SHIFT) {
                let Some(list) = self.lines.remove(&line) else {
                    mem.unmark_code_line(line);
                    continue;
                };
                let mut keep = Vec::with_capacity(list.len());
                for id in list {
                    if !self.info[id as usize].live {
                        continue;
                    }
                    let b = &self.blocks[id as usize];
                    if b.start < end && addr < b.end {
                        self.kill(id);
                        any = true;
                    } else {
                        keep.push(id);
                    }
                }
                if keep.is_empty() {
                    mem.unmark_code_line(line);
                } else {
                    self.lines.insert(line, keep);
                }
            }
        }
        if any {
            self.unlink_dead();
        }
        any
    }

    /// Cut every chain that leads to a dead block.
    fn unlink_dead(&mut self) {
        let info = &self.info;
        let alive = |id: u32| id != NO_BLOCK && info[id as usize].live;
        for b in &mut self.blocks {
            if !alive(b.fall) {
                b.fall = NO_BLOCK;
            }
            if !alive(b.taken) {
                b.taken = NO_BLOCK;
            }
        }
    }

    /// Kill every block (`fence.i`, single-step switch).
    pub fn flush(&mut self, mem: &mut Memory) {
        for (b, info) in self.blocks.iter_mut().zip(&mut self.info) {
            info.live = false;
            b.fall = NO_BLOCK;
            b.taken = NO_BLOCK;
        }
        self.map.clear();
        self.lines.clear();
        self.direct
            .iter_mut()
            .for_each(|e| *e = (u64::MAX, NO_BLOCK));
        mem.unmark_all_code();
    }
}
