//! The trap table of `fwprof report` and its JSON (`trap_contexts`,
//! `privilege_totals`): per trap cause, the count, the self and inclusive
//! cost of its trap contexts and, for interrupts, the latency, from the
//! profile's `traps` and `privilege` sections.

use std::io::{self, Write};

use fwprof_profile::{Level, PrivilegeSection, Profile, Spread, TrapSection};
use serde_json::{json, Map, Value};

use crate::json::by_event;
use crate::style::{self, Role};

/// The profile's `traps` section, if it has one that this build reads
/// with at least one cause.
fn section(profile: &Profile) -> Option<TrapSection> {
    profile
        .section::<TrapSection>()
        .ok()
        .flatten()
        .filter(|t| !t.causes.is_empty())
}

/// `min avg max` of `s` over `count` values, `avg` with two decimals.
fn min_avg_max(s: &Spread, count: u64) -> (u64, f64, u64) {
    let avg = if count == 0 {
        0.0
    } else {
        s.total as f64 / count as f64
    };
    (s.min, avg, s.max)
}

/// Writes the trap table when the profile has trap contexts (nothing
/// otherwise): a title, then one row per cause — its root's name, traps
/// taken, the self and inclusive cost of its contexts in event `event`,
/// and for interrupts the latency in instructions (min, avg, max) and,
/// when recorded with a core model, in cycles — followed by a blank line.
/// The root names are those of the call graph's trap roots.
///
/// Errors: only those of `w`.
pub fn write_trap_table(
    profile: &Profile,
    event: usize,
    color: bool,
    mut w: impl Write,
) -> io::Result<()> {
    let Some(t) = section(profile) else {
        return Ok(());
    };
    let cycles = t
        .causes
        .iter()
        .any(|c| c.latency.is_some_and(|l| l.cycles.is_some()));
    let ev = profile
        .events
        .get(event)
        .map_or("instructions", String::as_str);
    let unit = match ev {
        "instructions" => "instrs".to_string(),
        e => e.to_string(),
    };
    style::line(&mut w, color, Some(Role::Title), "Trap contexts:")?;
    writeln!(w)?;
    let mut head = format!(
        "{:>8} {:>12} {:>12}  {:>26}",
        "count",
        format!("self {unit}"),
        format!("total {unit}"),
        "latency instrs min/avg/max"
    );
    if cycles {
        head.push_str(&format!("  {:>26}", "latency cycles min/avg/max"));
    }
    head.push_str("  cause");
    style::line(&mut w, color, Some(Role::Title), &head)?;
    let name = |c: &fwprof_profile::TrapCause| {
        profile
            .functions
            .get(c.root.index())
            .map_or_else(|| format!("cause {}", c.code), |f| f.name.clone())
    };
    for c in &t.causes {
        let cost = |v: &[u64]| v.get(event).copied().unwrap_or(0);
        let lat = |s: Option<Spread>, count: u64| match s {
            Some(s) => {
                let (min, avg, max) = min_avg_max(&s, count);
                format!("{min:>8} {avg:>8.2} {max:>8}")
            }
            None => format!("{:>8} {:>8} {:>8}", "-", "-", "-"),
        };
        let count = c.latency.map_or(0, |l| l.count);
        let mut row = format!(
            "{:>8} {:>12} {:>12}  {:>26}",
            c.count,
            cost(&c.self_cost),
            cost(&c.inclusive),
            lat(c.latency.map(|l| l.instructions), count)
        );
        if cycles {
            row.push_str(&format!(
                "  {:>26}",
                lat(c.latency.and_then(|l| l.cycles), count)
            ));
        }
        row.push_str(&format!("  {}", name(c)));
        writeln!(w, "{row}")?;
    }
    writeln!(w)
}

/// The JSON report's `trap_contexts` array, `None` without trap contexts
/// (see `docs/report-json.md`).
pub(crate) fn trap_contexts_json(profile: &Profile) -> Option<Value> {
    let t = section(profile)?;
    let spread = |s: Spread, count: u64| {
        let (min, avg, max) = min_avg_max(&s, count);
        json!({ "min": min, "avg": avg, "max": max })
    };
    let rows: Vec<Value> = t
        .causes
        .iter()
        .map(|c| {
            let latency = c.latency.map(|l| {
                json!({
                    "count": l.count,
                    "instructions": spread(l.instructions, l.count),
                    "cycles": l.cycles.map(|s| spread(s, l.count)),
                })
            });
            json!({
                "name": profile.functions.get(c.root.index()).map(|f| f.name.clone()),
                "function_id": c.root.0,
                "interrupt": c.interrupt,
                "code": c.code,
                "count": c.count,
                "self": by_event(profile, &c.self_cost),
                "inclusive": by_event(profile, &c.inclusive),
                "latency": latency,
            })
        })
        .collect();
    Some(Value::Array(rows))
}

/// The JSON report's `privilege_totals`: `{"M": {event: value}, ...}` for
/// the levels where anything ran, `None` without a `privilege` section.
pub(crate) fn privilege_totals_json(profile: &Profile) -> Option<Value> {
    let p = profile.section::<PrivilegeSection>().ok().flatten()?;
    let mut m = Map::new();
    for l in Level::ALL {
        if let Some(t) = p.totals.iter().find(|t| t.level == l) {
            m.insert(l.as_str().to_string(), by_event(profile, &t.cost));
        }
    }
    Some(Value::Object(m))
}
