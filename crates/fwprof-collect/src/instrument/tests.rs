//! Tests of the instrumentation collector on simulated hook calls.

use super::*;

/// Functions: 0 main [0x100,0x200), 1 foo [0x200,0x300), 2 enter hook
/// [0x300,0x310), 3 exit hook [0x310,0x320), 4 bar [0x400,0x500).
fn collector(shared: bool, excluded: Vec<bool>) -> InstrumentCollector {
    let ranges = [
        (0x100, 0x200),
        (0x200, 0x300),
        (0x300, 0x310),
        (0x310, 0x320),
        (0x400, 0x500),
    ];
    let starts: Vec<u64> = ranges.iter().map(|r| r.0).collect();
    let map = FunctionMap::new(&ranges, &starts);
    let exit = if shared { 0x300 } else { 0x310 };
    InstrumentCollector::new(
        map,
        InstrumentConfig {
            hooks: HookAddresses {
                enter: Some(0x300),
                exit: Some(exit),
                mcount: Vec::new(),
            },
            starts,
            excluded,
            unit: 0,
            rv64: true,
        },
    )
}

/// The jump `kind` at `pc` to `target`, the `t`-th instruction.
fn jump(c: &mut InstrumentCollector, kind: JumpKind, pc: u64, target: u64, t: u64, sp: u64) {
    let j = Jump {
        block: fwprof_sim::BlockId(0),
        kind,
        pc,
        ret: pc + 4,
        target,
        instret: t,
        sp,
    };
    fwprof_sim::Hooks::on_jump(c, &j);
}

/// A simulated run: `t` is the instruction count.
struct Run<'a> {
    c: &'a mut InstrumentCollector,
    t: u64,
    exit: u64,
}

impl Run<'_> {
    fn call(&mut self, pc: u64, target: u64, a0: u64, a1: u64, sp: u64) {
        self.t += 1;
        fwprof_sim::Hooks::on_call_args(self.c, target, a0, a1);
        jump(self.c, JumpKind::Call, pc, target, self.t, sp);
    }
    fn ret(&mut self, target: u64, sp: u64) {
        self.t += 1;
        jump(self.c, JumpKind::Return, target, target, self.t, sp);
    }
    fn run(&mut self, n: u64) {
        self.t += n;
    }
    /// A hook body of `n` instructions plus its `ret`.
    fn hook(&mut self, pc: u64, target: u64, this_fn: u64, site: u64, sp: u64, n: u64) {
        self.call(pc, target, this_fn, site, sp);
        self.run(n);
        self.ret(pc + 4, sp);
    }
    /// An instrumented function at `f` called from `site`: prologue
    /// of `p` instructions (with the entry-hook call), `body`, exit
    /// call, epilogue of `e` (with the `ret`).
    fn func(&mut self, site: u64, f: u64, p: u64, body: &mut dyn FnMut(&mut Run), e: u64) {
        let sp = 0x1000 - (f >> 4);
        self.call(site, f, 0, 0, 0x1000);
        self.run(p - 1);
        let exit = self.exit;
        self.hook(f + 8, 0x300, f, site + 4, sp, 3);
        body(self);
        self.hook(f + 40, exit, f, site + 4, sp, 3);
        self.run(e - 1);
        self.ret(site + 4, 0x1000);
    }
}

fn leaf_run(shared: bool, excluded: Vec<bool>) -> InstrumentData {
    let mut c = collector(shared, excluded);
    let exit = if shared { 0x300 } else { 0x310 };
    let mut r = Run {
        c: &mut c,
        t: 0,
        exit,
    };
    r.func(
        0x50,
        0x100,
        5,
        &mut |r: &mut Run| {
            for _ in 0..10 {
                r.run(2);
                r.func(0x120, 0x200, 4, &mut |r: &mut Run| r.run(6), 3);
            }
            r.run(7);
        },
        4,
    );
    let t = r.t;
    c.finish(t)
}

#[test]
fn compensation_recovers_each_functions_own_instructions() {
    for shared in [false, true] {
        let d = leaf_run(shared, vec![]);
        assert_eq!(d.kind, Some(HookKind::CygProfile));
        // 22 hook calls of 4 instructions each (3 + ret).
        assert_eq!((d.hook_calls, d.hook_total[0]), (22, 88));
        let foo = &d.functions[1];
        assert_eq!((foo.calls, foo.entered), (10, 10));
        // Own instructions: prologue 4 (incl. call), body 6 + exit call
        // 1, epilogue 3 (incl. ret) = 14 per call.
        assert_eq!(foo.self_compensated[0], 140, "shared {shared}");
        assert_eq!(foo.total_compensated[0], 140);
        // Raw: entry hook body (4) + body 6 + exit call 1 = 11 per call.
        assert_eq!((foo.min, foo.max, foo.total[0]), (11, 11, 110));
        assert_eq!(foo.histogram, vec![0, 0, 0, 10]);
        let main = &d.functions[0];
        // main: prologue 5, 10 x (2 + 1 call) after the entry call,
        // 7, exit call 1, epilogue 4.
        assert_eq!(
            main.self_compensated[0],
            5 + 30 + 7 + 1 + 4,
            "shared {shared}"
        );
        assert_eq!(main.inclusive[0], 47 + 140);
        assert_eq!(d.totals[0], 47 + 140);
        assert_eq!(
            (d.unmeasured_boundaries, d.unmatched_exits, d.abandoned),
            (0, 0, 0)
        );
    }
}

#[test]
fn excluded_functions_count_in_their_caller() {
    let d = leaf_run(false, vec![false, true]);
    assert_eq!(d.functions[1].entered, 0);
    // foo's own 14 instructions per call move to main; hooks still go.
    assert_eq!(d.functions[0].self_compensated[0], 47 + 140);
    assert_eq!(d.hook_calls, 22);
}

#[test]
fn an_exit_pops_to_the_matching_activation() {
    let mut c = collector(false, vec![]);
    let mut r = Run {
        c: &mut c,
        t: 0,
        exit: 0x310,
    };
    r.call(0x50, 0x100, 0, 0, 0x1000);
    r.hook(0x108, 0x300, 0x100, 0x54, 0xff0, 1);
    r.call(0x120, 0x200, 0, 0, 0xff0);
    r.hook(0x208, 0x300, 0x200, 0x124, 0xfe0, 1);
    // foo never exits (longjmp); main's exit closes both.
    r.hook(0x140, 0x310, 0x100, 0x54, 0xff0, 1);
    // An exit of a function with no activation is ignored.
    r.hook(0x140, 0x310, 0x400, 0x54, 0xff0, 1);
    let t = r.t;
    let d = c.finish(t);
    assert_eq!((d.functions[0].calls, d.functions[1].calls), (1, 0));
    assert_eq!((d.abandoned, d.unmatched_exits), (1, 1));
    assert_eq!(d.functions[1].entered, 1);
}

#[test]
fn mcount_activations_end_at_their_return() {
    let ranges = [(0x100, 0x200), (0x200, 0x300), (0x300, 0x310)];
    let starts: Vec<u64> = ranges.iter().map(|r| r.0).collect();
    let map = FunctionMap::new(&ranges, &starts);
    let mut c = InstrumentCollector::new(
        map,
        InstrumentConfig {
            hooks: HookAddresses {
                enter: None,
                exit: None,
                mcount: vec![0x300],
            },
            starts,
            excluded: vec![],
            unit: 0,
            rv64: true,
        },
    );
    let mut r = Run {
        c: &mut c,
        t: 0,
        exit: 0,
    };
    r.call(0x50, 0x100, 0, 0, 0x1000);
    r.run(2);
    r.hook(0x10c, 0x300, 0x54, 0, 0xff0, 5);
    for _ in 0..3 {
        r.call(0x120, 0x200, 0, 0, 0xff0);
        r.run(3);
        r.hook(0x20c, 0x300, 0x124, 0, 0xfe0, 5);
        r.run(4);
        r.ret(0x124, 0xff0);
    }
    r.ret(0x54, 0x1000);
    let t = r.t;
    let d = c.finish(t);
    assert_eq!(d.kind, Some(HookKind::Mcount));
    let foo = &d.functions[1];
    assert_eq!((foo.calls, foo.min, foo.max), (3, 11, 11));
    // Own: prologue 3 + mcount call 1 + 4 + ret 1 = 9 per call.
    assert_eq!(foo.self_compensated[0], 27);
    // main: 2 + call 1 (prologue), 3 calls, ret.
    assert_eq!(d.functions[0].self_compensated[0], 3 + 3 + 1);
}

#[test]
fn mcount_tail_call_chains_end_together() {
    let ranges = [(0x100, 0x200), (0x200, 0x300), (0x300, 0x310)];
    let starts: Vec<u64> = ranges.iter().map(|r| r.0).collect();
    let map = FunctionMap::new(&ranges, &starts);
    let mut c = InstrumentCollector::new(
        map,
        InstrumentConfig {
            hooks: HookAddresses {
                enter: None,
                exit: None,
                mcount: vec![0x300],
            },
            starts,
            excluded: vec![],
            unit: 0,
            rv64: true,
        },
    );
    let mut r = Run {
        c: &mut c,
        t: 0,
        exit: 0,
    };
    // f and g tail-call each other 50 times; every _mcount sees the
    // same return address, 0x54.
    r.call(0x50, 0x100, 0, 0, 0x1000);
    for _ in 0..50 {
        r.hook(0x108, 0x300, 0x54, 0, 0xff0, 1);
        r.run(1);
        r.t += 1;
        jump(r.c, JumpKind::Jump, 0x110, 0x200, r.t, 0x1000);
        r.hook(0x208, 0x300, 0x54, 0, 0xff0, 1);
        r.run(1);
        r.t += 1;
        jump(r.c, JumpKind::Jump, 0x210, 0x100, r.t, 0x1000);
    }
    r.hook(0x108, 0x300, 0x54, 0, 0xff0, 1);
    r.ret(0x54, 0x1000);
    let t = r.t;
    let d = c.finish(t);
    assert_eq!((d.functions[0].calls, d.functions[1].calls), (51, 50));
    assert_eq!((d.open_at_end, d.abandoned), (0, 0));
    // Each activation's own code: the jump into it, the mcount call,
    // one instruction and the jump out (or the final ret).
    assert_eq!(d.functions[1].self_compensated[0], 50 * 3);
    assert_eq!(d.functions[0].self_compensated[0], 50 * 3 + 2);
}

#[test]
fn buckets_are_log2() {
    assert_eq!(
        [0, 1, 2, 3, 4, 7, 8, 1023, 1024].map(bucket),
        [0, 0, 1, 1, 2, 2, 3, 9, 10]
    );
}

#[test]
fn a_signal_handler_is_a_context_closed_by_siglongjmp() {
    // main runs foo; a signal interrupts foo (sp 0x0f00); its handler is
    // bar (instrumented) on a frame below; bar siglongjmps to main: a
    // return with main's sp (0x1000). Then main calls foo again, which must
    // not hang under the signal root.
    let mut c = collector(false, vec![]);
    let mut r = Run {
        c: &mut c,
        t: 0,
        exit: 0x310,
    };
    r.func(
        0x50,
        0x100,
        5,
        &mut |r: &mut Run| {
            r.func(0x120, 0x200, 4, &mut |r: &mut Run| r.run(3), 3);
            r.t += 1;
            let signal = fwprof_sim::SignalDelivery {
                signo: 11,
                pc: 0x220,
                sp: 0x0f00,
                handler: 0x400,
                frame: 0x0800,
                alt_stack: None,
                instret: r.t,
            };
            fwprof_sim::Hooks::on_signal(r.c, &signal);
            // bar's prologue with its entry hook, its body, then the
            // siglongjmp: a return into main with main's sp.
            r.call(0x700, 0x400, 0, 0, 0x0800);
            r.run(2);
            r.hook(0x408, 0x300, 0x400, 0x704, 0x07f0, 3);
            r.run(10);
            r.ret(0x130, 0x1000);
            r.func(0x140, 0x200, 4, &mut |r: &mut Run| r.run(3), 3);
        },
        4,
    );
    let t = r.t;
    let d = c.finish(t);
    let &[(11, root)] = d.map.signal_roots() else {
        panic!("{:?}", d.map.signal_roots())
    };
    let ctx = |f: u32| d.contexts.iter().filter(move |c| c.function == f);
    // bar runs in one context, under the signal root, a root of the tree.
    assert!(ctx(root).all(|c| c.parent.is_none()));
    let bar: Vec<_> = ctx(4).collect();
    assert_eq!(bar.len(), 1);
    assert_eq!(d.contexts[bar[0].parent.unwrap() as usize].function, root);
    // foo's two calls are both under main, none under the root.
    assert!(ctx(1).all(|c| d.contexts[c.parent.unwrap() as usize].function == 0));
    assert_eq!(ctx(1).map(|c| c.calls).sum::<u64>(), 2);
    assert!(d.trap_causes.is_empty(), "a signal is not a trap");
}
