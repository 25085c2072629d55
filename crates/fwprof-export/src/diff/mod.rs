//! `fwprof diff`: the per-function change from one profile to another, the
//! way to prove (or disprove) an optimisation with exact counts.
//!
//! Functions are matched by name (functions sharing a name within one
//! profile are added together). For every event both profiles record, each
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

use std::collections::BTreeMap;
use std::io::Write;

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

/// Per-name sums of one profile: (calls, self, inclusive), events indexed
/// by the profile's own order.
type Sums = BTreeMap<String, (u64, Vec<u64>, Vec<u64>)>;

fn sums(p: &Profile) -> Sums {
    let mut m = Sums::new();
    for f in &p.functions {
        let e = m
            .entry(f.name.clone())
            .or_insert_with(|| (0, vec![0; p.events.len()], vec![0; p.events.len()]));
        e.0 = e.0.saturating_add(f.calls);
        for (a, b) in e.1.iter_mut().zip(&f.self_cost) {
            *a = a.saturating_add(*b);
        }
        for (a, b) in e.2.iter_mut().zip(&f.inclusive) {
            *a = a.saturating_add(*b);
        }
    }
    m
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
    let (b, a) = (sums(before), sums(after));
    let zero = (0u64, Vec::new(), Vec::new());
    let mut functions = Vec::new();
    let names: std::collections::BTreeSet<&String> = b.keys().chain(a.keys()).collect();
    for name in names {
        let fb = b.get(name).unwrap_or(&zero);
        let fa = a.get(name).unwrap_or(&zero);
        let pick = |v: &[u64], i: usize| v.get(i).copied().unwrap_or(0);
        let self_cost: Vec<Change> = common
            .iter()
            .map(|&(_, i, j)| Change {
                before: pick(&fb.1, i),
                after: pick(&fa.1, j),
            })
            .collect();
        let inclusive: Vec<Change> = common
            .iter()
            .map(|&(_, i, j)| Change {
                before: pick(&fb.2, i),
                after: pick(&fa.2, j),
            })
            .collect();
        let calls = Change {
            before: fb.0,
            after: fa.0,
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
        functions.push(FunctionDiff {
            name: name.clone(),
            status,
            calls,
            self_cost,
            inclusive,
            share: None,
        });
    }
    functions.sort_by(|x, y| {
        let key = |f: &FunctionDiff| {
            (
                f.self_cost[sort_event].delta().unsigned_abs(),
                f.inclusive[sort_event].delta().unsigned_abs(),
            )
        };
        key(y).cmp(&key(x)).then_with(|| x.name.cmp(&y.name))
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
