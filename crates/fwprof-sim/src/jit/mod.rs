//! The translation tier: blocks executed often enough are translated to
//! host code with Cranelift and run natively; the interpreter
//! ([`crate::uop::exec_block`]) stays the reference, and runs every block
//! until it is translated, every block cut short (an instruction limit or
//! an interrupt inside it), and a block Cranelift cannot take.
//!
//! What is translated: a region, one Cranelift function: the block that
//! became hot and the blocks it leads to along fall-through, taken-branch
//! and plain `jal` edges the run loop has chained ([`region`]), each with
//! its final branch or jump. Integer micro-ops become host instructions;
//! in a region of several blocks the guest registers live in host
//! registers from the region's entry to its exit (`emit.rs`). Loads and
//! stores test the memory's hit caches inline and call out for the rest;
//! the general path (F/D, A, CSRs, system instructions) and the
//! bit-manipulation values are calls to the interpreter's own functions
//! (`helpers.rs`). Hooks see exactly what the interpreter shows them:
//! memory accesses, operands and cycles are calls at the same points, and
//! blocks, branches and jumps are reported as the run loop reports them.
//! Calls, returns and `jalr` leave a region through the chain slots.
//!
//! Memory: Cranelift's JIT frees code only per module, so the tier keeps
//! one module per block-cache generation and frees it whole when the block
//! cache flushes (`fence.i`, a compaction after many blocks were killed by
//! writes to their code, a switch of single-step mode): translated code
//! never outgrows the block cache's bound.

mod emit;
mod helpers;
#[cfg(test)]
mod tests;

use crate::block::{Block, BlockCache, AFTER_JUMP, NO_BLOCK};
use crate::hart::Hart;
use crate::hooks::Hooks;
use crate::memory::Memory;
use crate::uop::K;
use cranelift_codegen::ir::{types, AbiParam, InstBuilder, Signature, UserFuncName};
use cranelift_codegen::isa::{CallConv, OwnedTargetIsa};
use cranelift_codegen::settings::{self, Configurable};
use cranelift_codegen::Context;
use cranelift_frontend::{FunctionBuilder, FunctionBuilderContext};
use cranelift_jit::{JITBuilder, JITModule};
use cranelift_module::{default_libcall_names, FuncId, Module, ModuleReloc};
use fwprof_isa::Inst;

/// Which engine runs guest code (`--tier`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Tier {
    /// The interpreter only.
    Interp,
    /// Blocks executed more than the threshold are translated to host code
    /// (the default).
    #[default]
    Jit,
}

/// Default for [`crate::Simulator::set_tier`]'s threshold: a block is
/// interpreted this many times before it is translated, so code that runs
/// once or a few times (start-up, error paths) does not pay for Cranelift.
/// 100 rather than 16: by then more of a block's successors have run, so
/// its region holds more of the loop or function, and fewer short-lived
/// blocks are compiled (`fwprof record`, 10 paired runs: corelike 9%
/// faster, coremix 2%; 200 was 5% slower than 100 on corelike).
pub const DEFAULT_JIT_THRESHOLD: u32 = 100;

/// Counters of the translation tier since the simulator was built
/// ([`crate::Simulator::jit_stats`]).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct JitStats {
    /// Translations made: blocks that became hot and were compiled, each
    /// with its region (one function; see `region_blocks`).
    pub translated: u64,
    /// Blocks the translator refused (they run in the interpreter).
    pub refused: u64,
    /// Instructions executed by translated code (the rest ran in the
    /// interpreter, or as the final branch or jump of a block, which the
    /// run loop executes for both tiers).
    pub executed: u64,
    /// Modules of translated code freed with a block-cache flush.
    pub modules_freed: u64,
    /// Translations (of `translated`) compiled on the background thread
    /// (see `BACKGROUND_THRESHOLD`).
    pub background: u64,
    /// Background compilations dropped because the block cache flushed, or
    /// one of their blocks was killed, while they ran.
    pub dropped: u64,
    /// Blocks compiled into translated functions: each translated block
    /// plus the blocks of its region (the loop or function body it leads
    /// to, run without returning to the run loop). A block already in a
    /// region joins no other, so each is compiled once per block-cache
    /// generation.
    pub region_blocks: u64,
    /// Times the run loop entered translated code (which then runs blocks
    /// until one needs the run loop).
    pub entered: u64,
}

/// What translated code receives: the state it works on, and two outputs.
/// `#[repr(C)]`: the generated code reads its fields by offset.
///
/// Translated code runs the block it was entered for and, where nothing
/// the run loop does in between is needed, the blocks that follow (see
/// `emit.rs`, `Emitter::leave`); for each block but the last it adds the
/// block's instructions to `Hart::executed`. On return `block` is the last
/// block run, and the status and `next` are about it, as
/// [`crate::uop::exec_block`] gives them, except that the final branch or
/// jump has run too (`taken` says how).
#[repr(C)]
pub(crate) struct JitCall {
    pub hart: *mut Hart,
    pub mem: *mut Memory,
    /// The hooks, an `H` for the `H` the code was translated for.
    pub hooks: *mut u8,
    /// The instruction arena.
    pub insts: *const Inst,
    /// The block table (`BlockCache::blocks`).
    pub blocks: *const Block,
    /// The tier's per-block entries.
    pub entries: *const Entry,
    /// Translated code may start a block only if it ends at or before this
    /// executed count (the run loop's checkpoint).
    pub checkpoint: u64,
    /// Out: the next pc (the caller sets it to the first block's end; a
    /// fault, a jump or an `mret` changes it).
    pub next: u64,
    /// Scratch: the value a slow load returns.
    pub value: u64,
    /// The hooks' [`crate::InlineCounts`] table, current value and last
    /// block (null when they have none).
    pub inline_base: *mut u8,
    pub inline_current: *const u32,
    pub inline_last: *mut u32,
    /// The hooks' event log (`Hooks::event_log`), or null.
    pub log: *mut crate::EventLog,
    /// The tables of the hooks' inline predictor
    /// (`Hooks::inline_predictor`), null without one.
    pub tables: crate::PredictorTables,
    /// The tag array of the hooks' inline data cache
    /// (`Hooks::inline_dcache`), null without one.
    pub dcache: *mut u64,
    /// The block cache's direct-mapped lookup table (`BlockCache::direct`)
    /// and what its entries must hold to name a block of the running code:
    /// the address-space key (`Memory::fetch_key`) and the generation.
    pub direct: *const crate::block::Direct,
    pub key: u64,
    pub generation: u32,
    /// Out: the id of the last block run.
    pub block: u32,
    /// Out: 1 if that block's final branch or jump left the straight line.
    pub taken: u32,
}

/// True if translated code for hooks `H` runs from block to block and
/// reports `jal`/`jalr` and branch outcomes itself: nothing else the run
/// loop does between two blocks is asked for. A collector that may stop
/// the run after any block (`Hooks::STOPS`, the sampler) needs the run
/// loop's question after each one. Modelled cycles need nothing between
/// blocks: the model is asked for them at a cycle CSR read (by its own
/// block and index) and at the run loop's checkpoints, which translated
/// code never runs past.
pub(crate) const fn chains<H: Hooks>() -> bool {
    !H::STOPS
}

/// Translated code of one block: a region's function (Cranelift's `tail`
/// calling convention, entered through [`Jit::enter`]) and the block's
/// index among the region's members (the function's second argument).
#[derive(Clone, Copy)]
pub(crate) struct BlockFn(*const u8, u64);

/// The trampoline from the host's C calling convention into a block.
type EnterFn = unsafe extern "C" fn(*mut JitCall, *const u8, u64) -> u64;

/// What [`Jit::lookup`] found for a block.
pub(crate) enum Code {
    /// Run this translation.
    Ready(BlockFn),
    /// Interpret the block.
    Interpret,
    /// Translate the block now.
    Translate,
}

/// Per block id: its code, or how often it ran in the interpreter.
/// `#[repr(C)]`: translated code reads `code` (null: not translated) and
/// `index` (the block's entry in that code, see [`BlockFn`]).
#[repr(C)]
#[derive(Clone, Copy)]
pub(crate) struct Entry {
    code: *const u8,
    index: u32,
    hits: u32,
    refused: bool,
    /// Its region is being compiled in the background: interpret it
    /// meanwhile.
    pending: bool,
    /// The block was killed (its code rewritten, or its mapping changed):
    /// a region built with it is never installed.
    dead: bool,
}

impl Default for Entry {
    fn default() -> Self {
        Entry {
            code: std::ptr::null(),
            index: 0,
            hits: 0,
            refused: false,
            pending: false,
            dead: false,
        }
    }
}

/// Cranelift state kept across translations.
struct Backend {
    module: JITModule,
    ctx: Context,
    fctx: FunctionBuilderContext,
    enter: EnterFn,
}

/// The translation tier's state in a simulator.
pub(crate) struct Jit {
    pub tier: Tier,
    pub threshold: u32,
    entries: Vec<Entry>,
    isa: Option<OwnedTargetIsa>,
    backend: Option<Backend>,
    pub stats: JitStats,
    /// Set when the host ISA cannot be used: everything is interpreted.
    broken: bool,
    /// The background compiler (see [`Jit::translate`]), started with the
    /// first translation it takes; `None` before, or on a single-CPU host.
    worker: Option<Worker>,
    /// The host has a second CPU for the background compiler.
    parallel: bool,
    /// Block-cache generations flushed so far: a compilation finished for
    /// an older one is dropped.
    generation: u64,
    /// Compilations sent to the worker and not collected yet.
    in_flight: u32,
    /// The regions installed since the last flush: their code (null once
    /// dropped) and members.
    regions: Vec<(*const u8, Vec<u32>)>,
    /// Per block id, the regions (indices in `regions`) it is a member of.
    member_of: Vec<Vec<u32>>,
}

/// Translating at or above this `--jit-threshold` compiles in the
/// background. Below it the run asked for translated code right away
/// (0: before a block's first execution; the differential suites' 1):
/// compiling on the spot keeps what runs translated the same in every run.
pub const BACKGROUND_THRESHOLD: u32 = 16;

/// A region's function sent to the background compiler.
struct Job {
    generation: u64,
    id: u32,
    members: Vec<u32>,
    fid: FuncId,
    func: cranelift_codegen::ir::Function,
}

/// A compiled region coming back: its machine code, alignment and
/// relocations, or `None` if Cranelift refused it.
struct Done {
    generation: u64,
    id: u32,
    members: Vec<u32>,
    fid: FuncId,
    code: Option<(Vec<u8>, u64, Vec<ModuleReloc>)>,
}

/// The background compiler: a thread with its own Cranelift context that
/// compiles the functions the run loop built (Cranelift's work, most of a
/// translation's cost) while the interpreter goes on running the region's
/// blocks. The module, its memory and the entries stay with the run loop,
/// which installs the code at its next block lookup.
struct Worker {
    jobs: std::sync::mpsc::Sender<Job>,
    done: std::sync::mpsc::Receiver<Done>,
    /// The simulator's block-cache generation (`u64::MAX` once it is
    /// gone): the thread skips the jobs of older ones.
    current: std::sync::Arc<std::sync::atomic::AtomicU64>,
}

/// Compilations the background thread may have queued; past this the run
/// loop compiles on the spot (a program flushing the block cache again
/// and again cannot pile up work or memory).
const MAX_IN_FLIGHT: u32 = 8;

impl Worker {
    /// Start the thread for `isa` at block-cache generation `generation`;
    /// `None` if the host refuses a thread.
    fn start(isa: OwnedTargetIsa, generation: u64) -> Option<Worker> {
        use std::sync::atomic::{AtomicU64, Ordering};
        let (jobs, rx) = std::sync::mpsc::channel::<Job>();
        let (tx, done) = std::sync::mpsc::channel::<Done>();
        let current = std::sync::Arc::new(AtomicU64::new(generation));
        let now = current.clone();
        std::thread::Builder::new()
            .name("fwprof-jit".into())
            .spawn(move || {
                let mut ctx = Context::new();
                // Ends when the simulator drops its sender.
                while let Ok(job) = rx.recv() {
                    // A job of a flushed generation comes back uncompiled.
                    let stale = job.generation != now.load(Ordering::Relaxed);
                    ctx.clear();
                    ctx.func = job.func;
                    let code = if stale {
                        None
                    } else {
                        compile_bytes(&*isa, &mut ctx, job.fid)
                    };
                    let reply = Done {
                        generation: job.generation,
                        id: job.id,
                        members: job.members,
                        fid: job.fid,
                        code,
                    };
                    if tx.send(reply).is_err() {
                        break;
                    }
                }
            })
            .ok()?;
        Some(Worker {
            jobs,
            done,
            current,
        })
    }
}

impl Drop for Worker {
    fn drop(&mut self) {
        // The queued jobs are skipped; the thread ends at the closed channel.
        self.current
            .store(u64::MAX, std::sync::atomic::Ordering::Relaxed);
    }
}

/// Compile the function in `ctx` (declared as `fid`) for `isa`: its code
/// bytes, alignment and relocations, as `JITModule::define_function`
/// would place them; `None` if Cranelift refuses it.
fn compile_bytes(
    isa: &dyn cranelift_codegen::isa::TargetIsa,
    ctx: &mut Context,
    fid: FuncId,
) -> Option<(Vec<u8>, u64, Vec<ModuleReloc>)> {
    let mut plane = cranelift_codegen::control::ControlPlane::default();
    ctx.compile(isa, &mut plane).ok()?;
    let code = ctx.compiled_code()?;
    let align = u64::from(code.buffer.alignment);
    let relocs = code
        .buffer
        .relocs()
        .iter()
        .map(|r| ModuleReloc::from_mach_reloc(r, &ctx.func, fid))
        .collect();
    Some((code.code_buffer().to_vec(), align, relocs))
}

// SAFETY: the code pointers point into the module this `Jit` owns; the
// module's memory is only freed by `flush`, which takes `&mut self`.
unsafe impl Send for Jit {}

impl std::fmt::Debug for Jit {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Jit")
            .field("tier", &self.tier)
            .field("threshold", &self.threshold)
            .field("stats", &self.stats)
            .finish_non_exhaustive()
    }
}

impl Jit {
    pub(crate) fn new() -> Jit {
        Jit {
            tier: Tier::default(),
            threshold: DEFAULT_JIT_THRESHOLD,
            entries: Vec::new(),
            isa: None,
            backend: None,
            stats: JitStats::default(),
            broken: false,
            worker: None,
            parallel: std::thread::available_parallelism().is_ok_and(|n| n.get() > 1),
            generation: 0,
            in_flight: 0,
            regions: Vec::new(),
            member_of: Vec::new(),
        }
    }

    /// The code of block `id` if it is translated; else counts the
    /// execution and says whether it is time to translate the block (the
    /// caller then calls [`Jit::translate`]).
    #[inline(always)]
    pub(crate) fn lookup(&mut self, id: u32) -> Code {
        if self.in_flight > 0 {
            self.collect();
        }
        let i = id as usize;
        if i >= self.entries.len() {
            self.entries.resize(i + 1, Entry::default());
        }
        let e = &mut self.entries[i];
        if !e.code.is_null() {
            return Code::Ready(BlockFn(e.code, u64::from(e.index)));
        }
        if e.hits < self.threshold || e.refused || e.pending || self.broken {
            e.hits = e.hits.saturating_add(1);
            return Code::Interpret;
        }
        Code::Translate
    }

    /// Run translated code `f` (see [`JitCall`]).
    ///
    /// # Safety
    /// `f` was translated by this tier since the last flush, for the XLEN
    /// and hooks type `call` carries, and `call`'s pointers are live.
    #[inline(always)]
    pub(crate) unsafe fn enter(&self, call: &mut JitCall, f: BlockFn) -> u64 {
        let enter = self.backend.as_ref().expect("code exists").enter;
        // SAFETY: the caller's contract.
        unsafe { enter(call, f.0, f.1) }
    }

    /// Make room for the entry of block `id` (so that translated code
    /// chaining to it reads a valid entry).
    pub(crate) fn reserve(&mut self, id: u32) {
        let i = id as usize;
        if i >= self.entries.len() {
            self.entries.resize(i + 1, Entry::default());
        }
    }

    /// The entries, for [`JitCall::entries`].
    pub(crate) fn entries(&self) -> *const Entry {
        self.entries.as_ptr()
    }

    /// Translate block `id` of `cache` for XLEN `RV64` and hooks `H`
    /// (`inline`: their [`crate::InlineCounts`], for the layout), with the
    /// blocks it leads to in the same region (see [`region`]). Returns its
    /// code, or `None`: it cannot be translated (remembered), or it is
    /// being compiled in the background.
    ///
    /// The function's IR is built here; Cranelift compiles it here too
    /// when the threshold is below [`BACKGROUND_THRESHOLD`] or the host has
    /// one CPU, and otherwise on the background compiler's thread, while
    /// the interpreter runs the region's blocks; [`Jit::lookup`] installs
    /// the code when it is done. Either way the same code runs; only the
    /// moment it starts differs, and no count, profile or hook call
    /// depends on that.
    #[cold]
    #[inline(never)]
    pub(crate) fn translate<const RV64: bool, H: Hooks>(
        &mut self,
        id: u32,
        cache: &BlockCache,
        inline: Option<crate::InlineCounts>,
        predictor: Option<crate::InlinePredictor>,
        dcache: Option<crate::InlineDcache>,
    ) -> Option<BlockFn> {
        let mut left_out = Vec::new();
        let built = loop {
            let members = if chains::<H>() {
                region(cache, id, &left_out, &self.entries)
            } else {
                vec![id]
            };
            match self.build::<RV64, H>(cache, &members, inline, predictor, dcache) {
                Ok(()) => break Some(members),
                // A block Cranelift cannot take leaves the region; the
                // block the code is for cannot be left out.
                Err(Some(bad)) if bad != id && left_out.len() < 8 => left_out.push(bad),
                Err(_) => break None,
            }
        };
        let Some(members) = built else {
            self.refuse(id);
            return None;
        };
        let members = match self.send(id, members) {
            Ok(()) => return None,
            Err(members) => members,
        };
        let be = self.backend.as_mut()?;
        match define(&mut be.module, &mut be.ctx) {
            Some(code) => Some(self.install(id, &members, code)),
            None => {
                self.refuse(id);
                None
            }
        }
    }

    /// Block `id` cannot be translated: it stays with the interpreter.
    fn refuse(&mut self, id: u32) {
        self.reserve(id);
        self.entries[id as usize].refused = true;
        self.stats.refused += 1;
    }

    /// Code `code` of the region of `id` (`members`, `id` first) is ready:
    /// every member not translated yet is entered through it. The members
    /// are alive (see [`Jit::killed`]).
    fn install(&mut self, id: u32, members: &[u32], code: *const u8) -> BlockFn {
        self.stats.translated += 1;
        self.stats.region_blocks += members.len() as u64;
        let r = self.regions.len() as u32;
        for (k, &m) in members.iter().enumerate() {
            self.reserve(m);
            let e = &mut self.entries[m as usize];
            e.pending = false;
            if m == id || e.code.is_null() {
                e.code = code;
                e.index = k as u32;
            }
            let i = m as usize;
            if self.member_of.len() <= i {
                self.member_of.resize(i + 1, Vec::new());
            }
            self.member_of[i].push(r);
        }
        self.regions.push((code, members.to_vec()));
        BlockFn(code, 0)
    }

    /// Blocks `ids` were killed (between blocks: no translated code is
    /// running). A region runs from member to member without looking
    /// whether the next one still stands (`emit.rs`, `transition`), so
    /// every region holding one of them is dropped: no member is entered
    /// through it again (those still alive are translated afresh, in
    /// regions without the dead ones), and one still compiling in the
    /// background is not installed.
    pub(crate) fn killed(&mut self, ids: &[u32]) {
        for &id in ids {
            self.reserve(id);
            self.entries[id as usize].dead = true;
            let Some(rs) = self.member_of.get_mut(id as usize) else {
                continue;
            };
            for r in std::mem::take(rs) {
                let (code, members) = &mut self.regions[r as usize];
                if code.is_null() {
                    continue;
                }
                for &m in members.iter() {
                    let e = &mut self.entries[m as usize];
                    if e.code == *code {
                        e.code = std::ptr::null();
                    }
                }
                // (The code stays in the module until its flush.)
                *code = std::ptr::null();
                members.clear();
            }
        }
    }

    /// Hand the function just built for the region of `id` to the
    /// background compiler and mark its members pending. `Err(members)`
    /// when it is to be compiled here (a low threshold, one CPU, no
    /// thread): the function is still in the context.
    fn send(&mut self, id: u32, members: Vec<u32>) -> Result<(), Vec<u32>> {
        if self.threshold < BACKGROUND_THRESHOLD
            || !self.parallel
            || self.in_flight >= MAX_IN_FLIGHT
        {
            return Err(members);
        }
        if self.worker.is_none() {
            let generation = self.generation;
            self.worker = self
                .isa
                .clone()
                .and_then(|isa| Worker::start(isa, generation));
            if self.worker.is_none() {
                self.parallel = false;
                return Err(members);
            }
        }
        let Some(be) = self.backend.as_mut() else {
            return Err(members);
        };
        let sig = be.ctx.func.signature.clone();
        let Ok(fid) = be.module.declare_anonymous_function(&sig) else {
            return Err(members);
        };
        let func = std::mem::replace(&mut be.ctx.func, cranelift_codegen::ir::Function::new());
        // Interpreted until the code comes back (if the send fails,
        // `translate` compiles here and `install` clears the mark).
        for &m in &members {
            self.reserve(m);
            let e = &mut self.entries[m as usize];
            e.pending = e.code.is_null();
        }
        let job = Job {
            generation: self.generation,
            id,
            members,
            fid,
            func,
        };
        let sent = match &self.worker {
            Some(w) => w.jobs.send(job).map_err(|e| e.0),
            None => Err(job),
        };
        if let Err(job) = sent {
            // The thread is gone: compile here from now on.
            if let Some(be) = self.backend.as_mut() {
                be.ctx.func = job.func;
            }
            self.worker = None;
            self.parallel = false;
            return Err(job.members);
        }
        self.in_flight += 1;
        Ok(())
    }

    /// Install what the background compiler finished (between blocks,
    /// from [`Jit::lookup`]): code for the current block-cache generation
    /// goes into the module and the entries; older code is dropped.
    #[cold]
    #[inline(never)]
    fn collect(&mut self) {
        loop {
            let Some(w) = self.worker.as_ref() else {
                self.in_flight = 0;
                return;
            };
            let d = match w.done.try_recv() {
                Ok(d) => d,
                Err(std::sync::mpsc::TryRecvError::Empty) => return,
                Err(std::sync::mpsc::TryRecvError::Disconnected) => {
                    // The thread is gone (a panic in Cranelift) with the
                    // jobs it held: their blocks may be translated again,
                    // here from now on.
                    for e in &mut self.entries {
                        e.pending = false;
                    }
                    self.worker = None;
                    self.parallel = false;
                    self.in_flight = 0;
                    return;
                }
            };
            self.in_flight = self.in_flight.saturating_sub(1);
            if d.generation != self.generation {
                self.stats.dropped += 1;
                continue;
            }
            // A member killed while it compiled: the code is not used
            // (see `Jit::killed`); its blocks may be translated again.
            let dead = d
                .members
                .iter()
                .any(|&m| self.entries.get(m as usize).is_some_and(|e| e.dead));
            if dead {
                self.stats.dropped += 1;
                for &m in &d.members {
                    if let Some(e) = self.entries.get_mut(m as usize) {
                        e.pending = false;
                    }
                }
                continue;
            }
            let code = d.code.and_then(|(bytes, align, relocs)| {
                let be = self.backend.as_mut()?;
                be.module
                    .define_function_bytes(d.fid, align, &bytes, &relocs)
                    .ok()?;
                be.module.finalize_definitions().ok()?;
                Some(be.module.get_finalized_function(d.fid))
            });
            match code {
                Some(code) => {
                    self.stats.background += 1;
                    self.install(d.id, &d.members, code);
                }
                None => {
                    for &m in &d.members {
                        if let Some(e) = self.entries.get_mut(m as usize) {
                            e.pending = false;
                        }
                    }
                    self.refuse(d.id);
                }
            }
        }
    }

    fn backend(&mut self) -> Option<&mut Backend> {
        if self.backend.is_none() {
            if self.isa.is_none() {
                let mut flags = settings::builder();
                // "none" skips the e-graph optimiser: on micro-op blocks of
                // a few instructions it finds little, and the code runs as
                // fast (`record`, 10 paired runs: 2% faster on corelike,
                // 5% on coremix; translation about 20% cheaper).
                let ok = flags.set("opt_level", "none").is_ok()
                    && flags.set("use_colocated_libcalls", "false").is_ok()
                    && flags.set("is_pic", "false").is_ok()
                    // The IR is built by one emitter, checked by the
                    // differential and property tests; verifying every
                    // block's IR again costs a tenth of the translation.
                    && flags.set("enable_verifier", "false").is_ok()
                    // Cranelift's x86-64 tail calls need frame pointers.
                    && flags.set("preserve_frame_pointers", "true").is_ok();
                let isa = cranelift_native::builder()
                    .ok()
                    .filter(|_| ok)
                    .and_then(|b| b.finish(settings::Flags::new(flags)).ok());
                match isa {
                    Some(isa) => self.isa = Some(isa),
                    None => {
                        self.broken = true;
                        return None;
                    }
                }
            }
            let isa = self.isa.clone()?;
            let mut module = JITModule::new(JITBuilder::with_isa(isa, default_libcall_names()));
            let mut ctx = module.make_context();
            let mut fctx = FunctionBuilderContext::new();
            let Some(enter) = build_enter(&mut module, &mut ctx, &mut fctx) else {
                self.broken = true;
                return None;
            };
            self.backend = Some(Backend {
                module,
                ctx,
                fctx,
                enter,
            });
        }
        self.backend.as_mut()
    }

    /// Build the function of region `members` (the first is the block it
    /// is entered for) in the backend's context. `Err(Some(id))`: block
    /// `id` cannot be translated; `Err(None)`: no backend.
    fn build<const RV64: bool, H: Hooks>(
        &mut self,
        cache: &BlockCache,
        members: &[u32],
        inline: Option<crate::InlineCounts>,
        predictor: Option<crate::InlinePredictor>,
        dcache: Option<crate::InlineDcache>,
    ) -> Result<(), Option<u32>> {
        let helpers = emit::HelperAddrs::of::<RV64, H>(inline, predictor, dcache);
        // Without chaining (the hooks want to hear of each block from the
        // run loop) a region is its first block, and has no edges.
        let chain = chains::<H>();
        let plan = plan(cache, members, chain);
        let be = self.backend().ok_or(None)?;
        let call_conv = be.module.isa().default_call_conv();
        let frontend = be.module.isa().frontend_config();
        be.module.clear_context(&mut be.ctx);
        let sig = &mut be.ctx.func.signature;
        sig.call_conv = CallConv::Tail;
        sig.params.push(AbiParam::new(types::I64));
        sig.params.push(AbiParam::new(types::I64));
        sig.returns.push(AbiParam::new(types::I64));
        be.ctx.func.name = UserFuncName::user(0, members[0]);
        let mut b = FunctionBuilder::new(&mut be.ctx.func, &mut be.fctx);
        let mut e = emit::Emitter::new(&mut b, call_conv, RV64, &plan, &helpers);
        let mut failed = None;
        for &id in members {
            let blk = &cache.blocks[id as usize];
            let info = &cache.info[id as usize];
            let first = blk.first as usize;
            let count = usize::from(blk.count);
            let uops = &cache.uops[first..first + count];
            let (fall, taken) = if chain {
                edges(cache, id)
            } else {
                (None, None)
            };
            let inside = |t: Option<u32>| t.filter(|t| members.contains(t));
            let (fall, taken) = (inside(fall), inside(taken));
            e.begin(id, blk.first);
            let body = count - usize::from(blk.term);
            let mut ok = true;
            for (k, u) in uops[..body].iter().enumerate() {
                let pc = blk.start.wrapping_add(u64::from(u.off));
                if e.uop(&helpers, id, u, pc, k + 1 == body).is_err() {
                    ok = false;
                    break;
                }
            }
            if ok {
                if blk.term {
                    ok = e
                        .finish_term(&helpers, &uops[body], blk, info, fall, taken)
                        .is_ok();
                } else {
                    let general_last = uops[..body].last().is_some_and(|u| u.kind == K::General);
                    e.finish(&helpers, count, blk.end, blk.after, general_last, fall);
                }
            }
            if !ok {
                failed = Some(id);
                break;
            }
        }
        drop(e);
        b.seal_all_blocks();
        if let Some(bad) = failed {
            return Err(Some(bad));
        }
        b.finalize(frontend);
        Ok(())
    }

    /// Forget every translation (the block cache flushed: ids restart) and
    /// free the code.
    pub(crate) fn flush(&mut self) {
        // (`enter` goes with the module; `lookup` finds no code until the
        // next translation builds a new one.) Compilations still in the
        // background are for this generation: they will be dropped.
        self.entries.clear();
        self.regions.clear();
        self.member_of.clear();
        self.generation += 1;
        if let Some(w) = &self.worker {
            w.current
                .store(self.generation, std::sync::atomic::Ordering::Relaxed);
        }
        if let Some(be) = self.backend.take() {
            // SAFETY: no translated code is running (flushes happen in the
            // run loop between blocks, or outside a run) and every pointer
            // into the module was in `entries`, now empty.
            unsafe { be.module.free_memory() };
            self.stats.modules_freed += 1;
        }
    }
}

/// The most blocks, and micro-ops, one translated function holds: a region
/// is a loop nest or a function body's hot part, and Cranelift's time grows
/// faster than the function.
const MAX_REGION_BLOCKS: usize = 24;
const MAX_REGION_UOPS: usize = 320;

/// The successors of block `id` that translated code may run without the
/// run loop and without a jump to report as a call or return: the
/// fall-through block and the taken branch's or plain `jal`'s (`rd` =
/// `x0`) target, as `(fall, taken)` ids, each only if the run loop has
/// chained it (its slot), it is live, starts at that pc and is in the
/// same address space. Calls, returns and `jalr` targets are reached
/// through the chain slots at run time instead (`Emitter::leave`).
fn edges(cache: &BlockCache, id: u32) -> (Option<u32>, Option<u32>) {
    let b = &cache.blocks[id as usize];
    let info = &cache.info[id as usize];
    let ok = |t: u32, pc: u64| {
        let i = t as usize;
        (t != NO_BLOCK
            && i < cache.blocks.len()
            && cache.info[i].live
            && cache.info[i].key == info.key
            && cache.blocks[i].start == pc)
            .then_some(t)
    };
    let last = &cache.uops[b.first as usize + usize::from(b.count) - 1];
    if !b.term {
        if b.after != 0 || last.kind == K::General {
            return (None, None);
        }
        return (ok(b.fall, b.end), None);
    }
    match last.kind {
        K::Beq | K::Bne | K::Blt | K::Bge | K::Bltu | K::Bgeu if b.after == 0 => {
            (ok(b.fall, b.end), ok(b.taken, last.imm))
        }
        K::Jal if last.rd == 0 && b.after & !AFTER_JUMP == 0 => (None, ok(b.taken, last.imm)),
        _ => (None, None),
    }
}

/// The region translated with block `head`: `head`, then the blocks its
/// [`edges`] reach, breadth first, up to [`MAX_REGION_BLOCKS`] and
/// [`MAX_REGION_UOPS`], without the blocks in `left_out` and without those
/// another region's code already runs (`entries`): the search stops there,
/// and the two functions meet through the chain slots.
fn region(cache: &BlockCache, head: u32, left_out: &[u32], entries: &[Entry]) -> Vec<u32> {
    let mut members = vec![head];
    let mut uops = usize::from(cache.blocks[head as usize].count);
    let mut k = 0;
    while k < members.len() {
        let (fall, taken) = edges(cache, members[k]);
        k += 1;
        for t in [taken, fall].into_iter().flatten() {
            let n = usize::from(cache.blocks[t as usize].count);
            if members.len() < MAX_REGION_BLOCKS
                && uops + n <= MAX_REGION_UOPS
                && !members.contains(&t)
                && !left_out.contains(&t)
                && entries.get(t as usize).is_none_or(|e| e.code.is_null())
            {
                members.push(t);
                uops += n;
            }
        }
    }
    members
}

/// The emitter's view of region `members` (with `chain`, as
/// [`chains`] says of the hooks): their extents and the
/// registers their micro-ops name (an over-approximation: a field a kind
/// does not use costs a load, or a store of an unchanged value).
fn plan(cache: &BlockCache, members: &[u32], chain: bool) -> emit::RegionPlan {
    let mut used = [false; 32];
    let mut written = [false; 32];
    let mut multi = false;
    let mut blocks = Vec::with_capacity(members.len());
    for &id in members {
        let b = &cache.blocks[id as usize];
        blocks.push((id, b.start, b.count));
        let (fall, taken) = edges(cache, id);
        multi |= chain
            && [fall, taken]
                .into_iter()
                .flatten()
                .any(|t| members.contains(&t));
        let first = b.first as usize;
        for u in &cache.uops[first..first + usize::from(b.count)] {
            if u.kind == K::Nop {
                continue;
            }
            for r in [u.rs1, u.rs2, u.rd] {
                used[usize::from(r & 31)] = true;
            }
            written[usize::from(u.rd & 31)] = true;
        }
    }
    used[0] = false;
    written[0] = false;
    emit::RegionPlan {
        blocks,
        used,
        written,
        multi,
    }
}

/// The trampoline `enter(call, code, index) -> status`: calls `code` (a
/// region, `tail` convention) at member `index` with `call` from the host's
/// C convention.
fn build_enter(
    module: &mut JITModule,
    ctx: &mut Context,
    fctx: &mut FunctionBuilderContext,
) -> Option<EnterFn> {
    let call_conv = module.isa().default_call_conv();
    let frontend = module.isa().frontend_config();
    module.clear_context(ctx);
    ctx.func.signature.call_conv = call_conv;
    for _ in 0..3 {
        ctx.func.signature.params.push(AbiParam::new(types::I64));
    }
    ctx.func.signature.returns.push(AbiParam::new(types::I64));
    let mut b = FunctionBuilder::new(&mut ctx.func, fctx);
    let entry = b.create_block();
    b.append_block_params_for_function_params(entry);
    b.switch_to_block(entry);
    b.seal_block(entry);
    let p = b.block_params(entry);
    let (call, code, index) = (p[0], p[1], p[2]);
    let mut tail = Signature::new(CallConv::Tail);
    tail.params.push(AbiParam::new(types::I64));
    tail.params.push(AbiParam::new(types::I64));
    tail.returns.push(AbiParam::new(types::I64));
    let sig = b.import_signature(tail);
    let inst = b.ins().call_indirect(sig, code, &[call, index]);
    let st = b.inst_results(inst)[0];
    b.ins().return_(&[st]);
    b.finalize(frontend);
    let ptr = define(module, ctx)?;
    // SAFETY: built above with this signature in the host's C convention.
    Some(unsafe { std::mem::transmute::<*const u8, EnterFn>(ptr) })
}

/// Compile the function built in `ctx` into `module` and make it
/// executable; its address, or `None` if Cranelift refuses it.
fn define(module: &mut JITModule, ctx: &mut Context) -> Option<*const u8> {
    let sig = ctx.func.signature.clone();
    let fid = module.declare_anonymous_function(&sig).ok()?;
    module.define_function(fid, ctx).ok()?;
    module.clear_context(ctx);
    module.finalize_definitions().ok()?;
    Some(module.get_finalized_function(fid))
}
