//! Loading a program onto a board file's memory, as a programmer or
//! bootloader would: every region mapped, each `PT_LOAD` segment's bytes
//! written at its load address (`p_paddr`, the LMA: `.data` goes to flash
//! and the program's start-up code copies it to its run address), the
//! `--load` images written, then each region given its permissions
//! (flash and ROM read-only). No reset ROM and no device tree: the hart
//! starts at the board's `start` or the ELF entry, in M-mode, with
//! `a0` = 0 (the hart id) and `a1` = 0.

use crate::board::Board;
use crate::images::{uncovered, write_images, LoadImage};
use crate::loader::{self, ElfInfo, Range};
use crate::{GuestMemory, LoadError, Perm};

/// Where the hart starts, and the semihosting `SYS_HEAPINFO` answer.
pub(crate) struct BoardStart {
    pub start: u64,
    pub heapinfo: [u64; 4],
}

/// Load `elf` (parsed as `info`) and `images` onto `board`, whose
/// `memory` is not empty.
///
/// # Errors
/// [`LoadError::Unsupported`] for a program of the other XLEN than the
/// board's, or an RV32 program on a board with memory above 4 GiB;
/// [`LoadError::Memory`] for a segment or image outside the board's
/// memory (naming its range and the board), a stack top outside writable
/// memory, a guest memory limit too small for the regions.
pub(crate) fn load_on_board(
    elf: &[u8],
    info: &ElfInfo,
    board: &Board,
    images: &[LoadImage],
    mem: &mut dyn GuestMemory,
) -> Result<BoardStart, LoadError> {
    let xlen = if info.rv64 { 64 } else { 32 };
    if let Some(x) = board.xlen.filter(|&x| x != xlen) {
        return Err(LoadError::Unsupported(format!(
            "board {} is an RV{x} part and the program an RV{xlen} program",
            board.name
        )));
    }
    if !info.rv64 {
        if let Some(r) = board.memory.iter().find(|r| r.end() > 1 << 32) {
            return Err(LoadError::Unsupported(format!(
                "board {}: memory \"{}\" [{:#x}, {:#x}] is beyond the 32-bit address space of an RV32 program",
                board.name,
                r.name,
                r.base,
                r.end() - 1
            )));
        }
    }
    let regions: Vec<Range> = board.memory.iter().map(|r| (r.base, r.end())).collect();
    let what = format!("board {}", board.name);
    for (i, s) in info.loads.iter().enumerate().filter(|(_, s)| s.memsz > 0) {
        let range = (s.paddr, s.paddr + s.memsz);
        if let Some(&(a, b)) = uncovered(range, &regions).first() {
            let vma = if s.vaddr == s.paddr {
                String::new()
            } else {
                format!(", run address {:#x}", s.vaddr)
            };
            return Err(LoadError::Memory(format!(
                "segment {i} at {:#x}..{:#x} (p_paddr{vma}) does not fit the memory of {what}: {a:#x}..{b:#x} is outside it",
                range.0, range.1
            )));
        }
    }
    if let Some((name, top)) = info.stack_top {
        // The runtime's first stores go just below `top`.
        let writable = board
            .memory
            .iter()
            .any(|r| r.perm.write && top > r.base && top <= r.end());
        if !writable {
            return Err(LoadError::Memory(format!(
                "{what} has no writable memory below the program's stack top ({name} = {top:#x})"
            )));
        }
    }
    let rw = Perm {
        read: true,
        write: true,
        exec: false,
    };
    for r in &board.memory {
        loader::check_room(mem, r.size, &format!("memory \"{}\" of {what}", r.name))?;
        mem.map(r.base, r.size, rw).map_err(|e| {
            LoadError::Memory(format!("memory \"{}\": cannot map {:#x}", r.name, e.addr))
        })?;
    }
    loader::copy_segments(elf, info, mem, |s| s.paddr)?;
    write_images(images, &regions, &what, mem)?;
    for r in &board.memory {
        mem.protect(r.base, r.size, r.perm).map_err(|e| {
            LoadError::Memory(format!(
                "memory \"{}\": cannot protect {:#x}",
                r.name, e.addr
            ))
        })?;
    }
    Ok(BoardStart {
        start: board.start.unwrap_or(info.entry),
        heapinfo: heapinfo(board, info, images),
    })
}

/// `SYS_HEAPINFO` on a board: the largest gap of writable RAM not covered
/// by a loaded segment (at its load or run address) or an image; the heap
/// is the gap, the stack grows down from its top (as on `virt`:
/// `[gap start, gap end, gap end, gap start]`).
fn heapinfo(board: &Board, info: &ElfInfo, images: &[LoadImage]) -> [u64; 4] {
    let mut taken: Vec<Range> = Vec::new();
    for s in info.loads.iter().filter(|s| s.memsz > 0) {
        taken.push((s.paddr, s.paddr + s.memsz));
        taken.push((s.vaddr, s.vaddr.saturating_add(s.memsz)));
    }
    taken.extend(images.iter().flat_map(LoadImage::ranges));
    let mut best = (0, 0);
    for r in board.memory.iter().filter(|r| r.perm.write) {
        for g in uncovered((r.base, r.end()), &taken) {
            if g.1 - g.0 > best.1 - best.0 {
                best = g;
            }
        }
    }
    [best.0, best.1, best.1, best.0]
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_mem::TestMem;
    use crate::{load, LoadSpec, MachineConfig, RunConfig, Target};

    /// A minimal RV32 ELF: `.text` (`size` bytes of `fill`) at `text`, and
    /// a `.data` segment of 8 bytes whose load address `data_lma`
    /// differs from its run address `data_vma`.
    fn elf32(text: u32, data_vma: u32, data_lma: u32) -> Vec<u8> {
        let mut f = vec![0u8; 0x200];
        f[..4].copy_from_slice(b"\x7fELF");
        f[4] = 1; // ELFCLASS32
        f[5] = 1; // little-endian
        f[6] = 1;
        f[16..18].copy_from_slice(&2u16.to_le_bytes()); // ET_EXEC
        f[18..20].copy_from_slice(&243u16.to_le_bytes()); // EM_RISCV
        f[20..24].copy_from_slice(&1u32.to_le_bytes());
        f[24..28].copy_from_slice(&text.to_le_bytes()); // e_entry
        f[28..32].copy_from_slice(&52u32.to_le_bytes()); // e_phoff
        f[40..42].copy_from_slice(&52u16.to_le_bytes()); // e_ehsize
        f[42..44].copy_from_slice(&32u16.to_le_bytes()); // e_phentsize
        f[44..46].copy_from_slice(&2u16.to_le_bytes()); // e_phnum
        let ph = |f: &mut Vec<u8>, at: usize, off: u32, va: u32, pa: u32, sz: u32, flags: u32| {
            for (k, v) in [1u32, off, va, pa, sz, sz, flags, 4].iter().enumerate() {
                f[at + 4 * k..at + 4 * k + 4].copy_from_slice(&v.to_le_bytes());
            }
        };
        ph(&mut f, 52, 0x100, text, text, 8, 5); // R X
        ph(&mut f, 84, 0x108, data_vma, data_lma, 8, 6); // R W
        f[0x100..0x108].copy_from_slice(&[0x13, 0, 0, 0, 0x13, 0, 0, 0]); // nop; nop
        f[0x108..0x110].copy_from_slice(b"DATA1234");
        f
    }

    fn board() -> Board {
        Board::from_toml(
            r#"
name = "mcu"
xlen = 32
[[memory]]
name = "flash"
base = 0x20000000
size = "64K"
kind = "flash"
[[memory]]
name = "sram"
base = 0x80000000
size = "16K"
kind = "ram"
"#,
            "mcu.toml",
        )
        .unwrap()
    }

    fn cfg(board: Board, loads: Vec<LoadImage>) -> RunConfig {
        RunConfig {
            program: "p.elf".into(),
            args: vec![],
            env: vec![],
            target: None,
            ram: (0x8000_0000, 128 << 20),
            sandbox: Default::default(),
            machine: MachineConfig {
                board,
                loads,
                ..Default::default()
            },
        }
    }

    #[test]
    fn segments_go_to_their_load_address_and_flash_is_read_only() {
        let elf = elf32(0x2000_0000, 0x8000_0000, 0x2000_0008);
        let mut mem = TestMem::new();
        let (prog, env) = load(&elf, &cfg(board(), vec![]), &mut mem).unwrap();
        assert_eq!(prog.target, Target::BareMetal);
        assert_eq!(
            (prog.start, prog.regs[10], prog.regs[11]),
            (0x2000_0000, 0, 0)
        );
        let mut b = [0u8; 8];
        mem.read(0x2000_0008, &mut b).unwrap();
        assert_eq!(&b, b"DATA1234", ".data's bytes at its LMA, in flash");
        mem.read(0x8000_0000, &mut b).unwrap();
        assert_eq!(
            b, [0; 8],
            "the run address is for the start-up code to fill"
        );
        assert!(mem.write(0x2000_0000, &[1]).is_err(), "flash is read-only");
        assert!(mem.write(0x8000_0000, &[1]).is_ok());
        assert!(mem.read(0x1000, &mut b).is_err(), "no reset ROM on a board");
        // The heap: SRAM after the 8 bytes of .data's run address.
        assert_eq!(
            env.heapinfo(),
            [0x8000_0008, 0x8000_4000, 0x8000_4000, 0x8000_0008]
        );
    }

    #[test]
    fn the_board_start_wins_over_the_entry() {
        let mut b = board();
        b.start = Some(0x2000_0004);
        let elf = elf32(0x2000_0000, 0x8000_0000, 0x2000_0008);
        let (prog, _) = load(&elf, &cfg(b, vec![]), &mut TestMem::new()).unwrap();
        assert_eq!(prog.start, 0x2000_0004);
    }

    #[test]
    fn a_segment_outside_the_memory_is_refused() {
        let elf = elf32(0x2000_0000, 0x8000_0000, 0x9000_0000);
        let e = load(&elf, &cfg(board(), vec![]), &mut TestMem::new()).unwrap_err();
        assert_eq!(
            e.to_string(),
            "segment 1 at 0x90000000..0x90000008 (p_paddr, run address 0x80000000) does not fit the memory of board mcu: 0x90000000..0x90000008 is outside it"
        );
    }

    #[test]
    fn xlen_is_checked() {
        let mut b = board();
        b.xlen = Some(64);
        let elf = elf32(0x2000_0000, 0x8000_0000, 0x2000_0008);
        let e = load(&elf, &cfg(b, vec![]), &mut TestMem::new()).unwrap_err();
        assert_eq!(
            e.to_string(),
            "board mcu is an RV64 part and the program an RV32 program"
        );
    }

    #[test]
    fn images_are_written_after_the_program_even_into_flash() {
        let elf = elf32(0x2000_0000, 0x8000_0000, 0x2000_0008);
        let spec = LoadSpec::parse("blob.bin@0x20000004").unwrap();
        let img = LoadImage::from_bytes(spec, b"XY").unwrap();
        let mut mem = TestMem::new();
        load(&elf, &cfg(board(), vec![img]), &mut mem).unwrap();
        let mut b = [0u8; 4];
        mem.read(0x2000_0004, &mut b).unwrap();
        assert_eq!(&b, b"XY\0\0", "the image overwrote the second nop");
        let spec = LoadSpec::parse("blob.bin@0x2000fffe").unwrap();
        let img = LoadImage::from_bytes(spec, b"XYZ").unwrap();
        let e = load(&elf, &cfg(board(), vec![img]), &mut TestMem::new()).unwrap_err();
        assert_eq!(
            e.to_string(),
            "--load blob.bin@0x2000fffe: bytes 0x20010000..0x20010001 are outside the memory of board mcu"
        );
    }

    #[test]
    fn images_on_the_bare_machine_go_into_ram() {
        let elf = elf32(0x8000_0000, 0x8000_1000, 0x8000_1000);
        let spec = LoadSpec::parse("blob.bin@0x80100000").unwrap();
        let img = LoadImage::from_bytes(spec, b"RAM!").unwrap();
        let mut mem = TestMem::new();
        let mut c = cfg(Board::bare(), vec![img]);
        c.ram = (0x8000_0000, 2 << 20);
        load(&elf, &c, &mut mem).unwrap();
        let mut b = [0u8; 4];
        mem.read(0x8010_0000, &mut b).unwrap();
        assert_eq!(&b, b"RAM!");
        let spec = LoadSpec::parse("blob.bin@0x90000000").unwrap();
        c.machine.loads = vec![LoadImage::from_bytes(spec, b"RAM!").unwrap()];
        let e = load(&elf, &c, &mut TestMem::new()).unwrap_err();
        assert_eq!(
            e.to_string(),
            "--load blob.bin@0x90000000: bytes 0x90000000..0x90000004 are outside the memory of the bare machine (RAM 0x80000000..0x80200000)"
        );
    }
}
