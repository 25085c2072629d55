//! F/D execution tests: NaN-boxing, sign extension of 32-bit results,
//! rounding-mode checks, flags, fused multiply-add sign handling.

use crate::test_asm::*;
use crate::StopReason;
use std::sync::atomic::AtomicBool;

const ONE_HALF_S: u32 = 0x3fc0_0000; // 1.5
const TWO_QUARTER_S: u32 = 0x4010_0000; // 2.25
const BOX: u64 = 0xffff_ffff_0000_0000;

/// Enable the FP unit (mstatus.FS = Initial), run `body` then ecall, with
/// registers prepared by `setup`.
fn run_fp(
    rv64: bool,
    body: &[u32],
    setup: impl FnOnce(&mut crate::Hart),
) -> (crate::Simulator<Rec>, StopReason) {
    let mut prog = vec![lui(5, 2), csr(2, 0, 5, 0x300)];
    prog.extend_from_slice(body);
    prog.push(ECALL);
    let mut sm = sim(rv64, &prog);
    setup(sm.hart_mut());
    let stop = sm.run(1000, &AtomicBool::new(false)).unwrap();
    (sm, stop)
}

fn fp_ok(body: &[u32], setup: impl FnOnce(&mut crate::Hart)) -> crate::Simulator<Rec> {
    let (sm, stop) = run_fp(true, body, setup);
    assert!(
        matches!(stop, StopReason::Fault { cause: 11, .. }),
        "{stop:?}"
    );
    sm
}

fn fma(op: u32, fmt: u32, rd: u32, rs1: u32, rs2: u32, rs3: u32) -> u32 {
    rs3 << 27 | fmt << 25 | rs2 << 20 | rs1 << 15 | 7 << 12 | rd << 7 | op
}

#[test]
fn fadd_s_and_nan_boxing() {
    let sm = fp_ok(&[fp(0x00, 7, 1, 2, 3), fp(0x00, 0, 4, 5, 3)], |h| {
        h.set_f32(2, ONE_HALF_S);
        h.set_f32(3, TWO_QUARTER_S);
        h.set_f(5, ONE_HALF_S as u64); // not NaN-boxed: reads as canonical NaN
    });
    assert_eq!(sm.hart().f(1), BOX | 0x4070_0000); // 3.75
    assert_eq!(sm.hart().f(4), BOX | 0x7fc0_0000);
}

#[test]
fn conversions_to_integers_sign_extend() {
    let body = [
        fp(0x60, 1, 10, 1, 0), // fcvt.w.s a0, f1, rtz   (-1.0 -> -1)
        fp(0x60, 1, 11, 2, 1), // fcvt.wu.s a1, f2, rtz  (3e9 -> 0xb2d05e00, sign-extended)
        fp(0x70, 0, 12, 3, 0), // fmv.x.w a2, f3 (low 32 bits, no NaN-box check)
        fp(0x70, 1, 13, 4, 0), // fclass.s a3, f4 (-inf -> bit 0)
        fp(0x61, 1, 14, 5, 2), // fcvt.l.d a4, f5, rtz (-2.5 -> -2)
    ];
    let sm = fp_ok(&body, |h| {
        h.set_f32(1, 0xbf80_0000);
        h.set_f32(2, 0x4f32_d05e);
        h.set_f(3, 0x1234_5678_9abc_def0);
        h.set_f32(4, 0xff80_0000);
        h.set_f(5, 0xc004_0000_0000_0000);
    });
    let h = sm.hart();
    assert_eq!(h.x(10), u64::MAX);
    assert_eq!(h.x(11), 0xffff_ffff_b2d0_5e00);
    assert_eq!(h.x(12), 0xffff_ffff_9abc_def0);
    assert_eq!(h.x(13), 1);
    assert_eq!(h.x(14), (-2i64) as u64);
}

#[test]
fn sign_injection_and_moves() {
    let body = [
        fp(0x10, 1, 1, 2, 2), // fsgnjn.s f1, f2, f2 (fneg.s)
        fp(0x10, 2, 3, 2, 4), // fsgnjx.s f3, f2, f4 (f4 negative -> flip)
        fp(0x78, 0, 5, 6, 0), // fmv.w.x f5, t1
        fp(0x11, 0, 7, 8, 4), // fsgnj.d f7, f8, f4 (f4 raw is negative as a double too)
    ];
    let sm = fp_ok(&body, |h| {
        h.set_f32(2, ONE_HALF_S);
        h.set_f32(4, 0x8000_0000);
        h.set_x(6, 0x1_3fc0_0000);
        h.set_f(8, 0x3ff8_0000_0000_0000);
    });
    let h = sm.hart();
    assert_eq!(h.f(1), BOX | 0xbfc0_0000);
    assert_eq!(h.f(3), BOX | 0xbfc0_0000);
    assert_eq!(h.f(5), BOX | 0x3fc0_0000);
    assert_eq!(h.f(7), 0xbff8_0000_0000_0000);
}

#[test]
fn fused_multiply_add_signs() {
    let body = [
        fma(0x43, 0, 10, 1, 2, 3), // fmadd.s  2*3+1 = 7
        fma(0x47, 0, 11, 1, 2, 3), // fmsub.s  2*3-1 = 5
        fma(0x4b, 0, 12, 1, 2, 3), // fnmsub.s -(2*3)+1 = -5
        fma(0x4f, 0, 13, 1, 2, 3), // fnmadd.s -(2*3)-1 = -7
        fma(0x43, 1, 14, 4, 5, 6), // fmadd.d  2*3+1 = 7
    ];
    let sm = fp_ok(&body, |h| {
        h.set_f32(1, 0x4000_0000);
        h.set_f32(2, 0x4040_0000);
        h.set_f32(3, 0x3f80_0000);
        h.set_f(4, 0x4000_0000_0000_0000);
        h.set_f(5, 0x4008_0000_0000_0000);
        h.set_f(6, 0x3ff0_0000_0000_0000);
    });
    let h = sm.hart();
    assert_eq!(h.f(10), BOX | 0x40e0_0000);
    assert_eq!(h.f(11), BOX | 0x40a0_0000);
    assert_eq!(h.f(12), BOX | 0xc0a0_0000);
    assert_eq!(h.f(13), BOX | 0xc0e0_0000);
    assert_eq!(h.f(14), 0x401c_0000_0000_0000);
}

#[test]
fn double_ops_and_conversion_between_formats() {
    let body = [
        fp(0x01, 7, 1, 2, 3),  // fadd.d f1, f2, f3
        fp(0x20, 7, 4, 1, 1),  // fcvt.s.d f4, f1
        fp(0x21, 0, 5, 4, 0),  // fcvt.d.s f5, f4
        fp(0x51, 2, 10, 1, 5), // feq.d a0, f1, f5
        fp(0x71, 0, 11, 1, 0), // fmv.x.d a1, f1
    ];
    let sm = fp_ok(&body, |h| {
        h.set_f(2, 0x3ff8_0000_0000_0000);
        h.set_f(3, 0x4002_0000_0000_0000);
    });
    let h = sm.hart();
    assert_eq!(h.f(1), 0x400e_0000_0000_0000);
    assert_eq!(h.f(4), BOX | 0x4070_0000);
    assert_eq!(h.f(5), 0x400e_0000_0000_0000);
    assert_eq!(h.x(10), 1);
    assert_eq!(h.x(11), 0x400e_0000_0000_0000);
}

#[test]
fn flags_accrue_in_fflags() {
    let body = [
        fp(0x0c, 0, 1, 2, 3),  // fdiv.s f1, f2, f3 (1/0: DZ)
        fp(0x50, 1, 10, 4, 2), // flt.s a0, f4, f2 (NaN operand: NV)
        csr(2, 11, 0, 0x001),  // frflags a1
    ];
    let sm = fp_ok(&body, |h| {
        h.set_f32(2, 0x3f80_0000);
        h.set_f32(3, 0);
        h.set_f32(4, 0x7fc0_0000);
    });
    assert_eq!(sm.hart().f(1), BOX | 0x7f80_0000);
    assert_eq!(sm.hart().x(10), 0);
    assert_eq!(sm.hart().x(11), 0x18);
}

#[test]
fn reserved_rounding_modes_are_illegal() {
    let w = fp(0x00, 5, 1, 2, 3); // fadd.s with rm = 5
    let (_, stop) = run_fp(true, &[w], |_| {});
    assert_eq!(
        stop,
        StopReason::Fault {
            cause: 2,
            pc: BASE + 8,
            tval: w as u64,
            raw: w,
            len: 4,
            looping: false,
        }
    );
    // Dynamic rounding with frm = 5 (written through fcsr).
    let w = fp(0x00, 7, 1, 2, 3);
    let (_, stop) = run_fp(true, &[addi(6, 0, 5 << 5), csr(1, 0, 6, 0x003), w], |_| {});
    assert!(
        matches!(stop, StopReason::Fault { cause: 2, pc, .. } if pc == BASE + 16),
        "{stop:?}"
    );
    // Sign injection has no rounding mode: its funct3 is the variant.
    let (_, stop) = run_fp(
        true,
        &[
            addi(6, 0, 5 << 5),
            csr(1, 0, 6, 0x003),
            fp(0x10, 0, 1, 2, 3),
        ],
        |_| {},
    );
    assert!(
        matches!(stop, StopReason::Fault { cause: 11, .. }),
        "{stop:?}"
    );
}

#[test]
fn float_loads_and_stores() {
    let body = [
        i(0x07, 2, 1, 6, 0),  // flw f1, 0(t1)
        s(0x27, 2, 6, 2, 8),  // fsw f2, 8(t1): stores the low 32 bits as they are
        i(0x07, 3, 3, 6, 8),  // fld f3, 8(t1)
        s(0x27, 3, 6, 3, 16), // fsd f3, 16(t1)
        ld(10, 6, 16),
    ];
    let mut prog = vec![lui(5, 2), csr(2, 0, 5, 0x300)];
    prog.extend_from_slice(&body);
    prog.push(ECALL);
    let mut sm = sim(true, &prog);
    sm.hart_mut().set_x(6, DATA);
    sm.hart_mut().set_f(2, 0x1111_2222_3333_4444);
    use fwprof_os::GuestMemory;
    sm.memory_mut()
        .write(DATA, &ONE_HALF_S.to_le_bytes())
        .unwrap();
    sm.memory_mut()
        .write(DATA + 12, &0x5555_6666u32.to_le_bytes())
        .unwrap();
    sm.run(100, &AtomicBool::new(false)).unwrap();
    let h = sm.hart();
    assert_eq!(h.f(1), BOX | ONE_HALF_S as u64);
    assert_eq!(h.f(3), 0x5555_6666_3333_4444);
    assert_eq!(h.x(10), 0x5555_6666_3333_4444);
}

#[test]
fn rv32_double_to_int_and_illegal_long_forms() {
    // fcvt.w.d on RV32 is fine; fcvt.l.d is RV64-only (decodes illegal).
    let (sm, stop) = run_fp(false, &[fp(0x61, 1, 10, 1, 0)], |h| {
        h.set_f(1, 0xc004_0000_0000_0000)
    });
    assert!(
        matches!(stop, StopReason::Fault { cause: 11, .. }),
        "{stop:?}"
    );
    assert_eq!(sm.hart().x(10), (-2i64) as u64);
    let w = fp(0x61, 1, 10, 1, 2);
    let (_, stop) = run_fp(false, &[w], |_| {});
    assert!(
        matches!(stop, StopReason::Fault { cause: 2, .. }),
        "{stop:?}"
    );
}
