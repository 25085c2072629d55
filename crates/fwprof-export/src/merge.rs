//! `fwprof merge` (being built).

use crate::{Error, Profile};

/// The sum of `profiles`, runs of the same program.
///
/// # Errors
/// Not built yet.
pub fn merge(profiles: &[Profile], force: bool) -> Result<Profile, Error> {
    let _ = (profiles, force);
    Err(Error::Unsupported("merge is not built yet".into()))
}
