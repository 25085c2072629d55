//! The whole text report of `fwprof report`: the partial-profile notice,
//! the instrumentation table, the flat profile and the call graph, in
//! that order.

use std::io::{self, Write};

use fwprof_profile::{Method, Profile};

use crate::options::{CallGraphOptions, FlatOptions, ReportOptions};
use crate::style::{self, Role};
use crate::{write_call_graph, write_flat, write_instrumented};

/// Writes the text report of `profile`: for a partial profile the line
/// `Partial profile: REASON` and a blank line; for a counters profile the
/// summary (and regions) of [`crate::write_counter_summary`]; for an instrumented one
/// the table of [`write_instrumented`] and a blank line; for a profile
/// with trap contexts the trap table of [`crate::write_trap_table`]; with
/// a firmware or a relocated image the table of
/// [`crate::write_image_table`]; with address translation the table of
/// [`crate::write_space_table`]; the flat profile
/// ([`write_flat`]); unless `opts.no_call_graph`, a blank line and the
/// call graph ([`write_call_graph`]). gprof's explanations belong to the
/// full report: they follow the flat profile and the call graph, not a
/// flat profile alone, and `opts.brief` drops them. With `opts.color`
/// every part is coloured as its writer documents, the notice bold
/// yellow; without it the bytes are plain text.
///
/// Errors: only those of `w`.
pub fn write_report(profile: &Profile, opts: &ReportOptions, mut w: impl Write) -> io::Result<()> {
    if let Some(reason) = &profile.meta.partial {
        let notice = format!("Partial profile: {reason}");
        style::line(&mut w, opts.color, Some(Role::Note), &notice)?;
        writeln!(w)?;
    }
    crate::write_counter_summary(profile, &mut w)?;
    write_instrumented(profile, opts.top, &mut w)?;
    if profile.meta.method == Method::Instrument {
        writeln!(w)?;
    }
    crate::write_trap_table(profile, opts.event, opts.color, &mut w)?;
    crate::write_image_table(profile, opts.event, opts.color, &mut w)?;
    crate::write_space_table(profile, opts.event, opts.color, &mut w)?;
    let flat = FlatOptions {
        top: opts.top,
        sort: opts.sort,
        event: opts.event,
        columns: opts.columns.clone(),
        brief: opts.brief || opts.no_call_graph,
        color: opts.color,
    };
    write_flat(profile, &flat, &mut w)?;
    if !opts.no_call_graph {
        writeln!(w)?;
        let cg = CallGraphOptions {
            event: opts.event,
            brief: opts.brief,
            color: opts.color,
        };
        write_call_graph(profile, &cg, &mut w)?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use fwprof_profile::{AddressCost, Arc, FunctionRecord, Meta};

    use super::*;

    /// `hot`, `warm` and `cold` with 90%, 9.5% and 0.5% of 1000
    /// instructions, each called once from nowhere; partial.
    fn profile() -> Profile {
        let mut p = Profile::new(Meta::new("p.elf"), vec!["instructions".into()]);
        for (k, (name, n)) in [("hot", 900), ("warm", 95), ("cold", 5)].iter().enumerate() {
            let start = 0x100 + 0x10 * k as u64;
            let id = p.add_function(FunctionRecord::new(*name, start, start + 4));
            p.costs
                .push(AddressCost {
                    addr: start,
                    function: id,
                    len: 4,
                    raw: 0x0015_0513,
                    cost: vec![*n],
                })
                .unwrap();
            let f = &mut p.functions[id.index()];
            (f.calls, f.self_cost, f.inclusive) = (1, vec![*n], vec![*n]);
            p.arcs.push(Arc::spontaneous(id, 1, vec![*n]));
        }
        p.totals = vec![1000];
        p.meta.partial = Some("signal SIGINT".into());
        p
    }

    fn text(opts: &ReportOptions) -> String {
        let mut out = Vec::new();
        write_report(&profile(), opts, &mut out).unwrap();
        String::from_utf8(out).unwrap()
    }

    /// `text` without ANSI SGR sequences (`ESC [ ... m`).
    fn strip_sgr(text: &str) -> String {
        let mut out = String::new();
        let mut rest = text;
        while let Some(i) = rest.find('\x1b') {
            out.push_str(&rest[..i]);
            let end = rest[i..].find('m').expect("SGR ends with m");
            rest = &rest[i + end + 1..];
        }
        out.push_str(rest);
        out
    }

    #[test]
    fn colour_marks_titles_hot_rows_and_the_notice() {
        let plain = text(&ReportOptions::default());
        let colored = text(&ReportOptions {
            color: true,
            ..ReportOptions::default()
        });
        assert!(!plain.contains('\x1b'));
        assert_eq!(strip_sgr(&colored), plain);
        assert!(
            colored.starts_with(
                "\x1b[1m\x1b[33mPartial profile: signal SIGINT\x1b[0m\n\n\x1b[1mFlat profile:\x1b[0m\n\n"
            ),
            "{colored}"
        );
        let line = |end: &str| {
            colored
                .lines()
                .find(|l| l.ends_with(end))
                .unwrap_or_else(|| panic!("no line ending {end:?}: {colored}"))
        };
        assert!(line("hot\x1b[0m").starts_with("\x1b[1m\x1b[31m 90.00 "));
        assert!(line("warm\x1b[0m").starts_with("\x1b[33m  9.50 "));
        assert!(line("  cold").starts_with("  0.50 "));
        assert!(line("name\x1b[0m").starts_with("\x1b[1m  time "));
        assert!(line("total\x1b[0m").starts_with("\x1b[1m     % "));
        assert_eq!(line("Call graph\x1b[0m"), "\x1b[1m\t\t\tCall graph\x1b[0m");
        assert!(colored.contains("\n\x1b[1mindex % time "), "{colored}");
        assert!(line("hot [1]\x1b[0m").starts_with("\x1b[1m[1]    "));
        assert!(
            line("<spontaneous>").starts_with("      "),
            "caller lines stay plain"
        );
        assert_eq!(
            line("Index by function name\x1b[0m"),
            "\x1b[1mIndex by function name\x1b[0m"
        );
        assert!(
            line("   [1] hot").starts_with("     "),
            "index entries stay plain"
        );
    }
}
