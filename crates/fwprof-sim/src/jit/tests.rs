//! The translation tier against the interpreter: random integer programs
//! (every micro-op kind, loads and stores of every width at any alignment,
//! forward branches, a loop, calls and returns) run on both tiers must end
//! with the same registers, memory, counts, stop, and the same sequence of
//! hook calls.

use crate::hooks::{BlockId, Hooks, Jump};
use crate::test_asm::*;
use crate::{Simulator, StopReason, Tier};
use fwprof_isa::Inst;
use proptest::prelude::*;
use std::sync::atomic::AtomicBool;

/// Every hook call, in order. `BRANCHES` also asks for branch outcomes
/// (which keeps translated code from chaining blocks).
#[derive(Default)]
struct Trace<const BRANCHES: bool> {
    events: Vec<(u8, u64, u64, u64)>,
}

impl<const BRANCHES: bool> Hooks for Trace<BRANCHES> {
    const WANTS_JUMPS: bool = true;
    const WANTS_MEMORY: bool = true;
    const WANTS_OPERANDS: bool = true;
    const WANTS_BRANCHES: bool = BRANCHES;
    fn on_block_translated(&mut self, id: BlockId, pcs: &[u64], _insts: &[Inst]) {
        self.events
            .push((0, u64::from(id.0), pcs[0], pcs.len() as u64));
    }
    fn on_block_exec(&mut self, id: BlockId, executed: u64) {
        self.events.push((1, u64::from(id.0), executed, 0));
    }
    fn on_block_cut(&mut self, id: BlockId, executed: u32) {
        self.events
            .push((2, u64::from(id.0), u64::from(executed), 0));
    }
    fn on_jump(&mut self, j: &Jump) {
        self.events
            .push((3, j.pc, j.target, j.instret ^ j.sp << 20 ^ j.ret << 40));
    }
    /// Half the direct jumps (by target) go unreported, on both tiers.
    fn wants_direct_jump(&mut self, _pc: u64, target: u64) -> bool {
        target & 4 == 0
    }
    fn on_mem(&mut self, index: u32, addr: u64, size: u8, write: bool) {
        let w = u64::from(size) | u64::from(write) << 8;
        self.events.push((4, u64::from(index), addr, w));
    }
    fn on_operands(&mut self, index: u32, a: u64, b: u64) {
        self.events.push((5, u64::from(index), a, b));
    }
    fn on_branch(&mut self, id: BlockId, taken: bool, target: u64) {
        self.events
            .push((6, u64::from(id.0), u64::from(taken), target));
    }
}

/// Registers a generated program may write: not `sp` (x2, the data
/// pointer), `ra` (x1, the return address) or `t6` (x31, the loop count).
fn dest() -> impl Strategy<Value = u32> {
    prop_oneof![Just(0u32), 3u32..31]
}

fn src() -> impl Strategy<Value = u32> {
    0u32..32
}

/// One straight-line instruction for XLEN `rv64`.
fn inst(rv64: bool) -> BoxedStrategy<u32> {
    let op = prop_oneof![
        // OP: base, M, and Zba/Zbb/Zbc/Zbs register forms.
        (
            prop::sample::select(vec![
                (0, 0),
                (0, 0x20),
                (1, 0),
                (2, 0),
                (3, 0),
                (4, 0),
                (5, 0),
                (5, 0x20),
                (6, 0),
                (7, 0),
                (0, 1),
                (1, 1),
                (2, 1),
                (3, 1),
                (4, 1),
                (5, 1),
                (6, 1),
                (7, 1),
                (7, 0x20),
                (6, 0x20),
                (4, 0x20),
                (4, 5),
                (5, 5),
                (6, 5),
                (7, 5),
                (1, 0x30),
                (5, 0x30),
                (2, 0x10),
                (4, 0x10),
                (6, 0x10),
                (1, 5),
                (1, 0x14),
                (1, 0x24),
                (1, 0x34),
                (5, 0x24),
            ]),
            dest(),
            src(),
            src()
        )
            .prop_map(|((f3, f7), rd, a, b)| r(0x33, f3, f7, rd, a, b)),
        // OP-IMM.
        (
            prop::sample::select(vec![0u32, 2, 3, 4, 6, 7]),
            dest(),
            src(),
            -2048i32..2048
        )
            .prop_map(|(f3, rd, a, imm)| i(0x13, f3, rd, a, imm)),
        (
            prop::sample::select(vec![(1u32, 0i32), (5, 0), (5, 0x400)]),
            dest(),
            src(),
            0i32..64
        )
            .prop_map(move |((f3, hi), rd, a, sh)| {
                i(0x13, f3, rd, a, hi | if rv64 { sh } else { sh & 31 })
            }),
        (dest(), any::<u32>()).prop_map(|(rd, imm)| lui(rd, imm)),
        (dest(), any::<u32>()).prop_map(|(rd, imm)| auipc(rd, imm)),
        // Loads (into x0 too: the general path) and stores, any alignment.
        (
            prop::sample::select(if rv64 {
                vec![0u32, 1, 2, 3, 4, 5, 6]
            } else {
                vec![0u32, 1, 2, 4, 5]
            }),
            dest(),
            -200i32..200
        )
            .prop_map(|(f3, rd, off)| i(0x03, f3, rd, 2, off)),
        (
            prop::sample::select(if rv64 {
                vec![0u32, 1, 2, 3]
            } else {
                vec![0u32, 1, 2]
            }),
            src(),
            -200i32..200
        )
            .prop_map(|(f3, v, off)| s(0x23, f3, 2, v, off)),
    ];
    if !rv64 {
        return op.boxed();
    }
    let w = prop_oneof![
        (
            prop::sample::select(vec![
                (0u32, 0u32),
                (0, 0x20),
                (1, 0),
                (5, 0),
                (5, 0x20),
                (0, 1),
                (4, 1),
                (5, 1),
                (6, 1),
                (7, 1),
                (0, 4),
            ]),
            dest(),
            src(),
            src()
        )
            .prop_map(|((f3, f7), rd, a, b)| r(0x3b, f3, f7, rd, a, b)),
        (dest(), src(), -2048i32..2048).prop_map(|(rd, a, imm)| i(0x1b, 0, rd, a, imm)),
        (
            prop::sample::select(vec![(1u32, 0i32), (5, 0), (5, 0x400)]),
            dest(),
            src(),
            0i32..32
        )
            .prop_map(|((f3, hi), rd, a, sh)| i(0x1b, f3, rd, a, hi | sh)),
    ];
    prop_oneof![4 => op, 1 => w].boxed()
}

/// A program: a loop of `body` (with forward branches and jumps over the
/// next one or two instructions, and a call to a two-instruction function) run
/// `t6` times, then `ecall`.
fn program(rv64: bool) -> impl Strategy<Value = Vec<u32>> {
    let item = prop_oneof![
        8 => inst(rv64).prop_map(|w| vec![w]),
        1 => (prop::sample::select(vec![0u32, 1, 4, 5, 6, 7]), src(), src(), 1i32..3)
            .prop_map(|(f3, a, bb, skip)| vec![b(f3, a, bb, 4 * (skip + 1))]),
        1 => (1i32..3).prop_map(|skip| vec![jal(0, 4 * (skip + 1))]),
        1 => Just(vec![u32::MAX]),
    ];
    prop::collection::vec(item, 1..40).prop_map(|items| {
        let mut body: Vec<u32> = items.into_iter().flatten().collect();
        // A branch never jumps past the loop's end (append its targets).
        body.extend([NOP, NOP]);
        let n = body.len() as i32;
        // Layout: body, addi t6,-1; bne t6,x0,loop; ecall; f: addi a0,a0,1; ret.
        let f_at = n + 3;
        let mut words = Vec::new();
        for (k, &w) in body.iter().enumerate() {
            words.push(if w == u32::MAX {
                jal(1, 4 * (f_at - k as i32))
            } else {
                w
            });
        }
        words.push(addi(31, 31, -1));
        words.push(b(1, 31, 0, -4 * (n + 1)));
        words.push(ECALL);
        words.push(addi(10, 10, 1));
        words.push(jalr(0, 1, 0));
        words
    })
}

const INTERESTING: [u64; 8] = [
    0,
    1,
    u64::MAX,
    0x8000_0000_0000_0000,
    0xffff_ffff_8000_0000,
    0x7fff_ffff,
    0x1234_5678_9abc_def0,
    0x8000_0000,
];

struct End {
    x: Vec<u64>,
    pc: u64,
    executed: u64,
    data: Vec<u8>,
    stop: String,
    events: Vec<(u8, u64, u64, u64)>,
    translated_share: f64,
}

fn run_on<const BR: bool>(
    rv64: bool,
    words: &[u32],
    init: &[u64],
    tier: Tier,
    threshold: u32,
) -> End {
    let mut sim = Simulator::bare(memory_with(words), rv64, BASE, Trace::<BR>::default());
    sim.set_tier(tier, threshold);
    for (k, &v) in init.iter().enumerate() {
        sim.hart_mut().set_x(3 + k as u8, v);
    }
    sim.hart_mut().set_x(2, DATA + 0x400);
    sim.hart_mut().set_x(31, 5);
    let stop = sim.run(1_000_000, &AtomicBool::new(false)).unwrap();
    let mut data = vec![0u8; 0x800];
    sim.memory().peek(DATA, &mut data).unwrap();
    let x = (0..32).map(|r| sim.hart().x(r)).collect();
    End {
        x,
        pc: sim.hart().pc,
        executed: sim.executed(),
        data,
        stop: format!("{stop:?}"),
        translated_share: sim.jit_stats().executed as f64 / sim.executed() as f64,
        events: std::mem::take(&mut sim.hooks_mut().events),
    }
}

/// Both tiers end alike; the translation tier translating every block
/// before its first execution (`threshold` 0: one-block regions, since no
/// successor is known yet) or after one (1: regions along the paths run).
fn same<const BR: bool>(
    rv64: bool,
    words: &[u32],
    init: &[u64],
    threshold: u32,
) -> Result<(), TestCaseError> {
    let a = run_on::<BR>(rv64, words, init, Tier::Interp, 0);
    let b = run_on::<BR>(rv64, words, init, Tier::Jit, threshold);
    prop_assert_eq!(&a.stop, &b.stop);
    prop_assert_eq!(a.pc, b.pc);
    prop_assert_eq!(a.executed, b.executed);
    for r in 0..32 {
        prop_assert_eq!(a.x[r], b.x[r], "x{}", r);
    }
    prop_assert!(a.data == b.data, "memory differs");
    prop_assert_eq!(a.events.len(), b.events.len());
    for (k, (ea, eb)) in a.events.iter().zip(&b.events).enumerate() {
        prop_assert_eq!(ea, eb, "hook call {}", k);
    }
    // Without branch hooks the whole run is translated code (the final
    // `ecall` raises in the general path, inside translated code too).
    if !BR && threshold == 0 {
        prop_assert!(b.translated_share > 0.99, "{}", b.translated_share);
    }
    Ok(())
}

fn init() -> impl Strategy<Value = Vec<u64>> {
    prop::collection::vec(
        prop_oneof![prop::sample::select(INTERESTING.to_vec()), any::<u64>()],
        28,
    )
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 300, ..ProptestConfig::default() })]

    #[test]
    fn rv64_programs_match_the_interpreter(words in program(true), init in init()) {
        for threshold in [0, 1] {
            same::<false>(true, &words, &init, threshold)?;
            same::<true>(true, &words, &init, threshold)?;
        }
    }

    #[test]
    fn rv32_programs_match_the_interpreter(words in program(false), init in init()) {
        // RV32 registers hold sign-extended values.
        let init: Vec<u64> = init.iter().map(|&v| v as i32 as i64 as u64).collect();
        for threshold in [0, 1] {
            same::<false>(false, &words, &init, threshold)?;
            same::<true>(false, &words, &init, threshold)?;
        }
    }
}

#[test]
fn stops_exactly_at_an_instruction_limit() {
    // The limit falls inside a chain of translated blocks: both tiers stop
    // at the same instruction.
    // With threshold 1 the loop's two blocks form one region.
    let words = [
        addi(5, 5, 1),
        b(0, 0, 0, 8), // beq x0,x0: the second block
        addi(6, 6, 2),
        b(1, 5, 0, -12),
        ECALL,
    ];
    for (limit, threshold) in [1, 2, 3, 7, 100, 1001]
        .into_iter()
        .flat_map(|l| [(l, 0), (l, 1)])
    {
        let mut ends = Vec::new();
        for tier in [Tier::Interp, Tier::Jit] {
            let mut sim = Simulator::bare(memory_with(&words), true, BASE, ());
            sim.set_tier(tier, threshold);
            let stop = sim.run(limit, &AtomicBool::new(false)).unwrap();
            assert!(matches!(stop, StopReason::InstructionLimit));
            ends.push((
                sim.executed(),
                sim.hart().pc,
                sim.hart().x(5),
                sim.hart().x(6),
            ));
        }
        assert_eq!(ends[0], ends[1], "limit {limit}, threshold {threshold}");
        assert_eq!(ends[0].0, limit);
    }
}

#[test]
fn self_modifying_code_is_retranslated() {
    // The loop rewrites its own `addi a0,a0,1` into `addi a0,a0,2` after
    // the first pass: the store kills the translated block.
    let patched = addi(10, 10, 2);
    let words = [
        addi(10, 10, 1),                      // 0: the instruction rewritten
        lui(6, patched >> 12),                // 4
        addi(6, 6, (patched & 0xfff) as i32), // 8
        auipc(7, 0),                          // 12: t2 = 12 + BASE
        s(0x23, 2, 7, 6, -12),                // 16: sw t1, -12(t2)
        addi(31, 31, -1),                     // 20
        b(1, 31, 0, -24),                     // 24: bne t6, x0, 0
        ECALL,
    ];
    let mut res = Vec::new();
    for tier in [Tier::Interp, Tier::Jit] {
        let mut sim = Simulator::bare(memory_with(&words), true, BASE, ());
        sim.set_tier(tier, 0);
        sim.hart_mut().set_x(31, 4);
        sim.run(1000, &AtomicBool::new(false)).unwrap();
        res.push((sim.hart().x(10), sim.executed()));
    }
    assert_eq!(res[0], res[1]);
    assert_eq!(res[0].0, 1 + 2 + 2 + 2);
}

#[test]
fn a_region_does_not_run_a_member_killed_since_it_was_translated() {
    // Blocks A (0..8) and B (8..16) loop as one region (threshold 1). Then
    // C, outside the region, rewrites B's `addi a0,a0,1` into `addi
    // a0,a0,2` and enters the region again: the region must not run its
    // stale copy of B.
    let patched = addi(10, 10, 2);
    let words = [
        addi(31, 31, -1),                     // 0: A
        b(0, 31, 0, 12),                      // 4: beq t6,x0,C
        addi(10, 10, 1),                      // 8: B, rewritten
        jal(0, -12),                          // 12: j A
        b(1, 30, 0, 36),                      // 16: C: bnez t5,end
        addi(30, 0, 1),                       // 20
        lui(6, patched >> 12),                // 24
        addi(6, 6, (patched & 0xfff) as i32), // 28
        auipc(7, 0),                          // 32: t2 = 32 + BASE
        sw(7, 6, -24),                        // 36: sw t1, -24(t2): B's addi
        addi(31, 0, 5),                       // 40
        jal(0, -44),                          // 44: j A
        NOP,                                  // 48
        ECALL,                                // 52: end
    ];
    let mut res = Vec::new();
    for (tier, threshold) in [(Tier::Interp, 0), (Tier::Jit, 0), (Tier::Jit, 1)] {
        let mut sim = Simulator::bare(memory_with(&words), true, BASE, ());
        sim.set_tier(tier, threshold);
        sim.hart_mut().set_x(31, 5);
        sim.run(10_000, &AtomicBool::new(false)).unwrap();
        res.push((sim.hart().x(10), sim.executed()));
        if threshold == 1 {
            let st = sim.jit_stats();
            assert!(st.region_blocks > st.translated, "{st:?}");
        }
    }
    assert_eq!(res[0].0, 4 + 2 * 4);
    assert_eq!(res[0], res[1]);
    assert_eq!(res[0], res[2]);
}

/// Run `words` on the interpreter and on the translation tier at
/// `threshold` (compiled in the background), in slices of `slice`
/// instructions, until `total` instructions ran: the same state at the
/// end. Returns the translation tier's stats.
fn background_matches(words: &[u32], threshold: u32, slice: u64, total: u64) -> crate::JitStats {
    let mut ends = Vec::new();
    let mut stats = None;
    for tier in [Tier::Interp, Tier::Jit] {
        let mut sim = Simulator::bare(memory_with(words), true, BASE, ());
        sim.set_tier(tier, threshold);
        sim.hart_mut().set_x(31, 5);
        let mut limit = 0;
        while limit < total {
            limit += slice;
            let stop = sim.run(limit, &AtomicBool::new(false)).unwrap();
            assert!(matches!(stop, StopReason::InstructionLimit), "{stop:?}");
        }
        let x: Vec<u64> = (0..32).map(|r| sim.hart().x(r)).collect();
        ends.push((sim.executed(), sim.hart().pc, x));
        stats = Some(sim.jit_stats());
    }
    assert_eq!(ends[0], ends[1]);
    stats.expect("ran")
}

#[test]
fn background_compilation_installs_code_and_changes_nothing() {
    // An endless two-block loop counting in a0 and a1. At the default
    // threshold the region compiles on the background thread while the
    // interpreter runs it; once installed, translated code runs it.
    let words = [
        addi(10, 10, 1), // 0: A
        b(0, 0, 0, 8),   // 4: beq x0,x0,B
        addi(11, 11, 3), // 8: B
        jal(0, -12),     // 12: j A
    ];
    const { assert!(crate::DEFAULT_JIT_THRESHOLD >= super::BACKGROUND_THRESHOLD) };
    let parallel = std::thread::available_parallelism().is_ok_and(|n| n.get() > 1);
    // Slices of 100k instructions: the run loop looks for finished code
    // between blocks; the background thread gets up to about 20 s of
    // slices (a loaded CI machine) to finish one small function.
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(20);
    let mut total = 1_000_000;
    loop {
        let st = background_matches(&words, crate::DEFAULT_JIT_THRESHOLD, 100_000, total);
        assert_eq!(st.refused, 0, "{st:?}");
        if !parallel {
            // One CPU: compiled on the spot.
            assert_eq!(st.background, 0, "{st:?}");
            assert!(st.executed > 0, "{st:?}");
            return;
        }
        if st.background > 0 {
            assert_eq!(st.background, st.translated, "{st:?}");
            assert!(st.executed > 0, "{st:?}");
            return;
        }
        assert!(
            std::time::Instant::now() < deadline,
            "never installed: {st:?}"
        );
        total *= 2;
    }
}

#[test]
fn background_compilation_outlived_by_a_flush_is_dropped() {
    // An inner loop of 40 iterations, then `fence.i` (a block-cache flush),
    // for ever: each generation's region goes to the background thread
    // after 16 iterations and may come back before or after the flush
    // that makes it stale. Dropped or installed, the run is the
    // interpreter's.
    let words = [
        addi(5, 0, 40),  // 0: outer: t0 = 40
        addi(10, 10, 1), // 4: inner: a0 += 1
        addi(5, 5, -1),  // 8: t0 -= 1
        b(1, 5, 0, -8),  // 12: bnez t0, inner
        FENCE_I,         // 16
        addi(11, 11, 1), // 20: a1 += 1
        jal(0, -24),     // 24: j outer
    ];
    let st = background_matches(&words, super::BACKGROUND_THRESHOLD, 997, 200_000);
    assert!(st.modules_freed > 0, "{st:?}");
    // A generation lasts microseconds, a compilation longer: on a host
    // with a second CPU, compilations are sent and dropped.
    if std::thread::available_parallelism().is_ok_and(|n| n.get() > 1) {
        assert!(st.dropped > 0, "{st:?}");
    }
}

#[test]
fn background_compilation_of_a_region_with_a_member_killed_meanwhile_is_dropped() {
    // A two-block inner loop (A, B) runs 40 times, then C flips B's
    // `addi a0,a0,1` to `addi a0,a0,2` or back with a store (which kills
    // B), for ever. Each new B makes a new region [A, B] that goes to the
    // background thread after 16 runs of A, and B dies about 100
    // instructions later: a region is dropped when a member died while it
    // compiled, and one already installed is never entered again. Either
    // way the run is the interpreter's.
    let words = [
        addi(5, 0, 40),          // 0: t0 = 40
        addi(5, 5, -1),          // 4: A: t0 -= 1
        b(0, 5, 0, 12),          // 8: beq t0,x0,C
        addi(10, 10, 1),         // 12: B: rewritten
        jal(0, -12),             // 16: j A
        auipc(7, 0),             // 20: C: t2 = 20 + BASE
        lw(6, 7, -8),            // 24: t1 = B's word
        lui(28, 0x300),          // 28: t3 = 3 << 20 (immediate 1 <-> 2)
        r(0x33, 4, 0, 6, 6, 28), // 32: xor t1,t1,t3
        sw(7, 6, -8),            // 36: B's word = t1
        addi(11, 11, 1),         // 40: a1 += 1
        jal(0, -44),             // 44: j 0
    ];
    let st = background_matches(&words, super::BACKGROUND_THRESHOLD, 997, 300_000);
    if std::thread::available_parallelism().is_ok_and(|n| n.get() > 1) {
        assert!(st.dropped > 0, "{st:?}");
    }
}

#[test]
fn a_return_to_another_call_site_stays_in_translated_code() {
    // F is called from two sites in turn, so its `ret` never goes where it
    // went last time (the chain slot): translated code finds the return
    // block in the block cache's direct-mapped table instead of handing
    // each return to the run loop.
    let words = [
        jal(1, 20),       // 0: call F
        jal(1, 16),       // 4: call F
        addi(31, 31, -1), // 8
        b(1, 31, 0, -12), // 12: bnez t6, 0
        ECALL,            // 16
        addi(10, 10, 1),  // 20: F: a0 += 1
        jalr(0, 1, 0),    // 24: ret
    ];
    let mut res = Vec::new();
    for tier in [Tier::Interp, Tier::Jit] {
        let mut sim = Simulator::bare(memory_with(&words), true, BASE, ());
        sim.set_tier(tier, 1);
        sim.hart_mut().set_x(31, 1000);
        sim.run(100_000, &AtomicBool::new(false)).unwrap();
        res.push((sim.hart().x(10), sim.executed()));
        if tier == Tier::Jit {
            let st = sim.jit_stats();
            // Each of the 2000 returns would be an entry without it.
            assert!(st.entered < 100, "{st:?}");
        }
    }
    assert_eq!(res[0].0, 2000);
    assert_eq!(res[0], res[1]);
}
