//! Tests of [`Predictor`] against the analytic misprediction rates of the
//! loop-length and periodic-branch kernels, BTB behaviour, and properties.
use crate::{BranchKind, Predictor, PredictorKind, PredictorParams, PredictorStats};
use proptest::prelude::*;

/// The loop branch: at `LOOP_PC`, jumping back to `LOOP_TARGET`.
const LOOP_PC: u64 = 0x1000;
const LOOP_TARGET: u64 = 0x0f00;
/// The periodic branch: at `FWD_PC`, skipping forward to `FWD_TARGET`.
const FWD_PC: u64 = 0x2000;
const FWD_TARGET: u64 = 0x2040;

fn predictor(kind: PredictorKind, btb_entries: u32) -> Predictor {
    Predictor::new(&PredictorParams { kind, btb_entries })
}

const BIMODAL: PredictorKind = PredictorKind::Bimodal { entries: 512 };
const GSHARE: PredictorKind = PredictorKind::Gshare {
    entries: 1024,
    history_bits: 8,
};

/// Runs `loops` loops of `k` iterations (taken `k - 1` times, then not
/// taken); returns the mispredicts they caused.
fn run_loops(p: &mut Predictor, k: u32, loops: u32) -> u64 {
    let before = p.stats().mispredicts;
    for _ in 0..loops {
        for i in 0..k {
            p.resolve(LOOP_PC, BranchKind::Conditional, i + 1 < k, LOOP_TARGET);
        }
    }
    p.stats().mispredicts - before
}

/// Runs `periods` periods of a forward branch taken once every `k`
/// executions (not taken `k - 1` times, then taken); returns the mispredicts.
fn run_periodic(p: &mut Predictor, k: u32, periods: u32) -> u64 {
    let before = p.stats().mispredicts;
    for _ in 0..periods {
        for i in 0..k {
            p.resolve(FWD_PC, BranchKind::Conditional, i + 1 == k, FWD_TARGET);
        }
    }
    p.stats().mispredicts - before
}

#[test]
fn loop_static_btfn_misses_each_exit() {
    for k in 1..=8 {
        let mut p = predictor(PredictorKind::Static, 0);
        assert_eq!(run_loops(&mut p, k, 50), 50, "K={k}");
        assert_eq!(p.stats().branches, 50 * u64::from(k));
    }
}

#[test]
fn loop_bimodal_misses_each_exit_after_warm_up() {
    for k in 3..=16 {
        let mut p = predictor(BIMODAL, 0);
        run_loops(&mut p, k, 2);
        assert_eq!(run_loops(&mut p, k, 50), 50, "K={k}");
    }
    // K = 2 alternates taken, not taken; from weakly not taken the counter
    // swings between 1 and 2 and every outcome is mispredicted.
    let mut p = predictor(BIMODAL, 0);
    assert_eq!(run_loops(&mut p, 2, 50), 100);
}

#[test]
fn loop_gshare_learns_loops_its_history_covers() {
    // With 8 history bits the exit of a loop of K <= 9 iterations is the
    // only branch whose history is the K - 1 taken before it.
    for k in 2..=9 {
        let mut p = predictor(GSHARE, 0);
        run_loops(&mut p, k, 10);
        assert_eq!(run_loops(&mut p, k, 50), 0, "K={k}");
    }
    // K >= 10: iterations 8..K share the all-taken history with the exit,
    // so one counter sees K - 9 taken then one not taken. For K >= 11 it
    // behaves like bimodal on a loop (one mispredict per exit); for K = 10
    // it alternates from weakly not taken and both are mispredicted.
    let mut p = predictor(GSHARE, 0);
    run_loops(&mut p, 10, 10);
    assert_eq!(run_loops(&mut p, 10, 50), 100);
    for k in [11, 16] {
        let mut p = predictor(GSHARE, 0);
        run_loops(&mut p, k, 10);
        assert_eq!(run_loops(&mut p, k, 50), 50, "K={k}");
    }
}

#[test]
fn periodic_static_misses_every_taken() {
    for k in 1..=8 {
        let mut p = predictor(PredictorKind::Static, 0);
        assert_eq!(run_periodic(&mut p, k, 50), 50, "k={k}");
    }
}

#[test]
fn periodic_bimodal_misses_every_taken() {
    // k >= 3: the counter stays at 0..=1. k = 2 (not taken, taken, ...):
    // from weakly not taken the counter swings between 0 and 1, so only the
    // taken half is mispredicted — 50 %, unlike the loop's 100 %.
    for k in 2..=8 {
        let mut p = predictor(BIMODAL, 0);
        assert_eq!(run_periodic(&mut p, k, 50), 50, "k={k}");
    }
}

#[test]
fn periodic_gshare_learns_the_period() {
    // 8 history bits tell the taken execution apart for k <= 9 ...
    for k in 2..=9 {
        let mut p = predictor(GSHARE, 0);
        run_periodic(&mut p, k, 10);
        assert_eq!(run_periodic(&mut p, k, 50), 0, "k={k}");
    }
    // ... but not for k >= 10, where it shares the all-not-taken history
    // with a not-taken execution and is mispredicted each time.
    for k in [10, 16] {
        let mut p = predictor(GSHARE, 0);
        run_periodic(&mut p, k, 10);
        assert_eq!(run_periodic(&mut p, k, 50), 50, "k={k}");
    }
}

#[test]
fn gshare_without_history_is_bimodal() {
    let mut g = predictor(
        PredictorKind::Gshare {
            entries: 512,
            history_bits: 0,
        },
        0,
    );
    let mut b = predictor(BIMODAL, 0);
    for k in 2..=6 {
        assert_eq!(run_loops(&mut g, k, 7), run_loops(&mut b, k, 7));
        assert_eq!(run_periodic(&mut g, k, 7), run_periodic(&mut b, k, 7));
    }
}

#[test]
fn none_never_mispredicts_and_ignores_the_btb() {
    let mut p = predictor(PredictorKind::None, 64);
    run_loops(&mut p, 4, 10);
    run_periodic(&mut p, 3, 10);
    let o = p.resolve(0x100, BranchKind::Indirect, true, 0x500);
    assert!(!o.predicted_taken && !o.mispredicted && !o.btb_hit);
    let s = p.stats();
    assert_eq!(
        s,
        PredictorStats {
            branches: 70,
            jumps: 1,
            mispredicts: 0,
            btb_hits: 0,
            btb_misses: 0
        }
    );
}

#[test]
fn indirect_alternating_targets_always_mispredict() {
    let mut p = predictor(BIMODAL, 64);
    for i in 0..100u64 {
        let target = if i % 2 == 0 { 0x3000 } else { 0x4000 };
        let o = p.resolve(0x2000, BranchKind::Indirect, true, target);
        assert!(o.predicted_taken && o.mispredicted);
        assert_eq!(o.btb_hit, i > 0);
    }
    let s = p.stats();
    assert_eq!((s.mispredicts, s.btb_hits, s.btb_misses), (100, 99, 1));
}

#[test]
fn single_target_mispredicts_only_first() {
    for kind in [
        BranchKind::Indirect,
        BranchKind::Return,
        BranchKind::Call,
        BranchKind::Jump,
    ] {
        let mut p = predictor(PredictorKind::Static, 64);
        for _ in 0..100 {
            p.resolve(0x2000, kind, true, 0x3000);
        }
        let s = p.stats();
        assert_eq!(
            (s.jumps, s.mispredicts, s.btb_hits),
            (100, 1, 99),
            "{kind:?}"
        );
    }
}

#[test]
fn no_btb_unconditional_never_mispredicts() {
    let mut p = predictor(GSHARE, 0);
    for i in 0..100u64 {
        for kind in [
            BranchKind::Indirect,
            BranchKind::Return,
            BranchKind::Call,
            BranchKind::Jump,
        ] {
            let o = p.resolve(0x2000 + 4 * i, kind, true, 0x3000 + 8 * i);
            assert!(o.predicted_taken && !o.mispredicted && !o.btb_hit);
        }
    }
    let s = p.stats();
    assert_eq!((s.jumps, s.mispredicts, s.btb_misses), (400, 0, 0));
}

#[test]
fn btb_is_direct_mapped() {
    // 16 entries indexed by pc >> 1: pcs 32 bytes apart share an entry.
    let mut p = predictor(PredictorKind::Static, 16);
    for _ in 0..50 {
        p.resolve(0x2000, BranchKind::Call, true, 0x5000);
        p.resolve(0x2020, BranchKind::Call, true, 0x6000);
    }
    assert_eq!(p.stats().mispredicts, 100);
    let mut p = predictor(PredictorKind::Static, 16);
    for _ in 0..50 {
        p.resolve(0x2000, BranchKind::Call, true, 0x5000);
        p.resolve(0x2004, BranchKind::Call, true, 0x6000);
    }
    assert_eq!(p.stats().mispredicts, 2);
}

#[test]
fn conditional_taken_prediction_needs_a_btb_hit() {
    // Static predicts the loop branch taken from the start; the first taken
    // one misses the BTB: one mispredict more than without a BTB.
    let mut p = predictor(PredictorKind::Static, 64);
    assert_eq!(run_loops(&mut p, 4, 50), 51);
    let s = p.stats();
    assert_eq!((s.btb_misses, s.btb_hits), (1, 199));
    // A forward branch predicted not taken never looks the BTB up.
    let mut p = predictor(PredictorKind::Static, 64);
    run_periodic(&mut p, 4, 10);
    assert_eq!(p.stats().btb_hits + p.stats().btb_misses, 0);
}

fn kind() -> impl Strategy<Value = BranchKind> {
    prop_oneof![
        Just(BranchKind::Conditional),
        Just(BranchKind::Jump),
        Just(BranchKind::Call),
        Just(BranchKind::Return),
        Just(BranchKind::Indirect),
    ]
}

fn predictor_kind() -> impl Strategy<Value = PredictorKind> {
    prop_oneof![
        Just(PredictorKind::None),
        Just(PredictorKind::Static),
        (0u32..=10).prop_map(|l| PredictorKind::Bimodal { entries: 1 << l }),
        (0u32..=10, 0u32..=12).prop_map(|(l, h)| PredictorKind::Gshare {
            entries: 1 << l,
            history_bits: h
        }),
    ]
}

proptest! {
    #[test]
    fn counts_are_consistent(
        kind_p in predictor_kind(),
        btb in prop_oneof![Just(0u32), Just(1), Just(16)],
        trace in prop::collection::vec(
            (0u64..64, kind(), any::<bool>(), 0u64..64), 0..300),
    ) {
        let mut p = predictor(kind_p, btb);
        let mut mis = 0;
        for &(pc, k, taken, target) in &trace {
            let o = p.resolve(pc * 2, k, taken, target * 2);
            mis += u64::from(o.mispredicted);
            if k == BranchKind::Conditional && kind_p != PredictorKind::None {
                prop_assert!(o.mispredicted || o.predicted_taken == taken);
            }
            if kind_p == PredictorKind::None {
                prop_assert!(!o.mispredicted);
            }
        }
        let s = p.stats();
        prop_assert_eq!(s.branches + s.jumps, trace.len() as u64);
        prop_assert_eq!(s.mispredicts, mis);
        prop_assert!(s.btb_hits + s.btb_misses <= trace.len() as u64);
        if btb == 0 {
            prop_assert_eq!(s.btb_hits + s.btb_misses, 0);
        }
    }
}
