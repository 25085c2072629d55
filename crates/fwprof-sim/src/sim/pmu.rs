//! The simulator's side of the guest's performance counters
//! (`crate::pmu`): installing a core's counters, the counters' sources
//! at an instruction boundary, rebasing at privilege changes, counting
//! blocks into class counters, and the counter-overflow point and
//! interrupt (Sscofpmf 1.0).

use super::*;
use crate::pmu::{Now, PmuConfig};

impl<H: Hooks> Simulator<H> {
    /// Give every hart the performance counters of a core description
    /// (`None`: QEMU 7.2's, with no programmable counter). Call before
    /// the run; the counters restart from their current values.
    /// (Before the run: a core model has counted nothing yet; the hooks
    /// are not asked.)
    pub fn set_pmu(&mut self, config: Option<PmuConfig>) {
        let harts = std::iter::once(&mut self.hart).chain(self.harts.parked.iter_mut());
        for h in harts {
            let retired = h.executed - h.not_retired;
            let now = Now {
                retired,
                cycles: retired,
                model: [0; crate::MODEL_EVENTS],
            };
            h.pmu.configure(config, &now);
        }
    }

    /// The counters' sources at the current instruction boundary (after
    /// the last instruction that ran).
    pub(super) fn pmu_now(&mut self) -> Now {
        let retired = self.hart.executed - self.hart.not_retired;
        let mut now = Now {
            retired,
            cycles: retired,
            model: [0; crate::MODEL_EVENTS],
        };
        if H::MODELS_CYCLES {
            let (id, k) = self.hart.last;
            now.cycles = self.hooks.cycles_before(BlockId(id), k);
            if self.hart.pmu.model_live {
                self.hooks.model_events(BlockId(id), k, &mut now.model);
            }
        }
        now
    }

    /// Retired instructions so far in the privilege levels of `levels`
    /// (bit `p.bits()` for level `p`: 1 user, 2 supervisor, 8 machine) on
    /// the running hart: what a counter with the other levels' Sscofpmf
    /// inhibit bits set would count, or perf's `:u`/`:k` modifiers.
    pub fn retired_in(&self, levels: u8) -> u64 {
        let h = &self.hart;
        let mut n: u64 = (0..4)
            .filter(|b| levels >> b & 1 != 0)
            .map(|b| h.mode_retired[b])
            .sum();
        if levels >> h.privilege.bits() & 1 != 0 {
            n += (h.executed - h.not_retired) - h.mode_mark;
        }
        n
    }

    /// The running hart leaves privilege `from`: its retired instructions
    /// since the last change were retired there.
    pub(super) fn mark_privilege(&mut self, from: crate::Privilege) {
        let h = &mut self.hart;
        let r = h.executed - h.not_retired;
        h.mode_retired[from.bits() as usize] += r - h.mode_mark;
        h.mode_mark = r;
    }

    /// The privilege may have changed (a trap, `mret`/`sret`): counters
    /// with a mode filter take their value so far and start or stop.
    /// `now` are the sources at the change.
    pub(super) fn pmu_privilege_changed(&mut self, now: &Now) {
        let p = self.hart.privilege;
        self.hart.pmu.rebase(now, p);
        self.pmu_raise();
    }

    /// Count the retired instructions `first .. first + n` of the block
    /// cache's arena (a block or its first part) into the class counters.
    /// True if that raised the overflow interrupt.
    pub(super) fn pmu_account(&mut self, first: usize, n: usize, taken_last: bool) -> bool {
        self.hart
            .pmu
            .account(&self.cache.insts[first..first + n], taken_last);
        self.pmu_raise()
    }

    /// A counter overflowed with its OF bit clear: `mip.LCOFIP`. True if
    /// so.
    pub(super) fn pmu_raise(&mut self) -> bool {
        let raise = std::mem::take(&mut self.hart.pmu.raise_lcofi);
        if raise {
            self.hart.mip |= crate::irq::LCOFIP;
        }
        raise
    }

    /// The executed count at which a counter may next overflow (`u64::MAX`
    /// if none is watched).
    pub(super) fn pmu_point(&mut self) -> u64 {
        if !self.hart.pmu.watch_overflow {
            return u64::MAX;
        }
        let now = self.pmu_now();
        match self.hart.pmu.overflow_distance(&now) {
            Some(d) => self.hart.executed.saturating_add(d),
            None => u64::MAX,
        }
    }

    /// At an instruction boundary where a counter may have overflowed:
    /// find out, set its OF bit and raise LCOFI.
    pub(super) fn pmu_check(&mut self) {
        if self.hart.pmu.watch_overflow {
            let now = self.pmu_now();
            let p = self.hart.privilege;
            self.hart.pmu.rebase(&now, p);
            self.pmu_raise();
        }
    }
}
