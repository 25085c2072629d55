//! The address-space table of `fwprof report` and its JSON
//! (`address_spaces`), from the profile's `address_spaces` section: per
//! space (one per `satp` value code ran under), its translation scheme,
//! ASID, root page table, cost and the function that cost most in it.

use std::io::{self, Write};

use fwprof_profile::{AddressSpace, AddressSpaceSection, Profile};
use serde_json::{json, Value};

use crate::style::{self, Role};

/// The profile's `address_spaces` section, if it has one this build reads.
fn section(profile: &Profile) -> Option<AddressSpaceSection> {
    profile.section::<AddressSpaceSection>().ok().flatten()
}

/// The function of `space` with the largest self cost in event `event`.
fn top_function(profile: &Profile, space: &AddressSpace, event: usize) -> Option<String> {
    let cost = |v: &[u64]| v.get(event).copied().unwrap_or(0);
    space
        .functions
        .iter()
        .filter(|f| cost(&f.self_cost) > 0)
        .max_by_key(|f| (cost(&f.self_cost), std::cmp::Reverse(f.function.0)))
        .and_then(|f| profile.functions.get(f.function.index()))
        .map(|f| f.name.clone())
}

/// Writes the address-space table when code ran with translation on
/// (nothing otherwise): a title, then one row per space — its number (as
/// in `[unknown 0x… in space N]`), `satp`, scheme, ASID, root page table,
/// its cost in event `event` and its share of the total, and the function
/// with the most self cost there — followed by a blank line.
///
/// Errors: only those of `w`.
pub fn write_space_table(
    profile: &Profile,
    event: usize,
    color: bool,
    mut w: impl Write,
) -> io::Result<()> {
    let Some(s) = section(profile) else {
        return Ok(());
    };
    let unit = crate::events::column_unit(profile, event);
    let total = profile.totals.get(event).copied().unwrap_or(0);
    style::line(&mut w, color, Some(Role::Title), "Address spaces:")?;
    writeln!(w)?;
    let head = format!(
        "{:>5}  {:>18}  {:>5} {:>6} {:>12} {:>12} {:>7}  top function",
        "space", "satp", "mode", "asid", "root", unit, "%"
    );
    style::line(&mut w, color, Some(Role::Title), &head)?;
    for (i, sp) in s.spaces.iter().enumerate() {
        let cost = sp.cost.get(event).copied().unwrap_or(0);
        let pct = if total == 0 {
            0.0
        } else {
            100.0 * cost as f64 / total as f64
        };
        writeln!(
            w,
            "{:>5}  {:>#18x}  {:>5} {:>6} {:>#12x} {:>12} {:>7.2}  {}",
            i,
            sp.satp,
            sp.mode,
            sp.asid,
            sp.root,
            cost,
            pct,
            top_function(profile, sp, event).unwrap_or_default()
        )?;
    }
    writeln!(w)
}

/// The JSON report's `address_spaces` array, `None` without the section
/// (see `docs/report-json.md`).
pub(crate) fn address_spaces_json(profile: &Profile) -> Option<Value> {
    let s = section(profile)?;
    let by_event = |v: &[u64]| crate::json::by_event(profile, v);
    let rows = s
        .spaces
        .iter()
        .enumerate()
        .map(|(i, sp)| {
            let functions: Vec<Value> = sp
                .functions
                .iter()
                .map(|f| {
                    json!({
                        "function_id": f.function.0,
                        "name": profile.functions.get(f.function.index()).map(|r| r.name.clone()),
                        "self": by_event(&f.self_cost),
                    })
                })
                .collect();
            json!({
                "space": i,
                "satp": sp.satp,
                "mode": sp.mode,
                "asid": sp.asid,
                "root": sp.root,
                "cost": by_event(&sp.cost),
                "functions": functions,
            })
        })
        .collect();
    Some(Value::Array(rows))
}
