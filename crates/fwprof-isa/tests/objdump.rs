//! Differential test against GNU objdump (binutils 2.40, Debian's
//! `binutils-riscv64-unknown-elf`).
//!
//! Every 16-bit encoding (the 49,152 halfwords whose low bits are not `11`)
//! and 240,000 random 32-bit encodings (fixed seed, biased so that every
//! major opcode / funct3 / funct7 / rs2-selector combination of RV32GC and
//! RV64GC is hit many times) are written as `.insn` directives, assembled
//! with `riscv64-unknown-elf-as -march=rv32gc` / `-march=rv64gc` (so the ELF
//! attributes restrict objdump to exactly G and C) and disassembled with
//! `riscv64-unknown-elf-objdump -d -M no-aliases`. For each encoding:
//!
//! * if objdump decodes it, `disasm(.., Style::NoAliases)` must print the
//!   same text (whitespace normalised; objdump's ` <symbol>` and `# addr`
//!   annotations removed), unless [`reserved_but_objdump_decodes`] names
//!   it, in which case `decode` must give `Op::Illegal`;
//! * if objdump prints it as data (`.2byte`/`.4byte`), `decode` must give
//!   `Op::Illegal`, unless [`legal_but_objdump_rejects`] names it.
//!
//! Skipped (with a message) only when the binutils are not installed.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::Command;

use fwprof_isa::{decode, disasm, Op, Style, Xlen};

const AS: &str = "riscv64-unknown-elf-as";
const OBJDUMP: &str = "riscv64-unknown-elf-objdump";

/// Number of random 32-bit encodings per XLEN.
const RANDOM_32: usize = 240_000;

/// Small deterministic PRNG (SplitMix64), so the sample is the same on
/// every run without a dependency.
struct SplitMix(u64);

impl SplitMix {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}

/// The 32-bit encodings to test: each has low bits `11` and is not a
/// 48-bit-or-longer encoding (`bits[4:2] != 111`).
fn sample_32(seed: u64) -> Vec<u32> {
    // Every 32-bit major opcode (bits 6:0 = xxxxx11, excluding xxx11111).
    let opcodes: Vec<u32> = (0..32u32)
        .map(|o| (o << 2) | 3)
        .filter(|o| (o >> 2) & 7 != 7)
        .collect();
    // funct7 values used by RV32GC/RV64GC (OP, OP-32, OP-FP, shifts) and
    // AMO funct5 values with all aq/rl combinations.
    let mut funct7s: Vec<u32> = vec![
        0x00, 0x01, 0x20, 0x04, 0x05, 0x08, 0x09, 0x0c, 0x0d, 0x2c, 0x2d, 0x10, 0x11, 0x14, 0x15,
        0x20, 0x21, 0x60, 0x61, 0x68, 0x69, 0x70, 0x71, 0x78, 0x79, 0x50, 0x51, 0x02, 0x03, 0x06,
        0x07, 0x22, 0x30, 0x18, 0x19, 0x12, 0x13,
    ];
    for funct5 in [
        0x00, 0x01, 0x02, 0x03, 0x04, 0x08, 0x0c, 0x10, 0x14, 0x18, 0x1c,
    ] {
        for aqrl in 0..4 {
            funct7s.push(funct5 << 2 | aqrl);
        }
    }
    let fp_funct7s = [
        0x00, 0x01, 0x04, 0x05, 0x08, 0x09, 0x0c, 0x0d, 0x2c, 0x2d, 0x10, 0x11, 0x14, 0x15, 0x20,
        0x21, 0x60, 0x61, 0x68, 0x69, 0x70, 0x71, 0x78, 0x79, 0x50, 0x51, 0x02, 0x06, 0x72, 0x7a,
    ];
    let mut rng = SplitMix(seed);
    let mut out = Vec::with_capacity(RANDOM_32 + 64);
    // Exact SYSTEM encodings and the fences, which random bits rarely hit.
    out.extend([
        0x0000_0073,
        0x0010_0073,
        0x3020_0073,
        0x1050_0073,
        0x1020_0073,
        0x0020_0073,
        0x1200_0073,
        0x7b20_0073,
        0x0ff0_000f,
        0x8330_000f,
        0x0000_100f,
        0xc000_1073,
    ]);
    while out.len() < RANDOM_32 {
        let mut raw = rng.next() as u32;
        let opcode = opcodes[rng.below(opcodes.len() as u64) as usize];
        raw = (raw & !0x7f) | opcode;
        // A quarter of the time an OP-FP encoding with an F/D funct7 (the
        // unary ones also need a small rs2 and an exact funct3 below).
        if rng.below(4) == 0 {
            let f7 = fp_funct7s[rng.below(fp_funct7s.len() as u64) as usize];
            raw = (raw & 0x01ff_ff80) | (f7 << 25) | 0x53;
            if rng.below(2) == 0 {
                raw = (raw & !(31 << 20)) | ((rng.below(4) as u32) << 20);
            }
        } else if rng.below(2) == 0 {
            // Half of the rest, a meaningful funct7.
            let f7 = funct7s[rng.below(funct7s.len() as u64) as usize];
            raw = (raw & 0x01ff_ffff) | (f7 << 25);
        }
        // A third of the time a small rs2 (the selector of unary FP ops,
        // lr's zero rs2).
        if rng.below(3) == 0 {
            raw = (raw & !(31 << 20)) | ((rng.below(4) as u32) << 20);
        }
        // Sometimes a zero rd / rs1 (fences, HINTs, CSR aliases).
        if rng.below(8) == 0 {
            raw &= !(31 << 7);
        }
        if rng.below(8) == 0 {
            raw &= !(31 << 15);
        }
        out.push(raw);
    }
    out
}

/// One line of objdump output: the address and the normalised text.
fn parse_objdump(text: &str) -> BTreeMap<u64, String> {
    let mut map = BTreeMap::new();
    for line in text.lines() {
        let mut parts = line.splitn(3, '\t');
        let (Some(addr), Some(_hex), Some(asm)) = (parts.next(), parts.next(), parts.next()) else {
            continue;
        };
        let Some(addr) = addr.trim().strip_suffix(':') else {
            continue;
        };
        let Ok(addr) = u64::from_str_radix(addr, 16) else {
            continue;
        };
        map.insert(addr, normalise(asm));
    }
    map
}

/// Whitespace collapsed, ` <sym+off>` and `# comment` removed.
fn normalise(asm: &str) -> String {
    let asm = asm.split('#').next().unwrap_or("");
    let asm = match asm.find(" <") {
        Some(i) => &asm[..i],
        None => asm,
    };
    asm.split_whitespace().collect::<Vec<_>>().join(" ")
}

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
    match mn {
        // Supervisor, hypervisor and debug instructions: fwprof's hart has
        // only M and U mode and traps on them like hardware without S/H.
        "sret" | "uret" | "dret" | "sfence.vma" | "hret" => Some("privileged, not implemented"),
        _ => None,
    }
}

/// Encodings that are valid RV32GC/RV64GC instructions by the spec but that
/// binutils 2.40 prints as data. Returns the reason, or `None`.
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

/// Runs a command, returning stdout, or panics with its stderr.
fn run(cmd: &mut Command) -> String {
    let out = cmd.output().expect("failed to start binutils");
    assert!(
        out.status.success(),
        "{cmd:?} failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// Whether the binutils are installed.
fn have_binutils() -> bool {
    [AS, OBJDUMP]
        .iter()
        .all(|tool| Command::new(tool).arg("--version").output().is_ok())
}

/// A scratch directory under the target directory (or the system temp dir).
fn scratch(name: &str) -> PathBuf {
    let base = std::env::var_os("CARGO_TARGET_TMPDIR")
        .map(PathBuf::from)
        .unwrap_or_else(std::env::temp_dir);
    let dir = base.join(format!("fwprof-isa-objdump-{name}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("create scratch dir");
    dir
}

/// Assembles `(raw, len)` encodings for `march` and returns objdump's text
/// by address; also returns each encoding's address.
fn objdump(dir: &Path, march: &str, encodings: &[(u32, u8)]) -> (Vec<u64>, BTreeMap<u64, String>) {
    let mut src = String::from(".text\n");
    let mut addrs = Vec::with_capacity(encodings.len());
    let mut addr = 0u64;
    for &(raw, len) in encodings {
        addrs.push(addr);
        let _ = writeln!(src, ".insn {len}, 0x{raw:x}");
        addr += len as u64;
    }
    let s = dir.join(format!("{march}.s"));
    let o = dir.join(format!("{march}.o"));
    std::fs::write(&s, src).expect("write .s");
    run(Command::new(AS)
        .arg(format!("-march={march}"))
        .arg(&s)
        .arg("-o")
        .arg(&o));
    let text = run(Command::new(OBJDUMP)
        .args(["-d", "-M", "no-aliases"])
        .arg(&o));
    (addrs, parse_objdump(&text))
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
    if !have_binutils() {
        eprintln!(
            "SKIPPED: {AS}/{OBJDUMP} not installed (apt-get install binutils-riscv64-unknown-elf)"
        );
        return;
    }
    let mut encodings: Vec<(u32, u8)> = (0..=0xffffu32)
        .filter(|h| h & 3 != 3)
        .map(|h| (h, 2))
        .collect();
    encodings.extend(sample_32(seed).into_iter().map(|w| (w, 4)));
    let dir = scratch(march);
    let (addrs, dump) = objdump(&dir, march, &encodings);
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
            tally.both_illegal += 1;
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
    differential(Xlen::Rv64, "rv64gc", 0x5eed_0064);
}

#[test]
fn objdump_differential_rv32() {
    differential(Xlen::Rv32, "rv32gc", 0x5eed_0032);
}
