//! Source locations through DWARF (`addr2line`).

use std::borrow::Cow;
use std::sync::Arc;

use gimli::{EndianArcSlice, RunTimeEndian};
use object::{Object, ObjectSection};

use crate::error::Error;
use crate::program::Program;

type Reader = EndianArcSlice<RunTimeEndian>;

/// The parsed DWARF of a program, owning its section data.
pub(crate) struct Dwarf {
    ctx: addr2line::Context<Reader>,
}

/// A DWARF defect and the section it is in.
pub(crate) type Corrupt = (&'static str, gimli::Error);

impl Dwarf {
    /// Loads the DWARF sections and reads them through once; `Ok(None)` if
    /// there is no `.debug_info`.
    ///
    /// Errors: the section whose bytes do not parse (`.debug_info`,
    /// `.debug_abbrev`, `.debug_line`) and gimli's reason; found here,
    /// once, rather than as missing lines later.
    pub(crate) fn load(data: &[u8]) -> Result<Option<Dwarf>, Corrupt> {
        let Ok(file) = object::File::parse(data) else {
            return Ok(None);
        };
        if file.section_by_name(".debug_info").is_none() {
            return Ok(None);
        }
        let endian = if file.is_little_endian() {
            RunTimeEndian::Little
        } else {
            RunTimeEndian::Big
        };
        let load = |id: gimli::SectionId| -> Result<Reader, gimli::Error> {
            let bytes: Cow<[u8]> = file
                .section_by_name(id.name())
                .and_then(|s| s.uncompressed_data().ok())
                .unwrap_or(Cow::Borrowed(&[]));
            Ok(EndianArcSlice::new(Arc::from(&*bytes), endian))
        };
        let dwarf = gimli::Dwarf::load(load).map_err(|e| (".debug_info", e))?;
        validate(&dwarf)?;
        let ctx = addr2line::Context::from_dwarf(dwarf).map_err(|e| (".debug_info", e))?;
        Ok(Some(Dwarf { ctx }))
    }
}

/// Read every compilation unit's abbreviations, entries and line program
/// once (cost: linear in the size of the debug sections), naming the
/// section of the first defect: lookups later must not turn a corrupt
/// section into silently missing source lines.
fn validate(d: &gimli::Dwarf<Reader>) -> Result<(), Corrupt> {
    let info = |e| (".debug_info", e);
    let mut units = d.units();
    while let Some(header) = units.next().map_err(info)? {
        let abbrevs = d.abbreviations(&header).map_err(|e| (".debug_abbrev", e))?;
        let mut entries = header.entries(&abbrevs);
        let Some((_, root)) = entries.next_dfs().map_err(info)? else {
            continue;
        };
        let stmt_list = root.attr_value(gimli::DW_AT_stmt_list).map_err(info)?;
        while entries.next_dfs().map_err(info)?.is_some() {}
        if let Some(gimli::AttributeValue::DebugLineRef(offset)) = stmt_list {
            let line = |e| (".debug_line", e);
            let program = d
                .debug_line
                .program(offset, header.address_size(), None, None)
                .map_err(line)?;
            let mut rows = program.rows();
            while rows.next_row().map_err(line)?.is_some() {}
        }
    }
    Ok(())
}

/// A function inlined at an address, and where it was inlined.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct InlinedFrame {
    /// Name of the inlined function (demangled).
    pub function: String,
    /// File of the call that was inlined (in the caller).
    pub call_file: Option<String>,
    /// Line of the call that was inlined.
    pub call_line: Option<u32>,
}

/// The source location of an instruction address.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Location {
    /// Source file of the innermost frame, as DWARF names it (joined with
    /// the compilation directory when DWARF gives a relative path).
    pub file: Option<String>,
    /// Line of the innermost frame (1-based).
    pub line: Option<u32>,
    /// Name of the innermost function (the inlined one if the address is
    /// in inlined code).
    pub function: Option<String>,
    /// Inlined frames, innermost first: each names an inlined function and
    /// the call site in the function it was inlined into. Empty if the
    /// address is not in inlined code.
    pub inlined: Vec<InlinedFrame>,
    /// Name of the outermost (physical) function, if DWARF names it.
    pub outer_function: Option<String>,
}

impl Program {
    /// The source location of `addr`, with inlined frames.
    ///
    /// Returns `Ok(None)` if the program has no DWARF or DWARF does not
    /// cover `addr`. The DWARF is parsed on the first call (cost: the size of
    /// the debug sections) and each compilation unit's line table when first
    /// needed. Errors: [`Error::CorruptDebugSection`] when the debug
    /// sections do not parse, [`Error::Dwarf`] for other malformed debug
    /// information.
    pub fn lines(&self, addr: u64) -> Result<Option<Location>, Error> {
        let Some(dwarf) = self.dwarf()? else {
            return Ok(None);
        };
        let mut frames = dwarf.ctx.find_frames(addr).skip_all_loads()?;
        let mut raw = Vec::new();
        while let Some(frame) = frames.next()? {
            let name = match &frame.function {
                Some(f) => Some(f.demangle()?.into_owned()),
                None => None,
            };
            let (file, line) = match &frame.location {
                Some(l) => (l.file.map(str::to_string), l.line),
                None => (None, None),
            };
            raw.push((name, file, line));
        }
        if raw.is_empty() {
            // No function DIE covers addr; fall back to the bare line table.
            return Ok(dwarf.ctx.find_location(addr)?.map(|l| Location {
                file: l.file.map(str::to_string),
                line: l.line,
                function: None,
                inlined: Vec::new(),
                outer_function: None,
            }));
        }
        let inlined = raw
            .windows(2)
            .map(|w| InlinedFrame {
                function: w[0].0.clone().unwrap_or_else(|| "??".to_string()),
                call_file: w[1].1.clone(),
                call_line: w[1].2,
            })
            .collect();
        let outer_function = raw.last().and_then(|f| f.0.clone());
        let (function, file, line) = raw.swap_remove(0);
        if file.is_none() && line.is_none() && function.is_none() {
            return Ok(None);
        }
        Ok(Some(Location {
            file,
            line,
            function,
            inlined,
            outer_function,
        }))
    }
}

impl Program {
    /// The addresses of the code of source line `line` of the file whose
    /// path is `file` or ends with `/file` (as GDB matches `break
    /// FILE:LINE`), lowest first: the start of every address range the
    /// line table gives that line in the executable sections.
    ///
    /// Returns an empty list when no code belongs to that line (or the
    /// program has no DWARF). Errors: as [`Program::lines`].
    pub fn line_addresses(&self, file: &str, line: u32) -> Result<Vec<u64>, Error> {
        let Some(dwarf) = self.dwarf()? else {
            return Ok(Vec::new());
        };
        let matches = |path: &str| {
            path == file
                || path
                    .strip_suffix(file)
                    .is_some_and(|head| head.ends_with('/'))
        };
        let mut out = Vec::new();
        for (lo, hi) in self.executable_ranges() {
            let ranges = dwarf.ctx.find_location_range(lo, hi)?;
            for (addr, _len, loc) in ranges {
                if loc.line == Some(line) && loc.file.is_some_and(matches) {
                    out.push(addr);
                }
            }
        }
        out.sort_unstable();
        out.dedup();
        Ok(out)
    }
}
