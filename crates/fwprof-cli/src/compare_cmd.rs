//! `compare_cmd` (being built).

use anyhow::Result;

use crate::cli::CompareArgs;

/// Not built yet.
pub fn compare(a: &CompareArgs) -> Result<u8> {
    let _ = a;
    anyhow::bail!("not built yet")
}
