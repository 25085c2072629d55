//! Guest operating environments: what a RISC-V program sees outside its hart.
//!
//! * [`load`] reads an ELF executable into a [`GuestMemory`], chooses the
//!   target (bare metal or Linux user mode) and, for Linux, builds the
//!   initial stack exactly as QEMU 7.2 `linux-user` does.
//! * [`Board`] describes the bare-metal machine: built in ([`Board::bare`],
//!   [`Board::virt`]) or read from a board file ([`Board::from_toml`]),
//!   with the `--load` images ([`LoadImage`]) written after the program.
//! * [`Environment::semihost`] serves RISC-V semihosting calls (the
//!   `slli x0,x0,0x1f; ebreak; srai x0,x0,7` sequence); see [`semihost`].
//! * [`Environment::ecall`] serves Linux system calls made by `ecall`; see
//!   [`linux`].
//! * [`Sandbox`] confines guest file access to directories the user allows.
//!
//! The crate does not know the simulator: it sees guest memory only through
//! the [`GuestMemory`] trait and registers as a plain `[u64; 32]` array.
//! On RV32, argument registers are read as their low 32 bits and results
//! are written sign-extended from 32 bits.
//!
//! What is checked against QEMU 7.2 on this host (see the crate tests):
//! the initial stack addresses, argv/envp/auxv order and values of
//! `qemu-riscv64` and `qemu-riscv32`, the first `mmap` addresses, `brk`,
//! and `qemu-system-riscv64 -M virt` answers to `SYS_HEAPINFO` and
//! `SYS_GET_CMDLINE`. Deliberate differences: `AT_RANDOM` and `getrandom`
//! bytes are fixed, semihosting time runs on retired instructions (10 MHz),
//! `SYS_SYSTEM` is refused, and every file name passes the [`Sandbox`].
//!
//! ```no_run
//! # fn demo(mem: &mut dyn fwprof_os::GuestMemory) -> Result<(), Box<dyn std::error::Error>> {
//! use fwprof_os::{load, RunConfig, Sandbox};
//! let cfg = RunConfig {
//!     program: "hello".into(),
//!     args: vec![],
//!     env: vec!["HOME=/root".into()],
//!     target: None,
//!     ram: (0x8000_0000, 128 << 20),
//!     sandbox: Sandbox { read: vec![".".into()], write: vec![] },
//!     machine: Default::default(),
//! };
//! let elf = std::fs::read("hello")?;
//! let (program, mut env) = load(&elf, &cfg, mem)?;
//! let mut regs = program.regs;
//! // ... run until `ecall`, then:
//! let outcome = env.ecall(&mut regs, mem, 0)?;
//! # let _ = outcome; Ok(()) }
//! ```
#![deny(missing_docs)]

mod api;
mod board;
mod board_file;
mod board_load;
mod console;
mod fdt;
mod guest;
mod images;
pub mod linux;
mod linux_stack;
mod loader;
mod sandbox;
pub mod semihost;
mod sizes;
#[cfg(test)]
mod test_mem;
#[cfg(test)]
mod tests;

pub use api::*;
pub use board::*;
pub use board_file::BoardError;
pub use console::OutputHook;
pub use fdt::{virt_device_tree, FdtError, VirtDeviceTree};
pub use images::{LoadImage, LoadSpec};
pub use linux_stack::{auxv, StackLayout, AT_RANDOM_BYTES, ELF_HWCAP, STACK_GUARD_GAP};
pub use sandbox::{Access, SandboxError};
pub use sizes::{parse_ram, parse_size};

use std::path::PathBuf;

use console::Console;
use linux::LinuxState;
use semihost::SemihostState;

/// The loaded program: where to start and in what state.
#[derive(Clone, Debug)]
pub struct LoadedProgram {
    /// Target chosen (detected or forced).
    pub target: Target,
    /// True for ELFCLASS64 (RV64), false for RV32.
    pub rv64: bool,
    /// Entry point (ELF `e_entry`).
    pub entry: u64,
    /// Where the hart starts: bare metal, QEMU `virt`'s reset ROM at
    /// 0x1000 (see [`load`]); otherwise the entry point.
    pub start: u64,
    /// Initial `sp` (Linux: the initial stack built by [`load`]; bare metal: 0,
    /// the runtime sets its own).
    pub sp: u64,
    /// Other initial integer registers as QEMU sets them (index = register number).
    pub regs: [u64; 32],
}

/// Errors loading a program.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum LoadError {
    /// Not an ELF file, truncated, or otherwise malformed; the message names the defect.
    #[error("{0}")]
    Malformed(String),
    /// A well-formed ELF fwprof cannot run (wrong machine, big-endian, ...).
    #[error("{0}")]
    Unsupported(String),
    /// A segment does not fit the guest memory map.
    #[error("{0}")]
    Memory(String),
}

/// What [`inspect`] learns from an executable without loading it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ElfSummary {
    /// True for ELFCLASS64 (RV64), false for RV32.
    pub rv64: bool,
    /// The target [`load`] would choose when none is forced.
    pub target: Target,
}

/// Check that `elf` is an executable fwprof can run, with the same checks
/// and the same one-line messages as [`load`], without loading it: every
/// command that reads a program (`run`, `record`, readers of symbols)
/// describes a bad file in the same words.
///
/// # Errors
/// [`LoadError`] naming the defect; never panics on arbitrary bytes.
pub fn inspect(elf: &[u8]) -> Result<ElfSummary, LoadError> {
    let info = checked(elf)?;
    Ok(ElfSummary {
        rv64: info.rv64,
        target: info.detected_target(),
    })
}

/// [`loader::parse`], then refuse what fwprof cannot run (an interpreter,
/// a position-independent executable).
fn checked(elf: &[u8]) -> Result<loader::ElfInfo, LoadError> {
    let info = loader::parse(elf)?;
    if let Some(interp) = &info.interp {
        return Err(LoadError::Unsupported(format!(
            "dynamically linked executable (interpreter {interp}): fwprof runs static executables only; link with -static"
        )));
    }
    if info.pie {
        return Err(LoadError::Unsupported(
            "position-independent executable (ET_DYN): fwprof loads ET_EXEC only; link with -static -no-pie".into(),
        ));
    }
    Ok(info)
}

/// Load an ELF executable image into `mem` and prepare its initial state.
///
/// Bare metal: maps the RAM of `cfg.ram` (RWX) and places every PT_LOAD
/// segment at its `p_paddr` (QEMU `load_elf`); then QEMU 7.2 `virt`'s reset
/// ROM at 0x1000 (`hw/riscv/boot.c` `riscv_setup_rom_reset_vec`: six
/// instructions that set `a0` = hart id 0, `a1` = the device-tree address,
/// `a2` = the `fw_dynamic_info` address 0x1028 and jump to the entry; the
/// entry and device-tree addresses and `fw_dynamic_info` follow them), and
/// the hart starts there, so its instructions are executed and counted as
/// on QEMU. If the program itself occupies 0x1000–0x1fff there is no ROM:
/// the hart starts at the entry with those registers already set. The
/// `--load` images ([`MachineConfig::loads`]) are written after the
/// program, into RAM or the program's segments.
/// Bare metal on a board file ([`Board::memory`] not empty): maps the
/// board's regions instead of `cfg.ram`, places every PT_LOAD segment at its
/// `p_paddr`, which must lie in them (a `.data` whose load address is in
/// flash lands there, for the start-up code to copy), writes the `--load`
/// images, then gives each region its permissions; no reset ROM and no
/// device tree: the hart starts at [`Board::start`] or the entry, in
/// M-mode, every register 0 (`a0` = hart id 0, `a1` = 0).
/// Linux: maps PT_LOAD segments at `p_vaddr` (page-granular, QEMU 7.2
/// `load_elf_image`), sets `brk` to the page-aligned end of the highest
/// segment (`target_set_brk`), builds the initial stack (argv, envp, auxv
/// in QEMU 7.2's order and alignment, see [`StackLayout`]) and sets `sp`;
/// every other register is 0 (`init_thread`/`target_cpu_copy_regs`).
///
/// argv is `[cfg.program as given, cfg.args...]`. The guest environment is
/// `cfg.env` in reverse order: QEMU 7.2 builds it with `envlist`, which
/// inserts at the head, so a guest sees the host environment reversed.
///
/// # Errors
/// [`LoadError`] naming the defect; never panics on arbitrary bytes.
pub fn load(
    elf: &[u8],
    cfg: &RunConfig,
    mem: &mut dyn GuestMemory,
) -> Result<(LoadedProgram, Environment), LoadError> {
    let info = checked(elf)?;
    let target = cfg.target.unwrap_or_else(|| info.detected_target());
    let mut env = Environment::new(cfg, target, info.rv64);
    let mut regs = [0u64; 32];
    let sp;
    let start;
    match target {
        Target::Linux => {
            let ranges = loader::map_linux(elf, &info, mem)?;
            env.linux = LinuxState::new(info.rv64, info.end_of_image(), env.linux.exe.take());
            for ((s, e), p) in ranges {
                env.linux.aspace.insert(s, e, p);
            }
            let mut argv = vec![path_bytes(&cfg.program)];
            argv.extend(cfg.args.iter().map(|a| a.as_bytes().to_vec()));
            let envp: Vec<Vec<u8>> = cfg
                .env
                .iter()
                .rev()
                .map(|e| e.as_bytes().to_vec())
                .collect();
            let ids = linux::misc::host_ids();
            let inputs = linux_stack::StackInputs {
                argv: &argv,
                envp: &envp,
                execfn: &argv[0],
                stack_size: linux_stack::host_stack_size(),
                ids: [ids[0] as u64, ids[1] as u64, ids[2] as u64, ids[3] as u64],
            };
            let layout = linux_stack::build(&info, &inputs, &mut env.linux.aspace, mem)?;
            sp = layout.sp;
            regs[2] = sp;
            env.linux.signals.trampoline = layout.sigtramp;
            env.stack = Some(layout);
            start = info.entry;
        }
        Target::BareMetal if !cfg.machine.board.memory.is_empty() => {
            // A board file's memory: no reset ROM, no device tree.
            let b =
                board_load::load_on_board(elf, &info, &cfg.machine.board, &cfg.machine.loads, mem)?;
            env.semi.heapinfo = b.heapinfo;
            sp = 0;
            start = b.start;
        }
        Target::BareMetal => {
            let machine = &cfg.machine;
            // With --bios the firmware starts first and the program is the
            // kernel it hands over to (QEMU `-bios F -kernel P`).
            let mut loads = info.loads.clone();
            let first = match &machine.firmware {
                None => {
                    loader::map_bare_metal(elf, &info, cfg.ram, mem)?;
                    info.entry
                }
                Some(fw) => {
                    let fw_info = firmware_checked(fw, info.rv64)?;
                    loader::map_bare_metal(&fw.elf, &fw_info, cfg.ram, mem)?;
                    check_disjoint(&fw_info.loads, &info.loads, &fw.path)?;
                    loader::place_segments(elf, &info, cfg.ram, mem)?;
                    loads.extend(fw_info.loads.iter().copied());
                    fw_info.entry
                }
            };
            write_bare_images(machine, cfg.ram, &loads, mem)?;
            let fdt = virt_fdt_addr(cfg.ram);
            if machine.board.device_tree {
                write_device_tree(machine, info.rv64, cfg.ram, fdt, mem)?;
            }
            env.semi.heapinfo = bare_metal_heapinfo(&loads, cfg.ram, fdt);
            sp = 0;
            let next = machine.kernel_entry.unwrap_or(info.entry);
            if install_reset_rom(mem, info.rv64, first, next, fdt) {
                start = VIRT_MROM_BASE;
            } else {
                start = first;
                regs[5] = first;
                regs[11] = fdt;
                regs[12] = VIRT_FW_DYNAMIC_INFO;
            }
        }
    }
    let prog = LoadedProgram {
        target,
        rv64: info.rv64,
        entry: info.entry,
        start,
        sp,
        regs,
    };
    Ok((prog, env))
}

/// The `--load` images of the `bare` or `virt` machine, written after the
/// program (and firmware): into RAM or the segments mapped outside it.
fn write_bare_images(
    machine: &MachineConfig,
    ram: (u64, u64),
    loads: &[loader::Segment],
    mem: &mut dyn GuestMemory,
) -> Result<(), LoadError> {
    if machine.loads.is_empty() {
        return Ok(());
    }
    let end = ram.0.saturating_add(ram.1);
    let mut memory = vec![(ram.0, end)];
    memory.extend(
        loads
            .iter()
            .filter(|s| s.memsz > 0)
            .map(|s| (s.paddr, s.paddr + s.memsz)),
    );
    let what = format!(
        "the {} machine (RAM {:#x}..{end:#x})",
        machine.board.name, ram.0
    );
    images::write_images(&machine.loads, &memory, &what, mem)
}

/// Address of `fw_dynamic_info` after the QEMU 7.2 `virt` reset vector
/// (`riscv_setup_rom_reset_vec`: 0x1000 + 10 words).
const VIRT_FW_DYNAMIC_INFO: u64 = 0x1028;

/// QEMU 7.2 `virt`: the reset ROM (`VIRT_MROM`).
const VIRT_MROM_BASE: u64 = 0x1000;
/// The part of the ROM fwprof maps: one page (QEMU's is 0xf000 bytes, of
/// which only the first 0x58 hold anything).
const VIRT_MROM_SIZE: u64 = 0x1000;

/// Map QEMU 7.2 `virt`'s reset ROM (`riscv_setup_rom_reset_vec`,
/// `riscv_rom_copy_firmware_info`) read-only and executable at 0x1000:
/// `auipc t0,0; addi a2,t0,40; csrr a0,mhartid; ld/lw a1,32(t0);
/// ld/lw t0,24(t0); jr t0`, then the start address (0x1018: the
/// firmware's entry with `--bios`, else the program's) and the device-tree
/// address (0x1020) as 64-bit words, then `fw_dynamic_info` at 0x1028
/// (magic, version 2, next address = the program's entry, next mode S,
/// options 0, boot hart 0; XLEN-sized fields). Returns false, mapping nothing, if the
/// program already occupies that page.
fn install_reset_rom(
    mem: &mut dyn GuestMemory,
    rv64: bool,
    start: u64,
    entry: u64,
    fdt: u64,
) -> bool {
    let (base, size) = (VIRT_MROM_BASE, VIRT_MROM_SIZE);
    if (0..size).step_by(4096).any(|o| mem.is_mapped(base + o, 1)) {
        return false;
    }
    let (ld_a1, ld_t0) = if rv64 {
        (0x0202_b583u32, 0x0182_b283u32)
    } else {
        (0x0202_a583, 0x0182_a283)
    };
    let code = [
        0x0000_0297u32, // auipc t0, 0
        0x0282_8613,    // addi  a2, t0, 40
        0xf140_2573,    // csrr  a0, mhartid
        ld_a1,          // ld/lw a1, 32(t0)
        ld_t0,          // ld/lw t0, 24(t0)
        0x0002_8067,    // jr    t0
    ];
    let mut rom: Vec<u8> = code.iter().flat_map(|w| w.to_le_bytes()).collect();
    rom.extend_from_slice(&start.to_le_bytes());
    rom.extend_from_slice(&fdt.to_le_bytes());
    // fw_dynamic_info: magic "OSBI", version 2, next_addr, next_mode (S),
    // options, boot_hart.
    for v in [0x4942_534f_u64, 2, entry, 1, 0, 0] {
        if rv64 {
            rom.extend_from_slice(&v.to_le_bytes());
        } else {
            rom.extend_from_slice(&(v as u32).to_le_bytes());
        }
    }
    let rw = Perm {
        read: true,
        write: true,
        exec: false,
    };
    let rx = Perm {
        read: true,
        write: false,
        exec: true,
    };
    mem.map(base, size, rw).is_ok()
        && mem.write(base, &rom).is_ok()
        && mem.protect(base, size, rx).is_ok()
}
/// The `--bios` image, checked as the program is, and of the program's XLEN.
fn firmware_checked(fw: &Firmware, rv64: bool) -> Result<loader::ElfInfo, LoadError> {
    let path = fw.path.display();
    let info = checked(&fw.elf).map_err(|e| match e {
        LoadError::Malformed(m) => LoadError::Malformed(format!("--bios {path}: {m}")),
        LoadError::Unsupported(m) => LoadError::Unsupported(format!("--bios {path}: {m}")),
        LoadError::Memory(m) => LoadError::Memory(format!("--bios {path}: {m}")),
    })?;
    if info.rv64 != rv64 {
        let xlen = |r: bool| if r { "RV64" } else { "RV32" };
        return Err(LoadError::Unsupported(format!(
            "--bios {path} is an {} firmware and the program an {} kernel",
            xlen(info.rv64),
            xlen(rv64)
        )));
    }
    Ok(info)
}

/// Refuse a kernel whose segments overlap the firmware's (QEMU: "rom:
/// requested regions overlap").
fn check_disjoint(
    fw: &[loader::Segment],
    kernel: &[loader::Segment],
    fw_path: &std::path::Path,
) -> Result<(), LoadError> {
    for f in fw.iter().filter(|s| s.memsz > 0) {
        for k in kernel.iter().filter(|s| s.memsz > 0) {
            let (a, b) = (
                f.paddr.max(k.paddr),
                (f.paddr + f.memsz).min(k.paddr + k.memsz),
            );
            if a < b {
                return Err(LoadError::Memory(format!(
                    "the program overlaps the firmware --bios {} at {a:#x}..{b:#x} (link the kernel where the firmware jumps: 0x80200000 on RV64, 0x80400000 on RV32 for OpenSBI fw_jump)",
                    fw_path.display()
                )));
            }
        }
    }
    Ok(())
}

/// Generate the machine's device tree and write it at `fdt` (QEMU 7.2
/// `riscv_load_fdt`).
fn write_device_tree(
    machine: &MachineConfig,
    rv64: bool,
    ram: (u64, u64),
    fdt: u64,
    mem: &mut dyn GuestMemory,
) -> Result<(), LoadError> {
    let tree = VirtDeviceTree {
        rv64,
        harts: machine.harts.max(1),
        ram,
        bootargs: machine.bootargs.clone(),
        isa: VirtDeviceTree::isa_for(rv64),
        mmu_type: VirtDeviceTree::mmu_type_for(rv64),
    };
    let blob =
        virt_device_tree(&tree).map_err(|e| LoadError::Unsupported(format!("device tree: {e}")))?;
    let ram_end = ram.0.saturating_add(ram.1);
    if fdt < ram.0 || fdt.saturating_add(blob.len() as u64) > ram_end {
        return Err(LoadError::Memory(format!(
            "RAM {:#x}..{ram_end:#x} has no room for the device tree (QEMU virt puts it 2 MiB-aligned below the end of RAM)",
            ram.0
        )));
    }
    mem.write(fdt, &blob)
        .map_err(|e| LoadError::Memory(format!("device tree at {fdt:#x}: {e:?}")))
}

/// `FDT_MAX_SIZE` (QEMU `create_device_tree`): the device tree blob size.
const VIRT_FDT_SIZE: u64 = 0x10_0000;

/// QEMU 7.2 `riscv_load_fdt`: the device tree goes at a 2 MiB aligned
/// address below the end of RAM (or 3 GiB, whichever is lower).
fn virt_fdt_addr(ram: (u64, u64)) -> u64 {
    const MIB: u64 = 1 << 20;
    let end = ram.0.saturating_add(ram.1);
    let temp = if ram.0 < 3072 * MIB {
        end.min(3072 * MIB)
    } else {
        end
    };
    temp.saturating_sub(VIRT_FDT_SIZE) & !(2 * MIB - 1)
}

/// `SYS_HEAPINFO` for the `virt` machine (QEMU 7.2 `common_semi_find_bases`
/// and `rom_find_largest_gap_between`): the largest gap of RAM not covered by
/// a loaded segment or the device tree; the heap is the gap, the stack
/// grows down from its top: `[heap base, heap limit, stack base, stack limit]`
/// is `[gap start, gap end, gap end, gap start]`.
fn bare_metal_heapinfo(loads: &[loader::Segment], ram: (u64, u64), fdt: u64) -> [u64; 4] {
    let (base, size) = ram;
    let end = base.saturating_add(size);
    let mut blobs: Vec<(u64, u64)> = loads
        .iter()
        .filter(|s| s.memsz > 0)
        .map(|s| (s.paddr, s.paddr.saturating_add(s.memsz)))
        .collect();
    blobs.push((fdt, fdt.saturating_add(VIRT_FDT_SIZE)));
    let mut gaps = loader::subtract((base, end), &blobs);
    gaps.sort_unstable();
    let mut best = (base, base);
    for g in gaps {
        if g.1 - g.0 > best.1 - best.0 {
            best = g;
        }
    }
    [best.0, best.1, best.1, best.0]
}

fn path_bytes(p: &std::path::Path) -> Vec<u8> {
    use std::os::unix::ffi::OsStrExt;
    p.as_os_str().as_bytes().to_vec()
}

/// The guest environment state for one run: open files and handles,
/// `brk` and the memory map (Linux), signal state, the sandbox, the
/// semihosting errno, and where the standard streams go.
#[derive(Debug)]
pub struct Environment {
    pub(crate) target: Target,
    pub(crate) rv64: bool,
    pub(crate) program: PathBuf,
    pub(crate) args: Vec<String>,
    pub(crate) sandbox: sandbox::Guard,
    pub(crate) console: Console,
    pub(crate) semi: SemihostState,
    pub(crate) linux: LinuxState,
    pub(crate) stack: Option<StackLayout>,
    pub(crate) board: Board,
    pub(crate) harts: u32,
    /// What the last system call asked of the threads
    /// (`linux::threads`), until the simulator takes it.
    pub(crate) pending_thread: Option<EnvOutcome>,
}

impl Environment {
    /// A fresh environment for `target` without loading anything (the
    /// sandbox roots are canonicalised here). [`load`] is the usual way in;
    /// this serves simulators and tests that place code themselves.
    pub fn new(cfg: &RunConfig, target: Target, rv64: bool) -> Environment {
        let exe = std::fs::canonicalize(&cfg.program).ok();
        Environment {
            target,
            rv64,
            program: cfg.program.clone(),
            args: cfg.args.clone(),
            sandbox: sandbox::Guard::new(&cfg.sandbox),
            console: Console::default(),
            semi: SemihostState::default(),
            linux: LinuxState::new(rv64, 0, exe),
            stack: None,
            board: cfg.machine.board.clone(),
            pending_thread: None,
            harts: match target {
                Target::BareMetal => cfg.machine.harts.clamp(1, MAX_HARTS),
                Target::Linux => 1,
            },
        }
    }

    /// Serve a semihosting call: `op` is `a0`, `param` is `a1`; the result
    /// goes in `regs[10]` (a0). `instret` is the guest's clock in 100 ns
    /// ticks: instructions retired so far plus ticks the hart spent asleep
    /// (the simulator's `time` CSR), so the clock is deterministic.
    /// See [`semihost`] for the operations and QEMU 7.2 behaviour followed.
    ///
    /// # Errors
    /// [`EnvError::Unsupported`] for an unknown operation (QEMU aborts);
    /// [`EnvError::Io`] if writing the console fails.
    pub fn semihost(
        &mut self,
        regs: &mut [u64; 32],
        mem: &mut dyn GuestMemory,
        instret: u64,
    ) -> Result<EnvOutcome, EnvError> {
        semihost::semihost(self, regs, mem, instret)
    }

    /// Serve a Linux system call: number in `a7`, arguments in `a0..a5`,
    /// result (or `-errno`) written to `a0` (sign-extended from 32 bits on
    /// RV32). `now` is the guest's clock in nanoseconds when the call is
    /// made (timers and sleeps run on it, never on host time). See
    /// [`linux`] for the calls served. Signals the call sends or unblocks
    /// are delivered afterwards, by [`Environment::deliver_signal`].
    ///
    /// # Errors
    /// [`EnvError`] only for failures that must stop the run
    /// ([`EnvError::WaitForever`] for a wait nothing can end).
    pub fn ecall(
        &mut self,
        regs: &mut [u64; 32],
        mem: &mut dyn GuestMemory,
        now: u64,
    ) -> Result<EnvOutcome, EnvError> {
        linux::ecall(self, regs, mem, now)
    }

    /// The target this environment serves.
    pub fn target(&self) -> Target {
        self.target
    }

    /// The bare-metal machine's devices ([`Board::bare`] unless the run
    /// configuration chose another).
    pub fn board(&self) -> &Board {
        &self.board
    }

    /// The number of harts of the machine (1 for Linux programs, whose
    /// threads are not harts).
    pub fn harts(&self) -> usize {
        self.harts as usize
    }

    /// A serial port's transmit: write `bytes` to the guest's stdout now
    /// (after the output hook, as any guest output).
    ///
    /// # Errors
    /// The host's write error.
    pub fn serial_write(&mut self, bytes: &[u8]) -> std::io::Result<()> {
        let mut rest = bytes;
        while !rest.is_empty() {
            let n = self.console.write(1, rest)?;
            if n == 0 {
                return Err(std::io::ErrorKind::WriteZero.into());
            }
            rest = &rest[n..];
        }
        Ok(())
    }

    /// A serial port's receive: one byte of the guest's stdin, blocking in
    /// host time; `None` at end of input or on a read error. On a terminal,
    /// the first call turns off line editing and echo (the guest echoes, as
    /// QEMU's `-nographic` console; `Ctrl-C` still stops fwprof) until the
    /// environment is dropped.
    pub fn serial_read_byte(&mut self) -> Option<u8> {
        self.console.raw_input();
        let mut b = [0u8; 1];
        match self.console.read(&mut b) {
            Ok(1) => Some(b[0]),
            _ => None,
        }
    }

    /// The initial Linux stack built by [`load`] (None for bare metal).
    pub fn stack_layout(&self) -> Option<&StackLayout> {
        self.stack.as_ref()
    }

    /// Current Linux program break (QEMU `target_brk`).
    pub fn brk(&self) -> u64 {
        self.linux.target_brk
    }

    /// `SYS_HEAPINFO` answer: heap base, heap limit, stack base, stack limit.
    pub fn heapinfo(&self) -> [u64; 4] {
        self.semi.heapinfo
    }

    /// Run `hook` before every write to the host's standard streams during
    /// the run (guest output and fwprof's diagnostics), e.g. to clear a
    /// progress line; no effect on a captured console.
    pub fn set_before_output(&mut self, hook: OutputHook) {
        if let Console::Host { before_output, .. } = &mut self.console {
            *before_output = Some(hook);
        }
    }

    /// Drop what the guest writes to stdout and stderr (as if written)
    /// while everything else about the host's streams stays as it is, so
    /// the guest runs exactly as it would with them shown (the same
    /// `isatty`, `fstat` and buffering): for a run whose output was
    /// already shown by an identical run. No effect on a captured console.
    pub fn mute_output(&mut self) {
        if let Console::Host { muted, .. } = &mut self.console {
            *muted = true;
        }
    }

    /// Send guest stdout/stderr to in-memory buffers and read guest stdin
    /// from `stdin` instead of the host's fds 0/1/2.
    pub fn capture_console(&mut self, stdin: Vec<u8>) {
        self.console = Console::Captured {
            stdin,
            pos: 0,
            stdout: Vec::new(),
            stderr: Vec::new(),
        };
    }

    /// Captured (stdout, stderr) so far; empty unless
    /// [`Environment::capture_console`] was called.
    pub fn captured_output(&self) -> (&[u8], &[u8]) {
        match &self.console {
            Console::Captured { stdout, stderr, .. } => (stdout, stderr),
            Console::Host { .. } => (&[], &[]),
        }
    }

    /// The `SYS_GET_CMDLINE` string: QEMU 7.2 `semihosting_arg_fallback`
    /// (program, then the `-append` string split at spaces), joined with
    /// single spaces; just the program when there are no arguments.
    pub fn cmdline(&self) -> String {
        let mut parts = vec![self.program.to_string_lossy().into_owned()];
        let joined = self.args.join(" ");
        parts.extend(
            joined
                .split(' ')
                .filter(|t| !t.is_empty())
                .map(str::to_owned),
        );
        parts.join(" ")
    }
}
