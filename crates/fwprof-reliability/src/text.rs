//! The text table: one row per workload and parameter value, one column
//! per method, with its legend, the workloads' descriptions and the
//! failures.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::io::{self, Write};

use crate::catalogue::{CORE, METHODS};
use crate::metrics::{Cell, Metrics, Run};

/// `1234567` → `1.2M`.
fn short_count(n: u64) -> String {
    if n >= 1_000_000 {
        format!("{:.1}M", n as f64 / 1e6)
    } else if n >= 1_000 {
        format!("{:.0}k", n as f64 / 1e3)
    } else {
        n.to_string()
    }
}

/// A table cell: the largest error in points, and the missed functions.
fn cell_text(c: &Cell) -> String {
    let Some(c) = c else {
        return "n/a".to_string();
    };
    let lost = |m: &Metrics| match m.lost_percent() {
        Some(l) if l >= 1.0 => format!(" lost {l:.0}%"),
        Some(l) if l > 0.0 => format!(" lost {l:.1}%"),
        _ => String::new(),
    };
    match c {
        Ok(m) if m.missed.is_empty() => format!("{:.1}{}", m.max_abs_error, lost(m)),
        Ok(m) => format!("{:.1} miss {}{}", m.max_abs_error, m.missed.len(), lost(m)),
        Err(_) => "failed".to_string(),
    }
}

/// Writes the text table of `runs` (as [`crate::run_suite`] returns
/// them): a legend of the methods and references, one row per run
/// (workload, parameter, the reference's instructions, then per method the
/// largest error of a function's self share in percentage points with one
/// decimal, `miss N` for N missed functions ≥ 1%, `lost N%` for sampling
/// points lost to sleep, `n/a` or `failed`), the workloads' descriptions
/// and, if any run failed, each error once with the runs it hit.
///
/// Errors: only those of `w`.
pub fn write_text(runs: &[Run], mut w: impl Write) -> io::Result<()> {
    writeln!(
        w,
        "fwprof reliability: each method's error against an exact profile (self shares)"
    )?;
    for m in METHODS {
        writeln!(w, "  {:<12} {}", m.name(), m.describe())?;
    }
    writeln!(
        w,
        "References: exact instructions of the plain build; own-build: of the instrumented build without its hooks; icount and time: cycles of --core {CORE}."
    )?;
    writeln!(
        w,
        "Cells: the largest error of any function's share, in percentage points; \"miss N\": N functions with ≥ 1% of the exact profile got nothing; \"lost N%\": sampling points that fell while the program slept."
    )?;
    writeln!(w)?;
    let mut header = format!("{:<12} {:>9} {:>7}", "workload", "parameter", "instr");
    for m in METHODS {
        let _ = write!(header, "  {:>12}", m.name());
    }
    writeln!(w, "{header}")?;
    let mut previous = "";
    for r in runs {
        let name = if r.workload.name == previous {
            ""
        } else {
            r.workload.name
        };
        previous = r.workload.name;
        let total = r
            .reference
            .as_ref()
            .map_or_else(|_| "failed".to_string(), |x| short_count(x.total));
        let mut line = format!("{name:<12} {:>9} {total:>7}", r.param);
        for c in &r.cells {
            let _ = write!(line, "  {:>12}", cell_text(c));
        }
        writeln!(w, "{}", line.trim_end())?;
    }
    writeln!(w)?;
    writeln!(w, "Workloads:")?;
    let mut seen: Vec<&str> = Vec::new();
    for r in runs {
        if seen.contains(&r.workload.name) {
            continue;
        }
        seen.push(r.workload.name);
        writeln!(
            w,
            "  {:<12} {}; breaks: {}",
            r.workload.name, r.workload.parameter, r.workload.breaks
        )?;
    }
    // Errors, each message once with the runs it hit.
    let mut errors: BTreeMap<String, Vec<String>> = BTreeMap::new();
    for r in runs {
        let at = format!("{} {}", r.workload.name, r.param);
        match &r.reference {
            Err(e) => errors.entry(e.clone()).or_default().push(at),
            Ok(_) => {
                for (m, c) in METHODS.iter().zip(&r.cells) {
                    if let Some(Err(e)) = c {
                        errors
                            .entry(format!("{}: {e}", m.name()))
                            .or_default()
                            .push(at.clone());
                    }
                }
            }
        }
    }
    if !errors.is_empty() {
        writeln!(w)?;
        writeln!(w, "Failed:")?;
        for (e, at) in &errors {
            let runs = if at.len() > 3 {
                format!("{} runs", at.len())
            } else {
                at.join(", ")
            };
            writeln!(w, "  {e} [{runs}]")?;
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::catalogue::WORKLOADS;
    use crate::metrics::Reference;

    fn metrics(max_abs_error: f64, missed: &[&str], idle: Option<u64>) -> Metrics {
        Metrics {
            max_abs_error,
            max_abs_error_function: None,
            mean_abs_error: 0.0,
            tau_b: None,
            top_n: 0,
            top_overlap: 0,
            missed: missed.iter().map(|m| m.to_string()).collect(),
            missed_share: 0.0,
            invented: Vec::new(),
            invented_share: 0.0,
            coverage: None,
            samples: idle.map(|_| 99),
            idle_samples: idle,
            grade: "good",
            verdict: String::new(),
            functions: Vec::new(),
        }
    }

    #[test]
    fn rows_cells_and_failures() {
        let bare = WORKLOADS.iter().find(|w| w.name == "ctxloss-bare").unwrap();
        let nomem = &WORKLOADS[0];
        let boom = || Some(Err("boom (exit status 125)".to_string()));
        let runs = [
            Run {
                workload: bare,
                param: 1,
                reference: Ok(Reference {
                    total: 2_500_000,
                    functions: Vec::new(),
                }),
                cells: vec![
                    Some(Ok(metrics(1.26, &[], Some(1)))),
                    Some(Ok(metrics(20.0, &["a", "b"], Some(0)))),
                    None,
                    None,
                    None,
                    boom(),
                    Some(Ok(metrics(0.04, &[], Some(50)))),
                    boom(),
                ],
            },
            Run {
                workload: nomem,
                param: 100,
                reference: Err("exact: no such file".into()),
                cells: METHODS.iter().map(|_| boom()).collect(),
            },
        ];
        let mut out = Vec::new();
        write_text(&runs, &mut out).unwrap();
        let text = String::from_utf8(out).unwrap();
        let lines: Vec<&str> = text.lines().collect();
        // 1 of 100 points lost: `lost 1%`; 50 of 149: `lost 34%`.
        assert!(lines.contains(
            &"ctxloss-bare         1    2.5M   1.3 lost 1%   20.0 miss 2           n/a           n/a           n/a        failed  0.0 lost 34%        failed"
        ), "{text}");
        assert!(lines.contains(
            &"nomem              100  failed        failed        failed        failed        failed        failed        failed        failed        failed"
        ), "{text}");
        let failed = text.split("\nFailed:\n").nth(1).unwrap();
        assert_eq!(
            failed,
            "  exact: no such file [nomem 100]\n  icount: boom (exit status 125) [ctxloss-bare 1]\n  time-jitter: boom (exit status 125) [ctxloss-bare 1]\n"
        );
    }

    #[test]
    fn short_counts() {
        assert_eq!(short_count(18_052_110), "18.1M");
        assert_eq!(short_count(2_500), "2k");
        assert_eq!(short_count(999), "999");
    }
}
