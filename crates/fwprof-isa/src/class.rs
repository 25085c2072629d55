//! Instruction classes, mnemonics and per-XLEN operation lists.
//!
//! Classes group operations by the functional unit and latency class a
//! timing model or a statistics pass cares about; they are a pure function
//! of [`Op`]. The table below is the single source of the mnemonic, class
//! and XLEN availability of every operation (Unprivileged ISA 20191213,
//! Chapter 24 listings; `mret`/`wfi` from the Privileged ISA 20211203 §3.3;
//! Zba/Zbb/Zbc/Zbs from the Bit-Manipulation ISA-extensions 1.0.0, Chapter 2).
//!
//! Bit-manipulation operations join the class of the hardware that usually
//! executes them: the adds, logic, counts, min/max, extensions, byte
//! operations and single-bit operations are `Alu` (one cycle in the ALU of
//! e.g. Ibex and the Rocket/BOOM cores); rotates and `slli.uw` are `Shift`
//! (a shifter; a core without a barrel shifter rotates bit by bit);
//! carry-less multiplication is `Mul` (`clmul`, the low half) and `MulH`
//! (`clmulh`, `clmulr`, the high half), as cores that reuse the multiplier
//! array for it do.

use crate::inst::Op;

/// Coarse class of an operation.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum InstClass {
    /// Integer arithmetic/logic/compare, `lui`, `auipc` (single cycle);
    /// Zba, Zbs and Zbb except the rotates.
    Alu,
    /// Integer shifts by register or immediate, including the `*w` forms;
    /// Zbb's rotates and Zba's `slli.uw`.
    Shift,
    /// Conditional branches (`beq` .. `bgeu`).
    Branch,
    /// `jal` (direct jump or call).
    Jal,
    /// `jalr` (indirect jump, call or return).
    Jalr,
    /// Integer loads (`lb` .. `ld`).
    Load,
    /// Integer stores (`sb` .. `sd`).
    Store,
    /// `mul`, `mulw`, `clmul`: low half of a product.
    Mul,
    /// `mulh`, `mulhsu`, `mulhu`, `clmulh`, `clmulr`: high half of a product.
    MulH,
    /// Integer division and remainder, including the `*w` forms.
    Div,
    /// Zicsr read/modify/write of a CSR.
    Csr,
    /// `fence`, `fence.i`.
    Fence,
    /// `ecall`, `ebreak`, `mret`, `wfi`.
    System,
    /// A extension: `lr`, `sc` and the AMOs.
    Atomic,
    /// `flw`, `fld`.
    FpLoad,
    /// `fsw`, `fsd`.
    FpStore,
    /// Floating-point add and subtract.
    FpAdd,
    /// Floating-point multiply.
    FpMul,
    /// Fused multiply-add family (`fmadd`, `fmsub`, `fnmsub`, `fnmadd`).
    FpFma,
    /// Floating-point divide.
    FpDiv,
    /// Floating-point square root.
    FpSqrt,
    /// Conversions between formats and integers (`fcvt.*`).
    FpCvt,
    /// Sign injection and bit moves between register files (`fsgnj*`, `fmv.*`).
    FpMove,
    /// Comparisons, `fmin`/`fmax` and `fclass`.
    FpCmp,
    /// [`Op::Illegal`].
    Illegal,
}

/// Generates `Op::ALL`, `Op::mnemonic`, `Op::class` and `Op::rv64_only`
/// from one table of `Variant => "mnemonic", Class, xlen` rows where xlen is
/// `both` or `rv64`.
macro_rules! op_table {
    ($($op:ident => $mn:literal, $class:ident, $xlen:ident;)*) => {
        impl Op {
            /// Every operation, in declaration order (starting with
            /// [`Op::Illegal`]).
            pub const ALL: &'static [Op] = &[$(Op::$op),*];

            /// The literal lowercase assembler mnemonic without `.aq`/`.rl`
            /// or rounding-mode suffixes (e.g. `"fcvt.w.s"`, `"amoadd.w"`,
            /// `"lr.d"`); `"illegal"` for [`Op::Illegal`].
            pub fn mnemonic(self) -> &'static str {
                match self { $(Op::$op => $mn),* }
            }

            /// The class of this operation.
            pub fn class(self) -> InstClass {
                match self { $(Op::$op => InstClass::$class),* }
            }

            /// Whether the operation exists only on RV64 (it decodes as
            /// illegal on RV32).
            pub fn rv64_only(self) -> bool {
                match self { $(Op::$op => op_table!(@rv64 $xlen)),* }
            }
        }
    };
    (@rv64 both) => { false };
    (@rv64 rv64) => { true };
}

op_table! {
    Illegal => "illegal", Illegal, both;
    Lui => "lui", Alu, both;
    Auipc => "auipc", Alu, both;
    Jal => "jal", Jal, both;
    Jalr => "jalr", Jalr, both;
    Beq => "beq", Branch, both;
    Bne => "bne", Branch, both;
    Blt => "blt", Branch, both;
    Bge => "bge", Branch, both;
    Bltu => "bltu", Branch, both;
    Bgeu => "bgeu", Branch, both;
    Lb => "lb", Load, both;
    Lh => "lh", Load, both;
    Lw => "lw", Load, both;
    Lbu => "lbu", Load, both;
    Lhu => "lhu", Load, both;
    Lwu => "lwu", Load, rv64;
    Ld => "ld", Load, rv64;
    Sb => "sb", Store, both;
    Sh => "sh", Store, both;
    Sw => "sw", Store, both;
    Sd => "sd", Store, rv64;
    Addi => "addi", Alu, both;
    Slti => "slti", Alu, both;
    Sltiu => "sltiu", Alu, both;
    Xori => "xori", Alu, both;
    Ori => "ori", Alu, both;
    Andi => "andi", Alu, both;
    Slli => "slli", Shift, both;
    Srli => "srli", Shift, both;
    Srai => "srai", Shift, both;
    Add => "add", Alu, both;
    Sub => "sub", Alu, both;
    Sll => "sll", Shift, both;
    Slt => "slt", Alu, both;
    Sltu => "sltu", Alu, both;
    Xor => "xor", Alu, both;
    Srl => "srl", Shift, both;
    Sra => "sra", Shift, both;
    Or => "or", Alu, both;
    And => "and", Alu, both;
    Addiw => "addiw", Alu, rv64;
    Slliw => "slliw", Shift, rv64;
    Srliw => "srliw", Shift, rv64;
    Sraiw => "sraiw", Shift, rv64;
    Addw => "addw", Alu, rv64;
    Subw => "subw", Alu, rv64;
    Sllw => "sllw", Shift, rv64;
    Srlw => "srlw", Shift, rv64;
    Sraw => "sraw", Shift, rv64;
    Fence => "fence", Fence, both;
    FenceI => "fence.i", Fence, both;
    Ecall => "ecall", System, both;
    Ebreak => "ebreak", System, both;
    Mret => "mret", System, both;
    Sret => "sret", System, both;
    Wfi => "wfi", System, both;
    SfenceVma => "sfence.vma", Fence, both;
    Csrrw => "csrrw", Csr, both;
    Csrrs => "csrrs", Csr, both;
    Csrrc => "csrrc", Csr, both;
    Csrrwi => "csrrwi", Csr, both;
    Csrrsi => "csrrsi", Csr, both;
    Csrrci => "csrrci", Csr, both;
    Mul => "mul", Mul, both;
    Mulh => "mulh", MulH, both;
    Mulhsu => "mulhsu", MulH, both;
    Mulhu => "mulhu", MulH, both;
    Div => "div", Div, both;
    Divu => "divu", Div, both;
    Rem => "rem", Div, both;
    Remu => "remu", Div, both;
    Mulw => "mulw", Mul, rv64;
    Divw => "divw", Div, rv64;
    Divuw => "divuw", Div, rv64;
    Remw => "remw", Div, rv64;
    Remuw => "remuw", Div, rv64;
    LrW => "lr.w", Atomic, both;
    ScW => "sc.w", Atomic, both;
    AmoswapW => "amoswap.w", Atomic, both;
    AmoaddW => "amoadd.w", Atomic, both;
    AmoxorW => "amoxor.w", Atomic, both;
    AmoandW => "amoand.w", Atomic, both;
    AmoorW => "amoor.w", Atomic, both;
    AmominW => "amomin.w", Atomic, both;
    AmomaxW => "amomax.w", Atomic, both;
    AmominuW => "amominu.w", Atomic, both;
    AmomaxuW => "amomaxu.w", Atomic, both;
    LrD => "lr.d", Atomic, rv64;
    ScD => "sc.d", Atomic, rv64;
    AmoswapD => "amoswap.d", Atomic, rv64;
    AmoaddD => "amoadd.d", Atomic, rv64;
    AmoxorD => "amoxor.d", Atomic, rv64;
    AmoandD => "amoand.d", Atomic, rv64;
    AmoorD => "amoor.d", Atomic, rv64;
    AmominD => "amomin.d", Atomic, rv64;
    AmomaxD => "amomax.d", Atomic, rv64;
    AmominuD => "amominu.d", Atomic, rv64;
    AmomaxuD => "amomaxu.d", Atomic, rv64;
    Flw => "flw", FpLoad, both;
    Fsw => "fsw", FpStore, both;
    FmaddS => "fmadd.s", FpFma, both;
    FmsubS => "fmsub.s", FpFma, both;
    FnmsubS => "fnmsub.s", FpFma, both;
    FnmaddS => "fnmadd.s", FpFma, both;
    FaddS => "fadd.s", FpAdd, both;
    FsubS => "fsub.s", FpAdd, both;
    FmulS => "fmul.s", FpMul, both;
    FdivS => "fdiv.s", FpDiv, both;
    FsqrtS => "fsqrt.s", FpSqrt, both;
    FsgnjS => "fsgnj.s", FpMove, both;
    FsgnjnS => "fsgnjn.s", FpMove, both;
    FsgnjxS => "fsgnjx.s", FpMove, both;
    FminS => "fmin.s", FpCmp, both;
    FmaxS => "fmax.s", FpCmp, both;
    FcvtWS => "fcvt.w.s", FpCvt, both;
    FcvtWuS => "fcvt.wu.s", FpCvt, both;
    FcvtLS => "fcvt.l.s", FpCvt, rv64;
    FcvtLuS => "fcvt.lu.s", FpCvt, rv64;
    FcvtSW => "fcvt.s.w", FpCvt, both;
    FcvtSWu => "fcvt.s.wu", FpCvt, both;
    FcvtSL => "fcvt.s.l", FpCvt, rv64;
    FcvtSLu => "fcvt.s.lu", FpCvt, rv64;
    FmvXW => "fmv.x.w", FpMove, both;
    FmvWX => "fmv.w.x", FpMove, both;
    FeqS => "feq.s", FpCmp, both;
    FltS => "flt.s", FpCmp, both;
    FleS => "fle.s", FpCmp, both;
    FclassS => "fclass.s", FpCmp, both;
    Fld => "fld", FpLoad, both;
    Fsd => "fsd", FpStore, both;
    FmaddD => "fmadd.d", FpFma, both;
    FmsubD => "fmsub.d", FpFma, both;
    FnmsubD => "fnmsub.d", FpFma, both;
    FnmaddD => "fnmadd.d", FpFma, both;
    FaddD => "fadd.d", FpAdd, both;
    FsubD => "fsub.d", FpAdd, both;
    FmulD => "fmul.d", FpMul, both;
    FdivD => "fdiv.d", FpDiv, both;
    FsqrtD => "fsqrt.d", FpSqrt, both;
    FsgnjD => "fsgnj.d", FpMove, both;
    FsgnjnD => "fsgnjn.d", FpMove, both;
    FsgnjxD => "fsgnjx.d", FpMove, both;
    FminD => "fmin.d", FpCmp, both;
    FmaxD => "fmax.d", FpCmp, both;
    FcvtSD => "fcvt.s.d", FpCvt, both;
    FcvtDS => "fcvt.d.s", FpCvt, both;
    FcvtWD => "fcvt.w.d", FpCvt, both;
    FcvtWuD => "fcvt.wu.d", FpCvt, both;
    FcvtLD => "fcvt.l.d", FpCvt, rv64;
    FcvtLuD => "fcvt.lu.d", FpCvt, rv64;
    FcvtDW => "fcvt.d.w", FpCvt, both;
    FcvtDWu => "fcvt.d.wu", FpCvt, both;
    FcvtDL => "fcvt.d.l", FpCvt, rv64;
    FcvtDLu => "fcvt.d.lu", FpCvt, rv64;
    FmvXD => "fmv.x.d", FpMove, rv64;
    FmvDX => "fmv.d.x", FpMove, rv64;
    FeqD => "feq.d", FpCmp, both;
    FltD => "flt.d", FpCmp, both;
    FleD => "fle.d", FpCmp, both;
    FclassD => "fclass.d", FpCmp, both;
    AddUw => "add.uw", Alu, rv64;
    Sh1add => "sh1add", Alu, both;
    Sh2add => "sh2add", Alu, both;
    Sh3add => "sh3add", Alu, both;
    Sh1addUw => "sh1add.uw", Alu, rv64;
    Sh2addUw => "sh2add.uw", Alu, rv64;
    Sh3addUw => "sh3add.uw", Alu, rv64;
    SlliUw => "slli.uw", Shift, rv64;
    Andn => "andn", Alu, both;
    Orn => "orn", Alu, both;
    Xnor => "xnor", Alu, both;
    Clz => "clz", Alu, both;
    Clzw => "clzw", Alu, rv64;
    Ctz => "ctz", Alu, both;
    Ctzw => "ctzw", Alu, rv64;
    Cpop => "cpop", Alu, both;
    Cpopw => "cpopw", Alu, rv64;
    Max => "max", Alu, both;
    Maxu => "maxu", Alu, both;
    Min => "min", Alu, both;
    Minu => "minu", Alu, both;
    SextB => "sext.b", Alu, both;
    SextH => "sext.h", Alu, both;
    ZextH => "zext.h", Alu, both;
    Rol => "rol", Shift, both;
    Rolw => "rolw", Shift, rv64;
    Ror => "ror", Shift, both;
    Rori => "rori", Shift, both;
    Roriw => "roriw", Shift, rv64;
    Rorw => "rorw", Shift, rv64;
    OrcB => "orc.b", Alu, both;
    Rev8 => "rev8", Alu, both;
    Clmul => "clmul", Mul, both;
    Clmulh => "clmulh", MulH, both;
    Clmulr => "clmulr", MulH, both;
    Bclr => "bclr", Alu, both;
    Bclri => "bclri", Alu, both;
    Bext => "bext", Alu, both;
    Bexti => "bexti", Alu, both;
    Binv => "binv", Alu, both;
    Binvi => "binvi", Alu, both;
    Bset => "bset", Alu, both;
    Bseti => "bseti", Alu, both;
}

/// The operations that exist on RV32GC with Zba/Zbb/Zbc/Zbs (every [`Op`]
/// except `Illegal` and the RV64-only ones), in declaration order.
pub fn rv32_ops() -> Vec<Op> {
    Op::ALL
        .iter()
        .copied()
        .filter(|&op| op != Op::Illegal && !op.rv64_only())
        .collect()
}

/// The operations that exist on RV64GC with Zba/Zbb/Zbc/Zbs (every [`Op`]
/// except `Illegal`), in declaration order.
pub fn rv64_ops() -> Vec<Op> {
    Op::ALL
        .iter()
        .copied()
        .filter(|&op| op != Op::Illegal)
        .collect()
}
