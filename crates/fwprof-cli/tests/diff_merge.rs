//! `fwprof diff` and `fwprof merge` on real recordings whose difference is
//! known, checked number by number against `fwprof report --format json`
//! of the inputs; and every profile reader (`report`, `diff`, `merge`) on
//! truncated and random files.

mod common;

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::process::Output;

use fwprof_profile::Profile;
use serde_json::Value;

use common::{repo, run_fwprof as fwprof};

fn coremix() -> String {
    repo()
        .join("bench/coremix.rv64-linux.elf")
        .display()
        .to_string()
}

fn crc32() -> String {
    repo()
        .join("examples/crc32/crc32.rv64-linux.elf")
        .display()
        .to_string()
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

fn ok(o: Output) -> Output {
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    o
}

/// Record `prog args` (with `--core core` if given) into `dir/name`.
fn record(dir: &Path, name: &str, core: Option<&str>, prog: &str, args: &[&str]) -> PathBuf {
    let mut a = vec!["record", "-o", name];
    if let Some(c) = core {
        a.extend(["--core", c]);
    }
    a.push("--");
    a.push(prog);
    a.extend(args);
    ok(fwprof(dir, &a));
    dir.join(name)
}

fn json_of(o: Output) -> Value {
    serde_json::from_slice(&ok(o).stdout).expect("JSON")
}

fn report_json(dir: &Path, file: &Path) -> Value {
    json_of(fwprof(
        dir,
        &["report", "--format", "json", file.to_str().unwrap()],
    ))
}

/// Per function name (summed over functions sharing it): calls and the
/// self and inclusive cost of every event, from a report JSON.
type ByName = BTreeMap<String, (u64, BTreeMap<String, u64>, BTreeMap<String, u64>)>;

fn by_name(report: &Value) -> ByName {
    let mut m = ByName::new();
    for f in report["functions"].as_array().unwrap() {
        let e = m
            .entry(f["name"].as_str().unwrap().to_string())
            .or_default();
        e.0 += f["calls"].as_u64().unwrap();
        for (k, v) in f["self"].as_object().unwrap() {
            *e.1.entry(k.clone()).or_default() += v.as_u64().unwrap();
        }
        for (k, v) in f["inclusive"].as_object().unwrap() {
            *e.2.entry(k.clone()).or_default() += v.as_u64().unwrap();
        }
    }
    m
}

fn has_cost(e: &(u64, BTreeMap<String, u64>, BTreeMap<String, u64>)) -> bool {
    e.0 > 0 || e.1.values().chain(e.2.values()).any(|&v| v > 0)
}

/// `{"before", "after", "change", "percent"}` must say `before` → `after`.
fn assert_change(c: &Value, before: u64, after: u64, what: &str) {
    assert_eq!(c["before"].as_u64(), Some(before), "{what}: {c}");
    assert_eq!(c["after"].as_u64(), Some(after), "{what}: {c}");
    assert_eq!(
        c["change"].as_i64(),
        Some(after as i64 - before as i64),
        "{what}: {c}"
    );
    if before == 0 {
        assert!(c["percent"].is_null(), "{what}: {c}");
    } else {
        let p = (after as f64 - before as f64) * 100.0 / before as f64;
        assert!(
            (c["percent"].as_f64().unwrap() - p).abs() < 1e-9,
            "{what}: {c}"
        );
    }
}

/// coremix with 2 and then 4 iterations: the diff of the two recordings
/// equals the difference of their reports, function by function and event
/// by event; the loop kernels run exactly twice as many instructions; rows
/// are sorted by the largest absolute change.
#[test]
fn diff_of_two_recordings_equals_the_difference_of_their_reports() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    for (core, event) in [(None, "instructions"), (Some("generic"), "cycles")] {
        let tag = core.unwrap_or("exact");
        let b = record(dir, &format!("{tag}2.fwprof"), core, &coremix(), &["2"]);
        let a = record(dir, &format!("{tag}4.fwprof"), core, &coremix(), &["4"]);
        let (rb, ra) = (report_json(dir, &b), report_json(dir, &a));
        let o = ok(fwprof(
            dir,
            &[
                "diff",
                "--format",
                "json",
                "--event",
                event,
                b.to_str().unwrap(),
                a.to_str().unwrap(),
            ],
        ));
        assert_eq!(stderr(&o), "", "same program: no warning");
        let d: Value = serde_json::from_slice(&o.stdout).unwrap();
        assert_eq!(d["schema"], "fwprof-diff/1");
        assert_eq!(d["sort_event"], event);
        assert_eq!(d["same_program"], true);
        assert_eq!(d["events"], rb["events"]);
        let events: Vec<String> = serde_json::from_value(rb["events"].clone()).unwrap();
        assert_eq!(events.len(), if core.is_some() { 16 } else { 1 });
        for e in &events {
            assert_change(
                &d["totals"][e],
                rb["totals"][e].as_u64().unwrap(),
                ra["totals"][e].as_u64().unwrap(),
                &format!("total {e}"),
            );
        }

        let (fb, fa) = (by_name(&rb), by_name(&ra));
        let rows = d["functions"].as_array().unwrap();
        let mut seen = 0;
        let names: BTreeSet<&String> = fb.keys().chain(fa.keys()).collect();
        for name in names {
            let zero = Default::default();
            let (before, after) = (fb.get(name).unwrap_or(&zero), fa.get(name).unwrap_or(&zero));
            let row = rows.iter().find(|r| r["name"] == name.as_str());
            if !has_cost(before) && !has_cost(after) {
                assert!(row.is_none(), "{name} has no cost in either");
                continue;
            }
            let row = row.unwrap_or_else(|| panic!("{name} missing from the diff"));
            seen += 1;
            let status = match (has_cost(before), has_cost(after)) {
                (true, true) => "both",
                (false, true) => "appeared",
                _ => "vanished",
            };
            assert_eq!(row["status"], status, "{name}");
            assert_change(&row["calls"], before.0, after.0, &format!("{name} calls"));
            for e in &events {
                let get = |m: &BTreeMap<String, u64>| m.get(e).copied().unwrap_or(0);
                assert_change(
                    &row["self"][e],
                    get(&before.1),
                    get(&after.1),
                    &format!("{name} self {e}"),
                );
                assert_change(
                    &row["inclusive"][e],
                    get(&before.2),
                    get(&after.2),
                    &format!("{name} inclusive {e}"),
                );
            }
        }
        assert_eq!(seen, rows.len(), "one row per function with cost");
        // Sorted by the largest absolute change of the chosen event's self
        // cost, then inclusive cost.
        let key = |r: &Value| {
            (
                r["self"][event]["change"].as_i64().unwrap().unsigned_abs(),
                r["inclusive"][event]["change"]
                    .as_i64()
                    .unwrap()
                    .unsigned_abs(),
            )
        };
        for w in rows.windows(2) {
            assert!(
                key(&w[0]) >= key(&w[1]),
                "{} before {}",
                w[0]["name"],
                w[1]["name"]
            );
        }
        assert_eq!(
            rows[0]["name"], "bench_matrix",
            "the largest change comes first"
        );
        // The loop kernels' own instructions exactly double (their input
        // is the same each iteration); the setup around them does not.
        for kernel in [
            "bench_matrix",
            "bench_state",
            "list_build",
            "list_reverse",
            "crc16",
        ] {
            let r = rows.iter().find(|r| r["name"] == kernel).unwrap();
            let s = &r["self"]["instructions"];
            assert_eq!(
                s["after"].as_u64().unwrap(),
                2 * s["before"].as_u64().unwrap(),
                "{kernel}"
            );
            assert_eq!(s["percent"].as_f64(), Some(100.0), "{kernel}");
        }
        let main = rows
            .iter()
            .find(|r| r["name"] == "__libc_start_main")
            .unwrap();
        assert_eq!(
            main["self"]["instructions"]["change"], 0,
            "setup is the same"
        );
    }

    // The text form: the same order, the totals, the change and percent.
    let o = ok(fwprof(dir, &["diff", "exact2.fwprof", "exact4.fwprof"]));
    let text = String::from_utf8(o.stdout).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    assert!(lines[0].starts_with("Before: ") && lines[0].ends_with("coremix.rv64-linux.elf 2"));
    assert!(lines[1].starts_with("After:  ") && lines[1].ends_with("coremix.rv64-linux.elf 4"));
    assert_eq!(lines[3], "Totals:");
    let header = lines
        .iter()
        .position(|l| l.starts_with("self before"))
        .unwrap();
    assert_eq!(
        lines[header - 1],
        "Self and inclusive instructions per function, by the largest change in self instructions:"
    );
    let first: Vec<&str> = lines[header + 1].split_whitespace().collect();
    assert_eq!(first[8], "bench_matrix", "{text}");
    assert_eq!(first[3], "+100.00%", "{text}");
    assert_eq!(
        first[2],
        format!("+{}", first[0]),
        "bench_matrix doubles: {text}"
    );
}

#[test]
fn diff_warns_about_other_programs_and_leaves_out_lone_events() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    let c = record(dir, "c.fwprof", None, &coremix(), &["2"]);
    let k = record(dir, "k.fwprof", None, &crc32(), &[]);
    let o = ok(fwprof(dir, &["diff", "c.fwprof", "k.fwprof"]));
    let e = stderr(&o);
    assert_eq!(e.lines().count(), 1, "{e}");
    assert!(
        e.starts_with("fwprof: warning: the profiles are of different programs (BEFORE ")
            && e.contains("coremix.rv64-linux.elf")
            && e.contains("crc32.rv64-linux.elf"),
        "{e}"
    );
    let text = String::from_utf8(o.stdout).unwrap();
    assert!(
        text.contains("[appeared]") && text.contains("[vanished]"),
        "{text}"
    );
    let d = json_of(fwprof(
        dir,
        &["diff", "--format", "json", "c.fwprof", "k.fwprof"],
    ));
    assert_eq!(d["same_program"], false);
    let crc = d["functions"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["name"] == "crc32_bitwise")
        .expect("crc32_bitwise");
    assert_eq!(crc["status"], "appeared");
    drop((c, k));

    // A profile with a core model has 15 events the other lacks.
    record(dir, "t.fwprof", Some("generic"), &coremix(), &["2"]);
    let o = ok(fwprof(dir, &["diff", "t.fwprof", "c.fwprof"]));
    let text = String::from_utf8(o.stdout).unwrap();
    assert!(
        text.contains("Note: events only BEFORE records are left out: cycles, loads,"),
        "{text}"
    );
    let d = json_of(fwprof(
        dir,
        &["diff", "--format", "json", "c.fwprof", "t.fwprof"],
    ));
    assert_eq!(d["events"], serde_json::json!(["instructions"]));
    assert_eq!(
        d["left_out_events"]["after_only"].as_array().unwrap().len(),
        15
    );
    // The same run: not one instruction changed.
    assert!(d["functions"]
        .as_array()
        .unwrap()
        .iter()
        .all(|r| r["self"]["instructions"]["change"] == 0));
    let o = fwprof(dir, &["diff", "--event", "cycles", "t.fwprof", "c.fwprof"]);
    assert_eq!(o.status.code(), Some(125));
    assert_eq!(
        stderr(&o),
        "fwprof: event `cycles` is not in AFTER; the profiles share: instructions\n"
    );
}

/// The costs of a profile as plain numbers for comparison: per function
/// (calls, self, inclusive), per address, per arc, traps, totals, contexts.
fn numbers(p: &Profile) -> Vec<u64> {
    let mut v = Vec::new();
    for f in &p.functions {
        v.push(f.calls);
        v.extend(&f.self_cost);
        v.extend(&f.inclusive);
    }
    for c in p.costs.iter() {
        v.extend(c.cost);
    }
    for a in &p.arcs {
        v.push(a.calls);
        v.extend(&a.inclusive);
    }
    v.extend(p.traps.iter().map(|t| t.count));
    v.extend(&p.totals);
    for c in &p.contexts {
        v.push(c.calls);
        v.extend(&c.self_cost);
    }
    v
}

#[test]
fn merging_a_profile_with_itself_doubles_every_number() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    let p = record(dir, "p.fwprof", Some("generic"), &coremix(), &["2"]);
    ok(fwprof(
        dir,
        &["merge", "p.fwprof", "p.fwprof", "-o", "m.fwprof"],
    ));
    let (one, two) = (
        Profile::read(&p).unwrap(),
        Profile::read(dir.join("m.fwprof")).unwrap(),
    );
    two.check_invariants().unwrap();
    assert!(!one.contexts.is_empty() && !one.arcs.is_empty());
    let doubled: Vec<u64> = numbers(&one).iter().map(|x| 2 * x).collect();
    assert_eq!(numbers(&two), doubled);
    // Same shape: functions, addresses, arcs and contexts where they were.
    let names = |p: &Profile| -> Vec<(String, u64, u64)> {
        p.functions
            .iter()
            .map(|f| (f.name.clone(), f.start, f.end))
            .collect()
    };
    assert_eq!(names(&one), names(&two));
    let addrs = |p: &Profile| -> Vec<(u64, u32, u32)> {
        p.costs
            .iter()
            .map(|c| (c.addr, c.function.0, c.raw))
            .collect()
    };
    assert_eq!(addrs(&one), addrs(&two));
    let arcs = |p: &Profile| -> Vec<_> {
        p.arcs
            .iter()
            .map(|a| (a.caller, a.callee, a.call_site, a.tail))
            .collect()
    };
    assert_eq!(arcs(&one), arcs(&two));
    assert_eq!(
        one.contexts
            .iter()
            .map(|c| (c.parent, c.function))
            .collect::<Vec<_>>(),
        two.contexts
            .iter()
            .map(|c| (c.parent, c.function))
            .collect::<Vec<_>>()
    );
    assert_eq!(two.events, one.events);
    assert_eq!(two.meta.core, one.meta.core);
    assert_eq!(two.meta.command, one.meta.command);
    assert!(two
        .meta
        .warnings
        .last()
        .unwrap()
        .starts_with("merged from 2 runs: `"));
    ok(fwprof(dir, &["report", "m.fwprof"]));
}

#[test]
fn merging_runs_with_other_arguments_sums_their_reports() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    let b = record(dir, "b.fwprof", None, &coremix(), &["2"]);
    let a = record(dir, "a.fwprof", None, &coremix(), &["4"]);
    let o = ok(fwprof(
        dir,
        &["merge", "b.fwprof", "a.fwprof", "-o", "m.fwprof"],
    ));
    assert_eq!(stderr(&o), "");
    Profile::read(dir.join("m.fwprof"))
        .unwrap()
        .check_invariants()
        .unwrap();
    let (rb, ra) = (report_json(dir, &b), report_json(dir, &a));
    let rm = report_json(dir, &dir.join("m.fwprof"));
    let (fb, fa, fm) = (by_name(&rb), by_name(&ra), by_name(&rm));
    let names: Vec<&String> = fb.keys().chain(fa.keys()).collect();
    for name in names {
        let zero = Default::default();
        let (x, y) = (fb.get(name).unwrap_or(&zero), fa.get(name).unwrap_or(&zero));
        let m = &fm[name];
        assert_eq!(m.0, x.0 + y.0, "{name} calls");
        assert_eq!(
            m.1["instructions"],
            x.1["instructions"] + y.1["instructions"],
            "{name} self"
        );
        assert_eq!(
            m.2["instructions"],
            x.2["instructions"] + y.2["instructions"],
            "{name} inclusive"
        );
    }
    assert_eq!(
        rm["totals"]["instructions"].as_u64().unwrap(),
        rb["totals"]["instructions"].as_u64().unwrap()
            + ra["totals"]["instructions"].as_u64().unwrap()
    );
    // Arcs, matched by caller, callee, call site and tail flag.
    let arcs = |r: &Value| -> BTreeMap<String, (u64, u64)> {
        let mut m = BTreeMap::new();
        for a in r["call_graph"].as_array().unwrap() {
            let k = format!(
                "{}>{}@{}{}",
                a["caller"], a["callee"], a["call_site"], a["tail"]
            );
            let e: &mut (u64, u64) = m.entry(k).or_default();
            e.0 += a["calls"].as_u64().unwrap();
            e.1 += a["inclusive"]["instructions"].as_u64().unwrap();
        }
        m
    };
    let (ab, aa, am) = (arcs(&rb), arcs(&ra), arcs(&rm));
    assert_eq!(
        am.len(),
        ab.keys().chain(aa.keys()).collect::<BTreeSet<_>>().len()
    );
    for (k, v) in &am {
        let (x, y) = (
            ab.get(k).copied().unwrap_or_default(),
            aa.get(k).copied().unwrap_or_default(),
        );
        assert_eq!(*v, (x.0 + y.0, x.1 + y.1), "arc {k}");
    }
    let w = &rm["meta"]["warnings"];
    assert!(
        w.as_array()
            .unwrap()
            .iter()
            .any(|w| w.as_str().unwrap().ends_with("coremix.rv64-linux.elf 4`")),
        "{w}"
    );
    // Every run's share shows in the diff against the longer one.
    let d = json_of(fwprof(
        dir,
        &["diff", "--format", "json", "a.fwprof", "m.fwprof"],
    ));
    assert_eq!(
        d["totals"]["instructions"]["change"].as_u64(),
        rb["totals"]["instructions"].as_u64()
    );
}

#[test]
fn merge_refuses_other_programs_unless_forced_and_other_events_always() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    let c = record(dir, "c.fwprof", None, &coremix(), &["2"]);
    let k = record(dir, "k.fwprof", None, &crc32(), &[]);
    let o = fwprof(dir, &["merge", "c.fwprof", "k.fwprof", "-o", "m.fwprof"]);
    assert_eq!(o.status.code(), Some(125), "{}", stderr(&o));
    let e = stderr(&o);
    assert_eq!(e.lines().count(), 1, "{e}");
    assert!(
        e.starts_with("fwprof: profiles 1 and 2 are of different programs: ")
            && e.contains("coremix.rv64-linux.elf (sha256 ")
            && e.contains("crc32.rv64-linux.elf (sha256 ")
            && e.trim_end().ends_with("--force merges them anyway"),
        "{e}"
    );
    assert!(!dir.join("m.fwprof").exists());

    let o = ok(fwprof(
        dir,
        &["merge", "--force", "c.fwprof", "k.fwprof", "-o", "m.fwprof"],
    ));
    assert_eq!(stderr(&o), "");
    let (pc, pk) = (Profile::read(&c).unwrap(), Profile::read(&k).unwrap());
    let m = Profile::read(dir.join("m.fwprof")).unwrap();
    m.check_invariants().unwrap();
    assert_eq!(m.totals[0], pc.totals[0] + pk.totals[0]);
    assert!(m
        .meta
        .warnings
        .iter()
        .any(|w| w.starts_with("merged with --force")));
    let self_of = |p: &Profile, name: &str| -> u64 {
        p.functions
            .iter()
            .filter(|f| f.name == name)
            .map(|f| f.self_cost[0])
            .sum()
    };
    for name in ["crc32_bitwise", "bench_matrix", "memcpy", "main"] {
        assert_eq!(
            self_of(&m, name),
            self_of(&pc, name) + self_of(&pk, name),
            "{name}"
        );
    }
    ok(fwprof(dir, &["report", "m.fwprof"]));

    record(dir, "t.fwprof", Some("generic"), &coremix(), &["2"]);
    for force in [false, true] {
        let mut args = vec!["merge", "c.fwprof", "t.fwprof", "-o", "e.fwprof"];
        if force {
            args.push("--force");
        }
        let o = fwprof(dir, &args);
        assert_eq!(o.status.code(), Some(125));
        let e = stderr(&o);
        assert_eq!(e.lines().count(), 1, "{e}");
        assert!(
            e.starts_with("fwprof: cannot merge profiles with different events: profile 1 has instructions and profile 2 has instructions,cycles,"),
            "{e}"
        );
    }
}

/// A tiny xorshift generator: the same "random" bytes on every run.
fn random_bytes(n: usize, mut seed: u64) -> Vec<u8> {
    (0..n)
        .map(|_| {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed as u8
        })
        .collect()
}

#[test]
fn readers_reject_corrupt_profiles_in_one_line() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    let good = record(dir, "good.fwprof", None, &coremix(), &["2"]);
    let bytes = std::fs::read(&good).unwrap();
    let cases: Vec<(&str, Vec<u8>)> = vec![
        ("truncated.fwprof", bytes[..bytes.len() / 2].to_vec()),
        ("header-only.fwprof", bytes[..10].to_vec()),
        ("empty.fwprof", Vec::new()),
        ("random.fwprof", random_bytes(5000, 0x2545_f491_4f6c_dd1d)),
        (
            "random-body.fwprof",
            [&bytes[..20], &random_bytes(bytes.len() - 20, 7)[..]].concat(),
        ),
    ];
    for (name, data) in &cases {
        std::fs::write(dir.join(name), data).unwrap();
        for args in [
            vec!["report", name],
            vec!["report", "--format", "json", name],
            vec!["diff", name, "good.fwprof"],
            vec!["diff", "good.fwprof", name],
            vec!["merge", "good.fwprof", name, "-o", "out.fwprof"],
            vec!["merge", name, "good.fwprof", "-o", "out.fwprof"],
        ] {
            let o = fwprof(dir, &args);
            let e = stderr(&o);
            assert_eq!(o.status.code(), Some(125), "{args:?}: {e}");
            assert!(!e.contains("panicked"), "{args:?}: {e}");
            assert_eq!(e.lines().count(), 1, "{args:?}: {e}");
            assert!(
                e.starts_with(&format!("fwprof: cannot read {name}: ")),
                "{args:?}: {e}"
            );
            assert!(o.stdout.is_empty(), "{args:?}");
            assert!(!dir.join("out.fwprof").exists());
        }
    }
}
