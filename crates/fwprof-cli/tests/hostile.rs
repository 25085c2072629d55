//! Hostile guest programs (`tests/hostile/`): memory hogs, a runaway
//! recursion, process and network attempts, sandbox escapes. Memory hogs
//! and the recursion give QEMU's stdout and exit status (QEMU under
//! `prlimit --as` for the same limit as `--max-memory`); refused actions
//! give the errno docs/simulator.md documents. Each fwprof run's peak
//! memory (its own `ru_maxrss`, from `wait4`) stays under a stated bound.

mod common;

use std::io::Read;
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::OnceLock;

/// The guest memory limit of the differential runs: QEMU 7.2 itself needs
/// about 200 MiB of address space (its 128 MiB JIT buffer), so 512 MiB
/// leaves its guest room to run before the hogs hit the limit.
const LIMIT: u64 = 512 << 20;
/// Peak RSS bound for every fwprof run here: the hogs touch one page per
/// MiB they get, `writev_huge` its 16 MiB buffer, the recursion its 8 MiB
/// stack; fwprof itself needs about 10 MiB.
const RSS_BOUND_KIB: i64 = 96 << 10;

/// Build `tests/hostile/*.c` once; `None` (skip) without the cross compiler.
fn hostile_dir() -> Option<PathBuf> {
    static BUILT: OnceLock<bool> = OnceLock::new();
    if !common::require(&["riscv64-linux-gnu-gcc"]) {
        return None;
    }
    let dir = common::repo().join("tests/hostile");
    let ok = *BUILT.get_or_init(|| {
        Command::new(dir.join("build.sh"))
            .status()
            .is_ok_and(|s| s.success())
    });
    assert!(ok, "tests/hostile/build.sh failed");
    Some(dir.join("build"))
}

/// What one process did: stdout, stderr, exit status as a shell shows it
/// (128 + signal for a killed process), and its own peak RSS in KiB.
struct Ran {
    stdout: String,
    stderr: String,
    status: i32,
    maxrss_kib: i64,
}

/// Run `cmd` to completion and take its rusage with `wait4` on its pid (so
/// the figure is this child's own, not the maximum over all children).
/// `stderr_null` sends its stderr to /dev/null instead of capturing it.
// The child is reaped by `wait4` below, not by `Child::wait`.
#[allow(clippy::zombie_processes)]
fn measure(mut cmd: Command, stderr_null: bool) -> Ran {
    cmd.stdin(Stdio::null()).stdout(Stdio::piped());
    cmd.stderr(if stderr_null {
        Stdio::null()
    } else {
        Stdio::piped()
    });
    let mut child = cmd.spawn().expect("spawn");
    let mut out = child.stdout.take().unwrap();
    let err = child.stderr.take();
    let err_reader = std::thread::spawn(move || {
        let mut s = String::new();
        if let Some(mut e) = err {
            let _ = e.read_to_string(&mut s);
        }
        s
    });
    let mut stdout = String::new();
    out.read_to_string(&mut stdout).unwrap();
    let mut status = 0;
    // SAFETY: zeroed rusage is valid; wait4 fills it for our own child.
    let mut ru: libc::rusage = unsafe { std::mem::zeroed() };
    let pid = child.id() as libc::pid_t;
    let r = unsafe { libc::wait4(pid, &mut status, 0, &mut ru) };
    assert_eq!(r, pid, "wait4");
    let status = if libc::WIFEXITED(status) {
        libc::WEXITSTATUS(status)
    } else {
        128 + libc::WTERMSIG(status)
    };
    Ran {
        stdout,
        stderr: err_reader.join().unwrap(),
        status,
        maxrss_kib: ru.ru_maxrss,
    }
}

fn fwprof_cmd(dir: &Path, args: &[&str]) -> Command {
    let mut c = Command::new(common::fwprof());
    c.current_dir(dir).args(args);
    c
}

/// `fwprof run --max-memory LIMIT -- P` against `prlimit --as=LIMIT
/// qemu-riscv64 P`: same stdout and status; fwprof's RSS bounded.
fn same_as_qemu(name: &str, stderr_null: bool) -> Option<Ran> {
    let build = hostile_dir()?;
    if !common::require(&["qemu-riscv64", "prlimit"]) {
        return None;
    }
    let elf = build.join(format!("{name}.elf"));
    let elf_s = elf.to_str().unwrap();
    let limit = LIMIT.to_string();
    let mut q = Command::new("prlimit");
    q.arg(format!("--as={LIMIT}"))
        .arg("qemu-riscv64")
        .arg(&elf)
        .current_dir(&build);
    let qemu = measure(q, true);
    let f = measure(
        fwprof_cmd(&build, &["run", "--max-memory", &limit, "--", elf_s]),
        stderr_null,
    );
    assert_eq!(
        f.stdout, qemu.stdout,
        "{name}: stdout (fwprof stderr: {})",
        f.stderr
    );
    assert_eq!(
        f.status, qemu.status,
        "{name}: status (fwprof stderr: {})",
        f.stderr
    );
    assert!(
        f.maxrss_kib < RSS_BOUND_KIB,
        "{name}: fwprof peak RSS {} KiB, bound {RSS_BOUND_KIB} KiB",
        f.maxrss_kib
    );
    assert!(!f.stderr.contains("panicked"), "{name}: {}", f.stderr);
    Some(f)
}

#[test]
fn mmap_of_a_terabyte_fails_with_enomem_and_the_program_goes_on() {
    let Some(f) = same_as_qemu("mmap_huge", false) else {
        return;
    };
    assert!(
        f.stdout.contains("mmap 1 TiB: Cannot allocate memory"),
        "{}",
        f.stdout
    );
    // Also under the default limit (half the host's available memory).
    let build = hostile_dir().unwrap();
    let d = measure(fwprof_cmd(&build, &["run", "--", "mmap_huge.elf"]), false);
    assert_eq!(d.stdout, f.stdout);
    assert_eq!(d.status, 0, "{}", d.stderr);
}

#[test]
fn malloc_until_null_ends_with_the_programs_own_status() {
    let Some(f) = same_as_qemu("malloc_null", false) else {
        return;
    };
    assert_eq!(f.status, 3);
    assert!(f.stdout.contains("after many blocks"), "{}", f.stdout);
    // `record` keeps the whole profile of such a run.
    let build = hostile_dir().unwrap();
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("m.data");
    let limit = LIMIT.to_string();
    let elf = build.join("malloc_null.elf");
    let r = measure(
        fwprof_cmd(
            &build,
            &[
                "record",
                "-q",
                "--max-memory",
                &limit,
                "-o",
                out.to_str().unwrap(),
                "--",
                elf.to_str().unwrap(),
            ],
        ),
        false,
    );
    assert_eq!(r.status, 3, "{}", r.stderr);
    let p = fwprof_profile::Profile::read(&out).unwrap();
    assert_eq!(p.meta.exit_status, Some(3));
    assert!(r.maxrss_kib < RSS_BOUND_KIB, "record: {} KiB", r.maxrss_kib);
}

#[test]
fn brk_growth_stops_at_the_limit() {
    same_as_qemu("brk_grow", false);
}

#[test]
fn writev_of_16_gib_writes_max_rw_count_with_a_bounded_buffer() {
    let Some(f) = same_as_qemu("writev_huge", true) else {
        return;
    };
    assert_eq!(f.stdout, "writev returned 2147479552\n");
}

#[test]
fn deep_recursion_is_sigsegv_named_as_a_stack_overflow() {
    let Some(f) = same_as_qemu("deep_recursion", false) else {
        return;
    };
    assert_eq!(f.status, 139);
    let line = f
        .stderr
        .lines()
        .find(|l| l.starts_with("fwprof:"))
        .unwrap_or_default()
        .to_string();
    assert!(
        line.contains("stack overflow:") && line.contains("below the stack (limit 8388608 bytes)"),
        "{}",
        f.stderr
    );
    // The partial profile says the same.
    let build = hostile_dir().unwrap();
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("d.data");
    let elf = build.join("deep_recursion.elf");
    let r = measure(
        fwprof_cmd(
            &build,
            &[
                "record",
                "-q",
                "-o",
                out.to_str().unwrap(),
                "--",
                elf.to_str().unwrap(),
            ],
        ),
        false,
    );
    assert_eq!(r.status, 139, "{}", r.stderr);
    let p = fwprof_profile::Profile::read(&out).unwrap();
    let reason = p.meta.partial.unwrap_or_default();
    assert!(
        reason.starts_with("killed by signal 11: stack overflow: "),
        "{reason}"
    );
}

/// A 1 GB `RLIMIT_STACK` sizes the guest stack as QEMU does, but only the
/// touched pages cost memory (the old loader copied the whole stack: 1 GB).
#[test]
fn a_huge_rlimit_stack_costs_only_the_touched_pages() {
    if !common::require(&["qemu-riscv64"]) {
        return;
    }
    let elf = common::repo().join("examples/sha256/sha256.rv64-linux.elf");
    let with_big_stack = |mut c: Command| {
        // SAFETY: setrlimit is async-signal-safe; it runs in the child
        // between fork and exec.
        unsafe {
            c.pre_exec(|| {
                let lim = libc::rlimit {
                    rlim_cur: 1_000_000_000,
                    rlim_max: libc::RLIM_INFINITY,
                };
                if libc::setrlimit(libc::RLIMIT_STACK, &lim) != 0 {
                    return Err(std::io::Error::last_os_error());
                }
                Ok(())
            });
        }
        c
    };
    let tmp = tempfile::tempdir().unwrap();
    let mut q = Command::new("qemu-riscv64");
    q.arg(&elf).current_dir(tmp.path());
    let qemu = measure(with_big_stack(q), true);
    let f = measure(
        with_big_stack(fwprof_cmd(
            tmp.path(),
            &["run", "--", elf.to_str().unwrap()],
        )),
        false,
    );
    assert_eq!(f.stdout, qemu.stdout, "{}", f.stderr);
    assert_eq!(f.status, qemu.status);
    assert!(
        f.maxrss_kib < 64 << 10,
        "peak RSS {} KiB with a 1 GB stack limit",
        f.maxrss_kib
    );
}

#[test]
fn fork_exec_and_socket_get_enosys() {
    let Some(build) = hostile_dir() else {
        return;
    };
    let f = measure(fwprof_cmd(&build, &["run", "--", "spawn.elf"]), false);
    assert_eq!(f.stdout, "fork: ENOSYS\nexecve: ENOSYS\nsocket: ENOSYS\n");
    assert_eq!(f.status, 0);
    for call in ["220 (clone)", "221 (execve)", "198 (socket)"] {
        assert!(
            f.stderr
                .contains(&format!("unsupported syscall {call}, returning ENOSYS")),
            "{}",
            f.stderr
        );
    }
    assert!(f.maxrss_kib < RSS_BOUND_KIB, "{} KiB", f.maxrss_kib);
}

#[test]
fn file_escapes_get_eacces() {
    let Some(build) = hostile_dir() else {
        return;
    };
    let tmp = tempfile::tempdir().unwrap();
    std::fs::copy(build.join("escape.elf"), tmp.path().join("escape.elf")).unwrap();
    std::os::unix::fs::symlink("/etc/passwd", tmp.path().join("link")).unwrap();
    let outside = Path::new("/tmp/fwprof-hostile-escape.txt");
    let _ = std::fs::remove_file(outside);
    let f = measure(
        fwprof_cmd(tmp.path(), &["run", "--", "./escape.elf"]),
        false,
    );
    assert_eq!(
        f.stdout,
        "absolute: EACCES\ndotdot: EACCES\nsymlink: EACCES\nwrite: EACCES\nwrite-outside: EACCES\n",
        "{}",
        f.stderr
    );
    assert_eq!(f.status, 0);
    assert!(!tmp.path().join("new-file.txt").exists());
    assert!(!outside.exists());
    assert!(f.maxrss_kib < RSS_BOUND_KIB, "{} KiB", f.maxrss_kib);
}
