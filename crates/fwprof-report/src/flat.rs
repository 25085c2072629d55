//! The flat profile, in the layout of GNU gprof (binutils `gprof/hist.c`).

use std::io::{self, Write};

use fwprof_profile::{FunctionRecord, Method, Profile};

use crate::events::{one_of, Column};
use crate::options::{FlatOptions, SortKey};
use crate::style::{self, Role};
use crate::{cost, percent, unit};

/// Writes the flat profile: one row per function with a nonzero cost or
/// call count, columns `% time`, `cumulative`, `self`, `calls`,
/// `self/call`, `total/call`, `name`, as gprof prints them but in units of
/// event `opts.event` (instructions by default) rather than seconds;
/// `total/call` is inclusive cost per call. Rows follow `opts.sort`
/// (gprof's order by default, by the event's self cost) and are cut at
/// `opts.top`.
///
/// Each of `opts.columns` adds a column before `name`, headed `self` over
/// the event's unit (`cycles`, `loads` ...) or the ratio's header (`CPI`,
/// `icache miss %`, `dcache miss %`, `mispredict %`): the function's self
/// cost of that event, or the ratio of its self costs, CPI with two
/// decimals and the rates in percent with two decimals; `-` where the
/// denominator is 0. A function is listed if it was called or has a
/// nonzero cost of the primary event or of any event column.
///
/// A partial profile (`meta.partial`) is not announced here: the caller
/// says so once, before all sections ([`crate::write_report`] does).
///
/// With `opts.color`, the title and the column headings are bold, rows
/// with at least 10% of the total (as printed) bold red and with at
/// least 1% yellow (ANSI SGR); without it, plain text.
///
/// Errors: only those of `w`.
pub fn write_flat(profile: &Profile, opts: &FlatOptions, mut w: impl Write) -> io::Result<()> {
    let e = opts.event;
    let event = event_name(profile, e);
    let total = cost(&profile.totals, e);
    let mut shown_events = vec![e];
    shown_events.extend(opts.columns.iter().filter_map(|c| match c {
        Column::Event(i) => Some(*i),
        Column::Derived(_) => None,
    }));
    let rows = sorted_rows(profile, &shown_events, opts.sort);
    let shown = opts.top.map_or(rows.len(), |n| n.min(rows.len()));
    let extras: Vec<Extra> = opts
        .columns
        .iter()
        .map(|&column| {
            let header = match column {
                Column::Event(i) => unit(event_name(profile, i)).to_string(),
                Column::Derived(d) => d.header().to_string(),
            };
            Extra {
                column,
                width: header.len().max(12),
                header,
            }
        })
        .collect();

    let color = opts.color;
    style::line(&mut w, color, Some(Role::Title), "Flat profile:")?;
    writeln!(w)?;
    if profile.meta.method == Method::Instrument {
        writeln!(
            w,
            "Costs from the instrumentation hooks, compensated for their overhead (not sampled)."
        )?;
    } else if let (Method::Sample, Some(s)) = (profile.meta.method, &profile.meta.sampling) {
        writeln!(w, "{}", crate::sampling_header(s))?;
        writeln!(
            w,
            "Each sample counts as the {} since the previous one: costs are estimates.",
            s.unit
        )?;
    } else {
        writeln!(
            w,
            "Each sample counts as 1 {} (exact counts, not sampled).",
            one_of(event)
        )?;
    }
    if let Some(line) = crate::sleep_note(&profile.meta) {
        writeln!(w, "{line}.")?;
    }
    if total == 0 {
        writeln!(w, " no {event} accumulated")?;
        writeln!(w)?;
    }
    let u = unit(event);
    let per_call = format!("{u}/call");
    // Widths grow for long event names so that columns stay aligned.
    let cw = u.len().max(12);
    let pw = per_call.len().max(12);
    let mut head1 = format!(
        "{:>6} {:>cw$} {:>cw$} {:>10} {:>pw$} {:>pw$}",
        "%", "cumulative", "self", "", "self", "total"
    );
    let mut head2 = format!(
        "{:>6} {:>cw$} {:>cw$} {:>10} {:>pw$} {:>pw$}",
        "time", u, u, "calls", per_call, per_call
    );
    for x in &extras {
        head1.push_str(&format!(" {:>w$}", "self", w = x.width));
        head2.push_str(&format!(" {:>w$}", x.header, w = x.width));
    }
    style::line(&mut w, color, Some(Role::Title), head1.trim_end())?;
    style::line(&mut w, color, Some(Role::Title), &format!("{head2}  name"))?;
    let mut cumulative = 0u64;
    for f in &rows[..shown] {
        let self_cost = cost(&f.self_cost, e);
        cumulative = cumulative.saturating_add(self_cost);
        let share = format!("{:>6.2}", percent(self_cost, total));
        let mut row = format!("{share} {cumulative:>cw$} {self_cost:>cw$}");
        if f.calls != 0 {
            let calls = f.calls as f64;
            let incl = cost(&f.inclusive, e) as f64;
            row.push_str(&format!(
                " {:>10} {:>pw$.2} {:>pw$.2}",
                f.calls,
                self_cost as f64 / calls,
                incl / calls
            ));
        } else {
            row.push_str(&format!(" {:>10} {:>pw$} {:>pw$}", "", "", ""));
        }
        for x in &extras {
            let text = match x.column {
                Column::Event(i) => cost(&f.self_cost, i).to_string(),
                Column::Derived(d) => match d.value(profile, &f.self_cost) {
                    None => "-".to_string(),
                    Some(v) if d.is_rate() => format!("{:.2}", 100.0 * v),
                    Some(v) => format!("{v:.2}"),
                },
            };
            row.push_str(&format!(" {text:>width$}", width = x.width));
        }
        row.push_str("  ");
        row.push_str(&f.name);
        let role = if color { Role::of_share(&share) } else { None };
        style::line(&mut w, color, role, &row)?;
    }
    if !opts.brief {
        write_blurb(&mut w, event, u)?;
        if !extras.is_empty() {
            write_extras_blurb(&mut w, profile, &extras)?;
        }
    }
    Ok(())
}

/// One column of [`FlatOptions::columns`] with its header and width.
struct Extra {
    column: Column,
    header: String,
    width: usize,
}

/// Name of event `e`, `instructions` if out of range.
fn event_name(profile: &Profile, e: usize) -> &str {
    profile.events.get(e).map_or("instructions", String::as_str)
}

/// Functions that were called or have a nonzero self or inclusive cost of
/// any of `events`, in the requested order (by `events[0]`).
pub(crate) fn sorted_rows<'p>(
    profile: &'p Profile,
    events: &[usize],
    sort: SortKey,
) -> Vec<&'p FunctionRecord> {
    let e = events.first().copied().unwrap_or(0);
    let mut rows: Vec<&FunctionRecord> = profile
        .functions
        .iter()
        .filter(|f| {
            f.calls != 0
                || events
                    .iter()
                    .any(|&e| cost(&f.self_cost, e) != 0 || cost(&f.inclusive, e) != 0)
        })
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

/// Explains the columns of [`FlatOptions::columns`], one line each.
fn write_extras_blurb(w: &mut impl Write, profile: &Profile, extras: &[Extra]) -> io::Result<()> {
    let label = extras.iter().map(|x| x.header.len()).max().unwrap_or(0);
    writeln!(w)?;
    writeln!(
        w,
        "Further columns, each of the function alone (its self cost):"
    )?;
    for x in extras {
        let what = match x.column {
            Column::Event(i) => format!("the {} counted in it.", event_name(profile, i)),
            Column::Derived(d) => {
                let (num, den) = d.inputs();
                let unit = if d.is_rate() {
                    ", in percent"
                } else {
                    " (cycles per instruction)"
                };
                format!("{num} / {den}{unit}; `-` when it has no {den}.")
            }
        };
        writeln!(w, " {:<label$}  {what}", x.header)?;
    }
    Ok(())
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
