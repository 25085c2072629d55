//! `fwprof html`: one self-contained HTML page to explore a profile in a
//! browser (see `docs/html-report.md`).
//!
//! The page is a single file with no network access (a
//! `Content-Security-Policy` of `default-src 'none'` enforces it): its
//! stylesheet and script are inlined from `assets/html/`, and the profile is
//! embedded as one JSON document in a `<script type="application/json"
//! id="fwprof-data">` element that the page's own script renders. The JSON
//! is escaped so that nothing in it can end the element or be read as
//! markup: `<`, `>`, `&`, U+2028 and U+2029 are written as `\uXXXX`
//! escapes and `/` as `\/` (so the file never holds a `</script` or an
//! `http://` outside the page's own code). The script only ever inserts
//! names and source text with `textContent`.
//!
//! The page shows the summary (program, environment, totals of every
//! event, traps), the flat profile (self and inclusive cost of every event
//! per function, sortable and searchable, drawn lazily so 10,000 functions
//! stay responsive), each function's callers and callees from
//! [`Profile::arcs`], a flame graph of [`Profile::contexts`] drawn on a
//! canvas, and source and disassembly annotated per line and per
//! instruction for every function with a cost.
//!
//! The annotation is built here, at export time, the way
//! `fwprof annotate` builds it ([`fwprof_report::write_annotate`]):
//! executed instructions come from [`Profile::costs`] (address, raw bits,
//! cost of every event), the ones that never executed from the ELF, each
//! decoded with [`fwprof_isa::decode`] and printed with
//! [`fwprof_isa::disasm`] (pseudo-instructions, direct jump and branch
//! targets named `<function+offset>`); consecutive instructions from the
//! same source line (and inlining chain) form a group headed by that line
//! of the source file, found with [`SourceResolver`]. The ELF is
//! [`ExportOptions::program`], or the recorded `meta.program` if its
//! SHA-256 still equals `meta.sha256`; without one, only the executed
//! instructions are shown, from the bits the profile keeps.
//!
//! # JSON embedded in the page (`schema: "fwprof-html/1"`)
//!
//! Costs are arrays with one integer per event, in the order of `events`;
//! addresses and raw bits are lowercase hex strings without `0x` (RV64
//! addresses do not fit a JavaScript number). Function ids are indexes
//! into `functions`; `-1` means none.
//!
//! | key | value |
//! |-----|-------|
//! | `meta` | the profile's [`Meta`](fwprof_profile::Meta) fields, plus `annotation_program` (the ELF read, or null) and `annotation_note` (why there is none, or a limitation) |
//! | `events`, `event`, `totals` | event names, the index shown first, the total of each event |
//! | `derived` | `[{name, header, num, den, rate}]`: ratios ([`Derived`]) whose two input events (indexes `num`, `den`) the profile records |
//! | `functions` | `[name, start, end, calls, file, line, self, inclusive]` |
//! | `arcs` | `[caller, callee, call_site, calls, tail, inclusive]` |
//! | `contexts` | `[parent, function, calls, self]`, parents before children |
//! | `traps` | `[cause, name, pc, function, count]` (`cause` in hex) |
//! | `files` | `[{path, found, lines: {"N": text}}]`: the source lines the annotations need |
//! | `annotations` | per function id, null (no cost) or `{src, groups, truncated}`: `src` = `[file, first, last]`, the function's own source lines; `groups` = `[file, line, inlined, insts]` with `insts` = `[address, raw, disassembly, target function, cost]` (`cost` 0 if the instruction never ran) |

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::io::Write;

use fwprof_isa::{decode, disasm, Style, Xlen};
use fwprof_profile::{FunctionRecord, Profile};
use fwprof_report::{
    direct_target, function_instructions, inlined_label, trap_cause_name, Derived,
};
use fwprof_symbols::{Program, SourceResolver};
use serde::Serialize;

use crate::{Error, ExportOptions};

/// The page's stylesheet.
const CSS: &str = include_str!("../assets/html/report.css");
/// The page's script (renders the embedded JSON).
const JS: &str = include_str!("../assets/html/report.js");

/// Value of the embedded JSON's `schema` field.
pub const SCHEMA: &str = "fwprof-html/1";

/// Most instructions annotated per function (larger functions are cut,
/// and the page says so).
const MAX_ROWS: usize = 20_000;

/// Widest run of a function's own source lines shown in full; a function
/// whose lines spread further shows only the lines that have code.
const MAX_SOURCE_SPAN: u32 = 2_000;

/// The ELF the annotation reads code and line numbers from, and a note for
/// the reader when there is none or it lacks debug information.
pub struct ProgramChoice {
    /// The program, if it could be opened and matches the profile.
    pub program: Option<Program>,
    /// Why the annotation is limited (one sentence), if it is.
    pub note: Option<String>,
}

/// Opens the program to annotate by the rule every reader follows
/// ([`fwprof_report::find_program`]): the recorded path if its SHA-256 is
/// unchanged, else [`ExportOptions::program`]. A missing or changed file
/// gives no program and a note saying so; a program without DWARF gives a
/// note too.
///
/// # Errors
/// [`Error::Mismatch`] for a `--program` whose SHA-256 differs from the
/// recorded one (unless [`ExportOptions::force`]) or that cannot be read.
pub fn open_program(profile: &Profile, opts: &ExportOptions) -> Result<ProgramChoice, Error> {
    let found = crate::find_program(profile, opts)?;
    let note = match (&found.program, &found.path) {
        (Some(p), Some(path)) => match p.debug_info() {
            Ok(true) => found.note,
            Ok(false) => Some(format!(
                "{} has no DWARF line information: the annotation shows disassembly only",
                path.display()
            )),
            Err(e) => Some(format!(
                "{}: {e}: the annotation shows disassembly only",
                path.display()
            )),
        },
        _ => found.note,
    };
    Ok(ProgramChoice {
        program: found.program,
        note,
    })
}

/// Writes the HTML report of `profile` to `out`, opening the program with
/// [`open_program`]. `opts.event` is the event the page shows first;
/// `opts.source_dirs` are searched for source files.
///
/// # Errors
/// [`Error::Io`] if writing fails.
pub fn write(profile: &Profile, opts: &ExportOptions, out: &mut dyn Write) -> Result<(), Error> {
    let choice = open_program(profile, opts)?;
    write_with(profile, &choice, opts, out)
}

/// Like [`write`](fn@write), with the program already chosen (so the caller can
/// report `choice.note` itself).
///
/// # Errors
/// [`Error::Io`] if writing fails.
pub fn write_with(
    profile: &Profile,
    choice: &ProgramChoice,
    opts: &ExportOptions,
    out: &mut dyn Write,
) -> Result<(), Error> {
    let page = build_page(profile, choice, opts);
    let json = serde_json::to_string(&page).map_err(|e| Error::Io(std::io::Error::other(e)))?;
    let title = format!("fwprof: {}", base_name(&profile.meta.program));
    write!(
        out,
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n\
         <meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; \
         script-src 'unsafe-inline'; style-src 'unsafe-inline'; img-src data:\">\n\
         <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n\
         <meta name=\"generator\" content=\"fwprof {}\">\n<title>{}</title>\n<style>\n",
        env!("CARGO_PKG_VERSION"),
        escape_html(&title)
    )?;
    out.write_all(CSS.as_bytes())?;
    out.write_all(
        b"</style>\n</head>\n<body>\n<noscript>This report is drawn by JavaScript; \
          enable it to read the profile.</noscript>\n\
          <script type=\"application/json\" id=\"fwprof-data\">",
    )?;
    out.write_all(escape_json_for_script(&json).as_bytes())?;
    out.write_all(b"</script>\n<script>\n")?;
    out.write_all(JS.as_bytes())?;
    out.write_all(b"</script>\n</body>\n</html>\n")?;
    Ok(())
}

/// `s` with the HTML special characters replaced by character references.
fn escape_html(s: &str) -> String {
    let mut o = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '<' => o.push_str("&lt;"),
            '>' => o.push_str("&gt;"),
            '&' => o.push_str("&amp;"),
            '"' => o.push_str("&quot;"),
            '\'' => o.push_str("&#39;"),
            c => o.push(c),
        }
    }
    o
}

/// JSON text made safe inside a `<script>` element: `<`, `>`, `&`, U+2028
/// and U+2029 become `\uXXXX` escapes and `/` becomes `\/`. JSON has these
/// characters only inside strings, where the escapes mean the same.
fn escape_json_for_script(json: &str) -> String {
    let mut o = String::with_capacity(json.len() + json.len() / 16);
    for c in json.chars() {
        match c {
            '<' => o.push_str("\\u003c"),
            '>' => o.push_str("\\u003e"),
            '&' => o.push_str("\\u0026"),
            '\u{2028}' => o.push_str("\\u2028"),
            '\u{2029}' => o.push_str("\\u2029"),
            '/' => o.push_str("\\/"),
            c => o.push(c),
        }
    }
    o
}

fn base_name(path: &str) -> &str {
    path.rsplit('/').next().unwrap_or(path)
}

/// Lowercase hex without `0x`.
fn hex(v: u64) -> String {
    format!("{v:x}")
}

/// `v` with exactly `n` entries (missing ones 0).
fn costs(v: &[u64], n: usize) -> Vec<u64> {
    (0..n).map(|i| v.get(i).copied().unwrap_or(0)).collect()
}

#[derive(Serialize)]
struct Page<'a> {
    schema: &'static str,
    meta: PageMeta<'a>,
    events: &'a [String],
    event: usize,
    totals: Vec<u64>,
    derived: Vec<DerivedCol>,
    functions: Vec<FuncRow<'a>>,
    arcs: Vec<ArcRow>,
    contexts: Vec<CtxRow>,
    traps: Vec<TrapRow>,
    files: Vec<FileOut>,
    annotations: Vec<Option<Annotation>>,
}

#[derive(Serialize)]
struct PageMeta<'a> {
    program: &'a str,
    sha256: &'a str,
    build_id: Option<&'a str>,
    target: &'static str,
    isa: &'a str,
    xlen: u32,
    core: Option<&'a str>,
    command: &'a [String],
    /// Values only when recorded with `--save-env`; none for bare metal.
    environment: &'a [String],
    /// How many variables the guest saw (names are not shown).
    environment_count: usize,
    fwprof_version: &'a str,
    start_time: u64,
    partial: Option<&'a str>,
    exit_status: Option<i32>,
    warnings: &'a [String],
    format_version: u32,
    annotation_program: Option<String>,
    annotation_note: Option<String>,
    /// How the costs were gathered, if not exactly ([`crate::method_note`]).
    method: Option<String>,
}

#[derive(Serialize)]
struct DerivedCol {
    name: &'static str,
    header: &'static str,
    num: usize,
    den: usize,
    rate: bool,
}

/// `[name, start, end, calls, file, line, self, inclusive]`.
type FuncRow<'a> = (
    &'a str,
    String,
    String,
    u64,
    Option<&'a str>,
    Option<u32>,
    Vec<u64>,
    Vec<u64>,
);
/// `[caller, callee, call_site, calls, tail, inclusive]`.
type ArcRow = (i64, u32, String, u64, bool, Vec<u64>);
/// `[parent, function, calls, self]`.
type CtxRow = (i64, u32, u64, Vec<u64>);
/// `[cause, name, pc, function, count]`.
type TrapRow = (String, Option<&'static str>, String, i64, u64);

#[derive(Serialize)]
struct FileOut {
    path: String,
    found: bool,
    lines: BTreeMap<u32, String>,
}

#[derive(Serialize)]
struct Annotation {
    /// `[file, first line, last line]` of the function's own source.
    src: Option<(usize, u32, u32)>,
    groups: Vec<Group>,
    truncated: bool,
}

/// `[file or -1, line or 0, inlined chain or null, instructions]`.
type Group = (i64, u32, Option<String>, Vec<InstRow>);
/// `[address, raw, disassembly, target function or -1, cost or 0]`.
type InstRow = (String, String, String, i64, CostOut);

#[derive(Serialize)]
#[serde(untagged)]
enum CostOut {
    Zero(u8),
    Costs(Vec<u64>),
}

/// Function lookup by address over a sorted copy of the ranges.
struct Ranges(Vec<(u64, u64, u32)>);

impl Ranges {
    fn new(profile: &Profile) -> Ranges {
        let mut v: Vec<(u64, u64, u32)> = profile
            .functions
            .iter()
            .enumerate()
            .map(|(i, f)| (f.start, f.end, i as u32))
            .collect();
        v.sort_unstable();
        Ranges(v)
    }

    /// The function whose `[start, end)` holds `addr`.
    fn at(&self, addr: u64) -> Option<u32> {
        let k = self.0.partition_point(|r| r.0 <= addr);
        // Ranges do not overlap in a recorded profile; look back a little
        // in case one does.
        self.0[..k]
            .iter()
            .rev()
            .take(4)
            .find(|r| addr < r.1)
            .map(|r| r.2)
    }
}

/// Source files read so far and the lines the page needs from each.
#[derive(Default)]
struct Sources {
    index: HashMap<String, usize>,
    files: Vec<(String, Option<Vec<String>>, BTreeSet<u32>)>,
}

impl Sources {
    fn file(&mut self, resolver: &SourceResolver, path: &str) -> usize {
        if let Some(&i) = self.index.get(path) {
            return i;
        }
        let text = resolver.resolve(path).and_then(|p| {
            let bytes = std::fs::read(p).ok()?;
            Some(
                String::from_utf8_lossy(&bytes)
                    .lines()
                    .map(str::to_string)
                    .collect(),
            )
        });
        self.files.push((path.to_string(), text, BTreeSet::new()));
        self.index.insert(path.to_string(), self.files.len() - 1);
        self.files.len() - 1
    }

    fn want(&mut self, file: usize, line: u32) {
        self.files[file].2.insert(line);
    }

    fn into_out(self) -> Vec<FileOut> {
        self.files
            .into_iter()
            .map(|(path, text, wanted)| {
                let lines = match &text {
                    Some(t) => wanted
                        .into_iter()
                        .filter_map(|l| Some((l, t.get((l as usize).checked_sub(1)?)?.clone())))
                        .collect(),
                    None => BTreeMap::new(),
                };
                FileOut {
                    path,
                    found: text.is_some(),
                    lines,
                }
            })
            .collect()
    }
}

fn build_page<'a>(profile: &'a Profile, choice: &ProgramChoice, opts: &ExportOptions) -> Page<'a> {
    let n = profile.events.len();
    let nf = profile.functions.len();
    let m = &profile.meta;
    let ranges = Ranges::new(profile);
    let functions: Vec<FuncRow<'a>> = profile
        .functions
        .iter()
        .map(|f| {
            (
                f.name.as_str(),
                hex(f.start),
                hex(f.end),
                f.calls,
                f.file.as_deref(),
                f.line,
                costs(&f.self_cost, n),
                costs(&f.inclusive, n),
            )
        })
        .collect();
    let arcs = profile
        .arcs
        .iter()
        .filter(|a| a.callee.index() < nf && a.caller.is_none_or(|c| c.index() < nf))
        .map(|a| {
            (
                a.caller.map_or(-1, |c| i64::from(c.0)),
                a.callee.0,
                hex(a.call_site),
                a.calls,
                a.tail,
                costs(&a.inclusive, n),
            )
        })
        .collect();
    // A tree with a bad parent or function id is left out whole.
    let contexts_ok = profile
        .contexts
        .iter()
        .enumerate()
        .all(|(i, c)| c.function.index() < nf && c.parent.is_none_or(|p| (p as usize) < i));
    let contexts = if contexts_ok {
        profile
            .contexts
            .iter()
            .map(|c| {
                (
                    c.parent.map_or(-1, i64::from),
                    c.function.0,
                    c.calls,
                    costs(&c.self_cost, n),
                )
            })
            .collect()
    } else {
        Vec::new()
    };
    let traps = profile
        .traps
        .iter()
        .map(|t| {
            (
                hex(t.cause),
                trap_cause_name(t.cause, m.xlen),
                hex(t.pc),
                ranges.at(t.pc).map_or(-1, i64::from),
                t.count,
            )
        })
        .collect();
    let derived = Derived::ALL
        .into_iter()
        .filter_map(|d| {
            let (num, den) = d.input_indexes(profile)?;
            Some(DerivedCol {
                name: d.name(),
                header: d.header(),
                num,
                den,
                rate: d.is_rate(),
            })
        })
        .collect();

    let resolver = SourceResolver::new(opts.source_dirs.clone());
    let mut sources = Sources::default();
    let xlen = if m.xlen == 32 { Xlen::Rv32 } else { Xlen::Rv64 };
    let program = choice.program.as_ref();
    let annotations = profile
        .functions
        .iter()
        .map(|f| {
            f.self_cost
                .iter()
                .any(|&c| c != 0)
                .then(|| annotate(profile, program, &resolver, &mut sources, &ranges, xlen, f))
        })
        .collect();
    let mut note = choice.note.clone();
    if !contexts_ok {
        let more = "the calling-context tree is malformed and is left out";
        note = Some(note.map_or(more.to_string(), |n| format!("{n}; {more}")));
    }
    // A bare-metal guest has no environment (old profiles stored the host's).
    let bare = m.target == fwprof_profile::Target::Baremetal;
    Page {
        schema: SCHEMA,
        meta: PageMeta {
            program: &m.program,
            sha256: &m.sha256,
            build_id: m.build_id.as_deref(),
            target: m.target.as_str(),
            isa: &m.isa,
            xlen: m.xlen,
            core: m.core.as_deref(),
            command: &m.command,
            environment: if bare { &[] } else { &m.environment },
            environment_count: if bare {
                0
            } else {
                m.environment_names.len().max(m.environment.len())
            },
            fwprof_version: &m.fwprof_version,
            start_time: m.start_time,
            partial: m.partial.as_deref(),
            exit_status: m.exit_status,
            warnings: &m.warnings,
            format_version: m.format_version,
            annotation_program: program
                .and_then(|p| p.path())
                .map(|p| p.display().to_string()),
            annotation_note: note,
            method: crate::method_note(profile),
        },
        events: &profile.events,
        event: opts.event.min(n.saturating_sub(1)),
        totals: costs(&profile.totals, n),
        derived,
        functions,
        arcs,
        contexts,
        traps,
        files: sources.into_out(),
        annotations,
    }
}

/// The annotation of one function (see the module documentation).
fn annotate(
    profile: &Profile,
    program: Option<&Program>,
    resolver: &SourceResolver,
    sources: &mut Sources,
    ranges: &Ranges,
    xlen: Xlen,
    f: &FunctionRecord,
) -> Annotation {
    let mut rows = function_instructions(profile, program, f, MAX_ROWS + 1);
    let truncated = rows.len() > MAX_ROWS;
    rows.truncate(MAX_ROWS);
    let mut groups: Vec<Group> = Vec::new();
    // Instructions per (file, line) of code not inlined from elsewhere,
    // to choose the function's own file.
    let mut weight: HashMap<usize, usize> = HashMap::new();
    let mut own_lines: Vec<(usize, u32)> = Vec::new();
    for r in rows {
        let loc = program.and_then(|p| p.lines(r.addr).ok().flatten());
        let (file, line, inlined) = match &loc {
            Some(l) => {
                let file = l.file.as_deref().map(|p| sources.file(resolver, p));
                (file, l.line.unwrap_or(0), inlined_label(l))
            }
            None => (None, 0, None),
        };
        if let (Some(fi), true) = (file, line != 0) {
            sources.want(fi, line);
            if inlined.is_none() {
                *weight.entry(fi).or_default() += 1;
                own_lines.push((fi, line));
            }
        }
        let inst = decode(r.raw, xlen);
        let mut text = disasm(&inst, r.addr, xlen, Style::Pseudo);
        let mut target_fn = -1;
        if let Some(target) = direct_target(&inst, r.addr) {
            if let Some(t) = ranges.at(target) {
                let tf = &profile.functions[t as usize];
                if target == tf.start {
                    text.push_str(&format!(" <{}>", tf.name));
                } else {
                    text.push_str(&format!(" <{}+{:#x}>", tf.name, target - tf.start));
                }
                target_fn = i64::from(t);
            }
        }
        let raw = if r.len == 2 {
            format!("{:04x}", r.raw & 0xffff)
        } else {
            format!("{:08x}", r.raw)
        };
        let row = (
            hex(r.addr),
            raw,
            text,
            target_fn,
            r.cost
                .map_or(CostOut::Zero(0), |c| CostOut::Costs(c.to_vec())),
        );
        let file = file.map_or(-1, |i| i as i64);
        match groups.last_mut() {
            Some(g) if g.0 == file && g.1 == line && g.2 == inlined => g.3.push(row),
            _ => groups.push((file, line, inlined, vec![row])),
        }
    }
    // The function's own file: the one DWARF gives for its first line if
    // it has code there, else the one with most of its instructions.
    let declared = f
        .file
        .as_deref()
        .and_then(|p| sources.index.get(p).copied())
        .filter(|i| weight.contains_key(i));
    let home = declared.or_else(|| {
        weight
            .iter()
            .max_by_key(|&(i, w)| (*w, std::cmp::Reverse(*i)))
            .map(|(&i, _)| i)
    });
    let src = home.map(|h| {
        let mut lines: Vec<u32> = own_lines
            .iter()
            .filter(|&&(fi, _)| fi == h)
            .map(|&(_, l)| l)
            .collect();
        if declared == Some(h) {
            if let Some(l) = f.line {
                lines.push(l);
                sources.want(h, l);
            }
        }
        let first = lines.iter().copied().min().unwrap_or(1);
        let last = lines.iter().copied().max().unwrap_or(first);
        if last - first < MAX_SOURCE_SPAN {
            for l in first..=last {
                sources.want(h, l);
            }
        }
        (h, first, last)
    });
    Annotation {
        src,
        groups,
        truncated,
    }
}

#[cfg(test)]
mod tests {
    use fwprof_profile::{AddressCost, Arc, ContextRecord, FunctionRecord, Meta};

    use super::*;

    /// `main` calls `</script><script>alert(1)</script>` (a hostile name).
    fn profile() -> Profile {
        let mut p = Profile::new(Meta::new("/no/such/prog.elf"), vec!["instructions".into()]);
        let main = p.add_function(FunctionRecord::new("main", 0x100, 0x108));
        let evil = p.add_function(FunctionRecord::new(
            "</script><script>alert(1)</script>",
            0x108,
            0x10c,
        ));
        // 0x108 = jal 0x108 (main+8 → evil).
        for (addr, function, raw, c) in [
            (0x100, main, 0x0080_00ef, 1),
            (0x104, main, 0x0000_8067, 1),
            (0x108, evil, 0x0000_8067, 1),
        ] {
            p.costs
                .push(AddressCost {
                    addr,
                    function,
                    len: 4,
                    raw,
                    cost: vec![c],
                })
                .unwrap();
        }
        (
            p.functions[0].calls,
            p.functions[0].self_cost,
            p.functions[0].inclusive,
        ) = (1, vec![2], vec![3]);
        (
            p.functions[1].calls,
            p.functions[1].self_cost,
            p.functions[1].inclusive,
        ) = (1, vec![1], vec![1]);
        p.arcs.push(Arc::spontaneous(main, 1, vec![3]));
        p.arcs.push(Arc {
            caller: Some(main),
            callee: evil,
            call_site: 0x100,
            calls: 1,
            tail: false,
            inclusive: vec![1],
        });
        p.contexts = vec![
            ContextRecord {
                parent: None,
                function: main,
                calls: 0,
                self_cost: vec![2],
            },
            ContextRecord {
                parent: Some(0),
                function: evil,
                calls: 1,
                self_cost: vec![1],
            },
        ];
        p.totals = vec![3];
        p.check_invariants().unwrap();
        p
    }

    fn page(p: &Profile) -> String {
        let mut out = Vec::new();
        write(p, &ExportOptions::new(0), &mut out).unwrap();
        String::from_utf8(out).unwrap()
    }

    /// The embedded JSON of a page.
    fn data(html: &str) -> serde_json::Value {
        let start = html.find("id=\"fwprof-data\">").unwrap() + "id=\"fwprof-data\">".len();
        let end = start + html[start..].find("</script>").unwrap();
        serde_json::from_str(&html[start..end]).unwrap()
    }

    #[test]
    fn names_cannot_end_the_data_element() {
        let html = page(&profile());
        // Two script elements (data and code), each closed once.
        assert_eq!(html.matches("</script").count(), 2, "{html}");
        assert!(!html.contains("<script>alert"));
        assert!(!html.contains("http://") && !html.contains("https://"));
        let d = data(&html);
        assert_eq!(d["functions"][1][0], "</script><script>alert(1)</script>");
        assert_eq!(d["schema"], SCHEMA);
    }

    #[test]
    fn escapes_are_json_string_escapes() {
        let s = serde_json::to_string(&["a</b>&\u{2028}c//d"]).unwrap();
        let e = escape_json_for_script(&s);
        assert!(!e.contains('<') && !e.contains('>') && !e.contains('&') && !e.contains("//"));
        let back: Vec<String> = serde_json::from_str(&e).unwrap();
        assert_eq!(back, ["a</b>&\u{2028}c//d"]);
        assert_eq!(
            escape_html("<a href='x'>&\""),
            "&lt;a href=&#39;x&#39;&gt;&amp;&quot;"
        );
    }

    #[test]
    fn assets_hold_no_closing_tags_or_remote_references() {
        for asset in [CSS, JS] {
            let lower = asset.to_ascii_lowercase();
            assert!(!lower.contains("</script") && !lower.contains("</style"));
            assert!(!lower.contains("http:") && !lower.contains("https:"));
            assert!(!lower.contains("@import") && !lower.contains("url("));
        }
    }

    #[test]
    fn annotation_from_profile_bits_names_targets() {
        let p = profile();
        let choice = open_program(&p, &ExportOptions::new(0)).unwrap();
        assert!(choice.program.is_none());
        assert!(choice
            .note
            .as_deref()
            .unwrap()
            .contains("/no/such/prog.elf"));
        let d = data(&page(&p));
        let main = &d["annotations"][0];
        let insts = main["groups"][0][3].as_array().unwrap();
        assert_eq!(insts.len(), 2);
        assert_eq!(insts[0][0], "100");
        assert_eq!(insts[0][2], "jal 108 <</script><script>alert(1)</script>>");
        assert_eq!(insts[0][3], 1);
        assert_eq!(insts[0][4], serde_json::json!([1]));
        assert_eq!(main["src"], serde_json::Value::Null);
        assert_eq!(d["contexts"][1], serde_json::json!([0, 1, 1, [1]]));
        assert_eq!(
            d["arcs"][1],
            serde_json::json!([0, 1, "100", 1, false, [1]])
        );
        assert!(d["meta"]["annotation_note"].as_str().is_some());
    }

    #[test]
    fn malformed_context_tree_is_left_out() {
        let mut p = profile();
        p.contexts[0].parent = Some(1);
        let d = data(&page(&p));
        assert_eq!(d["contexts"], serde_json::json!([]));
        assert!(d["meta"]["annotation_note"]
            .as_str()
            .unwrap()
            .contains("calling-context tree is malformed"));
    }
}
