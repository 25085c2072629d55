//! `export`, `html`, `diff`, `merge` and `completions`: read profiles,
//! call `fwprof-export`, and write the result (files atomically: a
//! temporary file renamed into place).

use std::io::Write;
use std::path::Path;

use anyhow::{Context, Result};
use clap::CommandFactory;
use fwprof_export::ExportOptions;
use fwprof_profile::{Profile, EVENT_INSTRUCTIONS};

use crate::cli::{
    self, CompletionsArgs, DiffArgs, ExportArgs, ExportFormat, FormatArg, HtmlArgs, MergeArgs,
    ShellArg,
};

/// Read a profile, naming the file in the error.
fn read(path: &Path) -> Result<Profile> {
    Profile::read(path).with_context(|| format!("cannot read {}", path.display()))
}

/// Index of event `name` (instructions when `None`).
fn event_index(profile: &Profile, name: Option<&str>) -> Result<usize> {
    Ok(match name {
        Some(n) => fwprof_report::event_by_name(profile, n)?,
        None => profile.event_index(EVENT_INSTRUCTIONS).unwrap_or(0),
    })
}

/// Run `write` into `path` atomically (`-` = stdout).
fn write_output(
    path: &Path,
    write: impl FnOnce(&mut dyn Write) -> Result<(), fwprof_export::Error>,
) -> Result<()> {
    if path == Path::new("-") {
        let stdout = std::io::stdout();
        let mut w = std::io::BufWriter::new(stdout.lock());
        write(&mut w)?;
        w.flush()?;
        return Ok(());
    }
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d.to_path_buf(),
        _ => std::path::PathBuf::from("."),
    };
    let name = path
        .file_name()
        .map_or_else(|| "out".into(), |n| n.to_string_lossy().into_owned());
    let tmp = dir.join(format!(".{name}.fwprof-tmp-{}", std::process::id()));
    let result = (|| -> Result<()> {
        let f = std::fs::File::create(&tmp)
            .with_context(|| format!("cannot create {}", tmp.display()))?;
        let mut w = std::io::BufWriter::new(f);
        write(&mut w)?;
        let f = w.into_inner().map_err(|e| e.into_error())?;
        f.sync_all()?;
        std::fs::rename(&tmp, path).with_context(|| format!("cannot write {}", path.display()))?;
        Ok(())
    })();
    if result.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    result
}

/// `fwprof export`.
pub fn export(a: &ExportArgs) -> Result<u8> {
    let profile = read(&a.file)?;
    let mut opts = ExportOptions::new(event_index(&profile, a.event.as_deref())?);
    opts.program = a.program.clone();
    opts.force = a.force;
    if !(a.threshold >= 0.0 && a.threshold <= 100.0) {
        anyhow::bail!(
            "--threshold {}: expected a percentage from 0 to 100",
            a.threshold
        );
    }
    opts.threshold = a.threshold;
    let out = a
        .output
        .clone()
        .unwrap_or_else(|| a.format.default_output().into());
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
                "fwprof: {folded} stacks deeper than {} frames had their recursion folded into                  frames marked `{}`",
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
    let profile = read(&a.file)?;
    let mut opts = ExportOptions::new(event_index(&profile, None)?);
    opts.program = a.program.clone();
    opts.force = a.force;
    opts.source_dirs = a.source_dir.clone();
    let choice = fwprof_export::html::open_program(&profile, &opts)?;
    if let Some(note) = &choice.note {
        eprintln!("fwprof: warning: {note}");
    }
    write_output(&a.output, |w| {
        fwprof_export::html::write_with(&profile, &choice, &opts, w)
    })?;
    Ok(0)
}

/// `fwprof diff`.
pub fn diff(a: &DiffArgs) -> Result<u8> {
    let before = read(&a.before)?;
    let after = read(&a.after)?;
    let event = event_index(&before, a.event.as_deref())?;
    let diff = fwprof_export::diff::compare(&before, &after, event)?;
    for warning in diff.warnings() {
        eprintln!("fwprof: warning: {warning}");
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
    let profiles = a
        .inputs
        .iter()
        .map(|p| read(p))
        .collect::<Result<Vec<_>>>()?;
    let merged = fwprof_export::merge::merge(&profiles, a.force)?;
    merged
        .write_atomic(&a.output)
        .with_context(|| format!("cannot write {}", a.output.display()))?;
    Ok(0)
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
    out.write_all(&script)?;
    out.flush()?;
    Ok(0)
}
