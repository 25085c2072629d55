//! The timing model on small programs, with cycle counts worked out by hand
//! from each preset's documentation (the preset files cite it).

use crate::model::{ev, Costs, TimingModel};
use crate::CoreConfig;
use crate::{PredictorKind, PredictorParams, Replacement};
use fwprof_os::{GuestMemory, Perm};
use fwprof_sim::{Memory, Simulator, StopReason};
use std::sync::atomic::AtomicBool;

const BASE: u64 = 0x8000_0000;
const DATA: u64 = 0x8000_8000;

fn r(op: u32, f3: u32, f7: u32, rd: u32, rs1: u32, rs2: u32) -> u32 {
    f7 << 25 | rs2 << 20 | rs1 << 15 | f3 << 12 | rd << 7 | op
}
fn i(op: u32, f3: u32, rd: u32, rs1: u32, imm: i32) -> u32 {
    ((imm as u32) & 0xfff) << 20 | rs1 << 15 | f3 << 12 | rd << 7 | op
}
fn s(f3: u32, rs1: u32, rs2: u32, imm: i32) -> u32 {
    let imm = imm as u32;
    (imm >> 5 & 0x7f) << 25 | rs2 << 20 | rs1 << 15 | f3 << 12 | (imm & 0x1f) << 7 | 0x23
}
fn b(f3: u32, rs1: u32, rs2: u32, imm: i32) -> u32 {
    let imm = imm as u32;
    (imm >> 12 & 1) << 31
        | (imm >> 5 & 0x3f) << 25
        | rs2 << 20
        | rs1 << 15
        | f3 << 12
        | (imm >> 1 & 0xf) << 8
        | (imm >> 11 & 1) << 7
        | 0x63
}
fn jal(rd: u32, imm: i32) -> u32 {
    let imm = imm as u32;
    (imm >> 20 & 1) << 31
        | (imm >> 1 & 0x3ff) << 21
        | (imm >> 11 & 1) << 20
        | (imm >> 12 & 0xff) << 12
        | rd << 7
        | 0x6f
}
fn addi(rd: u32, rs1: u32, imm: i32) -> u32 {
    i(0x13, 0, rd, rs1, imm)
}
fn slli(rd: u32, rs1: u32, sh: i32) -> u32 {
    i(0x13, 1, rd, rs1, sh)
}
fn lw(rd: u32, rs1: u32, imm: i32) -> u32 {
    i(0x03, 2, rd, rs1, imm)
}
fn sw(rs1: u32, rs2: u32, imm: i32) -> u32 {
    s(2, rs1, rs2, imm)
}
fn mul(rd: u32, rs1: u32, rs2: u32) -> u32 {
    r(0x33, 0, 1, rd, rs1, rs2)
}
fn mulh(rd: u32, rs1: u32, rs2: u32) -> u32 {
    r(0x33, 1, 1, rd, rs1, rs2)
}
fn sll(rd: u32, rs1: u32, rs2: u32) -> u32 {
    r(0x33, 1, 0, rd, rs1, rs2)
}
fn jalr(rd: u32, rs1: u32, imm: i32) -> u32 {
    i(0x67, 0, rd, rs1, imm)
}
fn rdcycle(rd: u32) -> u32 {
    0xc00 << 20 | 2 << 12 | rd << 7 | 0x73
}
const ECALL: u32 = 0x73;
const T0: u32 = 5;
const A0: u32 = 10;
const A1: u32 = 11;
const A2: u32 = 12;
const A3: u32 = 13;

/// Run `words` at `BASE` on RV32 (with t0 = `DATA`) with `hooks`, to the
/// final `ecall` (a fault: `mtvec` is 0).
fn run_words<H: fwprof_sim::Hooks>(words: &[u32], hooks: H) -> Simulator<H> {
    run_words_on(words, hooks, None)
}

/// [`run_words`], on `tier` (tier and threshold) when given.
fn run_words_on<H: fwprof_sim::Hooks>(
    words: &[u32],
    hooks: H,
    tier: Option<(fwprof_sim::Tier, u32)>,
) -> Simulator<H> {
    let mut mem = Memory::new();
    let rwx = Perm {
        read: true,
        write: true,
        exec: true,
    };
    mem.map(BASE, 0x10000, rwx).unwrap();
    let bytes: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
    mem.write(BASE, &bytes).unwrap();
    let mut sim = Simulator::bare(mem, false, BASE, hooks);
    if let Some((tier, threshold)) = tier {
        sim.set_tier(tier, threshold);
    }
    sim.hart_mut().set_x(T0 as u8, DATA);
    let stop = sim.run(100_000, &AtomicBool::new(false)).unwrap();
    assert!(
        matches!(stop, StopReason::Fault { cause: 11, .. }),
        "{stop:?}"
    );
    sim
}

/// [`run_words`] under preset `core`: per-address costs, totals, and the
/// simulator (for register checks).
fn run(core: &str, words: &[u32]) -> (Vec<(u64, Costs)>, Costs, Simulator<TimingModel>) {
    let core = CoreConfig::load(core).expect("preset");
    let mut sim = run_words(words, TimingModel::new(core.clone(), false));
    // Finish the model while keeping the simulator: swap in a fresh one.
    let model = std::mem::replace(sim.hooks_mut(), TimingModel::new(core, false));
    let (per, totals) = model.finish();
    (per, totals, sim)
}

fn cycles_at(per: &[(u64, Costs)], index: usize) -> u64 {
    let pc = BASE + 4 * index as u64;
    per.iter()
        .find(|(a, _)| *a == pc)
        .map_or(0, |(_, c)| c[ev::CYCLES])
}

#[test]
fn picorv32_class_costs_from_its_readme() {
    // PicoRV32 README, "Cycles per Instruction Performance": ALU 3, load 5,
    // store 5, direct jump 3, indirect jump 6, branch taken 5, not taken 3,
    // MUL 40, MULH 72.
    let w = [
        addi(A0, 0, 7),   // 0: ALU 3
        sw(T0, A0, 0),    // 1: store 5
        lw(A1, T0, 0),    // 2: load 5
        mul(A2, A0, A1),  // 3: MUL 40
        mulh(A3, A0, A1), // 4: MULH 72
        b(0, A0, A1, 8),  // 5: beq a0, a1 (equal) taken: 5
        ECALL,            // 6 (skipped)
        b(1, A0, A1, 8),  // 7: bne a0, a1 not taken: 3
        jal(0, 8),        // 8: jal: 3
        ECALL,            // 9 (skipped)
        0x0000_0697,      // 10: auipc a3, 0 (a3 = pc of 10): ALU 3
        jalr(0, A3, 12),  // 11: jalr to instruction 13: 6
        ECALL,            // 12 (skipped)
        ECALL,            // 13
    ];
    let (per, _, _) = run("picorv32", &w);
    let want = [
        (0, 3),
        (1, 5),
        (2, 5),
        (3, 40),
        (4, 72),
        (5, 5),
        (7, 3),
        (8, 3),
        (10, 3),
        (11, 6),
    ];
    for (k, c) in want {
        assert_eq!(cycles_at(&per, k), c, "instruction {k}");
    }
    assert_eq!(cycles_at(&per, 6), 0, "skipped by the taken branch");
    assert_eq!(cycles_at(&per, 12), 0, "skipped by the jalr");
}

#[test]
fn picorv32_shift_cost_depends_on_the_amount() {
    // PicoRV32's two-stage shifter moves 4 bits, then 1 bit, per cycle:
    // 4 + n/4 + n%4 cycles, the README's "4-14".
    let w = [
        slli(A0, A0, 0),  // 4
        slli(A0, A0, 8),  // 4 + 2 = 6
        slli(A0, A0, 31), // 4 + 7 + 3 = 14
        addi(A1, 0, 22),  // ALU 3
        sll(A0, A0, A1),  // by a register: 4 + 5 + 2 = 11
        ECALL,
    ];
    let (per, _, _) = run("picorv32", &w);
    assert_eq!(cycles_at(&per, 0), 4);
    assert_eq!(cycles_at(&per, 1), 6);
    assert_eq!(cycles_at(&per, 2), 14);
    assert_eq!(cycles_at(&per, 4), 11);
}

#[test]
fn bitmanip_classes_use_the_alu_shifter_and_multiplier() {
    // Zba/Zbb/Zbs logic is ALU work, rotates cost as shifts by their
    // amount, carry-less multiplies as multiplies (fwprof-isa's classes);
    // PicoRV32's numbers as in the two tests above. The fast model and the
    // reference agree on the register rotate, whose cost needs its operand.
    let w = [
        r(0x33, 2, 0x10, A2, A0, A1),  // 0: sh1add: ALU 3
        i(0x13, 1, A2, A0, 0x600),     // 1: clz: ALU 3
        i(0x13, 1, A2, A0, 0x280 | 5), // 2: bseti: ALU 3
        i(0x13, 5, A2, A0, 0x600 | 8), // 3: rori by 8: 4 + 2 = 6
        addi(A1, 0, 22),               // 4: ALU 3
        r(0x33, 5, 0x30, A2, A0, A1),  // 5: ror by 22: 4 + 5 + 2 = 11
        r(0x33, 1, 0x05, A2, A0, A1),  // 6: clmul: MUL 40
        r(0x33, 3, 0x05, A2, A0, A1),  // 7: clmulh: MULH 72
        r(0x33, 2, 0x05, A2, A0, A1),  // 8: clmulr: MULH 72
        ECALL,
    ];
    let (per, _, sim) = run("picorv32", &w);
    for (k, c) in [
        (0, 3),
        (1, 3),
        (2, 3),
        (3, 6),
        (4, 3),
        (5, 11),
        (6, 40),
        (7, 72),
        (8, 72),
    ] {
        assert_eq!(cycles_at(&per, k), c, "instruction {k}");
    }
    // The rotate really ran: a2 = clmulr(0, 22) = 0 after it, a1 kept.
    assert_eq!(sim.hart().x(A1 as u8), 22);
    let core = CoreConfig::from_toml(EVERYTHING, "everything.toml").unwrap();
    let (fast, reference) = both_on_words(&core, &w);
    assert_eq!(fast, reference);
}

#[test]
fn load_use_stall_on_a_pipelined_core() {
    let core = CoreConfig::load("generic").unwrap();
    let w = [
        sw(T0, 0, 0),    // 0
        lw(A0, T0, 0),   // 1: load
        addi(A1, A0, 1), // 2: uses a0 right after the load
        lw(A2, T0, 0),   // 3: load
        addi(A3, 0, 1),  // 4: independent
        addi(A3, A2, 1), // 5: uses a2 two instructions later
        ECALL,
    ];
    let (per, _, _) = run("generic", &w);
    let stall = |k: usize| {
        per.iter()
            .find(|(a, _)| *a == BASE + 4 * k as u64)
            .map_or(0, |(_, c)| c[ev::STALL_LOAD_USE])
    };
    assert_eq!(stall(2), u64::from(core.pipeline.load_use));
    // presets/generic.toml: one load-use bubble (so the check above is not 0 == 0).
    assert_eq!(core.pipeline.load_use, 1);
    assert_eq!(stall(4), 0);
    assert_eq!(stall(5), 0);
}

#[test]
fn bimodal_predictor_warms_up_on_a_loop() {
    // a0 = 10; loop: addi a0, a0, -1; bne a0, zero, loop
    let w = [addi(A0, 0, 10), addi(A0, A0, -1), b(1, A0, 0, -4), ECALL];
    let (per, totals, _) = run("generic", &w);
    // Counters start weakly not-taken: the first taken bne mispredicts,
    // then it is predicted taken until the loop exit mispredicts.
    let at = |k: usize, e: usize| {
        per.iter()
            .find(|(a, _)| *a == BASE + 4 * k as u64)
            .map_or(0, |(_, c)| c[e])
    };
    assert_eq!(at(2, ev::BRANCHES), 10);
    assert_eq!(at(2, ev::BRANCH_MISPREDICTS), 2);
    assert_eq!(totals[ev::BRANCH_MISPREDICTS], 2);
    let core = CoreConfig::load("generic").unwrap();
    assert_eq!(
        at(2, ev::STALL_BRANCH),
        2 * u64::from(core.pipeline.mispredict_penalty)
    );
}

#[test]
fn static_predictor_predicts_a_backward_branch_taken_also_when_it_falls_through() {
    // a0 = 10; loop: addi a0, a0, -1; bne a0, zero, loop. Backward taken:
    // the nine taken executions are predicted, the loop exit (not taken,
    // though its target is behind it) is mispredicted, on both models and
    // on both tiers.
    let w = [addi(A0, 0, 10), addi(A0, A0, -1), b(1, A0, 0, -4), ECALL];
    let mut core = CoreConfig::load("generic").unwrap();
    core.predictor = PredictorParams {
        kind: PredictorKind::Static,
        btb_entries: 0,
    };
    let (fast, reference) = both_on_words(&core, &w);
    assert_eq!(fast.1[ev::BRANCHES], 10);
    assert_eq!(fast.1[ev::BRANCH_MISPREDICTS], 1);
    assert_eq!(fast, reference);
    for tier in [fwprof_sim::Tier::Interp, fwprof_sim::Tier::Jit] {
        let mut model = TimingModel::new(core.clone(), false);
        let front = model.front();
        let piped = fwprof_sim::Pipelined::with_front(model, front);
        let sim = run_words_on(&w, piped, Some((tier, 0)));
        let piped = sim.into_hooks().finish().finish();
        assert_eq!(piped, fast, "{tier:?}");
    }
}

#[test]
fn rdcycle_reads_the_modelled_cycles() {
    // On picorv32: rdcycle a0; three ALU ops (9 cycles); rdcycle a1.
    let w = [
        rdcycle(A0),
        addi(A2, 0, 1),
        addi(A2, A2, 1),
        addi(A2, A2, 1),
        rdcycle(A1),
        ECALL,
    ];
    let (per, _, sim) = run("picorv32", &w);
    let first = cycles_at(&per, 0);
    let a0 = sim.hart().x(A0 as u8);
    let a1 = sim.hart().x(A1 as u8);
    // a1 - a0 = the first rdcycle's own cost + 3 ALU ops of 3 cycles.
    assert_eq!(a1.wrapping_sub(a0), first + 9);
}

#[test]
fn data_cache_misses_once_per_line() {
    let core = CoreConfig::load("generic").unwrap();
    let line = core.dcache.as_ref().unwrap().line as i32;
    // Eight word loads over two lines: 2 misses, 6 hits.
    let mut w: Vec<u32> = (0..8).map(|k| lw(A0, T0, k * line / 4)).collect();
    w.push(ECALL);
    let (_, totals, _) = run("generic", &w);
    assert_eq!(totals[ev::DCACHE_ACCESSES], 8);
    assert_eq!(totals[ev::DCACHE_MISSES], 2);
    assert_eq!(totals[ev::LOADS], 8);
}

#[test]
fn inclusive_cycles_per_function_inside_the_exact_collector() {
    use fwprof_collect::{ExactCollector, FunctionMap};
    // main: 0 addi; 1 jal ra, f; 2 addi; 3 ecall.  f: 4 addi; 5 addi; 6 ret.
    let w = [
        addi(A0, 0, 1),
        jal(1, 12),
        addi(A0, A0, 1),
        ECALL,
        addi(A1, 0, 2),
        addi(A1, A1, 2),
        jalr(0, 1, 0),
    ];
    let map = FunctionMap::new(
        &[(BASE, BASE + 16), (BASE + 16, BASE + 28)],
        &[BASE, BASE + 16],
    );
    let core = CoreConfig::load("picorv32").unwrap();
    let hooks = ExactCollector::with_model(map, BASE, 0x9000_0000, TimingModel::new(core, false));
    let sim = run_words(&w, hooks);
    let executed = sim.executed();
    let (data, model) = sim.into_hooks().finish_with_model(executed);
    let (_, totals) = model.finish();
    let x = data.extra;
    assert_eq!(x, crate::NUM_EVENTS - 1);
    let cycles = |f: usize| data.functions_extra[f * x + ev::CYCLES - 1];
    // f: two ALU ops (3 each) and a jalr (6), as the PicoRV32 README counts.
    assert_eq!(cycles(1), 12);
    assert_eq!(data.functions[1].inclusive, 3);
    // main's outermost activation spans the whole run.
    assert_eq!(cycles(0), totals[ev::CYCLES]);
    // main itself: addi 3, jal 3, addi 3, ecall (system).
    let system = u64::from(
        CoreConfig::load("picorv32")
            .unwrap()
            .pipeline
            .latency
            .system,
    );
    assert_eq!(totals[ev::CYCLES], 3 + 3 + 3 + system + 12);
}

/// A core with every feature on, sized so that caches miss and write back,
/// with flash wait states and an uncached region, no forwarding, gshare
/// and operand-dependent division.
const EVERYTHING: &str = r#"
name = "everything"
[pipeline]
alu = 1
shift = 1
shift_step = 4
shift_per_step = 1
shift_per_remainder_bit = 1
branch_taken = 3
jal = 2
jalr = 3
load = 2
store = 2
mul = 3
mulh = 5
div = 33
div_variable = true
load_use = 2
forwarding = false
no_forward_stall = 1
mispredict_penalty = 4
[predictor]
kind = "gshare"
entries = 256
history_bits = 6
btb_entries = 16
[icache]
size = 512
ways = 2
line = 16
replacement = "fifo"
hit_latency = 1
miss_penalty = 7
[dcache]
size = 256
ways = 2
line = 16
replacement = "random"
write_back = true
write_allocate = true
hit_latency = 2
miss_penalty = 9
[[region]]
name = "text"
base = 0x10000
size = 0x10000
wait_states = 2
[[region]]
name = "ram"
base = 0x80000000
size = 0x1000
wait_states = 1
uncached = true
"#;

/// Run an ELF under the fast model and under the reference (one
/// instruction at a time) and require identical costs everywhere.
fn same_as_reference(elf: &str, args: &[&str], core: &CoreConfig) {
    use crate::reference::ReferenceModel;
    let path = crate::tests_model::repo().join(elf);
    let bytes = std::fs::read(&path).unwrap();
    let cfg = fwprof_os::RunConfig {
        program: path.clone(),
        args: args.iter().map(|s| s.to_string()).collect(),
        env: vec![],
        target: None,
        ram: (0x8000_0000, 128 << 20),
        sandbox: fwprof_os::Sandbox::default(),
        machine: Default::default(),
    };
    fn go<H: fwprof_sim::Hooks>(
        bytes: &[u8],
        cfg: &fwprof_os::RunConfig,
        make: impl FnOnce(bool) -> H,
    ) -> H {
        let mut mem = Memory::new();
        let (prog, mut env) = fwprof_os::load(bytes, cfg, &mut mem).unwrap();
        env.capture_console(Vec::new());
        let hooks = make(prog.rv64);
        let mut sim = Simulator::new(mem, &prog, env, hooks);
        let stop = sim.run(20_000_000, &AtomicBool::new(false)).unwrap();
        assert!(matches!(stop, StopReason::Exit(0)), "{stop:?}");
        sim.into_hooks()
    }
    let fast = go(&bytes, &cfg, |rv64| TimingModel::new(core.clone(), rv64));
    let reference = go(&bytes, &cfg, |rv64| ReferenceModel::new(core.clone(), rv64));
    let (fast_per, fast_totals) = fast.finish();
    let (ref_per, ref_totals) = reference.finish();
    assert_eq!(fast_totals, ref_totals, "{elf} on {}: totals", core.name);
    assert_eq!(fast_per.len(), ref_per.len());
    for (f, r) in fast_per.iter().zip(&ref_per) {
        assert_eq!(f, r, "{elf} on {} at {:#x}", core.name, r.0);
    }
    assert!(ref_totals[ev::INSTRUCTIONS] > 10_000);
}

pub(crate) fn repo() -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

#[test]
fn fast_model_equals_the_reference_on_real_programs() {
    let mut cores: Vec<CoreConfig> = crate::PRESETS
        .iter()
        .map(|p| CoreConfig::load(p).unwrap())
        .collect();
    cores.push(CoreConfig::from_toml(EVERYTHING, "everything.toml").unwrap());
    for core in &cores {
        same_as_reference("examples/huffman/huffman.rv32imac.elf", &[], core);
        same_as_reference("examples/exprcalc/exprcalc.rv64-linux.elf", &[], core);
        same_as_reference("bench/coremix.rv64-linux.elf", &["3"], core);
        // Long unrolled rounds: blocks end at the 64-instruction limit,
        // so hazards cross block boundaries.
        same_as_reference("examples/sha256/sha256.rv32imac.elf", &[], core);
    }
}

#[test]
fn blocks_with_sums_too_wide_for_32_bit_lanes_match_the_reference() {
    // A multiply costs 2^20 cycles: the sums of blocks with one no longer
    // fit the narrow lanes, the other blocks' still do.
    let mut core = CoreConfig::from_toml(EVERYTHING, "everything.toml").unwrap();
    core.pipeline.latency.mul = 1 << 20;
    same_as_reference("bench/coremix.rv64-linux.elf", &["3"], &core);
    same_as_reference("examples/sha256/sha256.rv32imac.elf", &[], &core);
    // Every block wide.
    core.pipeline.latency.alu = 1 << 21;
    same_as_reference("bench/coremix.rv64-linux.elf", &["3"], &core);
}

/// Per-address costs and totals, as `finish` returns them.
type Finished = (Vec<(u64, Costs)>, Costs);

/// Run `words` (bare metal, RV32, t0 = DATA) under both models on `core`.
fn both_on_words(core: &CoreConfig, words: &[u32]) -> (Finished, Finished) {
    use crate::reference::ReferenceModel;
    let fast = run_words(words, TimingModel::new(core.clone(), false))
        .into_hooks()
        .finish();
    let reference = run_words(words, ReferenceModel::new(core.clone(), false))
        .into_hooks()
        .finish();
    (fast, reference)
}

#[test]
fn hazards_across_block_boundaries_match_the_reference() {
    let core = CoreConfig::from_toml(EVERYTHING, "everything.toml").unwrap();
    // A 64-instruction block ending in a load, then a use of it; a CSR read
    // (which ends its block), then a use of it.
    let mut w: Vec<u32> = (0..63).map(|_| addi(A2, A2, 1)).collect();
    w.push(lw(A0, T0, 0));
    w.push(addi(A1, A0, 1));
    w.push(rdcycle(A3));
    w.push(addi(A1, A3, 1));
    w.push(ECALL);
    let (fast, reference) = both_on_words(&core, &w);
    assert_eq!(fast, reference);
    // Both hazards are there: the load-use (2) and the CSR result (1).
    let stall = |k: usize| {
        reference
            .0
            .iter()
            .find(|(a, _)| *a == BASE + 4 * k as u64)
            .map_or(0, |(_, c)| c[ev::STALL_LOAD_USE])
    };
    assert_eq!(stall(64), 2);
    assert_eq!(stall(66), 1);
}

fn div(rd: u32, rs1: u32, rs2: u32) -> u32 {
    r(0x33, 4, 1, rd, rs1, rs2)
}

#[test]
fn ibex_class_costs_from_its_pipeline_table() {
    // Ibex "Pipeline Details" (cycles = stall cycles + 1): integer 1, load
    // and store 2 (1 + one-cycle memory), fast multiplier MUL 3 / MULH 4,
    // division 37, branch not taken 1 / taken 3, jump 2, CSR 1.
    let w = [
        addi(A0, 0, 7),   // 0: 1
        sw(T0, A0, 0),    // 1: 2
        lw(A1, T0, 0),    // 2: 2
        mul(A2, A0, A1),  // 3: 3
        mulh(A3, A0, A1), // 4: 4
        div(A2, A0, A1),  // 5: 37
        rdcycle(A3),      // 6: CSR 1
        b(0, A0, A1, 8),  // 7: taken 3
        ECALL,            // 8 (skipped)
        b(1, A0, A1, 8),  // 9: not taken 1
        jal(0, 8),        // 10: 2
        ECALL,            // 11 (skipped)
        0x0000_0697,      // 12: auipc a3, 0: 1
        jalr(0, A3, 12),  // 13: 2
        ECALL,            // 14 (skipped)
        ECALL,            // 15
    ];
    let (per, _, _) = run("ibex", &w);
    for (k, c) in [
        (0, 1),
        (1, 2),
        (2, 2),
        (3, 3),
        (4, 4),
        (5, 37),
        (6, 1),
        (7, 3),
        (9, 1),
        (10, 2),
        (12, 1),
        (13, 2),
    ] {
        assert_eq!(cycles_at(&per, k), c, "instruction {k}");
    }
}

#[test]
fn picorv32_divide_and_csr() {
    // README: DIV/REM 40 cycles with ENABLE_DIV; the CSR read is the
    // preset's documented estimate.
    let core = CoreConfig::load("picorv32").unwrap();
    let w = [
        addi(A0, 0, 100),
        addi(A1, 0, 7),
        div(A2, A0, A1),
        rdcycle(A3),
        ECALL,
    ];
    let (per, totals, sim) = run("picorv32", &w);
    assert_eq!(cycles_at(&per, 2), 40);
    assert_eq!(cycles_at(&per, 3), u64::from(core.pipeline.latency.csr));
    assert_eq!(sim.hart().x(A2 as u8), 14);
    // rdcycle read the cycles of the three instructions before it.
    assert_eq!(sim.hart().x(A3 as u8), 3 + 3 + 40);
    assert_eq!(totals[ev::STALL_MULDIV], 40 - 3);
}

/// The model behind a [`fwprof_sim::Pipelined`] with its predictor in a
/// [`crate::TimingFront`] on the simulator's thread (what `record --core`
/// runs) gives exactly the costs of the model run alone.
#[test]
fn pipelined_model_with_a_branch_front_equals_the_model_alone() {
    let path = repo().join("bench/coremix.rv64-linux.elf");
    let bytes = std::fs::read(&path).unwrap();
    let cfg = fwprof_os::RunConfig {
        program: path.clone(),
        args: vec!["5".into()],
        env: vec![],
        target: None,
        ram: (0x8000_0000, 128 << 20),
        sandbox: fwprof_os::Sandbox::default(),
        machine: Default::default(),
    };
    // The presets, and generic with the predictors no preset uses, with
    // and without a BTB, and with tables small enough to alias (translated
    // code runs the front's predictor in line: every shape it handles).
    let mut cores: Vec<(String, CoreConfig)> = crate::PRESETS
        .iter()
        .map(|p| (p.to_string(), CoreConfig::load(p).unwrap()))
        .collect();
    for kind in [
        PredictorKind::Static,
        PredictorKind::Gshare {
            entries: 1024,
            history_bits: 8,
        },
        PredictorKind::Gshare {
            entries: 16,
            history_bits: 3,
        },
        PredictorKind::Bimodal { entries: 8 },
    ] {
        for btb_entries in [0, 4, 64] {
            let mut core = CoreConfig::load("generic").unwrap();
            core.predictor.kind = kind;
            core.predictor.btb_entries = btb_entries;
            cores.push((format!("generic, {kind:?}, BTB {btb_entries}"), core));
        }
    }
    // Data caches of every policy the front's cache and translated code's
    // inline check handle, small enough to miss, evict and write back
    // (the generic core has no memory regions, so its data cache runs in
    // the front); and the core with regions, whose cache stays in the
    // model.
    for (name, replacement, write_back, write_allocate, hit_latency, ways) in [
        ("LRU write-back 1-way", Replacement::Lru, true, true, 1, 1),
        (
            "FIFO write-through no-allocate",
            Replacement::Fifo,
            false,
            false,
            1,
            2,
        ),
        (
            "random write-back, hit 2",
            Replacement::Random,
            true,
            true,
            2,
            4,
        ),
        (
            "LRU write-through allocate, 3 ways",
            Replacement::Lru,
            false,
            true,
            3,
            3,
        ),
    ] {
        let mut core = CoreConfig::load("generic").unwrap();
        let d = core.dcache.as_mut().unwrap();
        (d.size, d.line, d.ways) = (64 * 16 * ways, 16, ways);
        (d.replacement, d.write_back, d.write_allocate) = (replacement, write_back, write_allocate);
        d.hit_latency = hit_latency;
        cores.push((format!("generic, dcache {name}"), core));
    }
    let mut regions = CoreConfig::from_toml(EVERYTHING, "everything.toml").unwrap();
    regions.regions.retain(|r| r.name == "text");
    cores.push(("everything (regions)".into(), regions));
    for (preset, core) in cores {
        let run = |piped: Option<u32>| {
            let mut mem = Memory::new();
            let (prog, mut env) = fwprof_os::load(&bytes, &cfg, &mut mem).unwrap();
            env.capture_console(Vec::new());
            let mut model = TimingModel::new(core.clone(), prog.rv64);
            let flag = AtomicBool::new(false);
            if let Some(threshold) = piped {
                let front = model.front();
                let mut sim = Simulator::new(
                    mem,
                    &prog,
                    env,
                    fwprof_sim::Pipelined::with_front(model, front),
                );
                sim.set_tier(fwprof_sim::Tier::Jit, threshold);
                assert!(matches!(
                    sim.run(50_000_000, &flag).unwrap(),
                    StopReason::Exit(0)
                ));
                sim.into_hooks().finish().finish()
            } else {
                let mut sim = Simulator::new(mem, &prog, env, model);
                sim.set_tier(fwprof_sim::Tier::Interp, 0);
                assert!(matches!(
                    sim.run(50_000_000, &flag).unwrap(),
                    StopReason::Exit(0)
                ));
                sim.into_hooks().finish()
            }
        };
        let alone = run(None);
        if core.predictor.kind != crate::PredictorKind::None {
            assert!(alone.1[ev::BRANCH_MISPREDICTS] > 0, "{preset}");
        }
        assert!(alone.1[ev::CYCLES] > alone.1[ev::INSTRUCTIONS], "{preset}");
        if core.dcache.is_some() {
            assert!(alone.1[ev::DCACHE_MISSES] > 0, "{preset}");
        }
        for threshold in [0, 100] {
            assert_eq!(
                alone,
                run(Some(threshold)),
                "{preset}, threshold {threshold}"
            );
        }
    }
}

/// Loads and stores that fault make no access: behind the front, whose
/// data cache counts a plain load's or store's access as a static cost,
/// the model takes it back (`Hooks::on_access_fault`), on both tiers, and
/// the costs are the model's alone and the reference's.
#[test]
fn faulting_loads_and_stores_cost_no_data_access_behind_the_front() {
    fn csrr(rd: u32, csr: u32) -> u32 {
        csr << 20 | 2 << 12 | rd << 7 | 0x73
    }
    fn csrw(csr: u32, rs1: u32) -> u32 {
        csr << 20 | rs1 << 15 | 1 << 12 | 0x73
    }
    const MRET: u32 = 0x3020_0073;
    const NOP: u32 = 0x13;
    let (t1, t3, t4) = (6, 28, 29);
    let (mtvec, mepc, mcause) = (0x305, 0x341, 0x342);
    // Twenty times: a load and a store that hit, and a load and a store
    // to 0x1000_0000, where nothing is mapped (access faults the handler
    // at 64 steps over); the final `ecall` clears `mtvec` and faults.
    let w = [
        t1 << 7 | 0x17,               // 0: auipc t1, 0
        addi(t1, t1, 64),             // 4
        csrw(mtvec, t1),              // 8
        addi(A0, 0, 20),              // 12
        lw(A1, T0, 0),                // 16: loop
        0x1000_0000 | A2 << 7 | 0x37, // 20: lui a2, 0x10000
        lw(A3, A2, 0),                // 24: faults
        sw(T0, A1, 4),                // 28
        sw(A2, A1, 0),                // 32: faults
        addi(A0, A0, -1),             // 36
        b(1, A0, 0, -24),             // 40: bne a0, zero, loop
        ECALL,                        // 44
        NOP,
        NOP,
        NOP,
        NOP,
        csrr(t3, mcause), // 64: handler
        addi(t4, 0, 11),  // 68
        b(0, t3, t4, 20), // 72: beq t3, t4, 92
        csrr(t3, mepc),   // 76
        addi(t3, t3, 4),  // 80
        csrw(mepc, t3),   // 84
        MRET,             // 88
        csrw(mtvec, 0),   // 92
        ECALL,            // 96
    ];
    for hit_latency in [1, 2] {
        let mut core = CoreConfig::load("generic").unwrap();
        core.dcache.as_mut().unwrap().hit_latency = hit_latency;
        let (fast, reference) = both_on_words(&core, &w);
        assert_eq!(fast, reference);
        let at = |k: u64, e: usize| {
            fast.0
                .iter()
                .find(|(a, _)| *a == BASE + k)
                .map_or(0, |(_, c)| c[e])
        };
        assert_eq!(at(24, ev::INSTRUCTIONS), 20);
        assert_eq!(at(24, ev::LOADS), 0);
        assert_eq!(at(32, ev::STORES), 0);
        assert_eq!(at(16, ev::LOADS), 20);
        assert_eq!(fast.1[ev::DCACHE_ACCESSES], 40);
        for (tier, threshold) in [
            (fwprof_sim::Tier::Interp, 0),
            (fwprof_sim::Tier::Jit, 0),
            (fwprof_sim::Tier::Jit, 5),
        ] {
            let mut model = TimingModel::new(core.clone(), false);
            let front = model.front();
            let piped = fwprof_sim::Pipelined::with_front(model, front);
            let sim = run_words_on(&w, piped, Some((tier, threshold)));
            let piped = sim.into_hooks().finish().finish();
            assert_eq!(
                piped, fast,
                "{tier:?} {threshold}, hit latency {hit_latency}"
            );
        }
    }
}

#[test]
fn costs_of_blocks_flushed_by_fence_i_are_kept() {
    // 50 iterations of a loop whose `fence.i` flushes the block cache: the
    // costs of every flushed generation are folded by address, in the
    // fast model as in the reference.
    const FENCE_I: u32 = 0x0000_100f;
    let core = CoreConfig::from_toml(EVERYTHING, "everything.toml").unwrap();
    let w = [
        addi(A0, 0, 50),  // 0
        lw(A1, T0, 0),    // 1: loop
        addi(A2, A1, 1),  // 2: load-use
        FENCE_I,          // 3
        addi(A0, A0, -1), // 4
        b(1, A0, 0, -16), // 5: bne a0, zero, loop
        ECALL,            // 6
    ];
    let (fast, reference) = both_on_words(&core, &w);
    assert_eq!(fast, reference);
    let at = |k: usize, e: usize| {
        fast.0
            .iter()
            .find(|(a, _)| *a == BASE + 4 * k as u64)
            .map_or(0, |(_, c)| c[e])
    };
    for k in 1..=5 {
        assert_eq!(at(k, ev::INSTRUCTIONS), 50, "instruction {k}");
    }
    assert_eq!(fast.1[ev::INSTRUCTIONS], 2 + 5 * 50);
    assert_eq!(at(1, ev::LOADS), 50);
    // Every iteration: max(load_use 2, no_forward_stall 1) cycles.
    assert_eq!(at(2, ev::STALL_LOAD_USE), 2 * 50);
}
