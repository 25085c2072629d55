//! The calling-context tree and the call-graph arc table shared by every
//! collector (exact call tracking, instrumentation, sampling): dense ids
//! in order of first appearance, with recursion folding past
//! [`MAX_CONTEXTS`] contexts. Costs stay with the collectors, in vectors
//! indexed by these ids.

use std::collections::HashMap;

/// Contexts kept before recursion is folded: past this many, a new
/// context of a function that already has an activation on the stack (or
/// a frame on the sampled path) reuses that activation's context, so the
/// tree stays bounded by the program's recursion-free paths. Collectors
/// report the folding (e.g. [`crate::ExactData::contexts_folded`]).
pub const MAX_CONTEXTS: usize = 1 << 20;

/// No parent context (a root) / no caller (the program's root).
pub(crate) const NONE: u32 = u32::MAX;

/// Entries in the direct-mapped caches in front of the maps (a power of two).
const CACHE: usize = 1024;

/// The shape of a calling-context tree: node `i` is `(parent, function)`,
/// its parent an index below `i` or [`NONE`].
#[derive(Clone, Debug)]
pub(crate) struct ContextTree {
    nodes: Vec<(u32, u32)>,
    index: HashMap<(u32, u32), u32>,
    /// Direct-mapped cache in front of `index`: `(parent, function, ctx)`,
    /// folded answers included.
    cache: Vec<(u32, u32, u32)>,
    cap: usize,
    folded: bool,
}

impl Default for ContextTree {
    fn default() -> ContextTree {
        ContextTree::with_cap(MAX_CONTEXTS)
    }
}

impl ContextTree {
    /// An empty tree that folds recursion past `cap` contexts.
    pub(crate) fn with_cap(cap: usize) -> ContextTree {
        ContextTree {
            nodes: Vec::new(),
            index: HashMap::new(),
            cache: Vec::new(),
            cap,
            folded: false,
        }
    }

    /// The context of `function` called from context `parent` ([`NONE`]
    /// for a root), created if new: then it is `self.len() - 1`, and the
    /// caller adds its costs' slot. Past the cap, `on_stack` is asked for
    /// the context of the innermost activation of `function` on the
    /// stack; if there is one, it is the answer (recursion is folded, and
    /// [`ContextTree::folded`] becomes true). A folded answer is cached
    /// like any other for the same `(parent, function)`.
    #[inline(always)]
    pub(crate) fn child(
        &mut self,
        parent: u32,
        function: u32,
        on_stack: impl FnOnce() -> Option<u32>,
    ) -> u32 {
        let slot = ((parent as usize).wrapping_mul(31) ^ function as usize) & (CACHE - 1);
        if self.cache.is_empty() {
            self.cache = vec![(NONE, NONE, NONE); CACHE];
        }
        let e = self.cache[slot];
        if (e.0, e.1) == (parent, function) {
            return e.2;
        }
        let id = self.child_slow(parent, function, on_stack);
        self.cache[slot] = (parent, function, id);
        id
    }

    #[cold]
    fn child_slow(
        &mut self,
        parent: u32,
        function: u32,
        on_stack: impl FnOnce() -> Option<u32>,
    ) -> u32 {
        if let Some(&id) = self.index.get(&(parent, function)) {
            return id;
        }
        if self.nodes.len() >= self.cap {
            if let Some(ctx) = on_stack() {
                self.folded = true;
                return ctx;
            }
        }
        let id = self.nodes.len() as u32;
        self.nodes.push((parent, function));
        self.index.insert((parent, function), id);
        id
    }

    /// `(parent, function)` of each context, parents first; the parent
    /// `None` for a root.
    #[cfg(test)]
    pub(crate) fn nodes(&self) -> impl Iterator<Item = (Option<u32>, u32)> + '_ {
        self.nodes
            .iter()
            .map(|&(p, f)| ((p != NONE).then_some(p), f))
    }

    /// Recursion was folded to keep the tree within its cap.
    pub(crate) fn folded(&self) -> bool {
        self.folded
    }
}

/// Key of a call-graph arc: caller ([`NONE`] for the program's root),
/// callee, call-site address, and whether it was entered by a tail call.
pub(crate) type ArcKey = (u32, u32, u64, bool);

/// The call-graph arcs seen so far, by dense id in order of first traversal.
#[derive(Clone, Debug, Default)]
pub(crate) struct ArcTable {
    keys: Vec<ArcKey>,
    index: HashMap<ArcKey, u32>,
    /// Direct-mapped cache in front of `index`, by call site and callee.
    cache: Vec<CachedArc>,
}

/// An entry of [`ArcTable`]'s cache: the key packed for the compare
/// (`pair` = caller | callee << 32) and its id.
#[derive(Clone, Copy, Debug)]
struct CachedArc {
    site: u64,
    pair: u64,
    tail: bool,
    id: u32,
}

impl CachedArc {
    /// Matches no key: no arc has caller and callee both `NONE`.
    const EMPTY: CachedArc = CachedArc {
        site: u64::MAX,
        pair: u64::MAX,
        tail: false,
        id: 0,
    };
}

impl ArcTable {
    /// The id of arc `key`, created if new (then it is `self.len() - 1`,
    /// and the caller adds its costs' slot).
    #[inline(always)]
    pub(crate) fn id(&mut self, key: ArcKey) -> u32 {
        let slot = ((key.2 >> 1) as usize ^ key.1 as usize) & (CACHE - 1);
        if self.cache.is_empty() {
            self.cache = vec![CachedArc::EMPTY; CACHE];
        }
        // Two 64-bit compares and a byte, not four field compares.
        let pair = u64::from(key.0) | (u64::from(key.1) << 32);
        let e = self.cache[slot];
        if e.site == key.2 && e.pair == pair && e.tail == key.3 {
            return e.id;
        }
        let id = self.id_slow(key);
        self.cache[slot] = CachedArc {
            site: key.2,
            pair,
            tail: key.3,
            id,
        };
        id
    }

    #[cold]
    fn id_slow(&mut self, key: ArcKey) -> u32 {
        if let Some(&id) = self.index.get(&key) {
            return id;
        }
        let id = self.keys.len() as u32;
        self.keys.push(key);
        self.index.insert(key, id);
        id
    }

    /// Number of arcs.
    #[cfg(test)]
    pub(crate) fn len(&self) -> usize {
        self.keys.len()
    }

    /// The arcs' keys, by id.
    pub(crate) fn keys(&self) -> &[ArcKey] {
        &self.keys
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn contexts_are_dense_and_folded_past_the_cap() {
        let mut t = ContextTree::with_cap(3);
        let main = t.child(NONE, 0, || unreachable!());
        let f1 = t.child(main, 1, || unreachable!());
        let f2 = t.child(f1, 1, || unreachable!());
        assert_eq!((main, f1, f2), (0, 1, 2));
        assert_eq!(t.child(f1, 1, || unreachable!()), f2);
        // Full: f under f2 reuses the innermost activation of f on the stack.
        assert_eq!(t.child(f2, 1, || Some(f2)), f2);
        assert!(t.folded());
        // A function not on the stack still gets a context.
        assert_eq!(t.child(f2, 7, || None), 3);
        assert_eq!(
            t.nodes().collect::<Vec<_>>(),
            vec![(None, 0), (Some(0), 1), (Some(1), 1), (Some(2), 7)]
        );
    }

    #[test]
    fn arcs_are_dense_in_first_traversal_order() {
        let mut a = ArcTable::default();
        let k = |caller, callee, site, tail| (caller, callee, site, tail);
        assert_eq!(a.id(k(NONE, 0, 0, false)), 0);
        assert_eq!(a.id(k(0, 1, 0x10, false)), 1);
        assert_eq!(a.id(k(0, 1, 0x10, true)), 2);
        assert_eq!(a.id(k(0, 1, 0x10, false)), 1);
        // Colliding cache slots still find their arc.
        assert_eq!(a.id(k(0, 1, 0x10 + 2048, false)), 3);
        assert_eq!(a.id(k(0, 1, 0x10, false)), 1);
        assert_eq!(a.len(), 4);
        assert_eq!(a.keys()[3], k(0, 1, 0x810, false));
    }
}
