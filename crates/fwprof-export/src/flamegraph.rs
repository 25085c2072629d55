//! Flame graph SVG (Brendan Gregg's flame graphs as drawn by the `inferno`
//! crate, the Rust port of `flamegraph.pl`).
//!
//! The graph is drawn from the folded stacks of [`crate::folded`] (exact
//! costs of the calling-context tree, not samples) for the chosen event.
//! The SVG is interactive in a browser: click a frame to zoom, Ctrl-F (or
//! the "Search" button) to highlight functions matching a regular
//! expression and show their share of the total. It is titled
//! `<program> — <event>`; the tooltips count the event by name
//! (`main (1,234 instructions, 56.78%)`). A partial run (interrupted,
//! instruction limit, guest fault) says so in the subtitle. Colours are
//! inferno's "hot" palette, chosen from a hash of the function name so the
//! same profile always gives the same picture.

use std::io::Write;

use inferno::flamegraph::{self, Options};

use crate::{folded, Error, ExportOptions, Profile};

/// Write a flame graph of `profile` for event `opts.event` to `out` as SVG.
///
/// # Errors
/// [`Error::Unsupported`] if the profile has no calling contexts, the event
/// index is out of range, or nothing of the event was recorded (an empty
/// graph); [`Error::Io`] if drawing or writing fails.
pub fn write(profile: &Profile, opts: &ExportOptions, out: &mut dyn Write) -> Result<(), Error> {
    let lines = folded::folded_lines(profile, opts.event)?;
    let event = &profile.events[opts.event];
    if lines.is_empty() {
        return Err(Error::Unsupported(format!(
            "the profile counts no {event}: the flame graph would be empty"
        )));
    }
    let text: Vec<String> = lines.iter().map(|(s, v)| format!("{s} {v}")).collect();
    let mut options = Options::default();
    options.title = title(profile, event);
    let notes: Vec<String> = crate::method_note(profile)
        .into_iter()
        .chain(
            profile
                .meta
                .partial
                .as_ref()
                .map(|why| format!("partial profile: {why}")),
        )
        .collect();
    options.subtitle = (!notes.is_empty()).then(|| notes.join("; "));
    options.count_name = event.clone();
    options.name_type = "Function:".into();
    options.hash = true;
    options.deterministic = true;
    flamegraph::from_lines(&mut options, text.iter().map(String::as_str), out)?;
    Ok(())
}

/// `<program file name> — <event>`, e.g. `huffman.rv32imac.elf — instructions`.
pub(crate) fn title(profile: &Profile, event: &str) -> String {
    format!("{} \u{2014} {event}", program_name(profile))
}

/// The file name of the profiled program (the recorded path if it has none).
pub(crate) fn program_name(profile: &Profile) -> String {
    std::path::Path::new(&profile.meta.program)
        .file_name()
        .map_or_else(
            || profile.meta.program.clone(),
            |n| n.to_string_lossy().into_owned(),
        )
}

#[cfg(test)]
mod tests {
    use super::*;
    use fwprof_profile::{ContextRecord, FunctionId, FunctionRecord, Meta};

    fn sample() -> Profile {
        let mut p = Profile::new(Meta::new("dir/prog.elf"), vec!["instructions".into()]);
        for (name, s) in [("main", 0x100), ("hot_loop<&>", 0x200)] {
            let mut f = FunctionRecord::new(name, s, s + 0x10);
            f.self_cost = vec![0];
            f.inclusive = vec![0];
            p.add_function(f);
        }
        p.contexts = vec![
            ContextRecord {
                parent: None,
                function: FunctionId(0),
                calls: 0,
                self_cost: vec![10],
            },
            ContextRecord {
                parent: Some(0),
                function: FunctionId(1),
                calls: 3,
                self_cost: vec![990],
            },
        ];
        p
    }

    #[test]
    fn svg_has_title_counts_and_escaped_names() {
        let mut out = Vec::new();
        write(&sample(), &ExportOptions::new(0), &mut out).unwrap();
        let svg = String::from_utf8(out).unwrap();
        assert!(svg.starts_with("<?xml"), "{}", &svg[..80]);
        assert!(svg.contains("prog.elf \u{2014} instructions"));
        assert!(svg.contains("hot_loop&lt;&amp;&gt; (990 instructions, 99.00%)"));
        assert!(!svg.contains("hot_loop<&>"));
    }

    #[test]
    fn nothing_counted_is_an_error() {
        let mut p = sample();
        for c in &mut p.contexts {
            c.self_cost = vec![0];
        }
        let e = write(&p, &ExportOptions::new(0), &mut Vec::new()).unwrap_err();
        assert!(e.to_string().contains("empty"), "{e}");
    }
}
