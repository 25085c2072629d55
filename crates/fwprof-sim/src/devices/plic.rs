//! QEMU 7.2's SiFive PLIC (`hw/intc/sifive_plic.c`) with the parameters
//! virt gives it (`virt_create_plic`, `include/hw/riscv/virt.h` of 7.2):
//!
//! * `num-sources` = `VIRT_IRQCHIP_NUM_SOURCES` = `VIRTIO_NDEV` = 96:
//!   sources 1..=95 exist, 0 means "none";
//! * `num-priorities` = 2^`VIRT_IRQCHIP_NUM_PRIO_BITS` − 1 = 7;
//! * `hart-config` "MS" per hart: context 2h is hart h's M-mode context
//!   (drives `mip.MEIP`), context 2h+1 its S-mode context (`mip.SEIP`);
//! * `priority-base` 0x04, `pending-base` 0x1000, `enable-base` 0x2000
//!   (stride 0x80), `context-base` 0x20_0000 (stride 0x1000: threshold at
//!   +0, claim/complete at +4);
//! * `aperture-size` = `VIRT_PLIC_SIZE(VIRT_CPUS_MAX * 2)` = 0x60_0000
//!   ([`Plic::SIZE`]; `VIRT_CPUS_MAX` = 512).
//!
//! Only aligned 32-bit accesses are valid (`sifive_plic_ops.valid` min =
//! max = 4); anything else is [`Refused`]. Inside the window, offsets that
//! name no register read as 0 and ignore writes (`sifive_plic_read` logs
//! "Invalid register read" and returns 0; `sifive_plic_write` logs and
//! does nothing).
//!
//! **Differences between 7.2 and later QEMU** (fwprof follows 7.2):
//!
//! * Priority registers: 7.2 has `priority-base` 0x04 and computes
//!   `irq = ((addr - priority_base) >> 2) + 1` over `num_sources << 2`
//!   bytes, i.e. offsets 0x4..=0x180 are the priorities of sources
//!   1..=96. Offset 0x0 (source 0) is not a register (reads 0). Offset
//!   0x180 indexes one entry past QEMU 7.2's 96-entry array (a heap
//!   overrun, removed in 8.0 by "Change priority-base to start from
//!   interrupt source 0"); fwprof keeps that word as a harmless scratch
//!   register that reads back what was written (masked to 3 bits) and
//!   belongs to no source.
//! * Priorities and thresholds are WARL (7.2, "change interrupt priority
//!   register to WARL field"): 7 + 1 is a power of two, so a write stores
//!   `value % 8`.
//! * Pending words: 7.2 decodes `num_sources >> 3` = 12 bytes at 0x1000
//!   (words 0..=2); writes there are ignored ("invalid pending write").
//! * Levels: `sifive_plic_irq_request` in 7.2 makes the pending bit follow
//!   the source's level (`set_pending(irq, level > 0)`); QEMU 9.2 and
//!   later only set it on a high level.
//! * Completion (`sifive_plic_write`, context offset 4): any value below
//!   `num_sources` clears that source's claimed bit, **whether or not the
//!   source is enabled for the completing context** (no QEMU version
//!   checks the enable bits here).
//! * An enable write stores the word but does **not** call
//!   `sifive_plic_update`: the interrupt lines keep their level until the
//!   next event that updates them (a [`Plic::set_source`], a claim, a
//!   completion, a priority or threshold write).
//!
//! Claimed bits are global, as in QEMU: a source claimed through one
//! context is invisible to every context until it is completed.
//!
//! **Claim and level-triggered sources.** A claim clears the source's
//! pending bit even if its line is still high; QEMU sets it again only
//! when the device calls `qemu_set_irq` again (which QEMU devices do each
//! time they re-evaluate their line, e.g. `serial_update_irq` on every
//! UART register access that changes state). The bus must do the same:
//! call [`Plic::set_source`] whenever a device re-evaluates its line, not
//! only when the level changes.

use super::{access_valid, Refused};

/// Sources including source 0 (`num-sources`, `VIRT_IRQCHIP_NUM_SOURCES`).
const NUM_SOURCES: u32 = 96;
/// 32-bit words of a pending, claimed or enable bit field
/// (`bitfield_words` = (96 + 31) / 32).
const WORDS: usize = 3;
/// `num-priorities`: priorities and thresholds are 3 bits (WARL).
const NUM_PRIORITIES: u32 = 7;

const PRIORITY_BASE: u64 = 0x04;
const PENDING_BASE: u64 = 0x1000;
const ENABLE_BASE: u64 = 0x2000;
const ENABLE_STRIDE: u64 = 0x80;
const CONTEXT_BASE: u64 = 0x20_0000;
const CONTEXT_STRIDE: u64 = 0x1000;

/// The PLIC of QEMU 7.2's virt board for `harts` harts (see the module
/// documentation for the register layout and QEMU's quirks).
#[derive(Debug, Clone)]
pub struct Plic {
    /// `source_priority[irq]` for irq 0..=95, plus index 96: the word QEMU
    /// 7.2 addresses past its array at offset 0x180 (no source).
    source_priority: [u32; NUM_SOURCES as usize + 1],
    /// `target_priority`: the threshold of each context.
    threshold: Vec<u32>,
    pending: [u32; WORDS],
    claimed: [u32; WORDS],
    /// `enable` words of each context.
    enable: Vec<[u32; WORDS]>,
    /// (MEIP, SEIP) of each hart as the last `sifive_plic_update` left them.
    lines: Vec<(bool, bool)>,
}

impl Plic {
    /// Size in bytes of the MMIO window virt gives the PLIC:
    /// `VIRT_PLIC_SIZE(VIRT_CPUS_MAX * 2)` = 0x20_0000 + 1024 × 0x1000.
    pub const SIZE: u64 = 0x60_0000;
    /// Interrupt sources including source 0 (`VIRT_IRQCHIP_NUM_SOURCES`):
    /// valid source ids are 1..`NUM_SOURCES`.
    pub const NUM_SOURCES: u32 = NUM_SOURCES;
    /// Highest priority (`num-priorities`); priority 0 never interrupts.
    pub const NUM_PRIORITIES: u32 = NUM_PRIORITIES;

    /// QEMU's reset state (`sifive_plic_reset`) for `harts` harts with an M
    /// and an S context each: every priority, threshold, pending, claimed
    /// and enable bit 0, all lines low.
    pub fn new(harts: usize) -> Plic {
        let contexts = harts.saturating_mul(2);
        Plic {
            source_priority: [0; NUM_SOURCES as usize + 1],
            threshold: vec![0; contexts],
            pending: [0; WORDS],
            claimed: [0; WORDS],
            enable: vec![[0; WORDS]; contexts],
            lines: vec![(false, false); harts],
        }
    }

    /// Number of contexts (`num_addrs`): two per hart.
    fn contexts(&self) -> u64 {
        self.threshold.len() as u64
    }

    /// A 32-bit load at `offset` (bytes from the window's base), QEMU
    /// `sifive_plic_read`. A load of a context's claim register (context
    /// base + 4) claims: it returns the id of the highest-priority source
    /// pending, enabled for that context, not claimed and above its
    /// threshold (the lowest id on ties; 0 if none), clears that source's
    /// pending bit and sets its claimed bit. [`Refused`] unless `size` is 4
    /// and `offset` a multiple of 4.
    pub fn read(&mut self, offset: u64, size: u32) -> Result<u64, Refused> {
        access_valid(offset, size, 4, 4)?;
        let contexts = self.contexts();
        if let Some(irq) = priority_index(offset) {
            return Ok(u64::from(self.source_priority[irq]));
        }
        if let Some(word) = pending_index(offset) {
            return Ok(u64::from(self.pending[word]));
        }
        if in_range(offset, ENABLE_BASE, contexts.saturating_mul(ENABLE_STRIDE)) {
            let context = ((offset - ENABLE_BASE) / ENABLE_STRIDE) as usize;
            let word = ((offset & (ENABLE_STRIDE - 1)) >> 2) as usize;
            if let Some(value) = self.enable.get(context).and_then(|w| w.get(word)) {
                return Ok(u64::from(*value));
            }
            return Ok(0);
        }
        if in_range(
            offset,
            CONTEXT_BASE,
            contexts.saturating_mul(CONTEXT_STRIDE),
        ) {
            let context = ((offset - CONTEXT_BASE) / CONTEXT_STRIDE) as usize;
            match offset & (CONTEXT_STRIDE - 1) {
                0 => return Ok(self.threshold.get(context).map_or(0, |&t| u64::from(t))),
                4 => return Ok(u64::from(self.claim(context))),
                _ => {}
            }
        }
        // "Invalid register read": QEMU returns 0.
        Ok(0)
    }

    /// A 32-bit store of `value` at `offset`, QEMU `sifive_plic_write`:
    /// priorities and thresholds keep `value % 8`; pending words ignore
    /// writes; enable words store `value` (without updating the lines, as
    /// QEMU 7.2); a store to a context's claim/complete register completes
    /// source `value` (clears its claimed bit) when `value` < 96, whatever
    /// the context's enable bits. Bits of `value` above 32 are ignored.
    /// [`Refused`] unless `size` is 4 and `offset` a multiple of 4.
    pub fn write(&mut self, offset: u64, size: u32, value: u64) -> Result<(), Refused> {
        access_valid(offset, size, 4, 4)?;
        let value = value as u32; // a 4-byte store carries 32 bits
        let contexts = self.contexts();
        if let Some(irq) = priority_index(offset) {
            self.source_priority[irq] = value % (NUM_PRIORITIES + 1);
            self.update();
        } else if pending_index(offset).is_some() {
            // "invalid pending write": ignored.
        } else if in_range(offset, ENABLE_BASE, contexts.saturating_mul(ENABLE_STRIDE)) {
            let context = ((offset - ENABLE_BASE) / ENABLE_STRIDE) as usize;
            let word = ((offset & (ENABLE_STRIDE - 1)) >> 2) as usize;
            if let Some(slot) = self.enable.get_mut(context).and_then(|w| w.get_mut(word)) {
                // QEMU 7.2 stores the word and does not call sifive_plic_update.
                *slot = value;
            }
        } else if in_range(
            offset,
            CONTEXT_BASE,
            contexts.saturating_mul(CONTEXT_STRIDE),
        ) {
            let context = ((offset - CONTEXT_BASE) / CONTEXT_STRIDE) as usize;
            match offset & (CONTEXT_STRIDE - 1) {
                0 => {
                    if let Some(t) = self.threshold.get_mut(context) {
                        *t = value % (NUM_PRIORITIES + 1);
                    }
                    self.update();
                }
                // Completion: values >= num_sources are ignored.
                4 if value < NUM_SOURCES => {
                    set_bit(&mut self.claimed, value, false);
                    self.update();
                }
                // Other offsets: "Invalid context write", ignored.
                _ => {}
            }
        }
        // Anything else: "Invalid register write", ignored.
        Ok(())
    }

    /// Source `source`'s interrupt line is now at `level`, QEMU
    /// `sifive_plic_irq_request`: the pending bit follows the level, then
    /// the lines are updated (`sifive_plic_update`). Call it whenever the
    /// device re-evaluates its line, even when the level did not change
    /// (QEMU's `qemu_set_irq` always reaches the PLIC): a claim clears the
    /// pending bit of a source whose line is still high, and only the next
    /// call sets it again. Sources ≥ 96 do not exist (ignored); source 0
    /// exists in QEMU as an input but can never be claimed (its priority
    /// register is not addressable, so its priority stays 0).
    pub fn set_source(&mut self, source: u32, level: bool) {
        if source >= NUM_SOURCES {
            return;
        }
        set_bit(&mut self.pending, source, level);
        self.update();
    }

    /// The (MEIP, SEIP) levels the PLIC drives into hart `hart`'s `mip`,
    /// as the last `sifive_plic_update` computed them: a level is high when
    /// some source is pending, enabled for the context (2·hart for M,
    /// 2·hart+1 for S), not claimed, and of priority above the context's
    /// threshold. (false, false) for a hart the PLIC does not serve.
    pub fn lines(&self, hart: usize) -> (bool, bool) {
        self.lines.get(hart).copied().unwrap_or((false, false))
    }

    /// QEMU `sifive_plic_claimed`: the id of the highest-priority source
    /// pending, enabled for `context` and not claimed whose priority is
    /// above the context's threshold, the lowest id on ties; 0 if none.
    fn best(&self, context: usize) -> u32 {
        let (Some(&threshold), Some(enable)) =
            (self.threshold.get(context), self.enable.get(context))
        else {
            return 0;
        };
        let mut max_irq = 0;
        let mut max_prio = threshold;
        for (i, &enabled) in enable.iter().enumerate() {
            let candidates = self.pending[i] & !self.claimed[i] & enabled;
            if candidates == 0 {
                continue;
            }
            for j in 0..32 {
                let irq = (i * 32 + j) as u32;
                if irq >= NUM_SOURCES {
                    break;
                }
                let prio = self.source_priority[irq as usize];
                if candidates & (1 << j) != 0 && prio > max_prio {
                    max_irq = irq;
                    max_prio = prio;
                }
            }
        }
        max_irq
    }

    /// A read of `context`'s claim register (`sifive_plic_read`, context
    /// offset 4).
    fn claim(&mut self, context: usize) -> u32 {
        let irq = self.best(context);
        if irq != 0 {
            set_bit(&mut self.pending, irq, false);
            set_bit(&mut self.claimed, irq, true);
        }
        self.update();
        irq
    }

    /// QEMU `sifive_plic_update`: recompute every hart's MEIP and SEIP.
    fn update(&mut self) {
        for hart in 0..self.lines.len() {
            let m = self.best(2 * hart) != 0;
            let s = self.best(2 * hart + 1) != 0;
            self.lines[hart] = (m, s);
        }
    }
}

/// QEMU `addr_between(addr, base, num)`.
fn in_range(offset: u64, base: u64, len: u64) -> bool {
    offset >= base && offset - base < len
}

/// Index into `source_priority` of a priority register (7.2: base 0x04,
/// `irq = ((addr - base) >> 2) + 1`, `num_sources << 2` bytes).
fn priority_index(offset: u64) -> Option<usize> {
    in_range(offset, PRIORITY_BASE, u64::from(NUM_SOURCES) << 2)
        .then(|| (((offset - PRIORITY_BASE) >> 2) + 1) as usize)
}

/// Word of a pending register (7.2: `num_sources >> 3` bytes at 0x1000).
fn pending_index(offset: u64) -> Option<usize> {
    in_range(offset, PENDING_BASE, u64::from(NUM_SOURCES) >> 3)
        .then(|| ((offset - PENDING_BASE) >> 2) as usize)
}

/// `sifive_plic_set_pending` / `sifive_plic_set_claimed` on a bit field;
/// `irq` < 96.
fn set_bit(field: &mut [u32; WORDS], irq: u32, level: bool) {
    if let Some(word) = field.get_mut((irq >> 5) as usize) {
        let mask = 1u32 << (irq & 31);
        if level {
            *word |= mask;
        } else {
            *word &= !mask;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const M0: u64 = CONTEXT_BASE; // hart 0 M-mode context
    const S0: u64 = CONTEXT_BASE + CONTEXT_STRIDE; // hart 0 S-mode context

    fn prio(plic: &mut Plic, source: u64, p: u64) {
        plic.write(4 * source, 4, p).unwrap();
    }

    fn enable(plic: &mut Plic, context: u64, source: u32) {
        let off = ENABLE_BASE + context * ENABLE_STRIDE + 4 * u64::from(source / 32);
        let old = plic.read(off, 4).unwrap();
        plic.write(off, 4, old | 1 << (source % 32)).unwrap();
    }

    fn claim(plic: &mut Plic, context_base: u64) -> u64 {
        plic.read(context_base + 4, 4).unwrap()
    }

    fn complete(plic: &mut Plic, context_base: u64, source: u64) {
        plic.write(context_base + 4, 4, source).unwrap();
    }

    #[test]
    fn reset_state_is_all_zero() {
        let mut plic = Plic::new(2);
        assert_eq!(plic.lines(0), (false, false));
        assert_eq!(plic.lines(1), (false, false));
        assert_eq!(plic.lines(2), (false, false));
        for off in [0x4, 0x28, 0x1000, 0x1008, 0x2000, 0x2080, M0, S0 + 4] {
            assert_eq!(plic.read(off, 4), Ok(0), "offset {off:#x}");
        }
    }

    #[test]
    fn claim_complete_cycle() {
        let mut plic = Plic::new(1);
        prio(&mut plic, 10, 1);
        enable(&mut plic, 0, 10);
        plic.set_source(10, true);
        assert_eq!(plic.lines(0), (true, false));
        assert_eq!(plic.read(PENDING_BASE, 4), Ok(1 << 10));

        assert_eq!(claim(&mut plic, M0), 10);
        // Claimed: pending cleared, line low, a second claim finds nothing.
        assert_eq!(plic.read(PENDING_BASE, 4), Ok(0));
        assert_eq!(plic.lines(0), (false, false));
        assert_eq!(claim(&mut plic, M0), 0);

        plic.set_source(10, false);
        complete(&mut plic, M0, 10);
        assert_eq!(plic.lines(0), (false, false));
        plic.set_source(10, true);
        assert_eq!(plic.lines(0), (true, false));
        assert_eq!(claim(&mut plic, M0), 10);
    }

    #[test]
    fn level_still_high_at_completion_needs_another_set_source() {
        // QEMU 7.2: the claim cleared the pending bit; completing only
        // clears the claimed bit, so the source stays quiet until the
        // device calls qemu_set_irq (set_source) again.
        let mut plic = Plic::new(1);
        prio(&mut plic, 10, 1);
        enable(&mut plic, 0, 10);
        plic.set_source(10, true);
        assert_eq!(claim(&mut plic, M0), 10);
        complete(&mut plic, M0, 10);
        assert_eq!(plic.lines(0), (false, false));
        assert_eq!(plic.read(PENDING_BASE, 4), Ok(0));
        plic.set_source(10, true);
        assert_eq!(plic.lines(0), (true, false));
        assert_eq!(plic.read(PENDING_BASE, 4), Ok(1 << 10));
    }

    #[test]
    fn level_follows_while_claimed() {
        let mut plic = Plic::new(1);
        prio(&mut plic, 3, 1);
        enable(&mut plic, 0, 3);
        plic.set_source(3, true);
        assert_eq!(claim(&mut plic, M0), 3);
        // Raised again while claimed: pending, but not deliverable.
        plic.set_source(3, true);
        assert_eq!(plic.read(PENDING_BASE, 4), Ok(1 << 3));
        assert_eq!(plic.lines(0), (false, false));
        // Lowered before completion: pending follows the level (7.2).
        plic.set_source(3, false);
        assert_eq!(plic.read(PENDING_BASE, 4), Ok(0));
        complete(&mut plic, M0, 3);
        assert_eq!(plic.lines(0), (false, false));
    }

    #[test]
    fn priority_order_and_lowest_id_on_ties() {
        let mut plic = Plic::new(1);
        for s in [5, 7, 9, 40, 70] {
            enable(&mut plic, 0, s);
        }
        prio(&mut plic, 5, 2);
        prio(&mut plic, 7, 6);
        prio(&mut plic, 9, 6);
        prio(&mut plic, 40, 3);
        prio(&mut plic, 70, 7);
        for s in [5, 7, 9, 40, 70] {
            plic.set_source(s, true);
        }
        assert_eq!(plic.read(PENDING_BASE, 4), Ok(1 << 5 | 1 << 7 | 1 << 9));
        assert_eq!(plic.read(PENDING_BASE + 4, 4), Ok(1 << 8));
        assert_eq!(plic.read(PENDING_BASE + 8, 4), Ok(1 << 6));
        let order: Vec<u64> = (0..6).map(|_| claim(&mut plic, M0)).collect();
        assert_eq!(order, [70, 7, 9, 40, 5, 0]);
    }

    #[test]
    fn threshold_masks_priorities_at_or_below_it() {
        let mut plic = Plic::new(1);
        prio(&mut plic, 1, 3);
        enable(&mut plic, 0, 1);
        plic.set_source(1, true);
        assert_eq!(plic.lines(0), (true, false));
        plic.write(M0, 4, 3).unwrap();
        assert_eq!(plic.read(M0, 4), Ok(3));
        assert_eq!(plic.lines(0), (false, false));
        assert_eq!(claim(&mut plic, M0), 0);
        // WARL: value % 8.
        plic.write(M0, 4, 0xa).unwrap();
        assert_eq!(plic.read(M0, 4), Ok(2));
        assert_eq!(plic.lines(0), (true, false));
        // Priority 0 never interrupts, even with threshold 0.
        plic.write(M0, 4, 0).unwrap();
        prio(&mut plic, 1, 8);
        assert_eq!(plic.read(4, 4), Ok(0));
        assert_eq!(plic.lines(0), (false, false));
    }

    #[test]
    fn enables_are_per_context() {
        let mut plic = Plic::new(2);
        prio(&mut plic, 33, 1);
        // Hart 1's S context is context 3.
        enable(&mut plic, 3, 33);
        assert_eq!(
            plic.read(ENABLE_BASE + 3 * ENABLE_STRIDE + 4, 4),
            Ok(1 << 1)
        );
        plic.set_source(33, true);
        assert_eq!(plic.lines(0), (false, false));
        assert_eq!(plic.lines(1), (false, true));
        // Hart 1's M context (2) sees nothing to claim; S context claims.
        let m1 = CONTEXT_BASE + 2 * CONTEXT_STRIDE;
        let s1 = CONTEXT_BASE + 3 * CONTEXT_STRIDE;
        assert_eq!(claim(&mut plic, m1), 0);
        assert_eq!(claim(&mut plic, s1), 33);
        assert_eq!(plic.lines(1), (false, false));
    }

    #[test]
    fn claimed_bit_is_global() {
        let mut plic = Plic::new(1);
        prio(&mut plic, 2, 1);
        enable(&mut plic, 0, 2);
        enable(&mut plic, 1, 2);
        plic.set_source(2, true);
        assert_eq!(plic.lines(0), (true, true));
        assert_eq!(claim(&mut plic, S0), 2);
        assert_eq!(plic.lines(0), (false, false));
        assert_eq!(claim(&mut plic, M0), 0);
    }

    #[test]
    fn completion_ignores_enable_bits_as_qemu_does() {
        let mut plic = Plic::new(1);
        prio(&mut plic, 4, 1);
        enable(&mut plic, 0, 4);
        plic.set_source(4, true);
        assert_eq!(claim(&mut plic, M0), 4);
        plic.set_source(4, true);
        // Completed through the S context, where 4 is not enabled: QEMU
        // 7.2 clears the claimed bit anyway.
        complete(&mut plic, S0, 4);
        assert_eq!(plic.lines(0), (true, false));
        // Out-of-range completions are ignored.
        complete(&mut plic, M0, 96);
        complete(&mut plic, M0, u64::MAX);
    }

    #[test]
    fn enable_write_does_not_update_lines() {
        let mut plic = Plic::new(1);
        prio(&mut plic, 10, 1);
        plic.set_source(10, true);
        assert_eq!(plic.lines(0), (false, false));
        enable(&mut plic, 0, 10);
        // QEMU 7.2: no sifive_plic_update after an enable write.
        assert_eq!(plic.lines(0), (false, false));
        // The next update (here the device re-asserting) raises it; a
        // claim works regardless, since it evaluates the state.
        plic.set_source(10, true);
        assert_eq!(plic.lines(0), (true, false));
        assert_eq!(claim(&mut plic, M0), 10);
    }

    #[test]
    fn priority_registers_follow_7_2_layout() {
        let mut plic = Plic::new(1);
        // Offset 0 (source 0) is no register.
        plic.write(0, 4, 5).unwrap();
        assert_eq!(plic.read(0, 4), Ok(0));
        // Offset 4·n is source n, masked to 3 bits.
        for s in 1..=95u64 {
            plic.write(4 * s, 4, s).unwrap();
        }
        for s in 1..=95u64 {
            assert_eq!(plic.read(4 * s, 4), Ok(s % 8));
        }
        // Offset 0x180: QEMU 7.2's word past the array; a scratch here.
        plic.write(0x180, 4, 0xf).unwrap();
        assert_eq!(plic.read(0x180, 4), Ok(7));
        // 0x184 is past the priority range.
        plic.write(0x184, 4, 3).unwrap();
        assert_eq!(plic.read(0x184, 4), Ok(0));
    }

    #[test]
    fn pending_writes_and_unimplemented_offsets_are_ignored() {
        let mut plic = Plic::new(1);
        prio(&mut plic, 1, 1);
        plic.set_source(1, true);
        plic.write(PENDING_BASE, 4, 0).unwrap();
        assert_eq!(plic.read(PENDING_BASE, 4), Ok(2));
        plic.write(PENDING_BASE, 4, 0xffff_ffff).unwrap();
        assert_eq!(plic.read(PENDING_BASE, 4), Ok(2));
        // Past the 12 pending bytes; enable words 3.. of a context; the
        // enable block of a context that does not exist; other context
        // offsets; a context that does not exist.
        for off in [
            PENDING_BASE + 0xc,
            ENABLE_BASE + 0xc,
            ENABLE_BASE + 0x7c,
            ENABLE_BASE + 2 * ENABLE_STRIDE,
            M0 + 8,
            M0 + 0xffc,
            CONTEXT_BASE + 2 * CONTEXT_STRIDE,
            CONTEXT_BASE + 2 * CONTEXT_STRIDE + 4,
            Plic::SIZE - 4,
        ] {
            plic.write(off, 4, 0xffff_ffff).unwrap();
            assert_eq!(plic.read(off, 4), Ok(0), "offset {off:#x}");
        }
        assert_eq!(plic.read(ENABLE_BASE, 4), Ok(0));
        assert_eq!(plic.read(M0, 4), Ok(0));
    }

    #[test]
    fn refuses_other_sizes_and_misaligned_offsets() {
        let mut plic = Plic::new(1);
        for size in [0, 1, 2, 3, 8, 16] {
            assert_eq!(plic.read(M0 + 4, size), Err(Refused));
            assert_eq!(plic.write(M0, size, 1), Err(Refused));
        }
        for off in [1, 2, 3, M0 + 2, M0 + 5] {
            assert_eq!(plic.read(off, 4), Err(Refused));
            assert_eq!(plic.write(off, 4, 1), Err(Refused));
        }
        // A refused claim has no side effect.
        prio(&mut plic, 1, 1);
        enable(&mut plic, 0, 1);
        plic.set_source(1, true);
        assert_eq!(plic.read(M0 + 4, 8), Err(Refused));
        assert_eq!(plic.lines(0), (true, false));
    }

    #[test]
    fn set_source_ignores_nonexistent_sources_and_zero_never_claims() {
        let mut plic = Plic::new(1);
        plic.write(ENABLE_BASE, 4, 0xffff_ffff).unwrap();
        plic.set_source(96, true);
        plic.set_source(u32::MAX, true);
        plic.set_source(0, true);
        // Source 0 is pending (as in QEMU) but its priority stays 0.
        assert_eq!(plic.read(PENDING_BASE, 4), Ok(1));
        assert_eq!(plic.lines(0), (false, false));
        assert_eq!(claim(&mut plic, M0), 0);
    }

    #[test]
    fn size_is_virt_plic_size_for_512_harts() {
        assert_eq!(Plic::SIZE, CONTEXT_BASE + 512 * 2 * CONTEXT_STRIDE);
        // The last context of a 512-hart PLIC ends exactly at the window end.
        let mut plic = Plic::new(512);
        let last = CONTEXT_BASE + 1023 * CONTEXT_STRIDE;
        plic.write(last, 4, 5).unwrap();
        assert_eq!(plic.read(last, 4), Ok(5));
    }

    #[test]
    fn arbitrary_accesses_never_panic() {
        for harts in [0, 1, 3] {
            let mut plic = Plic::new(harts);
            let mut x = 0x2545_f491_4f6c_dd1du64 ^ harts as u64;
            for _ in 0..200_000 {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                let offset = match x & 3 {
                    0 => x >> 2,
                    1 => (x >> 2) % Plic::SIZE,
                    2 => CONTEXT_BASE + (x >> 2) % 0x8000,
                    _ => (x >> 2) % 0x2400,
                };
                let size = [4, 4, 4, 1, 2, 8, 0, 3][(x >> 40) as usize & 7];
                if x & (1 << 50) != 0 {
                    let _ = plic.write(offset, size, x.rotate_left(11));
                } else {
                    let _ = plic.read(offset, size);
                }
                plic.set_source((x >> 20) as u32 % 130, x & (1 << 51) != 0);
                let _ = plic.lines((x >> 30) as usize % 5);
            }
        }
    }
}
