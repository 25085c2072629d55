//! The instrumentation table of an instrumented profile
//! (`record --method instrument`): per function calls, total, self, min,
//! average and max per call, raw and compensated for the hooks' cost, and
//! the per-call duration histograms (docs/instrumentation.md).

use std::io::{self, Write};

use fwprof_profile::{InstrumentInfo, InstrumentRecord, Method, Profile};
use serde_json::{json, Value};

/// `a / b`, 0 when `b` is 0.
fn ratio(a: u64, b: u64) -> f64 {
    if b == 0 {
        0.0
    } else {
        a as f64 / b as f64
    }
}

/// The records, sorted by compensated self time, then total, then name.
fn sorted(profile: &Profile) -> Vec<&InstrumentRecord> {
    let name = |r: &InstrumentRecord| profile.function(r.function).map_or("", |f| f.name.as_str());
    let mut rows: Vec<&InstrumentRecord> = profile.instrumented.iter().collect();
    rows.sort_by(|a, b| {
        b.self_compensated
            .cmp(&a.self_compensated)
            .then(b.total_compensated.cmp(&a.total_compensated))
            .then(name(a).cmp(name(b)))
    });
    rows
}

/// Name of a function id, `[id N]` if out of range.
fn function_name(profile: &Profile, r: &InstrumentRecord) -> String {
    profile
        .function(r.function)
        .map_or_else(|| format!("[id {}]", r.function.0), |f| f.name.clone())
}

/// The label of histogram bucket `i`: `[2^i, 2^(i+1))`, bucket 0 `[0, 2)`.
fn bucket_label(i: usize) -> String {
    let lo = if i == 0 { 0 } else { 1u128 << i };
    format!("[{lo},{})", 1u128 << (i + 1))
}

/// Writes the instrumentation table of an instrumented profile
/// ([`Method::Instrument`] with [`fwprof_profile::Meta::instrumentation`]);
/// writes nothing for other profiles.
///
/// Layout: a heading with the hooks, the unit and the measured hook cost;
/// one row per instrumented function, sorted by compensated self time, cut
/// at `top` rows: `calls` (completed calls), `total` and `self` raw and
/// compensated (`comp`), then `min`, `avg` and `max` per call (raw) and
/// `avg` compensated (compensated total over calls); then the per-call
/// duration histogram of each listed function (log2 buckets, only the
/// non-empty ones), and a legend.
///
/// Errors: only those of `w`.
pub fn write_instrumented(
    profile: &Profile,
    top: Option<usize>,
    mut w: impl Write,
) -> io::Result<()> {
    let Some(info) = instrument_info(profile) else {
        return Ok(());
    };
    let rows = sorted(profile);
    let shown = top.map_or(rows.len(), |n| n.min(rows.len()));
    let unit = info.unit.as_str();
    let flag = match info.hooks.as_str() {
        "mcount" => "-pg",
        _ => "-finstrument-functions",
    };
    writeln!(w, "Instrumented profile:")?;
    writeln!(w)?;
    writeln!(w, "Hooks: {} ({flag}); durations in {unit}.", info.hooks)?;
    writeln!(
        w,
        "{} hook calls cost {} {unit} ({:.2} per call), subtracted in the comp columns.",
        info.hook_calls,
        info.hook_total,
        ratio(info.hook_total, info.hook_calls)
    )?;
    if !info.excluded.is_empty() {
        writeln!(
            w,
            "Excluded (counted in their callers): {}",
            info.excluded.join(" ")
        )?;
    }
    writeln!(w)?;
    let num = |r: &InstrumentRecord| {
        [
            r.total,
            r.total_compensated,
            r.self_time,
            r.self_compensated,
            r.max,
        ]
        .iter()
        .map(|v| v.to_string().len())
        .max()
        .unwrap_or(1)
    };
    let cw = rows[..shown]
        .iter()
        .map(|r| num(r))
        .max()
        .unwrap_or(1)
        .max(10);
    writeln!(
        w,
        "{:>10} {:>cw$} {:>cw$} {:>cw$} {:>cw$} {:>cw$} {:>12} {:>cw$} {:>12}",
        "", "total", "total", "self", "self", "min", "avg", "max", "avg"
    )?;
    writeln!(
        w,
        "{:>10} {:>cw$} {:>cw$} {:>cw$} {:>cw$} {:>cw$} {:>12} {:>cw$} {:>12}  name",
        "calls", "raw", "comp", "raw", "comp", "raw", "raw", "raw", "comp"
    )?;
    for r in &rows[..shown] {
        writeln!(
            w,
            "{:>10} {:>cw$} {:>cw$} {:>cw$} {:>cw$} {:>cw$} {:>12.2} {:>cw$} {:>12.2}  {}",
            r.calls,
            r.total,
            r.total_compensated,
            r.self_time,
            r.self_compensated,
            r.min,
            ratio(r.total, r.calls),
            r.max,
            ratio(r.total_compensated, r.calls),
            function_name(profile, r)
        )?;
    }
    writeln!(w)?;
    writeln!(w, "Calls by duration in {unit} (raw, log2 buckets):")?;
    for r in &rows[..shown] {
        let buckets: Vec<String> = r
            .histogram
            .iter()
            .enumerate()
            .filter(|(_, &n)| n > 0)
            .map(|(i, n)| format!("{} {n}", bucket_label(i)))
            .collect();
        if buckets.is_empty() {
            continue;
        }
        writeln!(w, " {}: {}", function_name(profile, r), buckets.join("  "))?;
    }
    write!(
        w,
        "
calls      completed calls (entry and exit both seen).
total      the {unit} from the entry hook to the exit hook (-pg: from
           _mcount to the return), summed over calls; callees included.
self       total less the time in instrumented callees.
raw        as the hooks measured it: the entry hook's own cost is inside,
           the function's code before the entry hook (prologue) and after
           the exit hook (epilogue) is in its caller.
comp       compensated: each hook call whose body ran inside less the
           mean hook cost, prologue and epilogue moved back into the
           function. The flat profile and call graph below show these.
min avg max  shortest, mean and longest single call.
"
    )?;
    Ok(())
}

/// The instrumentation parameters, for an instrumented profile.
fn instrument_info(profile: &Profile) -> Option<&InstrumentInfo> {
    if profile.meta.method != Method::Instrument {
        return None;
    }
    profile.meta.instrumentation.as_ref()
}

/// The `instrumentation` object of the JSON report (docs/report-json.md),
/// `None` for a profile that is not instrumented.
pub(crate) fn json_value(profile: &Profile) -> Option<Value> {
    let info = instrument_info(profile)?;
    let functions: Vec<Value> = sorted(profile)
        .into_iter()
        .map(|r| {
            json!({
                "id": r.function.0,
                "name": function_name(profile, r),
                "calls": r.calls,
                "total": r.total,
                "total_compensated": r.total_compensated,
                "self": r.self_time,
                "self_compensated": r.self_compensated,
                "min": r.min,
                "max": r.max,
                "average": ratio(r.total, r.calls),
                "average_compensated": ratio(r.total_compensated, r.calls),
                "histogram": r.histogram,
            })
        })
        .collect();
    Some(json!({
        "hooks": info.hooks,
        "unit": info.unit,
        "hook_calls": info.hook_calls,
        "hook_total": info.hook_total,
        "hook_mean": ratio(info.hook_total, info.hook_calls),
        "excluded": info.excluded,
        "functions": functions,
    }))
}

#[cfg(test)]
mod tests {
    use super::*;
    use fwprof_profile::{FunctionRecord, Meta};

    fn profile() -> Profile {
        let mut meta = Meta::new("k.elf");
        meta.method = Method::Instrument;
        meta.instrumentation = Some(InstrumentInfo {
            hooks: "cyg_profile".into(),
            unit: "instructions".into(),
            hook_calls: 40,
            hook_total: 80,
            excluded: vec!["bar*".into()],
        });
        let mut p = Profile::new(meta, vec!["instructions".into()]);
        let foo = p.add_function(FunctionRecord::new("foo", 0x100, 0x120));
        p.instrumented.push(InstrumentRecord {
            function: foo,
            calls: 20,
            total: 100,
            self_time: 100,
            total_compensated: 400,
            self_compensated: 400,
            min: 4,
            max: 9,
            histogram: vec![0, 0, 15, 5],
        });
        p
    }

    #[test]
    fn table_shows_raw_compensated_and_histogram() {
        let mut out = Vec::new();
        write_instrumented(&profile(), None, &mut out).unwrap();
        let text = String::from_utf8(out).unwrap();
        assert!(
            text.contains("40 hook calls cost 80 instructions (2.00 per call)"),
            "{text}"
        );
        assert!(text.contains("Excluded (counted in their callers): bar*"));
        let row = text.lines().find(|l| l.ends_with("  foo")).unwrap();
        let cols: Vec<&str> = row.split_whitespace().collect();
        assert_eq!(
            cols,
            ["20", "100", "400", "100", "400", "4", "5.00", "9", "20.00", "foo"]
        );
        assert!(text.contains(" foo: [4,8) 15  [8,16) 5"), "{text}");
    }

    #[test]
    fn json_lists_functions() {
        let v = json_value(&profile()).unwrap();
        assert_eq!(v["hook_mean"], 2.0);
        assert_eq!(v["functions"][0]["name"], "foo");
        assert_eq!(v["functions"][0]["average_compensated"], 20.0);
        assert_eq!(v["functions"][0]["histogram"], json!([0, 0, 15, 5]));
        let mut exact = profile();
        exact.meta.method = Method::Exact;
        assert!(json_value(&exact).is_none());
        let mut out = Vec::new();
        write_instrumented(&exact, None, &mut out).unwrap();
        assert!(out.is_empty());
    }
}
