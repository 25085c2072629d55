//! The ELF program: header facts read eagerly, symbols and DWARF lazily.

use std::cell::OnceCell;
use std::path::{Path, PathBuf};

use object::{Object, ObjectSection, ObjectSymbol, SectionFlags, SymbolFlags};
use sha2::{Digest, Sha256};

use crate::error::Error;
use crate::functions::{Binding, FunctionTable, Symbol};
use crate::lines::Dwarf;

/// ELF class of a RISC-V program.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Class {
    /// `ELFCLASS32`: RV32.
    Rv32,
    /// `ELFCLASS64`: RV64.
    Rv64,
}

impl Class {
    /// Register width in bits: 32 or 64.
    pub fn xlen(self) -> u32 {
        match self {
            Class::Rv32 => 32,
            Class::Rv64 => 64,
        }
    }
}

/// An allocated section of the program.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Section {
    /// Section name, e.g. `.text`.
    pub name: String,
    /// Virtual address of the first byte.
    pub address: u64,
    /// Size in bytes.
    pub size: u64,
    /// `SHF_EXECINSTR` is set.
    pub executable: bool,
    /// Byte range `(offset, size)` in the file; `None` for `SHT_NOBITS`.
    pub file_range: Option<(u64, u64)>,
}

const SHF_ALLOC: u64 = 0x2;
const SHF_EXECINSTR: u64 = 0x4;
const STT_NOTYPE: u8 = 0;
const STT_FUNC: u8 = 2;
const STT_GNU_IFUNC: u8 = 10;
const STB_GLOBAL: u8 = 1;
const STB_WEAK: u8 = 2;

/// A RISC-V ELF program read into memory.
///
/// Opening reads the whole file, hashes it and parses the ELF header and
/// section table. The function table and the DWARF line tables are built
/// on first use and cached (`OnceCell`), failures included.
pub struct Program {
    path: Option<PathBuf>,
    data: Vec<u8>,
    class: Class,
    entry: u64,
    sha256: [u8; 32],
    build_id: Option<Vec<u8>>,
    sections: Vec<Section>,
    symbols: Vec<Symbol>,
    has_symtab: bool,
    functions: OnceCell<FunctionTable>,
    dwarf: OnceCell<Result<Option<Dwarf>, crate::lines::Corrupt>>,
}

impl std::fmt::Debug for Program {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Program")
            .field("path", &self.path)
            .field("class", &self.class)
            .field("entry", &self.entry)
            .field("sections", &self.sections.len())
            .field("symbols", &self.symbols.len())
            .finish()
    }
}

impl Program {
    /// Reads and parses the ELF at `path`.
    ///
    /// Errors: [`Error::Io`], [`Error::NotElf`], [`Error::NotElfFormat`],
    /// [`Error::NotRiscv`].
    pub fn open(path: impl AsRef<Path>) -> Result<Program, Error> {
        let path = path.as_ref();
        let data = std::fs::read(path).map_err(|source| Error::Io {
            path: path.to_path_buf(),
            source,
        })?;
        let mut p = Program::parse(data)?;
        p.path = Some(path.to_path_buf());
        Ok(p)
    }

    /// Parses an ELF image held in memory (see [`Program::open`]).
    pub fn parse(data: impl Into<Vec<u8>>) -> Result<Program, Error> {
        let data = data.into();
        let sha256: [u8; 32] = Sha256::digest(&data).into();
        let file = object::File::parse(&*data).map_err(Error::NotElf)?;
        if file.format() != object::BinaryFormat::Elf {
            return Err(Error::NotElfFormat(format!("{:?}", file.format())));
        }
        let class = match file.architecture() {
            object::Architecture::Riscv32 => Class::Rv32,
            object::Architecture::Riscv64 => Class::Rv64,
            other => return Err(Error::NotRiscv(format!("{other:?}"))),
        };
        let build_id = file.build_id().ok().flatten().map(<[u8]>::to_vec);
        let mut sections = Vec::new();
        let mut exec_index = std::collections::HashSet::new();
        for s in file.sections() {
            let SectionFlags::Elf { sh_flags } = s.flags() else {
                continue;
            };
            if sh_flags & SHF_ALLOC == 0 || s.size() == 0 {
                continue;
            }
            let executable = sh_flags & SHF_EXECINSTR != 0;
            if executable {
                exec_index.insert(s.index());
            }
            sections.push(Section {
                name: s.name().unwrap_or("").to_string(),
                address: s.address(),
                size: s.size(),
                executable,
                file_range: s.file_range(),
            });
        }
        sections.sort_by_key(|s| s.address);
        let has_symtab = file.symbol_table().is_some();
        let mut symbols = Vec::new();
        for sym in file.symbols() {
            let SymbolFlags::Elf { st_info, .. } = sym.flags() else {
                continue;
            };
            let (kind, bind) = (st_info & 0xf, st_info >> 4);
            let in_exec = sym.section_index().is_some_and(|i| exec_index.contains(&i));
            let wanted = match kind {
                STT_FUNC | STT_GNU_IFUNC => sym.is_definition() || in_exec,
                STT_NOTYPE => in_exec,
                _ => false,
            };
            let Ok(name) = sym.name() else { continue };
            if !wanted || name.is_empty() || is_mapping_or_label(name) {
                continue;
            }
            let binding = match bind {
                STB_GLOBAL => Binding::Global,
                STB_WEAK => Binding::Weak,
                _ => Binding::Local,
            };
            symbols.push(Symbol {
                name: name.to_string(),
                address: sym.address(),
                size: sym.size(),
                binding,
            });
        }
        Ok(Program {
            path: None,
            class,
            entry: file.entry(),
            sha256,
            build_id,
            sections,
            symbols,
            has_symtab,
            functions: OnceCell::new(),
            dwarf: OnceCell::new(),
            data,
        })
    }

    /// The path given to [`Program::open`] (`None` after [`Program::parse`]).
    pub fn path(&self) -> Option<&Path> {
        self.path.as_deref()
    }

    /// ELF class: RV32 or RV64.
    pub fn class(&self) -> Class {
        self.class
    }

    /// Entry point (`e_entry`).
    pub fn entry(&self) -> u64 {
        self.entry
    }

    /// SHA-256 of the whole file.
    pub fn sha256(&self) -> [u8; 32] {
        self.sha256
    }

    /// SHA-256 of the whole file as 64 lowercase hex digits.
    pub fn sha256_hex(&self) -> String {
        hex(&self.sha256)
    }

    /// GNU build-id (`NT_GNU_BUILD_ID` note), if present.
    pub fn build_id(&self) -> Option<&[u8]> {
        self.build_id.as_deref()
    }

    /// GNU build-id as lowercase hex, if present.
    pub fn build_id_hex(&self) -> Option<String> {
        self.build_id.as_deref().map(hex)
    }

    /// Allocated, non-empty sections sorted by address.
    pub fn sections(&self) -> &[Section] {
        &self.sections
    }

    /// `[start, end)` of every executable section, sorted.
    pub fn executable_ranges(&self) -> Vec<(u64, u64)> {
        self.sections
            .iter()
            .filter(|s| s.executable)
            .map(|s| (s.address, s.address.saturating_add(s.size)))
            .collect()
    }

    /// The code symbols the function table is built from.
    pub fn symbols(&self) -> &[Symbol] {
        &self.symbols
    }

    /// The address of the symbol `name` of any kind (a function, a label,
    /// an object; the first definition in the symbol table), as GDB's
    /// `info address` finds it; `None` if there is none. Re-reads the
    /// symbol table (cost: its size).
    pub fn symbol_address(&self, name: &str) -> Option<u64> {
        let file = object::File::parse(&*self.data).ok()?;
        file.symbols()
            .find(|s| s.is_definition() && s.name() == Ok(name))
            .map(|s| s.address())
    }

    /// The raw file bytes.
    pub fn data(&self) -> &[u8] {
        &self.data
    }

    /// `len` bytes of file-backed section contents at virtual address
    /// `addr`, or `None` if they are not all inside one section's file data.
    pub fn bytes_at(&self, addr: u64, len: usize) -> Option<&[u8]> {
        let s = self
            .sections
            .iter()
            .find(|s| s.address <= addr && addr < s.address.saturating_add(s.size))?;
        let (off, size) = s.file_range?;
        let rel = addr - s.address;
        if rel.checked_add(len as u64)? > size {
            return None;
        }
        let start = usize::try_from(off.checked_add(rel)?).ok()?;
        self.data.get(start..start.checked_add(len)?)
    }

    /// The function table, built on first call (see [`FunctionTable::build`]).
    /// Clone it to append on-demand unknown ranges.
    pub fn functions(&self) -> &FunctionTable {
        self.functions
            .get_or_init(|| FunctionTable::build(&self.symbols, &self.executable_ranges()))
    }

    /// Human-readable warnings about the program, e.g. that it is stripped
    /// and every function will be shown as `[unknown 0x...]`.
    pub fn warnings(&self) -> Vec<String> {
        let mut w = Vec::new();
        if !self.has_symtab {
            w.push(
                "program has no symbol table (stripped): code is shown as [unknown 0x...] ranges"
                    .to_string(),
            );
        } else if self.symbols.is_empty() {
            w.push(
                "program has no function symbols: code is shown as [unknown 0x...] ranges"
                    .to_string(),
            );
        }
        if !self.sections.iter().any(|s| s.executable) {
            w.push("program has no executable section".to_string());
        }
        w
    }

    pub(crate) fn dwarf(&self) -> Result<Option<&Dwarf>, Error> {
        let cached = self.dwarf.get_or_init(|| Dwarf::load(&self.data));
        match cached {
            Ok(d) => Ok(d.as_ref()),
            Err((section, e)) => Err(Error::CorruptDebugSection {
                section,
                source: *e,
            }),
        }
    }

    /// True if the program has DWARF line information (`.debug_info`)
    /// that reads without error; see [`Program::debug_info`] to tell a
    /// corrupt section from a missing one.
    pub fn has_debug_info(&self) -> bool {
        matches!(self.dwarf(), Ok(Some(_)))
    }

    /// Whether the program has DWARF line information: `Ok(false)` when
    /// it has no `.debug_info`.
    ///
    /// The first call reads the whole of the debug sections (cost: linear
    /// in their size); the result is cached.
    ///
    /// Errors: [`Error::CorruptDebugSection`] naming the section
    /// (`.debug_info`, `.debug_abbrev` or `.debug_line`) that does not parse.
    pub fn debug_info(&self) -> Result<bool, Error> {
        self.dwarf().map(|d| d.is_some())
    }
}

/// RISC-V mapping symbols (`$x`, `$x.rv64i2p1...`, `$d`) and assembler
/// local labels (`.L...`) are not functions.
fn is_mapping_or_label(name: &str) -> bool {
    name.starts_with("$x") || name.starts_with("$d") || name.starts_with(".L")
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

#[cfg(test)]
mod tests {
    use super::is_mapping_or_label;

    #[test]
    fn mapping_symbols_and_local_labels_are_not_functions() {
        for name in ["$x", "$xrv64i2p1_m2p0", "$d", "$d.1", ".L3", ".Lfunc_end0"] {
            assert!(is_mapping_or_label(name), "{name}");
        }
        for name in ["main", "x$", "_start", "L1", "$ra"] {
            assert!(!is_mapping_or_label(name), "{name}");
        }
    }
}
