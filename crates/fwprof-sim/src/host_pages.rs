//! Host memory behind guest regions: anonymous private mappings that the
//! host kernel commits page by page as the guest touches them.
//!
//! A guest `mmap` of 1 GiB, or a 1 GiB Linux stack, costs host address
//! space only; each 4 KiB page costs a page of RAM when it is first written
//! (a read of an untouched page sees the kernel's shared zero page). The
//! mappings use `MAP_NORESERVE`, so the host's overcommit heuristic does
//! not refuse a large reservation the guest will mostly leave untouched;
//! the guest memory limit (`Memory::with_limit`) bounds what can be mapped.
//!
//! Several guest regions may share one host mapping (a region split by
//! `mprotect` keeps its bytes where they are), so a mapping is held by an
//! `Arc` and unmapped when its last region goes.

use memmap2::{MmapOptions, MmapRaw, UncheckedAdvice};

/// Host page size assumed for releasing pages (4 KiB on every Linux host
/// fwprof runs on; a larger host page only makes releases coarser, as
/// `madvise` rounds inward here).
const HOST_PAGE: usize = 4096;

/// One anonymous host mapping of `len` zero bytes.
#[derive(Debug)]
pub(crate) struct HostPages {
    map: MmapRaw,
}

impl HostPages {
    /// Reserve `len` (> 0) zero bytes, committed lazily.
    ///
    /// # Errors
    /// The host refused the mapping (address space exhausted, `ulimit -v`).
    pub(crate) fn new(len: usize) -> std::io::Result<HostPages> {
        let map = MmapOptions::new().len(len).no_reserve_swap().map_anon()?;
        Ok(HostPages { map: map.into() })
    }

    /// Start of the mapping. Every byte `[ptr, ptr+len)` stays valid while
    /// `self` lives; regions write through it only in their own disjoint
    /// byte ranges.
    #[inline]
    pub(crate) fn ptr(&self) -> *mut u8 {
        self.map.as_mut_ptr()
    }

    /// Give back to the host the whole pages inside `[off, off+len)`; they
    /// read as zero afterwards. Only for bytes no region uses any more.
    pub(crate) fn release(&self, off: usize, len: usize) {
        let lo = off.next_multiple_of(HOST_PAGE);
        let hi = (off + len) / HOST_PAGE * HOST_PAGE;
        if hi > lo {
            // SAFETY: no region refers to these bytes any more (the caller
            // removed them from every region, and the hit caches were
            // reset), so no Rust reference observes the pages being freed.
            // A failure only means the pages stay committed.
            let _ = unsafe {
                self.map
                    .unchecked_advise_range(UncheckedAdvice::DontNeed, lo, hi - lo)
            };
        }
    }
}
