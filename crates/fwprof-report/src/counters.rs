//! The reports of a profile recorded with emulated hardware counters
//! (`record --method counters`, its `counters` section): a summary of how
//! it was measured and the regions table (in the full report), and the
//! per-run and per-function record of the measurement (`report --descent`:
//! which functions were measured in which run, which the call-graph
//! descent skipped and with what bound).

use std::io::{self, Write};

use fwprof_profile::{CounterSection, Method, Profile};

/// Why `report --descent` has nothing to show.
#[derive(Debug, thiserror::Error)]
#[error("the profile was not recorded with --method counters (it has no counters section)")]
pub struct NoCounters;

fn section(profile: &Profile) -> Option<CounterSection> {
    if profile.meta.method != Method::Counters {
        return None;
    }
    profile.section::<CounterSection>().ok().flatten()
}

/// Percent of `total`, 0 for a zero total.
fn pct(v: u64, total: u64) -> f64 {
    if total == 0 {
        0.0
    } else {
        100.0 * v as f64 / total as f64
    }
}

/// The summary lines of a counters profile, and its regions table if it
/// measured regions; nothing for other profiles. Ends with a blank line
/// when it wrote anything.
///
/// Errors: only those of `w`.
pub fn write_counter_summary(profile: &Profile, w: &mut dyn Write) -> io::Result<()> {
    let Some(c) = section(profile) else {
        return Ok(());
    };
    let measured = c.runs.iter().filter(|r| r.kind == "measure").count();
    let what = match c.strategy.as_str() {
        "descent" => format!("call-graph descent at {}%", c.threshold.unwrap_or(0.0)),
        "regions" => "regions".to_string(),
        "cyclic" => {
            "every function in turn within one run (--safe-stop; counts scaled)".to_string()
        }
        _ => "every function, in subsets".to_string(),
    };
    writeln!(
        w,
        "Hardware counters: {what}; {} counters per run counting {}, {} mode, probes of {} cycles",
        c.counters,
        c.events.join(", "),
        c.mode,
        c.probe_cost
    )?;
    let first = match c.runs.first().map(|r| r.kind.as_str()) {
        Some(k) if k != "measure" => format!("1 {k} run + "),
        _ => String::new(),
    };
    writeln!(
        w,
        "Runs: {first}{measured} measurement runs (the subset method needs {} for every function)",
        c.subset_runs
    )?;
    if !c.regions.is_empty() {
        writeln!(w)?;
        let width = c
            .regions
            .iter()
            .map(|r| r.name.len())
            .max()
            .unwrap_or(6)
            .max(6);
        let first = c.events.first().map_or("", String::as_str);
        writeln!(
            w,
            "  {:<width$}  {:>10}  {:>14}  {:>12}  {:>12}  {:>14}   ({first})",
            "region", "executions", "total", "min", "max", "average"
        )?;
        for r in &c.regions {
            let total = r.totals.first().copied().unwrap_or(0);
            let avg = if r.executions == 0 {
                0.0
            } else {
                total as f64 / r.executions as f64
            };
            writeln!(
                w,
                "  {:<width$}  {:>10}  {:>14}  {:>12}  {:>12}  {:>14.2}",
                r.name, r.executions, total, r.min, r.max, avg
            )?;
            for (e, t) in c.events.iter().zip(&r.totals).skip(1) {
                writeln!(w, "  {:<width$}  {:>10}  {:>14}  ({e})", "", "", t)?;
            }
            if r.open_at_end > 0 {
                writeln!(
                    w,
                    "  {:<width$}  ({} executions still open when the run ended, closed there)",
                    "", r.open_at_end
                )?;
            }
        }
    }
    writeln!(w)
}

/// `report --descent`: the summary, the runs (what each measured, how it
/// ended), then every function considered — measured (in which run, its
/// value and share of the global count, its bound when chosen), skipped
/// (with the bound below the threshold) or never called — largest first.
///
/// Errors: [`NoCounters`] as an [`io::Error`] of kind `InvalidInput` for
/// a profile without the section; write errors.
pub fn write_counters(profile: &Profile, w: &mut dyn Write) -> io::Result<()> {
    let c =
        section(profile).ok_or_else(|| io::Error::new(io::ErrorKind::InvalidInput, NoCounters))?;
    write_counter_summary(profile, w)?;
    let name = |f: fwprof_profile::FunctionId| {
        profile
            .functions
            .get(f.0 as usize)
            .map_or("?", |r| r.name.as_str())
    };
    let first = c.events.first().cloned().unwrap_or_default();
    let total = profile.event_index(&first).map_or(0, |i| profile.totals[i]);
    writeln!(
        w,
        "  run  kind        functions  executed instructions  end"
    )?;
    for (i, r) in c.runs.iter().enumerate() {
        let fs: Vec<&str> = r.functions.iter().map(|&f| name(f)).collect();
        writeln!(
            w,
            "  {i:>3}  {:<10}  {:>9}  {:>21}  {}{}",
            r.kind,
            r.functions.len(),
            r.executed,
            if r.end.is_empty() {
                "exit"
            } else {
                r.end.as_str()
            },
            match fs.len() {
                0 => String::new(),
                1..=8 => format!("  [{}]", fs.join(", ")),
                n => format!("  [{}, … {} more]", fs[..8].join(", "), n - 8),
            }
        )?;
    }
    writeln!(w)?;
    if c.functions.is_empty() {
        return Ok(());
    }
    let mut rows: Vec<_> = c.functions.iter().collect();
    let key =
        |f: &fwprof_profile::CounterFunction| f.values.first().copied().or(f.bound).unwrap_or(0);
    rows.sort_by(|a, b| {
        key(b)
            .cmp(&key(a))
            .then_with(|| name(a.function).cmp(name(b.function)))
    });
    let width = rows
        .iter()
        .map(|f| name(f.function).len())
        .max()
        .unwrap_or(8)
        .max(8);
    // A cyclic measurement's value is the scaled estimate the profile
    // holds (the section keeps what was counted).
    let cyclic = c.strategy == "cyclic";
    let event = profile.event_index(&first).unwrap_or(0);
    let shown = |f: &fwprof_profile::CounterFunction| -> Option<u64> {
        let v = *f.values.first()?;
        if !cyclic {
            return Some(v);
        }
        let r = profile.functions.get(f.function.index())?;
        Some(if c.mode == "exclusive" {
            r.self_cost[event]
        } else {
            r.inclusive[event]
        })
    };
    if cyclic {
        writeln!(
            w,
            "  (cyclic: M(f) is scaled from its slices to the whole run; `report --descent --format json` has the counts)"
        )?;
    }
    writeln!(
        w,
        "  {:<width$}  {:<10}  {:>3}  {:>14}  {:>7}  {:>14}  {:>11}",
        "function",
        "decision",
        "run",
        format!("M(f) {first}"),
        "%",
        "bound",
        "activations"
    )?;
    for f in rows {
        let value = shown(f).map_or(String::new(), |v| v.to_string());
        let share = shown(f).map_or(String::new(), |v| format!("{:.2}", pct(v, total)));
        writeln!(
            w,
            "  {:<width$}  {:<10}  {:>3}  {:>14}  {:>7}  {:>14}  {:>11}",
            name(f.function),
            f.decision,
            f.run.map_or(String::new(), |r| r.to_string()),
            value,
            share,
            f.bound.map_or("-".to_string(), |b| b.to_string()),
            if f.values.is_empty() {
                String::new()
            } else {
                f.activations.to_string()
            },
        )?;
    }
    Ok(())
}
