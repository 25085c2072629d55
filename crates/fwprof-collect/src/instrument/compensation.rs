//! Compensation at the end of an instrumented run: the measured hook cost
//! taken out of every total, self and inclusive time, and the boundaries
//! of each activation given back to its function (see the module docs of
//! [`super`]).

use std::collections::HashMap;

use fwprof_sim::CostModel;

use super::{
    add, Clock, InstrumentCollector, InstrumentData, InstrumentedArc, InstrumentedContext,
    InstrumentedFunction, INSTRUMENT_EVENTS, NONE,
};

impl<M: CostModel> InstrumentCollector<M> {
    /// The mean hook cost times the hook calls each context owns, rounded so
    /// that the contexts of a function together get that function's total
    /// rounded once (largest remainders get the extra unit): a function's
    /// compensated self then rounds like its compensated total.
    fn hook_shares(&self) -> Vec<Clock> {
        let (hc, ht) = (u128::from(self.hook_calls), self.hook_total);
        let mut shares = vec![[0u64; 2]; self.contexts.len()];
        if hc == 0 {
            return shares;
        }
        let mut by_fn: HashMap<u32, Vec<usize>> = HashMap::new();
        for (i, c) in self.contexts.iter().enumerate() {
            by_fn.entry(c.func).or_default().push(i);
        }
        for ids in by_fn.values() {
            for e in 0..INSTRUMENT_EVENTS {
                let t = u128::from(ht[e]);
                let n: u128 = ids
                    .iter()
                    .map(|&i| u128::from(self.contexts[i].hooks))
                    .sum();
                // round(n * t / hc), then the floors and the units left over.
                let whole = (n * t * 2 + hc) / (hc * 2);
                let mut rest = whole;
                let mut by_remainder: Vec<(u128, usize)> = Vec::with_capacity(ids.len());
                for &i in ids {
                    let q = u128::from(self.contexts[i].hooks) * t;
                    shares[i][e] = (q / hc) as u64;
                    rest -= q / hc;
                    by_remainder.push((q % hc, i));
                }
                by_remainder.sort_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(&b.1)));
                for &(_, i) in by_remainder.iter().take(rest as usize) {
                    shares[i][e] += 1;
                }
            }
        }
        shares
    }

    /// End of run: close open activations at `executed` instructions (and
    /// the model's cycles), compensate, and return the data and the model.
    pub fn finish_with_model(mut self, executed: u64) -> (InstrumentData, M) {
        let now = self.now(executed);
        let open = self.frames.len() as u64 + self.parked_frames();
        while self.pop(now, false).is_some() {}
        self.charge(now);
        if self.epilogue.take().is_some() {
            self.unmeasured += 1;
        }
        self.close_parked(now);
        self.ensure_fn(self.map.len().saturating_sub(1) as u32);
        let (hc, ht) = (self.hook_calls, self.hook_total);
        // round(n * hook_total / hook_calls), per event.
        let hooks = |n: u64, e: usize| -> i128 {
            if hc == 0 {
                0
            } else {
                ((u128::from(n) * u128::from(ht[e]) * 2 + u128::from(hc)) / (u128::from(hc) * 2))
                    as i128
            }
        };
        let clamp = |v: i128| -> u64 { v.clamp(0, i128::from(u64::MAX)) as u64 };
        let mut functions: Vec<InstrumentedFunction> = self
            .funcs
            .iter()
            .map(|a| {
                let mut f = InstrumentedFunction {
                    entered: a.entered,
                    calls: a.calls,
                    total: a.total,
                    min: a.min,
                    max: a.max,
                    histogram: a.hist.clone(),
                    ..Default::default()
                };
                for e in 0..INSTRUMENT_EVENTS {
                    f.total_compensated[e] = clamp(
                        i128::from(a.total[e]) - hooks(a.total_hooks, e)
                            + i128::from(a.total_boundary[e]),
                    );
                    f.inclusive[e] = clamp(
                        i128::from(a.incl[e]) - hooks(a.incl_hooks, e)
                            + i128::from(a.incl_boundary[e]),
                    );
                }
                f
            })
            .collect();
        let shares = self.hook_shares();
        let contexts: Vec<InstrumentedContext> = self
            .contexts
            .iter()
            .zip(&shares)
            .map(|(c, share)| {
                let mut self_cost = [0; 2];
                for (e, v) in self_cost.iter_mut().enumerate() {
                    *v = clamp(
                        i128::from(c.self_raw[e])
                            - i128::from(share[e])
                            - i128::from(c.child_boundary[e])
                            + i128::from(c.own_boundary[e]),
                    );
                }
                let f = &mut functions[c.func as usize];
                add(&mut f.self_raw, c.self_raw);
                add(&mut f.self_compensated, self_cost);
                InstrumentedContext {
                    parent: (c.parent != NONE).then_some(c.parent),
                    function: c.func,
                    calls: c.calls,
                    self_cost,
                }
            })
            .collect();
        let mut totals = [0u64; 2];
        for f in &functions {
            add(&mut totals, f.self_compensated);
        }
        for f in &mut functions {
            for ((incl, own), all) in f.inclusive.iter_mut().zip(f.self_compensated).zip(totals) {
                *incl = (*incl).max(own).min(all);
            }
        }
        let arcs = self
            .arcs
            .iter()
            .map(|a| {
                let mut inclusive = [0; 2];
                for (e, v) in inclusive.iter_mut().enumerate() {
                    *v = clamp(
                        i128::from(a.incl[e]) - hooks(a.incl_hooks, e)
                            + i128::from(a.incl_boundary[e]),
                    )
                    .min(functions[a.callee as usize].inclusive[e]);
                }
                InstrumentedArc {
                    caller: (a.caller != NONE).then_some(a.caller),
                    callee: a.callee,
                    call_site: a.site,
                    calls: a.calls,
                    inclusive,
                }
            })
            .collect();
        let data = InstrumentData {
            kind: self.kind,
            functions,
            arcs,
            contexts,
            hook_calls: hc,
            hook_total: ht,
            totals,
            outside: self.outside,
            unmatched_exits: self.unmatched_exits,
            abandoned: self.abandoned,
            open_at_end: open,
            unmeasured_boundaries: self.unmeasured,
            other_kind_calls: self.other_kind,
            contexts_folded: self.tree.folded(),
            trap_causes: self.trap_counts.causes().to_vec(),
            map: self.map,
        };
        (data, self.model)
    }
}
