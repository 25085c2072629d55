//! Tests of the call stack without traps.

use super::*;

// Functions: 0 = main, 1 = f, 2 = g.
#[test]
fn call_and_return() {
    let mut cs = CallStack::new();
    cs.enter_root(0, 1000, 0);
    // main executes 5 instructions, the 5th a call at 0x10 to f.
    cs.call(0, 1, 0x10, 0x14, 1000, 5);
    // f executes 3 instructions, the 3rd a ret.
    cs.ret(0x14, 1000, 8);
    let (f, a) = cs.finish(10);
    assert_eq!(
        f[0],
        FunctionStats {
            calls: 1,
            inclusive: 10
        }
    );
    assert_eq!(
        f[1],
        FunctionStats {
            calls: 1,
            inclusive: 3
        }
    );
    assert_eq!(a.len(), 2);
    assert_eq!(
        a[1],
        ArcStats {
            caller: Some(0),
            callee: 1,
            call_site: 0x10,
            tail: false,
            calls: 1,
            inclusive: 3
        }
    );
}

#[test]
fn recursion_not_counted_twice() {
    let mut cs = CallStack::new();
    cs.enter_root(0, 1000, 0);
    cs.call(0, 1, 0x10, 0x14, 1000, 1); // main→f
    cs.call(1, 1, 0x20, 0x24, 990, 3); // f→f
    cs.call(1, 1, 0x20, 0x24, 980, 5); // f→f
    cs.ret(0x24, 980, 7);
    cs.ret(0x24, 990, 8);
    cs.ret(0x14, 1000, 10);
    let (f, a) = cs.finish(12);
    assert_eq!(f[1].calls, 3);
    assert_eq!(f[1].inclusive, 9);
    let rec = a.iter().find(|x| x.caller == Some(1)).unwrap();
    assert_eq!(rec.calls, 2);
    assert_eq!(rec.inclusive, 5); // outermost f→f activation: 3..8
}

#[test]
fn tail_call_ends_both() {
    let mut cs = CallStack::new();
    cs.enter_root(0, 1000, 0);
    cs.call(0, 1, 0x10, 0x14, 1000, 2); // main→f
    cs.tail_call(1, 2, 0x30, 1000, 4); // f tail-jumps to g
    cs.ret(0x14, 1000, 9); // g returns to main
    assert_eq!(cs.depth(), 1);
    let (f, a) = cs.finish(10);
    assert_eq!(f[1].inclusive, 7);
    assert_eq!(f[2].inclusive, 5);
    let t = a.iter().find(|x| x.tail).unwrap();
    assert_eq!(
        (t.caller, t.callee, t.call_site, t.calls),
        (Some(1), 2, 0x30, 1)
    );
}

#[test]
fn longjmp_resyncs_by_sp() {
    let mut cs = CallStack::new();
    cs.enter_root(0, 1000, 0);
    cs.call(0, 1, 0x10, 0x14, 1000, 1); // main→f (f's frame below 1000)
    cs.call(1, 2, 0x20, 0x24, 960, 2); // f→g
    cs.call(2, 2, 0x40, 0x44, 900, 3); // g→g
                                       // longjmp: `ret` to a target nobody expects, sp back to f's level 960.
    cs.ret(0x28, 960, 6);
    assert_eq!(cs.current(), Some(1));
    let (f, _) = cs.finish(8);
    assert_eq!(f[2].inclusive, 4);
}

#[test]
fn t0_link_and_nonlocal_pop() {
    // A call through t0 (millicode) returns with `jr t0`: same mechanics.
    let mut cs = CallStack::new();
    cs.enter_root(0, 1000, 0);
    cs.call(0, 1, 0x10, 0x14, 1000, 1);
    cs.call(1, 2, 0x50, 0x54, 990, 2);
    // Return straight to main's return address pops g and f.
    cs.ret(0x14, 1000, 5);
    assert_eq!(cs.depth(), 1);
}

#[test]
fn deep_recursion_counts_each_activation() {
    // main (function 0) calls f (1), which recurses at the same call
    // site until n activations of f are on the stack (a million: the
    // shadow stack and the context tree must stay exact at that depth).
    // Each activation executes one instruction before its call and one
    // after its callee returns (the innermost one, then returns); main
    // one before and one after. Activation k (0 = outermost) runs from
    // k+1 to 2n-k, so its inclusive count is 2n-2k-1.
    let mut cs = CallStack::new();
    cs.enter_root(0, u64::MAX, 0);
    let n = 1_000_000u64;
    for i in 0..n {
        cs.call(
            if i == 0 { 0 } else { 1 },
            1,
            0x20,
            0x24,
            u64::MAX - 16 * (i + 1),
            i + 1,
        );
    }
    assert_eq!(cs.depth() as u64, n + 1);
    for i in 0..n {
        cs.ret(0x24, u64::MAX - 16 * (n - i), n + i + 1);
    }
    assert_eq!(cs.depth(), 1);
    let done = cs.finish_with_extra(2 * n + 1);
    let stats = |calls, inclusive| FunctionStats { calls, inclusive };
    assert_eq!(
        done.functions,
        vec![stats(1, 2 * n + 1), stats(n, 2 * n - 1)]
    );
    let arc = |caller, callee, call_site, calls, inclusive| ArcStats {
        caller,
        callee,
        call_site,
        tail: false,
        calls,
        inclusive,
    };
    assert_eq!(
        done.arcs,
        vec![
            arc(None, 0, 0, 1, 2 * n + 1),
            arc(Some(0), 1, 0x20, 1, 2 * n - 1),
            // f -> f: n-1 calls; its outermost activation is k = 1.
            arc(Some(1), 1, 0x20, n - 1, 2 * n - 3),
        ]
    );
    // One context per depth (the tree is below its cap, nothing folded).
    assert!(!done.contexts_folded);
    assert_eq!(done.contexts.len() as u64, n + 1);
    assert_eq!(
        done.contexts[0],
        ContextStats {
            parent: None,
            function: 0,
            calls: 1,
            self_cost: 2
        }
    );
    for (k, c) in done.contexts.iter().enumerate().skip(1) {
        let self_cost = if k as u64 == n { 1 } else { 2 };
        let want = ContextStats {
            parent: Some(k as u32 - 1),
            function: 1,
            calls: 1,
            self_cost,
        };
        assert_eq!(*c, want, "context {k}");
    }
}

#[test]
fn extra_events_are_inclusive_like_instructions() {
    // One extra event (say cycles): main runs 5 instructions / 20
    // cycles, calls f, f runs 3 / 30, recursion f -> f runs 2 / 7.
    let mut cs = CallStack::with_extra_events(1);
    cs.set_clock(&[0]);
    cs.enter_root(0, 1000, 0);
    cs.set_clock(&[20]);
    cs.call(0, 1, 0x10, 0x14, 1000, 5);
    cs.set_clock(&[40]);
    cs.call(1, 1, 0x30, 0x34, 990, 7);
    cs.set_clock(&[47]);
    cs.ret(0x34, 990, 9);
    cs.set_clock(&[57]);
    cs.ret(0x14, 1000, 10);
    cs.set_clock(&[60]);
    let done = cs.finish_with_extra(11);
    let (f, a, fx, ax) = (
        done.functions,
        done.arcs,
        done.functions_extra,
        done.arcs_extra,
    );
    assert_eq!((f[1].inclusive, fx[1]), (5, 37));
    assert_eq!(fx[0], 60);
    // Arcs: root, main->f, f->f (recursive: its own outermost activation).
    assert_eq!(a.len(), 3);
    assert_eq!(ax, vec![60, 37, 7]);
}

#[test]
fn contexts_split_a_function_by_its_callers() {
    // main calls f directly and through g; f's self cost is kept apart
    // per path: main;f and main;g;f. Extra event: 10 per instruction.
    let mut cs = CallStack::with_extra_events(1);
    cs.enter_root(0, 1000, 0);
    cs.set_clock(&[20]);
    cs.call(0, 1, 0x10, 0x14, 1000, 2); // main runs 2
    cs.set_clock(&[50]);
    cs.ret(0x14, 1000, 5); // f runs 3
    cs.set_clock(&[60]);
    cs.call(0, 2, 0x18, 0x1c, 1000, 6); // main runs 1 more
    cs.set_clock(&[70]);
    cs.call(2, 1, 0x40, 0x44, 990, 7); // g runs 1
    cs.set_clock(&[110]);
    cs.ret(0x44, 990, 11); // f runs 4
    cs.set_clock(&[120]);
    cs.ret(0x1c, 1000, 12); // g runs 1 more
    cs.set_clock(&[130]);
    let done = cs.finish_with_extra(13); // main runs 1 more
    let c = &done.contexts;
    assert_eq!(c.len(), 4);
    let find = |parent: Option<u32>, function: u32| {
        c.iter()
            .position(|x| x.parent == parent && x.function == function)
            .unwrap()
    };
    let main = find(None, 0);
    let f1 = find(Some(main as u32), 1);
    let g = find(Some(main as u32), 2);
    let f2 = find(Some(g as u32), 1);
    assert_eq!(c[main].self_cost, 4);
    assert_eq!((c[f1].self_cost, c[f1].calls), (3, 1));
    assert_eq!((c[g].self_cost, c[g].calls), (2, 1));
    assert_eq!((c[f2].self_cost, c[f2].calls), (4, 1));
    let x = &done.contexts_extra;
    assert_eq!((x[main], x[f1], x[g], x[f2]), (40, 30, 20, 40));
    assert!(c
        .iter()
        .all(|x| x.parent.is_none_or(|p| (p as usize) < c.len())));
    assert!(!done.contexts_folded);
}

/// The reset ROM (function 2) runs 6 instructions and jumps to `_start`
/// (function 0), which calls f (1): `_start` becomes the root, called
/// once from `<spontaneous>`; no arc from the ROM, whose inclusive cost is
/// its own 6 instructions.
#[test]
fn boot_code_hands_over_to_a_new_root() {
    let mut cs = CallStack::new();
    cs.enter_root(2, 0, 0);
    cs.hand_over(0, 0, 6);
    assert_eq!(cs.depth(), 1);
    assert_eq!(cs.current(), Some(0));
    cs.call(0, 1, 0x10, 0x14, 1000, 8);
    cs.ret(0x14, 1000, 10);
    let f = cs.finish_with_extra(12);
    assert_eq!(f.functions[2].inclusive, 6);
    assert_eq!(f.functions[0].calls, 1);
    assert_eq!(f.functions[0].inclusive, 6);
    assert!(f.arcs.iter().all(|a| a.caller != Some(2)));
    let start = f.arcs.iter().find(|a| a.callee == 0).unwrap();
    assert_eq!(start.caller, None);
    assert_eq!(start.calls, 1);
}

/// Two strands (harts or threads) interleaved: each has its own stack,
/// counts its own instructions, and roots of its own; the extra events
/// (one clock for the whole run) of a strand's activations leave out what
/// ran on the other strand meanwhile.
#[test]
fn strands_keep_their_own_stacks_roots_and_clocks() {
    let mut cs = CallStack::with_extra_events(1);
    // Strand 0: main (0) calls f (1) at its instruction 2.
    cs.set_clock(&[0]);
    cs.enter_root(0, 1000, 0);
    cs.set_clock(&[20]);
    cs.call(0, 1, 0x10, 0x14, 990, 2);
    // Strand 0 ran 5 instructions (50 cycles) when strand 1 starts.
    cs.set_clock(&[50]);
    cs.switch_strand(1, 5, 0, 3);
    cs.enter_root(0, 2000, 0);
    cs.set_clock(&[60]);
    cs.call(0, 2, 0x10, 0x14, 1990, 1);
    // Strand 1 ran 4 instructions (70 cycles) in g when strand 0 resumes.
    cs.set_clock(&[120]);
    cs.switch_strand(0, 4, 5, 3);
    // f returns after 3 more instructions of strand 0 (30 cycles).
    cs.set_clock(&[150]);
    cs.ret(0x14, 1000, 8);
    cs.set_clock(&[160]);
    let done = cs.finish_with_extra(9);
    // f: instructions 2..8 of strand 0 = 6; cycles 20..50 and 120..150.
    assert_eq!(done.functions[1].inclusive, 6);
    assert_eq!(done.functions_extra[1], 60);
    // g: strand 1's instructions 1..4 = 3, open at the end (closed at 4).
    assert_eq!(done.functions[2].inclusive, 3);
    // main: 9 on strand 0 plus 4 on strand 1.
    assert_eq!(done.functions[0].inclusive, 13);
    // Two roots, one per strand, each context in its strand.
    assert_eq!(done.strands, vec![0, 1]);
    let roots: Vec<usize> = (0..done.contexts.len())
        .filter(|&i| done.contexts[i].parent.is_none())
        .collect();
    assert_eq!(roots.len(), 2);
    for (i, c) in done.contexts.iter().enumerate() {
        let want = if c.function == 2 || (c.parent.is_none() && i > 0) {
            1
        } else {
            done.context_strands[c.parent.map_or(i, |p| p as usize)]
        };
        assert_eq!(done.context_strands[i], want, "context {i}");
    }
    let self_sum: u64 = done.contexts.iter().map(|c| c.self_cost).sum();
    assert_eq!(self_sum, 9 + 4, "the strands' own counts");
}

#[test]
fn calls_with_memos_count_as_calls_without() {
    // One stack takes every call with `call`, the other with `call_memo`
    // and one memo per call site; a pseudo-random walk of calls from 8
    // sites (each with its own caller and callee), returns to the top and
    // to deeper frames, tail calls and two strands taking turns makes the
    // memos hit and miss (another parent context, another strand).
    let site = |k: u64| (k as u32 % 3, (k as u32 + 1) % 5, 0x100 + 8 * k);
    let mut plain = CallStack::new();
    let mut memo = CallStack::new();
    let mut memos = [CallMemo::EMPTY; 8];
    let (mut now, mut other_now) = ([0u64; 2], 0usize);
    for cs in [&mut plain, &mut memo] {
        cs.enter_root(0, 0x8000, 0);
    }
    let mut seed = 0x2545_f491_4f6c_dd1du64;
    let mut depth = [0u64; 2];
    let mut strand = 0usize;
    let mut strand_started = [true, false];
    for _ in 0..20_000 {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        let r = seed % 100;
        now[strand] += 1 + seed % 7;
        let t = now[strand];
        let sp = 0x8000 - 16 * depth[strand];
        match r {
            0..=44 if depth[strand] < 40 => {
                let k = (seed >> 8) % 8;
                let (caller, callee, at) = site(k);
                plain.call(caller, callee, at, at + 4, sp, t);
                memo.call_memo(caller, callee, at, at + 4, sp, t, &mut memos[k as usize]);
                depth[strand] += 1;
            }
            45..=84 if depth[strand] > 0 => {
                // The top's return address: the site it was called from.
                let top = plain.frames.last().map_or(u64::MAX, |f| f.ret);
                plain.ret(top, sp + 16, t);
                memo.ret(top, sp + 16, t);
                depth[strand] = (plain.frames.len() as u64).saturating_sub(1);
            }
            85..=89 if depth[strand] > 2 => {
                // A non-local exit: back to the frame two below the top.
                let i = plain.frames.len() - 3;
                let (target, to_sp) = (plain.frames[i].ret, plain.frames[i].sp);
                plain.ret(target, to_sp + 16, t);
                memo.ret(target, to_sp + 16, t);
                depth[strand] = (plain.frames.len() as u64).saturating_sub(1);
            }
            90..=94 if depth[strand] > 0 => {
                let (caller, callee, at) = site((seed >> 8) % 8);
                plain.tail_call(caller, callee, at, sp, t);
                memo.tail_call(caller, callee, at, sp, t);
            }
            95..=99 => {
                let to = 1 - strand;
                let (from_now, to_now) = (now[strand], now[to]);
                for cs in [&mut plain, &mut memo] {
                    cs.switch_strand(to as u32, from_now, to_now, 3);
                    if !strand_started[to] {
                        cs.enter_root(0, 0x8000, to_now);
                    }
                }
                strand_started[to] = true;
                strand = to;
                other_now += 1;
            }
            _ => {}
        }
        assert_eq!(plain.frames.len(), memo.frames.len());
    }
    assert!(other_now > 100, "the strands took turns");
    assert!(
        memos.iter().all(|m| *m != CallMemo::EMPTY),
        "every site was called"
    );
    let (a, b) = (
        plain.finish_with_extra(now[strand]),
        memo.finish_with_extra(now[strand]),
    );
    assert_eq!(a.functions, b.functions);
    assert_eq!(a.arcs, b.arcs);
    assert_eq!(a.contexts, b.contexts);
    assert_eq!(a.context_strands, b.context_strands);
    assert!(
        a.arcs.len() > 8 && a.contexts.len() > 50,
        "{} arcs, {} contexts",
        a.arcs.len(),
        a.contexts.len()
    );
}
