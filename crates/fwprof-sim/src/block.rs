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
//! `HashMap`, keyed by (address space, pc): the address space is
//! [`Memory::fetch_key`] (the privilege while fetches are not paged, else derived from
//! `satp` and the fetch privilege), so the same virtual pc in two address
//! spaces never shares a block. A block of a paged address space ends at
//! the end of its virtual page (only its last instruction may cross into
//! the next page). Chaining: each block remembers the id of the block that
//! followed it on the fall-through path and on the other path, validated by
//! start pc when used (an indirect jump's target varies). Killing a block
//! sets its start pc to [`DEAD_START`], which no pc equals, so the same
//! check refuses every chain to a dead block without visiting the chains.
//!
//! Each instruction is kept twice, in parallel arenas: as decoded
//! ([`Inst`], for hooks and the general executor) and lowered for the fast
//! executor ([`Uop`], see `uop.rs`).
//!
//! Invalidation: blocks are registered per *physical* 64-byte code line
//! (the lines their bytes were fetched from); a write to a line
//! (self-modifying code) kills exactly the blocks whose bytes it overlaps.
//! Killed ids are not reused before the next flush. `sfence.vma` kills
//! every block of a paged address space (of one ASID when it names one),
//! a PMP change flushes all ([`crate::memory::BlockKill`]).
//!
//! Flush (`fence.i`, a switch of single-step mode, or a compaction once
//! killed blocks outnumber live ones): every block dies at once and block ids
//! restart at 0. Its cost does not depend on the length of the run: the
//! arenas are truncated (their elements have no destructor), the direct
//! table is emptied by advancing a generation number its entries carry, the
//! hash maps are cleared in time proportional to what was inserted since the
//! previous flush (an oversized table is dropped instead), and the code-line
//! marks in [`Memory`] are left in place: a later write to a line that no
//! longer holds a block finds no block in `invalidate`, which then unmarks
//! the line (each mark is removed at most once, so this is paid for by the
//! translation that set it).

use crate::hooks::{BlockId, Hooks, JumpKind};
use crate::memory::{Access, BlockKill, Memory, CODE_LINE_SHIFT};
use crate::trap::Exc;
use crate::uop::{lower, Uop};
use fwprof_isa::{decode, inst_len, Inst, Op, Xlen};
use std::collections::HashMap;

/// Maximum number of instructions in one block.
pub const MAX_BLOCK_INSTS: usize = 64;

pub(crate) const DIRECT_SLOTS: usize = 4096;

/// An entry of the direct-mapped lookup table: live block `id` starts at
/// `pc` in address space `key`, if `generation` is the cache's.
/// `#[repr(C)]`: translated code reads it (`jit/emit.rs`, `leave`).
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub(crate) struct Direct {
    pub pc: u64,
    pub key: u64,
    pub id: u32,
    pub generation: u32,
}

impl Direct {
    const EMPTY: Direct = Direct::new(DEAD_START, 0, NO_BLOCK, 0);

    const fn new(pc: u64, key: u64, id: u32, generation: u32) -> Direct {
        Direct {
            pc,
            key,
            id,
            generation,
        }
    }
}

/// [`Block::after`]: the block ends in a `jal`/`jalr` (jump hooks).
pub(crate) const AFTER_JUMP: u8 = 1;
/// [`Block::after`]: the block ends in `mret` or `sret`.
pub(crate) const AFTER_XRET: u8 = 2;
/// [`Block::after`]: the block ends in `fence.i`.
pub(crate) const AFTER_FENCE_I: u8 = 4;
/// [`Block::after`]: the block ends in an instruction that may change
/// whether an interrupt is pending or enabled (a CSR access, `mret`,
/// `sret`): the run loop looks at interrupts again.
pub(crate) const AFTER_IRQ: u8 = 8;
/// [`Block::after`]: the block ends in an instruction that may change
/// translation (`sfence.vma`, a write to `satp`, `pmpcfg*`, `pmpaddr*`,
/// `mstatus`/`sstatus`): pending block kills are applied after it.
pub(crate) const AFTER_VM: u8 = 16;
/// [`Block::after`] bits after which the run loop follows no chain: the
/// privilege or address space (the block-cache key) may have changed, or
/// blocks died.
pub(crate) const AFTER_NO_CHAIN: u8 = AFTER_XRET | AFTER_FENCE_I | AFTER_VM;

/// "No block" marker for chain slots.
pub(crate) const NO_BLOCK: u32 = u32::MAX;

/// [`Block::start`] of a killed block: odd and at the very top of the
/// address space, so no pc (always 2-byte aligned) equals it and every
/// chain to the block fails the run loop's start-pc check.
pub(crate) const DEAD_START: u64 = u64::MAX;

/// A flush that discards this many killed blocks or more, when they are at
/// least half the cache, is done right after the invalidation that killed
/// them (compaction): a program that rewrites its code without `fence.i`
/// keeps the arenas bounded too.
const COMPACT_DEAD: usize = 4096;

/// Counters of the block cache since the simulator was built
/// ([`crate::Simulator::cache_stats`]).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct CacheStats {
    /// Blocks translated.
    pub translated: u64,
    /// Whole-cache flushes: `fence.i`, switches of single-step mode, and
    /// compactions after many blocks were killed by writes to their code.
    pub flushes: u64,
    /// Blocks killed by writes to their code (self-modifying code).
    pub invalidated: u64,
    /// The most blocks (live or killed) one flush discarded: the work of a
    /// flush, in the cache and in every collector's
    /// [`crate::Hooks::on_cache_flush`], is proportional to it (blocks
    /// translated since the previous flush), not to the run's length.
    pub max_blocks_per_flush: u64,
    /// Blocks in the cache now (live or killed, since the last flush).
    pub blocks: u64,
}

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
    /// Something to do after the block: [`AFTER_JUMP`], [`AFTER_XRET`], [`AFTER_IRQ`],
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
    /// The address-space key it was translated in (see [`BlockCache`]).
    pub key: u64,
    /// The physical byte ranges `[start, end)` its instructions came from
    /// (the second is empty unless the last instruction crosses a page).
    pub phys: [(u64, u64); 2],
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
            | Op::Sret
            | Op::Wfi
            | Op::SfenceVma
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

/// True if `inst` (the operation `op`) is a CSR instruction that may write
/// `satp`, a `pmpcfg` or a `pmpaddr` (translation changes after it).
fn writes_vm_csr(op: Op, inst: &Inst) -> bool {
    let csr = (inst.imm as u32 & 0xfff) as u16;
    matches!(
        op,
        Op::Csrrw | Op::Csrrs | Op::Csrrc | Op::Csrrwi | Op::Csrrsi | Op::Csrrci
    ) && (csr == 0x180 || (0x3A0..=0x3BF).contains(&csr))
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
    /// Keyed by (address-space key, pc).
    map: HashMap<(u64, u64), u32>,
    /// `(pc, key, id, generation)`: valid only when the generation is
    /// `generation`.
    direct: Vec<Direct>,
    /// Ids of blocks of paged address spaces (`mmu::is_paged_key`), for `sfence.vma`.
    paged: Vec<u32>,
    lines: HashMap<u64, Vec<u32>>,
    /// Advanced by every flush (see [`BlockCache::flush`]).
    generation: u32,
    /// Killed blocks since the last flush.
    dead: usize,
    /// Ids of the blocks killed since the run loop last took them (see
    /// [`BlockCache::take_killed`]): the translation tier drops the code
    /// of every region holding one.
    killed: Vec<u32>,
    stats: CacheStats,
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
            direct: vec![Direct::EMPTY; DIRECT_SLOTS],
            paged: Vec::new(),
            lines: HashMap::new(),
            generation: 0,
            dead: 0,
            killed: Vec::new(),
            stats: CacheStats::default(),
            max_len: MAX_BLOCK_INSTS,
        }
    }

    /// The cache's counters.
    pub fn stats(&self) -> CacheStats {
        CacheStats {
            blocks: self.blocks.len() as u64,
            ..self.stats
        }
    }

    #[inline(always)]
    fn slot(pc: u64) -> usize {
        ((pc >> 1) as usize) & (DIRECT_SLOTS - 1)
    }

    /// The direct-mapped table, for translated code's own lookups
    /// ([`BlockCache::lookup`]'s first step; `DIRECT_SLOTS` entries, at
    /// [`BlockCache::slot`]); it never moves.
    pub(crate) fn direct(&self) -> *const Direct {
        self.direct.as_ptr()
    }

    /// The generation a [`Direct`] entry must have to be valid.
    pub(crate) fn generation(&self) -> u32 {
        self.generation
    }

    /// Live block starting at `pc` in address space `key`
    /// ([`Memory::fetch_key`]), if any.
    #[inline]
    pub fn lookup(&mut self, pc: u64, key: u64) -> Option<u32> {
        let s = Self::slot(pc);
        let d = self.direct[s];
        if d.pc == pc && d.key == key && d.generation == self.generation {
            return Some(d.id);
        }
        let id = *self.map.get(&(key, pc))?;
        self.direct[s] = Direct::new(pc, key, id, self.generation);
        Some(id)
    }

    /// Decode a new block at `pc`, register it and tell the hooks.
    ///
    /// # Errors
    /// An instruction access or page fault if the first instruction cannot
    /// be fetched (a later unfetchable instruction just ends the block).
    pub fn translate<H: Hooks>(
        &mut self,
        pc: u64,
        xlen: Xlen,
        mem: &mut Memory,
        hooks: &mut H,
    ) -> Result<u32, Exc> {
        let fault = |mem: &Memory, addr| Exc {
            cause: mem.fault_cause(Access::Exec),
            tval: addr,
        };
        let key = mem.fetch_key();
        let region_end = mem.fetch_limit(pc)?;
        let first = self.insts.len();
        let mut pcs = Vec::with_capacity(8);
        let mut p = pc;
        loop {
            let lo = match mem.fetch_u16(p) {
                Ok(v) => v,
                Err(a) if pcs.is_empty() => return Err(fault(mem, a)),
                Err(_) => break,
            };
            let raw = if inst_len(lo) == 4 {
                match mem.fetch_u16(p.wrapping_add(2)) {
                    Ok(hi) => (hi as u32) << 16 | lo as u32,
                    Err(a) if pcs.is_empty() => return Err(fault(mem, a)),
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
        let keep = hooks
            .split_block(&pcs, &self.insts[first..])
            .clamp(1, pcs.len());
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
                Op::Mret | Op::Sret => AFTER_XRET | AFTER_IRQ,
                Op::FenceI => AFTER_FENCE_I,
                Op::SfenceVma => AFTER_VM,
                op if writes_vm_csr(op, &last) => AFTER_IRQ | AFTER_VM,
                Op::Csrrw | Op::Csrrs | Op::Csrrc | Op::Csrrwi | Op::Csrrsi | Op::Csrrci => {
                    AFTER_IRQ
                }
                _ => 0,
            },
            fall: NO_BLOCK,
            taken: NO_BLOCK,
        });
        // The physical bytes: the same as the virtual ones unless fetches
        // are paged; then the block lies in one page but its last
        // instruction may end in the next.
        let phys = if !crate::mmu::is_paged_key(key) {
            for (k, &ip) in pcs.iter().enumerate() {
                mem.mark_code(ip, self.insts[first + k].len as u64);
            }
            [(pc, end.max(pc + 1)), (0, 0)]
        } else {
            let page_end = (pc | 0xfff).wrapping_add(1);
            for (k, &ip) in pcs.iter().enumerate() {
                let len = self.insts[first + k].len as u64;
                let head = len.min(page_end.wrapping_sub(ip));
                let pa = mem.code_phys(ip);
                mem.mark_code(pa, head);
                if head < len {
                    let pa = mem.code_phys(page_end);
                    mem.mark_code(pa, len - head);
                }
            }
            let p0 = mem.code_phys(pc);
            let vend = if end > pc {
                end.min(page_end)
            } else {
                page_end
            };
            let in_page = vend.wrapping_sub(pc).max(1);
            let tail = if end > page_end && page_end != 0 {
                let p1 = mem.code_phys(page_end);
                (p1, p1 + (end - page_end))
            } else {
                (0, 0)
            };
            [(p0, p0 + in_page), tail]
        };
        // A `jal x0` (its target is the last uop's immediate) is reported
        // only if the hooks want to hear of jumps to its target.
        let jump = match jump_kind(&last) {
            Some(JumpKind::Jump)
                if H::WANTS_JUMPS
                    && last.op == Op::Jal
                    && !hooks.wants_direct_jump(last_pc, self.uops[self.uops.len() - 1].imm) =>
            {
                None
            }
            k => k,
        };
        self.info.push(BlockInfo {
            last_pc,
            jump,
            last_op: last.op,
            live: true,
            key,
            phys,
        });
        // Register under every physical line the block's bytes touch.
        for (s, e) in phys {
            if e > s {
                for line in (s >> CODE_LINE_SHIFT)..=((e - 1) >> CODE_LINE_SHIFT) {
                    self.lines.entry(line).or_default().push(id);
                }
            }
        }
        if crate::mmu::is_paged_key(key) {
            self.paged.push(id);
        }
        self.map.insert((key, pc), id);
        self.direct[Self::slot(pc)] = Direct::new(pc, key, id, self.generation);
        self.stats.translated += 1;
        hooks.on_block_translated(BlockId(id), &pcs, &self.insts[first..first + count]);
        Ok(id)
    }

    /// Mark block `id` dead and drop it from the lookup tables; its start
    /// becomes [`DEAD_START`], so chains to it are no longer followed.
    fn kill(&mut self, id: u32) {
        let info = &mut self.info[id as usize];
        if !info.live {
            return;
        }
        info.live = false;
        let key = info.key;
        let start = std::mem::replace(&mut self.blocks[id as usize].start, DEAD_START);
        if self.map.get(&(key, start)) == Some(&id) {
            self.map.remove(&(key, start));
        }
        let s = Self::slot(start);
        if self.direct[s].id == id {
            self.direct[s] = Direct::EMPTY;
        }
        self.dead += 1;
        self.killed.push(id);
        self.stats.invalidated += 1;
    }

    /// The ids of the blocks killed since the last call (or flush).
    pub fn take_killed(&mut self) -> Vec<u32> {
        std::mem::take(&mut self.killed)
    }

    /// Kill every block overlapping one of the written ranges `(addr, len)`.
    /// Returns true if any block died. Costs the blocks registered on the
    /// written lines, whatever the size of the cache.
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
                    let phys = self.info[id as usize].phys;
                    if phys.iter().any(|&(s, e)| s < end && addr < e) {
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
        any
    }

    /// Kill the blocks of paged address spaces that `kill` names
    /// (`sfence.vma`); returns true if any died. Costs the paged blocks
    /// translated since the last flush.
    pub fn kill_paged(&mut self, kill: BlockKill) -> bool {
        let mut any = false;
        let ids = std::mem::take(&mut self.paged);
        let mut keep = Vec::with_capacity(ids.len());
        for id in ids {
            let info = &self.info[id as usize];
            if !info.live {
                continue;
            }
            if kill.hits(info.key) {
                self.kill(id);
                any = true;
            } else {
                keep.push(id);
            }
        }
        self.paged = keep;
        any
    }

    /// True when killed blocks are many and at least half the cache: time
    /// for a flush, which frees them (see [`COMPACT_DEAD`]).
    pub fn wants_compaction(&self) -> bool {
        self.dead >= COMPACT_DEAD && self.dead * 2 >= self.blocks.len()
    }

    /// Kill every block and restart ids at 0 (`fence.i`, single-step
    /// switch, compaction). The caller tells the hooks
    /// ([`crate::Hooks::on_cache_flush`]). Costs O(1) plus the blocks and
    /// lines registered since the previous flush (see the module docs).
    pub fn flush(&mut self) {
        let n = self.blocks.len();
        self.stats.flushes += 1;
        self.stats.max_blocks_per_flush = self.stats.max_blocks_per_flush.max(n as u64);
        self.blocks.clear();
        self.info.clear();
        self.insts.clear();
        self.uops.clear();
        self.dead = 0;
        self.killed.clear();
        self.paged.clear();
        clear_map(&mut self.map);
        clear_map(&mut self.lines);
        self.generation = self.generation.wrapping_add(1);
        if self.generation == 0 {
            // Once in 2^32 flushes: entries of the generation now reused go.
            self.direct.fill(Direct::EMPTY);
        }
    }
}

/// Empty `m` in time proportional to what was inserted since the last
/// flush: `clear` costs the table's capacity, so a table much larger than
/// what it holds (grown in an earlier, larger generation) is dropped
/// instead (its size was paid for by the insertions that grew it).
fn clear_map<K, V>(m: &mut HashMap<K, V>) {
    if m.capacity() > 4 * m.len() + 64 {
        *m = HashMap::new();
    } else {
        m.clear();
    }
}
