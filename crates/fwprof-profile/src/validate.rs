//! What a profile must satisfy before any reader may trust it
//! ([`Profile::validate`]): shapes, ids in range and the form of every
//! metadata field that readers slice or parse.

use crate::error::Error;
use crate::events;
use crate::model::{Method, Profile};

/// True for `n` hex digits exactly (any case).
fn is_hex(s: &str, n: usize) -> bool {
    s.len() == n && s.bytes().all(|b| b.is_ascii_hexdigit())
}

impl Profile {
    /// Checks the shape of the profile: at least one event and the first is
    /// `"instructions"`; every cost vector has one entry per event; every
    /// function id is in range; `start <= end`; addresses strictly
    /// increasing with lengths 2 or 4; xlen 32 or 64; every context's
    /// parent comes before it; and every field a reader trusts:
    /// `meta.sha256` empty or 64 hex digits, `meta.build_id` hex,
    /// `meta.environment_sha256` 64 hex digits, environment names without
    /// `=`, instrumented records naming functions in range with at most 64
    /// histogram buckets, a sampled profile's period above 0.
    ///
    /// Errors: [`Error::Inconsistent`] naming the first problem found.
    pub fn validate(&self) -> Result<(), Error> {
        self.shape_problem()
            .map_or(Ok(()), |m| Err(Error::Inconsistent(m)))
    }

    fn shape_problem(&self) -> Option<String> {
        if let Some(m) = self.meta_problem() {
            return Some(m);
        }
        let n = self.events.len();
        if self.events.first().map(String::as_str) != Some(events::INSTRUCTIONS) {
            return Some(format!(
                "the first event must be \"{}\"",
                events::INSTRUCTIONS
            ));
        }
        if self.meta.xlen != 32 && self.meta.xlen != 64 {
            return Some(format!("xlen {}", self.meta.xlen));
        }
        if self.totals.len() != n {
            return Some(format!(
                "totals have {} entries for {} events",
                self.totals.len(),
                n
            ));
        }
        let nf = self.functions.len();
        if nf > u32::MAX as usize {
            return Some("too many functions".into());
        }
        for (i, f) in self.functions.iter().enumerate() {
            if f.self_cost.len() != n || f.inclusive.len() != n {
                return Some(format!(
                    "function {i} ({}) has cost vectors of the wrong length",
                    f.name
                ));
            }
            if f.start > f.end {
                return Some(format!("function {i} ({}) ends before it starts", f.name));
            }
        }
        if let Err(m) = self.costs.check_shape(n, nf) {
            return Some(m);
        }
        for (i, a) in self.arcs.iter().enumerate() {
            if a.callee.index() >= nf || a.caller.is_some_and(|c| c.index() >= nf) {
                return Some(format!("arc {i} names a function out of range"));
            }
            if a.inclusive.len() != n {
                return Some(format!("arc {i} has a cost vector of the wrong length"));
            }
        }
        for (i, c) in self.contexts.iter().enumerate() {
            if c.function.index() >= nf {
                return Some(format!("context {i} names a function out of range"));
            }
            if c.parent.is_some_and(|p| p as usize >= i) {
                return Some(format!(
                    "context {i} has a parent that does not come before it"
                ));
            }
            if c.self_cost.len() != n {
                return Some(format!("context {i} has a cost vector of the wrong length"));
            }
        }
        None
    }
    fn meta_problem(&self) -> Option<String> {
        let m = &self.meta;
        if !m.sha256.is_empty() && !is_hex(&m.sha256, 64) {
            return Some("the program's SHA-256 is not 64 hex digits".into());
        }
        if let Some(b) = &m.build_id {
            if b.is_empty() || b.len() % 2 != 0 || !is_hex(b, b.len()) {
                return Some("the program's build id is not an even number of hex digits".into());
            }
        }
        if let Some(h) = &m.environment_sha256 {
            if !is_hex(h, 64) {
                return Some("the environment's SHA-256 is not 64 hex digits".into());
            }
        }
        if m.environment_names.iter().any(|n| n.contains('=')) {
            return Some("an environment variable name contains '='".into());
        }
        if let Some(s) = &m.sampling {
            if m.method == Method::Sample && s.period == 0 {
                return Some("the sampling period is 0".into());
            }
        }
        let nf = self.functions.len();
        for (i, r) in self.instrumented.iter().enumerate() {
            if r.function.index() >= nf {
                return Some(format!(
                    "instrumented record {i} names a function out of range"
                ));
            }
            if r.histogram.len() > 64 {
                return Some(format!(
                    "instrumented record {i} has {} histogram buckets (at most 64)",
                    r.histogram.len()
                ));
            }
        }
        None
    }
}
