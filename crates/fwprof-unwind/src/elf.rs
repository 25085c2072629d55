//! What the unwinder needs to know about the program besides its CFI.

use object::{Object, ObjectSection, ObjectSegment, ObjectSymbol, SectionKind, SymbolKind};

use crate::Error;

/// The program's shape as the unwinder uses it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Layout {
    /// Bytes per address and saved register: 4 (RV32) or 8 (RV64).
    pub address_size: u8,
    /// The entry point; the function containing it is a root.
    pub entry: u64,
    /// Executable address ranges `[start, end)`: a return address outside
    /// them ends the stack as truncated.
    pub code: Vec<(u64, u64)>,
    /// Function ranges `[start, end)`, sorted by start and not overlapping.
    pub functions: Vec<(u64, u64)>,
    /// The range of the function called `main`, if there is one: a stack
    /// that cannot be unwound past `main`'s caller still counts as complete
    /// ([`crate::StackEnd::MainCaller`]).
    pub main: Option<(u64, u64)>,
}

/// Sections and layout read from an ELF file.
pub(crate) struct ElfParts {
    pub layout: Layout,
    /// `.eh_frame`: its address and contents.
    pub eh_frame: Option<(u64, Vec<u8>)>,
    /// `.debug_frame` contents (decompressed).
    pub debug_frame: Option<Vec<u8>>,
    /// Address of `.text` (base of text-relative pointer encodings).
    pub text: u64,
}

/// Read the layout and the call-frame sections of a RISC-V ELF file.
pub(crate) fn read(data: &[u8]) -> Result<ElfParts, Error> {
    let file = object::File::parse(data).map_err(|e| Error::Elf(e.to_string()))?;
    if file.architecture() != object::Architecture::Riscv32
        && file.architecture() != object::Architecture::Riscv64
    {
        return Err(Error::NotRiscv(format!("{:?}", file.architecture())));
    }
    let address_size = if file.is_64() { 8 } else { 4 };
    let mut code: Vec<(u64, u64)> = file
        .segments()
        .filter(|s| {
            matches!(s.flags(), object::SegmentFlags::Elf { p_flags } if p_flags & object::elf::PF_X != 0)
        })
        .map(|s| (s.address(), s.address().saturating_add(s.size())))
        .filter(|&(a, b)| b > a)
        .collect();
    if code.is_empty() {
        code = file
            .sections()
            .filter(|s| s.kind() == SectionKind::Text)
            .map(|s| (s.address(), s.address().saturating_add(s.size())))
            .filter(|&(a, b)| b > a)
            .collect();
    }
    code.sort_unstable();
    // Text symbols: sized ones span their size, unsized ones (assembly
    // labels) run to the next symbol or the end of their code range.
    let main_start = file
        .symbols()
        .find(|s| s.kind() == SymbolKind::Text && s.name() == Ok("main"))
        .map(|s| s.address());
    let mut syms: Vec<(u64, u64)> = file
        .symbols()
        .filter(|s| s.kind() == SymbolKind::Text && s.section_index().is_some())
        .map(|s| (s.address(), s.size()))
        .filter(|&(a, _)| code.iter().any(|&(lo, hi)| lo <= a && a < hi))
        .collect();
    syms.sort_unstable_by(|a, b| a.0.cmp(&b.0).then(b.1.cmp(&a.1)));
    syms.dedup_by_key(|s| s.0);
    let mut functions = Vec::with_capacity(syms.len());
    for (i, &(start, size)) in syms.iter().enumerate() {
        let next = syms.get(i + 1).map_or(u64::MAX, |s| s.0);
        let range_end = code
            .iter()
            .find(|&&(lo, hi)| lo <= start && start < hi)
            .map_or(start + 1, |r| r.1);
        let end = if size > 0 {
            start.saturating_add(size).min(next)
        } else {
            next.min(range_end)
        };
        if end > start {
            functions.push((start, end));
        }
    }
    let eh_frame = file
        .section_by_name(".eh_frame")
        .and_then(|s| Some((s.address(), s.uncompressed_data().ok()?.into_owned())))
        .filter(|(_, d)| !d.is_empty());
    let debug_frame = file
        .section_by_name(".debug_frame")
        .and_then(|s| Some(s.uncompressed_data().ok()?.into_owned()))
        .filter(|d| !d.is_empty());
    let text = file.section_by_name(".text").map_or(0, |s| s.address());
    let main = main_start.and_then(|m| functions.iter().copied().find(|f| f.0 == m));
    Ok(ElfParts {
        layout: Layout {
            address_size,
            entry: file.entry(),
            code,
            functions,
            main,
        },
        eh_frame,
        debug_frame,
        text,
    })
}

impl Layout {
    /// The function range containing `addr`.
    pub fn function_of(&self, addr: u64) -> Option<(u64, u64)> {
        let i = self.functions.partition_point(|f| f.0 <= addr);
        let f = *self.functions.get(i.checked_sub(1)?)?;
        (addr < f.1).then_some(f)
    }

    /// True if `addr` is in an executable range.
    pub fn in_code(&self, addr: u64) -> bool {
        self.code.iter().any(|&(lo, hi)| lo <= addr && addr < hi)
    }
}
