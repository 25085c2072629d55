//! fwprof profiles in the formats other tools read, fwprof's own HTML
//! report, and the comparison (`diff`) and combination (`merge`) of
//! profiles.
//!
//! Every writer takes a [`Profile`] and [`ExportOptions`] and writes to any
//! [`std::io::Write`]; the CLI (`fwprof export`, `fwprof html`,
//! `fwprof diff`, `fwprof merge`) chooses the file. Each format is checked
//! by its real consumer in this crate's tests (gprof, callgrind_annotate,
//! `go tool pprof`, `dot`, the speedscope schema, headless Chromium).
#![deny(missing_docs)]

use std::path::PathBuf;

pub use fwprof_profile::Profile;
use fwprof_symbols::{FoundProgram, Program};

pub mod callgrind;
pub mod diff;
pub mod dot;
pub mod flamegraph;
pub mod folded;
pub mod gmon;
pub mod html;
pub mod merge;
mod merge_sections;
pub mod pprof;
pub mod speedscope;
pub mod stacks;

/// How the profile's costs were gathered, for titles and summaries:
/// `None` for an exact profile; for a sampled one e.g. `sampled: 1799
/// samples, one every 10007 instructions (values are estimates)`; for an
/// instrumented one e.g. `instrumented: -finstrument-functions hooks,
/// instructions, compensated for 2000004 hook calls`.
pub fn method_note(profile: &Profile) -> Option<String> {
    use fwprof_profile::Method;
    let m = &profile.meta;
    match m.method {
        Method::Exact => None,
        Method::Sample => Some(match &m.sampling {
            Some(s) => {
                let every = if s.jitter {
                    format!(
                        "every {} {} on average (jittered, seed {})",
                        s.period, s.unit, s.seed
                    )
                } else {
                    format!("one every {} {}", s.period, s.unit)
                };
                let failed = if s.unwind_failures > 0 {
                    format!(", {} stacks not unwound to a root", s.unwind_failures)
                } else {
                    String::new()
                };
                let idle = if s.idle_samples > 0 {
                    format!(
                        ", {} more while the program slept (no program code)",
                        s.idle_samples
                    )
                } else {
                    String::new()
                };
                format!(
                    "sampled: {} samples, {every}{failed}{idle} (values are estimates)",
                    s.samples
                )
            }
            None => "sampled (values are estimates)".to_string(),
        }),
        Method::Instrument => Some(match &m.instrumentation {
            Some(i) => {
                let hooks = if i.hooks == "mcount" {
                    "-pg (mcount)"
                } else {
                    "-finstrument-functions"
                };
                format!(
                    "instrumented: {hooks} hooks, {}, compensated for {} hook calls",
                    i.unit, i.hook_calls
                )
            }
            None => "instrumented".to_string(),
        }),
        Method::Counters => Some(match profile.section::<fwprof_profile::CounterSection>() {
            Ok(Some(c)) => format!(
                "hardware counters ({}): {} runs of {} counters, {}, probes of {} cycles (values are measurements with the method's error)",
                c.strategy,
                c.runs.len(),
                c.counters,
                c.mode,
                c.probe_cost
            ),
            _ => "hardware counters (values are measurements with the method's error)".to_string(),
        }),
    }
}

/// What every exporter may use besides the profile.
#[derive(Clone, Debug)]
pub struct ExportOptions<'a> {
    /// Index in [`Profile::events`] of the event to export where a format
    /// carries one event (gmon, folded, flamegraph, dot); formats that carry
    /// every event (callgrind, pprof, speedscope) put it first.
    pub event: usize,
    /// The profile's program as the caller found it with
    /// [`fwprof_symbols::find_program`] (the recorded path, then
    /// `--program`, SHA-256 checked unless `--force`), for the formats that
    /// read code or debug information (callgrind, gmon, pprof, HTML):
    /// [`FoundProgram::program`] is the ELF, [`FoundProgram::note`] why
    /// there is none. `None`: no program was looked for; the export works
    /// from the profile alone. Exporters never open a file themselves.
    ///
    /// [`FoundProgram::program`]: fwprof_symbols::FoundProgram::program
    /// [`FoundProgram::note`]: fwprof_symbols::FoundProgram::note
    pub program: Option<&'a FoundProgram>,
    /// Directories to look for source files in (HTML annotation).
    pub source_dirs: Vec<PathBuf>,
    /// `dot`: leave out functions whose inclusive cost is below this
    /// percentage of the total (gprof2dot's `--node-thres`), e.g. 0.5.
    pub threshold: f64,
}

impl ExportOptions<'_> {
    /// Options exporting event `event` without a program and with a 0.5%
    /// threshold.
    pub fn new(event: usize) -> ExportOptions<'static> {
        ExportOptions {
            event,
            program: None,
            source_dirs: Vec::new(),
            threshold: 0.5,
        }
    }

    /// The program's ELF, if the caller found one.
    pub(crate) fn elf(&self) -> Option<&Program> {
        self.program.and_then(|f| f.program.as_ref())
    }
}

/// Why an export, diff or merge failed.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// Writing the output failed.
    #[error(transparent)]
    Io(#[from] std::io::Error),
    /// The profile lacks what the format needs (the message says what).
    #[error("{0}")]
    Unsupported(String),
    /// Profiles that cannot be combined or compared (the message says why).
    #[error("{0}")]
    Mismatch(String),
}

#[cfg(test)]
mod tests {
    use fwprof_profile::{InstrumentInfo, Meta, Method, SamplingInfo};

    use super::*;

    #[test]
    fn method_note_says_how_the_profile_was_taken() {
        let mut p = Profile::new(Meta::new("p.elf"), vec!["instructions".into()]);
        assert_eq!(method_note(&p), None);
        p.meta.method = Method::Sample;
        p.meta.sampling = Some(SamplingInfo {
            period: 997,
            unit: "instructions".into(),
            jitter: false,
            seed: 1,
            samples: 1234,
            unwind_failures: 3,
            idle_samples: 0,
        });
        assert_eq!(
            method_note(&p).unwrap(),
            "sampled: 1234 samples, one every 997 instructions, 3 stacks not unwound \
             to a root (values are estimates)"
        );
        p.meta.method = Method::Instrument;
        p.meta.instrumentation = Some(InstrumentInfo {
            hooks: "mcount".into(),
            unit: "cycles".into(),
            hook_calls: 42,
            hook_total: 840,
            excluded: vec![],
        });
        assert_eq!(
            method_note(&p).unwrap(),
            "instrumented: -pg (mcount) hooks, cycles, compensated for 42 hook calls"
        );
    }
}
