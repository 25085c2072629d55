//! Two `static` functions of one name, `helper` in `a.c` and in `b.c`,
//! across two builds that moved them: `diff`, `merge --force` and
//! `compare` pair them by the one rule of `fwprof_profile::match_functions`
//! (same name, equal source file first, then address order), checked
//! number by number.

mod common;

use std::path::Path;

use fwprof_profile::{AddressCost, Arc, FunctionRecord, Meta, Profile};
use serde_json::Value;

use common::{fwprof_stdout, run_fwprof};

/// A profile of `funcs` = (name, start, file, self instructions), each
/// function one instruction at its start, entered once from nowhere.
fn build(sha: &str, funcs: &[(&str, u64, &str, u64)]) -> Profile {
    let mut meta = Meta::new("/build/prog.elf");
    meta.sha256 = sha.repeat(32);
    meta.command = vec!["prog.elf".into()];
    let mut p = Profile::new(meta, vec!["instructions".into()]);
    let mut sorted = funcs.to_vec();
    sorted.sort_by_key(|f| f.1);
    for (name, start, file, cost) in sorted {
        let mut r = FunctionRecord::new(name, start, start + 0x10);
        r.file = Some(file.into());
        r.line = Some(1);
        r.calls = 1;
        r.self_cost = vec![cost];
        r.inclusive = vec![cost];
        let id = p.add_function(r);
        p.costs
            .push(AddressCost {
                addr: start,
                function: id,
                len: 4,
                raw: 0x13,
                cost: vec![cost],
            })
            .unwrap();
        p.arcs.push(Arc::spontaneous(id, 1, vec![cost]));
    }
    p.totals = vec![funcs.iter().map(|f| f.3).sum()];
    p.check_invariants().unwrap();
    p
}

/// BEFORE: `helper` of a.c at 0x200 (100 instructions), of b.c at 0x300
/// (10). AFTER, another build: b.c's `helper` moved to 0x180 (still 10),
/// a.c's to 0x400 (now 50). `main` stays at 0x100 with 40.
fn write_profiles(dir: &Path) {
    let before = build(
        "aa",
        &[
            ("main", 0x100, "m.c", 40),
            ("helper", 0x200, "a.c", 100),
            ("helper", 0x300, "b.c", 10),
        ],
    );
    let after = build(
        "bb",
        &[
            ("main", 0x100, "m.c", 40),
            ("helper", 0x180, "b.c", 10),
            ("helper", 0x400, "a.c", 50),
        ],
    );
    before.write_atomic(dir.join("before.fwprof")).unwrap();
    after.write_atomic(dir.join("after.fwprof")).unwrap();
}

fn json(dir: &Path, args: &[&str]) -> Value {
    serde_json::from_str(&fwprof_stdout(dir, args)).expect("JSON")
}

#[test]
fn diff_keeps_same_named_static_functions_apart() {
    let dir = tempfile::tempdir().unwrap();
    write_profiles(dir.path());
    let d = json(
        dir.path(),
        &["diff", "--format", "json", "before.fwprof", "after.fwprof"],
    );
    let rows: Vec<(String, Option<String>, u64, u64)> = d["functions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| {
            (
                f["name"].as_str().unwrap().to_string(),
                f["location"].as_str().map(String::from),
                f["self"]["instructions"]["before"].as_u64().unwrap(),
                f["self"]["instructions"]["after"].as_u64().unwrap(),
            )
        })
        .collect();
    // Before the one rule: one row `helper` 110 -> 60 (the two summed).
    assert_eq!(
        rows,
        [
            ("helper".into(), Some("a.c".into()), 100, 50),
            ("helper".into(), Some("b.c".into()), 10, 10),
            ("main".into(), None, 40, 40),
        ]
    );
    let text = fwprof_stdout(dir.path(), &["diff", "before.fwprof", "after.fwprof"]);
    assert!(text.contains("helper (a.c)"), "{text}");
    // --fail-above names which helper grew (none did) and which shrank.
    let o = run_fwprof(
        dir.path(),
        &[
            "diff",
            "--fail-above",
            "10",
            "after.fwprof",
            "before.fwprof",
        ],
    );
    assert_eq!(o.status.code(), Some(1));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains("helper (a.c): self instructions grew +100.00% (50 to 100)"),
        "{err}"
    );
    assert!(!err.contains("helper (b.c)"), "{err}");
}

#[test]
fn merge_adds_each_static_function_to_itself() {
    let dir = tempfile::tempdir().unwrap();
    write_profiles(dir.path());
    let o = run_fwprof(
        dir.path(),
        &[
            "merge",
            "--force",
            "-o",
            "merged.fwprof",
            "before.fwprof",
            "after.fwprof",
        ],
    );
    assert_eq!(
        o.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    let r = json(dir.path(), &["report", "--format", "json", "merged.fwprof"]);
    let mut rows: Vec<(String, u64, String, u64)> = r["functions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| {
            (
                f["name"].as_str().unwrap().to_string(),
                f["address"].as_u64().unwrap(),
                f["file"].as_str().unwrap().to_string(),
                f["self"]["instructions"].as_u64().unwrap(),
            )
        })
        .collect();
    rows.sort_by_key(|r| r.1);
    // The first profile's addresses are kept; AFTER's helpers join theirs
    // by file (before the one rule, by table order: a.c 110, b.c 60).
    assert_eq!(
        rows,
        [
            ("main".into(), 0x100, "m.c".into(), 80),
            ("helper".into(), 0x200, "a.c".into(), 150),
            ("helper".into(), 0x300, "b.c".into(), 20),
        ]
    );
}

#[test]
fn compare_pairs_each_static_function_with_itself() {
    let dir = tempfile::tempdir().unwrap();
    write_profiles(dir.path());
    let c = json(
        dir.path(),
        &[
            "compare",
            "--format",
            "json",
            "before.fwprof",
            "after.fwprof",
        ],
    );
    let rows: Vec<(String, u64, u64, u64)> = c["functions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| {
            (
                f["name"].as_str().unwrap().to_string(),
                f["start"].as_u64().unwrap(),
                f["reference"]["self"].as_u64().unwrap(),
                f["other"]["self"].as_u64().unwrap(),
            )
        })
        .collect();
    // Before the one rule: four `helper` rows, each in one profile only.
    assert_eq!(
        rows,
        [
            ("helper".into(), 0x200, 100, 50),
            ("main".into(), 0x100, 40, 40),
            ("helper".into(), 0x300, 10, 10),
        ]
    );
    let err = |name: &str, start: u64| {
        let f = c["functions"]
            .as_array()
            .unwrap()
            .iter()
            .find(|f| f["name"] == name && f["start"] == start)
            .unwrap();
        f["abs_error"].as_f64().unwrap()
    };
    // Shares: 100/150 -> 50/100, 10/150 -> 10/100, 40/150 -> 40/100.
    assert!((err("helper", 0x200) - (50.0 - 200.0 / 3.0)).abs() < 1e-9);
    assert!((err("helper", 0x300) - (10.0 - 20.0 / 3.0)).abs() < 1e-9);
    assert!((err("main", 0x100) - (40.0 - 80.0 / 3.0)).abs() < 1e-9);
    assert_eq!(c["missed"], serde_json::json!([]));
    assert_eq!(c["invented"], serde_json::json!([]));
}
