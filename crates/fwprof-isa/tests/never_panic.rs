//! Property tests: `decode` and `disasm` never panic, for both XLENs and
//! every input, and their results are self-consistent.

use fwprof_isa::{decode, disasm, inst_len, Inst, Op, Style, Xlen};
use proptest::prelude::*;

fn xlen() -> impl Strategy<Value = Xlen> {
    prop_oneof![Just(Xlen::Rv32), Just(Xlen::Rv64)]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(20_000))]

    #[test]
    fn decode_and_disasm_never_panic(raw in any::<u32>(), pc in any::<u64>(), xlen in xlen()) {
        let inst = decode(raw, xlen);
        prop_assert_eq!(inst.len, inst_len(raw as u16));
        if inst.len == 2 {
            prop_assert_eq!(inst.raw, raw & 0xffff);
        } else {
            prop_assert_eq!(inst.raw, raw);
        }
        prop_assert!(inst.rd < 32 && inst.rs1 < 32 && inst.rs2 < 32 && inst.rs3 < 32);
        prop_assert!(inst.rm < 8);
        for style in [Style::NoAliases, Style::Pseudo] {
            let text = disasm(&inst, pc, xlen, style);
            prop_assert!(!text.is_empty());
            prop_assert!(!text.contains('\n'));
        }
        // Unused register fields are zero, whatever the immediate bits.
        use fwprof_isa::InstClass as C;
        match inst.op.class() {
            C::Branch | C::Store | C::FpStore => prop_assert_eq!(inst.rd, 0),
            C::Load | C::FpLoad | C::Jalr | C::Csr => prop_assert_eq!(inst.rs2, 0),
            C::Fence | C::System => prop_assert_eq!((inst.rd, inst.rs1, inst.rs2), (0, 0, 0)),
            _ => {}
        }
        if matches!(inst.op, Op::Lui | Op::Auipc | Op::Jal) {
            prop_assert_eq!((inst.rs1, inst.rs2), (0, 0));
        }
        if inst.op != Op::Illegal && xlen == Xlen::Rv32 {
            prop_assert!(!inst.op.rv64_only(), "{:?} on RV32", inst.op);
        }
    }

    /// `disasm` is total over arbitrary field values too, not only over
    /// what `decode` produces.
    #[test]
    fn disasm_of_arbitrary_fields_never_panics(
        op_index in 0..Op::ALL.len(),
        rd in any::<u8>(), rs1 in any::<u8>(), rs2 in any::<u8>(), rs3 in any::<u8>(),
        rm in any::<u8>(), len in any::<u8>(), imm in any::<i32>(), raw in any::<u32>(),
        pc in any::<u64>(), xlen in xlen(),
    ) {
        let inst = Inst { op: Op::ALL[op_index], rd, rs1, rs2, rs3, rm, len, imm, raw };
        for style in [Style::NoAliases, Style::Pseudo] {
            prop_assert!(!disasm(&inst, pc, xlen, style).is_empty());
        }
    }
}
