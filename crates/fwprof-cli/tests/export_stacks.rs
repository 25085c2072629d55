//! The stack exports of `fwprof export`: `folded`, `flamegraph` and
//! `speedscope`, checked against `fwprof report --format json` on a deep
//! call chain (coremix) and a recursive parser (exprcalc, with a core model
//! for several events), and the speedscope file against speedscope's own
//! published schema.

mod common;

use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};

use common::{repo, run_fwprof};

/// Record `elf` (repository path) with `prog_args`, `record_args` before
/// `--`, into `dir/p.fwprof`.
fn record(dir: &Path, elf: &str, prog_args: &[&str], record_args: &[&str]) {
    let elf = repo().join(elf);
    let mut args = vec!["record", "-o", "p.fwprof"];
    args.extend(record_args);
    args.extend(["--", elf.to_str().unwrap()]);
    args.extend(prog_args);
    common::fwprof_stdout(dir, &args);
}

/// fwprof's view of one event, from `report --format json`.
struct Report {
    /// name -> (self, inclusive), names that occur once.
    functions: HashMap<String, (u64, u64)>,
    /// The event's total.
    total: u64,
}

/// `fwprof report p.fwprof --format json` in `dir`.
fn report_json(dir: &Path) -> serde_json::Value {
    let json = common::fwprof_stdout(dir, &["report", "p.fwprof", "--format", "json"]);
    serde_json::from_str(&json).unwrap()
}

/// fwprof's view of `event` in the report `v`.
fn report(v: &serde_json::Value, event: &str) -> Report {
    let mut functions = HashMap::new();
    let mut dups = HashSet::new();
    for f in v["functions"].as_array().unwrap() {
        let name = f["name"].as_str().unwrap().to_string();
        let costs = (
            f["self"][event].as_u64().unwrap(),
            f["inclusive"][event].as_u64().unwrap(),
        );
        if functions.insert(name.clone(), costs).is_some() {
            dups.insert(name);
        }
    }
    // Names shared by several functions (static functions of different
    // files) cannot be told apart in stacks of names.
    functions.retain(|n, _| !dups.contains(n));
    Report {
        functions,
        total: v["totals"][event].as_u64().unwrap(),
    }
}

/// Check stacks (root first) with weights against fwprof's self and
/// inclusive costs: the weights sum to the total; per function, the
/// weights of the stacks ending in it sum to its self cost, and the
/// weights of the stacks containing it (once per stack) to its inclusive
/// cost. Returns true if some stack holds a function twice (recursion).
/// `escape`: the stacks are folded ones, whose names have `;` replaced by
/// `:` and whitespace by `_` (`[unknown 0x1234]` is `[unknown_0x1234]`).
fn check_stacks(what: &str, stacks: &[(Vec<String>, u64)], r: &Report, escape: bool) -> bool {
    let sum: u64 = stacks.iter().map(|s| s.1).sum();
    assert_eq!(sum, r.total, "{what}: values sum to the total");
    let mut leaf: HashMap<&str, u64> = HashMap::new();
    let mut inclusive: HashMap<&str, u64> = HashMap::new();
    let mut recursive = false;
    for (stack, value) in stacks {
        assert!(*value > 0, "{what}: zero-value stack {stack:?}");
        *leaf.entry(stack.last().unwrap()).or_default() += value;
        let distinct: HashSet<&str> = stack.iter().map(String::as_str).collect();
        recursive |= distinct.len() < stack.len();
        for f in distinct {
            *inclusive.entry(f).or_default() += value;
        }
    }
    let mut compared = 0;
    for (name, &(s, inc)) in &r.functions {
        let escaped: String = name
            .chars()
            .map(|c| match c {
                ';' => ':',
                c if c.is_whitespace() => '_',
                c => c,
            })
            .collect();
        let n = if escape { &escaped } else { name.as_str() };
        assert_eq!(
            leaf.get(n).copied().unwrap_or(0),
            s,
            "{what}: self of {name}"
        );
        assert_eq!(
            inclusive.get(n).copied().unwrap_or(0),
            inc,
            "{what}: inclusive of {name}"
        );
        compared += (inc > 0) as usize;
    }
    assert!(compared >= 10, "{what}: only {compared} functions compared");
    recursive
}

/// Parse folded stacks (`a;b;c 123` lines); each stack must occur once.
fn parse_folded(text: &str) -> Vec<(Vec<String>, u64)> {
    let mut seen = HashSet::new();
    text.lines()
        .map(|l| {
            let (stack, value) = l
                .rsplit_once(' ')
                .unwrap_or_else(|| panic!("bad folded line {l:?}"));
            assert!(seen.insert(stack.to_string()), "stack twice: {stack}");
            let value = value
                .parse()
                .unwrap_or_else(|_| panic!("bad count in {l:?}"));
            (stack.split(';').map(str::to_string).collect(), value)
        })
        .collect()
}

#[test]
fn folded_stacks_add_up_to_the_report() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    record(d, "bench/coremix.rv64-linux.elf", &["3"], &[]);
    let folded = common::fwprof_stdout(d, &["export", "p.fwprof", "--format", "folded"]);
    let stacks = parse_folded(&folded);
    assert!(stacks.iter().any(|s| s.0.len() >= 6), "a deep call chain");
    check_stacks(
        "coremix folded",
        &stacks,
        &report(&report_json(d), "instructions"),
        true,
    );

    // -o FILE writes the same text.
    common::fwprof_stdout(
        d,
        &["export", "p.fwprof", "--format", "folded", "-o", "p.folded"],
    );
    assert_eq!(std::fs::read_to_string(d.join("p.folded")).unwrap(), folded);
}

#[test]
fn folded_stacks_of_a_recursive_parser_for_another_event() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    record(
        d,
        "examples/exprcalc/exprcalc.rv64-linux.elf",
        &[],
        &["--core", "generic"],
    );
    let json = report_json(d);
    for event in ["cycles", "instructions", "branch_mispredicts"] {
        let folded = common::fwprof_stdout(
            d,
            &["export", "p.fwprof", "--format", "folded", "--event", event],
        );
        let stacks = parse_folded(&folded);
        let recursive = check_stacks(
            &format!("exprcalc {event}"),
            &stacks,
            &report(&json, event),
            true,
        );
        assert!(recursive, "exprcalc's stacks show its recursion");
    }
}

/// `n` with a comma every three digits, as inferno prints counts.
fn thousands(n: u64) -> String {
    let s = n.to_string();
    let mut out = String::new();
    for (i, c) in s.chars().enumerate() {
        if i > 0 && (s.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

#[test]
fn flamegraph_is_an_svg_titled_with_program_and_event() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    record(
        d,
        "examples/exprcalc/exprcalc.rv64-linux.elf",
        &[],
        &["--core", "generic"],
    );
    let json = report_json(d);
    for event in [None, Some("cycles")] {
        let mut args = vec!["export", "p.fwprof", "--format", "flamegraph"];
        if let Some(e) = event {
            args.extend(["--event", e, "-o", "cycles.svg"]);
        }
        common::fwprof_stdout(d, &args);
        let file = if event.is_some() {
            "cycles.svg"
        } else {
            "flamegraph.svg" // the default output
        };
        let svg = std::fs::read_to_string(d.join(file)).unwrap();
        let event = event.unwrap_or("instructions");
        let r = report(&json, event);
        assert!(svg.starts_with("<?xml"), "{}", &svg[..40]);
        let doc = roxmltree::Document::parse_with_options(
            &svg,
            roxmltree::ParsingOptions {
                allow_dtd: true,
                ..Default::default()
            },
        )
        .expect("the flame graph is well-formed XML");
        assert_eq!(doc.root_element().tag_name().name(), "svg");
        let text_of = |id: &str| {
            doc.descendants()
                .find(|n| n.attribute("id") == Some(id))
                .and_then(|n| n.text())
                .unwrap_or_default()
                .to_string()
        };
        assert_eq!(
            text_of("title"),
            format!("exprcalc.rv64-linux.elf \u{2014} {event}")
        );
        assert!(
            text_of("search").contains("Search"),
            "inferno's search button"
        );
        assert!(
            doc.descendants().any(|n| n.tag_name().name() == "script"
                && n.text().is_some_and(|t| t.contains("function search("))),
            "the search script"
        );
        let titles: Vec<&str> = doc
            .descendants()
            .filter(|n| n.tag_name().name() == "title")
            .filter_map(|n| n.text())
            .collect();
        let all = format!("all ({} {event}, 100%)", thousands(r.total));
        assert!(titles.contains(&all.as_str()), "no {all:?} in {titles:?}");
        let (hottest, _) = r.functions.iter().max_by_key(|(_, &(s, _))| s).unwrap();
        assert!(
            titles
                .iter()
                .any(|t| t.starts_with(&format!("{hottest} (")) && t.contains(event)),
            "no frame of the hottest function {hottest}"
        );
    }
}

/// speedscope's published schema: `$FWPROF_NODE_MODULES` (default
/// `<repo>/tools/node/node_modules`) `/speedscope/dist/release/
/// file-format-schema.json`; `None` (skip) when missing, a failure when
/// `FWPROF_REQUIRE_TOOLS=1`.
fn speedscope_schema() -> Option<PathBuf> {
    let modules = std::env::var_os("FWPROF_NODE_MODULES")
        .map(PathBuf::from)
        .unwrap_or_else(|| repo().join("tools/node/node_modules"));
    let schema = modules.join("speedscope/dist/release/file-format-schema.json");
    if schema.is_file() {
        return Some(schema);
    }
    if std::env::var("FWPROF_REQUIRE_TOOLS").as_deref() == Ok("1") {
        panic!("{} missing: run scripts/setup-node.sh", schema.display());
    }
    eprintln!(
        "SKIPPED: {} missing (scripts/setup-node.sh)",
        schema.display()
    );
    None
}

#[test]
fn speedscope_file_follows_the_schema_and_the_report() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    record(
        d,
        "examples/exprcalc/exprcalc.rv64-linux.elf",
        &[],
        &["--core", "generic"],
    );
    common::fwprof_stdout(
        d,
        &[
            "export",
            "p.fwprof",
            "--format",
            "speedscope",
            "--event",
            "cycles",
        ],
    );
    let text = std::fs::read_to_string(d.join("profile.speedscope.json")).unwrap();
    let file: serde_json::Value = serde_json::from_str(&text).unwrap();

    if let Some(schema) = speedscope_schema() {
        let schema: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(schema).unwrap()).unwrap();
        let validator = jsonschema::validator_for(&schema).expect("speedscope's schema compiles");
        let errors: Vec<String> = validator
            .iter_errors(&file)
            .map(|e| format!("{} at {}", e, e.instance_path()))
            .collect();
        assert!(errors.is_empty(), "schema errors: {errors:?}");
        // The check can fail: a frame without a name is rejected.
        let mut broken = file.clone();
        broken["shared"]["frames"][0]
            .as_object_mut()
            .unwrap()
            .remove("name");
        assert!(!validator.is_valid(&broken));
    }

    assert_eq!(
        file["exporter"],
        format!("fwprof {}", env!("CARGO_PKG_VERSION"))
    );
    assert_eq!(file["activeProfileIndex"], 0);
    let frames: Vec<String> = file["shared"]["frames"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["name"].as_str().unwrap().to_string())
        .collect();
    let expr = file["shared"]["frames"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["name"] == "expr")
        .expect("a frame for expr");
    assert!(expr["file"].as_str().unwrap().ends_with("parser.c"));
    // The line of the definition's opening line in the source.
    let source = std::fs::read_to_string(repo().join("examples/exprcalc/parser.c")).unwrap();
    let defined = source
        .lines()
        .position(|l| l.starts_with("static int64_t expr(") && l.ends_with('{'))
        .unwrap() as u64
        + 1;
    assert_eq!(expr["line"].as_u64().unwrap(), defined);

    let profiles = file["profiles"].as_array().unwrap();
    assert!(profiles.len() > 3, "one profile per counted event");
    let json = report_json(d);
    let mut names = Vec::new();
    for (k, p) in profiles.iter().enumerate() {
        let name = p["name"].as_str().unwrap();
        let event = name.rsplit(" \u{2014} ").next().unwrap();
        names.push(event.to_string());
        assert_eq!(p["type"], "sampled");
        assert_eq!(p["unit"], "none");
        let r = report(&json, event);
        assert_eq!(p["endValue"].as_u64(), Some(r.total), "{event} endValue");
        let weights = p["weights"].as_array().unwrap();
        let samples = p["samples"].as_array().unwrap();
        assert_eq!(weights.len(), samples.len());
        let stacks: Vec<(Vec<String>, u64)> = samples
            .iter()
            .zip(weights)
            .map(|(s, w)| {
                let stack = s
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(|i| frames[i.as_u64().unwrap() as usize].clone())
                    .collect();
                (stack, w.as_u64().unwrap())
            })
            .collect();
        // Only the profiles of the main events need the full check.
        if k < 3 || event == "instructions" {
            check_stacks(&format!("speedscope {event}"), &stacks, &r, false);
        } else {
            let sum: u64 = stacks.iter().map(|s| s.1).sum();
            assert_eq!(sum, r.total, "speedscope {event}: sum");
        }
    }
    assert_eq!(names[0], "cycles", "the chosen event comes first");
    assert!(names.contains(&"instructions".to_string()));
    assert!(
        !names.contains(&"stall_wait_state".to_string()),
        "events that never occurred are left out"
    );
}

#[test]
fn a_profile_without_contexts_is_a_one_line_error() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    record(d, "examples/crc32/crc32.rv32imac.elf", &[], &[]);
    let mut p = fwprof_profile::Profile::read(d.join("p.fwprof")).unwrap();
    // As written before contexts existed: no tree and no sections (the
    // `privilege` section names contexts).
    p.contexts.clear();
    p.sections.clear();
    p.write_atomic(d.join("old.fwprof")).unwrap();
    for format in ["folded", "flamegraph", "speedscope", "pprof"] {
        let out = run_fwprof(
            d,
            &["export", "old.fwprof", "--format", format, "-o", "out"],
        );
        assert!(!out.status.success(), "{format} succeeded");
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(err.trim_end().lines().count(), 1, "{format}: {err}");
        assert!(
            err.contains("no calling contexts") && err.contains("re-record it"),
            "{format}: {err}"
        );
        assert!(!d.join("out").exists(), "{format} left an output file");
    }
}
