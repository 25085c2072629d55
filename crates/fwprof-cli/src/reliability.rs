//! `reliability` (being built).

use anyhow::Result;

use crate::cli::ReliabilityArgs;

/// Not built yet.
pub fn run(a: &ReliabilityArgs) -> Result<u8> {
    let _ = a;
    anyhow::bail!("not built yet")
}
