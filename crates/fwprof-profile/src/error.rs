//! Errors of reading and writing profile files.

use std::io;

/// Why a profile could not be read, written or accepted.
///
/// Each malformed-input case has its own variant with a fixed message in
/// words (never a parser's internal code) so that the CLI can explain it;
/// reading never panics on bad input.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// An operating-system error while reading or writing the file.
    #[error("{0}")]
    Io(#[from] io::Error),
    /// The file does not start with [`crate::MAGIC`]: it is not an fwprof profile.
    #[error("not an fwprof profile (it does not start with the profile's magic bytes)")]
    NotAProfile,
    /// The header names a format version this build cannot read.
    #[error(
        "unsupported profile format version {found} (this fwprof reads versions {oldest} to {newest})"
    )]
    UnsupportedVersion {
        /// Version found in the file header.
        found: u32,
        /// The oldest version this build reads ([`crate::OLDEST_FORMAT_VERSION`]).
        oldest: u32,
        /// The version this build writes ([`crate::FORMAT_VERSION`]).
        newest: u32,
    },
    /// The file ends before the header or the body it announces is complete.
    #[error("the profile file is truncated: it ends before the length its header announces")]
    Truncated,
    /// The file goes on after the body its header announces.
    #[error("the profile file is damaged: it is longer than its header announces")]
    TrailingBytes,
    /// The body's CRC-32C differs from the one in the header (format
    /// version 2 and later).
    #[error("checksum mismatch: the file is damaged")]
    ChecksumMismatch,
    /// The body does not decode to a profile (a version-1 file, which has
    /// no checksum, or a file written by another program).
    #[error("the profile file is damaged: {0}")]
    Corrupt(String),
    /// The body decoded but its parts disagree (an id out of range, a cost
    /// vector of the wrong length, unsorted addresses, a malformed hash ...).
    #[error("the profile is inconsistent: {0}")]
    Inconsistent(String),
    /// The profile has a critical section (see [`crate::sections`]) that
    /// this build does not read: the rest of the profile would be misread
    /// without it, so the file is refused rather than skipped.
    #[error(
        "the profile needs a newer fwprof: it has a section \"{section}\" (version {version}) that this fwprof does not read and must not skip"
    )]
    NeedsNewerReader {
        /// The section's name.
        section: String,
        /// The section's layout version.
        version: u32,
    },
    /// Serialising the profile failed (should not happen for a valid profile).
    #[error("cannot encode the profile: {0}")]
    Encode(String),
}
