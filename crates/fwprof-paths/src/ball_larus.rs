//! Ball–Larus path numbering (T. Ball and J. R. Larus, "Efficient Path
//! Profiling", MICRO-29, 1996, §3): every acyclic path of a function's
//! graph from its entry (or from a loop header, after a back edge) to its
//! exit (or to a back edge's source) gets a distinct number in
//! `0 .. total`, the sum of the values of its edges.
//!
//! The DAG: the blocks, a virtual ENTRY with an edge to block 0 and a
//! virtual EXIT; every edge of the graph except the cycle-breaking ones
//! (back edges, and the retreating edges of irreducible cycles, as Ball
//! and Larus break every cycle at a retreating edge of a depth-first
//! search); for each cycle-breaking edge `u → v` the dummy edges
//! `ENTRY → v` and `u → EXIT`; an edge `b → EXIT` from each block without
//! successors. `NumPaths(v)` is computed in reverse topological order; the
//! i-th successor edge of `v` (successors in block order, EXIT last) gets
//! `Val = Σ NumPaths` of the successors before it. Numbers are `u128`; a
//! function with more than `u128::MAX` paths is not numbered.
//!
//! Counting ([`PathCounter`]) follows the paper's instrumentation exactly:
//! `r = 0` at entry, `r += Val(e)` on an edge, at a cycle-breaking edge
//! `u → v` count `r + Val(u → EXIT)` and set `r = Val(ENTRY → v)`, at the
//! exit count `r + Val(b → EXIT)`.

use std::collections::HashMap;

use crate::cfg::Cfg;

/// A node of the numbering's DAG.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Node {
    /// The virtual entry.
    Entry,
    /// A block (index into [`Cfg::blocks`]).
    Block(usize),
    /// The virtual exit.
    Exit,
}

/// The Ball–Larus numbering of one function's graph.
#[derive(Clone, Debug)]
pub struct Numbering {
    /// Paths from ENTRY to EXIT: the path numbers are `0 .. total`.
    pub total: u128,
    /// Per block, paths from it to EXIT.
    pub num_paths: Vec<u128>,
    /// DAG successors with their values, per node (ENTRY, blocks, EXIT).
    succ: HashMap<Node, Vec<(Node, u128)>>,
    /// Graph edges that break a cycle (back and irreducible), by (from, to).
    breaking: HashMap<(usize, usize), ()>,
}

impl Numbering {
    /// Number the paths of `cfg`; `None` if there are more than
    /// `u128::MAX` of them.
    pub fn new(cfg: &Cfg) -> Option<Numbering> {
        let n = cfg.blocks.len();
        let mut breaking = HashMap::new();
        for &i in cfg.back_edges.iter().chain(&cfg.irreducible) {
            let e = cfg.edges[i];
            breaking.insert((e.from, e.to), ());
        }
        let mut succ: HashMap<Node, Vec<Node>> = HashMap::new();
        let mut add = |a: Node, b: Node| {
            let v = succ.entry(a).or_default();
            if !v.contains(&b) {
                v.push(b);
            }
        };
        add(Node::Entry, Node::Block(0));
        let mut has_out = vec![false; n];
        for e in &cfg.edges {
            has_out[e.from] = true;
            if breaking.contains_key(&(e.from, e.to)) {
                add(Node::Entry, Node::Block(e.to));
                add(Node::Block(e.from), Node::Exit);
            } else {
                add(Node::Block(e.from), Node::Block(e.to));
            }
        }
        for (b, &out) in has_out.iter().enumerate() {
            if !out {
                add(Node::Block(b), Node::Exit);
            }
        }
        for v in succ.values_mut() {
            v.sort();
        }
        // Reverse topological order by depth-first postorder from every
        // node (the DAG has no cycle: every cycle was broken).
        let mut order = Vec::with_capacity(n + 2);
        let mut seen: std::collections::HashSet<Node> = std::collections::HashSet::new();
        let roots = std::iter::once(Node::Entry).chain((0..n).map(Node::Block));
        for root in roots {
            if !seen.insert(root) {
                continue;
            }
            let mut stack = vec![(root, 0usize)];
            while let Some(top) = stack.last_mut() {
                let (v, k) = (top.0, top.1);
                let next = succ.get(&v).and_then(|s| s.get(k)).copied();
                top.1 += 1;
                match next {
                    Some(w) => {
                        if seen.insert(w) {
                            stack.push((w, 0));
                        }
                    }
                    None => {
                        order.push(v);
                        stack.pop();
                    }
                }
            }
        }
        // `order` is a postorder: successors first.
        let mut paths: HashMap<Node, u128> = HashMap::new();
        paths.insert(Node::Exit, 1);
        let mut valued: HashMap<Node, Vec<(Node, u128)>> = HashMap::new();
        for v in order {
            if v == Node::Exit {
                continue;
            }
            let mut sum: u128 = 0;
            let mut vals = Vec::new();
            for &w in succ.get(&v).map(Vec::as_slice).unwrap_or(&[]) {
                vals.push((w, sum));
                sum = sum.checked_add(*paths.get(&w).unwrap_or(&0))?;
            }
            paths.insert(v, sum);
            valued.insert(v, vals);
        }
        Some(Numbering {
            total: paths[&Node::Entry],
            num_paths: (0..n)
                .map(|b| paths.get(&Node::Block(b)).copied().unwrap_or(0))
                .collect(),
            succ: valued,
            breaking,
        })
    }

    /// Value of the DAG edge `a → b` (`None` if it is not one).
    pub fn val(&self, a: Node, b: Node) -> Option<u128> {
        self.succ
            .get(&a)?
            .iter()
            .find(|(w, _)| *w == b)
            .map(|&(_, v)| v)
    }

    /// Whether the graph edge `from → to` breaks a cycle (the counter
    /// counts a path there).
    pub fn is_breaking(&self, from: usize, to: usize) -> bool {
        self.breaking.contains_key(&(from, to))
    }

    /// The path numbered `number` as its DAG nodes from ENTRY to EXIT
    /// (the second node is where it starts: block 0, or a loop header
    /// after a back edge; the one before EXIT is where it ends); `None`
    /// if `number >= total`.
    pub fn path(&self, number: u128) -> Option<Vec<Node>> {
        if number >= self.total {
            return None;
        }
        let mut r = number;
        let mut v = Node::Entry;
        let mut nodes = vec![v];
        while v != Node::Exit {
            let succ = self.succ.get(&v)?;
            // The last successor whose value is at most r.
            let &(w, val) = succ.iter().rev().find(|&&(_, val)| val <= r)?;
            r -= val;
            v = w;
            nodes.push(v);
        }
        (r == 0).then_some(nodes)
    }
}

/// Counts the paths of one function's activations, as Ball–Larus
/// instrumentation would (see the module docs): feed it the entry, each
/// graph edge taken, and the exit.
#[derive(Clone, Debug, Default)]
pub struct PathCounter {
    /// Path number → times taken.
    pub counts: HashMap<u128, u64>,
}

/// One activation's state: the path register `r` and the current block.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Activation {
    /// The path register.
    pub r: u128,
    /// The block being executed.
    pub block: usize,
}

impl PathCounter {
    /// An activation starting at the function's entry (block 0).
    pub fn enter(&self, n: &Numbering) -> Activation {
        Activation {
            r: n.val(Node::Entry, Node::Block(0)).unwrap_or(0),
            block: 0,
        }
    }

    /// The activation takes the graph edge from its block to `to`. False
    /// if that is no edge of the numbering's graph (the activation is
    /// unchanged).
    pub fn edge(&mut self, n: &Numbering, a: &mut Activation, to: usize) -> bool {
        let from = a.block;
        if n.is_breaking(from, to) {
            let (Some(out), Some(back_in)) = (
                n.val(Node::Block(from), Node::Exit),
                n.val(Node::Entry, Node::Block(to)),
            ) else {
                return false;
            };
            *self.counts.entry(a.r + out).or_default() += 1;
            a.r = back_in;
        } else {
            let Some(v) = n.val(Node::Block(from), Node::Block(to)) else {
                return false;
            };
            a.r += v;
        }
        a.block = to;
        true
    }

    /// The activation leaves the function from its block (a return, a tail
    /// call, `mret`). False if that block has no edge to EXIT (the path is
    /// not counted).
    pub fn exit(&mut self, n: &Numbering, a: &Activation) -> bool {
        match n.val(Node::Block(a.block), Node::Exit) {
            Some(v) => {
                *self.counts.entry(a.r + v).or_default() += 1;
                true
            }
            None => false,
        }
    }
}
