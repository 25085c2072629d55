//! Address → function id lookup used on the hot path of call tracking.

/// Function address ranges, sorted and non-overlapping, with dense ids
/// (`u32`, index into the caller's function table).
///
/// Addresses outside every range get an id from [`FunctionMap::lookup_or_add`]:
/// a new range of one 4 KiB page, `[unknown 0x...]` for the caller to name.
/// Trap contexts get ids of their own from [`FunctionMap::trap_root`]:
/// synthetic functions with no addresses, which no lookup returns.
#[derive(Clone, Debug)]
pub struct FunctionMap {
    /// `(start, end, id)` sorted by start; `end` exclusive.
    ranges: Vec<(u64, u64, u32)>,
    /// Entry addresses (function symbols), sorted.
    entries: Vec<u64>,
    /// Next id for ranges added on demand.
    next_id: u32,
    /// Ranges added on demand: `(start, end, id)`.
    added: Vec<(u64, u64, u32)>,
    /// Synthetic roots of trap contexts: `(code, interrupt, id)`.
    trap_roots: Vec<(u64, bool, u32)>,
    /// Id of the boot code's range ([`FunctionMap::set_boot_code`]).
    boot: Option<u32>,
    /// Direct-mapped cache: `(address, id)`.
    cache: Box<[(u64, u32); 1024]>,
    /// Direct-mapped cache of [`FunctionMap::is_entry`]: `(address, answer)`.
    entry_cache: Box<[(u64, bool); 1024]>,
}

impl FunctionMap {
    /// Build from `(start, end)` address ranges, where the index in `ranges`
    /// is the function id, and the addresses that are real function entries
    /// (symbols; not gap ranges), which decide what a jump to is a tail call.
    /// Overlapping ranges are resolved by start address.
    pub fn new(ranges: &[(u64, u64)], entries: &[u64]) -> FunctionMap {
        let mut sorted: Vec<(u64, u64, u32)> = ranges
            .iter()
            .enumerate()
            .map(|(i, &(s, e))| (s, e.max(s + 1), i as u32))
            .collect();
        sorted.sort_by_key(|r| (r.0, r.2));
        sorted.dedup_by_key(|r| r.0);
        let mut entries = entries.to_vec();
        entries.sort_unstable();
        entries.dedup();
        FunctionMap {
            ranges: sorted,
            entries,
            next_id: ranges.len() as u32,
            added: Vec::new(),
            trap_roots: Vec::new(),
            boot: None,
            cache: Box::new([(u64::MAX, 0); 1024]),
            entry_cache: Box::new([(u64::MAX, false); 1024]),
        }
    }

    /// True if `addr` is the start of a function of the original table.
    /// Answers are cached (jumps ask about the same few targets again and again).
    #[inline]
    pub fn is_entry(&mut self, addr: u64) -> bool {
        let slot = ((addr >> 1) as usize) & 1023;
        let (a, yes) = self.entry_cache[slot];
        if a == addr {
            return yes;
        }
        let yes = self.entries.binary_search(&addr).is_ok();
        self.entry_cache[slot] = (addr, yes);
        yes
    }

    /// The id of the function containing `addr`, adding an unknown range if none does.
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

    #[cold]
    fn lookup_slow(&mut self, addr: u64) -> u32 {
        let i = self.ranges.partition_point(|r| r.0 <= addr);
        if i > 0 {
            let (s, e, id) = self.ranges[i - 1];
            if addr >= s && addr < e {
                return id;
            }
        }
        if let Some(&(_, _, id)) = self.added.iter().find(|r| addr >= r.0 && addr < r.1) {
            return id;
        }
        // An unknown page-sized range, clipped so it does not overlap a known function.
        let mut start = addr & !0xfff;
        let mut end = start.saturating_add(0x1000);
        if i > 0 {
            start = start.max(self.ranges[i - 1].1.min(addr));
        }
        if i < self.ranges.len() {
            end = end.min(self.ranges[i].0);
        }
        let id = self.next_id;
        self.next_id += 1;
        self.added.push((start, end, id));
        id
    }

    /// Ranges added on demand, as `(start, end, id)`, in order of creation
    /// (ids are consecutive from the original table's length).
    pub fn added(&self) -> &[(u64, u64, u32)] {
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
    /// roots interleave in creation order, both after the original table.
    pub fn trap_roots(&self) -> &[(u64, bool, u32)] {
        &self.trap_roots
    }

    /// The run starts at `addr` in boot code outside the program (QEMU
    /// `virt`'s reset ROM): its range (added as for any unknown address,
    /// unless a symbol covers it) is marked as the boot code, which the
    /// caller names and which hands control over to the program rather
    /// than calling it. Returns its id.
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

    /// Number of ids in use (original table, added ranges and trap roots).
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
        assert_eq!(m.added(), &[(0x200, 0x1000, 2)]);
        assert_eq!(m.lookup_or_add(0x304), 2);
        let below = m.lookup_or_add(0x10);
        assert_eq!(below, 3);
        assert_eq!(m.added()[1], (0x0, 0x100, 3));
        assert_eq!(m.len(), 4);
        // A trap root takes the next id and is never found by address.
        assert_eq!(m.trap_root(7, true), 4);
        assert_eq!(m.trap_root(7, false), 5);
        assert_eq!(m.trap_root(7, true), 4);
        assert_eq!(m.trap_roots(), &[(7, true, 4), (7, false, 5)]);
        assert_eq!(m.lookup_or_add(0x2000), 6);
    }
}
