//! Tests of Linux signal contexts: the call stack driven directly (a
//! handler returning through the sigreturn trampoline, `siglongjmp` out of
//! it, an alternate stack above the main one), the exact collector through
//! its hooks, and the sampler's tracker.

use fwprof_isa::{decode, Inst, Xlen};
use fwprof_sim::{
    BlockId, CodeContext, Hooks, Jump, JumpKind, Privilege, SignalDelivery, SignalReturn,
};

use crate::{CallStack, ContextStats, ExactCollector, FunctionMap, SignalStack, TrapTracker};

/// Functions: 0 main, 1 victim, 2 handler, 3 the sigreturn trampoline,
/// 4 the `[signal: SIGSEGV]` root.
const MAIN: u32 = 0;
const VICTIM: u32 = 1;
const HANDLER: u32 = 2;
const TRAMPOLINE: u32 = 3;
const SEGV: u32 = 4;

fn find(c: &[ContextStats], parent: Option<u32>, function: u32) -> usize {
    c.iter()
        .position(|x| x.parent == parent && x.function == function)
        .unwrap_or_else(|| panic!("no context {function} under {parent:?}"))
}

fn main_stack(sp: u64) -> SignalStack {
    SignalStack { sp, alt: None }
}

#[test]
fn a_handler_returns_through_the_trampoline_and_rt_sigreturn() {
    // main (sp 1000) calls victim at 5 (victim's sp 960); victim faults at
    // 10; the handler runs on a frame below (sp 100) until its ret at 16,
    // to the trampoline, which runs 2 (the ecall at 18).
    let mut cs = CallStack::new();
    cs.enter_root(MAIN, 1000, 0);
    cs.call(MAIN, VICTIM, 0x10, 0x14, 1000, 5);
    cs.enter_signal(SEGV, 0x208, main_stack(960), 10);
    cs.enter_handler(HANDLER, 100, 10);
    // The handler's ret to the trampoline matches nothing: resync by sp
    // leaves the signal context open.
    cs.ret(0x9000, 100, 16);
    assert_eq!((cs.trap_level(), cs.at_trap_root()), (1, true));
    cs.enter_handler(TRAMPOLINE, 100, 16);
    assert_eq!(cs.trap_return(18), Some(0x208));
    assert_eq!(cs.current(), Some(VICTIM));
    cs.ret(0x14, 1000, 20);
    let done = cs.finish_with_extra(22);
    let c = &done.contexts;
    let segv = find(c, None, SEGV);
    let handler = find(c, Some(segv as u32), HANDLER);
    assert_eq!(c[handler].self_cost, 6);
    assert_eq!(c[find(c, Some(segv as u32), TRAMPOLINE)].self_cost, 2);
    // victim's inclusive cost leaves the signal context out.
    assert_eq!(done.functions[VICTIM as usize].inclusive, 15 - 8);
    assert_eq!(done.functions[SEGV as usize].inclusive, 8);
}

#[test]
fn siglongjmp_out_of_the_handler_closes_the_context() {
    // As above, but the handler siglongjmps back into main at 16: a return
    // to an address nothing expects, with main's sp.
    let mut cs = CallStack::new();
    cs.enter_root(MAIN, 1000, 0);
    cs.call(MAIN, VICTIM, 0x10, 0x14, 1000, 5);
    cs.enter_signal(SEGV, 0x208, main_stack(960), 10);
    cs.enter_handler(HANDLER, 100, 10);
    cs.call(HANDLER, VICTIM, 0x400, 0x404, 100, 12);
    cs.ret(0x0c, 1000, 16);
    assert_eq!(
        (cs.depth(), cs.trap_level(), cs.current()),
        (1, 0, Some(MAIN))
    );
    // A fault in main itself: the interrupted sp is main's, the one a
    // siglongjmp to main's sigsetjmp restores.
    cs.enter_signal(SEGV, 0x20, main_stack(1000), 18);
    cs.enter_handler(HANDLER, 100, 18);
    cs.ret(0x0c, 1000, 20);
    assert_eq!((cs.depth(), cs.trap_level()), (1, 0));
}

#[test]
fn a_handler_on_an_alternate_stack_above_the_main_one() {
    // The alternate stack (mmap'd) lies above the main stack: the
    // handler's frames have sp 5000..6000, the interrupted sp is 960.
    let alt = SignalStack {
        sp: 960,
        alt: Some((5000, 6000)),
    };
    let mut cs = CallStack::new();
    cs.enter_root(MAIN, 1000, 0);
    cs.call(MAIN, VICTIM, 0x10, 0x14, 1000, 5);
    cs.enter_signal(SEGV, 0x208, alt, 10);
    cs.enter_handler(HANDLER, 5800, 10);
    // Its ret to the trampoline (sp 5800, on the alternate stack) keeps
    // the context, though every frame below has a lower sp.
    cs.ret(0x9000, 5800, 16);
    assert_eq!(
        (cs.depth(), cs.trap_level(), cs.at_trap_root()),
        (3, 1, true)
    );
    assert_eq!(cs.trap_return(18), Some(0x208));
    // A siglongjmp from it to main (sp 1000, off the alternate stack).
    cs.enter_signal(SEGV, 0x208, alt, 20);
    cs.enter_handler(HANDLER, 5800, 20);
    cs.ret(0x0c, 1000, 24);
    assert_eq!(
        (cs.depth(), cs.trap_level(), cs.current()),
        (1, 0, Some(MAIN))
    );
}

fn nops(n: usize) -> Vec<Inst> {
    vec![decode(0x0000_0013, Xlen::Rv64); n]
}

fn block(h: &mut ExactCollector, id: u32, pc: u64, n: usize, executed: u64) {
    let pcs: Vec<u64> = (0..n as u64).map(|i| pc + 4 * i).collect();
    h.on_block_translated(BlockId(id), &pcs, &nops(n));
    h.on_block_exec(BlockId(id), executed);
}

#[test]
fn exact_collector_puts_handlers_under_signal_roots() {
    // main 0x100, victim 0x200, handler 0x300; the trampoline page at
    // 0x9000 has no symbol.
    let map = FunctionMap::new(
        &[(0x100, 0x200), (0x200, 0x300), (0x300, 0x400)],
        &[0x100, 0x200, 0x300],
    );
    let mut h = ExactCollector::new(map, 0x100, 1000);
    h.on_code_context(CodeContext {
        privilege: Privilege::User,
        space: 0,
    });
    block(&mut h, 0, 0x100, 3, 0);
    let call = Jump {
        block: BlockId(0),
        kind: JumpKind::Call,
        pc: 0x108,
        ret: 0x10c,
        target: 0x200,
        instret: 3,
        sp: 1000,
    };
    h.on_jump(&call);
    // victim: 2 instructions, the second faults (cut after 2).
    block(&mut h, 1, 0x200, 4, 3);
    h.on_block_cut(BlockId(1), 2);
    h.on_signal(&SignalDelivery {
        signo: 11,
        pc: 0x204,
        sp: 1000,
        handler: 0x300,
        frame: 100,
        alt_stack: None,
        instret: 5,
    });
    // The handler: 5 instructions, the last returns to the trampoline.
    block(&mut h, 2, 0x300, 5, 5);
    h.on_jump(&Jump {
        block: BlockId(2),
        kind: JumpKind::Return,
        pc: 0x310,
        ret: 0x314,
        target: 0x9000,
        instret: 10,
        sp: 100,
    });
    block(&mut h, 3, 0x9000, 2, 10);
    h.on_signal_return(&SignalReturn {
        pc: 0x9004,
        target: 0x208,
        sp: 1000,
        instret: 12,
    });
    // victim resumes past the fault and returns.
    block(&mut h, 4, 0x208, 2, 12);
    let ret = Jump {
        block: BlockId(4),
        kind: JumpKind::Return,
        pc: 0x20c,
        ret: 0x210,
        target: 0x10c,
        instret: 14,
        sp: 1000,
    };
    h.on_jump(&ret);
    block(&mut h, 5, 0x10c, 1, 14);
    let d = h.finish(15);
    assert_eq!(d.total, 15);
    let &[(11, root)] = d.map.signal_roots() else {
        panic!("{:?}", d.map.signal_roots())
    };
    assert!(d.trap_causes.is_empty(), "a signal is not a trap");
    let calls = |caller: Option<u32>, callee: u32| {
        d.arcs
            .iter()
            .filter(|a| a.caller == caller && a.callee == callee)
            .map(|a| a.calls)
            .sum::<u64>()
    };
    assert_eq!(calls(None, root), 1);
    assert_eq!(calls(Some(root), 2), 1);
    assert_eq!(calls(Some(1), 2), 0);
    assert_eq!(d.functions[1].calls, 1);
    // victim: its own 2 + 2; the handler's 5 and the trampoline's 2 are
    // the signal context's.
    assert_eq!(d.functions[1].inclusive, 4);
    assert_eq!(d.functions[root as usize].inclusive, 7);
    assert_eq!(d.functions[2].inclusive, 5);
}

#[test]
fn the_sampler_tracker_sees_signal_contexts_close_by_sigreturn_or_by_sp() {
    let mut t = TrapTracker::new();
    let s = SignalDelivery {
        signo: 14,
        pc: 0x204,
        sp: 1000,
        handler: 0x300,
        frame: 100,
        alt_stack: None,
        instret: 5,
    };
    t.on_signal(&s);
    assert_eq!(t.open_at(100).len(), 1, "in the handler");
    assert_eq!(t.open_at(1000).len(), 0, "siglongjmp'd out");
    t.on_signal_return(&SignalReturn {
        pc: 0x9004,
        target: 0x204,
        sp: 1000,
        instret: 9,
    });
    assert!(t.open().is_empty());
    // A handler on an alternate stack above: open while sp is on it.
    let alt = SignalDelivery {
        alt_stack: Some((5000, 6000)),
        frame: 5800,
        ..s
    };
    t.on_signal(&alt);
    assert_eq!(t.open_at(5700).len(), 1);
    assert_eq!(t.open_at(1000).len(), 0);
    assert_eq!(t.roots(), &[crate::RootKind::Signal(14)]);
}
