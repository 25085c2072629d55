//! `fwprof export --format dot` rendered by the real Graphviz `dot -Tsvg`:
//! the drawing has one node per function at or above the threshold (the
//! hottest ones by name), none below it, and edges carry fwprof's calls.

mod common;

use std::path::Path;
use std::process::Command;

use serde_json::Value;

/// Skip (false) when Graphviz is missing, fail instead under
/// `FWPROF_REQUIRE_TOOLS=1`. (`common::require` runs `dot --version`, which
/// Graphviz rejects; its version flag is `-V`.)
fn require_dot() -> bool {
    if Command::new("dot")
        .arg("-V")
        .output()
        .is_ok_and(|o| o.status.success())
    {
        return true;
    }
    if std::env::var("FWPROF_REQUIRE_TOOLS").as_deref() == Ok("1") {
        panic!("required tool missing: dot (Graphviz)");
    }
    eprintln!("SKIPPED: tool missing: dot (Graphviz)");
    false
}

/// Render `file` with `dot -Tsvg`; the SVG text.
fn render(dir: &Path, file: &str) -> String {
    let out = Command::new("dot")
        .args(["-Tsvg", file])
        .current_dir(dir)
        .output()
        .expect("run dot");
    assert!(
        out.status.success(),
        "dot -Tsvg failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

/// Check a threshold: the nodes drawn are exactly the functions whose
/// inclusive share reaches it.
fn check(dir: &Path, report: &Value, threshold: Option<f64>) {
    let mut args = vec!["export", "p.fwprof", "--format", "dot", "-o", "g.dot"];
    let t = threshold.map(|t| t.to_string());
    if let Some(t) = &t {
        args.extend(["--threshold", t]);
    }
    common::fwprof_ok(dir, &args);
    let svg = render(dir, "g.dot");
    assert!(svg.contains("<svg"), "not an SVG");
    let total = report["totals"]["instructions"].as_u64().unwrap() as f64;
    let pct = threshold.unwrap_or(0.5);
    let mut funcs: Vec<(&str, u64, u64)> = report["functions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| {
            (
                f["name"].as_str().unwrap(),
                f["inclusive"]["instructions"].as_u64().unwrap(),
                f["calls"].as_u64().unwrap(),
            )
        })
        .collect();
    funcs.sort_by_key(|f| std::cmp::Reverse(f.1));
    let above: Vec<_> = funcs
        .iter()
        .filter(|f| 100.0 * f.1 as f64 / total >= pct)
        .collect();
    let below: Vec<_> = funcs
        .iter()
        .filter(|f| f.1 > 0 && 100.0 * (f.1 as f64) / total < pct)
        .collect();
    assert!(above.len() >= 5 && !below.is_empty());
    // Node labels are SVG text elements: `<text ...>name</text>`.
    let label = |name: &str| format!(">{}</text>", name.replace('<', "&lt;").replace('>', "&gt;"));
    for (name, incl, _) in above.iter().take(8) {
        assert!(svg.contains(&label(name)), "{name} ({incl}) is not drawn");
    }
    for (name, incl, _) in &below {
        assert!(
            !svg.contains(&label(name)),
            "{name} ({incl}) is below {pct}% but drawn"
        );
    }
    let nodes = svg.matches("class=\"node\"").count();
    assert_eq!(nodes, above.len(), "nodes drawn");
    // The hottest function's node carries its inclusive share.
    let (name, incl, _) = *above[0];
    let share = format!(">{:.2}%</text>", 100.0 * incl as f64 / total);
    assert!(svg.contains(&share), "{name}: {share} missing");
}

#[test]
fn dot_renders_the_call_graph_with_a_threshold() {
    if !require_dot() {
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    let elf = common::repo().join("examples/exprcalc/exprcalc.rv64-linux.elf");
    common::fwprof_ok(
        dir,
        &["record", "-o", "p.fwprof", "--", elf.to_str().unwrap()],
    );
    let report: Value = serde_json::from_slice(&common::fwprof_ok(
        dir,
        &["report", "p.fwprof", "--format", "json"],
    ))
    .unwrap();
    check(dir, &report, None);
    check(dir, &report, Some(5.0));

    // Edge labels: the calls of the hottest arc between two drawn functions
    // (summed over its call sites) appear on an edge.
    common::fwprof_ok(
        dir,
        &["export", "p.fwprof", "--format", "dot", "-o", "g.dot"],
    );
    let svg = render(dir, "g.dot");
    let mut calls: std::collections::BTreeMap<(u64, u64), u64> = Default::default();
    for a in report["call_graph"].as_array().unwrap() {
        let Some(c) = a["caller_id"].as_u64() else {
            continue;
        };
        *calls
            .entry((c, a["callee_id"].as_u64().unwrap()))
            .or_insert(0) += a["calls"].as_u64().unwrap();
    }
    let ids = |name: &str| {
        report["functions"]
            .as_array()
            .unwrap()
            .iter()
            .find(|f| f["name"] == name)
            .unwrap()["id"]
            .as_u64()
            .unwrap()
    };
    let n = calls[&(ids("primary"), ids("lexer_next"))];
    let group = |n: u64| {
        let d = n.to_string();
        let mut s = String::new();
        for (i, ch) in d.chars().enumerate() {
            if i > 0 && (d.len() - i).is_multiple_of(3) {
                s.push(',');
            }
            s.push(ch);
        }
        s
    };
    assert!(
        svg.contains(&format!(">{}×</text>", group(n))),
        "edge with {n} calls"
    );
}

#[test]
fn a_bad_threshold_is_a_one_line_error() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    let elf = common::repo().join("examples/crc32/crc32.rv32imac.elf");
    common::fwprof_ok(
        dir,
        &["record", "-o", "p.fwprof", "--", elf.to_str().unwrap()],
    );
    let o = common::run_fwprof(
        dir,
        &[
            "export",
            "p.fwprof",
            "--format",
            "dot",
            "--threshold",
            "150",
        ],
    );
    assert!(!o.status.success());
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("--threshold 150"), "{err}");
    assert_eq!(err.trim_end().lines().count(), 1, "{err}");
}
