//! Several harts (`sim/harts.rs`): turns, `mhartid`, IPIs through the
//! CLINT, `wfi` waking, LR/SC reservations across turns, and a machine on
//! which every hart waits forever.

use crate::test_asm::*;
use crate::{SimError, StopReason};
use fwprof_os::{Environment, LoadedProgram, RunConfig, Target};
use std::sync::atomic::AtomicBool;

/// A simulator of `harts` RV64 harts on fwprof's bare machine (CLINT at
/// 0x200_0000) running `words` from `BASE`, each hart starting there.
fn machine(harts: u32, quantum: u64, words: &[u32]) -> crate::Simulator<Rec> {
    let cfg = RunConfig {
        program: "prog".into(),
        args: vec![],
        env: vec![],
        target: Some(Target::BareMetal),
        ram: (BASE, 0x10000),
        sandbox: Default::default(),
        machine: fwprof_os::MachineConfig {
            harts,
            ..Default::default()
        },
    };
    let env = Environment::new(&cfg, Target::BareMetal, true);
    let prog = LoadedProgram {
        target: Target::BareMetal,
        rv64: true,
        entry: BASE,
        start: BASE,
        sp: 0,
        regs: [0; 32],
    };
    let mut sm = crate::Simulator::new(memory_with(words), &prog, env, Rec::default());
    sm.set_quantum(quantum);
    sm
}

const MHARTID: u32 = 0xF14;
const MIE: u32 = 0x304;
const CLINT_HI20: u32 = 0x2000; // lui: 0x0200_0000

/// `csrr a0, mhartid`; `bnez a0, +off`.
fn dispatch(off: i32) -> [u32; 2] {
    [csr(2, 10, 0, MHARTID), b(1, 10, 0, off)]
}

#[test]
fn harts_take_turns_of_a_quantum_each_with_their_own_mhartid() {
    // Each hart: a1 = mhartid + 1, then count in a2 forever.
    let prog = [
        csr(2, 10, 0, MHARTID),
        addi(11, 10, 1),
        addi(12, 12, 1),
        jal(0, -4),
    ];
    let mut sm = machine(3, 10, &prog);
    assert_eq!(go(&mut sm, 95), StopReason::InstructionLimit);
    let harts: Vec<_> = sm.harts().collect();
    assert_eq!(harts.len(), 3);
    for (i, h) in harts.iter().enumerate() {
        assert_eq!(h.id(), i as u32);
        assert_eq!(h.x(11), i as u64 + 1, "hart {i} read its mhartid");
    }
    // Turns of 10: 0-9 hart 0, 10-19 hart 1, ... 90-94 hart 0 again.
    let executed: Vec<u64> = sm.harts().map(|h| h.executed()).collect();
    assert_eq!(executed, vec![35, 30, 30]);
    assert_eq!(sm.executed(), 95);
    assert_eq!(sm.hart().id(), 0);
    assert_eq!(sm.hart_switches(), 9);
    // Continuing keeps the schedule: the same as one run to 200.
    assert_eq!(go(&mut sm, 200), StopReason::InstructionLimit);
    let mut again = machine(3, 10, &prog);
    assert_eq!(go(&mut again, 200), StopReason::InstructionLimit);
    let a: Vec<u64> = sm.harts().map(|h| h.executed()).collect();
    let b: Vec<u64> = again.harts().map(|h| h.executed()).collect();
    assert_eq!(a, b);
    assert_eq!(a, vec![70, 70, 60]);
}

#[test]
fn an_ipi_through_msip_wakes_a_hart_waiting_in_wfi() {
    let mut prog = Vec::new();
    prog.extend(dispatch(20)); // 0, 4: hart 1 goes to 24
    prog.extend([
        csr(6, 0, 8, MIE),  // 8: csrsi mie, MSIE
        WFI,                // 12
        addi(11, 0, 42),    // 16: a1 = 42 once woken
        jal(0, 0),          // 20
        lui(5, CLINT_HI20), // 24: hart 1: t0 = CLINT
        addi(13, 13, 1),    // 28: a3 += 1 (a delay)
        addi(6, 0, 200),    // 32
        b(4, 13, 6, -8),    // 36: blt a3, t1: loop 200 times
        addi(7, 0, 1),      // 40
        sw(5, 7, 0),        // 44: msip[0] = 1
        jal(0, 0),          // 48
    ]);
    let mut sm = machine(2, 50, &prog);
    assert_eq!(go(&mut sm, 5000), StopReason::InstructionLimit);
    let h0 = sm.harts().next().unwrap();
    assert_eq!(h0.x(11), 42, "hart 0 woke from wfi");
    // It waited while hart 1 counted: it ran only its few instructions
    // and then spun from the moment it woke.
    let h1 = sm.harts().nth(1).unwrap();
    assert_eq!(h1.x(13), 200);
    assert!(h0.idle_ns() > 0, "time passed for the waiting hart");
}

#[test]
fn a_reservation_does_not_survive_the_end_of_a_turn() {
    // Hart 0: t0 = DATA, lr.w t1, then `pad` nops, sc.w t2 = status.
    let lr = amo(0b00010, 2, 6, 5, 0);
    let sc = amo(0b00011, 2, 7, 5, 6);
    let prog = |pad: usize| {
        let mut p = Vec::new();
        // Hart 1 spins at the end.
        let spin = 4 * (5 + pad as i32 + 1);
        p.extend(dispatch(spin - 4));
        p.push(auipc(5, 8)); // t0 = pc + 0x8000: RAM
        p.push(lr);
        p.extend(std::iter::repeat_n(NOP, pad));
        p.push(sc);
        p.push(jal(0, 0));
        p.push(jal(0, 0));
        p
    };
    // The turn (quantum 8) ends after the lr: the sc fails.
    let mut sm = machine(2, 8, &prog(10));
    assert_eq!(go(&mut sm, 200), StopReason::InstructionLimit);
    assert_eq!(sm.harts().next().unwrap().x(7), 1, "sc failed");
    // Within one turn it succeeds.
    let mut sm = machine(2, 100, &prog(10));
    assert_eq!(go(&mut sm, 300), StopReason::InstructionLimit);
    assert_eq!(sm.harts().next().unwrap().x(7), 0, "sc succeeded");
}

#[test]
fn every_hart_waiting_with_nothing_to_wake_it_stops_the_run() {
    let prog = [csr(6, 0, 8, MIE), WFI, jal(0, 0)];
    let mut sm = machine(2, 10, &prog);
    let err = sm.run(1000, &AtomicBool::new(false)).unwrap_err();
    let SimError::Wfi { reason, .. } = err else {
        panic!("{err:?}")
    };
    assert!(reason.contains("every one of the 2 harts"), "{reason}");
    assert!(reason.contains("every other hart waits too"), "{reason}");
}

#[test]
fn waiting_harts_sleep_to_the_first_timer_deadline() {
    // Each hart sets its own mtimecmp = 1000 * (hartid + 1) ticks,
    // enables MTIE, waits, then counts its wake-ups in a1.
    let prog = [
        csr(2, 10, 0, MHARTID),  // 0
        lui(5, CLINT_HI20),      // 4
        slli(6, 10, 3),          // 8: t1 = 8 * hartid
        add(5, 5, 6),            // 12
        lui(6, 4),               // 16: t1 = 0x4000
        add(5, 5, 6),            // 20: t0 = &mtimecmp[hartid]
        addi(7, 10, 1),          // 24: t2 = hartid + 1
        addi(28, 0, 1000),       // 28
        r(0x33, 0, 1, 7, 7, 28), // 32: mul t2, t2, t3
        sd(5, 7, 0),             // 36: mtimecmp = 1000 * (hartid + 1)
        addi(29, 0, 0x80),       // 40
        csr(2, 0, 29, MIE),      // 44: csrrs x0, mie, t4 (MTIE)
        WFI,                     // 48
        addi(11, 11, 1),         // 52
        jal(0, 0),               // 56
    ];
    let mut sm = machine(2, 10, &prog);
    assert_eq!(go(&mut sm, 3000), StopReason::InstructionLimit);
    for h in sm.harts() {
        assert_eq!(h.x(11), 1, "hart {} woke once", h.id());
    }
    // Both slept to their own deadline: hart 1's is 1000 ticks later.
    let idle: Vec<u64> = sm.harts().map(|h| h.idle_ticks()).collect();
    assert!(idle[1] > idle[0] + 900, "{idle:?}");
}
