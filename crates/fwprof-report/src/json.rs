//! The JSON report (schema in `docs/report-json.md`).

use std::io::{self, Write};

use fwprof_profile::{Method, Profile};
use serde_json::{json, Map, Value};

use crate::events::Derived;

/// Value of the top-level `"schema"` field; bumped on incompatible changes.
pub const JSON_SCHEMA: &str = "fwprof-report/1";

/// Name of a RISC-V trap cause, owned by fwprof-isa (Privileged ISA
/// 20211203, Table 3.6); re-exported for the reports and exporters.
pub use fwprof_isa::trap_cause_name;

/// `{event name: value}` for one cost vector.
pub(crate) fn by_event(profile: &Profile, v: &[u64]) -> Value {
    let mut m = Map::new();
    for (i, name) in profile.events.iter().enumerate() {
        m.insert(name.clone(), json!(v.get(i).copied().unwrap_or(0)));
    }
    Value::Object(m)
}

/// `{ratio name: value or null}` for the derived ratios whose inputs the
/// profile records, from a function's self costs; `None` if there are none.
fn derived(profile: &Profile, self_cost: &[u64]) -> Option<Value> {
    let m: Map<String, Value> = Derived::ALL
        .into_iter()
        .filter(|d| d.available(profile))
        .map(|d| (d.name().to_string(), json!(d.value(profile, self_cost))))
        .collect();
    (!m.is_empty()).then_some(Value::Object(m))
}

/// Builds the JSON document of [`write_json`] as a value.
pub fn report_value(profile: &Profile) -> Value {
    let m = &profile.meta;
    let name = |i: usize| profile.functions.get(i).map(|f| f.name.clone());
    let functions: Vec<Value> = profile
        .functions
        .iter()
        .enumerate()
        .map(|(id, f)| {
            let mut v = json!({
                "id": id,
                "name": f.name,
                "address": f.start,
                "end": f.end,
                "calls": f.calls,
                "self": by_event(profile, &f.self_cost),
                "inclusive": by_event(profile, &f.inclusive),
                "file": f.file,
                "line": f.line,
            });
            if let Some(d) = derived(profile, &f.self_cost) {
                v["derived"] = d;
            }
            v
        })
        .collect();
    let call_graph: Vec<Value> = profile
        .arcs
        .iter()
        .map(|a| {
            json!({
                "caller": a.caller.and_then(|c| name(c.index())),
                "caller_id": a.caller.map(|c| c.0),
                "callee": name(a.callee.index()),
                "callee_id": a.callee.0,
                "call_site": a.call_site,
                "calls": a.calls,
                "tail": a.tail,
                "inclusive": by_event(profile, &a.inclusive),
            })
        })
        .collect();
    let traps: Vec<Value> = profile
        .traps
        .iter()
        .map(|t| {
            json!({
                "cause": t.cause,
                "name": trap_cause_name(t.cause, m.xlen),
                "pc": t.pc,
                "function": profile.function_at(t.pc).and_then(|f| name(f.index())),
                "count": t.count,
            })
        })
        .collect();
    let mut doc = json!({
        "schema": JSON_SCHEMA,
        "meta": {
            "program": m.program,
            "sha256": m.sha256,
            "build_id": m.build_id,
            "target": m.target.as_str(),
            "isa": m.isa,
            "xlen": m.xlen,
            "command": m.command,
            "fwprof_version": m.fwprof_version,
            "start_time": m.start_time,
            "partial": m.partial,
            "exit_status": m.exit_status,
            "warnings": m.warnings,
            "format_version": m.format_version,
            "sleep_ns": m.sleep_ns,
        },
        "events": profile.events,
        "totals": by_event(profile, &profile.totals),
        "functions": functions,
        "call_graph": call_graph,
        "traps": traps,
    });
    if let Some(v) = crate::traps::trap_contexts_json(profile) {
        doc["trap_contexts"] = v;
    }
    if let Some(v) = crate::traps::privilege_totals_json(profile) {
        doc["privilege_totals"] = v;
    }
    if let Some(v) = crate::images::images_json(profile) {
        doc["images"] = v;
    }
    if let Some(v) = crate::spaces::address_spaces_json(profile) {
        doc["address_spaces"] = v;
    }
    if let Some(v) = crate::instrumented::json_value(profile) {
        doc["instrumentation"] = v;
    }
    if let (Method::Sample, Some(s)) = (m.method, &m.sampling) {
        doc["sampling"] = json!({
            "samples": s.samples,
            "period": s.period,
            "unit": s.unit,
            "jitter": s.jitter,
            "seed": s.seed,
            "truncated_stacks": s.unwind_failures,
            "idle_samples": s.idle_samples,
            "values_are_estimates": true,
        });
    }
    doc
}

/// Writes the profile as one pretty-printed JSON object followed by a
/// newline (see `docs/report-json.md`): `schema`, `meta`, `events`,
/// `totals`, `functions[]`, `call_graph[]`, `traps[]`, with trap contexts
/// `trap_contexts[]`, with costs per privilege level `privilege_totals`,
/// with address translation `address_spaces[]`,
/// and for an instrumented profile `instrumentation`. Costs are objects
/// keyed by event name with every event of the profile
/// (`{"instructions": 123, "cycles": 456}`); addresses are integers. A
/// function also has `derived`, the ratios of [`Derived`] whose inputs the
/// profile records (`{"cpi": 1.5, "icache_miss_rate": 0.02}`, fractions,
/// `null` where the denominator is 0), if there are any.
///
/// Errors: only those of `w`.
pub fn write_json(profile: &Profile, mut w: impl Write) -> io::Result<()> {
    serde_json::to_writer_pretty(&mut w, &report_value(profile))?;
    writeln!(w)
}
