//! Reports on an fwprof [`Profile`]: gprof's flat profile and call graph,
//! a JSON document, and source/assembly annotation.
//!
//! Every report is a pure function from a profile (plus, for annotation,
//! the optional ELF [`Program`] and a [`SourceResolver`]) and a plain
//! options struct to an [`std::io::Write`]: [`write_flat`],
//! [`write_call_graph`], [`write_report`] (the whole text of
//! `fwprof report`, coloured for a terminal if asked), [`write_json`],
//! [`write_annotate`]. Text reports
//! are sorted by one event of the profile's event set (`instructions`
//! unless the options name another, also for profiles that record
//! `cycles`); the flat profile can add columns for other events and
//! ratios of them ([`Derived`]: CPI, miss and mispredict rates), chosen by
//! name with [`event_by_name`] and [`parse_columns`]. The JSON report
//! carries every event. Nothing re-runs the program.
//!
//! ```
//! use fwprof_profile::{AddressCost, Arc, FunctionRecord, Meta, Profile};
//! use fwprof_report::{write_flat, FlatOptions};
//!
//! let mut p = Profile::new(Meta::new("prog.elf"), vec!["instructions".into()]);
//! let main = p.add_function(FunctionRecord::new("main", 0x100, 0x104));
//! p.costs.push(AddressCost { addr: 0x100, function: main, len: 4, raw: 0x13, cost: vec![5] }).unwrap();
//! let f = &mut p.functions[main.index()];
//! (f.calls, f.self_cost, f.inclusive) = (1, vec![5], vec![5]);
//! p.arcs.push(Arc::spontaneous(main, 1, vec![5]));
//! p.totals = vec![5];
//!
//! let mut out = Vec::new();
//! write_flat(&p, &FlatOptions::default(), &mut out).unwrap();
//! let text = String::from_utf8(out).unwrap();
//! assert!(text.contains("100.00"));
//! assert!(text.contains("main"));
//! ```
//!
//! [`Profile`]: fwprof_profile::Profile
//! [`Program`]: fwprof_symbols::Program
//! [`SourceResolver`]: fwprof_symbols::SourceResolver
#![deny(missing_docs)]

mod annotate;
mod call_graph;
pub mod compare;
mod counters;
mod cycles;
mod events;
mod flat;
mod images;
mod instrumented;
mod json;
mod options;
mod privilege;
mod report;
mod spaces;
mod style;
mod tasks;
mod threads;
mod traps;

pub use annotate::{direct_target, function_instructions, inlined_label, write_annotate, InstRow};
pub use call_graph::write_call_graph;
pub use compare::{
    compare, kendall_tau_b, newcombe_difference, newcombe_interval, wilson_interval, CompareError,
    Comparison, FunctionComparison, Grade, Verdict, Z_95,
};
pub use counters::{write_counter_summary, write_counters, NoCounters};
pub use cycles::{find_cycles, Cycles};
pub use events::{
    event_by_name, parse_columns, primary_event, Column, Derived, EventError, STALL_EVENTS,
};
pub use flat::write_flat;
pub use images::write_image_table;
pub use instrumented::write_instrumented;
pub use json::{report_value, trap_cause_name, write_json, JSON_SCHEMA};
pub use options::{AnnotateOptions, CallGraphOptions, FlatOptions, ReportOptions, SortKey};
pub use privilege::{restrict_to_privilege, PrivilegeError};
pub use report::write_report;
pub use spaces::write_space_table;
pub use tasks::{restrict_to_task, write_per_task, write_stacks, TaskError};
pub use threads::{restrict_to_hart, restrict_to_thread, write_per_thread, ThreadError};
pub use traps::write_trap_table;

/// The line that says a profile is sampled, as the text reports print it:
/// `sampled profile: 1234 samples, period 10007 instructions (jittered,
/// seed 1), 3 stacks truncated; 40 more sampling points (3.1% of 1274) fell
/// while the program slept and saw no program code` (the jitter,
/// truncation and sleep parts only when they apply).
pub fn sampling_header(s: &fwprof_profile::SamplingInfo) -> String {
    let mut line = format!(
        "sampled profile: {} samples, period {} {}",
        s.samples, s.period, s.unit
    );
    if s.jitter {
        line.push_str(&format!(" (jittered, seed {})", s.seed));
    }
    if s.unwind_failures > 0 {
        line.push_str(&format!(", {} stacks truncated", s.unwind_failures));
    }
    if s.idle_samples > 0 {
        let all = s.samples + s.idle_samples;
        line.push_str(&format!(
            "; {} more sampling points ({:.1}% of {all}) fell while the program slept and saw no program code",
            s.idle_samples,
            percent(s.idle_samples, all)
        ));
    }
    line
}

/// The line that says a profile's program slept, for the text reports:
/// `the program slept 16.000 ms (guest time); no instruction ran then, so
/// that time is in no function's cost`. `None` if it never slept.
pub fn sleep_note(m: &fwprof_profile::Meta) -> Option<String> {
    (m.sleep_ns > 0).then(|| {
        format!(
            "the program slept {:.3} ms (guest time): no instruction ran then, so that time is in no function's cost",
            m.sleep_ns as f64 / 1e6
        )
    })
}

/// Short unit name of an event for column headers: `instrs` for
/// `instructions`, the event name itself otherwise.
pub(crate) fn unit(event: &str) -> &str {
    match event {
        "instructions" => "instrs",
        other => other,
    }
}

/// `part / whole` in percent; 0 when `whole` is 0.
pub(crate) fn percent(part: u64, whole: u64) -> f64 {
    if whole == 0 {
        0.0
    } else {
        100.0 * part as f64 / whole as f64
    }
}

/// The cost of `v` for event `e`, 0 if the vector is short.
pub(crate) fn cost(v: &[u64], e: usize) -> u64 {
    v.get(e).copied().unwrap_or(0)
}
