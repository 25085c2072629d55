//! A comparison as the `fwprof-compare/1` JSON document and as text
//! (`docs/compare.md`).

use std::io::{self, Write};

use fwprof_profile::Method;

use serde_json::{json, Value};

use super::{Comparison, FunctionComparison, Side, SIGNIFICANT_PERCENT, TEXT_MIN_PERCENT};

fn opt_f(v: Option<f64>) -> Value {
    v.map_or(Value::Null, |x| json!(x))
}

impl Comparison {
    /// The `fwprof-compare/1` JSON document (`docs/compare.md`).
    pub fn to_json(&self) -> Value {
        let side = |s: &Side| {
            json!({
                "program": s.program,
                "sha256": s.sha256,
                "command": s.command,
                "method": s.method.as_str(),
                "sampling": s.sampling.as_ref().map(|x| json!({
                    "period": x.period,
                    "unit": x.unit,
                    "jitter": x.jitter,
                    "seed": x.seed,
                    "samples": x.samples,
                    "unwind_failures": x.unwind_failures,
                })),
                "partial": s.partial,
                "total": s.total,
                "functions": s.functions,
            })
        };
        let functions: Vec<Value> = self
            .functions
            .iter()
            .map(|f| {
                json!({
                    "name": f.name,
                    "start": f.start,
                    "reference": {
                        "self": f.reference_self,
                        "share": f.reference_share,
                        "inclusive_share": f.reference_inclusive,
                    },
                    "other": {
                        "self": f.other_self,
                        "share": f.other_share,
                        "inclusive_share": f.other_inclusive,
                        "samples": opt_f(f.samples),
                    },
                    "abs_error": f.abs_error,
                    "rel_error": opt_f(f.rel_error),
                    "inclusive_abs_error": f.inclusive_abs_error,
                    "interval": f.interval.map(|(lo, hi)| json!([lo, hi])),
                    "covers": f.covers,
                    "missed": f.missed,
                    "invented": f.invented,
                })
            })
            .collect();
        let r = &self.ranking;
        let s = &self.summary;
        json!({
            "schema": "fwprof-compare/1",
            "event": self.event,
            "z": self.z,
            "samples": self.samples,
            "sample_counts": self.sample_counts,
            "significant_percent": SIGNIFICANT_PERCENT,
            "reference": side(&self.reference),
            "other": side(&self.other),
            "warnings": self.warnings,
            "functions": functions,
            "ranking": {
                "top": r.requested,
                "n": r.n,
                "tau_b": opt_f(r.tau_b),
                "overlap": r.overlap,
                "reference_top": r.reference_top,
                "other_top": r.other_top,
            },
            "missed": self.missed,
            "invented": self.invented,
            "summary": {
                "significant": s.significant,
                "intervals": s.intervals,
                "covered": s.covered,
                "coverage": opt_f(s.coverage),
                "max_abs_error": s.max_abs_error,
                "max_abs_error_function": s.max_abs_error_function,
                "mean_abs_error": s.mean_abs_error,
                "missed_share": s.missed_share,
                "invented_share": s.invented_share,
            },
            "verdict": {
                "grade": self.verdict.grade.as_str(),
                "reasons": self.verdict.reasons,
                "text": self.verdict.text,
            },
        })
    }

    /// Write the JSON document, pretty-printed, with a final newline.
    pub fn write_json(&self, w: &mut dyn Write) -> io::Result<()> {
        serde_json::to_writer_pretty(&mut *w, &self.to_json())?;
        writeln!(w)
    }

    /// Write the text report: header, table, rank agreement, missed and
    /// invented functions, verdict (layout in `docs/compare.md`). Warnings
    /// are not included (the CLI prints them on stderr).
    pub fn write_text(&self, w: &mut dyn Write) -> io::Result<()> {
        let unit = crate::unit(&self.event);
        for (label, s) in [("reference", &self.reference), ("other", &self.other)] {
            // A sampled total is samples × period up to the last sample:
            // an estimate that leaves out what ran after it.
            let all = if s.method == Method::Sample {
                format!("~{} {unit} in all (estimated from samples)", s.total)
            } else {
                format!("{} {unit} in all", s.total)
            };
            writeln!(w, "{label:<9}  {}: {}, {all}", s.program, s.describe())?;
        }
        writeln!(
            w,
            "event      {} (shares in % of each profile's total; errors in points)",
            self.event
        )?;
        if let (Some(n), Some(src)) = (self.samples, self.sample_counts) {
            let src = match src {
                "event" => "OTHER's samples event",
                "records" => "OTHER's sample records",
                _ => "OTHER's shares × n",
            };
            writeln!(
                w,
                "intervals  95% Wilson score, sample proportion of n = {n} samples (counts from {src})"
            )?;
        }
        writeln!(w)?;
        let name_w = self
            .functions
            .iter()
            .map(|f| f.name.chars().count())
            .max()
            .unwrap_or(8)
            .clamp(8, 40);
        writeln!(
            w,
            "{:<name_w$}  {:>7}  {:>7}  {:>7}  {:>8}  {:>15}  {:>6}",
            "function", "ref %", "other %", "abs err", "rel err", "95% CI", "covers"
        )?;
        let shown = |f: &&FunctionComparison| {
            f.missed || f.reference_share >= TEXT_MIN_PERCENT || f.other_share >= TEXT_MIN_PERCENT
        };
        for f in self.functions.iter().filter(shown) {
            let rel = f.rel_error.map_or("n/a".to_string(), |r| {
                format!("{:+.1}%", if r.abs() < 0.05 { 0.0 } else { r })
            });
            let ci = f
                .interval
                .map_or("n/a".to_string(), |(lo, hi)| format!("{lo:.2}–{hi:.2}"));
            let covers = match f.covers {
                Some(true) => "yes",
                Some(false) => "NO",
                None => "n/a",
            };
            let mut name = f.name.clone();
            if name.chars().count() > name_w {
                name = name.chars().take(name_w - 1).collect::<String>() + "…";
            }
            let mark = if f.missed {
                "  missed"
            } else if f.invented {
                "  invented"
            } else {
                ""
            };
            writeln!(
                w,
                "{name:<name_w$}  {:>7.2}  {:>7.2}  {:>+7.2}  {rel:>8}  {ci:>15}  {covers:>6}{mark}",
                f.reference_share,
                f.other_share,
                // No "-0.00" for an error that rounds to zero.
                if f.abs_error.abs() < 0.005 { 0.0 } else { f.abs_error }
            )?;
        }
        let hidden = self.functions.len() - self.functions.iter().filter(shown).count();
        if hidden > 0 {
            writeln!(
                w,
                "({hidden} functions below {TEXT_MIN_PERCENT}% in both profiles not shown; \
                 --format json lists them)"
            )?;
        }
        writeln!(w)?;
        let r = &self.ranking;
        writeln!(
            w,
            "rank agreement   Kendall tau-b over the reference's top {}: {}",
            r.n,
            r.tau_b.map_or("n/a".to_string(), |t| format!("{t:.3}"))
        )?;
        writeln!(w, "top-{} overlap   {}/{}", r.n, r.overlap, r.n)?;
        let s = &self.summary;
        writeln!(
            w,
            "errors           max {:.2} points{}, mean {:.2} points over the {} functions above {SIGNIFICANT_PERCENT}%",
            s.max_abs_error,
            s.max_abs_error_function
                .as_ref()
                .map_or(String::new(), |n| format!(" ({n})")),
            s.mean_abs_error,
            s.significant
        )?;
        match s.coverage {
            Some(c) => writeln!(
                w,
                "coverage         {} of {} intervals above {SIGNIFICANT_PERCENT}% cover the reference ({:.0}%)",
                s.covered,
                s.intervals,
                c * 100.0
            )?,
            None => writeln!(w, "coverage         n/a (OTHER is not sampled)")?,
        }
        let list = |v: &[String]| {
            if v.is_empty() {
                "none".to_string()
            } else {
                v.join(", ")
            }
        };
        writeln!(w, "missed           {}", list(&self.missed))?;
        writeln!(w, "invented         {}", list(&self.invented))?;
        writeln!(w, "verdict          {}", self.verdict.text)?;
        Ok(())
    }
}
