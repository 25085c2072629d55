//! A function's control-flow graph, recovered from its machine code.
//!
//! Blocks: a block starts at the function's entry, at the target of a
//! branch or jump inside the function, at an observed indirect target, and
//! after any instruction that ends one: a conditional branch, a jump
//! (`jal x0`, `jalr x0`), a return, `mret`/`sret`, or an instruction that
//! cannot be decoded. Calls do not end blocks (the graph is
//! intraprocedural, as Ball–Larus's): a call's block goes on at its return
//! address. Jump kinds follow `fwprof_sim::jump_kind` (Unprivileged ISA
//! 20191213, §2.5, Table 2.1).
//!
//! Edges: taken and fall-through of a branch, the target of a direct jump
//! inside the function, fall-through into the next block, and the observed
//! targets of an indirect jump (marked [`EdgeKind::Indirect`]). A branch or
//! jump out of the function (a tail call) and a return leave the graph.
//!
//! Analyses: reverse postorder from the entry, dominators (Cooper, Harvey
//! and Kennedy's algorithm, `petgraph::algo::dominators::simple_fast`), back
//! edges (to a block that dominates the source), natural loops per header,
//! and the retreating edges of irreducible cycles (a retreating edge of the
//! depth-first search whose target does not dominate its source).

use std::collections::{BTreeMap, BTreeSet};

use fwprof_isa::{decode, inst_len, Inst, Op, Xlen};
use fwprof_sim::{jump_kind, JumpKind};
use fwprof_symbols::{Function, Program};
use petgraph::algo::dominators::simple_fast;
use petgraph::graph::{DiGraph, NodeIndex};

/// How a block ends.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Term {
    /// It runs into the next block (whose start is a leader).
    Fall,
    /// A conditional branch: taken and fall-through successors (a target
    /// outside the function leaves the graph).
    Branch,
    /// A direct jump (`jal x0`, or `jal` linking another register) inside
    /// the function.
    Jump,
    /// A jump out of the function (`jal x0` to another function: a tail
    /// call); no successor.
    TailCall,
    /// An indirect jump (`jalr x0, rs1`, rs1 not a link register: a switch
    /// table or a computed tail call); successors are the observed targets
    /// inside the function.
    Indirect,
    /// A return (`jalr x0, ra`/`t0`).
    Return,
    /// `mret` or `sret`.
    Xret,
    /// The function's end, or an instruction that cannot be decoded (data
    /// in `.text`): no successor.
    End,
}

/// One basic block.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Block {
    /// First instruction's address.
    pub start: u64,
    /// One past the last instruction's last byte.
    pub end: u64,
    /// Address of the last instruction.
    pub last: u64,
    /// Instructions in the block.
    pub insts: u32,
    /// How it ends.
    pub term: Term,
    /// Reverse-postorder number from the entry (0 = entry), `None` if no
    /// path of the graph reaches it (only through an indirect jump not
    /// seen yet, or after a call that never returns).
    pub rpo: Option<u32>,
}

/// Why an edge exists.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum EdgeKind {
    /// Straight on to the next block (a branch not taken, or a block cut
    /// by a leader).
    Fall,
    /// A conditional branch taken.
    Taken,
    /// A direct jump.
    Jump,
    /// An indirect jump's target, observed at run time.
    Indirect,
}

/// An edge between two blocks (indexes into [`Cfg::blocks`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct Edge {
    /// Source block.
    pub from: usize,
    /// Target block.
    pub to: usize,
    /// Why.
    pub kind: EdgeKind,
}

/// A natural loop: its header and every block of its body (header
/// included), the union over the back edges into the header.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Loop {
    /// The header block.
    pub header: usize,
    /// The body's blocks, sorted.
    pub body: Vec<usize>,
}

/// A function's control-flow graph (see the module docs).
#[derive(Clone, Debug)]
pub struct Cfg {
    /// The function's name.
    pub name: String,
    /// First address.
    pub start: u64,
    /// One past the last address.
    pub end: u64,
    /// Blocks in address order; block 0 is the entry.
    pub blocks: Vec<Block>,
    /// Edges, sorted by source, then kind, then target; no duplicates.
    pub edges: Vec<Edge>,
    /// Indexes into `edges` of the back edges (target dominates source).
    pub back_edges: Vec<usize>,
    /// Indexes into `edges` of retreating edges that are not back edges
    /// (a cycle entered at several blocks: irreducible control flow).
    pub irreducible: Vec<usize>,
    /// Natural loops, by header address.
    pub loops: Vec<Loop>,
    /// The decoded instructions, by address.
    insts: BTreeMap<u64, Inst>,
    /// Observed indirect targets: (address of the indirect jump, target).
    observed: BTreeSet<(u64, u64)>,
}

impl Cfg {
    /// The graph of function `f` of `program` (its bytes from the ELF's
    /// sections; XLEN from the ELF class). A function without bytes in
    /// the file (`.bss`-like, or an unknown range) gives one empty `End`
    /// block.
    pub fn build(program: &Program, f: &Function) -> Cfg {
        let xlen = if program.class().xlen() == 64 {
            Xlen::Rv64
        } else {
            Xlen::Rv32
        };
        let mut insts = BTreeMap::new();
        let mut pc = f.start;
        while pc < f.end {
            let Some(h) = program.bytes_at(pc, 2) else {
                break;
            };
            let len = u64::from(inst_len(u16::from_le_bytes([h[0], h[1]])));
            if pc + len > f.end {
                break;
            }
            let raw = match len {
                2 => u32::from(u16::from_le_bytes([h[0], h[1]])),
                4 => match program.bytes_at(pc, 4) {
                    Some(b) => u32::from_le_bytes([b[0], b[1], b[2], b[3]]),
                    None => break,
                },
                _ => break,
            };
            insts.insert(pc, decode(raw, xlen));
            pc += len;
        }
        Cfg::from_insts(&f.name, f.start, f.end, insts)
    }

    /// The graph of decoded instructions `insts` (address → instruction)
    /// of a function `[start, end)`.
    pub fn from_insts(name: &str, start: u64, end: u64, insts: BTreeMap<u64, Inst>) -> Cfg {
        let mut cfg = Cfg {
            name: name.to_string(),
            start,
            end,
            blocks: Vec::new(),
            edges: Vec::new(),
            back_edges: Vec::new(),
            irreducible: Vec::new(),
            loops: Vec::new(),
            insts,
            observed: BTreeSet::new(),
        };
        cfg.rebuild();
        cfg
    }

    /// An indirect jump at `jump` went to `target` (both addresses): add
    /// the edge (splitting the block `target` falls in) and analyse again.
    /// False if `jump` is not one of this function's indirect jumps or
    /// `target` is not one of its instruction addresses (a computed tail
    /// call leaves the graph), or the edge was known.
    pub fn add_observed(&mut self, jump: u64, target: u64) -> bool {
        let is_indirect = self
            .insts
            .get(&jump)
            .is_some_and(|i| classify(i).0 == Term::Indirect);
        if !is_indirect || !self.insts.contains_key(&target) {
            return false;
        }
        if !self.observed.insert((jump, target)) {
            return false;
        }
        self.rebuild();
        true
    }

    /// The block holding address `addr`.
    pub fn block_at(&self, addr: u64) -> Option<usize> {
        let i = self.blocks.partition_point(|b| b.start <= addr);
        (i > 0 && addr < self.blocks[i - 1].end).then(|| i - 1)
    }

    /// The distinct successors of block `b`.
    pub fn successors(&self, b: usize) -> Vec<usize> {
        let mut s: Vec<usize> = self
            .edges
            .iter()
            .filter(|e| e.from == b)
            .map(|e| e.to)
            .collect();
        s.sort_unstable();
        s.dedup();
        s
    }

    /// The distinct predecessors of block `b`.
    pub fn predecessors(&self, b: usize) -> Vec<usize> {
        let mut p: Vec<usize> = self
            .edges
            .iter()
            .filter(|e| e.to == b)
            .map(|e| e.from)
            .collect();
        p.sort_unstable();
        p.dedup();
        p
    }

    /// A divergence node: several successors.
    pub fn is_divergence(&self, b: usize) -> bool {
        self.successors(b).len() > 1
    }

    /// A convergence node: several predecessors (the entry counts the
    /// function's callers as one more).
    pub fn is_convergence(&self, b: usize) -> bool {
        self.predecessors(b).len() + usize::from(b == 0) > 1
    }

    /// Whether block `b`'s indirect jump has successors only from run
    /// time (always, for an [`Term::Indirect`] block with any).
    pub fn has_observed_successors(&self, b: usize) -> bool {
        self.edges
            .iter()
            .any(|e| e.from == b && e.kind == EdgeKind::Indirect)
    }

    /// Whether the transfer from the instruction at `from` to address `to`
    /// is an edge of the graph, or stays inside a block (`to` the next
    /// instruction of the same block).
    pub fn has_transfer(&self, from: u64, to: u64) -> bool {
        let (Some(a), Some(b)) = (self.block_at(from), self.block_at(to)) else {
            return false;
        };
        if a == b && self.blocks[a].last != from {
            return self.insts.range(from + 1..).next().map(|(&p, _)| p) == Some(to);
        }
        self.blocks[b].start == to && self.edges.iter().any(|e| e.from == a && e.to == b)
    }

    /// Recompute blocks, edges and analyses from the instructions and the
    /// observed targets.
    fn rebuild(&mut self) {
        let in_fn = |a: u64| self.insts.contains_key(&a);
        let mut leaders: BTreeSet<u64> = BTreeSet::new();
        if let Some((&first, _)) = self.insts.iter().next() {
            leaders.insert(first);
        }
        leaders.insert(self.start);
        let mut prev_end: Option<u64> = None;
        for (&pc, inst) in &self.insts {
            // A gap (an undecodable stretch) starts a new block.
            if prev_end.is_some_and(|e| e != pc) {
                leaders.insert(pc);
            }
            let next = pc + u64::from(inst.len);
            prev_end = Some(next);
            let (term, target) = classify(inst);
            let target = target.map(|off| pc.wrapping_add(off as u64));
            match term {
                Term::Branch | Term::Jump => {
                    if let Some(t) = target.filter(|&t| in_fn(t)) {
                        leaders.insert(t);
                    }
                    leaders.insert(next);
                }
                Term::Fall => {}
                _ => {
                    leaders.insert(next);
                }
            }
        }
        for &(_, t) in &self.observed {
            leaders.insert(t);
        }
        // Blocks.
        let mut blocks: Vec<Block> = Vec::new();
        let mut cur: Option<Block> = None;
        for (&pc, inst) in &self.insts {
            if leaders.contains(&pc) {
                if let Some(b) = cur.take() {
                    blocks.push(b);
                }
            }
            let b = cur.get_or_insert(Block {
                start: pc,
                end: pc,
                last: pc,
                insts: 0,
                term: Term::Fall,
                rpo: None,
            });
            b.end = pc + u64::from(inst.len);
            b.last = pc;
            b.insts += 1;
            let (term, target) = classify(inst);
            b.term = match term {
                Term::Jump if !target.is_some_and(|off| in_fn(pc.wrapping_add(off as u64))) => {
                    Term::TailCall
                }
                t => t,
            };
            if !matches!(b.term, Term::Fall) {
                blocks.push(cur.take().unwrap());
            }
        }
        if let Some(b) = cur.take() {
            blocks.push(b);
        }
        // A block that falls into nothing (the function's end, a gap).
        let starts: BTreeSet<u64> = blocks.iter().map(|b| b.start).collect();
        for b in &mut blocks {
            if b.term == Term::Fall && !starts.contains(&b.end) {
                b.term = Term::End;
            }
        }
        if blocks.is_empty() {
            blocks.push(Block {
                start: self.start,
                end: self.start,
                last: self.start,
                insts: 0,
                term: Term::End,
                rpo: None,
            });
        }
        self.blocks = blocks;
        // Edges.
        let mut edges = BTreeSet::new();
        for (i, b) in self.blocks.iter().enumerate() {
            let at = |a: u64| {
                let j = self.blocks.partition_point(|x| x.start <= a);
                (j > 0 && self.blocks[j - 1].start == a).then(|| j - 1)
            };
            let inst = self.insts.get(&b.last);
            let target = inst
                .and_then(|i| classify(i).1)
                .map(|off| b.last.wrapping_add(off as u64));
            match b.term {
                Term::Fall => {
                    if let Some(j) = at(b.end) {
                        edges.insert((i, EdgeKind::Fall, j));
                    }
                }
                Term::Branch => {
                    if let Some(j) = at(b.end) {
                        edges.insert((i, EdgeKind::Fall, j));
                    }
                    if let Some(j) = target.and_then(at) {
                        edges.insert((i, EdgeKind::Taken, j));
                    }
                }
                Term::Jump => {
                    if let Some(j) = target.and_then(at) {
                        edges.insert((i, EdgeKind::Jump, j));
                    }
                }
                Term::Indirect => {
                    for &(_, t) in self.observed.range((b.last, 0)..=(b.last, u64::MAX)) {
                        if let Some(j) = at(t) {
                            edges.insert((i, EdgeKind::Indirect, j));
                        }
                    }
                }
                Term::TailCall | Term::Return | Term::Xret | Term::End => {}
            }
        }
        self.edges = edges
            .into_iter()
            .map(|(from, kind, to)| Edge { from, to, kind })
            .collect();
        self.analyse();
    }

    /// Reverse postorder, dominators, back edges, irreducible edges, loops.
    fn analyse(&mut self) {
        let n = self.blocks.len();
        let mut succ: Vec<Vec<usize>> = vec![Vec::new(); n];
        for e in &self.edges {
            succ[e.from].push(e.to);
        }
        // Iterative depth-first search from the entry: postorder, and the
        // retreating edges (to a block still on the stack).
        let mut state = vec![0u8; n]; // 0 new, 1 on stack, 2 done
        let mut post = Vec::with_capacity(n);
        let mut retreating = BTreeSet::new();
        let mut stack: Vec<(usize, usize)> = vec![(0, 0)];
        state[0] = 1;
        while let Some(top) = stack.last_mut() {
            let b = top.0;
            if top.1 < succ[b].len() {
                let s = succ[b][top.1];
                top.1 += 1;
                match state[s] {
                    0 => {
                        state[s] = 1;
                        stack.push((s, 0));
                    }
                    1 => {
                        retreating.insert((b, s));
                    }
                    _ => {}
                }
            } else {
                state[b] = 2;
                post.push(b);
                stack.pop();
            }
        }
        for b in &mut self.blocks {
            b.rpo = None;
        }
        for (r, &b) in post.iter().rev().enumerate() {
            self.blocks[b].rpo = Some(r as u32);
        }
        // Dominators over the reachable graph.
        let mut g: DiGraph<(), ()> = DiGraph::with_capacity(n, self.edges.len());
        for _ in 0..n {
            g.add_node(());
        }
        for e in &self.edges {
            g.add_edge(NodeIndex::new(e.from), NodeIndex::new(e.to), ());
        }
        let dom = simple_fast(&g, NodeIndex::new(0));
        let dominates = |a: usize, b: usize| {
            dom.dominators(NodeIndex::new(b))
                .is_some_and(|mut it| it.any(|d| d.index() == a))
        };
        self.back_edges.clear();
        self.irreducible.clear();
        for (i, e) in self.edges.iter().enumerate() {
            if self.blocks[e.from].rpo.is_none() {
                continue;
            }
            if dominates(e.to, e.from) {
                self.back_edges.push(i);
            } else if retreating.contains(&(e.from, e.to)) {
                self.irreducible.push(i);
            }
        }
        // Natural loops: the blocks that reach a back edge's source
        // without passing its header.
        let mut pred: Vec<Vec<usize>> = vec![Vec::new(); n];
        for e in &self.edges {
            pred[e.to].push(e.from);
        }
        let mut loops: BTreeMap<usize, BTreeSet<usize>> = BTreeMap::new();
        for &i in &self.back_edges {
            let Edge {
                from, to: header, ..
            } = self.edges[i];
            let body = loops.entry(header).or_default();
            body.insert(header);
            let mut work = vec![from];
            while let Some(b) = work.pop() {
                if body.insert(b) {
                    work.extend(pred[b].iter().copied());
                }
            }
        }
        self.loops = loops
            .into_iter()
            .map(|(header, body)| Loop {
                header,
                body: body.into_iter().collect(),
            })
            .collect();
    }
}

/// How instruction `inst` ends a block, and its pc-relative target.
fn classify(inst: &Inst) -> (Term, Option<i64>) {
    match inst.op {
        Op::Beq | Op::Bne | Op::Blt | Op::Bge | Op::Bltu | Op::Bgeu => {
            (Term::Branch, Some(i64::from(inst.imm)))
        }
        Op::Jal => match jump_kind(inst) {
            Some(JumpKind::Call) => (Term::Fall, None),
            _ => (Term::Jump, Some(i64::from(inst.imm))),
        },
        Op::Jalr => match jump_kind(inst) {
            Some(JumpKind::Call) | Some(JumpKind::CallReturn) | Some(JumpKind::LinkOther) => {
                (Term::Fall, None)
            }
            Some(JumpKind::Return) => (Term::Return, None),
            _ => (Term::Indirect, None),
        },
        Op::Mret | Op::Sret => (Term::Xret, None),
        Op::Illegal => (Term::End, None),
        _ => (Term::Fall, None),
    }
}

/// The graph of every function of `program` that has code in the file
/// (unknown ranges left out), in address order.
pub fn cfgs(program: &Program) -> Vec<Cfg> {
    program
        .functions()
        .iter()
        .filter(|(_, f)| !f.unknown)
        .map(|(_, f)| Cfg::build(program, f))
        .collect()
}
