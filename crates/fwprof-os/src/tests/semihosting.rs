//! Semihosting operations one by one against an in-memory guest.

use super::fixtures::config;
use crate::semihost::op::*;
use crate::test_mem::TestMem;
use crate::{EnvOutcome, Environment, GuestMemory, Perm, Sandbox, Target};

const BLOCK: u64 = 0x8000_1000;
const BUF: u64 = 0x8000_2000;
const STR: u64 = 0x8000_3000;

struct Rig {
    env: Environment,
    mem: TestMem,
    rv64: bool,
    last: u64,
}

impl Rig {
    fn new(rv64: bool, sandbox: Sandbox) -> Rig {
        let mut cfg = config("prog", &["a", "b"], &[]);
        cfg.sandbox = sandbox;
        let mut env = Environment::new(&cfg, Target::BareMetal, rv64);
        env.capture_console(b"Q".to_vec());
        let mut mem = TestMem::new();
        mem.map(
            0x8000_0000,
            0x10000,
            Perm {
                read: true,
                write: true,
                exec: true,
            },
        )
        .unwrap();
        Rig {
            env,
            mem,
            rv64,
            last: 0,
        }
    }

    fn call_raw(&mut self, op: u64, a1: u64, instret: u64) -> EnvOutcome {
        let mut regs = [0u64; 32];
        regs[10] = op;
        regs[11] = a1;
        let out = self
            .env
            .semihost(&mut regs, &mut self.mem, instret)
            .unwrap();
        self.last = regs[10];
        out
    }

    /// Write the parameter block and call; returns a0.
    fn call(&mut self, op: u64, words: &[u64]) -> u64 {
        for (i, &w) in words.iter().enumerate() {
            if self.rv64 {
                self.mem
                    .write(BLOCK + 8 * i as u64, &w.to_le_bytes())
                    .unwrap();
            } else {
                self.mem
                    .write(BLOCK + 4 * i as u64, &(w as u32).to_le_bytes())
                    .unwrap();
            }
        }
        assert_eq!(self.call_raw(op, BLOCK, 0), EnvOutcome::Continue);
        self.last
    }

    fn string(&mut self, s: &str) -> (u64, u64) {
        let mut b = s.as_bytes().to_vec();
        b.push(0);
        self.mem.write(STR, &b).unwrap();
        (STR, s.len() as u64)
    }

    fn open(&mut self, name: &str, mode: u64) -> u64 {
        let (p, l) = self.string(name);
        self.call(SYS_OPEN, &[p, mode, l])
    }

    fn errno(&mut self) -> u64 {
        self.call(SYS_ERRNO, &[])
    }
}

fn no_files() -> Sandbox {
    Sandbox::default()
}

const M1: u64 = u64::MAX;

#[test]
fn console_handles_and_writes() {
    let mut r = Rig::new(true, no_files());
    let out = r.open(":tt", 4); // "w" -> stdout
    assert_eq!(out, 1, "handles start at 1 (QEMU alloc_guestfd)");
    let err = r.open(":tt", 8); // "a" -> stderr
    assert_eq!(err, 2);
    let inp = r.open(":tt", 0); // "r" -> stdin
    assert_eq!(inp, 3);
    r.mem.write(BUF, b"hello").unwrap();
    assert_eq!(
        r.call(SYS_WRITE, &[out, BUF, 5]),
        0,
        "returns bytes NOT written"
    );
    assert_eq!(r.call(SYS_WRITE, &[err, BUF, 2]), 0);
    r.mem.write(BUF, b"!").unwrap();
    r.call_raw(SYS_WRITEC, BUF, 0);
    assert_eq!(r.last, 0xdead_beef);
    r.mem.write(STR, b"zero\0").unwrap();
    r.call_raw(SYS_WRITE0, STR, 0);
    assert_eq!(r.last, 0xdead_beef);
    assert_eq!(r.env.captured_output(), (&b"hello!zero"[..], &b"he"[..]));
    // stdin: one byte, then end of input (3 bytes not read of 4).
    assert_eq!(r.call(SYS_READ, &[inp, BUF, 4]), 3);
    assert_eq!(r.mem.peek(BUF, 1), b"Q");
    assert_eq!(r.call(SYS_ISTTY, &[out]), 0);
    assert_eq!(r.call(SYS_CLOSE, &[out]), 0);
    assert_eq!(r.call(SYS_CLOSE, &[out]), M1);
    assert_eq!(r.errno(), libc::EBADF as u64);
    // Closed handle: write reports nothing written.
    assert_eq!(r.call(SYS_WRITE, &[out, BUF, 5]), 5);
    // The freed handle is reused.
    assert_eq!(r.open(":tt", 4), 1);
}

#[test]
fn readc_reads_stdin() {
    let mut r = Rig::new(true, no_files());
    r.call_raw(SYS_READC, 0, 0);
    assert_eq!(r.last, u64::from(b'Q'));
}

#[test]
fn features_file() {
    let mut r = Rig::new(true, no_files());
    let h = r.open(":semihosting-features", 0);
    assert_eq!(h, 1);
    assert_eq!(r.call(SYS_FLEN, &[h]), 5);
    assert_eq!(r.call(SYS_READ, &[h, BUF, 8]), 3);
    assert_eq!(r.mem.peek(BUF, 5), b"SHFB\x03");
    assert_eq!(r.call(SYS_SEEK, &[h, 4]), 0);
    assert_eq!(r.call(SYS_READ, &[h, BUF, 1]), 0);
    assert_eq!(r.mem.peek(BUF, 1), [3]);
    // Only read modes are accepted.
    assert_eq!(r.open(":semihosting-features", 4), M1);
    assert_eq!(r.errno(), libc::EACCES as u64);
    assert_eq!(r.open(":tt", 12), M1);
    assert_eq!(r.errno(), libc::EINVAL as u64);
}

#[test]
fn host_files_through_the_sandbox() {
    let dir = tempfile::tempdir().unwrap();
    let inside = dir.path().join("in");
    std::fs::create_dir(&inside).unwrap();
    std::fs::write(inside.join("data.txt"), b"0123456789").unwrap();
    std::fs::write(dir.path().join("secret.txt"), b"s").unwrap();
    let ro = Sandbox {
        read: vec![inside.clone()],
        write: vec![],
    };
    let mut r = Rig::new(true, ro);
    let f = inside.join("data.txt");
    let h = r.open(f.to_str().unwrap(), 0);
    assert_eq!(h, 1);
    assert_eq!(r.call(SYS_FLEN, &[h]), 10);
    assert_eq!(r.call(SYS_SEEK, &[h, 3]), 0);
    assert_eq!(r.call(SYS_READ, &[h, BUF, 4]), 0);
    assert_eq!(r.mem.peek(BUF, 4), b"3456");
    assert_eq!(
        r.call(SYS_READ, &[h, BUF, 10]),
        7,
        "3 bytes left of 10 asked"
    );
    assert_eq!(r.call(SYS_ISTTY, &[h]), 0);
    // Escapes and writes are denied with EACCES.
    let esc = format!("{}/../secret.txt", inside.display());
    assert_eq!(r.open(&esc, 0), M1);
    assert_eq!(r.errno(), libc::EACCES as u64);
    assert_eq!(r.open(f.to_str().unwrap(), 4), M1);
    assert_eq!(r.errno(), libc::EACCES as u64);
    let (p, l) = r.string(f.to_str().unwrap());
    assert_eq!(r.call(SYS_REMOVE, &[p, l]), M1);
    assert!(f.exists());
    // Missing file: host errno.
    assert_eq!(r.open(inside.join("none").to_str().unwrap(), 0), M1);
    assert_eq!(r.errno(), libc::ENOENT as u64);
    // Length that does not point at the NUL: EINVAL (QEMU validate_strlen).
    let (p, l) = r.string(f.to_str().unwrap());
    assert_eq!(r.call(SYS_OPEN, &[p, 0, l - 1]), M1);
    assert_eq!(r.errno(), libc::EINVAL as u64);
}

#[test]
fn writes_remove_rename_with_write_root() {
    let dir = tempfile::tempdir().unwrap();
    let inside = dir.path().join("w");
    std::fs::create_dir(&inside).unwrap();
    let sb = Sandbox {
        read: vec![],
        write: vec![inside.clone()],
    };
    let mut r = Rig::new(false, sb);
    let f = inside.join("out.txt");
    let h = r.open(f.to_str().unwrap(), 4);
    assert_eq!(h, 1);
    r.mem.write(BUF, b"abc").unwrap();
    assert_eq!(r.call(SYS_WRITE, &[h, BUF, 3]), 0);
    assert_eq!(r.call(SYS_CLOSE, &[h]), 0);
    assert_eq!(std::fs::read(&f).unwrap(), b"abc");
    // Append mode, as QEMU 7.2 serves it: no O_APPEND, so the write lands at
    // offset 0 of the existing file (no truncation).
    let h = r.open(f.to_str().unwrap(), 8);
    assert_eq!(r.call(SYS_WRITE, &[h, BUF, 1]), 0);
    assert_eq!(std::fs::read(&f).unwrap(), b"abc");
    r.mem.write(BUF, b"z").unwrap();
    assert_eq!(r.call(SYS_WRITE, &[h, BUF, 1]), 0);
    assert_eq!(std::fs::read(&f).unwrap(), b"azc");
    // Rename inside: allowed; to outside: denied and nothing moves.
    let g = inside.join("moved.txt");
    let fs = format!("{}\0", f.display());
    let gs = format!("{}\0", g.display());
    let out = format!("{}\0", dir.path().join("escaped.txt").display());
    r.mem.write(STR, fs.as_bytes()).unwrap();
    r.mem.write(BUF, gs.as_bytes()).unwrap();
    let (fl, gl) = (fs.len() as u64 - 1, gs.len() as u64 - 1);
    assert_eq!(r.call(SYS_RENAME, &[STR, fl, BUF, gl]), 0);
    assert!(g.exists() && !f.exists());
    r.mem.write(STR, gs.as_bytes()).unwrap();
    r.mem.write(BUF, out.as_bytes()).unwrap();
    assert_eq!(
        r.call(SYS_RENAME, &[STR, gl, BUF, out.len() as u64 - 1]),
        M1
    );
    assert_eq!(r.errno(), libc::EACCES as u64);
    assert!(g.exists());
    let (p, l) = r.string(g.to_str().unwrap());
    assert_eq!(r.call(SYS_REMOVE, &[p, l]), 0);
    assert!(!g.exists());
}

#[test]
fn system_is_refused() {
    let mut r = Rig::new(true, no_files());
    let (p, l) = r.string("touch /tmp/fwprof-must-not-exist");
    assert_eq!(r.call(SYS_SYSTEM, &[p, l]), M1);
    assert!(!std::path::Path::new("/tmp/fwprof-must-not-exist").exists());
}

#[test]
fn clocks_follow_instret() {
    let mut r = Rig::new(true, no_files());
    r.call_raw(SYS_CLOCK, 0, 12_345_678);
    assert_eq!(r.last, 123);
    // QEMU reports nanoseconds; one instruction is 100 ns.
    r.call_raw(SYS_TICKFREQ, 0, 0);
    assert_eq!(r.last, 1_000_000_000);
    r.call_raw(SYS_ELAPSED, BLOCK, 0x1_2345_6789);
    assert_eq!(r.last, 0);
    assert_eq!(r.mem.peek_u64(BLOCK), 0x1_2345_6789 * 100);
    r.call_raw(SYS_TIME, 0, 0);
    assert!(r.last > 1_600_000_000);
    // RV32: two 32-bit words, low first.
    let mut r = Rig::new(false, no_files());
    r.call_raw(SYS_ELAPSED, BLOCK, 0x1_2345_6789);
    assert_eq!(r.mem.peek(BLOCK, 8), (0x1_2345_6789u64 * 100).to_le_bytes());
}

#[test]
fn exits_as_qemu_maps_them() {
    let mut r = Rig::new(true, no_files());
    r.mem.write(BLOCK, &0x20026u64.to_le_bytes()).unwrap();
    r.mem.write(BLOCK + 8, &7u64.to_le_bytes()).unwrap();
    assert_eq!(r.call_raw(SYS_EXIT, BLOCK, 0), EnvOutcome::Exit(7));
    r.mem.write(BLOCK, &0x20023u64.to_le_bytes()).unwrap();
    assert_eq!(r.call_raw(SYS_EXIT, BLOCK, 0), EnvOutcome::Exit(1));
    let mut r = Rig::new(false, no_files());
    assert_eq!(r.call_raw(SYS_EXIT, 0x20026, 0), EnvOutcome::Exit(0));
    assert_eq!(r.call_raw(SYS_EXIT, 0x20023, 0), EnvOutcome::Exit(1));
    r.mem.write(BLOCK, &0x20026u32.to_le_bytes()).unwrap();
    r.mem.write(BLOCK + 4, &300u32.to_le_bytes()).unwrap();
    assert_eq!(
        r.call_raw(SYS_EXIT_EXTENDED, BLOCK, 0),
        EnvOutcome::Exit(300 & 0xff)
    );
}

#[test]
fn cmdline_heapinfo_iserror_and_faults() {
    let mut r = Rig::new(true, no_files());
    assert_eq!(r.call(SYS_GET_CMDLINE, &[BUF, 100]), 0);
    assert_eq!(r.mem.peek_cstr(BUF), "prog a b");
    assert_eq!(r.mem.peek_u64(BLOCK + 8), 8);
    assert_eq!(r.call(SYS_GET_CMDLINE, &[BUF, 3]), M1);
    assert_eq!(r.errno(), libc::E2BIG as u64);
    r.env.semi.heapinfo = [1, 2, 3, 4];
    assert_eq!(r.call(SYS_HEAPINFO, &[BUF]), 0);
    assert_eq!(
        (0..4)
            .map(|i| r.mem.peek_u64(BUF + 8 * i))
            .collect::<Vec<_>>(),
        [1, 2, 3, 4]
    );
    assert_eq!(r.call(SYS_ISERROR, &[u64::MAX]), 1);
    assert_eq!(r.call(SYS_ISERROR, &[5]), 0);
    // A parameter block in unmapped memory: -1 and EFAULT, as QEMU's do_fault.
    r.call_raw(SYS_OPEN, 0x10, 0);
    assert_eq!(r.last, M1);
    assert_eq!(r.errno(), libc::EFAULT as u64);
    // RV32 results are sign-extended.
    let mut r = Rig::new(false, no_files());
    assert_eq!(r.call(SYS_CLOSE, &[9]), M1);
    assert_eq!(r.call(SYS_ISERROR, &[0xffff_fff0]), 1);
    // An unknown operation stops the run.
    let mut regs = [0u64; 32];
    regs[10] = 0x99;
    assert!(r.env.semihost(&mut regs, &mut r.mem, 0).is_err());
}
