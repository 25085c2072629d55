//! Call graph cross-check with GNU gprof: programs built with `-pg -static`
//! write `gmon.out` under `qemu-riscv64`; the call counts and arcs
//! `riscv64-linux-gnu-gprof` reports must equal fwprof's on the same binary.
//!
//! gprof sees only calls *into* functions compiled with `-pg` (they call
//! `_mcount`), so the comparison covers those callees. A callee entered by a
//! tail call is recorded by `_mcount` against the caller's caller (the return
//! address it sees), whereas fwprof shows the jump as a `tail` arc from the
//! function that jumped: such callees are compared on their total calls only.

mod common;

use std::collections::{BTreeMap, BTreeSet};
use std::process::{Command, Stdio};

use fwprof_profile::Profile;

/// `(caller, callee) → calls` and `callee → total calls`, from `gprof -b -q`.
type Arcs = BTreeMap<(String, String), u64>;

fn clean_name(s: &str) -> String {
    let s = s.trim();
    let s = match s.rfind(" [") {
        Some(i) if s.ends_with(']') => &s[..i],
        _ => s,
    };
    let s = match s.find(" <cycle") {
        Some(i) => &s[..i],
        None => s,
    };
    s.trim().to_string()
}

/// Parse the call-graph part of `gprof -b -q` output.
fn parse_gprof(text: &str) -> (Arcs, BTreeMap<String, u64>) {
    let mut arcs = Arcs::new();
    let mut totals = BTreeMap::new();
    let mut callers: Vec<(String, u64)> = Vec::new();
    for line in text.lines() {
        if line.starts_with("-----") {
            callers.clear();
            continue;
        }
        let t = line.trim_start();
        if t.is_empty() || !line.trim_end().ends_with(']') {
            continue;
        }
        let toks: Vec<&str> = t.split_whitespace().collect();
        if t.starts_with('[') {
            // Primary line: [idx] %time self children called name [idx]
            let name_start = toks
                .iter()
                .position(|x| {
                    x.chars()
                        .next()
                        .is_some_and(|c| c.is_alphabetic() || c == '_' || c == '.')
                })
                .unwrap_or(toks.len());
            let name = clean_name(&toks[name_start..].join(" "));
            let called = toks[..name_start].last().copied().unwrap_or("0");
            // `n+r`: n external calls plus r recursive ones.
            let total: u64 = called
                .split('+')
                .filter_map(|x| x.parse::<u64>().ok())
                .sum();
            let total = if called.contains('.') { 0 } else { total };
            totals.insert(name.clone(), total);
            for (c, n) in callers.drain(..) {
                *arcs.entry((c, name.clone())).or_insert(0) += n;
            }
            // Lines after the primary are callees: ignore until the separator.
            callers.push((String::from("\u{0}callee-section"), 0));
        } else if callers.first().is_some_and(|c| c.0.starts_with('\u{0}')) {
            continue;
        } else {
            // Caller line: [self children] called name [idx]
            let name_start = toks
                .iter()
                .position(|x| {
                    x.chars()
                        .next()
                        .is_some_and(|c| c.is_alphabetic() || c == '_' || c == '.')
                })
                .unwrap_or(toks.len());
            let name = clean_name(&toks[name_start..].join(" "));
            let Some(called) = toks[..name_start].last() else {
                continue;
            };
            let n: u64 = called
                .split('/')
                .next()
                .and_then(|x| x.parse().ok())
                .unwrap_or(0);
            callers.push((name, n));
        }
    }
    (arcs, totals)
}

fn compare(name: &str) -> Result<(), String> {
    let src = common::corpus_elf(name);
    let tmp = tempfile::tempdir().unwrap();
    let elf = tmp.path().join(name);
    std::fs::copy(&src, &elf).unwrap();
    // QEMU run writes gmon.out into the cwd.
    let st = Command::new("qemu-riscv64")
        .arg(&elf)
        .current_dir(tmp.path())
        .env_clear()
        .env("PATH", "/usr/bin:/bin")
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .status()
        .unwrap();
    if !st.success() {
        return Err(format!("{name}: qemu-riscv64 failed: {st}"));
    }
    let gmon = tmp.path().join("gmon.out");
    assert!(gmon.exists(), "{name}: no gmon.out");
    let out = Command::new("riscv64-linux-gnu-gprof")
        .args(["-b", "-q"])
        .arg(&elf)
        .arg(&gmon)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "gprof failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let (g_arcs, g_totals) = parse_gprof(&String::from_utf8_lossy(&out.stdout));
    assert!(!g_arcs.is_empty(), "{name}: gprof reported no arcs");
    std::fs::remove_file(&gmon).unwrap();

    let o = Command::new(common::fwprof())
        .current_dir(tmp.path())
        .args([
            "record",
            "-o",
            "p.data",
            "--clear-env",
            "-E",
            "PATH=/usr/bin:/bin",
            "--",
        ])
        .arg(&elf)
        .stdout(Stdio::null())
        .output()
        .unwrap();
    assert!(
        o.status.success(),
        "{name}: fwprof failed: {}",
        String::from_utf8_lossy(&o.stderr)
    );
    let p = Profile::read(tmp.path().join("p.data")).unwrap();
    // gprof (binutils core.c, core_sym_class) ignores symbols such as GCC's
    // `foo.part.0` / `foo.constprop.0` clones and charges their code to the
    // preceding symbol it keeps: name fwprof's functions the same way.
    let mut order: Vec<usize> = (0..p.functions.len()).collect();
    order.sort_by_key(|&i| p.functions[i].start);
    let mut gprof_name = vec![String::new(); p.functions.len()];
    let mut last_kept = String::from("<none>");
    for &i in &order {
        let n = &p.functions[i].name;
        let ignored = n.contains('.') || n.starts_with('[');
        if !ignored {
            last_kept = n.clone();
        }
        gprof_name[i] = if ignored {
            last_kept.clone()
        } else {
            n.clone()
        };
    }
    let fname = |id: fwprof_profile::FunctionId| gprof_name[id.index()].clone();
    let mut f_arcs = Arcs::new();
    let mut tail_callees = BTreeSet::new();
    for a in &p.arcs {
        let Some(c) = a.caller else { continue };
        if a.tail {
            tail_callees.insert(fname(a.callee));
        }
        *f_arcs.entry((fname(c), fname(a.callee))).or_insert(0) += a.calls;
    }
    let mut errs = Vec::new();
    let mut compared = 0;
    for ((caller, callee), n) in &g_arcs {
        if caller.starts_with('<')
            || tail_callees.contains(callee)
            || caller == callee && tail_callees.contains(caller)
        {
            continue;
        }
        compared += 1;
        let ours = f_arcs
            .get(&(caller.clone(), callee.clone()))
            .copied()
            .unwrap_or(0);
        if ours != *n {
            errs.push(format!(
                "arc {caller} -> {callee}: gprof {n}, fwprof {ours}"
            ));
        }
    }
    // Calls per gprof name: clones gprof folds into a kept symbol add up.
    let mut f_calls: BTreeMap<String, u64> = BTreeMap::new();
    for (i, f) in p.functions.iter().enumerate() {
        *f_calls.entry(gprof_name[i].clone()).or_insert(0) += f.calls;
    }
    for (callee, n) in &g_totals {
        // A function gprof lists with no calls got only histogram ticks:
        // QEMU delivers SIGPROF at host-time intervals, so under load a tick
        // can land in code under an alias name fwprof does not use (seen:
        // `strerror_r`). Ticks are not what this test compares.
        if *n == 0 && !f_calls.contains_key(callee) {
            continue;
        }
        let Some(ours) = f_calls.get(callee) else {
            errs.push(format!(
                "{callee}: in gprof's call graph, not in fwprof's functions"
            ));
            continue;
        };
        if *n != 0 && *ours != *n {
            errs.push(format!(
                "{callee}: called {n} times per gprof, {ours} per fwprof"
            ));
        }
    }
    eprintln!(
        "{name}: {compared} arcs and {} functions compared with gprof",
        g_totals.len()
    );
    if errs.is_empty() {
        Ok(())
    } else {
        Err(format!("{name}:\n  {}", errs.join("\n  ")))
    }
}

#[test]
fn call_graph_matches_gprof() {
    if !common::require(&["qemu-riscv64", "riscv64-linux-gnu-gprof"]) {
        return;
    }
    let pg: Vec<String> = common::corpus_elfs()
        .iter()
        .filter_map(|p| p.file_name().map(|n| n.to_string_lossy().to_string()))
        .filter(|n| n.contains("-pg."))
        .collect();
    assert!(
        pg.len() >= 3,
        "expected -pg builds in the corpus, found {pg:?}"
    );
    let errs: Vec<String> = pg.iter().filter_map(|n| compare(n).err()).collect();
    assert!(errs.is_empty(), "{}", errs.join("\n"));
}

#[test]
fn gprof_parser_reads_callers_and_recursion() {
    let text = "\
index % time    self  children    called     name
                0.00    0.00       1/1           main [9]
[1]      0.0    0.00    0.00       1+5       fact [1]
                                   5             fact [1]
-----------------------------------------------
                                                 <spontaneous>
[9]      0.0    0.00    0.00                 main [9]
                0.00    0.00       1/1           fact [1]
-----------------------------------------------
";
    let (arcs, totals) = parse_gprof(text);
    assert_eq!(arcs.get(&("main".into(), "fact".into())), Some(&1));
    assert_eq!(totals.get("fact"), Some(&6));
    assert_eq!(totals.get("main"), Some(&0));
}
