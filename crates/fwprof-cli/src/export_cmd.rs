//! `export`, `html`, `diff`, `merge` and `completions`: read profiles,
//! call `fwprof-export`, and write the result by the output-path rule of
//! `fwprof_profile::output` (`-` = standard output; never over an input).

use std::path::Path;

use anyhow::Result;

use crate::files::{refuse_output_over_input, write_output};
use clap::CommandFactory;
use fwprof_export::ExportOptions;
use fwprof_profile::Profile;

use crate::cli::{
    self, CompletionsArgs, DiffArgs, ExportArgs, ExportFormat, FormatArg, HtmlArgs, MergeArgs,
    ShellArg,
};

/// Read a profile, naming the file in the error.
fn read(path: &Path) -> Result<Profile> {
    crate::files::read_profile(path)
}

/// `fwprof export`.
pub fn export(a: &ExportArgs) -> Result<u8> {
    let out = a
        .output
        .clone()
        .unwrap_or_else(|| a.format.default_output().into());
    refuse_output_over_input(&out, &inputs(&a.file, a.program.as_deref()))?;
    let profile = crate::files::restrict_to_thread(read(&a.file)?, a.hart, a.thread)?;
    let profile = crate::files::restrict_to_task(profile, a.task.as_deref())?;
    let found = crate::files::find_program(&profile, a.program.as_deref(), a.force)?;
    let mut opts = ExportOptions::new(fwprof_report::primary_event(&profile, a.event.as_deref())?);
    opts.program = Some(&found);
    if !(a.threshold >= 0.0 && a.threshold <= 100.0) {
        anyhow::bail!(
            "--threshold {}: expected a percentage from 0 to 100",
            a.threshold
        );
    }
    opts.threshold = a.threshold;
    if matches!(
        a.format,
        ExportFormat::Folded
            | ExportFormat::Flamegraph
            | ExportFormat::Speedscope
            | ExportFormat::Pprof
    ) {
        let folded = fwprof_export::stacks::folded_stack_count(&profile)?;
        if folded > 0 {
            eprintln!(
                "fwprof: {folded} stacks deeper than {} frames had their recursion folded into frames marked `{}`",
                fwprof_export::stacks::MAX_EXACT_FRAMES,
                fwprof_export::stacks::FOLDED_SUFFIX.trim_start()
            );
        }
    }
    let p = &profile;
    let o = &opts;
    write_output(&out, |w| match a.format {
        ExportFormat::Gmon => fwprof_export::gmon::write(p, o, w),
        ExportFormat::Callgrind => fwprof_export::callgrind::write(p, o, w),
        ExportFormat::Pprof => fwprof_export::pprof::write(p, o, w),
        ExportFormat::Folded => fwprof_export::folded::write(p, o, w),
        ExportFormat::Flamegraph => fwprof_export::flamegraph::write(p, o, w),
        ExportFormat::Speedscope => fwprof_export::speedscope::write(p, o, w),
        ExportFormat::Dot => fwprof_export::dot::write(p, o, w),
    })?;
    Ok(0)
}

/// `fwprof html`.
pub fn html(a: &HtmlArgs) -> Result<u8> {
    refuse_output_over_input(&a.output, &inputs(&a.file, a.program.as_deref()))?;
    let profile = crate::files::restrict_to_thread(read(&a.file)?, a.hart, a.thread)?;
    let profile = crate::files::restrict_to_task(profile, a.task.as_deref())?;
    let found = crate::files::find_program(&profile, a.program.as_deref(), a.force)?;
    let mut opts = ExportOptions::new(fwprof_report::primary_event(&profile, None)?);
    opts.program = Some(&found);
    opts.source_dirs = a.source_dir.clone();
    if let Some(note) = fwprof_export::html::annotation_note(&opts) {
        eprintln!("fwprof: warning: {note}");
    }
    write_output(&a.output, |w| {
        fwprof_export::html::write(&profile, &opts, w)
    })?;
    Ok(0)
}

/// `fwprof diff`.
pub fn diff(a: &DiffArgs) -> Result<u8> {
    let before = read(&a.before)?;
    let after = read(&a.after)?;
    let event = fwprof_report::primary_event(&before, a.event.as_deref())?;
    let diff = fwprof_export::diff::compare(&before, &after, event)?;
    for warning in diff.warnings() {
        eprintln!("fwprof: warning: {warning}");
    }
    if let Some(note) = before.meta.environment_difference(&after.meta) {
        eprintln!("fwprof: warning: {note}");
    }
    if let Some(pct) = a.fail_above {
        if !(pct >= 0.0 && pct.is_finite()) {
            anyhow::bail!("--fail-above {pct}: expected a percentage of 0 or more");
        }
    }
    let json = a.format == FormatArg::Json;
    write_output(Path::new("-"), |w| diff.write(json, w))?;
    if let Some(pct) = a.fail_above {
        let grown = diff.growth_above(pct);
        for g in &grown {
            eprintln!("fwprof: {g} (more than --fail-above {pct}%)");
        }
        if !grown.is_empty() {
            return Ok(1);
        }
    }
    Ok(0)
}

/// `fwprof merge`.
pub fn merge(a: &MergeArgs) -> Result<u8> {
    let named: Vec<(&Path, &str)> = a
        .inputs
        .iter()
        .map(|p| (p.as_path(), "an input profile"))
        .collect();
    refuse_output_over_input(&a.output, &named)?;
    let profiles = a
        .inputs
        .iter()
        .map(|p| read(p))
        .collect::<Result<Vec<_>>>()?;
    let merged = fwprof_export::merge::merge(&profiles, a.force)?;
    write_output(&a.output, |w| merged.write_to(w))?;
    Ok(0)
}

/// The files `export` and `html` read: the profile and `--program`.
fn inputs<'a>(profile: &'a Path, program: Option<&'a Path>) -> Vec<(&'a Path, &'static str)> {
    let mut v = vec![(profile, "the profile being read")];
    v.extend(program.map(|p| (p, "the --program ELF")));
    v
}

/// `fwprof completions`.
pub fn completions(a: &CompletionsArgs) -> Result<u8> {
    let shell = match a.shell {
        ShellArg::Bash => clap_complete::Shell::Bash,
        ShellArg::Zsh => clap_complete::Shell::Zsh,
        ShellArg::Fish => clap_complete::Shell::Fish,
    };
    let mut cmd = cli::Cli::command();
    // Generated into memory: clap_complete panics when its writer fails
    // (a closed pipe), and writing here reports the error instead.
    let mut script = Vec::new();
    clap_complete::generate(shell, &mut cmd, "fwprof", &mut script);
    let mut out = std::io::stdout().lock();
    use std::io::Write as _;
    out.write_all(&script)?;
    out.flush()?;
    Ok(0)
}
