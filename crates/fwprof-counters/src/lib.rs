//! The host-side methods of hardware-counter profiling, after the ARC
//! study (`../shared/seeds/000_*.txt`, §3; digest in
//! `../shared/RESEARCH.md`): a core has a few counters, each counting one
//! event, switched on and off by a debugger (or by code it injects), so a
//! profile of many functions takes several runs of the program.
//!
//! This crate decides *what to measure in which run*; it runs nothing.
//! The runs are made by whoever owns the target: `fwprof-record` on
//! fwprof's simulator (emulated counters), later a GDB remote link on a
//! real core. Two plans:
//!
//! * [`subsets`]: every function, `n` per run (§3.3, "per-function
//!   statistics for single-pass programs"): `ceil(functions / n)` runs.
//! * [`Descent`]: the call-graph descent (§3.5, §4.3.4). With M(f) the
//!   inclusive count of an event during f (a *monotonic* metric, §3.6),
//!   M(f) ≤ Σ_{p ∈ callers(f), p ≠ f} M(p): every outermost activation of
//!   f lies inside an activation of the caller that called it. To find
//!   every function whose M(f) is at or above a threshold, a function
//!   whose bound is below it needs no measurement. Breadth-first from the
//!   roots: measure the upper levels first, bound their callees, skip the
//!   cheap ones, and give counters left over in a run to functions whose
//!   bound is not known yet.
//!
//! The study's bound assumes a complete, acyclic call graph. Here:
//! * **recursion** (a strongly connected component of the call graph, one
//!   function calling itself included) is one node: a member's bound is
//!   the sum over the component's *outside* callers (a function never
//!   bounds itself). Where every direct caller of a member other than
//!   itself is decided, the direct sum (the study's formula) is used too
//!   and the smaller bound kept; both are upper bounds;
//! * **roots** (the program's entry, interrupt and exception handlers,
//!   any function entered without a call: [`GraphFunction::root`]) have
//!   no bound and are always measured;
//! * **indirect calls** are arcs like any other: the graph is the one
//!   observed (a first run that records every call, or an earlier
//!   profile), so an indirect call that happened is in it;
//! * a **skipped** caller contributes its bound (an upper bound of its
//!   M), a measured one its measurement.
#![deny(missing_docs)]

use petgraph::graph::{DiGraph, NodeIndex};
use serde::{Deserialize, Serialize};

#[cfg(test)]
mod tests;

/// A function of the call graph the descent works on.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct GraphFunction {
    /// Times it was entered (calls, tail calls, entries without a call).
    pub calls: u64,
    /// Entered at least once without a caller: the program's entry, an
    /// interrupt or exception handler, a signal handler, or a function
    /// whose caller is unknown. Such a function has no bound.
    pub root: bool,
}

/// A call arc: `caller` called `callee` (indexes into
/// [`CallGraph::functions`]) `calls` times.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CallArc {
    /// Calling function.
    pub caller: usize,
    /// Called function.
    pub callee: usize,
    /// Times (at least 1 for an arc that happened).
    pub calls: u64,
}

/// The observed call graph: functions and arcs. Functions with `calls ==
/// 0` never ran.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct CallGraph {
    /// The functions, by index.
    pub functions: Vec<GraphFunction>,
    /// The arcs (several arcs between one pair are allowed, e.g. one per
    /// call site).
    pub arcs: Vec<CallArc>,
}

/// What the descent decided for one function.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "decision", rename_all = "snake_case")]
pub enum Decision {
    /// Not decided yet.
    Pending,
    /// Never entered in the call graph: nothing to measure.
    NotCalled,
    /// Measured in run `run` (0-based among the descent's runs): `value`
    /// is M(f), the inclusive count; `bound` is the bound it had when it
    /// was chosen (`None` for a root, or when chosen before its bound was
    /// known, on a spare counter).
    Measured {
        /// Run index.
        run: usize,
        /// M(f).
        value: u64,
        /// Its bound at the time, if known.
        bound: Option<u64>,
    },
    /// Not measured: its bound is below the threshold, so M(f) is too.
    Skipped {
        /// The bound (an upper limit of M(f)).
        bound: u64,
    },
}

/// The strongly connected component of each function of `graph` (an
/// index per function; equal indexes, one component). Components are
/// numbered callees first: an arc between two components goes from a
/// higher number to a lower one (Tarjan's order, reversed topological).
pub fn components(graph: &CallGraph) -> Vec<usize> {
    let n = graph.functions.len();
    let mut g: DiGraph<usize, ()> = DiGraph::with_capacity(n, graph.arcs.len());
    let nodes: Vec<NodeIndex> = (0..n).map(|i| g.add_node(i)).collect();
    for a in graph.arcs.iter().filter(|a| a.calls > 0) {
        if a.caller < n && a.callee < n {
            g.update_edge(nodes[a.caller], nodes[a.callee], ());
        }
    }
    let mut component = vec![0; n];
    for (k, scc) in petgraph::algo::tarjan_scc(&g).iter().enumerate() {
        for &node in scc {
            component[g[node]] = k;
        }
    }
    component
}

/// Per function, its calls from other components (the entries of its
/// outermost activations, which M(f) counts); a function with none keeps
/// its own call count.
fn outside_calls(graph: &CallGraph, component: &[usize]) -> Vec<u64> {
    let n = graph.functions.len();
    let mut calls = vec![0u64; n];
    for a in graph.arcs.iter().filter(|a| a.calls > 0) {
        if a.caller < n && a.callee < n && component[a.caller] != component[a.callee] {
            calls[a.callee] = calls[a.callee].saturating_add(a.calls);
        }
    }
    for (c, f) in calls.iter_mut().zip(&graph.functions) {
        if *c == 0 {
            *c = f.calls;
        }
    }
    calls
}

/// The share of callee `c`'s inclusive count one arc carries, on gprof's
/// assumption that every call of `c` costs the same: `value × calls /
/// callee_calls` (0 when `callee_calls` is 0), where `callee_calls`
/// counts the calls from outside `c`'s recursive component (gprof too
/// leaves recursive calls out).
pub fn arc_share(value: u64, arc_calls: u64, callee_calls: u64) -> u64 {
    if callee_calls == 0 {
        0
    } else {
        (u128::from(value) * u128::from(arc_calls.min(callee_calls)) / u128::from(callee_calls))
            as u64
    }
}

/// Self counts from inclusive ones (counters in inclusive mode measure
/// M(f) only): self(f) = M(f) − Σ over f's arcs to other components of
/// the callee's share ([`arc_share`]), at least 0. A callee without a
/// value (skipped, or not measured) counts 0, so its caller's self is an
/// upper estimate. Calls inside a recursive component are part of the
/// caller's M(f) and are not taken off.
pub fn self_from_inclusive(graph: &CallGraph, inclusive: &[Option<u64>]) -> Vec<Option<u64>> {
    let component = components(graph);
    let calls = outside_calls(graph, &component);
    let mut out: Vec<Option<u64>> = inclusive.to_vec();
    for a in graph.arcs.iter().filter(|a| a.calls > 0) {
        if a.caller >= out.len() || a.callee >= out.len() {
            continue;
        }
        if component[a.caller] == component[a.callee] {
            continue;
        }
        let share = arc_share(inclusive[a.callee].unwrap_or(0), a.calls, calls[a.callee]);
        if let Some(v) = out[a.caller].as_mut() {
            *v = v.saturating_sub(share);
        }
    }
    out
}

/// Inclusive counts from self ones (counters in exclusive mode measure
/// each function's own range only), as gprof propagates time to callers:
/// callees first, M(f) = self(f) + Σ over f's arcs to other components
/// of the callee's share ([`arc_share`]). Inside a recursive component
/// each member keeps its own self plus its arcs out of the component.
pub fn inclusive_from_self(graph: &CallGraph, self_counts: &[u64]) -> Vec<u64> {
    let component = components(graph);
    let calls = outside_calls(graph, &component);
    let n = self_counts.len().min(graph.functions.len());
    let mut order: Vec<usize> = (0..n).collect();
    // Callees' components have lower numbers: do them first.
    order.sort_by_key(|&f| component[f]);
    let mut incl: Vec<u64> = self_counts[..n].to_vec();
    for &f in &order {
        let mut v = self_counts[f];
        for a in graph.arcs.iter().filter(|a| a.caller == f && a.calls > 0) {
            if a.callee < n && component[a.callee] != component[f] {
                v = v.saturating_add(arc_share(incl[a.callee], a.calls, calls[a.callee]));
            }
        }
        incl[f] = v;
    }
    incl
}

/// Splits `functions` into runs of at most `n` each (`n` ≥ 1), in order:
/// the study's per-function statistics (§3.3) measure each subset in one
/// complete run.
pub fn subsets(functions: &[usize], n: usize) -> Vec<Vec<usize>> {
    functions.chunks(n.max(1)).map(<[usize]>::to_vec).collect()
}

/// The call-graph descent as a state machine: ask [`Descent::next_run`]
/// for the functions to measure in the next run, make the run, hand back
/// the values with [`Descent::record`], repeat until `next_run` gives
/// `None`. Then every function is [`Decision::Measured`],
/// [`Decision::Skipped`] or [`Decision::NotCalled`], and every function
/// with M(f) at or above the threshold is measured.
#[derive(Clone, Debug)]
pub struct Descent {
    graph: CallGraph,
    /// Per function: its component, and the component's outside callers.
    component: Vec<usize>,
    outside_callers: Vec<Vec<usize>>,
    /// Per function: its direct callers other than itself (deduplicated).
    direct_callers: Vec<Vec<usize>>,
    /// Per function: breadth-first level from the roots (condensed graph),
    /// `usize::MAX` if unreachable from a root.
    level: Vec<usize>,
    /// M(f) at or above this is significant: `threshold` = share × total.
    threshold: f64,
    counters: usize,
    decisions: Vec<Decision>,
    runs: usize,
    /// Functions given to the run being made.
    outstanding: Vec<(usize, Option<u64>)>,
}

impl Descent {
    /// A descent over `graph` looking for every function whose M(f) is at
    /// least `share` (a fraction, e.g. 0.05 for 5%) of `total` (the
    /// whole run's count of the same event), with `counters` functions
    /// measured per run (at least 1).
    pub fn new(graph: CallGraph, share: f64, total: u64, counters: usize) -> Descent {
        let n = graph.functions.len();
        let mut direct_callers = vec![Vec::new(); n];
        for a in graph.arcs.iter().filter(|a| a.calls > 0) {
            if a.caller < n && a.callee < n && a.caller != a.callee {
                direct_callers[a.callee].push(a.caller);
            }
        }
        for c in &mut direct_callers {
            c.sort_unstable();
            c.dedup();
        }
        let component = components(&graph);
        let mut outside_callers = vec![Vec::new(); n];
        for (f, callers) in direct_callers.iter().enumerate() {
            for &p in callers {
                if component[p] != component[f] {
                    // Every member of f's component gets p as an outside caller.
                    outside_callers[component[f]].push(p);
                }
            }
        }
        for c in &mut outside_callers {
            c.sort_unstable();
            c.dedup();
        }
        let outside_callers = (0..n)
            .map(|f| outside_callers[component[f]].clone())
            .collect::<Vec<_>>();
        let mut decisions = vec![Decision::Pending; n];
        for (f, d) in decisions.iter_mut().enumerate() {
            if graph.functions[f].calls == 0 {
                *d = Decision::NotCalled;
            }
        }
        // Levels: breadth-first over the condensed graph from the
        // components that hold a root or have no outside caller.
        let mut level = vec![usize::MAX; n];
        let mut frontier: Vec<usize> = (0..n)
            .filter(|&f| {
                graph.functions[f].calls > 0
                    && (graph.functions[f].root || outside_callers[f].is_empty())
            })
            .collect();
        let mut depth = 0;
        while !frontier.is_empty() {
            let mut next = Vec::new();
            for &f in &frontier {
                if level[f] != usize::MAX {
                    continue;
                }
                level[f] = depth;
                for a in graph.arcs.iter().filter(|a| a.caller == f && a.calls > 0) {
                    if a.callee < n && level[a.callee] == usize::MAX {
                        next.push(a.callee);
                    }
                }
            }
            frontier = next;
            depth += 1;
        }
        Descent {
            component,
            outside_callers,
            direct_callers,
            level,
            threshold: share * total as f64,
            counters: counters.max(1),
            decisions,
            runs: 0,
            outstanding: Vec::new(),
            graph,
        }
    }

    /// Runs handed out so far.
    pub fn runs(&self) -> usize {
        self.runs
    }

    /// The decision for each function, by index.
    pub fn decisions(&self) -> &[Decision] {
        &self.decisions
    }

    /// True if the function has no bound: a root, or in a component no
    /// other function calls.
    fn unbounded(&self, f: usize) -> bool {
        self.graph.functions[f].root || self.outside_callers[f].is_empty()
    }

    /// The value a decided caller contributes to a bound: its measurement,
    /// or its own bound if it was skipped; `None` if undecided.
    fn contribution(&self, p: usize) -> Option<u64> {
        match self.decisions[p] {
            Decision::Measured { value, .. } => Some(value),
            Decision::Skipped { bound } => Some(bound),
            Decision::NotCalled => Some(0),
            Decision::Pending => None,
        }
    }

    /// The bound of `f` when every caller it needs is decided.
    pub fn bound(&self, f: usize) -> Option<u64> {
        if self.unbounded(f) {
            return None;
        }
        let sum = |callers: &[usize]| -> Option<u64> {
            callers
                .iter()
                .try_fold(0u64, |s, &p| Some(s.saturating_add(self.contribution(p)?)))
        };
        let outside = sum(&self.outside_callers[f]);
        // Inside a component the direct callers include other members; the
        // direct sum is a bound as well when they are all decided.
        let direct = if self.direct_callers[f]
            .iter()
            .all(|&p| self.component[p] != self.component[f])
        {
            None
        } else {
            sum(&self.direct_callers[f])
        };
        match (outside, direct) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        }
    }

    /// Skip every pending function whose bound is known and below the
    /// threshold, until nothing changes (a skip can decide a callee's bound).
    fn settle(&mut self) {
        loop {
            let mut changed = false;
            for f in 0..self.decisions.len() {
                if self.decisions[f] != Decision::Pending {
                    continue;
                }
                if let Some(b) = self.bound(f) {
                    if (b as f64) < self.threshold {
                        self.decisions[f] = Decision::Skipped { bound: b };
                        changed = true;
                    }
                }
            }
            if !changed {
                return;
            }
        }
    }

    /// The functions to measure in the next run (at most `counters`,
    /// sorted by index), or `None` when every function is decided. Roots
    /// and functions whose bound reaches the threshold come first (upper
    /// levels first); counters left over go to pending functions whose
    /// bound is not known yet, shallowest first.
    ///
    /// # Panics
    /// If the previous run's values were not recorded.
    pub fn next_run(&mut self) -> Option<Vec<usize>> {
        assert!(
            self.outstanding.is_empty(),
            "Descent::record the previous run first"
        );
        self.settle();
        let pending: Vec<usize> = (0..self.decisions.len())
            .filter(|&f| self.decisions[f] == Decision::Pending)
            .collect();
        if pending.is_empty() {
            return None;
        }
        // (class, level, more calls first, index, bound): class 0 = must
        // be measured now (root, or bound at or above the threshold), 1 =
        // bound not known yet.
        type Rank = (u8, usize, std::cmp::Reverse<u64>, usize, Option<u64>);
        let mut ranked: Vec<Rank> = pending
            .iter()
            .map(|&f| {
                let bound = self.bound(f);
                let class = if self.unbounded(f) || bound.is_some() {
                    0
                } else {
                    1
                };
                (
                    class,
                    self.level[f],
                    std::cmp::Reverse(self.graph.functions[f].calls),
                    f,
                    bound,
                )
            })
            .collect();
        ranked.sort_unstable();
        let mut chosen: Vec<(usize, Option<u64>)> = ranked
            .iter()
            .take(self.counters)
            .map(|&(_, _, _, f, b)| (f, b))
            .collect();
        chosen.sort_unstable();
        self.outstanding = chosen.clone();
        Some(chosen.into_iter().map(|(f, _)| f).collect())
    }

    /// The values M(f) of the run [`Descent::next_run`] handed out, in its
    /// order (functions missing from `values` are taken as 0: a measured
    /// function that did not run in this run).
    pub fn record(&mut self, values: &[(usize, u64)]) {
        let run = self.runs;
        for (f, bound) in std::mem::take(&mut self.outstanding) {
            let value = values.iter().find(|&&(g, _)| g == f).map_or(0, |&(_, v)| v);
            self.decisions[f] = Decision::Measured { run, value, bound };
        }
        self.runs += 1;
    }

    /// Indexes of the measured functions whose M(f) is at or above the
    /// threshold, sorted.
    pub fn significant(&self) -> Vec<usize> {
        (0..self.decisions.len())
            .filter(|&f| {
                matches!(self.decisions[f], Decision::Measured { value, .. }
                    if value as f64 >= self.threshold)
            })
            .collect()
    }
}
