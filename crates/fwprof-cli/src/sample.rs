//! `sample` (being built).

use anyhow::Result;

use crate::cli::RecordArgs;

/// Not built yet.
pub fn record_sampled(a: &RecordArgs) -> Result<u8> {
    let _ = a;
    anyhow::bail!("not built yet")
}
