//! `report` and `annotate`: convert CLI flags into the report crate's option
//! structs and write to stdout.

use std::io::{IsTerminal, Write};

use anyhow::{Context, Result};
use fwprof_profile::Profile;
use fwprof_report::{AnnotateOptions, Column, ReportOptions, SortKey};
use fwprof_symbols::SourceResolver;

use crate::cli::{AnnotateArgs, ColorArg, FormatArg, ReportArgs, SortArg};

/// The primary event and the extra flat-profile columns of `--event` /
/// `--events` (clap keeps the two apart).
///
/// # Errors
/// Unknown names, a derived column first or without its inputs.
pub fn event_columns(profile: &Profile, a: &ReportArgs) -> Result<(usize, Vec<Column>)> {
    if a.events.is_empty() {
        Ok((
            fwprof_report::primary_event(profile, a.event.as_deref())?,
            Vec::new(),
        ))
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

/// Write the report chosen by `a` for `profile`, the text coloured if
/// `color` (see [`use_color`]; JSON never is). Event names are checked
/// for JSON too, although JSON always carries every event.
///
/// # Errors
/// Those of [`event_columns`] and of writing.
pub fn write(profile: &Profile, a: &ReportArgs, color: bool, w: &mut impl Write) -> Result<()> {
    match a.format {
        FormatArg::Json => {
            event_columns(profile, a)?;
            fwprof_report::write_json(profile, &mut *w)?
        }
        FormatArg::Text => {
            let opts = text_options(profile, a, color)?;
            fwprof_report::write_report(profile, &opts, &mut *w)?;
        }
    }
    w.flush()?;
    Ok(())
}

/// The text report's options from `a`.
///
/// # Errors
/// Those of [`event_columns`].
fn text_options(profile: &Profile, a: &ReportArgs, color: bool) -> Result<ReportOptions> {
    let (event, columns) = event_columns(profile, a)?;
    Ok(ReportOptions {
        top: a.top,
        sort: match a.sort {
            SortArg::SelfCost => SortKey::SelfCost,
            SortArg::Inclusive => SortKey::Inclusive,
            SortArg::Calls => SortKey::Calls,
            SortArg::Name => SortKey::Name,
        },
        event,
        columns,
        brief: a.brief,
        no_call_graph: a.no_call_graph,
        color,
    })
}

/// Write the annotation chosen by `a` for `profile`. The ELF is found by
/// [`fwprof_symbols::find_program`] (the recorded path, then `--program`,
/// which must have the recorded SHA-256 unless `--force`); without it,
/// annotate falls back to the instruction bits stored in the profile.
///
/// # Errors
/// A refused `--program`, an unknown event or function, writing.
pub fn annotate(profile: &Profile, a: &AnnotateArgs, w: &mut impl Write) -> Result<()> {
    let event = fwprof_report::primary_event(profile, a.event.as_deref())?;
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
    let mut profile = crate::files::read_profile(&a.file)?;
    profile = crate::files::restrict_to_thread(profile, a.hart, a.thread)?;
    if a.stack {
        let stdout = std::io::stdout();
        let mut w = std::io::BufWriter::new(stdout.lock());
        match a.format {
            FormatArg::Text => {
                fwprof_report::write_stacks(&profile, &mut w).context("cannot report --stack")?
            }
            // The `stacks` section as it is stored: `{"stacks": [{name,
            // kind, top, lowest, bytes}]}` (docs/profile-format.md).
            FormatArg::Json => {
                let sec = profile
                    .section::<fwprof_profile::StackSection>()
                    .ok()
                    .flatten()
                    .ok_or(fwprof_report::TaskError::NoStacks)
                    .context("cannot report --stack")?;
                serde_json::to_writer_pretty(&mut w, &sec)?;
                writeln!(w)?;
            }
        }
        w.flush()?;
        return Ok(0);
    }
    if a.descent {
        let stdout = std::io::stdout();
        let mut w = std::io::BufWriter::new(stdout.lock());
        match a.format {
            FormatArg::Text => fwprof_report::write_counters(&profile, &mut w)
                .context("cannot report --descent")?,
            // The `counters` section as it is stored (docs/profile-format.md).
            FormatArg::Json => {
                let sec = (profile.meta.method == fwprof_profile::Method::Counters)
                    .then(|| {
                        profile
                            .section::<fwprof_profile::CounterSection>()
                            .ok()
                            .flatten()
                    })
                    .flatten()
                    .ok_or(fwprof_report::NoCounters)
                    .context("cannot report --descent")?;
                serde_json::to_writer_pretty(&mut w, &sec)?;
                writeln!(w)?;
            }
        }
        w.flush()?;
        return Ok(0);
    }
    profile = crate::files::restrict_to_task(profile, a.task.as_deref())?;
    if let Some(level) = a.privilege {
        profile = fwprof_report::restrict_to_privilege(&profile, level.level())
            .with_context(|| format!("cannot report --privilege {:?}", level))?;
    }
    let stdout = std::io::stdout();
    let mut w = std::io::BufWriter::new(stdout.lock());
    if a.per_task {
        let opts = text_options(&profile, a, color)?;
        fwprof_report::write_per_task(&profile, &opts, &mut w)
            .context("cannot report --per-task")?;
        w.flush()?;
        return Ok(0);
    }
    if a.per_hart || a.per_thread {
        let opts = text_options(&profile, a, color)?;
        let flag = if a.per_hart {
            "--per-hart"
        } else {
            "--per-thread"
        };
        fwprof_report::write_per_thread(&profile, &opts, a.per_hart, &mut w)
            .with_context(|| format!("cannot report {flag}"))?;
        w.flush()?;
        return Ok(0);
    }
    write(&profile, a, color, &mut w)?;
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
        write(&two_events(), &report_args(args), false, &mut out)?;
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
        // The renderer colours (fwprof-report's tests say how); JSON never.
        let mut colored = Vec::new();
        write(&two_events(), &report_args(&[]), true, &mut colored).unwrap();
        assert!(colored.starts_with(b"\x1b[1mFlat profile:\x1b[0m\n"));
        let mut json = Vec::new();
        write(
            &two_events(),
            &report_args(&["--format", "json"]),
            true,
            &mut json,
        )
        .unwrap();
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
