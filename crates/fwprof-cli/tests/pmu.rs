//! The PMU the guest programs (issue 17, part 1): tests/pmu/count.c reads
//! counters it programmed around two regions (`work`, C with loads,
//! stores, branches and calls; `spin`, a compressed assembly loop of known
//! counts) on each core's event encoding, and the counts must equal
//! fwprof's exact profile of the same run; tests/pmu/sampler.c samples its
//! user-mode workload with counter-overflow interrupts (Sscofpmf, MINH) and
//! its histogram must equal fwprof's own sampling of the same run at the
//! same period (`--count-in U`).

mod common;

use std::collections::BTreeMap;
use std::path::PathBuf;

use common::{record_into, repo};
use fwprof_profile::Profile;

fn elf(name: &str) -> PathBuf {
    repo().join("tests/pmu").join(name)
}

/// Record `elf` with `args`: the guest's output and the profile.
fn record(dir: &std::path::Path, elf: &std::path::Path, args: &[&str]) -> (String, Profile) {
    let (out, p) = record_into(dir, "p.fwprof", elf, args);
    assert!(
        out.status.success(),
        "{args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    (String::from_utf8(out.stdout).unwrap(), p)
}

/// `count.c`'s line for `region`: its mode and the deltas d3..d10.
fn deltas(output: &str, region: &str) -> (String, BTreeMap<u32, u64>) {
    let line = output
        .lines()
        .find(|l| l.starts_with(&format!("{region} ")))
        .unwrap_or_else(|| panic!("no {region} line in {output}"));
    let mut mode = String::new();
    let mut d = BTreeMap::new();
    for field in line.split_whitespace().skip(1) {
        let (k, v) = field.split_once('=').unwrap();
        if k == "mode" {
            mode = v.to_string();
        } else {
            d.insert(k[1..].parse().unwrap(), v.parse().unwrap());
        }
    }
    (mode, d)
}

/// Inclusive cost of `function` in event `event`.
fn inclusive(p: &Profile, function: &str, event: &str) -> u64 {
    let e = p.event_index(event).unwrap();
    p.functions
        .iter()
        .find(|f| f.name == function)
        .unwrap_or_else(|| panic!("no {function}"))
        .inclusive[e]
}

/// Self cost of `function` in event `event`.
fn self_cost(p: &Profile, function: &str, event: &str) -> u64 {
    let e = p.event_index(event).unwrap();
    p.functions
        .iter()
        .find(|f| f.name == function)
        .unwrap()
        .self_cost[e]
}

/// `measure` runs 17 instructions of its own between the two reads of
/// each counter, 8 of them stores (tests/pmu/measure.S).
const MEASURE_INSTRS: u64 = 17;
const MEASURE_STORES: u64 = 8;

#[test]
fn generic_counters_equal_the_exact_profile() {
    let dir = tempfile::tempdir().unwrap();
    let (out, p) = record(
        dir.path(),
        &elf("count.rv32imac.elf"),
        &["--core", "generic"],
    );
    let (mode, w) = deltas(&out, "work");
    assert_eq!(mode, "generic");
    assert_eq!(
        w[&3] - MEASURE_INSTRS,
        inclusive(&p, "work", "instructions")
    );
    assert_eq!(w[&4], inclusive(&p, "work", "loads"));
    assert_eq!(w[&5] - MEASURE_STORES, inclusive(&p, "work", "stores"));
    assert_eq!(w[&6], inclusive(&p, "work", "branches"));
    // Timing-model events: work's own, plus at most what measure's own
    // instructions caused (its jalr may be mispredicted, its stores miss).
    for (k, event) in [(9, "branch_mispredicts"), (10, "dcache_misses")] {
        let exact = inclusive(&p, "work", event);
        let slack = self_cost(&p, "measure", event);
        assert!(
            (exact..=exact + slack).contains(&w[&k]),
            "{event}: counter {} vs work's {exact} (+ measure's {slack})",
            w[&k]
        );
    }
    assert!(w[&9] > 0, "work's data-dependent branches mispredict");
    let (_, s) = deltas(&out, "spin");
    assert_eq!(s[&3] - MEASURE_INSTRS, 2001);
    assert_eq!(inclusive(&p, "spin", "instructions"), 2 * 2001);
    assert_eq!((s[&6], s[&7], s[&8]), (1000, 999, 2001));
    // mcountinhibit bit 3 stopped counter 3 only.
    let (_, i) = deltas(&out, "inhibited");
    assert_eq!(i[&3], 0);
    assert_eq!((i[&6], i[&7], i[&8]), (1000, 999, 2001));
}

#[test]
fn ibex_fixed_events_equal_the_exact_profile() {
    let dir = tempfile::tempdir().unwrap();
    let (out, p) = record(dir.path(), &elf("count.rv32imac.elf"), &["--core", "ibex"]);
    let (mode, w) = deltas(&out, "work");
    assert_eq!(mode, "ibex");
    let loads = inclusive(&p, "work", "loads");
    let stores = inclusive(&p, "work", "stores");
    // 3 NumCyclesLSU: one wait cycle per access (2-cycle loads/stores).
    assert_eq!(w[&3], loads + stores + MEASURE_STORES);
    // 4 NumCyclesIF: no instruction cache, no fetch wait states.
    assert_eq!(w[&4], 0);
    assert_eq!(w[&5], loads);
    assert_eq!(w[&6], stores + MEASURE_STORES);
    // 7 NumJumps: step's 3000 calls and returns, work's return, the jalr.
    let step_calls = p.functions.iter().find(|f| f.name == "step").unwrap().calls;
    assert_eq!(step_calls, 3000);
    assert_eq!(w[&7], 2 * step_calls + 2);
    assert_eq!(w[&8], inclusive(&p, "work", "branches"));
    let (_, s) = deltas(&out, "spin");
    // 8 NumBranches, 9 NumBranchesTaken, 10 NumInstrRetC.
    assert_eq!((s[&8], s[&9], s[&10]), (1000, 999, 2001));
    let (_, i) = deltas(&out, "inhibited");
    assert_eq!((i[&3], i[&8]), (0, 1000));
}

#[test]
fn u74_selectors_count_their_classes() {
    let dir = tempfile::tempdir().unwrap();
    let (out, p) = record(dir.path(), &elf("count.rv32imac.elf"), &["--core", "u74"]);
    let (mode, w) = deltas(&out, "work");
    assert_eq!(mode, "u74");
    assert_eq!(w[&3], inclusive(&p, "work", "loads"));
    assert_eq!(w[&4], inclusive(&p, "work", "branches"));
    // Two counters only: 5..10 read as zero.
    assert!((5..=10).all(|k| w[&k] == 0), "{w:?}");
}

#[test]
fn without_a_core_the_counters_are_qemus_and_read_zero() {
    let dir = tempfile::tempdir().unwrap();
    let (out, _) = record(dir.path(), &elf("count.rv32imac.elf"), &[]);
    let (_, w) = deltas(&out, "work");
    assert!(w.values().all(|&v| v == 0), "{w:?}");
}

/// The guest's own samples (`sample PC` lines) as a histogram.
fn guest_histogram(out: &str) -> BTreeMap<u64, u64> {
    let mut h = BTreeMap::new();
    for l in out.lines() {
        if let Some(pc) = l.strip_prefix("sample ") {
            *h.entry(u64::from_str_radix(pc, 16).unwrap()).or_default() += 1;
        }
    }
    h
}

#[test]
fn an_overflow_interrupt_sampler_equals_fwprofs_sampling() {
    let dir = tempfile::tempdir().unwrap();
    let (out, p) = record(
        dir.path(),
        &elf("sampler.rv64imac.elf"),
        &[
            "--core",
            "generic",
            "--method",
            "sample",
            "--period",
            "997",
            "--count-in",
            "U",
        ],
    );
    let guest = guest_histogram(&out);
    let overflows: u64 = guest.values().sum();
    assert!(overflows > 400, "{out}");
    assert!(out.contains(&format!("overflows={overflows} period=997 scountovf=0")));
    let e = p.event_index("samples").unwrap();
    let fwprof: BTreeMap<u64, u64> = p
        .costs
        .iter()
        .filter(|c| c.cost[e] > 0)
        .map(|c| (c.addr, c.cost[e]))
        .collect();
    assert_eq!(guest, fwprof);
    let s = p.meta.sampling.as_ref().unwrap();
    assert_eq!(s.unit, "instructions:u");
    // Every sample was taken in user mode, at the instruction after the
    // one that overflowed the counter (mepc): none in the handler.
    let trap_entry = p.functions.iter().find(|f| f.name == "trap_entry").unwrap();
    assert!(!guest
        .keys()
        .any(|&a| (trap_entry.start..trap_entry.end).contains(&a)));
    // The exact profile of the same run: the guest's LCOFI handler ran
    // once per overflow.
    let (out2, exact) = record(
        dir.path(),
        &elf("sampler.rv64imac.elf"),
        &["--core", "generic"],
    );
    assert_eq!(guest_histogram(&out2), guest);
    let lcofi = exact
        .traps
        .iter()
        .filter(|t| t.cause == (1 << 63 | 13))
        .map(|t| t.count)
        .sum::<u64>();
    assert_eq!(lcofi, overflows);
}
