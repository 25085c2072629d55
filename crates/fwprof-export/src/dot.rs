//! The call graph for Graphviz (`dot -Tsvg callgraph.dot`), drawn the way
//! gprof2dot draws gprof's: one box per function, one arrow per
//! caller→callee pair, both labelled, coloured and sized by their share of
//! the exported event ([`ExportOptions::event`]).
//!
//! - **Node** label: the function name, its inclusive cost in percent of
//!   the total, its self cost in percent in parentheses, and its calls
//!   (`123×`). The fill colour runs from dark blue (0%) to red (100% of
//!   the total, inclusive), as gprof2dot's temperature colour map does
//!   (HSL interpolation from (2/3, 0.80, 0.25) to (0, 1.0, 0.5)); the
//!   tooltip gives the exact counts.
//! - **Edge** label: the inclusive cost of the calls (cost in the callee and
//!   its descendants during them, summed over call sites and tail calls
//!   as `fwprof report`'s call graph lists them), its percentage, and the
//!   number of calls. Colour and `penwidth` (0.5 to 4 points) follow the
//!   edge's share of the total.
//! - **Threshold**: functions whose inclusive cost is below
//!   [`ExportOptions::threshold`] percent of the total are left out, with
//!   every edge that touches them (gprof2dot's `--node-thres`); spontaneous
//!   arcs (program and trap entry) have no caller and draw no edge.
//!
//! [`ExportOptions::event`]: crate::ExportOptions::event
//! [`ExportOptions::threshold`]: crate::ExportOptions::threshold

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::io::Write;

use crate::{Error, ExportOptions, Profile};

/// Write `profile`'s call graph in the Graphviz DOT language to `out`.
///
/// # Errors
/// [`Error::Unsupported`] if `opts.event` is not an event of the profile
/// or `opts.threshold` is not a percentage (0 to 100); [`Error::Io`] if
/// writing fails.
pub fn write(profile: &Profile, opts: &ExportOptions, out: &mut dyn Write) -> Result<(), Error> {
    let e = opts.event;
    let Some(event) = profile.events.get(e) else {
        return Err(Error::Unsupported(format!(
            "event {e} is not in the profile ({} events)",
            profile.events.len()
        )));
    };
    if !(0.0..=100.0).contains(&opts.threshold) {
        return Err(Error::Unsupported(format!(
            "threshold {}: expected a percentage from 0 to 100",
            opts.threshold
        )));
    }
    let cost = |v: &[u64]| v.get(e).copied().unwrap_or(0);
    let total = cost(&profile.totals);
    let share = |x: u64| {
        if total == 0 {
            0.0
        } else {
            x as f64 / total as f64
        }
    };
    let unit = if event == "instructions" {
        "instrs"
    } else {
        event.as_str()
    };

    // Functions drawn: active ones whose inclusive cost reaches the threshold.
    let kept: Vec<bool> = profile
        .functions
        .iter()
        .map(|f| {
            let incl = cost(&f.inclusive).max(cost(&f.self_cost));
            let active = incl > 0 || f.calls > 0;
            active && 100.0 * share(incl) >= opts.threshold
        })
        .collect();

    // Edges: arcs summed per (caller, callee).
    let mut edges: BTreeMap<(usize, usize), (u64, u64)> = BTreeMap::new();
    for a in &profile.arcs {
        let Some(c) = a.caller else { continue };
        let (c, d) = (c.index(), a.callee.index());
        if !kept.get(c).copied().unwrap_or(false) || !kept.get(d).copied().unwrap_or(false) {
            continue;
        }
        let entry = edges.entry((c, d)).or_insert((0, 0));
        entry.0 += a.calls;
        entry.1 += cost(&a.inclusive);
    }

    let mut s = String::new();
    let mut title = format!(
        "{} — {} {} in total; functions below {}% inclusive left out",
        file_name(&profile.meta.program),
        group(total),
        unit,
        opts.threshold
    );
    if let Some(note) = crate::method_note(profile) {
        title = format!("{title}\n{note}");
    }
    s.push_str("digraph \"fwprof\" {\n");
    let _ = writeln!(
        s,
        "  graph [fontname=\"Helvetica\", nodesep=0.125, ranksep=0.25, labelloc=t, label=\"{}\"];",
        escape(&title)
    );
    s.push_str(
        "  node [fontname=\"Helvetica\", shape=box, style=filled, fontcolor=white, width=0, height=0];\n",
    );
    s.push_str("  edge [fontname=\"Helvetica\"];\n");
    for (i, f) in profile.functions.iter().enumerate() {
        if !kept[i] {
            continue;
        }
        let incl = cost(&f.inclusive).max(cost(&f.self_cost));
        let own = cost(&f.self_cost);
        let w = share(incl).min(1.0);
        let label = format!(
            "{}\n{:.2}%\n({:.2}%)\n{}×",
            f.name,
            100.0 * share(incl),
            100.0 * share(own),
            group(f.calls)
        );
        let tooltip = format!(
            "{}: inclusive {} {unit}, self {} {unit}, calls {}",
            f.name,
            group(incl),
            group(own),
            group(f.calls)
        );
        let _ = writeln!(
            s,
            "  f{i} [label=\"{}\", tooltip=\"{}\", color=\"{}\", penwidth={:.2}];",
            escape(&label),
            escape(&tooltip),
            color(w),
            (4.0 * w).max(1.0)
        );
    }
    for (&(c, d), &(calls, incl)) in &edges {
        let w = share(incl).min(1.0);
        let pen = (4.0 * w).max(0.5);
        let label = format!(
            "{} {unit} ({:.2}%)\n{}×",
            group(incl),
            100.0 * share(incl),
            group(calls)
        );
        let col = color(w);
        let _ = writeln!(
            s,
            "  f{c} -> f{d} [label=\"{}\", color=\"{col}\", fontcolor=\"{col}\", penwidth={pen:.2}, arrowsize={:.2}];",
            escape(&label),
            0.5 * pen.sqrt()
        );
    }
    s.push_str("}\n");
    out.write_all(s.as_bytes())?;
    Ok(())
}

/// The last path component of `path`.
fn file_name(path: &str) -> &str {
    path.rsplit('/').next().unwrap_or(path)
}

/// `n` with thousands separators: `1,234,567`.
fn group(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::new();
    for (i, ch) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(ch);
    }
    out
}

/// A DOT double-quoted string body: `"` and `\` escaped, line breaks as
/// `\n` (centred lines).
fn escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for ch in s.chars() {
        match ch {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => {}
            c => out.push(c),
        }
    }
    out
}

/// gprof2dot's temperature colour for weight `w` in 0..=1: HSL from
/// (2/3, 0.80, 0.25) (dark blue) to (0, 1.0, 0.5) (red), as `#rrggbb`.
fn color(w: f64) -> String {
    let w = w.clamp(0.0, 1.0);
    let (h, s, l) = (
        2.0 / 3.0 * (1.0 - w),
        0.80 + w * (1.0 - 0.80),
        0.25 + w * (0.5 - 0.25),
    );
    let (r, g, b) = hsl_to_rgb(h, s, l);
    let byte = |x: f64| (x * 255.0).round().clamp(0.0, 255.0) as u8;
    format!("#{:02x}{:02x}{:02x}", byte(r), byte(g), byte(b))
}

/// HSL (all 0..=1) to RGB (0..=1), the CSS Color 3 algorithm.
fn hsl_to_rgb(h: f64, s: f64, l: f64) -> (f64, f64, f64) {
    let m2 = if l <= 0.5 {
        l * (1.0 + s)
    } else {
        l + s - l * s
    };
    let m1 = 2.0 * l - m2;
    let hue = |h: f64| {
        let h = h.rem_euclid(1.0);
        if h * 6.0 < 1.0 {
            m1 + (m2 - m1) * h * 6.0
        } else if h * 2.0 < 1.0 {
            m2
        } else if h * 3.0 < 2.0 {
            m1 + (m2 - m1) * (2.0 / 3.0 - h) * 6.0
        } else {
            m1
        }
    };
    (hue(h + 1.0 / 3.0), hue(h), hue(h - 1.0 / 3.0))
}

#[cfg(test)]
mod tests {
    use super::*;
    use fwprof_profile::{Arc, FunctionRecord, Meta};

    /// main (100 inclusive) → hot (90) and → cold (1 of 100 = 1%).
    fn profile() -> Profile {
        let mut p = Profile::new(Meta::new("dir/prog.elf"), vec!["instructions".into()]);
        for (name, calls, own, incl) in
            [("main", 1, 9, 100), ("hot", 2, 90, 90), ("co\"ld", 7, 1, 1)]
        {
            let id = p.add_function(FunctionRecord::new(name, 0, 0));
            let f = &mut p.functions[id.index()];
            (f.calls, f.self_cost, f.inclusive) = (calls, vec![own], vec![incl]);
        }
        let (main, hot, cold) = (
            fwprof_profile::FunctionId(0),
            fwprof_profile::FunctionId(1),
            fwprof_profile::FunctionId(2),
        );
        p.arcs.push(Arc::spontaneous(main, 1, vec![100]));
        for (callee, site, calls, incl) in [(hot, 4, 1, 50), (hot, 8, 1, 40), (cold, 12, 7, 1)] {
            p.arcs.push(Arc {
                caller: Some(main),
                callee,
                call_site: site,
                calls,
                tail: false,
                inclusive: vec![incl],
            });
        }
        p.totals = vec![100];
        p
    }

    fn export(p: &Profile, threshold: f64) -> String {
        let mut opts = ExportOptions::new(0);
        opts.threshold = threshold;
        let mut out = Vec::new();
        write(p, &opts, &mut out).unwrap();
        String::from_utf8(out).unwrap()
    }

    #[test]
    fn nodes_and_edges_are_labelled() {
        let text = export(&profile(), 0.5);
        assert!(text.starts_with("digraph \"fwprof\" {\n"));
        assert!(
            text.contains("f0 [label=\"main\\n100.00%\\n(9.00%)\\n1×\""),
            "{text}"
        );
        assert!(
            text.contains("f1 [label=\"hot\\n90.00%\\n(90.00%)\\n2×\""),
            "{text}"
        );
        // Two call sites make one edge.
        assert!(
            text.contains("f0 -> f1 [label=\"90 instrs (90.00%)\\n2×\""),
            "{text}"
        );
        assert!(text.contains("f2 [label=\"co\\\"ld\\n1.00%"), "{text}");
        assert!(text.contains("f0 -> f2 "), "{text}");
        assert!(text.contains("label=\"prog.elf — 100 instrs in total"));
        assert!(text.trim_end().ends_with('}'));
    }

    #[test]
    fn threshold_drops_functions_and_their_edges() {
        let text = export(&profile(), 5.0);
        assert!(!text.contains("f2 "), "{text}");
        assert!(!text.contains("-> f2"), "{text}");
        assert!(text.contains("f0 -> f1 "));
    }

    #[test]
    fn colours_run_from_blue_to_red() {
        assert_eq!(color(1.0), "#ff0000");
        assert_eq!(color(0.0), "#0d0d73");
        assert_eq!(group(1234567), "1,234,567");
        assert_eq!(group(12), "12");
    }

    #[test]
    fn bad_threshold_is_an_error() {
        let mut opts = ExportOptions::new(0);
        opts.threshold = 101.0;
        let e = write(&profile(), &opts, &mut Vec::new()).unwrap_err();
        assert!(e.to_string().contains("threshold 101"));
    }
}
