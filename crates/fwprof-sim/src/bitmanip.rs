//! The results of the bit-manipulation instructions Zba, Zbb, Zbc and Zbs
//! (RISC-V Bit-Manipulation ISA-extensions 1.0.0, 2021-06, Chapter 2; each
//! function follows the instruction's "Operation" pseudocode).
//!
//! They run as micro-ops ([`crate::uop`]): lowering turns every one of them
//! into [`crate::uop::K::Bitmanip`] (or `K::Rotate` for the register
//! rotates, whose timing may depend on the amount) carrying its [`Op`], and
//! the block interpreter calls [`value`], so the interpreter's dispatch for
//! the base instructions is untouched by them.
//!
//! Operands are register values as the hart holds them: on RV32 they are
//! sign-extended 32-bit values, and the interpreter sign-extends the low 32
//! bits of the result when it writes `rd`, so every function here only has
//! to get the low XLEN bits right; operations whose low 32 bits depend on
//! the upper bits of an operand (counts, shifts right, the high half of a
//! product, byte reversal) look at `a as u32` on RV32.

use fwprof_isa::Op;

/// The value `op` writes to `rd`, for operands `a` = `x[rs1]`, `b` =
/// `x[rs2]` and the decoded immediate `imm` (shift amount or bit index,
/// already below XLEN for the `*i` forms). The `w` forms' results are
/// sign-extended from 32 bits, as they are written. `op` is a Zba/Zbb/Zbc/Zbs
/// operation valid for the XLEN (the decoder guarantees it); any other
/// `op` gives 0, never a panic.
#[inline(always)]
pub(crate) fn value<const RV64: bool>(op: Op, a: u64, b: u64, imm: u64) -> u64 {
    let xmask: u64 = if RV64 { 63 } else { 31 };
    let uw = |v: u64| v & 0xffff_ffff;
    match op {
        // Zba
        Op::AddUw => b.wrapping_add(uw(a)),
        Op::Sh1add => b.wrapping_add(a << 1),
        Op::Sh2add => b.wrapping_add(a << 2),
        Op::Sh3add => b.wrapping_add(a << 3),
        Op::Sh1addUw => b.wrapping_add(uw(a) << 1),
        Op::Sh2addUw => b.wrapping_add(uw(a) << 2),
        Op::Sh3addUw => b.wrapping_add(uw(a) << 3),
        Op::SlliUw => uw(a) << (imm & 63),
        // Zbb: logic with negate
        Op::Andn => a & !b,
        Op::Orn => a | !b,
        Op::Xnor => !(a ^ b),
        // Zbb: counts (clz/ctz of 0 is XLEN, of the `w` forms 32). `ctzw`
        // of a value whose low word is 0 is 32, as the spec says; QEMU 7.2
        // counts all 64 bits there (`trans_ctzw` in
        // target/riscv/insn_trans/trans_rvb.c.inc zero-extends nothing, as
        // it leaves `ol` at RV64), a documented difference.
        Op::Clz if RV64 => u64::from(a.leading_zeros()),
        Op::Ctz if RV64 => u64::from(a.trailing_zeros()),
        Op::Cpop if RV64 => u64::from(a.count_ones()),
        Op::Clz | Op::Clzw => u64::from((a as u32).leading_zeros()),
        Op::Ctz | Op::Ctzw => u64::from((a as u32).trailing_zeros()),
        Op::Cpop | Op::Cpopw => u64::from((a as u32).count_ones()),
        // Zbb: min/max (RV32 values are sign-extended, which keeps both the
        // signed and the unsigned order of their 32-bit values)
        Op::Max => (a as i64).max(b as i64) as u64,
        Op::Maxu => a.max(b),
        Op::Min => (a as i64).min(b as i64) as u64,
        Op::Minu => a.min(b),
        // Zbb: sign and zero extension
        Op::SextB => a as i8 as i64 as u64,
        Op::SextH => a as i16 as i64 as u64,
        Op::ZextH => a & 0xffff,
        // Zbb: rotates
        Op::Rol if RV64 => a.rotate_left((b & xmask) as u32),
        Op::Ror if RV64 => a.rotate_right((b & xmask) as u32),
        Op::Rori if RV64 => a.rotate_right((imm & xmask) as u32),
        // 32-bit rotates (RV32, and the `w` forms, sign-extended)
        Op::Rol | Op::Rolw => sext32((a as u32).rotate_left((b & 31) as u32)),
        Op::Ror | Op::Rorw => sext32((a as u32).rotate_right((b & 31) as u32)),
        Op::Rori | Op::Roriw => sext32((a as u32).rotate_right((imm & 31) as u32)),
        // Zbb: byte operations
        Op::OrcB => orc_b(a),
        Op::Rev8 if RV64 => a.swap_bytes(),
        Op::Rev8 => u64::from((a as u32).swap_bytes()),
        // Zbc
        Op::Clmul | Op::Clmulh | Op::Clmulr => clmul::<RV64>(op, a, b),
        // Zbs: the bit index is rs2 or the immediate, modulo XLEN
        Op::Bclr => a & !(1 << (b & xmask)),
        Op::Bclri => a & !(1 << (imm & xmask)),
        Op::Bext => (a >> (b & xmask)) & 1,
        Op::Bexti => (a >> (imm & xmask)) & 1,
        Op::Binv => a ^ (1 << (b & xmask)),
        Op::Binvi => a ^ (1 << (imm & xmask)),
        Op::Bset => a | (1 << (b & xmask)),
        Op::Bseti => a | (1 << (imm & xmask)),
        _ => 0,
    }
}

#[inline(always)]
fn sext32(v: u32) -> u64 {
    v as i32 as i64 as u64
}

/// `orc.b`: each byte becomes 0xff if any of its bits is set, else 0.
#[inline]
fn orc_b(a: u64) -> u64 {
    // Per byte: the low 7 bits plus 0x7f carry into bit 7 exactly when one
    // of them is set; or-ing the byte's own bit 7 gives "any bit set".
    let low7 = 0x7f7f_7f7f_7f7f_7f7f_u64;
    let any = ((a & low7).wrapping_add(low7) | a) & !low7;
    // 0x80 per byte -> 0xff per byte.
    (any >> 7).wrapping_mul(0xff)
}

/// `clmul`, `clmulh`, `clmulr`: the carry-less product of the XLEN-bit
/// operands is 2·XLEN bits wide; `clmul` is its low half, `clmulh` its
/// high half and `clmulr` bits 2·XLEN-2 .. XLEN-1 (Zbc's pseudocode, whose
/// three loops compute exactly these bits).
fn clmul<const RV64: bool>(op: Op, a: u64, b: u64) -> u64 {
    let (xlen, a, mut b) = if RV64 {
        (64, a, b)
    } else {
        (32, a & 0xffff_ffff, b & 0xffff_ffff)
    };
    let mut p: u128 = 0;
    while b != 0 {
        p ^= u128::from(a) << b.trailing_zeros();
        b &= b - 1;
    }
    let v = match op {
        Op::Clmul => p,
        Op::Clmulh => p >> xlen,
        _ => p >> (xlen - 1),
    };
    if RV64 {
        v as u64
    } else {
        v as u64 & 0xffff_ffff
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The spec's pseudocode of `clmul`/`clmulh`/`clmulr`, bit by bit.
    fn clmul_spec(op: Op, a: u64, b: u64, xlen: u32) -> u64 {
        let mask = if xlen == 64 { u64::MAX } else { 0xffff_ffff };
        let (a, b) = (a & mask, b & mask);
        let mut out = 0u64;
        match op {
            Op::Clmul => {
                for i in 0..xlen {
                    if (b >> i) & 1 == 1 {
                        out ^= a << i;
                    }
                }
            }
            Op::Clmulh => {
                for i in 1..xlen {
                    if (b >> i) & 1 == 1 {
                        out ^= a >> (xlen - i);
                    }
                }
            }
            _ => {
                for i in 0..xlen {
                    if (b >> i) & 1 == 1 {
                        out ^= a >> (xlen - i - 1);
                    }
                }
            }
        }
        out & mask
    }

    const EDGES: [u64; 10] = [
        0,
        1,
        2,
        0x7f,
        0x80,
        0x8000_0000,
        0xffff_ffff,
        0x7fff_ffff_ffff_ffff,
        0x8000_0000_0000_0000,
        u64::MAX,
    ];

    #[test]
    fn clmul_matches_the_spec_pseudocode() {
        let mut x = 0x1234_5678_9abc_def0_u64;
        let mut vals = EDGES.to_vec();
        for _ in 0..50 {
            x = x
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            vals.push(x);
        }
        for &a in &vals {
            for &b in &vals {
                for op in [Op::Clmul, Op::Clmulh, Op::Clmulr] {
                    assert_eq!(value::<true>(op, a, b, 0), clmul_spec(op, a, b, 64));
                    // RV32 operands are sign-extended 32-bit values.
                    let (a32, b32) = (a as i32 as i64 as u64, b as i32 as i64 as u64);
                    assert_eq!(
                        value::<false>(op, a32, b32, 0) as u32,
                        clmul_spec(op, a, b, 32) as u32,
                        "{op:?} {a:#x} {b:#x}"
                    );
                }
            }
        }
        // Known values: clmul(3, 3) = 5; clmulh of all ones.
        assert_eq!(value::<true>(Op::Clmul, 3, 3, 0), 5);
        assert_eq!(
            value::<true>(Op::Clmulh, u64::MAX, u64::MAX, 0),
            0x5555_5555_5555_5555
        );
        assert_eq!(
            value::<false>(Op::Clmulr, 0x8000_0000, 0x8000_0000, 0) as u32,
            0x8000_0000
        );
    }

    #[test]
    fn orc_b_per_byte() {
        assert_eq!(orc_b(0), 0);
        assert_eq!(orc_b(0x0100_8000_0001_0200), 0xff00_ff00_00ff_ff00);
        assert_eq!(orc_b(u64::MAX), u64::MAX);
        assert_eq!(orc_b(0x7f80_0102_0304_0506), u64::MAX);
        for byte in 0..=255u64 {
            assert_eq!(orc_b(byte << 40), if byte == 0 { 0 } else { 0xff << 40 });
        }
    }

    #[test]
    fn counts_rotates_and_bits_at_the_edges() {
        let v64 = |op, a, b, imm| value::<true>(op, a, b, imm);
        let v32 = |op, a: u64, b: u64, imm| value::<false>(op, a, b, imm) as u32;
        assert_eq!(v64(Op::Clz, 0, 0, 0), 64);
        assert_eq!(v64(Op::Ctz, 0, 0, 0), 64);
        assert_eq!(v64(Op::Clzw, 0xffff_ffff_0000_0000, 0, 0), 32);
        assert_eq!(v64(Op::Ctzw, 0xffff_ffff_0000_0000, 0, 0), 32);
        assert_eq!(v64(Op::Cpopw, u64::MAX, 0, 0), 32);
        // The spec's ctzw looks at the low word only (QEMU 7.2 gives 63).
        assert_eq!(v64(Op::Ctzw, 1 << 63, 0, 0), 32);
        assert_eq!(v64(Op::Cpop, u64::MAX, 0, 0), 64);
        assert_eq!(v64(Op::Clz, 1, 0, 0), 63);
        // RV32: the sign-extended upper half is not counted.
        assert_eq!(v32(Op::Clz, 0xffff_ffff_8000_0000, 0, 0), 0);
        assert_eq!(v32(Op::Clz, 0, 0, 0), 32);
        assert_eq!(v32(Op::Ctz, 0, 0, 0), 32);
        assert_eq!(v32(Op::Cpop, u64::MAX, 0, 0), 32);
        assert_eq!(v64(Op::Ror, 1, 65, 0), 0x8000_0000_0000_0000);
        assert_eq!(v64(Op::Rol, 0x8000_0000_0000_0001, 1, 0), 3);
        assert_eq!(v64(Op::Rori, 1, 0, 63), 2);
        assert_eq!(v64(Op::Rorw, 1, 33, 0), 0xffff_ffff_8000_0000);
        assert_eq!(v64(Op::Roriw, 1, 0, 1), 0xffff_ffff_8000_0000);
        assert_eq!(v64(Op::Rolw, 0x4000_0000, 1, 0), 0xffff_ffff_8000_0000);
        assert_eq!(v32(Op::Ror, 0xffff_ffff_8000_0001, 1, 0), 0xc000_0000);
        assert_eq!(v32(Op::Rol, 0xffff_ffff_8000_0001, 32, 0), 0x8000_0001);
        assert_eq!(
            v64(Op::Rev8, 0x0102_0304_0506_0708, 0, 0),
            0x0807_0605_0403_0201
        );
        assert_eq!(v32(Op::Rev8, 0xffff_ffff_8102_0304, 0, 0), 0x0403_0281);
        assert_eq!(v64(Op::Bset, 0, 63 + 64, 0), 1 << 63);
        assert_eq!(v32(Op::Bset, 0, 31 + 32, 0), 1 << 31);
        assert_eq!(v64(Op::Bext, 1 << 40, 40, 0), 1);
        assert_eq!(v32(Op::Bext, 1 << 8, 40, 0), 1);
        assert_eq!(v64(Op::Binvi, 0, 0, 63), 1 << 63);
        assert_eq!(v64(Op::Bclri, u64::MAX, 0, 0), u64::MAX - 1);
        assert_eq!(v64(Op::Bexti, u64::MAX, 0, 5), 1);
        assert_eq!(v64(Op::Max, u64::MAX, 1, 0), 1);
        assert_eq!(v64(Op::Maxu, u64::MAX, 1, 0), u64::MAX);
        assert_eq!(v64(Op::Min, 1 << 63, 0, 0), 1 << 63);
        assert_eq!(v32(Op::Minu, 0xffff_ffff_8000_0000, 1, 0), 1);
        assert_eq!(v64(Op::SextB, 0x80, 0, 0), 0xffff_ffff_ffff_ff80);
        assert_eq!(v64(Op::SextH, 0x1_7fff, 0, 0), 0x7fff);
        assert_eq!(v64(Op::ZextH, u64::MAX, 0, 0), 0xffff);
        assert_eq!(v64(Op::AddUw, 0xffff_ffff_ffff_ffff, 1, 0), 0x1_0000_0000);
        assert_eq!(v64(Op::Sh3addUw, 0xffff_ffff_0000_0001, 1, 0), 9);
        assert_eq!(
            v64(Op::SlliUw, 0xffff_ffff_ffff_ffff, 0, 32),
            0xffff_ffff_0000_0000
        );
        assert_eq!(v64(Op::Sh2add, 1 << 62, 4, 0), 4);
        assert_eq!(v64(Op::Xnor, 0, 0, 0), u64::MAX);
        assert_eq!(v64(Op::Orn, 0, u64::MAX, 0), 0);
        assert_eq!(v64(Op::Andn, u64::MAX, 1, 0), u64::MAX - 1);
        assert_eq!(v64(Op::Add, 1, 1, 0), 0, "not a bit-manipulation op");
    }
}
