//! Hostile guests that flush the block cache or rewrite their own code
//! (`tests/hostile/fence_i_loop.c`, `tests/hostile/self_modifying.c`):
//! the same output and per-address instruction counts as QEMU, with the
//! exact profile and with a core model (so the per-block counts folded at
//! every flush are checked), and a peak memory that does not grow with the
//! number of flushes.

mod common;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use fwprof_profile::Profile;

/// A program of `tests/hostile/`, built by its `build.sh` if missing.
fn hostile_elf(name: &str) -> PathBuf {
    let dir = common::repo().join("tests/hostile");
    let elf = dir.join("build").join(format!("{name}.elf"));
    if !elf.exists() {
        let st = Command::new(dir.join("build.sh"))
            .status()
            .expect("run tests/hostile/build.sh");
        assert!(st.success(), "tests/hostile/build.sh failed");
    }
    assert!(elf.exists(), "{} missing after build.sh", elf.display());
    elf
}

/// QEMU's exit code, stdout and per-address counts for `elf ARGS` run in `cwd`.
fn qemu_counts(cwd: &Path, elf: &Path, args: &[&str]) -> (i64, String, BTreeMap<u64, u64>) {
    let out = Command::new("python3")
        .arg(common::repo().join("scripts/qemu-ref.py"))
        // fwprof runs QEMU's reset ROM too: count it on both sides.
        .args(["run", "--with-rom", "--cwd"])
        .arg(cwd)
        .arg(elf)
        .arg("--")
        .args(args)
        .output()
        .expect("qemu-ref.py");
    assert!(
        out.status.success(),
        "qemu-ref.py: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).expect("qemu-ref.py JSON");
    let counts = v["counts"]
        .as_object()
        .expect("counts")
        .iter()
        .map(|(k, n)| {
            let a = u64::from_str_radix(k.trim_start_matches("0x"), 16).unwrap();
            (a, n.as_u64().unwrap())
        })
        .collect();
    let code = v["exit_code"].as_i64().unwrap_or(-1);
    (code, v["stdout"].as_str().unwrap_or("").to_string(), counts)
}

/// Record `elf ARGS` in `cwd` with `extra` options (as the differential
/// test does: QEMU's environment, the absolute path as argv[0]); exit
/// code, stdout and the profile.
fn record(cwd: &Path, elf: &Path, args: &[&str], extra: &[&str]) -> (i64, String, Profile) {
    let profile = cwd.join("p.fwprof");
    let out = Command::new(common::fwprof())
        .current_dir(cwd)
        .arg("record")
        .arg("-o")
        .arg(&profile)
        .args(extra)
        .args([
            "--clear-env",
            "-E",
            "PATH=/usr/bin:/bin",
            "-E",
            "LANG=C.UTF-8",
        ])
        .arg("--")
        .arg(elf)
        .args(args)
        .stdin(Stdio::null())
        .output()
        .expect("fwprof record");
    let p = Profile::read(&profile).expect("read the profile");
    p.check_invariants().expect("profile invariants");
    let code = i64::from(out.status.code().unwrap_or(-1));
    (code, String::from_utf8_lossy(&out.stdout).into_owned(), p)
}

/// The differences between two per-address count maps (at most 8).
fn count_diffs(q: &BTreeMap<u64, u64>, ours: &BTreeMap<u64, u64>) -> Vec<String> {
    let keys: std::collections::BTreeSet<u64> = q.keys().chain(ours.keys()).copied().collect();
    keys.into_iter()
        .filter_map(|a| {
            let (n, o) = (q.get(&a).copied(), ours.get(&a).copied());
            (n != o).then(|| format!("{a:#x}: qemu {n:?} fwprof {o:?}"))
        })
        .take(8)
        .collect()
}

/// `elf ARGS` under QEMU and under `record` (exact, and with a core
/// model): same exit code, stdout and instructions at every address.
fn matches_qemu(name: &str, args: &[&str]) {
    if !common::require(&["qemu-riscv64", "python3", "riscv64-linux-gnu-gcc"]) {
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let elf = tmp.path().join(format!("{name}.elf"));
    std::fs::copy(hostile_elf(name), &elf).unwrap();
    let (qcode, qout, q) = qemu_counts(tmp.path(), &elf, args);
    assert_eq!(qcode, 0, "qemu: {qout}");
    for extra in [&[][..], &["--core", "generic"][..]] {
        let (code, out, p) = record(tmp.path(), &elf, args, extra);
        assert_eq!((code, &out), (qcode, &qout), "{name} {args:?} {extra:?}");
        let ours: BTreeMap<u64, u64> = p.costs.iter().map(|c| (c.addr, c.cost[0])).collect();
        let diffs = count_diffs(&q, &ours);
        assert!(
            diffs.is_empty(),
            "{name} {args:?} {extra:?}: per-address counts differ (totals qemu {} fwprof {}): {diffs:#?}",
            q.values().sum::<u64>(),
            ours.values().sum::<u64>()
        );
    }
}

#[test]
fn fence_i_loop_counts_match_qemu() {
    matches_qemu("fence_i_loop", &["10000"]);
}

#[test]
fn self_modifying_code_with_fence_i_counts_match_qemu() {
    matches_qemu("self_modifying", &["10000"]);
}

#[test]
fn self_modifying_code_without_fence_i_counts_match_qemu() {
    matches_qemu("self_modifying", &["10000", "nofence"]);
}

/// Run `fwprof ARGS` with no output; its peak resident set in KiB (the
/// child's `ru_maxrss` from `wait4`).
// The child is reaped by `wait4` (which `Child::wait` cannot replace: it
// gives no resource usage).
#[allow(clippy::zombie_processes)]
fn peak_rss_kib(args: &[&str]) -> i64 {
    let child = Command::new(common::fwprof())
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("spawn fwprof");
    let pid = child.id() as libc::pid_t;
    let mut status = 0;
    // SAFETY: an all-zero `rusage` is a valid value, filled in by wait4.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    // SAFETY: `pid` is our child, not yet waited for (`child` is never
    // waited on: dropping a `Child` does not wait); the pointers are valid.
    let r = unsafe { libc::wait4(pid, &mut status, 0, &mut usage) };
    assert_eq!(r, pid, "wait4: {}", std::io::Error::last_os_error());
    assert!(
        libc::WIFEXITED(status) && libc::WEXITSTATUS(status) == 0,
        "fwprof {args:?}: status {status:#x}"
    );
    usage.ru_maxrss
}

/// Peak memory of `fwprof CMD -- PROG N [MODE]` at 10^6 iterations is
/// that of 10^4 iterations (within 20% and 2 MiB of allocator noise):
/// `fence.i` and rewritten code no longer grow the block cache. Before,
/// 10^5 iterations of the `fence.i` loop took 44 MB against 19 MB for
/// 10^4 (and 21 s: every flush walked every block ever translated).
fn flat_memory(cmd: &[&str], prog: &str, mode: &[&str]) {
    if !common::require(&["riscv64-linux-gnu-gcc"]) {
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("p.fwprof");
    let elf = hostile_elf(prog);
    let peak = |n: &str| {
        let mut args: Vec<&str> = cmd.to_vec();
        if cmd[0] == "record" {
            args.extend(["-o", out.to_str().unwrap()]);
        }
        args.extend(["--", elf.to_str().unwrap(), n]);
        args.extend(mode);
        peak_rss_kib(&args)
    };
    let small = peak("10000");
    let large = peak("1000000");
    assert!(
        large <= small + small / 5 + 2048,
        "fwprof {cmd:?} {prog} {mode:?}: peak RSS {large} KiB at 10^6 iterations, {small} KiB at 10^4"
    );
}

#[test]
fn fence_i_loop_runs_in_flat_memory() {
    flat_memory(&["run"], "fence_i_loop", &[]);
}

#[test]
fn fence_i_loop_records_in_flat_memory() {
    flat_memory(&["record"], "fence_i_loop", &[]);
}

#[test]
fn code_rewritten_without_fence_i_runs_in_flat_memory() {
    flat_memory(&["run"], "self_modifying", &["nofence"]);
}
