//! Profile transforms: the readings of one recording that some methods
//! are judged by (the raw durations of an instrumented profile, an
//! instrumented build without its hooks, instruction counts read as
//! time). Each returns a new profile; the input is untouched.

use fwprof_profile::{events, Profile};

use crate::catalogue::CORE;

/// Names of the instrumentation hooks: their cost is the overhead that
/// compensation removes.
const HOOKS: [&str; 4] = [
    "__cyg_profile_func_enter",
    "__cyg_profile_func_exit",
    "_mcount",
    "mcount",
];

/// The instrumented profile as its raw durations tell it: every function
/// with an instrumentation record gets its raw self and total (hooks
/// included, as the hooks measured them), every other function nothing;
/// the total is the sum of the raw self durations (the run as the hooks
/// see it).
///
/// Errors: the profile has no instrumentation records.
pub(crate) fn raw(p: &Profile) -> Result<Profile, String> {
    if p.instrumented.is_empty() {
        return Err("the instrumented profile has no per-function records".into());
    }
    let e = p.event_index(events::INSTRUCTIONS).unwrap_or(0);
    let mut q = p.clone();
    for f in q.functions.iter_mut() {
        for v in [&mut f.self_cost, &mut f.inclusive] {
            if let Some(c) = v.get_mut(e) {
                *c = 0;
            }
        }
    }
    for r in &p.instrumented {
        if let Some(f) = q.functions.get_mut(r.function.0 as usize) {
            if let Some(c) = f.self_cost.get_mut(e) {
                *c = r.self_time;
            }
            if let Some(c) = f.inclusive.get_mut(e) {
                *c = r.total;
            }
        }
    }
    let total: u64 = p.instrumented.iter().map(|r| r.self_time).sum();
    if let Some(t) = q.totals.get_mut(e) {
        *t = total;
    }
    Ok(q)
}

/// A `--core` profile whose `cycles` are replaced by its instruction
/// counts: instruction counting's estimate of time.
///
/// Errors: the profile lacks either event.
pub(crate) fn instructions_as_cycles(p: &Profile) -> Result<Profile, String> {
    let (Some(i), Some(c)) = (
        p.event_index(events::INSTRUCTIONS),
        p.event_index(events::CYCLES),
    ) else {
        return Err(format!(
            "the --core {CORE} profile has no {} event",
            events::CYCLES
        ));
    };
    let mut q = p.clone();
    let copy = |v: &mut Vec<u64>| {
        if let Some(&x) = v.get(i) {
            if let Some(y) = v.get_mut(c) {
                *y = x;
            }
        }
    };
    for f in q.functions.iter_mut() {
        copy(&mut f.self_cost);
        copy(&mut f.inclusive);
    }
    copy(&mut q.totals);
    Ok(q)
}

/// An exact profile with the hook functions' own instructions taken out
/// (their self cost set to 0 and subtracted from the total).
pub(crate) fn without_hooks(p: &Profile) -> Profile {
    let e = p.event_index(events::INSTRUCTIONS).unwrap_or(0);
    let mut q = p.clone();
    let mut removed = 0;
    for f in q.functions.iter_mut() {
        if HOOKS.contains(&f.name.as_str()) {
            if let Some(c) = f.self_cost.get_mut(e) {
                removed += *c;
                *c = 0;
            }
            if let Some(c) = f.inclusive.get_mut(e) {
                *c = 0;
            }
        }
    }
    if let Some(t) = q.totals.get_mut(e) {
        *t = t.saturating_sub(removed);
    }
    q
}

#[cfg(test)]
mod tests {
    use fwprof_profile::{FunctionId, FunctionRecord, InstrumentRecord, Meta};

    use super::*;

    /// `main` 60 and `__cyg_profile_func_enter` 40 instructions, and 7
    /// cycles per instruction in a second event.
    fn profile() -> Profile {
        let mut p = Profile::new(
            Meta::new("p.elf"),
            vec![events::INSTRUCTIONS.into(), events::CYCLES.into()],
        );
        for (k, (name, cost)) in [("main", 60), ("__cyg_profile_func_enter", 40)]
            .into_iter()
            .enumerate()
        {
            let start = 0x100 + 0x10 * k as u64;
            let id = p.add_function(FunctionRecord::new(name, start, start + 4));
            let f = &mut p.functions[id.index()];
            (f.self_cost, f.inclusive) = (vec![cost, 7 * cost], vec![cost, 7 * cost]);
        }
        p.totals = vec![100, 700];
        p
    }

    #[test]
    fn without_hooks_takes_the_hooks_out_of_the_total() {
        let q = without_hooks(&profile());
        assert_eq!(q.totals, [60, 700]);
        assert_eq!(q.functions[0].self_cost, [60, 420]);
        assert_eq!(q.functions[1].self_cost, [0, 280]);
        assert_eq!(q.functions[1].inclusive, [0, 280]);
    }

    #[test]
    fn instruction_counts_replace_cycles() {
        let q = instructions_as_cycles(&profile()).unwrap();
        assert_eq!(q.totals, [100, 100]);
        assert_eq!(q.functions[0].self_cost, [60, 60]);
        let mut exact = profile();
        exact.events.truncate(1);
        assert_eq!(
            instructions_as_cycles(&exact).unwrap_err(),
            "the --core generic profile has no cycles event"
        );
    }

    #[test]
    fn raw_reads_the_instrumentation_records() {
        assert!(raw(&profile()).is_err());
        let mut p = profile();
        p.instrumented.push(InstrumentRecord {
            function: FunctionId(0),
            calls: 1,
            total: 130,
            self_time: 90,
            total_compensated: 0,
            self_compensated: 0,
            min: 130,
            max: 130,
            histogram: Vec::new(),
        });
        let q = raw(&p).unwrap();
        assert_eq!(q.totals, [90, 700]);
        assert_eq!(q.functions[0].self_cost, [90, 420]);
        assert_eq!(q.functions[0].inclusive, [130, 420]);
        assert_eq!(q.functions[1].self_cost, [0, 280]);
    }
}
