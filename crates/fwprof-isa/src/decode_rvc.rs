//! Decoding and expansion of 16-bit compressed (RVC) encodings.
//!
//! Follows the RISC-V Unprivileged ISA 20191213, Chapter 16 ("C" Standard
//! Extension), Tables 16.5-16.7 (RVC opcode map per quadrant). Each
//! compressed instruction is expanded to the base instruction it stands for
//! (e.g. `c.addi16sp` to `addi sp,sp,nzimm`, `c.j` to `jal zero,offset`,
//! `c.mv` to `add rd,zero,rs2`), with `len = 2` and `raw` holding the 16
//! bits so that the disassembler can name the compressed form.
//!
//! HINT encodings (§16.7, Table 16.3, e.g. `c.addi` with `rd = 0`, `c.li`
//! with `rd = 0`, shifts by 0) are legal and expand like their non-HINT
//! siblings. Reserved encodings (`c.addi4spn` with `nzuimm = 0`, the
//! all-zero halfword, `c.lwsp`/`c.ldsp` with `rd = 0`, `c.jr` with
//! `rs1 = 0`, `c.addi16sp` with `nzimm = 0`, `c.lui` with `nzimm = 0`,
//! `c.addiw` with `rd = 0`, RV32 shifts with `shamt[5] = 1`, the reserved
//! quadrant-0 and quadrant-1 slots) decode to [`Op::Illegal`].

use crate::inst::{Inst, Op, Xlen};

/// Bits `hi..=lo` of `h`, shifted down.
#[inline]
fn bits(h: u16, hi: u32, lo: u32) -> u32 {
    ((h as u32) >> lo) & ((1 << (hi - lo + 1)) - 1)
}

/// Bit `n` of `h` moved to bit position `to`.
#[inline]
fn bit_to(h: u16, n: u32, to: u32) -> u32 {
    (((h as u32) >> n) & 1) << to
}

/// Sign-extends the low `width` bits of `v`.
#[inline]
fn sext(v: u32, width: u32) -> i32 {
    ((v << (32 - width)) as i32) >> (32 - width)
}

/// A compressed register field (`rd'`, `rs1'`, `rs2'`: 3 bits naming x8..x15
/// or f8..f15) at bits `lo+2..=lo`.
#[inline]
fn creg(h: u16, lo: u32) -> u8 {
    (bits(h, lo + 2, lo) + 8) as u8
}

/// The full 5-bit `rd`/`rs1` field at bits 11:7.
#[inline]
fn rd_full(h: u16) -> u8 {
    bits(h, 11, 7) as u8
}

/// The full 5-bit `rs2` field at bits 6:2.
#[inline]
fn rs2_full(h: u16) -> u8 {
    bits(h, 6, 2) as u8
}

/// 6-bit signed immediate `imm[5] = h[12]`, `imm[4:0] = h[6:2]` (CI format).
#[inline]
fn ci_imm(h: u16) -> i32 {
    sext(bit_to(h, 12, 5) | bits(h, 6, 2), 6)
}

/// 6-bit unsigned shift amount `shamt[5] = h[12]`, `shamt[4:0] = h[6:2]`.
#[inline]
fn ci_shamt(h: u16) -> u32 {
    bit_to(h, 12, 5) | bits(h, 6, 2)
}

/// `uimm[5:3] = h[12:10]`, `uimm[2] = h[6]`, `uimm[6] = h[5]` (c.lw, c.sw, c.flw, c.fsw).
#[inline]
fn cl_uimm_w(h: u16) -> i32 {
    ((bits(h, 12, 10) << 3) | bit_to(h, 6, 2) | bit_to(h, 5, 6)) as i32
}

/// `uimm[5:3] = h[12:10]`, `uimm[7:6] = h[6:5]` (c.ld, c.sd, c.fld, c.fsd).
#[inline]
fn cl_uimm_d(h: u16) -> i32 {
    ((bits(h, 12, 10) << 3) | (bits(h, 6, 5) << 6)) as i32
}

/// CJ-format jump offset `[11|4|9:8|10|6|7|3:1|5]` from `h[12:2]`.
#[inline]
fn cj_offset(h: u16) -> i32 {
    let v = bit_to(h, 12, 11)
        | bit_to(h, 11, 4)
        | (bits(h, 10, 9) << 8)
        | bit_to(h, 8, 10)
        | bit_to(h, 7, 6)
        | bit_to(h, 6, 7)
        | (bits(h, 5, 3) << 1)
        | bit_to(h, 2, 5);
    sext(v, 12)
}

/// CB-format branch offset `[8|4:3]` from `h[12:10]`, `[7:6|2:1|5]` from `h[6:2]`.
#[inline]
fn cb_offset(h: u16) -> i32 {
    let v = bit_to(h, 12, 8)
        | (bits(h, 11, 10) << 3)
        | (bits(h, 6, 5) << 6)
        | (bits(h, 4, 3) << 1)
        | bit_to(h, 2, 5);
    sext(v, 9)
}

/// Builds the expanded instruction.
#[inline]
fn inst(op: Op, h: u16, rd: u8, rs1: u8, rs2: u8, imm: i32) -> Inst {
    Inst {
        op,
        rd,
        rs1,
        rs2,
        rs3: 0,
        rm: 0,
        len: 2,
        imm,
        raw: h as u32,
    }
}

/// Decodes the 16-bit compressed encoding `h` (whose low two bits must not
/// be `11`) for the given XLEN; see the module docs. Never panics.
pub(crate) fn decode_rvc(h: u16, xlen: Xlen) -> Inst {
    let rv64 = xlen == Xlen::Rv64;
    let out = match h & 3 {
        0 => quadrant0(h, rv64),
        1 => quadrant1(h, rv64),
        2 => quadrant2(h, rv64),
        _ => None,
    };
    out.unwrap_or(Inst::illegal(h as u32, 2))
}

/// Quadrant 0 (Table 16.5): stack-pointer-based `addi` and register-based
/// loads and stores.
fn quadrant0(h: u16, rv64: bool) -> Option<Inst> {
    let rd = creg(h, 2); // rd' / rs2'
    let rs1 = creg(h, 7); // rs1'
    Some(match bits(h, 15, 13) {
        // c.addi4spn: nzuimm[5:4|9:6|2|3] = h[12:11|10:7|6|5]
        0 => {
            let nzuimm =
                (bits(h, 12, 11) << 4) | (bits(h, 10, 7) << 6) | bit_to(h, 6, 2) | bit_to(h, 5, 3);
            if nzuimm == 0 {
                return None;
            }
            inst(Op::Addi, h, rd, 2, 0, nzuimm as i32)
        }
        1 => inst(Op::Fld, h, rd, rs1, 0, cl_uimm_d(h)), // c.fld
        2 => inst(Op::Lw, h, rd, rs1, 0, cl_uimm_w(h)),  // c.lw
        3 if rv64 => inst(Op::Ld, h, rd, rs1, 0, cl_uimm_d(h)), // c.ld
        3 => inst(Op::Flw, h, rd, rs1, 0, cl_uimm_w(h)), // c.flw
        5 => inst(Op::Fsd, h, 0, rs1, rd, cl_uimm_d(h)), // c.fsd
        6 => inst(Op::Sw, h, 0, rs1, rd, cl_uimm_w(h)),  // c.sw
        7 if rv64 => inst(Op::Sd, h, 0, rs1, rd, cl_uimm_d(h)), // c.sd
        7 => inst(Op::Fsw, h, 0, rs1, rd, cl_uimm_w(h)), // c.fsw
        _ => return None,                                // 4: reserved
    })
}

/// Quadrant 1 (Table 16.6): immediates, `lui`, arithmetic, jumps and
/// branches.
fn quadrant1(h: u16, rv64: bool) -> Option<Inst> {
    let rd = rd_full(h);
    Some(match bits(h, 15, 13) {
        0 => inst(Op::Addi, h, rd, rd, 0, ci_imm(h)), // c.addi (c.nop when rd = 0)
        1 if rv64 => {
            // c.addiw; rd = 0 is reserved
            if rd == 0 {
                return None;
            }
            inst(Op::Addiw, h, rd, rd, 0, ci_imm(h))
        }
        1 => inst(Op::Jal, h, 1, 0, 0, cj_offset(h)), // c.jal (RV32 only)
        2 => inst(Op::Addi, h, rd, 0, 0, ci_imm(h)),  // c.li
        3 if rd == 2 => {
            // c.addi16sp: nzimm[9] = h[12], nzimm[4|6|8:7|5] = h[6:2]
            let v = bit_to(h, 12, 9)
                | bit_to(h, 6, 4)
                | bit_to(h, 5, 6)
                | (bits(h, 4, 3) << 7)
                | bit_to(h, 2, 5);
            if v == 0 {
                return None;
            }
            inst(Op::Addi, h, 2, 2, 0, sext(v, 10))
        }
        3 => {
            // c.lui: nzimm[17] = h[12], nzimm[16:12] = h[6:2]
            let imm = ci_imm(h) << 12;
            if imm == 0 {
                return None;
            }
            inst(Op::Lui, h, rd, 0, 0, imm)
        }
        4 => return misc_alu(h, rv64),
        5 => inst(Op::Jal, h, 0, 0, 0, cj_offset(h)), // c.j
        6 => inst(Op::Beq, h, 0, creg(h, 7), 0, cb_offset(h)), // c.beqz
        _ => inst(Op::Bne, h, 0, creg(h, 7), 0, cb_offset(h)), // c.bnez
    })
}

/// Quadrant 1, funct3 = 100: `c.srli`, `c.srai`, `c.andi`, `c.sub`,
/// `c.xor`, `c.or`, `c.and`, `c.subw`, `c.addw`.
fn misc_alu(h: u16, rv64: bool) -> Option<Inst> {
    let r = creg(h, 7); // rd' = rs1'
    let rs2 = creg(h, 2);
    let shamt = ci_shamt(h);
    // RV32: shamt[5] = 1 is reserved (NSE).
    let shamt_ok = rv64 || shamt < 32;
    Some(match bits(h, 11, 10) {
        0 if shamt_ok => inst(Op::Srli, h, r, r, 0, shamt as i32), // c.srli
        1 if shamt_ok => inst(Op::Srai, h, r, r, 0, shamt as i32), // c.srai
        2 => inst(Op::Andi, h, r, r, 0, ci_imm(h)),                // c.andi
        3 => {
            let op = match (bits(h, 12, 12), bits(h, 6, 5)) {
                (0, 0) => Op::Sub,          // c.sub
                (0, 1) => Op::Xor,          // c.xor
                (0, 2) => Op::Or,           // c.or
                (0, 3) => Op::And,          // c.and
                (1, 0) if rv64 => Op::Subw, // c.subw
                (1, 1) if rv64 => Op::Addw, // c.addw
                _ => return None,
            };
            inst(op, h, r, r, rs2, 0)
        }
        _ => return None,
    })
}

/// Quadrant 2 (Table 16.7): `c.slli`, stack-pointer-based loads and stores,
/// `c.jr`/`c.jalr`/`c.mv`/`c.add`/`c.ebreak`.
fn quadrant2(h: u16, rv64: bool) -> Option<Inst> {
    let rd = rd_full(h);
    let rs2 = rs2_full(h);
    // uimm[5] = h[12], uimm[4:2|7:6] = h[6:2] (word); [4:3|8:6] (double)
    let lwsp = (bit_to(h, 12, 5) | (bits(h, 6, 4) << 2) | (bits(h, 3, 2) << 6)) as i32;
    let ldsp = (bit_to(h, 12, 5) | (bits(h, 6, 5) << 3) | (bits(h, 4, 2) << 6)) as i32;
    // uimm[5:2|7:6] = h[12:7] (word); [5:3|8:6] (double)
    let swsp = ((bits(h, 12, 9) << 2) | (bits(h, 8, 7) << 6)) as i32;
    let sdsp = ((bits(h, 12, 10) << 3) | (bits(h, 9, 7) << 6)) as i32;
    Some(match bits(h, 15, 13) {
        0 => {
            // c.slli; RV32 shamt[5] = 1 is reserved (NSE)
            let shamt = ci_shamt(h);
            if !rv64 && shamt >= 32 {
                return None;
            }
            inst(Op::Slli, h, rd, rd, 0, shamt as i32)
        }
        1 => inst(Op::Fld, h, rd, 2, 0, ldsp), // c.fldsp
        2 if rd != 0 => inst(Op::Lw, h, rd, 2, 0, lwsp), // c.lwsp
        3 if rv64 && rd != 0 => inst(Op::Ld, h, rd, 2, 0, ldsp), // c.ldsp
        3 if !rv64 => inst(Op::Flw, h, rd, 2, 0, lwsp), // c.flwsp
        4 => {
            let bit12 = bits(h, 12, 12);
            match (bit12, rd, rs2) {
                (0, 0, 0) => return None,                     // c.jr x0: reserved
                (0, _, 0) => inst(Op::Jalr, h, 0, rd, 0, 0),  // c.jr
                (0, _, _) => inst(Op::Add, h, rd, 0, rs2, 0), // c.mv
                (_, 0, 0) => inst(Op::Ebreak, h, 0, 0, 0, 0), // c.ebreak
                (_, _, 0) => inst(Op::Jalr, h, 1, rd, 0, 0),  // c.jalr
                _ => inst(Op::Add, h, rd, rd, rs2, 0),        // c.add
            }
        }
        5 => inst(Op::Fsd, h, 0, 2, rs2, sdsp), // c.fsdsp
        6 => inst(Op::Sw, h, 0, 2, rs2, swsp),  // c.swsp
        7 if rv64 => inst(Op::Sd, h, 0, 2, rs2, sdsp), // c.sdsp
        7 => inst(Op::Fsw, h, 0, 2, rs2, swsp), // c.fswsp
        _ => return None,
    })
}
