//! Set-associative caches.
use crate::params::CacheParams;

/// What one access did.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct CacheAccess {
    /// The line was present.
    pub hit: bool,
}

/// Counts since creation.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct CacheStats {
    /// Accesses.
    pub accesses: u64,
}

/// A cache.
#[derive(Clone, Debug)]
pub struct Cache {
    params: CacheParams,
}

impl Cache {
    /// A cache with `params`.
    pub fn new(params: &CacheParams) -> Cache {
        Cache { params: params.clone() }
    }
}
