//! RISC-V semihosting (the Arm "Semihosting for AArch32 and AArch64" 2.0
//! operations, as adopted by the RISC-V Semihosting specification), with the
//! behaviour of QEMU 7.2 `semihosting/arm-compat-semi.c`
//! (`do_common_semihosting`) and `semihosting/syscalls.c`.
//!
//! The operation number is in `a0`, the parameter (usually the address of
//! a block of XLEN-sized words) in `a1`; the result goes to `a0`.
//! Differences from QEMU, on purpose: time is derived from the executed
//! instruction count (one instruction = 100 ns, i.e. 10 MHz) plus the time
//! the hart slept in `wfi` (the simulator's `time` CSR; `SYS_CLOCK` =
//! instret / 100 000 centiseconds; `SYS_ELAPSED` = instret × 100 in
//! nanoseconds, with `SYS_TICKFREQ` 1 000 000 000 as QEMU reports it) so runs
//! are deterministic; `SYS_SYSTEM` is refused (returns -1, errno `EACCES`);
//! file names go through the [`Sandbox`](crate::Sandbox).

use std::fs::File;
use std::io::{Read, Seek, SeekFrom, Write};
use std::os::unix::fs::OpenOptionsExt;
use std::path::Path;

use crate::guest::{read_bytes, read_cstr, read_word, try_zeroed, word_size, write_word, MAX_CSTR};
use crate::sandbox::Access;
use crate::{EnvError, EnvOutcome, Environment, GuestMemory};

/// Semihosting operation numbers (Arm semihosting 2.0, section 5).
pub mod op {
    /// Open a file or the console (`:tt`).
    pub const SYS_OPEN: u64 = 0x01;
    /// Close a handle.
    pub const SYS_CLOSE: u64 = 0x02;
    /// Write the byte at `a1` to the console.
    pub const SYS_WRITEC: u64 = 0x03;
    /// Write the NUL-terminated string at `a1` to the console.
    pub const SYS_WRITE0: u64 = 0x04;
    /// Write to a handle; returns bytes not written.
    pub const SYS_WRITE: u64 = 0x05;
    /// Read from a handle; returns bytes not read.
    pub const SYS_READ: u64 = 0x06;
    /// Read a byte from the console.
    pub const SYS_READC: u64 = 0x07;
    /// Is a return value an error?
    pub const SYS_ISERROR: u64 = 0x08;
    /// Is a handle a terminal?
    pub const SYS_ISTTY: u64 = 0x09;
    /// Seek to an absolute position.
    pub const SYS_SEEK: u64 = 0x0a;
    /// Length of a file.
    pub const SYS_FLEN: u64 = 0x0c;
    /// Temporary file name.
    pub const SYS_TMPNAM: u64 = 0x0d;
    /// Remove a file.
    pub const SYS_REMOVE: u64 = 0x0e;
    /// Rename a file.
    pub const SYS_RENAME: u64 = 0x0f;
    /// Centiseconds since start.
    pub const SYS_CLOCK: u64 = 0x10;
    /// Seconds since the epoch.
    pub const SYS_TIME: u64 = 0x11;
    /// Run a host command (refused by fwprof).
    pub const SYS_SYSTEM: u64 = 0x12;
    /// Last error number.
    pub const SYS_ERRNO: u64 = 0x13;
    /// Command line.
    pub const SYS_GET_CMDLINE: u64 = 0x15;
    /// Heap and stack placement.
    pub const SYS_HEAPINFO: u64 = 0x16;
    /// Stop the program.
    pub const SYS_EXIT: u64 = 0x18;
    /// Stop the program with a status (always a two-word block).
    pub const SYS_EXIT_EXTENDED: u64 = 0x20;
    /// Ticks since start (64-bit).
    pub const SYS_ELAPSED: u64 = 0x30;
    /// Tick frequency in Hz.
    pub const SYS_TICKFREQ: u64 = 0x31;
}

/// `ADP_Stopped_ApplicationExit`: the reason code of a normal exit.
pub const ADP_STOPPED_APPLICATION_EXIT: u64 = 0x20026;
/// Simulated clock: instructions per second (one instruction = 100 ns).
pub const INSTRUCTIONS_PER_SECOND: u64 = 10_000_000;
/// `SYS_TICKFREQ`: QEMU 7.2 counts `SYS_ELAPSED` in nanoseconds.
pub const TICK_HZ: u64 = 1_000_000_000;
/// Elapsed ticks (ns) per executed instruction.
const NS_PER_INSTRUCTION: u64 = TICK_HZ / INSTRUCTIONS_PER_SECOND;
/// The `:semihosting-features` file QEMU serves: "SHFB" and feature byte 0
/// with `SH_EXT_EXIT_EXTENDED` (bit 0) and `SH_EXT_STDOUT_STDERR` (bit 1).
pub const FEATURES: [u8; 5] = [b'S', b'H', b'F', b'B', 0b11];

/// QEMU's `gdb_open_modeflags`: the host flags for `SYS_OPEN` modes 0..=11
/// (`r`, `rb`, `r+`, `r+b`, `w`, `wb`, `w+`, `w+b`, `a`, `ab`, `a+`, `a+b`).
///
/// The append modes open *without* `O_APPEND`, as QEMU 7.2 (Debian
/// 1:7.2+dfsg-7) does — checked with `strace`: its host open drops the
/// flag, so "appending" writes from offset 0. fwprof matches QEMU because
/// the differential tests demand the same output.
const MODE_FLAGS: [i32; 12] = {
    const R: i32 = libc::O_RDONLY;
    const RW: i32 = libc::O_RDWR;
    const W: i32 = libc::O_WRONLY | libc::O_CREAT | libc::O_TRUNC;
    const WP: i32 = libc::O_RDWR | libc::O_CREAT | libc::O_TRUNC;
    const A: i32 = libc::O_WRONLY | libc::O_CREAT;
    const AP: i32 = libc::O_RDWR | libc::O_CREAT;
    [R, R, RW, RW, W, W, WP, WP, A, A, AP, AP]
};

/// An open semihosting handle.
#[derive(Debug)]
enum Handle {
    /// `:tt`: host stream 0, 1 or 2.
    Console(i32),
    /// `:semihosting-features` with its read position.
    Features(usize),
    /// A host file.
    File(File),
}

/// Per-run semihosting state: handles and the errno of the last failure.
#[derive(Debug, Default)]
pub(crate) struct SemihostState {
    /// Index = guest handle; QEMU's `alloc_guestfd` starts at 1.
    handles: Vec<Option<Handle>>,
    /// Value returned by `SYS_ERRNO`.
    errno: u32,
    /// `SYS_HEAPINFO` block: heap base, heap limit, stack base, stack limit.
    pub heapinfo: [u64; 4],
}

impl SemihostState {
    fn alloc(&mut self, h: Handle) -> u64 {
        if self.handles.is_empty() {
            self.handles.push(None);
        }
        for (i, slot) in self.handles.iter_mut().enumerate().skip(1) {
            if slot.is_none() {
                *slot = Some(h);
                return i as u64;
            }
        }
        self.handles.push(Some(h));
        (self.handles.len() - 1) as u64
    }

    fn get(&mut self, fd: u64) -> Option<&mut Handle> {
        usize::try_from(fd)
            .ok()
            .and_then(|i| self.handles.get_mut(i))
            .and_then(Option::as_mut)
    }
}

/// Result of one operation: value for `a0` and, for failures, the errno.
struct Ret {
    value: u64,
    errno: Option<i32>,
}

fn ok(value: u64) -> Ret {
    Ret { value, errno: None }
}

fn fail(errno: i32) -> Ret {
    Ret {
        value: u64::MAX,
        errno: Some(errno),
    }
}

fn io_errno(e: &std::io::Error) -> i32 {
    e.raw_os_error().unwrap_or(libc::EIO)
}

/// QEMU's "dead" return value for calls without a defined result.
const DEADBEEF: u64 = 0xdead_beef;

/// Serve one semihosting call (see [`Environment::semihost`]).
pub(crate) fn semihost(
    env: &mut Environment,
    regs: &mut [u64; 32],
    mem: &mut dyn GuestMemory,
    instret: u64,
) -> Result<EnvOutcome, EnvError> {
    let rv64 = env.rv64;
    let nr = regs[10] & 0xffff_ffff;
    let args = if rv64 {
        regs[11]
    } else {
        regs[11] & 0xffff_ffff
    };
    let n = word_size(rv64);
    let mask = if rv64 { u64::MAX } else { 0xffff_ffff };
    // GET_ARG: a fault on the parameter block fails the call with EFAULT.
    let arg = |mem: &mut dyn GuestMemory, i: u64| read_word(mem, args.wrapping_add(i * n), rv64);
    macro_rules! get {
        ($i:expr) => {
            match arg(mem, $i) {
                Ok(v) => v,
                Err(_) => {
                    finish(env, regs, fail(libc::EFAULT), mask);
                    return Ok(EnvOutcome::Continue);
                }
            }
        };
    }
    use op::*;
    let ret = match nr {
        SYS_OPEN => {
            let (name, mode, len) = (get!(0), get!(1), get!(2));
            sys_open(env, mem, name, mode, len)
        }
        SYS_CLOSE => {
            let fd = get!(0);
            match usize::try_from(fd)
                .ok()
                .and_then(|i| env.semi.handles.get_mut(i))
            {
                Some(slot @ Some(_)) => {
                    *slot = None;
                    ok(0)
                }
                _ => fail(libc::EBADF),
            }
        }
        SYS_WRITEC => {
            let mut b = [0u8; 1];
            // QEMU ignores a failed console write (a closed pipe, a full
            // disk): the program goes on.
            if mem.read(args, &mut b).is_ok() {
                let _ = env.console.write(1, &b);
            }
            ok(DEADBEEF)
        }
        SYS_WRITE0 => {
            if let Ok(s) = read_cstr(mem, args, usize::MAX >> 1) {
                let _ = env.console.write(1, &s);
            }
            ok(DEADBEEF)
        }
        SYS_WRITE => {
            let (fd, buf, len) = (get!(0), get!(1), get!(2));
            ok(len.wrapping_sub(sys_write(env, mem, fd, buf, len)?) & mask)
        }
        SYS_READ => {
            let (fd, buf, len) = (get!(0), get!(1), get!(2));
            ok(len.wrapping_sub(sys_read(env, mem, fd, buf, len)?) & mask)
        }
        SYS_READC => {
            let mut b = [0u8; 1];
            match env.console.read(&mut b) {
                Ok(1) => ok(u64::from(b[0])),
                Ok(_) => ok(u64::MAX),
                Err(e) => fail(io_errno(&e)),
            }
        }
        SYS_ISERROR => {
            let v = get!(0);
            let neg = if rv64 {
                (v as i64) < 0
            } else {
                (v as u32 as i32) < 0
            };
            ok(u64::from(neg))
        }
        SYS_ISTTY => {
            let fd = get!(0);
            match env.semi.get(fd) {
                Some(Handle::Console(s)) => {
                    let s = *s;
                    if env.console.isatty(s) {
                        ok(1)
                    } else {
                        Ret {
                            value: 0,
                            errno: Some(libc::ENOTTY),
                        }
                    }
                }
                Some(_) => Ret {
                    value: 0,
                    errno: Some(libc::ENOTTY),
                },
                None => fail(libc::EBADF),
            }
        }
        SYS_SEEK => {
            let (fd, pos) = (get!(0), get!(1));
            match env.semi.get(fd) {
                Some(Handle::File(f)) => match f.seek(SeekFrom::Start(pos)) {
                    Ok(_) => ok(0),
                    Err(e) => fail(io_errno(&e)),
                },
                Some(Handle::Features(p)) => {
                    *p = pos as usize;
                    ok(0)
                }
                Some(Handle::Console(_)) => fail(libc::ESPIPE),
                None => fail(libc::EBADF),
            }
        }
        SYS_FLEN => {
            let fd = get!(0);
            match env.semi.get(fd) {
                Some(Handle::File(f)) => match f.metadata() {
                    Ok(m) => ok(m.len()),
                    Err(e) => fail(io_errno(&e)),
                },
                Some(Handle::Features(_)) => ok(FEATURES.len() as u64),
                Some(Handle::Console(_)) => ok(0),
                None => fail(libc::EBADF),
            }
        }
        SYS_TMPNAM => {
            let (buf, id, len) = (get!(0), get!(1), get!(2));
            let name = format!("/tmp/qemu-{:x}{:02x}\0", std::process::id(), id & 0xff);
            if name.len() as u64 > len {
                ok(u64::MAX)
            } else if mem.write(buf, name.as_bytes()).is_err() {
                fail(libc::EFAULT)
            } else {
                ok(0)
            }
        }
        SYS_REMOVE => {
            let (name, len) = (get!(0), get!(1));
            match guest_name(mem, name, len) {
                Err(e) => fail(e),
                Ok(p) => {
                    match env
                        .sandbox
                        .resolve_no_follow(Path::new(&p), Access::Write, &env.console)
                    {
                        Err(e) => fail(e.errno()),
                        Ok(real) => match std::fs::remove_file(&real) {
                            Ok(()) => ok(0),
                            Err(e) => fail(io_errno(&e)),
                        },
                    }
                }
            }
        }
        SYS_RENAME => {
            let (a, alen, b, blen) = (get!(0), get!(1), get!(2), get!(3));
            let names = guest_name(mem, a, alen).and_then(|x| Ok((x, guest_name(mem, b, blen)?)));
            match names {
                Err(e) => fail(e),
                Ok((x, y)) => {
                    let from =
                        env.sandbox
                            .resolve_no_follow(Path::new(&x), Access::Write, &env.console);
                    let to =
                        env.sandbox
                            .resolve_no_follow(Path::new(&y), Access::Write, &env.console);
                    match (from, to) {
                        (Ok(f), Ok(t)) => match std::fs::rename(f, t) {
                            Ok(()) => ok(0),
                            Err(e) => fail(io_errno(&e)),
                        },
                        (Err(e), _) | (_, Err(e)) => fail(e.errno()),
                    }
                }
            }
        }
        SYS_CLOCK => ok((instret / (INSTRUCTIONS_PER_SECOND / 100)) & mask),
        SYS_TIME => ok(host_time() & mask),
        SYS_SYSTEM => fail(libc::EACCES),
        SYS_ERRNO => ok(u64::from(env.semi.errno)),
        SYS_GET_CMDLINE => {
            let (buf, size) = (get!(0), get!(1));
            let line = env.cmdline();
            let out_size = line.len() as u64 + 1;
            if out_size > size {
                fail(libc::E2BIG)
            } else if write_word(mem, args + n, out_size - 1, rv64).is_err() {
                fail(libc::EFAULT)
            } else {
                let mut bytes = line.into_bytes();
                bytes.push(0);
                match mem.write(buf, &bytes) {
                    Ok(()) => ok(0),
                    Err(_) => fail(libc::EFAULT),
                }
            }
        }
        SYS_HEAPINFO => {
            let block = get!(0);
            let info = env.semi.heapinfo;
            let res = info
                .iter()
                .enumerate()
                .try_for_each(|(i, &v)| write_word(mem, block + i as u64 * n, v & mask, rv64));
            match res {
                Ok(()) => ok(0),
                Err(_) => fail(libc::EFAULT),
            }
        }
        SYS_EXIT | SYS_EXIT_EXTENDED => {
            // common_semi_sys_exit_extended (target/riscv): a parameter
            // block for SYS_EXIT_EXTENDED and for every RV64 SYS_EXIT.
            let code = if nr == SYS_EXIT_EXTENDED || rv64 {
                let (reason, sub) = (get!(0), get!(1));
                if reason == ADP_STOPPED_APPLICATION_EXIT {
                    sub as u32
                } else {
                    1
                }
            } else {
                u32::from(args != ADP_STOPPED_APPLICATION_EXIT)
            };
            // The host process exit status keeps the low 8 bits (exit(3)).
            return Ok(EnvOutcome::Exit((code & 0xff) as i32));
        }
        SYS_ELAPSED => {
            let ticks = instret.wrapping_mul(NS_PER_INSTRUCTION);
            let res = if rv64 {
                write_word(mem, args, ticks, true)
            } else {
                write_word(mem, args, ticks & 0xffff_ffff, false)
                    .and_then(|()| write_word(mem, args + 4, ticks >> 32, false))
            };
            match res {
                Ok(()) => ok(0),
                Err(_) => fail(libc::EFAULT),
            }
        }
        SYS_TICKFREQ => ok(TICK_HZ),
        other => {
            return Err(EnvError::Unsupported(format!(
                "unsupported semihosting operation {other:#04x}"
            )))
        }
    };
    finish(env, regs, ret, mask);
    Ok(EnvOutcome::Continue)
}

fn finish(env: &mut Environment, regs: &mut [u64; 32], r: Ret, mask: u64) {
    if let Some(e) = r.errno {
        env.semi.errno = e as u32;
    }
    regs[10] = r.value & mask;
    if mask != u64::MAX {
        // RV32 registers hold sign-extended 32-bit values.
        regs[10] = regs[10] as u32 as i32 as i64 as u64;
    }
}

fn host_time() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs())
}

/// QEMU `validate_strlen` + `lock_user_string`: `len` excludes the NUL,
/// which must be at `addr + len`. Returns the name or an errno.
fn guest_name(mem: &mut dyn GuestMemory, addr: u64, len: u64) -> Result<String, i32> {
    if len > MAX_CSTR as u64 {
        return Err(libc::ENAMETOOLONG);
    }
    let bytes = read_bytes(mem, addr, len as usize + 1).map_err(|_| libc::EFAULT)?;
    if bytes[len as usize] != 0 {
        return Err(libc::EINVAL);
    }
    let end = bytes.iter().position(|&b| b == 0).unwrap_or(bytes.len());
    String::from_utf8(bytes[..end].to_vec()).map_err(|_| libc::EINVAL)
}

fn sys_open(
    env: &mut Environment,
    mem: &mut dyn GuestMemory,
    name: u64,
    mode: u64,
    len: u64,
) -> Ret {
    let s = match guest_name(mem, name, len) {
        Ok(s) => s,
        Err(e) => return fail(e),
    };
    if mode >= 12 {
        return fail(libc::EINVAL);
    }
    if s == ":tt" {
        let stream = if mode < 4 {
            0
        } else if mode < 8 {
            1
        } else {
            2
        };
        return ok(env.semi.alloc(Handle::Console(stream)));
    }
    if s == ":semihosting-features" {
        if mode > 1 {
            return fail(libc::EACCES);
        }
        return ok(env.semi.alloc(Handle::Features(0)));
    }
    let flags = MODE_FLAGS[mode as usize];
    let access = if mode < 2 {
        Access::Read
    } else {
        Access::Write
    };
    let real = match env.sandbox.resolve(Path::new(&s), access, &env.console) {
        Ok(p) => p,
        Err(e) => return fail(e.errno()),
    };
    let mut opts = std::fs::OpenOptions::new();
    opts.read(flags & libc::O_ACCMODE != libc::O_WRONLY)
        .write(flags & libc::O_ACCMODE != libc::O_RDONLY && flags & libc::O_APPEND == 0)
        .append(flags & libc::O_APPEND != 0)
        .create(flags & libc::O_CREAT != 0)
        .truncate(flags & libc::O_TRUNC != 0)
        .mode(0o644)
        .custom_flags(libc::O_NOFOLLOW);
    match opts.open(&real) {
        Ok(f) => ok(env.semi.alloc(Handle::File(f))),
        Err(e) => fail(io_errno(&e)),
    }
}

/// Returns bytes written (0 on any error, as `common_semi_rw_cb`).
///
/// # Errors
/// The host cannot allocate the (at most 64 MiB) buffer.
fn sys_write(
    env: &mut Environment,
    mem: &mut dyn GuestMemory,
    fd: u64,
    buf: u64,
    len: u64,
) -> Result<u64, EnvError> {
    let mut data = try_zeroed(len.min(1 << 26) as usize, "SYS_WRITE buffer")?;
    if !data.is_empty() && mem.read(buf, &mut data).is_err() {
        return Ok(0);
    }
    Ok(match env.semi.get(fd) {
        Some(Handle::Console(s)) => {
            let s = (*s).max(1);
            env.console.write(s, &data).map_or(0, |n| n as u64)
        }
        Some(Handle::File(f)) => f.write(&data).map_or(0, |n| n as u64),
        _ => 0,
    })
}

/// Returns bytes read (0 on any error).
///
/// # Errors
/// The host cannot allocate the (at most 64 MiB) buffer.
fn sys_read(
    env: &mut Environment,
    mem: &mut dyn GuestMemory,
    fd: u64,
    buf: u64,
    len: u64,
) -> Result<u64, EnvError> {
    let mut data = try_zeroed(len.min(1 << 26) as usize, "SYS_READ buffer")?;
    let got = match env.semi.get(fd) {
        Some(Handle::Console(_)) => env.console.read(&mut data).unwrap_or(0),
        Some(Handle::File(f)) => f.read(&mut data).unwrap_or(0),
        Some(Handle::Features(pos)) => {
            let rest = &FEATURES[(*pos).min(FEATURES.len())..];
            let n = rest.len().min(data.len());
            data[..n].copy_from_slice(&rest[..n]);
            *pos += n;
            n
        }
        None => 0,
    };
    Ok(match mem.write(buf, &data[..got]) {
        Ok(()) => got as u64,
        Err(_) => 0,
    })
}
