//! Differential test against GNU objdump (binutils 2.40, Debian's
//! `binutils-riscv64-unknown-elf`).
//!
//! Every 16-bit encoding (the 49,152 halfwords whose low bits are not `11`)
//! and 240,000 random 32-bit encodings (fixed seed, biased so that every
//! major opcode / funct3 / funct7 / rs2-selector combination of RV32GC and
//! RV64GC is hit many times) are written as `.insn` directives, assembled
//! with `riscv64-unknown-elf-as -march=rv32gc_zba_zbb_zbc_zbs` /
//! `-march=rv64gc_zba_zbb_zbc_zbs` (so the ELF attributes restrict objdump
//! to exactly G, C and the four bit-manipulation extensions fwprof
//! implements) and disassembled with
//! `riscv64-unknown-elf-objdump -d -M no-aliases`. For each encoding:
//!
//! * if objdump decodes it, `disasm(.., Style::NoAliases)` must print the
//!   same text (whitespace normalised; objdump's ` <symbol>` and `# addr`
//!   annotations removed), unless [`reserved_but_objdump_decodes`] names
//!   it, in which case `decode` must give `Op::Illegal`;
//! * if objdump prints it as data (`.2byte`/`.4byte`), `decode` must give
//!   `Op::Illegal`, unless [`legal_but_objdump_rejects`] names it.
//!
//! Skipped (with a message) only when the binutils are not installed, and
//! then a failure under `FWPROF_REQUIRE_TOOLS=1` (scripts/test.sh).

mod common;

use std::collections::BTreeMap;

use common::{binutils_or_skip, objdump, sample_32, scratch};

use fwprof_isa::{decode, disasm, Op, Style, Xlen};

/// Encodings that binutils 2.40 disassembles although they are reserved
/// (or outside what fwprof's hart implements); `decode` must return
/// `Op::Illegal` for them. Returns the reason, or `None`.
fn reserved_but_objdump_decodes(raw: u32, len: u8, xlen: Xlen, text: &str) -> Option<&'static str> {
    let mn = text.split(' ').next().unwrap_or("");
    if len == 2 {
        let h = raw as u16;
        let bit12 = (h >> 12) & 1;
        return match (h & 3, h >> 13) {
            // c.addi16sp with nzimm = 0: reserved (Table 16.6).
            (1, 3) if (h >> 7) & 31 == 2 => Some("c.addi16sp with nzimm=0 is reserved"),
            // RV32C shifts with shamt[5] = 1: reserved for custom use (§16.5).
            (2, 0) if xlen == Xlen::Rv32 && bit12 == 1 => {
                Some("RV32C shift with shamt[5]=1 is reserved")
            }
            (1, 4) if xlen == Xlen::Rv32 && bit12 == 1 && (h >> 11) & 1 == 0 => {
                Some("RV32C shift with shamt[5]=1 is reserved")
            }
            _ => None,
        };
    }
    if text.ends_with(",unknown") {
        return Some("rounding mode 5/6 is reserved (Table 11.1)");
    }
    if xlen == Xlen::Rv32 && matches!(mn, "slli" | "srli" | "srai") && (raw >> 25) & 1 == 1 {
        return Some("RV32I shift with shamt[5]=1 is reserved (§2.4.1)");
    }
    // Bit-Manipulation 1.0.0, the `rori` and `bclri`/`bexti`/`binvi`/`bseti`
    // pages: "For RV32, the encodings corresponding to shamt[5]=1 are
    // reserved" (QEMU 7.2 raises illegal instruction for them too).
    if xlen == Xlen::Rv32
        && matches!(mn, "rori" | "bclri" | "bexti" | "binvi" | "bseti")
        && (raw >> 25) & 1 == 1
    {
        return Some("RV32 bit-manipulation immediate with shamt[5]=1 is reserved");
    }
    match mn {
        // N-extension, hypervisor and debug instructions: fwprof's hart has
        // M, S and U mode and traps on them like hardware without N/H/Sdext.
        "uret" | "dret" | "hret" => Some("privileged, not implemented"),
        _ => None,
    }
}

/// Encodings that are valid RV32GC/RV64GC (or Zba/Zbb/Zbc/Zbs) instructions
/// by the spec but that binutils 2.40 prints as data. Returns the reason, or `None`.
fn legal_but_objdump_rejects(raw: u32, len: u8, xlen: Xlen) -> Option<&'static str> {
    let inst = decode(raw, xlen);
    if len == 2 {
        return None;
    }
    match inst.op {
        // §2.7: reserved fm, rs1 and rd of FENCE are ignored by base
        // implementations ("treated as normal fences").
        Op::Fence => Some("fence with nonzero rd/rs1/reserved fm is a normal fence"),
        // §3.1: imm, rs1, rd of FENCE.I are ignored for forward compatibility.
        Op::FenceI => Some("fence.i with nonzero imm/rs1/rd"),
        // binutils 2.40 only knows these exact conversions with rm = 0
        // (rne), but every non-reserved rm is a legal encoding (§12.5).
        Op::FcvtDS | Op::FcvtDW | Op::FcvtDWu if (raw >> 12) & 7 != 0 => {
            Some("exact fcvt.d.* with rm != 0")
        }
        _ => None,
    }
}

/// Counts of the comparison, for the summary.
#[derive(Default, Debug)]
struct Tally {
    same_text: usize,
    both_illegal: usize,
    reserved_exceptions: BTreeMap<&'static str, usize>,
    legal_exceptions: BTreeMap<&'static str, usize>,
}

fn differential(xlen: Xlen, march: &str, seed: u64) {
    if !binutils_or_skip() {
        return;
    }
    let mut encodings: Vec<(u32, u8)> = (0..=0xffffu32)
        .filter(|h| h & 3 != 3)
        .map(|h| (h, 2))
        .collect();
    encodings.extend(sample_32(seed).into_iter().map(|w| (w, 4)));
    let dir = scratch(march);
    let (addrs, dump) = objdump(&dir, march, &encodings, true);
    let mut tally = Tally::default();
    let mut matched_ops = std::collections::BTreeSet::new();
    // Failures grouped by (objdump mnemonic, our mnemonic): count, example.
    let mut failures: BTreeMap<(String, String), (usize, String)> = BTreeMap::new();
    let mut fail = |theirs: &str, ours: &str, msg: String| {
        let key = (
            theirs.split(' ').next().unwrap_or("").to_string(),
            ours.split(' ').next().unwrap_or("").to_string(),
        );
        failures.entry(key).or_insert((0, msg)).0 += 1;
    };
    for (&(raw, len), &pc) in encodings.iter().zip(&addrs) {
        let Some(theirs) = dump.get(&pc) else {
            fail(
                "",
                "",
                format!("{raw:#x}: objdump printed nothing at {pc:#x}"),
            );
            continue;
        };
        let inst = decode(raw, xlen);
        assert_eq!(inst.len, len, "{raw:#x}: length");
        let ours = disasm(&inst, pc, xlen, Style::NoAliases);
        let objdump_decoded = !theirs.starts_with(".2byte") && !theirs.starts_with(".4byte");
        if objdump_decoded {
            if ours == *theirs {
                tally.same_text += 1;
                matched_ops.insert(inst.op);
            } else if let Some(why) = reserved_but_objdump_decodes(raw, len, xlen, theirs) {
                if inst.op == Op::Illegal {
                    *tally.reserved_exceptions.entry(why).or_default() += 1;
                } else {
                    fail(
                        theirs,
                        &ours,
                        format!(
                            "{raw:#x}: objdump `{theirs}` ({why}) but we decode {:?}",
                            inst.op
                        ),
                    );
                }
            } else {
                fail(
                    theirs,
                    &ours,
                    format!(
                        "{raw:#x}: objdump `{theirs}`, ours `{ours}` ({:?})",
                        inst.op
                    ),
                );
            }
        } else if inst.op == Op::Illegal {
            // Both print the same data directive.
            if ours == *theirs {
                tally.both_illegal += 1;
            } else {
                fail(
                    theirs,
                    &ours,
                    format!("{raw:#x}: objdump `{theirs}`, ours `{ours}`"),
                );
            }
        } else if let Some(why) = legal_but_objdump_rejects(raw, len, xlen) {
            *tally.legal_exceptions.entry(why).or_default() += 1;
        } else {
            fail(
                theirs,
                &ours,
                format!("{raw:#x}: objdump `{theirs}` but we decode `{ours}`"),
            );
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
    eprintln!("{march}: {tally:#?}");
    assert!(
        failures.is_empty(),
        "{march}: {} kinds of mismatch (count, example):\n{}",
        failures.len(),
        failures
            .values()
            .map(|(n, example)| format!("{n:6} {example}"))
            .collect::<Vec<_>>()
            .join("\n")
    );
    // The comparison must have covered real ground: every operation of this
    // XLEN was seen and matched objdump at least once.
    let ops = if xlen == Xlen::Rv64 {
        fwprof_isa::rv64_ops()
    } else {
        fwprof_isa::rv32_ops()
    };
    let missing: Vec<_> = ops.iter().filter(|op| !matched_ops.contains(op)).collect();
    assert!(missing.is_empty(), "{march}: never matched: {missing:?}");
    assert!(
        tally.same_text > 100_000,
        "{march}: only {} matched",
        tally.same_text
    );
    assert!(
        tally.both_illegal > 10_000,
        "{march}: only {} illegal",
        tally.both_illegal
    );
}

#[test]
fn objdump_differential_rv64() {
    differential(Xlen::Rv64, "rv64gc_zba_zbb_zbc_zbs", 0x5eed_0064);
}

#[test]
fn objdump_differential_rv32() {
    differential(Xlen::Rv32, "rv32gc_zba_zbb_zbc_zbs", 0x5eed_0032);
}
