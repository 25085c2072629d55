//! `fwprof merge`: the sum of profiles of several runs of the same program,
//! as `gprof -s` sums `gmon.out` files and `pprof -proto a b` sums
//! profiles.
//!
//! Every count of an exact profile is a sum over the run, and runs are
//! independent, so the merged profile is exactly the profile of the runs
//! one after the other: per-address costs, each function's self and
//! inclusive costs and calls, arcs (matched by caller, callee, call site
//! and tail flag), traps (by cause and pc), totals and calling contexts
//! (matched by the path of function names from the root) are added up.
//!
//! Functions are paired by the one rule of
//! [`fwprof_profile::match_functions`] (same name; equal source files
//! first, then address order), each later profile against the functions
//! merged so far. For runs of one program the function tables are
//! identical, so every function meets itself and every address stays
//! where it was. With
//! `force`, profiles of different programs (another SHA-256 or core model)
//! are merged too: the first profile's addresses are kept, a matched
//! function's costs in a later profile are moved by their offset from the
//! function's start (to the function's first address if the offset falls
//! outside it), and a function only later profiles have keeps its addresses
//! unless they overlap an earlier function, in which case it is placed at
//! free addresses above all others. The merged profile's `meta.warnings`
//! say so. The event lists must be equal in every case.

use std::collections::{BTreeMap, HashMap};

use fwprof_profile::{
    match_functions, AddressCost, AddressSpaceSection, Arc, ContextRecord, FunctionId,
    FunctionRecord, Meta, TrapRecord,
};

use crate::{Error, Profile};

/// The sum of `profiles`, runs of the same program: a profile that passes
/// [`Profile::check_invariants`]. Its metadata is the first profile's, with
/// the earliest start time, the exit status if every run had the same, a
/// `partial` reason naming every partial run, and the warnings of all runs
/// followed by one listing every run's command line.
///
/// # Errors
/// [`Error::Mismatch`] (one line) when there is nothing to merge, when the
/// event lists differ (always), when the programs (SHA-256, or the path if
/// a SHA-256 is unknown) or core models differ and `force` is false, when
/// an input fails its invariants, or when a sum overflows 64 bits.
pub fn merge(profiles: &[Profile], force: bool) -> Result<Profile, Error> {
    let first = profiles
        .first()
        .ok_or_else(|| Error::Mismatch("nothing to merge".into()))?;
    check_compatible(profiles, force)?;
    for (i, p) in profiles.iter().enumerate() {
        p.check_invariants().map_err(|e| {
            Error::Mismatch(format!(
                "cannot merge: profile {} is inconsistent: {e}",
                i + 1
            ))
        })?;
    }
    let mut m = Merger::new(first, upper_bound(profiles));
    for (i, p) in profiles.iter().enumerate() {
        m.add(p, i == 0)?;
    }
    let merged = m.finish(profiles);
    merged
        .check_invariants()
        .map_err(|e| Error::Mismatch(format!("the merged profile is inconsistent: {e}")))?;
    Ok(merged)
}

/// `program (sha256 0123abcd)` for messages.
fn describe(p: &Profile) -> String {
    let sha = p.meta.sha256.get(..12).unwrap_or(&p.meta.sha256);
    if sha.is_empty() {
        format!("{} (SHA-256 unknown)", p.meta.program)
    } else {
        format!("{} (sha256 {sha}…)", p.meta.program)
    }
}

/// Whether two profiles are of the same program: equal SHA-256, or equal
/// paths when either SHA-256 is unknown.
fn same_program(a: &Profile, b: &Profile) -> bool {
    if a.meta.sha256.is_empty() || b.meta.sha256.is_empty() {
        a.meta.program == b.meta.program
    } else {
        a.meta.sha256 == b.meta.sha256
    }
}

fn check_compatible(profiles: &[Profile], force: bool) -> Result<(), Error> {
    let first = &profiles[0];
    for (i, p) in profiles.iter().enumerate().skip(1) {
        if p.events != first.events {
            return Err(Error::Mismatch(format!(
                "cannot merge profiles with different events: profile 1 has {} and profile {} has {}",
                first.events.join(","),
                i + 1,
                p.events.join(",")
            )));
        }
        if force {
            continue;
        }
        if !same_program(first, p) {
            return Err(Error::Mismatch(format!(
                "profiles 1 and {} are of different programs: {} and {}; --force merges them anyway",
                i + 1,
                describe(first),
                describe(p)
            )));
        }
        if p.meta.core != first.meta.core {
            let core = |m: &Meta| m.core.clone().unwrap_or_else(|| "none".into());
            return Err(Error::Mismatch(format!(
                "profiles 1 and {} were recorded with different core models: {} and {}; --force merges them anyway",
                i + 1,
                core(&first.meta),
                core(&p.meta)
            )));
        }
    }
    Ok(())
}

/// A free address above every function and instruction of every profile,
/// where functions that would overlap others are placed.
fn upper_bound(profiles: &[Profile]) -> u64 {
    let mut top = 0u64;
    for p in profiles {
        for f in &p.functions {
            top = top.max(f.end);
        }
        if let Some(c) = p.costs.get(p.costs.len().wrapping_sub(1)) {
            top = top.max(c.addr.saturating_add(u64::from(c.len)));
        }
    }
    top.saturating_add(0xfff) & !0xfff
}

/// `a + b` per event.
fn add_into(acc: &mut [u64], v: &[u64]) -> Result<(), Error> {
    for (a, b) in acc.iter_mut().zip(v) {
        *a = a
            .checked_add(*b)
            .ok_or_else(|| Error::Mismatch("a merged cost overflows 64 bits".into()))?;
    }
    Ok(())
}

fn add_count(a: &mut u64, b: u64) -> Result<(), Error> {
    *a = a
        .checked_add(b)
        .ok_or_else(|| Error::Mismatch("a merged count overflows 64 bits".into()))?;
    Ok(())
}

/// One merged per-address entry.
struct Entry {
    function: u32,
    len: u8,
    raw: u32,
    cost: Vec<u64>,
}

/// How one input function's addresses map into the merged profile.
#[derive(Clone, Copy)]
struct Mapping {
    /// Merged function id.
    id: u32,
    /// The input function's range.
    from: (u64, u64),
    /// The merged function's range.
    to: (u64, u64),
}

impl Mapping {
    /// Where address `addr` of the input function goes, and whether it had
    /// to be moved to the function's start (offset outside the function).
    fn place(&self, addr: u64) -> (u64, bool) {
        if self.from == self.to {
            return (addr, false);
        }
        let off = addr.wrapping_sub(self.from.0);
        if addr >= self.from.0 && off < self.to.1 - self.to.0 {
            (self.to.0 + off, false)
        } else {
            (self.to.0, true)
        }
    }
}

/// The merged profile under construction.
struct Merger {
    events: usize,
    functions: Vec<FunctionRecord>,
    /// Next free address for a function placed above all others.
    free: u64,
    /// Per-address costs by (address, merged function): one address has
    /// several functions only in profiles with address spaces.
    entries: BTreeMap<(u64, u32), Entry>,
    /// A run merged so far had address spaces.
    spaces: bool,
    arcs: Vec<Arc>,
    arc_index: HashMap<(Option<u32>, u32, u64, bool), usize>,
    traps: BTreeMap<(u64, u64), u64>,
    totals: Vec<u64>,
    contexts: Vec<ContextRecord>,
    context_index: HashMap<(Option<u32>, u32), u32>,
    /// The named sections merge combines.
    sections: crate::merge_sections::SectionMerger,
    /// Costs moved to a function's start (offset outside the function).
    moved: u64,
    /// Functions placed at free addresses.
    placed: Vec<String>,
}

impl Merger {
    fn new(first: &Profile, free: u64) -> Merger {
        let n = first.events.len();
        Merger {
            events: n,
            functions: Vec::new(),
            free,
            entries: BTreeMap::new(),
            spaces: false,
            arcs: Vec::new(),
            arc_index: HashMap::new(),
            traps: BTreeMap::new(),
            totals: vec![0; n],
            contexts: Vec::new(),
            context_index: HashMap::new(),
            sections: Default::default(),
            moved: 0,
            placed: Vec::new(),
        }
    }

    /// True if `[start, end)` overlaps a merged function's range (a linear
    /// scan: only functions new to the merge are checked, and only after
    /// the first profile, whose own ranges may overlap each other).
    fn overlaps(&self, start: u64, end: u64) -> bool {
        start < end
            && self
                .functions
                .iter()
                .any(|m| m.start < m.end && m.start < end && start < m.end)
    }

    /// The merged function for input function `f`: `matched`, the merged
    /// function [`match_functions`] paired it with, or a new one with zero
    /// costs; `first`: `f` is of the first profile, whose addresses are
    /// kept as they are.
    fn function(&mut self, f: &FunctionRecord, matched: Option<usize>, first: bool) -> Mapping {
        if let Some(id) = matched {
            let m = &mut self.functions[id];
            if m.file.is_none() && f.file.is_some() {
                (m.file, m.line) = (f.file.clone(), f.line);
            }
            return Mapping {
                id: id as u32,
                from: (f.start, f.end),
                to: (m.start, m.end),
            };
        }
        let id = self.functions.len() as u32;
        let (mut start, mut end) = (f.start, f.end);
        if !first && self.overlaps(start, end) {
            let len = end - start;
            start = self.free;
            end = start.saturating_add(len);
            self.free = end.saturating_add(15) & !15;
            self.placed.push(f.name.clone());
        }
        let mut rec = FunctionRecord::new(f.name.clone(), start, end);
        (rec.file, rec.line) = (f.file.clone(), f.line);
        rec.self_cost = vec![0; self.events];
        rec.inclusive = vec![0; self.events];
        self.functions.push(rec);
        Mapping {
            id,
            from: (f.start, f.end),
            to: (start, end),
        }
    }

    /// Add profile `p`; `first`: it is the first one.
    fn add(&mut self, p: &Profile, first: bool) -> Result<(), Error> {
        // Input function id → the merged function it joins, by the one rule.
        let mut partner = vec![None; p.functions.len()];
        for (merged, input) in match_functions(&self.functions, &p.functions) {
            if let Some(i) = input {
                partner[i] = merged;
            }
        }
        // Input function id → mapping.
        let mut map = Vec::with_capacity(p.functions.len());
        for (f, &matched) in p.functions.iter().zip(&partner) {
            let mapping = self.function(f, matched, first);
            let m = &mut self.functions[mapping.id as usize];
            add_into(&mut m.self_cost, &f.self_cost)?;
            add_into(&mut m.inclusive, &f.inclusive)?;
            add_count(&mut m.calls, f.calls)?;
            map.push(mapping);
        }
        // Different functions at one address are the code of different
        // address spaces, which a profile says with its `address_spaces`
        // section; otherwise they are different programs.
        self.spaces |= p.section::<AddressSpaceSection>().ok().flatten().is_some();
        let spaces = self.spaces;
        for c in p.costs.iter() {
            let mapping = map[c.function.index()];
            let (addr, moved) = mapping.place(c.addr);
            self.moved += u64::from(moved);
            let other = self
                .entries
                .range((addr, 0)..=(addr, u32::MAX))
                .map(|(&(_, f), _)| f)
                .find(|&f| f != mapping.id);
            if let (Some(f), false) = (other, spaces) {
                return Err(Error::Mismatch(format!(
                    "cannot merge: address {addr:#x} belongs to {} in one profile and to {} in another",
                    self.functions[f as usize].name,
                    self.functions[mapping.id as usize].name
                )));
            }
            match self.entries.get_mut(&(addr, mapping.id)) {
                Some(e) => add_into(&mut e.cost, c.cost)?,
                None => {
                    self.entries.insert(
                        (addr, mapping.id),
                        Entry {
                            function: mapping.id,
                            len: c.len,
                            raw: c.raw,
                            cost: c.cost.to_vec(),
                        },
                    );
                }
            }
        }
        for a in &p.arcs {
            let callee = map[a.callee.index()].id;
            let (caller, site) = match a.caller {
                Some(c) => {
                    let mc = map[c.index()];
                    (Some(mc.id), mc.place(a.call_site).0)
                }
                None => (None, a.call_site),
            };
            let key = (caller, callee, site, a.tail);
            match self.arc_index.get(&key) {
                Some(&i) => {
                    let m = &mut self.arcs[i];
                    add_count(&mut m.calls, a.calls)?;
                    add_into(&mut m.inclusive, &a.inclusive)?;
                }
                None => {
                    self.arc_index.insert(key, self.arcs.len());
                    self.arcs.push(Arc {
                        caller: caller.map(FunctionId),
                        callee: FunctionId(callee),
                        call_site: site,
                        calls: a.calls,
                        tail: a.tail,
                        inclusive: a.inclusive.clone(),
                    });
                }
            }
        }
        for t in &p.traps {
            let pc = p
                .function_at(t.pc)
                .map_or(t.pc, |f| map[f.index()].place(t.pc).0);
            add_count(self.traps.entry((t.cause, pc)).or_insert(0), t.count)?;
        }
        add_into(&mut self.totals, &p.totals)?;
        // Input context index → merged index; parents come first.
        let mut ctx = Vec::with_capacity(p.contexts.len());
        for c in &p.contexts {
            let parent = c.parent.map(|i| ctx[i as usize]);
            let key = (parent, map[c.function.index()].id);
            let idx = match self.context_index.get(&key) {
                Some(&i) => i,
                None => {
                    let i = self.contexts.len() as u32;
                    self.context_index.insert(key, i);
                    self.contexts.push(ContextRecord {
                        parent,
                        function: FunctionId(key.1),
                        calls: 0,
                        self_cost: vec![0; self.events],
                    });
                    i
                }
            };
            let m = &mut self.contexts[idx as usize];
            add_count(&mut m.calls, c.calls)?;
            add_into(&mut m.self_cost, &c.self_cost)?;
            ctx.push(idx);
        }
        let fmap: Vec<u32> = map.iter().map(|m| m.id).collect();
        self.sections.add(p, &fmap, &ctx);
        Ok(())
    }

    fn finish(self, profiles: &[Profile]) -> Profile {
        let first = &profiles[0];
        let mut meta = first.meta.clone();
        meta.start_time = profiles
            .iter()
            .map(|p| p.meta.start_time)
            .min()
            .unwrap_or(0);
        if profiles
            .iter()
            .any(|p| p.meta.exit_status != first.meta.exit_status)
        {
            meta.exit_status = None;
        }
        let partial: Vec<String> = profiles
            .iter()
            .enumerate()
            .filter_map(|(i, p)| {
                p.meta
                    .partial
                    .as_ref()
                    .map(|r| format!("run {}: {r}", i + 1))
            })
            .collect();
        meta.partial = (!partial.is_empty()).then(|| partial.join("; "));
        let mut warnings: Vec<String> = Vec::new();
        for w in profiles.iter().flat_map(|p| &p.meta.warnings) {
            if !warnings.contains(w) {
                warnings.push(w.clone());
            }
        }
        if let Some(p) = profiles.iter().find(|p| !same_program(first, p)) {
            warnings.push(format!(
                "merged with --force: runs of different programs ({} and {})",
                describe(first),
                describe(p)
            ));
        }
        if self.moved > 0 {
            warnings.push(format!(
                "{} per-address costs of other programs fell outside their function in {} and were put at its first address",
                self.moved, first.meta.program
            ));
        }
        if !self.placed.is_empty() {
            let mut names = self.placed[..self.placed.len().min(8)].join(", ");
            if self.placed.len() > 8 {
                names.push_str(&format!(" and {} more", self.placed.len() - 8));
            }
            warnings.push(format!(
                "{} functions of other programs overlapped earlier ones and were placed at free addresses: {names}",
                self.placed.len(),
            ));
        }
        // Contexts are complete only if every run recorded them.
        let contexts = if profiles
            .iter()
            .all(|p| !p.contexts.is_empty() || p.totals.iter().all(|&t| t == 0))
        {
            self.contexts
        } else {
            if profiles.iter().any(|p| !p.contexts.is_empty()) {
                warnings.push(
                    "some merged profiles have no calling-context tree: the merged profile has none"
                        .into(),
                );
            }
            Vec::new()
        };
        let commands: Vec<String> = profiles
            .iter()
            .map(|p| format!("`{}`", p.meta.command.join(" ")))
            .collect();
        warnings.push(format!(
            "merged from {} runs: {}",
            profiles.len(),
            commands.join(", ")
        ));
        meta.warnings = warnings;

        let mut out = Profile::new(meta, first.events.clone());
        out.functions = self.functions;
        for ((addr, _), e) in self.entries {
            // Keys are unique and ascending, lengths come from valid
            // profiles: push cannot fail.
            let _ = out.costs.push(AddressCost {
                addr,
                function: FunctionId(e.function),
                len: e.len,
                raw: e.raw,
                cost: e.cost,
            });
        }
        out.arcs = self.arcs;
        out.traps = self
            .traps
            .into_iter()
            .map(|((cause, pc), count)| TrapRecord { cause, pc, count })
            .collect();
        out.totals = self.totals;
        out.contexts = contexts;
        // Named sections (docs/profile-format.md, "Growth"): merge keeps
        // those it knows how to combine (`merge_sections`); each one
        // dropped is named once.
        for name in self.sections.finish(&mut out, profiles) {
            out.meta.warnings.push(format!(
                "section \"{name}\" is not combined by merge: the merged profile has none"
            ));
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `main` (started `n` times) calls `work` twice from 0x104 each time;
    /// `n` scales every count.
    fn run(n: u64, sha: &str) -> Profile {
        let mut meta = Meta::new("prog.elf");
        // A SHA-256 is 64 hex digits (`Profile::validate`): repeat the pattern.
        meta.sha256 = sha.repeat(64 / sha.len());
        meta.command = vec!["prog.elf".into(), n.to_string()];
        let mut p = Profile::new(meta, vec!["instructions".into(), "cycles".into()]);
        let main = p.add_function(FunctionRecord::new("main", 0x100, 0x110));
        let work = p.add_function(FunctionRecord::new("work", 0x110, 0x120));
        for (addr, f, c) in [
            (0x100, main, 2 * n),
            (0x104, main, n),
            (0x110, work, 10 * n),
        ] {
            p.costs
                .push(AddressCost {
                    addr,
                    function: f,
                    len: 4,
                    raw: 0x13,
                    cost: vec![c, 2 * c],
                })
                .unwrap();
        }
        let f = &mut p.functions;
        (f[0].calls, f[0].self_cost, f[0].inclusive) =
            (n, vec![3 * n, 6 * n], vec![13 * n, 26 * n]);
        (f[1].calls, f[1].self_cost, f[1].inclusive) =
            (2 * n, vec![10 * n, 20 * n], vec![10 * n, 20 * n]);
        p.arcs.push(Arc::spontaneous(main, n, vec![13 * n, 26 * n]));
        p.arcs.push(Arc {
            caller: Some(main),
            callee: work,
            call_site: 0x104,
            calls: 2 * n,
            tail: false,
            inclusive: vec![10 * n, 20 * n],
        });
        p.traps.push(TrapRecord {
            cause: 8,
            pc: 0x104,
            count: n,
        });
        p.totals = vec![13 * n, 26 * n];
        p.contexts = vec![
            ContextRecord {
                parent: None,
                function: main,
                calls: 0,
                self_cost: vec![3 * n, 6 * n],
            },
            ContextRecord {
                parent: Some(0),
                function: work,
                calls: 2 * n,
                self_cost: vec![10 * n, 20 * n],
            },
        ];
        p.check_invariants().unwrap();
        p
    }

    #[test]
    fn runs_of_one_program_add_up() {
        let m = merge(&[run(1, "aa"), run(2, "aa")], false).unwrap();
        let mut want = run(3, "aa");
        // Everything but the metadata is the profile of a run three times as long.
        want.meta = m.meta.clone();
        assert_eq!(m, want);
        assert_eq!(
            m.meta.warnings,
            ["merged from 2 runs: `prog.elf 1`, `prog.elf 2`"]
        );
        assert_eq!(m.meta.command, ["prog.elf", "1"]);
    }

    #[test]
    fn mismatches_are_refused_in_one_line() {
        let e = merge(&[run(1, "aa"), run(1, "bb")], false).unwrap_err();
        assert_eq!(
            e.to_string(),
            "profiles 1 and 2 are of different programs: prog.elf (sha256 aaaaaaaaaaaa…) and prog.elf (sha256 bbbbbbbbbbbb…); --force merges them anyway"
        );
        let m = merge(&[run(1, "aa"), run(1, "bb")], true).unwrap();
        assert_eq!(m.totals, [26, 52]);
        assert!(m.meta.warnings[0].starts_with("merged with --force"));

        let mut other = run(1, "aa");
        other.events[1] = "loads".into();
        for force in [false, true] {
            let e = merge(&[run(1, "aa"), other.clone()], force).unwrap_err();
            assert_eq!(
                e.to_string(),
                "cannot merge profiles with different events: profile 1 has instructions,cycles and profile 2 has instructions,loads"
            );
        }
        let mut core = run(1, "aa");
        core.meta.core = Some("ibex".into());
        let e = merge(&[run(1, "aa"), core], false).unwrap_err();
        assert!(
            e.to_string()
                .contains("different core models: none and ibex"),
            "{e}"
        );
        assert!(merge(&[], false).is_err());
    }

    #[test]
    fn other_programs_are_moved_by_offset_or_placed_apart() {
        // The same functions 0x40 higher, plus `extra` over main's old place.
        let mut b = run(1, "bb");
        for f in &mut b.functions {
            f.start += 0x40;
            f.end += 0x40;
        }
        let mut costs = fwprof_profile::AddressCosts::new(2);
        let extra = b.add_function(FunctionRecord::new("extra", 0x100, 0x108));
        b.functions[extra.index()].self_cost = vec![5, 5];
        b.functions[extra.index()].inclusive = vec![5, 5];
        b.functions[extra.index()].calls = 1;
        b.arcs.push(Arc::spontaneous(extra, 1, vec![5, 5]));
        costs
            .push(AddressCost {
                addr: 0x100,
                function: extra,
                len: 2,
                raw: 0x1,
                cost: vec![5, 5],
            })
            .unwrap();
        for c in b.costs.iter() {
            costs
                .push(AddressCost {
                    addr: c.addr + 0x40,
                    function: c.function,
                    len: c.len,
                    raw: c.raw,
                    cost: c.cost.to_vec(),
                })
                .unwrap();
        }
        b.costs = costs;
        b.arcs[1].call_site += 0x40;
        b.traps[0].pc += 0x40;
        b.totals = vec![18, 31];
        b.contexts.push(ContextRecord {
            parent: None,
            function: extra,
            calls: 0,
            self_cost: vec![5, 5],
        });
        b.check_invariants().unwrap();

        let m = merge(&[run(1, "aa"), b], true).unwrap();
        assert_eq!(m.costs.find(0x100).unwrap().cost, [4, 8]);
        assert_eq!(m.costs.find(0x110).unwrap().cost, [20, 40]);
        assert_eq!(m.arcs[1].call_site, 0x104);
        assert_eq!(m.arcs[1].calls, 4);
        assert_eq!(m.traps.len(), 1);
        let extra = &m.functions[2];
        assert_eq!((extra.start, extra.end), (0x1000, 0x1008));
        assert_eq!(m.costs.find(0x1000).unwrap().cost, [5, 5]);
        assert_eq!(m.contexts.len(), 3);
        assert!(m
            .meta
            .warnings
            .iter()
            .any(|w| w.contains("placed at free addresses: extra")));
    }

    #[test]
    fn contexts_are_dropped_unless_every_run_has_them() {
        let mut old = run(1, "aa");
        old.contexts.clear();
        let m = merge(&[run(1, "aa"), old], false).unwrap();
        assert!(m.contexts.is_empty());
        assert!(m.meta.warnings[0].contains("no calling-context tree"));
    }

    #[test]
    fn sections_merge_cannot_combine_are_dropped_and_named() {
        let mut a = run(1, "aa");
        let section = fwprof_profile::Section::new(1, false, vec![0xf6]);
        a.sections.insert("future.paths".into(), section.clone());
        let mut b = run(1, "aa");
        b.sections.insert("future.paths".into(), section.clone());
        b.sections.insert("hart-costs".into(), section);
        let m = merge(&[a, b], false).unwrap();
        assert!(m.sections.is_empty());
        let named: Vec<&String> = m
            .meta
            .warnings
            .iter()
            .filter(|w| w.starts_with("section "))
            .collect();
        assert_eq!(
            named,
            [
                "section \"future.paths\" is not combined by merge: the merged profile has none",
                "section \"hart-costs\" is not combined by merge: the merged profile has none",
            ]
        );
    }

    #[test]
    fn partial_runs_are_named() {
        let mut b = run(1, "aa");
        b.meta.partial = Some("instruction limit".into());
        b.meta.exit_status = Some(3);
        let m = merge(&[run(1, "aa"), b], false).unwrap();
        assert_eq!(m.meta.partial.as_deref(), Some("run 2: instruction limit"));
        assert_eq!(m.meta.exit_status, None);
    }
}
