//! Core descriptions: the TOML format documented in `docs/core-format.md`,
//! and the presets shipped in `presets/`.

use crate::params::{CacheParams, MemoryRegion, PipelineParams, PredictorParams};

/// Names of the shipped presets (`fwprof record --core NAME`).
pub const PRESETS: &[&str] = &["picorv32", "ibex", "generic"];

/// A complete core description.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CoreConfig {
    /// Core name (the preset name, or `name` in the file).
    pub name: String,
    /// Where the numbers come from (documentation cited in the file).
    pub source: String,
    /// Pipeline timing.
    pub pipeline: PipelineParams,
    /// Branch prediction.
    pub predictor: PredictorParams,
    /// Instruction cache, if any.
    pub icache: Option<CacheParams>,
    /// Data cache, if any.
    pub dcache: Option<CacheParams>,
    /// Memory ranges with wait states, matched by address; addresses in no
    /// region cost no wait states.
    pub regions: Vec<MemoryRegion>,
}

/// Why a core description was rejected.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ConfigError {
    /// Placeholder until the parser lands.
    #[error("{0}")]
    Other(String),
}

impl CoreConfig {
    /// A preset by name, or a TOML file by path.
    ///
    /// # Errors
    /// [`ConfigError`] naming the file, line and key.
    pub fn load(name_or_path: &str) -> Result<CoreConfig, ConfigError> {
        Err(ConfigError::Other(format!("not implemented: {name_or_path}")))
    }
}
