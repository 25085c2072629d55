//! The page model: the JSON document embedded in the HTML report
//! (`schema: "fwprof-html/1"`, described in the module documentation of
//! [`super`]), built from a profile.

use fwprof_isa::Xlen;
use fwprof_profile::Profile;
use fwprof_report::{trap_cause_name, Derived};
use fwprof_symbols::SourceResolver;
use serde::Serialize;

use super::annotate::{annotate, Annotation, FileOut, Ranges, Sources};
use super::{annotation_note, SCHEMA};
use crate::ExportOptions;

/// Lowercase hex without `0x`.
pub(super) fn hex(v: u64) -> String {
    format!("{v:x}")
}

/// `v` with exactly `n` entries (missing ones 0).
fn costs(v: &[u64], n: usize) -> Vec<u64> {
    (0..n).map(|i| v.get(i).copied().unwrap_or(0)).collect()
}

#[derive(Serialize)]
pub(super) struct Page<'a> {
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

pub(super) fn build_page<'a>(profile: &'a Profile, opts: &ExportOptions) -> Page<'a> {
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
    let program = opts.elf();
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
    let mut note = annotation_note(opts);
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
