//! Finding the ELF a profile was recorded from: the one rule every reader
//! of debug information and code follows (`fwprof annotate`, `fwprof html`
//! and `fwprof export` of every format; the exporters then take the found
//! program as an input and look up nothing themselves).
//!
//! The rule, in order:
//!
//! 1. A `--program` file that is given must have the recorded SHA-256
//!    (the profile's `meta.sha256`); one that differs is refused with
//!    [`ProgramError::Mismatch`], naming both hashes, unless `force` is
//!    set. A `--program` that cannot be read is refused too
//!    ([`ProgramError::Unreadable`]).
//! 2. The recorded path (the profile's `meta.program`: absolute in profiles recorded
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
//! The messages: a refused file is [`ProgramError`]'s one line (`P is not
//! the program this profile was recorded from: its SHA-256 is A, the
//! profile's is B (--force reads it anyway)`, or `cannot read --program P:
//! why`); the note without a program says why the recorded file was not
//! used and ends `; reading the profile alone (give the recorded build with
//! --program)`; the note of a forced file names both hashes and ends
//! `reading it anyway (--force)`.

use std::fmt;
use std::path::{Path, PathBuf};

use crate::Program;

/// The program a reader should use, and what to tell the user about it.
#[derive(Default)]
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

impl fmt::Debug for FoundProgram {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("FoundProgram")
            .field("program", &self.program.as_ref().map(|_| "Program"))
            .field("path", &self.path)
            .field("note", &self.note)
            .finish()
    }
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

/// Finds the program a profile was recorded from by the rule of this
/// module's documentation: `recorded` is the profile's `meta.program`,
/// `recorded_sha256` its `meta.sha256` (64 hex digits, or empty when
/// unknown: then any readable file is accepted), `given` the `--program`
/// path, `force` the `--force` flag. Opens at most two ELF files (and
/// hashes them); parses nothing else.
///
/// # Errors
/// [`ProgramError::Mismatch`] for a given file whose SHA-256 differs from
/// the recorded one (unless `force`), [`ProgramError::Unreadable`] for a
/// given file that cannot be opened. A missing or changed recorded file is
/// not an error: the result then has no program and a note.
pub fn find_program(
    recorded: &str,
    recorded_sha256: &str,
    given: Option<&Path>,
    force: bool,
) -> Result<FoundProgram, ProgramError> {
    let recorded_hash = recorded_sha256;
    let matches = |p: &Program| recorded_hash.is_empty() || p.sha256_hex() == recorded_hash;
    let given = match given {
        Some(path) => {
            let p = Program::open(path).map_err(|e| ProgramError::Unreadable {
                path: path.to_path_buf(),
                message: match e {
                    // Io errors name the path already.
                    crate::Error::Io { .. } => e.to_string(),
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
    let recorded = PathBuf::from(recorded);
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
        Err(crate::Error::Io { source, .. }) => {
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

#[cfg(test)]
mod tests {
    use super::*;

    fn data(name: &str) -> PathBuf {
        Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/data")
            .join(name)
    }

    fn hash(name: &str) -> String {
        Program::open(data(name)).unwrap().sha256_hex()
    }

    #[test]
    fn the_recorded_path_first_then_a_matching_program() {
        let rv64 = data("rv64.elf");
        let h = hash("rv64.elf");
        let f = find_program(rv64.to_str().unwrap(), &h, None, false).unwrap();
        assert_eq!(f.path.as_deref(), Some(rv64.as_path()));
        assert!(f.program.is_some() && f.note.is_none());
        // The recorded file is gone: the given one with the same hash.
        let f = find_program("/nonexistent/rv64.elf", &h, Some(&rv64), false).unwrap();
        assert_eq!(f.path.as_deref(), Some(rv64.as_path()));
        assert!(f.note.is_none());
        // Neither: no program, a note saying why.
        let f = find_program("/nonexistent/rv64.elf", &h, None, false).unwrap();
        assert!(f.program.is_none() && f.path.is_none());
        let note = f.note.unwrap();
        assert!(
            note.starts_with("/nonexistent/rv64.elf: ")
                && note.ends_with(
                    "; reading the profile alone (give the recorded build with --program)"
                ),
            "{note}"
        );
    }

    #[test]
    fn another_program_is_refused_unless_forced() {
        let rv64 = data("rv64.elf");
        let rv32 = data("rv32.elf");
        let (h64, h32) = (hash("rv64.elf"), hash("rv32.elf"));
        let e = find_program(rv64.to_str().unwrap(), &h64, Some(&rv32), false).unwrap_err();
        assert_eq!(
            e.to_string(),
            format!(
                "{} is not the program this profile was recorded from: its SHA-256 is {h32}, \
                 the profile's is {h64} (--force reads it anyway)",
                rv32.display()
            )
        );
        // Forced: the given file, before the (matching) recorded one.
        let f = find_program(rv64.to_str().unwrap(), &h64, Some(&rv32), true).unwrap();
        assert_eq!(f.path.as_deref(), Some(rv32.as_path()));
        assert!(f.note.unwrap().ends_with("reading it anyway (--force)"));
        // A changed recorded file is not used.
        let f = find_program(rv32.to_str().unwrap(), &h64, None, false).unwrap();
        assert!(f.program.is_none());
        assert!(f.note.unwrap().contains("changed since it was recorded"));
        // No recorded hash: any readable file.
        let f = find_program("/nonexistent", "", Some(&rv32), false).unwrap();
        assert_eq!(f.path.as_deref(), Some(rv32.as_path()));
        // An unreadable --program is refused, naming it.
        let e = find_program(
            "/nonexistent",
            "",
            Some(Path::new("/nonexistent/p.elf")),
            true,
        )
        .unwrap_err();
        assert!(
            e.to_string()
                .starts_with("cannot read --program /nonexistent/p.elf: "),
            "{e}"
        );
    }
}
