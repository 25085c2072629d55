//! Tests of trap contexts: the call stack driven directly, and the exact
//! collector driven through its hooks as the simulator calls them.

use fwprof_isa::{decode, Inst, Xlen};
use fwprof_sim::{
    BlockId, CodeContext, Hooks, Jump, JumpKind, Latency, Privilege, TrapInfo, TrapReturn,
};

use crate::{CallStack, ContextStats, ExactCollector, FunctionMap, FunctionStats};

/// Functions of the call-stack tests: 0 main, 1 work, 2 handler, 3 the
/// timer trap root, 4 the software trap root, 5 the software handler,
/// 6 another function.
const MAIN: u32 = 0;
const WORK: u32 = 1;
const HANDLER: u32 = 2;
const TIMER: u32 = 3;
const SOFT: u32 = 4;
const SOFT_HANDLER: u32 = 5;
const OTHER: u32 = 6;

fn find(c: &[ContextStats], parent: Option<u32>, function: u32) -> usize {
    c.iter()
        .position(|x| x.parent == parent && x.function == function)
        .unwrap_or_else(|| panic!("no context {function} under {parent:?}"))
}

#[test]
fn an_interrupt_is_not_a_call() {
    // main runs 5 instructions, the 5th calls work; work runs 5 (up to
    // instruction 10), is interrupted; the handler runs 6 (11..16, the
    // mret last); work runs 4 more and returns at 20; main runs 2 more.
    let mut cs = CallStack::new();
    cs.enter_root(MAIN, 1000, 0);
    cs.call(MAIN, WORK, 0x10, 0x14, 1000, 5);
    cs.enter_trap(TIMER, 0x208, 960, 10);
    assert_eq!((cs.trap_level(), cs.at_trap_root()), (1, true));
    cs.enter_handler(HANDLER, 960, 10);
    assert_eq!(cs.trap_return(16), Some(0x208));
    assert_eq!((cs.trap_level(), cs.current()), (0, Some(WORK)));
    cs.ret(0x14, 1000, 20);
    let done = cs.finish_with_extra(22);
    let f = &done.functions;
    let stats = |calls, inclusive| FunctionStats { calls, inclusive };
    // work: one call; its inclusive cost leaves out the handler's 6.
    assert_eq!(f[WORK as usize], stats(1, 15 - 6));
    assert_eq!(f[MAIN as usize], stats(1, 22 - 6));
    assert_eq!(f[TIMER as usize], stats(1, 6));
    assert_eq!(f[HANDLER as usize], stats(1, 6));
    // No arc from work or main to the handler: the root calls it.
    let arcs: Vec<_> = done
        .arcs
        .iter()
        .map(|a| (a.caller, a.callee, a.call_site, a.tail, a.calls))
        .collect();
    assert_eq!(
        arcs,
        vec![
            (None, MAIN, 0, false, 1),
            (Some(MAIN), WORK, 0x10, false, 1),
            (None, TIMER, 0, false, 1),
            (Some(TIMER), HANDLER, 0, false, 1),
        ]
    );
    let c = &done.contexts;
    let main = find(c, None, MAIN);
    let work = find(c, Some(main as u32), WORK);
    let timer = find(c, None, TIMER);
    let handler = find(c, Some(timer as u32), HANDLER);
    assert_eq!(c[main].self_cost, 7);
    assert_eq!(c[work].self_cost, 9);
    assert_eq!((c[timer].self_cost, c[timer].calls), (0, 1));
    assert_eq!(c[handler].self_cost, 6);
}

#[test]
fn nested_traps_nest_and_count_once() {
    // work (called at 5) is interrupted at 10 by the timer; its handler
    // runs 3, is interrupted at 13 by a software interrupt whose handler
    // runs 4 (14..17, mret at 17); the timer handler runs 3 more and mrets
    // at 20; then the timer fires again at 22 inside work, the handler
    // takes 2 (mret at 24); work returns at 27; the run ends at 29.
    let mut cs = CallStack::with_extra_events(1);
    // One extra event: 10 per instruction.
    let at = |cs: &mut CallStack, t: u64| cs.set_clock(&[10 * t]);
    cs.enter_root(MAIN, 1000, 0);
    at(&mut cs, 5);
    cs.call(MAIN, WORK, 0x10, 0x14, 1000, 5);
    at(&mut cs, 10);
    cs.enter_trap(TIMER, 0x208, 960, 10);
    cs.enter_handler(HANDLER, 960, 10);
    at(&mut cs, 13);
    cs.enter_trap(SOFT, 0x304, 900, 13);
    assert_eq!(cs.trap_level(), 2);
    cs.enter_handler(SOFT_HANDLER, 900, 13);
    at(&mut cs, 17);
    assert_eq!(cs.trap_return(17), Some(0x304));
    assert_eq!((cs.trap_level(), cs.current()), (1, Some(HANDLER)));
    at(&mut cs, 20);
    assert_eq!(cs.trap_return(20), Some(0x208));
    at(&mut cs, 22);
    cs.enter_trap(TIMER, 0x20c, 960, 22);
    cs.enter_handler(HANDLER, 960, 22);
    at(&mut cs, 24);
    assert_eq!(cs.trap_return(24), Some(0x20c));
    at(&mut cs, 27);
    cs.ret(0x14, 1000, 27);
    at(&mut cs, 29);
    let done = cs.finish_with_extra(29);
    let f = &done.functions;
    let x = &done.functions_extra;
    // work: 22 instructions on the stack, less 10 and 2 in handlers.
    assert_eq!(
        (f[WORK as usize].calls, f[WORK as usize].inclusive),
        (1, 10)
    );
    assert_eq!(x[WORK as usize], 100);
    assert_eq!(f[MAIN as usize].inclusive, 29 - 12);
    // The timer's contexts: 10 + 2, the nested software one inside.
    assert_eq!(
        (f[TIMER as usize].calls, f[TIMER as usize].inclusive),
        (2, 12)
    );
    assert_eq!(x[TIMER as usize], 120);
    // Its handler leaves out the nested trap's 4.
    assert_eq!(f[HANDLER as usize].inclusive, 6 + 2);
    assert_eq!(x[HANDLER as usize], 80);
    assert_eq!((f[SOFT as usize].calls, f[SOFT as usize].inclusive), (1, 4));
    let c = &done.contexts;
    let timer = find(c, None, TIMER);
    let soft = find(c, Some(timer as u32), SOFT);
    let soft_handler = find(c, Some(soft as u32), SOFT_HANDLER);
    assert_eq!(c[timer].calls, 2);
    assert_eq!((c[soft].calls, c[soft_handler].self_cost), (1, 4));
    // The nested root is called from the enclosing root.
    assert!(done
        .arcs
        .iter()
        .any(|a| a.caller == Some(TIMER) && a.callee == SOFT && a.calls == 1));
    let total: u64 = c.iter().map(|c| c.self_cost).sum();
    assert_eq!(total, 29);
}

#[test]
fn a_trap_of_the_same_cause_inside_its_handler_counts_once() {
    let mut cs = CallStack::new();
    cs.enter_root(MAIN, 1000, 0);
    cs.enter_trap(TIMER, 0x100, 1000, 2);
    cs.enter_handler(HANDLER, 1000, 2);
    cs.enter_trap(TIMER, 0x300, 900, 5);
    cs.enter_handler(HANDLER, 900, 5);
    cs.trap_return(8);
    cs.trap_return(10);
    let done = cs.finish_with_extra(12);
    let f = &done.functions;
    assert_eq!(
        (f[TIMER as usize].calls, f[TIMER as usize].inclusive),
        (2, 8)
    );
    // The handler at level 1 leaves out the level-2 context (3); the one
    // at level 2 is outermost there and counts its 3.
    assert_eq!(f[HANDLER as usize].inclusive, 5 + 3);
    assert_eq!(f[MAIN as usize].inclusive, 12 - 8);
}

#[test]
fn longjmp_out_of_a_handler_resyncs_by_sp() {
    // main (sp 1000) calls f (sp 980 inside it); a trap at 5 with sp 960;
    // the handler calls g at 7 (sp 900); g longjmps to main's level at 9:
    // a `ret` to an address nobody expects with sp back to 1000.
    let mut cs = CallStack::new();
    cs.enter_root(MAIN, 1000, 0);
    cs.call(MAIN, WORK, 0x10, 0x14, 1000, 2);
    cs.enter_trap(TIMER, 0x208, 960, 5);
    cs.enter_handler(HANDLER, 960, 5);
    cs.call(HANDLER, OTHER, 0x300, 0x304, 900, 7);
    cs.ret(0x48, 1000, 9);
    assert_eq!((cs.depth(), cs.trap_level()), (1, 0));
    // A later mret finds no context: a plain return, nothing popped.
    assert_eq!(cs.trap_return(10), None);
    let done = cs.finish_with_extra(12);
    assert_eq!(done.functions[TIMER as usize].inclusive, 4);
    assert_eq!(done.functions[WORK as usize].inclusive, 3);
    assert_eq!(done.functions[MAIN as usize].inclusive, 12 - 4);
}

#[test]
fn a_return_below_the_trap_context_closes_it() {
    // main calls drop (ret 0x14), which enters a lower mode; an ecall from
    // there traps; the handler calls back (ret 0x50), which restores
    // drop's caller's context and returns to 0x14: every activation above
    // main goes, the trap context with them.
    let mut cs = CallStack::new();
    cs.enter_root(MAIN, 1000, 0);
    cs.call(MAIN, WORK, 0x10, 0x14, 1000, 2);
    cs.enter_trap(TIMER, 0x500, 4000, 5);
    cs.enter_handler(HANDLER, 4000, 5);
    cs.call(HANDLER, OTHER, 0x300, 0x50, 3900, 7);
    cs.ret(0x14, 1000, 9);
    assert_eq!(
        (cs.depth(), cs.trap_level(), cs.current()),
        (1, 0, Some(MAIN))
    );
}

#[test]
fn self_cost_is_split_by_privilege() {
    // Starts in M; main runs 4 then enters U (no trap context open); U
    // code runs to 10 and ecalls into an M handler, which runs 5 (the
    // mret at 15); back in U to 20.
    let mut cs = CallStack::new();
    cs.set_privilege(3, 0);
    cs.enter_root(MAIN, 1000, 0);
    cs.set_privilege(0, 4);
    cs.set_privilege(3, 10);
    cs.enter_trap(TIMER, 0x100, 1000, 10);
    cs.enter_handler(HANDLER, 1000, 10);
    cs.trap_return(15);
    cs.set_privilege(0, 15);
    let done = cs.finish_with_extra(20);
    let c = &done.contexts;
    let main = find(c, None, MAIN) as u32;
    let handler = find(c, Some(find(c, None, TIMER) as u32), HANDLER) as u32;
    let split: Vec<_> = done
        .contexts_by_privilege
        .iter()
        .map(|(c, p, n, _)| (*c, *p, *n))
        .collect();
    assert_eq!(split, vec![(main, 0, 11), (main, 3, 4), (handler, 3, 5)]);
}

// The exact collector through its hooks: main at 0x100, work at 0x200,
// the trap entry at 0x300 (functions 0, 1, 2), all `addi x0, x0, 0`
// except where a block ends in a call, return or mret (their kind is in
// the `Jump`, so the encodings need not be those instructions).

fn nops(n: usize) -> Vec<Inst> {
    vec![decode(0x0000_0013, Xlen::Rv64); n]
}

/// Translate and run a block of `n` instructions at `pc` with id `id`
/// after `executed` instructions.
fn block(h: &mut ExactCollector, id: u32, pc: u64, n: usize, executed: u64) {
    let pcs: Vec<u64> = (0..n as u64).map(|i| pc + 4 * i).collect();
    h.on_block_translated(BlockId(id), &pcs, &nops(n));
    h.on_block_exec(BlockId(id), executed);
}

fn jump(id: u32, kind: JumpKind, pc: u64, target: u64, instret: u64) -> Jump {
    Jump {
        block: BlockId(id),
        kind,
        pc,
        ret: pc + 4,
        target,
        instret,
        sp: 1000,
    }
}

#[test]
fn exact_collector_puts_handlers_under_trap_roots() {
    let map = FunctionMap::new(
        &[(0x100, 0x200), (0x200, 0x300), (0x300, 0x400)],
        &[0x100, 0x200, 0x300],
    );
    let mut h = ExactCollector::new(map, 0x100, 1000);
    h.on_code_context(CodeContext {
        privilege: Privilege::Machine,
        space: 0,
    });
    // main: 3 instructions, the last calls work.
    block(&mut h, 0, 0x100, 3, 0);
    h.on_jump(&jump(0, JumpKind::Call, 0x108, 0x200, 3));
    // work: 4 instructions, then the timer interrupt (latency 5
    // instructions, 700 ns) before the next block.
    block(&mut h, 1, 0x200, 4, 3);
    let trap = TrapInfo {
        cause: 7,
        interrupt: true,
        pc: 0x210,
        tval: 0,
        from: Privilege::Machine,
        to: Privilege::Machine,
        handler: 0x300,
        latency: Some(Latency {
            instructions: 5,
            ns: 700,
        }),
    };
    h.on_trap(trap, 7, 1000);
    // The handler: 6 instructions, the last an mret back to 0x210.
    block(&mut h, 2, 0x300, 6, 7);
    h.on_trap_return(&TrapReturn {
        pc: 0x314,
        target: 0x210,
        from: Privilege::Machine,
        to: Privilege::Machine,
        instret: 13,
        sp: 1000,
        space: 0,
    });
    // work resumes: 2 instructions, the last returns to main.
    block(&mut h, 3, 0x210, 2, 13);
    h.on_jump(&jump(3, JumpKind::Return, 0x214, 0x10c, 15));
    block(&mut h, 4, 0x10c, 1, 15);
    let d = h.finish(16);
    assert_eq!(d.total, 16);
    let root = d.trap_causes[0].root;
    assert_eq!(d.map.trap_roots(), &[(7, true, root)]);
    assert_eq!(
        (
            d.trap_causes[0].count,
            d.trap_causes[0].latency_instructions.total
        ),
        (1, 5)
    );
    assert_eq!(d.trap_causes[0].latency_ns.max, 700);
    assert_eq!(d.traps[0].cause, 1 << 63 | 7);
    // main→work: one call (not two), no arc into or out of the handler
    // but from its root.
    let calls = |caller: Option<u32>, callee: u32| {
        d.arcs
            .iter()
            .filter(|a| a.caller == caller && a.callee == callee)
            .map(|a| a.calls)
            .sum::<u64>()
    };
    assert_eq!(calls(Some(0), 1), 1);
    assert_eq!(d.functions[1].calls, 1);
    assert_eq!(calls(Some(1), 2), 0);
    assert_eq!(calls(Some(root), 2), 1);
    assert_eq!(calls(None, root), 1);
    // work: 4 + 2 of its own, the handler's 6 left out.
    assert_eq!(d.functions[1].inclusive, 6);
    assert_eq!(d.functions[root as usize].inclusive, 6);
    assert_eq!(d.functions[2].inclusive, 6);
    assert_eq!(d.functions[0].inclusive, 10);
}

/// The exact collector hears only of direct jumps that may leave their
/// function: to an entry (a tail call), into another function, or to
/// code no function covers.
#[test]
fn exact_collector_wants_only_jumps_that_may_leave_the_function() {
    let map = FunctionMap::new(&[(0x100, 0x200), (0x200, 0x300)], &[0x100, 0x200]);
    let mut h = ExactCollector::new(map, 0x100, 1000);
    h.on_code_context(CodeContext {
        privilege: Privilege::Machine,
        space: 0,
    });
    assert!(!h.wants_direct_jump(0x120, 0x140), "inside main");
    assert!(!h.wants_direct_jump(0x140, 0x104), "back inside main");
    assert!(h.wants_direct_jump(0x120, 0x100), "main's own entry");
    assert!(h.wants_direct_jump(0x120, 0x200), "work's entry");
    assert!(h.wants_direct_jump(0x120, 0x240), "into work");
    assert!(h.wants_direct_jump(0x120, 0x5000), "code of no function");
    // No function was added for the targets asked about.
    assert_eq!(h.finish(0).functions.len(), 2);
}
