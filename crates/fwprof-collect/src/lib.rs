//! fwprof-collect (placeholder)
