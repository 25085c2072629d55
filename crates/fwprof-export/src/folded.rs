//! Folded (collapsed) stacks: one line per calling context, the format of
//! Brendan Gregg's `stackcollapse-*.pl` scripts and `inferno-collapse-*`,
//! read by `flamegraph.pl`, `inferno-flamegraph` and speedscope.
//!
//! Each line is the stack from the root to a calling context, function
//! names separated by `;`, then one space and the context's self cost for
//! the chosen event:
//!
//! ```text
//! _start;__libc_start_main;main;crc32_update 123456
//! ```
//!
//! The stacks are the paths of [`Profile::contexts`] (the calling-context
//! tree), so the values are exact, not sampled: their sum is the event's
//! total, the values of the lines ending in a function sum to its self
//! cost, and the values of the lines containing it (once per line, however
//! often recursion repeats it) sum to its inclusive cost.
//!
//! Function names are written with `;` replaced by `:` and every whitespace
//! or control character replaced by `_`, so that a name can neither split a
//! frame nor be taken for the count. Contexts with a zero value are left
//! out; contexts with the same stack (possible when the recorder keeps
//! several nodes for one path) are written once with their values summed.
//! Lines come in the order of the contexts (parents before children).
//!
//! Stacks deeper than [`crate::stacks::MAX_EXACT_FRAMES`] (1024) frames
//! have their recursion folded past that depth into one frame named
//! `f [recursion folded]` (readers take the count after the last space,
//! so the suffix's spaces are safe), so the output stays linear in the
//! profile's size (see [`crate::stacks`]).

use std::borrow::Cow;
use std::io::Write;

use fwprof_profile::ContextRecord;

use crate::stacks::{Stacks, FOLDED_SUFFIX};
use crate::{Error, ExportOptions, Profile};

/// Write the folded stacks of `profile` for event `opts.event` to `out`.
///
/// # Errors
/// [`Error::Unsupported`] if the profile has no calling contexts (recorded
/// by an fwprof without them), the event index is out of range or the
/// context tree is malformed; [`Error::Io`] if writing fails.
pub fn write(profile: &Profile, opts: &ExportOptions, out: &mut dyn Write) -> Result<(), Error> {
    for (stack, value) in folded_lines(profile, opts.event)? {
        writeln!(out, "{stack} {value}")?;
    }
    Ok(())
}

/// The folded stacks of `profile` for `event`: `(stack, value)` pairs with
/// names made safe by [`frame_name`], non-zero values, each stack once, in
/// context order.
///
/// # Errors
/// As [`write`].
pub(crate) fn folded_lines(profile: &Profile, event: usize) -> Result<Vec<(String, u64)>, Error> {
    let stacks = Stacks::new(profile, event)?;
    let values = stacks.values(profile, event);
    let names: Vec<Cow<str>> = profile
        .functions
        .iter()
        .map(|f| frame_name(&f.name, f.start))
        .collect();
    let mut lines: Vec<(String, u64)> = Vec::new();
    let mut written = vec![false; stacks.len()];
    let mut frames = Vec::new();
    for i in 0..profile.contexts.len() {
        let node = stacks.node_of(i);
        if values[node] == 0 || written[node] {
            continue;
        }
        written[node] = true;
        stacks.frames(node, &mut frames);
        let mut stack = String::new();
        for (k, f) in frames.iter().enumerate() {
            if k > 0 {
                stack.push(';');
            }
            stack.push_str(&names[f.function.index()]);
            if f.folded {
                stack.push_str(FOLDED_SUFFIX);
            }
        }
        lines.push((stack, values[node]));
    }
    Ok(lines)
}

/// `name` as one frame of a folded stack: `;` becomes `:`, whitespace and
/// control characters become `_`, and an empty name becomes
/// `[unknown 0x<start>]` (its space then also `_`).
pub(crate) fn frame_name(name: &str, start: u64) -> Cow<'_, str> {
    if name.is_empty() {
        return Cow::Owned(format!("[unknown_{start:#x}]"));
    }
    if !name
        .chars()
        .any(|c| c == ';' || c.is_whitespace() || c.is_control())
    {
        return Cow::Borrowed(name);
    }
    Cow::Owned(
        name.chars()
            .map(|c| match c {
                ';' => ':',
                c if c.is_whitespace() || c.is_control() => '_',
                c => c,
            })
            .collect(),
    )
}

/// The calling-context tree of `profile`, checked for the stack exporters:
/// it must be present, well formed (parents before children, functions and
/// cost vectors in range) and `event` must be an event of the profile.
///
/// # Errors
/// [`Error::Unsupported`] naming what is wrong.
pub(crate) fn checked_contexts(profile: &Profile, event: usize) -> Result<&[ContextRecord], Error> {
    if event >= profile.events.len() {
        return Err(Error::Unsupported(format!(
            "event index {event} is out of range: the profile has {} events",
            profile.events.len()
        )));
    }
    if profile.contexts.is_empty() {
        return Err(Error::Unsupported(
            "this profile has no calling contexts (recorded by an older fwprof): re-record it"
                .into(),
        ));
    }
    let n = profile.events.len();
    for (i, c) in profile.contexts.iter().enumerate() {
        if c.function.index() >= profile.functions.len()
            || c.parent.is_some_and(|p| p as usize >= i)
            || c.self_cost.len() != n
        {
            return Err(Error::Unsupported(format!(
                "the profile's calling-context tree is malformed at context {i}"
            )));
        }
    }
    Ok(&profile.contexts)
}

#[cfg(test)]
mod tests {
    use super::*;
    use fwprof_profile::{FunctionId, FunctionRecord, Meta};

    /// main -> a -> b, main -> b, a second main -> a node and a zero-cost
    /// main -> b -> main.
    fn sample() -> Profile {
        let mut p = Profile::new(Meta::new("t.elf"), vec!["instructions".into()]);
        for (name, s) in [("main", 0x100), ("a;x", 0x200), ("b c", 0x300)] {
            let mut f = FunctionRecord::new(name, s, s + 0x10);
            f.self_cost = vec![0];
            f.inclusive = vec![0];
            p.add_function(f);
        }
        let ctx = |parent, f, cost| ContextRecord {
            parent,
            function: FunctionId(f),
            calls: 1,
            self_cost: vec![cost],
        };
        p.contexts = vec![
            ctx(None, 0, 1),
            ctx(Some(0), 1, 2),
            ctx(Some(1), 2, 3),
            ctx(Some(0), 2, 4),
            ctx(Some(0), 1, 5),
            ctx(Some(3), 0, 0),
        ];
        p
    }

    #[test]
    fn lines_are_root_first_with_safe_names() {
        let mut out = Vec::new();
        write(&sample(), &ExportOptions::new(0), &mut out).unwrap();
        assert_eq!(
            String::from_utf8(out).unwrap(),
            "main 1\nmain;a:x 7\nmain;a:x;b_c 3\nmain;b_c 4\n"
        );
    }

    #[test]
    fn no_contexts_is_an_error() {
        let mut p = sample();
        p.contexts.clear();
        let e = write(&p, &ExportOptions::new(0), &mut Vec::new()).unwrap_err();
        assert!(e.to_string().contains("re-record it"), "{e}");
    }

    #[test]
    fn malformed_tree_is_an_error_not_a_panic() {
        let mut p = sample();
        p.contexts[1].parent = Some(3);
        assert!(write(&p, &ExportOptions::new(0), &mut Vec::new()).is_err());
        let e = write(&sample(), &ExportOptions::new(5), &mut Vec::new()).unwrap_err();
        assert!(e.to_string().contains("out of range"), "{e}");
    }
}
