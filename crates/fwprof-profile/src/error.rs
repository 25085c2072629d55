//! Errors of reading and writing profile files.

use std::io;

/// Why a profile could not be read, written or accepted.
///
/// Each malformed-input case has its own variant with a fixed message so
/// that the CLI can explain it; reading never panics on bad input.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// An operating-system error while reading or writing the file.
    #[error("profile I/O error: {0}")]
    Io(#[from] io::Error),
    /// The file does not start with [`crate::MAGIC`]: it is not an fwprof profile.
    #[error("not an fwprof profile (bad magic bytes)")]
    NotAProfile,
    /// The header names a format version this build cannot read.
    #[error("unsupported profile format version {found} (this fwprof reads version {supported})")]
    UnsupportedVersion {
        /// Version found in the file header.
        found: u32,
        /// The version this build reads and writes ([`crate::FORMAT_VERSION`]).
        supported: u32,
    },
    /// The file ends before the header or the body it announces is complete.
    #[error("profile file is truncated")]
    Truncated,
    /// The body is not valid CBOR for the profile schema.
    #[error("profile file is corrupt: {0}")]
    Corrupt(String),
    /// The body decoded but its parts disagree (an id out of range, a cost
    /// vector of the wrong length, unsorted addresses ...).
    #[error("profile is inconsistent: {0}")]
    Inconsistent(String),
    /// Serialising the profile failed (should not happen for a valid profile).
    #[error("cannot encode profile: {0}")]
    Encode(String),
}
