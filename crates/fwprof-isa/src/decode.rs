//! Decoding of 32-bit RV32GC/RV64GC encodings into [`Inst`].
//!
//! Follows the RISC-V Unprivileged ISA 20191213: the base opcode map of
//! §24 (Table 24.1), the instruction listings of Chapter 24 ("RV32/64G
//! Instruction Set Listings"), Zicsr (§9), Zifencei (§3), M (§7), A (§8),
//! F (§11) and D (§12), plus `mret`/`wfi` of the Privileged ISA 20211203
//! (§3.3), and the bit-manipulation extensions Zba, Zbb, Zbc and Zbs of the
//! RISC-V Bit-Manipulation ISA-extensions 1.0.0 (2021-06), Chapter 2 and the
//! encodings of its instruction pages. Compressed encodings are handed to the
//! RVC decoder (`decode_rvc.rs`).
//!
//! Every encoding that is not one of these instructions for the given XLEN
//! decodes to [`Op::Illegal`]; decoding never panics and never allocates.

use crate::decode_rvc::decode_rvc;
use crate::inst::{Inst, Op, Xlen};

/// Length in bytes (2 or 4) of the instruction whose first (lowest-address)
/// 16-bit parcel is `first_halfword` (Unprivileged ISA §1.5, Figure 1.1).
///
/// Returns 2 when the low two bits are not `11` (a compressed encoding) and
/// 4 otherwise. Encodings of 48 bits or longer (`xxx11111` low bits) are not
/// supported by fwprof; they report 4 and then decode to [`Op::Illegal`].
#[inline]
pub fn inst_len(first_halfword: u16) -> u8 {
    if first_halfword & 3 == 3 {
        4
    } else {
        2
    }
}

/// Decodes one instruction.
///
/// If `raw & 3 != 3`, the low 16 bits are decoded as a compressed (RVC)
/// instruction and expanded to the base instruction it stands for, with
/// `len = 2` and `raw` set to those 16 bits (the upper half is ignored).
/// Otherwise `raw` is a 32-bit encoding (`len = 4`). Field meanings of the
/// result are documented in [`crate::Inst`]. Reserved or unknown encodings,
/// RV64-only instructions on RV32, and extensions beyond RV32GC/RV64GC give
/// an `Inst` with `op == Op::Illegal` (and the same `len`/`raw`); Zba, Zbb,
/// Zbc and Zbs are decoded on both XLENs (their `*w`/`.uw` forms on RV64
/// only, `zext.h` and `rev8` with each XLEN's own encoding). Register
/// fields that the instruction does not use are 0 (e.g. `rd` of a store,
/// `rs2` of `addi` or `fcvt.w.s`).
///
/// Cost: a handful of shifts and one or two `match`es; no allocation.
pub fn decode(raw: u32, xlen: Xlen) -> Inst {
    if raw & 3 != 3 {
        return decode_rvc(raw as u16, xlen);
    }
    match decode32(raw, xlen) {
        Some(mut inst) => {
            clear_unused_fields(&mut inst);
            inst
        }
        None => Inst::illegal(raw, 4),
    }
}

/// Zeroes the register fields an instruction does not read or write (they
/// hold immediate or function bits in the encoding), so that `rd`, `rs1`,
/// `rs2` can be used for dependency tracking without looking at the format.
/// `raw` keeps every bit.
fn clear_unused_fields(inst: &mut Inst) {
    use Op::*;
    match inst.op {
        // U and J formats: no source registers.
        Lui | Auipc | Jal => {
            inst.rs1 = 0;
            inst.rs2 = 0;
        }
        // B and S formats: no destination.
        Beq | Bne | Blt | Bge | Bltu | Bgeu | Sb | Sh | Sw | Sd | Fsw | Fsd => inst.rd = 0,
        // FENCE/FENCE.I ignore rd and rs1 (§2.7, §3.1); the exact SYSTEM
        // encodings have none.
        Fence | FenceI | Ecall | Ebreak | Mret | Sret | Wfi => {
            inst.rd = 0;
            inst.rs1 = 0;
            inst.rs2 = 0;
        }
        // I format, CSR accesses and unary F/D operations: no rs2 (the field
        // holds immediate bits or an operation selector).
        Jalr | Lb | Lh | Lw | Lbu | Lhu | Lwu | Ld | Flw | Fld | Addi | Slti | Sltiu | Xori
        | Ori | Andi | Slli | Srli | Srai | Addiw | Slliw | Srliw | Sraiw | Csrrw | Csrrs
        | Csrrc | Csrrwi | Csrrsi | Csrrci | FsqrtS | FsqrtD | FcvtWS | FcvtWuS | FcvtLS
        | FcvtLuS | FcvtSW | FcvtSWu | FcvtSL | FcvtSLu | FcvtWD | FcvtWuD | FcvtLD | FcvtLuD
        | FcvtDW | FcvtDWu | FcvtDL | FcvtDLu | FcvtSD | FcvtDS | FmvXW | FmvWX | FmvXD | FmvDX
        | FclassS | FclassD => inst.rs2 = 0,
        // Bit-manipulation immediates and unary operations: the rs2 field
        // holds shift-amount or selector bits.
        SlliUw | Clz | Clzw | Ctz | Ctzw | Cpop | Cpopw | SextB | SextH | ZextH | Rori | Roriw
        | OrcB | Rev8 | Bclri | Bexti | Binvi | Bseti => inst.rs2 = 0,
        _ => {}
    }
}

/// The `rd` field, bits 11:7.
#[inline]
fn rd(raw: u32) -> u8 {
    ((raw >> 7) & 31) as u8
}
/// The `rs1` field, bits 19:15.
#[inline]
fn rs1(raw: u32) -> u8 {
    ((raw >> 15) & 31) as u8
}
/// The `rs2` field, bits 24:20.
#[inline]
fn rs2(raw: u32) -> u8 {
    ((raw >> 20) & 31) as u8
}
/// The `rs3` field, bits 31:27.
#[inline]
fn rs3(raw: u32) -> u8 {
    (raw >> 27) as u8
}
/// The `funct3` field, bits 14:12 (also `rm` of F/D instructions).
#[inline]
fn funct3(raw: u32) -> u32 {
    (raw >> 12) & 7
}
/// The `funct7` field, bits 31:25.
#[inline]
fn funct7(raw: u32) -> u32 {
    raw >> 25
}
/// I-type immediate, sign-extended.
#[inline]
fn imm_i(raw: u32) -> i32 {
    (raw as i32) >> 20
}
/// S-type immediate, sign-extended.
#[inline]
fn imm_s(raw: u32) -> i32 {
    ((raw as i32) >> 25 << 5) | ((raw >> 7) & 31) as i32
}
/// B-type immediate (byte offset), sign-extended.
#[inline]
fn imm_b(raw: u32) -> i32 {
    ((raw as i32) >> 31 << 12)
        | (((raw >> 7) & 1) << 11) as i32
        | (((raw >> 25) & 0x3f) << 5) as i32
        | (((raw >> 8) & 0xf) << 1) as i32
}
/// J-type immediate (byte offset), sign-extended.
#[inline]
fn imm_j(raw: u32) -> i32 {
    ((raw as i32) >> 31 << 20)
        | (raw & 0xff000) as i32
        | (((raw >> 20) & 1) << 11) as i32
        | (((raw >> 21) & 0x3ff) << 1) as i32
}

/// Whether an F/D rounding-mode field is legal at decode time: 0..=4 are
/// static modes, 7 is "dynamic" (checked against `frm` by the executor),
/// 5 and 6 are reserved (Unprivileged ISA §11.2, Table 11.1).
#[inline]
fn rm_ok(rm: u32) -> bool {
    rm != 5 && rm != 6
}

/// Builds an `Inst` with the standard 32-bit register fields.
#[inline]
fn base(op: Op, raw: u32, imm: i32) -> Inst {
    Inst {
        op,
        rd: rd(raw),
        rs1: rs1(raw),
        rs2: rs2(raw),
        rs3: 0,
        rm: 0,
        len: 4,
        imm,
        raw,
    }
}

/// Decodes a 32-bit encoding; `None` means illegal.
fn decode32(raw: u32, xlen: Xlen) -> Option<Inst> {
    let rv64 = xlen == Xlen::Rv64;
    let f3 = funct3(raw);
    let f7 = funct7(raw);
    let inst = match raw & 0x7f {
        0x37 => base(Op::Lui, raw, (raw & 0xffff_f000) as i32),
        0x17 => base(Op::Auipc, raw, (raw & 0xffff_f000) as i32),
        0x6f => base(Op::Jal, raw, imm_j(raw)),
        0x67 if f3 == 0 => base(Op::Jalr, raw, imm_i(raw)),
        0x63 => {
            let op = match f3 {
                0 => Op::Beq,
                1 => Op::Bne,
                4 => Op::Blt,
                5 => Op::Bge,
                6 => Op::Bltu,
                7 => Op::Bgeu,
                _ => return None,
            };
            base(op, raw, imm_b(raw))
        }
        0x03 => {
            let op = match f3 {
                0 => Op::Lb,
                1 => Op::Lh,
                2 => Op::Lw,
                3 if rv64 => Op::Ld,
                4 => Op::Lbu,
                5 => Op::Lhu,
                6 if rv64 => Op::Lwu,
                _ => return None,
            };
            base(op, raw, imm_i(raw))
        }
        0x23 => {
            let op = match f3 {
                0 => Op::Sb,
                1 => Op::Sh,
                2 => Op::Sw,
                3 if rv64 => Op::Sd,
                _ => return None,
            };
            base(op, raw, imm_s(raw))
        }
        0x13 => decode_op_imm(raw, rv64)?,
        0x1b if rv64 => decode_op_imm_32(raw)?,
        0x33 => decode_op(raw, f3, f7, rv64)?,
        0x3b if rv64 => decode_op_32(raw, f3, f7)?,
        0x0f => match f3 {
            // Reserved fm/pred/succ values, rs1 and rd are ignored by base
            // implementations ("treated as normal fences", §2.7), so every
            // FENCE encoding is legal.
            0 => base(Op::Fence, raw, ((raw >> 20) & 0xfff) as i32),
            // FENCE.I: imm, rs1 and rd are likewise ignored (§3.1).
            1 => base(Op::FenceI, raw, imm_i(raw)),
            _ => return None,
        },
        0x73 => decode_system(raw, f3)?,
        0x2f => decode_amo(raw, f3, rv64)?,
        0x07 => match f3 {
            2 => base(Op::Flw, raw, imm_i(raw)),
            3 => base(Op::Fld, raw, imm_i(raw)),
            _ => return None,
        },
        0x27 => match f3 {
            2 => base(Op::Fsw, raw, imm_s(raw)),
            3 => base(Op::Fsd, raw, imm_s(raw)),
            _ => return None,
        },
        0x43 | 0x47 | 0x4b | 0x4f => decode_fma(raw, f3)?,
        0x53 => decode_op_fp(raw, f3, f7, rv64)?,
        _ => return None,
    };
    Some(inst)
}

/// OP-IMM (opcode 0x13): `addi` .. `srai`, and the immediate and unary
/// bit-manipulation instructions (Zbb `clz` .. `rev8`, `rori`; Zbs `bclri`
/// .. `bseti`). On RV32 a shift amount with bit 5 set is reserved (§2.4.1;
/// Bit-Manipulation 1.0.0 says the same of `rori` and the Zbs immediates);
/// `imm[11:6]` selects the shift, the whole `imm[11:0]` a unary operation.
fn decode_op_imm(raw: u32, rv64: bool) -> Option<Inst> {
    let imm = imm_i(raw);
    // imm[11:6] selects the shift; imm[5:0] is the shift amount, whose bit 5
    // must be zero on RV32.
    let (shamt, hi) = ((raw >> 20) & 0x3f, raw >> 26);
    if !rv64 && shamt >= 32 && matches!(funct3(raw), 1 | 5) {
        return None;
    }
    let (op, imm) = match funct3(raw) {
        0 => (Op::Addi, imm),
        2 => (Op::Slti, imm),
        3 => (Op::Sltiu, imm),
        4 => (Op::Xori, imm),
        6 => (Op::Ori, imm),
        7 => (Op::Andi, imm),
        1 if hi == 0 => (Op::Slli, shamt as i32),
        5 if hi == 0 => (Op::Srli, shamt as i32),
        5 if hi == 0x10 => (Op::Srai, shamt as i32),
        // Zbb unary operations: imm[11:0] is the whole selector.
        1 => match raw >> 20 {
            0x600 => (Op::Clz, 0),
            0x601 => (Op::Ctz, 0),
            0x602 => (Op::Cpop, 0),
            0x604 => (Op::SextB, 0),
            0x605 => (Op::SextH, 0),
            _ if hi == 0x12 => (Op::Bclri, shamt as i32),
            _ if hi == 0x1a => (Op::Binvi, shamt as i32),
            _ if hi == 0x0a => (Op::Bseti, shamt as i32),
            _ => return None,
        },
        5 => match raw >> 20 {
            0x287 => (Op::OrcB, 0),
            // rev8 has one encoding per XLEN (shamt = XLEN - 8).
            0x698 if !rv64 => (Op::Rev8, 0),
            0x6b8 if rv64 => (Op::Rev8, 0),
            _ if hi == 0x18 => (Op::Rori, shamt as i32),
            _ if hi == 0x12 => (Op::Bexti, shamt as i32),
            _ => return None,
        },
        _ => return None,
    };
    Some(base(op, raw, imm))
}

/// OP-IMM-32 (opcode 0x1b, RV64 only): `addiw`, `slliw`, `srliw`, `sraiw`,
/// and Zba's `slli.uw` (6-bit shift amount), Zbb's `clzw`, `ctzw`, `cpopw`
/// and `roriw`.
fn decode_op_imm_32(raw: u32) -> Option<Inst> {
    let shamt = ((raw >> 20) & 0x1f) as i32;
    let (op, imm) = match (funct3(raw), funct7(raw)) {
        (0, _) => (Op::Addiw, imm_i(raw)),
        (1, 0x00) => (Op::Slliw, shamt),
        (5, 0x00) => (Op::Srliw, shamt),
        (5, 0x20) => (Op::Sraiw, shamt),
        (1, 0x04 | 0x05) => (Op::SlliUw, ((raw >> 20) & 0x3f) as i32),
        (1, 0x30) => match rs2(raw) {
            0 => (Op::Clzw, 0),
            1 => (Op::Ctzw, 0),
            2 => (Op::Cpopw, 0),
            _ => return None,
        },
        (5, 0x30) => (Op::Roriw, shamt),
        _ => return None,
    };
    Some(base(op, raw, imm))
}

/// OP (opcode 0x33): RV32I register-register, the M extension, and the
/// register-register instructions of Zba, Zbb, Zbc and Zbs (plus RV32's
/// `zext.h`, which is `pack rd,rs1,zero` of Zbkb).
fn decode_op(raw: u32, f3: u32, f7: u32, rv64: bool) -> Option<Inst> {
    let op = match (f7, f3) {
        (0x00, 0) => Op::Add,
        (0x20, 0) => Op::Sub,
        (0x00, 1) => Op::Sll,
        (0x00, 2) => Op::Slt,
        (0x00, 3) => Op::Sltu,
        (0x00, 4) => Op::Xor,
        (0x00, 5) => Op::Srl,
        (0x20, 5) => Op::Sra,
        (0x00, 6) => Op::Or,
        (0x00, 7) => Op::And,
        (0x01, 0) => Op::Mul,
        (0x01, 1) => Op::Mulh,
        (0x01, 2) => Op::Mulhsu,
        (0x01, 3) => Op::Mulhu,
        (0x01, 4) => Op::Div,
        (0x01, 5) => Op::Divu,
        (0x01, 6) => Op::Rem,
        (0x01, 7) => Op::Remu,
        (0x10, 2) => Op::Sh1add,
        (0x10, 4) => Op::Sh2add,
        (0x10, 6) => Op::Sh3add,
        (0x20, 7) => Op::Andn,
        (0x20, 6) => Op::Orn,
        (0x20, 4) => Op::Xnor,
        (0x05, 6) => Op::Max,
        (0x05, 7) => Op::Maxu,
        (0x05, 4) => Op::Min,
        (0x05, 5) => Op::Minu,
        (0x04, 4) if !rv64 && rs2(raw) == 0 => Op::ZextH,
        (0x30, 1) => Op::Rol,
        (0x30, 5) => Op::Ror,
        (0x05, 1) => Op::Clmul,
        (0x05, 3) => Op::Clmulh,
        (0x05, 2) => Op::Clmulr,
        (0x24, 1) => Op::Bclr,
        (0x24, 5) => Op::Bext,
        (0x34, 1) => Op::Binv,
        (0x14, 1) => Op::Bset,
        _ => return None,
    };
    Some(base(op, raw, 0))
}

/// OP-32 (opcode 0x3b, RV64 only): `addw` .. `sraw`, the RV64M words, and
/// Zba's `.uw` forms, Zbb's `rolw`/`rorw` and RV64's `zext.h` (`packw
/// rd,rs1,zero` of Zbkb).
fn decode_op_32(raw: u32, f3: u32, f7: u32) -> Option<Inst> {
    let op = match (f7, f3) {
        (0x00, 0) => Op::Addw,
        (0x20, 0) => Op::Subw,
        (0x00, 1) => Op::Sllw,
        (0x00, 5) => Op::Srlw,
        (0x20, 5) => Op::Sraw,
        (0x01, 0) => Op::Mulw,
        (0x01, 4) => Op::Divw,
        (0x01, 5) => Op::Divuw,
        (0x01, 6) => Op::Remw,
        (0x01, 7) => Op::Remuw,
        (0x04, 0) => Op::AddUw,
        (0x10, 2) => Op::Sh1addUw,
        (0x10, 4) => Op::Sh2addUw,
        (0x10, 6) => Op::Sh3addUw,
        (0x04, 4) if rs2(raw) == 0 => Op::ZextH,
        (0x30, 1) => Op::Rolw,
        (0x30, 5) => Op::Rorw,
        _ => return None,
    };
    Some(base(op, raw, 0))
}

/// SYSTEM (opcode 0x73): `ecall`, `ebreak`, `mret`, `sret`, `wfi`,
/// `sfence.vma` (Privileged ISA 20211203, §3.3, §4.2.1) and Zicsr. Other
/// privileged instructions (`dret`, the hypervisor's) decode as illegal.
fn decode_system(raw: u32, f3: u32) -> Option<Inst> {
    let csr = ((raw >> 20) & 0xfff) as i32;
    let inst = match f3 {
        0 => match raw {
            0x0000_0073 => base(Op::Ecall, raw, 0),
            0x0010_0073 => base(Op::Ebreak, raw, 0),
            0x3020_0073 => base(Op::Mret, raw, 0),
            0x1020_0073 => base(Op::Sret, raw, 0),
            0x1050_0073 => base(Op::Wfi, raw, 0),
            // sfence.vma rs1,rs2 (Privileged ISA §4.2.1): funct7 0001001, rd 0.
            _ if raw & 0xfe00_7fff == 0x1200_0073 => base(Op::SfenceVma, raw, 0),
            _ => return None,
        },
        1 => base(Op::Csrrw, raw, csr),
        2 => base(Op::Csrrs, raw, csr),
        3 => base(Op::Csrrc, raw, csr),
        5 => base(Op::Csrrwi, raw, csr),
        6 => base(Op::Csrrsi, raw, csr),
        7 => base(Op::Csrrci, raw, csr),
        _ => return None,
    };
    Some(inst)
}

/// AMO (opcode 0x2f): the A extension (§8). `rm` receives `aq << 1 | rl`.
fn decode_amo(raw: u32, f3: u32, rv64: bool) -> Option<Inst> {
    let funct5 = raw >> 27;
    let op = match (f3, funct5) {
        (2, 0x02) if rs2(raw) == 0 => Op::LrW,
        (2, 0x03) => Op::ScW,
        (2, 0x01) => Op::AmoswapW,
        (2, 0x00) => Op::AmoaddW,
        (2, 0x04) => Op::AmoxorW,
        (2, 0x0c) => Op::AmoandW,
        (2, 0x08) => Op::AmoorW,
        (2, 0x10) => Op::AmominW,
        (2, 0x14) => Op::AmomaxW,
        (2, 0x18) => Op::AmominuW,
        (2, 0x1c) => Op::AmomaxuW,
        (3, 0x02) if rv64 && rs2(raw) == 0 => Op::LrD,
        (3, 0x03) if rv64 => Op::ScD,
        (3, 0x01) if rv64 => Op::AmoswapD,
        (3, 0x00) if rv64 => Op::AmoaddD,
        (3, 0x04) if rv64 => Op::AmoxorD,
        (3, 0x0c) if rv64 => Op::AmoandD,
        (3, 0x08) if rv64 => Op::AmoorD,
        (3, 0x10) if rv64 => Op::AmominD,
        (3, 0x14) if rv64 => Op::AmomaxD,
        (3, 0x18) if rv64 => Op::AmominuD,
        (3, 0x1c) if rv64 => Op::AmomaxuD,
        _ => return None,
    };
    let mut inst = base(op, raw, 0);
    inst.rm = ((raw >> 25) & 3) as u8;
    Some(inst)
}

/// FMADD/FMSUB/FNMSUB/FNMADD (opcodes 0x43/0x47/0x4b/0x4f), R4-type.
/// `fmt` (bits 26:25) is 0 for S and 1 for D; H and Q are not supported.
fn decode_fma(raw: u32, rm: u32) -> Option<Inst> {
    if !rm_ok(rm) {
        return None;
    }
    let double = match (raw >> 25) & 3 {
        0 => false,
        1 => true,
        _ => return None,
    };
    let op = match (raw & 0x7f, double) {
        (0x43, false) => Op::FmaddS,
        (0x47, false) => Op::FmsubS,
        (0x4b, false) => Op::FnmsubS,
        (0x4f, false) => Op::FnmaddS,
        (0x43, true) => Op::FmaddD,
        (0x47, true) => Op::FmsubD,
        (0x4b, true) => Op::FnmsubD,
        _ => Op::FnmaddD,
    };
    let mut inst = base(op, raw, 0);
    inst.rs3 = rs3(raw);
    inst.rm = rm as u8;
    Some(inst)
}

/// OP-FP (opcode 0x53): the remaining F and D instructions (§11.6-11.9,
/// §12.3-12.6). Instructions that take a rounding mode reject the reserved
/// values 5 and 6; for the others `funct3` selects the operation.
fn decode_op_fp(raw: u32, f3: u32, f7: u32, rv64: bool) -> Option<Inst> {
    let r2 = rs2(raw);
    // (op, whether funct3 is a rounding mode)
    let (op, has_rm) = match (f7, r2, f3) {
        (0x00, _, _) => (Op::FaddS, true),
        (0x04, _, _) => (Op::FsubS, true),
        (0x08, _, _) => (Op::FmulS, true),
        (0x0c, _, _) => (Op::FdivS, true),
        (0x2c, 0, _) => (Op::FsqrtS, true),
        (0x01, _, _) => (Op::FaddD, true),
        (0x05, _, _) => (Op::FsubD, true),
        (0x09, _, _) => (Op::FmulD, true),
        (0x0d, _, _) => (Op::FdivD, true),
        (0x2d, 0, _) => (Op::FsqrtD, true),
        (0x10, _, 0) => (Op::FsgnjS, false),
        (0x10, _, 1) => (Op::FsgnjnS, false),
        (0x10, _, 2) => (Op::FsgnjxS, false),
        (0x11, _, 0) => (Op::FsgnjD, false),
        (0x11, _, 1) => (Op::FsgnjnD, false),
        (0x11, _, 2) => (Op::FsgnjxD, false),
        (0x14, _, 0) => (Op::FminS, false),
        (0x14, _, 1) => (Op::FmaxS, false),
        (0x15, _, 0) => (Op::FminD, false),
        (0x15, _, 1) => (Op::FmaxD, false),
        (0x20, 1, _) => (Op::FcvtSD, true),
        (0x21, 0, _) => (Op::FcvtDS, true),
        (0x60, 0, _) => (Op::FcvtWS, true),
        (0x60, 1, _) => (Op::FcvtWuS, true),
        (0x60, 2, _) if rv64 => (Op::FcvtLS, true),
        (0x60, 3, _) if rv64 => (Op::FcvtLuS, true),
        (0x61, 0, _) => (Op::FcvtWD, true),
        (0x61, 1, _) => (Op::FcvtWuD, true),
        (0x61, 2, _) if rv64 => (Op::FcvtLD, true),
        (0x61, 3, _) if rv64 => (Op::FcvtLuD, true),
        (0x68, 0, _) => (Op::FcvtSW, true),
        (0x68, 1, _) => (Op::FcvtSWu, true),
        (0x68, 2, _) if rv64 => (Op::FcvtSL, true),
        (0x68, 3, _) if rv64 => (Op::FcvtSLu, true),
        (0x69, 0, _) => (Op::FcvtDW, true),
        (0x69, 1, _) => (Op::FcvtDWu, true),
        (0x69, 2, _) if rv64 => (Op::FcvtDL, true),
        (0x69, 3, _) if rv64 => (Op::FcvtDLu, true),
        (0x70, 0, 0) => (Op::FmvXW, false),
        (0x70, 0, 1) => (Op::FclassS, false),
        (0x71, 0, 0) if rv64 => (Op::FmvXD, false),
        (0x71, 0, 1) => (Op::FclassD, false),
        (0x78, 0, 0) => (Op::FmvWX, false),
        (0x79, 0, 0) if rv64 => (Op::FmvDX, false),
        (0x50, _, 2) => (Op::FeqS, false),
        (0x50, _, 1) => (Op::FltS, false),
        (0x50, _, 0) => (Op::FleS, false),
        (0x51, _, 2) => (Op::FeqD, false),
        (0x51, _, 1) => (Op::FltD, false),
        (0x51, _, 0) => (Op::FleD, false),
        _ => return None,
    };
    if has_rm && !rm_ok(f3) {
        return None;
    }
    let mut inst = base(op, raw, 0);
    if has_rm {
        inst.rm = f3 as u8;
    }
    Some(inst)
}
