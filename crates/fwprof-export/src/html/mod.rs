//! `fwprof html`: one self-contained HTML page to explore a profile in a
//! browser (see `docs/html-report.md`).
//!
//! The page is a single file with no network access (a
//! `Content-Security-Policy` of `default-src 'none'` enforces it): its
//! stylesheet and script are inlined from `assets/html/`, and the profile is
//! embedded as one JSON document in a `<script type="application/json"
//! id="fwprof-data">` element that the page's own script renders. The JSON
//! is escaped so that nothing in it can end the element or be read as
//! markup: `<`, `>`, `&`, U+2028 and U+2029 are written as `\uXXXX`
//! escapes and `/` as `\/` (so the file never holds a `</script` or an
//! `http://` outside the page's own code). The script only ever inserts
//! names and source text with `textContent`.
//!
//! The page shows the summary (program, environment, totals of every
//! event, traps), the flat profile (self and inclusive cost of every event
//! per function, sortable and searchable, drawn lazily so 10,000 functions
//! stay responsive), each function's callers and callees from
//! [`Profile::arcs`], a flame graph of [`Profile::contexts`] drawn on a
//! canvas, and source and disassembly annotated per line and per
//! instruction for every function with a cost.
//!
//! The annotation is built here, at export time, the way
//! `fwprof annotate` builds it ([`fwprof_report::write_annotate`]):
//! executed instructions come from [`Profile::costs`] (address, raw bits,
//! cost of every event), the ones that never executed from the ELF, each
//! decoded with [`fwprof_isa::decode`] and printed with
//! [`fwprof_isa::disasm`] (pseudo-instructions, direct jump and branch
//! targets named `<function+offset>`); consecutive instructions from the
//! same source line (and inlining chain) form a group headed by that line
//! of the source file, found with [`SourceResolver`](fwprof_symbols::SourceResolver). The ELF is
//! [`ExportOptions::program`] (the caller finds it with
//! [`fwprof_symbols::find_program`]); without one, only the executed
//! instructions are shown, from the bits the profile keeps.
//!
//! # JSON embedded in the page (`schema: "fwprof-html/1"`)
//!
//! Costs are arrays with one integer per event, in the order of `events`;
//! addresses and raw bits are lowercase hex strings without `0x` (RV64
//! addresses do not fit a JavaScript number). Function ids are indexes
//! into `functions`; `-1` means none.
//!
//! | key | value |
//! |-----|-------|
//! | `meta` | the profile's [`Meta`](fwprof_profile::Meta) fields, plus `annotation_program` (the ELF read, or null) and `annotation_note` (why there is none, or a limitation) |
//! | `events`, `event`, `totals` | event names, the index shown first, the total of each event |
//! | `derived` | `[{name, header, num, den, rate}]`: ratios ([`Derived`](fwprof_report::Derived)) whose two input events (indexes `num`, `den`) the profile records |
//! | `functions` | `[name, start, end, calls, file, line, self, inclusive]` |
//! | `arcs` | `[caller, callee, call_site, calls, tail, inclusive]` |
//! | `contexts` | `[parent, function, calls, self]`, parents before children |
//! | `traps` | `[cause, name, pc, function, count]` (`cause` in hex) |
//! | `files` | `[{path, found, lines: {"N": text}}]`: the source lines the annotations need |
//! | `annotations` | per function id, null (no cost) or `{src, groups, truncated}`: `src` = `[file, first, last]`, the function's own source lines; `groups` = `[file, line, inlined, insts]` with `insts` = `[address, raw, disassembly, target function, cost]` (`cost` 0 if the instruction never ran) |

mod annotate;
mod model;
#[cfg(test)]
mod tests;

use std::io::Write;

use fwprof_profile::Profile;

use crate::{Error, ExportOptions};
use model::build_page;

/// The page's stylesheet.
const CSS: &str = include_str!("../../assets/html/report.css");
/// The page's script (renders the embedded JSON).
const JS: &str = include_str!("../../assets/html/report.js");

/// Value of the embedded JSON's `schema` field.
pub const SCHEMA: &str = "fwprof-html/1";

/// Why the annotation is limited (one sentence), if it is: the note of
/// [`ExportOptions::program`] (no program found, or a forced mismatch), or
/// that the program found has no DWARF line information. The page carries
/// it as `annotation_note`; `fwprof html` also prints it as a warning.
pub fn annotation_note(opts: &ExportOptions) -> Option<String> {
    let found = opts.program?;
    match (&found.program, &found.path) {
        (Some(p), Some(path)) => match p.debug_info() {
            Ok(true) => found.note.clone(),
            Ok(false) => Some(format!(
                "{} has no DWARF line information: the annotation shows disassembly only",
                path.display()
            )),
            Err(e) => Some(format!(
                "{}: {e}: the annotation shows disassembly only",
                path.display()
            )),
        },
        _ => found.note.clone(),
    }
}

/// Writes the HTML report of `profile` to `out`. `opts.event` is the event
/// the page shows first; the annotation reads code and lines from
/// [`ExportOptions::program`] (without it, only the executed instructions,
/// from the bits the profile keeps); `opts.source_dirs` are searched for
/// source files.
///
/// # Errors
/// [`Error::Io`] if writing fails.
pub fn write(profile: &Profile, opts: &ExportOptions, out: &mut dyn Write) -> Result<(), Error> {
    let page = build_page(profile, opts);
    let json = serde_json::to_string(&page).map_err(|e| Error::Io(std::io::Error::other(e)))?;
    let title = format!("fwprof: {}", base_name(&profile.meta.program));
    write!(
        out,
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n\
         <meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; \
         script-src 'unsafe-inline'; style-src 'unsafe-inline'; img-src data:\">\n\
         <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n\
         <meta name=\"generator\" content=\"fwprof {}\">\n<title>{}</title>\n<style>\n",
        env!("CARGO_PKG_VERSION"),
        escape_html(&title)
    )?;
    out.write_all(CSS.as_bytes())?;
    out.write_all(
        b"</style>\n</head>\n<body>\n<noscript>This report is drawn by JavaScript; \
          enable it to read the profile.</noscript>\n\
          <script type=\"application/json\" id=\"fwprof-data\">",
    )?;
    out.write_all(escape_json_for_script(&json).as_bytes())?;
    out.write_all(b"</script>\n<script>\n")?;
    out.write_all(JS.as_bytes())?;
    out.write_all(b"</script>\n</body>\n</html>\n")?;
    Ok(())
}

/// `s` with the HTML special characters replaced by character references.
fn escape_html(s: &str) -> String {
    let mut o = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '<' => o.push_str("&lt;"),
            '>' => o.push_str("&gt;"),
            '&' => o.push_str("&amp;"),
            '"' => o.push_str("&quot;"),
            '\'' => o.push_str("&#39;"),
            c => o.push(c),
        }
    }
    o
}

/// JSON text made safe inside a `<script>` element: `<`, `>`, `&`, U+2028
/// and U+2029 become `\uXXXX` escapes and `/` becomes `\/`. JSON has these
/// characters only inside strings, where the escapes mean the same.
fn escape_json_for_script(json: &str) -> String {
    let mut o = String::with_capacity(json.len() + json.len() / 16);
    for c in json.chars() {
        match c {
            '<' => o.push_str("\\u003c"),
            '>' => o.push_str("\\u003e"),
            '&' => o.push_str("\\u0026"),
            '\u{2028}' => o.push_str("\\u2028"),
            '\u{2029}' => o.push_str("\\u2029"),
            '/' => o.push_str("\\/"),
            c => o.push(c),
        }
    }
    o
}

fn base_name(path: &str) -> &str {
    path.rsplit('/').next().unwrap_or(path)
}
