//! fwprof's core timing model (a collector's building blocks): a core
//! description ([`CoreConfig`], read from TOML or a shipped preset), and the
//! models it configures — set-associative caches ([`Cache`]), branch
//! predictors with a BTB ([`Predictor`]) and memory regions with wait states.
//!
//! Workflow: [`CoreConfig::load`] a preset name or a `.toml` file, build the
//! models from its parts, and feed them the executed instructions; every
//! model counts in cycles and bytes as its docs say.
#![deny(missing_docs)]

mod cache;
mod config;
mod events;
mod facts;
mod model;
mod params;
mod predictor;
#[cfg(test)]
mod reference;

pub use cache::{Cache, CacheAccess, CacheStats};
pub use config::{ConfigError, CoreConfig, PRESETS};
pub use model::{ev, Costs, TimingFront, TimingModel, EVENTS, NUM_EVENTS};
pub use params::{
    CacheParams, ClassLatencies, MemoryRegion, PipelineParams, PmuParams, PredictorKind,
    PredictorParams, Replacement,
};
pub use predictor::{BranchKind, Outcome, Predictor, PredictorStats, Slots};

#[cfg(test)]
mod tests_cache;
#[cfg(test)]
mod tests_model;
#[cfg(test)]
mod tests_predictor;
