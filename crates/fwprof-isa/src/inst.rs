//! The decoded instruction: a small `Copy` value shared by the executor, the
//! disassembler and the statistics passes.
//!
//! Field conventions (RISC-V Unprivileged ISA 20191213, Chapter 2 and 16):
//! * `rd`, `rs1`, `rs2`, `rs3` are register numbers 0..=31. For F/D
//!   instructions they name `f` registers where the operand is a
//!   floating-point register and `x` registers otherwise (e.g. `fcvt.w.s`:
//!   `rd` is an `x` register, `rs1` an `f` register).
//! * `imm` is the sign-extended immediate in bytes for loads, stores, `addi`
//!   and friends, the byte offset (relative to this instruction's PC) for
//!   branches and `jal`, the already-shifted value (`imm[31:12] << 12`) for
//!   `lui`/`auipc`, the shift amount for immediate shifts (including
//!   `slli.uw`, `rori`, `roriw`), the bit index of `bclri`/`bexti`/`binvi`/
//!   `bseti`, 0 for the unary bit-manipulation operations (`clz` ..
//!   `rev8`), the CSR number (0..=0xfff, unsigned) for Zicsr instructions,
//!   and `pred << 4 | succ` (plus `fm << 8`) for `fence`.
//! * For `csrrwi`/`csrrsi`/`csrrci` the 5-bit unsigned immediate `uimm` is in `rs1`.
//! * `rm` is the rounding-mode field (0..=7) of F/D instructions, and the
//!   `aq << 1 | rl` bits of A instructions; 0 otherwise.
//! * `len` is the instruction length in bytes: 2 for compressed (RVC)
//!   encodings, 4 otherwise. Compressed encodings are expanded to the base
//!   instruction they stand for (Unprivileged ISA §16); `raw` keeps the
//!   original bits (low 16 bits for RVC) so the disassembler can name them.

/// Every operation fwprof executes. One variant per mnemonic of RV32GC/RV64GC
/// (RVC expands to these) and of the bit-manipulation extensions Zba, Zbb,
/// Zbc and Zbs, plus `Illegal` for encodings that must trap.
#[allow(missing_docs)]
#[rustfmt::skip] // grouped by extension on purpose
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[repr(u8)]
pub enum Op {
    /// An encoding that is not a valid RV32GC/RV64GC instruction for the
    /// decoder's XLEN; executing it raises illegal-instruction (mcause 2).
    Illegal,
    // RV32I / RV64I base (Unprivileged ISA §2, §5)
    Lui, Auipc, Jal, Jalr,
    Beq, Bne, Blt, Bge, Bltu, Bgeu,
    Lb, Lh, Lw, Lbu, Lhu, Lwu, Ld,
    Sb, Sh, Sw, Sd,
    Addi, Slti, Sltiu, Xori, Ori, Andi, Slli, Srli, Srai,
    Add, Sub, Sll, Slt, Sltu, Xor, Srl, Sra, Or, And,
    Addiw, Slliw, Srliw, Sraiw, Addw, Subw, Sllw, Srlw, Sraw,
    Fence, FenceI, Ecall, Ebreak,
    // Privileged (Privileged ISA 20211203, §3.3)
    Mret, Sret, Wfi, SfenceVma,
    // Zicsr (§9)
    Csrrw, Csrrs, Csrrc, Csrrwi, Csrrsi, Csrrci,
    // M (§7)
    Mul, Mulh, Mulhsu, Mulhu, Div, Divu, Rem, Remu,
    Mulw, Divw, Divuw, Remw, Remuw,
    // A (§8)
    LrW, ScW, AmoswapW, AmoaddW, AmoxorW, AmoandW, AmoorW, AmominW, AmomaxW, AmominuW, AmomaxuW,
    LrD, ScD, AmoswapD, AmoaddD, AmoxorD, AmoandD, AmoorD, AmominD, AmomaxD, AmominuD, AmomaxuD,
    // F (§11)
    Flw, Fsw,
    FmaddS, FmsubS, FnmsubS, FnmaddS,
    FaddS, FsubS, FmulS, FdivS, FsqrtS,
    FsgnjS, FsgnjnS, FsgnjxS, FminS, FmaxS,
    FcvtWS, FcvtWuS, FcvtLS, FcvtLuS,
    FcvtSW, FcvtSWu, FcvtSL, FcvtSLu,
    FmvXW, FmvWX, FeqS, FltS, FleS, FclassS,
    // D (§12)
    Fld, Fsd,
    FmaddD, FmsubD, FnmsubD, FnmaddD,
    FaddD, FsubD, FmulD, FdivD, FsqrtD,
    FsgnjD, FsgnjnD, FsgnjxD, FminD, FmaxD,
    FcvtSD, FcvtDS,
    FcvtWD, FcvtWuD, FcvtLD, FcvtLuD,
    FcvtDW, FcvtDWu, FcvtDL, FcvtDLu,
    FmvXD, FmvDX, FeqD, FltD, FleD, FclassD,
    // Zba (Bit-Manipulation ISA-extensions 1.0.0, §2.1)
    AddUw, Sh1add, Sh2add, Sh3add, Sh1addUw, Sh2addUw, Sh3addUw, SlliUw,
    // Zbb (§2.2)
    Andn, Orn, Xnor, Clz, Clzw, Ctz, Ctzw, Cpop, Cpopw,
    Max, Maxu, Min, Minu, SextB, SextH, ZextH,
    Rol, Rolw, Ror, Rori, Roriw, Rorw, OrcB, Rev8,
    // Zbc (§2.3)
    Clmul, Clmulh, Clmulr,
    // Zbs (§2.4)
    Bclr, Bclri, Bext, Bexti, Binv, Binvi, Bset, Bseti,
}

/// One decoded instruction. `Copy`, 16 bytes; see the module docs for what
/// each field holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Inst {
    /// The operation.
    pub op: Op,
    /// Destination register number (0..=31).
    pub rd: u8,
    /// First source register number, or `uimm` for the CSR-immediate forms.
    pub rs1: u8,
    /// Second source register number.
    pub rs2: u8,
    /// Third source register (fused multiply-add only).
    pub rs3: u8,
    /// Rounding mode (F/D) or `aq<<1|rl` (A); 0 otherwise.
    pub rm: u8,
    /// Length in bytes: 2 (RVC) or 4.
    pub len: u8,
    /// Immediate, see module docs.
    pub imm: i32,
    /// The raw encoding (low 16 bits for RVC).
    pub raw: u32,
}

impl Inst {
    /// An illegal instruction of the given length and raw bits.
    pub const fn illegal(raw: u32, len: u8) -> Inst {
        Inst {
            op: Op::Illegal,
            rd: 0,
            rs1: 0,
            rs2: 0,
            rs3: 0,
            rm: 0,
            len,
            imm: 0,
            raw,
        }
    }

    /// The absolute target of a PC-relative transfer at `pc` (a conditional
    /// branch, taken or not, or `jal`, and their compressed forms): `pc +
    /// imm`, wrapped to `xlen` as the hart computes it; `None` for any
    /// other instruction. Byte address.
    pub fn direct_target(&self, pc: u64, xlen: Xlen) -> Option<u64> {
        use crate::InstClass as C;
        if !matches!(self.op.class(), C::Branch | C::Jal) {
            return None;
        }
        let t = pc.wrapping_add(self.imm as i64 as u64);
        Some(match xlen {
            Xlen::Rv32 => t & 0xffff_ffff,
            Xlen::Rv64 => t,
        })
    }

    /// True if the instruction writes integer register `rd` (an `x`
    /// register: not an `f` register, a store, a branch or a fence, whose
    /// `rd` field names no `x` register), and `rd` is not `zero`.
    pub fn writes_x(&self) -> bool {
        use crate::InstClass as C;
        match self.op.class() {
            C::Store | C::FpStore | C::Branch | C::Fence | C::FpLoad => false,
            C::FpAdd
            | C::FpMul
            | C::FpFma
            | C::FpDiv
            | C::FpSqrt
            | C::FpMove
            | C::FpCmp
            | C::FpCvt => {
                self.rd != 0
                    && matches!(
                        self.op,
                        Op::FcvtWS
                            | Op::FcvtWuS
                            | Op::FcvtLS
                            | Op::FcvtLuS
                            | Op::FmvXW
                            | Op::FeqS
                            | Op::FltS
                            | Op::FleS
                            | Op::FclassS
                            | Op::FcvtWD
                            | Op::FcvtWuD
                            | Op::FcvtLD
                            | Op::FcvtLuD
                            | Op::FmvXD
                            | Op::FeqD
                            | Op::FltD
                            | Op::FleD
                            | Op::FclassD
                    )
            }
            _ => self.rd != 0,
        }
    }
}

/// Register width of the hart the code is decoded for.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Xlen {
    /// RV32: 32-bit `x` registers.
    Rv32,
    /// RV64: 64-bit `x` registers.
    Rv64,
}
