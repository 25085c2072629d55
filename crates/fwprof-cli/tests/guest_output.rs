//! When the guest's output fails — its reader goes away (`| head -1`), the
//! disk is full (`> /dev/full`) — fwprof ends as QEMU does: same exit
//! status as `qemu-riscv64` (a Linux program dies of SIGPIPE, 141; a full
//! disk is the program's `ENOSPC`) and as `qemu-system-riscv32` with
//! semihosting (console write errors are ignored: the program's own
//! status). And fwprof's own output into a closed pipe ends quietly as a
//! process killed by SIGPIPE, in every command.

mod common;

use std::io::Read;
use std::os::unix::process::ExitStatusExt;
use std::path::{Path, PathBuf};
use std::process::{Command, ExitStatus, Stdio};

use common::{fwprof, repo};

/// Build `tests/output/lines.c` for bare metal and Linux into `dir`.
fn build(dir: &Path) -> Option<(PathBuf, PathBuf)> {
    if !common::require(&["riscv64-unknown-elf-gcc", "riscv64-linux-gnu-gcc"]) {
        return None;
    }
    let src = repo().join("tests/output/lines.c");
    let bare = dir.join("lines.rv32imac.elf");
    let linux = dir.join("lines.rv64-linux.elf");
    let st = Command::new("riscv64-unknown-elf-gcc")
        .args([
            "-march=rv32imac",
            "-mabi=ilp32",
            "-O2",
            "--specs=picolibc.specs",
        ])
        .args(["--crt0=semihost", "--oslib=semihost"])
        .args([
            "-Wl,--defsym=__flash=0x80000000",
            "-Wl,--defsym=__flash_size=0x400000",
        ])
        .args([
            "-Wl,--defsym=__ram=0x80400000",
            "-Wl,--defsym=__ram_size=0x7c00000",
        ])
        .args(["-Wl,--defsym=__stack_size=0x10000"])
        .arg(&src)
        .arg("-o")
        .arg(&bare)
        .status()
        .unwrap();
    assert!(st.success());
    let st = Command::new("riscv64-linux-gnu-gcc")
        .args(["-static", "-O2"])
        .arg(&src)
        .arg("-o")
        .arg(&linux)
        .status()
        .unwrap();
    assert!(st.success());
    Some((bare, linux))
}

/// The status a shell reports: the exit code, or 128 + the signal.
fn shell_status(s: ExitStatus) -> i32 {
    s.code().unwrap_or_else(|| 128 + s.signal().unwrap_or(0))
}

/// Run `cmd` with its stdout read for 100 bytes, then closed (as
/// `| head -c 100`); its status.
fn into_closed_pipe(mut cmd: Command) -> i32 {
    let mut child = cmd
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut out = child.stdout.take().unwrap();
    let mut first = [0u8; 100];
    out.read_exact(&mut first).unwrap();
    drop(out);
    shell_status(child.wait().unwrap())
}

/// Run `cmd` with stdout on `/dev/full`; its status.
fn into_full_disk(mut cmd: Command) -> i32 {
    let full = std::fs::OpenOptions::new()
        .write(true)
        .open("/dev/full")
        .unwrap();
    shell_status(
        cmd.stdin(Stdio::null())
            .stdout(full)
            .stderr(Stdio::null())
            .status()
            .unwrap(),
    )
}

fn fwprof_run(elf: &Path) -> Command {
    let mut c = Command::new(fwprof());
    c.arg("run").arg("--").arg(elf);
    c
}

fn fwprof_record(elf: &Path, out: &Path) -> Command {
    let mut c = Command::new(fwprof());
    c.args(["record", "-q", "-o"]).arg(out).arg("--").arg(elf);
    c
}

fn qemu_bare(elf: &Path) -> Command {
    // As scripts/qemu-ref.py runs bare-metal programs.
    let mut c = Command::new("qemu-system-riscv32");
    c.args([
        "-M",
        "virt",
        "-cpu",
        "rv32,h=false",
        "-m",
        "128M",
        "-bios",
        "none",
        "-display",
        "none",
    ])
    .args(["-nodefaults", "-chardev", "stdio,id=c0"])
    .args(["-semihosting-config", "enable=on,target=native,chardev=c0"])
    .args(["-serial", "none", "-monitor", "none", "-kernel"])
    .arg(elf);
    c
}

fn qemu_linux(elf: &Path) -> Command {
    let mut c = Command::new("qemu-riscv64");
    c.arg(elf);
    c
}

#[test]
fn failing_guest_output_ends_the_run_as_under_qemu() {
    if !common::require(&["qemu-riscv64", "qemu-system-riscv32"]) {
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let Some((bare, linux)) = build(tmp.path()) else {
        return;
    };
    let profile = tmp.path().join("p.fwprof");
    // (what, QEMU's status, fwprof run's, fwprof record's)
    let cases = [
        (
            "bare metal, closed pipe",
            into_closed_pipe(qemu_bare(&bare)),
            into_closed_pipe(fwprof_run(&bare)),
            into_closed_pipe(fwprof_record(&bare, &profile)),
        ),
        (
            "bare metal, full disk",
            into_full_disk(qemu_bare(&bare)),
            into_full_disk(fwprof_run(&bare)),
            into_full_disk(fwprof_record(&bare, &profile)),
        ),
        (
            "Linux, closed pipe",
            into_closed_pipe(qemu_linux(&linux)),
            into_closed_pipe(fwprof_run(&linux)),
            into_closed_pipe(fwprof_record(&linux, &profile)),
        ),
        (
            "Linux, full disk",
            into_full_disk(qemu_linux(&linux)),
            into_full_disk(fwprof_run(&linux)),
            into_full_disk(fwprof_record(&linux, &profile)),
        ),
    ];
    for (what, qemu, run, record) in cases {
        assert_eq!(run, qemu, "{what}: fwprof run vs QEMU");
        assert_eq!(record, qemu, "{what}: fwprof record vs QEMU");
    }
    // What QEMU does, for the record: the bare-metal program's own status
    // both times, the Linux one killed by SIGPIPE and then its own status.
    assert_eq!(cases.map(|c| c.1), [3, 3, 141, 3]);
    // The last record (full disk) kept its profile.
    let p = fwprof_profile::Profile::read(&profile).unwrap();
    assert_eq!(p.meta.exit_status, Some(3));
}

/// The write end of a pipe whose read end is already closed: every write
/// to it fails with `EPIPE`, however small.
fn closed_pipe() -> std::fs::File {
    use std::os::fd::FromRawFd;
    let mut fds = [0; 2];
    // SAFETY: pipe fills two fds; the read end is closed at once and the
    // write end owned by the returned File.
    unsafe {
        assert_eq!(libc::pipe(fds.as_mut_ptr()), 0);
        libc::close(fds[0]);
        std::fs::File::from_raw_fd(fds[1])
    }
}

#[test]
fn fwprof_output_into_a_closed_pipe_ends_as_sigpipe_in_every_command() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    let prog = repo().join("examples/huffman/huffman.rv64-linux.elf");
    let st = Command::new(fwprof())
        .current_dir(dir)
        .args(["record", "-q", "-o", "h.fwprof", "--"])
        .arg(&prog)
        .stdout(Stdio::null())
        .status()
        .unwrap();
    assert!(st.success());
    let mut commands: Vec<Vec<&str>> = vec![
        vec!["report", "h.fwprof"],
        vec!["report", "--format", "json", "h.fwprof"],
        vec!["annotate", "h.fwprof"],
        vec!["html", "h.fwprof", "-o", "-"],
        vec!["diff", "h.fwprof", "h.fwprof"],
        vec!["compare", "h.fwprof", "h.fwprof"],
        vec!["completions", "bash"],
    ];
    for format in [
        "gmon",
        "callgrind",
        "pprof",
        "folded",
        "flamegraph",
        "speedscope",
        "dot",
    ] {
        commands.push(vec!["export", "h.fwprof", "--format", format, "-o", "-"]);
    }
    for args in commands {
        let o = Command::new(fwprof())
            .current_dir(dir)
            .args(&args)
            .stdin(Stdio::null())
            .stdout(closed_pipe())
            .stderr(Stdio::piped())
            .output()
            .unwrap();
        assert_eq!(
            shell_status(o.status),
            141,
            "{args:?}: {}",
            String::from_utf8_lossy(&o.stderr)
        );
        assert_eq!(
            o.status.signal(),
            Some(libc::SIGPIPE),
            "{args:?} dies of SIGPIPE"
        );
        assert_eq!(String::from_utf8_lossy(&o.stderr), "", "{args:?} is quiet");
    }
}
