//! The function table: a partition of the executable address ranges into
//! functions (from symbols) and `[unknown 0x...]` gaps.

use std::collections::BTreeMap;

/// Dense index of a function in a [`FunctionTable`] (`FunctionId(3)` is
/// `table.get(FunctionId(3))`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct FunctionId(pub u32);

impl FunctionId {
    /// The id as a vector index.
    #[inline]
    pub fn index(self) -> usize {
        self.0 as usize
    }
}

/// ELF symbol binding (`STB_*`), in order of preference among aliases.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Binding {
    /// `STB_GLOBAL`.
    Global,
    /// `STB_WEAK`.
    Weak,
    /// `STB_LOCAL` (and any other binding).
    Local,
}

/// A code symbol, as the table builder sees it: already filtered to
/// `STT_FUNC`/`STT_GNU_IFUNC` symbols and `STT_NOTYPE` symbols in
/// executable sections, without mapping symbols or local labels.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Symbol {
    /// Symbol name (not demangled).
    pub name: String,
    /// Value (`st_value`): the first address.
    pub address: u64,
    /// Size in bytes (`st_size`); 0 means "runs to the next symbol".
    pub size: u64,
    /// Binding.
    pub binding: Binding,
}

/// One entry of the table: a function or an unknown range.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Function {
    /// Preferred symbol name, or `[unknown 0x<start>]`.
    pub name: String,
    /// First address.
    pub start: u64,
    /// One past the last address (`end > start`).
    pub end: u64,
    /// Other symbol names at `start`, sorted.
    pub aliases: Vec<String>,
    /// True for `[unknown 0x...]` ranges that no symbol covers.
    pub unknown: bool,
}

/// Functions of a program, ordered by address and never overlapping.
///
/// Built by [`FunctionTable::build`] (or [`crate::Program::functions`]).
/// Every address inside an executable section belongs to exactly one
/// entry, so [`FunctionTable::lookup`] cannot fail there; other addresses
/// get an entry from [`FunctionTable::lookup_or_insert`].
#[derive(Clone, Debug, Default)]
pub struct FunctionTable {
    functions: Vec<Function>,
    /// Ids sorted by start address.
    by_start: Vec<FunctionId>,
    /// Starts of symbol-defined functions, sorted.
    entries: Vec<u64>,
}

/// Granule that bounds an on-demand unknown range outside executable sections.
const UNKNOWN_PAGE: u64 = 0x1000;

impl FunctionTable {
    /// Builds the table from code symbols and executable ranges
    /// (`[start, end)` pairs, one per executable section).
    ///
    /// Aliases at one address are merged: global before weak before local,
    /// then the shortest name, then alphabetical. A symbol's end is
    /// `address + size`, cut at the next symbol's start; a zero-size symbol
    /// runs to the next symbol start or the end of its executable range.
    /// Parts of executable ranges that no symbol covers become
    /// `[unknown 0x<start>]` entries. Symbols outside every executable range
    /// are ignored. Cost: O(n log n) in the number of symbols.
    pub fn build(symbols: &[Symbol], exec_ranges: &[(u64, u64)]) -> FunctionTable {
        let mut ranges: Vec<(u64, u64)> =
            exec_ranges.iter().copied().filter(|(s, e)| s < e).collect();
        ranges.sort_unstable();
        let range_of = |addr: u64| {
            let i = ranges.partition_point(|&(s, _)| s <= addr);
            (i > 0 && addr < ranges[i - 1].1).then(|| ranges[i - 1])
        };

        let mut at: BTreeMap<u64, Vec<&Symbol>> = BTreeMap::new();
        for s in symbols {
            if range_of(s.address).is_some() {
                at.entry(s.address).or_default().push(s);
            }
        }
        let starts: Vec<u64> = at.keys().copied().collect();
        let mut table = FunctionTable::default();
        for (k, (&start, syms)) in at.iter_mut().enumerate() {
            syms.sort_by(|a, b| {
                (a.binding, a.name.len(), &a.name).cmp(&(b.binding, b.name.len(), &b.name))
            });
            let best = syms[0];
            let size = if best.size > 0 {
                best.size
            } else {
                syms.iter().map(|s| s.size).max().unwrap_or(0)
            };
            let (_, range_end) = range_of(start).unwrap_or((start, start + 1));
            let next = starts.get(k + 1).copied().unwrap_or(u64::MAX);
            let end = if size > 0 {
                start.saturating_add(size).min(next)
            } else {
                next.min(range_end)
            };
            let mut aliases: Vec<String> = syms[1..].iter().map(|s| s.name.clone()).collect();
            aliases.sort();
            aliases.dedup();
            aliases.retain(|a| *a != best.name);
            table.functions.push(Function {
                name: best.name.clone(),
                start,
                end,
                aliases,
                unknown: false,
            });
            table.entries.push(start);
        }

        // Fill the gaps of each executable range with unknown entries.
        let mut gaps = Vec::new();
        for &(rs, re) in &ranges {
            let mut cursor = rs;
            let first = table.functions.partition_point(|f| f.start < rs);
            for f in &table.functions[first..] {
                if f.start >= re {
                    break;
                }
                if f.start > cursor {
                    gaps.push((cursor, f.start));
                }
                cursor = cursor.max(f.end);
            }
            if cursor < re {
                gaps.push((cursor, re));
            }
        }
        for (s, e) in gaps {
            table.functions.push(unknown(s, e));
        }
        table.functions.sort_by_key(|f| f.start);
        table.by_start = (0..table.functions.len() as u32).map(FunctionId).collect();
        table
    }

    /// Number of entries (functions and unknown ranges).
    pub fn len(&self) -> usize {
        self.functions.len()
    }

    /// True if the table has no entry at all.
    pub fn is_empty(&self) -> bool {
        self.functions.is_empty()
    }

    /// The entry with id `id`. Panics if `id` did not come from this table.
    pub fn get(&self, id: FunctionId) -> &Function {
        &self.functions[id.index()]
    }

    /// The entry with id `id`, or `None` if out of range.
    pub fn try_get(&self, id: FunctionId) -> Option<&Function> {
        self.functions.get(id.index())
    }

    /// All entries in id order (`FunctionId(i)` is the `i`-th).
    pub fn iter(&self) -> impl Iterator<Item = (FunctionId, &Function)> + '_ {
        self.functions
            .iter()
            .enumerate()
            .map(|(i, f)| (FunctionId(i as u32), f))
    }

    /// The entry containing `addr` (binary search, O(log n)).
    pub fn lookup(&self, addr: u64) -> Option<FunctionId> {
        let i = self
            .by_start
            .partition_point(|id| self.functions[id.index()].start <= addr);
        let id = *self.by_start.get(i.checked_sub(1)?)?;
        (addr < self.functions[id.index()].end).then_some(id)
    }

    /// The entry containing `addr`, creating `[unknown 0x<addr>]` if none
    /// does. The new range runs from `addr` to the next entry's start or
    /// the next 4 KiB boundary, whichever comes first.
    pub fn lookup_or_insert(&mut self, addr: u64) -> FunctionId {
        if let Some(id) = self.lookup(addr) {
            return id;
        }
        let i = self
            .by_start
            .partition_point(|id| self.functions[id.index()].start <= addr);
        let next = self
            .by_start
            .get(i)
            .map_or(u64::MAX, |id| self.functions[id.index()].start);
        let page_end = (addr | (UNKNOWN_PAGE - 1)).saturating_add(1);
        let end = next.min(page_end).max(addr.saturating_add(1));
        let id = FunctionId(self.functions.len() as u32);
        self.functions.push(unknown(addr, end));
        self.by_start.insert(i, id);
        id
    }

    /// Start addresses of symbol-defined functions (not unknown ranges), sorted.
    pub fn entries(&self) -> &[u64] {
        &self.entries
    }

    /// True if `addr` is the start of a symbol-defined function.
    pub fn is_entry(&self, addr: u64) -> bool {
        self.entries.binary_search(&addr).is_ok()
    }

    /// True if the table has no symbol-defined function (a stripped ELF).
    pub fn is_stripped(&self) -> bool {
        self.entries.is_empty()
    }
}

fn unknown(start: u64, end: u64) -> Function {
    Function {
        name: format!("[unknown {start:#x}]"),
        start,
        end,
        aliases: Vec::new(),
        unknown: true,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sym(name: &str, address: u64, size: u64, binding: Binding) -> Symbol {
        Symbol {
            name: name.into(),
            address,
            size,
            binding,
        }
    }

    #[test]
    fn aliases_prefer_global_then_weak_then_short_then_alphabetical() {
        let syms = [
            sym("local_name", 0x100, 0x10, Binding::Local),
            sym("weak", 0x100, 0x10, Binding::Weak),
            sym("zz_global", 0x100, 0x10, Binding::Global),
            sym("aa_global", 0x100, 0x10, Binding::Global),
            sym("b", 0x110, 0x10, Binding::Weak),
            sym("a", 0x110, 0x10, Binding::Weak),
            sym("loc", 0x120, 0x10, Binding::Local),
            sym("wk", 0x120, 0x10, Binding::Weak),
        ];
        let t = FunctionTable::build(&syms, &[(0x100, 0x130)]);
        let names: Vec<&str> = t.iter().map(|(_, f)| f.name.as_str()).collect();
        assert_eq!(names, ["aa_global", "a", "wk"]);
        assert_eq!(
            t.get(FunctionId(0)).aliases,
            ["local_name", "weak", "zz_global"]
        );
    }

    #[test]
    fn zero_size_runs_to_next_symbol_or_section_end_and_gaps_are_unknown() {
        let syms = [
            sym("_start", 0x1000, 0, Binding::Global),
            sym("f", 0x1010, 8, Binding::Global),
            sym("g", 0x1020, 0, Binding::Local),
            sym("outside", 0x9000, 4, Binding::Global),
        ];
        let t = FunctionTable::build(&syms, &[(0x1000, 0x1030), (0x2000, 0x2010)]);
        let got: Vec<(String, u64, u64, bool)> = t
            .iter()
            .map(|(_, f)| (f.name.clone(), f.start, f.end, f.unknown))
            .collect();
        assert_eq!(
            got,
            [
                ("_start".into(), 0x1000, 0x1010, false),
                ("f".into(), 0x1010, 0x1018, false),
                ("[unknown 0x1018]".into(), 0x1018, 0x1020, true),
                ("g".into(), 0x1020, 0x1030, false),
                ("[unknown 0x2000]".into(), 0x2000, 0x2010, true),
            ]
        );
        assert_eq!(t.entries(), [0x1000, 0x1010, 0x1020]);
        assert!(t.is_entry(0x1010) && !t.is_entry(0x1018) && !t.is_entry(0x2000));
        for addr in (0x1000..0x1030).chain(0x2000..0x2010) {
            let f = t.get(t.lookup(addr).unwrap());
            assert!(f.start <= addr && addr < f.end, "{addr:#x}");
        }
        assert_eq!(t.lookup(0x9000), None);
        assert_eq!(t.lookup(0xfff), None);
        assert_eq!(t.lookup(0x1030), None);
    }

    #[test]
    fn sized_symbol_is_cut_at_the_next_symbol() {
        let syms = [
            sym("big", 0x0, 0x100, Binding::Global),
            sym("inner", 0x40, 0, Binding::Global),
        ];
        let t = FunctionTable::build(&syms, &[(0, 0x100)]);
        assert_eq!(t.get(t.lookup(0x3f).unwrap()).name, "big");
        assert_eq!(t.get(t.lookup(0x40).unwrap()).end, 0x100);
    }

    #[test]
    fn stripped_tables_are_all_unknown() {
        let t = FunctionTable::build(&[], &[(0x80000000, 0x80000100)]);
        assert!(t.is_stripped());
        assert_eq!(t.len(), 1);
        assert_eq!(
            t.get(t.lookup(0x800000fe).unwrap()).name,
            "[unknown 0x80000000]"
        );
    }

    #[test]
    fn unknown_addresses_outside_sections_are_appended_on_demand() {
        let syms = [sym("f", 0x1000, 0x10, Binding::Global)];
        let mut t = FunctionTable::build(&syms, &[(0x1000, 0x1010)]);
        let a = t.lookup_or_insert(0x5004);
        assert_eq!(a, FunctionId(1));
        assert_eq!((t.get(a).start, t.get(a).end), (0x5004, 0x6000));
        assert_eq!(t.get(a).name, "[unknown 0x5004]");
        assert_eq!(t.lookup_or_insert(0x5ff0), a);
        let b = t.lookup_or_insert(0x5000);
        assert_eq!((t.get(b).start, t.get(b).end), (0x5000, 0x5004));
        let c = t.lookup_or_insert(0x0ffe);
        assert_eq!((t.get(c).start, t.get(c).end), (0x0ffe, 0x1000));
        assert_eq!(t.lookup_or_insert(0x1004), FunctionId(0));
        assert_eq!(t.lookup(0x5002), Some(b));
        let top = t.lookup_or_insert(u64::MAX);
        assert_eq!(t.get(top).start, u64::MAX);
    }
}
