//! Table tests for the compressed (RVC) instructions: the `c.` text next to
//! each encoding together with the base instruction it expands to
//! (Unprivileged ISA §16, Tables 16.5-16.7). Encodings and texts come from
//! `riscv64-unknown-elf-as` / `objdump -d -M no-aliases` (binutils 2.40).

use fwprof_isa::{decode, disasm, Inst, Op, Style, Xlen};

/// `(xlen, pc, halfword, c. text, expansion as (op, rd, rs1, rs2, imm))`.
#[allow(clippy::type_complexity)]
#[rustfmt::skip]
const RVC: &[(Xlen, u64, u16, &str, (Op, u8, u8, u8, i32))] = &[
    (Xlen::Rv64, 0x0, 0x1fe8, "c.addi4spn a0,sp,1020", (Op::Addi, 10, 2, 0, 1020)),
    (Xlen::Rv64, 0x2, 0x3cfc, "c.fld fa5,248(s1)", (Op::Fld, 15, 9, 0, 248)),
    (Xlen::Rv64, 0x4, 0x5e6c, "c.lw a1,124(a2)", (Op::Lw, 11, 12, 0, 124)),
    (Xlen::Rv64, 0x6, 0x6780, "c.ld s0,8(a5)", (Op::Ld, 8, 15, 0, 8)),
    (Xlen::Rv64, 0x8, 0xa104, "c.fsd fs1,0(a0)", (Op::Fsd, 0, 10, 9, 0)),
    (Xlen::Rv64, 0xa, 0xc334, "c.sw a3,64(a4)", (Op::Sw, 0, 14, 13, 64)),
    (Xlen::Rv64, 0xc, 0xfc7c, "c.sd a5,248(s0)", (Op::Sd, 0, 8, 15, 248)),
    (Xlen::Rv64, 0xe, 0x0001, "c.addi zero,0", (Op::Addi, 0, 0, 0, 0)), // c.nop
    (Xlen::Rv64, 0x10, 0x1901, "c.addi s2,-32", (Op::Addi, 18, 18, 0, -32)),
    (Xlen::Rv64, 0x12, 0x22fd, "c.addiw t0,31", (Op::Addiw, 5, 5, 0, 31)),
    (Xlen::Rv64, 0x14, 0x557d, "c.li a0,-1", (Op::Addi, 10, 0, 0, -1)),
    (Xlen::Rv64, 0x16, 0x617d, "c.addi16sp sp,496", (Op::Addi, 2, 2, 0, 496)),
    (Xlen::Rv64, 0x18, 0x7101, "c.addi16sp sp,-512", (Op::Addi, 2, 2, 0, -512)),
    (Xlen::Rv64, 0x1a, 0x637d, "c.lui t1,0x1f", (Op::Lui, 6, 0, 0, 0x1f000)),
    (Xlen::Rv64, 0x1c, 0x7781, "c.lui a5,0xfffe0", (Op::Lui, 15, 0, 0, -0x20000)),
    (Xlen::Rv64, 0x1e, 0x917d, "c.srli a0,0x3f", (Op::Srli, 10, 10, 0, 63)),
    (Xlen::Rv64, 0x20, 0x8585, "c.srai a1,0x1", (Op::Srai, 11, 11, 0, 1)),
    (Xlen::Rv64, 0x22, 0x9881, "c.andi s1,-32", (Op::Andi, 9, 9, 0, -32)),
    (Xlen::Rv64, 0x24, 0x8d0d, "c.sub a0,a1", (Op::Sub, 10, 10, 11, 0)),
    (Xlen::Rv64, 0x26, 0x8e35, "c.xor a2,a3", (Op::Xor, 12, 12, 13, 0)),
    (Xlen::Rv64, 0x28, 0x8f5d, "c.or a4,a5", (Op::Or, 14, 14, 15, 0)),
    (Xlen::Rv64, 0x2a, 0x8c65, "c.and s0,s1", (Op::And, 8, 8, 9, 0)),
    (Xlen::Rv64, 0x2c, 0x9d01, "c.subw a0,s0", (Op::Subw, 10, 10, 8, 0)),
    (Xlen::Rv64, 0x2e, 0x9dbd, "c.addw a1,a5", (Op::Addw, 11, 11, 15, 0)),
    (Xlen::Rv64, 0x30, 0xb001, "c.j fffffffffffff830", (Op::Jal, 0, 0, 0, -2048)),
    (Xlen::Rv64, 0x32, 0xcd7d, "c.beqz a0,130", (Op::Beq, 0, 10, 0, 254)),
    (Xlen::Rv64, 0x34, 0xf081, "c.bnez s1,ffffffffffffff34", (Op::Bne, 0, 9, 0, -256)),
    (Xlen::Rv64, 0x36, 0x1382, "c.slli t2,0x20", (Op::Slli, 7, 7, 0, 32)),
    (Xlen::Rv64, 0x38, 0x347e, "c.fldsp fs0,504(sp)", (Op::Fld, 8, 2, 0, 504)),
    (Xlen::Rv64, 0x3a, 0x50fe, "c.lwsp ra,252(sp)", (Op::Lw, 1, 2, 0, 252)),
    (Xlen::Rv64, 0x3c, 0x6d82, "c.ldsp s11,0(sp)", (Op::Ld, 27, 2, 0, 0)),
    (Xlen::Rv64, 0x3e, 0x8282, "c.jr t0", (Op::Jalr, 0, 5, 0, 0)),
    (Xlen::Rv64, 0x40, 0x857e, "c.mv a0,t6", (Op::Add, 10, 0, 31, 0)),
    (Xlen::Rv64, 0x42, 0x9002, "c.ebreak", (Op::Ebreak, 0, 0, 0, 0)),
    (Xlen::Rv64, 0x44, 0x9082, "c.jalr ra", (Op::Jalr, 1, 1, 0, 0)),
    (Xlen::Rv64, 0x46, 0x912a, "c.add sp,a0", (Op::Add, 2, 2, 10, 0)),
    (Xlen::Rv64, 0x48, 0xbffe, "c.fsdsp ft11,504(sp)", (Op::Fsd, 0, 2, 31, 504)),
    (Xlen::Rv64, 0x4a, 0xdfa2, "c.swsp s0,252(sp)", (Op::Sw, 0, 2, 8, 252)),
    (Xlen::Rv64, 0x4c, 0xe406, "c.sdsp ra,8(sp)", (Op::Sd, 0, 2, 1, 8)),
    (Xlen::Rv32, 0x0, 0x7de8, "c.flw fa0,124(a1)", (Op::Flw, 10, 11, 0, 124)),
    (Xlen::Rv32, 0x2, 0xe0c0, "c.fsw fs0,4(s1)", (Op::Fsw, 0, 9, 8, 4)),
    (Xlen::Rv32, 0x4, 0x2ffd, "c.jal 802", (Op::Jal, 1, 0, 0, 2046)),
    (Xlen::Rv32, 0x6, 0x71fe, "c.flwsp ft3,252(sp)", (Op::Flw, 3, 2, 0, 252)),
    (Xlen::Rv32, 0x8, 0xe046, "c.fswsp fa7,0(sp)", (Op::Fsw, 0, 2, 17, 0)),
    (Xlen::Rv32, 0xa, 0x867d, "c.srai a2,0x1f", (Op::Srai, 12, 12, 0, 31)),
    (Xlen::Rv32, 0x30, 0xb001, "c.j fffff830", (Op::Jal, 0, 0, 0, -2048)),
    (Xlen::Rv32, 0x3a, 0x50fe, "c.lwsp ra,252(sp)", (Op::Lw, 1, 2, 0, 252)),
    // HINTs (Table 16.3) are legal and expand like their siblings.
    (Xlen::Rv64, 0x0, 0x0005, "c.addi zero,1", (Op::Addi, 0, 0, 0, 1)),
    (Xlen::Rv64, 0x0, 0x4005, "c.li zero,1", (Op::Addi, 0, 0, 0, 1)),
    (Xlen::Rv64, 0x0, 0x0002, "c.slli64 zero", (Op::Slli, 0, 0, 0, 0)),
    (Xlen::Rv64, 0x0, 0x8001, "c.srli64 s0", (Op::Srli, 8, 8, 0, 0)),
    (Xlen::Rv64, 0x0, 0x8006, "c.mv zero,ra", (Op::Add, 0, 0, 1, 0)),
];

#[test]
fn compressed_instructions_expand_and_keep_their_names() {
    for &(xlen, pc, h, text, (op, rd, rs1, rs2, imm)) in RVC {
        // The upper half of the word is ignored for compressed encodings.
        let inst = decode(0xdead_0000 | h as u32, xlen);
        let want = Inst {
            op,
            rd,
            rs1,
            rs2,
            rs3: 0,
            rm: 0,
            len: 2,
            imm,
            raw: h as u32,
        };
        assert_eq!(inst, want, "{text}");
        assert_eq!(disasm(&inst, pc, xlen, Style::NoAliases), text);
    }
}

#[test]
fn rvc_encodings_that_differ_by_xlen() {
    // Quadrant 0/2 funct3 = 011/111: c.flw/c.fsw/c.flwsp/c.fswsp on RV32,
    // c.ld/c.sd/c.ldsp/c.sdsp on RV64.
    assert_eq!(decode(0x6780, Xlen::Rv32).op, Op::Flw);
    assert_eq!(decode(0x6780, Xlen::Rv64).op, Op::Ld);
    assert_eq!(decode(0xfc7c, Xlen::Rv32).op, Op::Fsw);
    assert_eq!(decode(0xfc7c, Xlen::Rv64).op, Op::Sd);
    assert_eq!(decode(0x6d82, Xlen::Rv32).op, Op::Flw);
    assert_eq!(decode(0x6d82, Xlen::Rv64).op, Op::Ld);
    assert_eq!(decode(0xe406, Xlen::Rv32).op, Op::Fsw);
    assert_eq!(decode(0xe406, Xlen::Rv64).op, Op::Sd);
    // Quadrant 1 funct3 = 001: c.jal on RV32, c.addiw on RV64.
    assert_eq!(decode(0x22fd, Xlen::Rv32).op, Op::Jal);
    assert_eq!(decode(0x22fd, Xlen::Rv64).op, Op::Addiw);
    // c.flwsp with rd = 0 names f0 and is legal; c.ldsp with rd = 0 is reserved.
    assert_eq!(decode(0x6002, Xlen::Rv32).op, Op::Flw);
    assert_eq!(decode(0x6002, Xlen::Rv64).op, Op::Illegal);
    // c.subw/c.addw exist only on RV64.
    assert_eq!(decode(0x9d01, Xlen::Rv32).op, Op::Illegal);
    assert_eq!(decode(0x9dbd, Xlen::Rv32).op, Op::Illegal);
}
