//! Errors of reading a program.

use std::io;
use std::path::PathBuf;

/// Why a program or its debug information could not be read.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// The file could not be read.
    #[error("cannot read {path}: {source}")]
    Io {
        /// The path given to [`crate::Program::open`].
        path: PathBuf,
        /// The operating-system error.
        source: io::Error,
    },
    /// The bytes are not an object file `object` can parse.
    #[error("not a valid ELF file: {0}")]
    NotElf(object::Error),
    /// An object file, but not an ELF (e.g. PE or Mach-O).
    #[error("not an ELF file (found {0})")]
    NotElfFormat(String),
    /// An ELF for another architecture than RISC-V.
    #[error("not a RISC-V ELF (architecture {0})")]
    NotRiscv(String),
    /// The DWARF debug information is malformed (found while looking up
    /// an address).
    #[error("bad DWARF debug information: {0}")]
    Dwarf(#[from] gimli::Error),
    /// A debug section does not parse (found when the DWARF is first read).
    #[error("corrupt {section} section: {source}")]
    CorruptDebugSection {
        /// `.debug_info`, `.debug_abbrev` or `.debug_line`.
        section: &'static str,
        /// gimli's reason.
        source: gimli::Error,
    },
}
