//! `run` and `record`: plain options to [`fwprof_record`], its outcome to
//! messages, files and exit statuses; and the dispatch of every subcommand.

use std::path::Path;

use anyhow::{Context, Result};
use fwprof_record::{Control, Recording, RunEnd, Session};

use crate::cli::{self, Command, ExecArgs};
use crate::exit;
use crate::progress::{Progress, Verbosity};

/// Run the chosen subcommand; returns the process exit status.
pub fn dispatch(cli: cli::Cli) -> Result<u8> {
    match cli.command {
        Command::Run(a) => run(&a.exec),
        Command::Record(a) if a.output == Path::new("-") => {
            // Found by looking at the arguments alone: a usage error.
            eprintln!(
                "fwprof: record -o -: a profile cannot go to standard output (the program's own output goes there); name a file"
            );
            Ok(USAGE_ERROR)
        }
        Command::Record(a) => {
            refuse_record_over_input(&a)?;
            record(&a)
        }
        Command::Report(a) => {
            crate::report_cmd::report(&a, crate::report_cmd::use_color(cli.color))
        }
        Command::Annotate(a) => crate::report_cmd::annotate_cmd(&a),
        Command::Export(a) => crate::export_cmd::export(&a),
        Command::Html(a) => crate::export_cmd::html(&a),
        Command::Diff(a) => crate::export_cmd::diff(&a),
        Command::Merge(a) => crate::export_cmd::merge(&a),
        Command::Completions(a) => crate::export_cmd::completions(&a),
        Command::Compare(a) => crate::compare_cmd::compare(&a),
        Command::Reliability(a) => crate::reliability_cmd::run(&a),
    }
}

/// Exit status of a usage error (clap's).
const USAGE_ERROR: u8 = 2;

/// `record` must not write its profile over the program or the `--core`
/// description file it reads.
fn refuse_record_over_input(a: &cli::RecordArgs) -> Result<()> {
    let mut inputs = vec![(a.exec.program.as_path(), "the program being profiled")];
    if let Some(core) = a.core.as_deref().map(Path::new).filter(|p| p.is_file()) {
        inputs.push((core, "the --core description"));
    }
    if let Some(board) = &a.exec.board {
        inputs.push((board.as_path(), "the --board description"));
    }
    for image in &a.exec.load {
        inputs.push((image.path.as_path(), "a --load image"));
    }
    crate::files::refuse_output_over_input(&a.output, &inputs)
}

/// What stopped a run whose stop flag was set: `signal SIGINT` (the
/// profile's `partial`).
fn stopped_by() -> String {
    format!(
        "signal {}",
        crate::signals::name(crate::signals::stopping_signal())
    )
}

/// `fwprof run`.
fn run(a: &ExecArgs) -> Result<u8> {
    let opts = cli::exec_options(a)?;
    let ctl = Control {
        stop: crate::signals::stop_flag(),
        stopped_by,
        progress: None,
        before_output: None,
    };
    let end = fwprof_record::run(&opts, &ctl)?;
    report_stop(&end);
    Ok(exit::status_for(&end.stop))
}

/// `fwprof record`, every method.
fn record(args: &cli::RecordArgs) -> Result<u8> {
    let output = args.output.as_path();
    let session = Session::new(cli::record_options(args)?)?;
    for w in session.warnings() {
        eprintln!("fwprof: warning: {}: {w}", args.exec.program.display());
    }
    let progress = Progress::start(Verbosity::from_flags(args.quiet, args.verbose));
    let ctl = Control {
        stop: crate::signals::stop_flag(),
        stopped_by,
        progress: Some(progress.counter()),
        before_output: progress.output_hook(),
    };
    let ran = session.run(&ctl)?;
    let finished = progress.finish();
    if ran.end().error.is_none() {
        report_stop(ran.end());
    }
    let Recording { profile, end } = ran.into_profile()?;
    // A counters profile holds measurements, with the method's error
    // (probes, derived self costs): an exact profile's arithmetic does not
    // hold for it.
    if profile.meta.method != fwprof_profile::Method::Counters {
        if let Err(e) = profile.check_invariants() {
            eprintln!("fwprof: warning: profile invariant violated: {e}");
        }
    }
    profile
        .write_atomic(output)
        .with_context(|| format!("cannot write {}", output.display()))?;
    if let Some(e) = end.error {
        // The profile of what ran is written, marked partial with the error.
        return Err(anyhow::Error::new(e).context(format!(
            "simulation failed (the partial profile is in {})",
            output.display()
        )));
    }
    let with_cost = profile
        .functions
        .iter()
        .filter(|f| f.self_cost.iter().any(|&c| c > 0))
        .count();
    if let Some(line) = finished.summary(&output.display().to_string(), end.executed, with_cost) {
        eprintln!("{line}");
    }
    if args.verbose > 0 {
        if let Some(s) = &profile.meta.sampling {
            eprintln!(
                "fwprof: {} samples, {} stacks truncated",
                s.samples, s.unwind_failures
            );
        }
    }
    Ok(exit::status_for(&end.stop))
}

/// Print the one-line diagnostic for a stop that is not a normal exit,
/// then the one line of unmodelled device accesses, if there were any.
fn report_stop(end: &RunEnd) {
    let signal = crate::signals::name(crate::signals::stopping_signal());
    if let Some(line) = end.describe(&signal) {
        eprintln!("fwprof: {line}");
    }
    if let Some(line) = &end.unmodelled_report {
        eprintln!("fwprof: {line}");
    }
}
