//! Disassembly of decoded instructions into assembler text.
//!
//! Two styles:
//! * [`Style::NoAliases`] reproduces GNU objdump 2.40
//!   `objdump -d -M no-aliases` (after normalising whitespace, and without
//!   objdump's ` <symbol+off>` and `# address` annotations, which need
//!   context a single instruction does not have): compressed instructions
//!   keep their `c.` names, registers use ABI names (`s0`, not `fp`),
//!   branch and jump targets are absolute hex addresses without `0x`,
//!   CSRs are named as in [`crate::csr_name`], static rounding modes are
//!   appended (`,rtz`; nothing for `dyn`), and `fence` prints its
//!   predecessor/successor sets (`unknown` for an empty set).
//! * [`Style::Pseudo`] is the human style used by annotate: the
//!   pseudo-instructions of the RISC-V Assembly Programmer's Manual
//!   (`nop`, `li`, `mv`, `ret`, `csrr`, `fmv.s`, ...), with compressed
//!   instructions shown as the base instruction they expand to. Its
//!   differences to objdump's default output are listed in the docs of
//!   `tests/pseudo.rs`, which checks them against objdump.
//!
//! Formatting allocates one `String`; it is meant for reports, not for the
//! simulator's hot loop.

use std::fmt::Write as _;

use crate::csr_names::csr_name;
use crate::inst::{Inst, Op, Xlen};

/// Output style of [`disasm`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Style {
    /// Exactly what `objdump -d -M no-aliases` prints (binutils 2.40).
    NoAliases,
    /// Pseudo-instructions and base mnemonics for humans.
    Pseudo,
}

/// ABI names of the integer registers `x0`..`x31`.
const XREG: [&str; 32] = [
    "zero", "ra", "sp", "gp", "tp", "t0", "t1", "t2", "s0", "s1", "a0", "a1", "a2", "a3", "a4",
    "a5", "a6", "a7", "s2", "s3", "s4", "s5", "s6", "s7", "s8", "s9", "s10", "s11", "t3", "t4",
    "t5", "t6",
];

/// ABI names of the floating-point registers `f0`..`f31`.
const FREG: [&str; 32] = [
    "ft0", "ft1", "ft2", "ft3", "ft4", "ft5", "ft6", "ft7", "fs0", "fs1", "fa0", "fa1", "fa2",
    "fa3", "fa4", "fa5", "fa6", "fa7", "fs2", "fs3", "fs4", "fs5", "fs6", "fs7", "fs8", "fs9",
    "fs10", "fs11", "ft8", "ft9", "ft10", "ft11",
];

/// Integer register name (the index is masked to 5 bits).
pub(crate) fn x(r: u8) -> &'static str {
    XREG[(r & 31) as usize]
}

/// Floating-point register name (the index is masked to 5 bits).
pub(crate) fn f(r: u8) -> &'static str {
    FREG[(r & 31) as usize]
}

/// Rounding-mode operand as objdump prints it: empty for `dyn` (7).
fn rm_suffix(rm: u8) -> &'static str {
    match rm {
        0 => ",rne",
        1 => ",rtz",
        2 => ",rdn",
        3 => ",rup",
        4 => ",rmm",
        7 => "",
        _ => ",unknown",
    }
}

/// `.aq`/`.rl`/`.aqrl` suffix from `rm = aq << 1 | rl`.
fn aqrl_suffix(rm: u8) -> &'static str {
    match rm & 3 {
        0 => "",
        1 => ".rl",
        2 => ".aq",
        _ => ".aqrl",
    }
}

/// CSR operand: objdump's name or `0x` hex.
fn csr(n: i32) -> String {
    let n = (n as u32) & 0xfff;
    match csr_name(n) {
        Some(s) => s.to_string(),
        None => format!("0x{n:x}"),
    }
}

/// A fence predecessor/successor set (`iorw` letters; `unknown` if empty).
fn fence_set(bits: u32) -> String {
    if bits & 0xf == 0 {
        return "unknown".to_string();
    }
    let mut s = String::new();
    for (bit, c) in [(8, 'i'), (4, 'o'), (2, 'r'), (1, 'w')] {
        if bits & bit != 0 {
            s.push(c);
        }
    }
    s
}

/// Absolute target of a PC-relative branch or jump, truncated to XLEN.
/// Only called for branches and `jal`.
pub(crate) fn target(inst: &Inst, pc: u64, xlen: Xlen) -> String {
    format!("{:x}", inst.direct_target(pc, xlen).unwrap_or_default())
}

/// `.2byte`/`.4byte` data directive for an encoding nothing decodes.
fn data_directive(inst: &Inst) -> String {
    if inst.len == 2 {
        format!(".2byte 0x{:x}", inst.raw & 0xffff)
    } else {
        format!(".4byte 0x{:x}", inst.raw)
    }
}

/// Disassembles `inst`, located at address `pc`, for a hart of width `xlen`.
///
/// Returns one line without a trailing newline: mnemonic, one space, then
/// comma-separated operands without spaces (e.g. `"addi sp,sp,-16"`).
/// [`Op::Illegal`] prints as objdump's data directive (`.4byte 0x...`,
/// `.2byte 0x...`), except the all-zero halfword, which objdump names
/// `c.unimp` (`unimp` in [`Style::Pseudo`]). Never panics, whatever the
/// field values.
pub fn disasm(inst: &Inst, pc: u64, xlen: Xlen, style: Style) -> String {
    if inst.op == Op::Illegal {
        return match (inst.len, inst.raw, style) {
            (2, 0, Style::NoAliases) => "c.unimp".to_string(),
            (2, 0, Style::Pseudo) => "unimp".to_string(),
            _ => data_directive(inst),
        };
    }
    match style {
        Style::NoAliases if inst.len == 2 => crate::disasm_rvc::rvc_no_aliases(inst, pc, xlen),
        Style::NoAliases => base_text(inst, pc, xlen, true),
        Style::Pseudo => crate::disasm_pseudo::pseudo(inst, pc, xlen)
            .unwrap_or_else(|| base_text(inst, pc, xlen, false)),
    }
}

/// The base (non-alias, uncompressed) form of `inst`. `hex_shamt` selects
/// objdump's `0x` hex shift amounts; otherwise they are decimal.
pub(crate) fn base_text(inst: &Inst, pc: u64, xlen: Xlen, hex_shamt: bool) -> String {
    let mn = inst.op.mnemonic();
    let (rd, rs1, rs2, rs3, imm) = (inst.rd, inst.rs1, inst.rs2, inst.rs3, inst.imm);
    let rm = rm_suffix(inst.rm);
    let mut s = String::with_capacity(32);
    // `write!` into a String cannot fail; the results are ignored.
    let _ = match inst.op {
        Op::Illegal => return data_directive(inst),
        Op::Lui | Op::Auipc => write!(s, "{mn} {},0x{:x}", x(rd), (imm as u32) >> 12),
        Op::Jal => write!(s, "{mn} {},{}", x(rd), target(inst, pc, xlen)),
        Op::Jalr => write!(s, "{mn} {},{imm}({})", x(rd), x(rs1)),
        Op::Beq | Op::Bne | Op::Blt | Op::Bge | Op::Bltu | Op::Bgeu => {
            write!(s, "{mn} {},{},{}", x(rs1), x(rs2), target(inst, pc, xlen))
        }
        Op::Lb | Op::Lh | Op::Lw | Op::Lbu | Op::Lhu | Op::Lwu | Op::Ld => {
            write!(s, "{mn} {},{imm}({})", x(rd), x(rs1))
        }
        Op::Sb | Op::Sh | Op::Sw | Op::Sd => write!(s, "{mn} {},{imm}({})", x(rs2), x(rs1)),
        Op::Flw | Op::Fld => write!(s, "{mn} {},{imm}({})", f(rd), x(rs1)),
        Op::Fsw | Op::Fsd => write!(s, "{mn} {},{imm}({})", f(rs2), x(rs1)),
        Op::Addi | Op::Slti | Op::Sltiu | Op::Xori | Op::Ori | Op::Andi | Op::Addiw => {
            write!(s, "{mn} {},{},{imm}", x(rd), x(rs1))
        }
        Op::Slli
        | Op::Srli
        | Op::Srai
        | Op::Slliw
        | Op::Srliw
        | Op::Sraiw
        | Op::SlliUw
        | Op::Rori
        | Op::Roriw
        | Op::Bclri
        | Op::Bexti
        | Op::Binvi
        | Op::Bseti => {
            if hex_shamt {
                write!(s, "{mn} {},{},0x{:x}", x(rd), x(rs1), imm)
            } else {
                write!(s, "{mn} {},{},{imm}", x(rd), x(rs1))
            }
        }
        Op::Add
        | Op::Sub
        | Op::Sll
        | Op::Slt
        | Op::Sltu
        | Op::Xor
        | Op::Srl
        | Op::Sra
        | Op::Or
        | Op::And
        | Op::Addw
        | Op::Subw
        | Op::Sllw
        | Op::Srlw
        | Op::Sraw
        | Op::Mul
        | Op::Mulh
        | Op::Mulhsu
        | Op::Mulhu
        | Op::Div
        | Op::Divu
        | Op::Rem
        | Op::Remu
        | Op::Mulw
        | Op::Divw
        | Op::Divuw
        | Op::Remw
        | Op::Remuw
        | Op::AddUw
        | Op::Sh1add
        | Op::Sh2add
        | Op::Sh3add
        | Op::Sh1addUw
        | Op::Sh2addUw
        | Op::Sh3addUw
        | Op::Andn
        | Op::Orn
        | Op::Xnor
        | Op::Max
        | Op::Maxu
        | Op::Min
        | Op::Minu
        | Op::Rol
        | Op::Rolw
        | Op::Ror
        | Op::Rorw
        | Op::Clmul
        | Op::Clmulh
        | Op::Clmulr
        | Op::Bclr
        | Op::Bext
        | Op::Binv
        | Op::Bset => {
            write!(s, "{mn} {},{},{}", x(rd), x(rs1), x(rs2))
        }
        Op::Clz
        | Op::Clzw
        | Op::Ctz
        | Op::Ctzw
        | Op::Cpop
        | Op::Cpopw
        | Op::SextB
        | Op::SextH
        | Op::ZextH
        | Op::OrcB
        | Op::Rev8 => write!(s, "{mn} {},{}", x(rd), x(rs1)),
        Op::Fence => {
            let bits = imm as u32;
            if bits & 0xfff == 0x833 {
                write!(s, "fence.tso")
            } else {
                write!(s, "{mn} {},{}", fence_set(bits >> 4), fence_set(bits))
            }
        }
        Op::FenceI | Op::Ecall | Op::Ebreak | Op::Mret | Op::Sret | Op::Wfi => write!(s, "{mn}"),
        Op::SfenceVma => write!(s, "{mn} {},{}", x(rs1), x(rs2)),
        Op::Csrrw | Op::Csrrs | Op::Csrrc => {
            if inst.raw == 0xc000_1073 {
                // csrrw zero,cycle,zero: the canonical 32-bit `unimp`.
                write!(s, "unimp")
            } else {
                write!(s, "{mn} {},{},{}", x(rd), csr(imm), x(rs1))
            }
        }
        Op::Csrrwi | Op::Csrrsi | Op::Csrrci => write!(s, "{mn} {},{},{rs1}", x(rd), csr(imm)),
        Op::LrW | Op::LrD => write!(s, "{mn}{} {},({})", aqrl_suffix(inst.rm), x(rd), x(rs1)),
        Op::ScW
        | Op::ScD
        | Op::AmoswapW
        | Op::AmoaddW
        | Op::AmoxorW
        | Op::AmoandW
        | Op::AmoorW
        | Op::AmominW
        | Op::AmomaxW
        | Op::AmominuW
        | Op::AmomaxuW
        | Op::AmoswapD
        | Op::AmoaddD
        | Op::AmoxorD
        | Op::AmoandD
        | Op::AmoorD
        | Op::AmominD
        | Op::AmomaxD
        | Op::AmominuD
        | Op::AmomaxuD => write!(
            s,
            "{mn}{} {},{},({})",
            aqrl_suffix(inst.rm),
            x(rd),
            x(rs2),
            x(rs1)
        ),
        Op::FmaddS
        | Op::FmsubS
        | Op::FnmsubS
        | Op::FnmaddS
        | Op::FmaddD
        | Op::FmsubD
        | Op::FnmsubD
        | Op::FnmaddD => {
            write!(s, "{mn} {},{},{},{}{rm}", f(rd), f(rs1), f(rs2), f(rs3))
        }
        Op::FaddS
        | Op::FsubS
        | Op::FmulS
        | Op::FdivS
        | Op::FaddD
        | Op::FsubD
        | Op::FmulD
        | Op::FdivD => write!(s, "{mn} {},{},{}{rm}", f(rd), f(rs1), f(rs2)),
        Op::FsqrtS | Op::FsqrtD | Op::FcvtSD => write!(s, "{mn} {},{}{rm}", f(rd), f(rs1)),
        // binutils 2.40 knows these exact conversions only without a
        // rounding-mode operand.
        Op::FcvtDS => write!(s, "{mn} {},{}", f(rd), f(rs1)),
        Op::FcvtDW | Op::FcvtDWu => write!(s, "{mn} {},{}", f(rd), x(rs1)),
        Op::FsgnjS
        | Op::FsgnjnS
        | Op::FsgnjxS
        | Op::FminS
        | Op::FmaxS
        | Op::FsgnjD
        | Op::FsgnjnD
        | Op::FsgnjxD
        | Op::FminD
        | Op::FmaxD => {
            write!(s, "{mn} {},{},{}", f(rd), f(rs1), f(rs2))
        }
        Op::FcvtWS
        | Op::FcvtWuS
        | Op::FcvtLS
        | Op::FcvtLuS
        | Op::FcvtWD
        | Op::FcvtWuD
        | Op::FcvtLD
        | Op::FcvtLuD => write!(s, "{mn} {},{}{rm}", x(rd), f(rs1)),
        Op::FcvtSW | Op::FcvtSWu | Op::FcvtSL | Op::FcvtSLu | Op::FcvtDL | Op::FcvtDLu => {
            write!(s, "{mn} {},{}{rm}", f(rd), x(rs1))
        }
        Op::FmvXW | Op::FmvXD | Op::FclassS | Op::FclassD => {
            write!(s, "{mn} {},{}", x(rd), f(rs1))
        }
        Op::FmvWX | Op::FmvDX => write!(s, "{mn} {},{}", f(rd), x(rs1)),
        Op::FeqS | Op::FltS | Op::FleS | Op::FeqD | Op::FltD | Op::FleD => {
            write!(s, "{mn} {},{},{}", x(rd), f(rs1), f(rs2))
        }
    };
    s
}
