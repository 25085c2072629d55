//! Address → function id lookup used on the hot path of call tracking,
//! per address space.

/// Function address ranges with dense ids (`u32`, index into the caller's
/// function table), looked up per *address space*.
///
/// An address space is named by the `satp` value that selects it (0 when
/// addresses are physical: M-mode, `satp.MODE` = Bare, Linux user mode;
/// see `fwprof_sim::CodeContext::space`); [`FunctionMap::set_space`]
/// selects the one lookups use.
///
/// Functions come from *symbol sources*: the program's own symbol table
/// ([`FunctionMap::new`]) and any ELF added with
/// [`FunctionMap::add_source`] (`record --symbols FILE[@ADDR]`). A source
/// describes an address space when the code executed there is its code:
/// the first block translated in a space inside one of the source's
/// functions is compared with the source's bytes ([`FunctionMap::observe`])
/// and decides for that space. The program's table always describes the
/// physical space, and any space when it has no bytes to compare. Until a
/// space has been decided for a source, the source is assumed to describe
/// it. Added sources are consulted before the program's table, in the
/// order they were added.
///
/// Addresses no source covers get an id from [`FunctionMap::lookup_or_add`]:
/// a new range of one 4 KiB page *in the current space*, `[unknown 0x...]`
/// for the caller to name, so that two address spaces' unknown code at the
/// same virtual address never share a function.
/// Trap contexts get ids of their own from [`FunctionMap::trap_root`], and
/// Linux signal handlers' contexts from [`FunctionMap::signal_root`]:
/// synthetic functions with no addresses, which no lookup returns.
///
/// *Images* ([`FunctionMap::add_image`]) are the code a machine loaded
/// (the program, a `--bios` firmware). Firmware often copies itself
/// elsewhere and runs there (U-Boot relocates to the top of RAM): an
/// unknown range of the physical space whose executed code is an image's
/// code, at the same offset within a 4 KiB page, is marked as a copy of
/// that image
/// ([`AddedRange::copy_of`], decided by [`FunctionMap::identify`]), so
/// that a profile can tell which image the time went to.
#[derive(Clone, Debug)]
pub struct FunctionMap {
    /// Symbol sources: index 0 the program's table, then the added ones.
    sources: Vec<Source>,
    /// `satp` values of the spaces seen (index 0: physical, 0).
    spaces: Vec<u64>,
    /// Per space index, per source: does the source describe the space?
    decided: Vec<Vec<Describes>>,
    /// The current space's index in `spaces`.
    space: usize,
    /// Next id for ranges added on demand.
    next_id: u32,
    /// Ranges added on demand.
    added: Vec<AddedRange>,
    /// Synthetic roots of trap contexts: `(code, interrupt, id)`.
    trap_roots: Vec<(u64, bool, u32)>,
    /// Synthetic roots of signal contexts: `(signal, id)`.
    signal_roots: Vec<(i32, u32)>,
    /// Id of the boot code's range ([`FunctionMap::set_boot_code`]).
    boot: Option<u32>,
    /// Loaded images' code, `(address, bytes)` per section.
    images: Vec<Vec<(u64, Vec<u8>)>>,
    /// Added ranges whose copy is not decided yet, with the blocks tried.
    pending: Vec<(usize, u8)>,
    /// Direct-mapped cache of the current space: `(address, id)`.
    cache: Box<[(u64, u32); 1024]>,
    /// Direct-mapped cache of [`FunctionMap::is_entry`] in the current
    /// space: `(address, answer)`.
    entry_cache: Box<[(u64, bool); 1024]>,
    /// Times a lookup's answer may have changed (a source added or
    /// decided): see [`FunctionMap::changes`].
    changes: u64,
}

/// One symbol source.
#[derive(Clone, Debug)]
struct Source {
    /// `(start, end, id)` sorted by start; `end` exclusive.
    ranges: Vec<(u64, u64, u32)>,
    /// Entry addresses (function symbols), sorted.
    entries: Vec<u64>,
    /// `(address, bytes)` of its executable sections, to compare executed
    /// code with; empty when unknown.
    code: Vec<(u64, Vec<u8>)>,
}

/// Whether a source describes an address space.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Describes {
    /// Not decided yet: assumed to.
    Unknown,
    Yes,
    No,
}

/// A range added on demand for code outside every symbol (see
/// [`FunctionMap::lookup_or_add`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct AddedRange {
    /// The address space (`satp` value, 0 for physical addresses).
    pub space: u64,
    /// First address.
    pub start: u64,
    /// End address, exclusive.
    pub end: u64,
    /// Its function id.
    pub id: u32,
    /// The image its code is a copy of, once [`FunctionMap::identify`]
    /// found it.
    pub copy_of: Option<ImageCopy>,
}

/// Code run from a copy of a loaded image (see [`FunctionMap::add_image`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ImageCopy {
    /// The image's index, in the order of [`FunctionMap::add_image`].
    pub image: u32,
    /// Run address minus the image's own address of the same byte.
    pub delta: u64,
}

/// Blocks of an unknown range compared with the images before giving up.
const IDENTIFY_TRIES: u8 = 16;
/// Fewest bytes of code a comparison needs to count (shorter blocks, a
/// lone `ret`, match too many places).
const IDENTIFY_MIN_BYTES: usize = 12;

impl Source {
    fn new(ranges: &[(u64, u64)], entries: &[u64], first_id: u32) -> Source {
        let mut sorted: Vec<(u64, u64, u32)> = ranges
            .iter()
            .enumerate()
            .map(|(i, &(s, e))| (s, e.max(s + 1), first_id + i as u32))
            .collect();
        sorted.sort_by_key(|r| (r.0, r.2));
        sorted.dedup_by_key(|r| r.0);
        let mut entries = entries.to_vec();
        entries.sort_unstable();
        entries.dedup();
        Source {
            ranges: sorted,
            entries,
            code: Vec::new(),
        }
    }

    /// Index in `ranges` of the first range starting after `addr`.
    fn after(&self, addr: u64) -> usize {
        self.ranges.partition_point(|r| r.0 <= addr)
    }

    /// The id of the function covering `addr`.
    fn find(&self, addr: u64) -> Option<u32> {
        let i = self.after(addr);
        let (s, e, id) = *self.ranges.get(i.checked_sub(1)?)?;
        (addr >= s && addr < e).then_some(id)
    }

    /// Compare the executed instructions `(pc, raw, len)` with the
    /// source's bytes: `Some(true)` if every one inside its code matches,
    /// `Some(false)` if one differs, `None` if none lies inside it.
    fn matches(&self, insts: &[(u64, u32, u8)]) -> Option<bool> {
        let mut compared = false;
        for &(pc, raw, len) in insts {
            let Some((base, bytes)) = self
                .code
                .iter()
                .find(|(b, bytes)| pc >= *b && pc - *b < bytes.len() as u64)
            else {
                continue;
            };
            let off = (pc - base) as usize;
            let Some(have) = bytes.get(off..off + len as usize) else {
                return Some(false);
            };
            let want = raw.to_le_bytes();
            if have != &want[..len as usize] {
                return Some(false);
            }
            compared = true;
        }
        compared.then_some(true)
    }
}

impl FunctionMap {
    /// Build from `(start, end)` address ranges, where the index in `ranges`
    /// is the function id, and the addresses that are real function entries
    /// (symbols; not gap ranges), which decide what a jump to is a tail call.
    /// Overlapping ranges are resolved by start address. This is the
    /// program's own symbol source.
    pub fn new(ranges: &[(u64, u64)], entries: &[u64]) -> FunctionMap {
        FunctionMap {
            sources: vec![Source::new(ranges, entries, 0)],
            spaces: vec![0],
            decided: vec![vec![Describes::Yes]],
            space: 0,
            next_id: ranges.len() as u32,
            added: Vec::new(),
            trap_roots: Vec::new(),
            signal_roots: Vec::new(),
            boot: None,
            images: Vec::new(),
            pending: Vec::new(),
            cache: Box::new([(u64::MAX, 0); 1024]),
            entry_cache: Box::new([(u64::MAX, false); 1024]),
            changes: 0,
        }
    }

    /// The program's executable bytes, `(address, bytes)` per section, so
    /// that its symbols apply to a translated address space only where the
    /// code executed there is the program's (without them, they apply to
    /// every space).
    pub fn set_program_code(&mut self, code: Vec<(u64, Vec<u8>)>) {
        self.sources[0].code = code;
    }

    /// Add a symbol source (an ELF given with `record --symbols`): its
    /// function ranges `(start, end)` get the ids `first..first +
    /// ranges.len()`, where `first` (returned) is [`FunctionMap::len`] at
    /// the call; `entries` are its function entries and `code` its
    /// executable bytes, `(address, bytes)` per section (addresses where
    /// it runs). Call before the run, before any id is added on demand.
    pub fn add_source(
        &mut self,
        ranges: &[(u64, u64)],
        entries: &[u64],
        code: Vec<(u64, Vec<u8>)>,
    ) -> u32 {
        debug_assert!(
            self.added.is_empty() && self.trap_roots.is_empty() && self.signal_roots.is_empty()
        );
        let first = self.next_id;
        let mut s = Source::new(ranges, entries, first);
        s.code = code;
        self.sources.push(s);
        for d in &mut self.decided {
            d.push(Describes::Unknown);
        }
        self.next_id += ranges.len() as u32;
        self.clear_caches();
        self.changes += 1;
        first
    }

    fn clear_caches(&mut self) {
        self.cache.fill((u64::MAX, 0));
        self.entry_cache.fill((u64::MAX, false));
    }

    /// Lookups from now on are in the address space `satp` (0: physical
    /// addresses). Cheap when it does not change.
    #[inline]
    pub fn set_space(&mut self, satp: u64) {
        if self.spaces[self.space] != satp {
            self.switch_space(satp);
        }
    }

    #[cold]
    fn switch_space(&mut self, satp: u64) {
        self.space = match self.spaces.iter().position(|&s| s == satp) {
            Some(i) => i,
            None => {
                self.spaces.push(satp);
                // The program's table describes a translated space only if
                // its code is there (or it has no bytes to tell).
                let mut d = vec![Describes::Unknown; self.sources.len()];
                if self.sources[0].code.is_empty() {
                    d[0] = Describes::Yes;
                }
                self.decided.push(d);
                self.spaces.len() - 1
            }
        };
        self.clear_caches();
    }

    /// The current address space (`satp` value, 0 for physical).
    pub fn space(&self) -> u64 {
        self.spaces[self.space]
    }

    /// True while a source is not yet decided for the current space (then
    /// translated code should be shown to [`FunctionMap::observe`]).
    pub fn undecided(&self) -> bool {
        self.decided[self.space].contains(&Describes::Unknown)
    }

    /// Code was translated in the current space: the instructions
    /// `(pc, raw, len)` of a block. Decides, for each source not yet
    /// decided for this space that has a function at the block's first
    /// address, whether it describes the space (its bytes equal the
    /// executed ones). Costs nothing once every source is decided.
    pub fn observe(&mut self, insts: &[(u64, u32, u8)]) {
        let Some(&(pc, _, _)) = insts.first() else {
            return;
        };
        let mut changed = false;
        for k in 0..self.sources.len() {
            if self.decided[self.space][k] != Describes::Unknown {
                continue;
            }
            let s = &self.sources[k];
            if s.find(pc).is_none() {
                continue;
            }
            let verdict = if s.code.is_empty() {
                Some(true)
            } else {
                s.matches(insts)
            };
            if let Some(yes) = verdict {
                self.decided[self.space][k] = if yes { Describes::Yes } else { Describes::No };
                changed = true;
            }
        }
        if changed {
            self.clear_caches();
            self.changes += 1;
        }
    }

    /// A count that grows whenever [`FunctionMap::lookup_or_add`] may
    /// answer differently for an address it answered before (a symbol
    /// source added, or decided for a space). Switching spaces does not
    /// count: answers are per space. A caller keeping answers (e.g. per
    /// call site) drops them when this changes.
    pub fn changes(&self) -> u64 {
        self.changes
    }

    /// The sources that may describe the current space, in lookup order:
    /// the added ones, then the program's.
    fn candidates(&self) -> impl Iterator<Item = &Source> + '_ {
        let d = &self.decided[self.space];
        let n = self.sources.len();
        (1..n)
            .chain(std::iter::once(0))
            .filter(move |&k| d[k] != Describes::No)
            .map(move |k| &self.sources[k])
    }

    /// True if `addr` is the start of a function of a source describing
    /// the current space. Answers are cached (jumps ask about the same few
    /// targets again and again).
    #[inline]
    pub fn is_entry(&mut self, addr: u64) -> bool {
        let slot = ((addr >> 1) as usize) & 1023;
        let (a, yes) = self.entry_cache[slot];
        if a == addr {
            return yes;
        }
        let yes = self.is_entry_slow(addr);
        self.entry_cache[slot] = (addr, yes);
        yes
    }

    #[cold]
    fn is_entry_slow(&self, addr: u64) -> bool {
        // The entry of the function that covers `addr`, in the source that
        // covers it first.
        for s in self.candidates() {
            if s.find(addr).is_some() {
                return s.entries.binary_search(&addr).is_ok();
            }
        }
        false
    }

    /// The id of the function containing `addr` in the current space,
    /// adding an unknown range if none does.
    #[inline]
    pub fn lookup_or_add(&mut self, addr: u64) -> u32 {
        let slot = ((addr >> 1) as usize) & 1023;
        let (a, id) = self.cache[slot];
        if a == addr {
            return id;
        }
        let id = self.lookup_slow(addr);
        self.cache[slot] = (addr, id);
        id
    }

    /// The id of the function containing `addr` in the current space, if
    /// one is known now (a symbol source's function or a range added so
    /// far); unlike [`FunctionMap::lookup_or_add`], adds nothing.
    pub fn lookup(&self, addr: u64) -> Option<u32> {
        if let Some(id) = self.candidates().find_map(|s| s.find(addr)) {
            return Some(id);
        }
        let space = self.space();
        self.added
            .iter()
            .find(|r| r.space == space && addr >= r.start && addr < r.end)
            .map(|r| r.id)
    }

    #[cold]
    fn lookup_slow(&mut self, addr: u64) -> u32 {
        if let Some(id) = self.lookup(addr) {
            return id;
        }
        let space = self.space();
        // An unknown page-sized range, clipped so it does not overlap a
        // known function or another unknown range of this space.
        let mut start = addr & !0xfff;
        let mut end = start.saturating_add(0x1000);
        let spans = self
            .candidates()
            .flat_map(|s| s.ranges.iter().map(|r| (r.0, r.1)))
            .chain(
                self.added
                    .iter()
                    .filter(|r| r.space == space)
                    .map(|r| (r.start, r.end)),
            );
        for (s, e) in spans {
            if e <= addr {
                start = start.max(e);
            } else if s > addr {
                end = end.min(s);
            }
        }
        let id = self.next_id;
        self.next_id += 1;
        // Copies are looked for in the physical space only: a translated
        // space's pages are its own (its symbols come with `--symbols`).
        if !self.images.is_empty() && space == 0 {
            self.pending.push((self.added.len(), 0));
        }
        self.added.push(AddedRange {
            space,
            start,
            end,
            id,
            copy_of: None,
        });
        id
    }

    /// Add a loaded image's code, `(address, bytes)` per executable
    /// section, to compare unknown code with; returns its index.
    pub fn add_image(&mut self, code: Vec<(u64, Vec<u8>)>) -> u32 {
        self.images.push(code);
        (self.images.len() - 1) as u32
    }

    /// True while an unknown range waits to be compared with the images
    /// (then translated blocks should be shown to [`FunctionMap::identify`]).
    #[inline]
    pub fn identifying(&self) -> bool {
        !self.pending.is_empty()
    }

    /// A block `(pc, raw, len)` was translated in the current space: if it
    /// starts in an unknown range not yet identified, compare its bytes
    /// with every image at every position with the same offset in a
    /// 4 KiB page (relocations keep page offsets). One match decides the
    /// range's [`AddedRange::copy_of`]; after 16 blocks
    /// with no single match the range stays unidentified. Costs a few
    /// comparisons per page of each image, once per block of such ranges.
    pub fn identify(&mut self, insts: &[(u64, u32, u8)]) {
        let Some(&(pc, _, _)) = insts.first() else {
            return;
        };
        let space = self.space();
        let Some(k) = self.pending.iter().position(|&(i, _)| {
            let r = &self.added[i];
            r.space == space && pc >= r.start && pc < r.end
        }) else {
            return;
        };
        let bytes: Vec<(u64, [u8; 4], usize)> = insts
            .iter()
            .map(|&(a, raw, len)| (a - pc, raw.to_le_bytes(), usize::from(len)))
            .collect();
        let total: usize = bytes.iter().map(|b| b.2).sum();
        let mut found = None;
        let mut matches = 0;
        if total >= IDENTIFY_MIN_BYTES {
            for (n, image) in self.images.iter().enumerate() {
                for (base, code) in image {
                    let mut p = (pc.wrapping_sub(*base) & 0xfff) as usize;
                    while p + total <= code.len() && matches < 2 {
                        let same = bytes.iter().all(|&(off, raw, len)| {
                            let o = p + off as usize;
                            code.get(o..o + len) == Some(&raw[..len])
                        });
                        if same {
                            matches += 1;
                            found = Some(ImageCopy {
                                image: n as u32,
                                delta: pc.wrapping_sub(base.wrapping_add(p as u64)),
                            });
                        }
                        p += 0x1000;
                    }
                }
            }
        }
        let (i, tries) = self.pending[k];
        if matches == 1 {
            self.added[i].copy_of = found;
            self.pending.swap_remove(k);
        } else if tries + 1 >= IDENTIFY_TRIES {
            self.pending.swap_remove(k);
        } else {
            self.pending[k].1 = tries + 1;
        }
    }

    /// Ranges added on demand, in order of creation (ids are consecutive
    /// from the symbol sources' ids, interleaved with trap roots).
    pub fn added(&self) -> &[AddedRange] {
        &self.added
    }

    /// The id of the synthetic root function of the trap contexts of one
    /// cause (`code` without the interrupt bit, and whether it is an
    /// interrupt), created on first use. Its name is
    /// [`fwprof_isa::trap_context_name`]; it has no addresses.
    pub fn trap_root(&mut self, code: u64, interrupt: bool) -> u32 {
        if let Some(&(_, _, id)) = self
            .trap_roots
            .iter()
            .find(|r| r.0 == code && r.1 == interrupt)
        {
            return id;
        }
        let id = self.next_id;
        self.next_id += 1;
        self.trap_roots.push((code, interrupt, id));
        id
    }

    /// The trap roots created by [`FunctionMap::trap_root`], as `(code,
    /// interrupt, id)`, in order of creation. Ids of added ranges and trap
    /// roots interleave in creation order, both after the sources' ids.
    pub fn trap_roots(&self) -> &[(u64, bool, u32)] {
        &self.trap_roots
    }

    /// The id of the synthetic root function of the contexts of Linux
    /// signal `signo`'s handlers, created on first use. Its name is
    /// [`fwprof_isa::signal_context_name`] (`[signal: SIGSEGV]`); it has
    /// no addresses. Ids interleave with those of added ranges and trap
    /// roots in creation order.
    pub fn signal_root(&mut self, signo: i32) -> u32 {
        if let Some(&(_, id)) = self.signal_roots.iter().find(|r| r.0 == signo) {
            return id;
        }
        let id = self.next_id;
        self.next_id += 1;
        self.signal_roots.push((signo, id));
        id
    }

    /// The signal roots created by [`FunctionMap::signal_root`], as
    /// `(signal, id)`, in order of creation.
    pub fn signal_roots(&self) -> &[(i32, u32)] {
        &self.signal_roots
    }

    /// The root of a context of `kind` ([`FunctionMap::trap_root`] or
    /// [`FunctionMap::signal_root`]).
    pub fn context_root(&mut self, kind: crate::RootKind) -> u32 {
        match kind {
            crate::RootKind::Trap { code, interrupt } => self.trap_root(code, interrupt),
            crate::RootKind::Signal(signo) => self.signal_root(signo),
        }
    }

    /// The run starts at `addr` in boot code outside the program (QEMU
    /// `virt`'s reset ROM), in the physical space: its range (added as for
    /// any unknown address, unless a symbol covers it) is marked as the
    /// boot code, which the caller names and which hands control over to
    /// the program rather than calling it. Returns its id.
    pub fn set_boot_code(&mut self, addr: u64) -> u32 {
        let id = self.lookup_or_add(addr);
        self.boot = Some(id);
        id
    }

    /// The id of the boot code's range, if [`FunctionMap::set_boot_code`]
    /// marked one.
    pub fn boot_code(&self) -> Option<u32> {
        self.boot
    }

    /// The address spaces seen, as `satp` values (the first is 0, the
    /// physical space), in order of first use.
    pub fn spaces(&self) -> &[u64] {
        &self.spaces
    }

    /// Number of ids in use (sources, added ranges and trap roots).
    pub fn len(&self) -> usize {
        self.next_id as usize
    }

    /// True when the map holds no function at all.
    pub fn is_empty(&self) -> bool {
        self.next_id == 0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn added(m: &FunctionMap) -> Vec<(u64, u64, u32)> {
        m.added().iter().map(|r| (r.start, r.end, r.id)).collect()
    }

    #[test]
    fn lookup_known_and_unknown() {
        let mut m = FunctionMap::new(&[(0x100, 0x120), (0x120, 0x200)], &[0x100, 0x120]);
        assert_eq!(m.lookup_or_add(0x100), 0);
        assert_eq!(m.lookup_or_add(0x11e), 0);
        assert_eq!(m.lookup_or_add(0x120), 1);
        assert!(m.is_entry(0x120));
        assert!(!m.is_entry(0x122));
        let u = m.lookup_or_add(0x300);
        assert_eq!(u, 2);
        assert_eq!(added(&m), [(0x200, 0x1000, 2)]);
        assert_eq!(m.lookup_or_add(0x304), 2);
        let below = m.lookup_or_add(0x10);
        assert_eq!(below, 3);
        assert_eq!(added(&m)[1], (0x0, 0x100, 3));
        assert_eq!(m.len(), 4);
        // A trap root takes the next id and is never found by address.
        assert_eq!(m.trap_root(7, true), 4);
        assert_eq!(m.trap_root(7, false), 5);
        assert_eq!(m.trap_root(7, true), 4);
        assert_eq!(m.trap_roots(), &[(7, true, 4), (7, false, 5)]);
        assert_eq!(m.signal_root(11), 6);
        assert_eq!(m.trap_root(7, true), 4);
        assert_eq!(m.signal_root(11), 6);
        assert_eq!(m.signal_roots(), &[(11, 6)]);
        assert_eq!(m.lookup_or_add(0x2000), 7);
    }

    /// Two address spaces' unknown code at the same virtual address gets
    /// two functions; back in the first space, the first one again.
    #[test]
    fn unknown_code_is_per_address_space() {
        let mut m = FunctionMap::new(&[(0x100, 0x200)], &[0x100]);
        m.set_space(0x8000_0000_0008_0001);
        let a = m.lookup_or_add(0x40_0000);
        m.set_space(0x8000_0000_0008_0002);
        let b = m.lookup_or_add(0x40_0000);
        assert_ne!(a, b);
        m.set_space(0x8000_0000_0008_0001);
        assert_eq!(m.lookup_or_add(0x40_0004), a);
        assert_eq!(m.added()[1].space, 0x8000_0000_0008_0002);
        assert_eq!(
            m.spaces(),
            &[0, 0x8000_0000_0008_0001, 0x8000_0000_0008_0002]
        );
        // The program's table has no bytes: it describes every space.
        assert_eq!(m.lookup_or_add(0x104), 0);
    }

    /// Two added ELFs at the same virtual address: each space is described
    /// by the one whose bytes it executes.
    #[test]
    fn added_sources_apply_where_their_code_runs() {
        let mut m = FunctionMap::new(&[(0x8000_0000, 0x8000_0100)], &[0x8000_0000]);
        m.set_program_code(vec![(0x8000_0000, vec![0x13, 0, 0, 0])]);
        let code_a = vec![0x93, 0x00, 0x10, 0x00, 0x13, 0x01, 0x20, 0x00]; // li ra,1; li sp,2
        let code_b = vec![0x93, 0x00, 0x30, 0x00, 0x13, 0x01, 0x40, 0x00]; // li ra,3; li sp,4
        let a = m.add_source(
            &[(0x40_0000, 0x40_0008)],
            &[0x40_0000],
            vec![(0x40_0000, code_a)],
        );
        let b = m.add_source(
            &[(0x40_0000, 0x40_0008)],
            &[0x40_0000],
            vec![(0x40_0000, code_b)],
        );
        assert_eq!((a, b), (1, 2));
        m.set_space(0x8000_0000_0000_0002);
        m.observe(&[(0x40_0000, 0x0030_0093, 4), (0x40_0004, 0x0040_0113, 4)]);
        assert_eq!(m.lookup_or_add(0x40_0004), b);
        assert!(m.is_entry(0x40_0000));
        m.set_space(0x8000_0000_0000_0001);
        m.observe(&[(0x40_0000, 0x0010_0093, 4)]);
        assert_eq!(m.lookup_or_add(0x40_0000), a);
        // The program's code is not at 0x40_0000 in either space; in the
        // physical space it is the program's.
        m.set_space(0);
        assert_eq!(m.lookup_or_add(0x8000_0000), 0);
        // Code matching neither source in a third space is unknown there.
        m.set_space(0x8000_0000_0000_0003);
        m.observe(&[(0x40_0000, 0x0000_0013, 4)]);
        let u = m.lookup_or_add(0x40_0000);
        assert!(u > b);
        assert_eq!(m.added()[0].space, 0x8000_0000_0000_0003);
    }

    /// Code copied elsewhere (a relocating boot loader) is identified as
    /// its image's, with the distance it moved; a short block alone does
    /// not decide, and code found in no image stays unidentified.
    #[test]
    fn relocated_copies_are_identified() {
        let code: Vec<u8> = (0..0x3000u32).map(|i| (i * 7 + i / 251) as u8).collect();
        let mut m = FunctionMap::new(&[(0x8020_0000, 0x8020_3000)], &[0x8020_0000]);
        assert_eq!(m.add_image(vec![(0x8020_0000, code.clone())]), 0);
        let block = |at: u64, off: usize, n: usize| -> Vec<(u64, u32, u8)> {
            (0..n)
                .map(|k| {
                    let o = off + 4 * k;
                    let raw = u32::from_le_bytes(code[o..o + 4].try_into().unwrap());
                    (at + 4 * k as u64, raw, 4)
                })
                .collect()
        };
        // The copy at 0x87f00000: the image's page 1 runs at 0x87f01000.
        let id = m.lookup_or_add(0x87f0_1010);
        assert!(m.identifying());
        m.identify(&block(0x87f0_1010, 0x1010, 2)); // 8 bytes: too short
        assert_eq!(m.added()[0].copy_of, None);
        m.identify(&block(0x87f0_1010, 0x1010, 4));
        let r = m.added()[0];
        assert_eq!(
            (r.id, r.copy_of.map(|c| (c.image, c.delta))),
            (id, Some((0, 0x7d0_0000)))
        );
        assert!(!m.identifying());
        // Code that is no image's: given up after IDENTIFY_TRIES blocks.
        m.lookup_or_add(0x9000_0000);
        let junk: Vec<(u64, u32, u8)> = (0..4)
            .map(|k| (0x9000_0000 + 4 * k, 0xdead_beef, 4))
            .collect();
        for _ in 0..IDENTIFY_TRIES {
            m.identify(&junk);
        }
        assert!(!m.identifying());
        assert_eq!(m.added()[1].copy_of, None);
    }
}
