//! Shared harness of the binutils differential tests: a deterministic
//! sample of 32-bit encodings, assembling `.insn` directives with
//! `riscv64-unknown-elf-as` and parsing `riscv64-unknown-elf-objdump -d`.
#![allow(dead_code)]

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::Command;

pub const AS: &str = "riscv64-unknown-elf-as";
pub const OBJDUMP: &str = "riscv64-unknown-elf-objdump";

/// Number of random 32-bit encodings per XLEN.
pub const RANDOM_32: usize = 240_000;

/// Small deterministic PRNG (SplitMix64), so the sample is the same on
/// every run without a dependency.
pub struct SplitMix(pub u64);

impl SplitMix {
    pub fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }
    pub fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}

/// The 32-bit encodings to test: each has low bits `11` and is not a
/// 48-bit-or-longer encoding (`bits[4:2] != 111`).
pub fn sample_32(seed: u64) -> Vec<u32> {
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
        // Zba/Zbb/Zbc/Zbs selectors not above (with shamt[5] = 1 too).
        0x24, 0x25, 0x34, 0x35, 0x31,
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
        // Zbb unary operations whose selector random bits rarely hit:
        // sext.b, sext.h, orc.b, rev8 (RV32, RV64), zext.h (RV32, RV64),
        // clzw, ctzw, cpopw.
        0x6045_9513,
        0x6055_9513,
        0x2875_d513,
        0x6985_d513,
        0x6b85_d513,
        0x0805_c533,
        0x0805_c53b,
        0x6005_951b,
        0x6015_951b,
        0x6025_951b,
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
pub fn parse_objdump(text: &str) -> BTreeMap<u64, String> {
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
pub fn normalise(asm: &str) -> String {
    let asm = asm.split('#').next().unwrap_or("");
    let asm = match asm.find(" <") {
        Some(i) => &asm[..i],
        None => asm,
    };
    asm.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// Runs a command, returning stdout, or panics with its stderr.
pub fn run(cmd: &mut Command) -> String {
    let out = cmd.output().expect("failed to start binutils");
    assert!(
        out.status.success(),
        "{cmd:?} failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// Whether the binutils are installed.
pub fn have_binutils() -> bool {
    [AS, OBJDUMP]
        .iter()
        .all(|tool| Command::new(tool).arg("--version").output().is_ok())
}

/// True when the binutils are installed; otherwise the calling test skips
/// (false), or fails when `FWPROF_REQUIRE_TOOLS=1` (set by scripts/test.sh),
/// like the other tool-dependent tests.
pub fn binutils_or_skip() -> bool {
    if have_binutils() {
        return true;
    }
    let msg =
        format!("{AS}/{OBJDUMP} not installed (apt-get install binutils-riscv64-unknown-elf)");
    if std::env::var("FWPROF_REQUIRE_TOOLS").as_deref() == Ok("1") {
        panic!("required tools missing: {msg}");
    }
    eprintln!("SKIPPED: {msg}");
    false
}

/// A scratch directory under the target directory (or the system temp dir).
pub fn scratch(name: &str) -> PathBuf {
    let base = option_env!("CARGO_TARGET_TMPDIR")
        .map(PathBuf::from)
        .unwrap_or_else(std::env::temp_dir);
    let dir = base.join(format!("fwprof-isa-objdump-{name}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("create scratch dir");
    dir
}

/// Assembles `(raw, len)` encodings for `march` and returns objdump's text
/// by address (with `-M no-aliases` when `no_aliases`); also returns each
/// encoding's address.
pub fn objdump(
    dir: &Path,
    march: &str,
    encodings: &[(u32, u8)],
    no_aliases: bool,
) -> (Vec<u64>, BTreeMap<u64, String>) {
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
    let mut cmd = Command::new(OBJDUMP);
    cmd.arg("-d");
    if no_aliases {
        cmd.args(["-M", "no-aliases"]);
    }
    let text = run(cmd.arg(&o));
    (addrs, parse_objdump(&text))
}
