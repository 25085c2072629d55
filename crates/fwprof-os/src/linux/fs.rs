//! File system calls: `openat`, `close`, `read`/`write` (+ `v`, `p` forms),
//! `lseek`, `fstat`, `newfstatat`, `statx`, `readlinkat`, `faccessat`,
//! `getcwd`, `unlinkat`, `mkdirat`, `renameat`, `ioctl`, `fcntl`.
//! Every path goes through the [`Sandbox`](crate::Sandbox); guest fds 0/1/2
//! are the host's standard streams (or the captured console).

use std::ffi::CString;
use std::io;
use std::os::fd::{AsRawFd, FromRawFd};
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};

use super::structs::{pipe_stat, stat_bytes, statx_bytes, STAT_SIZE};
use super::{err, Args, Fd, Sys};
use crate::guest::{read_cstr, read_word, try_zeroed, word_size, CStrError, MAX_CSTR};
use crate::sandbox::Access;
use crate::{EnvError, Environment, GuestMemory};

/// `AT_FDCWD`.
const AT_FDCWD: i32 = -100;
/// `AT_SYMLINK_NOFOLLOW`.
const AT_SYMLINK_NOFOLLOW: i32 = 0x100;
/// `AT_REMOVEDIR`.
const AT_REMOVEDIR: i32 = 0x200;
/// `AT_EMPTY_PATH`.
const AT_EMPTY_PATH: i32 = 0x1000;
/// Guest `open` flags (asm-generic `fcntl.h`).
mod oflag {
    pub const O_ACCMODE: i32 = 3;
    pub const O_CREAT: i32 = 0o100;
    pub const O_EXCL: i32 = 0o200;
    pub const O_TRUNC: i32 = 0o1000;
    pub const O_APPEND: i32 = 0o2000;
    pub const O_NONBLOCK: i32 = 0o4000;
    pub const O_DIRECTORY: i32 = 0o200000;
    pub const O_NOFOLLOW: i32 = 0o400000;
}
/// `TCGETS`.
const TCGETS: u64 = 0x5401;
/// `TIOCGWINSZ`.
const TIOCGWINSZ: u64 = 0x5413;
/// Size of the kernel `struct termios` (asm-generic termbits: 4 flags, line, 19 cc).
const TERMIOS_SIZE: usize = 36;
/// Largest single transfer (larger requests are served partially, as Linux may).
const MAX_IO: u64 = 1 << 24;
/// `IOV_MAX`.
const IOV_MAX: u64 = 1024;
/// Linux `MAX_RW_COUNT` (`INT_MAX & PAGE_MASK`): the most bytes one `write`
/// or `writev` transfers (`rw_verify_area`, `import_iovec`); a larger
/// request returns this short count.
const MAX_RW_COUNT: u64 = 0x7fff_f000;
/// Guest bytes are gathered and written this many at a time, so even a
/// `writev` of 1024 iovecs over one huge buffer needs only this much host
/// memory.
const WRITE_CHUNK: usize = 1 << 20;

fn errno_of(e: &io::Error) -> i32 {
    e.raw_os_error().unwrap_or(libc::EIO)
}

fn last_errno() -> i32 {
    errno_of(&io::Error::last_os_error())
}

fn cpath(p: &Path) -> Result<CString, i32> {
    CString::new(p.as_os_str().as_bytes()).map_err(|_| libc::EINVAL)
}

/// A raw host fd usable for `fstat`/`ioctl`/`lseek`, or the console.
#[derive(Clone, Copy)]
enum HostFd {
    Console(i32),
    Raw(i32),
}

impl Environment {
    fn host_fd(&self, fd: i32) -> Result<HostFd, i32> {
        let slot = usize::try_from(fd)
            .ok()
            .and_then(|i| self.linux.fds.get(i))
            .and_then(Option::as_ref);
        match slot {
            Some(Fd::Std(s)) if self.console.is_captured() => Ok(HostFd::Console(*s)),
            Some(Fd::Std(s)) => Ok(HostFd::Raw(*s)),
            Some(Fd::File { file, .. }) => Ok(HostFd::Raw(file.as_raw_fd())),
            None => Err(libc::EBADF),
        }
    }

    /// Read the guest path at `addr` and make it absolute against `dirfd`
    /// (`AT_FDCWD`: the host current directory, which is the guest's).
    fn guest_path(&self, mem: &mut dyn GuestMemory, dirfd: i32, addr: u64) -> Result<PathBuf, i32> {
        let bytes = read_cstr(mem, addr, MAX_CSTR).map_err(|e| match e {
            CStrError::Fault(_) => libc::EFAULT,
            CStrError::TooLong => libc::ENAMETOOLONG,
        })?;
        if bytes.is_empty() {
            return Err(libc::ENOENT);
        }
        let p = PathBuf::from(std::ffi::OsStr::from_bytes(&bytes));
        if p.is_absolute() || dirfd == AT_FDCWD {
            return Ok(p);
        }
        match usize::try_from(dirfd)
            .ok()
            .and_then(|i| self.linux.fds.get(i))
        {
            Some(Some(Fd::File { path, .. })) => Ok(path.join(p)),
            Some(Some(Fd::Std(_))) => Err(libc::ENOTDIR),
            _ => Err(libc::EBADF),
        }
    }

    /// QEMU `is_proc_myself(path, "exe")`.
    fn is_proc_self_exe(p: &Path) -> bool {
        let own = format!("/proc/{}/exe", std::process::id());
        p == Path::new("/proc/self/exe") || p == Path::new(&own)
    }

    pub(crate) fn sys_openat(&mut self, a: Args, mem: &mut dyn GuestMemory) -> Sys {
        use oflag::*;
        let path = match self.guest_path(mem, a.int(0), a.u(1)) {
            Ok(p) => p,
            Err(e) => return err(e),
        };
        let flags = a.int(2);
        let mode = a.u(3) as libc::mode_t & 0o7777;
        let writes = flags & O_ACCMODE != 0 || flags & (O_CREAT | O_TRUNC | O_APPEND) != 0;
        let real = if Self::is_proc_self_exe(&path) {
            match &self.linux.exe {
                Some(p) if !writes => p.clone(),
                Some(_) => return err(libc::EACCES),
                None => return err(libc::ENOENT),
            }
        } else {
            let access = if writes { Access::Write } else { Access::Read };
            match self.sandbox.resolve(&path, access, &self.console) {
                Ok(p) => p,
                Err(e) => return err(e.errno()),
            }
        };
        let mut host = match flags & O_ACCMODE {
            0 => libc::O_RDONLY,
            1 => libc::O_WRONLY,
            2 => libc::O_RDWR,
            _ => return err(libc::EINVAL),
        };
        for (g, h) in [
            (O_CREAT, libc::O_CREAT),
            (O_EXCL, libc::O_EXCL),
            (O_TRUNC, libc::O_TRUNC),
            (O_APPEND, libc::O_APPEND),
            (O_NONBLOCK, libc::O_NONBLOCK),
            (O_DIRECTORY, libc::O_DIRECTORY),
        ] {
            if flags & g != 0 {
                host |= h;
            }
        }
        if flags & O_NOFOLLOW != 0 && path.is_symlink() {
            return err(libc::ELOOP);
        }
        host |= libc::O_NOFOLLOW | libc::O_CLOEXEC | libc::O_NOCTTY;
        let c = match cpath(&real) {
            Ok(c) => c,
            Err(e) => return err(e),
        };
        // SAFETY: `c` is a valid NUL-terminated path.
        let fd = unsafe { libc::open(c.as_ptr(), host, mode as libc::c_uint) };
        if fd < 0 {
            return err(last_errno());
        }
        // SAFETY: `fd` was just opened and is owned by nothing else.
        let file = unsafe { std::fs::File::from_raw_fd(fd) };
        Sys::Ret(self.linux.alloc_fd(Fd::File { file, path: real }))
    }

    pub(crate) fn sys_close(&mut self, a: Args) -> Sys {
        match usize::try_from(a.int(0))
            .ok()
            .and_then(|i| self.linux.fds.get_mut(i))
        {
            Some(slot @ Some(_)) => {
                // Dropping a File closes it; host stdio is never closed.
                *slot = None;
                Sys::Ret(0)
            }
            _ => err(libc::EBADF),
        }
    }

    /// `read`, `write`, `readv`, `writev`, `pread64`, `pwrite64`.
    pub(crate) fn sys_rw(
        &mut self,
        number: u64,
        a: Args,
        mem: &mut dyn GuestMemory,
    ) -> Result<Sys, EnvError> {
        use super::syscalls as nr;
        let fd = a.int(0);
        let rv64 = a.rv64;
        // Gather the guest buffers: (address, length).
        let bufs: Vec<(u64, u64)> = match number {
            nr::READV | nr::WRITEV => {
                let (iov, cnt) = (a.u(1), a.u(2));
                if cnt > IOV_MAX {
                    return Ok(err(libc::EINVAL));
                }
                let n = word_size(rv64);
                let mut v = Vec::with_capacity(cnt as usize);
                for i in 0..cnt {
                    let at = iov.wrapping_add(i * 2 * n);
                    match (
                        read_word(mem, at, rv64),
                        read_word(mem, at.wrapping_add(n), rv64),
                    ) {
                        (Ok(b), Ok(l)) => v.push((b, l)),
                        _ => return Ok(err(libc::EFAULT)),
                    }
                }
                v
            }
            _ => vec![(a.u(1), a.u(2))],
        };
        let offset = match number {
            nr::PREAD64 | nr::PWRITE64 => Some(a.i(3)),
            _ => None,
        };
        let host = match self.host_fd(fd) {
            Ok(h) => h,
            Err(e) => return Ok(err(e)),
        };
        let writing = matches!(number, nr::WRITE | nr::WRITEV | nr::PWRITE64);
        if writing {
            return self.write_gathered(host, offset, &bufs, mem);
        }
        let total: u64 = bufs
            .iter()
            .map(|b| b.1)
            .fold(0u64, u64::saturating_add)
            .min(MAX_IO);
        let mut data = try_zeroed(total as usize, "read buffer")?;
        let got = match (host, offset) {
            (HostFd::Console(_), _) => self.console.read(&mut data).map(|n| n as i64),
            (HostFd::Raw(h), off) => raw_io(h, off, &mut data, false),
        };
        let got = match got {
            Ok(n) => n as usize,
            Err(e) => return Ok(err(errno_of(&e))),
        };
        let mut done = 0usize;
        for &(b, l) in &bufs {
            if done >= got {
                break;
            }
            let n = (l as usize).min(got - done);
            if mem.write(b, &data[done..done + n]).is_err() {
                return Ok(err(libc::EFAULT));
            }
            done += n;
        }
        Ok(Sys::Ret(got as i64))
    }

    /// Write the guest buffers `bufs` as Linux `do_writev` does: at most
    /// [`MAX_RW_COUNT`] bytes in all, gathered [`WRITE_CHUNK`] bytes at a
    /// time. Returns the bytes written; `-EFAULT` if the first chunk is
    /// unreadable, or the host's errno if nothing was written. A short host
    /// write, a host error or an unreadable chunk after some bytes were
    /// written ends the call with the count so far.
    fn write_gathered(
        &mut self,
        host: HostFd,
        offset: Option<i64>,
        bufs: &[(u64, u64)],
        mem: &mut dyn GuestMemory,
    ) -> Result<Sys, EnvError> {
        let total = bufs
            .iter()
            .map(|b| b.1)
            .fold(0u64, u64::saturating_add)
            .min(MAX_RW_COUNT);
        let mut chunk = try_zeroed((total as usize).min(WRITE_CHUNK), "write buffer")?;
        chunk.clear();
        let mut left = total;
        let mut written = 0u64;
        let mut fault = false;
        'gather: for &(b, l) in bufs {
            let mut at = b;
            let mut rem = l.min(left);
            left -= rem;
            while rem > 0 {
                let k = chunk.len();
                let n = (rem as usize).min(WRITE_CHUNK - k);
                chunk.resize(k + n, 0);
                if mem.read(at, &mut chunk[k..]).is_err() {
                    chunk.truncate(k);
                    fault = true;
                    break 'gather;
                }
                at = at.wrapping_add(n as u64);
                rem -= n as u64;
                if chunk.len() == WRITE_CHUNK {
                    match self.emit(host, offset, written, &mut chunk) {
                        Ok(m) if m == chunk.len() => written += m as u64,
                        Ok(m) => return Ok(Sys::Ret((written + m as u64) as i64)),
                        Err(e) if written == 0 => return Ok(self.write_failed(&e)),
                        Err(_) => return Ok(Sys::Ret(written as i64)),
                    }
                    chunk.clear();
                }
            }
        }
        if fault && written == 0 && chunk.is_empty() {
            return Ok(err(libc::EFAULT));
        }
        if !chunk.is_empty() || written == 0 {
            match self.emit(host, offset, written, &mut chunk) {
                Ok(m) => written += m as u64,
                Err(e) if written == 0 => return Ok(self.write_failed(&e)),
                Err(_) => {}
            }
        }
        Ok(Sys::Ret(written as i64))
    }

    /// A write that failed before any byte went out: `-errno`, except that
    /// writing to a pipe with no reader raises SIGPIPE, whose default
    /// action kills the process (QEMU passes the host's SIGPIPE on to the
    /// guest the same way).
    fn write_failed(&mut self, e: &std::io::Error) -> Sys {
        match errno_of(e) {
            libc::EPIPE => self.sigpipe(),
            errno => err(errno),
        }
    }

    /// One host write of `data` to `host`, at `offset + done` for `pwrite`.
    fn emit(
        &mut self,
        host: HostFd,
        offset: Option<i64>,
        done: u64,
        data: &mut [u8],
    ) -> io::Result<usize> {
        match (host, offset) {
            (HostFd::Console(s), _) => self.console.write(s, data),
            (HostFd::Raw(s @ 0..=2), None)
                if matches!(self.console, crate::console::Console::Host { .. }) =>
            {
                self.console.write(s, data)
            }
            (HostFd::Raw(h), off) => {
                raw_io(h, off.map(|o| o.wrapping_add(done as i64)), data, true).map(|n| n as usize)
            }
        }
    }

    pub(crate) fn sys_lseek(&mut self, a: Args, mem: &mut dyn GuestMemory) -> Sys {
        let host = match self.host_fd(a.int(0)) {
            Ok(HostFd::Raw(h)) => h,
            Ok(HostFd::Console(_)) => return err(libc::ESPIPE),
            Err(e) => return err(e),
        };
        if a.rv64 {
            // SAFETY: lseek on an fd we hold.
            let r = unsafe { libc::lseek(host, a.i(1), a.int(2)) };
            return if r < 0 {
                err(last_errno())
            } else {
                Sys::Ret(r)
            };
        }
        // riscv32 `_llseek(fd, offset_high, offset_low, result, whence)`.
        let off = ((a.u(1) << 32) | a.u(2)) as i64;
        // SAFETY: lseek on an fd we hold.
        let r = unsafe { libc::lseek(host, off, a.int(4)) };
        if r < 0 {
            return err(last_errno());
        }
        match mem.write(a.u(3), &r.to_le_bytes()) {
            Ok(()) => Sys::Ret(0),
            Err(_) => err(libc::EFAULT),
        }
    }

    fn fstat_fd(&self, fd: i32) -> Result<[u8; STAT_SIZE], i32> {
        match self.host_fd(fd)? {
            HostFd::Console(_) => Ok(pipe_stat()),
            HostFd::Raw(h) => {
                // SAFETY: zeroed stat is valid; fstat fills it.
                let mut st: libc::stat = unsafe { std::mem::zeroed() };
                if unsafe { libc::fstat(h, &mut st) } < 0 {
                    return Err(last_errno());
                }
                Ok(stat_bytes(&st))
            }
        }
    }

    pub(crate) fn sys_fstat(&mut self, a: Args, mem: &mut dyn GuestMemory) -> Sys {
        match self.fstat_fd(a.int(0)) {
            Ok(b) => match mem.write(a.u(1), &b) {
                Ok(()) => Sys::Ret(0),
                Err(_) => err(libc::EFAULT),
            },
            Err(e) => err(e),
        }
    }

    /// Resolve `(dirfd, path)` for a metadata call honouring `AT_SYMLINK_NOFOLLOW`.
    fn meta_path(
        &self,
        mem: &mut dyn GuestMemory,
        dirfd: i32,
        addr: u64,
        flags: i32,
    ) -> Result<PathBuf, i32> {
        let p = self.guest_path(mem, dirfd, addr)?;
        if Self::is_proc_self_exe(&p) && flags & AT_SYMLINK_NOFOLLOW == 0 {
            return self.linux.exe.clone().ok_or(libc::ENOENT);
        }
        let r = if flags & AT_SYMLINK_NOFOLLOW != 0 {
            self.sandbox
                .resolve_no_follow(&p, Access::Read, &self.console)
        } else {
            self.sandbox.resolve(&p, Access::Read, &self.console)
        };
        r.map_err(|e| e.errno())
    }

    /// True if the path at `addr` is the empty string (for `AT_EMPTY_PATH`).
    fn empty_path(mem: &mut dyn GuestMemory, addr: u64) -> Result<bool, i32> {
        let mut b = [0u8; 1];
        mem.read(addr, &mut b).map_err(|_| libc::EFAULT)?;
        Ok(b[0] == 0)
    }

    pub(crate) fn sys_newfstatat(&mut self, a: Args, mem: &mut dyn GuestMemory) -> Sys {
        let (dirfd, addr, buf, flags) = (a.int(0), a.u(1), a.u(2), a.int(3));
        let r = (|| -> Result<[u8; STAT_SIZE], i32> {
            if flags & AT_EMPTY_PATH != 0 && Self::empty_path(mem, addr)? {
                return self.fstat_fd(dirfd);
            }
            let p = self.meta_path(mem, dirfd, addr, flags)?;
            let c = cpath(&p)?;
            // SAFETY: zeroed stat is valid; lstat fills it for a C path.
            let mut st: libc::stat = unsafe { std::mem::zeroed() };
            if unsafe { libc::lstat(c.as_ptr(), &mut st) } < 0 {
                return Err(last_errno());
            }
            Ok(stat_bytes(&st))
        })();
        match r {
            Ok(b) => match mem.write(buf, &b) {
                Ok(()) => Sys::Ret(0),
                Err(_) => err(libc::EFAULT),
            },
            Err(e) => err(e),
        }
    }

    pub(crate) fn sys_statx(&mut self, a: Args, mem: &mut dyn GuestMemory) -> Sys {
        let (dirfd, addr, flags, mask, buf) = (a.int(0), a.u(1), a.int(2), a.u(3) as u32, a.u(4));
        let r = (|| -> Result<[u8; 256], i32> {
            // SAFETY: zeroed statx is valid; statx fills it.
            let mut stx: libc::statx = unsafe { std::mem::zeroed() };
            let sync = flags & 0x6000; // AT_STATX_SYNC_TYPE
            if flags & AT_EMPTY_PATH != 0 && Self::empty_path(mem, addr)? {
                match self.host_fd(dirfd)? {
                    HostFd::Console(_) => {
                        stx.stx_mask = libc::STATX_TYPE | libc::STATX_MODE;
                        stx.stx_mode = (libc::S_IFIFO | 0o600) as u16;
                        stx.stx_blksize = 4096;
                        stx.stx_nlink = 1;
                    }
                    HostFd::Raw(h) => {
                        let empty = c"";
                        if unsafe {
                            libc::statx(h, empty.as_ptr(), AT_EMPTY_PATH | sync, mask, &mut stx)
                        } < 0
                        {
                            return Err(last_errno());
                        }
                    }
                }
                return Ok(statx_bytes(&stx));
            }
            let p = self.meta_path(mem, dirfd, addr, flags)?;
            let c = cpath(&p)?;
            let hf = libc::AT_SYMLINK_NOFOLLOW | sync;
            if unsafe { libc::statx(libc::AT_FDCWD, c.as_ptr(), hf, mask, &mut stx) } < 0 {
                return Err(last_errno());
            }
            Ok(statx_bytes(&stx))
        })();
        match r {
            Ok(b) => match mem.write(buf, &b) {
                Ok(()) => Sys::Ret(0),
                Err(_) => err(libc::EFAULT),
            },
            Err(e) => err(e),
        }
    }

    /// `readlinkat`; `/proc/self/exe` answers the canonical program path
    /// with QEMU 7.2's quirk: the copy is NUL-terminated and truncated to
    /// `bufsiz - 1`, the return value is the full length.
    pub(crate) fn sys_readlinkat(&mut self, a: Args, mem: &mut dyn GuestMemory) -> Sys {
        let (dirfd, addr, buf, size) = (a.int(0), a.u(1), a.u(2), a.u(3));
        let p = match self.guest_path(mem, dirfd, addr) {
            Ok(p) => p,
            Err(e) => return err(e),
        };
        if a.i(3) <= 0 {
            return err(libc::EINVAL);
        }
        if Self::is_proc_self_exe(&p) {
            let Some(exe) = self.linux.exe.clone() else {
                return err(libc::ENOENT);
            };
            let bytes = exe.as_os_str().as_bytes();
            let n = bytes.len().min(size as usize - 1);
            let mut out = bytes[..n].to_vec();
            out.push(0);
            return match mem.write(buf, &out) {
                Ok(()) => Sys::Ret(bytes.len() as i64),
                Err(_) => err(libc::EFAULT),
            };
        }
        let real = match self
            .sandbox
            .resolve_no_follow(&p, Access::Read, &self.console)
        {
            Ok(r) => r,
            Err(e) => return err(e.errno()),
        };
        match std::fs::read_link(&real) {
            Ok(t) => {
                let b = t.as_os_str().as_bytes();
                let n = b.len().min(size.min(MAX_IO) as usize);
                match mem.write(buf, &b[..n]) {
                    Ok(()) => Sys::Ret(n as i64),
                    Err(_) => err(libc::EFAULT),
                }
            }
            Err(e) => err(errno_of(&e)),
        }
    }

    pub(crate) fn sys_faccessat(&mut self, a: Args, mem: &mut dyn GuestMemory) -> Sys {
        let p = match self.guest_path(mem, a.int(0), a.u(1)) {
            Ok(p) => p,
            Err(e) => return err(e),
        };
        let mode = a.int(2) & 7;
        let access = if mode & libc::W_OK != 0 {
            Access::Write
        } else {
            Access::Read
        };
        let real = match self.sandbox.resolve(&p, access, &self.console) {
            Ok(r) => r,
            Err(e) => return err(e.errno()),
        };
        let c = match cpath(&real) {
            Ok(c) => c,
            Err(e) => return err(e),
        };
        // SAFETY: valid C path.
        if unsafe { libc::access(c.as_ptr(), mode) } < 0 {
            err(last_errno())
        } else {
            Sys::Ret(0)
        }
    }

    pub(crate) fn sys_getcwd(&mut self, a: Args, mem: &mut dyn GuestMemory) -> Sys {
        let cwd = match std::env::current_dir() {
            Ok(c) => c,
            Err(e) => return err(errno_of(&e)),
        };
        let mut b = cwd.as_os_str().as_bytes().to_vec();
        b.push(0);
        if b.len() as u64 > a.u(1) {
            return err(libc::ERANGE);
        }
        match mem.write(a.u(0), &b) {
            Ok(()) => Sys::Ret(b.len() as i64),
            Err(_) => err(libc::EFAULT),
        }
    }

    pub(crate) fn sys_unlinkat(&mut self, a: Args, mem: &mut dyn GuestMemory) -> Sys {
        let r = self.guest_path(mem, a.int(0), a.u(1)).and_then(|p| {
            self.sandbox
                .resolve_no_follow(&p, Access::Write, &self.console)
                .map_err(|e| e.errno())
        });
        match r {
            Ok(real) => {
                let res = if a.int(2) & AT_REMOVEDIR != 0 {
                    std::fs::remove_dir(&real)
                } else {
                    std::fs::remove_file(&real)
                };
                res.map_or_else(|e| err(errno_of(&e)), |()| Sys::Ret(0))
            }
            Err(e) => err(e),
        }
    }

    pub(crate) fn sys_mkdirat(&mut self, a: Args, mem: &mut dyn GuestMemory) -> Sys {
        let r = self
            .guest_path(mem, a.int(0), a.u(1))
            .and_then(|p| {
                self.sandbox
                    .resolve_no_follow(&p, Access::Write, &self.console)
                    .map_err(|e| e.errno())
            })
            .and_then(|real| cpath(&real));
        match r {
            // SAFETY: valid C path.
            Ok(c) => {
                if unsafe { libc::mkdir(c.as_ptr(), (a.u(2) & 0o7777) as libc::mode_t) } < 0 {
                    err(last_errno())
                } else {
                    Sys::Ret(0)
                }
            }
            Err(e) => err(e),
        }
    }

    /// `renameat(olddirfd, old, newdirfd, new)` / `renameat2(..., flags)`;
    /// both ends need write access; `renameat2` flags are refused (`EINVAL`).
    pub(crate) fn sys_renameat(&mut self, number: u64, a: Args, mem: &mut dyn GuestMemory) -> Sys {
        if number == super::syscalls::RENAMEAT2 && a.u(4) != 0 {
            return err(libc::EINVAL);
        }
        let mut ends = [(a.int(0), a.u(1)), (a.int(2), a.u(3))]
            .into_iter()
            .map(|(d, p)| {
                self.guest_path(mem, d, p).and_then(|p| {
                    self.sandbox
                        .resolve_no_follow(&p, Access::Write, &self.console)
                        .map_err(|e| e.errno())
                })
            });
        let (from, to) = match (ends.next(), ends.next()) {
            (Some(Ok(f)), Some(Ok(t))) => (f, t),
            (Some(Err(e)), _) | (_, Some(Err(e))) => return err(e),
            _ => return err(libc::EINVAL),
        };
        std::fs::rename(from, to).map_or_else(|e| err(errno_of(&e)), |()| Sys::Ret(0))
    }

    /// `ioctl`: `TCGETS` and `TIOCGWINSZ` are passed to the host fd (so a
    /// non-terminal gives `-ENOTTY`); anything else is `-ENOTTY`, as QEMU
    /// answers unknown requests.
    pub(crate) fn sys_ioctl(&mut self, a: Args, mem: &mut dyn GuestMemory) -> Sys {
        let host = match self.host_fd(a.int(0)) {
            Ok(HostFd::Raw(h)) => h,
            Ok(HostFd::Console(_)) => return err(libc::ENOTTY),
            Err(e) => return err(e),
        };
        let (req, size) = match a.u(1) & 0xffff_ffff {
            TCGETS => (libc::TCGETS, TERMIOS_SIZE),
            TIOCGWINSZ => (libc::TIOCGWINSZ, 8),
            _ => return err(libc::ENOTTY),
        };
        let mut buf = [0u8; 64];
        // SAFETY: the buffer is larger than the kernel termios/winsize.
        if unsafe { libc::ioctl(host, req, buf.as_mut_ptr()) } < 0 {
            return err(last_errno());
        }
        match mem.write(a.u(2), &buf[..size]) {
            Ok(()) => Sys::Ret(0),
            Err(_) => err(libc::EFAULT),
        }
    }

    /// `fcntl`: `F_GETFD`/`F_SETFD` (close-on-exec is meaningless without
    /// exec: 0), `F_GETFL` from the host, `F_SETFL` accepted; others `EINVAL`.
    pub(crate) fn sys_fcntl(&mut self, a: Args) -> Sys {
        let host = match self.host_fd(a.int(0)) {
            Ok(h) => h,
            Err(e) => return err(e),
        };
        match (a.int(1), host) {
            (libc::F_GETFD | libc::F_SETFD | libc::F_SETFL, _) => Sys::Ret(0),
            (libc::F_GETFL, HostFd::Console(s)) => Sys::Ret(if s == 0 { 0 } else { 1 }),
            (libc::F_GETFL, HostFd::Raw(h)) => {
                // SAFETY: fcntl F_GETFL on an fd we hold.
                let r = unsafe { libc::fcntl(h, libc::F_GETFL) };
                if r < 0 {
                    err(last_errno())
                } else {
                    Sys::Ret(i64::from(r & !libc::O_CLOEXEC & !libc::O_NOFOLLOW))
                }
            }
            _ => err(libc::EINVAL),
        }
    }
}

/// read/write/pread/pwrite on a raw host fd.
fn raw_io(fd: i32, off: Option<i64>, data: &mut [u8], write: bool) -> io::Result<i64> {
    // SAFETY: valid buffers and an fd we hold.
    let r = unsafe {
        match (write, off) {
            (true, None) => libc::write(fd, data.as_ptr().cast(), data.len()),
            (true, Some(o)) => libc::pwrite(fd, data.as_ptr().cast(), data.len(), o),
            (false, None) => libc::read(fd, data.as_mut_ptr().cast(), data.len()),
            (false, Some(o)) => libc::pread(fd, data.as_mut_ptr().cast(), data.len(), o),
        }
    };
    if r < 0 {
        Err(io::Error::last_os_error())
    } else {
        Ok(r as i64)
    }
}
