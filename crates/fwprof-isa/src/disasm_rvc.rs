//! `objdump -M no-aliases` text of compressed (RVC) instructions.
//!
//! The `c.` mnemonic is recovered from the 16 raw bits kept in
//! [`Inst::raw`] (Unprivileged ISA §16, Tables 16.5-16.7); the operands come
//! from the expanded fields. Operand shapes follow binutils 2.40
//! (`opcodes/riscv-opc.c`): e.g. `c.addi4spn a0,sp,16`, `c.lui a0,0xfffe1`,
//! `c.srli a0,0x3`, `c.slli64 a0` for a zero shift, `c.lwsp a0,4(sp)`.

use crate::disasm::{f, target, x};
use crate::inst::{Inst, Op, Xlen};

/// The `c.` name of a compressed encoding, from its quadrant, `funct3` and
/// (where needed) further bits and the XLEN. Returns `None` for encodings
/// that are not compressed instructions.
pub(crate) fn rvc_mnemonic(h: u16, xlen: Xlen) -> Option<&'static str> {
    let rv64 = xlen == Xlen::Rv64;
    let f3 = h >> 13;
    let bit12 = (h >> 12) & 1;
    Some(match (h & 3, f3) {
        (0, 0) => "c.addi4spn",
        (0, 1) => "c.fld",
        (0, 2) => "c.lw",
        (0, 3) if rv64 => "c.ld",
        (0, 3) => "c.flw",
        (0, 5) => "c.fsd",
        (0, 6) => "c.sw",
        (0, 7) if rv64 => "c.sd",
        (0, 7) => "c.fsw",
        (1, 0) => "c.addi",
        (1, 1) if rv64 => "c.addiw",
        (1, 1) => "c.jal",
        (1, 2) => "c.li",
        (1, 3) if (h >> 7) & 31 == 2 => "c.addi16sp",
        (1, 3) => "c.lui",
        (1, 4) => match ((h >> 10) & 3, bit12, (h >> 5) & 3) {
            (0, _, _) => "c.srli",
            (1, _, _) => "c.srai",
            (2, _, _) => "c.andi",
            (_, 0, 0) => "c.sub",
            (_, 0, 1) => "c.xor",
            (_, 0, 2) => "c.or",
            (_, 0, _) => "c.and",
            (_, _, 0) => "c.subw",
            (_, _, 1) => "c.addw",
            _ => return None,
        },
        (1, 5) => "c.j",
        (1, 6) => "c.beqz",
        (1, 7) => "c.bnez",
        (2, 0) => "c.slli",
        (2, 1) => "c.fldsp",
        (2, 2) => "c.lwsp",
        (2, 3) if rv64 => "c.ldsp",
        (2, 3) => "c.flwsp",
        (2, 4) => match (bit12, (h >> 7) & 31, (h >> 2) & 31) {
            (0, _, 0) => "c.jr",
            (0, _, _) => "c.mv",
            (_, 0, 0) => "c.ebreak",
            (_, _, 0) => "c.jalr",
            _ => "c.add",
        },
        (2, 5) => "c.fsdsp",
        (2, 6) => "c.swsp",
        (2, 7) if rv64 => "c.sdsp",
        (2, 7) => "c.fswsp",
        _ => return None,
    })
}

/// `objdump -M no-aliases` text of a decoded (non-illegal) compressed
/// instruction.
pub(crate) fn rvc_no_aliases(inst: &Inst, pc: u64, xlen: Xlen) -> String {
    let h = inst.raw as u16;
    let Some(mn) = rvc_mnemonic(h, xlen) else {
        return format!(".2byte 0x{h:x}");
    };
    let (rd, rs1, rs2, imm) = (inst.rd, inst.rs1, inst.rs2, inst.imm);
    match mn {
        "c.addi4spn" => format!("{mn} {},sp,{imm}", x(rd)),
        "c.fld" | "c.flw" => format!("{mn} {},{imm}({})", f(rd), x(rs1)),
        "c.lw" | "c.ld" => format!("{mn} {},{imm}({})", x(rd), x(rs1)),
        "c.fsd" | "c.fsw" => format!("{mn} {},{imm}({})", f(rs2), x(rs1)),
        "c.sw" | "c.sd" => format!("{mn} {},{imm}({})", x(rs2), x(rs1)),
        "c.addi" | "c.addiw" | "c.li" | "c.andi" => format!("{mn} {},{imm}", x(rd)),
        "c.jal" | "c.j" => format!("{mn} {}", target(inst, pc, xlen)),
        "c.addi16sp" => format!("{mn} sp,{imm}"),
        "c.lui" => format!("{mn} {},0x{:x}", x(rd), ((imm as u32) >> 12) & 0xfffff),
        "c.srli" | "c.srai" | "c.slli" if imm == 0 => format!("{mn}64 {}", x(rd)),
        "c.srli" | "c.srai" | "c.slli" => format!("{mn} {},0x{imm:x}", x(rd)),
        "c.beqz" | "c.bnez" => format!("{mn} {},{}", x(rs1), target(inst, pc, xlen)),
        "c.fldsp" | "c.flwsp" => format!("{mn} {},{imm}(sp)", f(rd)),
        "c.lwsp" | "c.ldsp" => format!("{mn} {},{imm}(sp)", x(rd)),
        "c.fsdsp" | "c.fswsp" => format!("{mn} {},{imm}(sp)", f(rs2)),
        "c.swsp" | "c.sdsp" => format!("{mn} {},{imm}(sp)", x(rs2)),
        "c.jr" | "c.jalr" => format!("{mn} {}", x(rs1)),
        "c.ebreak" => mn.to_string(),
        // c.mv, c.add, c.sub, c.xor, c.or, c.and, c.subw, c.addw
        _ if inst.op != Op::Illegal => format!("{mn} {},{}", x(rd), x(rs2)),
        _ => format!(".2byte 0x{h:x}"),
    }
}
