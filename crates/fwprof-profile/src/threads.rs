//! The `threads` section: the threads of execution of a run on several
//! harts — each hart's own — or of a Linux process with several threads,
//! and the calling contexts each ran
//! (`docs/profile-format.md`, "Sections"; `docs/concurrency.md`).
//!
//! Every thread has roots of its own in the calling-context tree
//! ([`crate::ContextRecord`]), so a context (a root and everything below
//! it) belongs to exactly one thread; a thread's costs are its contexts'
//! self costs. The flat profile, call graph and per-address costs of the
//! profile itself are the sums over all threads.

use serde::{Deserialize, Serialize};

use crate::model::Profile;
use crate::sections::SectionKind;

/// Section `threads`, layout version 1, ancillary.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ThreadSection {
    /// The threads, in order of first appearance.
    pub threads: Vec<ThreadRecord>,
    /// Times the run passed from one hart (thread) to another.
    pub switches: u64,
    /// Instructions a hart (thread) ran per turn (`--quantum`).
    pub quantum: u64,
}

impl SectionKind for ThreadSection {
    const NAME: &'static str = "threads";
    const VERSION: u32 = 1;
    const CRITICAL: bool = false;
}

/// One thread of execution: a hart's own, or a Linux thread.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ThreadRecord {
    /// The hart it ran on (`mhartid`); for a Linux thread, its number in
    /// order of creation (0: the main thread).
    pub hart: u32,
    /// A Linux thread's id (`gettid`); `None` for a hart's own thread.
    #[serde(default)]
    pub tid: Option<i64>,
    /// How reports name it: `hart 1`, `thread 4242`.
    pub name: String,
    /// Instructions it executed (what its contexts' self instructions sum
    /// to, when the profile holds every instruction).
    pub executed: u64,
    /// The roots of its calling contexts (indices into
    /// [`Profile::contexts`], each a context without a parent).
    pub roots: Vec<u32>,
}

impl ThreadSection {
    /// True for a Linux process's threads, false for harts.
    pub fn linux(&self) -> bool {
        self.threads.iter().any(|t| t.tid.is_some())
    }

    /// Per context, the index in [`ThreadSection::threads`] of the thread it
    /// belongs to (`None` for a context under no listed root).
    pub fn context_threads(&self, profile: &Profile) -> Vec<Option<usize>> {
        crate::owners::context_owners(profile, self.threads.iter().map(|t| &t.roots[..]))
    }

    /// Per thread, the self cost of its contexts per event.
    pub fn costs(&self, profile: &Profile) -> Vec<Vec<u64>> {
        crate::owners::owner_costs(profile, &self.context_threads(profile), self.threads.len())
    }

    /// What makes the section not fit `profile`, if anything: a root out
    /// of range, not a root, or listed twice.
    pub(crate) fn problem(&self, profile: &Profile) -> Option<String> {
        let owners = self.threads.iter().map(|t| (t.name.as_str(), &t.roots[..]));
        crate::owners::roots_problem("threads", profile, owners)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{ContextRecord, FunctionId, FunctionRecord, Meta};

    fn two_harts() -> Profile {
        let mut p = Profile::new(Meta::new("a.elf"), vec!["instructions".into()]);
        let f = p.add_function(FunctionRecord::new("main", 0, 4));
        let g = p.add_function(FunctionRecord::new("work", 4, 8));
        let ctx = |parent, function: FunctionId, cost| ContextRecord {
            parent,
            function,
            calls: 1,
            self_cost: vec![cost],
        };
        p.contexts = vec![
            ctx(None, f, 3),
            ctx(Some(0), g, 10),
            ctx(None, f, 4),
            ctx(Some(2), g, 20),
        ];
        p
    }

    #[test]
    fn contexts_belong_to_the_thread_of_their_root() {
        let p = two_harts();
        let s = ThreadSection {
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
                    executed: 24,
                    roots: vec![2],
                },
            ],
            switches: 5,
            quantum: 1000,
        };
        assert_eq!(
            s.context_threads(&p),
            vec![Some(0), Some(0), Some(1), Some(1)]
        );
        assert_eq!(s.costs(&p), vec![vec![13], vec![24]]);
        assert_eq!(s.problem(&p), None);
        let mut bad = s.clone();
        bad.threads[1].roots = vec![3];
        assert!(bad.problem(&p).unwrap().contains("not a root"));
        bad.threads[1].roots = vec![0];
        assert!(bad.problem(&p).unwrap().contains("not a root"));
        bad.threads[1].roots = vec![9];
        assert!(bad.problem(&p).unwrap().contains("root context 9 of 4"));
    }
}
