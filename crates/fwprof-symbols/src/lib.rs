//! Symbols and source lines of a RISC-V ELF program for fwprof.
//!
//! [`Program::open`] reads an ELF once (class, SHA-256, GNU build-id,
//! sections); everything else is parsed lazily on first use and cached:
//! [`Program::functions`] builds a [`FunctionTable`] that partitions every
//! executable section into functions and `[unknown 0x...]` ranges, and
//! [`Program::lines`] maps an address to its source [`Location`] (with
//! inlined frames) through DWARF. A [`SourceResolver`] finds the source
//! files that DWARF names, on disk or under `--source-dir` directories.
//! [`find_program`] is the one rule by which every reader finds the ELF a
//! profile was recorded from (recorded path, then `--program`, SHA-256
//! checked, `--force`).
//!
//! ```no_run
//! use fwprof_symbols::{Program, SourceResolver};
//!
//! let program = Program::open("prog.elf")?;
//! let table = program.functions();
//! for w in program.warnings() {
//!     eprintln!("warning: {w}");
//! }
//! if let Some(id) = table.lookup(program.entry()) {
//!     let f = table.get(id);
//!     println!("entry is in {} [{:#x}, {:#x})", f.name, f.start, f.end);
//! }
//! if let Some(loc) = program.lines(program.entry())? {
//!     let resolver = SourceResolver::new(vec!["src".into()]);
//!     if let Some(file) = loc.file.as_deref() {
//!         println!("{:?} line {:?}", resolver.resolve(file), loc.line);
//!     }
//! }
//! # Ok::<(), fwprof_symbols::Error>(())
//! ```
#![deny(missing_docs)]

mod error;
mod find;
mod functions;
mod lines;
mod program;
mod source;

pub use error::Error;
pub use find::{find_program, FoundProgram, ProgramError};
pub use functions::{Binding, Function, FunctionId, FunctionTable, Symbol};
pub use lines::{InlinedFrame, Location};
pub use program::{Class, Program, Section};
pub use source::SourceResolver;
