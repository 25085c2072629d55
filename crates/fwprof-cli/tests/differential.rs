//! Differential tests against QEMU 7.2: for every program of the corpus
//! (`tests/corpus`), fwprof must give the same stdout, stderr and exit code
//! as QEMU, and the same executed-instruction count at every address as
//! QEMU's single-step trace (`scripts/qemu-ref.py run`), on both
//! execution tiers: `--tier interp`, `--tier jit --jit-threshold 0`
//! (whose translated code must run at least 99% of the instructions) and
//! `--tier jit --jit-threshold 1` (whose translated code, in regions of
//! several blocks, must run nearly every instruction after each block's
//! first execution: `common::check_translated`).
//!
//! Per-function attribution is cross-checked against the symbol table read by
//! binutils' `nm`, independently of fwprof's own symbol code.

mod common;

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;

use fwprof_isa::{Op, Xlen};
use fwprof_profile::Profile;

/// How one corpus program is run (from `tests/corpus/manifest.txt` when it names it).
#[derive(Clone, Debug, Default)]
struct Case {
    elf: PathBuf,
    args: Vec<String>,
    stdin: Option<PathBuf>,
    /// Why the manifest says not to run it, if it does.
    skip_reason: Option<String>,
}

/// QEMU's answer for one program.
struct QemuRun {
    exit_code: i64,
    stdout: String,
    stderr: String,
    counts: BTreeMap<u64, u64>,
}

fn qemu_run(case: &Case, cwd: &Path, elf: &Path) -> Result<QemuRun, String> {
    let mut cmd = Command::new("python3");
    cmd.arg(common::repo().join("scripts/qemu-ref.py"))
        .arg("run")
        // fwprof runs QEMU's reset ROM too (bare metal): count it on both sides.
        .arg("--with-rom")
        .arg("--cwd")
        .arg(cwd);
    if let Some(s) = &case.stdin {
        cmd.arg("--stdin").arg(s);
    }
    cmd.arg("--timeout")
        .arg("900")
        .arg(elf)
        .arg("--")
        .args(&case.args);
    let out = cmd.output().map_err(|e| format!("qemu-ref.py: {e}"))?;
    if !out.status.success() {
        return Err(format!(
            "qemu-ref.py failed: {}",
            String::from_utf8_lossy(&out.stderr)
                .lines()
                .last()
                .unwrap_or("")
        ));
    }
    let v: serde_json::Value =
        serde_json::from_slice(&out.stdout).map_err(|e| format!("qemu-ref.py output: {e}"))?;
    let counts = v["counts"]
        .as_object()
        .ok_or("no counts")?
        .iter()
        .map(|(k, n)| {
            (
                u64::from_str_radix(k.trim_start_matches("0x"), 16).unwrap(),
                n.as_u64().unwrap(),
            )
        })
        .collect();
    Ok(QemuRun {
        exit_code: v["exit_code"].as_i64().unwrap_or(-1),
        stdout: v["stdout"].as_str().unwrap_or("").to_string(),
        stderr: v["stderr"].as_str().unwrap_or("").to_string(),
        counts,
    })
}

/// Run one case under fwprof and QEMU and compare. Returns a failure description.
fn check(case: &Case, ops: &Mutex<BTreeSet<(bool, Op)>>) -> Result<(), String> {
    let tmp = tempfile::tempdir().map_err(|e| e.to_string())?;
    let name = case.elf.file_name().unwrap().to_string_lossy().to_string();
    // Both run the same copy from a scratch directory (files the guest creates land there).
    let elf = tmp.path().join(&name);
    std::fs::copy(&case.elf, &elf).map_err(|e| e.to_string())?;
    let q = qemu_run(case, tmp.path(), &elf)?;

    let mut errs = Vec::new();
    for tier in common::TIERS {
        if let Err(e) = check_tier(case, ops, tmp.path(), &elf, &q, tier) {
            errs.push(format!("--tier {}: {e}", tier.join(" ")));
        }
    }
    if errs.is_empty() {
        Ok(())
    } else {
        Err(errs.join("\n  "))
    }
}

/// Run one case under fwprof on one tier (`--tier` arguments `tier`) in
/// `dir` and compare with QEMU's run `q`.
fn check_tier(
    case: &Case,
    ops: &Mutex<BTreeSet<(bool, Op)>>,
    dir: &Path,
    elf: &Path,
    q: &QemuRun,
    tier: &[&str],
) -> Result<(), String> {
    let name = case.elf.file_name().unwrap().to_string_lossy().to_string();
    let linux = q_is_linux(&case.elf);
    let profile = dir.join("p.fwprof");
    let mut cmd = Command::new(common::fwprof());
    cmd.current_dir(dir)
        .arg("record")
        .arg("--tier")
        .args(tier)
        .arg("-o")
        .arg(&profile)
        .arg("--clear-env")
        .args(["-E", "PATH=/usr/bin:/bin", "-E", "LANG=C.UTF-8"])
        .arg("--allow-write")
        .arg(dir)
        .arg("--")
        // QEMU gets the absolute path as argv[0] (Linux) and the base name
        // as the semihosting command line (bare metal): give fwprof the same.
        .arg(if linux {
            elf.display().to_string()
        } else {
            name.clone()
        })
        .args(&case.args)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    cmd.stdin(match &case.stdin {
        Some(s) => Stdio::from(std::fs::File::open(s).map_err(|e| e.to_string())?),
        None => Stdio::null(),
    });
    let out = cmd.output().map_err(|e| format!("fwprof: {e}"))?;
    let mut errs = Vec::new();
    let stdout = String::from_utf8_lossy(&out.stdout).to_string();
    let stderr_all = String::from_utf8_lossy(&out.stderr).to_string();
    // fwprof's own diagnostics (e.g. an unsupported syscall) are not the guest's output.
    let stderr: String = stderr_all
        .lines()
        .filter(|l| !l.starts_with("fwprof: "))
        .map(|l| format!("{l}\n"))
        .collect();
    let code = i64::from(out.status.code().unwrap_or(-1));
    if code != q.exit_code {
        errs.push(format!(
            "exit code: fwprof {code}, qemu {} (fwprof stderr: {stderr_all:?})",
            q.exit_code
        ));
    }
    if stdout != q.stdout {
        errs.push(format!(
            "stdout differs:\n--- qemu\n{}\n--- fwprof\n{}",
            tail(&q.stdout),
            tail(&stdout)
        ));
    }
    if stderr.trim_end() != q.stderr.trim_end() {
        errs.push(format!(
            "stderr differs: qemu {:?} fwprof {:?}",
            tail(&q.stderr),
            tail(&stderr)
        ));
    }
    let p = Profile::read(&profile).map_err(|e| format!("reading the profile: {e}"))?;
    if let Err(e) = p.check_invariants() {
        errs.push(format!("profile invariants: {e}"));
    }
    if tier[0] == "jit" {
        if let Err(e) = common::check_translated(&p, tier) {
            errs.push(e);
        }
    }
    let ours: BTreeMap<u64, u64> = p.costs.iter().map(|c| (c.addr, c.cost[0])).collect();
    {
        let rv64 = p.meta.xlen == 64;
        let xlen = if rv64 { Xlen::Rv64 } else { Xlen::Rv32 };
        let mut ops = ops.lock().unwrap();
        for c in p.costs.iter() {
            ops.insert((rv64, fwprof_isa::decode(c.raw, xlen).op));
        }
    }
    // `-pg` programs are not count-comparable: under QEMU, profil()'s
    // SIGPROF timer interrupts the guest at wall-clock times (fwprof delivers
    // no timer signals). Their output and exit code are still compared, and
    // their call graph is checked against gprof in tests/gprof.rs.
    let timer_driven = case.elf.to_string_lossy().contains("-pg.");
    if timer_driven {
    } else if ours != q.counts {
        let syms = common::nm_functions(&case.elf);
        let mut diffs = Vec::new();
        for (&a, &n) in &q.counts {
            let o = ours.get(&a).copied().unwrap_or(0);
            if o != n {
                diffs.push(format!(
                    "{a:#x} {}: qemu {n} fwprof {o}",
                    common::name_at(&syms, a)
                ));
            }
        }
        for (&a, &o) in &ours {
            if !q.counts.contains_key(&a) {
                diffs.push(format!(
                    "{a:#x} {}: qemu 0 fwprof {o}",
                    common::name_at(&syms, a)
                ));
            }
        }
        let qt: u64 = q.counts.values().sum();
        let ot: u64 = ours.values().sum();
        errs.push(format!(
            "per-address counts differ at {} addresses (totals qemu {qt} fwprof {ot}); first: {}",
            diffs.len(),
            diffs.iter().take(8).cloned().collect::<Vec<_>>().join("; ")
        ));
    } else {
        // Per-function self counts, attributed with nm's symbols, must match
        // fwprof's functions that start at a symbol nm knows.
        let syms = common::nm_functions(&case.elf);
        for f in &p.functions {
            if f.self_cost[0] == 0 || !syms.contains_key(&f.start) {
                continue;
            }
            let end = syms
                .range(f.start + 1..)
                .next()
                .map_or(u64::MAX, |(a, _)| *a)
                .min(f.end.max(f.start + 1));
            let q_self: u64 = q.counts.range(f.start..end).map(|(_, n)| n).sum();
            if end == f.end && q_self != f.self_cost[0] {
                errs.push(format!(
                    "{}: self {} but qemu counts {q_self} in its range",
                    f.name, f.self_cost[0]
                ));
            }
        }
    }
    if errs.is_empty() {
        Ok(())
    } else {
        Err(errs.join("\n  "))
    }
}

fn tail(s: &str) -> String {
    let lines: Vec<&str> = s.lines().collect();
    lines[lines.len().saturating_sub(6)..].join("\n")
}

fn q_is_linux(elf: &Path) -> bool {
    elf.file_name()
        .is_some_and(|n| n.to_string_lossy().contains("linux"))
}

/// A manifest line's arguments, stdin file and skip reason.
type ManifestEntry = (Vec<String>, Option<PathBuf>, Option<String>);

/// Cases: every corpus ELF, with arguments and stdin from the manifest.
fn cases() -> Vec<Case> {
    let manifest = common::repo().join("tests/corpus/manifest.txt");
    let text = std::fs::read_to_string(&manifest).unwrap_or_default();
    let mut special: BTreeMap<String, ManifestEntry> = BTreeMap::new();
    for line in text.lines() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        // name | args | stdin | skip-reason  (fields after the name optional)
        let f: Vec<&str> = line.split('|').map(str::trim).collect();
        let args = f
            .get(1)
            .map(|a| a.split_whitespace().map(String::from).collect())
            .unwrap_or_default();
        let stdin = f
            .get(2)
            .filter(|s| !s.is_empty() && **s != "-")
            .map(|s| common::repo().join(s));
        let skip = f.get(3).filter(|s| !s.is_empty()).map(|s| s.to_string());
        special.insert(f[0].to_string(), (args, stdin, skip));
    }
    common::corpus_elfs()
        .into_iter()
        .map(|elf| {
            let file = elf.file_name().unwrap().to_string_lossy().to_string();
            let prog = file.split('.').next().unwrap_or("").to_string();
            let (args, stdin, skip_reason) = special
                .get(&file)
                .or_else(|| special.get(&prog))
                .cloned()
                .unwrap_or_default();
            Case {
                elf,
                args,
                stdin,
                skip_reason,
            }
        })
        .collect()
}

#[test]
fn corpus_matches_qemu() {
    if !common::require(&[
        "qemu-riscv64",
        "qemu-system-riscv32",
        "qemu-system-riscv64",
        "python3",
        "riscv64-unknown-elf-nm",
    ]) {
        return;
    }
    let filter = std::env::var("FWPROF_DIFF_FILTER").unwrap_or_default();
    let cases: Vec<Case> = cases()
        .into_iter()
        .filter(|c| c.elf.to_string_lossy().contains(&filter))
        .collect();
    assert!(
        !filter.is_empty() || cases.len() >= 100,
        "the corpus should hold at least 100 ELFs, found {}",
        cases.len()
    );
    let next = AtomicUsize::new(0);
    let failures = Mutex::new(Vec::new());
    let passed = AtomicUsize::new(0);
    let ops = Mutex::new(BTreeSet::new());
    let threads = std::thread::available_parallelism()
        .map_or(2, |n| n.get())
        .min(4);
    std::thread::scope(|s| {
        for _ in 0..threads {
            s.spawn(|| loop {
                let i = next.fetch_add(1, Ordering::SeqCst);
                let Some(case) = cases.get(i) else { break };
                if let Some(why) = &case.skip_reason {
                    eprintln!("skip {}: {why}", case.elf.display());
                    continue;
                }
                let t0 = std::time::Instant::now();
                let result = check(case, &ops);
                eprintln!(
                    "{} {} ({:.1} s)",
                    if result.is_ok() { "same" } else { "DIFFERENT" },
                    case.elf.file_name().unwrap().to_string_lossy(),
                    t0.elapsed().as_secs_f64()
                );
                match result {
                    Ok(()) => {
                        passed.fetch_add(1, Ordering::SeqCst);
                    }
                    Err(e) => failures
                        .lock()
                        .unwrap()
                        .push(format!("{}:\n  {e}", case.elf.display())),
                }
            });
        }
    });
    let failures = failures.into_inner().unwrap();
    // Coverage: every mnemonic fwprof decodes (RV32GC/RV64GC and Zba, Zbb, Zbc, Zbs)
    // executed at least once by the corpus.
    let ops = ops.into_inner().unwrap();
    let mut missing = Vec::new();
    for (rv64, all) in [
        (false, fwprof_isa::rv32_ops()),
        (true, fwprof_isa::rv64_ops()),
    ] {
        let seen = all.iter().filter(|o| ops.contains(&(rv64, **o))).count();
        eprintln!(
            "coverage: {} executed {seen} of {} mnemonics",
            if rv64 {
                "RV64GC_Zba_Zbb_Zbc_Zbs"
            } else {
                "RV32GC_Zba_Zbb_Zbc_Zbs"
            },
            all.len()
        );
        // sret and sfence.vma need S-mode firmware: the firmware corpus
        // (tests/firmware, compared with QEMU in firmware.rs, which checks
        // they ran) executes them.
        for o in all.iter().copied() {
            if o != Op::Illegal
                && !matches!(o, Op::Sret | Op::SfenceVma)
                && !ops.contains(&(rv64, o))
            {
                missing.push(format!(
                    "{}:{}",
                    if rv64 { "rv64" } else { "rv32" },
                    o.mnemonic()
                ));
            }
        }
    }
    if filter.is_empty() {
        assert!(
            missing.is_empty(),
            "mnemonics the corpus never executed: {missing:?}"
        );
    }
    eprintln!(
        "differential: {} passed, {} failed",
        passed.load(Ordering::SeqCst),
        failures.len()
    );
    assert!(
        failures.is_empty(),
        "{} of {} programs differ from QEMU:\n{}",
        failures.len(),
        cases.len(),
        failures.join("\n")
    );
}
