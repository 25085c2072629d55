//! Tests of [`Style::Pseudo`].
//!
//! Differences between `Style::Pseudo` and the default output of Debian's
//! `riscv64-unknown-elf-objdump -d` (binutils 2.40, i.e. without
//! `-M no-aliases`); everything else is printed identically:
//!
//! 1. Immediate forms keep their own mnemonic. objdump 2.40 prints the
//!    register-form mnemonic with an immediate operand for `addi`, `ori`,
//!    `andi`, `addiw`, `slli`, `srli`, `srai`, `slliw`, `srliw`, `sraiw`,
//!    `csrrwi`, `csrrsi`, `csrrci`, the aliases `csrwi`, `csrsi`,
//!    `csrci`, and the bit-manipulation immediates `rori`, `roriw`,
//!    `bclri`, `bexti`, `binvi`, `bseti` (`add a0,a1,-3`, `sll a0,a1,0x3`,
//!    `csrw mstatus,5`, `ror a0,a1,0x21`); we print `addi a0,a1,-3`,
//!    `slli a0,a1,3`, `csrwi mstatus,5`, `rori a0,a1,33`. This includes the
//!    expansions of `c.addi`, `c.addi16sp`, `c.addi4spn`, `c.andi`,
//!    `c.addiw`, `c.slli`, `c.srli`, `c.srai`.
//! 2. Shift amounts and bit indices are decimal (`slli a0,a1,3`,
//!    `slli.uw a0,a1,5`, `bseti a0,a1,7`), objdump prints hex (`0x3`).
//! 3. `andi rd,rs,255` stays `andi`; objdump 2.40 prints the alias
//!    `zext.b rd,rs` (for every `-march`, Zbb or not).
//! 4. `add rd,zero,rs` prints as `mv rd,rs` for the 32-bit encoding too;
//!    objdump does so only for `c.mv`.
//! 5. `fsrmi`/`fsflagsi` with `rd = zero` omit the destination
//!    (`fsrmi 2`); objdump prints `fsrmi zero,2`.
//! 6. No ` <symbol+offset>` after branch targets and no `# address`
//!    comments (a single instruction has no symbol table or neighbours).
//! 7. Compressed HINTs (Unprivileged ISA §16.7, Table 16.3: `c.nop` with a
//!    nonzero immediate, `c.addi` with a zero immediate, `c.li`, `c.lui`,
//!    `c.mv`, `c.add`, `c.slli` with `rd = zero`, and shifts by 0) show the
//!    base instruction they expand to (`li zero,1`, `mv ra,ra`,
//!    `srli s0,s0,0`); objdump keeps the `c.` name (`c.nop 1`, `c.li zero,1`,
//!    `c.srli64 s0`) or prints `add ra,ra,0`.
//!
//! Test `pseudo_differs_from_objdump_default_as_documented` asserts a sample
//! of these; `pseudo_matches_objdump_default_but_for_documented_differences`
//! checks, when binutils are installed, that over all compressed encodings
//! and a large random sample of 32-bit ones every difference is one of
//! 1-5 or 7 (6 is removed before comparing). Encodings that objdump prints
//! as data, or that fwprof decodes as illegal, are covered by
//! `tests/objdump.rs` instead.

mod common;

use std::collections::BTreeMap;

use common::{binutils_or_skip, objdump, sample_32, scratch};
use fwprof_isa::{decode, disasm, Op, Style, Xlen};

fn pseudo(raw: u32, pc: u64, xlen: Xlen) -> String {
    disasm(&decode(raw, xlen), pc, xlen, Style::Pseudo)
}

/// `(raw, pc, ours, objdump default)` samples of each documented difference.
const DIFFERENCES: &[(u32, u64, &str, &str)] = &[
    (0xffd58513, 0, "addi a0,a1,-3", "add a0,a1,-3"), // 1
    (0x7ff8e813, 0, "ori a6,a7,2047", "or a6,a7,2047"), // 1
    (0x713d, 0, "addi sp,sp,-32", "add sp,sp,-32"),   // 1, c.addi16sp
    (0x0028, 0, "addi a0,sp,8", "add a0,sp,8"),       // 1, c.addi4spn
    (0x890d, 0, "andi a0,a0,3", "and a0,a0,3"),       // 1, c.andi
    (0x250d, 0, "addiw a0,a0,3", "addw a0,a0,3"),     // 1, c.addiw
    (0x3002d073, 0, "csrwi mstatus,5", "csrw mstatus,5"), // 1
    (0x3001e573, 0, "csrrsi a0,mstatus,3", "csrrs a0,mstatus,3"), // 1
    (0x00359513, 0, "slli a0,a1,3", "sll a0,a1,0x3"), // 1, 2
    (0x4217d713, 0, "srai a4,a5,33", "sra a4,a5,0x21"), // 1, 2
    (0x050e, 0, "slli a0,a0,3", "sll a0,a0,0x3"),     // 1, 2, c.slli
    (0x0ff4f413, 0, "andi s0,s1,255", "zext.b s0,s1"), // 3
    (0x6215d513, 0, "rori a0,a1,33", "ror a0,a1,0x21"), // 1, 2
    (0x6075d51b, 0, "roriw a0,a1,7", "rorw a0,a1,0x7"), // 1, 2
    (0x4a859513, 0, "bclri a0,a1,40", "bclr a0,a1,0x28"), // 1, 2
    (0x0855951b, 0, "slli.uw a0,a1,5", "slli.uw a0,a1,0x5"), // 2
    (0x00b00533, 0, "mv a0,a1", "add a0,zero,a1"),    // 4
    (0x00215073, 0, "fsrmi 2", "fsrmi zero,2"),       // 5
    (0x0010d073, 0, "fsflagsi 1", "fsflagsi zero,1"), // 5
    (0x0005, 0, "li zero,1", "c.nop 1"),              // 7
    (0x0081, 0, "mv ra,ra", "add ra,ra,0"),           // 7
    (0x8001, 0, "srli s0,s0,0", "c.srli64 s0"),       // 7
    (0x4005, 0, "li zero,1", "c.li zero,1"),          // 7
];

/// `(raw, pc, text)`: pseudo-instructions printed exactly like objdump.
const SAME_AS_OBJDUMP: &[(u32, u64, &str)] = &[
    (0x00000013, 0x0, "nop"),
    (0x0001, 0x0, "nop"),
    (0x00500513, 0x4, "li a0,5"),
    (0x450d, 0x4, "li a0,3"),
    (0x00058513, 0x8, "mv a0,a1"),
    (0x852e, 0x2, "mv a0,a1"),
    (0x0005851b, 0x10, "sext.w a0,a1"),
    (0x0805853b, 0x10, "zext.w a0,a1"),
    (0x08c5853b, 0x10, "add.uw a0,a1,a2"),
    (0x0805c53b, 0x10, "zext.h a0,a1"),
    (0x6b85d513, 0x10, "rev8 a0,a1"),
    (0x20c5e533, 0x10, "sh3add a0,a1,a2"),
    (0x2501, 0x10, "sext.w a0,a0"),
    (0xfff5c513, 0x14, "not a0,a1"),
    (0x40b00533, 0x18, "neg a0,a1"),
    (0x40b0053b, 0x1c, "negw a0,a1"),
    (0x0015b513, 0x20, "seqz a0,a1"),
    (0x00b03533, 0x24, "snez a0,a1"),
    (0x0005a533, 0x28, "sltz a0,a1"),
    (0x00b02533, 0x2c, "sgtz a0,a1"),
    (0x00050463, 0x30, "beqz a0,38"),
    (0x00051463, 0x34, "bnez a0,3c"),
    (0x00a05463, 0x38, "blez a0,40"),
    (0x00055463, 0x3c, "bgez a0,44"),
    (0x00054463, 0x40, "bltz a0,48"),
    (0x00a04463, 0x44, "bgtz a0,4c"),
    (0x00b54463, 0x48, "blt a0,a1,50"),
    (0x00a5c463, 0x4c, "blt a1,a0,54"),
    (0x0080006f, 0x50, "j 58"),
    (0x008000ef, 0x54, "jal 5c"),
    (0x0080056f, 0x58, "jal a0,60"),
    (0x00050067, 0x5c, "jr a0"),
    (0x00850067, 0x60, "jr 8(a0)"),
    (0x00008067, 0x64, "ret"),
    (0x8082, 0x64, "ret"),
    (0x000500e7, 0x68, "jalr a0"),
    (0x9582, 0x68, "jalr a1"),
    (0x00458567, 0x6c, "jalr a0,4(a1)"),
    (0x000608e7, 0x6c, "jalr a7,a2"),
    (0xec6980e7, 0, "jalr -314(s3)"),
    (0x30002573, 0x70, "csrr a0,mstatus"),
    (0x7c002573, 0x70, "csrr a0,0x7c0"),
    (0x30051073, 0x74, "csrw mstatus,a0"),
    (0x30052073, 0x78, "csrs mstatus,a0"),
    (0x30053073, 0x7c, "csrc mstatus,a0"),
    (0x30059573, 0x8c, "csrrw a0,mstatus,a1"),
    (0x3005a573, 0x94, "csrrs a0,mstatus,a1"),
    (0xc0002573, 0x9c, "rdcycle a0"),
    (0xc0102573, 0xa0, "rdtime a0"),
    (0xc0202573, 0xa4, "rdinstret a0"),
    (0x00302573, 0xa8, "frcsr a0"),
    (0x00359073, 0xac, "fscsr a1"),
    (0x00359573, 0xb0, "fscsr a0,a1"),
    (0x00202573, 0xb4, "frrm a0"),
    (0x00259073, 0xb8, "fsrm a1"),
    (0x00259573, 0xbc, "fsrm a0,a1"),
    (0x00102573, 0xc0, "frflags a0"),
    (0x00159073, 0xc4, "fsflags a1"),
    (0x00215573, 0xcc, "fsrmi a0,2"),
    (0x20b58553, 0xd4, "fmv.s fa0,fa1"),
    (0x20b5a553, 0xd8, "fabs.s fa0,fa1"),
    (0x20b59553, 0xdc, "fneg.s fa0,fa1"),
    (0x22b58553, 0xe0, "fmv.d fa0,fa1"),
    (0x22b5a553, 0xe4, "fabs.d fa0,fa1"),
    (0x22b59553, 0xe8, "fneg.d fa0,fa1"),
    (0x0ff0000f, 0xec, "fence"),
    (0x0330000f, 0xf0, "fence rw,rw"),
    (0x8330000f, 0xf4, "fence.tso"),
    (0xc0001073, 0xf8, "unimp"),
    (0x00b50533, 0, "add a0,a0,a1"),
    (0x02c5f553, 0, "fadd.d fa0,fa1,fa2"),
    (0xc0059553, 0, "fcvt.w.s a0,fa1,rtz"),
    (0x06b6252f, 0, "amoadd.w.aqrl a0,a1,(a2)"),
    (0x6082, 0, "ld ra,0(sp)"),
    (0xb001, 0x30, "j fffffffffffff830"),
];

#[test]
fn pseudo_instructions_print_like_objdump() {
    for &(raw, pc, text) in SAME_AS_OBJDUMP {
        assert_eq!(pseudo(raw, pc, Xlen::Rv64), text, "{raw:#x}");
    }
}

#[test]
fn pseudo_rv32_counters_and_targets() {
    assert_eq!(pseudo(0xc8002573, 0, Xlen::Rv32), "rdcycleh a0");
    assert_eq!(pseudo(0xc8102573, 0, Xlen::Rv32), "rdtimeh a0");
    assert_eq!(pseudo(0xc8202573, 0, Xlen::Rv32), "rdinstreth a0");
    // On RV64 `cycleh` has no alias.
    assert_eq!(pseudo(0xc8002573, 0, Xlen::Rv64), "csrr a0,cycleh");
    // c.jal on RV32 is `jal ra,..`; targets wrap at 32 bits.
    assert_eq!(pseudo(0x2ffd, 0x4, Xlen::Rv32), "jal 802");
    assert_eq!(pseudo(0xb001, 0x0, Xlen::Rv32), "j fffff800");
    assert_eq!(pseudo(0xb001, 0x0, Xlen::Rv64), "j fffffffffffff800");
    assert_eq!(pseudo(0x0000, 0, Xlen::Rv32), "unimp");
}

#[test]
fn pseudo_differs_from_objdump_default_as_documented() {
    for &(raw, pc, ours, theirs) in DIFFERENCES {
        let got = pseudo(raw, pc, Xlen::Rv64);
        assert_eq!(got, ours, "{raw:#x}");
        assert_ne!(got, theirs, "{raw:#x}");
    }
    if !binutils_or_skip() {
        return;
    }
    // The objdump side of the table is what objdump really prints.
    let encodings: Vec<(u32, u8)> = DIFFERENCES
        .iter()
        .map(|&(raw, ..)| (raw, if raw & 3 == 3 { 4 } else { 2 }))
        .collect();
    let dir = scratch("pseudo-differences");
    let (addrs, dump) = objdump(&dir, "rv64gc_zba_zbb_zbc_zbs", &encodings, false);
    let _ = std::fs::remove_dir_all(&dir);
    for (&(raw, _, _, theirs), pc) in DIFFERENCES.iter().zip(addrs) {
        assert_eq!(dump.get(&pc).map(String::as_str), Some(theirs), "{raw:#x}");
    }
}

/// Whether the compressed encoding `h` is a HINT of Table 16.3 (rd = zero
/// for c.li/c.lui/c.mv/c.add/c.slli, c.nop with nonzero imm, c.addi with
/// zero imm, or a shift by 0).
fn is_rvc_hint(h: u16) -> bool {
    let rd = (h >> 7) & 31;
    let imm = ((h >> 12) & 1) << 5 | ((h >> 2) & 31);
    let rs2 = (h >> 2) & 31;
    match (h & 3, h >> 13) {
        (1, 0) => (rd == 0) != (imm == 0), // c.nop imm != 0, c.addi imm == 0
        (1, 2) | (1, 3) => rd == 0,        // c.li, c.lui
        (1, 4) => (h >> 11) & 1 == 0 && imm == 0, // c.srli64, c.srai64
        (2, 0) => rd == 0 || imm == 0,     // c.slli
        (2, 4) => rd == 0 && rs2 != 0,     // c.mv, c.add
        _ => false,
    }
}

/// Which documented difference (1-5, 7) explains `ours` vs `theirs` for the
/// encoding `raw` of length `len`, if any.
fn documented_difference(raw: u32, len: u8, ours: &str, theirs: &str) -> Option<u8> {
    if len == 2 && is_rvc_hint(raw as u16) {
        return Some(7);
    }
    let (our_mn, our_ops) = ours.split_once(' ').unwrap_or((ours, ""));
    let (their_mn, their_ops) = theirs.split_once(' ').unwrap_or((theirs, ""));
    // 5: fsrmi/fsflagsi without `zero,`.
    if our_mn == their_mn
        && matches!(our_mn, "fsrmi" | "fsflagsi")
        && their_ops.strip_prefix("zero,") == Some(our_ops)
    {
        return Some(5);
    }
    // 4: mv for add rd,zero,rs.
    if our_mn == "mv" && their_mn == "add" {
        let (rd, rs) = our_ops.split_once(',')?;
        return (their_ops == format!("{rd},zero,{rs}")).then_some(4);
    }
    // 3: zext.b.
    if their_mn == "zext.b" && our_mn == "andi" {
        return (our_ops == format!("{their_ops},255")).then_some(3);
    }
    // 1 and 2: immediate mnemonic and/or decimal shift amount.
    let mn_ok = our_mn == their_mn || our_mn.strip_suffix('i') == Some(their_mn) || {
        // csrwi/csrrwi: the `i` is before nothing else; addiw -> addw etc.
        our_mn.replacen("i", "", 1) == their_mn && our_mn.ends_with('w')
    };
    if !mn_ok {
        return None;
    }
    let ours_v: Vec<&str> = our_ops.split(',').collect();
    let theirs_v: Vec<&str> = their_ops.split(',').collect();
    if ours_v.len() != theirs_v.len() {
        return None;
    }
    let mut hex_shift = false;
    for (o, t) in ours_v.iter().zip(&theirs_v) {
        if o == t {
            continue;
        }
        let hex = t.strip_prefix("0x")?;
        if i64::from_str_radix(hex, 16).ok()? != o.parse::<i64>().ok()? {
            return None;
        }
        hex_shift = true;
    }
    Some(if hex_shift { 2 } else { 1 })
}

fn compare_with_objdump_default(xlen: Xlen, march: &str, seed: u64) {
    if !binutils_or_skip() {
        return;
    }
    let mut encodings: Vec<(u32, u8)> = (0..=0xffffu32)
        .filter(|h| h & 3 != 3)
        .map(|h| (h, 2))
        .collect();
    encodings.extend(sample_32(seed).into_iter().map(|w| (w, 4)));
    let dir = scratch(&format!("pseudo-{march}"));
    let (addrs, dump) = objdump(&dir, march, &encodings, false);
    let _ = std::fs::remove_dir_all(&dir);
    let mut same = 0usize;
    let mut by_kind: BTreeMap<u8, usize> = BTreeMap::new();
    let mut unexplained: BTreeMap<String, (usize, String)> = BTreeMap::new();
    for (&(raw, len), &pc) in encodings.iter().zip(&addrs) {
        let inst = decode(raw, xlen);
        let Some(theirs) = dump.get(&pc) else {
            continue;
        };
        // Data directives and what objdump decodes but fwprof rejects are
        // covered by tests/objdump.rs.
        if inst.op == Op::Illegal || theirs.starts_with(".2byte") || theirs.starts_with(".4byte") {
            continue;
        }
        let ours = disasm(&inst, pc, xlen, Style::Pseudo);
        if ours == *theirs {
            same += 1;
        } else if let Some(kind) = documented_difference(raw, len, &ours, theirs) {
            *by_kind.entry(kind).or_default() += 1;
        } else {
            let key = theirs.split(' ').next().unwrap_or("").to_string();
            unexplained
                .entry(key)
                .or_insert((0, format!("{raw:#x}: ours `{ours}`, objdump `{theirs}`")))
                .0 += 1;
        }
    }
    eprintln!("{march}: {same} identical, documented differences by kind: {by_kind:?}");
    assert!(
        unexplained.is_empty(),
        "{march}: undocumented differences (count, example):\n{}",
        unexplained
            .values()
            .map(|(n, e)| format!("{n:6} {e}"))
            .collect::<Vec<_>>()
            .join("\n")
    );
    assert!(same > 100_000, "{march}: only {same} identical");
}

#[test]
fn pseudo_matches_objdump_default_but_for_documented_differences_rv64() {
    compare_with_objdump_default(Xlen::Rv64, "rv64gc_zba_zbb_zbc_zbs", 0x9e5d_0064);
}

#[test]
fn pseudo_matches_objdump_default_but_for_documented_differences_rv32() {
    compare_with_objdump_default(Xlen::Rv32, "rv32gc_zba_zbb_zbc_zbs", 0x9e5d_0032);
}
