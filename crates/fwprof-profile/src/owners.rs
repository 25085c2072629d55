//! Contexts owned by roots: what the `threads` and `tasks` sections share.
//! Each owner (a thread, a task) lists the roots of its calling contexts;
//! a context belongs to the owner of its root.

use crate::model::Profile;

/// Per context, the index of the owner whose `roots` hold its root
/// (`None` for a context under no listed root). `roots`: each owner's.
pub(crate) fn context_owners<'a>(
    profile: &Profile,
    roots: impl Iterator<Item = &'a [u32]>,
) -> Vec<Option<usize>> {
    let mut of = vec![None; profile.contexts.len()];
    for (t, rs) in roots.enumerate() {
        for &r in rs {
            if let Some(slot) = of.get_mut(r as usize) {
                *slot = Some(t);
            }
        }
    }
    // Parents come before their children.
    for i in 0..profile.contexts.len() {
        if let Some(p) = profile.contexts[i].parent {
            of[i] = of.get(p as usize).copied().flatten();
        }
    }
    of
}

/// Per owner (of `owners` in all, `of` as [`context_owners`] gives),
/// the self cost of its contexts per event.
pub(crate) fn owner_costs(profile: &Profile, of: &[Option<usize>], owners: usize) -> Vec<Vec<u64>> {
    let n = profile.events.len();
    let mut out = vec![vec![0u64; n]; owners];
    for (c, t) in profile.contexts.iter().zip(of) {
        if let Some(t) = t {
            for (d, s) in out[*t].iter_mut().zip(&c.self_cost) {
                *d += s;
            }
        }
    }
    out
}

/// What makes section `section`'s owners (`(name, roots)`) not fit
/// `profile`, if anything: a root out of range, not a root, or listed
/// twice.
pub(crate) fn roots_problem<'a>(
    section: &str,
    profile: &Profile,
    owners: impl Iterator<Item = (&'a str, &'a [u32])>,
) -> Option<String> {
    let mut seen = vec![false; profile.contexts.len()];
    for (name, roots) in owners {
        for &r in roots {
            let Some(c) = profile.contexts.get(r as usize) else {
                return Some(format!(
                    "section \"{section}\": {name} has root context {r} of {}",
                    profile.contexts.len()
                ));
            };
            if c.parent.is_some() || std::mem::replace(&mut seen[r as usize], true) {
                return Some(format!(
                    "section \"{section}\": {name}'s root context {r} is not a root of its own"
                ));
            }
        }
    }
    None
}
