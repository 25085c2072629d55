//! `fwprof diff`: the per-function change from one profile to another, the
//! way to prove (or disprove) an optimisation with exact counts.
//!
//! Functions are paired by the one rule of
//! [`fwprof_profile::match_functions`] (same name; equal source files
//! first, then address order), so two `static` functions of one name are
//! two rows, told apart by [`FunctionDiff::location`]. For every event both profiles record, each
//! function's self and inclusive cost before and after, the change and the
//! change in percent of the old value are given; rows are sorted by the
//! largest absolute change of the chosen event's self cost (then of its
//! inclusive cost, then by name). A function that has no cost and no calls
//! in one profile but has some in the other *appeared* or *vanished*.
//! Events only one profile records are left out, with a note. The text
//! layout is described in `docs/diff-merge.md`; the JSON shape
//! (`fwprof-diff/1`) too.

mod gate;
mod render;
#[cfg(test)]
mod tests;

use std::collections::HashMap;
use std::io::Write;

use fwprof_profile::{match_functions, FunctionRecord};

use crate::{Error, ExportOptions, Profile};
use gate::{sample_count, share_change, total_margin};

/// Whether a function is in both profiles.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Status {
    /// It has cost or calls in both profiles.
    Both,
    /// Only the after profile has cost or calls for it.
    Appeared,
    /// Only the before profile has cost or calls for it.
    Vanished,
}

impl Status {
    /// `"both"`, `"appeared"` or `"vanished"` (the JSON `status`).
    pub fn as_str(self) -> &'static str {
        match self {
            Status::Both => "both",
            Status::Appeared => "appeared",
            Status::Vanished => "vanished",
        }
    }
}

/// One value before and after.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Change {
    /// The value in the before profile.
    pub before: u64,
    /// The value in the after profile.
    pub after: u64,
}

impl Change {
    /// `after - before` (exact, may be negative).
    pub fn delta(self) -> i128 {
        i128::from(self.after) - i128::from(self.before)
    }

    /// The change in percent of `before`; `None` if `before` is 0.
    pub fn percent(self) -> Option<f64> {
        (self.before != 0).then(|| self.delta() as f64 * 100.0 / self.before as f64)
    }
}

/// One function's costs in both profiles.
#[derive(Clone, Debug, PartialEq)]
pub struct FunctionDiff {
    /// The function's name.
    pub name: String,
    /// Which function of that name, when another row has the same name
    /// (e.g. two `static` functions of one name in different files): its
    /// source file as recorded when that tells the rows apart, else its
    /// start address (`0x...`, the before profile's when it has the
    /// function). `None` for a name only one row has.
    pub location: Option<String>,
    /// In both profiles, or only one.
    pub status: Status,
    /// Calls (and tail calls) into the function.
    pub calls: Change,
    /// Self cost per compared event ([`Diff::events`] order).
    pub self_cost: Vec<Change>,
    /// Inclusive cost per compared event.
    pub inclusive: Vec<Change>,
    /// When either profile is sampled: the change of the function's share
    /// of the sort event's self cost, with its 95% interval.
    pub share: Option<ShareChange>,
}

impl FunctionDiff {
    /// The name as the text shows it: `name`, or `name (location)` when
    /// [`FunctionDiff::location`] is set.
    pub fn label(&self) -> String {
        match &self.location {
            Some(l) => format!("{} ({l})", self.name),
            None => self.name.clone(),
        }
    }
}

/// The change of a function's share of the total between a sampled
/// profile and another (sampled or exact), with Newcombe's hybrid score
/// interval (method 10, from the Wilson intervals of each sampled share;
/// an exact share is known exactly): [`fwprof_report::newcombe_difference`].
/// Shares in percent of each profile's total.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ShareChange {
    /// Share in the before profile, in percent.
    pub before: f64,
    /// Share in the after profile, in percent.
    pub after: f64,
    /// Lower bound of the 95% interval of `after - before`, in points.
    pub low: f64,
    /// Upper bound of the 95% interval of `after - before`, in points.
    pub high: f64,
    /// Lower bound of the interval `--fail-above` judges by, in points:
    /// at [`GATE_Z`], the 95% level shared by up to 500 functions
    /// (Bonferroni), so that a gate over a whole profile is not tripped
    /// by the one function in twenty whose 95% interval misses by chance.
    pub gate_low: f64,
}

/// The normal quantile of `--fail-above`'s intervals on sampled shares:
/// two-sided 1 − 0.05/500 (99.99%), z = 3.891.
pub const GATE_Z: f64 = 3.891;

impl ShareChange {
    /// `after - before`, in points.
    pub fn change(self) -> f64 {
        self.after - self.before
    }

    /// True if the interval contains 0: the change is within sampling
    /// noise at the 95% level.
    pub fn contains_zero(self) -> bool {
        self.low <= 0.0 && self.high >= 0.0
    }
}

/// The comparison of two profiles; see the module documentation.
#[derive(Clone, Debug)]
pub struct Diff {
    /// The events both profiles record, in the before profile's order.
    pub events: Vec<String>,
    /// Index in [`Diff::events`] of the event rows are sorted by.
    pub sort_event: usize,
    /// Events only the before profile records (left out).
    pub before_only: Vec<String>,
    /// Events only the after profile records (left out).
    pub after_only: Vec<String>,
    /// Totals per compared event.
    pub totals: Vec<Change>,
    /// Every function with cost or calls in either profile, sorted.
    pub functions: Vec<FunctionDiff>,
    /// Samples of each side when it is sampled (`None`: exact or
    /// instrumented); with either sampled, costs are estimates and
    /// [`FunctionDiff::share`] is set.
    pub samples: [Option<u64>; 2],
    /// How far each side's total of the sort event may be from the true
    /// count (0 for an exact profile): see [`Diff::growth_above`].
    total_margin: [u64; 2],
    /// Program path, SHA-256, command line and partial reason of each side.
    sides: [Side; 2],
    /// One-line warnings for stderr (different programs, partial profiles).
    warnings: Vec<String>,
}

#[derive(Clone, Debug)]
struct Side {
    program: String,
    sha256: String,
    command: Vec<String>,
    partial: Option<String>,
    core: Option<String>,
}

impl Side {
    fn of(p: &Profile) -> Side {
        Side {
            program: p.meta.program.clone(),
            sha256: p.meta.sha256.clone(),
            command: p.meta.command.clone(),
            partial: p.meta.partial.clone(),
            core: p.meta.core.clone(),
        }
    }
}

/// Sets [`FunctionDiff::location`] of the rows whose name another row
/// has: the recorded source file when every row of that name has a
/// different one, else the start address. `places[i]` is the source file
/// and start of row `i`'s function.
fn locate_repeated_names(functions: &mut [FunctionDiff], places: &[(Option<String>, u64)]) {
    let mut rows_of: HashMap<&str, Vec<usize>> = HashMap::new();
    for (i, f) in functions.iter().enumerate() {
        rows_of.entry(f.name.as_str()).or_default().push(i);
    }
    let mut located = Vec::new();
    for rows in rows_of.into_values().filter(|r| r.len() > 1) {
        let mut files: Vec<Option<&str>> = rows.iter().map(|&i| places[i].0.as_deref()).collect();
        files.sort_unstable();
        files.dedup();
        let by_file = files.len() == rows.len() && files.iter().all(Option::is_some);
        for i in rows {
            let (file, start) = &places[i];
            located.push((
                i,
                match file {
                    Some(file) if by_file => file.clone(),
                    _ => format!("{start:#x}"),
                },
            ));
        }
    }
    for (i, l) in located {
        functions[i].location = Some(l);
    }
}

/// Compare `before` with `after`, sorting by event `event` (an index into
/// `before.events`).
///
/// # Errors
/// [`Error::Mismatch`] (one line) if the profiles share no event or the
/// chosen event is not in `after`; [`Error::Unsupported`] if `event` is
/// out of range.
pub fn compare(before: &Profile, after: &Profile, event: usize) -> Result<Diff, Error> {
    let chosen = before
        .events
        .get(event)
        .ok_or_else(|| Error::Unsupported(format!("event index {event} is out of range")))?;
    // (name, index in before, index in after)
    let common: Vec<(String, usize, usize)> = before
        .events
        .iter()
        .enumerate()
        .filter_map(|(i, e)| after.event_index(e).map(|j| (e.clone(), i, j)))
        .collect();
    if common.is_empty() {
        return Err(Error::Mismatch(format!(
            "the profiles share no event: BEFORE has {}, AFTER has {}",
            before.events.join(","),
            after.events.join(",")
        )));
    }
    let sort_event = common
        .iter()
        .position(|(e, _, _)| e == chosen)
        .ok_or_else(|| {
            Error::Mismatch(format!(
                "event `{chosen}` is not in AFTER; the profiles share: {}",
                common
                    .iter()
                    .map(|c| c.0.as_str())
                    .collect::<Vec<_>>()
                    .join(", ")
            ))
        })?;
    let only = |p: &Profile, q: &Profile| -> Vec<String> {
        p.events
            .iter()
            .filter(|e| q.event_index(e).is_none())
            .cloned()
            .collect()
    };
    let zero = FunctionRecord::new("", 0, 0);
    let mut functions = Vec::new();
    // Source file and start of each row's function (before's if it has one).
    let mut places = Vec::new();
    for (b, a) in match_functions(&before.functions, &after.functions) {
        let fb = b.map_or(&zero, |i| &before.functions[i]);
        let fa = a.map_or(&zero, |i| &after.functions[i]);
        let pick = |v: &[u64], i: usize| v.get(i).copied().unwrap_or(0);
        let self_cost: Vec<Change> = common
            .iter()
            .map(|&(_, i, j)| Change {
                before: pick(&fb.self_cost, i),
                after: pick(&fa.self_cost, j),
            })
            .collect();
        let inclusive: Vec<Change> = common
            .iter()
            .map(|&(_, i, j)| Change {
                before: pick(&fb.inclusive, i),
                after: pick(&fa.inclusive, j),
            })
            .collect();
        let calls = Change {
            before: fb.calls,
            after: fa.calls,
        };
        let present = |side: fn(&Change) -> u64| {
            side(&calls) > 0 || self_cost.iter().chain(&inclusive).any(|c| side(c) > 0)
        };
        let status = match (present(|c| c.before), present(|c| c.after)) {
            (false, false) => continue,
            (true, true) => Status::Both,
            (false, true) => Status::Appeared,
            (true, false) => Status::Vanished,
        };
        let f = if b.is_some() { fb } else { fa };
        functions.push(FunctionDiff {
            name: f.name.clone(),
            location: None,
            status,
            calls,
            self_cost,
            inclusive,
            share: None,
        });
        places.push((f.file.clone(), f.start));
    }
    locate_repeated_names(&mut functions, &places);
    functions.sort_by(|x, y| {
        let key = |f: &FunctionDiff| {
            (
                f.self_cost[sort_event].delta().unsigned_abs(),
                f.inclusive[sort_event].delta().unsigned_abs(),
            )
        };
        key(y)
            .cmp(&key(x))
            .then_with(|| x.name.cmp(&y.name))
            .then_with(|| x.location.cmp(&y.location))
    });
    let totals: Vec<Change> = common
        .iter()
        .map(|&(_, i, j)| Change {
            before: before.totals.get(i).copied().unwrap_or(0),
            after: after.totals.get(j).copied().unwrap_or(0),
        })
        .collect();
    let samples = [sample_count(before), sample_count(after)];
    if samples.iter().any(Option::is_some) {
        let (tb, ta) = {
            let t: &Change = &totals[sort_event];
            (t.before, t.after)
        };
        for f in &mut functions {
            let c = f.self_cost[sort_event];
            f.share = Some(share_change(
                c.before, tb, samples[0], c.after, ta, samples[1],
            ));
        }
    }
    let sides = [Side::of(before), Side::of(after)];
    let mut warnings = Vec::new();
    if before.meta.sha256 != after.meta.sha256 {
        let short = |s: &str| s.get(..12).unwrap_or(s).to_string();
        warnings.push(format!(
            "the profiles are of different programs (BEFORE {} sha256 {}…, AFTER {} sha256 {}…): functions are matched by name",
            before.meta.program,
            short(&before.meta.sha256),
            after.meta.program,
            short(&after.meta.sha256)
        ));
    }
    if before.meta.core != after.meta.core {
        let core = |c: &Option<String>| c.clone().unwrap_or_else(|| "none".into());
        warnings.push(format!(
            "the profiles were recorded with different core models (BEFORE {}, AFTER {})",
            core(&before.meta.core),
            core(&after.meta.core)
        ));
    }
    for (label, s) in ["BEFORE", "AFTER"].iter().zip(&sides) {
        if let Some(r) = &s.partial {
            warnings.push(format!("{label} is a partial profile ({r})"));
        }
    }
    Ok(Diff {
        events: common.into_iter().map(|c| c.0).collect(),
        sort_event,
        before_only: only(before, after),
        after_only: only(after, before),
        totals,
        functions,
        samples,
        total_margin: [total_margin(before), total_margin(after)],
        sides,
        warnings,
    })
}

/// Write the per-function differences from `before` to `after` to `out`,
/// as text or (`json`) JSON, sorted by event `opts.event` (an index into
/// `before.events`). Warnings ([`Diff::warnings`]) are not written: call
/// [`compare`] and [`Diff::write`] to show them.
///
/// # Errors
/// Those of [`compare`], and [`Error::Io`].
pub fn write(
    before: &Profile,
    after: &Profile,
    opts: &ExportOptions,
    json: bool,
    out: &mut dyn Write,
) -> Result<(), Error> {
    compare(before, after, opts.event)?.write(json, out)
}

impl Diff {
    /// One-line warnings for stderr: the profiles are of different programs
    /// (SHA-256) or core models, or one is partial. The comparison is still
    /// made.
    pub fn warnings(&self) -> &[String] {
        &self.warnings
    }
}
