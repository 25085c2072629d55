//! ELF validation, target detection and segment mapping.
//!
//! Follows QEMU 7.2 `linux-user/elfload.c` (`load_elf_image`: one mapping
//! per `PT_LOAD`, `p_filesz` bytes from the file, the rest zero, permissions
//! from `p_flags`) for Linux, and `hw/core/loader.c` (`load_elf` /
//! `rom_add_elf_program`: bytes placed at `p_paddr`) for bare metal.
//! Every malformed input is a [`LoadError`] whose message names the defect.

use object::elf;
use object::read::elf::{FileHeader, ProgramHeader, SectionHeader, Sym};
use object::Endianness;

use crate::{GuestMemory, LoadError, Perm, Target};

/// Linux page size (QEMU `TARGET_PAGE_SIZE` for RISC-V).
pub(crate) const PAGE: u64 = 4096;
/// Most `PT_LOAD` segments accepted (real executables have 2–4).
const MAX_LOADS: usize = 256;
/// Largest single segment accepted (`p_memsz`).
const MAX_SEGMENT: u64 = 1 << 32;

/// One `PT_LOAD` program header, widened to 64 bits.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Segment {
    /// `p_vaddr`.
    pub vaddr: u64,
    /// `p_paddr`.
    pub paddr: u64,
    /// `p_offset`.
    pub offset: u64,
    /// `p_filesz`.
    pub filesz: u64,
    /// `p_memsz`.
    pub memsz: u64,
    /// Permissions from `p_flags` (`PF_R`, `PF_W`, `PF_X`).
    pub perm: Perm,
}

/// What the loader learned from the headers.
#[derive(Clone, Debug)]
pub(crate) struct ElfInfo {
    /// ELFCLASS64.
    pub rv64: bool,
    /// `e_entry`.
    pub entry: u64,
    /// `e_phoff`.
    pub phoff: u64,
    /// `e_phnum`.
    pub phnum: u64,
    /// `PT_LOAD` segments in file order.
    pub loads: Vec<Segment>,
    /// Path in `PT_INTERP`, if any.
    pub interp: Option<String>,
    /// An `NT_GNU_ABI_TAG` note was found (section `.note.ABI-tag` or a `PT_NOTE`).
    pub abi_tag: bool,
    /// `e_type` is `ET_DYN` (position-independent).
    pub pie: bool,
    /// The initial stack pointer the runtime will load, from the first of
    /// [`STACK_TOP_SYMBOLS`] in the symbol table: (name, address).
    pub stack_top: Option<(&'static str, u64)>,
}

/// Symbols bare-metal runtimes load into `sp` at start-up, in the order
/// looked for: picolibc and newlib's `crt0` (`__stack`), the GNU Arm and
/// STM32 linker scripts (`_estack`, `__StackTop`), others (`__stack_top`,
/// `_stack_top`, `_sp`).
const STACK_TOP_SYMBOLS: [&str; 6] = [
    "__stack",
    "__stack_top",
    "_stack_top",
    "_estack",
    "__StackTop",
    "_sp",
];

impl ElfInfo {
    /// Target detected from the headers: Linux when the ELF has `PT_INTERP`
    /// or an `NT_GNU_ABI_TAG` note, bare metal otherwise.
    pub fn detected_target(&self) -> Target {
        if self.interp.is_some() || self.abi_tag {
            Target::Linux
        } else {
            Target::BareMetal
        }
    }

    /// QEMU's `load_addr` (lowest `p_vaddr - p_offset` over `PT_LOAD`s);
    /// `AT_PHDR` is `load_addr + e_phoff`.
    pub fn load_addr(&self) -> u64 {
        self.loads
            .iter()
            .map(|s| s.vaddr.wrapping_sub(s.offset))
            .min()
            .unwrap_or(0)
    }

    /// End of the highest segment (`p_vaddr + p_memsz`): QEMU's `info->brk`.
    pub fn end_of_image(&self) -> u64 {
        self.loads
            .iter()
            .map(|s| s.vaddr + s.memsz)
            .max()
            .unwrap_or(0)
    }
}

fn malformed(msg: impl Into<String>) -> LoadError {
    LoadError::Malformed(msg.into())
}

fn machine_name(m: u16) -> &'static str {
    match m {
        elf::EM_386 => " (Intel 80386)",
        elf::EM_ARM => " (ARM)",
        elf::EM_X86_64 => " (x86-64)",
        elf::EM_AARCH64 => " (AArch64)",
        elf::EM_MIPS => " (MIPS)",
        elf::EM_PPC64 => " (PowerPC64)",
        _ => "",
    }
}

/// Validate the identification bytes and header, then read program headers.
///
/// # Errors
/// A [`LoadError`] naming the first defect found.
pub(crate) fn parse(data: &[u8]) -> Result<ElfInfo, LoadError> {
    if data.len() < 4 || data[..4] != elf::ELFMAG {
        return Err(malformed(format!(
            "not an ELF file: bad magic {:02x?} (expected 7f 45 4c 46)",
            &data[..data.len().min(4)]
        )));
    }
    if data.len() < 16 {
        return Err(malformed(format!(
            "truncated ELF identification: {} bytes, need 16",
            data.len()
        )));
    }
    let rv64 = match data[4] {
        elf::ELFCLASS32 => false,
        elf::ELFCLASS64 => true,
        c => {
            return Err(malformed(format!(
                "bad ELF class {c} (expected 1 for ELFCLASS32 or 2 for ELFCLASS64)"
            )))
        }
    };
    match data[5] {
        elf::ELFDATA2LSB => {}
        elf::ELFDATA2MSB => {
            return Err(LoadError::Unsupported(
                "big-endian ELF (ELFDATA2MSB): RISC-V executables are little-endian".into(),
            ))
        }
        d => {
            return Err(malformed(format!(
                "bad ELF data encoding {d} (expected 1 for ELFDATA2LSB)"
            )))
        }
    }
    let hdr_len = if rv64 { 64 } else { 52 };
    if data.len() < hdr_len {
        return Err(malformed(format!(
            "truncated ELF header: {} bytes, need {hdr_len}",
            data.len()
        )));
    }
    let machine = u16::from_le_bytes([data[18], data[19]]);
    if machine != elf::EM_RISCV {
        return Err(LoadError::Unsupported(format!(
            "wrong machine: e_machine {machine}{}, expected EM_RISCV (243)",
            machine_name(machine)
        )));
    }
    let e_type = u16::from_le_bytes([data[16], data[17]]);
    match e_type {
        // ET_DYN is refused by `load` after the program headers are read,
        // so a dynamically linked program is named as such.
        elf::ET_EXEC | elf::ET_DYN => {}
        t => {
            return Err(LoadError::Unsupported(format!(
                "ELF type {t} is not an executable (expected ET_EXEC)"
            )))
        }
    }
    if rv64 {
        parse_with::<elf::FileHeader64<Endianness>>(data, true)
    } else {
        parse_with::<elf::FileHeader32<Endianness>>(data, false)
    }
}

fn parse_with<H: FileHeader<Endian = Endianness>>(
    data: &[u8],
    rv64: bool,
) -> Result<ElfInfo, LoadError> {
    let hdr = H::parse(data).map_err(|e| malformed(format!("bad ELF header: {e}")))?;
    let endian = hdr
        .endian()
        .map_err(|e| malformed(format!("bad ELF header: {e}")))?;
    let phentsize = u64::from(hdr.e_phentsize(endian));
    let want = if rv64 { 56 } else { 32 };
    let phoff: u64 = hdr.e_phoff(endian).into();
    if phoff == 0 {
        return Err(malformed("no program header table (e_phoff is 0)"));
    }
    if phentsize != want {
        return Err(malformed(format!(
            "bad program header entry size e_phentsize {phentsize} (expected {want})"
        )));
    }
    let phdrs = hdr.program_headers(endian, data).map_err(|_| {
        malformed(format!(
            "truncated program header table: {} entries at offset {phoff:#x} exceed the {}-byte file",
            hdr.e_phnum(endian),
            data.len()
        ))
    })?;
    let mut info = ElfInfo {
        rv64,
        entry: hdr.e_entry(endian).into(),
        phoff,
        phnum: phdrs.len() as u64,
        loads: Vec::new(),
        interp: None,
        abi_tag: false,
        pie: hdr.e_type(endian) == elf::ET_DYN,
        stack_top: None,
    };
    let limit: u64 = if rv64 { u64::MAX } else { u64::from(u32::MAX) };
    for (i, ph) in phdrs.iter().enumerate() {
        match ph.p_type(endian) {
            elf::PT_LOAD => {
                let seg = Segment {
                    vaddr: ph.p_vaddr(endian).into(),
                    paddr: ph.p_paddr(endian).into(),
                    offset: ph.p_offset(endian).into(),
                    filesz: ph.p_filesz(endian).into(),
                    memsz: ph.p_memsz(endian).into(),
                    perm: Perm {
                        read: ph.p_flags(endian) & elf::PF_R != 0,
                        write: ph.p_flags(endian) & elf::PF_W != 0,
                        exec: ph.p_flags(endian) & elf::PF_X != 0,
                    },
                };
                check_segment(i, &seg, data.len() as u64, limit)?;
                info.loads.push(seg);
                if info.loads.len() > MAX_LOADS {
                    return Err(LoadError::Unsupported(format!(
                        "more than {MAX_LOADS} PT_LOAD segments"
                    )));
                }
            }
            elf::PT_INTERP => {
                let bytes = ph.data(endian, data).map_err(|_| {
                    malformed(format!(
                        "program header {i}: PT_INTERP lies beyond end of file"
                    ))
                })?;
                let end = bytes.iter().position(|&b| b == 0).unwrap_or(bytes.len());
                info.interp = Some(String::from_utf8_lossy(&bytes[..end]).into_owned());
            }
            elf::PT_NOTE => {
                // A malformed note segment only means "no ABI tag here".
                if let Ok(Some(mut notes)) = ph.notes(endian, data) {
                    while let Ok(Some(note)) = notes.next() {
                        if note.name() == elf::ELF_NOTE_GNU
                            && note.n_type(endian) == elf::NT_GNU_ABI_TAG
                        {
                            info.abi_tag = true;
                        }
                    }
                }
            }
            _ => {}
        }
    }
    if info.loads.is_empty() {
        return Err(malformed("no PT_LOAD segment: nothing to load"));
    }
    if info.entry & 1 != 0 {
        // Every RISC-V instruction starts at an even address (16-bit
        // parcels); QEMU would start at the odd pc.
        return Err(malformed(format!(
            "bad entry point e_entry {:#x}: odd, and RISC-V instructions start at even addresses",
            info.entry
        )));
    }
    // Sections are optional for loading; a broken section table is ignored.
    if let Ok(sections) = hdr.sections(endian, data) {
        for s in sections.iter() {
            if sections.section_name(endian, s).ok() == Some(b".note.ABI-tag".as_slice())
                && s.sh_type(endian) == elf::SHT_NOTE
            {
                info.abi_tag = true;
            }
        }
        if let Ok(symbols) = sections.symbols(endian, data, elf::SHT_SYMTAB) {
            let mut found: Vec<(usize, u64)> = Vec::new();
            for sym in symbols.iter() {
                let Ok(name) = symbols.symbol_name(endian, sym) else {
                    continue;
                };
                if let Some(rank) = STACK_TOP_SYMBOLS.iter().position(|s| s.as_bytes() == name) {
                    found.push((rank, sym.st_value(endian).into()));
                }
            }
            info.stack_top = found
                .into_iter()
                .min()
                .map(|(rank, addr)| (STACK_TOP_SYMBOLS[rank], addr));
        }
    }
    Ok(info)
}

fn check_segment(i: usize, s: &Segment, file_len: u64, limit: u64) -> Result<(), LoadError> {
    if s.filesz > s.memsz {
        return Err(malformed(format!(
            "segment {i}: p_filesz {:#x} exceeds p_memsz {:#x}",
            s.filesz, s.memsz
        )));
    }
    match s.offset.checked_add(s.filesz) {
        Some(end) if end <= file_len => {}
        _ => {
            return Err(malformed(format!(
            "segment {i}: file bytes {:#x}+{:#x} lie beyond the end of the {file_len}-byte file",
            s.offset, s.filesz
        )))
        }
    }
    if s.memsz > MAX_SEGMENT {
        return Err(LoadError::Memory(format!(
            "segment {i}: p_memsz {:#x} larger than 4 GiB",
            s.memsz
        )));
    }
    for (what, base) in [("p_vaddr", s.vaddr), ("p_paddr", s.paddr)] {
        match base.checked_add(s.memsz) {
            Some(end) if end - 1 <= limit || s.memsz == 0 && base <= limit => {}
            _ => {
                return Err(LoadError::Memory(format!(
                    "segment {i}: {what} {base:#x} + p_memsz {:#x} lies outside the {}-bit address space",
                    s.memsz,
                    if limit == u64::MAX { 64 } else { 32 }
                )))
            }
        }
    }
    Ok(())
}

/// Half-open address range.
pub(crate) type Range = (u64, u64);

/// Parts of `r` not covered by any range in `covered`.
pub(crate) fn subtract(r: Range, covered: &[Range]) -> Vec<Range> {
    let mut parts = vec![r];
    for &(cs, ce) in covered {
        let mut next = Vec::with_capacity(parts.len() + 1);
        for (s, e) in parts {
            if ce <= s || cs >= e {
                next.push((s, e));
                continue;
            }
            if s < cs {
                next.push((s, cs));
            }
            if ce < e {
                next.push((ce, e));
            }
        }
        parts = next;
    }
    parts
}

const RW: Perm = Perm {
    read: true,
    write: true,
    exec: false,
};

/// Refuse a mapping of `len` bytes that the guest memory limit
/// ([`GuestMemory::memory_use`]) cannot hold, naming `what` it is for.
pub(crate) fn check_room(mem: &dyn GuestMemory, len: u64, what: &str) -> Result<(), LoadError> {
    match mem.memory_use() {
        Some((used, limit)) if used.saturating_add(len) > limit => {
            let already = if used > 0 {
                format!(" ({used} bytes already mapped)")
            } else {
                String::new()
            };
            Err(LoadError::Memory(format!(
                "{what} of {len} bytes exceeds the guest memory limit of {limit} bytes{already}; raise --max-memory"
            )))
        }
        _ => Ok(()),
    }
}

fn mem_err(what: &str, e: crate::MemFault) -> LoadError {
    LoadError::Memory(format!("{what}: cannot map guest address {:#x}", e.addr))
}

/// Copy `p_filesz` bytes of each segment to `addr_of(segment)`; the
/// destination must already be mapped writable.
pub(crate) fn copy_segments(
    data: &[u8],
    info: &ElfInfo,
    mem: &mut dyn GuestMemory,
    addr_of: fn(&Segment) -> u64,
) -> Result<(), LoadError> {
    for (i, s) in info.loads.iter().enumerate() {
        if s.filesz == 0 {
            continue;
        }
        // Bounds were checked in `check_segment`.
        let bytes = &data[s.offset as usize..(s.offset + s.filesz) as usize];
        mem.write(addr_of(s), bytes)
            .map_err(|e| mem_err(&format!("segment {i}"), e))?;
    }
    Ok(())
}

/// Union of the permissions of every segment touching `[s, e)` in `ranges`.
fn union_perm(s: u64, e: u64, ranges: &[(Range, Perm)]) -> Perm {
    let mut p = Perm::default();
    for &((rs, re), rp) in ranges {
        if rs < e && s < re {
            p.read |= rp.read;
            p.write |= rp.write;
            p.exec |= rp.exec;
        }
    }
    p
}

/// Map the segments page-granular at `p_vaddr` as QEMU `linux-user` does;
/// pages shared by two segments get the union of their permissions.
/// Returns the mapped page ranges.
pub(crate) fn map_linux(
    data: &[u8],
    info: &ElfInfo,
    mem: &mut dyn GuestMemory,
) -> Result<Vec<(Range, Perm)>, LoadError> {
    let mut ranges: Vec<(Range, Perm)> = Vec::new();
    for s in info.loads.iter().filter(|s| s.memsz > 0) {
        let start = s.vaddr & !(PAGE - 1);
        let end = (s.vaddr + s.memsz)
            .checked_add(PAGE - 1)
            .map(|x| x & !(PAGE - 1));
        let end = end.ok_or_else(|| {
            LoadError::Memory("segment reaches the top of the address space".into())
        })?;
        let covered: Vec<Range> = ranges.iter().map(|r| r.0).collect();
        for (ms, me) in subtract((start, end), &covered) {
            check_room(mem, me - ms, "PT_LOAD segment")?;
            mem.map(ms, me - ms, RW)
                .map_err(|e| mem_err("PT_LOAD", e))?;
        }
        ranges.push(((start, end), s.perm));
    }
    copy_segments(data, info, mem, |s| s.vaddr)?;
    finalize_perms(&ranges, mem)?;
    Ok(ranges)
}

/// Set each elementary interval of `ranges` to the union permission.
fn finalize_perms(ranges: &[(Range, Perm)], mem: &mut dyn GuestMemory) -> Result<(), LoadError> {
    let mut cuts: Vec<u64> = ranges.iter().flat_map(|r| [r.0 .0, r.0 .1]).collect();
    cuts.sort_unstable();
    cuts.dedup();
    for w in cuts.windows(2) {
        let (s, e) = (w[0], w[1]);
        if ranges.iter().any(|r| r.0 .0 < e && s < r.0 .1) {
            mem.protect(s, e - s, union_perm(s, e, ranges))
                .map_err(|e| mem_err("PT_LOAD permissions", e))?;
        }
    }
    Ok(())
}

/// Bare metal: map RAM `ram` RWX, then place segments at `p_paddr` (QEMU's
/// ELF loader uses physical addresses). Segment parts outside RAM are
/// mapped byte-granular with their own permissions.
pub(crate) fn map_bare_metal(
    data: &[u8],
    info: &ElfInfo,
    ram: (u64, u64),
    mem: &mut dyn GuestMemory,
) -> Result<(), LoadError> {
    let (base, size) = ram;
    let ram_end = base.checked_add(size).ok_or_else(|| {
        LoadError::Memory(format!("RAM {base:#x}+{size:#x} wraps the address space"))
    })?;
    if !info.rv64 && ram_end > 1 << 32 {
        return Err(LoadError::Memory(format!(
            "RAM {base:#x}+{size:#x} wraps the 32-bit address space of an RV32 program"
        )));
    }
    if let Some((name, top)) = info.stack_top {
        // The runtime's first stores go just below `top`: they must land in
        // RAM or in a writable segment, or the program faults at once and
        // its trap handler, which needs the stack too, faults forever.
        let in_ram = top > base && top <= ram_end;
        let in_segment = info
            .loads
            .iter()
            .any(|s| s.perm.write && top > s.paddr && top <= s.paddr.saturating_add(s.memsz));
        if !in_ram && !in_segment {
            return Err(LoadError::Memory(format!(
                "RAM {base:#x}..{ram_end:#x} leaves no room for the stack: the program's stack top ({name} = {top:#x}) is outside it (choose a --ram range that contains it)"
            )));
        }
    }
    if size > 0 {
        check_room(mem, size, "RAM (--ram)")?;
        mem.map(
            base,
            size,
            Perm {
                read: true,
                write: true,
                exec: true,
            },
        )
        .map_err(|e| mem_err("RAM", e))?;
    }
    place_segments(data, info, ram, mem)
}

/// Place an image's `PT_LOAD` segments at their `p_paddr` (QEMU
/// `rom_add_elf_program`) on a machine whose RAM `ram` is already mapped:
/// the parts outside RAM are mapped with the segment's permissions.
///
/// # Errors
/// A segment that does not fit the memory map.
pub(crate) fn place_segments(
    data: &[u8],
    info: &ElfInfo,
    ram: (u64, u64),
    mem: &mut dyn GuestMemory,
) -> Result<(), LoadError> {
    let (base, ram_end) = (ram.0, ram.0.saturating_add(ram.1));
    let mut outside: Vec<(Range, Perm)> = Vec::new();
    for s in info.loads.iter().filter(|s| s.memsz > 0) {
        let r = (s.paddr, s.paddr + s.memsz);
        let mut covered: Vec<Range> = outside.iter().map(|r| r.0).collect();
        covered.push((base, ram_end));
        for (ms, me) in subtract(r, &covered) {
            check_room(mem, me - ms, "PT_LOAD segment")?;
            mem.map(ms, me - ms, RW)
                .map_err(|e| mem_err("PT_LOAD", e))?;
            outside.push(((ms, me), s.perm));
        }
    }
    copy_segments(data, info, mem, |s| s.paddr)?;
    finalize_perms(&outside, mem)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn subtract_cases() {
        assert_eq!(subtract((0, 10), &[]), vec![(0, 10)]);
        assert_eq!(subtract((0, 10), &[(2, 4)]), vec![(0, 2), (4, 10)]);
        assert_eq!(subtract((0, 10), &[(0, 10)]), vec![]);
        assert_eq!(subtract((5, 10), &[(0, 7), (9, 20)]), vec![(7, 9)]);
    }
}
