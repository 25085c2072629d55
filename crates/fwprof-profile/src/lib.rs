//! fwprof-profile (placeholder)
