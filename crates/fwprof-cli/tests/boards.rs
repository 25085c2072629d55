//! `--board FILE.toml` and `--load` (docs/boards.md) on the programs of
//! `tests/boards/` (built by `tests/boards/build.sh`): the shipped
//! FE310-G002 board runs firmware linked for its flash, with `.data`
//! loaded in flash and copied to the DTIM, as QEMU 7.2's `sifive_e` does;
//! unmodelled peripherals are reported by name; bad board files and images
//! give one line and status 125; flash wait states cost exactly their
//! cycles in the timing model.

mod common;

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

use common::{fwprof, repo, require};

/// The shipped board file.
fn fe310() -> PathBuf {
    repo().join("boards/fe310-g002.toml")
}

/// `tests/boards/build/NAME.elf`, building the corpus first (only what is
/// missing or out of date).
fn board_elf(name: &str) -> PathBuf {
    common::built_elf("boards", &format!("{name}.elf"))
}

/// Run `fwprof ARGS` in `dir`.
fn run(dir: &Path, args: &[&str]) -> Output {
    Command::new(fwprof())
        .current_dir(dir)
        .args(args)
        .stdin(Stdio::null())
        .output()
        .unwrap()
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

/// The shipped board file with `from` replaced by `to`, written in `dir`.
fn board_variant(dir: &Path, name: &str, from: &str, to: &str) -> PathBuf {
    let src = std::fs::read_to_string(fe310()).unwrap();
    assert!(src.contains(from), "the shipped board has {from:?}");
    let p = dir.join(name);
    std::fs::write(&p, src.replace(from, to)).unwrap();
    p
}

const FLASH_DATA_OUT: &str = "counter 42
greeting hello from .data
table 1 2 3 4
big 0x11223344 0x55667788
zeroed 0
rom sum 36
after 43 hello from .DATA 5
";

#[test]
fn flash_data_runs_on_the_shipped_board_as_under_qemu() {
    if !require(&["riscv64-unknown-elf-gcc", "qemu-system-riscv32"]) {
        return;
    }
    let elf = board_elf("flash_data");
    let dir = tempfile::tempdir().unwrap();
    let board = fe310();
    let out = run(
        dir.path(),
        &[
            "run",
            "--board",
            board.to_str().unwrap(),
            elf.to_str().unwrap(),
        ],
    );
    assert_eq!(text(&out.stdout), FLASH_DATA_OUT);
    assert_eq!(out.status.code(), Some(123), "{}", text(&out.stderr));
    assert_eq!(text(&out.stderr), "", "nothing unmodelled, nothing to say");
    // QEMU 7.2's sifive_e with revb=true models the same chip: its mask ROM
    // jumps to 0x20010000 and its ELF loader also places segments at
    // p_paddr, so the same start-up code copies .data the same way.
    let q = Command::new("timeout")
        .arg("20")
        .arg("qemu-system-riscv32")
        .args([
            "-M",
            "sifive_e,revb=true",
            "-display",
            "none",
            "-nodefaults",
        ])
        .args(["-chardev", "stdio,id=c0", "-semihosting-config"])
        .arg("enable=on,target=native,chardev=c0")
        .args(["-serial", "none", "-monitor", "none", "-kernel"])
        .arg(&elf)
        .stdin(Stdio::null())
        .output()
        .unwrap();
    assert_eq!(text(&q.stdout), FLASH_DATA_OUT, "QEMU's output");
    assert_eq!(q.status.code(), Some(123), "QEMU's status");
}

#[test]
fn a_program_linked_for_ram_does_not_fit_the_board() {
    let dir = tempfile::tempdir().unwrap();
    let board = fe310();
    let elf = repo().join("examples/crc32/crc32.rv32imac.elf");
    let out = run(
        dir.path(),
        &[
            "run",
            "--board",
            board.to_str().unwrap(),
            elf.to_str().unwrap(),
        ],
    );
    assert_eq!(out.status.code(), Some(125));
    let err = text(&out.stderr);
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(
        err.contains("segment 1 at 0x80400018..0x80405d20 (p_paddr) does not fit the memory of board fe310-g002"),
        "{err}"
    );
}

/// The line `peripherals` leaves on stderr (its source lists the accesses).
const PERIPHERALS_LINE: &str = "unmodelled device accesses: 0x10008000 (PRCI) read 1x, write 1x; 0x10008008 (PRCI) write 1x; 0x10012008 (GPIO0) write 1x; 0x1001200c (GPIO0) read 3x, write 3x; 0x10013000 (UART0) read 3x, write 3x; 0x10013008 (UART0) write 1x";

#[test]
fn unmodelled_peripherals_are_reported_once_by_name() {
    if !require(&["riscv64-unknown-elf-gcc"]) {
        return;
    }
    let elf = board_elf("peripherals");
    let dir = tempfile::tempdir().unwrap();
    let board = fe310();
    let args = ["--board", board.to_str().unwrap(), elf.to_str().unwrap()];
    let out = run(dir.path(), &[&["run"][..], &args].concat());
    assert_eq!(text(&out.stdout), "peripherals done\n");
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(text(&out.stderr), format!("fwprof: {PERIPHERALS_LINE}\n"));
    // record: the same line on stderr, and in the profile's warnings.
    let out = run(
        dir.path(),
        &[&["record", "-q", "-o", "p.fwprof"][..], &args].concat(),
    );
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert_eq!(text(&out.stderr), format!("fwprof: {PERIPHERALS_LINE}\n"));
    let json = run(dir.path(), &["report", "--format", "json", "p.fwprof"]);
    let v: serde_json::Value = serde_json::from_slice(&json.stdout).unwrap();
    let warnings = v["meta"]["warnings"].as_array().unwrap();
    assert!(
        warnings.iter().any(|w| w == PERIPHERALS_LINE),
        "{warnings:?}"
    );
}

#[test]
fn a_board_that_faults_names_the_peripheral() {
    if !require(&["riscv64-unknown-elf-gcc"]) {
        return;
    }
    let elf = board_elf("peripherals");
    let dir = tempfile::tempdir().unwrap();
    let board = board_variant(
        dir.path(),
        "fault.toml",
        "unmodelled = \"ignore\"",
        "unmodelled = \"fault\"",
    );
    let out = run(
        dir.path(),
        &[
            "run",
            "--board",
            board.to_str().unwrap(),
            elf.to_str().unwrap(),
        ],
    );
    // A load access fault with no handler: SIGSEGV's status, as a Linux
    // program would have.
    assert_eq!(out.status.code(), Some(128 + 11));
    let err = text(&out.stderr);
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(
        err.starts_with("fwprof: guest fault: no device at 0x10008000: board fe310-g002 has PRCI there, which fwprof does not model (unmodelled = \"ignore\" in the board file reads 0 and drops writes): load access fault (mcause 5)"),
        "{err}"
    );
}

#[test]
fn bad_board_files_give_one_line_and_status_125() {
    let dir = tempfile::tempdir().unwrap();
    let elf = repo().join("examples/crc32/crc32.rv32imac.elf");
    let mem = "[[memory]]\nname = \"ram\"\nbase = 0x80000000\nsize = \"16K\"\nkind = \"ram\"\n";
    let cases: Vec<(String, String)> = vec![
        (
            format!("{mem}speed = 3\n"),
            "b.toml:6: key `memory[0].speed`: unknown field `speed`".into(),
        ),
        (
            format!("{mem}[[memory]]\nname = \"x\"\nbase = 0x80001000\nsize = 16\nkind = \"ram\"\n"),
            "b.toml:8: key `memory[1].base`: memory \"x\" [0x80001000, 0x8000100f] overlaps memory \"ram\" [0x80000000, 0x80003fff] (line 3)".into(),
        ),
        (
            mem.replace("\"16K\"", "0"),
            "b.toml:4: key `memory[0].size`: must be greater than 0".into(),
        ),
        (
            mem.replace("kind = \"ram\"", "kind = \"ram\"\naccess = \"rwz\""),
            "b.toml:6: key `memory[0].access`: bad access \"rwz\": letters r (read), w (write), x (execute)".into(),
        ),
        (
            format!("{mem}[[device]]\nkind = \"uart16550\"\nbase = 0x10000000\nirq = 10\n"),
            "b.toml:9: key `device[0].irq`: the uart16550's interrupt goes to PLIC source irq, and the board has no [[device]] kind = \"plic\"".into(),
        ),
        (
            format!("{mem}[[device]]\nkind = \"rcc\"\nbase = 0x40021000\n"),
            "b.toml:7: key `device[0].kind`: unknown device \"rcc\"".into(),
        ),
        (
            "name = \"empty\"\n".into(),
            "b.toml:1: key `memory`: no [[memory]] region".into(),
        ),
    ];
    for (contents, want) in cases {
        std::fs::write(dir.path().join("b.toml"), &contents).unwrap();
        let out = run(
            dir.path(),
            &["run", "--board", "b.toml", elf.to_str().unwrap()],
        );
        let err = text(&out.stderr);
        assert_eq!(out.status.code(), Some(125), "{contents}: {err}");
        assert_eq!(err.lines().count(), 1, "{err}");
        assert!(
            err.starts_with(&format!("fwprof: {want}")),
            "{contents}\n{err}"
        );
    }
    let out = run(
        dir.path(),
        &["run", "--board", "missing.toml", elf.to_str().unwrap()],
    );
    assert_eq!(out.status.code(), Some(125));
    assert!(text(&out.stderr).starts_with("fwprof: missing.toml: No such file"));
    // The board gives the memory: --ram with --board is a usage error.
    let board = fe310();
    let out = run(
        dir.path(),
        &[
            "run",
            "--board",
            board.to_str().unwrap(),
            "--ram",
            "0x80000000:1M",
            elf.to_str().unwrap(),
        ],
    );
    assert_eq!(out.status.code(), Some(2));
    assert!(
        text(&out.stderr).contains("'--board <FILE.toml>' cannot be used with '--ram <BASE:SIZE>'")
    );
}

/// One Intel HEX record (byte count, address, type, data, checksum).
fn hex_record(kind: u8, addr: u16, data: &[u8]) -> String {
    let mut bytes = vec![data.len() as u8, (addr >> 8) as u8, addr as u8, kind];
    bytes.extend_from_slice(data);
    let sum = bytes.iter().fold(0u8, |a, b| a.wrapping_add(*b));
    bytes.push(sum.wrapping_neg());
    let digits: String = bytes.iter().map(|b| format!("{b:02X}")).collect();
    format!(":{digits}\n")
}

#[test]
fn load_places_raw_binaries_and_intel_hex() {
    if !require(&["riscv64-unknown-elf-gcc"]) {
        return;
    }
    let elf = board_elf("load_check");
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("blob.bin"), 0xc0ff_ee01u32.to_le_bytes()).unwrap();
    // 0xdeadbeef at 0x20380000 (extended linear address 0x2038) and
    // 0x12345678 at 0x20100 in the OTP (extended segment 0x2000, offset
    // 0x100); a start address record, which fwprof ignores.
    let hex = [
        hex_record(4, 0, &[0x20, 0x38]),
        hex_record(0, 0, &0xdead_beefu32.to_le_bytes()),
        hex_record(2, 0, &[0x20, 0x00]),
        hex_record(0, 0x100, &0x1234_5678u32.to_le_bytes()),
        hex_record(5, 0, &[0x20, 0x01, 0x00, 0x00]),
        hex_record(1, 0, &[]),
    ]
    .concat();
    std::fs::write(dir.path().join("fw.hex"), hex).unwrap();
    let board = fe310();
    let out = run(
        dir.path(),
        &[
            "run",
            "--board",
            board.to_str().unwrap(),
            "--load",
            "blob.bin@0x20300000",
            "--load",
            "fw.hex",
            elf.to_str().unwrap(),
        ],
    );
    assert_eq!(
        text(&out.stdout),
        "raw 0xc0ffee01\nhex 0xdeadbeef\notp 0x12345678\n",
        "{}",
        text(&out.stderr)
    );
    assert_eq!(out.status.code(), Some(0));
    // Without the images the flash and OTP read 0 (mapped, empty).
    let out = run(
        dir.path(),
        &[
            "run",
            "--board",
            board.to_str().unwrap(),
            elf.to_str().unwrap(),
        ],
    );
    assert_eq!(
        text(&out.stdout),
        "raw 0x00000000\nhex 0x00000000\notp 0x00000000\n"
    );
    assert_eq!(out.status.code(), Some(1));
}

#[test]
fn load_outside_memory_or_of_a_bad_file_is_one_line() {
    if !require(&["riscv64-unknown-elf-gcc"]) {
        return;
    }
    let elf = board_elf("load_check");
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("blob.bin"), [1u8, 2, 3, 4]).unwrap();
    std::fs::write(dir.path().join("bad.hex"), ":0400000001020304F1\n").unwrap();
    let board = fe310();
    let cases = [
        (
            "blob.bin@0x90000000",
            "--load blob.bin@0x90000000: bytes 0x90000000..0x90000004 are outside the memory of board fe310-g002",
        ),
        (
            // The last 2 bytes pass the end of the 16 KiB DTIM.
            "blob.bin@0x80003ffe",
            "--load blob.bin@0x80003ffe: bytes 0x80004000..0x80004002 are outside the memory of board fe310-g002",
        ),
        (
            "blob.bin",
            "--load blob.bin: not an Intel HEX file (it does not start with a ':' record); a raw binary needs its address: --load FILE@ADDR",
        ),
        (
            "bad.hex",
            "--load bad.hex: line 1: bad Intel HEX record: checksum F1 does not match the record's bytes (F2)",
        ),
    ];
    for (load, want) in cases {
        let out = run(
            dir.path(),
            &[
                "run",
                "--board",
                board.to_str().unwrap(),
                "--load",
                load,
                elf.to_str().unwrap(),
            ],
        );
        let err = text(&out.stderr);
        assert_eq!(out.status.code(), Some(125), "{load}: {err}");
        assert_eq!(err.lines().count(), 1, "{err}");
        assert!(err.contains(want), "{load}: {err}");
    }
    // A Linux program has no machine to load into.
    let linux = repo().join("examples/crc32/crc32.rv64-linux.elf");
    let out = run(
        dir.path(),
        &["run", "--load", "blob.bin@0x1000", linux.to_str().unwrap()],
    );
    assert_eq!(out.status.code(), Some(125));
    assert!(
        text(&out.stderr).contains("is a Linux program: --machine, --board, --bios, --append, --load and --harts apply to bare-metal programs"),
        "{}",
        text(&out.stderr)
    );
}

/// A symbol's value from `riscv64-unknown-elf-nm`.
fn symbol(elf: &Path, name: &str) -> u64 {
    let out = Command::new("riscv64-unknown-elf-nm")
        .arg(elf)
        .output()
        .expect("nm");
    text(&out.stdout)
        .lines()
        .find_map(|l| {
            let mut it = l.split_whitespace();
            let (a, _, n) = (it.next()?, it.next()?, it.next()?);
            (n == name).then(|| u64::from_str_radix(a, 16).unwrap())
        })
        .unwrap_or_else(|| panic!("{name} not in {}", elf.display()))
}

/// `totals` of a profile's JSON report.
fn totals(dir: &Path, profile: &str) -> serde_json::Value {
    let out = run(dir, &["report", "--format", "json", profile]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    v["totals"].clone()
}

#[test]
fn flash_wait_states_cost_exactly_their_cycles() {
    if !require(&["riscv64-unknown-elf-gcc", "riscv64-unknown-elf-nm"]) {
        return;
    }
    let elf = board_elf("flash_data");
    let dir = tempfile::tempdir().unwrap();
    let ws3 = board_variant(dir.path(), "ws3.toml", "wait_states = 0", "wait_states = 3");
    let fe = fe310();
    for (board, out) in [(fe.as_path(), "ws0.fwprof"), (ws3.as_path(), "ws3.fwprof")] {
        let r = run(
            dir.path(),
            &[
                "record",
                "-q",
                "--core",
                "picorv32",
                "--board",
                board.to_str().unwrap(),
                "-o",
                out,
                elf.to_str().unwrap(),
            ],
        );
        assert_eq!(r.status.code(), Some(123), "{}", text(&r.stderr));
    }
    let (t0, t3) = (
        totals(dir.path(), "ws0.fwprof"),
        totals(dir.path(), "ws3.fwprof"),
    );
    let cycles = |t: &serde_json::Value| t["cycles"].as_u64().unwrap();
    let instructions = t0["instructions"].as_u64().unwrap();
    assert_eq!(instructions, t3["instructions"].as_u64().unwrap());
    // PicoRV32 has no caches: every fetch from the flash (all of the
    // program's code) and every data access to it pays the wait states.
    // The data accesses to flash: crt.S's copy of .data, one load per
    // word from its load address, and main's 8 volatile loads of
    // rom_table (nothing else reads or writes the flash; the strings
    // printed are read by the host, not by loads).
    let data_words = (symbol(&elf, "__data_end") - symbol(&elf, "__data_start")) / 4;
    let flash_accesses = instructions + data_words + 8;
    assert_eq!(cycles(&t3) - cycles(&t0), 3 * flash_accesses);
    assert_eq!(t0["stall_wait_state"].as_u64(), Some(0));
    assert_eq!(t3["stall_wait_state"].as_u64(), Some(3 * flash_accesses));
}
