//! fwprof-symbols (placeholder)
