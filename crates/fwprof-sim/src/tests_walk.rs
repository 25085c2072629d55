//! Unit tests of the Sv39/Sv32 page-table walk (`mmu.rs`) over a
//! dictionary of PTEs (Privileged ISA 20211203, §4.3.2; QEMU 7.2
//! `get_physical_address`).

use crate::mmu::{
    walk, PteMemory, Translation, VmFault, PRV_M, PRV_S, PRV_U, PTE_A, PTE_D, PTE_R, PTE_U, PTE_V,
    PTE_W, PTE_X,
};
use crate::pmp::{Pmp, PmpAccess};
use std::collections::HashMap;
use PmpAccess::{Exec, Read, Write};

/// Physical memory of PTEs: address -> value.
#[derive(Default)]
struct Ptes(HashMap<u64, u64>);

impl PteMemory for Ptes {
    fn read_pte(&mut self, paddr: u64, _size: u64) -> Option<u64> {
        // Unlisted addresses inside 0x8000_0000.. read as zero; below,
        // there is no memory.
        if paddr < 0x8000_0000 {
            return None;
        }
        Some(self.0.get(&paddr).copied().unwrap_or(0))
    }
    fn cas_pte(&mut self, paddr: u64, size: u64, old: u64, new: u64) -> Option<u64> {
        let found = self.read_pte(paddr, size)?;
        if found == old {
            self.0.insert(paddr, new);
        }
        Some(found)
    }
}

const ROOT: u64 = 0x8000_1000;
const L1: u64 = 0x8000_2000;
const L0: u64 = 0x8000_3000;

fn pte(pa: u64, flags: u64) -> u64 {
    (pa >> 12) << 10 | flags | PTE_V
}

/// Sv39 translation with everything allowed by PMP (NAPOT all RWX).
fn sv39(prv: u8) -> Translation {
    let mut pmp = Pmp::default();
    pmp.addr_write(0, u64::MAX, true);
    pmp.cfg_write(0, 0x1f, true);
    Translation {
        satp: 8 << 60 | ROOT >> 12,
        rv64: true,
        data_prv: prv,
        fetch_prv: prv,
        sum: false,
        mxr: false,
        pmp,
        off: false,
    }
}

/// VA 0x4020_3000 -> root[1] -> L1[1] -> L0[3].
const VA: u64 = 0x4020_3000;

fn three_levels(leaf: u64) -> Ptes {
    let mut m = Ptes::default();
    m.0.insert(ROOT + 8, pte(L1, 0));
    m.0.insert(L1 + 8, pte(L0, 0));
    m.0.insert(L0 + 3 * 8, leaf);
    m
}

#[test]
fn sv39_4k_page_translates_and_sets_a_then_d() {
    let mut m = three_levels(pte(0x8009_0000, PTE_R | PTE_W | PTE_U));
    let t = sv39(PRV_U);
    let leaf = walk(&t, &mut m, VA + 0x123, Read, PRV_U).unwrap();
    assert_eq!(leaf.page, 0x8009_0000);
    // A set by the load, D not.
    assert_eq!(m.0[&(L0 + 24)] & (PTE_A | PTE_D), PTE_A);
    walk(&t, &mut m, VA, Write, PRV_U).unwrap();
    assert_eq!(m.0[&(L0 + 24)] & (PTE_A | PTE_D), PTE_A | PTE_D);
    // Not executable.
    assert_eq!(walk(&t, &mut m, VA, Exec, PRV_U), Err(VmFault::Page));
}

#[test]
fn megapages_gigapages_and_their_alignment() {
    let t = sv39(PRV_S);
    // Gigapage: root[1] leaf at 0xc000_0000 (1 GiB aligned).
    let mut m = Ptes::default();
    m.0.insert(ROOT + 8, pte(0xc000_0000, PTE_R | PTE_X));
    let leaf = walk(&t, &mut m, 0x4123_4567, Exec, PRV_S).unwrap();
    assert_eq!(leaf.page, 0xc123_4000);
    // Misaligned gigapage (PPN[0] != 0): page fault.
    m.0.insert(ROOT + 8, pte(0xc020_0000, PTE_R | PTE_X));
    assert_eq!(
        walk(&t, &mut m, 0x4000_0000, Read, PRV_S),
        Err(VmFault::Page)
    );
    // Megapage: L1[1] leaf at 0x8040_0000 (2 MiB aligned).
    m.0.insert(ROOT + 8, pte(L1, 0));
    m.0.insert(L1 + 8, pte(0x8040_0000, PTE_R));
    let leaf = walk(&t, &mut m, VA + 0x5, Read, PRV_S).unwrap();
    assert_eq!(leaf.page, 0x8040_3000);
    m.0.insert(L1 + 8, pte(0x8040_1000, PTE_R));
    assert_eq!(walk(&t, &mut m, VA, Read, PRV_S), Err(VmFault::Page));
}

#[test]
fn u_bit_against_privilege_sum_and_fetch() {
    let mut m = three_levels(pte(0x8009_0000, PTE_R | PTE_X | PTE_U));
    let mut t = sv39(PRV_S);
    // S mode may not touch U pages without SUM...
    assert_eq!(walk(&t, &mut m, VA, Read, PRV_S), Err(VmFault::Page));
    t.sum = true;
    assert!(walk(&t, &mut m, VA, Read, PRV_S).is_ok());
    // ...and never fetches from them.
    assert_eq!(walk(&t, &mut m, VA, Exec, PRV_S), Err(VmFault::Page));
    // U mode may not touch S pages.
    let mut m = three_levels(pte(0x8009_0000, PTE_R));
    assert_eq!(
        walk(&sv39(PRV_U), &mut m, VA, Read, PRV_U),
        Err(VmFault::Page)
    );
    assert!(walk(&sv39(PRV_S), &mut m, VA, Read, PRV_S).is_ok());
}

#[test]
fn mxr_makes_execute_only_pages_readable() {
    let mut m = three_levels(pte(0x8009_0000, PTE_X));
    let mut t = sv39(PRV_S);
    assert_eq!(walk(&t, &mut m, VA, Read, PRV_S), Err(VmFault::Page));
    t.mxr = true;
    assert!(walk(&t, &mut m, VA, Read, PRV_S).is_ok());
    assert_eq!(walk(&t, &mut m, VA, Write, PRV_S), Err(VmFault::Page));
}

#[test]
fn invalid_encodings_are_page_faults() {
    let t = sv39(PRV_S);
    for leaf in [
        pte(0x8009_0000, PTE_W),           // W without R
        pte(0x8009_0000, PTE_W | PTE_X),   // W X without R
        pte(0x8009_0000, PTE_R) | 1 << 54, // reserved bit
        pte(0x8009_0000, PTE_R) | 1 << 63, // N (Svnapot off in QEMU 7.2)
        pte(0x8009_0000, PTE_R) & !PTE_V,  // not valid
    ] {
        let mut m = three_levels(leaf);
        assert_eq!(
            walk(&t, &mut m, VA, Read, PRV_S),
            Err(VmFault::Page),
            "{leaf:#x}"
        );
    }
    // A non-leaf with A, D or U set.
    for bit in [PTE_A, PTE_D, PTE_U] {
        let mut m = three_levels(pte(0x8009_0000, PTE_R));
        m.0.insert(L1 + 8, pte(L0, bit));
        assert_eq!(walk(&t, &mut m, VA, Read, PRV_S), Err(VmFault::Page));
    }
    // A level-0 PTE that is not a leaf.
    let mut m = three_levels(pte(0x8009_0000, 0));
    assert_eq!(walk(&t, &mut m, VA, Read, PRV_S), Err(VmFault::Page));
    // A PTE address with no memory behind it.
    let mut m = Ptes::default();
    m.0.insert(ROOT + 8, pte(0x1000, 0));
    assert_eq!(walk(&t, &mut m, VA, Read, PRV_S), Err(VmFault::Page));
}

#[test]
fn non_canonical_sv39_addresses_fault() {
    let mut m = three_levels(pte(0x8009_0000, PTE_R));
    let t = sv39(PRV_S);
    assert_eq!(
        walk(&t, &mut m, 1 << 39 | VA, Read, PRV_S),
        Err(VmFault::Page)
    );
    assert_eq!(
        walk(&t, &mut m, 0xffff_ff00_0000_0000 | VA, Read, PRV_S),
        Err(VmFault::Page)
    );
    // Upper half, correctly sign-extended: root[0x101].
    m.0.insert(ROOT + 0x101 * 8, pte(0xc000_0000, PTE_R));
    let leaf = walk(&t, &mut m, 0xffff_ffc0_4000_0000, Read, PRV_S).unwrap();
    assert_eq!(leaf.page, 0xc000_0000);
}

#[test]
fn pmp_checks_the_walk_as_s_mode_reads() {
    let mut m = three_levels(pte(0x8009_0000, PTE_R));
    let mut t = sv39(PRV_S);
    // Only the data page is allowed: reading the root PTE is an access fault.
    t.pmp = Pmp::default();
    t.pmp.addr_write(0, (0x8009_0000 >> 2) | 0x1ff, true);
    t.pmp.cfg_write(0, 0x1b, true);
    assert_eq!(walk(&t, &mut m, VA, Read, PRV_S), Err(VmFault::Access));
}

#[test]
fn sv32_pages_and_megapages() {
    let mut pmp = Pmp::default();
    pmp.addr_write(0, u64::from(u32::MAX), false);
    pmp.cfg_write(0, 0x1f, false);
    let t = Translation {
        satp: 1 << 31 | ROOT >> 12,
        rv64: false,
        data_prv: PRV_U,
        fetch_prv: PRV_U,
        sum: false,
        mxr: false,
        pmp,
        off: false,
    };
    // VA 0x0040_2000: root[1] -> L0[2].
    let mut m = Ptes::default();
    m.0.insert(ROOT + 4, pte(L0, 0));
    m.0.insert(L0 + 8, pte(0x8009_0000, PTE_R | PTE_W | PTE_U));
    let leaf = walk(&t, &mut m, 0x0040_2abc, Write, PRV_U).unwrap();
    assert_eq!(leaf.page, 0x8009_0000);
    assert_eq!(m.0[&(L0 + 8)] & (PTE_A | PTE_D), PTE_A | PTE_D);
    // 4 MiB megapage at root[2] -> 0x8080_0000; misaligned one faults.
    m.0.insert(ROOT + 8, pte(0x8080_0000, PTE_X | PTE_U));
    let leaf = walk(&t, &mut m, 0x0081_2000, Exec, PRV_U).unwrap();
    assert_eq!(leaf.page, 0x8081_2000);
    m.0.insert(ROOT + 8, pte(0x8081_0000, PTE_X | PTE_U));
    assert_eq!(
        walk(&t, &mut m, 0x0081_2000, Exec, PRV_U),
        Err(VmFault::Page)
    );
    // Sv32 has no canonical-address rule: the top of the 32-bit space
    // is an ordinary address (root[1023] is 0: invalid).
    assert_eq!(
        walk(&t, &mut m, 0xffff_f000, Read, PRV_U),
        Err(VmFault::Page)
    );
}

#[test]
fn translation_decides_paging_and_pmp_per_privilege() {
    let t = sv39(PRV_M);
    assert!(!t.paged(PRV_M));
    assert!(t.paged(PRV_S));
    assert!(!t.pmp_checked(PRV_M)); // no locked entry
    assert!(t.pmp_checked(PRV_U));
    let mut u = sv39(PRV_U);
    assert_ne!(u.fetch_key(), 0);
    let s_key = sv39(PRV_S).fetch_key();
    assert_ne!(u.fetch_key(), s_key, "S and U code never share blocks");
    u.satp = 0;
    assert_eq!(u.fetch_key(), 2, "unpaged U-mode code");
    assert_eq!(sv39(PRV_M).fetch_key(), 0, "M-mode code is never paged");
}
