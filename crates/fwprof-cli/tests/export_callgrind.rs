//! `fwprof export --format callgrind` read by the real `callgrind_annotate`
//! (Valgrind): its program totals and every function's exclusive cost, and
//! with `--inclusive=yes` every function's inclusive cost, must equal
//! `fwprof report --format json` for every event of the profile. The
//! main check uses a `--core generic` profile, so all 16 events go
//! through, of a program with direct and mutual recursion (exprcalc's
//! `expr` ↔ `primary`), where the call costs into a function must still
//! add up to its inclusive cost.

mod common;

use std::collections::BTreeMap;
use std::path::Path;
use std::process::Command;

use serde_json::Value;

const ANNOTATE: &str = "callgrind_annotate";

/// Skip (false) when callgrind_annotate is missing, fail instead under
/// `FWPROF_REQUIRE_TOOLS=1`. (`common::require` cannot be used: it runs
/// `TOOL --version`, which callgrind_annotate 3.19 answers with status 255.)
fn require_annotate() -> bool {
    let found = Command::new(ANNOTATE)
        .arg("--version")
        .output()
        .is_ok_and(|o| {
            let mut text = String::from_utf8_lossy(&o.stdout).into_owned();
            text.push_str(&String::from_utf8_lossy(&o.stderr));
            text.contains("callgrind_annotate")
        });
    if found {
        return true;
    }
    if std::env::var("FWPROF_REQUIRE_TOOLS").as_deref() == Ok("1") {
        panic!("required tool missing: {ANNOTATE}");
    }
    eprintln!("SKIPPED: tool missing: {ANNOTATE}");
    false
}

/// Per-function costs read from callgrind_annotate, by function name.
struct Annotated {
    /// Events in column order, with fwprof's names (`Ir` → `instructions`).
    events: Vec<String>,
    totals: Vec<u64>,
    functions: BTreeMap<String, Vec<u64>>,
}

/// Run callgrind_annotate with no threshold (every function listed).
fn annotate(dir: &Path, file: &str, inclusive: bool) -> Annotated {
    let mut args = vec!["--threshold=100"];
    if inclusive {
        args.push("--inclusive=yes");
    }
    args.push(file);
    let out = Command::new(ANNOTATE)
        .args(&args)
        .current_dir(dir)
        .output()
        .expect("run callgrind_annotate");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "callgrind_annotate failed: {stderr}");
    assert!(
        !stderr.contains("WARNING"),
        "callgrind_annotate warns: {stderr}"
    );
    parse(&String::from_utf8(out.stdout).unwrap())
}

/// Parse the summary and function table: each row is one column per
/// event (`1,234 (5.67%)`, `0`, or `.` for an omitted zero) and then
/// `file:function [object]`.
fn parse(text: &str) -> Annotated {
    let shown = text
        .lines()
        .find_map(|l| l.strip_prefix("Events shown:"))
        .expect("Events shown line");
    let events: Vec<String> = shown
        .split_whitespace()
        .map(|e| {
            if e == "Ir" {
                "instructions".to_string()
            } else {
                e.to_string()
            }
        })
        .collect();
    let n = events.len();
    let mut totals = Vec::new();
    let mut functions = BTreeMap::new();
    for line in text.lines() {
        // Drop the percentages.
        let mut plain = String::new();
        let mut depth = 0;
        for ch in line.chars() {
            match ch {
                '(' if depth == 0 => depth = 1,
                ')' if depth == 1 => depth = 0,
                c if depth == 0 => plain.push(c),
                _ => {}
            }
        }
        let toks: Vec<&str> = plain.split_whitespace().collect();
        if toks.len() <= n {
            continue;
        }
        let number = |t: &str| -> Option<u64> {
            if t == "." {
                Some(0)
            } else if t.chars().all(|c| c.is_ascii_digit() || c == ',') {
                t.replace(',', "").parse().ok()
            } else {
                None
            }
        };
        let Some(vals) = toks[..n]
            .iter()
            .map(|t| number(t))
            .collect::<Option<Vec<u64>>>()
        else {
            continue;
        };
        let rest = toks[n..].join(" ");
        if rest == "PROGRAM TOTALS" {
            totals = vals;
            continue;
        }
        // `file:function [object]`
        let name = match rest.rfind(" [") {
            Some(i) if rest.ends_with(']') => &rest[..i],
            _ => &rest[..],
        };
        let func = name.split_once(':').map_or(name, |(_, f)| f);
        functions.insert(func.to_string(), vals);
    }
    Annotated {
        events,
        totals,
        functions,
    }
}

/// Record `elf` (repo-relative), export it, and compare.
fn check(elf: &str, core: Option<&str>, events: usize) {
    if !require_annotate() {
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    let elf = common::repo().join(elf);
    let mut args = vec!["record", "-o", "p.fwprof"];
    if let Some(c) = core {
        args.extend(["--core", c]);
    }
    args.extend(["--", elf.to_str().unwrap()]);
    common::fwprof_ok(dir, &args);
    let report: Value = serde_json::from_slice(&common::fwprof_ok(
        dir,
        &["report", "p.fwprof", "--format", "json"],
    ))
    .unwrap();
    common::fwprof_ok(
        dir,
        &[
            "export",
            "p.fwprof",
            "--format",
            "callgrind",
            "-o",
            "cg.out",
        ],
    );
    let text = std::fs::read_to_string(dir.join("cg.out")).unwrap();
    assert!(text.starts_with("# callgrind format\nversion: 1\n"));
    assert!(text.contains("\npositions: instr line\n"));

    // Functions by name (names fwprof has twice, e.g. static functions of
    // libc without debug information, get an address suffix: skip them).
    let mut count: BTreeMap<&str, usize> = BTreeMap::new();
    for f in report["functions"].as_array().unwrap() {
        *count.entry(f["name"].as_str().unwrap()).or_insert(0) += 1;
    }
    let unique = |f: &Value| count[f["name"].as_str().unwrap()] == 1;

    let ex = annotate(dir, "cg.out", false);
    assert_eq!(ex.events.len(), events, "{:?}", ex.events);
    let json_events: Vec<String> = report["events"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e.as_str().unwrap().to_string())
        .collect();
    assert_eq!(ex.events, json_events, "event columns (instructions first)");
    let want =
        |v: &Value| -> Vec<u64> { ex.events.iter().map(|e| v[e].as_u64().unwrap()).collect() };
    assert_eq!(ex.totals, want(&report["totals"]), "program totals");

    let mut compared = 0;
    for f in report["functions"].as_array().unwrap() {
        if !unique(f) || f["self"]["instructions"].as_u64() == Some(0) {
            continue;
        }
        let name = f["name"].as_str().unwrap();
        let got = ex
            .functions
            .get(name)
            .unwrap_or_else(|| panic!("callgrind_annotate does not list {name}"));
        assert_eq!(got, &want(&f["self"]), "exclusive cost of {name}");
        compared += 1;
    }
    assert!(compared >= 15, "only {compared} functions compared");

    let inc = annotate(dir, "cg.out", true);
    assert_eq!(inc.totals, ex.totals);
    let mut compared = 0;
    for f in report["functions"].as_array().unwrap() {
        if !unique(f) || f["inclusive"]["instructions"].as_u64() == Some(0) {
            continue;
        }
        let name = f["name"].as_str().unwrap();
        let got = inc
            .functions
            .get(name)
            .unwrap_or_else(|| panic!("callgrind_annotate --inclusive=yes does not list {name}"));
        assert_eq!(got, &want(&f["inclusive"]), "inclusive cost of {name}");
        compared += 1;
    }
    assert!(compared >= 15, "only {compared} functions compared");
    // The spontaneous root has no cost of its own and calls the entry.
    let root = &inc.functions["<spontaneous>"];
    assert_eq!(ex.functions["<spontaneous>"].iter().sum::<u64>(), 0);
    assert!(root[0] >= ex.totals[0]);
}

#[test]
fn callgrind_annotate_reads_all_16_events_of_a_core_profile() {
    check(
        "examples/exprcalc/exprcalc.rv64-linux.elf",
        Some("generic"),
        16,
    );
}

#[test]
fn callgrind_annotate_reads_an_rv32_baremetal_profile() {
    check("examples/huffman/huffman.rv32imac.elf", None, 1);
}

#[test]
fn the_exported_event_comes_first() {
    if !require_annotate() {
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    let elf = common::repo().join("examples/crc32/crc32.rv32imac.elf");
    common::fwprof_ok(
        dir,
        &[
            "record",
            "-o",
            "p.fwprof",
            "--core",
            "ibex",
            "--",
            elf.to_str().unwrap(),
        ],
    );
    common::fwprof_ok(
        dir,
        &[
            "export",
            "p.fwprof",
            "--format",
            "callgrind",
            "--event",
            "cycles",
            "-o",
            "cg.out",
        ],
    );
    let report: Value = serde_json::from_slice(&common::fwprof_ok(
        dir,
        &["report", "p.fwprof", "--format", "json"],
    ))
    .unwrap();
    let a = annotate(dir, "cg.out", false);
    assert_eq!(a.events[0], "cycles");
    assert_eq!(a.events[1], "instructions");
    assert_eq!(a.totals[0], report["totals"]["cycles"].as_u64().unwrap());
    // Sorted by cycles: the first function is fwprof's top by self cycles.
    let top = report["functions"]
        .as_array()
        .unwrap()
        .iter()
        .max_by_key(|f| f["self"]["cycles"].as_u64().unwrap())
        .unwrap();
    let first = text_first_function(dir);
    assert_eq!(first, top["name"].as_str().unwrap());
}

/// The first function row of callgrind_annotate's table (sorted by the
/// first event).
fn text_first_function(dir: &Path) -> String {
    let out = Command::new(ANNOTATE)
        .args(["--threshold=100", "cg.out"])
        .current_dir(dir)
        .output()
        .unwrap();
    let text = String::from_utf8(out.stdout).unwrap();
    let line = text
        .lines()
        .find(|l| l.ends_with(']') && l.contains(':'))
        .expect("a function row");
    let rest = &line[..line.rfind(" [").unwrap()];
    let name = rest.rsplit(' ').next().unwrap();
    name.split_once(':').map_or(name, |(_, f)| f).to_string()
}
