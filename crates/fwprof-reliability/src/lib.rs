//! The reliability suite: how wrong each profiling method is, against the
//! exact profile, on workloads built to break profilers. [`run_suite`]
//! records every workload of the [catalogue](WORKLOADS) under every
//! [method](METHODS) with `fwprof record` child processes and judges each
//! profile against its reference; [`write_text`], [`write_json`] and
//! [`write_svg`] render the results. `fwprof reliability` is a thin
//! wrapper around these.
//!
//! ```no_run
//! use fwprof_reliability::{run_suite, write_text, SuiteOptions};
//! let opts = SuiteOptions {
//!     fwprof: "target/release/fwprof".into(),
//!     only: vec!["saw".into()],
//!     quick: true,
//! };
//! let runs = run_suite(&opts, |_| {})?;
//! write_text(&runs, std::io::stdout().lock())?;
//! assert!(!runs.iter().any(|r| r.failed()));
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! The workloads are one RISC-V Linux program in two builds, embedded in
//! this crate (`reliability/workloads.rv64-linux.elf`, `-O2 -g`, and
//! `reliability/workloads-instrument.rv64-linux.elf`, the same with
//! `-finstrument-functions`; sources and `build.sh` in `reliability/`). The
//! program runs one workload: `workloads NAME PARAM`. One more embedded
//! program, `reliability/ctxloss.rv32imac.elf PARAM`, is the bare-metal
//! form of the forced-context-loss kernel; it has no instrumented build, so
//! the instrumentation methods are `n/a` there. For every workload
//! ([`WORKLOADS`]) and parameter value the suite records, each with
//! `fwprof record` run as a child process ([`SuiteOptions::fwprof`]):
//!
//! 1. the exact profile of the plain build, the reference;
//! 2. `--method sample --period` [`PERIOD`] (fixed period);
//! 3. the same with `--jitter --seed` [`SEED`];
//! 4. `--method instrument` of the instrumented build, read as
//!    *instrument* (the raw self and total durations of its
//!    instrumentation records: what the hooks measured, their overhead
//!    included) and as *compensated* (the profile as recorded: the hooks'
//!    cost subtracted);
//! 5. the exact profile of the instrumented build, for *own-build*: the
//!    compensated profile against that build's exact self costs with the
//!    hooks' own instructions left out (what compensation can recover);
//! 6. the exact profile of the plain build with `--core generic`, for
//!    *icount*: the exact instruction shares read as shares of time,
//!    against that run's modelled cycle shares (study 003's own method,
//!    instruction counting, judged by the core model's caches, branch
//!    predictor and pipeline),
//! 7. `--method sample --unit cycles --core generic --period`
//!    [`TIME_PERIOD`] against the cycles of (6), for *time*: a sampler paced
//!    by time, whose clock runs on while the program sleeps,
//! 8. the same with `--jitter`, for *time-jitter*,
//!
//! and compares each with its reference by `fwprof_report::compare`
//! (rank agreement over the top [`TOP`]): per method ([`Metrics`])
//! the largest absolute error of any function's self share (percentage
//! points), the mean absolute error over the functions with ≥ 1% of the
//! reference, Kendall's tau-b, top-k overlap, the functions ≥ 1% it missed,
//! interval coverage (sampled) and the verdict. The reference of every
//! method but *own-build* and *icount* is the exact profile of the *plain*
//! build (event `instructions`): what
//! the program does when nobody watches, so the code
//! `-finstrument-functions` adds inside each function is part of the
//! instrumentation error (the observer effect).
//!
//! Modules by job: `catalogue` (workloads, methods, settings),
//! `orchestration` (the child processes), `transforms` (the readings of a
//! profile some methods are judged by), `metrics` (what is kept of a
//! comparison), `text`, `json` and `svg` (rendering).
#![deny(missing_docs)]

mod catalogue;
mod json;
mod metrics;
mod orchestration;
mod svg;
mod text;
mod transforms;

use std::path::PathBuf;

pub use catalogue::{
    MethodId, Program, Workload, CORE, METHODS, PERIOD, SEED, TIME_PERIOD, TOP, WORKLOADS,
};
pub use json::{to_json, write_json};
pub use metrics::{Cell, FunctionRow, Metrics, Reference, Run};
pub use orchestration::RunDone;
pub use svg::{svg, write_svg};
pub use text::write_text;

/// What [`run_suite`] runs.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SuiteOptions {
    /// The `fwprof` executable whose `record` takes every profile (run as
    /// a child process, `FWPROF record -q -o ... -- ELF NAME PARAM`).
    pub fwprof: PathBuf,
    /// Run only the workloads whose name contains one of these; empty:
    /// every workload.
    pub only: Vec<String>,
    /// Only the [`Workload::quick`] parameter values of each workload.
    pub quick: bool,
}

/// An error of the suite itself (a failed recording or comparison is not
/// one: it is a [`Run`]'s cell).
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// No workload name contains any of [`SuiteOptions::only`].
    #[error(
        "no workload matches --only {}; the workloads are {}",
        only.join(", "),
        WORKLOADS.iter().map(|w| w.name).collect::<Vec<_>>().join(", ")
    )]
    NoWorkload {
        /// The names asked for.
        only: Vec<String>,
    },
    /// The suite's temporary directory cannot be created.
    #[error("cannot create {}", path.display())]
    CreateDir {
        /// The directory.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// An embedded workload program cannot be written to it.
    #[error("cannot write {}", path.display())]
    WriteProgram {
        /// The program's path.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
}

/// Run the suite: every selected workload at every parameter value
/// (workloads in catalogue order, values in sweep order), on as many
/// threads as the machine has cores; `on_done` is called (from any of
/// them) as each run ends, for a progress display. The embedded programs
/// are written to a new directory under `/tmp`, removed at the end.
///
/// Returns one [`Run`] per workload and value, in that order. A
/// recording or comparison that fails is recorded in its run (see
/// [`Run::failed`]), not returned as an error.
///
/// Errors: [`Error::NoWorkload`] when `only` selects nothing; the
/// directory or the programs cannot be written.
pub fn run_suite(opts: &SuiteOptions, on_done: impl Fn(RunDone) + Sync) -> Result<Vec<Run>, Error> {
    let jobs = jobs(opts)?;
    let suite = orchestration::Suite::new(&opts.fwprof)?;
    Ok(orchestration::run_all(&suite, &jobs, &on_done))
}

/// The (workload, parameter value) pairs `opts` selects, in table order.
///
/// Errors: [`Error::NoWorkload`].
fn jobs(opts: &SuiteOptions) -> Result<Vec<(&'static Workload, u64)>, Error> {
    let selected: Vec<&'static Workload> = WORKLOADS
        .iter()
        .filter(|w| opts.only.is_empty() || opts.only.iter().any(|o| w.name.contains(o.as_str())))
        .collect();
    if selected.is_empty() {
        return Err(Error::NoWorkload {
            only: opts.only.clone(),
        });
    }
    Ok(selected
        .iter()
        .flat_map(|w| {
            let values = if opts.quick { w.quick } else { w.values };
            values.iter().map(move |&v| (*w, v))
        })
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_selects_by_substring_and_quick_the_short_sweep() {
        let opts = |only: &[&str], quick| SuiteOptions {
            fwprof: PathBuf::new(),
            only: only.iter().map(|s| s.to_string()).collect(),
            quick,
        };
        let ctxloss = jobs(&opts(&["ctxloss"], true)).unwrap();
        let names: Vec<(&str, u64)> = ctxloss.iter().map(|(w, v)| (w.name, *v)).collect();
        assert_eq!(
            names,
            [
                ("ctxloss", 1),
                ("ctxloss", 4096),
                ("ctxloss-bare", 1),
                ("ctxloss-bare", 8192)
            ]
        );
        let all = jobs(&opts(&[], false)).unwrap().len();
        assert_eq!(all, WORKLOADS.iter().map(|w| w.values.len()).sum::<usize>());
        let e = jobs(&opts(&["nosuch"], false)).unwrap_err();
        assert_eq!(
            e.to_string(),
            "no workload matches --only nosuch; the workloads are nomem, memory, cache, looplen, periodic, ctxloss, ctxloss-bare, misalign, calls, saw, tiny, recursion"
        );
    }
}
