//! The path collector: a [`Hooks`] implementation that follows every
//! executed transfer of a run, keeps each function activation's current
//! path, and counts the paths per function; numbered at the end on the
//! final graphs (with every indirect target seen), so the same binary
//! gives the same numbers in every run.
//!
//! An activation starts at a call (or a trap's handler, or the program's
//! first instruction), ends at its return (matched by return address, as
//! `fwprof_collect::CallStack` matches them), a tail call or `mret`. Its
//! current path is the sequence of block starts since its start or its
//! last back edge; a path is counted when it reaches a back edge or the
//! exit. Paths are kept as those sequences, one copy per distinct path:
//! memory grows with the number of distinct paths, not with the run, and
//! stops at [`MAX_PATHS`] (what is dropped is counted).

use std::collections::{HashMap, HashSet};

use fwprof_isa::Inst;
use fwprof_sim::{
    jump_kind, BlockId, Hooks, JumpKind, SignalDelivery, SignalReturn, TrapInfo, TrapReturn,
};
use fwprof_symbols::{FunctionTable, Program};

use crate::ball_larus::{Node, Numbering};
use crate::cfg::Cfg;

/// Distinct paths kept over all functions; further new paths are
/// counted in [`PathStats::dropped`].
pub const MAX_PATHS: usize = 1 << 20;

/// One function's graph and what ran through it.
struct FnState {
    cfg: Cfg,
    /// Block starts (leaders) of the graph.
    leaders: HashSet<u64>,
    /// Edges (by block starts) that break a cycle: a path ends there.
    breaking: HashSet<(u64, u64)>,
    /// Path (block starts, the first one where it began) → count.
    paths: HashMap<Vec<u64>, u64>,
    /// Edge (by block starts) → traversals, fall-through included.
    edges: HashMap<(u64, u64), u64>,
}

impl FnState {
    fn new(cfg: Cfg) -> FnState {
        let mut s = FnState {
            cfg,
            leaders: HashSet::new(),
            breaking: HashSet::new(),
            paths: HashMap::new(),
            edges: HashMap::new(),
        };
        s.refresh();
        s
    }

    fn refresh(&mut self) {
        let c = &self.cfg;
        self.leaders = c.blocks.iter().map(|b| b.start).collect();
        self.breaking = c
            .back_edges
            .iter()
            .chain(&c.irreducible)
            .map(|&i| {
                (
                    c.blocks[c.edges[i].from].start,
                    c.blocks[c.edges[i].to].start,
                )
            })
            .collect();
    }
}

/// The last instruction that ran before a transfer: its address, and
/// the instruction if it ended its simulator block (a jump, branch,
/// call or return; `None` after a block cut short).
type Prev = (u64, Option<Inst>);

/// A function activation.
struct Frame {
    /// The function's start (key of `PathCollector::functions`; 0 outside
    /// every function).
    func: u64,
    /// The address its return goes to (0: none expected, a trap's
    /// handler or the first activation).
    ret: u64,
    /// The current path's block starts.
    path: Vec<u64>,
    /// A trap or signal handler's activation: the interrupted code's last
    /// instruction, restored when the handler returns (the trap is
    /// transparent to the interrupted path).
    saved: Option<Option<Prev>>,
}

/// What a path collection could not follow.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct PathStats {
    /// Paths counted.
    pub counted: u64,
    /// New distinct paths not kept (over [`MAX_PATHS`]).
    pub dropped: u64,
    /// Paths cut short: an activation left by `longjmp`, a trap that
    /// never returned, or a transfer that is no edge of the graph.
    pub truncated: u64,
}

/// One counted path of a function, numbered.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PathRecord {
    /// Ball–Larus number (on the final graph).
    pub number: u128,
    /// Times taken.
    pub count: u64,
    /// Its blocks' start addresses, in order.
    pub blocks: Vec<u64>,
    /// Instructions executed along it once.
    pub instructions: u64,
}

/// One function's path profile.
#[derive(Clone, Debug)]
pub struct FunctionPaths {
    /// The function's graph, with every indirect target seen.
    pub cfg: Cfg,
    /// Its numbering (`None`: more paths than 128 bits count).
    pub numbering: Option<Numbering>,
    /// Paths, most taken first (then by number).
    pub paths: Vec<PathRecord>,
    /// Paths not completed (block starts): left by a `longjmp`, or open
    /// when the run stopped.
    pub partial: Vec<Vec<u64>>,
    /// Completed paths the numbering does not have (begun mid-function,
    /// or the function is not numbered), with their counts.
    pub unnumbered: Vec<(Vec<u64>, u64)>,
    /// Edge traversals by (source block start, target block start).
    pub edges: HashMap<(u64, u64), u64>,
}

/// The path collector (see the module docs).
pub struct PathCollector {
    program: Program,
    table: FunctionTable,
    functions: HashMap<u64, FnState>,
    /// Per simulator block: its instruction addresses and last instruction.
    blocks: Vec<(Vec<u64>, Option<Inst>)>,
    stack: Vec<Frame>,
    /// The simulator block that ran last and how many of its
    /// instructions (`u32::MAX`: all).
    pending: Option<(u32, u32)>,
    /// The last instruction that ran, once `pending` is accounted.
    prev: Option<Prev>,
    /// A handler just returned: a transfer to the instruction `prev`
    /// names re-runs it (a faulting instruction), it is no edge.
    after_handler: bool,
    kept: usize,
    stats: PathStats,
    /// Paths not completed (by function): cut by a `longjmp`, open when
    /// the run stopped.
    partial: HashMap<u64, Vec<Vec<u64>>>,
}

impl PathCollector {
    /// A collector for the functions of `program` (the running ELF).
    pub fn new(program: Program) -> PathCollector {
        let table = program.functions().clone();
        PathCollector {
            program,
            table,
            functions: HashMap::new(),
            blocks: Vec::new(),
            stack: Vec::new(),
            pending: None,
            prev: None,
            after_handler: false,
            kept: 0,
            stats: PathStats::default(),
            partial: HashMap::new(),
        }
    }

    /// The function holding `addr` (its start), building its graph on
    /// first use; `None` outside the program's functions.
    fn function(&mut self, addr: u64) -> Option<u64> {
        let id = self.table.lookup(addr)?;
        let f = self.table.get(id);
        if f.unknown {
            return None;
        }
        let start = f.start;
        if !self.functions.contains_key(&start) {
            let cfg = Cfg::build(&self.program, f);
            self.functions.insert(start, FnState::new(cfg));
        }
        Some(start)
    }

    /// Start an activation of the function holding `addr`, at `addr`.
    fn push(&mut self, addr: u64, ret: u64, saved: Option<Option<Prev>>) {
        let func = self.function(addr).unwrap_or(0);
        let mut path = Vec::new();
        if self
            .functions
            .get(&func)
            .is_some_and(|s| s.leaders.contains(&addr))
        {
            path.push(addr);
        }
        self.stack.push(Frame {
            func,
            ret,
            path,
            saved,
        });
    }

    /// Count `path`, a completed path of function `func`.
    fn count(&mut self, func: u64, path: Vec<u64>) {
        let Some(s) = self.functions.get_mut(&func) else {
            return;
        };
        self.stats.counted += 1;
        if let Some(c) = s.paths.get_mut(&path) {
            *c += 1;
        } else if self.kept < MAX_PATHS {
            s.paths.insert(path, 1);
            self.kept += 1;
        } else {
            self.stats.dropped += 1;
        }
    }

    /// End the top activation at its exit; returns it.
    fn pop(&mut self) -> Option<Frame> {
        let mut top = self.stack.pop()?;
        let path = std::mem::take(&mut top.path);
        if !path.is_empty() {
            self.count(top.func, path);
        }
        Some(top)
    }

    /// The top activation's path is cut short (a `longjmp` left it, or
    /// the run stopped inside it).
    fn abandon(&mut self) {
        if let Some(top) = self.stack.pop() {
            if !top.path.is_empty() {
                self.stats.truncated += 1;
                self.partial.entry(top.func).or_default().push(top.path);
            }
        }
    }

    /// The top activation goes from the instruction at `from` to `to`,
    /// both in its function.
    fn step(&mut self, from: u64, to: u64) {
        let Some(top) = self.stack.last_mut() else {
            return;
        };
        let Some(s) = self.functions.get_mut(&top.func) else {
            return;
        };
        let Some(b) = s.cfg.block_at(from) else {
            return;
        };
        // An edge leaves a block's last instruction for a block start;
        // anything else goes on inside a block (or re-runs a faulting
        // instruction).
        if s.cfg.blocks[b].last != from {
            return;
        }
        // An indirect jump to a target not seen before: add it.
        if s.cfg.blocks[b].term == crate::cfg::Term::Indirect && s.cfg.add_observed(from, to) {
            s.refresh();
        }
        if !s.leaders.contains(&to) {
            return;
        }
        let Some(&cur) = top.path.last() else {
            // No path yet (entered mid-block): one starts here.
            top.path.push(to);
            return;
        };
        *s.edges.entry((cur, to)).or_default() += 1;
        if s.breaking.contains(&(cur, to)) {
            let path = std::mem::replace(&mut top.path, vec![to]);
            let func = top.func;
            self.count(func, path);
        } else {
            top.path.push(to);
        }
    }

    /// Account the simulator block that ran last: the block starts it
    /// passed inside it; it becomes `prev`.
    fn flush(&mut self) {
        let Some((id, ran)) = self.pending.take() else {
            return;
        };
        let Some((pcs, last)) = self.blocks.get(id as usize) else {
            return;
        };
        let n = (ran as usize).min(pcs.len());
        if n == 0 {
            return;
        }
        let inner: Vec<(u64, u64)> = pcs[..n].windows(2).map(|w| (w[0], w[1])).collect();
        let prev = (pcs[n - 1], if n == pcs.len() { *last } else { None });
        for (from, to) in inner {
            self.step(from, to);
        }
        self.prev = Some(prev);
    }

    /// Control goes from `prev` to `to` (the start of the next simulator
    /// block).
    fn transfer(&mut self, (from, inst): Prev, to: u64) {
        match inst.and_then(|i| jump_kind(&i)) {
            Some(JumpKind::Call) | Some(JumpKind::CallReturn) => {
                let ret = from + u64::from(inst.map_or(4, |i| i.len));
                self.push(to, ret, None);
            }
            Some(JumpKind::Return) => match self.stack.iter().rposition(|f| f.ret == to) {
                Some(k) => {
                    // Frames above the one returning were left without a
                    // return (a longjmp): their paths are cut.
                    while self.stack.len() > k + 1 {
                        self.abandon();
                    }
                    self.pop();
                }
                None => {
                    // A return to where no call came from.
                    self.pop();
                    self.push(to, 0, None);
                }
            },
            _ => {
                let top = self.stack.last().map_or(0, |f| f.func);
                if self.function(to) == Some(top) {
                    self.step(from, to);
                } else {
                    // A tail call, or a jump out of the function: this
                    // activation ends, the new one returns where it would.
                    let ret = self.stack.last().map_or(0, |f| f.ret);
                    self.pop();
                    self.push(to, ret, None);
                }
            }
        }
    }

    /// The paths of every function that ran, numbered on their final
    /// graphs, and what could not be followed. Activations still open
    /// (the run stopped inside them) keep their paths so far as partial.
    pub fn finish(mut self) -> (Vec<FunctionPaths>, PathStats) {
        self.flush();
        while !self.stack.is_empty() {
            self.abandon();
        }
        let mut out = Vec::new();
        let mut starts: Vec<u64> = self.functions.keys().copied().collect();
        starts.sort_unstable();
        for start in starts {
            let s = self.functions.remove(&start).unwrap();
            let partial = self.partial.remove(&start).unwrap_or_default();
            if s.paths.is_empty() && partial.is_empty() {
                continue;
            }
            let numbering = Numbering::new(&s.cfg);
            let mut paths = Vec::new();
            let mut unnumbered = Vec::new();
            for (blocks, count) in s.paths {
                let number = numbering
                    .as_ref()
                    .and_then(|n| number_of(&s.cfg, n, &blocks));
                let instructions = blocks
                    .iter()
                    .filter_map(|&a| s.cfg.block_at(a))
                    .map(|b| u64::from(s.cfg.blocks[b].insts))
                    .sum();
                match number {
                    Some(number) => paths.push(PathRecord {
                        number,
                        count,
                        blocks,
                        instructions,
                    }),
                    None => {
                        self.stats.truncated += count;
                        unnumbered.push((blocks, count));
                    }
                }
            }
            paths.sort_by(|a, b| b.count.cmp(&a.count).then(a.number.cmp(&b.number)));
            out.push(FunctionPaths {
                cfg: s.cfg,
                numbering,
                paths,
                partial,
                unnumbered,
                edges: s.edges,
            });
        }
        (out, self.stats)
    }
}

/// The Ball–Larus number of the path through the blocks starting at
/// `starts` (from the entry or a loop header, to an exit or a back
/// edge's source); `None` if it is not a path of the numbering.
pub fn number_of(cfg: &Cfg, n: &Numbering, starts: &[u64]) -> Option<u128> {
    let blocks: Vec<usize> = starts
        .iter()
        .map(|&a| cfg.block_at(a).filter(|&b| cfg.blocks[b].start == a))
        .collect::<Option<_>>()?;
    let mut r = n.val(Node::Entry, Node::Block(*blocks.first()?))?;
    for w in blocks.windows(2) {
        r += n.val(Node::Block(w[0]), Node::Block(w[1]))?;
    }
    r += n.val(Node::Block(*blocks.last()?), Node::Exit)?;
    Some(r)
}

impl Hooks for PathCollector {
    const WANTS_BLOCK_EXEC: bool = true;

    fn on_block_translated(&mut self, id: BlockId, pcs: &[u64], insts: &[Inst]) {
        let i = id.0 as usize;
        if self.blocks.len() <= i {
            self.blocks.resize(i + 1, (Vec::new(), None));
        }
        self.blocks[i] = (pcs.to_vec(), insts.last().copied());
    }

    fn on_cache_flush(&mut self) {
        self.flush();
        self.blocks.clear();
    }

    fn on_block_exec(&mut self, id: BlockId, _executed: u64) {
        self.flush();
        let Some(to) = self
            .blocks
            .get(id.0 as usize)
            .and_then(|b| b.0.first().copied())
        else {
            return;
        };
        self.pending = Some((id.0, u32::MAX));
        let retry = std::mem::take(&mut self.after_handler);
        match self.prev.take() {
            _ if self.stack.is_empty() => self.push(to, 0, None),
            Some(prev) if !(retry && prev.0 == to) => self.transfer(prev, to),
            _ => {}
        }
    }

    fn on_block_cut(&mut self, id: BlockId, executed: u32) {
        if let Some(p) = self.pending.as_mut() {
            if p.0 == id.0 {
                p.1 = executed;
            }
        }
    }

    fn on_trap(&mut self, trap: TrapInfo, _instret: u64, _sp: u64) {
        self.flush();
        let saved = self.prev.take();
        self.push(trap.handler, 0, Some(saved));
    }

    fn on_trap_return(&mut self, _ret: &TrapReturn) {
        self.flush();
        self.handler_returned();
    }

    fn on_signal(&mut self, signal: &SignalDelivery) {
        self.flush();
        let saved = self.prev.take();
        self.push(signal.handler, 0, Some(saved));
    }

    fn on_signal_return(&mut self, _ret: &SignalReturn) {
        self.flush();
        self.handler_returned();
    }
}

impl PathCollector {
    /// A trap or signal handler returned: its activation (and any it left
    /// open) ends, the interrupted code goes on from where it was.
    fn handler_returned(&mut self) {
        let Some(k) = self.stack.iter().rposition(|f| f.saved.is_some()) else {
            self.prev = None;
            return;
        };
        while self.stack.len() > k + 1 {
            self.abandon();
        }
        let handler = self.pop();
        self.prev = handler.and_then(|f| f.saved).flatten();
        self.after_handler = true;
    }
}
