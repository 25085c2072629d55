//! The `fwprof-reliability/1` JSON document (shape in
//! `docs/reliability.md`).

use std::io::{self, Write};

use fwprof_profile::events;
use serde_json::{json, Value};

use crate::catalogue::{METHODS, PERIOD, SEED, TIME_PERIOD, TOP, WORKLOADS};
use crate::metrics::{Metrics, Run};

/// One method's figures as a JSON object (`"ok": true`, ...).
fn metrics_json(m: &Metrics) -> Value {
    let functions: Vec<Value> = m
        .functions
        .iter()
        .map(|f| {
            json!({
                "name": f.name,
                "reference_share": f.reference_share,
                "share": f.other_share,
                "abs_error": f.abs_error,
                "interval": f.interval.map(|(lo, hi)| json!([lo, hi])),
                "covers": f.covers,
                "missed": f.missed,
                "invented": f.invented,
            })
        })
        .collect();
    json!({
        "ok": true,
        "max_abs_error": m.max_abs_error,
        "max_abs_error_function": m.max_abs_error_function,
        "mean_abs_error": m.mean_abs_error,
        "tau_b": m.tau_b,
        "top_n": m.top_n,
        "top_overlap": m.top_overlap,
        "missed": m.missed,
        "missed_share": m.missed_share,
        "invented": m.invented,
        "invented_share": m.invented_share,
        "coverage": m.coverage,
        "samples": m.samples,
        "idle_samples": m.idle_samples,
        "lost_percent": m.lost_percent(),
        "verdict": m.grade,
        "verdict_text": m.verdict,
        "functions": functions,
    })
}

/// The `fwprof-reliability/1` document of `runs` (as
/// [`crate::run_suite`] returns them; shape in `docs/reliability.md`):
/// the suite's settings, the methods, and per workload its runs with the
/// reference and each method's figures (shares in percent, errors in
/// percentage points), `{"ok": false, "error": ...}` for a failure and
/// `null` where a method does not apply.
pub fn to_json(runs: &[Run]) -> Value {
    let methods: Vec<Value> = METHODS
        .iter()
        .map(|m| {
            json!({
                "name": m.name(),
                "description": m.describe(),
                "reference": m.reference(),
            })
        })
        .collect();
    let mut workloads: Vec<Value> = Vec::new();
    let mut current: Option<(&str, Vec<Value>)> = None;
    let flush = |current: &mut Option<(&str, Vec<Value>)>, workloads: &mut Vec<Value>| {
        if let Some((name, runs)) = current.take() {
            if let Some(w) = WORKLOADS.iter().find(|w| w.name == name) {
                workloads.push(json!({
                    "name": w.name,
                    "parameter": w.parameter,
                    "breaks": w.breaks,
                    "runs": runs,
                }));
            }
        }
    };
    for r in runs {
        if current.as_ref().map(|c| c.0) != Some(r.workload.name) {
            flush(&mut current, &mut workloads);
            current = Some((r.workload.name, Vec::new()));
        }
        let reference = match &r.reference {
            Ok(x) => json!({
                "ok": true,
                "total": x.total,
                "functions": x.functions.iter()
                    .map(|(n, s)| json!({"name": n, "share": s}))
                    .collect::<Vec<_>>(),
            }),
            Err(e) => json!({"ok": false, "error": e}),
        };
        let mut methods = serde_json::Map::new();
        for (m, c) in METHODS.iter().zip(&r.cells) {
            let v = match c {
                Some(Ok(x)) => metrics_json(x),
                Some(Err(e)) => json!({"ok": false, "error": e}),
                None => Value::Null,
            };
            methods.insert(m.name().to_string(), v);
        }
        if let Some((_, v)) = current.as_mut() {
            v.push(json!({
                "param": r.param,
                "reference": reference,
                "methods": methods,
            }));
        }
    }
    flush(&mut current, &mut workloads);
    json!({
        "schema": "fwprof-reliability/1",
        "event": events::INSTRUCTIONS,
        "period": PERIOD,
        "time_period": TIME_PERIOD,
        "seed": SEED,
        "top": TOP,
        "significant_percent": fwprof_report::compare::SIGNIFICANT_PERCENT,
        "methods": methods,
        "workloads": workloads,
    })
}

/// Writes [`to_json`] of `runs`, pretty-printed, and a newline.
///
/// Errors: only those of `w`.
pub fn write_json(runs: &[Run], mut w: impl Write) -> io::Result<()> {
    serde_json::to_writer_pretty(&mut w, &to_json(runs))?;
    writeln!(w)
}
