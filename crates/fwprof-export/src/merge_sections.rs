//! How `fwprof merge` combines the named sections it knows
//! (docs/profile-format.md, "Sections"): `traps` — causes matched by
//! (interrupt, code), counts and costs added, latencies' minimum, maximum
//! and sum combined, roots mapped to the merged functions — when every run
//! that took a trap has the section; `privilege` — costs per level added
//! per merged function and context — when every run has it;
//! `address_spaces` — spaces matched by `satp`, costs added per space and
//! merged function (a run without the section ran in the physical space
//! only) — when any run has it; `images` — images matched by name,
//! functions mapped to the merged ones, copies combined — when every run
//! has it; `stacks` — per stack name, the deepest run's mark — when any
//! run has it. Anything else is dropped and named in a warning.

use std::collections::BTreeMap;

use fwprof_profile::{
    AddressSpace, AddressSpaceSection, ContextLevelCost, FunctionId, FunctionLevelCost, Image,
    ImageSection, Level, LevelCost, PrivilegeSection, Profile, SectionKind, SpaceFunctionCost,
    StackRecord, StackSection, TrapCause, TrapSection,
};

/// The sections being combined, run by run.
#[derive(Default)]
pub(crate) struct SectionMerger {
    traps: BTreeMap<(bool, u64), TrapCause>,
    traps_complete: bool,
    totals: BTreeMap<Level, Vec<u64>>,
    functions: BTreeMap<(u32, Level), Vec<u64>>,
    contexts: BTreeMap<(u32, Level), Vec<u64>>,
    privilege_complete: bool,
    /// Address spaces by `satp`, in order of first appearance, with costs
    /// per merged function.
    spaces: Vec<(AddressSpace, BTreeMap<u32, Vec<u64>>)>,
    any_spaces: bool,
    /// Images by name, in order of first appearance, functions remapped;
    /// `images_complete` while every run had the section.
    images: Vec<Image>,
    images_complete: bool,
    /// Stack marks by name, in order of first appearance: the deepest.
    stacks: Vec<StackRecord>,
    runs: usize,
}

fn add(dst: &mut Vec<u64>, v: &[u64]) {
    if dst.len() < v.len() {
        dst.resize(v.len(), 0);
    }
    for (d, s) in dst.iter_mut().zip(v) {
        *d = d.saturating_add(*s);
    }
}

impl SectionMerger {
    /// Add run `p`, whose function `i` became merged function `fmap[i]` and
    /// context `j` merged context `cmap[j]`.
    pub(crate) fn add(&mut self, p: &Profile, fmap: &[u32], cmap: &[u32]) {
        if self.runs == 0 {
            self.traps_complete = true;
            self.privilege_complete = true;
            self.images_complete = true;
        }
        if let Some(s) = p.section::<StackSection>().ok().flatten() {
            for r in s.stacks {
                match self.stacks.iter_mut().find(|m| m.name == r.name) {
                    Some(m) if m.bytes >= r.bytes => {}
                    Some(m) => *m = r,
                    None => self.stacks.push(r),
                }
            }
        }
        match p.section::<ImageSection>().ok().flatten() {
            Some(s) => {
                for image in s.images {
                    let i = match self.images.iter().position(|m| m.name == image.name) {
                        Some(i) => i,
                        None => {
                            self.images.push(Image {
                                functions: Vec::new(),
                                copies: Vec::new(),
                                ..image.clone()
                            });
                            self.images.len() - 1
                        }
                    };
                    let m = &mut self.images[i];
                    for f in &image.functions {
                        let id = FunctionId(fmap[f.index()]);
                        if !m.functions.contains(&id) {
                            m.functions.push(id);
                        }
                    }
                    for d in image.copies {
                        if !m.copies.contains(&d) {
                            m.copies.push(d);
                        }
                    }
                }
            }
            None => self.images_complete = false,
        }
        self.runs += 1;
        match p.section::<TrapSection>().ok().flatten() {
            Some(t) => {
                for c in t.causes {
                    let root = FunctionId(fmap[c.root.index()]);
                    match self.traps.get_mut(&(c.interrupt, c.code)) {
                        Some(m) => {
                            m.count += c.count;
                            add(&mut m.self_cost, &c.self_cost);
                            add(&mut m.inclusive, &c.inclusive);
                            m.latency = match (m.latency, c.latency) {
                                (Some(a), Some(b)) => Some(a.merged(b)),
                                (a, b) => a.or(b),
                            };
                        }
                        None => {
                            self.traps
                                .insert((c.interrupt, c.code), TrapCause { root, ..c });
                        }
                    }
                }
            }
            None if !p.traps.is_empty() => self.traps_complete = false,
            None => {}
        }
        match p.section::<PrivilegeSection>().ok().flatten() {
            Some(s) => {
                for t in s.totals {
                    add(self.totals.entry(t.level).or_default(), &t.cost);
                }
                for f in s.functions {
                    add(
                        self.functions
                            .entry((fmap[f.function.index()], f.level))
                            .or_default(),
                        &f.self_cost,
                    );
                }
                for c in s.contexts {
                    if let Some(&m) = cmap.get(c.context as usize) {
                        add(self.contexts.entry((m, c.level)).or_default(), &c.self_cost);
                    }
                }
            }
            None if p.totals.iter().any(|&t| t > 0) => self.privilege_complete = false,
            None => {}
        }
        // A run without address spaces ran all its code in the physical one.
        let spaces = match p.section::<AddressSpaceSection>().ok().flatten() {
            Some(s) => {
                self.any_spaces = true;
                s.spaces
            }
            None => {
                let mut s = AddressSpace::from_satp(0, p.meta.xlen);
                s.cost = p.totals.clone();
                s.functions = p
                    .functions
                    .iter()
                    .enumerate()
                    .filter(|(_, f)| f.self_cost.iter().any(|&c| c > 0))
                    .map(|(i, f)| SpaceFunctionCost {
                        function: FunctionId(i as u32),
                        self_cost: f.self_cost.clone(),
                    })
                    .collect();
                vec![s]
            }
        };
        for s in spaces {
            let i = match self.spaces.iter().position(|(m, _)| m.satp == s.satp) {
                Some(i) => i,
                None => {
                    let empty = AddressSpace {
                        cost: Vec::new(),
                        functions: Vec::new(),
                        ..s.clone()
                    };
                    self.spaces.push((empty, BTreeMap::new()));
                    self.spaces.len() - 1
                }
            };
            let (m, funcs) = &mut self.spaces[i];
            add(&mut m.cost, &s.cost);
            for f in s.functions {
                add(
                    funcs.entry(fmap[f.function.index()]).or_default(),
                    &f.self_cost,
                );
            }
        }
    }

    /// Store the combined sections in `out` (contexts only if `out` kept
    /// its calling-context tree); the names of the sections of `profiles`
    /// that were not combined.
    pub(crate) fn finish(self, out: &mut Profile, profiles: &[Profile]) -> Vec<String> {
        let mut kept: Vec<&str> = Vec::new();
        if self.traps_complete && !self.traps.is_empty() {
            let mut causes: Vec<TrapCause> = self.traps.into_values().collect();
            causes.sort_by_key(|c| (!c.interrupt, c.code));
            if out.set_section(&TrapSection { causes }).is_ok() {
                kept.push(TrapSection::NAME);
            }
        }
        if self.privilege_complete && !self.totals.is_empty() {
            let keep_contexts = !out.contexts.is_empty();
            let s = PrivilegeSection {
                totals: self
                    .totals
                    .into_iter()
                    .map(|(level, cost)| LevelCost { level, cost })
                    .collect(),
                functions: self
                    .functions
                    .into_iter()
                    .map(|((f, level), self_cost)| FunctionLevelCost {
                        function: FunctionId(f),
                        level,
                        self_cost,
                    })
                    .collect(),
                contexts: self
                    .contexts
                    .into_iter()
                    .filter(|_| keep_contexts)
                    .map(|((context, level), self_cost)| ContextLevelCost {
                        context,
                        level,
                        self_cost,
                    })
                    .collect(),
            };
            if out.set_section(&s).is_ok() {
                kept.push(PrivilegeSection::NAME);
            }
        }
        if self.any_spaces {
            // The physical space first, as recorded.
            let mut spaces = self.spaces;
            spaces.sort_by_key(|(s, _)| s.satp != 0);
            let spaces = spaces
                .into_iter()
                .map(|(mut s, funcs)| {
                    s.functions = funcs
                        .into_iter()
                        .map(|(f, self_cost)| SpaceFunctionCost {
                            function: FunctionId(f),
                            self_cost,
                        })
                        .collect();
                    s
                })
                .collect();
            if out.set_section(&AddressSpaceSection { spaces }).is_ok() {
                kept.push(AddressSpaceSection::NAME);
            }
        }
        if !self.stacks.is_empty() {
            let stacks = self.stacks;
            if out.set_section(&StackSection { stacks }).is_ok() {
                kept.push(StackSection::NAME);
            }
        }
        if self.images_complete && !self.images.is_empty() {
            let images = self.images;
            if out.set_section(&ImageSection { images }).is_ok() {
                kept.push(ImageSection::NAME);
            }
        }
        let mut dropped: Vec<String> = profiles
            .iter()
            .flat_map(|p| p.sections.keys().cloned())
            .filter(|n| !kept.contains(&n.as_str()))
            .collect();
        dropped.sort_unstable();
        dropped.dedup();
        dropped
    }
}
