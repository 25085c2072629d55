//! Linux system calls: argument decoding, struct layouts, errors.

use super::fixtures::{config, linux_static, linux_static_path};
use crate::linux::syscalls as nr;
use crate::test_mem::TestMem;
use crate::{load, EnvOutcome, Environment, GuestMemory, Perm, Sandbox, Target};

const SCRATCH: u64 = 0x10_0000;
const BUF: u64 = SCRATCH + 0x1000;
const PATH: u64 = SCRATCH + 0x8000;
const EFAULT: i64 = -(libc::EFAULT as i64);
const EACCES: i64 = -(libc::EACCES as i64);

struct Rig {
    env: Environment,
    mem: TestMem,
}

fn rw() -> Perm {
    Perm {
        read: true,
        write: true,
        exec: false,
    }
}

impl Rig {
    fn new(sandbox: Sandbox) -> Rig {
        let mut cfg = config(linux_static_path().to_str().unwrap(), &[], &[]);
        cfg.sandbox = sandbox;
        let mut env = Environment::new(&cfg, Target::Linux, true);
        env.capture_console(b"input".to_vec());
        let mut mem = TestMem::new();
        mem.map(SCRATCH, 0x10000, rw()).unwrap();
        Rig { env, mem }
    }

    /// A rig with the static fixture really loaded (address space, brk).
    fn loaded() -> Rig {
        let mut mem = TestMem::new();
        let cfg = config(linux_static_path().to_str().unwrap(), &[], &[]);
        let (_, mut env) = load(linux_static(), &cfg, &mut mem).unwrap();
        env.capture_console(Vec::new());
        mem.map(SCRATCH, 0x10000, rw()).unwrap();
        env.linux.aspace.insert(SCRATCH, SCRATCH + 0x10000, rw());
        Rig { env, mem }
    }

    fn sys(&mut self, n: u64, args: &[u64]) -> i64 {
        match self.sys_outcome(n, args) {
            (EnvOutcome::Continue, v) => v,
            (o, _) => panic!("unexpected {o:?}"),
        }
    }

    fn sys_outcome(&mut self, n: u64, args: &[u64]) -> (EnvOutcome, i64) {
        let mut regs = [0u64; 32];
        regs[17] = n;
        regs[10..10 + args.len()].copy_from_slice(args);
        let o = self.env.ecall(&mut regs, &mut self.mem, 0).unwrap();
        (o, regs[10] as i64)
    }

    fn path(&mut self, p: &str) -> u64 {
        let mut b = p.as_bytes().to_vec();
        b.push(0);
        self.mem.write(PATH, &b).unwrap();
        PATH
    }
}

const AT_FDCWD: u64 = -100i64 as u64;

#[test]
fn stdio_read_write_writev() {
    let mut r = Rig::new(Sandbox::default());
    r.mem.write(BUF, b"hello world").unwrap();
    assert_eq!(r.sys(nr::WRITE, &[1, BUF, 5]), 5);
    // iovec array: two (base, len) pairs of 8-byte words.
    let iov = BUF + 0x100;
    for (i, (b, l)) in [(BUF + 5, 6u64), (BUF, 1)].iter().enumerate() {
        r.mem.write(iov + 16 * i as u64, &b.to_le_bytes()).unwrap();
        r.mem
            .write(iov + 16 * i as u64 + 8, &l.to_le_bytes())
            .unwrap();
    }
    assert_eq!(r.sys(nr::WRITEV, &[2, iov, 2]), 7);
    assert_eq!(r.env.captured_output(), (&b"hello"[..], &b" worldh"[..]));
    assert_eq!(r.sys(nr::READ, &[0, BUF, 3]), 3);
    assert_eq!(r.mem.peek(BUF, 3), b"inp");
    assert_eq!(r.sys(nr::READ, &[9, BUF, 3]), -(libc::EBADF as i64));
    assert_eq!(r.sys(nr::WRITE, &[1, 0x10, 3]), EFAULT);
    assert_eq!(r.sys(nr::READ, &[0, 0x10, 3]), EFAULT);
    assert_eq!(r.sys(nr::WRITEV, &[1, iov, 5000]), -(libc::EINVAL as i64));
    // Captured streams are not terminals.
    assert_eq!(r.sys(nr::IOCTL, &[1, 0x5401, BUF]), -(libc::ENOTTY as i64));
    // fstat of a captured stream looks like a pipe.
    assert_eq!(r.sys(nr::FSTAT, &[1, BUF]), 0);
    let mode = u32::from_le_bytes(r.mem.peek(BUF + 16, 4).try_into().unwrap());
    assert_eq!(mode & libc::S_IFMT, libc::S_IFIFO);
}

#[test]
fn files_through_the_sandbox() {
    let dir = tempfile::tempdir().unwrap();
    let inside = dir.path().join("in");
    std::fs::create_dir(&inside).unwrap();
    std::fs::write(inside.join("f.txt"), b"abcdefgh").unwrap();
    std::fs::write(dir.path().join("secret"), b"s").unwrap();
    std::os::unix::fs::symlink(dir.path().join("secret"), inside.join("link")).unwrap();
    let mut r = Rig::new(Sandbox {
        read: vec![inside.clone()],
        write: vec![],
    });
    let p = r.path(inside.join("f.txt").to_str().unwrap());
    let fd = r.sys(nr::OPENAT, &[AT_FDCWD, p, 0, 0]);
    assert_eq!(fd, 3, "lowest free fd");
    assert_eq!(r.sys(nr::LSEEK, &[3, 2, 0]), 2);
    assert_eq!(r.sys(nr::READ, &[3, BUF, 3]), 3);
    assert_eq!(r.mem.peek(BUF, 3), b"cde");
    assert_eq!(r.sys(nr::PREAD64, &[3, BUF, 2, 6]), 2);
    assert_eq!(r.mem.peek(BUF, 2), b"gh");
    // fstat: st_size at offset 48, st_mode at 16 (riscv64 struct stat).
    assert_eq!(r.sys(nr::FSTAT, &[3, BUF]), 0);
    assert_eq!(r.mem.peek_u64(BUF + 48), 8);
    let mode = u32::from_le_bytes(r.mem.peek(BUF + 16, 4).try_into().unwrap());
    assert_eq!(mode & libc::S_IFMT, libc::S_IFREG);
    // A regular file is not a terminal.
    assert_eq!(r.sys(nr::IOCTL, &[3, 0x5401, BUF]), -(libc::ENOTTY as i64));
    // newfstatat and statx by path.
    assert_eq!(r.sys(nr::NEWFSTATAT, &[AT_FDCWD, p, BUF, 0]), 0);
    assert_eq!(r.mem.peek_u64(BUF + 48), 8);
    assert_eq!(r.sys(nr::STATX, &[AT_FDCWD, p, 0, 0x7ff, BUF]), 0);
    assert_eq!(r.mem.peek_u64(BUF + 40), 8, "stx_size at 40");
    let stx_mode = u16::from_le_bytes(r.mem.peek(BUF + 28, 2).try_into().unwrap());
    assert_eq!(u32::from(stx_mode) & libc::S_IFMT, libc::S_IFREG);
    // statx with AT_EMPTY_PATH on the fd.
    let e = r.path("");
    assert_eq!(r.sys(nr::STATX, &[3, e, 0x1000, 0x7ff, BUF]), 0);
    assert_eq!(r.mem.peek_u64(BUF + 40), 8);
    assert_eq!(r.sys(nr::CLOSE, &[3]), 0);
    assert_eq!(r.sys(nr::CLOSE, &[3]), -(libc::EBADF as i64));
    // Relative to a directory fd.
    let d = r.path(inside.to_str().unwrap());
    let dfd = r.sys(nr::OPENAT, &[AT_FDCWD, d, 0o200000, 0]);
    assert_eq!(dfd, 3);
    let rel = r.path("f.txt");
    assert_eq!(r.sys(nr::OPENAT, &[3, rel, 0, 0]), 4);
    // Denials: symlink escape, .., /proc paths, writes without a write root.
    for bad in [
        inside.join("link").to_str().unwrap().to_string(),
        format!("{}/../secret", inside.display()),
        "/proc/self/root/etc/passwd".into(),
        "/proc/self/cwd/..".into(),
        "/etc/passwd".into(),
    ] {
        let p = r.path(&bad);
        assert_eq!(r.sys(nr::OPENAT, &[AT_FDCWD, p, 0, 0]), EACCES, "{bad}");
        assert_eq!(
            r.sys(nr::NEWFSTATAT, &[AT_FDCWD, p, BUF, 0]),
            EACCES,
            "{bad}"
        );
    }
    let p = r.path(inside.join("f.txt").to_str().unwrap());
    assert_eq!(r.sys(nr::OPENAT, &[AT_FDCWD, p, 1, 0]), EACCES, "O_WRONLY");
    assert_eq!(
        r.sys(nr::OPENAT, &[AT_FDCWD, p, 0o1000, 0]),
        EACCES,
        "O_TRUNC"
    );
    let n = r.path(inside.join("new").to_str().unwrap());
    assert_eq!(
        r.sys(nr::OPENAT, &[AT_FDCWD, n, 0o101, 0o644]),
        EACCES,
        "O_CREAT"
    );
    let p = r.path(inside.join("f.txt").to_str().unwrap());
    assert_eq!(r.sys(nr::UNLINKAT, &[AT_FDCWD, p, 0]), EACCES);
    assert!(inside.join("f.txt").exists());
    assert_eq!(r.sys(nr::FACCESSAT, &[AT_FDCWD, p, 4]), 0);
    assert_eq!(r.sys(nr::FACCESSAT, &[AT_FDCWD, p, 2]), EACCES);
    // Bad path pointer.
    assert_eq!(r.sys(nr::OPENAT, &[AT_FDCWD, 0x10, 0, 0]), EFAULT);
}

#[test]
fn writes_and_renames_with_write_root() {
    let dir = tempfile::tempdir().unwrap();
    let w = dir.path().join("w");
    std::fs::create_dir(&w).unwrap();
    let mut r = Rig::new(Sandbox {
        read: vec![],
        write: vec![w.clone()],
    });
    let p = r.path(w.join("o.txt").to_str().unwrap());
    assert_eq!(r.sys(nr::OPENAT, &[AT_FDCWD, p, 0o1101, 0o644]), 3);
    r.mem.write(BUF, b"data").unwrap();
    assert_eq!(r.sys(nr::WRITE, &[3, BUF, 4]), 4);
    assert_eq!(std::fs::read(w.join("o.txt")).unwrap(), b"data");
    // renameat inside -> ok; to outside -> EACCES.
    let a = w.join("o.txt");
    let b = w.join("p.txt");
    let c = dir.path().join("out.txt");
    r.mem
        .write(PATH, format!("{}\0", a.display()).as_bytes())
        .unwrap();
    r.mem
        .write(BUF, format!("{}\0", b.display()).as_bytes())
        .unwrap();
    assert_eq!(r.sys(nr::RENAMEAT, &[AT_FDCWD, PATH, AT_FDCWD, BUF]), 0);
    r.mem
        .write(PATH, format!("{}\0", b.display()).as_bytes())
        .unwrap();
    r.mem
        .write(BUF, format!("{}\0", c.display()).as_bytes())
        .unwrap();
    assert_eq!(
        r.sys(nr::RENAMEAT, &[AT_FDCWD, PATH, AT_FDCWD, BUF]),
        EACCES
    );
    assert!(b.exists() && !c.exists());
    assert_eq!(r.sys(nr::UNLINKAT, &[AT_FDCWD, PATH, 0]), 0);
    assert!(!b.exists());
}

#[test]
fn readlink_proc_self_exe_and_getcwd() {
    let mut r = Rig::new(Sandbox::default());
    let exe = std::fs::canonicalize(linux_static_path()).unwrap();
    let exe = exe.to_str().unwrap().to_string();
    let p = r.path("/proc/self/exe");
    assert_eq!(
        r.sys(nr::READLINKAT, &[AT_FDCWD, p, BUF, 4096]),
        exe.len() as i64
    );
    assert_eq!(r.mem.peek(BUF, exe.len()), exe.as_bytes());
    // QEMU 7.2 quirk: truncated copy with a NUL, full length returned.
    assert_eq!(
        r.sys(nr::READLINKAT, &[AT_FDCWD, p, BUF, 4]),
        exe.len() as i64
    );
    assert_eq!(
        r.mem.peek(BUF, 4),
        [exe.as_bytes()[0], exe.as_bytes()[1], exe.as_bytes()[2], 0]
    );
    // getcwd returns the length including the NUL.
    let cwd = std::env::current_dir().unwrap();
    let len = cwd.to_str().unwrap().len() as i64 + 1;
    assert_eq!(r.sys(nr::GETCWD, &[BUF, 4096]), len);
    assert_eq!(r.mem.peek_cstr(BUF), cwd.to_str().unwrap());
    assert_eq!(r.sys(nr::GETCWD, &[BUF, 2]), -(libc::ERANGE as i64));
}

#[test]
fn brk_follows_qemu() {
    let mut r = Rig::loaded();
    let b0 = r.sys(nr::BRK, &[0]) as u64;
    assert_eq!(b0, r.env.brk());
    assert_eq!(b0 % 4096, 0);
    // Grow inside a fresh page range, then shrink, then below the start.
    assert_eq!(r.sys(nr::BRK, &[b0 + 0xb00]) as u64, b0 + 0xb00);
    assert!(r.mem.is_mapped(b0, 0xb00));
    r.mem.write(b0 + 0x10, b"junk").unwrap();
    assert_eq!(r.sys(nr::BRK, &[b0 + 0x10]) as u64, b0 + 0x10);
    assert_eq!(r.sys(nr::BRK, &[b0 + 0x20]) as u64, b0 + 0x20);
    assert_eq!(r.mem.peek(b0 + 0x10, 4), [0; 4], "regrown heap is zeroed");
    assert_eq!(r.sys(nr::BRK, &[b0 - 0x1000]) as u64, b0 + 0x20);
    assert_eq!(r.sys(nr::BRK, &[b0 + 0x21000]) as u64, b0 + 0x21000);
    assert!(r.mem.is_mapped(b0 + 0x20fff, 1));
}

#[test]
fn mmap_placement_matches_qemu() {
    let mut r = Rig::loaded();
    let (prot, flags) = (3u64, 0x22u64); // PROT_READ|PROT_WRITE, MAP_PRIVATE|MAP_ANONYMOUS
    let neg1 = u64::MAX;
    // qemu-riscv64 7.2: mmap(NULL,4096) = 0x4000802000, then 100000 bytes at 0x4000803000.
    assert_eq!(
        r.sys(nr::MMAP, &[0, 4096, prot, flags, neg1, 0]),
        0x40_0080_2000
    );
    assert_eq!(
        r.sys(nr::MMAP, &[0, 100_000, prot, flags, neg1, 0]),
        0x40_0080_3000
    );
    let c = r.sys(nr::MMAP, &[0, 200_704, prot, flags, neg1, 0]);
    assert_eq!(c, 0x40_0081_c000);
    assert!(r.mem.is_mapped(0x40_0081_c000, 200_704));
    assert_eq!(r.sys(nr::MUNMAP, &[c as u64, 200_704]), 0);
    assert!(!r.mem.is_mapped(c as u64, 200_704));
    assert_eq!(
        r.sys(nr::MUNMAP, &[c as u64 + 1, 4096]),
        -(libc::EINVAL as i64)
    );
    // mprotect needs a mapped range.
    assert_eq!(
        r.sys(nr::MPROTECT, &[c as u64, 4096, 1]),
        -(libc::ENOMEM as i64)
    );
    assert_eq!(r.sys(nr::MPROTECT, &[0x40_0080_2000, 4096, 1]), 0);
    assert_eq!(
        r.mem.perm_at(0x40_0080_2000),
        Some(Perm {
            read: true,
            write: false,
            exec: false
        })
    );
    // MAP_FIXED replaces; bad arguments.
    assert_eq!(
        r.sys(
            nr::MMAP,
            &[0x50_0000_0000, 8192, prot, flags | 0x10, neg1, 0]
        ),
        0x50_0000_0000
    );
    assert_eq!(
        r.sys(nr::MMAP, &[0, 0, prot, flags, neg1, 0]),
        -(libc::EINVAL as i64)
    );
    assert_eq!(
        r.sys(nr::MMAP, &[0, 4096, prot, 0x20, neg1, 0]),
        -(libc::EINVAL as i64)
    );
    // mremap with MAYMOVE moves to a fresh address and keeps the contents.
    r.mem.write(0x40_0080_3000, b"keep").unwrap();
    let m = r.sys(nr::MREMAP, &[0x40_0080_3000, 100_000, 300_000, 1, 0]) as u64;
    assert_ne!(m, 0x40_0080_3000);
    assert_eq!(r.mem.peek(m, 4), b"keep");
    assert!(!r.mem.is_mapped(0x40_0080_3000, 100_000));
}

/// mremap copies in 1 MiB chunks: bytes past the first chunk move too,
/// and a fixed destination overlapping the source is EINVAL (Linux).
#[test]
fn mremap_moves_every_chunk() {
    let mut r = Rig::new(Sandbox::default());
    let (prot, flags, neg1) = (3, 0x22, u64::MAX);
    let a = r.sys(nr::MMAP, &[0, 3 << 20, prot, flags, neg1, 0]) as u64;
    r.mem.write(a + (5 << 19), b"far").unwrap();
    r.mem.write(a + (3 << 20) - 4, b"end!").unwrap();
    let m = r.sys(nr::MREMAP, &[a, 3 << 20, 4 << 20, 1, 0]) as u64;
    assert_ne!(m, a);
    assert_eq!(r.mem.peek(m + (5 << 19), 3), b"far");
    assert_eq!(r.mem.peek(m + (3 << 20) - 4, 4), b"end!");
    assert_eq!(
        r.sys(nr::MREMAP, &[m, 4 << 20, 4 << 20, 3, m + 4096]),
        -(libc::EINVAL as i64)
    );
}

#[test]
fn file_backed_mmap_copies_contents() {
    let dir = tempfile::tempdir().unwrap();
    let f = dir.path().join("m.bin");
    let mut data = vec![0u8; 5000];
    data[4096..4100].copy_from_slice(b"page");
    std::fs::write(&f, &data).unwrap();
    let mut r = Rig::new(Sandbox {
        read: vec![dir.path().to_path_buf()],
        write: vec![],
    });
    let p = r.path(f.to_str().unwrap());
    assert_eq!(r.sys(nr::OPENAT, &[AT_FDCWD, p, 0, 0]), 3);
    let a = r.sys(nr::MMAP, &[0, 4096, 1, 2, 3, 4096]) as u64;
    assert_eq!(r.mem.peek(a, 5), b"page\0");
    assert_eq!(
        r.mem.perm_at(a),
        Some(Perm {
            read: true,
            write: false,
            exec: false
        })
    );
}

#[test]
fn signals_identity_time_random() {
    let mut r = Rig::new(Sandbox::default());
    // rt_sigaction: old action is zero, then what was set.
    let act = BUF;
    r.mem
        .write(
            act,
            &[
                0x1234u64.to_le_bytes(),
                4u64.to_le_bytes(),
                0x10u64.to_le_bytes(),
            ]
            .concat(),
        )
        .unwrap();
    assert_eq!(r.sys(nr::RT_SIGACTION, &[10, act, BUF + 0x100, 8]), 0);
    assert_eq!(r.mem.peek(BUF + 0x100, 24), vec![0; 24]);
    assert_eq!(r.sys(nr::RT_SIGACTION, &[10, 0, BUF + 0x100, 8]), 0);
    assert_eq!(r.mem.peek_u64(BUF + 0x100), 0x1234);
    assert_eq!(
        r.sys(nr::RT_SIGACTION, &[9, act, 0, 8]),
        -(libc::EINVAL as i64)
    );
    assert_eq!(
        r.sys(nr::RT_SIGACTION, &[10, act, 0, 16]),
        -(libc::EINVAL as i64)
    );
    // rt_sigprocmask: block, read back.
    r.mem.write(BUF, &0x5u64.to_le_bytes()).unwrap();
    assert_eq!(r.sys(nr::RT_SIGPROCMASK, &[0, BUF, 0, 8]), 0);
    assert_eq!(r.sys(nr::RT_SIGPROCMASK, &[0, 0, BUF + 8, 8]), 0);
    assert_eq!(r.mem.peek_u64(BUF + 8), 0x5);
    // sigaltstack: initially disabled.
    assert_eq!(r.sys(nr::SIGALTSTACK, &[0, BUF]), 0);
    assert_eq!(
        u32::from_le_bytes(r.mem.peek(BUF + 8, 4).try_into().unwrap()),
        2
    );
    // uname: machine riscv64 at field 4.
    assert_eq!(r.sys(nr::UNAME, &[BUF]), 0);
    assert_eq!(r.mem.peek_cstr(BUF), "Linux");
    assert_eq!(r.mem.peek_cstr(BUF + 4 * 65), "riscv64");
    // getrandom is deterministic.
    assert_eq!(r.sys(nr::GETRANDOM, &[BUF, 16, 0]), 16);
    let a = r.mem.peek(BUF, 16);
    let mut r2 = Rig::new(Sandbox::default());
    r2.sys(nr::GETRANDOM, &[BUF, 16, 0]);
    assert_eq!(a, r2.mem.peek(BUF, 16));
    // clock_gettime writes a 16-byte timespec.
    assert_eq!(r.sys(nr::CLOCK_GETTIME, &[0, BUF]), 0);
    assert!(r.mem.peek_u64(BUF) > 1_600_000_000);
    assert!(r.mem.peek_u64(BUF + 8) < 1_000_000_000);
    assert_eq!(r.sys(nr::CLOCK_GETTIME, &[0, 0x10]), EFAULT);
    // ids and QEMU 7.2's ENOSYS answers.
    assert_eq!(r.sys(nr::GETPID, &[]), i64::from(std::process::id()));
    assert_eq!(
        r.sys(nr::SET_TID_ADDRESS, &[BUF]),
        i64::from(std::process::id())
    );
    assert_eq!(
        r.sys(nr::SET_ROBUST_LIST, &[BUF, 24]),
        -(libc::ENOSYS as i64)
    );
    assert_eq!(r.sys(nr::RSEQ, &[BUF, 32, 0, 0]), -(libc::ENOSYS as i64));
    assert_eq!(r.sys(nr::MADVISE, &[BUF, 4096, 4]), 0);
    // nanosleep: the program sleeps in guest time (the simulator advances
    // its clock); bad requests fail as on Linux and sleep nothing.
    let timespec = |r: &mut Rig, sec: i64, nsec: i64| {
        let mut b = sec.to_le_bytes().to_vec();
        b.extend_from_slice(&nsec.to_le_bytes());
        r.mem.write(BUF, &b).unwrap();
    };
    timespec(&mut r, 2, 2500);
    assert_eq!(
        r.sys_outcome(nr::NANOSLEEP, &[BUF, 0]),
        (EnvOutcome::Sleep { ns: 2_000_002_500 }, 0)
    );
    timespec(&mut r, 0, 1_000_000_000);
    assert_eq!(r.sys(nr::NANOSLEEP, &[BUF, 0]), -(libc::EINVAL as i64));
    timespec(&mut r, -1, 0);
    assert_eq!(r.sys(nr::NANOSLEEP, &[BUF, 0]), -(libc::EINVAL as i64));
    assert_eq!(r.sys(nr::NANOSLEEP, &[0x10, 0]), EFAULT);
    // clock_nanosleep: relative, absolute (a deadline already past sleeps 0),
    // and the CPU-time clocks refused.
    timespec(&mut r, 0, 7000);
    assert_eq!(
        r.sys_outcome(nr::CLOCK_NANOSLEEP, &[1, 0, BUF, 0]),
        (EnvOutcome::Sleep { ns: 7000 }, 0)
    );
    assert_eq!(
        r.sys_outcome(nr::CLOCK_NANOSLEEP, &[1, 1, BUF, 0]),
        (EnvOutcome::Sleep { ns: 0 }, 0)
    );
    assert_eq!(
        r.sys(nr::CLOCK_NANOSLEEP, &[2, 0, BUF, 0]),
        -(libc::EINVAL as i64)
    );
    // prlimit64(RLIMIT_STACK) reads the host limit.
    assert_eq!(r.sys(nr::PRLIMIT64, &[0, 3, 0, BUF]), 0);
    let mut lim = libc::rlimit {
        rlim_cur: 0,
        rlim_max: 0,
    };
    // SAFETY: valid out-pointer.
    unsafe { libc::getrlimit(libc::RLIMIT_STACK, &mut lim) };
    assert_eq!(r.mem.peek_u64(BUF), lim.rlim_cur);
    // futex on one thread.
    r.mem.write(BUF, &1u32.to_le_bytes()).unwrap();
    assert_eq!(r.sys(nr::FUTEX, &[BUF, 128, 2, 0]), -(libc::EAGAIN as i64));
    assert_eq!(r.sys(nr::FUTEX, &[BUF, 129, 1, 0]), 0);
}

#[test]
fn unknown_calls_and_exit() {
    let mut r = Rig::new(Sandbox::default());
    assert_eq!(r.sys(4000, &[]), -(libc::ENOSYS as i64));
    assert_eq!(r.sys(4000, &[]), -(libc::ENOSYS as i64));
    assert_eq!(r.env.linux.warned.len(), 1, "one warning per number");
    assert_eq!(
        r.sys_outcome(nr::EXIT_GROUP, &[0x1ff]).0,
        EnvOutcome::Exit(0xff)
    );
    // abort(): tgkill(self, SIGABRT) sends it; with the default action
    // its delivery after the call ends the run.
    let pid = std::process::id() as u64;
    assert_eq!(r.sys(nr::TGKILL, &[pid, pid, 6]), 0);
    let mut ctx = crate::UserContext {
        pc: 0,
        x: [0; 32],
        f: [0; 32],
        fcsr: 0,
    };
    assert_eq!(
        r.env.deliver_signal(&mut ctx, &mut r.mem),
        crate::SignalOutcome::Killed {
            signo: 6,
            cause: crate::KillCause::Signal
        }
    );
}

#[test]
fn rv32_results_are_sign_extended_and_mmap2_uses_pages() {
    let mut cfg = config("p", &[], &[]);
    cfg.sandbox = Sandbox::default();
    let mut env = Environment::new(&cfg, Target::Linux, false);
    let mut mem = TestMem::new();
    let mut regs = [0u64; 32];
    regs[17] = nr::CLOSE;
    regs[10] = 77;
    env.ecall(&mut regs, &mut mem, 0).unwrap();
    assert_eq!(regs[10], -(libc::EBADF as i64) as u64);
    // mmap2 on RV32 places below 0x40000000... first at TASK_UNMAPPED_BASE.
    regs = [0u64; 32];
    regs[17] = nr::MMAP;
    regs[11] = 4096;
    regs[12] = 3;
    regs[13] = 0x22;
    regs[14] = 0xffff_ffff;
    env.ecall(&mut regs, &mut mem, 0).unwrap();
    assert_eq!(regs[10], 0x4000_0000);
}

#[test]
fn rv32_layout_matches_qemu_riscv32() {
    // qemu-riscv32 7.2 (reserved_va, downward search): stack mapping at
    // 0x40000000 (guard page first), trampoline at 0x3ffff000, then
    // mmap2(4096) = 0x3fffe000 and mmap2(8192) = 0x3fffc000.
    let mut cfg = config("./m32", &["x"], &[]);
    cfg.target = Some(Target::Linux);
    let mut mem = TestMem::new();
    let (p, mut env) = load(super::fixtures::bare_rv32(), &cfg, &mut mem).unwrap();
    let l = env.stack_layout().unwrap().clone();
    assert_eq!(l.stack_limit, 0x4000_1000);
    assert_eq!(l.sigtramp, 0x3fff_f000);
    if crate::linux_stack::host_stack_size() == 8 << 20 {
        // `env -i qemu-riscv32 -d page ./m32 x`: start_stack 0x40800f30,
        // auxv_start 0x40800f44.
        assert_eq!(p.sp, 0x4080_0f30);
        assert_eq!(l.auxv, 0x4080_0f44);
    }
    assert_eq!(p.sp % 16, 0);
    // argc and argv[0] as 32-bit words.
    assert_eq!(mem.peek(p.sp, 4), 2u32.to_le_bytes());
    let argv0 = u32::from_le_bytes(mem.peek(p.sp + 4, 4).try_into().unwrap());
    assert_eq!(mem.peek_cstr(u64::from(argv0)), "./m32");
    let mut mmap = |len: u64| {
        let mut regs = [0u64; 32];
        regs[17] = nr::MMAP;
        regs[11] = len;
        regs[12] = 3;
        regs[13] = 0x22;
        regs[14] = 0xffff_ffff;
        env.ecall(&mut regs, &mut mem, 0).unwrap();
        regs[10]
    };
    assert_eq!(mmap(4096), 0x3fff_e000);
    assert_eq!(mmap(8192), 0x3fff_c000);
}
