//! `fwprof report --hart N`, `--thread TID`, `--per-hart` and
//! `--per-thread`: a run on several harts, or a Linux process's threads,
//! seen one at a time, from the profile's `threads` section.
//!
//! A hart's profile is the profile restricted to the calling contexts
//! that hart ran (each hart's contexts have roots of their own): the
//! rules of `report --privilege` (module `privilege`), except that calls
//! are the hart's own (a context's calls belong to one hart, where a
//! privilege level cannot split them). Its totals are the sums of its
//! contexts' self costs.

use std::io::{self, Write};

use fwprof_profile::{Profile, ThreadSection};

use crate::options::ReportOptions;
use crate::privilege::restrict_to_contexts;

/// Why a profile cannot be split by hart.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum ThreadError {
    /// The profile has no `threads` section: the run had one hart (or was
    /// recorded by a method or a version of fwprof that does not split).
    NoSection,
    /// The run had no hart with this number.
    NoSuchHart {
        /// The hart asked for.
        hart: u32,
        /// The harts the profile has.
        harts: Vec<u32>,
    },
    /// The process had no thread with this id.
    NoSuchThread {
        /// The thread id asked for.
        tid: i64,
        /// The thread ids the profile has.
        tids: Vec<i64>,
    },
    /// Harts asked of a Linux process's profile (whose threads all ran on
    /// one hart).
    ThreadsNotHarts,
    /// A thread id asked of a run on several harts.
    HartsNotThreads,
}

impl std::fmt::Display for ThreadError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ThreadError::NoSection => f.write_str(
                "the profile has no costs per hart (it was recorded on one hart, or not by record --method exact)",
            ),
            ThreadError::NoSuchHart { hart, harts } => {
                let list: Vec<String> = harts.iter().map(u32::to_string).collect();
                write!(f, "the profile has no hart {hart} (its harts: {})", list.join(", "))
            }
            ThreadError::NoSuchThread { tid, tids } => {
                let list: Vec<String> = tids.iter().map(i64::to_string).collect();
                write!(f, "the profile has no thread {tid} (its threads: {})", list.join(", "))
            }
            ThreadError::ThreadsNotHarts => f.write_str(
                "the profile is of a Linux process's threads, which share one hart: use --thread TID or --per-thread",
            ),
            ThreadError::HartsNotThreads => f.write_str(
                "the profile is of a run on several harts, not of Linux threads: use --hart N or --per-hart",
            ),
        }
    }
}

impl std::error::Error for ThreadError {}

/// The profile's `threads` section.
fn section(profile: &Profile) -> Result<ThreadSection, ThreadError> {
    profile
        .section::<ThreadSection>()
        .ok()
        .flatten()
        .ok_or(ThreadError::NoSection)
}

/// `profile` restricted to what hart `hart` executed (see the module docs).
///
/// # Errors
/// [`ThreadError`]: no `threads` section, or no such hart.
pub fn restrict_to_hart(profile: &Profile, hart: u32) -> Result<Profile, ThreadError> {
    let sec = section(profile)?;
    if sec.linux() {
        return Err(ThreadError::ThreadsNotHarts);
    }
    if !sec.threads.iter().any(|t| t.hart == hart) {
        return Err(ThreadError::NoSuchHart {
            hart,
            harts: sec.threads.iter().map(|t| t.hart).collect(),
        });
    }
    Ok(restrict(profile, &sec, |t| sec.threads[t].hart == hart))
}

/// `profile` restricted to what the Linux thread `tid` executed (see the
/// module docs).
///
/// # Errors
/// [`ThreadError`]: no `threads` section, harts rather than threads, or
/// no such thread.
pub fn restrict_to_thread(profile: &Profile, tid: i64) -> Result<Profile, ThreadError> {
    let sec = section(profile)?;
    if !sec.linux() {
        return Err(ThreadError::HartsNotThreads);
    }
    if !sec.threads.iter().any(|t| t.tid == Some(tid)) {
        return Err(ThreadError::NoSuchThread {
            tid,
            tids: sec.threads.iter().filter_map(|t| t.tid).collect(),
        });
    }
    Ok(restrict(profile, &sec, |t| sec.threads[t].tid == Some(tid)))
}

/// `profile` restricted to the contexts of the threads `keep` accepts.
fn restrict(profile: &Profile, sec: &ThreadSection, keep: impl Fn(usize) -> bool) -> Profile {
    restrict_to_owners(profile, sec.context_threads(profile), keep)
}

/// `profile` restricted to the contexts whose owner (a thread's, a
/// task's index; `owners`, per context) `keep` accepts: the contexts'
/// self costs, calls and arcs (see the module docs); traps, privilege
/// levels and address spaces, which are of every owner, are left out.
pub(crate) fn restrict_to_owners(
    profile: &Profile,
    owners: Vec<Option<usize>>,
    keep: impl Fn(usize) -> bool,
) -> Profile {
    let n = profile.events.len();
    let mine: Vec<bool> = owners.into_iter().map(|t| t.is_some_and(&keep)).collect();
    let ctx_self: Vec<Vec<u64>> = profile
        .contexts
        .iter()
        .zip(&mine)
        .map(|(c, &m)| if m { c.self_cost.clone() } else { vec![0; n] })
        .collect();
    let mut totals = vec![0u64; n];
    for c in &ctx_self {
        for (t, v) in totals.iter_mut().zip(c) {
            *t += v;
        }
    }
    let mut out = restrict_to_contexts(profile, ctx_self, Some(&mine));
    out.totals = totals;
    // Traps, privilege levels and address spaces are of every owner.
    for name in [
        <fwprof_profile::TrapSection as fwprof_profile::SectionKind>::NAME,
        <fwprof_profile::PrivilegeSection as fwprof_profile::SectionKind>::NAME,
        <fwprof_profile::AddressSpaceSection as fwprof_profile::SectionKind>::NAME,
    ] {
        out.sections.remove(name);
    }
    out.traps.clear();
    out
}

/// `report --per-hart` / `--per-thread`: a table of the harts (or a
/// Linux process's threads: instructions executed, share of the run, the
/// cost in the report's event), then each one's report under `opts` (its
/// call graph too unless `opts` leaves it out). `harts`: the user asked
/// for harts, which a Linux process's profile does not have.
///
/// # Errors
/// [`ThreadError`] as an [`io::Error`] of kind `InvalidInput` when the
/// profile has no `threads` section or no harts; write errors.
pub fn write_per_thread(
    profile: &Profile,
    opts: &ReportOptions,
    harts: bool,
    w: &mut dyn Write,
) -> io::Result<()> {
    let invalid = |e: ThreadError| io::Error::new(io::ErrorKind::InvalidInput, e);
    let sec = section(profile).map_err(invalid)?;
    if harts && sec.linux() {
        return Err(invalid(ThreadError::ThreadsNotHarts));
    }
    let costs = sec.costs(profile);
    let e = opts.event.min(profile.events.len().saturating_sub(1));
    let event = profile.events.get(e).map_or("instructions", String::as_str);
    let total: u64 = costs.iter().map(|c| c[e]).sum();
    let (what, column) = if sec.linux() {
        ("Threads", "thread")
    } else {
        ("Harts", "hart")
    };
    writeln!(
        w,
        "{what}: {} (turns of {} instructions, {} switches)",
        sec.threads.len(),
        sec.quantum,
        sec.switches
    )?;
    writeln!(w)?;
    writeln!(
        w,
        "  {column:>8}  {:>14}  {:>7}  {:>14}",
        "executed", "%", event
    )?;
    for (t, c) in sec.threads.iter().zip(&costs) {
        let share = if total == 0 {
            0.0
        } else {
            100.0 * c[e] as f64 / total as f64
        };
        let id = t.tid.map_or(i64::from(t.hart), |tid| tid);
        writeln!(
            w,
            "  {id:>8}  {:>14}  {share:>6.2}%  {:>14}",
            t.executed, c[e]
        )?;
    }
    for (i, t) in sec.threads.iter().enumerate() {
        writeln!(w)?;
        writeln!(w, "==== {} ====", t.name)?;
        writeln!(w)?;
        let one = restrict(profile, &sec, |k| k == i);
        crate::write_report(&one, opts, &mut *w)?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use fwprof_profile::{Arc, ContextRecord, FunctionId, FunctionRecord, Meta, ThreadRecord};

    /// main → work on two harts: hart 0 calls work once (10), hart 1
    /// twice (20 + 20).
    fn two_harts() -> Profile {
        let mut p = Profile::new(Meta::new("a.elf"), vec!["instructions".into()]);
        let main = p.add_function(FunctionRecord::new("main", 0, 4));
        let work = p.add_function(FunctionRecord::new("work", 4, 8));
        let ctx = |parent, function: FunctionId, calls, cost| ContextRecord {
            parent,
            function,
            calls,
            self_cost: vec![cost],
        };
        p.contexts = vec![
            ctx(None, main, 1, 3),
            ctx(Some(0), work, 1, 10),
            ctx(None, main, 1, 4),
            ctx(Some(2), work, 2, 40),
        ];
        p.functions[0].self_cost = vec![7];
        p.functions[0].inclusive = vec![57];
        p.functions[0].calls = 2;
        p.functions[1].self_cost = vec![50];
        p.functions[1].inclusive = vec![50];
        p.functions[1].calls = 3;
        p.arcs = vec![
            Arc::spontaneous(main, 2, vec![57]),
            Arc {
                caller: Some(main),
                callee: work,
                call_site: 2,
                calls: 3,
                tail: false,
                inclusive: vec![50],
            },
        ];
        p.totals = vec![57];
        let sec = ThreadSection {
            threads: vec![
                ThreadRecord {
                    hart: 0,
                    tid: None,
                    name: "hart 0".into(),
                    executed: 13,
                    roots: vec![0],
                },
                ThreadRecord {
                    hart: 1,
                    tid: None,
                    name: "hart 1".into(),
                    executed: 44,
                    roots: vec![2],
                },
            ],
            switches: 3,
            quantum: 10,
        };
        p.set_section(&sec).unwrap();
        p
    }

    #[test]
    fn a_hart_gets_its_own_costs_and_calls() {
        let p = two_harts();
        let h1 = restrict_to_hart(&p, 1).unwrap();
        assert_eq!(h1.totals, vec![44]);
        assert_eq!(h1.functions[1].self_cost, vec![40]);
        assert_eq!(h1.functions[1].calls, 2);
        assert_eq!(h1.functions[0].inclusive, vec![44]);
        assert_eq!(h1.arcs[1].calls, 2);
        let h0 = restrict_to_hart(&p, 0).unwrap();
        assert_eq!(h0.totals, vec![13]);
        assert_eq!(h0.functions[1].calls, 1);
        for h in [&h0, &h1] {
            let sum: u64 = h.functions.iter().map(|f| f.self_cost[0]).sum();
            assert_eq!(sum, h.totals[0]);
        }
        assert_eq!(
            restrict_to_hart(&p, 7).unwrap_err().to_string(),
            "the profile has no hart 7 (its harts: 0, 1)"
        );
        let mut one = p.clone();
        one.sections.clear();
        assert_eq!(
            restrict_to_hart(&one, 0).unwrap_err(),
            ThreadError::NoSection
        );
    }
}
