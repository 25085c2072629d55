//! Finding the ELF a profile was recorded from: the one rule every reader
//! of debug information and code (`annotate`, `html`, the Callgrind and
//! pprof exports) follows.
//!
//! The rule, in order:
//!
//! 1. A `--program` file that is given must have the recorded SHA-256
//!    ([`Meta::sha256`]); one that differs is refused with
//!    [`ProgramError::Mismatch`], naming both hashes, unless `force` is
//!    set. A `--program` that cannot be read is refused too
//!    ([`ProgramError::Unreadable`]).
//! 2. The recorded path ([`Meta::program`]: absolute in profiles recorded
//!    since fwprof stored it so; older profiles hold the path as given,
//!    relative to the directory of the recording) is used if the file
//!    there has the recorded SHA-256.
//! 3. Otherwise the `--program` file, if given (and accepted by 1).
//! 4. Otherwise there is no program: the reader works from the profile
//!    alone and [`FoundProgram::note`] says why.
//!
//! With `force`, a given `--program` whose hash differs is used before the
//! recorded path (the user asked for that file), and
//! [`FoundProgram::note`] names both hashes. A profile without a recorded
//! hash (empty `sha256`) accepts any readable file.
//!
//! [`Meta::sha256`]: fwprof_profile::Meta::sha256
//! [`Meta::program`]: fwprof_profile::Meta::program

use std::fmt;
use std::path::{Path, PathBuf};

use fwprof_profile::Profile;
use fwprof_symbols::Program;

/// The program a reader should use, and what to tell the user about it.
pub struct FoundProgram {
    /// The opened ELF, `None` when neither the recorded path nor
    /// `--program` gave the recorded file.
    pub program: Option<Program>,
    /// The path it was opened from.
    pub path: Option<PathBuf>,
    /// One sentence for the user when there is no program (why) or a
    /// forced mismatch is in use; `None` otherwise.
    pub note: Option<String>,
}

/// Why a given `--program` is refused.
#[derive(Debug)]
#[non_exhaustive]
pub enum ProgramError {
    /// Its SHA-256 differs from the one recorded in the profile.
    Mismatch {
        /// The `--program` path.
        path: PathBuf,
        /// Its SHA-256 (64 hex digits).
        actual: String,
        /// The profile's `sha256`.
        recorded: String,
    },
    /// It cannot be read as an ELF file.
    Unreadable {
        /// The `--program` path.
        path: PathBuf,
        /// Why (one line).
        message: String,
    },
}

impl fmt::Display for ProgramError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ProgramError::Mismatch {
                path,
                actual,
                recorded,
            } => write!(
                f,
                "{} is not the program this profile was recorded from: its SHA-256 is {actual}, \
                 the profile's is {recorded} (--force reads it anyway)",
                path.display()
            ),
            ProgramError::Unreadable { path, message } => {
                write!(f, "cannot read --program {}: {message}", path.display())
            }
        }
    }
}

impl std::error::Error for ProgramError {}

/// Finds `profile`'s program by the rule of this module's documentation:
/// `given` is the `--program` path, `force` the `--force` flag.
///
/// # Errors
/// [`ProgramError::Mismatch`] for a given file whose SHA-256 differs from
/// the recorded one (unless `force`), [`ProgramError::Unreadable`] for a
/// given file that cannot be opened. A missing or changed recorded file is
/// not an error: the result then has no program and a note.
pub fn find_program(
    profile: &Profile,
    given: Option<&Path>,
    force: bool,
) -> Result<FoundProgram, ProgramError> {
    let recorded_hash = profile.meta.sha256.as_str();
    let matches = |p: &Program| recorded_hash.is_empty() || p.sha256_hex() == recorded_hash;
    let given = match given {
        Some(path) => {
            let p = Program::open(path).map_err(|e| ProgramError::Unreadable {
                path: path.to_path_buf(),
                message: match e {
                    // Io errors name the path already.
                    fwprof_symbols::Error::Io { .. } => e.to_string(),
                    e => format!("{}: {e}", path.display()),
                },
            })?;
            if !matches(&p) {
                let actual = p.sha256_hex();
                if !force {
                    return Err(ProgramError::Mismatch {
                        path: path.to_path_buf(),
                        actual,
                        recorded: recorded_hash.to_string(),
                    });
                }
                let note = format!(
                    "{} is not the program this profile was recorded from (SHA-256 {actual}, \
                     the profile's is {recorded_hash}): reading it anyway (--force)",
                    path.display()
                );
                return Ok(FoundProgram {
                    program: Some(p),
                    path: Some(path.to_path_buf()),
                    note: Some(note),
                });
            }
            Some((path.to_path_buf(), p))
        }
        None => None,
    };
    let recorded = PathBuf::from(&profile.meta.program);
    let why_not_recorded = match Program::open(&recorded) {
        Ok(p) if matches(&p) => {
            return Ok(FoundProgram {
                program: Some(p),
                path: Some(recorded),
                note: None,
            })
        }
        Ok(_) => format!(
            "{} changed since it was recorded (SHA-256 differs)",
            recorded.display()
        ),
        Err(fwprof_symbols::Error::Io { source, .. }) => {
            format!("{}: {source}", recorded.display())
        }
        Err(e) => format!("{}: {e}", recorded.display()),
    };
    Ok(match given {
        Some((path, p)) => FoundProgram {
            program: Some(p),
            path: Some(path),
            note: None,
        },
        None => FoundProgram {
            program: None,
            path: None,
            note: Some(format!(
                "{why_not_recorded}; reading the profile alone (give the recorded build with --program)"
            )),
        },
    })
}
