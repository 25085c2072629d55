//! Table tests: the assembly next to each encoding, for every [`Op`], every
//! compressed instruction, and the reserved encodings that must be illegal.
//!
//! The encodings and the `-M no-aliases` texts were produced by assembling
//! the texts with `riscv64-unknown-elf-as -march=rv64gc` (binutils 2.40)
//! and disassembling them with `objdump -d -M no-aliases`.

use std::collections::BTreeSet;

use fwprof_isa::{decode, disasm, inst_len, rv32_ops, rv64_ops, Inst, InstClass, Op, Style, Xlen};

/// `(op, pc, encoding, objdump -M no-aliases text)`, one row per `Op` in
/// declaration order.
const BASE: &[(Op, u64, u32, &str)] = &[
    (Op::Lui, 0x0, 0x12345537, "lui a0,0x12345"),
    (Op::Auipc, 0x4, 0xfffff317, "auipc t1,0xfffff"),
    (Op::Jal, 0x8, 0x001000ef, "jal ra,808"),
    (Op::Jalr, 0xc, 0x00c78067, "jalr zero,12(a5)"),
    (Op::Beq, 0x10, 0xfeb508e3, "beq a0,a1,0"),
    (Op::Bne, 0x14, 0x00941463, "bne s0,s1,1c"),
    (Op::Blt, 0x18, 0x7e62cfe3, "blt t0,t1,1016"),
    (Op::Bge, 0x1c, 0x80065063, "bge a2,zero,fffffffffffff01c"),
    (Op::Bltu, 0x20, 0x02e6e063, "bltu a3,a4,40"),
    (Op::Bgeu, 0x24, 0x0041f663, "bgeu gp,tp,30"),
    (Op::Lb, 0x28, 0xfff10503, "lb a0,-1(sp)"),
    (Op::Lh, 0x2c, 0x7ff99903, "lh s2,2047(s3)"),
    (Op::Lw, 0x30, 0x800e2383, "lw t2,-2048(t3)"),
    (Op::Lbu, 0x34, 0x0058c803, "lbu a6,5(a7)"),
    (Op::Lhu, 0x38, 0x006ada03, "lhu s4,6(s5)"),
    (Op::Lwu, 0x3c, 0x007beb03, "lwu s6,7(s7)"),
    (Op::Ld, 0x40, 0x008cbc03, "ld s8,8(s9)"),
    (Op::Sb, 0x44, 0xfea10fa3, "sb a0,-1(sp)"),
    (Op::Sh, 0x48, 0x01ad9523, "sh s10,10(s11)"),
    (Op::Sw, 0x4c, 0xffdf2623, "sw t4,-20(t5)"),
    (Op::Sd, 0x50, 0x01f13c23, "sd t6,24(sp)"),
    (Op::Addi, 0x54, 0xfd658513, "addi a0,a1,-42"),
    (Op::Slti, 0x58, 0x0645a513, "slti a0,a1,100"),
    (Op::Sltiu, 0x5c, 0x0016b613, "sltiu a2,a3,1"),
    (Op::Xori, 0x60, 0xfff7c713, "xori a4,a5,-1"),
    (Op::Ori, 0x64, 0x7ff8e813, "ori a6,a7,2047"),
    (Op::Andi, 0x68, 0x0ff4f413, "andi s0,s1,255"),
    (Op::Slli, 0x6c, 0x03f59513, "slli a0,a1,0x3f"),
    (Op::Srli, 0x70, 0x0016d613, "srli a2,a3,0x1"),
    (Op::Srai, 0x74, 0x4217d713, "srai a4,a5,0x21"),
    (Op::Add, 0x78, 0x00c58533, "add a0,a1,a2"),
    (Op::Sub, 0x7c, 0x41248433, "sub s0,s1,s2"),
    (Op::Sll, 0x80, 0x007312b3, "sll t0,t1,t2"),
    (Op::Slt, 0x84, 0x00f726b3, "slt a3,a4,a5"),
    (Op::Sltu, 0x88, 0x0128b833, "sltu a6,a7,s2"),
    (Op::Xor, 0x8c, 0x015a49b3, "xor s3,s4,s5"),
    (Op::Srl, 0x90, 0x018bdb33, "srl s6,s7,s8"),
    (Op::Sra, 0x94, 0x41bd5cb3, "sra s9,s10,s11"),
    (Op::Or, 0x98, 0x01eeee33, "or t3,t4,t5"),
    (Op::And, 0x9c, 0x0020ffb3, "and t6,ra,sp"),
    (Op::Addiw, 0xa0, 0xfff5851b, "addiw a0,a1,-1"),
    (Op::Slliw, 0xa4, 0x01f5951b, "slliw a0,a1,0x1f"),
    (Op::Srliw, 0xa8, 0x0056d61b, "srliw a2,a3,0x5"),
    (Op::Sraiw, 0xac, 0x4077d71b, "sraiw a4,a5,0x7"),
    (Op::Addw, 0xb0, 0x00c5853b, "addw a0,a1,a2"),
    (Op::Subw, 0xb4, 0x40f706bb, "subw a3,a4,a5"),
    (Op::Sllw, 0xb8, 0x0088983b, "sllw a6,a7,s0"),
    (Op::Srlw, 0xbc, 0x013954bb, "srlw s1,s2,s3"),
    (Op::Sraw, 0xc0, 0x416ada3b, "sraw s4,s5,s6"),
    (Op::Fence, 0xc4, 0x0310000f, "fence rw,w"),
    (Op::FenceI, 0xc8, 0x0000100f, "fence.i"),
    (Op::Ecall, 0xcc, 0x00000073, "ecall"),
    (Op::Ebreak, 0xd0, 0x00100073, "ebreak"),
    (Op::Mret, 0xd4, 0x30200073, "mret"),
    (Op::Sret, 0xd4, 0x10200073, "sret"),
    (Op::Wfi, 0xd8, 0x10500073, "wfi"),
    (Op::SfenceVma, 0xd8, 0x12b50073, "sfence.vma a0,a1"),
    (Op::Csrrw, 0xdc, 0x30059573, "csrrw a0,mstatus,a1"),
    (Op::Csrrs, 0xe0, 0xb0002573, "csrrs a0,mcycle,zero"),
    (Op::Csrrc, 0xe4, 0x3042b073, "csrrc zero,mie,t0"),
    (Op::Csrrwi, 0xe8, 0x305fd573, "csrrwi a0,mtvec,31"),
    (Op::Csrrsi, 0xec, 0x7c00e073, "csrrsi zero,0x7c0,1"),
    (Op::Csrrci, 0xf0, 0x00127373, "csrrci t1,fflags,4"),
    (Op::Mul, 0xf4, 0x02c58533, "mul a0,a1,a2"),
    (Op::Mulh, 0xf8, 0x02f716b3, "mulh a3,a4,a5"),
    (Op::Mulhsu, 0xfc, 0x0288a833, "mulhsu a6,a7,s0"),
    (Op::Mulhu, 0x100, 0x033934b3, "mulhu s1,s2,s3"),
    (Op::Div, 0x104, 0x036aca33, "div s4,s5,s6"),
    (Op::Divu, 0x108, 0x039c5bb3, "divu s7,s8,s9"),
    (Op::Rem, 0x10c, 0x03cded33, "rem s10,s11,t3"),
    (Op::Remu, 0x110, 0x03ff7eb3, "remu t4,t5,t6"),
    (Op::Mulw, 0x114, 0x02c5853b, "mulw a0,a1,a2"),
    (Op::Divw, 0x118, 0x02f746bb, "divw a3,a4,a5"),
    (Op::Divuw, 0x11c, 0x0288d83b, "divuw a6,a7,s0"),
    (Op::Remw, 0x120, 0x033964bb, "remw s1,s2,s3"),
    (Op::Remuw, 0x124, 0x036afa3b, "remuw s4,s5,s6"),
    (Op::LrW, 0x128, 0x1005a52f, "lr.w a0,(a1)"),
    (Op::ScW, 0x12c, 0x1ac5a52f, "sc.w.rl a0,a2,(a1)"),
    (Op::AmoswapW, 0x130, 0x0ce7a6af, "amoswap.w.aq a3,a4,(a5)"),
    (Op::AmoaddW, 0x134, 0x06b6252f, "amoadd.w.aqrl a0,a1,(a2)"),
    (Op::AmoxorW, 0x138, 0x2063a2af, "amoxor.w t0,t1,(t2)"),
    (Op::AmoandW, 0x13c, 0x6099242f, "amoand.w s0,s1,(s2)"),
    (Op::AmoorW, 0x140, 0x414aa9af, "amoor.w s3,s4,(s5)"),
    (Op::AmominW, 0x144, 0x817c2b2f, "amomin.w s6,s7,(s8)"),
    (Op::AmomaxW, 0x148, 0xa1adacaf, "amomax.w s9,s10,(s11)"),
    (Op::AmominuW, 0x14c, 0xc1df2e2f, "amominu.w t3,t4,(t5)"),
    (Op::AmomaxuW, 0x150, 0xe0112faf, "amomaxu.w t6,ra,(sp)"),
    (Op::LrD, 0x154, 0x1405b52f, "lr.d.aq a0,(a1)"),
    (Op::ScD, 0x158, 0x18c5b52f, "sc.d a0,a2,(a1)"),
    (Op::AmoswapD, 0x15c, 0x08e7b6af, "amoswap.d a3,a4,(a5)"),
    (Op::AmoaddD, 0x160, 0x02b6352f, "amoadd.d.rl a0,a1,(a2)"),
    (Op::AmoxorD, 0x164, 0x2063b2af, "amoxor.d t0,t1,(t2)"),
    (Op::AmoandD, 0x168, 0x6099342f, "amoand.d s0,s1,(s2)"),
    (Op::AmoorD, 0x16c, 0x414ab9af, "amoor.d s3,s4,(s5)"),
    (Op::AmominD, 0x170, 0x817c3b2f, "amomin.d s6,s7,(s8)"),
    (Op::AmomaxD, 0x174, 0xa1adbcaf, "amomax.d s9,s10,(s11)"),
    (Op::AmominuD, 0x178, 0xc1df3e2f, "amominu.d t3,t4,(t5)"),
    (Op::AmomaxuD, 0x17c, 0xe6113faf, "amomaxu.d.aqrl t6,ra,(sp)"),
    (Op::Flw, 0x180, 0xffc12507, "flw fa0,-4(sp)"),
    (Op::Fsw, 0x184, 0x00052427, "fsw ft0,8(a0)"),
    (Op::FmaddS, 0x188, 0x68c5f543, "fmadd.s fa0,fa1,fa2,fa3"),
    (Op::FmsubS, 0x18c, 0x18208047, "fmsub.s ft0,ft1,ft2,ft3,rne"),
    (
        Op::FnmsubS,
        0x190,
        0x9924944b,
        "fnmsub.s fs0,fs1,fs2,fs3,rtz",
    ),
    (
        Op::FnmaddS,
        0x194,
        0xf9eeae4f,
        "fnmadd.s ft8,ft9,ft10,ft11,rdn",
    ),
    (Op::FaddS, 0x198, 0x00c5b553, "fadd.s fa0,fa1,fa2,rup"),
    (Op::FsubS, 0x19c, 0x08f746d3, "fsub.s fa3,fa4,fa5,rmm"),
    (Op::FmulS, 0x1a0, 0x1148f853, "fmul.s fa6,fa7,fs4"),
    (Op::FdivS, 0x1a4, 0x197b7ad3, "fdiv.s fs5,fs6,fs7"),
    (Op::FsqrtS, 0x1a8, 0x580cfc53, "fsqrt.s fs8,fs9"),
    (Op::FsgnjS, 0x1ac, 0x20c58553, "fsgnj.s fa0,fa1,fa2"),
    (Op::FsgnjnS, 0x1b0, 0x20b59553, "fsgnjn.s fa0,fa1,fa1"),
    (Op::FsgnjxS, 0x1b4, 0x20d62553, "fsgnjx.s fa0,fa2,fa3"),
    (Op::FminS, 0x1b8, 0x28628253, "fmin.s ft4,ft5,ft6"),
    (Op::FmaxS, 0x1bc, 0x29bd13d3, "fmax.s ft7,fs10,fs11"),
    (Op::FcvtWS, 0x1c0, 0xc0051553, "fcvt.w.s a0,fa0,rtz"),
    (Op::FcvtWuS, 0x1c4, 0xc015f5d3, "fcvt.wu.s a1,fa1"),
    (Op::FcvtLS, 0x1c8, 0xc0267653, "fcvt.l.s a2,fa2"),
    (Op::FcvtLuS, 0x1cc, 0xc036a6d3, "fcvt.lu.s a3,fa3,rdn"),
    (Op::FcvtSW, 0x1d0, 0xd0057553, "fcvt.s.w fa0,a0"),
    (Op::FcvtSWu, 0x1d4, 0xd015f5d3, "fcvt.s.wu fa1,a1"),
    (Op::FcvtSL, 0x1d8, 0xd0267653, "fcvt.s.l fa2,a2"),
    (Op::FcvtSLu, 0x1dc, 0xd036b6d3, "fcvt.s.lu fa3,a3,rup"),
    (Op::FmvXW, 0x1e0, 0xe0050553, "fmv.x.w a0,fa0"),
    (Op::FmvWX, 0x1e4, 0xf0050553, "fmv.w.x fa0,a0"),
    (Op::FeqS, 0x1e8, 0xa0b52553, "feq.s a0,fa0,fa1"),
    (Op::FltS, 0x1ec, 0xa0d615d3, "flt.s a1,fa2,fa3"),
    (Op::FleS, 0x1f0, 0xa0f70653, "fle.s a2,fa4,fa5"),
    (Op::FclassS, 0x1f4, 0xe00816d3, "fclass.s a3,fa6"),
    (Op::Fld, 0x1f8, 0xff813507, "fld fa0,-8(sp)"),
    (Op::Fsd, 0x1fc, 0x00053827, "fsd ft0,16(a0)"),
    (Op::FmaddD, 0x200, 0x6ac5f543, "fmadd.d fa0,fa1,fa2,fa3"),
    (Op::FmsubD, 0x204, 0x1a208047, "fmsub.d ft0,ft1,ft2,ft3,rne"),
    (
        Op::FnmsubD,
        0x208,
        0x9b24944b,
        "fnmsub.d fs0,fs1,fs2,fs3,rtz",
    ),
    (
        Op::FnmaddD,
        0x20c,
        0xfbeece4f,
        "fnmadd.d ft8,ft9,ft10,ft11,rmm",
    ),
    (Op::FaddD, 0x210, 0x02c5f553, "fadd.d fa0,fa1,fa2"),
    (Op::FsubD, 0x214, 0x0af776d3, "fsub.d fa3,fa4,fa5"),
    (Op::FmulD, 0x218, 0x13489853, "fmul.d fa6,fa7,fs4,rtz"),
    (Op::FdivD, 0x21c, 0x1b7b7ad3, "fdiv.d fs5,fs6,fs7"),
    (Op::FsqrtD, 0x220, 0x5a0c8c53, "fsqrt.d fs8,fs9,rne"),
    (Op::FsgnjD, 0x224, 0x22c58553, "fsgnj.d fa0,fa1,fa2"),
    (Op::FsgnjnD, 0x228, 0x22c59553, "fsgnjn.d fa0,fa1,fa2"),
    (Op::FsgnjxD, 0x22c, 0x22c62553, "fsgnjx.d fa0,fa2,fa2"),
    (Op::FminD, 0x230, 0x2a628253, "fmin.d ft4,ft5,ft6"),
    (Op::FmaxD, 0x234, 0x2bbd13d3, "fmax.d ft7,fs10,fs11"),
    (Op::FcvtSD, 0x238, 0x4015f553, "fcvt.s.d fa0,fa1"),
    (Op::FcvtDS, 0x23c, 0x42058553, "fcvt.d.s fa0,fa1"),
    (Op::FcvtWD, 0x240, 0xc2051553, "fcvt.w.d a0,fa0,rtz"),
    (Op::FcvtWuD, 0x244, 0xc215f5d3, "fcvt.wu.d a1,fa1"),
    (Op::FcvtLD, 0x248, 0xc2267653, "fcvt.l.d a2,fa2"),
    (Op::FcvtLuD, 0x24c, 0xc236f6d3, "fcvt.lu.d a3,fa3"),
    (Op::FcvtDW, 0x250, 0xd2050553, "fcvt.d.w fa0,a0"),
    (Op::FcvtDWu, 0x254, 0xd21585d3, "fcvt.d.wu fa1,a1"),
    (Op::FcvtDL, 0x258, 0xd2267653, "fcvt.d.l fa2,a2"),
    (Op::FcvtDLu, 0x25c, 0xd236c6d3, "fcvt.d.lu fa3,a3,rmm"),
    (Op::FmvXD, 0x260, 0xe2050553, "fmv.x.d a0,fa0"),
    (Op::FmvDX, 0x264, 0xf2050553, "fmv.d.x fa0,a0"),
    (Op::FeqD, 0x268, 0xa2b52553, "feq.d a0,fa0,fa1"),
    (Op::FltD, 0x26c, 0xa2d615d3, "flt.d a1,fa2,fa3"),
    (Op::FleD, 0x270, 0xa2f70653, "fle.d a2,fa4,fa5"),
    (Op::FclassD, 0x274, 0xe20816d3, "fclass.d a3,fa6"),
    // Zba, Zbb, Zbc, Zbs (assembled with -march=rv64gc_zba_zbb_zbc_zbs).
    (Op::AddUw, 0x278, 0x08c5853b, "add.uw a0,a1,a2"),
    (Op::Sh1add, 0x27c, 0x20f726b3, "sh1add a3,a4,a5"),
    (Op::Sh2add, 0x280, 0x2088c833, "sh2add a6,a7,s0"),
    (Op::Sh3add, 0x284, 0x213964b3, "sh3add s1,s2,s3"),
    (Op::Sh1addUw, 0x288, 0x216aaa3b, "sh1add.uw s4,s5,s6"),
    (Op::Sh2addUw, 0x28c, 0x219c4bbb, "sh2add.uw s7,s8,s9"),
    (Op::Sh3addUw, 0x290, 0x21cded3b, "sh3add.uw s10,s11,t3"),
    (Op::SlliUw, 0x294, 0x0bff1e9b, "slli.uw t4,t5,0x3f"),
    (Op::Andn, 0x298, 0x4020ffb3, "andn t6,ra,sp"),
    (Op::Orn, 0x29c, 0x405261b3, "orn gp,tp,t0"),
    (Op::Xnor, 0x2a0, 0x4083c333, "xnor t1,t2,s0"),
    (Op::Clz, 0x2a4, 0x60059513, "clz a0,a1"),
    (Op::Clzw, 0x2a8, 0x6006961b, "clzw a2,a3"),
    (Op::Ctz, 0x2ac, 0x60179713, "ctz a4,a5"),
    (Op::Ctzw, 0x2b0, 0x6018981b, "ctzw a6,a7"),
    (Op::Cpop, 0x2b4, 0x60299913, "cpop s2,s3"),
    (Op::Cpopw, 0x2b8, 0x602a9a1b, "cpopw s4,s5"),
    (Op::Max, 0x2bc, 0x0ac5e533, "max a0,a1,a2"),
    (Op::Maxu, 0x2c0, 0x0af776b3, "maxu a3,a4,a5"),
    (Op::Min, 0x2c4, 0x0a88c833, "min a6,a7,s0"),
    (Op::Minu, 0x2c8, 0x0b3954b3, "minu s1,s2,s3"),
    (Op::SextB, 0x2cc, 0x60459513, "sext.b a0,a1"),
    (Op::SextH, 0x2d0, 0x60569613, "sext.h a2,a3"),
    (Op::ZextH, 0x2d4, 0x0807c73b, "zext.h a4,a5"),
    (Op::Rol, 0x2d8, 0x60c59533, "rol a0,a1,a2"),
    (Op::Rolw, 0x2dc, 0x60f716bb, "rolw a3,a4,a5"),
    (Op::Ror, 0x2e0, 0x6088d833, "ror a6,a7,s0"),
    (Op::Rori, 0x2e4, 0x61f95493, "rori s1,s2,0x1f"),
    (Op::Roriw, 0x2e8, 0x61fa599b, "roriw s3,s4,0x1f"),
    (Op::Rorw, 0x2ec, 0x617b5abb, "rorw s5,s6,s7"),
    (Op::OrcB, 0x2f0, 0x2875d513, "orc.b a0,a1"),
    (Op::Rev8, 0x2f4, 0x6b86d613, "rev8 a2,a3"),
    (Op::Clmul, 0x2f8, 0x0ac59533, "clmul a0,a1,a2"),
    (Op::Clmulh, 0x2fc, 0x0af736b3, "clmulh a3,a4,a5"),
    (Op::Clmulr, 0x300, 0x0a88a833, "clmulr a6,a7,s0"),
    (Op::Bclr, 0x304, 0x48c59533, "bclr a0,a1,a2"),
    (Op::Bclri, 0x308, 0x49f71693, "bclri a3,a4,0x1f"),
    (Op::Bext, 0x30c, 0x491857b3, "bext a5,a6,a7"),
    (Op::Bexti, 0x310, 0x4804d413, "bexti s0,s1,0x0"),
    (Op::Binv, 0x314, 0x69499933, "binv s2,s3,s4"),
    (Op::Binvi, 0x318, 0x681b1a93, "binvi s5,s6,0x1"),
    (Op::Bset, 0x31c, 0x299c1bb3, "bset s7,s8,s9"),
    (Op::Bseti, 0x320, 0x29ed9d13, "bseti s10,s11,0x1e"),
];

fn no_aliases(raw: u32, pc: u64, xlen: Xlen) -> String {
    disasm(&decode(raw, xlen), pc, xlen, Style::NoAliases)
}

#[test]
fn every_op_decodes_and_disassembles_on_rv64() {
    let mut seen = BTreeSet::new();
    for &(op, pc, raw, text) in BASE {
        let inst = decode(raw, Xlen::Rv64);
        assert_eq!(inst.op, op, "{raw:#010x} {text}");
        assert_eq!((inst.len, inst.raw), (4, raw), "{text}");
        assert_eq!(no_aliases(raw, pc, Xlen::Rv64), text);
        seen.insert(op);
    }
    // The table covers every operation, and only once.
    assert_eq!(seen.len(), BASE.len());
    assert_eq!(seen.into_iter().collect::<Vec<_>>(), rv64_ops());
}

#[test]
fn rv32_accepts_the_rv32_ops_and_rejects_the_rv64_only_ones() {
    for &(op, pc, raw, text) in BASE {
        let inst = decode(raw, Xlen::Rv32);
        // The table's `slli a0,a1,63` and `srai a4,a5,33` shift by >= 32,
        // which is reserved on RV32 (§2.4.1); `zext.h` and `rev8` have
        // other encodings on RV32 (checked below).
        if op.rv64_only() || matches!(raw, 0x03f59513 | 0x4217d713 | 0x0807c73b | 0x6b86d613) {
            assert_eq!(inst.op, Op::Illegal, "{text} must be illegal on RV32");
        } else {
            assert_eq!(inst.op, op, "{text}");
            // Backward targets wrap at 32 bits: 16 hex digits become 8.
            let text32 = text.replace("ffffffffffff", "ffff");
            assert_eq!(no_aliases(raw, pc, Xlen::Rv32), text32);
        }
    }
    assert_eq!(no_aliases(0x01f59513, 0, Xlen::Rv32), "slli a0,a1,0x1f");
    assert_eq!(no_aliases(0x41f7d713, 0, Xlen::Rv32), "srai a4,a5,0x1f");
    // RV32's own `zext.h` (OP, `pack` with rs2 = 0) and `rev8` (shamt 24),
    // which are illegal on RV64, where the RV64 forms are the ones above.
    for (raw, text, op) in [
        (0x0805c533, "zext.h a0,a1", Op::ZextH),
        (0x6985d513, "rev8 a0,a1", Op::Rev8),
    ] {
        assert_eq!(decode(raw, Xlen::Rv32).op, op, "{text}");
        assert_eq!(no_aliases(raw, 0, Xlen::Rv32), text);
        assert_eq!(decode(raw, Xlen::Rv64).op, Op::Illegal, "{text} on RV64");
    }
    // Bit-manipulation immediates with shamt[5] = 1 are reserved on RV32.
    for raw in [
        0x6215d513,
        0x4a859513,
        0x4835d513 | 1 << 25,
        0x6bf59513,
        0x2a059513,
    ] {
        assert_eq!(decode(raw, Xlen::Rv32).op, Op::Illegal, "{raw:#x}");
        assert_ne!(decode(raw, Xlen::Rv64).op, Op::Illegal, "{raw:#x}");
    }
}

/// Builds the expected decoded value of a base instruction.
#[allow(clippy::too_many_arguments)]
fn fields(op: Op, rd: u8, rs1: u8, rs2: u8, rs3: u8, rm: u8, imm: i32, raw: u32) -> Inst {
    Inst {
        op,
        rd,
        rs1,
        rs2,
        rs3,
        rm,
        len: 4,
        imm,
        raw,
    }
}

#[test]
fn field_conventions_of_the_contract() {
    let d = |raw| decode(raw, Xlen::Rv64);
    // lui/auipc: the shifted value.
    assert_eq!(d(0x12345537).imm, 0x12345000); // lui a0,0x12345
    assert_eq!(d(0xfffff317).imm, -4096); // auipc t1,0xfffff
                                          // jal / branches: byte offset from this instruction.
    assert_eq!((d(0x001000ef).rd, d(0x001000ef).imm), (1, 2048)); // jal ra,.+2048
    let beq = d(0xfeb508e3); // beq a0,a1,.-16
    assert_eq!((beq.rs1, beq.rs2, beq.imm), (10, 11, -16));
    assert_eq!(d(0x7e62dfe3).imm, 4094); // blt t0,t1,.+4094
    assert_eq!(d(0x80065063).imm, -4096); // bge a2,zero,.-4096
                                          // jalr, loads and stores: signed byte offsets.
    let jalr = d(0x00c78067); // jalr zero,12(a5)
    assert_eq!((jalr.rd, jalr.rs1, jalr.imm), (0, 15, 12));
    assert_eq!(d(0x800e2383).imm, -2048); // lw t2,-2048(t3)
    let sw = d(0xffdf2623); // sw t4,-20(t5)
    assert_eq!((sw.rs1, sw.rs2, sw.imm), (30, 29, -20));
    // Immediate shifts: the shift amount.
    assert_eq!(d(0x4217d713).imm, 33); // srai a4,a5,33
                                       // CSR number (unsigned) and uimm in rs1.
    let csr = d(0x305fd573); // csrrwi a0,mtvec,31
    assert_eq!((csr.imm, csr.rs1, csr.rd), (0x305, 31, 10));
    assert_eq!(d(0xb0002573).imm, 0xb00); // csrrs a0,mcycle,zero
                                          // fence: pred << 4 | succ, plus fm << 8.
    assert_eq!(d(0x0310000f).imm, 0x31); // fence rw,w
    assert_eq!(d(0x8330000f).imm, 0x833); // fence.tso
                                          // A: aq << 1 | rl in rm.
    assert_eq!(
        d(0x06b6252f),
        fields(Op::AmoaddW, 10, 12, 11, 0, 3, 0, 0x06b6252f)
    );
    assert_eq!(d(0x1205a52f).rm, 1); // lr.w.rl
    assert_eq!(d(0x1405b52f).rm, 2); // lr.d.aq
                                     // F/D: rounding mode, rs3, and x/f register numbers.
    assert_eq!(
        d(0x68c5b543),
        fields(Op::FmaddS, 10, 11, 12, 13, 3, 0, 0x68c5b543)
    );
    assert_eq!(d(0xc0059553).rm, 1); // fcvt.w.s a0,fa1,rtz
    assert_eq!(d(0x02c5f553).rm, 7); // fadd.d dyn
                                     // Instructions without a rounding mode have rm = 0.
    assert_eq!(d(0x20c58553).rm, 0); // fsgnj.s
    assert_eq!(d(0xa0b52553).rm, 0); // feq.s
}

#[test]
fn reserved_encodings_are_illegal() {
    let rv32_and_rv64: &[(u16, &str)] = &[
        (0x0000, "all-zero halfword (c.addi4spn nzuimm=0)"),
        (0x0004, "c.addi4spn with nzuimm=0, rd'=s1"),
        (0x4002, "c.lwsp with rd=0"),
        (0x8002, "c.jr with rs1=0"),
        (0x6101, "c.addi16sp with nzimm=0"),
        (0x6501, "c.lui a0 with nzimm=0"),
        (0x6001, "c.lui zero with nzimm=0"),
        (0x8000, "quadrant 0 funct3=100 is reserved"),
        (0x9c41, "c.subw/c.addw slot 10 (reserved)"),
        (0x9c61, "c.subw/c.addw slot 11 (reserved)"),
    ];
    for &(h, why) in rv32_and_rv64 {
        for xlen in [Xlen::Rv32, Xlen::Rv64] {
            let inst = decode(h as u32, xlen);
            assert_eq!(
                inst,
                Inst::illegal(h as u32, 2),
                "{h:#06x}: {why} ({xlen:?})"
            );
        }
    }
    let rv32_only: &[(u16, &str)] = &[
        (0x1082, "c.slli ra,32: shamt[5]=1 on RV32"),
        (0x9001, "c.srli s0,32: shamt[5]=1 on RV32"),
        (0x9401, "c.srai s0,32: shamt[5]=1 on RV32"),
    ];
    for &(h, why) in rv32_only {
        assert_eq!(decode(h as u32, Xlen::Rv32).op, Op::Illegal, "{why}");
        assert_ne!(decode(h as u32, Xlen::Rv64).op, Op::Illegal, "{why}");
    }
    // c.addiw with rd = 0 is reserved on RV64 (it is c.jal on RV32).
    assert_eq!(decode(0x2001, Xlen::Rv64).op, Op::Illegal);
    assert_eq!(decode(0x2001, Xlen::Rv32).op, Op::Jal);
    let words: &[(u32, &str)] = &[
        (
            0x0000_0000,
            "32-bit all-zero is c.unimp-like: decoded as RVC",
        ),
        (0xffff_ffff, "all ones"),
        (0x0000_007f, "64-bit encoding prefix"),
        (0x0000_001f, "48-bit encoding prefix"),
        (0x0000_0057, "OP-V (vector) is not in GC"),
        (0x0000_000b, "custom-0"),
        (0x0000_1067, "jalr with funct3=1"),
        (0x0000_2063, "branch funct3=2"),
        (0x0000_7003, "load funct3=7"),
        (0x0000_4023, "store funct3=4"),
        (0x0000_200f, "misc-mem funct3=2 (cbo.*, Zicbom)"),
        (0x0000_4073, "system funct3=4 (hypervisor loads)"),
        (0x0020_0073, "uret"),
        (0x0010_0173, "ebreak with rd=2"),
        (0x40b5_1533, "funct7=0x20 with funct3=1 (sll)"),
        (0x20b5_1533, "funct7=0x10 with funct3=1 (sh1add has 2)"),
        (0x60b5_1513, "clz-like selector 11 (Zbb has 0-2, 4, 5)"),
        (0x08b5_4533, "pack (Zbkb): zext.h with rs2 != 0"),
        (0x08b5_453b, "packw (Zbkb)"),
        (0x6885_d513, "rev8.h-like selector (Zbp, not ratified)"),
        (0x2805_5513, "gorci-like (Zbp)"),
        (0x4805_0533, "funct7=0x24 with funct3=0"),
        (
            0x0ac5_8533,
            "funct7=0x05 with funct3=0 (clmul..maxu use 1-7)",
        ),
        (0x1025_a52f, "lr.w with rs2=2"),
        (0x0805_452f, "amo funct3=4"),
        (0x0005_1507, "flh (Zfh)"),
        (0x0005_4507, "flq (Q)"),
        (0x04c5_8553, "fadd.h (Zfh)"),
        (0x06c5_8553, "fadd.q (Q)"),
        (0x02c5_d553, "fadd.d with rm=5"),
        (0x02c5_e553, "fadd.d with rm=6"),
        (0x5805_e553, "fsqrt.s with rm=6"),
        (0x5815_8553, "fsqrt.s with rs2=1"),
        (0x04c5_8543, "fmadd.h (fmt=2)"),
        (0x68c5_d543, "fmadd.s with rm=5"),
        (0x20c5_b553, "fsgnj.s funct3=3"),
        (0x2845_a553, "fmin/fmax.s with funct3=2"),
        (0xe005_2553, "fmv.x.w funct3=2"),
        (0xa0b5_3553, "feq.s funct3=3"),
        (0xc045_8553, "fcvt.w.s rs2=4"),
    ];
    for &(raw, why) in words {
        for xlen in [Xlen::Rv32, Xlen::Rv64] {
            let inst = decode(raw, xlen);
            assert_eq!(inst.op, Op::Illegal, "{raw:#010x}: {why} ({xlen:?})");
        }
    }
}

#[test]
fn legal_by_spec_though_unusual() {
    let d = |raw| decode(raw, Xlen::Rv64).op;
    // FENCE/FENCE.I ignore rd, rs1 and reserved fm (§2.7, §3.1).
    assert_eq!(d(0x0330_028f), Op::Fence);
    assert_eq!(d(0x1330_000f), Op::Fence);
    assert_eq!(d(0x0000_128f), Op::FenceI);
    // Exact conversions with any non-reserved rm (§12.5).
    assert_eq!(d(0x4205_f553), Op::FcvtDS); // fcvt.d.s fa0,fa1 with rm=dyn
                                            // rm = 7 (dyn) is legal at decode; the executor checks frm.
    assert_eq!(decode(0x02c5_f553, Xlen::Rv64).rm, 7);
    // csrrw zero,cycle,zero (`unimp`) decodes; writing a read-only CSR traps
    // at execution.
    assert_eq!(d(0xc000_1073), Op::Csrrw);
    assert_eq!(no_aliases(0xc000_1073, 0, Xlen::Rv64), "unimp");
}

#[test]
fn instruction_length() {
    assert_eq!(inst_len(0x0001), 2);
    assert_eq!(inst_len(0x0000), 2);
    assert_eq!(inst_len(0x1142), 2);
    assert_eq!(inst_len(0x0533), 4);
    assert_eq!(inst_len(0xffff), 4);
    for h in 0..=u16::MAX {
        assert_eq!(inst_len(h), decode(h as u32 | 0x1234_0000, Xlen::Rv64).len);
    }
}

#[test]
fn illegal_disassembles_as_data() {
    let i = decode(0x0000_0057, Xlen::Rv64);
    assert_eq!(disasm(&i, 0, Xlen::Rv64, Style::NoAliases), ".4byte 0x57");
    assert_eq!(disasm(&i, 0, Xlen::Rv64, Style::Pseudo), ".4byte 0x57");
    let h = decode(0x8000, Xlen::Rv64);
    assert_eq!(disasm(&h, 0, Xlen::Rv64, Style::NoAliases), ".2byte 0x8000");
    let z = decode(0, Xlen::Rv64);
    assert_eq!(disasm(&z, 0, Xlen::Rv64, Style::NoAliases), "c.unimp");
}

#[test]
fn classes_and_mnemonics() {
    // Mnemonics are unique literal lowercase names.
    let names: BTreeSet<&str> = Op::ALL.iter().map(|op| op.mnemonic()).collect();
    assert_eq!(names.len(), Op::ALL.len());
    for op in Op::ALL {
        let mn = op.mnemonic();
        assert_eq!(mn, mn.to_lowercase());
    }
    assert_eq!(Op::FcvtWS.mnemonic(), "fcvt.w.s");
    assert_eq!(Op::AmoaddW.mnemonic(), "amoadd.w");
    assert_eq!(Op::LrD.mnemonic(), "lr.d");
    assert_eq!(Op::FenceI.mnemonic(), "fence.i");
    // The base table's texts start with each op's mnemonic.
    for &(op, _, _, text) in BASE {
        assert!(text.starts_with(op.mnemonic()) || op == Op::Fence, "{text}");
    }
    let class = |op: Op| op.class();
    assert_eq!(class(Op::Add), InstClass::Alu);
    assert_eq!(class(Op::Lui), InstClass::Alu);
    assert_eq!(class(Op::Sraiw), InstClass::Shift);
    assert_eq!(class(Op::Bgeu), InstClass::Branch);
    assert_eq!(class(Op::Jal), InstClass::Jal);
    assert_eq!(class(Op::Jalr), InstClass::Jalr);
    assert_eq!(class(Op::Lwu), InstClass::Load);
    assert_eq!(class(Op::Sd), InstClass::Store);
    assert_eq!(class(Op::Mulw), InstClass::Mul);
    assert_eq!(class(Op::Mulhsu), InstClass::MulH);
    assert_eq!(class(Op::Remuw), InstClass::Div);
    assert_eq!(class(Op::Csrrci), InstClass::Csr);
    assert_eq!(class(Op::FenceI), InstClass::Fence);
    assert_eq!(class(Op::Wfi), InstClass::System);
    assert_eq!(class(Op::ScD), InstClass::Atomic);
    assert_eq!(class(Op::Fld), InstClass::FpLoad);
    assert_eq!(class(Op::Fsw), InstClass::FpStore);
    assert_eq!(class(Op::FsubD), InstClass::FpAdd);
    assert_eq!(class(Op::FmulS), InstClass::FpMul);
    assert_eq!(class(Op::FnmaddD), InstClass::FpFma);
    assert_eq!(class(Op::FdivS), InstClass::FpDiv);
    assert_eq!(class(Op::FsqrtD), InstClass::FpSqrt);
    assert_eq!(class(Op::FcvtDS), InstClass::FpCvt);
    assert_eq!(class(Op::FmvXD), InstClass::FpMove);
    assert_eq!(class(Op::FsgnjxS), InstClass::FpMove);
    assert_eq!(class(Op::FleD), InstClass::FpCmp);
    assert_eq!(class(Op::Illegal), InstClass::Illegal);
    assert_eq!(class(Op::Sh3addUw), InstClass::Alu);
    assert_eq!(class(Op::Bexti), InstClass::Alu);
    assert_eq!(class(Op::Rev8), InstClass::Alu);
    assert_eq!(class(Op::Rolw), InstClass::Shift);
    assert_eq!(class(Op::SlliUw), InstClass::Shift);
    assert_eq!(class(Op::Clmul), InstClass::Mul);
    assert_eq!(class(Op::Clmulr), InstClass::MulH);
    assert_eq!(Op::AddUw.mnemonic(), "add.uw");
    assert_eq!(Op::OrcB.mnemonic(), "orc.b");
}

#[test]
fn per_xlen_op_lists() {
    let rv32 = rv32_ops();
    let rv64 = rv64_ops();
    assert_eq!(rv64.len(), Op::ALL.len() - 1);
    assert!(!rv64.contains(&Op::Illegal));
    // RV64-only: lwu ld sd, 9 *w base ops, 5 *w M ops, 11 .d atomics,
    // 8 fcvt with l/lu, fmv.x.d, fmv.d.x, and of Zba/Zbb the 4 add.uw /
    // shNadd.uw, slli.uw, clzw ctzw cpopw, rolw roriw rorw.
    assert_eq!(
        rv64.len() - rv32.len(),
        3 + 9 + 5 + 11 + 8 + 2 + 4 + 1 + 3 + 3
    );
    for op in [
        Op::Ld,
        Op::Addiw,
        Op::Remuw,
        Op::AmomaxuD,
        Op::FcvtDLu,
        Op::FmvDX,
    ] {
        assert!(!rv32.contains(&op) && rv64.contains(&op), "{op:?}");
    }
    assert!(rv32.contains(&Op::FcvtDWu) && rv32.contains(&Op::AmoswapW));
}
