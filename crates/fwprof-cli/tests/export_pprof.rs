//! `fwprof export --format pprof` read by its real consumer, `go tool
//! pprof`: per function, pprof's flat and cum must be fwprof's self and
//! inclusive (`fwprof report --format json`), and its total the profile's
//! total, for every event exported, on a deep call chain (coremix) and a
//! recursive parser with inlined code (exprcalc, recorded with a core model
//! so that several events are exported).

mod common;

use std::collections::{BTreeMap, HashMap};
use std::path::Path;
use std::process::Command;

use common::repo;

/// True if Go (`go tool pprof`) is installed; with `FWPROF_REQUIRE_TOOLS=1`
/// a missing Go fails the test instead of skipping it.
fn have_go() -> bool {
    common::require(&["go"])
}

/// One row of `pprof -top`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Row {
    flat: u64,
    cum: u64,
}

/// What `go tool pprof -top` printed: the sample type, the total and the
/// rows by function name (inlined functions marked by pprof's
/// ` (inline)` suffix, which is removed and reported separately).
#[derive(Debug)]
struct Top {
    sample_type: String,
    total: u64,
    rows: BTreeMap<String, Row>,
    inline: Vec<String>,
}

/// Run `go tool pprof -top -symbolize=none` with every node shown, plus
/// `extra` flags, on `file`; HOME, GOCACHE and GOPATH point into `dir`.
fn pprof_top(dir: &Path, file: &Path, extra: &[&str]) -> Top {
    let home = dir.join("gohome");
    std::fs::create_dir_all(&home).unwrap();
    let out = Command::new("go")
        .args(["tool", "pprof", "-top", "-symbolize=none"])
        .args(["-nodecount=1000000", "-nodefraction=0", "-edgefraction=0"])
        .args(extra)
        .arg(file)
        .env("HOME", &home)
        .env("GOCACHE", home.join("cache"))
        .env("GOPATH", home.join("path"))
        .output()
        .expect("run go tool pprof");
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(
        out.status.success(),
        "go tool pprof failed: {}\n{text}",
        String::from_utf8_lossy(&out.stderr)
    );
    let mut sample_type = String::new();
    let mut total = None;
    let mut rows = BTreeMap::new();
    let mut inline = Vec::new();
    let mut in_table = false;
    for line in text.lines() {
        if let Some(t) = line.strip_prefix("Type: ") {
            sample_type = t.trim().to_string();
        } else if line.starts_with("Showing nodes accounting for") {
            // "Showing nodes accounting for X, P% of TOTAL total"
            let t = line.rsplit(" of ").next().unwrap();
            total = Some(number(t.trim_end_matches(" total")));
        } else if line.trim_start().starts_with("flat ") {
            in_table = true;
        } else if in_table && !line.trim().is_empty() {
            let f: Vec<&str> = line.split_whitespace().collect();
            assert!(f.len() >= 6, "unexpected pprof row {line:?}");
            let mut name = f[5..].join(" ");
            if let Some(n) = name.strip_suffix(" (inline)") {
                name = n.to_string();
                inline.push(name.clone());
            }
            let row = Row {
                flat: number(f[0]),
                cum: number(f[3]),
            };
            assert!(
                rows.insert(name.clone(), row).is_none(),
                "{name} listed twice"
            );
        }
    }
    Top {
        sample_type,
        total: total.unwrap_or_else(|| panic!("no total in pprof output:\n{text}")),
        rows,
        inline,
    }
}

/// A plain integer as pprof prints `count` values.
fn number(s: &str) -> u64 {
    s.parse()
        .unwrap_or_else(|_| panic!("pprof printed {s:?}, expected a plain count"))
}

/// fwprof's functions from `report --format json` for `event`: name ->
/// (self, inclusive) of the names that occur once, the names that occur
/// more than once (static functions of different files; pprof merges them
/// by name), and the event's total.
fn fwprof_functions(json: &str, event: &str) -> (HashMap<String, (u64, u64)>, Vec<String>, u64) {
    let v: serde_json::Value = serde_json::from_str(json).unwrap();
    let mut count: HashMap<String, usize> = HashMap::new();
    let mut by_name = HashMap::new();
    for f in v["functions"].as_array().unwrap() {
        let name = f["name"].as_str().unwrap().to_string();
        *count.entry(name.clone()).or_default() += 1;
        by_name.insert(
            name,
            (
                f["self"][event].as_u64().unwrap(),
                f["inclusive"][event].as_u64().unwrap(),
            ),
        );
    }
    let dups: Vec<String> = count
        .into_iter()
        .filter(|&(_, k)| k > 1)
        .map(|(n, _)| n)
        .collect();
    by_name.retain(|n, _| !dups.contains(n));
    (by_name, dups, v["totals"][event].as_u64().unwrap())
}

/// Record `elf` with arguments `prog_args` (and `record_args` before
/// `--`), export it to pprof with
/// `--event export_event` (default when `None`) and check `events` with
/// pprof. Returns the number of inlined functions pprof showed and whether
/// some stack holds a function more than once (recursion).
fn check(
    elf: &str,
    prog_args: &[&str],
    record_args: &[&str],
    export_event: Option<&str>,
    events: &[&str],
) -> (usize, bool) {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let elf = repo().join(elf);
    let elf = elf.to_str().unwrap();
    let mut args = vec!["record", "-o", "p.fwprof"];
    args.extend(record_args);
    args.extend(["--", elf]);
    args.extend(prog_args);
    common::fwprof_stdout(d, &args);
    let mut args = vec!["export", "p.fwprof", "--format", "pprof", "-o", "p.pb.gz"];
    if let Some(e) = export_event {
        args.extend(["--event", e]);
    }
    common::fwprof_stdout(d, &args);
    let bytes = std::fs::read(d.join("p.pb.gz")).unwrap();
    assert_eq!(&bytes[..2], [0x1f, 0x8b], "pprof files are gzipped");
    let json = common::fwprof_stdout(d, &["report", "p.fwprof", "--format", "json"]);
    let file = d.join("p.pb.gz");

    // The default sample type is the exported event.
    let top = pprof_top(d, &file, &[]);
    assert_eq!(top.sample_type, export_event.unwrap_or("instructions"));

    let mut inline = 0;
    for &event in events {
        let (fw, dups, total) = fwprof_functions(&json, event);
        let index = format!("-sample_index={event}");

        // As recorded, with inlined frames at call sites.
        let top = pprof_top(d, &file, &[&index]);
        assert_eq!(top.sample_type, event);
        assert_eq!(top.total, total, "{event}: pprof's total");
        inline = inline.max(top.inline.len());
        for (name, row) in &top.rows {
            match fw.get(name) {
                Some(&(s, _)) => assert_eq!(row.flat, s, "{event}: flat of {name}"),
                None => assert!(
                    row.flat == 0 || !top.inline.contains(name),
                    "{event}: inlined {name} has flat {}",
                    row.flat
                ),
            }
        }
        for (name, &(s, _)) in &fw {
            if s > 0 {
                assert!(top.rows.contains_key(name), "{event}: {name} missing");
            }
        }

        // Inlined frames folded into their callers: exactly fwprof's view,
        // flat = self and cum = inclusive for every function.
        let top = pprof_top(d, &file, &[&index, "-noinlines"]);
        assert_eq!(top.total, total, "{event}: pprof's total (-noinlines)");
        assert!(top.inline.is_empty());
        let mut compared = 0;
        for (name, &(s, inc)) in &fw {
            if inc == 0 {
                continue;
            }
            let row = top
                .rows
                .get(name)
                .unwrap_or_else(|| panic!("{event}: {name} missing (-noinlines)"));
            assert_eq!(
                (row.flat, row.cum),
                (s, inc),
                "{event}: {name}: pprof flat/cum vs fwprof self/inclusive"
            );
            compared += 1;
        }
        for name in top.rows.keys() {
            assert!(
                fw.contains_key(name) || dups.contains(name),
                "{event}: pprof shows {name}, which fwprof does not have"
            );
        }
        assert!(
            compared >= 10,
            "{event}: only {compared} functions compared"
        );
    }
    let folded = common::fwprof_stdout(d, &["export", "p.fwprof", "--format", "folded"]);
    let recursive = folded.lines().any(|l| {
        let stack: Vec<&str> = l.rsplit_once(' ').unwrap().0.split(';').collect();
        (1..stack.len()).any(|i| stack[..i].contains(&stack[i]))
    });
    (inline, recursive)
}

#[test]
fn pprof_matches_report_on_a_deep_call_chain() {
    if !have_go() {
        return;
    }
    check(
        "bench/coremix.rv64-linux.elf",
        &["3"],
        &[],
        None,
        &["instructions"],
    );
}

#[test]
fn pprof_matches_report_on_a_recursive_parser_for_every_event_kind() {
    if !have_go() {
        return;
    }
    // exprcalc's parser is recursive (expr -> primary -> expr): pprof's cum
    // counts a function once per sample, fwprof's inclusive once per
    // outermost activation, and the two must agree. advance() is inlined
    // into the parser, so call sites carry inlined frames.
    let (inline, recursive) = check(
        "examples/exprcalc/exprcalc.rv64-linux.elf",
        &[],
        &["--core", "generic"],
        Some("cycles"),
        &[
            "cycles",
            "instructions",
            "branch_mispredicts",
            "stall_load_use",
        ],
    );
    assert!(recursive, "exprcalc's contexts show no recursion");
    assert!(inline > 0, "no inlined frames at exprcalc's call sites");
}
