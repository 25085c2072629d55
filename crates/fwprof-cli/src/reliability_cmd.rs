//! `fwprof reliability`: its flags to [`fwprof_reliability::SuiteOptions`],
//! a progress line on a terminal, the table (or JSON) on stdout, the chart
//! to `--svg FILE`. Exit status 0 when every recording and comparison
//! succeeded, 1 when some failed (the table shows them and lists the
//! errors after it), 125 on an error of the suite itself (bad `--only`,
//! unwritable `--svg` file).

use std::io::{IsTerminal, Write};

use anyhow::{Context, Result};
use fwprof_reliability::{RunDone, SuiteOptions};

use crate::cli::{FormatArg, ReliabilityArgs};

/// Run `fwprof reliability`; the recordings are made by this executable.
pub fn run(a: &ReliabilityArgs) -> Result<u8> {
    let opts = SuiteOptions {
        fwprof: std::env::current_exe().context("cannot locate the fwprof executable")?,
        only: a.only.clone(),
        quick: a.quick,
    };
    let progress = std::io::stderr().is_terminal();
    let runs = fwprof_reliability::run_suite(&opts, |d: RunDone| {
        if progress {
            eprint!(
                "\r\x1b[Kfwprof reliability: {}/{} ({} {})",
                d.done, d.of, d.workload.name, d.param
            );
        }
    });
    if progress && runs.is_ok() {
        eprint!("\r\x1b[K");
    }
    let runs = runs?;
    let stdout = std::io::stdout();
    let mut out = std::io::BufWriter::new(stdout.lock());
    match a.format {
        FormatArg::Text => fwprof_reliability::write_text(&runs, &mut out)?,
        FormatArg::Json => fwprof_reliability::write_json(&runs, &mut out)?,
    }
    out.flush()?;
    if let Some(path) = &a.svg {
        crate::files::write_output(path, |w| fwprof_reliability::write_svg(&runs, w))?;
    }
    Ok(u8::from(runs.iter().any(|r| r.failed())))
}
