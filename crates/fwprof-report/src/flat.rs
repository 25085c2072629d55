//! The flat profile, in the layout of GNU gprof (binutils `gprof/hist.c`).

use std::io::{self, Write};

use fwprof_profile::{FunctionRecord, Profile};

use crate::options::{FlatOptions, SortKey};
use crate::{cost, percent, unit};

/// Writes the flat profile: one row per function with a nonzero cost or
/// call count, columns `% time`, `cumulative`, `self`, `calls`,
/// `self/call`, `total/call`, `name`, as gprof prints them but in units of
/// the event (instructions) rather than seconds; `total/call` is inclusive
/// cost per call. Rows follow `opts.sort` (gprof's order by default) and
/// are cut at `opts.top`.
///
/// Errors: only those of `w`.
pub fn write_flat(profile: &Profile, opts: &FlatOptions, mut w: impl Write) -> io::Result<()> {
    let e = opts.event;
    let event = profile.events.get(e).map_or("instructions", String::as_str);
    let total = cost(&profile.totals, e);
    let rows = sorted_rows(profile, e, opts.sort);
    let shown = opts.top.map_or(rows.len(), |n| n.min(rows.len()));

    writeln!(w, "Flat profile:")?;
    if let Some(reason) = &profile.meta.partial {
        writeln!(w, "(partial profile: {reason})")?;
    }
    writeln!(w)?;
    let singular = if event == "instructions" {
        "instruction"
    } else {
        event
    };
    writeln!(
        w,
        "Each sample counts as 1 {singular} (exact counts, not sampled)."
    )?;
    if total == 0 {
        writeln!(w, " no {event} accumulated")?;
        writeln!(w)?;
    }
    let u = unit(event);
    let per_call = format!("{u}/call");
    let head1 = format!(
        "{:>6} {:>12} {:>12} {:>10} {:>12} {:>12}",
        "%", "cumulative", "self", "", "self", "total"
    );
    writeln!(w, "{}", head1.trim_end())?;
    writeln!(
        w,
        "{:>6} {:>12} {:>12} {:>10} {:>12} {:>12}  name",
        "time", u, u, "calls", per_call, per_call
    )?;
    let mut cumulative = 0u64;
    for f in &rows[..shown] {
        let self_cost = cost(&f.self_cost, e);
        cumulative = cumulative.saturating_add(self_cost);
        write!(
            w,
            "{:>6.2} {:>12} {:>12}",
            percent(self_cost, total),
            cumulative,
            self_cost
        )?;
        if f.calls != 0 {
            let calls = f.calls as f64;
            let incl = cost(&f.inclusive, e) as f64;
            write!(
                w,
                " {:>10} {:>12.2} {:>12.2}  ",
                f.calls,
                self_cost as f64 / calls,
                incl / calls
            )?;
        } else {
            write!(w, " {:>10} {:>12} {:>12}  ", "", "", "")?;
        }
        writeln!(w, "{}", f.name)?;
    }
    if !opts.brief {
        write_blurb(&mut w, event, u)?;
    }
    Ok(())
}

/// Functions with a nonzero cost or call count, in the requested order.
pub(crate) fn sorted_rows(profile: &Profile, e: usize, sort: SortKey) -> Vec<&FunctionRecord> {
    let mut rows: Vec<&FunctionRecord> = profile
        .functions
        .iter()
        .filter(|f| f.calls != 0 || cost(&f.self_cost, e) != 0 || cost(&f.inclusive, e) != 0)
        .collect();
    let s = |f: &FunctionRecord| cost(&f.self_cost, e);
    let i = |f: &FunctionRecord| cost(&f.inclusive, e);
    rows.sort_by(|a, b| {
        match sort {
            SortKey::SelfCost => s(b)
                .cmp(&s(a))
                .then(b.calls.cmp(&a.calls))
                .then(a.name.cmp(&b.name)),
            SortKey::Inclusive => i(b)
                .cmp(&i(a))
                .then(s(b).cmp(&s(a)))
                .then(a.name.cmp(&b.name)),
            SortKey::Calls => b
                .calls
                .cmp(&a.calls)
                .then(s(b).cmp(&s(a)))
                .then(a.name.cmp(&b.name)),
            SortKey::Name => a.name.cmp(&b.name),
        }
        .then(a.start.cmp(&b.start))
    });
    rows
}

fn write_blurb(w: &mut impl Write, event: &str, u: &str) -> io::Result<()> {
    write!(
        w,
        "
 %         the percentage of all {event} spent in this
 time      function itself.

cumulative a running sum of the {event} counted for this
 {u:<9} function and those listed above it.

 self      the {event} counted in this function alone. This is
 {u:<9} the major sort for this listing.

calls      the number of times this function was invoked (by a
           call or a tail call).

 self      the average number of {event} spent in this
 {u}/call  function per call.

 total     the average number of {event} spent in this
 {u}/call  function and its descendants per call.

name       the name of the function. [unknown 0x...] is code that
           no symbol covers.
"
    )
}
