//! fwprof-sim (placeholder)
