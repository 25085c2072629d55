//! `report` and `annotate`: convert CLI flags into the report crate's option
//! structs and write to stdout.

use std::io::Write;

use anyhow::{Context, Result};
use fwprof_profile::Profile;
use fwprof_report::{AnnotateOptions, CallGraphOptions, FlatOptions, SortKey};
use fwprof_symbols::{Program, SourceResolver};

use crate::cli::{AnnotateArgs, FormatArg, ReportArgs, SortArg};

/// Write the report chosen by `a` for `profile`.
pub fn write(profile: &Profile, a: &ReportArgs, w: &mut impl Write) -> Result<()> {
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
                event: 0,
                brief: false,
            };
            fwprof_report::write_flat(profile, &flat, &mut *w)?;
            if !a.no_call_graph {
                writeln!(w)?;
                let cg = CallGraphOptions {
                    event: 0,
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
        event: 0,
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
