//! `fwprof export --format gmon` read by the real GNU gprof
//! (`riscv64-unknown-elf-gprof`): the flat profile (`-b -p`) and call
//! graph (`-b -q`) of the exported `gmon.out` must carry the numbers of
//! `fwprof report --format json` for the same profile: exact self counts,
//! calls, ranking and every caller→callee arc with its count. One RV32
//! bare-metal example (4-byte addresses in the file) and one RV64 Linux
//! example (8-byte addresses).
//!
//! gprof sees functions through its own symbol table, so the expected
//! numbers are fwprof's regrouped the way gprof groups them (binutils
//! gprof 2.40, `corefile.c`, `cg_arcs.c`):
//! - gprof drops some symbols (e.g. GCC clones `foo.constprop.0`,
//!   `foo.part.0`) and credits their histogram bins to the symbol before
//!   them; among aliases at one address it prints one name. The symbols
//!   it keeps are the names `gprof -p -z` lists, located with `readelf`.
//! - an arc's callee is backed up to the nearest symbol of type `FUNC`
//!   (`cg_tally`: `while (!child->is_func) --child`), so calls to an
//!   untyped assembly label count for the function before it.
//! - the flat profile's `calls` leaves out direct recursion
//!   (`cg_assemble`: `ncalls -= self arc`) and spontaneous entries (no
//!   arc is written for them: gprof shows `<spontaneous>`).

mod common;

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;
use std::process::Command;

use serde_json::Value;

const GPROF: &str = "riscv64-unknown-elf-gprof";
const READELF: &str = "riscv64-unknown-elf-readelf";

/// Run a tool, assert success, return stdout.
fn run(tool: &str, args: &[&str], dir: &Path) -> String {
    let out = Command::new(tool)
        .args(args)
        .current_dir(dir)
        .output()
        .unwrap_or_else(|e| panic!("cannot run {tool}: {e}"));
    assert!(
        out.status.success(),
        "{tool} {args:?} failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

/// Record `elf` (relative to the repo) and return (dir, JSON report).
fn record(elf: &str, dir: &Path) -> Value {
    let elf = common::repo().join(elf);
    let o = common::run_fwprof(
        dir,
        &["record", "-o", "p.fwprof", "--", elf.to_str().unwrap()],
    );
    assert!(
        o.status.success(),
        "record failed: {}",
        String::from_utf8_lossy(&o.stderr)
    );
    let o = common::run_fwprof(dir, &["report", "p.fwprof", "--format", "json"]);
    assert!(o.status.success());
    serde_json::from_slice(&o.stdout).unwrap()
}

/// One function of fwprof's JSON report.
struct Func {
    name: String,
    start: u64,
    calls: u64,
    self_cost: u64,
}

/// A line of gprof's flat profile.
#[derive(Debug)]
struct FlatLine {
    name: String,
    self_cost: f64,
    calls: u64,
}

/// Parse `gprof -b -p`: lines after the header ending in `name`.
fn parse_flat(text: &str) -> Vec<FlatLine> {
    let mut rows = Vec::new();
    let mut in_table = false;
    for line in text.lines() {
        if !in_table {
            in_table = line.trim_end().ends_with("name");
            continue;
        }
        let t: Vec<&str> = line.split_whitespace().collect();
        if t.len() < 4 {
            break;
        }
        let num = |s: &str| s.parse::<f64>().ok();
        let (calls, name) = if t.len() >= 7 && t[3..6].iter().all(|x| num(x).is_some()) {
            (t[3].parse().unwrap(), t[6..].join(" "))
        } else {
            (0, t[3..].join(" "))
        };
        rows.push(FlatLine {
            name,
            self_cost: num(t[2]).unwrap(),
            calls,
        });
    }
    rows
}

/// A name in gprof's call graph without ` <cycle N>` and ` [index]`.
fn clean(name: &str) -> String {
    let mut s = name.trim();
    if let Some(i) = s.rfind(" [") {
        s = &s[..i];
    }
    if let Some(i) = s.find(" <cycle") {
        s = &s[..i];
    }
    s.trim().to_string()
}

/// Parse `gprof -b -q`: for every entry, the arcs from its parent lines
/// (`called/total name` or `called name` inside a cycle or recursion).
fn parse_graph(text: &str) -> BTreeMap<(String, String), u64> {
    let mut arcs = BTreeMap::new();
    let mut parents: Vec<(String, u64)> = Vec::new();
    let mut after_primary = false;
    for line in text.lines() {
        if line.starts_with("-----") {
            parents.clear();
            after_primary = false;
            continue;
        }
        let t = line.trim_start();
        if after_primary || !t.ends_with(']') {
            continue;
        }
        // Tokens up to the name: numbers, `a/b` or `a+b`.
        let toks: Vec<&str> = t.split_whitespace().collect();
        let name_at = toks
            .iter()
            .position(|x| {
                !x.starts_with('[') && x.parse::<f64>().is_err() && !x.contains(['/', '+'])
            })
            .unwrap_or(toks.len());
        let name = clean(&toks[name_at..].join(" "));
        if t.starts_with('[') {
            after_primary = true;
            if name.starts_with('<') {
                continue; // <cycle N as a whole>
            }
            for (p, n) in parents.drain(..) {
                *arcs.entry((p, name.clone())).or_insert(0) += n;
            }
        } else if name != "<spontaneous>" {
            let called = toks[..name_at].last().copied().unwrap_or("0");
            let n = called.split('/').next().unwrap().parse().unwrap();
            parents.push((name, n));
        }
    }
    arcs
}

/// The ELF's symbols (but file and section symbols): name → addresses, and the addresses that carry
/// an `STT_FUNC` symbol.
fn elf_symbols(elf: &Path, dir: &Path) -> (BTreeMap<String, BTreeSet<u64>>, BTreeSet<u64>) {
    let text = run(READELF, &["-sW", elf.to_str().unwrap()], dir);
    let mut names: BTreeMap<String, BTreeSet<u64>> = BTreeMap::new();
    let mut funcs = BTreeSet::new();
    for line in text.lines() {
        let t: Vec<&str> = line.split_whitespace().collect();
        if t.len() < 8 || !t[0].ends_with(':') {
            continue;
        }
        let Ok(addr) = u64::from_str_radix(t[1], 16) else {
            continue;
        };
        if t[3] == "FUNC" {
            funcs.insert(addr);
        }
        // gprof also keeps data symbols inside code sections.
        if !matches!(t[3], "FILE" | "SECTION") {
            names.entry(t[7].to_string()).or_default().insert(addr);
        }
    }
    (names, funcs)
}

fn check(elf_rel: &str) {
    if !common::require(&[GPROF, READELF]) {
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    let report = record(elf_rel, dir);
    let elf = common::repo().join(elf_rel);
    let o = common::run_fwprof(
        dir,
        &["export", "p.fwprof", "--format", "gmon", "-o", "gmon.out"],
    );
    assert!(
        o.status.success(),
        "export failed: {}",
        String::from_utf8_lossy(&o.stderr)
    );
    let data = std::fs::read(dir.join("gmon.out")).unwrap();
    assert_eq!(&data[..8], b"gmon\x01\x00\x00\x00");
    let elf_s = elf.to_str().unwrap();

    // fwprof's numbers.
    let funcs: Vec<Func> = report["functions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| Func {
            name: f["name"].as_str().unwrap().to_string(),
            start: f["address"].as_u64().unwrap(),
            calls: f["calls"].as_u64().unwrap(),
            self_cost: f["self"]["instructions"].as_u64().unwrap(),
        })
        .collect();
    let arcs: Vec<(Option<usize>, usize, u64, u64)> = report["call_graph"]
        .as_array()
        .unwrap()
        .iter()
        .map(|a| {
            (
                a["caller_id"].as_u64().map(|x| x as usize),
                a["callee_id"].as_u64().unwrap() as usize,
                a["call_site"].as_u64().unwrap(),
                a["calls"].as_u64().unwrap(),
            )
        })
        .collect();

    // gprof's symbol table: the names `-p -z` lists, at their ELF addresses.
    let (elf_names, func_addrs) = elf_symbols(&elf, dir);
    let all = parse_flat(&run(GPROF, &["-b", "-p", "-z", elf_s, "gmon.out"], dir));
    let mut gsym: BTreeMap<u64, String> = BTreeMap::new();
    let mut ambiguous = BTreeSet::new();
    for row in &all {
        let addrs = elf_names
            .get(&row.name)
            .unwrap_or_else(|| panic!("gprof lists {} which readelf does not", row.name));
        if addrs.len() > 1 {
            ambiguous.insert(row.name.clone());
        }
        for &a in addrs {
            gsym.insert(a, row.name.clone());
        }
    }
    let owner = |addr: u64| -> Option<&String> { gsym.range(..=addr).next_back().map(|(_, n)| n) };
    let func_owner = |addr: u64| -> Option<&String> {
        gsym.range(..=addr)
            .rev()
            .find(|(a, _)| func_addrs.contains(a))
            .map(|(_, n)| n)
    };

    // Expected flat profile and arcs, regrouped as gprof groups them.
    let mut want_self: BTreeMap<String, u64> = BTreeMap::new();
    let mut members: BTreeMap<String, Vec<usize>> = BTreeMap::new();
    for (i, f) in funcs.iter().enumerate() {
        if let Some(g) = owner(f.start) {
            *want_self.entry(g.clone()).or_insert(0) += f.self_cost;
            if f.self_cost > 0 || f.calls > 0 {
                members.entry(g.clone()).or_default().push(i);
            }
        }
    }
    let mut want_calls: BTreeMap<String, u64> = BTreeMap::new();
    let mut want_arcs: BTreeMap<(String, String), u64> = BTreeMap::new();
    for &(caller, callee, site, calls) in &arcs {
        if caller.is_none() {
            continue;
        }
        let (Some(p), Some(c)) = (owner(site), func_owner(funcs[callee].start)) else {
            continue;
        };
        *want_arcs.entry((p.clone(), c.clone())).or_insert(0) += calls;
        if p != c {
            *want_calls.entry(c.clone()).or_insert(0) += calls;
        }
    }

    // The flat profile.
    let flat = parse_flat(&run(GPROF, &["-b", "-p", elf_s, "gmon.out"], dir));
    assert!(
        flat.len() >= 15,
        "too few functions in gprof's flat profile: {flat:?}"
    );
    let mut listed = BTreeSet::new();
    for row in &flat {
        if ambiguous.contains(&row.name) {
            continue;
        }
        listed.insert(row.name.clone());
        let want = want_self.get(&row.name).copied().unwrap_or(0);
        assert_eq!(
            row.self_cost, want as f64,
            "self instructions of {}",
            row.name
        );
        let want = want_calls.get(&row.name).copied().unwrap_or(0);
        assert_eq!(row.calls, want, "calls of {}", row.name);
    }
    for (g, &s) in &want_self {
        let calls = want_calls.get(g).copied().unwrap_or(0);
        if (s > 0 || calls > 0) && !ambiguous.contains(g) {
            assert!(
                listed.contains(g),
                "gprof does not list {g} ({s} instructions)"
            );
        }
    }
    // Where gprof's symbol is exactly one fwprof function, the numbers are
    // fwprof's own: calls (minus spontaneous entries and direct
    // recursion) and the ranking by self.
    let one_to_one: BTreeMap<&String, usize> = members
        .iter()
        .filter(|(g, m)| m.len() == 1 && !ambiguous.contains(*g))
        .map(|(g, m)| (g, m[0]))
        .collect();
    assert!(
        one_to_one.len() >= 10,
        "too few functions to compare: {one_to_one:?}"
    );
    let mut compared_calls = 0;
    for row in &flat {
        let Some(&i) = one_to_one.get(&row.name) else {
            continue;
        };
        let f = &funcs[i];
        assert_eq!(row.self_cost, f.self_cost as f64, "{}", f.name);
        let self_calls: u64 = arcs
            .iter()
            .filter(|a| a.0 == Some(i) && a.1 == i)
            .map(|a| a.3)
            .sum();
        // Entries with no caller are spontaneous for gprof: the entry
        // function too, which QEMU `virt`'s reset ROM (0x1000) enters by
        // `jr t0` — a hand-over, not a call.
        let spontaneous: u64 = arcs
            .iter()
            .filter(|a| a.1 == i && a.0.is_none())
            .map(|a| a.3)
            .sum();
        // Calls into untyped labels are charged to the function before
        // them: compare only functions that receive their own calls.
        let own_calls_only = func_addrs.contains(&f.start)
            && arcs.iter().all(|a| {
                a.0.is_none() || a.1 == i || func_owner(funcs[a.1].start) != Some(&row.name)
            });
        if own_calls_only {
            assert_eq!(
                row.calls,
                f.calls - self_calls - spontaneous,
                "calls of {}",
                f.name
            );
            compared_calls += 1;
        }
    }
    assert!(compared_calls >= 10);
    let gprof_rank: Vec<usize> = flat
        .iter()
        .filter_map(|r| one_to_one.get(&r.name).copied())
        .collect();
    let mut fwprof_rank = gprof_rank.clone();
    fwprof_rank.sort_by_key(|&i| std::cmp::Reverse(funcs[i].self_cost));
    let selfs = |v: &[usize]| v.iter().map(|&i| funcs[i].self_cost).collect::<Vec<_>>();
    assert_eq!(selfs(&gprof_rank), selfs(&fwprof_rank), "ranking by self");
    for w in gprof_rank.windows(2) {
        assert!(funcs[w[0]].self_cost >= funcs[w[1]].self_cost);
    }

    // The call graph: every arc and its count.
    let graph = parse_graph(&run(GPROF, &["-b", "-q", elf_s, "gmon.out"], dir));
    let keep = |k: &(String, String)| !ambiguous.contains(&k.0) && !ambiguous.contains(&k.1);
    let got: BTreeMap<_, _> = graph.into_iter().filter(|(k, _)| keep(k)).collect();
    let want: BTreeMap<_, _> = want_arcs.into_iter().filter(|(k, _)| keep(k)).collect();
    assert!(want.len() >= 15, "too few arcs: {want:?}");
    assert_eq!(got, want, "call-graph arcs");
}

#[test]
fn gprof_reads_an_rv32_baremetal_profile() {
    check("examples/huffman/huffman.rv32imac.elf");
}

#[test]
fn gprof_reads_an_rv64_linux_profile() {
    check("examples/exprcalc/exprcalc.rv64-linux.elf");
}

#[test]
fn gprof_reads_a_cycles_histogram() {
    if !common::require(&[GPROF]) {
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    let elf = common::repo().join("examples/crc32/crc32.rv32imac.elf");
    let o = common::run_fwprof(
        dir,
        &[
            "record",
            "-o",
            "p.fwprof",
            "--core",
            "picorv32",
            "--",
            elf.to_str().unwrap(),
        ],
    );
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let o = common::run_fwprof(
        dir,
        &[
            "export", "p.fwprof", "--format", "gmon", "--event", "cycles", "-o", "gmon.out",
        ],
    );
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let o = common::run_fwprof(dir, &["report", "p.fwprof", "--format", "json"]);
    let report: Value = serde_json::from_slice(&o.stdout).unwrap();
    let text = run(GPROF, &["-b", "-p", elf.to_str().unwrap(), "gmon.out"], dir);
    assert!(text.contains("Each sample counts as 1 cycles."), "{text}");
    // The histogram's total is the run's cycles, exactly, but for those of
    // QEMU `virt`'s reset ROM at 0x1000, which lies outside the program's
    // text and so outside gprof's histogram.
    let flat = parse_flat(&text);
    let sum: f64 = flat.iter().map(|r| r.self_cost).sum();
    let p = fwprof_profile::Profile::read(dir.join("p.fwprof")).unwrap();
    let cycles = p.events.iter().position(|e| e == "cycles").unwrap();
    let rom: u64 = p
        .costs
        .iter()
        .filter(|c| c.addr < 0x2000)
        .map(|c| c.cost[cycles])
        .sum();
    assert!(rom > 0, "the reset ROM's cycles are in the profile");
    assert_eq!(
        sum,
        (report["totals"]["cycles"].as_u64().unwrap() - rom) as f64
    );
    assert!(
        report["totals"]["cycles"].as_u64().unwrap()
            > report["totals"]["instructions"].as_u64().unwrap()
    );
}
