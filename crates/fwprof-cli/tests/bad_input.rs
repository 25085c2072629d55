//! Bad input: each case gets a one-line error naming the cause, the
//! documented exit status, no panic, and (where a run had started) a
//! partial profile marked with the reason.

mod common;

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

use fwprof_profile::Profile;

use common::run_fwprof as fwprof;

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).to_string()
}

/// One line on stderr starting with `fwprof:`, no panic message.
fn assert_one_line_error(o: &Output, needle: &str) {
    let e = stderr(o);
    assert!(!e.contains("panicked"), "panic: {e}");
    let lines: Vec<&str> = e.lines().filter(|l| l.starts_with("fwprof:")).collect();
    assert_eq!(lines.len(), 1, "expected one fwprof line, got: {e}");
    assert!(
        lines[0].contains(needle),
        "{:?} does not mention {needle:?}",
        lines[0]
    );
}

fn real_elf() -> PathBuf {
    common::corpus_elf("sha256.rv32imac.O2.elf")
}

#[test]
fn malformed_elves_are_rejected_with_125() {
    let tmp = tempfile::tempdir().unwrap();
    let good = std::fs::read(real_elf()).unwrap();
    let cases: Vec<(&str, Vec<u8>, &str)> = vec![
        ("text.elf", b"hello, I am not an ELF\n".to_vec(), "ELF"),
        ("empty.elf", Vec::new(), "ELF"),
        ("truncated.elf", good[..200].to_vec(), "trunc"),
        (
            "bigendian.elf",
            {
                let mut b = good.clone();
                b[5] = 2;
                b
            },
            "endian",
        ),
        (
            "badclass.elf",
            {
                let mut b = good.clone();
                b[4] = 7;
                b
            },
            "class",
        ),
        (
            "x86.elf",
            {
                let mut b = good.clone();
                b[18] = 62;
                b[19] = 0;
                b
            },
            "risc",
        ),
    ];
    for (name, bytes, needle) in cases {
        let p = tmp.path().join(name);
        std::fs::write(&p, bytes).unwrap();
        for cmd in ["run", "record"] {
            let o = fwprof(tmp.path(), &[cmd, "--", name]);
            assert_eq!(o.status.code(), Some(125), "{cmd} {name}: {}", stderr(&o));
            let e = stderr(&o).to_lowercase();
            assert!(e.contains(&needle.to_lowercase()), "{cmd} {name}: {e}");
            assert_one_line_error(&o, "");
        }
    }
    let o = fwprof(tmp.path(), &["record", "--", "does-not-exist.elf"]);
    assert_eq!(o.status.code(), Some(125));
    assert_one_line_error(&o, "does-not-exist.elf");
}

/// Build a bare-metal program from assembly with no runtime (mtvec stays 0).
fn asm_program(dir: &Path, name: &str, body: &str, march: &str) -> Option<PathBuf> {
    if !common::require(&["riscv64-unknown-elf-gcc"]) {
        return None;
    }
    let src = dir.join(format!("{name}.S"));
    std::fs::write(&src, format!("    .globl _start\n_start:\n{body}\n")).unwrap();
    let out = dir.join(format!("{name}.elf"));
    let abi = if march.starts_with("rv64") {
        "lp64"
    } else {
        "ilp32"
    };
    let st = Command::new("riscv64-unknown-elf-gcc")
        .args([
            "-nostdlib",
            "-nostartfiles",
            "-static",
            "-Wl,-Ttext=0x80000000",
            "-g",
        ])
        .arg(format!("-march={march}"))
        .arg(format!("-mabi={abi}"))
        .arg(&src)
        .arg("-o")
        .arg(&out)
        .status()
        .unwrap();
    assert!(st.success());
    Some(out)
}

fn partial_reason(dir: &Path) -> String {
    let p = Profile::read(dir.join("fwprof.data")).expect("a partial profile is written");
    p.check_invariants()
        .expect("invariants hold for partial profiles");
    p.meta.partial.expect("marked partial")
}

#[test]
fn illegal_instruction_without_handler() {
    let tmp = tempfile::tempdir().unwrap();
    let Some(_) = asm_program(
        tmp.path(),
        "ill",
        "    li a0, 1\n    li a1, 2\n    .word 0xffffffff\n",
        "rv64imac",
    ) else {
        return;
    };
    let o = fwprof(tmp.path(), &["record", "--", "ill.elf"]);
    assert_eq!(o.status.code(), Some(128 + 4), "{}", stderr(&o));
    assert_one_line_error(&o, "illegal instruction");
    let e = stderr(&o);
    assert!(
        e.contains("0x80000004") || e.contains("0x80000008"),
        "names the pc: {e}"
    );
    assert!(e.contains("ffffffff"), "names the instruction word: {e}");
    assert!(partial_reason(tmp.path()).contains("illegal instruction"));
    let p = Profile::read(tmp.path().join("fwprof.data")).unwrap();
    // The reset ROM's six, li, li, and the faulting instruction (counted as
    // executed, as QEMU's trace does).
    assert_eq!(p.totals[0], 6 + 3);
}

#[test]
fn access_outside_guest_memory() {
    let tmp = tempfile::tempdir().unwrap();
    let Some(_) = asm_program(
        tmp.path(),
        "oob",
        "    li a0, 0x10\n    lw a1, 0(a0)\n",
        "rv32imac",
    ) else {
        return;
    };
    let o = fwprof(tmp.path(), &["record", "--", "oob.elf"]);
    assert_eq!(o.status.code(), Some(128 + 11), "{}", stderr(&o));
    assert_one_line_error(&o, "load access fault");
    assert!(stderr(&o).contains("0x10"), "names the address");
    assert!(partial_reason(tmp.path()).contains("load access fault"));
}

#[test]
fn misaligned_atomic() {
    let tmp = tempfile::tempdir().unwrap();
    let Some(_) = asm_program(
        tmp.path(),
        "amo",
        "    li a0, 0x80001001\n    li a1, 1\n    amoadd.w a2, a1, (a0)\n",
        "rv64imac",
    ) else {
        return;
    };
    let o = fwprof(tmp.path(), &["record", "--", "amo.elf"]);
    assert_eq!(o.status.code(), Some(128 + 7), "{}", stderr(&o));
    assert_one_line_error(&o, "misaligned");
    assert!(partial_reason(tmp.path()).contains("misaligned"));
}

#[test]
fn runaway_guest_stops_at_the_limit() {
    let tmp = tempfile::tempdir().unwrap();
    let Some(_) = asm_program(
        tmp.path(),
        "loop",
        "1:  addi a0, a0, 1\n    j 1b\n",
        "rv32imac",
    ) else {
        return;
    };
    let o = fwprof(
        tmp.path(),
        &["record", "--max-instructions", "100007", "--", "loop.elf"],
    );
    assert_eq!(o.status.code(), Some(124), "{}", stderr(&o));
    assert_one_line_error(&o, "instruction limit");
    assert_eq!(partial_reason(tmp.path()), "instruction limit");
    let p = Profile::read(tmp.path().join("fwprof.data")).unwrap();
    assert_eq!(p.totals[0], 100_007);
    // The reset ROM's six instructions once each, then the loop.
    let counts: Vec<u64> = p.costs.iter().map(|c| c.cost[0]).collect();
    assert_eq!(counts, vec![1, 1, 1, 1, 1, 1, 50_001, 50_000]);
}

#[test]
fn stack_exhausted_by_recursion_is_sigsegv() {
    if !common::require(&["riscv64-linux-gnu-gcc"]) {
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let src = tmp.path().join("deep.c");
    std::fs::write(
        &src,
        "#include <stdio.h>\nvolatile int sink;\nint down(int n) { char pad[256]; pad[n & 255] = n; sink = pad[(n * 7) & 255]; return n ? down(n + 1) + 1 : 0; }\nint main(void) { printf(\"start\\n\"); fflush(stdout); return down(1); }\n",
    )
    .unwrap();
    let st = Command::new("riscv64-linux-gnu-gcc")
        .args(["-static", "-O0", "-o"])
        .arg(tmp.path().join("deep.elf"))
        .arg(&src)
        .status()
        .unwrap();
    assert!(st.success());
    let o = fwprof(tmp.path(), &["record", "--", "./deep.elf"]);
    assert_eq!(o.status.code(), Some(128 + 11), "{}", stderr(&o));
    assert_eq!(String::from_utf8_lossy(&o.stdout), "start\n");
    assert_one_line_error(&o, "signal 11");
    assert!(partial_reason(tmp.path()).contains("signal 11"));
}

#[test]
fn stripped_and_debugless_programs_still_profile() {
    if !common::require(&["riscv64-unknown-elf-strip"]) {
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    for (name, flag) in [
        ("nodebug.elf", "--strip-debug"),
        ("stripped.elf", "--strip-all"),
    ] {
        let st = Command::new("riscv64-unknown-elf-strip")
            .arg(flag)
            .arg(real_elf())
            .arg("-o")
            .arg(tmp.path().join(name))
            .status()
            .unwrap();
        assert!(st.success());
        let o = fwprof(tmp.path(), &["record", "-o", "p.data", "--", name]);
        assert_eq!(o.status.code(), Some(0), "{name}: {}", stderr(&o));
        let p = Profile::read(tmp.path().join("p.data")).unwrap();
        p.check_invariants().unwrap();
        assert!(p.totals[0] > 100_000);
        let named = p
            .functions
            .iter()
            // `[unknown 0x…]` ranges and the `[reset ROM]` are not symbols.
            .filter(|f| f.self_cost[0] > 0 && !f.name.starts_with('['))
            .count();
        if flag == "--strip-all" {
            assert_eq!(named, 0, "no symbols: everything is [unknown ...]");
            assert!(
                !p.meta.warnings.is_empty(),
                "a warning says the ELF is stripped"
            );
        } else {
            assert!(named > 5);
        }
        let a = fwprof(tmp.path(), &["annotate", "p.data"]);
        assert_eq!(a.status.code(), Some(0), "{}", stderr(&a));
        // Each annotated function's instruction lines add up to its self
        // cost, also for `[unknown ...]` code.
        let listed = common::annotated_functions(&String::from_utf8_lossy(&a.stdout));
        assert!(!listed.is_empty());
        for (name, sum) in &listed {
            let f = p.functions.iter().find(|f| &f.name == name).unwrap();
            assert_eq!(*sum, f.self_cost[0], "{name}");
        }
    }
}

#[test]
fn corrupt_profile_is_a_clear_error() {
    let tmp = tempfile::tempdir().unwrap();
    std::fs::write(tmp.path().join("bad.data"), b"FWPROF\0\x01garbage").unwrap();
    for cmd in ["report", "annotate"] {
        let o = fwprof(tmp.path(), &[cmd, "bad.data"]);
        assert_eq!(o.status.code(), Some(125), "{cmd}");
        assert_one_line_error(&o, "bad.data");
    }
}

/// The growth rule of the profile format (`docs/profile-format.md`,
/// "Growth"): a section written by a newer fwprof is skipped with one note
/// when it is ancillary, and refuses the file in one line when it is
/// critical.
#[test]
fn sections_of_a_newer_fwprof_are_skipped_or_refused() {
    let tmp = tempfile::tempdir().unwrap();
    let elf = real_elf();
    let o = fwprof(
        tmp.path(),
        &["record", "-o", "p.data", "--", elf.to_str().unwrap()],
    );
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let plain = fwprof(tmp.path(), &["report", "p.data"]);
    let mut p = Profile::read(tmp.path().join("p.data")).unwrap();
    // CBOR text "x" (0x61 0x78) as the content.
    p.sections.insert(
        "future.paths".into(),
        fwprof_profile::Section::new(4, false, vec![0x61, 0x78]),
    );
    p.write_atomic(tmp.path().join("newer.data")).unwrap();
    let o = fwprof(tmp.path(), &["report", "newer.data"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert_eq!(o.stdout, plain.stdout, "the report is the same");
    assert_eq!(
        stderr(&o),
        "fwprof: note: newer.data has sections this fwprof does not read, skipped: future.paths (version 4)\n"
    );
    p.sections.insert(
        "per-hart".into(),
        fwprof_profile::Section::new(1, true, vec![0xf6]),
    );
    p.write_atomic(tmp.path().join("critical.data")).unwrap();
    for cmd in ["report", "annotate"] {
        let o = fwprof(tmp.path(), &[cmd, "critical.data"]);
        assert_eq!(o.status.code(), Some(125), "{cmd}");
        assert_one_line_error(
            &o,
            "needs a newer fwprof: it has a section \"per-hart\" (version 1)",
        );
    }
}

#[test]
fn ctrl_c_saves_a_partial_profile() {
    let tmp = tempfile::tempdir().unwrap();
    let Some(_) = asm_program(
        tmp.path(),
        "spin",
        "1:  addi a0, a0, 1\n    j 1b\n",
        "rv64imac",
    ) else {
        return;
    };
    let child = Command::new(common::fwprof())
        .current_dir(tmp.path())
        .args(["record", "--", "spin.elf"])
        .stdin(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // Let it run, then interrupt it as a terminal's Ctrl-C would.
    std::thread::sleep(std::time::Duration::from_millis(700));
    let st = Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status()
        .unwrap();
    assert!(st.success());
    let out = child.wait_with_output().unwrap();
    assert_eq!(out.status.code(), Some(130), "{}", stderr(&out));
    assert_one_line_error(&out, "stopped by SIGINT");
    assert_eq!(partial_reason(tmp.path()), "signal SIGINT");
    let p = Profile::read(tmp.path().join("fwprof.data")).unwrap();
    assert!(
        p.totals[0] > 1000,
        "what ran before the interrupt is kept: {}",
        p.totals[0]
    );
}

/// A `wfi` that nothing can end (no interrupt enabled in `mie`: QEMU would
/// wait forever) stops the run with a one-line error and exit status 125,
/// and the profile of what ran before it is still written, marked partial
/// with the error — by the exact recorder (alone and with a core model on
/// its second thread) and by the sampler.
#[test]
fn endless_wfi_is_an_error_and_keeps_a_partial_profile() {
    let tmp = tempfile::tempdir().unwrap();
    let Some(_) = asm_program(
        tmp.path(),
        "wfi",
        "    li a0, 1\n    li a1, 2\n    wfi\n    li a2, 3\n",
        "rv64imac",
    ) else {
        return;
    };
    for extra in [
        &[][..],
        &["--core", "generic"],
        &["--method", "sample", "--period", "1"],
    ] {
        let mut args = vec!["record"];
        args.extend_from_slice(extra);
        args.extend_from_slice(&["--", "wfi.elf"]);
        let o = fwprof(tmp.path(), &args);
        assert_eq!(o.status.code(), Some(125), "{extra:?}: {}", stderr(&o));
        assert_one_line_error(&o, "sleep forever");
        // li and li are compressed: the wfi is at 0x80000004.
        assert!(stderr(&o).contains("0x80000004"), "names the wfi's pc");
        assert!(
            stderr(&o).contains("fwprof.data"),
            "names the partial profile"
        );
        let reason = partial_reason(tmp.path());
        assert!(
            reason.starts_with("simulation failed: hart 0 waits in wfi at 0x80000004"),
            "{extra:?}: {reason}"
        );
        let p = Profile::read(tmp.path().join("fwprof.data")).unwrap();
        // The reset ROM's six, li, li and the wfi ran; the li after it
        // did not. Sampled every instruction, the samples after the ROM and
        // the two li are the profile (the run failed before the next one).
        if p.meta.sampling.is_some() {
            assert_eq!(p.samples.len(), 6 + 2, "{extra:?}");
            assert_eq!(p.totals[0], 6 + 2, "{extra:?}");
        } else {
            assert_eq!(p.totals[0], 6 + 3, "{extra:?}");
        }
        assert_eq!(p.meta.exit_status, None);
        std::fs::remove_file(tmp.path().join("fwprof.data")).unwrap();
    }
    // `fwprof run` says the same and writes nothing.
    let o = fwprof(tmp.path(), &["run", "--", "wfi.elf"]);
    assert_eq!(o.status.code(), Some(125));
    assert_one_line_error(&o, "sleep forever");
    assert!(!tmp.path().join("fwprof.data").exists());
}

/// An odd `e_entry` is a bad entry point (RISC-V instructions start at even
/// addresses): refused at load, one line, 125; it used to run at the odd pc.
#[test]
fn odd_entry_point_is_refused_at_load() {
    let tmp = tempfile::tempdir().unwrap();
    for (name, elf) in [
        (
            "odd64.elf",
            common::repo().join("examples/sha256/sha256.rv64-linux.elf"),
        ),
        ("odd32.elf", real_elf()),
    ] {
        let mut b = std::fs::read(elf).unwrap();
        b[24] |= 1; // e_entry (low byte) in both ELF classes
        std::fs::write(tmp.path().join(name), b).unwrap();
        for cmd in ["run", "record"] {
            let o = fwprof(tmp.path(), &[cmd, "--", name]);
            assert_eq!(o.status.code(), Some(125), "{cmd} {name}: {}", stderr(&o));
            assert_one_line_error(&o, "bad entry point e_entry 0x");
            assert!(stderr(&o).contains("odd"), "{}", stderr(&o));
        }
    }
}

/// On bare metal `--max-memory` bounds `--ram`; a bad size is refused.
#[test]
fn ram_beyond_the_memory_limit_is_refused() {
    let tmp = tempfile::tempdir().unwrap();
    let elf = real_elf();
    let elf = elf.to_str().unwrap();
    let o = fwprof(
        tmp.path(),
        &[
            "run",
            "--max-memory",
            "64M",
            "--ram",
            "0x80000000:128M",
            "--",
            elf,
        ],
    );
    assert_eq!(o.status.code(), Some(125), "{}", stderr(&o));
    assert_one_line_error(
        &o,
        "RAM (--ram) of 134217728 bytes exceeds the guest memory limit of 67108864 bytes",
    );
    // A malformed size is a usage error (clap, 2).
    let o = fwprof(tmp.path(), &["run", "--max-memory", "lots", "--", elf]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(stderr(&o).contains("--max-memory"), "{}", stderr(&o));
    // Within the limit the program runs.
    let o = fwprof(
        tmp.path(),
        &[
            "run",
            "--max-memory",
            "256M",
            "--ram",
            "0x80000000:128M",
            "--",
            elf,
        ],
    );
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
}
