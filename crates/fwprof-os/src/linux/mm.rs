//! Memory system calls: `brk` (QEMU 7.2 `do_brk`), `mmap`/`munmap`/
//! `mprotect`/`mremap` (QEMU 7.2 `linux-user/mmap.c`: `target_mmap`,
//! `target_munmap`, `target_mprotect`, `target_mremap`).

use std::os::fd::AsRawFd;

use super::vma::page_up;
use super::{err, Args, Fd, Sys};
use crate::loader::PAGE;
use crate::{Environment, GuestMemory, Perm};

/// `PROT_*` bits.
const PROT_READ: u64 = 1;
const PROT_WRITE: u64 = 2;
const PROT_EXEC: u64 = 4;
/// `MAP_*` bits (asm-generic `mman-common.h`).
const MAP_SHARED: u64 = 0x01;
const MAP_PRIVATE: u64 = 0x02;
const MAP_SHARED_VALIDATE: u64 = 0x03;
const MAP_TYPE: u64 = 0x0f;
const MAP_FIXED: u64 = 0x10;
const MAP_ANONYMOUS: u64 = 0x20;
const MAP_FIXED_NOREPLACE: u64 = 0x10_0000;
/// `MREMAP_*` bits.
const MREMAP_MAYMOVE: u64 = 1;
const MREMAP_FIXED: u64 = 2;

fn prot_to_perm(prot: u64) -> Perm {
    Perm {
        read: prot & PROT_READ != 0,
        write: prot & PROT_WRITE != 0,
        exec: prot & PROT_EXEC != 0,
    }
}

const RW: Perm = Perm {
    read: true,
    write: true,
    exec: false,
};

/// Bytes moved per step when copying a file or a mapping into guest
/// memory: the host buffer stays this small whatever the guest asks for.
const CHUNK: usize = 1 << 20;

/// Copy `len` bytes of guest memory from `from` to the fresh (zero)
/// mapping at `to`, a chunk at a time. All-zero chunks are skipped, so
/// pages the guest never touched stay uncommitted; unreadable
/// (`PROT_NONE`) chunks move as zeros.
fn copy_guest(mem: &mut dyn GuestMemory, from: u64, to: u64, len: u64) -> Result<(), ()> {
    let mut buf = vec![0u8; CHUNK];
    let mut done = 0u64;
    while done < len {
        let n = (len - done).min(CHUNK as u64) as usize;
        let chunk = &mut buf[..n];
        if mem.read(from + done, chunk).is_ok()
            && chunk.iter().any(|&b| b != 0)
            && mem.write(to + done, chunk).is_err()
        {
            return Err(());
        }
        done += n as u64;
    }
    Ok(())
}

/// Read up to `len` bytes of host file `fd` from `offset` into guest
/// memory at `to`, a chunk at a time; stops at the end of the file.
/// Returns an errno on a read error or an unwritable destination.
fn read_file_into(
    mem: &mut dyn GuestMemory,
    fd: i32,
    offset: u64,
    to: u64,
    len: u64,
) -> Result<(), i32> {
    let mut buf = vec![0u8; CHUNK];
    let mut done = 0u64;
    while done < len {
        let want = (len - done).min(CHUNK as u64) as usize;
        // SAFETY: reading into our buffer from a host fd we hold.
        let n = unsafe { libc::pread(fd, buf.as_mut_ptr().cast(), want, (offset + done) as i64) };
        if n < 0 {
            let e = std::io::Error::last_os_error();
            if e.kind() == std::io::ErrorKind::Interrupted {
                continue;
            }
            return Err(e.raw_os_error().unwrap_or(libc::EIO));
        }
        if n == 0 {
            break;
        }
        mem.write(to + done, &buf[..n as usize])
            .map_err(|_| libc::EFAULT)?;
        done += n as u64;
    }
    Ok(())
}

impl Environment {
    /// QEMU 7.2 `do_brk`: 0 or below the initial break returns the current
    /// break; within the mapped break page it moves (zeroing on growth);
    /// beyond, it maps the needed pages at `brk_page` if they are free, and
    /// otherwise returns the old break unchanged.
    pub(crate) fn sys_brk(&mut self, a: Args, mem: &mut dyn GuestMemory) -> Sys {
        let new = a.u(0);
        let l = &mut self.linux;
        if new == 0 || new < l.original_brk {
            return Sys::Ret(l.target_brk as i64);
        }
        if new <= l.brk_page {
            if new > l.target_brk {
                let zeros = vec![0u8; (new - l.target_brk) as usize];
                let _ = mem.write(l.target_brk, &zeros);
            }
            l.target_brk = new;
            return Sys::Ret(new as i64);
        }
        let Some(alloc) = page_up(new - l.brk_page) else {
            return Sys::Ret(l.target_brk as i64);
        };
        let Some(end) = l.brk_page.checked_add(alloc) else {
            return Sys::Ret(l.target_brk as i64);
        };
        if end > l.aspace.top()
            || !l.aspace.is_free(l.brk_page, end)
            || mem.map(l.brk_page, alloc, RW).is_err()
        {
            return Sys::Ret(l.target_brk as i64);
        }
        l.aspace.insert(l.brk_page, end, RW);
        // Clear the tail of the old last page (it may hold old heap data).
        if l.brk_page > l.target_brk {
            let zeros = vec![0u8; (l.brk_page - l.target_brk) as usize];
            let _ = mem.write(l.target_brk, &zeros);
        }
        l.target_brk = new;
        l.brk_page = page_up(new).unwrap_or(end);
        Sys::Ret(new as i64)
    }

    /// `mmap` (riscv32: `mmap2`, offset in 4096-byte units).
    pub(crate) fn sys_mmap(&mut self, a: Args, mem: &mut dyn GuestMemory) -> Sys {
        let (addr, len, prot, flags, fd) = (a.u(0), a.u(1), a.u(2), a.u(3), a.int(4));
        let offset = if a.rv64 { a.u(5) } else { a.u(5) << 12 };
        if len == 0 || offset & (PAGE - 1) != 0 {
            return err(libc::EINVAL);
        }
        match flags & MAP_TYPE {
            MAP_SHARED | MAP_PRIVATE | MAP_SHARED_VALIDATE => {}
            _ => return err(libc::EINVAL),
        }
        let Some(size) = page_up(len) else {
            return err(libc::ENOMEM);
        };
        // File contents to copy in (private copy; shared writable file
        // mappings cannot be honoured and are refused): host fd and bytes.
        let mut contents = None;
        if flags & MAP_ANONYMOUS == 0 {
            if flags & MAP_TYPE != MAP_PRIVATE && prot & PROT_WRITE != 0 {
                return err(libc::ENODEV);
            }
            let (raw, file_len) = match usize::try_from(fd).ok().and_then(|i| self.linux.fds.get(i))
            {
                Some(Some(Fd::File { file, .. })) => {
                    (file.as_raw_fd(), file.metadata().map_or(0, |m| m.len()))
                }
                Some(Some(Fd::Std(_))) => return err(libc::EACCES),
                _ => return err(libc::EBADF),
            };
            // Only the bytes the file has; pages past its end stay zero.
            contents = Some((raw, size.min(file_len.saturating_sub(offset))));
        }
        let fixed = flags & MAP_FIXED != 0;
        let start = if fixed || flags & MAP_FIXED_NOREPLACE != 0 {
            if addr & (PAGE - 1) != 0 {
                return err(libc::EINVAL);
            }
            match addr.checked_add(size) {
                Some(e) if e <= self.linux.aspace.top() => {}
                _ => return err(libc::ENOMEM),
            }
            if !fixed && !self.linux.aspace.is_free(addr, addr + size) {
                return err(libc::EEXIST);
            }
            addr
        } else {
            let hint = addr & !(PAGE - 1);
            let hinted = hint != 0
                && hint
                    .checked_add(size)
                    .is_some_and(|e| e <= self.linux.aspace.top())
                && self.linux.aspace.is_free(hint, hint + size);
            if hinted {
                hint
            } else {
                match self.linux.aspace.find_vma(0, size) {
                    Some(s) => s,
                    None => return err(libc::ENOMEM),
                }
            }
        };
        let perm = prot_to_perm(prot);
        // Beyond the guest memory limit (or the host's room): ENOMEM, as a
        // host mmap beyond RLIMIT_AS.
        if mem.map(start, size, RW).is_err() {
            return err(libc::ENOMEM);
        }
        if let Some((raw, n)) = contents {
            if let Err(e) = read_file_into(mem, raw, offset, start, n) {
                mem.unmap(start, size);
                self.linux.aspace.remove(start, start + size);
                return err(e);
            }
        }
        if mem.protect(start, size, perm).is_err() {
            return err(libc::ENOMEM);
        }
        self.linux.aspace.insert(start, start + size, perm);
        Sys::Ret(start as i64)
    }

    pub(crate) fn sys_munmap(&mut self, a: Args, mem: &mut dyn GuestMemory) -> Sys {
        let (addr, len) = (a.u(0), a.u(1));
        if addr & (PAGE - 1) != 0 || len == 0 {
            return err(libc::EINVAL);
        }
        let Some(end) = page_up(len).and_then(|l| addr.checked_add(l)) else {
            return err(libc::EINVAL);
        };
        mem.unmap(addr, end - addr);
        self.linux.aspace.remove(addr, end);
        Sys::Ret(0)
    }

    pub(crate) fn sys_mprotect(&mut self, a: Args, mem: &mut dyn GuestMemory) -> Sys {
        let (addr, len, prot) = (a.u(0), a.u(1), a.u(2));
        if addr & (PAGE - 1) != 0 || prot & !(PROT_READ | PROT_WRITE | PROT_EXEC) != 0 {
            return err(libc::EINVAL);
        }
        let Some(end) = page_up(len).and_then(|l| addr.checked_add(l)) else {
            return err(libc::ENOMEM);
        };
        if end == addr {
            return Sys::Ret(0);
        }
        if !self.linux.aspace.is_covered(addr, end) {
            return err(libc::ENOMEM);
        }
        let perm = prot_to_perm(prot);
        if mem.protect(addr, end - addr, perm).is_err() {
            return err(libc::ENOMEM);
        }
        self.linux.aspace.insert(addr, end, perm);
        Sys::Ret(0)
    }

    /// QEMU 7.2 `target_mremap`: with `MREMAP_MAYMOVE` (and no
    /// `MREMAP_FIXED`) the mapping always moves to a fresh `mmap_find_vma`
    /// address; without it, it grows in place if the following pages are
    /// free (else `ENOMEM`) or shrinks.
    pub(crate) fn sys_mremap(&mut self, a: Args, mem: &mut dyn GuestMemory) -> Sys {
        let (old, old_len, new_len, flags, new_addr) = (a.u(0), a.u(1), a.u(2), a.u(3), a.u(4));
        if old & (PAGE - 1) != 0 || flags & !(MREMAP_MAYMOVE | MREMAP_FIXED) != 0 {
            return err(libc::EINVAL);
        }
        let (Some(old_size), Some(new_size)) = (page_up(old_len), page_up(new_len)) else {
            return err(libc::EINVAL);
        };
        if new_size == 0 || old.checked_add(old_size).is_none() {
            return err(libc::EINVAL);
        }
        if !self.linux.aspace.is_covered(old, old + old_size.max(PAGE)) {
            return err(libc::EFAULT);
        }
        let perm = self.linux.aspace.containing(old).map_or(RW, |v| v.2);
        let dest = if flags & MREMAP_FIXED != 0 {
            if flags & MREMAP_MAYMOVE == 0 || new_addr & (PAGE - 1) != 0 {
                return err(libc::EINVAL);
            }
            // Linux `mremap_to`: the new range may not overlap the old.
            if new_addr < old + old_size && old < new_addr.saturating_add(new_size) {
                return err(libc::EINVAL);
            }
            Some(new_addr)
        } else if flags & MREMAP_MAYMOVE != 0 {
            match self.linux.aspace.find_vma(0, new_size) {
                Some(d) => Some(d),
                None => return err(libc::ENOMEM),
            }
        } else {
            None
        };
        match dest {
            None => {
                if new_size <= old_size {
                    mem.unmap(old + new_size, old_size - new_size);
                    self.linux.aspace.remove(old + new_size, old + old_size);
                    return Sys::Ret(old as i64);
                }
                let (gs, ge) = (old + old_size, old + new_size);
                if !self.linux.aspace.is_free(gs, ge) || mem.map(gs, ge - gs, perm).is_err() {
                    return err(libc::ENOMEM);
                }
                self.linux.aspace.insert(gs, ge, perm);
                Sys::Ret(old as i64)
            }
            Some(d) => {
                let keep = old_size.min(new_size);
                if mem.map(d, new_size, RW).is_err() {
                    return err(libc::ENOMEM);
                }
                if copy_guest(mem, old, d, keep).is_err() {
                    mem.unmap(d, new_size);
                    return err(libc::ENOMEM);
                }
                let _ = mem.protect(d, new_size, perm);
                mem.unmap(old, old_size);
                self.linux.aspace.remove(old, old + old_size);
                self.linux.aspace.insert(d, d + new_size, perm);
                Sys::Ret(d as i64)
            }
        }
    }
}
