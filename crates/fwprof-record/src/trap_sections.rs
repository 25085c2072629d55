//! The sections every method adds for traps and privilege levels: `traps`
//! (per cause: count, the cost of its contexts, interrupt latency) and
//! `privilege` (costs per level), built alike from what the collector
//! counted and the profile's calling-context tree.

use fwprof_collect::TrapCauseStats;
use fwprof_profile::{
    trap_context_costs, FunctionId, Level, PrivilegeSection, Profile, Spread, TrapCause,
    TrapLatency, TrapSection,
};

/// Guest nanoseconds per modelled cycle when time runs on a core model's
/// cycles (`docs/simulator.md`: 10 MHz).
const NS_PER_CYCLE: u64 = 100;

/// Store the `traps` section for `causes` (nothing if no trap was taken)
/// and the `privilege` section from the self cost of each context per
/// privilege level (`(context, mstatus.MPP encoding, cost per event)`).
/// `cycles`: interrupt latency in guest time is in modelled cycles of 100
/// ns (a core model drove the clock), so it is also stored in cycles.
pub(crate) fn add_trap_sections(
    profile: &mut Profile,
    causes: &[TrapCauseStats],
    per_context: impl IntoIterator<Item = (u32, u8, Vec<u64>)>,
    cycles: bool,
) {
    let privilege = PrivilegeSection::from_contexts(
        profile,
        per_context
            .into_iter()
            .map(|(c, p, v)| (c, Level::from_bits(p), v)),
    );
    if !privilege.totals.is_empty() {
        // Serialising plain integers cannot fail.
        let _ = profile.set_section(&privilege);
    }
    if causes.is_empty() {
        return;
    }
    let roots: Vec<FunctionId> = causes.iter().map(|c| FunctionId(c.root)).collect();
    let spread = |s: &fwprof_collect::Spread, div: u64| Spread {
        min: s.min / div,
        max: s.max / div,
        total: s.total / div,
    };
    let mut out: Vec<TrapCause> = causes
        .iter()
        .map(|c| {
            let (self_cost, inclusive) = trap_context_costs(profile, FunctionId(c.root), &roots);
            let l = &c.latency_instructions;
            TrapCause {
                interrupt: c.interrupt,
                code: c.code,
                root: FunctionId(c.root),
                count: c.count,
                self_cost,
                inclusive,
                latency: (l.count > 0).then(|| TrapLatency {
                    count: l.count,
                    instructions: spread(l, 1),
                    cycles: cycles.then(|| spread(&c.latency_ns, NS_PER_CYCLE)),
                }),
            }
        })
        .collect();
    out.sort_by_key(|c| (!c.interrupt, c.code));
    let _ = profile.set_section(&TrapSection { causes: out });
}
