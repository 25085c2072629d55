//! `report` and `annotate`: convert CLI flags into the report crate's option
//! structs and write to stdout.

use std::io::{IsTerminal, Write};

use anyhow::{Context, Result};
use fwprof_profile::{events, Profile};
use fwprof_report::{AnnotateOptions, CallGraphOptions, Column, FlatOptions, SortKey};
use fwprof_symbols::SourceResolver;

use crate::cli::{AnnotateArgs, ColorArg, FormatArg, ReportArgs, SortArg};

/// Index of the event named by `--event` (instructions when absent; the
/// first event if a profile had no `instructions`).
///
/// # Errors
/// An unknown name, with the profile's events listed.
fn primary_event(profile: &Profile, event: Option<&str>) -> Result<usize> {
    Ok(match event {
        Some(name) => fwprof_report::event_by_name(profile, name)?,
        None => profile.event_index(events::INSTRUCTIONS).unwrap_or(0),
    })
}

/// The primary event and the extra flat-profile columns of `--event` /
/// `--events` (clap keeps the two apart).
///
/// # Errors
/// Unknown names, a derived column first or without its inputs.
pub fn event_columns(profile: &Profile, a: &ReportArgs) -> Result<(usize, Vec<Column>)> {
    if a.events.is_empty() {
        Ok((primary_event(profile, a.event.as_deref())?, Vec::new()))
    } else {
        Ok(fwprof_report::parse_columns(profile, &a.events)?)
    }
}

/// Whether terminal tables are coloured: `--color always` or `never`, or
/// for `auto` when stdout is a terminal and `NO_COLOR` is unset or empty
/// (<https://no-color.org>: a command-line flag overrides it).
pub fn use_color(arg: ColorArg) -> bool {
    let no_color = std::env::var_os("NO_COLOR").is_some_and(|v| !v.is_empty());
    color_choice(arg, std::io::stdout().is_terminal(), no_color)
}

/// [`use_color`] for a known terminal and `NO_COLOR` state.
fn color_choice(arg: ColorArg, terminal: bool, no_color: bool) -> bool {
    match arg {
        ColorArg::Always => true,
        ColorArg::Never => false,
        ColorArg::Auto => terminal && !no_color,
    }
}

/// [`write`](fn@write), coloured if `color` and the format is text: section titles
/// and column headings bold, flat-profile rows of functions with at least
/// 10% of the total in red and at least 1% in yellow, the primary lines of
/// the call graph bold, a partial-profile notice in yellow. Without
/// colour the bytes are exactly [`write`](fn@write)'s.
///
/// # Errors
/// Those of [`write`](fn@write).
pub fn write_styled(
    profile: &Profile,
    a: &ReportArgs,
    color: bool,
    w: &mut impl Write,
) -> Result<()> {
    if !color || a.format != FormatArg::Text {
        return write(profile, a, w);
    }
    let mut plain = Vec::new();
    write(profile, a, &mut plain)?;
    w.write_all(colorize(&String::from_utf8_lossy(&plain)).as_bytes())?;
    w.flush()?;
    Ok(())
}

/// Where [`colorize`] is in the report.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Section {
    Other,
    /// After `Flat profile:`, before its rows.
    FlatHeading,
    /// The flat profile's rows (until the blank line after them).
    FlatRows,
    /// The call graph, until the index by name.
    CallGraph,
}

/// ANSI styles on the text report (see [`write_styled`]).
fn colorize(text: &str) -> String {
    use anstyle::{AnsiColor, Style};
    let title = Style::new().bold();
    let hot = AnsiColor::Red.on_default().bold();
    let warm = AnsiColor::Yellow.on_default();
    let note = AnsiColor::Yellow.on_default().bold();
    let paint = |out: &mut String, style: Style, line: &str| {
        out.push_str(&format!(
            "{}{line}{}\n",
            style.render(),
            style.render_reset()
        ));
    };
    let mut out = String::with_capacity(text.len() * 11 / 10);
    let mut section = Section::Other;
    for line in text.split_inclusive('\n') {
        let body = line.strip_suffix('\n').unwrap_or(line);
        if line.len() == body.len() {
            // Reports end with a newline; keep any last partial line as is.
            out.push_str(line);
            continue;
        }
        let trimmed = body.trim();
        let style = if trimmed == "Flat profile:" {
            section = Section::FlatHeading;
            Some(title)
        } else if trimmed.starts_with("Call graph") {
            section = Section::CallGraph;
            Some(title)
        } else if trimmed == "Index by function name" {
            section = Section::Other;
            Some(title)
        } else if body.starts_with("Partial profile:") {
            Some(note)
        } else {
            match section {
                Section::FlatHeading if trimmed.starts_with('%') => Some(title),
                Section::FlatHeading if trimmed.starts_with("time") => {
                    section = Section::FlatRows;
                    Some(title)
                }
                Section::FlatRows if trimmed.is_empty() => {
                    section = Section::Other;
                    None
                }
                Section::FlatRows => {
                    let pct = trimmed
                        .split_whitespace()
                        .next()
                        .and_then(|p| p.parse::<f64>().ok());
                    match pct {
                        Some(p) if p >= 10.0 => Some(hot),
                        Some(p) if p >= 1.0 => Some(warm),
                        _ => None,
                    }
                }
                Section::CallGraph if body.starts_with("index ") || body.starts_with('[') => {
                    Some(title)
                }
                _ => None,
            }
        };
        match style {
            Some(s) if !body.is_empty() => paint(&mut out, s, body),
            _ => out.push_str(line),
        }
    }
    out
}

/// Write the report chosen by `a` for `profile`. Event names are checked
/// for JSON too, although JSON always carries every event.
///
/// # Errors
/// Those of [`event_columns`] and of writing.
pub fn write(profile: &Profile, a: &ReportArgs, w: &mut impl Write) -> Result<()> {
    let (event, columns) = event_columns(profile, a)?;
    match a.format {
        FormatArg::Json => fwprof_report::write_json(profile, &mut *w)?,
        FormatArg::Text => {
            if let Some(reason) = &profile.meta.partial {
                writeln!(w, "Partial profile: {reason}\n")?;
            }
            let sort = match a.sort {
                SortArg::SelfCost => SortKey::SelfCost,
                SortArg::Inclusive => SortKey::Inclusive,
                SortArg::Calls => SortKey::Calls,
                SortArg::Name => SortKey::Name,
            };
            fwprof_report::write_instrumented(profile, a.top, &mut *w)?;
            if profile.meta.method == fwprof_profile::Method::Instrument {
                writeln!(w)?;
            }
            // gprof's explanations belong to the full report: they follow
            // the flat profile and the call graph, not a flat profile alone
            // (`--no-call-graph`), and `-b` drops them.
            let flat = FlatOptions {
                top: a.top,
                sort,
                event,
                columns,
                brief: a.brief || a.no_call_graph,
            };
            fwprof_report::write_flat(profile, &flat, &mut *w)?;
            if !a.no_call_graph {
                writeln!(w)?;
                let cg = CallGraphOptions {
                    event,
                    brief: a.brief,
                };
                fwprof_report::write_call_graph(profile, &cg, &mut *w)?;
            }
        }
    }
    w.flush()?;
    Ok(())
}

/// Write the annotation chosen by `a` for `profile`. The ELF is found by
/// [`fwprof_symbols::find_program`] (the recorded path, then `--program`,
/// which must have the recorded SHA-256 unless `--force`); without it,
/// annotate falls back to the instruction bits stored in the profile.
///
/// # Errors
/// A refused `--program`, an unknown event or function, writing.
pub fn annotate(profile: &Profile, a: &AnnotateArgs, w: &mut impl Write) -> Result<()> {
    let event = primary_event(profile, a.event.as_deref())?;
    let found = crate::files::find_program(profile, a.program.as_deref(), a.force)?;
    if let Some(note) = &found.note {
        eprintln!("fwprof: warning: {note}");
    }
    let program = found.program;
    if let (Some(p), Some(path)) = (&program, &found.path) {
        if let Err(e) = p.debug_info() {
            eprintln!(
                "fwprof: warning: {}: {e}; annotating without source lines",
                path.display()
            );
        }
    }
    if let Some(f) = &a.function {
        if !profile.functions.iter().any(|r| &r.name == f) {
            anyhow::bail!("no function named `{f}` in the profile");
        }
    }
    let resolver = SourceResolver::new(a.source_dir.clone());
    let opts = AnnotateOptions {
        function: a.function.clone(),
        event,
        top: None,
        no_source: false,
    };
    fwprof_report::write_annotate(profile, program.as_ref(), &resolver, &opts, &mut *w)
        .context("cannot write the annotation")?;
    w.flush()?;
    Ok(())
}

/// `fwprof report`; `color`: colour the text report (see [`use_color`]).
pub fn report(a: &ReportArgs, color: bool) -> Result<u8> {
    let profile = crate::files::read_profile(&a.file)?;
    let stdout = std::io::stdout();
    let mut w = std::io::BufWriter::new(stdout.lock());
    write_styled(&profile, a, color, &mut w)?;
    Ok(0)
}

/// `fwprof annotate`.
pub fn annotate_cmd(a: &AnnotateArgs) -> Result<u8> {
    let profile = crate::files::read_profile(&a.file)?;
    let stdout = std::io::stdout();
    let mut w = std::io::BufWriter::new(stdout.lock());
    annotate(&profile, a, &mut w)?;
    Ok(0)
}

#[cfg(test)]
mod tests {
    use clap::Parser;
    use fwprof_profile::{AddressCost, Arc, FunctionRecord, Meta};

    use super::*;
    use crate::cli::{Cli, Command};

    /// `busy` runs more instructions, `slow` more cycles (CPI 4).
    fn two_events() -> Profile {
        let mut p = Profile::new(
            Meta::new("p.elf"),
            vec!["instructions".into(), "cycles".into()],
        );
        for (k, (name, instrs, cycles)) in [("busy", 30, 40), ("slow", 20, 80)].iter().enumerate() {
            let start = 0x100 + 0x10 * k as u64;
            let id = p.add_function(FunctionRecord::new(*name, start, start + 4));
            p.costs
                .push(AddressCost {
                    addr: start,
                    function: id,
                    len: 4,
                    raw: 0x0015_0513,
                    cost: vec![*instrs, *cycles],
                })
                .unwrap();
            let f = &mut p.functions[id.index()];
            (f.calls, f.self_cost, f.inclusive) =
                (1, vec![*instrs, *cycles], vec![*instrs, *cycles]);
            p.arcs.push(Arc::spontaneous(id, 1, vec![*instrs, *cycles]));
        }
        p.totals = vec![50, 120];
        p.check_invariants().unwrap();
        p
    }

    fn report_args(args: &[&str]) -> ReportArgs {
        let cli = Cli::try_parse_from(["fwprof", "report"].iter().chain(args)).unwrap();
        let Command::Report(r) = cli.command else {
            panic!("not report")
        };
        r
    }

    fn report(args: &[&str]) -> Result<String> {
        let mut out = Vec::new();
        write(&two_events(), &report_args(args), &mut out)?;
        Ok(String::from_utf8(out).unwrap())
    }

    /// Function names of the flat profile's rows, in order.
    fn flat_order(text: &str) -> Vec<&str> {
        text.lines()
            .skip_while(|l| !l.trim_start().starts_with("time"))
            .skip(1)
            .take_while(|l| !l.is_empty())
            .map(|l| l.rsplit(' ').next().unwrap())
            .collect()
    }

    #[test]
    fn event_flag_selects_the_sort_event() {
        let text = report(&["--no-call-graph"]).unwrap();
        assert_eq!(flat_order(&text), ["busy", "slow"], "{text}");
        let text = report(&["--no-call-graph", "--event", "cycles"]).unwrap();
        assert_eq!(flat_order(&text), ["slow", "busy"], "{text}");
        let text = report(&["--no-call-graph", "--events", "cycles,instructions,cpi"]).unwrap();
        assert_eq!(flat_order(&text), ["slow", "busy"], "{text}");
        let slow = text.lines().find(|l| l.ends_with(" slow")).unwrap();
        let cols: Vec<&str> = slow.split_whitespace().collect();
        assert_eq!(&cols[cols.len() - 3..], ["20", "4.00", "slow"], "{slow}");
        // The call graph follows --event too.
        let text = report(&["--event", "cycles"]).unwrap();
        assert!(text.contains("each count is one of 120 cycles"), "{text}");
    }

    /// `text` without ANSI SGR sequences (`ESC [ ... m`).
    fn strip_sgr(text: &str) -> String {
        let mut out = String::new();
        let mut rest = text;
        while let Some(i) = rest.find('\x1b') {
            out.push_str(&rest[..i]);
            let end = rest[i..].find('m').expect("SGR ends with m");
            rest = &rest[i + end + 1..];
        }
        out.push_str(rest);
        out
    }

    #[test]
    fn color_follows_the_flag_terminal_and_no_color() {
        for terminal in [false, true] {
            for no_color in [false, true] {
                assert!(color_choice(ColorArg::Always, terminal, no_color));
                assert!(!color_choice(ColorArg::Never, terminal, no_color));
                assert_eq!(
                    color_choice(ColorArg::Auto, terminal, no_color),
                    terminal && !no_color
                );
            }
        }
        let plain = report(&[]).unwrap();
        let a = report_args(&[]);
        let mut colored = Vec::new();
        write_styled(&two_events(), &a, true, &mut colored).unwrap();
        let colored = String::from_utf8(colored).unwrap();
        assert_ne!(colored, plain);
        assert_eq!(strip_sgr(&colored), plain);
        assert!(
            colored.starts_with("\x1b[1mFlat profile:\x1b[0m\n"),
            "{colored}"
        );
        // busy has 60% of the instructions: hot, in bold red.
        let busy = colored
            .lines()
            .find(|l| l.ends_with("busy\x1b[0m"))
            .unwrap();
        assert!(busy.starts_with("\x1b[1m\x1b[31m"), "{busy:?}");
        assert!(colored.contains("\x1b[1mindex % time"), "{colored}");
        let mut uncolored = Vec::new();
        write_styled(&two_events(), &a, false, &mut uncolored).unwrap();
        assert_eq!(String::from_utf8(uncolored).unwrap(), plain);
        // JSON is never coloured.
        let j = report_args(&["--format", "json"]);
        let mut json = Vec::new();
        write_styled(&two_events(), &j, true, &mut json).unwrap();
        assert!(!json.contains(&0x1b));
    }

    #[test]
    fn unknown_events_are_one_line_errors() {
        let e = report(&["--event", "cylces"]).unwrap_err();
        assert_eq!(
            crate::exit::one_line(&e),
            "unknown event `cylces`; the profile has: instructions, cycles"
        );
        let e = report(&["--format", "json", "--events", "instructions,nope"]).unwrap_err();
        assert_eq!(
            crate::exit::one_line(&e),
            "unknown event `nope`; the profile has: instructions, cycles (derived: cpi)"
        );
        let e = report(&["--events", "instructions,mispredict_rate"]).unwrap_err();
        assert!(
            e.to_string()
                .contains("needs events branch_mispredicts and branches"),
            "{e}"
        );
        let e = report(&["--events", "cpi,cycles"]).unwrap_err();
        assert!(e.to_string().contains("must be an event"), "{e}");
        assert!(Cli::try_parse_from([
            "fwprof", "report", "--event", "cycles", "--events", "cycles"
        ])
        .is_err());

        let cli =
            Cli::try_parse_from(["fwprof", "annotate", "--event", "stall_x", "p.data"]).unwrap();
        let Command::Annotate(a) = cli.command else {
            panic!("not annotate")
        };
        let e = annotate(&two_events(), &a, &mut Vec::new()).unwrap_err();
        assert_eq!(
            crate::exit::one_line(&e),
            "unknown event `stall_x`; the profile has: instructions, cycles"
        );
    }
}
