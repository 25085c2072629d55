//! Virtual memory: `satp`, the page-table walk of Sv39 (RV64) and Sv32
//! (RV32) with hardware A/D updates, and the hart's view of translation and
//! PMP handed to [`crate::Memory`] (Privileged ISA 20211203, §4.1.11 `satp`,
//! §4.3 Sv32, §4.3.2 the translation algorithm, §4.4 Sv39; §3.7 PMP in
//! [`crate::pmp`]). Where the spec leaves a choice this follows QEMU 7.2
//! (`target/riscv/cpu_helper.c` `get_physical_address`,
//! `riscv_cpu_tlb_fill`; `target/riscv/csr.c` `read_satp`/`write_satp`):
//!
//! * `satp` accepts MODE = Bare and Sv39 on RV64, Bare and Sv32 on RV32; a
//!   write with another MODE (Sv48/Sv57 included, which QEMU 7.2 accepts:
//!   a deliberate difference) is ignored entirely, as QEMU ignores an
//!   invalid mode. Every ASID and PPN bit is writable (QEMU stores the
//!   value). In S mode with `mstatus.TVM` set, reading `satp` is illegal,
//!   and so is a write that would change it (QEMU checks TVM only then).
//! * The walk reads PTEs from physical memory with PMP checked as an S-mode
//!   read of XLEN/8 bytes (QEMU: `pmp_hart_has_privs(pte_addr,
//!   sizeof(target_ulong), READ, PRV_S)`); a PMP denial there, or of the
//!   final physical access, is an *access* fault; everything else that
//!   fails is a *page* fault (causes 12/13/15, `tval` = the virtual address).
//!   A PTE address with no memory behind it is a page fault (QEMU: the load
//!   fails with `MEMTX_DECODE_ERROR`, `TRANSLATE_FAIL`).
//! * PTE checks in QEMU 7.2's order (Svpbmt and Svnapot are off there): bits
//!   63..54 of an Sv39 PTE set → page fault; V = 0; a non-leaf PTE with D,
//!   A or U set; W without R (`-W-`, `-WX`); U page in S mode without SUM,
//!   or fetched in S mode; a non-U page in U mode; a misaligned superpage;
//!   then the access's R/W/X (loads may use X with MXR).
//! * A and D are set by the walk with a compare-and-swap of the PTE, as
//!   QEMU 7.2 does (it has no `menvcfg.HADE` check yet): A on every
//!   successful access, D on stores and AMOs. Like QEMU's TLB, a page
//!   walked by a load with D = 0 is cached without write permission, so
//!   the first store walks again and sets D.
//! * Sv39 addresses whose bits 63..39 are not copies of bit 38 page-fault.

use crate::hart::{Hart, Privilege};
use crate::pmp::{Pmp, PmpAccess};

/// Privilege levels as numbers (Privileged ISA §1.2, Table 1.1).
pub(crate) const PRV_U: u8 = 0;
pub(crate) const PRV_S: u8 = 1;
pub(crate) const PRV_M: u8 = 3;

/// Page-fault exception codes (Privileged ISA §3.1.15, Table 3.6).
pub(crate) const CAUSE_FETCH_PAGE_FAULT: u64 = 12;
pub(crate) const CAUSE_LOAD_PAGE_FAULT: u64 = 13;
pub(crate) const CAUSE_STORE_PAGE_FAULT: u64 = 15;

/// `satp.MODE` values (Privileged ISA Table 4.3/4.4).
const SATP64_MODE_SV39: u64 = 8;
const SATP32_MODE_SV32: u64 = 1;

// PTE bits (§4.3.1).
pub(crate) const PTE_V: u64 = 1 << 0;
pub(crate) const PTE_R: u64 = 1 << 1;
pub(crate) const PTE_W: u64 = 1 << 2;
pub(crate) const PTE_X: u64 = 1 << 3;
pub(crate) const PTE_U: u64 = 1 << 4;
pub(crate) const PTE_A: u64 = 1 << 6;
pub(crate) const PTE_D: u64 = 1 << 7;

/// `mstatus` bits that decide translation (§3.1.6.3).
pub(crate) const MSTATUS_MPRV: u64 = 1 << 17;
pub(crate) const MSTATUS_SUM: u64 = 1 << 18;
pub(crate) const MSTATUS_MXR: u64 = 1 << 19;

/// The hart's virtual-memory registers: `satp` and the PMP entries.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct VmState {
    pub(crate) satp: u64,
    pub(crate) pmp: Pmp,
    /// Linux user-mode programs: no translation and no PMP, ever (their
    /// memory already is the process's virtual memory).
    pub(crate) off: bool,
}

impl VmState {
    /// `pmpcfg<reg>` (0..=3) as read; `None` if it does not exist (odd
    /// numbers on RV64).
    pub(crate) fn pmpcfg_read(&self, reg: usize, rv64: bool) -> Option<u64> {
        (!(rv64 && reg % 2 == 1)).then(|| self.pmp.cfg_read(reg, rv64))
    }

    /// Write `pmpcfg<reg>` (WARL, locked entries kept: see [`crate::pmp`]).
    pub(crate) fn pmpcfg_write(&mut self, reg: usize, v: u64, rv64: bool) {
        self.pmp.cfg_write(reg, v, rv64);
    }

    /// `pmpaddr<i>` (0..=15) as read.
    pub(crate) fn pmpaddr_read(&self, i: usize) -> u64 {
        self.pmp.addr_read(i)
    }

    /// Write `pmpaddr<i>` (ignored when locked, see [`crate::pmp`]).
    pub(crate) fn pmpaddr_write(&mut self, i: usize, v: u64, rv64: bool) {
        self.pmp.addr_write(i, v, rv64);
    }

    /// Read `satp`; `None` (illegal instruction) in S mode with
    /// `mstatus.TVM` (QEMU 7.2 `read_satp`).
    pub(crate) fn satp_read(&self, s_mode: bool, tvm: bool) -> Option<u64> {
        (!(s_mode && tvm)).then_some(self.satp)
    }

    /// Write `satp` (QEMU 7.2 `write_satp`): ignored unless MODE is Bare or
    /// the XLEN's one supported mode; illegal (`Err`) only when the write
    /// would change `satp` from S mode with `mstatus.TVM` set.
    pub(crate) fn satp_write(
        &mut self,
        v: u64,
        rv64: bool,
        s_mode: bool,
        tvm: bool,
    ) -> Result<(), ()> {
        let valid = if rv64 {
            matches!(v >> 60, 0 | SATP64_MODE_SV39)
        } else {
            matches!(v >> 31 & 1, 0 | SATP32_MODE_SV32)
        };
        let v = if rv64 { v } else { v & 0xffff_ffff };
        if valid && v != self.satp {
            if s_mode && tvm {
                return Err(());
            }
            self.satp = v;
        }
        Ok(())
    }
}

/// Everything [`crate::Memory`] needs to translate and check accesses:
/// built by [`Hart::translation`], handed over with
/// `Memory::set_translation` after anything it depends on changed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Translation {
    /// `satp` (MODE Bare = no paging).
    pub(crate) satp: u64,
    pub(crate) rv64: bool,
    /// Privilege of loads and stores: `mstatus.MPP` in M mode with
    /// `mstatus.MPRV` set, else the current one (§3.1.6.3).
    pub(crate) data_prv: u8,
    /// Privilege of instruction fetches: the current one.
    pub(crate) fetch_prv: u8,
    pub(crate) sum: bool,
    pub(crate) mxr: bool,
    pub(crate) pmp: Pmp,
    /// No translation and no checks at all (Linux user mode, and reset).
    pub(crate) off: bool,
}

impl Default for Translation {
    fn default() -> Self {
        Translation {
            satp: 0,
            rv64: true,
            data_prv: PRV_M,
            fetch_prv: PRV_M,
            sum: false,
            mxr: false,
            pmp: Pmp::default(),
            off: true,
        }
    }
}

impl Translation {
    /// Is paging on for accesses made with privilege `prv`?
    pub(crate) fn paged(&self, prv: u8) -> bool {
        !self.off && prv != PRV_M && self.satp_mode() != 0
    }

    fn satp_mode(&self) -> u64 {
        if self.rv64 {
            self.satp >> 60
        } else {
            self.satp >> 31 & 1
        }
    }

    /// Must PMP be checked for accesses made with privilege `prv`? Always
    /// in S/U mode (16 entries are implemented, so no match fails), in M
    /// mode only when a locked entry is active.
    pub(crate) fn pmp_checked(&self, prv: u8) -> bool {
        !self.off && (prv != PRV_M || self.pmp.any_locked())
    }

    /// Does the memory's plain physical path not suffice for `prv`?
    pub(crate) fn checked(&self, prv: u8) -> bool {
        self.paged(prv) || self.pmp_checked(prv)
    }

    /// The block-cache key of the fetch context: without paging, the
    /// privilege (0 M, 1 S, 2 U: see [`UNPAGED_KEYS`]), so code run at two
    /// privilege levels never shares a block (profiles split costs by
    /// privilege through the blocks); with paging, `satp` with bit 62 set
    /// for U-mode code (Sv39's MODE leaves bit 62 clear, RV32's `satp` is 32
    /// bits), so S- and U-mode code of one address space never share a
    /// block (one of them cannot fetch it). A paged key always has the
    /// MODE bit of `satp` set, so it is never below [`UNPAGED_KEYS`].
    pub(crate) fn fetch_key(&self) -> u64 {
        if self.paged(self.fetch_prv) {
            self.satp | u64::from(self.fetch_prv == PRV_U) << 62
        } else {
            match self.fetch_prv {
                PRV_M => 0,
                PRV_S => 1,
                _ => 2,
            }
        }
    }

    /// PMP check of a physical access by privilege `prv`.
    pub(crate) fn pmp_allows(&self, paddr: u64, size: u64, access: PmpAccess, prv: u8) -> bool {
        !self.pmp_checked(prv) || self.pmp.allows(paddr, size, access, prv == PRV_M)
    }
}

/// What kind of fault a failed translation is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum VmFault {
    /// Page fault (causes 12, 13, 15).
    Page,
    /// Access fault: PMP denied the walk or the access (causes 1, 5, 7).
    Access,
}

/// A successful walk: the leaf PTE (after its A/D update) and the
/// physical address of the 4 KiB page holding the virtual address.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Leaf {
    pub pte: u64,
    pub page: u64,
}

/// Physical memory as the walk sees it: PTE reads and the A/D
/// compare-and-swap. `None` = no memory at that address.
pub(crate) trait PteMemory {
    fn read_pte(&mut self, paddr: u64, size: u64) -> Option<u64>;
    /// Store `new` if the PTE still holds `old`; returns the value found.
    fn cas_pte(&mut self, paddr: u64, size: u64, old: u64, new: u64) -> Option<u64>;
}

/// Walk the page table for `vaddr` (Privileged ISA §4.3.2; QEMU 7.2
/// `get_physical_address`). `tr` must have paging on for `prv`.
pub(crate) fn walk(
    tr: &Translation,
    mem: &mut impl PteMemory,
    vaddr: u64,
    access: PmpAccess,
    prv: u8,
) -> Result<Leaf, VmFault> {
    let (levels, ptesize, ppn_mask) = if tr.rv64 {
        (3u32, 8u64, (1u64 << 44) - 1)
    } else {
        (2u32, 4u64, (1u64 << 22) - 1)
    };
    let idxbits = if tr.rv64 { 9 } else { 10 };
    if tr.rv64 {
        // Bits 63..38 must all equal bit 38.
        let top = (vaddr as i64) >> 38;
        if top != 0 && top != -1 {
            return Err(VmFault::Page);
        }
    }
    'restart: loop {
        let mut base = (tr.satp & ppn_mask) << 12;
        for level in (0..levels).rev() {
            let shift = 12 + level * idxbits;
            let idx = (vaddr >> shift) & ((1 << idxbits) - 1);
            let pte_addr = base.wrapping_add(idx * ptesize);
            if !tr.pmp_allows(pte_addr, ptesize, PmpAccess::Read, PRV_S) {
                return Err(VmFault::Access);
            }
            let pte = mem.read_pte(pte_addr, ptesize).ok_or(VmFault::Page)?;
            if tr.rv64 && pte >> 54 != 0 {
                return Err(VmFault::Page); // reserved, PBMT, N
            }
            let ppn = (pte >> 10) & ppn_mask;
            if pte & PTE_V == 0 {
                return Err(VmFault::Page);
            }
            let rwx = pte & (PTE_R | PTE_W | PTE_X);
            if rwx == 0 {
                if pte & (PTE_D | PTE_A | PTE_U) != 0 {
                    return Err(VmFault::Page);
                }
                base = ppn << 12;
                continue;
            }
            let u = pte & PTE_U != 0;
            let fetch = access == PmpAccess::Exec;
            let ok = rwx != PTE_W
                && rwx != PTE_W | PTE_X
                && !(u && prv != PRV_U && (!tr.sum || fetch))
                && (u || prv == PRV_S)
                && ppn & ((1 << (level * idxbits)) - 1) == 0
                && match access {
                    PmpAccess::Read => pte & PTE_R != 0 || (tr.mxr && pte & PTE_X != 0),
                    PmpAccess::Write => pte & PTE_W != 0,
                    PmpAccess::Exec => pte & PTE_X != 0,
                };
            if !ok {
                return Err(VmFault::Page);
            }
            let new = pte | PTE_A | if access == PmpAccess::Write { PTE_D } else { 0 };
            if new != pte {
                match mem.cas_pte(pte_addr, ptesize, pte, new) {
                    Some(found) if found == pte => {}
                    Some(_) => continue 'restart,
                    None => return Err(VmFault::Page),
                }
            }
            let vpn_low = (vaddr >> 12) & ((1 << (level * idxbits)) - 1);
            return Ok(Leaf {
                pte: new,
                page: (ppn | vpn_low) << 12,
            });
        }
        // The last level's PTE was not a leaf.
        return Err(VmFault::Page);
    }
}

/// Fetch keys below this are those of unpaged code (one per privilege).
pub(crate) const UNPAGED_KEYS: u64 = 3;

/// Is `key` (a [`Translation::fetch_key`]) the key of paged code?
pub(crate) fn is_paged_key(key: u64) -> bool {
    key >= UNPAGED_KEYS
}

impl Hart {
    /// The translation and PMP state memory accesses must follow now.
    pub(crate) fn translation(&self) -> Translation {
        let prv = match self.privilege {
            Privilege::Machine => PRV_M,
            Privilege::Supervisor => PRV_S,
            Privilege::User => PRV_U,
        };
        let mstatus = self.mstatus;
        let data_prv = if prv == PRV_M && mstatus & MSTATUS_MPRV != 0 {
            match (mstatus >> 11) & 3 {
                3 => PRV_M,
                1 => PRV_S,
                _ => PRV_U,
            }
        } else {
            prv
        };
        Translation {
            satp: self.vm.satp,
            rv64: self.rv64,
            data_prv,
            fetch_prv: prv,
            sum: mstatus & MSTATUS_SUM != 0,
            mxr: mstatus & MSTATUS_MXR != 0,
            pmp: self.vm.pmp.clone(),
            off: self.vm.off,
        }
    }
}

impl Hart {
    /// True in S mode (for the `satp` TVM rule).
    pub(crate) fn vm_s_mode(&self) -> bool {
        self.privilege == Privilege::Supervisor
    }

    /// `mstatus.TVM` (§3.1.6.5).
    pub(crate) fn vm_tvm(&self) -> bool {
        self.mstatus & crate::irq::MSTATUS_TVM != 0
    }
}
