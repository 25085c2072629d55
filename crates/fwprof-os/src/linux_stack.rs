//! The initial Linux process stack, built as QEMU 7.2 `linux-user/elfload.c`
//! builds it for a static RISC-V executable.
//!
//! * `setup_arg_pages`: an anonymous mapping of `guest_stack_size` (the host
//!   `RLIMIT_STACK` soft limit, 8 MiB by default; `main.c`) plus one guard
//!   page, placed by `mmap_find_vma` (so at `1 << 38` for RV64); the guard
//!   page at the bottom is `PROT_NONE`; the returned top is
//!   `stack_limit + size - sizeof(void *)` (8, the host pointer size).
//! * `loader_exec`/`copy_elf_strings`: the file name (`AT_EXECFN`), then the
//!   environment strings, then the argument strings, each block copied
//!   downward so its first string is lowest.
//! * `load_elf_binary`: one page for the signal-return trampoline
//!   (`setup_sigtramp`: `li a7, 139; ecall`), mapped `r-x` after the stack.
//! * `create_elf_tables`: align down to 16, 16 `AT_RANDOM` bytes, then
//!   argc, argv, envp and auxv (16 entries + `AT_NULL`, no platform string
//!   and no `AT_HWCAP2` on RISC-V) at a 16-byte aligned `sp`.

use crate::guest::word_size;
use crate::linux::vma::AddressSpace;
use crate::loader::{ElfInfo, PAGE};
use crate::{GuestMemory, LoadError, Perm};

/// Auxiliary vector keys (`include/uapi/linux/auxvec.h`).
pub mod auxv {
    /// End of the vector.
    pub const AT_NULL: u64 = 0;
    /// Program headers address.
    pub const AT_PHDR: u64 = 3;
    /// Size of one program header.
    pub const AT_PHENT: u64 = 4;
    /// Number of program headers.
    pub const AT_PHNUM: u64 = 5;
    /// Page size.
    pub const AT_PAGESZ: u64 = 6;
    /// Interpreter base (0: static).
    pub const AT_BASE: u64 = 7;
    /// Flags (0).
    pub const AT_FLAGS: u64 = 8;
    /// Program entry point.
    pub const AT_ENTRY: u64 = 9;
    /// Real user id.
    pub const AT_UID: u64 = 11;
    /// Effective user id.
    pub const AT_EUID: u64 = 12;
    /// Real group id.
    pub const AT_GID: u64 = 13;
    /// Effective group id.
    pub const AT_EGID: u64 = 14;
    /// CPU capabilities (misa letters).
    pub const AT_HWCAP: u64 = 16;
    /// Clock ticks per second.
    pub const AT_CLKTCK: u64 = 17;
    /// Secure mode (setuid).
    pub const AT_SECURE: u64 = 23;
    /// Address of 16 random bytes.
    pub const AT_RANDOM: u64 = 25;
    /// Executable file name.
    pub const AT_EXECFN: u64 = 31;
}

/// QEMU 7.2 `get_elf_hwcap` for RISC-V: the misa bits of I, M, A, F, D, C
/// (an RV64GC/RV32GC hart), i.e. `0x112d`.
pub const ELF_HWCAP: u64 = (1 << (b'I' - b'A'))
    | (1 << (b'M' - b'A'))
    | 1 // 'A'
    | (1 << (b'F' - b'A'))
    | (1 << (b'D' - b'A'))
    | (1 << (b'C' - b'A'));

/// Default `guest_stack_size` (QEMU 7.2 `linux-user/main.c`).
pub const DEFAULT_STACK_SIZE: u64 = 8 * 1024 * 1024;
/// `STACK_ALIGNMENT` for RISC-V.
const STACK_ALIGNMENT: u64 = 16;
/// The 16 `AT_RANDOM` bytes: fixed, since fwprof runs are deterministic.
pub const AT_RANDOM_BYTES: [u8; 16] = *b"fwprof-at-random";

/// Inputs that are not in the ELF.
pub(crate) struct StackInputs<'a> {
    /// argv strings (argv[0] first), without NULs.
    pub argv: &'a [Vec<u8>],
    /// envp strings in guest order, without NULs.
    pub envp: &'a [Vec<u8>],
    /// `AT_EXECFN` string (the program path as given).
    pub execfn: &'a [u8],
    /// Stack size in bytes (QEMU `guest_stack_size`).
    pub stack_size: u64,
    /// `[uid, euid, gid, egid]`.
    pub ids: [u64; 4],
}

/// Addresses of everything placed on the initial stack.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StackLayout {
    /// Initial `sp` (points at argc).
    pub sp: u64,
    /// Lowest usable stack byte (above the guard page): QEMU `stack_limit`.
    pub stack_limit: u64,
    /// Top returned by `setup_arg_pages` (`stack_limit + size - 8`).
    pub stack_top: u64,
    /// First argument string (QEMU `info->arg_strings`).
    pub arg_strings: u64,
    /// First environment string (QEMU `info->env_strings`).
    pub env_strings: u64,
    /// `AT_EXECFN` string.
    pub execfn: u64,
    /// `AT_RANDOM` bytes.
    pub random: u64,
    /// First auxv entry.
    pub auxv: u64,
    /// Signal-return trampoline page.
    pub sigtramp: u64,
}

/// How far below the lowest stack address a fault still counts as a stack
/// overflow: Linux's `stack_guard_gap` (256 pages). A frame larger than
/// this that jumps past the gap is reported as an ordinary fault.
pub const STACK_GUARD_GAP: u64 = 256 * PAGE;

impl StackLayout {
    /// The stack size in bytes (QEMU `guest_stack_size`, from `RLIMIT_STACK`).
    pub fn size(&self) -> u64 {
        self.stack_top + 8 - self.stack_limit
    }

    /// True if a fault at `addr` lies just below the stack: in the
    /// [`STACK_GUARD_GAP`] bytes under `stack_limit` (the guard page QEMU
    /// maps `PROT_NONE`, and the unmapped gap below it), where a
    /// recursion that exhausts the stack lands.
    pub fn overflow_at(&self, addr: u64) -> bool {
        addr < self.stack_limit && addr >= self.stack_limit.saturating_sub(STACK_GUARD_GAP)
    }
}

fn fault(what: &str, e: crate::MemFault) -> LoadError {
    LoadError::Memory(format!(
        "initial stack: {what} at {:#x} not writable",
        e.addr
    ))
}

/// Map an anonymous region found by `find_vma` and record it; `what` names
/// it in the error when the guest memory limit cannot hold it.
pub(crate) fn map_anon(
    aspace: &mut AddressSpace,
    mem: &mut dyn GuestMemory,
    size: u64,
    perm: Perm,
    what: &str,
) -> Result<u64, LoadError> {
    crate::loader::check_room(mem, size, what)?;
    let addr = aspace
        .find_vma(0, size)
        .ok_or_else(|| LoadError::Memory(format!("no room for a {size:#x}-byte mapping")))?;
    mem.map(addr, size, perm).map_err(|e| fault("mapping", e))?;
    aspace.insert(addr, addr + size, perm);
    Ok(addr)
}

/// Build the stack and the trampoline page; returns their layout.
pub(crate) fn build(
    info: &ElfInfo,
    inputs: &StackInputs<'_>,
    aspace: &mut AddressSpace,
    mem: &mut dyn GuestMemory,
) -> Result<StackLayout, LoadError> {
    let n = word_size(info.rv64);
    let rw = Perm {
        read: true,
        write: true,
        exec: false,
    };
    // setup_arg_pages
    let size = inputs.stack_size.max(32 * PAGE) & !(PAGE - 1);
    let guard = PAGE;
    let base = map_anon(
        aspace,
        mem,
        size + guard,
        rw,
        "stack (RLIMIT_STACK and a guard page)",
    )?;
    mem.protect(base, guard, Perm::default())
        .map_err(|e| fault("guard page", e))?;
    aspace.insert(base, base + guard, Perm::default());
    let stack_limit = base + guard;
    let stack_top = stack_limit + size - 8;

    // copy_elf_strings: filename, envp, argv, each copied downward.
    let mut p = stack_top;
    let mut push_block = |strings: &[&[u8]], mem: &mut dyn GuestMemory| -> Result<u64, LoadError> {
        for s in strings.iter().rev() {
            let len = s.len() as u64 + 1;
            p = p
                .checked_sub(len)
                .filter(|&q| q >= stack_limit)
                .ok_or_else(|| {
                    LoadError::Memory("arguments and environment exceed the stack (E2BIG)".into())
                })?;
            let mut bytes = s.to_vec();
            bytes.push(0);
            mem.write(p, &bytes).map_err(|e| fault("strings", e))?;
        }
        Ok(p)
    };
    let execfn = push_block(&[inputs.execfn], mem)?;
    let env_strings = push_block(
        &inputs.envp.iter().map(Vec::as_slice).collect::<Vec<_>>(),
        mem,
    )?;
    let arg_strings = push_block(
        &inputs.argv.iter().map(Vec::as_slice).collect::<Vec<_>>(),
        mem,
    )?;

    // load_elf_binary: the sigreturn trampoline page.
    let rx = Perm {
        read: true,
        write: false,
        exec: true,
    };
    let sigtramp = map_anon(aspace, mem, PAGE, rw, "signal trampoline page")?;
    let mut code = Vec::new();
    code.extend_from_slice(&0x08b0_0893u32.to_le_bytes()); // li a7, 139 (rt_sigreturn)
    code.extend_from_slice(&0x0000_0073u32.to_le_bytes()); // ecall
    mem.write(sigtramp, &code)
        .map_err(|e| fault("sigtramp", e))?;
    mem.protect(sigtramp, PAGE, rx)
        .map_err(|e| fault("sigtramp", e))?;
    aspace.insert(sigtramp, sigtramp + PAGE, rx);

    // create_elf_tables
    let mut sp = arg_strings & !15;
    sp -= 16;
    let random = sp;
    mem.write(random, &AT_RANDOM_BYTES)
        .map_err(|e| fault("AT_RANDOM", e))?;
    let argc = inputs.argv.len() as u64;
    let envc = inputs.envp.len() as u64;
    let auxv_words = (16 + 1) * 2;
    let total = (auxv_words + envc + argc + 2 + 1) * n;
    let u_argc = (sp - total) & !(STACK_ALIGNMENT - 1);
    if u_argc < stack_limit {
        return Err(LoadError::Memory(
            "arguments and environment exceed the stack (E2BIG)".into(),
        ));
    }
    let u_argv = u_argc + n;
    let u_envp = u_argv + (argc + 1) * n;
    let u_auxv = u_envp + (envc + 1) * n;
    let [uid, euid, gid, egid] = inputs.ids;
    use auxv::*;
    let entries = [
        (AT_PHDR, info.load_addr().wrapping_add(info.phoff)),
        (AT_PHENT, if info.rv64 { 56 } else { 32 }),
        (AT_PHNUM, info.phnum),
        (AT_PAGESZ, PAGE),
        (AT_BASE, 0),
        (AT_FLAGS, 0),
        (AT_ENTRY, info.entry),
        (AT_UID, uid),
        (AT_EUID, euid),
        (AT_GID, gid),
        (AT_EGID, egid),
        (AT_HWCAP, ELF_HWCAP),
        (AT_CLKTCK, 100),
        (AT_RANDOM, random),
        (AT_SECURE, 0),
        (AT_EXECFN, execfn),
        (AT_NULL, 0),
    ];
    let mut words: Vec<u64> = Vec::with_capacity(total as usize / n as usize);
    words.push(argc);
    let mut at = arg_strings;
    for a in inputs.argv {
        words.push(at);
        at += a.len() as u64 + 1;
    }
    words.push(0);
    let mut at = env_strings;
    for e in inputs.envp {
        words.push(at);
        at += e.len() as u64 + 1;
    }
    words.push(0);
    for (k, v) in entries {
        words.push(k);
        words.push(v);
    }
    let mut bytes = Vec::with_capacity(words.len() * n as usize);
    for w in words {
        if info.rv64 {
            bytes.extend_from_slice(&w.to_le_bytes());
        } else {
            bytes.extend_from_slice(&(w as u32).to_le_bytes());
        }
    }
    mem.write(u_argc, &bytes)
        .map_err(|e| fault("argv/envp/auxv", e))?;
    Ok(StackLayout {
        sp: u_argc,
        stack_limit,
        stack_top,
        arg_strings,
        env_strings,
        execfn,
        random,
        auxv: u_auxv,
        sigtramp,
    })
}

/// QEMU's `guest_stack_size`: the host `RLIMIT_STACK` soft limit unless it
/// is unlimited (`linux-user/main.c`), else 8 MiB.
pub(crate) fn host_stack_size() -> u64 {
    let mut lim = libc::rlimit {
        rlim_cur: 0,
        rlim_max: 0,
    };
    // SAFETY: getrlimit writes into the struct we own.
    let ok = unsafe { libc::getrlimit(libc::RLIMIT_STACK, &mut lim) } == 0;
    if ok && lim.rlim_cur != libc::RLIM_INFINITY && lim.rlim_cur > 0 && lim.rlim_cur < (1 << 40) {
        lim.rlim_cur
    } else {
        DEFAULT_STACK_SIZE
    }
}
