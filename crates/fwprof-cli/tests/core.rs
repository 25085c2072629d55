//! `fwprof record --core`: timing events in the profile, consistent with the
//! exact instruction counts, and bad core descriptions rejected before
//! anything runs.

mod common;

use std::path::Path;

use fwprof_profile::Profile;

use common::run_fwprof as fwprof;

fn example() -> String {
    common::repo()
        .join("examples/huffman/huffman.rv32imac.elf")
        .display()
        .to_string()
}

fn record(dir: &Path, core: Option<&str>, out: &str) -> Profile {
    let mut args = vec!["record", "-o", out];
    if let Some(c) = core {
        args.extend(["--core", c]);
    }
    let elf = example();
    args.extend(["--", elf.as_str()]);
    let o = fwprof(dir, &args);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    Profile::read(dir.join(out)).unwrap()
}

#[test]
fn core_events_are_recorded_and_consistent() {
    let dir = tempfile::tempdir().unwrap();
    let plain = record(dir.path(), None, "plain.fwprof");
    let timed = record(dir.path(), Some("picorv32"), "timed.fwprof");
    let events: Vec<&str> = timed.events.iter().map(String::as_str).collect();
    assert_eq!(
        events,
        [
            "instructions",
            "cycles",
            "loads",
            "stores",
            "branches",
            "branch_mispredicts",
            "icache_accesses",
            "icache_misses",
            "dcache_accesses",
            "dcache_misses",
            "stall_load_use",
            "stall_branch",
            "stall_icache",
            "stall_dcache",
            "stall_muldiv",
            "stall_wait_state",
        ]
    );
    assert_eq!(timed.meta.core.as_deref(), Some("picorv32"));
    assert_eq!(plain.meta.core, None);
    // The model does not change what executes.
    assert_eq!(timed.totals[0], plain.totals[0]);
    assert!(timed.check_invariants().is_ok());
    // Every event's per-address costs add up to its total, and so do the
    // functions' self costs.
    for (e, name) in events.iter().enumerate() {
        let by_addr: u64 = timed.costs.iter().map(|c| c.cost[e]).sum();
        let by_fn: u64 = timed.functions.iter().map(|f| f.self_cost[e]).sum();
        assert_eq!(by_addr, timed.totals[e], "{name}");
        assert_eq!(by_fn, timed.totals[e], "{name}");
    }
    // The root activations span the run: the reset ROM's, then the entry
    // function's it hands over to. Their inclusive cycles add up to the
    // total.
    let roots: Vec<_> = timed.arcs.iter().filter(|a| a.caller.is_none()).collect();
    assert_eq!(roots.len(), 2, "the reset ROM and the entry function");
    let spanned: u64 = roots.iter().map(|a| a.inclusive[1]).sum();
    assert_eq!(spanned, timed.totals[1]);
    // Every inclusive cost is at least the self cost, per event.
    for f in &timed.functions {
        for (e, name) in events.iter().enumerate() {
            assert!(f.inclusive[e] >= f.self_cost[e], "{} {name}", f.name);
        }
    }
    // PicoRV32 never takes fewer than 3 cycles per instruction.
    assert!(timed.totals[1] >= 3 * timed.totals[0]);
    // No caches, no predictor on PicoRV32.
    assert_eq!(timed.totals[6], 0);
    assert_eq!(timed.totals[5], 0);
    // The generic core has caches and a predictor.
    let generic = record(dir.path(), Some("generic"), "generic.fwprof");
    assert_eq!(
        generic.totals[6], generic.totals[0],
        "one fetch per instruction"
    );
    // Some branches mispredict and some data accesses miss, never all.
    let t = &generic.totals;
    assert!(
        0 < t[5] && t[5] < t[4],
        "mispredicts {} of {} branches",
        t[5],
        t[4]
    );
    assert!(
        0 < t[9] && t[9] < t[8],
        "dcache misses {} of {} accesses",
        t[9],
        t[8]
    );
    assert_eq!(
        t[8],
        t[2] + t[3],
        "one data-cache access per load and store"
    );
}

#[test]
fn a_bad_core_file_is_rejected_before_running() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("core.toml"),
        "name = \"x\"\n[icache]\nsize = 3000\n",
    )
    .unwrap();
    let elf = example();
    for (core, needle) in [
        ("core.toml", "core.toml:3"),
        ("no-such-core", "no-such-core"),
    ] {
        let o = fwprof(
            dir.path(),
            &[
                "record",
                "-o",
                "p.fwprof",
                "--core",
                core,
                "--",
                elf.as_str(),
            ],
        );
        assert_eq!(o.status.code(), Some(125), "{core}");
        let err = String::from_utf8_lossy(&o.stderr);
        let lines: Vec<&str> = err.lines().collect();
        assert_eq!(lines.len(), 1, "{err}");
        assert!(
            lines[0].starts_with("fwprof: ") && lines[0].contains(needle),
            "{err}"
        );
        // Nothing ran: the program prints nothing, and no profile is written.
        assert!(o.stdout.is_empty());
        assert!(!dir.path().join("p.fwprof").exists());
    }
}

#[test]
fn a_partial_run_with_a_core_stays_consistent() {
    // The limit falls inside a block: the model charges exactly the
    // instructions that ran, like the exact counts.
    let dir = tempfile::tempdir().unwrap();
    let elf = example();
    let o = fwprof(
        dir.path(),
        &[
            "record",
            "-o",
            "p.fwprof",
            "--core",
            "generic",
            "--max-instructions",
            "123457",
            "--",
            elf.as_str(),
        ],
    );
    assert_eq!(o.status.code(), Some(124));
    let p = Profile::read(dir.path().join("p.fwprof")).unwrap();
    assert_eq!(p.meta.partial.as_deref(), Some("instruction limit"));
    assert_eq!(p.totals[0], 123_457);
    assert!(p.check_invariants().is_ok());
    for e in 0..p.events.len() {
        let by_addr: u64 = p.costs.iter().map(|c| c.cost[e]).sum();
        assert_eq!(by_addr, p.totals[e], "{}", p.events[e]);
    }
    // One instruction-cache access per instruction that ran.
    assert_eq!(p.totals[6], 123_457);
}
