//! Integer execution tests: RV32I/RV64I, M, loads and stores, with
//! hand-worked results.

use crate::test_asm::*;
use crate::StopReason;
use std::sync::atomic::AtomicBool;

/// Execute one instruction `w` (rd = a0, rs1 = t0, rs2 = t1) with t0 = `a`,
/// t1 = `b`; returns a0.
fn eval(rv64: bool, w: u32, a: u64, b: u64) -> u64 {
    let mut sm = sim(rv64, &[w, ECALL]);
    sm.hart_mut().set_x(5, a);
    sm.hart_mut().set_x(6, b);
    let stop = sm.run(10, &AtomicBool::new(false)).unwrap();
    assert!(
        matches!(stop, StopReason::Fault { cause: 11, .. }),
        "{stop:?}"
    );
    sm.hart().x(10)
}

fn rr(f3: u32, f7: u32) -> u32 {
    r(0x33, f3, f7, 10, 5, 6)
}
fn rr32(f3: u32, f7: u32) -> u32 {
    r(0x3b, f3, f7, 10, 5, 6)
}

const M: u32 = 1; // funct7 of the M extension

#[test]
fn add_sub_wrap_and_rv32_sign_extension() {
    assert_eq!(eval(true, rr(0, 0), u64::MAX, 2), 1); // add
    assert_eq!(eval(true, rr(0, 0x20), 0, 1), u64::MAX); // sub
                                                         // RV32: 0x7fffffff + 1 = 0x80000000, kept sign-extended.
    assert_eq!(eval(false, rr(0, 0), 0x7fff_ffff, 1), 0xffff_ffff_8000_0000);
    assert_eq!(eval(true, rr(0, 0), 0x7fff_ffff, 1), 0x8000_0000);
}

#[test]
fn shifts_mask_to_xlen() {
    // sll by 33: RV64 shifts 33, RV32 shifts 1.
    assert_eq!(eval(true, rr(1, 0), 1, 33), 1 << 33);
    assert_eq!(eval(false, rr(1, 0), 1, 33), 2);
    // srl on RV32 works on the 32-bit value: 0x80000000 >> 4.
    assert_eq!(eval(false, rr(5, 0), 0xffff_ffff_8000_0000, 4), 0x0800_0000);
    assert_eq!(
        eval(true, rr(5, 0), 0xffff_ffff_8000_0000, 4),
        0x0fff_ffff_f800_0000
    );
    // sra
    assert_eq!(
        eval(false, rr(5, 0x20), 0xffff_ffff_8000_0000, 36),
        0xffff_ffff_f800_0000
    );
    assert_eq!(eval(true, rr(5, 0x20), 0x8000_0000_0000_0000, 63), u64::MAX);
    // srai x10, x5, 63 / slli
    assert_eq!(
        eval(true, i(0x13, 5, 10, 5, 0x400 | 63), 1 << 63, 0),
        u64::MAX
    );
    assert_eq!(eval(true, slli(10, 5, 40), 3, 0), 3 << 40);
}

#[test]
fn comparisons() {
    assert_eq!(eval(true, rr(2, 0), u64::MAX, 0), 1); // slt -1 < 0
    assert_eq!(eval(true, rr(3, 0), u64::MAX, 0), 0); // sltu
    assert_eq!(eval(false, rr(3, 0), 0xffff_ffff_8000_0000, 0x7fff_ffff), 0); // sltu RV32
    assert_eq!(eval(true, i(0x13, 3, 10, 5, -1), 5, 0), 1); // sltiu x, -1 (= max)
    assert_eq!(eval(true, i(0x13, 2, 10, 5, -1), 5, 0), 0); // slti
}

#[test]
fn w_ops_sign_extend() {
    assert_eq!(
        eval(true, i(0x1b, 0, 10, 5, 1), 0x7fff_ffff, 0),
        0xffff_ffff_8000_0000
    ); // addiw
    assert_eq!(
        eval(true, i(0x1b, 0, 10, 5, 0), 0x1_2345_6789, 0),
        0x2345_6789
    ); // sext.w
    assert_eq!(
        eval(true, i(0x1b, 1, 10, 5, 31), 1, 0),
        0xffff_ffff_8000_0000
    ); // slliw
    assert_eq!(
        eval(true, i(0x1b, 5, 10, 5, 4), 0xffff_ffff_8000_0000, 0),
        0x0800_0000
    ); // srliw
    assert_eq!(
        eval(true, i(0x1b, 5, 10, 5, 0x400 | 4), 0x8000_0000, 0),
        0xffff_ffff_f800_0000
    ); // sraiw
    assert_eq!(eval(true, rr32(0, 0), 0xffff_ffff, 1), 0); // addw
    assert_eq!(eval(true, rr32(0, 0x20), 0, 1), u64::MAX); // subw
    assert_eq!(eval(true, rr32(1, 0), 1, 63), 0xffff_ffff_8000_0000); // sllw masks to 31
    assert_eq!(eval(true, rr32(5, 0), 0x8000_0000, 32 + 31), 1); // srlw
    assert_eq!(eval(true, rr32(5, 0x20), 0x8000_0000, 31), u64::MAX); // sraw
}

#[test]
fn lui_auipc_jal_on_rv32_and_rv64() {
    // lui a0, 0x80000 -> sign-extended on both.
    assert_eq!(eval(true, lui(10, 0x80000), 0, 0), 0xffff_ffff_8000_0000);
    assert_eq!(eval(false, lui(10, 0x80000), 0, 0), 0xffff_ffff_8000_0000);
    // auipc a0, 1 at 0x80000000: RV64 0x80001000, RV32 sign-extended.
    assert_eq!(eval(true, auipc(10, 1), 0, 0), 0x8000_1000);
    assert_eq!(eval(false, auipc(10, 1), 0, 0), 0xffff_ffff_8000_1000);
    // jal a0, +8 skips one instruction; link = pc+4.
    let sm = run_ok(false, &[jal(10, 8), addi(11, 0, 1), ECALL]);
    assert_eq!(sm.hart().x(10), 0xffff_ffff_8000_0004);
    assert_eq!(sm.hart().x(11), 0);
    assert_eq!(sm.executed(), 2);
}

#[test]
fn mul_and_mulh() {
    assert_eq!(
        eval(true, rr(0, M), 0xffff_ffff_ffff_fffe, 3),
        (-6i64) as u64
    ); // mul
    assert_eq!(eval(true, rr(1, M), u64::MAX, u64::MAX), 0); // mulh -1*-1
    assert_eq!(eval(true, rr(1, M), 1 << 63, 2), u64::MAX); // mulh MIN*2 = -2^64
    assert_eq!(eval(true, rr(3, M), u64::MAX, u64::MAX), u64::MAX - 1); // mulhu
    assert_eq!(eval(true, rr(2, M), u64::MAX, u64::MAX), u64::MAX); // mulhsu -1*(2^64-1)
                                                                    // RV32
    assert_eq!(
        eval(
            false,
            rr(1, M),
            0xffff_ffff_8000_0000,
            0xffff_ffff_8000_0000
        ),
        0x4000_0000
    ); // mulh
    assert_eq!(
        eval(false, rr(3, M), u64::MAX, u64::MAX),
        0xffff_ffff_ffff_fffe
    ); // mulhu
    assert_eq!(eval(false, rr(2, M), u64::MAX, u64::MAX), u64::MAX); // mulhsu -1 * 0xffffffff
    assert_eq!(eval(false, rr(0, M), 0x1_0000, 0x1_0000), 0); // mul wraps at 32 bits
    assert_eq!(
        eval(true, rr32(0, M), 0x1_0000, 0x8000),
        0xffff_ffff_8000_0000
    ); // mulw
}

#[test]
fn division_edge_cases_rv64() {
    // Unprivileged ISA §7.2, Table 7.1.
    let min = 1u64 << 63;
    assert_eq!(eval(true, rr(4, M), 7, 0), u64::MAX); // div by zero
    assert_eq!(eval(true, rr(5, M), 7, 0), u64::MAX); // divu by zero
    assert_eq!(eval(true, rr(6, M), 7, 0), 7); // rem by zero
    assert_eq!(eval(true, rr(7, M), 7, 0), 7); // remu by zero
    assert_eq!(eval(true, rr(4, M), min, u64::MAX), min); // overflow
    assert_eq!(eval(true, rr(6, M), min, u64::MAX), 0);
    assert_eq!(eval(true, rr(4, M), (-7i64) as u64, 2), (-3i64) as u64); // truncates
    assert_eq!(eval(true, rr(6, M), (-7i64) as u64, 2), u64::MAX); // sign of dividend
    assert_eq!(eval(true, rr(5, M), u64::MAX, 2), u64::MAX >> 1);
}

#[test]
fn division_edge_cases_rv32_and_w() {
    let min32 = 0xffff_ffff_8000_0000u64;
    assert_eq!(eval(false, rr(4, M), min32, u64::MAX), min32); // div overflow
    assert_eq!(eval(false, rr(6, M), min32, u64::MAX), 0); // rem overflow
    assert_eq!(eval(false, rr(4, M), 5, 0), u64::MAX);
    assert_eq!(eval(false, rr(5, M), u64::MAX, 2), 0x7fff_ffff); // divu on 32 bits
    assert_eq!(eval(false, rr(7, M), u64::MAX, 0), u64::MAX); // remu by 0 = dividend
    assert_eq!(eval(false, rr(7, M), u64::MAX, 10), 5); // 0xffffffff % 10
                                                        // W forms on RV64 look only at the low 32 bits.
    assert_eq!(eval(true, rr32(4, M), 0x8000_0000, 0xffff_ffff), min32); // divw overflow
    assert_eq!(eval(true, rr32(6, M), 0x8000_0000, 0xffff_ffff), 0); // remw overflow
    assert_eq!(eval(true, rr32(4, M), 1, 0x1_0000_0000), u64::MAX); // divw by (low 32 = 0)
    assert_eq!(eval(true, rr32(5, M), 0xffff_fffe, 0), u64::MAX); // divuw by 0
    assert_eq!(eval(true, rr32(6, M), 0x8000_0005, 0), min32 + 5); // remw by 0 = sext dividend
    assert_eq!(eval(true, rr32(7, M), 0xffff_ffff, 0x10), 0xf); // remuw
    assert_eq!(eval(true, rr32(5, M), 0xffff_ffff, 1), u64::MAX); // divuw result sign-extended
}

#[test]
fn branches_taken_and_not() {
    // t0 = -1, t1 = 1: blt taken (signed), bltu not taken.
    let prog = [
        b(4, 5, 6, 8),  // blt t0,t1,+8
        addi(10, 0, 1), // skipped
        b(6, 5, 6, 8),  // bltu t0,t1,+8 (not taken)
        addi(11, 0, 1), // executed
        ECALL,
    ];
    let mut sm = sim(true, &prog);
    sm.hart_mut().set_x(5, u64::MAX);
    sm.hart_mut().set_x(6, 1);
    sm.run(100, &AtomicBool::new(false)).unwrap();
    assert_eq!((sm.hart().x(10), sm.hart().x(11)), (0, 1));
    assert_eq!(sm.executed(), 4);
}

#[test]
fn loads_stores_misaligned_and_sign() {
    let prog = [
        addi(6, 0, -2),       // t1 = 0xff..fe
        sw(5, 6, 1),          // misaligned sw at DATA+1
        i(0x03, 0, 10, 5, 1), // lb a0, 1(t0)  = -2
        i(0x03, 4, 11, 5, 1), // lbu a1        = 0xfe
        i(0x03, 1, 12, 5, 3), // lh a2, 3(t0)  = 0xffff
        i(0x03, 6, 13, 5, 1), // lwu a3        = 0xfffffffe
        ld(14, 5, 0),         // ld a4         = 0x00fffffffe00
        ECALL,
    ];
    let mut sm = sim(true, &prog);
    sm.hart_mut().set_x(5, DATA);
    sm.run(100, &AtomicBool::new(false)).unwrap();
    let h = sm.hart();
    assert_eq!(h.x(10), (-2i64) as u64);
    assert_eq!(h.x(11), 0xfe);
    assert_eq!(h.x(12), u64::MAX);
    assert_eq!(h.x(13), 0xffff_fffe);
    assert_eq!(h.x(14), 0xff_ffff_fe00);
}

#[test]
fn rv32_addresses_wrap_to_32_bits() {
    // t0 = 0x80008000 (sign-extended in the register); lw must use the
    // 32-bit address.
    let mut prog = li(5, DATA as i32).to_vec();
    prog.extend([addi(6, 0, 77), sw(5, 6, 0), lw(10, 5, 0), ECALL]);
    let sm = run_ok(false, &prog);
    assert_eq!(sm.hart().x(5), 0xffff_ffff_8000_8000);
    assert_eq!(sm.hart().x(10), 77);
}

#[test]
fn unmapped_access_faults_with_address() {
    let (sm, stop) = run(true, &[lui(5, 0x10), lw(10, 5, 4), ECALL]);
    assert_eq!(
        stop,
        StopReason::Fault {
            cause: 5,
            pc: BASE + 4,
            tval: 0x10004,
            raw: lw(10, 5, 4),
            len: 4,
            looping: false,
        }
    );
    assert_eq!(sm.executed(), 2);
    assert_eq!(sm.hart().retired(), 1);
    let (_, stop) = run(true, &[lui(5, 0x10), sd(5, 0, -8), ECALL]);
    assert!(
        matches!(
            stop,
            StopReason::Fault {
                cause: 7,
                tval: 0xfff8,
                ..
            }
        ),
        "{stop:?}"
    );
    // A misaligned load that runs off the end of RAM faults at the first bad byte.
    let mut sm = sim(true, &[lw(10, 5, 0), ECALL]);
    sm.hart_mut().set_x(5, BASE + 0x10000 - 2);
    let stop = sm.run(100, &AtomicBool::new(false)).unwrap();
    assert!(
        matches!(
            stop,
            StopReason::Fault {
                cause: 5,
                tval: 0x8001_0000,
                ..
            }
        ),
        "{stop:?}"
    );
}

#[test]
fn x0_stays_zero() {
    let sm = run_ok(true, &[addi(0, 0, 5), add(10, 0, 0), ECALL]);
    assert_eq!(sm.hart().x(0), 0);
    assert_eq!(sm.hart().x(10), 0);
}

#[test]
fn loads_into_x0_still_fault_and_rv64_only_ops_are_illegal_on_rv32() {
    // lw x0, 0(zero): address 0 is unmapped, so the load faults although
    // its result is discarded (cause 5, tval 0).
    let (sm, stop) = run(true, &[lw(0, 0, 0), ECALL]);
    assert!(
        matches!(
            stop,
            StopReason::Fault {
                cause: 5,
                tval: 0,
                ..
            }
        ),
        "{stop:?}"
    );
    assert_eq!(sm.executed(), 1);
    // lw x0 from mapped memory: no effect on x0.
    let sm = run_ok(true, &[auipc(5, 0), lw(0, 5, 0), ECALL]);
    assert_eq!(sm.hart().x(0), 0);
    // addiw and sd on RV32: illegal instruction (cause 2).
    for w in [i(0x1b, 0, 10, 0, 1), sd(0, 0, 0)] {
        let (_, stop) = run(false, &[w, ECALL]);
        assert!(
            matches!(stop, StopReason::Fault { cause: 2, .. }),
            "{w:#x}: {stop:?}"
        );
    }
}
