//! Physical memory protection: the 16 `pmpcfg`/`pmpaddr` entries and the
//! check of one physical access against them (Privileged ISA 20211203,
//! §3.7), following QEMU 7.2 `target/riscv/pmp.c` where the spec leaves a
//! choice.
//!
//! * 16 entries, address matching OFF, TOR, NA4, NAPOT, granularity 4 bytes
//!   (G = 0): `pmpaddr` stores every bit written and reads it back (QEMU 7.2
//!   `pmpaddr_csr_write` keeps the whole XLEN value; measured: all-ones
//!   reads back all-ones), `pmpcfg` bytes store all 8 bits as written (QEMU
//!   7.2 `pmp_write_cfg` applies no WARL fix-up, not even to the reserved
//!   R=0/W=1 combination).
//! * A locked entry (L, bit 7) ignores writes to its `pmpcfg` byte and its
//!   `pmpaddr`; `pmpaddr[i]` also ignores writes while entry `i+1` is locked
//!   TOR (§3.7.1.3).
//! * Matching (§3.7.1.4, QEMU `pmp_hart_has_privs`): the lowest-numbered
//!   entry that matches any byte of the access decides. An entry that
//!   matches only some bytes fails the access, in every mode. A fully
//!   matching entry grants its R/W/X bits to S and U mode, and to M mode
//!   only when locked (unlocked: M may do everything). No matching entry:
//!   M mode succeeds, S/U fail (16 entries are implemented, so this holds
//!   even when every entry is OFF, as on QEMU 7.2).
//! * TOR with `pmpaddr[i-1] >= pmpaddr[i]` matches nothing; entry 0's TOR
//!   starts at 0. NAPOT with all-ones `pmpaddr` covers the whole space.

/// Number of PMP entries (QEMU 7.2: `MAX_RISCV_PMPS`).
pub(crate) const PMP_ENTRIES: usize = 16;

const PMP_R: u8 = 1;
const PMP_W: u8 = 2;
const PMP_X: u8 = 4;
const PMP_L: u8 = 0x80;
const A_OFF: u8 = 0;
const A_TOR: u8 = 1;
const A_NA4: u8 = 2;
const A_NAPOT: u8 = 3;

/// Permission an access needs from PMP: read, write (stores, AMOs) or
/// execute (fetches).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum PmpAccess {
    Read,
    Write,
    Exec,
}

impl PmpAccess {
    fn bit(self) -> u8 {
        match self {
            PmpAccess::Read => PMP_R,
            PmpAccess::Write => PMP_W,
            PmpAccess::Exec => PMP_X,
        }
    }
}

/// The PMP registers and the address range each entry decodes to.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Pmp {
    cfg: [u8; PMP_ENTRIES],
    addr: [u64; PMP_ENTRIES],
    /// Decoded inclusive byte range `[sa, ea]` of each entry (meaningless
    /// for OFF entries; `None` for a TOR entry that matches nothing).
    range: [Option<(u64, u64)>; PMP_ENTRIES],
}

impl Default for Pmp {
    fn default() -> Self {
        Pmp {
            cfg: [0; PMP_ENTRIES],
            addr: [0; PMP_ENTRIES],
            range: [None; PMP_ENTRIES],
        }
    }
}

fn a_field(cfg: u8) -> u8 {
    (cfg >> 3) & 3
}

impl Pmp {
    /// True if any entry is active (A != OFF): QEMU 7.2's
    /// `pmp_get_num_rules() != 0`.
    pub(crate) fn any_active(&self) -> bool {
        self.cfg.iter().any(|&c| a_field(c) != A_OFF)
    }

    /// True if an active entry is locked: only then is M mode checked.
    pub(crate) fn any_locked(&self) -> bool {
        self.cfg
            .iter()
            .any(|&c| a_field(c) != A_OFF && c & PMP_L != 0)
    }

    /// `pmpcfg<reg>` (0..=3) as read: 4 bytes on RV32, 8 on RV64 (where only
    /// even `reg` exist; the caller refuses odd ones).
    pub(crate) fn cfg_read(&self, reg: usize, rv64: bool) -> u64 {
        let n = if rv64 { 8 } else { 4 };
        (0..n).fold(0u64, |v, k| {
            let i = reg * 4 + k;
            v | u64::from(self.cfg.get(i).copied().unwrap_or(0)) << (8 * k)
        })
    }

    /// Write `pmpcfg<reg>`; locked bytes keep their value.
    pub(crate) fn cfg_write(&mut self, reg: usize, v: u64, rv64: bool) {
        let n = if rv64 { 8 } else { 4 };
        for k in 0..n {
            let i = reg * 4 + k;
            if i < PMP_ENTRIES && self.cfg[i] & PMP_L == 0 {
                self.cfg[i] = (v >> (8 * k)) as u8;
            }
        }
        self.decode_all(rv64);
    }

    /// `pmpaddr<i>` as read (the value written, XLEN bits).
    pub(crate) fn addr_read(&self, i: usize) -> u64 {
        self.addr[i]
    }

    /// Write `pmpaddr<i>` unless entry `i` is locked or entry `i+1` is a
    /// locked TOR entry (its bottom is this address).
    pub(crate) fn addr_write(&mut self, i: usize, v: u64, rv64: bool) {
        if let Some(&next) = self.cfg.get(i + 1) {
            if next & PMP_L != 0 && a_field(next) == A_TOR {
                return;
            }
        }
        if self.cfg[i] & PMP_L == 0 {
            self.addr[i] = v;
            self.decode_all(rv64);
        }
    }

    /// Recompute every entry's range (QEMU `pmp_update_rule_addr`; the
    /// shifted values wrap at XLEN bits as `target_ulong` does).
    fn decode_all(&mut self, rv64: bool) {
        let mask = if rv64 { u64::MAX } else { 0xffff_ffff };
        for i in 0..PMP_ENTRIES {
            let this = self.addr[i];
            let prev = if i > 0 { self.addr[i - 1] } else { 0 };
            self.range[i] = match a_field(self.cfg[i]) {
                A_TOR => {
                    let sa = (prev << 2) & mask;
                    let ea = (this << 2).wrapping_sub(1) & mask;
                    // QEMU: sa > ea makes the range [0, 0]; a TOR entry with
                    // pmpaddr[i] = 0 also ends below its start. Both match
                    // nothing in the spec (§3.7.1.4); QEMU's [0, 0] differs
                    // only for an access to address 0.
                    (sa <= ea && this << 2 & mask != 0).then_some((sa, ea))
                }
                A_NA4 => {
                    let sa = (this << 2) & mask;
                    Some((sa, sa.wrapping_add(3) & mask))
                }
                A_NAPOT => {
                    let a = ((this << 2) | 3) & mask;
                    Some((a & a.wrapping_add(1), (a | a.wrapping_add(1)) & mask))
                }
                _ => None,
            };
        }
    }

    /// May an access of `size` bytes at physical `addr` with privilege
    /// `m_mode` (true = M) use `access`? The entry decision of §3.7.1.4.
    pub(crate) fn allows(&self, addr: u64, size: u64, access: PmpAccess, m_mode: bool) -> bool {
        let last = addr.wrapping_add(size.max(1) - 1);
        for i in 0..PMP_ENTRIES {
            let c = self.cfg[i];
            if a_field(c) == A_OFF {
                continue;
            }
            let Some((sa, ea)) = self.range[i] else {
                continue;
            };
            let s = addr >= sa && addr <= ea;
            let e = last >= sa && last <= ea;
            if s != e {
                return false; // partial match
            }
            if s {
                if m_mode && c & PMP_L == 0 {
                    return true;
                }
                return c & access.bit() != 0;
            }
            // An entry containing neither end but lying inside the access
            // also matches some bytes: fails too (§3.7.1.4).
            if sa > addr && ea < last {
                return false;
            }
        }
        m_mode
    }

    /// True if every access inside `[lo, hi]` (inclusive) gets the same
    /// answer from [`Pmp::allows`] and that answer is yes: the whole range
    /// lies inside (or entirely outside) every entry up to the deciding one.
    /// Lets the memory hit caches cover the range (QEMU: a TLB entry spans
    /// a page only when `pmp_is_range_in_tlb` says the page is uniform).
    pub(crate) fn uniform_allows(&self, lo: u64, hi: u64, access: PmpAccess, m_mode: bool) -> bool {
        for i in 0..PMP_ENTRIES {
            let c = self.cfg[i];
            if a_field(c) == A_OFF {
                continue;
            }
            let Some((sa, ea)) = self.range[i] else {
                continue;
            };
            if ea < lo || sa > hi {
                continue; // entirely outside
            }
            if sa <= lo && ea >= hi {
                return (m_mode && c & PMP_L == 0) || c & access.bit() != 0;
            }
            return false;
        }
        m_mode
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use PmpAccess::*;

    const TOR: u8 = A_TOR << 3;
    const NA4: u8 = A_NA4 << 3;
    const NAPOT: u8 = A_NAPOT << 3;

    fn pmp(entries: &[(usize, u8, u64)]) -> Pmp {
        let mut p = Pmp::default();
        for &(i, _, a) in entries {
            p.addr_write(i, a, true);
        }
        for &(i, c, _) in entries {
            let reg = i / 8 * 2;
            let v = p.cfg_read(reg, true) | u64::from(c) << (8 * (i % 8));
            p.cfg_write(reg, v, true);
        }
        p
    }

    #[test]
    fn tor_na4_napot_match_their_ranges() {
        // 0: TOR [0x1000, 0x2000) R; 1: NA4 at 0x3000 RW; 2: NAPOT 0x4000+4K X.
        let p = pmp(&[
            (0, 0, 0x1000 >> 2),
            (1, TOR | PMP_R, 0x2000 >> 2),
            (2, NA4 | PMP_R | PMP_W, 0x3000 >> 2),
            (3, NAPOT | PMP_X, (0x4000 >> 2) | 0x1ff),
        ]);
        assert!(p.allows(0x1000, 8, Read, false));
        assert!(p.allows(0x1ff8, 8, Read, false));
        assert!(!p.allows(0x1000, 4, Write, false));
        assert!(!p.allows(0x2000, 4, Read, false)); // TOR top is exclusive
        assert!(p.allows(0x3000, 4, Write, false));
        assert!(!p.allows(0x3004, 1, Read, false));
        assert!(p.allows(0x4ffe, 2, Exec, false));
        assert!(!p.allows(0x5000, 2, Exec, false));
        assert!(!p.allows(0x4000, 4, Read, false));
        // Entry 0 is OFF but its address is entry 1's TOR bottom.
        assert!(!p.allows(0xff8, 8, Read, false));
    }

    #[test]
    fn partial_matches_fail_in_every_mode() {
        let p = pmp(&[(0, NAPOT | PMP_R | PMP_W | PMP_X, (0x2000 >> 2) | 0x1ff)]);
        assert!(!p.allows(0x2ffe, 4, Read, false));
        assert!(!p.allows(0x2ffe, 4, Read, true));
        assert!(!p.allows(0x1ffc, 8, Read, true));
        // An access containing the whole entry matches some bytes too.
        let q = pmp(&[(0, NA4 | PMP_R, 0x2004 >> 2)]);
        assert!(!q.allows(0x2000, 16, Read, true));
    }

    #[test]
    fn lowest_numbered_match_decides() {
        let p = pmp(&[
            (0, NA4, 0x3000 >> 2),
            (1, NAPOT | PMP_R | PMP_W, (0x3000 >> 2) | 0x1ff),
        ]);
        assert!(!p.allows(0x3000, 4, Read, false));
        assert!(p.allows(0x3004, 4, Read, false));
    }

    #[test]
    fn m_mode_is_checked_only_by_locked_entries() {
        let p = pmp(&[(0, NAPOT, (0x2000 >> 2) | 0x1ff)]);
        assert!(p.allows(0x2000, 4, Write, true));
        assert!(!p.allows(0x2000, 4, Write, false));
        // No match: M succeeds, S/U fail (even with every entry OFF).
        assert!(p.allows(0x9000, 4, Write, true));
        assert!(!p.allows(0x9000, 4, Write, false));
        assert!(!Pmp::default().allows(0x9000, 4, Read, false));
        assert!(Pmp::default().allows(0x9000, 4, Read, true));
        let l = pmp(&[(0, NAPOT | PMP_L | PMP_R, (0x2000 >> 2) | 0x1ff)]);
        assert!(!l.allows(0x2000, 4, Write, true));
        assert!(l.allows(0x2000, 4, Read, true));
        assert!(l.any_locked());
        assert!(!p.any_locked());
    }

    #[test]
    fn warl_and_lock_rules_follow_qemu() {
        let mut p = Pmp::default();
        // Every bit is stored, reserved ones and R=0/W=1 included.
        p.cfg_write(0, 0x7f_62, true);
        assert_eq!(p.cfg_read(0, true), 0x7f_62);
        p.addr_write(3, u64::MAX, true);
        assert_eq!(p.addr_read(3), u64::MAX);
        // RV32: pmpcfg1 holds entries 4..8.
        let mut q = Pmp::default();
        q.cfg_write(1, 0x1111_1111, false);
        assert_eq!(q.cfg_read(1, false), 0x1111_1111);
        assert_eq!(q.cfg_read(0, false), 0);
        // Locked entry 1 (TOR): its cfg, its pmpaddr and pmpaddr0 are frozen.
        let mut l = Pmp::default();
        l.cfg_write(0, u64::from(PMP_L | TOR | PMP_R) << 8, true);
        l.cfg_write(0, 0xffff, true);
        assert_eq!(l.cfg_read(0, true), 0x89_ff);
        l.addr_write(0, 5, true);
        l.addr_write(1, 5, true);
        assert_eq!((l.addr_read(0), l.addr_read(1)), (0, 0));
        l.addr_write(2, 5, true);
        assert_eq!(l.addr_read(2), 5);
    }

    #[test]
    fn napot_all_ones_covers_everything_and_uniformity() {
        let p = pmp(&[(0, NAPOT | PMP_R | PMP_W | PMP_X, u64::MAX)]);
        assert!(p.allows(0, 8, Write, false));
        assert!(p.allows(u64::MAX - 7, 8, Exec, false));
        assert!(p.uniform_allows(0x1000, 0x1fff, Read, false));
        let q = pmp(&[(0, NA4 | PMP_R, 0x1800 >> 2)]);
        assert!(!q.uniform_allows(0x1000, 0x1fff, Read, true));
        assert!(q.uniform_allows(0x2000, 0x2fff, Read, true));
        assert!(!q.uniform_allows(0x2000, 0x2fff, Read, false));
    }
}
