//! fwprof-report (placeholder)
