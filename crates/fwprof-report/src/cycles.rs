//! Recursion cycles of the call graph: strongly connected components found
//! with Tarjan's algorithm (R. Tarjan, "Depth-first search and linear graph
//! algorithms", SIAM J. Comput. 1972), iterative so deep graphs cannot
//! overflow the stack.

use fwprof_profile::{FunctionId, Profile};

use crate::cost;

/// The cycles of a profile's call graph, numbered as gprof numbers them in
/// its output (`<cycle 1>`, `<cycle 2>` ...).
///
/// A cycle is a strongly connected component with two or more functions;
/// a function that only calls itself is direct recursion, not a cycle.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Cycles {
    /// Cycle number (1-based) of each function by [`FunctionId`] index; 0
    /// for functions in no cycle.
    pub of: Vec<u32>,
    /// Members of cycle `n` at index `n - 1`, sorted by id.
    pub members: Vec<Vec<FunctionId>>,
}

impl Cycles {
    /// The cycle number of `f`, if it is in a cycle.
    pub fn cycle_of(&self, f: FunctionId) -> Option<u32> {
        self.of.get(f.index()).copied().filter(|&c| c != 0)
    }
}

/// Finds the cycles of `profile`'s call graph (spontaneous arcs ignored).
/// Cycles are numbered by decreasing largest member inclusive cost for
/// event `event`, ties broken by smallest member id. Cost: O(functions + arcs).
pub fn find_cycles(profile: &Profile, event: usize) -> Cycles {
    let n = profile.functions.len();
    let mut adj: Vec<Vec<usize>> = vec![Vec::new(); n];
    for a in &profile.arcs {
        if let Some(c) = a.caller {
            if c.index() < n && a.callee.index() < n {
                adj[c.index()].push(a.callee.index());
            }
        }
    }
    for v in &mut adj {
        v.sort_unstable();
        v.dedup();
    }

    const UNVISITED: usize = usize::MAX;
    let mut index = vec![UNVISITED; n];
    let mut low = vec![0usize; n];
    let mut on_stack = vec![false; n];
    let mut stack = Vec::new();
    let mut next = 0usize;
    let mut sccs: Vec<Vec<FunctionId>> = Vec::new();
    for root in 0..n {
        if index[root] != UNVISITED {
            continue;
        }
        let mut call: Vec<(usize, usize)> = vec![(root, 0)];
        index[root] = next;
        low[root] = next;
        next += 1;
        stack.push(root);
        on_stack[root] = true;
        while let Some(top) = call.last_mut() {
            let (u, pos) = (top.0, top.1);
            if pos < adj[u].len() {
                top.1 += 1;
                let w = adj[u][pos];
                if index[w] == UNVISITED {
                    index[w] = next;
                    low[w] = next;
                    next += 1;
                    stack.push(w);
                    on_stack[w] = true;
                    call.push((w, 0));
                } else if on_stack[w] {
                    low[u] = low[u].min(index[w]);
                }
            } else {
                call.pop();
                if let Some(&(p, _)) = call.last() {
                    low[p] = low[p].min(low[u]);
                }
                if low[u] == index[u] {
                    let mut scc = Vec::new();
                    while let Some(w) = stack.pop() {
                        on_stack[w] = false;
                        scc.push(FunctionId(w as u32));
                        if w == u {
                            break;
                        }
                    }
                    if scc.len() > 1 {
                        scc.sort_unstable();
                        sccs.push(scc);
                    }
                }
            }
        }
    }
    let hottest = |scc: &Vec<FunctionId>| {
        scc.iter()
            .map(|f| cost(&profile.functions[f.index()].inclusive, event))
            .max()
            .unwrap_or(0)
    };
    sccs.sort_by(|a, b| hottest(b).cmp(&hottest(a)).then(a[0].cmp(&b[0])));
    let mut of = vec![0u32; n];
    for (i, scc) in sccs.iter().enumerate() {
        for f in scc {
            of[f.index()] = i as u32 + 1;
        }
    }
    Cycles { of, members: sccs }
}
