//! Source and assembly annotation, in the manner of
//! `opannotate --source --assembly`.
//!
//! Counts are of one event (`AnnotateOptions::event`, `instructions` by
//! default). With `cycles`, on a profile that records stall events, the
//! cycles are broken down by cause: each `stall_*` event with a nonzero
//! self cost in the function gets a column after the `%` column, headed by
//! its name without `stall_` (`load_use`, `branch`, `icache`, `dcache`,
//! `muldiv`, `wait_state`), 10 characters wide, zero left blank, and the
//! function's header gains a `stall cycles:` line with each cause's total
//! and share of the function's self cycles:
//!
//! ```text
//! Function memcopy [0x1020, 0x1030)
//!   self 551 cycles (51.02%), inclusive 551 cycles (51.02%), calls 1
//!   stall cycles: load_use 50 (9.07%), dcache 400 (72.60%)
//!     cycles        %   load_use     dcache :
//!        450  41.6667                   400 :           1020:  00053583  ld a1,0(a0)
//!        100   9.2593         50            :           1024:  00b63023  sd a1,0(a2)
//!          1   0.0926                       :           1028:  8082      ret
//! ```
//!
//! A source line shows the sums over its instructions in every column.
//! Stall cycles are part of `cycles` (the timing model charges the issue
//! cost plus all stalls), so they explain where a line's cycles went.
//! Other events (including `instructions`, the default) show no stall
//! columns.

use std::collections::{BTreeMap, HashMap};
use std::io::{self, Write};

use fwprof_isa::{decode, disasm, inst_len, Style, Xlen};
use fwprof_profile::{FunctionRecord, Profile};
use fwprof_symbols::{Location, Program, SourceResolver};

use crate::events::STALL_EVENTS;
use crate::options::AnnotateOptions;
use crate::{cost, percent, unit};

/// Longest run of instructions walked in one function from the ELF.
const MAX_WALK: usize = 1 << 20;

/// One instruction of the annotated function.
struct Row {
    addr: u64,
    len: u8,
    raw: u32,
    count: u64,
    /// Costs of the stall columns, in column order.
    stalls: Vec<u64>,
}

/// The key that groups consecutive instructions under one source line.
#[derive(Clone, Debug, PartialEq, Eq)]
struct LineKey {
    file: Option<String>,
    line: Option<u32>,
    inlined: Option<String>,
}

/// Writes annotated functions: for each, a header with its costs, then its
/// instructions in address order, grouped under the source line they come
/// from (`count  percent : line  source text`), each instruction as
/// `count  percent : address:  raw  disassembly` (pseudo-instructions,
/// ABI register names). Percentages are of the profile's total for the
/// event; zero counts are left blank. Code inlined from another function
/// is labelled `[inlined: f, called at file:line]`. For `cycles`, stall
/// causes get columns of their own (see the module documentation).
///
/// `program` supplies source lines (DWARF) and the bytes of instructions
/// that never executed; without it, or without DWARF or the source file
/// (looked up with `resolver`), only disassembly of executed instructions
/// is shown, from the raw bits kept in the profile.
///
/// `opts.function` selects functions by name; otherwise every function
/// with a nonzero self cost is annotated, hottest first, up to `opts.top`.
///
/// Errors: those of `w`, and [`io::ErrorKind::NotFound`] if
/// `opts.function` names no function of the profile.
pub fn write_annotate(
    profile: &Profile,
    program: Option<&Program>,
    resolver: &SourceResolver,
    opts: &AnnotateOptions,
    mut w: impl Write,
) -> io::Result<()> {
    let e = opts.event;
    let selected: Vec<usize> = match &opts.function {
        Some(name) => {
            let found: Vec<usize> = (0..profile.functions.len())
                .filter(|&i| profile.functions[i].name == *name)
                .collect();
            if found.is_empty() {
                return Err(io::Error::new(
                    io::ErrorKind::NotFound,
                    format!("no function named `{name}` in the profile"),
                ));
            }
            found
        }
        None => {
            let mut hot: Vec<usize> = (0..profile.functions.len())
                .filter(|&i| cost(&profile.functions[i].self_cost, e) > 0)
                .collect();
            hot.sort_by(|&a, &b| {
                let (fa, fb) = (&profile.functions[a], &profile.functions[b]);
                cost(&fb.self_cost, e)
                    .cmp(&cost(&fa.self_cost, e))
                    .then(fa.name.cmp(&fb.name))
                    .then(a.cmp(&b))
            });
            hot.truncate(opts.top.unwrap_or(usize::MAX));
            hot
        }
    };
    let mut sources = SourceCache {
        resolver,
        files: HashMap::new(),
    };
    for (k, &i) in selected.iter().enumerate() {
        if k > 0 {
            writeln!(w)?;
        }
        write_function(profile, program, &mut sources, opts, i, &mut w)?;
    }
    Ok(())
}

struct SourceCache<'r> {
    resolver: &'r SourceResolver,
    files: HashMap<String, Option<Vec<String>>>,
}

impl SourceCache<'_> {
    /// Line `line` (1-based) of the file DWARF calls `path`, if found.
    fn line(&mut self, path: &str, line: u32) -> Option<&str> {
        let resolver = self.resolver;
        let lines = self.files.entry(path.to_string()).or_insert_with(|| {
            let found = resolver.resolve(path)?;
            let bytes = std::fs::read(found).ok()?;
            Some(
                String::from_utf8_lossy(&bytes)
                    .lines()
                    .map(str::to_string)
                    .collect(),
            )
        });
        lines
            .as_ref()?
            .get((line as usize).checked_sub(1)?)
            .map(String::as_str)
    }

    /// True when the file DWARF calls `path` can be read.
    fn found(&mut self, path: &str) -> bool {
        self.line(path, 1).is_some() || matches!(self.files.get(path), Some(Some(_)))
    }
}

/// One instruction of a function, for annotation.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct InstRow<'a> {
    /// Address.
    pub addr: u64,
    /// Length in bytes (2 or 4).
    pub len: u8,
    /// Instruction bits (the low 16 for a compressed one).
    pub raw: u32,
    /// Its cost vector (one value per event) if it executed; `None` for an
    /// instruction read from the ELF that never ran.
    pub cost: Option<&'a [u64]>,
}

/// The instructions of `f` in address order: the executed ones from the
/// profile, and with `program` also the never-executed ones between them,
/// read from the ELF by walking from `f.start` by instruction length; at
/// most `limit` rows (the walk stops there).
pub fn function_instructions<'a>(
    profile: &'a Profile,
    program: Option<&Program>,
    f: &FunctionRecord,
    limit: usize,
) -> Vec<InstRow<'a>> {
    // Another function may have code at the same addresses in another
    // address space: keep `f`'s own.
    let id = profile
        .functions
        .iter()
        .position(|g| std::ptr::eq(g, f))
        .or_else(|| profile.functions.iter().position(|g| g == f));
    let mut rows: BTreeMap<u64, InstRow<'a>> = profile
        .costs
        .range(f.start, f.end)
        .filter(|c| id.is_none_or(|i| c.function.index() == i))
        .map(|c| {
            let row = InstRow {
                addr: c.addr,
                len: c.len,
                raw: c.raw,
                cost: Some(c.cost),
            };
            (c.addr, row)
        })
        .collect();
    // The ELF's bytes are `f`'s only if the ELF defines `f` there, or `f`
    // is code outside its symbols in the physical address space (not a
    // function of a `--symbols` file or of a translated address space).
    let defines = |p: &Program| {
        let t = p.functions();
        let own = t
            .lookup(f.start)
            .and_then(|i| t.try_get(i))
            .is_some_and(|g| g.start == f.start && g.name == f.name);
        own || (f.name.starts_with("[unknown ") && !f.name.contains(" in space "))
    };
    if let Some(program) = program.filter(|p| defines(p)) {
        let mut addr = f.start;
        while addr < f.end && rows.len() < limit {
            if let Some(r) = rows.get(&addr) {
                addr = addr.saturating_add(u64::from(r.len));
                continue;
            }
            let Some(half) = program.bytes_at(addr, 2) else {
                break;
            };
            let low = u16::from_le_bytes([half[0], half[1]]);
            let len = inst_len(low);
            let raw = match program.bytes_at(addr, len as usize) {
                Some(b) if len == 4 => u32::from_le_bytes([b[0], b[1], b[2], b[3]]),
                Some(_) => u32::from(low),
                None => break,
            };
            let row = InstRow {
                addr,
                len,
                raw,
                cost: None,
            };
            rows.insert(addr, row);
            addr = addr.saturating_add(u64::from(len));
        }
    }
    rows.into_values().take(limit).collect()
}

/// The instructions of `f` with their cost of event `e` and of the events
/// `stalls` (zero for those that never ran).
fn rows_of(
    profile: &Profile,
    program: Option<&Program>,
    f: &FunctionRecord,
    e: usize,
    stalls: &[usize],
) -> Vec<Row> {
    function_instructions(profile, program, f, MAX_WALK)
        .into_iter()
        .map(|r| {
            let c = r.cost.unwrap_or(&[]);
            Row {
                addr: r.addr,
                len: r.len,
                raw: r.raw,
                count: cost(c, e),
                stalls: stalls.iter().map(|&s| cost(c, s)).collect(),
            }
        })
        .collect()
}

/// The inlining chain of a source location, innermost first, as annotate
/// labels it: `f, called at file.c:12; g, called at file.c:40`; `None`
/// when the code is not inlined.
pub fn inlined_label(loc: &Location) -> Option<String> {
    (!loc.inlined.is_empty()).then(|| {
        loc.inlined
            .iter()
            .map(|f| {
                let file = f.call_file.as_deref().map_or("??", base_name);
                let line = f.call_line.map_or("?".to_string(), |l| l.to_string());
                format!("{}, called at {file}:{line}", f.function)
            })
            .collect::<Vec<_>>()
            .join("; ")
    })
}

fn key_of(loc: Option<&Location>) -> LineKey {
    let Some(loc) = loc else {
        return LineKey {
            file: None,
            line: None,
            inlined: None,
        };
    };
    LineKey {
        file: loc.file.clone(),
        line: loc.line,
        inlined: inlined_label(loc),
    }
}

fn base_name(path: &str) -> &str {
    path.rsplit('/').next().unwrap_or(path)
}

fn write_function(
    profile: &Profile,
    program: Option<&Program>,
    sources: &mut SourceCache<'_>,
    opts: &AnnotateOptions,
    i: usize,
    w: &mut impl Write,
) -> io::Result<()> {
    let e = opts.event;
    let event = profile.events.get(e).map_or("instructions", String::as_str);
    let total = cost(&profile.totals, e);
    let f = &profile.functions[i];
    let xlen = if profile.meta.xlen == 32 {
        Xlen::Rv32
    } else {
        Xlen::Rv64
    };
    let (s, incl) = (cost(&f.self_cost, e), cost(&f.inclusive, e));
    writeln!(w, "Function {} [{:#x}, {:#x})", f.name, f.start, f.end)?;
    writeln!(
        w,
        "  self {s} {u} ({:.2}%), inclusive {incl} {u} ({:.2}%), calls {}",
        percent(s, total),
        percent(incl, total),
        f.calls,
        u = unit(event)
    )?;
    // Stall causes of this function, when the event is cycles.
    let stalls: Vec<usize> = if event == fwprof_profile::events::CYCLES {
        STALL_EVENTS
            .iter()
            .filter_map(|name| profile.event_index(name))
            .filter(|&i| cost(&f.self_cost, i) != 0)
            .collect()
    } else {
        Vec::new()
    };
    let short = |i: usize| {
        let name = profile.events[i].as_str();
        name.strip_prefix("stall_").unwrap_or(name)
    };
    if !stalls.is_empty() {
        let causes: Vec<String> = stalls
            .iter()
            .map(|&i| {
                let c = cost(&f.self_cost, i);
                format!("{} {c} ({:.2}%)", short(i), percent(c, s))
            })
            .collect();
        writeln!(w, "  stall cycles: {}", causes.join(", "))?;
    }
    if let (Some(file), Some(line)) = (&f.file, f.line) {
        writeln!(w, "  defined at {file}:{line}")?;
    }
    write!(w, "{:>10} {:>8}", event, "%")?;
    for &i in &stalls {
        write!(w, " {:>10}", short(i))?;
    }
    writeln!(w, " :")?;

    let rows = rows_of(profile, program, f, e, &stalls);
    let keys: Vec<LineKey> = rows
        .iter()
        .map(|r| {
            let loc = if opts.no_source {
                None
            } else {
                program.and_then(|p| p.lines(r.addr).ok().flatten())
            };
            key_of(loc.as_ref())
        })
        .collect();
    let mut current_file: Option<&str> = None;
    let mut k = 0;
    while k < rows.len() {
        let mut end = k + 1;
        while end < rows.len() && keys[end] == keys[k] {
            end += 1;
        }
        let key = &keys[k];
        if let (Some(file), Some(line)) = (&key.file, key.line) {
            if current_file != Some(file.as_str()) {
                write!(w, "{:>10} {:>8}", "", "")?;
                write_stalls(w, &vec![0; stalls.len()])?;
                if sources.found(file) {
                    writeln!(w, " : file {file}")?;
                } else {
                    // Said once per file, where its lines would start.
                    let hint = if sources.resolver.dirs().is_empty() {
                        "--source-dir DIR tells fwprof where the sources are"
                    } else {
                        "not under any --source-dir either"
                    };
                    writeln!(w, " : file {file} (source not found: {hint})")?;
                }
                current_file = Some(file.as_str());
            }
            let count: u64 = rows[k..end]
                .iter()
                .map(|r| r.count)
                .fold(0, u64::saturating_add);
            let line_stalls: Vec<u64> = (0..stalls.len())
                .map(|j| {
                    rows[k..end]
                        .iter()
                        .map(|r| r.stalls[j])
                        .fold(0, u64::saturating_add)
                })
                .collect();
            let text = sources
                .line(file, line)
                .unwrap_or("<source not found>")
                .to_string();
            write_counts(w, count, total)?;
            write_stalls(w, &line_stalls)?;
            write!(w, " : {line:>6}  {text}")?;
            if let Some(inl) = &key.inlined {
                write!(w, "  [inlined: {inl}]")?;
            }
            writeln!(w)?;
        }
        for r in &rows[k..end] {
            write_counts(w, r.count, total)?;
            write_stalls(w, &r.stalls)?;
            let inst = decode(r.raw, xlen);
            let mut text = disasm(&inst, r.addr, xlen, Style::Pseudo);
            // Name the target of direct jumps and branches, as objdump does.
            if let Some(target) = direct_target(&inst, r.addr) {
                if let Some(f) = profile.function_at(target) {
                    let f = &profile.functions[f.index()];
                    if target == f.start {
                        text.push_str(&format!(" <{}>", f.name));
                    } else {
                        text.push_str(&format!(" <{}+{:#x}>", f.name, target - f.start));
                    }
                }
            }
            let raw = if r.len == 2 {
                format!("{:04x}    ", r.raw & 0xffff)
            } else {
                format!("{:08x}", r.raw)
            };
            writeln!(w, " : {:>14x}:  {raw}  {text}", r.addr)?;
        }
        k = end;
    }
    Ok(())
}

/// Target address of a `jal` or conditional branch at `pc` (PC-relative immediate).
/// Not wrapped to 32 bits (`fwprof_isa::Inst::direct_target` with RV64).
pub fn direct_target(inst: &fwprof_isa::Inst, pc: u64) -> Option<u64> {
    inst.direct_target(pc, fwprof_isa::Xlen::Rv64)
}

fn write_counts(w: &mut impl Write, count: u64, total: u64) -> io::Result<()> {
    if count == 0 {
        write!(w, "{:>10} {:>8}", "", "")
    } else {
        write!(w, "{count:>10} {:>8.4}", percent(count, total))
    }
}

/// The stall columns: each value 10 wide after a space, zero left blank.
fn write_stalls(w: &mut impl Write, stalls: &[u64]) -> io::Result<()> {
    for &c in stalls {
        if c == 0 {
            write!(w, " {:>10}", "")?;
        } else {
            write!(w, " {c:>10}")?;
        }
    }
    Ok(())
}
