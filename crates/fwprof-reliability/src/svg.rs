//! The chart: error against parameter, one small multiple per workload
//! and one line per method, as self-contained SVG 1.1.

use std::fmt::Write as _;
use std::io::{self, Write};

use crate::catalogue::{MethodId, Workload, METHODS, PERIOD, SEED, TIME_PERIOD};
use crate::metrics::{Metrics, Run};

/// Line colours of the methods in the chart.
fn color(m: MethodId) -> &'static str {
    match m {
        MethodId::Sample => "#d62728",
        MethodId::Jitter => "#1f77b4",
        MethodId::Instrument => "#ff7f0e",
        MethodId::Compensated => "#2ca02c",
        MethodId::OwnBuild => "#9467bd",
        MethodId::Icount => "#7f7f7f",
        MethodId::Time => "#8c564b",
        MethodId::TimeJitter => "#17becf",
    }
}

/// The smallest of 1, 2, 5 × 10^k that is ≥ `x` (and ≥ 1).
fn nice_ceiling(x: f64) -> f64 {
    let mut step = 1.0;
    loop {
        for m in [1.0, 2.0, 5.0] {
            if m * step >= x {
                return m * step;
            }
        }
        step *= 10.0;
    }
}

/// `16384` → `16384`, `1000000` → `1M`, `10000` → `10k`.
fn short_param(v: u64) -> String {
    // `u64::is_multiple_of` is newer than the MSRV (1.85).
    if v >= 1_000_000 && (v / 1_000_000) * 1_000_000 == v {
        format!("{}M", v / 1_000_000)
    } else if v >= 10_000 && (v / 1_000) * 1_000 == v {
        format!("{}k", v / 1_000)
    } else {
        v.to_string()
    }
}

/// XML text escaping.
fn esc(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

/// The chart of `runs` (as [`crate::run_suite`] returns them): one small
/// multiple per workload (x: the parameter values, evenly spaced; y: the
/// largest share error in percentage points, from 0 to a round ceiling),
/// one line per method; a square marks a run where the method missed a
/// function with ≥ 1%. Self-contained SVG 1.1, 300 × 200 units a panel,
/// three panels a row.
pub fn svg(runs: &[Run]) -> String {
    let mut groups: Vec<(&Workload, Vec<&Run>)> = Vec::new();
    for r in runs {
        match groups.last_mut() {
            Some((w, v)) if w.name == r.workload.name => v.push(r),
            _ => groups.push((r.workload, vec![r])),
        }
    }
    let cols = groups.len().clamp(1, 3);
    let rows = groups.len().div_ceil(cols).max(1);
    let (pw, ph) = (300.0, 200.0); // panel
    let (ml, mr, mt, mb) = (44.0, 12.0, 26.0, 34.0); // plot margins inside a panel
    let top = 70.0; // title and legend
                    // Wide enough for the legend of every method on one line.
    let width = (pw * cols as f64 + 20.0).max(980.0);
    let height = top + ph * rows as f64 + 10.0;
    let mut s = String::new();
    let _ = writeln!(
        s,
        r#"<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" viewBox="0 0 {width} {height}" font-family="sans-serif" font-size="11">"#
    );
    let _ = writeln!(
        s,
        r#"<rect x="0" y="0" width="{width}" height="{height}" fill="white"/>"#
    );
    let _ = writeln!(
        s,
        r#"<text x="10" y="20" font-size="14" font-weight="bold">fwprof reliability: largest error of a function's share against the exact profile (percentage points)</text>"#
    );
    let mut lx = 10.0;
    for m in METHODS {
        let _ = writeln!(
            s,
            r#"<line x1="{lx}" y1="42" x2="{}" y2="42" stroke="{}" stroke-width="2"/><circle cx="{}" cy="42" r="3" fill="{}"/><text x="{}" y="46">{}</text>"#,
            lx + 24.0,
            color(m),
            lx + 12.0,
            color(m),
            lx + 30.0,
            m.name()
        );
        lx += 44.0 + 7.0 * m.name().len() as f64;
    }
    let _ = writeln!(
        s,
        r#"<rect x="{lx}" y="38" width="7" height="7" fill="none" stroke="black"/><text x="{}" y="46">a function ≥ 1% missed</text>"#,
        lx + 12.0
    );
    let _ = writeln!(
        s,
        r##"<text x="10" y="62" fill="#555">sampling period {PERIOD} instructions, time-paced {TIME_PERIOD} cycles; jitter seed {SEED}; instrumentation: -finstrument-functions build, raw and compensated</text>"##
    );
    for (gi, (w, rs)) in groups.iter().enumerate() {
        let ox = 10.0 + pw * (gi % cols) as f64;
        let oy = top + ph * (gi / cols) as f64;
        let (x0, x1) = (ox + ml, ox + pw - mr);
        let (y0, y1) = (oy + ph - mb, oy + mt);
        let ymax = nice_ceiling(
            rs.iter()
                .flat_map(|r| r.cells.iter().flatten())
                .filter_map(|c| c.as_ref().ok().map(|m| m.max_abs_error))
                .fold(0.0, f64::max),
        );
        let n = rs.len();
        let xat = |i: usize| {
            if n <= 1 {
                (x0 + x1) / 2.0
            } else {
                x0 + (x1 - x0) * i as f64 / (n - 1) as f64
            }
        };
        let yat = |v: f64| y0 - (y0 - y1) * (v / ymax).clamp(0.0, 1.0);
        let _ = writeln!(
            s,
            r##"<g><text x="{}" y="{}" font-weight="bold">{} <tspan font-weight="normal" fill="#555">({})</tspan></text>"##,
            ox + 4.0,
            oy + 14.0,
            esc(w.name),
            esc(w.symbol)
        );
        // Axes, grid and labels.
        for k in 0..=2 {
            let v = ymax * k as f64 / 2.0;
            let y = yat(v);
            let _ = writeln!(
                s,
                r##"<line x1="{x0}" y1="{y:.1}" x2="{x1}" y2="{y:.1}" stroke="#ddd"/><text x="{:.1}" y="{:.1}" text-anchor="end">{}</text>"##,
                x0 - 4.0,
                y + 4.0,
                if v.fract() == 0.0 {
                    format!("{v:.0}")
                } else {
                    format!("{v:.1}")
                }
            );
        }
        let _ = writeln!(
            s,
            r##"<line x1="{x0}" y1="{y0}" x2="{x1}" y2="{y0}" stroke="#333"/><line x1="{x0}" y1="{y0}" x2="{x0}" y2="{y1}" stroke="#333"/>"##
        );
        for (i, r) in rs.iter().enumerate() {
            let _ = writeln!(
                s,
                r#"<text x="{:.1}" y="{:.1}" text-anchor="middle">{}</text>"#,
                xat(i),
                y0 + 14.0,
                short_param(r.param)
            );
        }
        for (mi, m) in METHODS.iter().enumerate() {
            let points: Vec<(usize, &Metrics)> = rs
                .iter()
                .enumerate()
                .filter_map(|(i, r)| match &r.cells[mi] {
                    Some(Ok(x)) => Some((i, x)),
                    _ => None,
                })
                .collect();
            if points.len() > 1 {
                let path: Vec<String> = points
                    .iter()
                    .map(|(i, x)| format!("{:.1},{:.1}", xat(*i), yat(x.max_abs_error)))
                    .collect();
                let _ = writeln!(
                    s,
                    r#"<polyline points="{}" fill="none" stroke="{}" stroke-width="1.5"/>"#,
                    path.join(" "),
                    color(*m)
                );
            }
            for (i, x) in &points {
                let (cx, cy) = (xat(*i), yat(x.max_abs_error));
                let title = format!(
                    "{} {} {}: {:.2} points{}",
                    w.name,
                    rs[*i].param,
                    m.name(),
                    x.max_abs_error,
                    if x.missed.is_empty() {
                        String::new()
                    } else {
                        format!(", missed {}", x.missed.join(", "))
                    }
                );
                if x.missed.is_empty() {
                    let _ = writeln!(
                        s,
                        r#"<circle cx="{cx:.1}" cy="{cy:.1}" r="3" fill="{}"><title>{}</title></circle>"#,
                        color(*m),
                        esc(&title)
                    );
                } else {
                    let _ = writeln!(
                        s,
                        r#"<rect x="{:.1}" y="{:.1}" width="8" height="8" fill="{}" stroke="black"><title>{}</title></rect>"#,
                        cx - 4.0,
                        cy - 4.0,
                        color(*m),
                        esc(&title)
                    );
                }
            }
        }
        let _ = writeln!(s, "</g>");
    }
    s.push_str("</svg>\n");
    s
}

/// Writes [`svg`] of `runs`.
///
/// Errors: only those of `w`.
pub fn write_svg(runs: &[Run], mut w: impl Write) -> io::Result<()> {
    w.write_all(svg(runs).as_bytes())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nice_ceilings() {
        assert_eq!(nice_ceiling(0.0), 1.0);
        assert_eq!(nice_ceiling(0.4), 1.0);
        assert_eq!(nice_ceiling(1.5), 2.0);
        assert_eq!(nice_ceiling(3.0), 5.0);
        assert_eq!(nice_ceiling(37.9), 50.0);
        assert_eq!(nice_ceiling(50.0), 50.0);
    }

    #[test]
    fn short_forms() {
        assert_eq!(short_param(16384), "16384");
        assert_eq!(short_param(1_000_000), "1M");
        assert_eq!(short_param(10_000), "10k");
        assert_eq!(short_param(10007), "10007");
    }
}
