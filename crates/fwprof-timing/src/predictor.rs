//! Branch prediction model ([`Predictor`]): direction predictors (none,
//! static, bimodal, gshare) and a branch target buffer.
use crate::params::{PredictorKind, PredictorParams};

/// Kinds of control transfer, as the decoder classifies them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BranchKind {
    /// Conditional branch (`beq`, `bne`, `blt`, `bge`, `bltu`, `bgeu` and
    /// their compressed forms).
    Conditional,
    /// Direct jump that links nothing (`jal x0`, `c.j`).
    Jump,
    /// Call: `jal`/`jalr` writing `ra` (or `t0`).
    Call,
    /// Return: `jalr x0, 0(ra)` (`ret`).
    Return,
    /// Any other `jalr` (computed jumps, tail calls through a register).
    Indirect,
}

/// The prediction made for one transfer and how it was scored.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Outcome {
    /// The direction predicted (always `true` for unconditional transfers
    /// unless the kind is [`PredictorKind::None`], which predicts `false`:
    /// sequential fetch).
    pub predicted_taken: bool,
    /// The pipeline must be redirected: wrong direction, or predicted taken
    /// with a BTB miss or wrong BTB target.
    pub mispredicted: bool,
    /// The BTB was looked up and held an entry for this pc (its target may
    /// still be wrong).
    pub btb_hit: bool,
}

/// The table positions of a transfer's pc ([`Predictor::slots`]): its
/// direction counter before the history is mixed in, and its BTB entry.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Slots {
    counter: u32,
    btb: u32,
}

/// Counts since [`Predictor::new`].
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct PredictorStats {
    /// Conditional branches resolved.
    pub branches: u64,
    /// Unconditional transfers resolved (jumps, calls, returns, indirect).
    pub jumps: u64,
    /// Transfers counted as mispredicted (conditional and unconditional).
    pub mispredicts: u64,
    /// BTB lookups that found the pc.
    pub btb_hits: u64,
    /// BTB lookups that did not find the pc.
    pub btb_misses: u64,
}

/// Weakly not taken: the initial value of every counter.
const WEAKLY_NOT_TAKEN: u8 = 1;
/// The next value of a 2-bit saturating counter, indexed by the outcome
/// (not taken, taken) and the current value.
const SATURATE: [[u8; 4]; 2] = [[0, 0, 1, 2], [1, 2, 3, 3]];
/// Pc tag of an empty BTB entry (an odd address: never an instruction's).
const BTB_EMPTY: u64 = u64::MAX;

/// A branch predictor with its counters: a direction predictor for
/// conditional branches and an optional branch target buffer (BTB), fed one
/// resolved control transfer at a time by [`Predictor::resolve`], which
/// predicts, scores the prediction and then updates the tables.
///
/// Direction of a [`BranchKind::Conditional`] branch at `pc`:
///
/// - [`PredictorKind::None`]: no prediction. The core fetches sequentially
///   and pays the taken cost of every taken transfer through the pipeline's
///   class latencies, so nothing is ever counted as mispredicted (for any
///   kind of transfer) and the BTB, if configured, is not used.
/// - [`PredictorKind::Static`]: backward taken, forward not taken (BTFN):
///   taken iff `target < pc`.
/// - [`PredictorKind::Bimodal`]: 2-bit saturating counters (`0..=3`,
///   predicting taken at 2 and 3) indexed by `(pc >> 1) & (entries - 1)`,
///   initialised to 1 (weakly not taken); J. E. Smith, "A study of branch
///   prediction strategies", ISCA 1981.
/// - [`PredictorKind::Gshare`]: the same counters indexed by
///   `((pc >> 1) ^ history) & (entries - 1)`, where `history` holds the last
///   `history_bits` conditional outcomes (newest in bit 0, 1 = taken);
///   S. McFarling, "Combining branch predictors", WRL TN-36, 1993.
///
/// The BTB (when `btb_entries > 0`) is direct-mapped, indexed by
/// `(pc >> 1) & (btb_entries - 1)` and tagged with the full pc; it is looked
/// up for every transfer predicted taken and written with `(pc, target)` for
/// every transfer actually taken. A transfer predicted taken whose BTB entry
/// misses or holds another target is mispredicted: the target would only be
/// known at decode (direct) or execute (indirect).
///
/// Unconditional transfers ([`BranchKind::Jump`], [`BranchKind::Call`],
/// [`BranchKind::Return`], [`BranchKind::Indirect`]) are predicted taken.
/// With a BTB they are mispredicted on a BTB miss or a wrong target; there
/// is no return-address stack, so a return is predicted like any indirect
/// jump (from the last target seen at its pc). Without a BTB
/// (`btb_entries == 0`) they are never counted as mispredicted: their cost
/// is the `jal`/`jalr` class latency of the pipeline.
///
/// Cost: [`Predictor::resolve`] does no allocation: two table indexings and
/// a few shifts.
#[derive(Clone, Debug)]
pub struct Predictor {
    params: PredictorParams,
    /// [`PredictorKind::None`].
    no_prediction: bool,
    /// 2-bit counters (Bimodal, Gshare); empty otherwise.
    counters: Vec<u8>,
    counter_mask: u64,
    /// Last conditional outcomes, newest in bit 0 (Gshare).
    history: u64,
    history_mask: u64,
    /// `(pc, target)` per entry; empty when there is no BTB.
    btb: Vec<[u64; 2]>,
    btb_mask: u64,
    stats: PredictorStats,
}

/// The largest power of two `<= x`, for `x >= 1`.
fn floor_pow2(x: u32) -> u32 {
    1 << (31 - x.max(1).leading_zeros())
}

impl Predictor {
    /// A predictor with `params`, all counters weakly not taken, empty
    /// history and BTB.
    ///
    /// Never panics: table sizes that are not powers of two are rounded
    /// down to one (a 0-entry counter table becomes 1 entry), and
    /// `history_bits` is capped at 63.
    pub fn new(params: &PredictorParams) -> Predictor {
        let (entries, history_bits) = match params.kind {
            PredictorKind::None | PredictorKind::Static => (0, 0),
            PredictorKind::Bimodal { entries } => (floor_pow2(entries), 0),
            PredictorKind::Gshare {
                entries,
                history_bits,
            } => (floor_pow2(entries), history_bits.min(63)),
        };
        let btb_entries = if params.btb_entries == 0 || params.kind == PredictorKind::None {
            0
        } else {
            floor_pow2(params.btb_entries)
        };
        Predictor {
            params: params.clone(),
            no_prediction: params.kind == PredictorKind::None,
            counters: vec![WEAKLY_NOT_TAKEN; entries as usize],
            counter_mask: u64::from(entries.saturating_sub(1)),
            history: 0,
            history_mask: (1u64 << history_bits) - 1,
            btb: vec![[BTB_EMPTY, 0]; btb_entries as usize],
            btb_mask: u64::from(btb_entries.saturating_sub(1)),
            stats: PredictorStats::default(),
        }
    }

    /// The parameters this predictor was built from.
    pub fn params(&self) -> &PredictorParams {
        &self.params
    }

    /// Counts since creation.
    pub fn stats(&self) -> PredictorStats {
        self.stats
    }

    /// Predicts the transfer at `pc` of `kind`, scores the prediction
    /// against what happened (`taken`, and `target`, the address it goes to
    /// when taken: for a conditional branch its own target even when not
    /// taken, which the static predictor compares with `pc`), updates the
    /// tables and counters, and returns the prediction. `taken` is ignored for unconditional kinds (always
    /// taken). Addresses are byte addresses.
    #[inline(always)]
    pub fn resolve(&mut self, pc: u64, kind: BranchKind, taken: bool, target: u64) -> Outcome {
        let slots = self.slots(pc);
        self.resolve_at::<true>(pc, slots, kind, taken, target)
    }

    /// This predictor as translated code runs it in line
    /// ([`fwprof_sim::InlinePredictor`], whose rules are this type's),
    /// delivering the verdict rows whose bit is set in `delivered`; and its
    /// tables, valid while the predictor is not moved (statistics are not
    /// counted by translated code).
    pub fn inline(
        &mut self,
        delivered: u32,
    ) -> (fwprof_sim::InlinePredictor, fwprof_sim::PredictorTables) {
        use fwprof_sim::Direction;
        let direction = if self.no_prediction {
            Direction::None
        } else if self.counters.is_empty() {
            Direction::Static
        } else {
            Direction::Counters
        };
        let shape = fwprof_sim::InlinePredictor {
            direction,
            counter_mask: self.counter_mask,
            history_mask: self.history_mask,
            btb_mask: (!self.btb.is_empty()).then_some(self.btb_mask),
            delivered,
        };
        let tables = fwprof_sim::PredictorTables {
            counters: if self.counters.is_empty() {
                std::ptr::null_mut()
            } else {
                self.counters.as_mut_ptr()
            },
            history: &mut self.history,
            btb: if self.btb.is_empty() {
                std::ptr::null_mut()
            } else {
                self.btb.as_mut_ptr()
            },
        };
        (shape, tables)
    }

    /// Where a transfer at `pc` sits in the tables, for
    /// [`Predictor::resolve_at`]: computed once per branch site.
    pub fn slots(&self, pc: u64) -> Slots {
        Slots {
            counter: fwprof_sim::predictor_slot(pc, self.counter_mask) as u32,
            btb: fwprof_sim::predictor_slot(pc, self.btb_mask) as u32,
        }
    }

    /// [`Predictor::resolve`] with the table positions of `pc` given
    /// (`slots`, from [`Predictor::slots`] on this predictor), counting
    /// [`Predictor::stats`] only when `STATS`: the form for a caller that
    /// resolves many transfers of known sites and reads no statistics.
    #[inline(always)]
    pub fn resolve_at<const STATS: bool>(
        &mut self,
        pc: u64,
        slots: Slots,
        kind: BranchKind,
        taken: bool,
        target: u64,
    ) -> Outcome {
        if self.no_prediction {
            if STATS {
                self.count_unpredicted(kind);
            }
            return Outcome::default();
        }
        let conditional = kind == BranchKind::Conditional;
        if STATS {
            self.stats.branches += u64::from(conditional);
            self.stats.jumps += u64::from(!conditional);
        }
        let taken = taken || !conditional;

        // Bimodal is gshare without history (`history` stays 0).
        let i = ((u64::from(slots.counter) ^ self.history) & self.counter_mask) as usize;
        let predicted_taken = if !conditional {
            true
        } else if self.counters.is_empty() {
            target < pc // Static: backward taken, forward not taken.
        } else {
            self.counters[i] >= 2
        };

        let mut mispredicted = predicted_taken != taken;
        let mut btb_hit = false;
        if !self.btb.is_empty() {
            let slot = slots.btb as usize & self.btb_mask as usize;
            let [tag, predicted_target] = self.btb[slot];
            if predicted_taken {
                btb_hit = tag == pc;
                if STATS {
                    self.stats.btb_hits += u64::from(btb_hit);
                    self.stats.btb_misses += u64::from(!btb_hit);
                }
                mispredicted |= taken && !(btb_hit && predicted_target == target);
            }
            if taken {
                self.btb[slot] = [pc, target];
            }
        }
        // Without a BTB an unconditional transfer is predicted taken and is
        // taken: never mispredicted, its jal/jalr latency covers the redirect.

        if conditional && !self.counters.is_empty() {
            let c = &mut self.counters[i];
            *c = SATURATE[usize::from(taken)][usize::from(*c & 3)];
            self.history = ((self.history << 1) | u64::from(taken)) & self.history_mask;
        }
        if STATS {
            self.stats.mispredicts += u64::from(mispredicted);
        }
        Outcome {
            predicted_taken,
            mispredicted,
            btb_hit,
        }
    }

    /// [`Predictor::resolve`] for [`PredictorKind::None`]: counted, never
    /// predicted.
    fn count_unpredicted(&mut self, kind: BranchKind) {
        if kind == BranchKind::Conditional {
            self.stats.branches += 1;
        } else {
            self.stats.jumps += 1;
        }
    }
}
