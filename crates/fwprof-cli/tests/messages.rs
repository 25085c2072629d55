//! One cause, one line, the same words from every command: the messages
//! of issue 11 (§5), the option combinations found while parsing (usage
//! errors, status 2) or after reading the program (status 125), and the
//! progress line that must not sit above the guest's output.

mod common;

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use common::{corpus_elf, fwprof, repo, run_fwprof};

fn example(name: &str) -> PathBuf {
    repo().join("examples").join(name)
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

/// Run fwprof in `dir`, killing it after `limit` (a hang is a failure).
fn run_with_limit(dir: &Path, args: &[&str], limit: Duration) -> std::process::Output {
    let mut child = Command::new(fwprof())
        .current_dir(dir)
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let start = Instant::now();
    while child.try_wait().unwrap().is_none() {
        if start.elapsed() > limit {
            let _ = child.kill();
            let o = child.wait_with_output().unwrap();
            panic!(
                "fwprof {args:?} still running after {limit:?}: {}",
                text(&o.stderr)
            );
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    child.wait_with_output().unwrap()
}

#[test]
fn a_bad_elf_is_described_in_the_same_words_by_every_command() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    std::fs::write(
        dir.join("bad.elf"),
        b"\xc9\x90\x95\x34 this is not an ELF file",
    )
    .unwrap();
    let mut seen = Vec::new();
    for args in [
        &["run", "--", "bad.elf"][..],
        &["record", "--", "bad.elf"],
        &["record", "--core", "generic", "--", "bad.elf"],
        &["record", "--method", "sample", "--", "bad.elf"],
        &["record", "--method", "instrument", "--", "bad.elf"],
    ] {
        let o = run_fwprof(dir, args);
        assert_eq!(o.status.code(), Some(125), "{args:?}");
        seen.push(text(&o.stderr));
    }
    assert_eq!(
        seen[0],
        "fwprof: cannot load bad.elf: not an ELF file: bad magic [c9, 90, 95, 34] (expected 7f 45 4c 46)\n"
    );
    for (i, s) in seen.iter().enumerate() {
        assert_eq!(s, &seen[0], "command {i} words it differently");
    }
    assert!(!dir.join("fwprof.data").exists());
}

#[test]
fn an_option_of_another_method_is_a_usage_error() {
    let tmp = tempfile::tempdir().unwrap();
    let prog = example("crc32/crc32.rv64-linux.elf").display().to_string();
    for (opts, flag) in [
        (
            &["--period", "5"][..],
            "--period applies only to --method sample",
        ),
        (&["--jitter"], "--jitter applies only to --method sample"),
        (&["--seed", "3"], "--seed applies only to --method sample"),
        (
            &["--method", "instrument", "--period", "5"],
            "--period applies only",
        ),
        (
            &["--exclude", "main"],
            "--exclude applies only to --method instrument",
        ),
        (
            &["--method", "sample", "--exclude", "main"],
            "--exclude applies only",
        ),
        (
            &["--unit", "cycles", "--core", "generic"],
            "--unit applies only to --method sample or --method instrument",
        ),
    ] {
        let mut args = vec!["record"];
        args.extend_from_slice(opts);
        args.extend_from_slice(&["--", &prog]);
        let o = run_fwprof(tmp.path(), &args);
        let e = text(&o.stderr);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {e}");
        assert!(e.contains(flag), "{args:?}: {e}");
        assert!(
            !tmp.path().join("fwprof.data").exists(),
            "{args:?} recorded"
        );
    }
    // The same options with their method are accepted.
    let o = run_fwprof(
        tmp.path(),
        &[
            "record", "-q", "--method", "sample", "--period", "5", "--jitter", "--seed", "3", "--",
            &prog,
        ],
    );
    assert_eq!(o.status.code(), Some(0), "{}", text(&o.stderr));
}

#[test]
fn an_rv32_core_refuses_an_rv64_program() {
    let tmp = tempfile::tempdir().unwrap();
    let prog = example("crc32/crc32.rv64-linux.elf").display().to_string();
    for core in ["picorv32", "ibex"] {
        for method in ["exact", "sample", "instrument"] {
            let o = run_fwprof(
                tmp.path(),
                &["record", "--core", core, "--method", method, "--", &prog],
            );
            let e = text(&o.stderr);
            assert_eq!(o.status.code(), Some(125), "{core} {method}: {e}");
            assert_eq!(
                e,
                format!("fwprof: --core {core}: an RV32 core cannot run {prog}, an RV64 program\n"),
                "{core} {method}"
            );
        }
    }
    // An RV32 program on an RV32 core runs.
    let rv32 = example("crc32/crc32.rv32imac.elf").display().to_string();
    let o = run_fwprof(tmp.path(), &["record", "-q", "--core", "ibex", "--", &rv32]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o.stderr));
}

#[test]
fn a_ram_range_that_cannot_hold_the_stack_is_refused_at_once() {
    let tmp = tempfile::tempdir().unwrap();
    let prog = example("huffman/huffman.rv32imac.elf")
        .display()
        .to_string();
    // Both looped in the guest's trap handler forever before.
    for (ram, words) in [
        (
            "0x80000000:64K",
            "RAM 0x80000000..0x80010000 leaves no room for the stack: the program's stack top (__stack = 0x88000000) is outside it",
        ),
        (
            "0xfffff000:8K",
            "RAM 0xfffff000+0x2000 wraps the 32-bit address space of an RV32 program",
        ),
    ] {
        for cmd in ["run", "record"] {
            let o = run_with_limit(
                tmp.path(),
                &[cmd, "--ram", ram, "--", &prog],
                Duration::from_secs(60),
            );
            let e = text(&o.stderr);
            assert_eq!(o.status.code(), Some(125), "{cmd} --ram {ram}: {e}");
            assert_eq!(e.lines().count(), 1, "{e}");
            assert!(e.contains(words), "{cmd} --ram {ram}: {e}");
        }
    }
    // A RAM that holds the stack top still runs the program.
    let o = run_fwprof(
        tmp.path(),
        &["run", "--ram", "0x80000000:128M", "--", &prog],
    );
    assert_eq!(o.status.code(), Some(0));
}

#[test]
fn a_sandbox_refusal_is_reported_once_per_path_with_the_flag_that_allows_it() {
    let tmp = tempfile::tempdir().unwrap();
    // A -pg program writes gmon.out at exit, into the current directory.
    let prog = corpus_elf("recursion.rv64-linux-pg.O2.elf");
    let p = prog.display().to_string();
    let o = run_fwprof(tmp.path(), &["run", "--", &p]);
    let e = text(&o.stderr);
    let gmon = tmp.path().canonicalize().unwrap().join("gmon.out");
    let line = format!(
        "fwprof: the sandbox refused the guest's write access to {} (EACCES); --allow-write DIR allows it",
        gmon.display()
    );
    assert_eq!(
        e.lines()
            .filter(|l| l.starts_with("fwprof: the sandbox"))
            .collect::<Vec<_>>(),
        vec![line.as_str()],
        "{e}"
    );
    assert!(!gmon.exists());
    // Allowed: no message, and the file is written.
    let o = run_fwprof(tmp.path(), &["run", "--allow-write", ".", "--", &p]);
    assert!(!text(&o.stderr).contains("sandbox"), "{}", text(&o.stderr));
    assert!(gmon.exists());
}

/// `objcopy --update-section` of `section` with garbage of the same size.
fn garble(elf: &Path, section: &str, out: &Path) -> bool {
    let objcopy = "riscv64-linux-gnu-objcopy";
    if !common::require(&[objcopy]) {
        return false;
    }
    let dump = out.with_extension("sec");
    let st = Command::new(objcopy)
        .arg(format!("--dump-section={section}={}", dump.display()))
        .arg(elf)
        .arg(out.with_extension("ignored"))
        .status()
        .unwrap();
    assert!(st.success());
    let n = std::fs::metadata(&dump).unwrap().len() as usize;
    let junk: Vec<u8> = (0..n).map(|i| (i * 151 % 251) as u8 | 0x80).collect();
    std::fs::write(&dump, junk).unwrap();
    let st = Command::new(objcopy)
        .arg(format!("--update-section={section}={}", dump.display()))
        .arg(elf)
        .arg(out)
        .status()
        .unwrap();
    assert!(st.success());
    true
}

#[test]
fn a_corrupt_debug_section_is_named_not_taken_for_missing_lines() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    let src = example("huffman/huffman.rv64-linux.elf");
    for section in [".debug_line", ".debug_info"] {
        let elf = dir.join(format!("h{section}.elf"));
        if !garble(&src, section, &elf) {
            return;
        }
        let e = elf.display().to_string();
        let o = run_fwprof(dir, &["record", "-q", "-o", "h.fwprof", "--", &e]);
        assert_eq!(o.status.code(), Some(0), "{}", text(&o.stderr));
        // Exports and reports go on without source lines, and say why.
        let o = run_fwprof(
            dir,
            &[
                "export",
                "h.fwprof",
                "--format",
                "callgrind",
                "-o",
                "cg.out",
            ],
        );
        assert_eq!(o.status.code(), Some(0), "{}", text(&o.stderr));
        let cg = std::fs::read_to_string(dir.join("cg.out")).unwrap();
        let note = format!("corrupt {section} section");
        assert!(cg.contains(&note) && !cg.contains("no DWARF"), "{section}");
        let o = run_fwprof(dir, &["annotate", "h.fwprof", "huff_encode"]);
        let err = text(&o.stderr);
        assert_eq!(o.status.code(), Some(0), "{err}");
        assert_eq!(err.lines().count(), 1, "{err}");
        assert!(err.contains(&note), "{section}: {err}");
        let o = run_fwprof(dir, &["html", "h.fwprof", "-o", "h.html"]);
        let err = text(&o.stderr);
        assert_eq!(o.status.code(), Some(0), "{err}");
        assert!(
            err.contains(&format!("corrupt {section} section")),
            "{section}: {err}"
        );
    }
}

#[test]
fn annotate_says_once_per_file_that_its_source_was_not_found() {
    let tmp = tempfile::tempdir().unwrap();
    let prog = example("huffman/huffman.rv64-linux.elf")
        .display()
        .to_string();
    // DWARF names repo-relative sources: found from the repository root,
    // not from elsewhere.
    let o = run_fwprof(tmp.path(), &["record", "-q", "-o", "h.fwprof", "--", &prog]);
    assert_eq!(o.status.code(), Some(0));
    let o = run_fwprof(tmp.path(), &["annotate", "h.fwprof", "huff_encode"]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o.stderr));
    let out = text(&o.stdout);
    let hint = "(source not found: --source-dir DIR tells fwprof where the sources are)";
    let hints: Vec<&str> = out.lines().filter(|l| l.contains(hint)).collect();
    assert_eq!(hints.len(), 1, "one file, one hint: {out}");
    assert!(
        hints[0].contains("examples/huffman/huffman.c"),
        "{}",
        hints[0]
    );
    // With the repository as --source-dir the lines are there.
    let root = repo().display().to_string();
    let o = run_fwprof(
        tmp.path(),
        &["annotate", "h.fwprof", "huff_encode", "--source-dir", &root],
    );
    let out = text(&o.stdout);
    assert!(!out.contains("source not found"), "{out}");
    assert!(out.contains("huff_encode"), "{out}");
}

/// What a terminal shows of one line: the text after the last carriage
/// return or erase-line sequence.
fn visible(line: &str) -> &str {
    let cut = [
        line.rfind('\r').map(|i| i + 1),
        line.rfind("\x1b[2K").map(|i| i + 4),
    ]
    .into_iter()
    .flatten()
    .max()
    .unwrap_or(0);
    &line[cut..]
}

#[test]
fn the_progress_line_is_cleared_before_guest_output() {
    if !common::require(&["script"]) {
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let prog = example("huffman/huffman.rv64-linux.elf")
        .display()
        .to_string();
    let expected = text(&run_fwprof(tmp.path(), &["run", "--", &prog]).stdout);
    let cmd = format!("'{}' record -o t.fwprof -- '{prog}'", fwprof().display());
    let o = Command::new("script")
        .args(["-q", "-e", "-c", &cmd, "/dev/null"])
        .current_dir(tmp.path())
        .stdin(Stdio::null())
        .output()
        .unwrap();
    let shown = text(&o.stdout);
    assert_eq!(o.status.code(), Some(0), "{shown:?}");
    assert!(shown.contains(" MIPS"), "the line was drawn: {shown:?}");
    let lines: Vec<&str> = shown
        .split('\n')
        .map(|l| l.trim_end_matches('\r'))
        .collect();
    for want in expected.lines() {
        let at = lines
            .iter()
            .find(|l| l.contains(want))
            .unwrap_or_else(|| panic!("{want:?} not shown: {shown:?}"));
        assert_eq!(
            visible(at),
            want,
            "a stale progress line shares the guest's line: {shown:?}"
        );
    }
}

#[test]
fn a_full_disk_is_named_by_every_writer() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    let prog = example("crc32/crc32.rv64-linux.elf").display().to_string();
    let o = run_fwprof(dir, &["record", "-q", "-o", "c.fwprof", "--", &prog]);
    assert_eq!(o.status.code(), Some(0));
    for args in [
        &["record", "-q", "-o", "/dev/full", "--", &prog][..],
        &["html", "c.fwprof", "-o", "/dev/full"],
        &[
            "export",
            "c.fwprof",
            "--format",
            "callgrind",
            "-o",
            "/dev/full",
        ],
        &["merge", "c.fwprof", "c.fwprof", "-o", "/dev/full"],
    ] {
        let o = run_fwprof(dir, args);
        assert_eq!(o.status.code(), Some(125), "{args:?}");
        assert_eq!(
            text(&o.stderr),
            "fwprof: cannot write /dev/full: No space left on device (os error 28)\n",
            "{args:?}"
        );
    }
}

/// Every export format finds the profile's program by the one rule of
/// `fwprof_symbols::find_program`, before writing anything: a `--program`
/// whose SHA-256 differs is refused in the same one line as `annotate` and
/// `html` (exit 125, no output written), and read with `--force`. (Before,
/// folded, flamegraph, speedscope and dot took any `--program`, and
/// callgrind, gmon and pprof framed the refusal as `cannot write OUT: ...`.)
#[test]
fn every_export_format_refuses_another_program_unless_forced() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let prog = example("huffman/huffman.rv32imac.elf");
    let other = example("crc32/crc32.rv32imac.elf");
    let prof = d.join("h.fwprof");
    let o = run_fwprof(
        d,
        &[
            "record",
            "-q",
            "-o",
            prof.to_str().unwrap(),
            "--",
            prog.to_str().unwrap(),
        ],
    );
    assert_eq!(o.status.code(), Some(0), "{}", text(&o.stderr));
    let sha = |p: &Path| fwprof_symbols::Program::open(p).unwrap().sha256_hex();
    let expected = format!(
        "fwprof: {} is not the program this profile was recorded from: its SHA-256 is {}, \
         the profile's is {} (--force reads it anyway)\n",
        other.display(),
        sha(&other),
        sha(&prog)
    );
    for format in [
        "gmon",
        "callgrind",
        "pprof",
        "folded",
        "flamegraph",
        "speedscope",
        "dot",
    ] {
        let out = d.join(format!("out.{format}"));
        let args = [
            "export",
            prof.to_str().unwrap(),
            "--format",
            format,
            "-o",
            out.to_str().unwrap(),
            "--program",
            other.to_str().unwrap(),
        ];
        let o = run_fwprof(d, &args);
        assert_eq!(o.status.code(), Some(125), "{format}: {}", text(&o.stderr));
        assert_eq!(text(&o.stderr), expected, "{format}");
        assert!(!out.exists(), "{format}: nothing is written");
        let mut forced = args.to_vec();
        forced.push("--force");
        let o = run_fwprof(d, &forced);
        assert_eq!(o.status.code(), Some(0), "{format}: {}", text(&o.stderr));
        assert!(std::fs::metadata(&out).unwrap().len() > 0, "{format}");
    }
}
