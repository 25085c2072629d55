//! Every collector that wraps a cost model forwards every hook and every
//! constant of the model (issue 12: `ExactCollector` used to drop `STOPS`,
//! `WANTS_CALL_ARGS`, `stop_requested`, `on_call_args` and `on_idle`; the
//! sampler's clock dropped the jump hooks).

use fwprof_collect::sample::SampleClock;
use fwprof_collect::{
    ExactCollector, FunctionMap, HookAddresses, InstrumentCollector, InstrumentConfig,
};
use fwprof_isa::{decode, Inst, Xlen};
use fwprof_sim::{
    BlockId, CostModel, HartSwitch, Hooks, Jump, JumpKind, Privilege, SignalDelivery, SignalReturn,
    TrapInfo, TrapReturn,
};

/// The hooks, by index into [`Counting::calls`].
const HOOKS: [&str; 22] = [
    "stop_requested",
    "wants_direct_jump",
    "on_block_translated",
    "split_block",
    "on_cache_flush",
    "on_block_exec",
    "on_block_cut",
    "on_jump",
    "on_call_args",
    "on_mem",
    "on_mem_front",
    "on_access_fault",
    "on_operands",
    "on_branch",
    "on_branch_front",
    "cycles_before",
    "on_trap",
    "on_trap_return",
    "on_idle",
    "on_hart_switch",
    "on_signal",
    "on_signal_return",
];

/// A model that asks for everything, counts every hook call, and answers
/// with values a wrapper could not make up.
#[derive(Default)]
struct Counting {
    calls: [u32; 22],
    clock: [u64; 1],
}

impl Counting {
    fn count(&mut self, name: &str) {
        let i = HOOKS.iter().position(|&h| h == name).unwrap();
        self.calls[i] += 1;
    }
}

impl Hooks for Counting {
    const WANTS_JUMPS: bool = true;
    const WANTS_MEMORY: bool = true;
    const WANTS_BRANCHES: bool = true;
    const WANTS_OPERANDS: bool = true;
    const MODELS_CYCLES: bool = true;
    const WANTS_CALL_ARGS: bool = true;
    const STOPS: bool = true;

    fn stop_requested(&mut self) -> bool {
        self.count("stop_requested");
        true
    }
    fn on_block_translated(&mut self, _: BlockId, _: &[u64], _: &[Inst]) {
        self.count("on_block_translated");
    }
    fn split_block(&mut self, _: &[u64], _: &[Inst]) -> usize {
        self.count("split_block");
        1
    }
    fn on_cache_flush(&mut self) {
        self.count("on_cache_flush");
    }
    fn on_block_exec(&mut self, _: BlockId, _: u64) {
        self.count("on_block_exec");
    }
    fn on_block_cut(&mut self, _: BlockId, _: u32) {
        self.count("on_block_cut");
    }
    fn on_jump(&mut self, _: &Jump) {
        self.count("on_jump");
    }
    fn on_call_args(&mut self, _: u64, _: u64, _: u64) {
        self.count("on_call_args");
    }
    fn on_mem(&mut self, _: u32, _: u64, _: u8, _: bool) {
        self.count("on_mem");
    }
    fn on_operands(&mut self, _: u32, _: u64, _: u64) {
        self.count("on_operands");
    }
    fn on_branch(&mut self, _: BlockId, _: bool, _: u64) {
        self.count("on_branch");
    }
    fn on_mem_front(&mut self, _: u32, _: u64) {
        self.count("on_mem_front");
    }
    fn on_access_fault(&mut self, _: BlockId, _: u32) {
        self.count("on_access_fault");
    }
    fn on_branch_front(&mut self, _: BlockId, _: u64) {
        self.count("on_branch_front");
    }
    fn wants_direct_jump(&mut self, _: u64, _: u64) -> bool {
        self.count("wants_direct_jump");
        true
    }
    fn cycles_before(&mut self, _: BlockId, _: u32) -> u64 {
        self.count("cycles_before");
        4242
    }
    fn on_trap(&mut self, _: TrapInfo, _: u64, _: u64) {
        self.count("on_trap");
    }
    fn on_trap_return(&mut self, _: &TrapReturn) {
        self.count("on_trap_return");
    }
    fn on_idle(&mut self, _: u64, _: u64) {
        self.count("on_idle");
    }
    fn on_hart_switch(&mut self, _: &HartSwitch) {
        self.count("on_hart_switch");
    }
    fn on_signal(&mut self, _: &SignalDelivery) {
        self.count("on_signal");
    }
    fn on_signal_return(&mut self, _: &SignalReturn) {
        self.count("on_signal_return");
    }
}

impl CostModel for Counting {
    const EXTRA: usize = 1;
    fn clock(&mut self, _block_done: bool) -> &[u64] {
        &self.clock
    }
}

/// Every constant of the wrapper `H` around [`Counting`] is set.
fn assert_constants<H: Hooks>(name: &str) {
    let constants = [
        ("WANTS_JUMPS", H::WANTS_JUMPS),
        ("WANTS_MEMORY", H::WANTS_MEMORY),
        ("WANTS_BRANCHES", H::WANTS_BRANCHES),
        ("WANTS_OPERANDS", H::WANTS_OPERANDS),
        ("MODELS_CYCLES", H::MODELS_CYCLES),
        ("WANTS_CALL_ARGS", H::WANTS_CALL_ARGS),
        ("STOPS", H::STOPS),
        ("WANTS_BLOCK_EXEC", H::WANTS_BLOCK_EXEC),
    ];
    for (constant, value) in constants {
        assert!(value, "{name} drops {constant} of its model");
    }
}

/// Call every hook once, in an order a run could produce: block 0 at
/// 0x100 (`addi`, then `jal ra` to 0x200) is translated, runs, calls, is
/// cut by a trap, the handler returns, the hart sleeps, a signal handler
/// runs and returns, `fence.i` flushes.
/// Checks the answers that must come from the model.
fn drive<H: Hooks>(h: &mut H, name: &str) {
    let pcs = [0x100, 0x104];
    let insts = [
        decode(0x0010_0093, Xlen::Rv64),
        decode(0x0fd0_00ef, Xlen::Rv64),
    ];
    assert_eq!(h.split_block(&pcs, &insts), 1, "{name}: split_block");
    h.on_block_translated(BlockId(0), &pcs[..1], &insts[..1]);
    h.split_block(&pcs[1..], &insts[1..]);
    h.on_block_translated(BlockId(1), &pcs[1..], &insts[1..]);
    // A jump inside a function: the model wants it, whatever the wrapper.
    assert!(
        h.wants_direct_jump(0x100, 0x104),
        "{name}: wants_direct_jump"
    );
    assert!(h.stop_requested(), "{name}: stop_requested");
    // Inline block counts would skip the model's `on_block_exec`.
    assert!(h.inline_counts().is_none(), "{name}: inline_counts");
    h.on_block_exec(BlockId(0), 0);
    h.on_operands(0, 1, 2);
    h.on_block_exec(BlockId(1), 1);
    h.on_mem(0, 0x8000, 4, false);
    h.on_mem_front(0, 1);
    assert_eq!(
        h.cycles_before(BlockId(1), 0),
        4242,
        "{name}: cycles_before"
    );
    h.on_branch(BlockId(1), true, 0x200);
    h.on_branch_front(BlockId(1), 7);
    h.on_call_args(0x200, 1, 2);
    h.on_jump(&Jump {
        block: BlockId(1),
        kind: JumpKind::Call,
        pc: 0x104,
        ret: 0x108,
        target: 0x200,
        instret: 2,
        sp: 0x1000,
    });
    h.on_block_cut(BlockId(0), 1);
    h.on_access_fault(BlockId(0), 0);
    let trap = TrapInfo {
        cause: 2,
        interrupt: false,
        pc: 0x100,
        tval: 0,
        from: Privilege::Machine,
        to: Privilege::Machine,
        handler: 0x200,
        latency: None,
    };
    h.on_trap(trap, 3, 0x1000);
    h.on_trap_return(&TrapReturn {
        pc: 0x204,
        target: 0x104,
        from: Privilege::Machine,
        to: Privilege::Machine,
        instret: 4,
        sp: 0x1000,
        space: 0,
    });
    h.on_idle(10, 4);
    h.on_hart_switch(&HartSwitch {
        from: 0,
        from_executed: 4,
        to: 1,
        to_executed: 0,
        pc: 0x100,
        sp: 0x2000,
        privilege: Privilege::Machine,
        space: 0,
    });
    // A Linux signal handler at 0x200 interrupts 0x100 and returns.
    h.on_signal(&SignalDelivery {
        signo: 11,
        pc: 0x100,
        sp: 0x1000,
        handler: 0x200,
        frame: 0xc00,
        alt_stack: None,
        instret: 5,
    });
    h.on_signal_return(&SignalReturn {
        pc: 0x204,
        target: 0x100,
        sp: 0x1000,
        instret: 6,
    });
    h.on_cache_flush();
}

/// The model saw each hook exactly once (besides the two translations).
fn assert_counts(model: &Counting, name: &str) {
    for (i, hook) in HOOKS.iter().enumerate() {
        let want = if matches!(
            *hook,
            "on_block_translated" | "split_block" | "on_block_exec"
        ) {
            2
        } else {
            1
        };
        assert_eq!(model.calls[i], want, "{name} forwards {hook}");
    }
}

fn map() -> FunctionMap {
    FunctionMap::new(&[(0x100, 0x200), (0x200, 0x300)], &[0x100, 0x200])
}

#[test]
fn exact_collector_forwards_every_hook_and_constant() {
    assert_constants::<ExactCollector<Counting>>("ExactCollector");
    let mut c = ExactCollector::with_model(map(), 0x100, 0x1000, Counting::default());
    drive(&mut c, "ExactCollector");
    assert_counts(c.model(), "ExactCollector");
}

#[test]
fn instrument_collector_forwards_every_hook_and_constant() {
    assert_constants::<InstrumentCollector<Counting>>("InstrumentCollector");
    let cfg = InstrumentConfig {
        hooks: HookAddresses {
            enter: Some(0x200),
            exit: Some(0x200),
            mcount: Vec::new(),
        },
        starts: vec![0x100, 0x200],
        excluded: Vec::new(),
        unit: 0,
        rv64: true,
    };
    let mut c = InstrumentCollector::with_model(map(), cfg, Counting::default());
    drive(&mut c, "InstrumentCollector");
    assert_counts(c.model(), "InstrumentCollector");
}

#[test]
fn sample_clock_forwards_every_hook_and_constant() {
    assert_constants::<SampleClock<Counting, false>>("SampleClock");
    assert_constants::<SampleClock<Counting, true>>("SampleClock (paced)");
    let mut c = SampleClock::<Counting, false>::new(Counting::default());
    drive(&mut c, "SampleClock");
    assert_counts(&c.into_model(), "SampleClock");
    let mut c = SampleClock::<Counting, true>::new(Counting::default());
    drive(&mut c, "SampleClock (paced)");
    assert_counts(&c.into_model(), "SampleClock (paced)");
}
