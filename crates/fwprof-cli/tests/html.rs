//! `fwprof html`: the report is one self-contained file, and a real browser
//! (Debian's headless Chromium driven by playwright-core, script
//! `tests/html/check.mjs`) loads it without errors or requests, shows the
//! hottest function first with the self cost `fwprof report --format json`
//! gives, annotates it (its instruction counts add up to that self cost),
//! follows the call graph and draws the flame graph; a synthetic profile
//! of 10,000 functions is ready within a few seconds.
//!
//! Needs node, /usr/bin/chromium and playwright-core in
//! `$FWPROF_NODE_MODULES` (default `tools/node/node_modules`, installed by
//! `scripts/setup-node.sh`): the browser checks are skipped without them,
//! and fail instead with `FWPROF_REQUIRE_TOOLS=1`. With
//! `FWPROF_SCREENSHOTS=DIR` the `--core generic` check writes
//! `DIR/html-report.png` and `DIR/html-annotate.png` (the ones in `docs/`).

mod common;

use std::path::{Path, PathBuf};
use std::process::Command;

use common::{repo, run_fwprof};
use fwprof_profile::{AddressCost, Arc, ContextRecord, FunctionRecord, Meta, Profile};
use serde_json::{json, Value};

const HUFFMAN: &str = "examples/huffman/huffman.rv32imac.elf";

/// Where playwright-core is installed.
fn node_modules() -> PathBuf {
    std::env::var_os("FWPROF_NODE_MODULES")
        .map(PathBuf::from)
        .unwrap_or_else(|| repo().join("tools/node/node_modules"))
}

/// True if node, Chromium and playwright-core are there; otherwise skip,
/// or panic when `FWPROF_REQUIRE_TOOLS=1`.
fn browser_available() -> bool {
    let mut missing = Vec::new();
    if !common::have("node") {
        missing.push("node".to_string());
    }
    if !Path::new("/usr/bin/chromium").is_file() {
        missing.push("/usr/bin/chromium".to_string());
    }
    let pw = node_modules().join("playwright-core/package.json");
    if !pw.is_file() {
        missing.push(format!("{} (run scripts/setup-node.sh)", pw.display()));
    }
    common::present_or_skip(&missing)
}

/// `{event, name, self}` of the hottest function by self cost of each
/// event named, from `fwprof report --format json` (ties by name, as the
/// page sorts).
fn hottest(dir: &Path, profile: &str, events: &[&str]) -> Vec<Value> {
    let out = run_fwprof(dir, &["report", "--format", "json", profile]);
    assert!(out.status.success());
    let report: Value = serde_json::from_slice(&out.stdout).unwrap();
    let all: Vec<&str> = report["events"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e.as_str().unwrap())
        .collect();
    events
        .iter()
        .map(|&event| {
            let index = all.iter().position(|&e| e == event).unwrap();
            let best = report["functions"]
                .as_array()
                .unwrap()
                .iter()
                .max_by(|a, b| {
                    let (x, y) = (a["self"][event].as_u64(), b["self"][event].as_u64());
                    x.cmp(&y)
                        .then_with(|| b["name"].as_str().cmp(&a["name"].as_str()))
                })
                .unwrap();
            json!({"event": index, "name": best["name"], "self": best["self"][event].as_u64().unwrap().to_string()})
        })
        .collect()
}

/// The page loads nothing: no remote URL anywhere, and every `src=`,
/// `href=` or `url(` outside the (inert) JSON data element points inside
/// the page; the data element holds no markup at all.
fn assert_self_contained(html: &str) {
    assert!(html.starts_with("<!DOCTYPE html>"));
    for remote in ["http://", "https://", "ftp://", "//cdn", "@import"] {
        assert!(!html.contains(remote), "the page mentions {remote}");
    }
    let open = "<script type=\"application/json\" id=\"fwprof-data\">";
    let start = html.find(open).expect("data element") + open.len();
    let end = start + html[start..].find("</script>").expect("data element end");
    let data = &html[start..end];
    assert!(
        !data.contains('<') && !data.contains('>'),
        "markup in the data element"
    );
    serde_json::from_str::<Value>(data).expect("the data element is JSON");
    let code = format!("{}{}", &html[..start], &html[end..]).to_ascii_lowercase();
    for attr in ["src", "href", "url("] {
        for (at, _) in code.match_indices(attr) {
            let mut rest = code[at + attr.len()..].trim_start();
            if attr != "url(" {
                let Some(r) = rest.strip_prefix('=') else {
                    continue;
                };
                rest = r.trim_start();
            }
            let value = rest.trim_start_matches(['"', '\'', '`']);
            assert!(
                value.starts_with('#') || value.starts_with("data:"),
                "{attr} points outside the page: {}",
                &code[at..(at + 60).min(code.len())]
            );
        }
    }
    assert_eq!(html.matches("<script").count(), 2, "two script elements");
}

/// Run the browser check with `opts` on `html`.
fn browser_check(html: &Path, opts: Value) {
    let mut opts = opts;
    opts["html"] = json!(html.to_str().unwrap());
    let out = Command::new("node")
        .arg(repo().join("crates/fwprof-cli/tests/html/check.mjs"))
        .arg(opts.to_string())
        .env("FWPROF_NODE_MODULES", node_modules())
        .output()
        .expect("run node");
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    eprintln!("{stdout}{stderr}");
    assert!(out.status.success(), "browser check failed:\n{stderr}");
    assert!(stdout.trim_end().ends_with("ok"));
}

/// Record `args` into DIR/p.fwprof and write DIR/report.html.
fn record_and_export(dir: &Path, core: Option<&str>) -> PathBuf {
    let elf = repo().join(HUFFMAN);
    let mut args = vec!["record", "-o", "p.fwprof"];
    if let Some(c) = core {
        args.extend(["--core", c]);
    }
    args.extend(["--", elf.to_str().unwrap()]);
    common::fwprof_stderr(dir, &args);
    let src = repo();
    let stderr = common::fwprof_stderr(
        dir,
        &[
            "html",
            "p.fwprof",
            "-o",
            "report.html",
            "--source-dir",
            src.to_str().unwrap(),
        ],
    );
    assert!(stderr.is_empty(), "unexpected warnings: {stderr}");
    let html = dir.join("report.html");
    assert_self_contained(&std::fs::read_to_string(&html).unwrap());
    html
}

#[test]
fn huffman_report_in_chromium() {
    let dir = tempfile::tempdir().unwrap();
    let html = record_and_export(dir.path(), None);
    if !browser_available() {
        return;
    }
    let expect = hottest(dir.path(), "p.fwprof", &["instructions"]);
    assert_eq!(expect[0]["name"], "huff_decode");
    browser_check(
        &html,
        json!({"mode": "full", "expect": expect, "source": true, "ready_ms": 5000}),
    );
}

#[test]
fn huffman_core_generic_report_in_chromium() {
    let dir = tempfile::tempdir().unwrap();
    let html = record_and_export(dir.path(), Some("generic"));
    if !browser_available() {
        return;
    }
    let expect = hottest(
        dir.path(),
        "p.fwprof",
        &["instructions", "cycles", "dcache_misses"],
    );
    let shots = std::env::var_os("FWPROF_SCREENSHOTS").map(|d| {
        let d = PathBuf::from(d);
        let d = if d.is_relative() { repo().join(d) } else { d };
        d.to_str().unwrap().to_string()
    });
    browser_check(
        &html,
        json!({"mode": "full", "expect": expect, "source": true, "ready_ms": 5000,
               "screenshots": shots}),
    );
    if let Some(d) = shots {
        for name in ["html-report.png", "html-annotate.png"] {
            let len = std::fs::metadata(Path::new(&d).join(name)).unwrap().len();
            assert!(len < 400_000, "{name} is {len} bytes");
        }
    }
}

/// Without the program the annotation comes from the profile's own bits,
/// and `fwprof html` says why.
#[test]
fn missing_program_is_a_warning_not_an_error() {
    let dir = tempfile::tempdir().unwrap();
    let elf = dir.path().join("prog.elf");
    std::fs::copy(repo().join(HUFFMAN), &elf).unwrap();
    common::fwprof_stderr(
        dir.path(),
        &["record", "-o", "p.fwprof", "--", elf.to_str().unwrap()],
    );
    std::fs::remove_file(&elf).unwrap();
    let stderr = common::fwprof_stderr(dir.path(), &["html", "p.fwprof", "-o", "r.html"]);
    assert!(
        stderr.starts_with("fwprof: warning: ") && stderr.contains("prog.elf"),
        "{stderr}"
    );
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    let html = std::fs::read_to_string(dir.path().join("r.html")).unwrap();
    assert_self_contained(&html);
    assert!(html.contains("\"annotation_program\":null"));

    let out = run_fwprof(dir.path(), &["html", "nothing.fwprof", "-o", "r2.html"]);
    assert!(!out.status.success());
    assert_eq!(String::from_utf8_lossy(&out.stderr).lines().count(), 1);
    assert!(!dir.path().join("r2.html").exists());
}

/// A profile of `n` leaf functions under 100 groups under `main` (plus two
/// leaves with hostile names), with every invariant of a recorded profile.
fn synthetic(n: usize) -> Profile {
    let events = vec!["instructions".to_string(), "cycles".to_string()];
    let mut meta = Meta::new("/nonexistent/synthetic.elf");
    meta.xlen = 32;
    meta.isa = "rv32imac".into();
    let mut p = Profile::new(meta, events);
    let groups = 100;
    let names: Vec<String> = std::iter::once("main".to_string())
        .chain((0..groups).map(|g| format!("group_{g:03}")))
        .chain((0..n).map(|k| match k {
            17 => "</script><script>alert(1)</script>".to_string(),
            18 => "<img src=x onerror=alert(2)>".to_string(),
            _ => format!("leaf_{k:05}"),
        }))
        .collect();
    // Self instructions: distinct for leaves, small for the rest.
    let self_instrs = |i: usize| -> u64 {
        if i <= groups {
            3 + i as u64
        } else {
            ((i - groups - 1) as u64 * 7919) % 10007 + 2
        }
    };
    let parent = |i: usize| -> Option<usize> {
        match i {
            0 => None,
            i if i <= groups => Some(0),
            i => Some(1 + (i - groups - 1) % groups),
        }
    };
    for (i, name) in names.iter().enumerate() {
        let start = 0x1_0000 + 8 * i as u64;
        let id = p.add_function(FunctionRecord::new(name.clone(), start, start + 8));
        let s = self_instrs(i);
        // addi a0,a0,1 runs s-1 times (1 cycle each), ret once (3 cycles).
        for (addr, raw, c) in [
            (start, 0x0015_0513, vec![s - 1, s - 1]),
            (start + 4, 0x0000_8067, vec![1, 3]),
        ] {
            p.costs
                .push(AddressCost {
                    addr,
                    function: id,
                    len: 4,
                    raw,
                    cost: c,
                })
                .unwrap();
        }
        let f = &mut p.functions[i];
        f.self_cost = vec![s, s + 2];
        f.inclusive = f.self_cost.clone();
        f.calls = 1;
    }
    // Inclusive costs bottom-up (children have larger indexes).
    for i in (1..names.len()).rev() {
        let q = parent(i).unwrap();
        let child = p.functions[i].inclusive.clone();
        for (e, c) in child.iter().enumerate() {
            p.functions[q].inclusive[e] += c;
        }
    }
    for i in 0..names.len() {
        let id = fwprof_profile::FunctionId(i as u32);
        let incl = p.functions[i].inclusive.clone();
        p.arcs.push(match parent(i) {
            None => Arc::spontaneous(id, 1, incl),
            Some(q) => Arc {
                caller: Some(fwprof_profile::FunctionId(q as u32)),
                callee: id,
                call_site: 0x1_0000 + 8 * q as u64,
                calls: 1,
                tail: false,
                inclusive: incl,
            },
        });
        p.contexts.push(ContextRecord {
            parent: parent(i).map(|q| q as u32),
            function: id,
            calls: u64::from(i != 0),
            self_cost: p.functions[i].self_cost.clone(),
        });
    }
    p.totals = p.functions[0].inclusive.clone();
    p.check_invariants().unwrap();
    p
}

#[test]
fn ten_thousand_functions_stay_responsive() {
    let dir = tempfile::tempdir().unwrap();
    synthetic(10_000)
        .write_atomic(dir.path().join("big.fwprof"))
        .unwrap();
    let stderr = common::fwprof_stderr(dir.path(), &["html", "big.fwprof", "-o", "big.html"]);
    assert!(stderr.contains("synthetic.elf"), "{stderr}");
    let html = dir.path().join("big.html");
    let text = std::fs::read_to_string(&html).unwrap();
    assert_eq!(text.matches("</script").count(), 2);
    if !browser_available() {
        return;
    }
    let expect = hottest(dir.path(), "big.fwprof", &["instructions", "cycles"]);
    browser_check(
        &html,
        json!({"mode": "big", "expect": expect, "source": false, "ready_ms": 5000,
               "hostile": ["</script><script>alert(1)</script>", "<img src=x onerror=alert(2)>"]}),
    );
}

/// A profile without a calling-context tree (as files written before
/// fwprof kept one) shows a note where the flame graph would be.
#[test]
fn no_contexts_no_flame_graph() {
    let dir = tempfile::tempdir().unwrap();
    let mut p = synthetic(300);
    p.contexts.clear();
    p.write_atomic(dir.path().join("old.fwprof")).unwrap();
    common::fwprof_stderr(dir.path(), &["html", "old.fwprof", "-o", "old.html"]);
    let html = dir.path().join("old.html");
    assert!(std::fs::read_to_string(&html)
        .unwrap()
        .contains("\"contexts\":[]"));
    if !browser_available() {
        return;
    }
    let expect = hottest(dir.path(), "old.fwprof", &["instructions"]);
    browser_check(
        &html,
        json!({"mode": "small", "expect": expect, "source": false, "ready_ms": 5000,
               "no_contexts": true}),
    );
}
