//! [`Style::Pseudo`](crate::Style::Pseudo) aliases: the pseudo-instructions
//! of the RISC-V Assembly Programmer's Manual (riscv-asm-manual, "Pseudo
//! instructions" tables) and of the Unprivileged ISA 20191213 Chapter 25
//! (Tables 25.2-25.3), and `zext.w` of Zba (Bit-Manipulation 1.0.0, the
//! `add.uw` page). Anything without an alias falls back to the base form
//! with decimal shift amounts.

use crate::disasm::{f, target, x};
use crate::inst::{Inst, Op, Xlen};

/// The CSR-access aliases `rdcycle`, `rdtime`, `rdinstret` (and their `h`
/// halves on RV32) for `csrrs rd,CSR,zero`.
fn counter_alias(csr: i32, xlen: Xlen) -> Option<&'static str> {
    Some(match (csr, xlen) {
        (0xc00, _) => "rdcycle",
        (0xc01, _) => "rdtime",
        (0xc02, _) => "rdinstret",
        (0xc80, Xlen::Rv32) => "rdcycleh",
        (0xc81, Xlen::Rv32) => "rdtimeh",
        (0xc82, Xlen::Rv32) => "rdinstreth",
        _ => return None,
    })
}

/// The floating-point CSR alias stem for `fcsr` (`csr`), `frm` (`rm`) and
/// `fflags` (`flags`), used to build `frcsr`/`fscsr`/`frrm`/`fsrm`/
/// `frflags`/`fsflags` and the immediate forms `fsrmi`/`fsflagsi`.
fn fp_csr_alias(csr: i32) -> Option<(&'static str, &'static str, &'static str)> {
    Some(match csr {
        0x001 => ("frflags", "fsflags", "fsflagsi"),
        0x002 => ("frrm", "fsrm", "fsrmi"),
        0x003 => ("frcsr", "fscsr", ""),
        _ => return None,
    })
}

/// The pseudo-instruction text for `inst`, or `None` if it has none and the
/// base form should be printed.
pub(crate) fn pseudo(inst: &Inst, pc: u64, xlen: Xlen) -> Option<String> {
    let (rd, rs1, rs2, imm) = (inst.rd, inst.rs1, inst.rs2, inst.imm);
    let csr_text = |n: i32| {
        let n = (n as u32) & 0xfff;
        crate::csr_names::csr_name(n).map_or_else(|| format!("0x{n:x}"), str::to_string)
    };
    Some(match inst.op {
        Op::Addi if rd == 0 && rs1 == 0 && imm == 0 => "nop".to_string(),
        // objdump: no operands when both are x0, `rs1` alone when rs2 is x0.
        Op::SfenceVma if rs1 == 0 && rs2 == 0 => "sfence.vma".to_string(),
        Op::SfenceVma if rs2 == 0 => format!("sfence.vma {}", x(rs1)),
        Op::Addi if rs1 == 0 => format!("li {},{imm}", x(rd)),
        Op::Addi if imm == 0 => format!("mv {},{}", x(rd), x(rs1)),
        Op::Add if rs1 == 0 => format!("mv {},{}", x(rd), x(rs2)),
        Op::Addiw if imm == 0 => format!("sext.w {},{}", x(rd), x(rs1)),
        Op::AddUw if rs2 == 0 => format!("zext.w {},{}", x(rd), x(rs1)),
        Op::Xori if imm == -1 => format!("not {},{}", x(rd), x(rs1)),
        Op::Sltiu if imm == 1 => format!("seqz {},{}", x(rd), x(rs1)),
        Op::Sub if rs1 == 0 => format!("neg {},{}", x(rd), x(rs2)),
        Op::Subw if rs1 == 0 => format!("negw {},{}", x(rd), x(rs2)),
        Op::Sltu if rs1 == 0 => format!("snez {},{}", x(rd), x(rs2)),
        Op::Slt if rs2 == 0 => format!("sltz {},{}", x(rd), x(rs1)),
        Op::Slt if rs1 == 0 => format!("sgtz {},{}", x(rd), x(rs2)),
        Op::Beq if rs2 == 0 => format!("beqz {},{}", x(rs1), target(inst, pc, xlen)),
        Op::Bne if rs2 == 0 => format!("bnez {},{}", x(rs1), target(inst, pc, xlen)),
        Op::Bge if rs1 == 0 => format!("blez {},{}", x(rs2), target(inst, pc, xlen)),
        Op::Bge if rs2 == 0 => format!("bgez {},{}", x(rs1), target(inst, pc, xlen)),
        Op::Blt if rs2 == 0 => format!("bltz {},{}", x(rs1), target(inst, pc, xlen)),
        Op::Blt if rs1 == 0 => format!("bgtz {},{}", x(rs2), target(inst, pc, xlen)),
        Op::Jal if rd == 0 => format!("j {}", target(inst, pc, xlen)),
        Op::Jal if rd == 1 => format!("jal {}", target(inst, pc, xlen)),
        Op::Jalr if rd == 0 && rs1 == 1 && imm == 0 => "ret".to_string(),
        Op::Jalr if rd == 0 && imm == 0 => format!("jr {}", x(rs1)),
        Op::Jalr if rd == 1 && imm == 0 => format!("jalr {}", x(rs1)),
        Op::Jalr if imm == 0 => format!("jalr {},{}", x(rd), x(rs1)),
        Op::Jalr if rd == 0 => format!("jr {imm}({})", x(rs1)),
        Op::Jalr if rd == 1 => format!("jalr {imm}({})", x(rs1)),
        Op::Fence if imm & 0xfff == 0xff => "fence".to_string(),
        Op::Csrrs if rs1 == 0 => match (counter_alias(imm, xlen), fp_csr_alias(imm)) {
            (Some(name), _) => format!("{name} {}", x(rd)),
            (_, Some((read, _, _))) => format!("{read} {}", x(rd)),
            _ => format!("csrr {},{}", x(rd), csr_text(imm)),
        },
        Op::Csrrw if inst.raw == 0xc000_1073 => "unimp".to_string(),
        Op::Csrrw => match (fp_csr_alias(imm), rd) {
            (Some((_, write, _)), 0) => format!("{write} {}", x(rs1)),
            (Some((_, write, _)), _) => format!("{write} {},{}", x(rd), x(rs1)),
            (None, 0) => format!("csrw {},{}", csr_text(imm), x(rs1)),
            (None, _) => return None,
        },
        Op::Csrrwi => match (fp_csr_alias(imm), rd) {
            (Some((_, _, write_imm)), 0) if !write_imm.is_empty() => {
                format!("{write_imm} {rs1}")
            }
            (Some((_, _, write_imm)), _) if !write_imm.is_empty() => {
                format!("{write_imm} {},{rs1}", x(rd))
            }
            (_, 0) => format!("csrwi {},{rs1}", csr_text(imm)),
            _ => return None,
        },
        Op::Csrrs if rd == 0 => format!("csrs {},{}", csr_text(imm), x(rs1)),
        Op::Csrrc if rd == 0 => format!("csrc {},{}", csr_text(imm), x(rs1)),
        Op::Csrrsi if rd == 0 => format!("csrsi {},{rs1}", csr_text(imm)),
        Op::Csrrci if rd == 0 => format!("csrci {},{rs1}", csr_text(imm)),
        Op::FsgnjS | Op::FsgnjnS | Op::FsgnjxS | Op::FsgnjD | Op::FsgnjnD | Op::FsgnjxD
            if rs1 == rs2 =>
        {
            let mn = match inst.op {
                Op::FsgnjS => "fmv.s",
                Op::FsgnjnS => "fneg.s",
                Op::FsgnjxS => "fabs.s",
                Op::FsgnjD => "fmv.d",
                Op::FsgnjnD => "fneg.d",
                _ => "fabs.d",
            };
            format!("{mn} {},{}", f(rd), f(rs1))
        }
        _ => return None,
    })
}
