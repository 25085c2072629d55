//! fwprof-fpu (placeholder)
