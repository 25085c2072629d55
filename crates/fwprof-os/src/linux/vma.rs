//! The guest's Linux address-space bookkeeping: which pages are mapped with
//! which protection, and where the next anonymous mapping goes.
//!
//! Placement follows QEMU 7.2 `linux-user/mmap.c`:
//! * 64-bit guests on a 64-bit host (`mmap_find_vma` without `reserved_va`):
//!   search upward from `mmap_next_start`, which starts at
//!   `TASK_UNMAPPED_BASE` = `1 << 38` and moves past each allocation that
//!   started there.
//! * 32-bit guests (`mmap_find_vma_reserved`, `reserved_va` = 4 GiB):
//!   search downward from `mmap_next_start` (`0x4000_0000`), so successive
//!   mappings grow towards lower addresses.

use std::collections::BTreeMap;

use crate::loader::PAGE;
use crate::Perm;

/// `TASK_UNMAPPED_BASE` for a 64-bit guest on a 64-bit host (QEMU 7.2 `mmap.c`).
pub(crate) const TASK_UNMAPPED_BASE_64: u64 = 1 << 38;
/// `TASK_UNMAPPED_BASE` for a 32-bit guest (QEMU 7.2 `mmap.c`).
pub(crate) const TASK_UNMAPPED_BASE_32: u64 = 0x4000_0000;
/// Top of the guest address space searched for mappings: 47-bit host user
/// space for RV64, `reserved_va` (4 GiB) for RV32.
const TOP_64: u64 = 1 << 47;
const TOP_32: u64 = 1 << 32;
/// Lowest address handed out (`mmap_min_addr`).
const MIN_ADDR: u64 = 0x10000;

/// One mapped range `[start, end)`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Vma {
    /// Exclusive end.
    pub end: u64,
    /// Protection.
    pub perm: Perm,
}

/// Mapped page ranges keyed by start address (non-overlapping).
#[derive(Clone, Debug)]
pub(crate) struct AddressSpace {
    vmas: BTreeMap<u64, Vma>,
    /// QEMU's `mmap_next_start`.
    pub mmap_next_start: u64,
    rv64: bool,
}

/// Round up to a page; `None` on overflow.
pub(crate) fn page_up(x: u64) -> Option<u64> {
    x.checked_add(PAGE - 1).map(|v| v & !(PAGE - 1))
}

impl AddressSpace {
    /// Empty address space for an RV64 (`rv64`) or RV32 guest.
    pub fn new(rv64: bool) -> Self {
        AddressSpace {
            vmas: BTreeMap::new(),
            mmap_next_start: if rv64 {
                TASK_UNMAPPED_BASE_64
            } else {
                TASK_UNMAPPED_BASE_32
            },
            rv64,
        }
    }

    /// Highest address + 1 usable by the guest.
    pub fn top(&self) -> u64 {
        if self.rv64 {
            TOP_64
        } else {
            TOP_32
        }
    }

    /// Forget `[start, end)`, splitting ranges that straddle its ends.
    pub fn remove(&mut self, start: u64, end: u64) {
        if start >= end {
            return;
        }
        let overlapping: Vec<(u64, Vma)> = self
            .vmas
            .range(..end)
            .filter(|(&s, v)| s < end && v.end > start)
            .map(|(&s, &v)| (s, v))
            .collect();
        for (s, v) in overlapping {
            self.vmas.remove(&s);
            if s < start {
                self.vmas.insert(
                    s,
                    Vma {
                        end: start,
                        perm: v.perm,
                    },
                );
            }
            if v.end > end {
                self.vmas.insert(
                    end,
                    Vma {
                        end: v.end,
                        perm: v.perm,
                    },
                );
            }
        }
    }

    /// Record `[start, end)` with `perm`, replacing what was there.
    pub fn insert(&mut self, start: u64, end: u64, perm: Perm) {
        self.remove(start, end);
        if start < end {
            self.vmas.insert(start, Vma { end, perm });
        }
    }

    /// True if no byte of `[start, end)` is mapped.
    pub fn is_free(&self, start: u64, end: u64) -> bool {
        !self
            .vmas
            .range(..end)
            .any(|(&s, v)| s < end && v.end > start)
    }

    /// True if every byte of `[start, end)` is mapped.
    pub fn is_covered(&self, start: u64, end: u64) -> bool {
        let mut at = start;
        for (&s, v) in self.vmas.range(..end) {
            if v.end <= at {
                continue;
            }
            if s > at {
                return false;
            }
            at = v.end;
            if at >= end {
                return true;
            }
        }
        at >= end
    }

    /// The ranges (start, end, perm) intersecting `[start, end)`, clipped.
    pub fn pieces(&self, start: u64, end: u64) -> Vec<(u64, u64, Perm)> {
        self.vmas
            .range(..end)
            .filter(|(&s, v)| s < end && v.end > start)
            .map(|(&s, v)| (s.max(start), v.end.min(end), v.perm))
            .collect()
    }

    /// The mapping containing `addr`, if any: (start, end, perm).
    pub fn containing(&self, addr: u64) -> Option<(u64, u64, Perm)> {
        self.vmas
            .range(..=addr)
            .next_back()
            .filter(|(_, v)| v.end > addr)
            .map(|(&s, v)| (s, v.end, v.perm))
    }

    /// Choose an address for `size` bytes (page-aligned) as QEMU 7.2
    /// `mmap_find_vma` does; `hint` 0 means "from `mmap_next_start`".
    /// Returns `None` when no hole is large enough.
    pub fn find_vma(&mut self, hint: u64, size: u64) -> Option<u64> {
        let size = page_up(size)?;
        if size == 0 || size > self.top() {
            return None;
        }
        let start = if hint == 0 {
            self.mmap_next_start
        } else {
            hint & !(PAGE - 1)
        };
        if self.rv64 {
            self.find_up(start, size)
        } else {
            self.find_down(start, size)
        }
    }

    fn find_up(&mut self, start: u64, size: u64) -> Option<u64> {
        let search = |from: u64| -> Option<u64> {
            let mut addr = from.max(MIN_ADDR);
            loop {
                let end = addr.checked_add(size)?;
                if end > self.top() {
                    return None;
                }
                match self.pieces(addr, end).last() {
                    None => return Some(addr),
                    Some(&(_, e, _)) => {
                        // Skip to the end of the last overlapping mapping.
                        addr = self.containing(e - 1).map_or(e, |c| c.1);
                    }
                }
            }
        };
        let from_next = start == self.mmap_next_start;
        let found = search(start).or_else(|| search(MIN_ADDR))?;
        if from_next && found >= TASK_UNMAPPED_BASE_64 {
            self.mmap_next_start = found + size;
        }
        Some(found)
    }

    /// QEMU 7.2 `mmap_find_vma_reserved`: downward search ending at
    /// `start + size`, restarting from the top once.
    fn find_down(&mut self, start: u64, size: u64) -> Option<u64> {
        let top = self.top();
        let restart = (top - size) & !(PAGE - 1);
        let mut end_addr = match start.checked_add(size) {
            Some(e) if start <= top - size => e,
            _ => restart + size,
        };
        let mut looped = end_addr == restart + size && start > top - size;
        loop {
            let addr = match end_addr.checked_sub(size) {
                Some(a) if a >= MIN_ADDR => a,
                _ => {
                    if looped {
                        return None;
                    }
                    looped = true;
                    end_addr = restart + size;
                    continue;
                }
            };
            match self.pieces(addr, end_addr).first() {
                None => {
                    if start == self.mmap_next_start {
                        self.mmap_next_start = addr;
                    }
                    return Some(addr);
                }
                Some(&(s, _, _)) => {
                    // Lowest used page in the window: restart below it.
                    end_addr = s & !(PAGE - 1);
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const RW: Perm = Perm {
        read: true,
        write: true,
        exec: false,
    };

    #[test]
    fn insert_remove_split() {
        let mut a = AddressSpace::new(true);
        a.insert(0x1000, 0x5000, RW);
        a.remove(0x2000, 0x3000);
        assert!(a.is_covered(0x1000, 0x2000));
        assert!(!a.is_covered(0x1000, 0x4000));
        assert!(a.is_free(0x2000, 0x3000));
        assert!(a.is_covered(0x3000, 0x5000));
        assert_eq!(a.pieces(0, u64::MAX).len(), 2);
    }

    #[test]
    fn rv64_next_fit_matches_qemu_sequence() {
        // qemu-riscv64 7.2: stack (8 MiB + guard) at 1<<38, sigreturn page
        // right after, first user mmap after that.
        let mut a = AddressSpace::new(true);
        let stack = a.find_vma(0, 0x801000).unwrap();
        a.insert(stack, stack + 0x801000, RW);
        assert_eq!(stack, 0x40_0000_0000);
        let tramp = a.find_vma(0, 0x1000).unwrap();
        a.insert(tramp, tramp + 0x1000, RW);
        assert_eq!(tramp, 0x40_0080_1000);
        let m = a.find_vma(0, 4096).unwrap();
        assert_eq!(m, 0x40_0080_2000);
        a.insert(m, m + 4096, RW);
        // Freed holes below mmap_next_start are not reused.
        a.remove(tramp, tramp + 0x1000);
        assert_eq!(a.find_vma(0, 4096).unwrap(), 0x40_0080_3000);
    }

    #[test]
    fn rv32_grows_down() {
        let mut a = AddressSpace::new(false);
        let s = a.find_vma(0, 0x801000).unwrap();
        assert_eq!(s, 0x4000_0000);
        a.insert(s, s + 0x801000, RW);
        let t = a.find_vma(0, 0x1000).unwrap();
        assert_eq!(t, 0x3fff_f000);
        a.insert(t, t + 0x1000, RW);
        let u = a.find_vma(0, 0x2000).unwrap();
        assert_eq!(u, 0x3fff_d000);
    }
}
