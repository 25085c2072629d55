//! A diff as text and as the `fwprof-diff/1` JSON document
//! (`docs/diff-merge.md`).

use std::io::Write;

use serde_json::{json, Map, Value};

use super::{Change, Diff, Side, Status};
use crate::Error;

impl Diff {
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
                if let Some(l) = &f.location {
                    v["location"] = json!(l);
                }
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
                    format!("{}{mark}", f.label()),
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
pub(super) fn percent_text(c: Change) -> String {
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
