//! An operating system's tasks in the instrumentation collector: each
//! task has an activation stack of its own (hook calls of one task never
//! close another's activations), and a parked task's activations leave
//! out the time and hook calls of the tasks that ran meanwhile, as the
//! interrupted activations leave out a trap context's (module `traps`).
//! Durations, maxima and compensation are then each task's own.

use fwprof_sim::CostModel;

use super::{add, sub, Clock, Epilogue, Frame, HookFrame, InstrumentCollector, Transfer};

/// The activation stack of a task that does not run.
#[derive(Clone, Debug, Default)]
pub(super) struct Parked {
    frames: Vec<Frame>,
    hook: Option<HookFrame>,
    epilogue: Option<Epilogue>,
    saved: Vec<super::traps::Saved>,
    signals: Vec<(usize, crate::SignalStack)>,
    active_fn: Vec<u32>,
    active_arc: Vec<u32>,
    transfers: Vec<Transfer>,
    /// Clock and hook calls when it stopped.
    at: Clock,
    hooks_at: u64,
}

impl<M: CostModel> InstrumentCollector<M> {
    /// Task `to` runs instead of `from` at `now`.
    pub(super) fn switch_task(&mut self, from: u32, to: u32, now: Clock) {
        self.charge(now);
        let out = Parked {
            frames: std::mem::take(&mut self.frames),
            hook: self.hook.take(),
            epilogue: self.epilogue.take(),
            saved: std::mem::take(&mut self.saved),
            signals: std::mem::take(&mut self.signals),
            active_fn: std::mem::take(&mut self.active_fn),
            active_arc: std::mem::take(&mut self.active_arc),
            transfers: self.take_transfers(),
            at: now,
            hooks_at: self.hook_events,
        };
        self.parked.insert(from, out);
        self.resume(to, now);
    }

    /// Take up task `to`'s activations at `now` (a new task starts with
    /// none): shifted by the time and hook calls of the others meanwhile.
    fn resume(&mut self, to: u32, now: Clock) {
        let back = self.parked.remove(&to).unwrap_or(Parked {
            at: now,
            hooks_at: self.hook_events,
            ..Parked::default()
        });
        let spent = sub(now, back.at);
        let hooks = self.hook_events - back.hooks_at;
        self.frames = back.frames;
        for f in &mut self.frames {
            add(&mut f.start, spent);
            f.hooks_at_start += hooks;
        }
        self.hook = back.hook.map(|mut h| {
            add(&mut h.start, spent);
            h
        });
        self.epilogue = back.epilogue.map(|e| e.shifted(spent));
        self.saved = back.saved;
        for s in &mut self.saved {
            s.shift(spent);
        }
        self.signals = back.signals;
        self.active_fn = back.active_fn;
        self.active_fn.resize(self.funcs.len(), 0);
        self.active_arc = back.active_arc;
        self.active_arc.resize(self.arcs.len(), 0);
        self.restore_transfers(&back.transfers, spent);
        self.top_since = now;
    }

    /// Activations open in the tasks that do not run.
    pub(super) fn parked_frames(&self) -> u64 {
        self.parked.values().map(|p| p.frames.len() as u64).sum()
    }

    /// End of run at `now`: the parked tasks' activations, each closed
    /// where its task stopped (in key order).
    pub(super) fn close_parked(&mut self, now: Clock) {
        let mut keys: Vec<u32> = self.parked.keys().copied().collect();
        keys.sort_unstable();
        for k in keys {
            let at = self.parked[&k].at;
            self.charge(now);
            // Nothing runs between: the parked task closes at its own end.
            self.resume(k, at);
            while self.pop(at, false).is_some() {}
            self.charge(at);
            if self.epilogue.take().is_some() {
                self.unmeasured += 1;
            }
        }
    }
}

impl Transfer {
    /// Move its clock on by `spent`.
    pub(super) fn shift(&mut self, spent: Clock) {
        add(&mut self.at, spent);
    }
}

impl Epilogue {
    /// The same epilogue with its clocks moved on by `spent`.
    pub(super) fn shifted(mut self, spent: Clock) -> Epilogue {
        add(&mut self.frame.start, spent);
        if let Some(s) = self.start.as_mut() {
            add(s, spent);
        }
        self
    }
}
