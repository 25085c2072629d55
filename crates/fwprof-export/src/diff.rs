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

use std::collections::BTreeMap;
use std::io::Write;

use serde_json::{json, Map, Value};

use crate::{Error, ExportOptions, Profile};

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

/// How far a sampled profile's instruction or cycle total may be from the
/// run's: it counts whole periods up to the last sample, so it misses up to
/// one period after it, and with jitter the sum of `n` periods drawn
/// uniformly from 1 to 2P−1 has a standard deviation of about
/// P·sqrt(n/3); 1.96 of those are added. 0 for an exact profile.
fn total_margin(p: &Profile) -> u64 {
    match (p.meta.method, &p.meta.sampling) {
        (fwprof_profile::Method::Sample, Some(s)) => {
            let spread = if s.jitter {
                fwprof_report::Z_95 * s.period as f64 * (s.samples as f64 / 3.0).sqrt()
            } else {
                0.0
            };
            s.period.saturating_add(spread.ceil() as u64)
        }
        _ => 0,
    }
}

/// The number of samples of a sampled profile, `None` otherwise.
fn sample_count(p: &Profile) -> Option<u64> {
    match (p.meta.method, &p.meta.sampling) {
        (fwprof_profile::Method::Sample, Some(s)) => Some(s.samples),
        _ => None,
    }
}

/// The share change of a cost `b` of `tb` (before) to `a` of `ta`
/// (after); a side with `n` samples has a Wilson interval on its share
/// (its count estimated as share × n), an exact side none.
fn share_change(b: u64, tb: u64, nb: Option<u64>, a: u64, ta: u64, na: Option<u64>) -> ShareChange {
    let share = |c: u64, t: u64| if t == 0 { 0.0 } else { c as f64 / t as f64 };
    let interval = |p: f64, n: Option<u64>, z: f64| match n {
        Some(n) => fwprof_report::wilson_interval(p * n as f64, n, z),
        None => (p, p),
    };
    let (pb, pa) = (share(b, tb), share(a, ta));
    let (lo, hi) = fwprof_report::newcombe_difference(
        pa,
        interval(pa, na, fwprof_report::Z_95),
        pb,
        interval(pb, nb, fwprof_report::Z_95),
    );
    let (gate_lo, _) = fwprof_report::newcombe_difference(
        pa,
        interval(pa, na, GATE_Z),
        pb,
        interval(pb, nb, GATE_Z),
    );
    ShareChange {
        before: 100.0 * pb,
        after: 100.0 * pa,
        low: 100.0 * lo,
        high: 100.0 * hi,
        gate_low: 100.0 * gate_lo,
    }
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
    /// What grew by more than `pct` percent (`fwprof diff --fail-above`),
    /// one line each: the total of the sort event, then each function's
    /// self cost of the sort event (a function that appeared with a cost
    /// grew without bound). When either profile is sampled, a function
    /// counts only if the 95% interval of its share change lies above 0,
    /// and the total only if it grew by more than `pct` percent even with
    /// the sampled totals' margins of error against it (one period, plus
    /// 1.96 standard deviations of the summed periods with jitter).
    pub fn growth_above(&self, pct: f64) -> Vec<String> {
        let e = self.sort_event;
        let event = &self.events[e];
        let grew = |c: Change| match c.percent() {
            Some(p) => p > pct,
            None => c.after > 0,
        };
        let mut out = Vec::new();
        let t = self.totals[e];
        // A sampled total counts only if it grew beyond its margin of error.
        let [mb, ma] = self.total_margin;
        let t_sure = Change {
            before: t.before.saturating_add(mb),
            after: t.after.saturating_sub(ma),
        };
        if grew(t_sure) && grew(t) {
            out.push(format!(
                "total {event} grew {} ({} to {})",
                percent_text(t),
                t.before,
                t.after
            ));
        }
        for f in &self.functions {
            let c = f.self_cost[e];
            if !grew(c) || f.share.is_some_and(|s| s.gate_low <= 0.0) {
                continue;
            }
            out.push(format!(
                "{}: self {event} grew {} ({} to {})",
                f.name,
                if c.before == 0 {
                    "from 0".to_string()
                } else {
                    percent_text(c)
                },
                c.before,
                c.after
            ));
        }
        out
    }

    /// One-line warnings for stderr: the profiles are of different programs
    /// (SHA-256) or core models, or one is partial. The comparison is still
    /// made.
    pub fn warnings(&self) -> &[String] {
        &self.warnings
    }

    /// Write as text or (`json`) JSON.
    ///
    /// # Errors
    /// [`Error::Io`].
    pub fn write(&self, json: bool, out: &mut dyn Write) -> Result<(), Error> {
        if json {
            serde_json::to_writer_pretty(&mut *out, &self.to_json())
                .map_err(std::io::Error::from)?;
            writeln!(out)?;
        } else {
            self.write_text(out)?;
        }
        Ok(())
    }

    /// The `fwprof-diff/1` JSON document (docs/diff-merge.md).
    pub fn to_json(&self) -> Value {
        let side = |s: &Side| {
            json!({
                "program": s.program,
                "sha256": s.sha256,
                "command": s.command,
                "partial": s.partial,
                "core": s.core,
            })
        };
        let per_event = |v: &[Change]| -> Value {
            let mut m = Map::new();
            for (e, c) in self.events.iter().zip(v) {
                m.insert(e.clone(), change_json(*c));
            }
            Value::Object(m)
        };
        let functions: Vec<Value> = self
            .functions
            .iter()
            .map(|f| {
                let mut v = json!({
                    "name": f.name,
                    "status": f.status.as_str(),
                    "calls": change_json(f.calls),
                    "self": per_event(&f.self_cost),
                    "inclusive": per_event(&f.inclusive),
                });
                if let Some(sc) = f.share {
                    v["share_change"] = json!({
                        "before": sc.before,
                        "after": sc.after,
                        "change": sc.change(),
                        "low": sc.low,
                        "high": sc.high,
                        "contains_zero": sc.contains_zero(),
                    });
                }
                v
            })
            .collect();
        json!({
            "schema": "fwprof-diff/1",
            "before": side(&self.sides[0]),
            "after": side(&self.sides[1]),
            "same_program": self.sides[0].sha256 == self.sides[1].sha256,
            "events": self.events,
            "sort_event": self.events[self.sort_event],
            "left_out_events": {"before_only": self.before_only, "after_only": self.after_only},
            "totals": per_event(&self.totals),
            "sampled": {"before": self.samples[0], "after": self.samples[1]},
            "functions": functions,
        })
    }

    fn write_text(&self, out: &mut dyn Write) -> Result<(), Error> {
        let cmd = |s: &Side| s.command.join(" ");
        writeln!(out, "Before: {}", cmd(&self.sides[0]))?;
        writeln!(out, "After:  {}", cmd(&self.sides[1]))?;
        for (label, n) in ["BEFORE", "AFTER"].iter().zip(self.samples) {
            if let Some(n) = n {
                writeln!(
                    out,
                    "Note: {label} is sampled ({n} samples): its costs are estimates"
                )?;
            }
        }
        if self.samples.iter().any(Option::is_some) {
            writeln!(
                out,
                "Note: \"share change\" is the change of each function's share of the total \
                 {} in points, with its 95% interval (Newcombe); \"noise\" marks an interval \
                 that contains 0",
                self.events[self.sort_event]
            )?;
        }
        if !self.before_only.is_empty() {
            writeln!(
                out,
                "Note: events only BEFORE records are left out: {}",
                self.before_only.join(", ")
            )?;
        }
        if !self.after_only.is_empty() {
            writeln!(
                out,
                "Note: events only AFTER records are left out: {}",
                self.after_only.join(", ")
            )?;
        }
        writeln!(out)?;
        // Totals.
        let rows: Vec<[String; 5]> = self
            .events
            .iter()
            .zip(&self.totals)
            .map(|(e, c)| {
                [
                    e.clone(),
                    c.before.to_string(),
                    c.after.to_string(),
                    signed(c.delta()),
                    percent_text(*c),
                ]
            })
            .collect();
        writeln!(out, "Totals:")?;
        let head = ["event", "before", "after", "change", "%"].map(String::from);
        write_table(out, &head, &rows, 0)?;

        let sort = &self.events[self.sort_event];
        let order = std::iter::once(self.sort_event)
            .chain((0..self.events.len()).filter(|&e| e != self.sort_event));
        for e in order {
            let name = &self.events[e];
            let mut rows = Vec::new();
            for f in &self.functions {
                let (s, i) = (f.self_cost[e], f.inclusive[e]);
                if f.status == Status::Both && s.delta() == 0 && i.delta() == 0 {
                    continue;
                }
                let mark = match f.status {
                    Status::Both => String::new(),
                    st => format!(" [{}]", st.as_str()),
                };
                let share = match f.share {
                    Some(sc) if e == self.sort_event => format!(
                        "{:+.2} [{:+.2}, {:+.2}]{}",
                        sc.change(),
                        sc.low,
                        sc.high,
                        if sc.contains_zero() { " noise" } else { "" }
                    ),
                    _ => String::new(),
                };
                rows.push([
                    s.before.to_string(),
                    s.after.to_string(),
                    signed(s.delta()),
                    percent_text(s),
                    i.before.to_string(),
                    i.after.to_string(),
                    signed(i.delta()),
                    percent_text(i),
                    share,
                    format!("{}{mark}", f.name),
                ]);
            }
            if rows.is_empty() && e != self.sort_event {
                continue;
            }
            writeln!(out)?;
            writeln!(
                out,
                "Self and inclusive {name} per function, by the largest change in self {sort}:"
            )?;
            let head = [
                "self before",
                "self after",
                "self change",
                "self %",
                "incl before",
                "incl after",
                "incl change",
                "incl %",
                "share change",
                "function",
            ]
            .map(String::from);
            if e == self.sort_event && self.samples.iter().any(Option::is_some) {
                write_table(out, &head, &rows, 9)?;
            } else {
                // Exact profiles: no share column.
                let drop = |r: &[String; 10]| -> [String; 9] {
                    std::array::from_fn(|k| r[if k < 8 { k } else { k + 1 }].clone())
                };
                let rows: Vec<[String; 9]> = rows.iter().map(drop).collect();
                write_table(out, &drop(&head), &rows, 8)?;
            }
            let unchanged = self.functions.len() - rows.len();
            if unchanged > 0 {
                writeln!(
                    out,
                    "({unchanged} functions with unchanged {name} not shown)"
                )?;
            }
        }
        Ok(())
    }
}

/// `{"before": b, "after": a, "change": a-b, "percent": p|null}`.
fn change_json(c: Change) -> Value {
    json!({
        "before": c.before,
        "after": c.after,
        "change": int_json(c.delta()),
        "percent": c.percent(),
    })
}

/// An exact integer where JSON integers reach (always for real profiles).
fn int_json(v: i128) -> Value {
    if let Ok(x) = i64::try_from(v) {
        Value::from(x)
    } else if let Ok(x) = u64::try_from(v) {
        Value::from(x)
    } else {
        Value::from(v as f64)
    }
}

/// `+12`, `-3`, `0`.
fn signed(v: i128) -> String {
    if v > 0 {
        format!("+{v}")
    } else {
        v.to_string()
    }
}

/// `+12.50%`; `new` when the old value is 0 and the new one is not.
fn percent_text(c: Change) -> String {
    match c.percent() {
        Some(p) if p > 0.0 => format!("+{p:.2}%"),
        Some(p) => format!("{p:.2}%"),
        None if c.after > 0 => "new".into(),
        None => "0.00%".into(),
    }
}

/// A table, columns two spaces apart: numbers right-aligned, column
/// `text_col` (the names) left-aligned; no trailing spaces.
fn write_table<const N: usize>(
    out: &mut dyn Write,
    head: &[String; N],
    rows: &[[String; N]],
    text_col: usize,
) -> Result<(), Error> {
    let mut width = [0usize; N];
    for r in std::iter::once(head).chain(rows) {
        for (w, c) in width.iter_mut().zip(r) {
            *w = (*w).max(c.chars().count());
        }
    }
    for r in std::iter::once(head).chain(rows) {
        let mut line = String::new();
        for (k, c) in r.iter().enumerate() {
            if k > 0 {
                line.push_str("  ");
            }
            let pad = width[k] - c.chars().count();
            if k == text_col {
                line.push_str(c);
                if k + 1 < N {
                    line.push_str(&" ".repeat(pad));
                }
            } else {
                line.push_str(&" ".repeat(pad));
                line.push_str(c);
            }
        }
        writeln!(out, "{}", line.trim_end())?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use fwprof_profile::{AddressCost, Arc, FunctionRecord, Meta};

    use super::*;

    /// Functions with (name, self instructions, self cycles); each is its
    /// own root.
    fn profile(sha: &str, events: &[&str], funcs: &[(&str, u64, u64)]) -> Profile {
        let mut meta = Meta::new("p.elf");
        // A SHA-256 is 64 hex digits (`Profile::validate`): repeat the pattern.
        meta.sha256 = sha.repeat(64 / sha.len());
        let n = events.len();
        let mut p = Profile::new(meta, events.iter().map(|e| e.to_string()).collect());
        for (k, &(name, i, c)) in funcs.iter().enumerate() {
            let start = 0x100 + 0x10 * k as u64;
            let id = p.add_function(FunctionRecord::new(name, start, start + 4));
            let cost: Vec<u64> = [i, c][..n].to_vec();
            p.costs
                .push(AddressCost {
                    addr: start,
                    function: id,
                    len: 4,
                    raw: 0x13,
                    cost: cost.clone(),
                })
                .unwrap();
            let f = &mut p.functions[id.index()];
            (f.calls, f.self_cost, f.inclusive) = (1, cost.clone(), cost.clone());
            p.arcs.push(Arc::spontaneous(id, 1, cost.clone()));
            for (t, v) in p.totals.iter_mut().zip(&cost) {
                *t += v;
            }
        }
        p.check_invariants().unwrap();
        p
    }

    #[test]
    fn changes_are_sorted_by_the_largest_absolute_change() {
        let ev = ["instructions", "cycles"];
        let b = profile("a", &ev, &[("f", 100, 300), ("g", 50, 50), ("gone", 7, 7)]);
        let a = profile("a", &ev, &[("f", 90, 100), ("g", 80, 60), ("new", 5, 5)]);
        let d = compare(&b, &a, 0).unwrap();
        let names: Vec<&str> = d.functions.iter().map(|f| f.name.as_str()).collect();
        assert_eq!(names, ["g", "f", "gone", "new"]);
        assert_eq!(d.functions[0].self_cost[0].delta(), 30);
        assert_eq!(d.functions[1].self_cost[1].delta(), -200);
        assert_eq!(d.functions[2].status, Status::Vanished);
        assert_eq!(d.functions[3].status, Status::Appeared);
        assert_eq!(
            d.totals[0],
            Change {
                before: 157,
                after: 175
            }
        );
        assert!(d.warnings().is_empty());
        // By cycles, f's -200 comes first.
        let d = compare(&b, &a, 1).unwrap();
        assert_eq!(d.functions[0].name, "f");

        let mut text = Vec::new();
        d.write(false, &mut text).unwrap();
        let text = String::from_utf8(text).unwrap();
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(
            lines[5], "instructions     157    175     +18  +11.46%",
            "{text}"
        );
        assert_eq!(
            lines[6], "cycles           357    165    -192  -53.78%",
            "{text}"
        );
        assert_eq!(
            lines[8],
            "Self and inclusive cycles per function, by the largest change in self cycles:"
        );
        assert!(lines[10].ends_with("-200   -66.67%  f"), "{text}");
        assert!(lines[12].ends_with("-100.00%  gone [vanished]"), "{text}");
        assert!(
            lines[13].ends_with("+5       new  new [appeared]"),
            "{text}"
        );
        assert!(
            lines[15].starts_with("Self and inclusive instructions"),
            "{text}"
        );

        let mut js = Vec::new();
        d.write(true, &mut js).unwrap();
        let v: Value = serde_json::from_slice(&js).unwrap();
        assert_eq!(v["schema"], "fwprof-diff/1");
        assert_eq!(v["sort_event"], "cycles");
        assert_eq!(v["functions"][0]["self"]["cycles"]["change"], -200);
        assert_eq!(v["functions"][3]["self"]["cycles"]["percent"], Value::Null);
        assert_eq!(v["functions"][3]["status"], "appeared");
        assert_eq!(v["totals"]["instructions"]["after"], 175);
    }

    #[test]
    fn different_programs_warn_and_lone_events_are_left_out() {
        let b = profile("aaaa", &["instructions", "cycles"], &[("f", 10, 20)]);
        let a = profile("bbbb", &["instructions"], &[("f", 12, 0)]);
        let d = compare(&b, &a, 0).unwrap();
        assert_eq!(
            d.warnings(),
            ["the profiles are of different programs (BEFORE p.elf sha256 aaaaaaaaaaaa…, AFTER p.elf sha256 bbbbbbbbbbbb…): functions are matched by name"]
        );
        assert_eq!(d.events, ["instructions"]);
        assert_eq!(d.before_only, ["cycles"]);
        let e = compare(&b, &a, 1).unwrap_err();
        assert_eq!(
            e.to_string(),
            "event `cycles` is not in AFTER; the profiles share: instructions"
        );
        let mut text = Vec::new();
        d.write(false, &mut text).unwrap();
        let text = String::from_utf8(text).unwrap();
        assert!(
            text.contains("Note: events only BEFORE records are left out: cycles"),
            "{text}"
        );
    }

    #[test]
    fn profiles_sharing_no_event_are_refused() {
        // Valid profiles always share `instructions`; build one by hand.
        let b = profile("a", &["instructions"], &[("f", 1, 0)]);
        let mut a = b.clone();
        a.events = vec!["cycles".into()];
        let e = compare(&b, &a, 0).unwrap_err();
        assert!(matches!(e, Error::Mismatch(_)));
        assert_eq!(
            e.to_string(),
            "the profiles share no event: BEFORE has instructions, AFTER has cycles"
        );
    }
}
