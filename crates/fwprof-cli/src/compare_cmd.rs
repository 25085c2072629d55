//! `fwprof compare REFERENCE OTHER`: how far OTHER (sampled, instrumented
//! or exact) is from the reference profile, per function and overall
//! (`fwprof_report::compare`; rules and output in `docs/compare.md`).
//! Warnings go to stderr, the report (text or `fwprof-compare/1` JSON) to
//! stdout; exit status 0 whatever the verdict, 125 on an error.

use std::io::Write;
use std::path::Path;

use anyhow::Result;
use fwprof_profile::{events, Profile};

use crate::cli::{CompareArgs, FormatArg};

/// Read a profile, naming the file in the error.
fn read(path: &Path) -> Result<Profile> {
    crate::files::read_profile(path)
}

/// Run `fwprof compare`.
pub fn compare(a: &CompareArgs) -> Result<u8> {
    let reference = read(&a.reference)?;
    let other = read(&a.other)?;
    let event = a.event.as_deref().unwrap_or(events::INSTRUCTIONS);
    let c = fwprof_report::compare(&reference, &other, event, a.top)?;
    for warning in &c.warnings {
        eprintln!("fwprof: warning: {warning}");
    }
    if let Some(note) = reference.meta.environment_difference(&other.meta) {
        eprintln!("fwprof: warning: {note}");
    }
    let stdout = std::io::stdout();
    let mut w = std::io::BufWriter::new(stdout.lock());
    match a.format {
        FormatArg::Json => c.write_json(&mut w)?,
        FormatArg::Text => c.write_text(&mut w)?,
    }
    w.flush()?;
    Ok(0)
}
