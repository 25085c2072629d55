//! Execution tests of Zba, Zbb, Zbc and Zbs through the simulator (micro-op
//! lowering and the block interpreter), with hand-worked edge values on RV32
//! and RV64 (Bit-Manipulation ISA-extensions 1.0.0, Chapter 2).

use crate::test_asm::*;
use crate::StopReason;
use std::sync::atomic::AtomicBool;

/// Run `w` (rd = a0, rs1 = t0, rs2 = t1) with t0 = `a`, t1 = `b`, then
/// `ecall`; returns a0 (which starts as 0x5a5a).
fn eval(rv64: bool, w: u32, a: u64, b: u64) -> u64 {
    let mut sm = sim(rv64, &[w, ECALL]);
    sm.hart_mut().set_x(5, a);
    sm.hart_mut().set_x(6, b);
    sm.hart_mut().set_x(10, 0x5a5a);
    let stop = sm.run(10, &AtomicBool::new(false)).unwrap();
    assert!(
        matches!(stop, StopReason::Fault { cause: 11, .. }),
        "{w:#010x}: {stop:?}"
    );
    sm.hart().x(10)
}

/// The stop reason of running `w` alone on RV32.
fn stop_rv32(w: u32) -> StopReason {
    let mut sm = sim(false, &[w, ECALL]);
    sm.run(10, &AtomicBool::new(false)).unwrap()
}

/// OP (0x33) and OP-32 (0x3b) register-register forms.
fn op(f3: u32, f7: u32) -> u32 {
    r(0x33, f3, f7, 10, 5, 6)
}
fn op32(f3: u32, f7: u32) -> u32 {
    r(0x3b, f3, f7, 10, 5, 6)
}
/// OP-IMM (0x13) / OP-IMM-32 (0x1b) with a 12-bit immediate field.
fn opi(f3: u32, imm12: u32) -> u32 {
    i(0x13, f3, 10, 5, imm12 as i32)
}
fn opi32(f3: u32, imm12: u32) -> u32 {
    i(0x1b, f3, 10, 5, imm12 as i32)
}

const NEG: u64 = 0xffff_ffff_8000_0000; // RV32's 0x80000000, sign-extended

#[test]
fn zba_address_generation() {
    // sh1add/sh2add/sh3add: (rs1 << n) + rs2, wrapping.
    assert_eq!(eval(true, op(2, 0x10), 3, 100), 106);
    assert_eq!(eval(true, op(4, 0x10), 3, 100), 112);
    assert_eq!(eval(true, op(6, 0x10), u64::MAX, 8), 0);
    assert_eq!(eval(false, op(6, 0x10), 0x2000_0000, 0), 0); // 2^32 wraps
    assert_eq!(eval(false, op(2, 0x10), 0x4000_0000, 0), NEG);
    // add.uw and shNadd.uw zero-extend rs1's low word (RV64 only).
    assert_eq!(eval(true, op32(0, 0x04), u64::MAX, 1), 0x1_0000_0000);
    assert_eq!(eval(true, r(0x3b, 0, 0x04, 10, 5, 0), NEG, 0), 0x8000_0000); // zext.w
    assert_eq!(eval(true, op32(2, 0x10), NEG, 0), 0x1_0000_0000);
    assert_eq!(eval(true, op32(4, 0x10), NEG, 1), 0x2_0000_0001);
    assert_eq!(eval(true, op32(6, 0x10), u64::MAX, 0), 0x7_ffff_fff8);
    // slli.uw by 0, 31 and 63.
    assert_eq!(eval(true, opi32(1, 0x080), u64::MAX, 0), 0xffff_ffff);
    assert_eq!(eval(true, opi32(1, 0x080 | 31), 3, 0), 0x1_8000_0000);
    assert_eq!(
        eval(true, opi32(1, 0x080 | 63), 0xffff_ffff_0000_0001, 0),
        1 << 63
    );
}

#[test]
fn zbb_logic_counts_min_max_and_extensions() {
    assert_eq!(eval(true, op(7, 0x20), 0xff, 0x0f), 0xf0); // andn
    assert_eq!(eval(true, op(6, 0x20), 0, 0), u64::MAX); // orn
    assert_eq!(eval(false, op(4, 0x20), 5, 5), u64::MAX); // xnor, sign-extended
                                                          // clz/ctz/cpop of 0 and all ones; RV32 counts 32 bits only.
    for (f12, zero64, zero32, ones64, ones32) in [
        (0x600, 64, 32, 0, 0), // clz
        (0x601, 64, 32, 0, 0), // ctz
        (0x602, 0, 0, 64, 32), // cpop
    ] {
        assert_eq!(eval(true, opi(1, f12), 0, 0), zero64, "{f12:#x}");
        assert_eq!(eval(false, opi(1, f12), 0, 0), zero32, "{f12:#x}");
        assert_eq!(eval(true, opi(1, f12), u64::MAX, 0), ones64, "{f12:#x}");
        assert_eq!(eval(false, opi(1, f12), u64::MAX, 0), ones32, "{f12:#x}");
        // clzw/ctzw/cpopw look at the low word only.
        let w = eval(true, opi32(1, f12), 0xffff_ffff_0000_0000, 0);
        assert_eq!(w, if f12 == 0x602 { 0 } else { 32 }, "{f12:#x}w");
    }
    assert_eq!(eval(false, opi(1, 0x600), NEG, 0), 0);
    assert_eq!(eval(true, opi(1, 0x600), NEG, 0), 0);
    assert_eq!(eval(true, opi(1, 0x601), 1 << 63, 0), 63);
    assert_eq!(eval(true, opi32(1, 0x600), 1, 0), 31);
    // min/max signed and unsigned.
    assert_eq!(eval(true, op(6, 0x05), u64::MAX, 0), 0); // max(-1, 0)
    assert_eq!(eval(true, op(7, 0x05), u64::MAX, 0), u64::MAX); // maxu
    assert_eq!(eval(true, op(4, 0x05), 1 << 63, 5), 1 << 63); // min
    assert_eq!(eval(false, op(5, 0x05), NEG, 0x7fff_ffff), 0x7fff_ffff); // minu
    assert_eq!(eval(false, op(4, 0x05), NEG, 0x7fff_ffff), NEG); // min
                                                                 // sext.b, sext.h, zext.h (its encoding differs between XLENs).
    assert_eq!(
        eval(true, opi(1, 0x604), 0x1234_5680, 0),
        0xffff_ffff_ffff_ff80
    );
    assert_eq!(eval(false, opi(1, 0x605), 0x7fff, 0), 0x7fff);
    assert_eq!(eval(true, r(0x3b, 4, 0x04, 10, 5, 0), u64::MAX, 0), 0xffff);
    assert_eq!(eval(false, r(0x33, 4, 0x04, 10, 5, 0), u64::MAX, 0), 0xffff);
}

#[test]
fn zbb_rotates_and_byte_operations() {
    // rol/ror mask the amount to XLEN; the w forms to 32 and sign-extend.
    assert_eq!(eval(true, op(1, 0x30), 1 << 63, 65), 1);
    assert_eq!(eval(true, op(5, 0x30), 1, 64), 1);
    assert_eq!(eval(false, op(5, 0x30), 1, 33), NEG);
    assert_eq!(eval(false, op(1, 0x30), NEG, 1), 1);
    assert_eq!(eval(true, op32(1, 0x30), 0x4000_0000, 1), NEG);
    assert_eq!(eval(true, op32(5, 0x30), 0xffff_ffff_0000_0001, 32), 1);
    // rori by 0 and XLEN-1, roriw.
    assert_eq!(eval(true, opi(5, 0x600 | 63), 1, 0), 2);
    assert_eq!(eval(true, opi(5, 0x600), 7, 0), 7);
    assert_eq!(eval(false, opi(5, 0x600 | 31), NEG, 0), 1);
    assert_eq!(eval(true, opi32(5, 0x600 | 1), 1, 0), NEG);
    // orc.b, rev8 (one encoding per XLEN).
    assert_eq!(
        eval(true, opi(5, 0x287), 0x0100_8000_0001_0200, 0),
        0xff00_ff00_00ff_ff00
    );
    assert_eq!(eval(false, opi(5, 0x287), 0x0080_0001, 0), 0x00ff_00ff);
    assert_eq!(
        eval(true, opi(5, 0x6b8), 0x0102_0304_0506_0780, 0),
        0x8007_0605_0403_0201
    );
    assert_eq!(eval(false, opi(5, 0x698), 0x0000_0080, 0), NEG);
}

#[test]
fn zbc_carry_less_multiplication() {
    // clmul(0b11, 0b11) = 0b101; the high halves of all ones.
    assert_eq!(eval(true, op(1, 0x05), 3, 3), 5);
    assert_eq!(
        eval(true, op(3, 0x05), u64::MAX, u64::MAX),
        0x5555_5555_5555_5555
    );
    assert_eq!(
        eval(true, op(2, 0x05), u64::MAX, u64::MAX),
        0xaaaa_aaaa_aaaa_aaaa
    );
    assert_eq!(eval(false, op(3, 0x05), u64::MAX, u64::MAX), 0x5555_5555);
    assert_eq!(
        eval(false, op(2, 0x05), u64::MAX, u64::MAX),
        0xffff_ffff_aaaa_aaaa
    );
    // x^63 * x = x^64: clmul 0, clmulh 1, clmulr (bits 126..63) 2.
    assert_eq!(eval(true, op(1, 0x05), 1 << 63, 2), 0);
    assert_eq!(eval(true, op(3, 0x05), 1 << 63, 2), 1);
    assert_eq!(eval(true, op(2, 0x05), 1 << 63, 2), 2);
    assert_eq!(eval(false, op(1, 0x05), NEG, 2), 0);
    assert_eq!(eval(false, op(3, 0x05), NEG, 2), 1);
}

#[test]
fn zbs_single_bit_operations() {
    // Register forms take the index modulo XLEN.
    assert_eq!(eval(true, op(1, 0x14), 0, 63 + 64), 1 << 63); // bset
    assert_eq!(eval(false, op(1, 0x14), 0, 31 + 32), NEG); // bset bit 31, RV32
    assert_eq!(eval(true, op(1, 0x24), u64::MAX, 0), u64::MAX - 1); // bclr
    assert_eq!(eval(true, op(5, 0x24), 1 << 40, 40), 1); // bext
    assert_eq!(eval(false, op(5, 0x24), NEG, 63), 1); // bext bit 31
    assert_eq!(eval(true, op(1, 0x34), 0, 5), 32); // binv
                                                   // Immediate forms, 6-bit index on RV64.
    assert_eq!(eval(true, opi(1, 0x280 | 40), 0, 0), 1 << 40); // bseti
    assert_eq!(eval(true, opi(1, 0x480 | 63), u64::MAX, 0), u64::MAX >> 1); // bclri
    assert_eq!(eval(true, opi(5, 0x480 | 33), 1 << 33, 0), 1); // bexti
    assert_eq!(eval(true, opi(1, 0x680), 1, 0), 0); // binvi
    assert_eq!(eval(false, opi(1, 0x680 | 31), 0, 0), NEG); // binvi bit 31, RV32
}

#[test]
fn x0_destination_and_rv32_reserved_encodings() {
    // A bit-manipulation result written to x0 vanishes.
    let mut sm = sim(true, &[r(0x33, 6, 0x05, 0, 5, 6), ECALL]);
    sm.hart_mut().set_x(5, 7);
    sm.run(10, &AtomicBool::new(false)).unwrap();
    assert_eq!(sm.hart().x(0), 0);
    // The RV64-only forms, RV64's zext.h/rev8 and shamt[5] = 1 are illegal
    // on RV32 (mcause 2).
    for w in [
        op32(0, 0x04),              // add.uw
        opi32(1, 0x080),            // slli.uw
        opi32(1, 0x600),            // clzw
        op32(1, 0x30),              // rolw
        r(0x3b, 4, 0x04, 10, 5, 0), // zext.h (RV64 encoding)
        opi(5, 0x6b8),              // rev8 (RV64 encoding)
        opi(5, 0x600 | 32),         // rori by 32
        opi(1, 0x280 | 32),         // bseti 32
    ] {
        assert!(
            matches!(stop_rv32(w), StopReason::Fault { cause: 2, .. }),
            "{w:#010x} on RV32: {:?}",
            stop_rv32(w)
        );
    }
}
