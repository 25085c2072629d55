//! Linux signals seen from the simulator: a fault delivered to a handler
//! that skips the faulting instruction and returns with `rt_sigreturn`,
//! `ITIMER_REAL` firing at its exact instruction in guest time, and a
//! wait nothing can end.

use crate::test_asm::*;
use crate::tests_env::linux_sim;
use crate::{SimError, StopReason};
use std::sync::atomic::AtomicBool;

// Registers.
const ZERO: u32 = 0;
const T0: u32 = 5;
const T1: u32 = 6;
const T2: u32 = 7;
const S1: u32 = 9;
const A0: u32 = 10;
const A1: u32 = 11;
const A2: u32 = 12;
const A3: u32 = 13;
const A7: u32 = 17;

/// `t1` = DATA + `off` (DATA is 0x8000 above BASE, beyond an `addi`).
fn data_in_t1(off: i32) -> [u32; 4] {
    [auipc(T1, 0), lui(T2, 8), add(T1, T1, T2), addi(T1, T1, off)]
}

#[test]
fn a_fault_runs_the_handler_which_returns_past_it() {
    let mut w = data_in_t1(0x100).to_vec();
    // sigaction: handler at word 25 (BASE + 0x64), flags 0, mask 0.
    w.extend([
        auipc(T0, 0),
        addi(T0, T0, 0x64 - 0x10),
        sd(T1, T0, 0),
        sd(T1, ZERO, 8),
        sd(T1, ZERO, 16),
        addi(A0, ZERO, 11),
        addi(A1, T1, 0),
        addi(A2, ZERO, 0),
        addi(A3, ZERO, 8),
        addi(A7, ZERO, 134), // rt_sigaction(SIGSEGV, act, 0, 8)
        ECALL,
        addi(S1, ZERO, 77),
        ld(A0, ZERO, 0), // 0x40: faults (nothing at 0)
        addi(A0, S1, 0), // 0x44: resumes here
        addi(A7, ZERO, 94),
        ECALL, // exit_group(a0)
    ]);
    while w.len() < 25 {
        w.push(NOP);
    }
    assert_eq!(w.len() * 4, 0x64);
    // The handler: clobber s1, move the frame's pc (uc_mcontext.gregs[0],
    // at uc + 176) past the faulting load, rt_sigreturn.
    w.extend([
        addi(S1, ZERO, 5),
        ld(T0, A2, 176),
        addi(T0, T0, 4),
        sd(A2, T0, 176),
        addi(A7, ZERO, 139),
        ECALL,
    ]);
    let mut sm = linux_sim(&w);
    let stop = go(&mut sm, 1000);
    assert_eq!(stop, StopReason::Exit(77), "s1 restored by rt_sigreturn");
    let h = sm.hooks();
    assert_eq!(h.signals.len(), 1);
    let s = h.signals[0];
    assert_eq!((s.signo, s.pc, s.handler), (11, BASE + 0x40, BASE + 0x64));
    assert_eq!(s.sp, DATA);
    assert_eq!(s.frame, (DATA - 832) & !15);
    assert_eq!(s.alt_stack, None);
    assert_eq!(h.sigreturns.len(), 1);
    let r = h.sigreturns[0];
    assert_eq!(
        (r.pc, r.target, r.sp),
        (BASE + 0x64 + 20, BASE + 0x44, DATA)
    );
    // 15 instructions to the rt_sigaction, `addi s1` and the faulting
    // load (executed once), the handler's six, the three after it.
    assert_eq!(sm.executed(), 15 + 2 + 6 + 3);
}

/// `setitimer(ITIMER_REAL, {0, 0, 0, usec})`, then spin: the program's
/// words and the index of the `ecall`.
fn timer_then_spin(usec: i32) -> (Vec<u32>, u64) {
    let mut w = data_in_t1(0).to_vec();
    w.extend([sd(T1, ZERO, 0), sd(T1, ZERO, 8), sd(T1, ZERO, 16)]);
    w.extend(li(T0, usec));
    w.extend([
        sd(T1, T0, 24),
        addi(A0, ZERO, 0),
        addi(A1, T1, 0),
        addi(A2, ZERO, 0),
        addi(A7, ZERO, 103),
    ]);
    let ecall = w.len() as u64;
    w.extend([ECALL, jal(ZERO, 0)]);
    (w, ecall)
}

#[test]
fn sigalrm_comes_at_its_instruction_in_guest_time() {
    // 1 ms of guest time = 10,000 instructions of 100 ns after the
    // setitimer (the instructions before it are its time): SIGALRM's
    // default action then ends the run as a death by signal 14.
    let (w, k) = timer_then_spin(1000);
    let mut sm = linux_sim(&w);
    let stop = go(&mut sm, 1_000_000);
    assert_eq!(stop, StopReason::Exit(128 + 14));
    assert_eq!(sm.executed(), k + 10_000);
}

#[test]
fn a_wait_that_nothing_can_end_stops_the_run() {
    // ppoll(NULL, 0, NULL, NULL) — glibc's pause() — with no timer armed.
    let w = [
        addi(A0, ZERO, 0),
        addi(A1, ZERO, 0),
        addi(A2, ZERO, 0),
        addi(A3, ZERO, 0),
        addi(A7, ZERO, 73),
        ECALL,
    ];
    let mut sm = linux_sim(&w);
    let e = sm.run(100, &AtomicBool::new(false)).unwrap_err();
    assert!(
        matches!(e, SimError::WaitForever { pc, .. } if pc == BASE + 20),
        "{e}"
    );
    let msg = e.to_string();
    assert!(
        msg.contains("no timer is armed") && msg.contains("would wait forever"),
        "{msg}"
    );
}
