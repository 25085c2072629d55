//! The calling-context tree as stacks: the one stack walk the folded,
//! flame-graph, speedscope and pprof exporters share, linear in the size
//! of the tree.
//!
//! Writing every context's full path would be quadratic in the depth of
//! recursion (a context at depth *d* repeats the *d* - 1 frames of its
//! parent: a recursion 10⁶ deep gives 5·10¹¹ frames). So stacks are exact
//! up to [`MAX_EXACT_FRAMES`] frames, and beyond that recursion is folded:
//! a frame past the first [`MAX_EXACT_FRAMES`] whose function already
//! appears past that point cuts the stack back to that earlier frame,
//! which is marked folded and written with [`FOLDED_SUFFIX`]. A recursion
//! 10⁶ deep thus writes its first 1024 levels exactly and every deeper
//! level as one frame `f [recursion folded]` on top of them, its cost the
//! sum of theirs. Without recursion the stack past 1024 frames stays
//! exact.
//!
//! The stacks form a prefix tree (`Stacks`, crate-private): each node is a frame under
//! its parent's stack, interned so that contexts with the same (folded)
//! stack share a node. Building it costs one hash lookup per context (a
//! cut is searched once per distinct node and function); writing a stack
//! costs its length, at most [`MAX_EXACT_FRAMES`] plus the number of
//! distinct functions folded above them.

use std::collections::HashMap;

use fwprof_profile::FunctionId;

use crate::{folded, Error, Profile};

/// Frames of a stack kept exactly before recursion is folded.
pub const MAX_EXACT_FRAMES: u32 = 1024;

/// Appended to the name of a frame that stands for folded recursion.
pub const FOLDED_SUFFIX: &str = " [recursion folded]";

/// One frame of a stack.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) struct Frame {
    /// The function.
    pub function: FunctionId,
    /// The frame stands for recursion folded past [`MAX_EXACT_FRAMES`].
    pub folded: bool,
}

/// A node of the prefix tree: a frame under its parent's stack.
#[derive(Clone, Copy, Debug)]
struct Node {
    parent: Option<u32>,
    frame: Frame,
    /// Frames from the root to this one (1 for a root).
    depth: u32,
    /// Some frame from the root to this one is folded.
    folded_path: bool,
}

/// The stacks of a profile's calling contexts (see the module docs).
pub(crate) struct Stacks {
    nodes: Vec<Node>,
    /// The node of every context of [`Profile::contexts`].
    of_context: Vec<u32>,
}

impl Stacks {
    /// The stacks of `profile`'s calling contexts; `event` is checked to
    /// be an event of the profile.
    ///
    /// # Errors
    /// Those of [`folded::checked_contexts`]: no or a malformed tree, an
    /// event out of range.
    pub fn new(profile: &Profile, event: usize) -> Result<Stacks, Error> {
        let contexts = folded::checked_contexts(profile, event)?;
        let mut s = Stacks {
            nodes: Vec::new(),
            of_context: Vec::with_capacity(contexts.len()),
        };
        let mut interned: HashMap<(u32, Frame), u32> = HashMap::new();
        let mut cut: HashMap<(u32, FunctionId), u32> = HashMap::new();
        for c in contexts {
            // Parents come before children (checked), so this exists.
            let parent = c.parent.map(|p| s.of_context[p as usize]);
            let plain = Frame {
                function: c.function,
                folded: false,
            };
            let node = match parent {
                Some(p) if s.nodes[p as usize].depth >= MAX_EXACT_FRAMES => {
                    match cut.get(&(p, c.function)) {
                        Some(&n) => n,
                        None => {
                            let n = match s.repeat_above_exact(p, c.function) {
                                Some(at) => {
                                    let above = s.nodes[at as usize].parent;
                                    let frame = Frame {
                                        function: c.function,
                                        folded: true,
                                    };
                                    s.intern(&mut interned, above, frame)
                                }
                                None => s.intern(&mut interned, Some(p), plain),
                            };
                            cut.insert((p, c.function), n);
                            n
                        }
                    }
                }
                _ => s.intern(&mut interned, parent, plain),
            };
            s.of_context.push(node);
        }
        Ok(s)
    }

    /// The node for `frame` under `parent`, created if new.
    fn intern(
        &mut self,
        interned: &mut HashMap<(u32, Frame), u32>,
        parent: Option<u32>,
        frame: Frame,
    ) -> u32 {
        let key = (parent.unwrap_or(u32::MAX), frame);
        if let Some(&n) = interned.get(&key) {
            return n;
        }
        let (depth, folded_path) = parent.map_or((0, false), |p| {
            let n = &self.nodes[p as usize];
            (n.depth, n.folded_path)
        });
        let id = self.nodes.len() as u32;
        self.nodes.push(Node {
            parent,
            frame,
            depth: depth + 1,
            folded_path: folded_path || frame.folded,
        });
        interned.insert(key, id);
        id
    }

    /// The node, from `node` up to (not including) the first
    /// [`MAX_EXACT_FRAMES`] frames, whose function is `f`.
    fn repeat_above_exact(&self, node: u32, f: FunctionId) -> Option<u32> {
        let mut at = Some(node);
        while let Some(n) = at {
            let node = &self.nodes[n as usize];
            if node.depth <= MAX_EXACT_FRAMES {
                return None;
            }
            if node.frame.function == f {
                return Some(n);
            }
            at = node.parent;
        }
        None
    }

    /// Number of nodes (distinct stacks); node ids are `0..len()`, parents
    /// before children.
    pub fn len(&self) -> usize {
        self.nodes.len()
    }

    /// The node of context `i`.
    pub fn node_of(&self, context: usize) -> usize {
        self.of_context[context] as usize
    }

    /// The parent node of `node`.
    pub fn parent(&self, node: usize) -> Option<usize> {
        self.nodes[node].parent.map(|p| p as usize)
    }

    /// True if some frame of `node`'s stack is folded.
    pub fn is_folded(&self, node: usize) -> bool {
        self.nodes[node].folded_path
    }

    /// The frames of `node`'s stack, root first, into `out` (cleared).
    pub fn frames(&self, node: usize, out: &mut Vec<Frame>) {
        out.clear();
        let mut at = Some(node);
        while let Some(n) = at {
            out.push(self.nodes[n].frame);
            at = self.parent(n);
        }
        out.reverse();
    }

    /// Per node, the sum of the self costs of its contexts for `event`.
    pub fn values(&self, profile: &Profile, event: usize) -> Vec<u64> {
        let mut v = vec![0u64; self.nodes.len()];
        for (i, c) in profile.contexts.iter().enumerate() {
            let n = self.node_of(i);
            v[n] = v[n].saturating_add(c.self_cost[event]);
        }
        v
    }
}

/// How many calling contexts with a cost have their stack folded by the
/// stack exporters (folded, flamegraph, speedscope, pprof): 0 unless some
/// stack is deeper than [`MAX_EXACT_FRAMES`] frames with recursion there.
/// The CLI says so on stderr.
///
/// # Errors
/// Those of the exporters for a missing or malformed calling-context tree.
pub fn folded_stack_count(profile: &Profile) -> Result<u64, Error> {
    if profile.contexts.is_empty() || profile.events.is_empty() {
        return Ok(0);
    }
    let stacks = Stacks::new(profile, 0)?;
    Ok(profile
        .contexts
        .iter()
        .enumerate()
        .filter(|(i, c)| {
            stacks.is_folded(stacks.node_of(*i)) && c.self_cost.iter().any(|&v| v != 0)
        })
        .count() as u64)
}

#[cfg(test)]
mod tests {
    use super::*;
    use fwprof_profile::{ContextRecord, FunctionRecord, Meta};

    /// main -> rec^depth -> leaf at the bottom, each with cost 1.
    fn recursion(depth: u32) -> Profile {
        let mut p = Profile::new(Meta::new("t.elf"), vec!["instructions".into()]);
        for (name, s) in [("main", 0x100), ("rec", 0x200), ("leaf", 0x300)] {
            p.add_function(FunctionRecord::new(name, s, s + 0x10));
        }
        let ctx = |parent: Option<usize>, f| ContextRecord {
            parent: parent.map(|p| p as u32),
            function: FunctionId(f),
            calls: 1,
            self_cost: vec![1],
        };
        p.contexts.push(ctx(None, 0));
        for d in 0..depth as usize {
            p.contexts.push(ctx(Some(d), 1));
        }
        p.contexts.push(ctx(Some(depth as usize), 2));
        p
    }

    fn names(p: &Profile, s: &Stacks, node: usize) -> Vec<String> {
        let mut frames = Vec::new();
        s.frames(node, &mut frames);
        frames
            .iter()
            .map(|f| {
                let n = &p.functions[f.function.index()].name;
                if f.folded {
                    format!("{n}{FOLDED_SUFFIX}")
                } else {
                    n.clone()
                }
            })
            .collect()
    }

    #[test]
    fn shallow_stacks_are_exact() {
        let p = recursion(MAX_EXACT_FRAMES - 2);
        let s = Stacks::new(&p, 0).unwrap();
        assert_eq!(s.len(), p.contexts.len());
        let leaf = names(&p, &s, s.node_of(p.contexts.len() - 1));
        assert_eq!(leaf.len(), MAX_EXACT_FRAMES as usize);
        assert_eq!(folded_stack_count(&p).unwrap(), 0);
    }

    #[test]
    fn deep_recursion_folds_into_one_frame_above_the_exact_part() {
        let depth = 100_000;
        let p = recursion(depth);
        let s = Stacks::new(&p, 0).unwrap();
        // 1024 exact nodes, the 1025th frame, its folded repeat, the leaf
        // under each of them.
        let exact = MAX_EXACT_FRAMES as usize;
        let leaf = names(&p, &s, s.node_of(p.contexts.len() - 1));
        assert_eq!(leaf.len(), exact + 2, "{:?}", &leaf[exact - 2..]);
        assert_eq!(leaf[exact], format!("rec{FOLDED_SUFFIX}"));
        assert_eq!(leaf[exact + 1], "leaf");
        assert!(s.len() <= exact + 3, "{} nodes", s.len());
        let values = s.values(&p, 0);
        assert_eq!(values.iter().sum::<u64>(), p.contexts.len() as u64);
        let deep = s.node_of(p.contexts.len() - 2);
        assert_eq!(
            values[deep],
            u64::from(depth) + 1 - MAX_EXACT_FRAMES as u64 - 1
        );
        // Every context past 1025 frames (and the leaf under them).
        assert_eq!(
            folded_stack_count(&p).unwrap(),
            u64::from(depth) + 2 - MAX_EXACT_FRAMES as u64 - 1
        );
    }

    #[test]
    fn mutual_recursion_folds_too() {
        let mut p = recursion(0);
        p.contexts.truncate(1);
        let b = p.add_function(FunctionRecord::new("b", 0x400, 0x410));
        for d in 0..3000usize {
            let f = if d % 2 == 0 { FunctionId(1) } else { b };
            p.contexts.push(ContextRecord {
                parent: Some(d as u32),
                function: f,
                calls: 1,
                self_cost: vec![1],
            });
        }
        let s = Stacks::new(&p, 0).unwrap();
        // 1024 exact frames; past them rec and b plain once (depths 1025,
        // 1026), then the folded frame of the function seen again and the
        // other function above it.
        assert_eq!(s.len(), MAX_EXACT_FRAMES as usize + 4);
        let deepest = names(&p, &s, s.node_of(p.contexts.len() - 1));
        assert!(
            deepest.len() <= MAX_EXACT_FRAMES as usize + 2,
            "{}",
            deepest.len()
        );
        // Contexts at depths 1..=3001; those from depth 1027 on are folded.
        assert_eq!(folded_stack_count(&p).unwrap(), 3001 - 1026);
    }
}
