//! `report` and `annotate`: convert CLI flags into the report crate's option
//! structs and write to stdout.

use std::io::Write;

use anyhow::{Context, Result};
use fwprof_profile::{Profile, EVENT_INSTRUCTIONS};
use fwprof_report::{AnnotateOptions, CallGraphOptions, Column, FlatOptions, SortKey};
use fwprof_symbols::{Program, SourceResolver};

use crate::cli::{AnnotateArgs, FormatArg, ReportArgs, SortArg};

/// Index of the event named by `--event` (instructions when absent; the
/// first event if a profile had no `instructions`).
///
/// # Errors
/// An unknown name, with the profile's events listed.
fn primary_event(profile: &Profile, event: Option<&str>) -> Result<usize> {
    Ok(match event {
        Some(name) => fwprof_report::event_by_name(profile, name)?,
        None => profile.event_index(EVENT_INSTRUCTIONS).unwrap_or(0),
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
            let flat = FlatOptions {
                top: a.top,
                sort,
                event,
                columns,
                brief: false,
            };
            fwprof_report::write_flat(profile, &flat, &mut *w)?;
            if !a.no_call_graph {
                writeln!(w)?;
                let cg = CallGraphOptions {
                    event,
                    brief: false,
                };
                fwprof_report::write_call_graph(profile, &cg, &mut *w)?;
            }
        }
    }
    w.flush()?;
    Ok(())
}

/// Write the annotation chosen by `a` for `profile`. The ELF is read from
/// `--program` or the recorded path; if it is missing or changed (SHA-256),
/// annotate falls back to the instruction bits stored in the profile.
pub fn annotate(profile: &Profile, a: &AnnotateArgs, w: &mut impl Write) -> Result<()> {
    let event = primary_event(profile, a.event.as_deref())?;
    let path = a
        .program
        .clone()
        .unwrap_or_else(|| profile.meta.program.clone().into());
    let program = match Program::open(&path) {
        Ok(p) if a.program.is_some() || hex(&p.sha256()) == profile.meta.sha256 => Some(p),
        Ok(_) => {
            eprintln!(
                "fwprof: warning: {} changed since it was recorded; annotating without it",
                path.display()
            );
            None
        }
        Err(e) => {
            eprintln!(
                "fwprof: warning: {}: {e}; annotating from the profile alone",
                path.display()
            );
            None
        }
    };
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

/// Lowercase hex of bytes.
pub fn hex(b: &[u8]) -> String {
    b.iter().map(|x| format!("{x:02x}")).collect()
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
