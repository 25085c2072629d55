//! `gmon` export (being built).

use std::io::Write;

use crate::{Error, ExportOptions, Profile};

/// Write `profile` in the `gmon` format to `out`.
///
/// # Errors
/// Not built yet.
pub fn write(profile: &Profile, opts: &ExportOptions, out: &mut dyn Write) -> Result<(), Error> {
    let _ = (profile, opts, out);
    Err(Error::Unsupported(
        "the gmon format is not built yet".into(),
    ))
}
