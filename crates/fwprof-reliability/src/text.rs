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

    #[test]
    fn short_counts() {
        assert_eq!(short_count(18_052_110), "18.1M");
        assert_eq!(short_count(2_500), "2k");
        assert_eq!(short_count(999), "999");
    }
}
