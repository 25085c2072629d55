//! Tests of CSRs, traps, atomics, the block cache, self-modifying code,
//! instruction limits and semihosting detection.

use crate::test_asm::*;
use crate::{JumpKind, SimError, StopReason};
use fwprof_os::GuestMemory;
use std::sync::atomic::AtomicBool;

#[test]
fn csr_reads_of_instret_and_cycle_are_exact() {
    // Three instructions, then csrr a0, instret; csrr a1, cycle; rdtime a2.
    let prog = [
        NOP,
        NOP,
        NOP,
        csr(2, 10, 0, 0xC02),
        csr(2, 11, 0, 0xC00),
        csr(2, 12, 0, 0xC01),
        ECALL,
    ];
    let sm = run_ok(true, &prog);
    assert_eq!(sm.hart().x(10), 3);
    assert_eq!(sm.hart().x(11), 4);
    assert_eq!(sm.hart().x(12), 5);
}

#[test]
fn csr_instruction_semantics() {
    let prog = [
        addi(5, 0, 0x55),
        csr(1, 0, 5, 0x340),  // csrw mscratch, t0
        csr(2, 10, 0, 0x340), // csrr a0, mscratch (csrrs rs1=x0: no write)
        addi(6, 0, 0x0f),
        csr(3, 11, 6, 0x340), // csrrc a1, mscratch, t1 -> a1 = 0x55, mscratch = 0x50
        csr(6, 12, 2, 0x340), // csrrsi a2, mscratch, 2 -> a2 = 0x50, mscratch = 0x52
        csr(2, 13, 0, 0x340), // a3 = 0x52
        csr(2, 14, 0, 0xF14), // csrr a4, mhartid (read-only, readable)
        ECALL,
    ];
    let sm = run_ok(true, &prog);
    let h = sm.hart();
    assert_eq!(
        (h.x(10), h.x(11), h.x(12), h.x(13), h.x(14)),
        (0x55, 0x55, 0x50, 0x52, 0)
    );
    // Writing a read-only CSR is illegal, with the instruction in mtval.
    let w = csr(1, 0, 5, 0xC00);
    let (_, stop) = run(true, &[w, ECALL]);
    assert_eq!(
        stop,
        StopReason::Fault {
            cause: 2,
            pc: BASE,
            tval: w as u64,
            raw: w,
            len: 4,
            looping: false,
        }
    );
    // csrrs with rs1 != x0 on a read-only CSR too, even if the value is 0.
    let w = csr(2, 10, 0, 0xC00) | 5 << 15;
    let (_, stop) = run(true, &[w, ECALL]);
    assert!(matches!(stop, StopReason::Fault { cause: 2, .. }));
    // Unknown CSR.
    let (_, stop) = run(true, &[csr(2, 10, 0, 0x7ff), ECALL]);
    assert!(matches!(stop, StopReason::Fault { cause: 2, .. }));
}

/// Program with a trap handler at BASE+0x100 that records mcause/mepc/mtval
/// into s2/s3/s4, skips the trapping instruction and returns.
fn with_handler(body: &[u32]) -> Vec<u32> {
    let mut p = vec![
        auipc(5, 0),
        addi(5, 5, 0x100),
        csr(1, 0, 5, 0x305), // csrw mtvec, t0
    ];
    p.extend_from_slice(body);
    p.resize(0x100 / 4, NOP);
    p.extend([
        csr(2, 18, 0, 0x342), // csrr s2, mcause
        csr(2, 19, 0, 0x341), // csrr s3, mepc
        csr(2, 20, 0, 0x343), // csrr s4, mtval
        csr(2, 21, 0, 0x300), // csrr s5, mstatus
        addi(6, 19, 4),
        csr(1, 0, 6, 0x341), // csrw mepc, s3+4
        MRET,
    ]);
    p
}

#[test]
fn trap_entry_and_mret() {
    // Enable MIE, then ecall; the handler returns past the ecall.
    let body = [
        csr(6, 0, 8, 0x300),
        ECALL,
        addi(10, 0, 7),
        jal(0, 0x100 - 0x18 + 0x1c),
    ];
    let mut prog = with_handler(&body);
    // After the handler: a final ecall at BASE+0x11c; jal above jumps there.
    let stop_at = prog.len();
    prog.push(csr(2, 22, 0, 0x300)); // s6 = mstatus after mret
    prog.push(csr(1, 0, 0, 0x305)); // mtvec = 0
    prog.push(ECALL);
    let mut sm = sim(true, &prog);
    let stop = go(&mut sm, 1000);
    assert!(
        matches!(stop, StopReason::Fault { cause: 11, .. }),
        "{stop:?}"
    );
    let h = sm.hart();
    assert_eq!(h.x(18), 11); // mcause = ecall from M
    assert_eq!(h.x(19), BASE + 16); // mepc = the ecall
    assert_eq!(h.x(20), 0);
    // In the handler: MIE = 0, MPIE = 1, MPP = M.
    assert_eq!(h.x(21) & 0x1888, 0x1880);
    // After mret: MIE = MPIE (1), MPIE = 1, MPP = U (0).
    assert_eq!(h.x(22) & 0x1888, 0x88);
    assert_eq!(h.x(10), 7);
    let rec = sm.hooks();
    assert_eq!(rec.traps.len(), 1);
    assert_eq!((rec.traps[0].cause, rec.traps[0].pc), (11, BASE + 16));
    assert_eq!(rec.mrets, vec![(BASE + 0x118, BASE + 20)]);
    assert_eq!(stop_at, 0x100 / 4 + 7);
    // ecall does not retire: minstret excludes the trapped ecall and the final one.
    assert_eq!(sm.hart().retired(), sm.executed() - 2);
}

#[test]
fn mtvec_zero_stops_with_fault_and_instruction() {
    // c.ebreak? no: an illegal 16-bit encoding (all zeros) at BASE+4.
    let mut sm = sim(true, &[NOP, 0x0000_0000]);
    let stop = go(&mut sm, 100);
    assert_eq!(
        stop,
        StopReason::Fault {
            cause: 2,
            pc: BASE + 4,
            tval: 0,
            raw: 0,
            len: 2,
            looping: false,
        }
    );
    // Fetch from unmapped memory: not executed, raw/len 0.
    let mut sm = sim(true, &[jal(0, -8)]);
    sm.memory_mut().unmap(BASE - 0x1000, 0x1000);
    let stop = go(&mut sm, 100);
    assert_eq!(
        stop,
        StopReason::Fault {
            cause: 1,
            pc: BASE - 8,
            tval: BASE - 8,
            raw: 0,
            len: 0,
            looping: false,
        }
    );
    assert_eq!(sm.executed(), 1);
}

#[test]
fn fs_off_makes_float_illegal_until_enabled() {
    let fadd = fp(0x00, 0, 1, 2, 3); // fadd.s f1, f2, f3
    let (_, stop) = run(true, &[fadd, ECALL]);
    assert_eq!(
        stop,
        StopReason::Fault {
            cause: 2,
            pc: BASE,
            tval: fadd as u64,
            raw: fadd,
            len: 4,
            looping: false,
        }
    );
    // Set FS = Initial (bit 13) and it works, and FS becomes Dirty.
    let prog = [
        lui(5, 2),
        csr(2, 0, 5, 0x300),
        fadd,
        csr(2, 10, 0, 0x300),
        ECALL,
    ];
    let sm = run_ok(true, &prog);
    assert_eq!(sm.hart().x(10) >> 13 & 3, 3);
    assert_eq!(sm.hart().x(10) >> 63, 1);
}

#[test]
fn block_cut_counting_on_mid_block_trap() {
    // Block: nop, nop, load from unmapped (traps), nop, ecall.
    let body = [NOP, NOP, lw(10, 0, 16), NOP, addi(11, 0, 1), jal(0, 0)];
    let mut prog = with_handler(&body);
    let last = prog.len() - 1;
    prog[last] = csr(1, 0, 0, 0x305); // replace mret: mtvec = 0
    prog.push(ECALL);
    let mut sm = sim(true, &prog);
    let stop = go(&mut sm, 1000);
    assert!(
        matches!(stop, StopReason::Fault { cause: 11, .. }),
        "{stop:?}"
    );
    assert_eq!(sm.hart().x(18), 5);
    assert_eq!(sm.hart().x(20), 16);
    // The trapping load cuts its block; the final ecall ends its own.
    assert_eq!(sm.hooks().cuts, 1);
    assert_eq!(sm.hooks().count, sm.executed());
    // 3 setup + 3 (trapping load counts) + 7 handler + ecall.
    assert_eq!(sm.executed(), 3 + 3 + 7 + 1);
}

#[test]
fn instruction_limit_is_exact_and_resumable() {
    let prog = [NOP, NOP, NOP, NOP, NOP, NOP, jal(0, -24)];
    let mut sm = sim(true, &prog);
    assert_eq!(go(&mut sm, 5), StopReason::InstructionLimit);
    assert_eq!(sm.executed(), 5);
    assert_eq!(sm.hart().pc, BASE + 20);
    assert_eq!(go(&mut sm, 6), StopReason::InstructionLimit);
    assert_eq!(sm.hart().pc, BASE + 24);
    assert_eq!(go(&mut sm, 7), StopReason::InstructionLimit);
    assert_eq!(sm.hart().pc, BASE);
    assert_eq!(go(&mut sm, 1007), StopReason::InstructionLimit);
    assert_eq!(sm.executed(), 1007);
    // Single step: every block has one instruction.
    sm.set_single_step(true);
    for k in 1008..1020 {
        assert_eq!(go(&mut sm, k), StopReason::InstructionLimit);
        assert_eq!(sm.executed(), k);
    }
    assert!(sm.hooks().sizes.iter().rev().take(7).all(|&n| n == 1));
}

#[test]
fn interrupt_flag_stops_the_run() {
    let mut sm = sim(true, &[jal(0, 0)]);
    let stop = sm.run(u64::MAX, &AtomicBool::new(true)).unwrap();
    assert_eq!(stop, StopReason::Interrupted);
    assert!(sm.executed() > 0 && sm.executed() < 200_000);
}

#[test]
fn self_modifying_code_is_retranslated() {
    // Loop twice over "addi a0, a0, 1"; after the first pass, overwrite it
    // with "addi a0, a0, 100" (in the same block as the store).
    let new = addi(10, 10, 100);
    let prog = [
        auipc(5, 0),          // 0: t0 = BASE
        li(6, new as i32)[0], // 4
        li(6, new as i32)[1], // 8
        addi(7, 0, 2),        // c: t2 = 2 iterations
        addi(10, 10, 1),      // 10: patched
        sw(5, 6, 0x10),       // 14: store over 0x10
        addi(7, 7, -1),       // 18
        b(1, 7, 0, -12),      // 1c: bne t2, x0, 0x10
        ECALL,
    ];
    let sm = run_ok(true, &prog);
    assert_eq!(sm.hart().x(10), 101);
    // Also through fence.i after writing via the memory API between runs.
    let mut sm = sim(true, &[addi(10, 10, 1), ECALL]);
    assert!(matches!(
        go(&mut sm, 100),
        StopReason::Fault { cause: 11, .. }
    ));
    sm.memory_mut()
        .write(BASE, &addi(10, 10, 5).to_le_bytes())
        .unwrap();
    sm.hart_mut().pc = BASE;
    go(&mut sm, 200);
    assert_eq!(sm.hart().x(10), 6);
}

#[test]
fn fence_i_flushes_blocks() {
    let prog = [NOP, FENCE_I, NOP, jal(0, -12)];
    let mut sm = sim(true, &prog);
    go(&mut sm, 40);
    // Each pass re-translates the two blocks: 10 passes, 20 translations.
    assert_eq!(sm.hooks().sizes.len(), 20);
}

#[test]
fn lr_sc_follow_qemu() {
    let prog = [
        amo(0x02, 3, 10, 5, 0), // lr.d a0, (t0)
        sd(5, 10, 0),           // store the same value: reservation holds (value compare)
        amo(0x03, 3, 11, 5, 6), // sc.d a1, t1, (t0) -> 0 (success)
        amo(0x03, 3, 12, 5, 6), // sc.d again without lr -> 1
        amo(0x02, 2, 13, 5, 0), // lr.w a3
        sw(5, 0, 0),            // different value
        amo(0x03, 2, 14, 5, 6), // sc.w -> 1
        amo(0x02, 2, 15, 5, 0), // lr.w a5
        amo(0x03, 2, 16, 7, 6), // sc.w to another address -> 1
        ECALL,
    ];
    let mut sm = sim(true, &prog);
    sm.hart_mut().set_x(5, DATA);
    sm.hart_mut().set_x(7, DATA + 8);
    sm.hart_mut().set_x(6, 0x1234);
    sm.memory_mut().write(DATA, &7u64.to_le_bytes()).unwrap();
    go(&mut sm, 100);
    let h = sm.hart();
    assert_eq!((h.x(10), h.x(11), h.x(12)), (7, 0, 1));
    assert_eq!((h.x(13), h.x(14), h.x(15), h.x(16)), (0x1234, 1, 0, 1));
}

#[test]
fn amos_compute_and_sign_extend() {
    let prog = [
        amo(0x00, 2, 10, 5, 6), // amoadd.w a0, t1, (t0): old -1, new -1+2 = 1
        amo(0x10, 3, 11, 7, 6), // amomin.d a1, t1, (t2): min(-5, 2) = -5
        amo(0x18, 3, 12, 7, 6), // amominu.d: min(0xff..fb, 2) = 2
        amo(0x1c, 2, 13, 5, 6), // amomaxu.w: old 1, max(1,2) = 2
        amo(0x01, 2, 14, 5, 0), // amoswap.w a4, x0 -> old 2
        ld(15, 7, 0),
        lw(16, 5, 0),
        ECALL,
    ];
    let mut sm = sim(true, &prog);
    sm.hart_mut().set_x(5, DATA);
    sm.hart_mut().set_x(7, DATA + 8);
    sm.hart_mut().set_x(6, 2);
    sm.memory_mut()
        .write(DATA, &u32::MAX.to_le_bytes())
        .unwrap();
    sm.memory_mut()
        .write(DATA + 8, &(-5i64).to_le_bytes())
        .unwrap();
    go(&mut sm, 100);
    let h = sm.hart();
    assert_eq!(h.x(10), u64::MAX); // old -1 sign-extended
    assert_eq!(h.x(11), (-5i64) as u64);
    assert_eq!(h.x(12), (-5i64) as u64);
    assert_eq!((h.x(13), h.x(14), h.x(15), h.x(16)), (1, 2, 2, 0));
}

#[test]
fn misaligned_atomics_trap() {
    let w = amo(0x00, 2, 10, 5, 6); // amoadd.w at DATA+2
    let mut sm = sim(true, &[w, ECALL]);
    sm.hart_mut().set_x(5, DATA + 2);
    assert_eq!(
        go(&mut sm, 10),
        StopReason::Fault {
            cause: 6,
            pc: BASE,
            tval: DATA + 2,
            raw: w,
            len: 4,
            looping: false,
        }
    );
    let w = amo(0x02, 3, 10, 5, 0); // lr.d at DATA+4
    let mut sm = sim(true, &[w, ECALL]);
    sm.hart_mut().set_x(5, DATA + 4);
    assert_eq!(
        go(&mut sm, 10),
        StopReason::Fault {
            cause: 4,
            pc: BASE,
            tval: DATA + 4,
            raw: w,
            len: 4,
            looping: false,
        }
    );
    // AMO to unmapped memory: store/AMO access fault.
    let w = amo(0x01, 2, 10, 5, 6);
    let mut sm = sim(true, &[w, ECALL]);
    sm.hart_mut().set_x(5, 0x1000);
    assert!(matches!(
        go(&mut sm, 10),
        StopReason::Fault {
            cause: 7,
            tval: 0x1000,
            ..
        }
    ));
}

#[test]
fn semihosting_sequence_is_detected() {
    // The exact sequence asks the environment (none here -> error).
    let mut sm = sim(true, &[NOP, 0x01f0_1013, EBREAK, 0x4070_5013, ECALL]);
    let err = sm.run(100, &AtomicBool::new(false)).unwrap_err();
    assert!(
        matches!(err, SimError::NoEnvironment { pc, .. } if pc == BASE + 8),
        "{err}"
    );
    // A plain ebreak is a breakpoint (cause 3).
    let (_, stop) = run(true, &[NOP, NOP, EBREAK, 0x4070_5013, ECALL]);
    assert!(matches!(stop, StopReason::Fault { cause: 3, pc, .. } if pc == BASE + 8));
    // The three words must lie in one 4 KiB page.
    let mut words = vec![NOP; 0x1000 / 4 - 1];
    words.extend([0x01f0_1013, EBREAK, 0x4070_5013, ECALL]);
    words[0] = jal(0, 0x1000 - 4);
    let (_, stop) = run(true, &words);
    assert!(matches!(stop, StopReason::Fault { cause: 3, pc, .. } if pc == BASE + 0x1000));
}

/// The jumps the hooks heard of: (kind, pc, target), addresses from `BASE`.
fn jumps_from_base(sm: &crate::Simulator<Rec>) -> Vec<(JumpKind, u64, u64)> {
    sm.hooks()
        .jumps
        .iter()
        .map(|&(k, pc, t, _)| (k, pc - BASE, t - BASE))
        .collect()
}

#[test]
fn jump_kinds_are_reported() {
    let prog = [
        jal(1, 8),     // 0: call 8
        ECALL,         // 4
        jalr(5, 1, 8), // 8: t0 = 0xc, jump to ra+8 = 0xc  (call via t0, rs1 = ra: call-return)
        jalr(0, 5, 4), // c: return via t0 -> 0x10
        jalr(0, 1, 0), // 10: return via ra -> 4
    ];
    let sm = run_ok(true, &prog);
    let j = jumps_from_base(&sm);
    assert_eq!(
        j,
        vec![
            (JumpKind::Call, 0, 8),
            (JumpKind::CallReturn, 8, 0xc),
            (JumpKind::Return, 0xc, 0x10),
            (JumpKind::Return, 0x10, 4),
        ]
    );
    assert_eq!(sm.hooks().jumps[1].3, 2); // instret including the jump
}

#[test]
fn direct_jumps_the_hooks_do_not_want_go_unreported() {
    // j 8 (unwanted), ecall, j 4 (wanted), on both tiers.
    let prog = [jal(0, 8), ECALL, jal(0, -4)];
    for tier in [crate::Tier::Interp, crate::Tier::Jit] {
        let mut sm = sim(true, &prog);
        sm.set_tier(tier, 0);
        sm.hooks_mut().unreported = vec![BASE + 8];
        go(&mut sm, 100);
        let j = jumps_from_base(&sm);
        assert_eq!(j, vec![(JumpKind::Jump, 8, 4)], "{tier:?}");
    }
}

#[test]
fn jumps_carry_their_block_and_return_address() {
    // A 2-byte call (`c.jalr t1`) returns 2 bytes after it; 4-byte jumps 4.
    let prog = [
        jal(6, 4),      // 0: t1 = 4, jump to 4 (links another register)
        addi(6, 6, 12), // 4: t1 = 0x10
        0x0001_9302,    // 8: c.jalr t1 (ra = 0xa) ; a: c.nop
        ECALL,          // c
        jalr(0, 1, 0),  // 10: ret -> 0xa
    ];
    let sm = run_ok(true, &prog);
    let j: Vec<_> = sm
        .hooks()
        .jumps_full
        .iter()
        .map(|j| (j.kind, j.pc - BASE, j.ret - BASE, j.target - BASE))
        .collect();
    assert_eq!(
        j,
        vec![
            (JumpKind::LinkOther, 0, 4, 4),
            (JumpKind::Call, 8, 0xa, 0x10),
            (JumpKind::Return, 0x10, 0x14, 0xa),
        ]
    );
}
