//! Simulator tests of paging, PMP and the block cache keyed by address
//! space: M-mode firmware state set up from Rust, U-mode code entered by
//! `mret`, faults caught by an M-mode handler at `BASE + 0x100`.

use crate::mmu::{PTE_A, PTE_D, PTE_R, PTE_U, PTE_V, PTE_W, PTE_X};
use crate::test_asm::*;
use crate::{Simulator, StopReason};
use fwprof_os::{GuestMemory, Perm};

const RWX: Perm = Perm {
    read: true,
    write: true,
    exec: true,
};
/// Page tables are allocated from here.
const TABLES: u64 = 0x8010_0000;
/// Physical pages of the user program.
const CODE_A: u64 = 0x8020_0000;
const DATA: u64 = 0x8020_1000;
const RO: u64 = 0x8020_2000;
const CODE_B: u64 = 0x8020_3000;
/// Their virtual addresses.
const VCODE: u64 = 0x1000_0000;
const VDATA: u64 = 0x2000_0000;
const VRO: u64 = 0x2000_1000;
const VSUP: u64 = 0x2000_2000;
const VALIAS: u64 = 0x2000_4000;
const SFENCE_VMA: u32 = 0x1200_0073;

/// A page-table builder: Sv39 (`rv64`) or Sv32, tables bump-allocated.
struct Pt {
    rv64: bool,
    root: u64,
    next: u64,
}

impl Pt {
    fn new(rv64: bool, at: u64) -> Pt {
        Pt {
            rv64,
            root: at,
            next: at + 0x1000,
        }
    }
    fn satp(&self) -> u64 {
        if self.rv64 {
            8 << 60 | self.root >> 12
        } else {
            1 << 31 | self.root >> 12
        }
    }
    fn pte_at(&self, va: u64, level: u32) -> u64 {
        let (bits, size) = if self.rv64 { (9, 8) } else { (10, 4) };
        let idx = (va >> (12 + level * bits)) & ((1 << bits) - 1);
        idx * size
    }
    /// Map the 4 KiB page `va` to `pa`; returns the leaf PTE's address.
    fn map(&mut self, m: &mut crate::Memory, va: u64, pa: u64, flags: u64) -> u64 {
        let levels = if self.rv64 { 3 } else { 2 };
        let mut table = self.root;
        for level in (1..levels).rev() {
            let a = table + self.pte_at(va, level);
            let cur = self.read(m, a);
            table = if cur & PTE_V != 0 {
                (cur >> 10) << 12
            } else {
                let t = self.next;
                self.next += 0x1000;
                self.write(m, a, (t >> 12) << 10 | PTE_V);
                t
            };
        }
        let a = table + self.pte_at(va, 0);
        self.write(m, a, (pa >> 12) << 10 | flags | PTE_V);
        a
    }
    fn read(&self, m: &mut crate::Memory, a: u64) -> u64 {
        let mut b = [0u8; 8];
        let n = if self.rv64 { 8 } else { 4 };
        m.read(a, &mut b[..n]).unwrap();
        u64::from_le_bytes(b)
    }
    fn write(&self, m: &mut crate::Memory, a: u64, v: u64) {
        let n = if self.rv64 { 8 } else { 4 };
        m.write(a, &v.to_le_bytes()[..n]).unwrap();
    }
}

fn words(m: &mut crate::Memory, at: u64, w: &[u32]) {
    let bytes: Vec<u8> = w.iter().flat_map(|x| x.to_le_bytes()).collect();
    m.write(at, &bytes).unwrap();
}

/// Firmware at BASE: `mret` at +0, `sfence.vma; mret` at +8, and the
/// handler at +0x100 (s2 = mcause, s3 = mepc, s4 = mtval, then stop with
/// an `ecall` while `mtvec` = 0).
fn firmware() -> Vec<u32> {
    let mut p = vec![MRET, NOP, SFENCE_VMA, MRET];
    p.resize(0x100 / 4, NOP);
    p.extend([
        csr(2, 18, 0, 0x342),
        csr(2, 19, 0, 0x341),
        csr(2, 20, 0, 0x343),
        csr(1, 0, 0, 0x305),
        ECALL,
    ]);
    p
}

/// The standard user mapping: code at VCODE (R X U), data at VDATA
/// (R W U), read-only data at VRO (R U), a supervisor page at VSUP (R),
/// and the code page again at VALIAS (R W U). Returns the builder and the
/// memory.
fn user_space(rv64: bool, code: &[u32]) -> (Pt, crate::Memory) {
    let mut m = memory_with(&firmware());
    m.map(TABLES, 0x20_0000, RWX).unwrap();
    let mut pt = Pt::new(rv64, TABLES);
    pt.map(&mut m, VCODE, CODE_A, PTE_R | PTE_X | PTE_U);
    pt.map(&mut m, VDATA, DATA, PTE_R | PTE_W | PTE_U);
    pt.map(&mut m, VRO, RO, PTE_R | PTE_U);
    pt.map(&mut m, VSUP, RO, PTE_R);
    pt.map(&mut m, VALIAS, CODE_A, PTE_R | PTE_W | PTE_U);
    words(&mut m, CODE_A, code);
    (pt, m)
}

/// Firmware state: handler, PMP entry 0 = everything RWX (unless `pmp`
/// is given as (pmpcfg0, [pmpaddr..])), `satp`, MPP = U, `mepc` = VCODE.
fn enter_user(
    m: crate::Memory,
    rv64: bool,
    satp: u64,
    pmp: Option<(u64, &[u64])>,
) -> Simulator<Rec> {
    let mut sm = Simulator::bare(m, rv64, BASE, Rec::default());
    let h = sm.hart_mut();
    h.csr_write(0x305, BASE + 0x100).unwrap();
    let (cfg, addrs) = pmp.unwrap_or((0x1f, &[u64::MAX]));
    for (i, &a) in addrs.iter().enumerate() {
        h.csr_write(0x3B0 + i as u16, a).unwrap();
    }
    h.csr_write(0x3A0, cfg).unwrap();
    h.csr_write(0x180, satp).unwrap();
    h.csr_write(0x341, VCODE).unwrap();
    sm
}

/// Run until the handler stops; returns (mcause, mepc, mtval).
fn trapped(sm: &mut Simulator<Rec>) -> (u64, u64, u64) {
    let stop = go(sm, 10_000);
    assert!(
        matches!(stop, StopReason::Fault { cause: 11, .. }),
        "{stop:?}"
    );
    let h = sm.hart();
    (h.x(18), h.x(19), h.x(20))
}

#[test]
fn u_mode_runs_paged_code_and_hardware_sets_a_and_d() {
    for rv64 in [true, false] {
        let code = [
            lui(11, (VDATA >> 12) as u32),
            addi(12, 0, 42),
            sw(11, 12, 8),
            lw(13, 11, 8),
            ECALL,
        ];
        let (mut pt, mut m) = user_space(rv64, &code);
        let code_pte = pt.map(&mut m, VCODE, CODE_A, PTE_R | PTE_X | PTE_U);
        let data_pte = pt.map(&mut m, VDATA, DATA, PTE_R | PTE_W | PTE_U);
        let ro_pte = pt.map(&mut m, VRO, RO, PTE_R | PTE_U);
        let mut sm = enter_user(m, rv64, pt.satp(), None);
        assert_eq!(trapped(&mut sm), (8, VCODE + 16, 0), "rv64 {rv64}");
        assert_eq!(sm.hart().x(13), 42);
        let mut b = [0u8; 4];
        sm.memory().peek(DATA + 8, &mut b).unwrap();
        assert_eq!(u32::from_le_bytes(b), 42);
        let m = sm.memory_mut();
        assert_eq!(pt.read(m, code_pte) & (PTE_A | PTE_D), PTE_A);
        assert_eq!(pt.read(m, data_pte) & (PTE_A | PTE_D), PTE_A | PTE_D);
        assert_eq!(pt.read(m, ro_pte) & (PTE_A | PTE_D), 0);
        // Blocks carry virtual pcs.
        assert!(sm.hooks().pcs.iter().any(|p| p[0] == VCODE));
    }
}

#[test]
fn page_faults_carry_the_cause_and_virtual_tval() {
    let lui_data = lui(11, (VDATA >> 12) as u32);
    let cases: Vec<(Vec<u32>, (u64, u64, u64))> = vec![
        // Load from an unmapped page.
        (
            vec![lui(11, 0x30000), lw(12, 11, 4)],
            (13, VCODE + 4, 0x3000_0004),
        ),
        // Store to a read-only page.
        (
            vec![lui(11, (VRO >> 12) as u32), sw(11, 0, 8)],
            (15, VCODE + 4, VRO + 8),
        ),
        // Load of a supervisor page from U mode.
        (
            vec![lui_data, lw(12, 11, 0x7f0)],
            (13, VCODE + 4, VDATA + 0x7f0),
        ),
        // A load crossing into an unmapped page faults at the page start.
        (
            vec![lui(11, 0x20005), lw(12, 11, -2)],
            (13, VCODE + 4, 0x2000_5000),
        ),
        // AMO on a read-only page: a store/AMO page fault.
        (
            vec![lui(11, (VRO >> 12) as u32), amo(1, 2, 12, 11, 0)],
            (15, VCODE + 4, VRO),
        ),
        // Fetch from a page without X.
        (vec![lui_data, jalr(0, 11, 0)], (12, VDATA, VDATA)),
    ];
    for (code, want) in cases {
        let mut code = code;
        code.push(ECALL);
        let (mut pt, mut m) = user_space(true, &code);
        // VDATA+0x7f0 lies in VDATA's page: make that page S-only for the
        // third case by mapping it so; other cases do not touch it.
        if want == (13, VCODE + 4, VDATA + 0x7f0) {
            pt.map(&mut m, VDATA, DATA, PTE_R | PTE_W);
        }
        let ro_pte = pt.map(&mut m, VRO, RO, PTE_R | PTE_U);
        let mut sm = enter_user(m, true, pt.satp(), None);
        assert_eq!(trapped(&mut sm), want, "{code:x?}");
        // The faulting AMO did not set A on the read-only page.
        assert_eq!(pt.read(sm.memory_mut(), ro_pte) & PTE_A, 0);
    }
}

#[test]
fn pmp_denials_are_access_faults() {
    // Entry 0: NAPOT 8 KiB at CODE_A (code + data) RWX; entry 1: NAPOT
    // 1 MiB at TABLES, R (the walk reads as S mode). RO and CODE_B are
    // outside both: S/U accesses there fail.
    let addrs = [(CODE_A >> 2) | 0x3ff, (TABLES >> 2) | 0x1_ffff];
    let cfg = 0x19 << 8 | 0x1f;
    let code = [lui(11, (VRO >> 12) as u32), lw(12, 11, 0), ECALL];
    let (pt, m) = user_space(true, &code);
    let mut sm = enter_user(m, true, pt.satp(), Some((cfg, &addrs)));
    assert_eq!(trapped(&mut sm), (5, VCODE + 4, VRO));
    // Fetch from a page PMP denies.
    let code = [lui(11, 0x10001), jalr(0, 11, 0)];
    let (mut pt, mut m) = user_space(true, &code);
    pt.map(&mut m, VCODE + 0x1000, CODE_B, PTE_R | PTE_X | PTE_U);
    let mut sm = enter_user(m, true, pt.satp(), Some((cfg, &addrs)));
    assert_eq!(trapped(&mut sm), (1, VCODE + 0x1000, VCODE + 0x1000));
    // The walk itself denied (tables not covered): access fault too.
    let (pt, m) = user_space(true, &[ECALL]);
    let mut sm = enter_user(m, true, pt.satp(), Some((0x1f, &addrs[..1])));
    assert_eq!(trapped(&mut sm), (1, VCODE, VCODE));
}

#[test]
fn u_mode_without_any_pmp_entry_cannot_be_entered() {
    // satp = Bare, no PMP entry active: QEMU 7.2's `helper_mret` refuses
    // the mret to U-mode itself (illegal instruction, mtval = its bits).
    let (_, m) = user_space(true, &[ECALL]);
    let mut sm = enter_user(m, true, 0, Some((0, &[])));
    sm.hart_mut().csr_write(0x341, CODE_A).unwrap();
    let (cause, _, tval) = trapped(&mut sm);
    assert_eq!((cause, tval), (2, 0x3020_0073));
    // With an entry granting everything, it runs to its ecall.
    let (_, m) = user_space(true, &[ECALL]);
    let mut sm = enter_user(m, true, 0, None);
    sm.hart_mut().csr_write(0x341, CODE_A).unwrap();
    assert_eq!(trapped(&mut sm), (8, CODE_A, 0));
}

#[test]
fn a_locked_pmp_entry_binds_machine_mode() {
    // pmpaddr0 = NAPOT 4 KiB at DATA, pmpcfg0 = L | NAPOT | R.
    let napot = (DATA >> 2) | 0x1ff;
    let p = [
        auipc(11, ((DATA - BASE) >> 12) as u32),
        lw(12, 11, 0),
        sw(11, 0, 0),
        ECALL,
    ];
    let mut sm = sim(true, &p);
    sm.memory_mut().map(DATA, 0x1000, RWX).unwrap();
    sm.hart_mut().csr_write(0x3B0, napot).unwrap();
    sm.hart_mut().csr_write(0x3A0, 0x99).unwrap();
    // The write above went through the CSR path; hand it to memory as
    // the run loop does after a CSR instruction.
    sm.sync_translation();
    let stop = go(&mut sm, 100);
    assert!(
        matches!(stop, StopReason::Fault { cause: 7, tval, .. } if tval == DATA),
        "{stop:?}"
    );
    // Locked: writes to the entry are ignored.
    sm.hart_mut().csr_write(0x3A0, 0).unwrap();
    assert_eq!(sm.hart().csr_read(0x3A0), Ok(0x99));
}

#[test]
fn mprv_translates_machine_mode_data_only() {
    // M mode with MPRV = 1, MPP = U: loads and stores use the U-mode
    // translation, fetches stay physical.
    let (pt, m) = user_space(true, &[]);
    let mut sm = enter_user(m, true, pt.satp(), None);
    let body = [
        lui(5, 0x20),
        csr(2, 0, 5, 0x300), // csrs mstatus, MPRV
        lui(11, (VDATA >> 12) as u32),
        addi(12, 0, 7),
        sw(11, 12, 0),
        lw(13, 11, 0),
        lui(11, (VRO >> 12) as u32),
        sw(11, 12, 0), // read-only: store page fault
        ECALL,
    ];
    let m = sm.memory_mut();
    words(m, BASE + 0x200, &body);
    sm.hart_mut().pc = BASE + 0x200;
    assert_eq!(trapped(&mut sm), (15, BASE + 0x21c, VRO));
    assert_eq!(sm.hart().x(13), 7);
    let mut b = [0u8; 4];
    sm.memory().peek(DATA, &mut b).unwrap();
    assert_eq!(u32::from_le_bytes(b), 7);
}

#[test]
fn the_same_virtual_pc_in_two_address_spaces_never_shares_a_block() {
    let (mut pt, mut m) = user_space(true, &[addi(10, 0, 1), ECALL]);
    words(&mut m, CODE_B, &[addi(10, 0, 2), ECALL]);
    // A second address space at TABLES + 0x18_0000: VCODE -> CODE_B.
    let mut pt_b = Pt::new(true, TABLES + 0x18_0000);
    pt_b.map(&mut m, VCODE, CODE_B, PTE_R | PTE_X | PTE_U);
    let (sa, sb) = (pt.satp(), pt_b.satp());
    let _ = pt.map(&mut m, VCODE, CODE_A, PTE_R | PTE_X | PTE_U);
    let mut sm = enter_user(m, true, sa, None);
    let back_to_user = |sm: &mut Simulator<Rec>, satp: u64| {
        let h = sm.hart_mut();
        h.csr_write(0x305, BASE + 0x100).unwrap();
        h.csr_write(0x180, satp).unwrap();
        h.csr_write(0x341, VCODE).unwrap();
        h.pc = BASE;
    };
    assert_eq!(trapped(&mut sm), (8, VCODE + 4, 0));
    assert_eq!(sm.hart().x(10), 1);
    back_to_user(&mut sm, sb);
    assert_eq!(trapped(&mut sm), (8, VCODE + 4, 0));
    assert_eq!(sm.hart().x(10), 2);
    let translated = sm.cache_stats().translated;
    // Both stay cached: switching back translates nothing new.
    back_to_user(&mut sm, sa);
    assert_eq!(trapped(&mut sm), (8, VCODE + 4, 0));
    assert_eq!(sm.hart().x(10), 1);
    back_to_user(&mut sm, sb);
    trapped(&mut sm);
    assert_eq!(sm.hart().x(10), 2);
    let pcs = &sm.hooks().pcs;
    assert_eq!(
        sm.cache_stats().translated,
        translated,
        "{:x?}",
        &pcs[pcs.len() - 3..]
    );
}

#[test]
fn a_write_through_another_mapping_kills_the_block() {
    // The code page is also mapped writable at VALIAS: rewriting `func`'s
    // first instruction through the alias must take effect.
    let new = addi(10, 0, 2);
    let [hi, lo] = li(5, new as i32);
    let mut code = vec![
        lui(11, (VALIAS >> 12) as u32),
        jal(1, 0x80 - 4),
        addi(22, 10, 0),
        hi,
        lo,
        sw(11, 5, 0x80),
        jal(1, 0x80 - 0x18),
        ECALL,
    ];
    code.resize(0x80 / 4, NOP);
    code.extend([addi(10, 0, 1), jalr(0, 1, 0)]);
    let (pt, m) = user_space(true, &code);
    let mut sm = enter_user(m, true, pt.satp(), None);
    assert_eq!(trapped(&mut sm), (8, VCODE + 0x1c, 0));
    assert_eq!((sm.hart().x(22), sm.hart().x(10)), (1, 2));
    assert!(sm.cache_stats().invalidated >= 1);
}

#[test]
fn sfence_vma_drops_the_blocks_of_paged_address_spaces() {
    let (mut pt, mut m) = user_space(true, &[addi(10, 0, 1), ECALL]);
    words(&mut m, CODE_B, &[addi(10, 0, 2), ECALL]);
    let mut sm = enter_user(m, true, pt.satp(), None);
    assert_eq!(trapped(&mut sm), (8, VCODE + 4, 0));
    assert_eq!(sm.hart().x(10), 1);
    // Remap VCODE to CODE_B, then sfence.vma and return to it.
    pt.map(sm.memory_mut(), VCODE, CODE_B, PTE_R | PTE_X | PTE_U);
    let h = sm.hart_mut();
    h.csr_write(0x305, BASE + 0x100).unwrap();
    h.csr_write(0x341, VCODE).unwrap();
    h.pc = BASE + 8;
    assert_eq!(trapped(&mut sm), (8, VCODE + 4, 0));
    assert_eq!(sm.hart().x(10), 2);
}

#[test]
fn address_space_is_the_satp_of_paged_fetches() {
    let (pt, m) = user_space(true, &[ECALL]);
    let mut sm = enter_user(m, true, pt.satp(), None);
    assert_eq!(sm.memory().address_space(), 0);
    sm.hart_mut().privilege = crate::Privilege::User;
    sm.sync_translation();
    assert_eq!(sm.memory().address_space(), pt.satp());
    assert_ne!(sm.memory().fetch_key(), 0);
}

#[test]
fn satp_accepts_bare_and_the_xlen_mode_only() {
    let mut h = crate::Hart::new(true);
    h.csr_write(0x180, 9 << 60 | 5).unwrap(); // Sv48: ignored
    assert_eq!(h.csr_read(0x180), Ok(0));
    h.csr_write(0x180, u64::MAX >> 4 | 8 << 60).unwrap();
    assert_eq!(h.csr_read(0x180), Ok(u64::MAX >> 4 | 8 << 60));
    let mut h32 = crate::Hart::new(false);
    h32.csr_write(0x180, 0xffff_ffff).unwrap();
    assert_eq!(h32.csr_read(0x180), Ok(0xffff_ffff));
    h.enter_user_mode();
    assert!(h.csr_read(0x180).is_err());
}
