//! Running a collector on a second thread: [`Pipelined`].
//!
//! The simulator thread records every hook call into a buffer of words; a
//! worker thread replays the buffers, in order, into the real collector.
//! The collector sees exactly the calls, arguments and order it would see
//! on the simulator's thread, so its results are identical; the two threads
//! only overlap in time. Hooks that return a value (`split_block`,
//! `cycles_before`) wait for the worker to catch up and answer.
//!
//! A [`Front`] moves part of a collector's work to the simulator's thread
//! to balance the two: it sees translations and resolves each block's
//! final branch there (e.g. a branch predictor), and the collector gets
//! its verdict through [`Hooks::on_branch_front`]; it may also model the
//! data cache ([`Front::inline_dcache`]), and the collector then gets
//! data accesses as verdicts through [`Hooks::on_mem_front`].

use std::sync::mpsc::{self, Receiver, SyncSender};
use std::thread::JoinHandle;

use fwprof_isa::Inst;

use crate::hooks::{
    BlockId, CodeContext, HartSwitch, Hooks, Jump, JumpKind, Latency, SignalDelivery, SignalReturn,
    TrapInfo, TrapReturn,
};
use crate::Privilege;

/// Words per buffer handed to the worker (each hook call takes 1 to 8).
#[cfg(not(test))]
const BATCH_WORDS: usize = 1 << 15;
/// Tests fill buffers often, at every position of a record.
#[cfg(test)]
const BATCH_WORDS: usize = 61;
/// Buffers in flight: the simulator fills one while the worker replays
/// the others.
const IN_FLIGHT: usize = 16;

/// Tags of the recorded calls (low 8 bits of a call's first word).
const T_EXEC: u64 = 1;
const T_CUT: u64 = 2;
const T_JUMP: u64 = 3;
const T_MEM: u64 = 4;
const T_OPERANDS: u64 = 5;
const T_BRANCH: u64 = 6;
const T_TRAP: u64 = 7;
const T_TRAP_RETURN: u64 = 8;
const T_TRANSLATED: u64 = 9;
const T_BRANCH_FRONT: u64 = 10;
const T_CALL_ARGS: u64 = 11;
const T_IDLE: u64 = 12;
const T_FLUSH: u64 = 13;
const T_CODE_CONTEXT: u64 = 14;
const T_SIGNAL: u64 = 15;
const T_SIGNAL_RETURN: u64 = 16;
const T_HART_SWITCH: u64 = 17;
/// One-word forms of the two calls made per block or per access (most
/// of the stream): less memory traffic between the two threads.
/// `T_EXEC1`: id in bits 8..40, the executed count as a difference from
/// the previous block's in bits 40..64. `T_MEM1`: store in bit 8, log2 of
/// the size in bits 9..11, index in bits 11..19, address in bits 19..64.
/// Calls whose values do not fit take the long forms above.
const T_EXEC1: u64 = 18;
const T_MEM1: u64 = 19;
/// One-word form of a front's verdict (`T_BRANCH_FRONT` takes two): id
/// in bits 8..40, the front's word in bits 40..64.
const T_BRANCH_FRONT1: u64 = 21;
/// Bits of the front's word in a `T_BRANCH_FRONT1` record.
pub const FRONT_WORD_BITS: u32 = 24;
/// A front's verdict on a data access (`on_mem_front`): index in bits
/// 8..40, the front's word (below 2^FRONT_WORD_BITS) in bits 40..64.
const T_MEM_FRONT: u64 = 22;
/// `on_access_fault`: id in bits 8..40, index in bits 40..64.
const T_ACCESS_FAULT: u64 = 23;
/// Bit of a front's data-access word ([`Front::on_mem`]) that says the
/// access costs the collector something beyond what every access of a
/// plain load or store costs (for a timing model: a cache miss).
pub const MEM_WORD_COSTLY: u64 = 1;
/// Limits of the one-word forms.
pub(crate) const DELTA_BITS: u32 = 24;
pub(crate) const ADDR_BITS: u32 = 45;
pub(crate) const INDEX_BITS: u32 = 8;

/// The record words translated code appends itself, in the formats above
/// (see [`EventLog`]).
pub(crate) mod record {
    /// `on_block_exec` with the executed count `last_executed + delta`
    /// (`delta < 2^DELTA_BITS`): `EXEC1 | id << 8 | delta << 40`.
    pub(crate) const EXEC1: u64 = super::T_EXEC1;
    /// `on_mem`: `MEM1 | write << 8 | log2(size) << 9 | index << 11 |
    /// addr << (64 - ADDR_BITS)`, for `addr < 2^ADDR_BITS`, `index <
    /// 2^INDEX_BITS` and a size of 1, 2, 4 or 8 bytes.
    pub(crate) const MEM1: u64 = super::T_MEM1;
    /// `on_branch`: `BRANCH | id << 8 | taken << 40`, then the target
    /// (two words; only without an active front).
    pub(crate) const BRANCH: u64 = super::T_BRANCH;
    /// A front's verdict on a block's final transfer, resolved by
    /// translated code (`Front::inline_predictor`): `BRANCH_FRONT1 | id <<
    /// 8 | word << 40` for a word below 2^FRONT_WORD_BITS.
    pub(crate) const BRANCH_FRONT1: u64 = super::T_BRANCH_FRONT1;
}

/// Where a [`Pipelined`] collector's calls are being recorded, for
/// translated code to append records without calling a hook
/// ([`Hooks::event_log`]): words go at `next`, and only while `next` plus
/// the record's words stays within `limit` (else the code calls the hook,
/// which hands the full buffer to the worker). `last_executed` is the
/// executed count of the last block recorded, the base of the one-word
/// block record; a record that writes a block updates it. A branch
/// record leaves it unchanged.
#[repr(C)]
#[derive(Debug)]
pub struct EventLog {
    /// Where the next word goes.
    pub next: *mut u64,
    /// The end of the buffer.
    pub limit: *mut u64,
    /// The executed count of the last `on_block_exec` recorded.
    pub last_executed: u64,
}

/// Block every asynchronous signal in the calling thread (the collector
/// thread), so that a signal sent to the process (Ctrl-C, `kill`) is
/// handled by the simulator's thread, in the order it arrived: with two
/// threads able to take signals, two sent one after the other could be
/// handled in either order.
fn block_async_signals() {
    // SAFETY: sigfillset and pthread_sigmask only write the set and the
    // calling thread's mask; failure leaves the mask as it was.
    unsafe {
        let mut set: libc::sigset_t = std::mem::zeroed();
        libc::sigfillset(&mut set);
        libc::pthread_sigmask(libc::SIG_BLOCK, &set, std::ptr::null_mut());
    }
}

/// Work done on the simulator's thread for a [`Pipelined`] collector: the
/// front sees every translation and every block's final branch (and, if
/// it models the data cache, every data access), in the simulator's
/// order, and turns each into one word delivered to the collector as
/// [`Hooks::on_branch_front`] (or [`Hooks::on_mem_front`]).
pub trait Front: Send {
    /// False for [`NoFront`]: branches are then recorded as they are.
    const ACTIVE: bool = true;
    /// As [`Hooks::on_block_translated`].
    fn on_block_translated(&mut self, id: BlockId, pcs: &[u64], insts: &[Inst]);
    /// As [`Hooks::on_branch`], in the simulator's order: the word for the
    /// collector ([`Hooks::on_branch_front`]), or `None` when the collector
    /// needs nothing for this outcome (for a timing model: it costs no
    /// more than its class's base cost).
    fn on_branch(&mut self, id: BlockId, taken: bool, target: u64) -> Option<u64>;
    /// As [`Hooks::on_cache_flush`]: every block id is dead, ids restart
    /// at 0 (a front that keeps state per id forgets it here).
    fn on_cache_flush(&mut self) {}
    /// The front is a branch predictor that translated code can run in
    /// line ([`InlinePredictor`]): its shape and, valid while the front is
    /// not moved, its tables. Translated code then predicts, updates the
    /// tables and records the verdict itself; it must give exactly the
    /// words [`Front::on_branch`] would (the interpreter calls that).
    fn inline_predictor(&mut self) -> Option<(InlinePredictor, PredictorTables)> {
        None
    }
    /// The front models the data cache: every data access goes to
    /// [`Front::on_mem`] in the simulator's order, and translated code
    /// settles the common case itself (see [`InlineDcache`]), so the
    /// collector hears only of the accesses that need it. Its shape and,
    /// valid while the front is not moved, its tag array; asked once when
    /// the [`Pipelined`] is built and before each entry into translated
    /// code. `None` (the default): data accesses go to the collector.
    fn inline_dcache(&mut self) -> Option<(InlineDcache, *mut u64)> {
        None
    }
    /// A data access of `size` bytes at `addr` (a store if `write`), in
    /// the simulator's order, when [`Front::inline_dcache`] is `Some`: the
    /// word for the collector ([`Hooks::on_mem_front`]), below
    /// 2^[`FRONT_WORD_BITS`], with [`MEM_WORD_COSTLY`] set when the access
    /// costs more than every plain load or store costs. Accesses that
    /// translated code settled in line never reach it.
    fn on_mem(&mut self, addr: u64, size: u8, write: bool) -> u64 {
        let _ = (addr, size, write);
        MEM_WORD_COSTLY
    }
}

/// A data cache of the shape translated code checks in line (see
/// [`Front::inline_dcache`]): a set-associative array of tags, `ways`
/// per set, set `s` at `tags[s * ways..]` with its most recent line first;
/// a tag is `line << 1 | dirty` (`line = addr >> line_shift`, set `line &
/// set_mask`). An access whose line is the first tag of its set is
/// settled in line, without calling the front: a hit that changes nothing
/// but, for a store to a write-back cache, the dirty bit, which translated
/// code sets. Every other access goes to [`Front::on_mem`] (through
/// [`Hooks::on_mem_unsettled`]), which delivers its word only if
/// [`MEM_WORD_COSTLY`] is set: the collector counts each plain load's and
/// store's access as a static cost.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct InlineDcache {
    /// log2 of the line size in bytes.
    pub line_shift: u32,
    /// Sets - 1 (sets are a power of two).
    pub set_mask: u64,
    /// Ways per set (at least 1).
    pub ways: u64,
    /// A store hit marks the line dirty (a write-back cache).
    pub write_back: bool,
}

/// A branch predictor of the shape translated code runs in line (see
/// [`Front::inline_predictor`]): a direction predictor for conditional
/// branches and an optional direct-mapped branch target buffer, resolved
/// for a block's final transfer at `pc` of row group `class` (0
/// conditional branch, 1 `jal`, 2 `jalr`) as follows (the semantics of
/// `fwprof_timing`'s `Predictor::resolve`):
///
/// * unconditional transfers are taken and predicted taken (except with
///   [`Direction::None`]: nothing is predicted, nothing mispredicts and
///   the BTB is not used);
/// * a conditional branch is predicted taken by [`Direction::Static`] iff
///   its target is below `pc`, by [`Direction::Counters`] iff the 2-bit
///   counter at `(slot(pc, counter_mask) ^ history) & counter_mask` is 2
///   or 3; the counter then saturates towards the outcome and `history`
///   shifts it in (`(history << 1 | taken) & history_mask`; a mask of 0 is
///   a bimodal predictor);
/// * with a BTB, a transfer predicted taken looks up entry
///   `slot(pc, btb_mask)`: a hit is a tag equal to `pc`; it is
///   mispredicted if taken and the entry misses or holds another target;
///   a taken transfer writes `(pc, target)` there;
/// * a conditional branch is also mispredicted when its direction was.
///
/// The verdict is the word [`branch_row`] of the outcome; a word whose bit
/// is clear in `delivered` is not recorded (`Front::on_branch` gives
/// `None` for it).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct InlinePredictor {
    /// How conditional branches are predicted.
    pub direction: Direction,
    /// Counter index mask (entries - 1) of [`Direction::Counters`].
    pub counter_mask: u64,
    /// Global history mask (0: no history, a bimodal predictor).
    pub history_mask: u64,
    /// BTB index mask (entries - 1), or `None` without a BTB.
    pub btb_mask: Option<u64>,
    /// Bit `r` set: the verdict of row `r` is delivered to the collector.
    pub delivered: u32,
}

/// The direction predictor of an [`InlinePredictor`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Direction {
    /// No prediction at all.
    None,
    /// Backward taken, forward not taken.
    Static,
    /// 2-bit saturating counters (bimodal or gshare).
    Counters,
}

/// Where an [`InlinePredictor`]'s tables are (null where it has none):
/// the 2-bit counters (one byte each, values 0..=3), the global history,
/// and the BTB entries as `[pc tag, target]`.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct PredictorTables {
    /// `counter_mask + 1` counters.
    pub counters: *mut u8,
    /// The history word.
    pub history: *mut u64,
    /// `btb_mask + 1` entries.
    pub btb: *mut [u64; 2],
}

impl Default for PredictorTables {
    fn default() -> Self {
        PredictorTables {
            counters: std::ptr::null_mut(),
            history: std::ptr::null_mut(),
            btb: std::ptr::null_mut(),
        }
    }
}

/// The table slot of a transfer at `pc` in a predictor table of index mask
/// `mask` (instructions are at least 2-byte aligned).
#[inline(always)]
pub fn predictor_slot(pc: u64, mask: u64) -> u64 {
    (pc >> 1) & mask
}

/// The verdict word of a block's final transfer of row group `class` (0
/// conditional branch, 1 `jal`, 2 `jalr`): `class << 3 | mispredicted << 2
/// | taken << 1 | btb_hit`, below 32.
#[inline(always)]
pub fn branch_row(class: u8, mispredicted: bool, taken: bool, btb_hit: bool) -> usize {
    (usize::from(class) << 3)
        | (usize::from(mispredicted) << 2)
        | (usize::from(taken) << 1)
        | usize::from(btb_hit)
}

/// No front: the collector does all its work on the worker thread.
pub struct NoFront;

impl Front for NoFront {
    const ACTIVE: bool = false;
    fn on_block_translated(&mut self, _id: BlockId, _pcs: &[u64], _insts: &[Inst]) {}
    fn on_branch(&mut self, _id: BlockId, _taken: bool, _target: u64) -> Option<u64> {
        None
    }
}

/// One buffer of recorded calls.
#[derive(Default)]
struct Batch {
    words: Vec<u64>,
    /// Arguments of `on_block_translated` calls, in order.
    translated: Vec<(BlockId, Vec<u64>, Vec<Inst>)>,
}

/// What the simulator thread sends the worker.
enum Request {
    /// Replay these calls.
    Replay(Batch),
    /// Replay, then answer `split_block(pcs)`.
    Split(Batch, Vec<u64>, Vec<Inst>),
    /// Replay, then answer `cycles_before(id, index)`.
    Cycles(Batch, BlockId, u32),
    /// Replay, then answer `model_events(id, index)` (its values in order).
    Events(Batch, BlockId, u32),
}

/// A [`Hooks`] adapter that runs collector `H` on a worker thread. Build it
/// with [`Pipelined::new`], give it to the simulator, and get the collector
/// back with [`Pipelined::finish`] after the run.
///
/// Worth it when the collector's work per block is comparable to the
/// simulator's (a timing model): the two then run in parallel on two
/// cores. The recording costs the simulator thread a few stores per hook
/// call; answers to `split_block` (once per translated block) and
/// `cycles_before` (each read of a cycle CSR) cost a round trip.
pub struct Pipelined<H: Hooks + Send + 'static, F: Front = NoFront> {
    front: F,
    /// The front models the data cache ([`Front::inline_dcache`]).
    front_dcache: bool,
    /// The buffer being filled: its words up to `log.next` are recorded
    /// (its `len` is set when it is handed over); it never grows.
    batch: Batch,
    /// The write position in `batch` (boxed: translated code holds its
    /// address during a run). `last_executed` is the base of `T_EXEC1`;
    /// the worker keeps the same.
    log: Box<EventLog>,
    to_worker: Option<SyncSender<Request>>,
    /// Emptied buffers coming back, for reuse.
    spare: Receiver<Batch>,
    answers: Receiver<u64>,
    worker: Option<JoinHandle<H>>,
}

impl<H: Hooks + Send + 'static> Pipelined<H> {
    /// Start the worker thread that will own `hooks`.
    ///
    /// # Panics
    /// If the operating system cannot start a thread.
    pub fn new(hooks: H) -> Pipelined<H> {
        Pipelined::with_front(hooks, NoFront)
    }
}

impl<H: Hooks + Send + 'static, F: Front> Pipelined<H, F> {
    /// [`Pipelined::new`] with `front` working on the simulator's thread.
    ///
    /// # Panics
    /// If the operating system cannot start a thread.
    ///
    /// A collector that stops the run ([`Hooks::STOPS`]) cannot work
    /// behind a `Pipelined` (its answer would be needed after every
    /// block): such an `H` does not compile.
    pub fn with_front(hooks: H, mut front: F) -> Pipelined<H, F> {
        const {
            assert!(
                !H::STOPS,
                "a collector that stops the run cannot be pipelined"
            )
        };
        let (to_worker, requests) = mpsc::sync_channel::<Request>(IN_FLIGHT);
        let (give_back, spare) = mpsc::sync_channel::<Batch>(IN_FLIGHT + 1);
        let (answer, answers) = mpsc::sync_channel::<u64>(1);
        let worker = std::thread::Builder::new()
            .name("fwprof-collector".into())
            .spawn(move || {
                block_async_signals();
                let mut hooks = hooks;
                let mut executed = 0;
                for request in requests {
                    let mut batch = match request {
                        Request::Replay(b) => {
                            replay(&mut hooks, &b, &mut executed);
                            b
                        }
                        Request::Split(b, pcs, insts) => {
                            replay(&mut hooks, &b, &mut executed);
                            let _ = answer.send(hooks.split_block(&pcs, &insts) as u64);
                            b
                        }
                        Request::Cycles(b, id, index) => {
                            replay(&mut hooks, &b, &mut executed);
                            let _ = answer.send(hooks.cycles_before(id, index));
                            b
                        }
                        Request::Events(b, id, index) => {
                            replay(&mut hooks, &b, &mut executed);
                            let mut out = [0; crate::MODEL_EVENTS];
                            hooks.model_events(id, index, &mut out);
                            for v in out {
                                let _ = answer.send(v);
                            }
                            b
                        }
                    };
                    batch.words.clear();
                    batch.translated.clear();
                    let _ = give_back.try_send(batch);
                }
                hooks
            })
            .expect("cannot start the collector thread");
        let mut batch = Batch {
            words: Vec::with_capacity(BATCH_WORDS),
            translated: Vec::new(),
        };
        let start = batch.words.as_mut_ptr();
        Pipelined {
            front_dcache: F::ACTIVE && front.inline_dcache().is_some(),
            front,
            log: Box::new(EventLog {
                next: start,
                // SAFETY: within the allocation (its capacity).
                limit: unsafe { start.add(BATCH_WORDS) },
                last_executed: 0,
            }),
            batch,
            to_worker: Some(to_worker),
            spare,
            answers,
            worker: Some(worker),
        }
    }

    /// Wait for the worker to replay everything recorded and return the
    /// collector.
    ///
    /// # Panics
    /// If the collector panicked on the worker thread (the panic is
    /// resumed here).
    pub fn finish(mut self) -> H {
        self.flush();
        self.to_worker = None; // ends the worker's loop
        let worker = self.worker.take().expect("finish is called once");
        match worker.join() {
            Ok(h) => h,
            Err(panic) => std::panic::resume_unwind(panic),
        }
    }

    /// A fresh buffer: a returned one if there is one.
    fn fresh(&mut self) -> Batch {
        self.spare.try_recv().unwrap_or_else(|_| Batch {
            words: Vec::with_capacity(BATCH_WORDS),
            translated: Vec::new(),
        })
    }

    /// Words recorded in the current buffer.
    fn recorded(&self) -> usize {
        // SAFETY: `next` points into the buffer's allocation, at or after
        // its start.
        unsafe { self.log.next.offset_from(self.batch.words.as_ptr()) as usize }
    }

    /// Set the buffer's length to what was recorded.
    fn seal(&mut self) {
        let n = self.recorded();
        // SAFETY: the first `n` words were written (by `put` or by
        // translated code, through `log`), within the capacity.
        unsafe { self.batch.words.set_len(n) };
    }

    /// Send `request` built from the current buffer.
    fn send(&mut self, make: impl FnOnce(Batch) -> Request) {
        self.seal();
        let mut fresh = self.fresh();
        let start = fresh.words.as_mut_ptr();
        self.log.next = start;
        // SAFETY: within the allocation (every buffer has this capacity).
        self.log.limit = unsafe { start.add(BATCH_WORDS) };
        let batch = std::mem::replace(&mut self.batch, fresh);
        if let Some(tx) = &self.to_worker {
            if tx.send(make(batch)).is_err() {
                self.worker_died();
            }
        }
    }

    /// Hand the current buffer to the worker.
    #[cold]
    #[inline(never)]
    fn flush(&mut self) {
        if self.recorded() > 0 {
            self.send(Request::Replay);
        }
    }

    /// The worker stopped (its collector panicked): re-raise the panic here.
    #[cold]
    fn worker_died(&mut self) -> ! {
        self.to_worker = None;
        match self.worker.take().map(JoinHandle::join) {
            Some(Err(panic)) => std::panic::resume_unwind(panic),
            _ => panic!("the collector thread stopped"),
        }
    }

    /// The worker's answer to the request just sent.
    fn answer(&mut self) -> u64 {
        match self.answers.recv() {
            Ok(v) => v,
            Err(_) => self.worker_died(),
        }
    }

    /// Record one call of `N` words.
    #[inline(always)]
    fn put<const N: usize>(&mut self, words: [u64; N]) {
        if self.log.next.wrapping_add(N) > self.log.limit {
            self.flush();
        }
        // SAFETY: the words fit before `limit`, the end of the buffer's
        // capacity (N is at most 8, far below BATCH_WORDS).
        unsafe {
            std::ptr::copy_nonoverlapping(words.as_ptr(), self.log.next, N);
            self.log.next = self.log.next.add(N);
        }
    }
}

impl<H: Hooks + Send + 'static, F: Front> Drop for Pipelined<H, F> {
    fn drop(&mut self) {
        // Without `finish` (an error path): stop the worker, drop its result.
        self.to_worker = None;
        if let Some(w) = self.worker.take() {
            let _ = w.join();
        }
    }
}

/// Replay the calls recorded in `b` into `hooks`.
/// `executed` is the base of `T_EXEC1` (the last executed count
/// replayed), carried from batch to batch.
fn replay<H: Hooks>(hooks: &mut H, b: &Batch, executed: &mut u64) {
    let w = &b.words;
    let mut translated = b.translated.iter();
    let mut i = 0;
    while i < w.len() {
        let head = w[i];
        let arg = head >> 8;
        match head & 0xff {
            T_EXEC1 => {
                *executed += head >> 40;
                hooks.on_block_exec(BlockId(arg as u32), *executed);
                i += 1;
            }
            T_MEM1 => {
                let write = arg & 1 != 0;
                let size = 1u8 << ((arg >> 1) & 3);
                let index = (arg >> 3) as u32 & ((1 << INDEX_BITS) - 1);
                hooks.on_mem(index, head >> (64 - ADDR_BITS), size, write);
                i += 1;
            }
            T_EXEC => {
                *executed = w[i + 1];
                hooks.on_block_exec(BlockId(arg as u32), w[i + 1]);
                i += 2;
            }
            T_CUT => {
                hooks.on_block_cut(BlockId(arg as u32), (arg >> 32) as u32);
                i += 1;
            }
            T_JUMP => {
                let kind = match arg & 0xff {
                    0 => JumpKind::Call,
                    1 => JumpKind::Return,
                    2 => JumpKind::CallReturn,
                    3 => JumpKind::Jump,
                    _ => JumpKind::LinkOther,
                };
                hooks.on_jump(&Jump {
                    block: BlockId((arg >> 24) as u32),
                    kind,
                    pc: w[i + 1],
                    ret: w[i + 2],
                    target: w[i + 3],
                    instret: w[i + 4],
                    sp: w[i + 5],
                });
                i += 6;
            }
            T_MEM => {
                let index = arg as u32;
                let size = (arg >> 32) as u8;
                let write = (arg >> 40) & 1 != 0;
                hooks.on_mem(index, w[i + 1], size, write);
                i += 2;
            }
            T_OPERANDS => {
                hooks.on_operands(arg as u32, w[i + 1], w[i + 2]);
                i += 3;
            }
            T_BRANCH => {
                let taken = (arg >> 32) & 1 != 0;
                hooks.on_branch(BlockId(arg as u32), taken, w[i + 1]);
                i += 2;
            }
            T_TRAP => {
                let priv_at = |shift: u32| Privilege::from_bits(arg >> shift);
                let trap = TrapInfo {
                    cause: arg & 0xff,
                    interrupt: (arg >> 8) & 1 != 0,
                    from: priv_at(9),
                    to: priv_at(11),
                    pc: w[i + 1],
                    tval: w[i + 2],
                    handler: w[i + 3],
                    latency: ((arg >> 13) & 1 != 0).then_some(Latency {
                        instructions: w[i + 4],
                        ns: w[i + 5],
                    }),
                };
                hooks.on_trap(trap, w[i + 6], w[i + 7]);
                i += 8;
            }
            T_CODE_CONTEXT => {
                hooks.on_code_context(CodeContext {
                    privilege: Privilege::from_bits(arg),
                    space: w[i + 1],
                });
                i += 2;
            }
            T_TRAP_RETURN => {
                hooks.on_trap_return(&TrapReturn {
                    pc: w[i + 1],
                    target: w[i + 2],
                    from: Privilege::from_bits(arg),
                    to: Privilege::from_bits(arg >> 2),
                    instret: w[i + 3],
                    sp: w[i + 4],
                    space: w[i + 5],
                });
                i += 6;
            }
            T_HART_SWITCH => {
                hooks.on_hart_switch(&HartSwitch {
                    from: arg as u32,
                    to: (arg >> 24) as u32,
                    privilege: Privilege::from_bits(arg >> 48),
                    from_executed: w[i + 1],
                    to_executed: w[i + 2],
                    pc: w[i + 3],
                    sp: w[i + 4],
                    space: w[i + 5],
                });
                i += 6;
            }
            T_SIGNAL => {
                let alt = (arg >> 32) & 1 != 0;
                hooks.on_signal(&SignalDelivery {
                    signo: arg as u32 as i32,
                    pc: w[i + 1],
                    sp: w[i + 2],
                    handler: w[i + 3],
                    frame: w[i + 4],
                    alt_stack: alt.then_some((w[i + 5], w[i + 6])),
                    instret: w[i + 7],
                });
                i += 8;
            }
            T_SIGNAL_RETURN => {
                hooks.on_signal_return(&SignalReturn {
                    pc: w[i + 1],
                    target: w[i + 2],
                    sp: w[i + 3],
                    instret: w[i + 4],
                });
                i += 5;
            }
            T_BRANCH_FRONT => {
                hooks.on_branch_front(BlockId(arg as u32), w[i + 1]);
                i += 2;
            }
            T_BRANCH_FRONT1 => {
                hooks.on_branch_front(BlockId(arg as u32), head >> 40);
                i += 1;
            }
            T_CALL_ARGS => {
                hooks.on_call_args(w[i + 1], w[i + 2], w[i + 3]);
                i += 4;
            }
            T_IDLE => {
                hooks.on_idle(w[i + 1], w[i + 2]);
                i += 3;
            }
            T_MEM_FRONT => {
                hooks.on_mem_front(arg as u32, head >> 40);
                i += 1;
            }
            T_ACCESS_FAULT => {
                hooks.on_access_fault(BlockId(arg as u32), (head >> 40) as u32);
                i += 1;
            }
            T_FLUSH => {
                hooks.on_cache_flush();
                i += 1;
            }
            T_TRANSLATED => {
                if let Some((id, pcs, insts)) = translated.next() {
                    hooks.on_block_translated(*id, pcs, insts);
                }
                i += 1;
            }
            _ => unreachable!("pipelined hooks: bad tag {head:#x}"),
        }
    }
}

impl<H: Hooks + Send + 'static, F: Front> Hooks for Pipelined<H, F> {
    const EVENT_LOG: bool = true;
    const EVENT_LOG_BRANCHES: bool = !F::ACTIVE;
    const WANTS_JUMPS: bool = H::WANTS_JUMPS;
    const WANTS_MEMORY: bool = H::WANTS_MEMORY;
    const WANTS_BRANCHES: bool = H::WANTS_BRANCHES;
    const WANTS_OPERANDS: bool = H::WANTS_OPERANDS;
    const MODELS_CYCLES: bool = H::MODELS_CYCLES;
    const WANTS_CALL_ARGS: bool = H::WANTS_CALL_ARGS;

    fn on_call_args(&mut self, target: u64, a0: u64, a1: u64) {
        self.put([T_CALL_ARGS, target, a0, a1]);
    }

    #[inline]
    fn event_log(&mut self) -> Option<std::ptr::NonNull<EventLog>> {
        Some(std::ptr::NonNull::from(&mut *self.log))
    }

    fn split_block(&mut self, pcs: &[u64], insts: &[Inst]) -> usize {
        let (pcs, insts) = (pcs.to_vec(), insts.to_vec());
        self.send(|b| Request::Split(b, pcs, insts));
        self.answer() as usize
    }

    fn on_block_translated(&mut self, id: BlockId, pcs: &[u64], insts: &[Inst]) {
        if F::ACTIVE {
            self.front.on_block_translated(id, pcs, insts);
        }
        self.batch
            .translated
            .push((id, pcs.to_vec(), insts.to_vec()));
        self.put([T_TRANSLATED]);
    }

    fn on_cache_flush(&mut self) {
        if F::ACTIVE {
            self.front.on_cache_flush();
        }
        self.put([T_FLUSH]);
    }

    #[inline(always)]
    fn on_block_exec(&mut self, id: BlockId, executed: u64) {
        let delta = executed.wrapping_sub(self.log.last_executed);
        self.log.last_executed = executed;
        if delta < 1 << DELTA_BITS {
            self.put([T_EXEC1 | u64::from(id.0) << 8 | delta << 40]);
        } else {
            self.put([T_EXEC | u64::from(id.0) << 8, executed]);
        }
    }

    fn on_block_cut(&mut self, id: BlockId, executed: u32) {
        self.put([T_CUT | u64::from(id.0) << 8 | u64::from(executed) << 40]);
    }

    #[inline(always)]
    fn on_jump(&mut self, j: &Jump) {
        let k: u64 = match j.kind {
            JumpKind::Call => 0,
            JumpKind::Return => 1,
            JumpKind::CallReturn => 2,
            JumpKind::Jump => 3,
            JumpKind::LinkOther => 4,
        };
        let head = T_JUMP | k << 8 | u64::from(j.block.0) << 32;
        self.put([head, j.pc, j.ret, j.target, j.instret, j.sp]);
    }

    #[inline(always)]
    fn on_mem(&mut self, index: u32, addr: u64, size: u8, write: bool) {
        if F::ACTIVE && self.front_dcache {
            let word = self.front.on_mem(addr, size, write);
            self.on_mem_front(index, word);
            return;
        }
        let short =
            addr < 1 << ADDR_BITS && index < 1 << INDEX_BITS && size.is_power_of_two() && size <= 8;
        if short {
            let head = T_MEM1
                | u64::from(write) << 8
                | u64::from(size.trailing_zeros()) << 9
                | u64::from(index) << 11
                | addr << (64 - ADDR_BITS);
            self.put([head]);
        } else {
            let head =
                T_MEM | u64::from(index) << 8 | u64::from(size) << 40 | u64::from(write) << 48;
            self.put([head, addr]);
        }
    }

    /// From translated code: a plain load or store the inline data-cache
    /// check did not settle; the collector hears of it only if it costs.
    #[inline]
    fn on_mem_unsettled(&mut self, index: u32, addr: u64, size: u8, write: bool) {
        if !(F::ACTIVE && self.front_dcache) {
            return self.on_mem(index, addr, size, write);
        }
        let word = self.front.on_mem(addr, size, write);
        if word & MEM_WORD_COSTLY != 0 {
            self.on_mem_front(index, word);
        }
    }

    #[inline]
    fn on_mem_front(&mut self, index: u32, word: u64) {
        debug_assert!(word < 1 << FRONT_WORD_BITS, "front word {word:#x}");
        self.put([T_MEM_FRONT | u64::from(index) << 8 | word << 40]);
    }

    fn on_access_fault(&mut self, id: BlockId, index: u32) {
        self.put([T_ACCESS_FAULT | u64::from(id.0) << 8 | u64::from(index) << 40]);
    }

    #[inline]
    fn inline_dcache(&mut self) -> Option<(InlineDcache, *mut u64)> {
        if F::ACTIVE && self.front_dcache {
            self.front.inline_dcache()
        } else {
            None
        }
    }

    #[inline(always)]
    fn on_operands(&mut self, index: u32, a: u64, b: u64) {
        self.put([T_OPERANDS | u64::from(index) << 8, a, b]);
    }

    #[inline(always)]
    fn on_branch(&mut self, id: BlockId, taken: bool, target: u64) {
        if !F::ACTIVE {
            self.put([
                T_BRANCH | u64::from(id.0) << 8 | u64::from(taken) << 40,
                target,
            ]);
        } else if let Some(word) = self.front.on_branch(id, taken, target) {
            self.on_branch_front(id, word);
        }
    }

    /// A verdict of the front (resolved by translated code), for the
    /// collector.
    #[inline]
    fn on_branch_front(&mut self, id: BlockId, word: u64) {
        if word < 1 << FRONT_WORD_BITS {
            self.put([T_BRANCH_FRONT1 | u64::from(id.0) << 8 | word << 40]);
        } else {
            self.put([T_BRANCH_FRONT | u64::from(id.0) << 8, word]);
        }
    }

    #[inline]
    fn inline_predictor(&mut self) -> Option<(InlinePredictor, PredictorTables)> {
        self.front.inline_predictor()
    }

    fn cycles_before(&mut self, id: BlockId, index: u32) -> u64 {
        self.send(|b| Request::Cycles(b, id, index));
        self.answer()
    }

    fn model_events(&mut self, id: BlockId, index: u32, out: &mut [u64; crate::MODEL_EVENTS]) {
        self.send(|b| Request::Events(b, id, index));
        for v in out.iter_mut() {
            *v = self.answer();
        }
    }

    fn on_trap(&mut self, trap: TrapInfo, instret: u64, sp: u64) {
        let lat = trap.latency.unwrap_or_default();
        let flags = (trap.cause & 0xff)
            | u64::from(trap.interrupt) << 8
            | trap.from.bits() << 9
            | trap.to.bits() << 11
            | u64::from(trap.latency.is_some()) << 13;
        self.put([
            T_TRAP | flags << 8,
            trap.pc,
            trap.tval,
            trap.handler,
            lat.instructions,
            lat.ns,
            instret,
            sp,
        ]);
    }

    fn on_code_context(&mut self, ctx: CodeContext) {
        self.put([T_CODE_CONTEXT | ctx.privilege.bits() << 8, ctx.space]);
    }

    fn on_trap_return(&mut self, ret: &TrapReturn) {
        let flags = ret.from.bits() | ret.to.bits() << 2;
        self.put([
            T_TRAP_RETURN | flags << 8,
            ret.pc,
            ret.target,
            ret.instret,
            ret.sp,
            ret.space,
        ]);
    }

    fn on_idle(&mut self, ticks: u64, executed: u64) {
        self.put([T_IDLE, ticks, executed]);
    }

    fn on_hart_switch(&mut self, s: &HartSwitch) {
        // Hart numbers fit in 24 bits (the simulator allows far fewer).
        let head = u64::from(s.from & 0xff_ffff)
            | u64::from(s.to & 0xff_ffff) << 24
            | s.privilege.bits() << 48;
        self.put([
            T_HART_SWITCH | head << 8,
            s.from_executed,
            s.to_executed,
            s.pc,
            s.sp,
            s.space,
        ]);
    }

    fn on_signal(&mut self, s: &SignalDelivery) {
        let (lo, hi) = s.alt_stack.unwrap_or_default();
        let flags = u64::from(s.signo as u32) | u64::from(s.alt_stack.is_some()) << 32;
        self.put([
            T_SIGNAL | flags << 8,
            s.pc,
            s.sp,
            s.handler,
            s.frame,
            lo,
            hi,
            s.instret,
        ]);
    }

    fn on_signal_return(&mut self, r: &SignalReturn) {
        self.put([T_SIGNAL_RETURN, r.pc, r.target, r.sp, r.instret]);
    }
}

#[cfg(test)]
mod tests {
    use std::sync::atomic::AtomicBool;

    use super::*;
    use crate::test_asm::*;
    use crate::Simulator;

    /// Logs every hook call with its arguments, splits blocks after two
    /// instructions and reports "cycles" as 1000 + the count of calls so
    /// far, so that answers depend on everything replayed before them.
    #[derive(Default)]
    struct Log(Vec<String>);

    impl Hooks for Log {
        const WANTS_JUMPS: bool = true;
        const WANTS_MEMORY: bool = true;
        const WANTS_BRANCHES: bool = true;
        const WANTS_OPERANDS: bool = true;
        const MODELS_CYCLES: bool = true;
        const WANTS_CALL_ARGS: bool = true;
        fn on_call_args(&mut self, target: u64, a0: u64, a1: u64) {
            self.0.push(format!("args {target:x} {a0} {a1}"));
        }
        fn split_block(&mut self, pcs: &[u64], _: &[Inst]) -> usize {
            self.0.push(format!("split {pcs:x?}"));
            2
        }
        fn on_block_translated(&mut self, id: BlockId, pcs: &[u64], insts: &[Inst]) {
            self.0
                .push(format!("translated {id:?} {pcs:x?} {}", insts.len()));
        }
        fn on_block_exec(&mut self, id: BlockId, executed: u64) {
            self.0.push(format!("exec {id:?} {executed}"));
        }
        fn on_cache_flush(&mut self) {
            self.0.push("flush".into());
        }
        fn on_block_cut(&mut self, id: BlockId, executed: u32) {
            self.0.push(format!("cut {id:?} {executed}"));
        }
        fn on_jump(&mut self, j: &Jump) {
            self.0.push(format!("jump {j:x?}"));
        }
        fn on_mem(&mut self, index: u32, addr: u64, size: u8, write: bool) {
            self.0.push(format!("mem {index} {addr:x} {size} {write}"));
        }
        fn on_operands(&mut self, index: u32, a: u64, b: u64) {
            self.0.push(format!("operands {index} {a} {b}"));
        }
        fn on_branch(&mut self, id: BlockId, taken: bool, target: u64) {
            self.0.push(format!("branch {id:?} {taken} {target:x}"));
        }
        fn on_branch_front(&mut self, id: BlockId, word: u64) {
            self.0.push(format!("front {id:?} {word:x}"));
        }
        fn cycles_before(&mut self, id: BlockId, index: u32) -> u64 {
            self.0.push(format!("cycles {id:?} {index}"));
            1000 + self.0.len() as u64
        }
        fn on_trap(&mut self, trap: TrapInfo, instret: u64, sp: u64) {
            self.0.push(format!("trap {trap:?} {instret} {sp:x}"));
        }
        fn on_trap_return(&mut self, ret: &TrapReturn) {
            self.0.push(format!("trap return {ret:?}"));
        }
        fn on_signal(&mut self, signal: &SignalDelivery) {
            self.0.push(format!("signal {signal:?}"));
        }
        fn on_signal_return(&mut self, ret: &SignalReturn) {
            self.0.push(format!("signal return {ret:?}"));
        }
    }

    /// A loop of 300 iterations with a store, a load, a register shift, a
    /// call and return, and a `rdcycle` whose value is stored and reloaded,
    /// and a `fence.i` (a cache flush); then `ecall` (a fault: mtvec is 0).
    fn program() -> Vec<u32> {
        program_with(true)
    }

    /// [`program`], with or without its `fence.i`.
    fn program_with(fence: bool) -> Vec<u32> {
        let (t0, t1, t2, a0, a1, ra) = (5, 6, 7, 10, 11, 1);
        let mut w = Vec::new();
        w.extend(li(t0, DATA as u32 as i32));
        w.extend(li(a0, 300));
        let top = w.len();
        if fence {
            w.push(FENCE_I);
        }
        w.push(sw(t0, a0, 0));
        w.push(lw(a1, t0, 0));
        w.push(r(0x33, 1, 0, t1, a1, a0)); // sll t1, a1, a0
        w.push(csr(2, t2, 0, 0xc00)); // rdcycle t2
        w.push(sw(t0, t2, 4));
        w.push(jal(ra, 16)); // call f, 4 words ahead
        w.push(addi(a0, a0, -1));
        let back = top as i32 - w.len() as i32;
        w.push(b(1, a0, 0, back * 4)); // bne a0, zero, top
        w.push(jal(0, 12)); // past f
        w.push(addi(a1, a1, 1)); // f
        w.push(jalr(0, ra, 0)); // ret
        w.push(ECALL);
        w
    }

    #[test]
    fn pipelined_collector_sees_the_same_calls_and_answers() {
        let words = program();
        let mut direct = Simulator::bare(memory_with(&words), false, BASE, Log::default());
        let stop_direct = direct.run(1_000_000, &AtomicBool::new(false)).unwrap();
        let mut piped = Simulator::bare(
            memory_with(&words),
            false,
            BASE,
            Pipelined::new(Log::default()),
        );
        let stop_piped = piped.run(1_000_000, &AtomicBool::new(false)).unwrap();
        assert_eq!(format!("{stop_direct:?}"), format!("{stop_piped:?}"));
        assert_eq!(direct.executed(), piped.executed());
        // The guest stored what rdcycle returned: the same answers.
        assert_eq!(direct.hart().x(7), piped.hart().x(7));
        let a = direct.into_hooks().0;
        let b = piped.into_hooks().finish().0;
        assert!(a.len() > 3000, "{} calls: {a:#?}", a.len());
        for kind in [
            "split",
            "translated",
            "exec",
            "jump",
            "mem",
            "operands",
            "branch",
            "cycles",
            "flush",
        ] {
            assert!(a.iter().any(|l| l.starts_with(kind)), "no {kind} call");
        }
        assert_eq!(a, b);
    }

    /// Runs `program()` with `hooks` on `tier` at `threshold`; returns the
    /// hooks and the share of the instructions run as translated code.
    fn run_on<H: Hooks>(hooks: H, tier: crate::Tier, threshold: u32) -> (H, f64) {
        // Without the `fence.i`, blocks live long enough to be translated
        // after their first run, in regions.
        let mut sim = Simulator::bare(memory_with(&program_with(false)), false, BASE, hooks);
        sim.set_tier(tier, threshold);
        sim.run(1_000_000, &AtomicBool::new(false)).unwrap();
        let share = sim.jit_stats().executed as f64 / sim.executed() as f64;
        (sim.into_hooks(), share)
    }

    /// Translated code appends block, access and branch records to the
    /// log itself (`EventLog`); the collector must see what the hooks
    /// would have recorded, with and without a front, whatever the
    /// position of the buffer's end.
    #[test]
    fn records_translated_code_appends_are_the_hooks_records() {
        use crate::Tier;
        let (direct, _) = run_on(Log::default(), Tier::Interp, 0);
        let (front_ref, _) = run_on(
            Pipelined::with_front(Log::default(), TargetFront),
            Tier::Interp,
            0,
        );
        let front_ref = front_ref.finish().0;
        assert!(front_ref.iter().any(|l| l.starts_with("front")));
        for threshold in [0, 1] {
            let (piped, share) = run_on(Pipelined::new(Log::default()), Tier::Jit, threshold);
            assert!(share > 0.8, "translated share {share}");
            assert_eq!(direct.0, piped.finish().0, "threshold {threshold}");
            let (piped, _) = run_on(
                Pipelined::with_front(Log::default(), TargetFront),
                Tier::Jit,
                threshold,
            );
            assert_eq!(front_ref, piped.finish().0, "front, threshold {threshold}");
        }
    }

    #[test]
    fn signal_hooks_are_replayed_exactly() {
        let calls = |h: &mut dyn FnMut(&SignalDelivery, &SignalReturn)| {
            for (signo, alt) in [(11, None), (64, Some((0x7000, 0x9000)))] {
                let d = SignalDelivery {
                    signo,
                    pc: 0x1234,
                    sp: 0x8000,
                    handler: 0x2000,
                    frame: 0x7cc0,
                    alt_stack: alt,
                    instret: 42,
                };
                let r = SignalReturn {
                    pc: 0x3004,
                    target: 0x1234,
                    sp: 0x8000,
                    instret: 60,
                };
                h(&d, &r);
            }
        };
        let mut direct = Log::default();
        calls(&mut |d, r| {
            direct.on_signal(d);
            direct.on_signal_return(r);
        });
        let mut piped = Pipelined::new(Log::default());
        calls(&mut |d, r| {
            piped.on_signal(d);
            piped.on_signal_return(r);
        });
        assert_eq!(direct.0, piped.finish().0);
        assert_eq!(direct.0.len(), 4);
    }

    /// A front whose word is the branch target's distance from `BASE`
    /// (the tests run RV32 programs at `BASE`), delivered only for taken
    /// branches.
    struct TargetFront;
    impl Front for TargetFront {
        fn on_block_translated(&mut self, _: BlockId, _: &[u64], _: &[Inst]) {}
        fn on_branch(&mut self, _: BlockId, taken: bool, target: u64) -> Option<u64> {
            taken.then(|| target.wrapping_sub(BASE))
        }
    }

    #[test]
    fn values_past_the_one_word_forms_take_the_long_forms() {
        let executed = [0, 5, 5, (1 << 24) + 4, (1 << 24) + 5, 3, u64::MAX, 7];
        let mems: [(u32, u64, u8, bool); 9] = [
            (0, 0x1000, 4, false),
            (255, (1 << 45) - 1, 8, true),
            (256, 0x2000, 1, false),
            (3, 1 << 45, 2, true),
            (4, 0xffff_ffc0_0000_0010, 8, false),
            (5, 0x3000, 16, true),
            (6, 0x3000, 3, false),
            (7, u64::MAX, 1, true),
            (u32::MAX, 0, 4, false),
        ];
        let targets = [0, (1 << 24) - 1, 1 << 24, u64::MAX];
        let mut direct = Log::default();
        let mut piped = Pipelined::with_front(Log::default(), TargetFront);
        for (i, &e) in executed.iter().enumerate() {
            let id = BlockId(if i % 2 == 0 {
                i as u32
            } else {
                u32::MAX - i as u32
            });
            direct.on_block_exec(id, e);
            piped.on_block_exec(id, e);
            for &(index, addr, size, write) in &mems {
                direct.on_mem(index, addr, size, write);
                piped.on_mem(index, addr, size, write);
            }
            for &t in &targets {
                direct.on_branch_front(id, t.wrapping_sub(BASE));
                piped.on_branch(id, true, t);
                // Not delivered by this front: nothing recorded.
                piped.on_branch(id, false, t);
            }
        }
        assert_eq!(direct.0, piped.finish().0);
    }

    #[test]
    fn a_panic_in_the_collector_reaches_the_simulator_thread() {
        struct Boom;
        impl Hooks for Boom {
            fn on_block_exec(&mut self, _id: BlockId, executed: u64) {
                assert!(executed < 50, "collector bug");
            }
        }
        let words = program();
        let result = std::panic::catch_unwind(|| {
            let mut sim = Simulator::bare(memory_with(&words), false, BASE, Pipelined::new(Boom));
            let _ = sim.run(1_000_000, &AtomicBool::new(false));
            sim.into_hooks().finish();
        });
        let err = result.expect_err("the panic is resumed");
        let msg = err
            .downcast_ref::<String>()
            .cloned()
            .or_else(|| err.downcast_ref::<&str>().map(|s| s.to_string()))
            .unwrap_or_default();
        assert!(msg.contains("collector bug"), "{msg}");
    }
}
