//! The translated slow path of [`Memory`]: paging, PMP and the TLB, used
//! only while the hart's [`Translation`] needs checks for the access's
//! privilege (see `mmu.rs` and `pmp.rs` for the rules followed).
//!
//! Design: the hit caches (`rc`/`wc`/`xc`) and their fast paths are
//! unchanged. With checks on, a cache miss comes here; the virtual address
//! is translated (a 256-entry direct-mapped TLB in front of the walk),
//! checked against PMP and the region's permissions, and the access is
//! done. The cache is then refilled with the *virtual* range that maps to
//! one physical region within one 4 KiB page, pointing at the host bytes of
//! the physical page, so the unchanged fast-path compare on the virtual
//! address keeps working. It is refilled only when that whole range gets
//! the same PMP answer, and (for stores) holds no translated code, so the
//! store fast path never needs the code bitmap. [`Memory::set_translation`]
//! (when the translation changed) and [`Memory::sfence_vma`] empty the
//! caches and the TLB. An access crossing a page is done piecewise; a
//! store checks every piece (walks included, with their A/D updates, as
//! QEMU 7.2 fills both TLB pages first) before writing any byte.
//!
//! Faults report the first failing byte's virtual address; whether it was
//! a page or an access fault is remembered for the executor
//! ([`Memory::fault_cause`]).

use super::{Access, HitCache, Memory, EMPTY_CACHE};
use crate::mmu::{
    self, Translation, VmFault, CAUSE_FETCH_PAGE_FAULT, CAUSE_LOAD_PAGE_FAULT,
    CAUSE_STORE_PAGE_FAULT, PRV_U, PTE_A, PTE_D, PTE_R, PTE_U, PTE_W, PTE_X,
};
use crate::pmp::PmpAccess;
use crate::trap::Exc;
use fwprof_isa::{CAUSE_FETCH_ACCESS, CAUSE_LOAD_ACCESS, CAUSE_STORE_ACCESS};

const PAGE: u64 = 4096;
const TLB_SLOTS: usize = 256;

/// One TLB entry: the leaf PTE found for virtual page `vpage` (tag
/// `vpage + 1`, 0 = empty) and the physical page it maps to.
#[derive(Clone, Copy, Debug, Default)]
struct TlbEntry {
    tag: u64,
    page: u64,
    pte: u64,
}

/// Which blocks the block cache must drop after a change of translation
/// ([`Memory::take_block_kill`]).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) enum BlockKill {
    /// Nothing to do.
    #[default]
    None,
    /// Every block of a paged address space (`sfence.vma`); with an ASID,
    /// only those of address spaces with that ASID.
    Paged {
        /// `Some(asid)`: `sfence.vma` with `rs2` != x0.
        asid: Option<u64>,
        /// XLEN of the keys, to find their ASID field.
        rv64: bool,
    },
    /// Every block (PMP changed: fetch permissions may differ anywhere).
    All,
}

impl BlockKill {
    fn merge(self, other: BlockKill) -> BlockKill {
        match (self, other) {
            (BlockKill::All, _) | (_, BlockKill::All) => BlockKill::All,
            (BlockKill::None, k) | (k, BlockKill::None) => k,
            (BlockKill::Paged { asid: a, rv64 }, BlockKill::Paged { asid: b, .. }) => {
                BlockKill::Paged {
                    asid: if a == b { a } else { None },
                    rv64,
                }
            }
        }
    }

    /// Does a block with fetch key `key` (see `Translation::fetch_key`)
    /// have to go?
    pub(crate) fn hits(self, key: u64) -> bool {
        match self {
            BlockKill::None => false,
            BlockKill::All => true,
            BlockKill::Paged { asid: None, .. } => crate::mmu::is_paged_key(key),
            BlockKill::Paged {
                asid: Some(a),
                rv64,
            } => {
                let k = if rv64 {
                    (key >> 44) & 0xffff
                } else {
                    (key >> 22) & 0x1ff
                };
                crate::mmu::is_paged_key(key) && k == a
            }
        }
    }
}

/// Memory's virtual-memory state.
#[derive(Debug)]
pub(crate) struct VmMem {
    tr: Translation,
    /// Data accesses / fetches need this module (paging or PMP).
    data_checked: bool,
    fetch_checked: bool,
    /// The last failed access was a page fault (else an access fault).
    page_fault: bool,
    tlb: Box<[TlbEntry; TLB_SLOTS]>,
    kill: BlockKill,
    /// `Translation::fetch_key` of `tr`.
    fetch_key: u64,
}

impl Default for VmMem {
    fn default() -> Self {
        VmMem {
            tr: Translation::default(),
            data_checked: false,
            fetch_checked: false,
            page_fault: false,
            tlb: Box::new([TlbEntry::default(); TLB_SLOTS]),
            kill: BlockKill::None,
            fetch_key: 0,
        }
    }
}

fn pmp_access(kind: Access) -> PmpAccess {
    match kind {
        Access::Read => PmpAccess::Read,
        Access::Write => PmpAccess::Write,
        Access::Exec => PmpAccess::Exec,
    }
}

/// May a cached leaf PTE serve this access without a new walk? The walk's
/// permission checks, plus A set and, for stores, D set (else the walk must
/// run to set them).
fn leaf_permits(tr: &Translation, pte: u64, kind: Access, prv: u8) -> bool {
    let u = pte & PTE_U != 0;
    if u && prv != PRV_U && (!tr.sum || kind == Access::Exec) || !u && prv == PRV_U {
        return false;
    }
    pte & PTE_A != 0
        && match kind {
            Access::Read => pte & PTE_R != 0 || (tr.mxr && pte & PTE_X != 0),
            Access::Write => pte & PTE_W != 0 && pte & PTE_D != 0,
            Access::Exec => pte & PTE_X != 0,
        }
}

/// The walk's view of physical memory: any mapped byte, whatever the
/// region's permissions (page tables live in RAM; QEMU writes A/D into
/// any RAM-backed region).
impl mmu::PteMemory for Memory {
    fn read_pte(&mut self, paddr: u64, size: u64) -> Option<u64> {
        let mut b = [0u8; 8];
        self.peek(paddr, &mut b[..size as usize])?;
        Some(u64::from_le_bytes(b))
    }

    fn cas_pte(&mut self, paddr: u64, size: u64, old: u64, new: u64) -> Option<u64> {
        let found = self.read_pte(paddr, size)?;
        if found == old {
            self.phys_write(paddr, &new.to_le_bytes()[..size as usize]);
        }
        Some(found)
    }
}

impl Memory {
    /// Follow the hart's translation and PMP state from now on (call after
    /// every change of `satp`, the privilege, `mstatus` or PMP). When it
    /// differs from the current one, the hit caches and the TLB are
    /// emptied; a PMP change also asks for every block to be dropped
    /// ([`Memory::take_block_kill`]).
    pub(crate) fn set_translation(&mut self, t: Translation) {
        if t == self.vm.tr {
            return;
        }
        if t.pmp != self.vm.tr.pmp {
            self.vm.kill = self.vm.kill.merge(BlockKill::All);
        }
        self.vm.data_checked = t.checked(t.data_prv);
        self.vm.fetch_checked = t.checked(t.fetch_prv);
        self.vm.fetch_key = t.fetch_key();
        self.vm.page_fault = false;
        self.vm.tr = t;
        self.flush_tlb();
    }

    /// `sfence.vma` (Privileged ISA §4.2.1): forget cached translations —
    /// all of them (the TLB is small; `vaddr` only narrows what the spec
    /// requires) — and ask the block cache to drop the blocks of paged
    /// address spaces (with `asid`, of that ASID only; blocks are not
    /// tracked per page, so `vaddr` does not narrow this either).
    pub(crate) fn sfence_vma(&mut self, vaddr: Option<u64>, asid: Option<u64>) {
        let _ = vaddr;
        let k = BlockKill::Paged {
            asid,
            rv64: self.vm.tr.rv64,
        };
        self.vm.kill = self.vm.kill.merge(k);
        self.flush_tlb();
    }

    fn flush_tlb(&mut self) {
        self.vm.tlb.fill(TlbEntry::default());
        self.reset_caches();
    }

    /// The blocks the block cache must drop since the last call.
    pub(crate) fn take_block_kill(&mut self) -> BlockKill {
        std::mem::take(&mut self.vm.kill)
    }

    /// The address space instructions are fetched from: the `satp` value
    /// while fetches are paged, 0 otherwise (M mode, `satp.MODE` = Bare,
    /// Linux user mode). Profiles key costs by (this, virtual pc).
    pub fn address_space(&self) -> u64 {
        if !crate::mmu::is_paged_key(self.vm.fetch_key) {
            0
        } else {
            self.vm.tr.satp
        }
    }

    /// The block-cache key of the current fetch address space (see
    /// `Translation::fetch_key`; below `mmu::UNPAGED_KEYS` when fetches are
    /// not paged).
    #[inline]
    pub(crate) fn fetch_key(&self) -> u64 {
        self.vm.fetch_key
    }

    /// True if an access of `kind` must take this module's path.
    #[inline]
    pub(super) fn vm_checked(&self, kind: Access) -> bool {
        match kind {
            Access::Exec => self.vm.fetch_checked,
            _ => self.vm.data_checked,
        }
    }

    /// The exception for the last failed access of `kind` at `tval`: a
    /// page fault (12, 13, 15) or an access fault (1, 5, 7; also every
    /// failure without translation). AMOs fault as stores.
    #[cold]
    pub(crate) fn fault_cause(&self, kind: Access) -> u64 {
        match (kind, self.vm.page_fault) {
            (Access::Read, false) => CAUSE_LOAD_ACCESS,
            (Access::Read, true) => CAUSE_LOAD_PAGE_FAULT,
            (Access::Write, false) => CAUSE_STORE_ACCESS,
            (Access::Write, true) => CAUSE_STORE_PAGE_FAULT,
            (Access::Exec, false) => CAUSE_FETCH_ACCESS,
            (Access::Exec, true) => CAUSE_FETCH_PAGE_FAULT,
        }
    }

    /// Translate `vaddr` for an access of `kind` (no PMP check of the
    /// result). Sets the fault kind on failure.
    fn vm_translate(&mut self, vaddr: u64, kind: Access) -> Result<u64, ()> {
        let tr = &self.vm.tr;
        let prv = if kind == Access::Exec {
            tr.fetch_prv
        } else {
            tr.data_prv
        };
        if !tr.paged(prv) {
            return Ok(vaddr);
        }
        let vpage = vaddr >> 12;
        let slot = (vpage as usize) & (TLB_SLOTS - 1);
        let e = self.vm.tlb[slot];
        if e.tag == vpage.wrapping_add(1) && leaf_permits(tr, e.pte, kind, prv) {
            return Ok(e.page | (vaddr & (PAGE - 1)));
        }
        let tr = tr.clone();
        match mmu::walk(&tr, self, vaddr, pmp_access(kind), prv) {
            Ok(leaf) => {
                self.vm.tlb[slot] = TlbEntry {
                    tag: vpage.wrapping_add(1),
                    page: leaf.page,
                    pte: leaf.pte,
                };
                Ok(leaf.page | (vaddr & (PAGE - 1)))
            }
            Err(f) => {
                self.vm.page_fault = f == VmFault::Page;
                Err(())
            }
        }
    }

    /// Translate and check the `n` bytes at `vaddr` (inside one page):
    /// the physical address, or the fault (kind recorded) at `vaddr`.
    fn vm_check(&mut self, vaddr: u64, n: u64, kind: Access) -> Result<u64, u64> {
        let pa = self.vm_translate(vaddr, kind).map_err(|_| vaddr)?;
        let tr = &self.vm.tr;
        let prv = if kind == Access::Exec {
            tr.fetch_prv
        } else {
            tr.data_prv
        };
        if !tr.pmp_allows(pa, n, pmp_access(kind), prv) {
            self.vm.page_fault = false;
            return Err(vaddr);
        }
        // Every byte must be memory with the region permission.
        let mut j = 0;
        while j < n {
            match self.find(pa + j) {
                Some(i) if Self::allowed(self.regions[i].perm, kind) => {
                    j += (self.regions[i].end() - (pa + j)).min(n - j);
                }
                _ => {
                    self.vm.page_fault = false;
                    return Err(vaddr + j);
                }
            }
        }
        Ok(pa)
    }

    /// Refill the cache of `kind` with the virtual range around `vaddr`
    /// (physical `pa`) that lies in one page and one region, if PMP treats
    /// it uniformly and (stores) it holds no translated code.
    fn vm_fill_cache(&mut self, vaddr: u64, pa: u64, kind: Access) {
        let Some(i) = self.find(pa) else { return };
        let r = &self.regions[i];
        let vpage = vaddr & !(PAGE - 1);
        let vstart = vpage.max(vaddr - (pa - r.start));
        let vend = (vpage + PAGE).min(vaddr + (r.end() - pa));
        let pstart = pa - (vaddr - vstart);
        let pend = pstart + (vend - vstart);
        let tr = &self.vm.tr;
        let prv = if kind == Access::Exec {
            tr.fetch_prv
        } else {
            tr.data_prv
        };
        let uniform = !tr.pmp_checked(prv)
            || tr
                .pmp
                .uniform_allows(pstart, pend - 1, pmp_access(kind), prv == mmu::PRV_M);
        let code =
            kind == Access::Write && !r.code.is_empty() && r.code_lo < pend && pstart < r.code_hi;
        let c = if uniform && !code {
            let len = vend - vstart;
            HitCache {
                start: vstart,
                len,
                fast_len: len.saturating_sub(7),
                // SAFETY: `pstart - r.start < r.len`: the pointer stays
                // inside the region's buffer (see `HitCache`).
                ptr: unsafe { r.ptr().add((pstart - r.start) as usize) },
                idx: i,
                code_lo: u64::MAX,
                code_hi: 0,
            }
        } else {
            EMPTY_CACHE
        };
        self.set_cache(kind, c);
    }

    /// Bytes from `vaddr` to the end of its page, at most `left`.
    fn in_page(vaddr: u64, left: usize) -> usize {
        ((PAGE - (vaddr & (PAGE - 1))) as usize).min(left)
    }

    /// The checked read (loads and fetches) with translation and PMP.
    #[cold]
    pub(super) fn vm_read(&mut self, addr: u64, buf: &mut [u8], kind: Access) -> Result<(), u64> {
        let mut k = 0;
        while k < buf.len() {
            let a = addr.wrapping_add(k as u64);
            let n = Self::in_page(a, buf.len() - k);
            let pa = self.vm_check(a, n as u64, kind)?;
            self.phys_read(pa, &mut buf[k..k + n]);
            self.vm_fill_cache(a, pa, kind);
            k += n;
        }
        Ok(())
    }

    /// The checked store with translation and PMP; all-or-nothing.
    #[cold]
    pub(super) fn vm_store(&mut self, addr: u64, bytes: &[u8]) -> Result<(), u64> {
        let mut k = 0;
        while k < bytes.len() {
            let a = addr.wrapping_add(k as u64);
            let n = Self::in_page(a, bytes.len() - k);
            self.vm_check(a, n as u64, Access::Write)?;
            k += n;
        }
        let mut k = 0;
        while k < bytes.len() {
            let a = addr.wrapping_add(k as u64);
            let n = Self::in_page(a, bytes.len() - k);
            // Checked above, and the TLB holds the translation (a re-walk
            // finds the same PTE with A/D already set).
            let pa = self.vm_check(a, n as u64, Access::Write)?;
            self.phys_write(pa, &bytes[k..k + n]);
            self.vm_fill_cache(a, pa, Access::Write);
            k += n;
        }
        Ok(())
    }

    /// Copy mapped physical bytes (the caller checked they are mapped).
    fn phys_read(&self, pa: u64, buf: &mut [u8]) {
        let _ = self.peek(pa, buf);
    }

    /// Write mapped physical bytes, recording writes to translated code.
    fn phys_write(&mut self, pa: u64, bytes: &[u8]) {
        let mut k = 0;
        while k < bytes.len() {
            let a = pa + k as u64;
            let Some(i) = self.find(a) else { return };
            let r = &mut self.regions[i];
            let o = (a - r.start) as usize;
            let n = (bytes.len() - k).min(r.len - o);
            r.data_mut()[o..o + n].copy_from_slice(&bytes[k..k + n]);
            if !r.code.is_empty() && Self::touches_code(r, a, n as u64) {
                self.code_writes.push((a, n as u64));
            }
            k += n;
        }
    }

    /// The physical address a load (`store` false) or store of `size` bytes
    /// at `vaddr` reaches, if translation and PMP allow the access (the
    /// access failed because no memory answered there: the bus then asks
    /// the devices). `None` when the translation or PMP refuses it: the
    /// fault stands. Without translation or PMP checks, `vaddr` itself.
    pub(crate) fn device_address(&mut self, vaddr: u64, size: u64, store: bool) -> Option<u64> {
        if !self.vm.data_checked {
            return Some(vaddr);
        }
        let kind = if store { Access::Write } else { Access::Read };
        let pa = self.vm_translate(vaddr, kind).ok()?;
        let tr = &self.vm.tr;
        tr.pmp_allows(pa, size, pmp_access(kind), tr.data_prv)
            .then_some(pa)
    }

    /// Check that a store of `size` bytes at `vaddr` would succeed, without
    /// writing (AMOs: QEMU 7.2 looks the page up for writing before the
    /// read, so a read-only page faults without its A bit being set).
    pub(crate) fn probe_store(&mut self, vaddr: u64, size: u64) -> Result<(), u64> {
        if !self.vm.data_checked {
            return Ok(());
        }
        self.vm_check(vaddr, size, Access::Write).map(|_| ())
    }

    /// Where a block starting at virtual `pc` must end at the latest: the
    /// end of its executable region, and of its page when fetches are
    /// paged.
    ///
    /// # Errors
    /// The fetch fault (access or page) at `pc`.
    pub(crate) fn fetch_limit(&mut self, pc: u64) -> Result<u64, Exc> {
        if !crate::mmu::is_paged_key(self.vm.fetch_key) {
            return self.exec_region_end(pc).ok_or(Exc {
                cause: CAUSE_FETCH_ACCESS,
                tval: pc,
            });
        }
        let fault = |m: &Self| Exc {
            cause: m.fault_cause(Access::Exec),
            tval: pc,
        };
        let pa = self
            .vm_check(pc, 1, Access::Exec)
            .map_err(|_| fault(self))?;
        let i = self.find(pa).ok_or_else(|| fault(self))?;
        let region_left = self.regions[i].end() - pa;
        Ok(((pc | (PAGE - 1)) + 1).min(pc.saturating_add(region_left)))
    }

    /// Physical address of code byte `vaddr`, which was just fetched
    /// (identity when fetches are not paged).
    pub(crate) fn code_phys(&mut self, vaddr: u64) -> u64 {
        if !crate::mmu::is_paged_key(self.vm.fetch_key) {
            return vaddr;
        }
        self.vm_translate(vaddr, Access::Exec).unwrap_or(vaddr)
    }
}
