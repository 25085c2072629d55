//! `fwprof diff` (being built).

use std::io::Write;

use crate::{Error, ExportOptions, Profile};

/// Write the per-function differences from `before` to `after` to `out`,
/// as text or (`json`) JSON.
///
/// # Errors
/// Not built yet.
pub fn write(
    before: &Profile,
    after: &Profile,
    opts: &ExportOptions,
    json: bool,
    out: &mut dyn Write,
) -> Result<(), Error> {
    let _ = (before, after, opts, json, out);
    Err(Error::Unsupported("diff is not built yet".into()))
}
