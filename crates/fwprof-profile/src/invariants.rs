//! Arithmetic invariants of an exact profile.

use crate::model::Profile;

impl Profile {
    /// Checks the arithmetic that an exact profile satisfies, per event:
    ///
    /// * the self costs of all functions add up to `totals`, and the
    ///   per-address costs of each function add up to its self cost;
    /// * `self <= inclusive <= total` for every function (so the root's
    ///   inclusive cost, the largest, does not exceed the total);
    /// * a function's `calls` equals the sum of `calls` over its incoming
    ///   arcs, spontaneous ones included;
    /// * an arc's inclusive cost does not exceed its callee's;
    /// * if there are contexts, the self costs of the contexts of each
    ///   function add up to its self cost;
    /// * the `privilege` levels' and the `address_spaces` spaces' costs add
    ///   up to `totals` (and each space's functions to the space's cost).
    ///
    /// Call [`Profile::validate`] first: on a profile with wrong shapes this
    /// reports the shape problem. Errors: a message listing up to ten
    /// violations.
    pub fn check_invariants(&self) -> Result<(), String> {
        if let Err(e) = self.validate().and_then(|_| self.check_known_sections()) {
            return Err(e.to_string());
        }
        let mut problems = Vec::new();
        let n = self.events.len();
        let nf = self.functions.len();
        let event = |e: usize| self.events[e].as_str();

        let mut self_sum = vec![0u128; n];
        let mut addr_sum = vec![vec![0u128; n]; nf];
        for c in self.costs.iter() {
            for (e, &v) in c.cost.iter().enumerate() {
                addr_sum[c.function.index()][e] += u128::from(v);
            }
        }
        let mut incoming = vec![0u128; nf];
        for a in &self.arcs {
            incoming[a.callee.index()] += u128::from(a.calls);
            let callee = &self.functions[a.callee.index()];
            for e in 0..n {
                if a.inclusive[e] > callee.inclusive[e] {
                    problems.push(format!(
                        "arc {} -> {} has inclusive {} {} above the callee's {}",
                        a.caller
                            .map_or("<spontaneous>", |c| self.functions[c.index()].name.as_str()),
                        callee.name,
                        a.inclusive[e],
                        event(e),
                        callee.inclusive[e]
                    ));
                }
            }
        }
        for (i, f) in self.functions.iter().enumerate() {
            for e in 0..n {
                self_sum[e] += u128::from(f.self_cost[e]);
                if addr_sum[i][e] != u128::from(f.self_cost[e]) {
                    problems.push(format!(
                        "{}: per-address {} add up to {}, self is {}",
                        f.name,
                        event(e),
                        addr_sum[i][e],
                        f.self_cost[e]
                    ));
                }
                if f.inclusive[e] < f.self_cost[e] {
                    problems.push(format!(
                        "{}: inclusive {} {} below self {}",
                        f.name,
                        event(e),
                        f.inclusive[e],
                        f.self_cost[e]
                    ));
                }
                if f.inclusive[e] > self.totals[e] {
                    problems.push(format!(
                        "{}: inclusive {} {} above the total {}",
                        f.name,
                        event(e),
                        f.inclusive[e],
                        self.totals[e]
                    ));
                }
            }
            if incoming[i] != u128::from(f.calls) {
                problems.push(format!(
                    "{}: calls {} but its incoming arcs carry {}",
                    f.name, f.calls, incoming[i]
                ));
            }
        }
        if !self.contexts.is_empty() {
            let mut ctx_sum = vec![vec![0u128; n]; nf];
            for c in &self.contexts {
                for (e, &v) in c.self_cost.iter().enumerate() {
                    ctx_sum[c.function.index()][e] += u128::from(v);
                }
            }
            for (f, sums) in self.functions.iter().zip(&ctx_sum) {
                for (e, (&sum, &own)) in sums.iter().zip(&f.self_cost).enumerate() {
                    if sum != u128::from(own) {
                        problems.push(format!(
                            "{}: self {} is {own} but its contexts carry {sum}",
                            f.name,
                            event(e),
                        ));
                    }
                }
            }
        }
        if let Ok(Some(p)) = self.section::<crate::PrivilegeSection>() {
            if !adds_up(n, p.totals.iter().map(|t| &t.cost[..]), &self.totals) {
                problems.push("the privilege levels' totals do not add up to the totals".into());
            }
        }
        if let Ok(Some(a)) = self.section::<crate::AddressSpaceSection>() {
            for space in &a.spaces {
                let own = space.functions.iter().map(|f| &f.self_cost[..]);
                if !adds_up(n, own, &space.cost) {
                    problems.push(format!(
                        "address space {}: its functions' costs do not add up to its cost",
                        space.describe()
                    ));
                }
            }
            if !adds_up(n, a.spaces.iter().map(|s| &s.cost[..]), &self.totals) {
                problems.push("the address spaces' costs do not add up to the totals".into());
            }
        }
        for (e, (&sum, &total)) in self_sum.iter().zip(&self.totals).enumerate() {
            if sum != u128::from(total) {
                problems.push(format!(
                    "self {} add up to {sum}, total is {total}",
                    event(e)
                ));
            }
        }
        if problems.is_empty() {
            return Ok(());
        }
        let more = problems.len().saturating_sub(10);
        problems.truncate(10);
        let mut msg = problems.join("; ");
        if more > 0 {
            msg.push_str(&format!("; and {more} more"));
        }
        Err(msg)
    }
}

/// True if the cost vectors `parts` (`n` events each) add up to `whole`,
/// event by event (summed without overflow).
fn adds_up<'a>(n: usize, parts: impl Iterator<Item = &'a [u64]>, whole: &[u64]) -> bool {
    let mut sum = vec![0u128; n];
    for v in parts {
        for (s, &x) in sum.iter_mut().zip(v) {
            *s += u128::from(x);
        }
    }
    sum.iter().zip(whole).all(|(&s, &w)| s == u128::from(w))
}
