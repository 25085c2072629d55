//! `fwprof report --privilege M|S|U`: the profile restricted to the costs
//! incurred at one privilege level, from its `privilege` section.
//!
//! Definition (also in `docs/traps.md`): an instruction's cost belongs
//! to the level the hart ran it at. In the restricted profile
//! * the totals are the level's totals;
//! * each calling context's self cost is its self cost at the level, and a
//!   function's self cost the sum over its contexts;
//! * a function's inclusive cost is the level's cost of the subtrees of
//!   its outermost contexts (the calling-context tree, as the unfiltered
//!   inclusive cost counts recursion once and leaves trap contexts out);
//! * the call graph has one arc per caller → callee pair (call sites
//!   merged, `tail` only if every merged arc was a tail call), with the
//!   level's cost of the callee's subtrees under that caller; arcs and
//!   functions with no cost at the level are left out (their `calls` set
//!   to 0, so the flat profile does not list them);
//! * per-address costs are kept only for functions whose whole cost
//!   was at the level (annotate cannot split an address by level);
//! * the trap table and the address-space table (whose costs span every
//!   level) are left out.

use std::collections::HashMap;

use fwprof_profile::{AddressCosts, Arc, FunctionId, Level, PrivilegeSection, Profile};

/// Why a profile cannot be restricted to a level.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum PrivilegeError {
    /// The profile has no `privilege` section (recorded before fwprof
    /// split costs by privilege, or by a method that does not).
    NoSection,
    /// The profile has no calling-context tree to split inclusive costs by.
    NoContexts,
}

impl std::fmt::Display for PrivilegeError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            PrivilegeError::NoSection => {
                "the profile has no costs per privilege level (recorded before fwprof split them)"
            }
            PrivilegeError::NoContexts => {
                "the profile has no calling-context tree to split its costs by privilege level"
            }
        })
    }
}

impl std::error::Error for PrivilegeError {}

/// Per context, whether it is the outermost of its function on its path
/// from the root, and the outermost of its (caller function, function)
/// pair: one depth-first walk of the tree.
fn outermost(profile: &Profile) -> (Vec<bool>, Vec<bool>) {
    let c = &profile.contexts;
    let mut children: Vec<Vec<usize>> = vec![Vec::new(); c.len()];
    let mut roots = Vec::new();
    for (i, x) in c.iter().enumerate() {
        match x.parent {
            Some(p) => children[p as usize].push(i),
            None => roots.push(i),
        }
    }
    let caller = |i: usize| c[i].parent.map(|p| c[p as usize].function);
    let mut on_path: HashMap<FunctionId, u32> = HashMap::new();
    let mut pair_on_path: HashMap<(Option<FunctionId>, FunctionId), u32> = HashMap::new();
    let (mut fn_outer, mut pair_outer) = (vec![false; c.len()], vec![false; c.len()]);
    // (context, entering): leave a context after its children.
    let mut todo: Vec<(usize, bool)> = roots.into_iter().rev().map(|r| (r, true)).collect();
    while let Some((i, entering)) = todo.pop() {
        let f = c[i].function;
        let pair = (caller(i), f);
        if entering {
            let n = on_path.entry(f).or_insert(0);
            fn_outer[i] = *n == 0;
            *n += 1;
            let m = pair_on_path.entry(pair).or_insert(0);
            pair_outer[i] = *m == 0;
            *m += 1;
            todo.push((i, false));
            todo.extend(children[i].iter().rev().map(|&k| (k, true)));
        } else {
            *on_path.entry(f).or_insert(1) -= 1;
            *pair_on_path.entry(pair).or_insert(1) -= 1;
        }
    }
    (fn_outer, pair_outer)
}

/// `profile` restricted to the costs incurred at `level` (see the module
/// docs for the precise definition).
///
/// Errors: [`PrivilegeError`] when the profile does not carry what the
/// restriction needs.
pub fn restrict_to_privilege(profile: &Profile, level: Level) -> Result<Profile, PrivilegeError> {
    let sec = profile
        .section::<PrivilegeSection>()
        .ok()
        .flatten()
        .ok_or(PrivilegeError::NoSection)?;
    if profile.contexts.is_empty() {
        return Err(PrivilegeError::NoContexts);
    }
    let n = profile.events.len();
    let nc = profile.contexts.len();
    let mut ctx_self = vec![vec![0u64; n]; nc];
    for c in sec.contexts.iter().filter(|c| c.level == level) {
        ctx_self[c.context as usize] = c.self_cost.clone();
    }
    let mut out = restrict_to_contexts(profile, ctx_self, None);
    out.totals = sec.total(level, n);
    // The trap table's and the address spaces' costs are of every level:
    // not shown restricted.
    out.sections
        .remove(<fwprof_profile::TrapSection as fwprof_profile::SectionKind>::NAME);
    out.sections
        .remove(<fwprof_profile::AddressSpaceSection as fwprof_profile::SectionKind>::NAME);
    Ok(out)
}

/// `profile` restricted to the self costs `ctx_self` of its contexts (one
/// cost vector per context; the rules of the module docs). `calls`: per
/// context, whether it counts (its `calls` then make the arcs' and
/// functions' calls, as when the contexts are a thread's); `None` keeps
/// every arc's calls (a privilege level cannot split them). The totals,
/// the trap table and the sections other than the context-based ones are
/// the caller's to adjust.
pub(crate) fn restrict_to_contexts(
    profile: &Profile,
    ctx_self: Vec<Vec<u64>>,
    calls: Option<&[bool]>,
) -> Profile {
    let n = profile.events.len();
    let nc = profile.contexts.len();
    let mut out = profile.clone();
    // Subtree sums at the level (parents come before children).
    let mut subtree = ctx_self.clone();
    for i in (0..nc).rev() {
        if let Some(p) = profile.contexts[i].parent {
            let child = subtree[i].clone();
            for (d, s) in subtree[p as usize].iter_mut().zip(child) {
                *d += s;
            }
        }
    }
    let func = |i: usize| profile.contexts[i].function;
    let (fn_outer, pair_outer) = outermost(profile);
    let nf = profile.functions.len();
    let mut self_cost = vec![vec![0u64; n]; nf];
    let mut inclusive = vec![vec![0u64; n]; nf];
    let mut pairs: HashMap<(Option<FunctionId>, FunctionId), Vec<u64>> = HashMap::new();
    let mut pair_calls: HashMap<(Option<FunctionId>, FunctionId), u64> = HashMap::new();
    let add = |d: &mut Vec<u64>, s: &[u64]| {
        for (a, b) in d.iter_mut().zip(s) {
            *a += b;
        }
    };
    for i in 0..nc {
        let f = func(i);
        add(&mut self_cost[f.index()], &ctx_self[i]);
        if fn_outer[i] {
            add(&mut inclusive[f.index()], &subtree[i]);
        }
        let caller = profile.contexts[i].parent.map(|p| func(p as usize));
        if pair_outer[i] {
            add(
                pairs.entry((caller, f)).or_insert_with(|| vec![0; n]),
                &subtree[i],
            );
        }
        if calls.is_some_and(|c| c[i]) {
            *pair_calls.entry((caller, f)).or_insert(0) += profile.contexts[i].calls;
        }
        out.contexts[i].self_cost = ctx_self[i].clone();
    }
    let nonzero = |v: &[u64]| v.iter().any(|&x| x > 0);
    let mut whole = vec![false; nf];
    for (i, f) in out.functions.iter_mut().enumerate() {
        whole[i] = self_cost[i] == f.self_cost;
        f.self_cost = std::mem::take(&mut self_cost[i]);
        f.inclusive = std::mem::take(&mut inclusive[i]);
        if !nonzero(&f.inclusive) {
            f.calls = 0;
        }
    }
    // One arc per pair, in the order of the pair's first arc.
    let mut arcs: Vec<Arc> = Vec::new();
    let mut index: HashMap<(Option<FunctionId>, FunctionId), usize> = HashMap::new();
    for a in &profile.arcs {
        let key = (a.caller, a.callee);
        let Some(cost) = pairs.get(&key).filter(|v| nonzero(v)) else {
            continue;
        };
        match index.get(&key) {
            Some(&k) => {
                arcs[k].calls += a.calls;
                arcs[k].tail &= a.tail;
            }
            None => {
                index.insert(key, arcs.len());
                arcs.push(Arc {
                    inclusive: cost.clone(),
                    ..a.clone()
                });
            }
        }
    }
    if calls.is_some() {
        for a in &mut arcs {
            a.calls = pair_calls.get(&(a.caller, a.callee)).copied().unwrap_or(0);
        }
    }
    // A function's calls are those of its arcs kept.
    for f in out.functions.iter_mut() {
        f.calls = 0;
    }
    for a in &arcs {
        out.functions[a.callee.index()].calls += a.calls;
    }
    out.arcs = arcs;
    let mut costs = AddressCosts::new(n);
    for c in profile.costs.iter() {
        if whole[c.function.index()] {
            // Sorted and unique as in the original.
            let _ = costs.push(fwprof_profile::AddressCost {
                addr: c.addr,
                function: c.function,
                len: c.len,
                raw: c.raw,
                cost: c.cost.to_vec(),
            });
        }
    }
    out.costs = costs;
    out
}
