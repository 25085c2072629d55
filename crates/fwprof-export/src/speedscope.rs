//! speedscope's JSON file format
//! (<https://www.speedscope.app/file-format-schema.json>, the schema
//! shipped as `speedscope/dist/release/file-format-schema.json`).
//!
//! The file holds one *sampled* profile per event: the chosen event first
//! (and active when the file is opened), then every other event the
//! profile counts (events with a zero total are left out). Each profile has
//! one sample per calling context with a non-zero value for its event: the
//! stack from the root to the context as indices into `shared.frames`
//! (root first, as speedscope wants), weighted by the context's self cost.
//! So speedscope's "Left Heavy" view and its sandwich view's self and total
//! columns show fwprof's exact self and inclusive costs. Samples are in
//! depth-first order of the calling-context tree (children in the order
//! they were first entered), which makes the "Time Order" view a flame
//! chart of the tree, not a timeline.
//!
//! `shared.frames` has one frame per function: its name as recorded, and
//! the file and line of its first instruction when DWARF gave them. The
//! unit is `"none"`: events are counts (instructions, cycles, misses), not
//! times, and speedscope shows them as plain numbers.
//!
//! Stacks deeper than 1024 frames have their recursion folded into one
//! frame `f [recursion folded]` (its own entry in `shared.frames`), and
//! contexts whose stacks are then equal are one sample ([`crate::stacks`]).

use std::borrow::Cow;
use std::collections::HashMap;
use std::io::Write;

use serde::Serialize;

use crate::stacks::{Stacks, FOLDED_SUFFIX};
use crate::{Error, ExportOptions, Profile};

/// Value of `$schema`, the one the schema allows.
const SCHEMA: &str = "https://www.speedscope.app/file-format-schema.json";

#[derive(Serialize)]
struct File<'a> {
    #[serde(rename = "$schema")]
    schema: &'static str,
    name: String,
    exporter: String,
    #[serde(rename = "activeProfileIndex")]
    active_profile_index: usize,
    shared: Shared<'a>,
    profiles: Vec<SampledProfile>,
}

#[derive(Serialize)]
struct Shared<'a> {
    frames: Vec<Frame<'a>>,
}

#[derive(Serialize)]
struct Frame<'a> {
    name: Cow<'a, str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    file: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    line: Option<u32>,
}

#[derive(Serialize)]
struct SampledProfile {
    #[serde(rename = "type")]
    kind: &'static str,
    name: String,
    unit: &'static str,
    #[serde(rename = "startValue")]
    start_value: u64,
    #[serde(rename = "endValue")]
    end_value: u64,
    samples: Vec<Vec<usize>>,
    weights: Vec<u64>,
}

/// Write `profile` as a speedscope file to `out`, event `opts.event` first.
///
/// # Errors
/// [`Error::Unsupported`] if the profile has no calling contexts, the event
/// index is out of range or the context tree is malformed; [`Error::Io`]
/// if writing fails.
pub fn write(profile: &Profile, opts: &ExportOptions, out: &mut dyn Write) -> Result<(), Error> {
    let tree = Stacks::new(profile, opts.event)?;
    let n = tree.len();

    // Depth-first order of the stacks, children in the order they were
    // first entered.
    let mut children: Vec<Vec<usize>> = vec![Vec::new(); n];
    let mut roots = Vec::new();
    for node in 0..n {
        match tree.parent(node) {
            Some(p) => children[p].push(node),
            None => roots.push(node),
        }
    }
    let mut order = Vec::with_capacity(n);
    let mut todo: Vec<usize> = roots.into_iter().rev().collect();
    while let Some(i) = todo.pop() {
        order.push(i);
        todo.extend(children[i].iter().rev());
    }
    drop(children);

    let mut events = vec![opts.event];
    events.extend(
        (0..profile.events.len())
            .filter(|&e| e != opts.event && profile.contexts.iter().any(|c| c.self_cost[e] != 0)),
    );
    let values: Vec<Vec<u64>> = events.iter().map(|&e| tree.values(profile, e)).collect();

    // One frame per function (and per function folded) used, numbered in
    // order of first use.
    let mut frame_of: HashMap<(u32, bool), usize> = HashMap::new();
    let mut frames = Vec::new();
    let mut stacks: Vec<Vec<usize>> = vec![Vec::new(); n];
    let mut path = Vec::new();
    for &i in &order {
        if values.iter().all(|v| v[i] == 0) {
            continue;
        }
        tree.frames(i, &mut path);
        stacks[i] = path
            .iter()
            .map(|f| {
                *frame_of.entry((f.function.0, f.folded)).or_insert_with(|| {
                    let r = &profile.functions[f.function.index()];
                    let name = if f.folded {
                        Cow::Owned(format!("{}{FOLDED_SUFFIX}", r.name))
                    } else {
                        Cow::Borrowed(r.name.as_str())
                    };
                    frames.push(Frame {
                        name,
                        file: r.file.as_deref(),
                        line: r.line,
                    });
                    frames.len() - 1
                })
            })
            .collect();
    }

    let program = crate::flamegraph::program_name(profile);
    let profiles = events
        .iter()
        .zip(&values)
        .map(|(&e, v)| {
            let mut samples = Vec::new();
            let mut weights = Vec::new();
            for &i in &order {
                if v[i] != 0 {
                    samples.push(stacks[i].clone());
                    weights.push(v[i]);
                }
            }
            SampledProfile {
                kind: "sampled",
                name: format!("{program} \u{2014} {}", profile.events[e]),
                unit: "none",
                start_value: 0,
                end_value: weights.iter().sum(),
                samples,
                weights,
            }
        })
        .collect();
    let file = File {
        schema: SCHEMA,
        name: match crate::method_note(profile) {
            // Sampled values are estimates: the title says so.
            Some(note) => format!(
                "{} ({note})",
                crate::flamegraph::title(profile, &profile.events[opts.event])
            ),
            None => crate::flamegraph::title(profile, &profile.events[opts.event]),
        },
        exporter: format!("fwprof {}", env!("CARGO_PKG_VERSION")),
        active_profile_index: 0,
        shared: Shared { frames },
        profiles,
    };
    serde_json::to_writer(&mut *out, &file).map_err(std::io::Error::from)?;
    out.write_all(b"\n")?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use fwprof_profile::{ContextRecord, FunctionId, FunctionRecord, Meta};

    #[test]
    fn profiles_per_event_chosen_first_in_tree_order() {
        let mut p = Profile::new(
            Meta::new("/x/prog.elf"),
            vec!["instructions".into(), "cycles".into(), "loads".into()],
        );
        for (name, s) in [("main", 0x100), ("f", 0x200), ("g", 0x300)] {
            let mut f = FunctionRecord::new(name, s, s + 0x10);
            f.file = Some("m.c".into());
            f.line = Some(s as u32 / 0x100);
            f.self_cost = vec![0; 3];
            f.inclusive = vec![0; 3];
            p.add_function(f);
        }
        let ctx = |parent, f, cost: [u64; 3]| ContextRecord {
            parent,
            function: FunctionId(f),
            calls: 1,
            self_cost: cost.to_vec(),
        };
        // main, main->g (created first), main->f, main->f->g
        p.contexts = vec![
            ctx(None, 0, [1, 2, 0]),
            ctx(Some(0), 2, [3, 5, 0]),
            ctx(Some(0), 1, [0, 7, 0]),
            ctx(Some(2), 2, [4, 1, 0]),
        ];
        p.totals = vec![8, 15, 0];
        let mut out = Vec::new();
        write(&p, &ExportOptions::new(1), &mut out).unwrap();
        let v: serde_json::Value = serde_json::from_slice(&out).unwrap();
        assert_eq!(v["$schema"], SCHEMA);
        let names: Vec<&str> = v["profiles"]
            .as_array()
            .unwrap()
            .iter()
            .map(|p| p["name"].as_str().unwrap())
            .collect();
        assert_eq!(
            names,
            ["prog.elf \u{2014} cycles", "prog.elf \u{2014} instructions"]
        );
        let cycles = &v["profiles"][0];
        assert_eq!(cycles["endValue"], 15);
        // frames: main 0, g 1, f 2 (first use in depth-first order)
        assert_eq!(v["shared"]["frames"][1]["name"], "g");
        assert_eq!(v["shared"]["frames"][2]["line"], 2);
        assert_eq!(
            cycles["samples"],
            serde_json::json!([[0], [0, 1], [0, 2], [0, 2, 1]])
        );
        assert_eq!(cycles["weights"], serde_json::json!([2, 5, 7, 1]));
        assert_eq!(
            v["profiles"][1]["samples"],
            serde_json::json!([[0], [0, 1], [0, 2, 1]])
        );
    }
}
