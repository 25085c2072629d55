//! The CLI's profile files and output paths: reading a profile (with the
//! one-line note for an unchecked version-1 file), finding its program,
//! writing an output path
//! by `fwprof_profile::output`'s rule, and refusing an output that is one
//! of the command's inputs.

use std::io::Write;
use std::path::Path;

use anyhow::{Context, Result};
use fwprof_profile::Profile;

/// `profile` restricted to what hart `hart` (`--hart N`) or Linux
/// thread `thread` (`--thread TID`) executed, or as it is.
///
/// # Errors
/// The profile has no costs per hart or thread, or no such one (one line).
pub fn restrict_to_thread(
    profile: Profile,
    hart: Option<u32>,
    thread: Option<i64>,
) -> Result<Profile> {
    match (hart, thread) {
        (Some(h), _) => fwprof_report::restrict_to_hart(&profile, h)
            .with_context(|| format!("cannot show --hart {h}")),
        (None, Some(t)) => fwprof_report::restrict_to_thread(&profile, t)
            .with_context(|| format!("cannot show --thread {t}")),
        (None, None) => Ok(profile),
    }
}

/// `profile` restricted to what the task `task` (`--task NAME`) executed,
/// or as it is.
///
/// # Errors
/// The profile has no tasks, or no such task (one line).
pub fn restrict_to_task(profile: Profile, task: Option<&str>) -> Result<Profile> {
    match task {
        Some(t) => fwprof_report::restrict_to_task(&profile, t)
            .with_context(|| format!("cannot show --task {t}")),
        None => Ok(profile),
    }
}

/// Read a profile, naming the file in the error. A version-1 file (no
/// checksum) is read with one note on stderr saying that its damage
/// cannot be detected; sections this build does not read (written by a
/// newer fwprof, see `fwprof_profile::sections`) are skipped with one note
/// naming them.
pub fn read_profile(path: &Path) -> Result<Profile> {
    let p = Profile::read(path).with_context(|| format!("cannot read {}", path.display()))?;
    if !p.is_checksummed() {
        eprintln!(
            "fwprof: note: {} is a version-{} profile without a checksum: damage to it cannot be detected",
            path.display(),
            p.meta.format_version
        );
    }
    let unknown = p.unknown_sections();
    if !unknown.is_empty() {
        let names: Vec<String> = unknown
            .iter()
            .map(|(name, version)| format!("{name} (version {version})"))
            .collect();
        eprintln!(
            "fwprof: note: {} has sections this fwprof does not read, skipped: {}",
            path.display(),
            names.join(", ")
        );
    }
    Ok(p)
}

/// Write `write`'s output to `path` (`-`: standard output) by the rule of
/// `fwprof_profile::output`: regular files atomically keeping their mode,
/// links followed, devices and FIFOs written in place.
pub fn write_output<E>(
    path: &Path,
    write: impl FnOnce(&mut dyn Write) -> Result<(), E>,
) -> Result<()>
where
    E: From<std::io::Error> + std::error::Error + Send + Sync + 'static,
{
    fwprof_profile::output::write(path, write)
        .with_context(|| format!("cannot write {}", path.display()))
}

/// Refuse (an error, exit status 125) to write `output` when it is the
/// same file (same device and inode, also through hard and symbolic
/// links) as one of `inputs`, each given with what it is ("the program",
/// "an input profile", ...): writing would destroy the input.
pub fn refuse_output_over_input(output: &Path, inputs: &[(&Path, &str)]) -> Result<()> {
    if output == Path::new("-") {
        return Ok(());
    }
    for (input, what) in inputs {
        if fwprof_profile::output::same_file(output, input) {
            anyhow::bail!(
                "refusing to write {}: it is {what} ({}), which the output would destroy",
                output.display(),
                input.display()
            );
        }
    }
    Ok(())
}

/// The profile's program by the one rule of [`fwprof_symbols::find_program`]
/// (`given`: `--program`, `force`: `--force`), found before any output is
/// written, for every export format: a refused `--program` is one line,
/// exit 125.
pub fn find_program(
    profile: &Profile,
    given: Option<&Path>,
    force: bool,
) -> Result<fwprof_symbols::FoundProgram> {
    Ok(fwprof_symbols::find_program(
        &profile.meta.program,
        &profile.meta.sha256,
        given,
        force,
    )?)
}
