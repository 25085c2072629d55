//! Helpers shared by the integration tests: locating the repository, the
//! corpus, and the external tools the differential tests need.
#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

/// The repository root.
pub fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../..")
        .canonicalize()
        .expect("repo root")
}

/// The built `fwprof` binary.
pub fn fwprof() -> PathBuf {
    PathBuf::from(env!("CARGO_BIN_EXE_fwprof"))
}

/// Run `fwprof ARGS` in `dir` with no stdin; its output.
pub fn run_fwprof(dir: &Path, args: &[&str]) -> Output {
    Command::new(fwprof())
        .current_dir(dir)
        .args(args)
        .stdin(Stdio::null())
        .output()
        .unwrap()
}

/// True if `tool` is an executable file on `PATH` (not every tool accepts
/// `--version`: `dot` wants `-V`, `callgrind_annotate` exits non-zero).
pub fn have(tool: &str) -> bool {
    use std::os::unix::fs::PermissionsExt;
    let path = std::env::var_os("PATH").unwrap_or_default();
    std::env::split_paths(&path).any(|dir| {
        std::fs::metadata(dir.join(tool))
            .is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
    })
}

/// Skip (return false) when a required external tool is missing, unless
/// `FWPROF_REQUIRE_TOOLS=1` (set by scripts/test.sh) turns that into a failure.
pub fn require(tools: &[&str]) -> bool {
    let missing: Vec<String> = tools
        .iter()
        .filter(|t| !have(t))
        .map(|t| t.to_string())
        .collect();
    present_or_skip(&missing)
}

/// True when nothing is `missing`; otherwise skip (false), or fail when
/// `FWPROF_REQUIRE_TOOLS=1` (set by scripts/test.sh).
pub fn present_or_skip(missing: &[String]) -> bool {
    if missing.is_empty() {
        return true;
    }
    if std::env::var("FWPROF_REQUIRE_TOOLS").as_deref() == Ok("1") {
        panic!("required tools missing: {missing:?}");
    }
    eprintln!("SKIPPED: tools missing: {missing:?}");
    false
}

/// Run `fwprof ARGS` in `dir`, which must succeed; its output.
pub fn fwprof_output(dir: &Path, args: &[&str]) -> Output {
    let out = run_fwprof(dir, args);
    assert!(
        out.status.success(),
        "fwprof {args:?} failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    out
}

/// [`fwprof_output`]'s stdout bytes.
pub fn fwprof_ok(dir: &Path, args: &[&str]) -> Vec<u8> {
    fwprof_output(dir, args).stdout
}

/// [`fwprof_output`]'s stdout as text.
pub fn fwprof_stdout(dir: &Path, args: &[&str]) -> String {
    String::from_utf8(fwprof_output(dir, args).stdout).expect("UTF-8 output")
}

/// [`fwprof_output`]'s stderr as text.
pub fn fwprof_stderr(dir: &Path, args: &[&str]) -> String {
    String::from_utf8_lossy(&fwprof_output(dir, args).stderr).into_owned()
}

/// Corpus ELF path by file name (`tests/corpus/build/NAME`); builds the corpus if absent.
pub fn corpus_elf(name: &str) -> PathBuf {
    let p = repo().join("tests/corpus/build").join(name);
    if !p.exists() {
        let st = Command::new(repo().join("tests/corpus/build.sh"))
            .status()
            .expect("run build.sh");
        assert!(st.success(), "tests/corpus/build.sh failed");
    }
    assert!(
        p.exists(),
        "{} missing after building the corpus",
        p.display()
    );
    p
}

/// `tests/CORPUS/build/NAME` (e.g. `built_elf("virt", "uart_hello.rv64.elf")`);
/// runs `tests/CORPUS/build.sh` once per test process first, which rebuilds
/// only what is missing or older than its sources (a lock keeps two tests
/// of one process from building at the same time).
pub fn built_elf(corpus: &str, name: &str) -> PathBuf {
    static BUILT: std::sync::Mutex<Vec<String>> = std::sync::Mutex::new(Vec::new());
    let mut built = BUILT.lock().unwrap_or_else(|e| e.into_inner());
    if !built.iter().any(|c| c == corpus) {
        let script = repo().join("tests").join(corpus).join("build.sh");
        let st = Command::new(&script)
            .status()
            .unwrap_or_else(|e| panic!("run {}: {e}", script.display()));
        assert!(st.success(), "{} failed", script.display());
        built.push(corpus.to_string());
    }
    drop(built);
    let p = repo().join("tests").join(corpus).join("build").join(name);
    assert!(p.exists(), "{} missing after building", p.display());
    p
}

/// Firmware trap-corpus ELF path by file name (`tests/firmware/build/NAME`,
/// e.g. `timer_spin.rv64.elf`), built first ([`built_elf`]).
pub fn firmware_elf(name: &str) -> PathBuf {
    built_elf("firmware", name)
}

/// QEMU's executed-instruction counts per address from a `qemu-ref.py
/// run` JSON answer (`"counts": {"0x…": n}`).
pub fn qemu_counts(v: &serde_json::Value) -> std::collections::BTreeMap<u64, u64> {
    v["counts"]
        .as_object()
        .expect("counts")
        .iter()
        .map(|(k, n)| {
            (
                u64::from_str_radix(k.trim_start_matches("0x"), 16).unwrap(),
                n.as_u64().unwrap(),
            )
        })
        .collect()
}

/// All corpus ELFs.
pub fn corpus_elfs() -> Vec<PathBuf> {
    let dir = repo().join("tests/corpus/build");
    if !dir.exists() || std::fs::read_dir(&dir).map_or(true, |mut d| d.next().is_none()) {
        let st = Command::new(repo().join("tests/corpus/build.sh"))
            .status()
            .expect("run build.sh");
        assert!(st.success(), "tests/corpus/build.sh failed");
    }
    let mut v: Vec<PathBuf> = std::fs::read_dir(&dir)
        .expect("corpus build dir")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "elf"))
        .collect();
    v.sort();
    v
}

/// The functions of an `fwprof annotate` listing, in order, each with the
/// sum of the counts on its instruction lines (`COUNT PCT : ADDR: ...`):
/// what a check of the listing against the profile's self costs needs.
pub fn annotated_functions(text: &str) -> Vec<(String, u64)> {
    let mut out: Vec<(String, u64)> = Vec::new();
    for line in text.lines() {
        if let Some(rest) = line.strip_prefix("Function ") {
            let name = rest.rsplit_once(" [").map_or(rest, |(n, _)| n);
            out.push((name.to_string(), 0));
            continue;
        }
        // An instruction line: count, percentage, ':', then `hexaddr:`.
        let Some((left, right)) = line.split_once(" : ") else {
            continue;
        };
        let is_insn = right
            .trim_start()
            .split_once(':')
            .is_some_and(|(a, _)| !a.is_empty() && a.bytes().all(|b| b.is_ascii_hexdigit()));
        let count = left
            .split_whitespace()
            .next()
            .and_then(|c| c.parse::<u64>().ok());
        if let (true, Some(c), Some(f)) = (is_insn, count, out.last_mut()) {
            f.1 += c;
        }
    }
    out
}

/// Function symbols by address from `riscv64-unknown-elf-nm` (independent
/// of fwprof-symbols), for naming the addresses where two runs differ.
pub fn nm_functions(elf: &Path) -> std::collections::BTreeMap<u64, String> {
    let out = Command::new("riscv64-unknown-elf-nm")
        .arg("-n")
        .arg(elf)
        .output()
        .expect("nm");
    let mut m = std::collections::BTreeMap::new();
    for line in String::from_utf8_lossy(&out.stdout).lines() {
        let mut it = line.split_whitespace();
        let (Some(a), Some(t), Some(name)) = (it.next(), it.next(), it.next()) else {
            continue;
        };
        if matches!(t, "T" | "t" | "W") && !name.starts_with('$') && !name.starts_with(".L") {
            if let Ok(a) = u64::from_str_radix(a, 16) {
                m.entry(a).or_insert_with(|| name.to_string());
            }
        }
    }
    m
}

/// `addr` as `symbol+offset` from [`nm_functions`]; QEMU `virt`'s reset
/// ROM (0x1000..0x1018) as `reset ROM+offset`.
pub fn name_at(syms: &std::collections::BTreeMap<u64, String>, addr: u64) -> String {
    if (0x1000..0x1018).contains(&addr) {
        return format!("reset ROM+{:#x}", addr - 0x1000);
    }
    syms.range(..=addr)
        .next_back()
        .map_or("?".into(), |(a, n)| format!("{n}+{:#x}", addr - a))
}

/// Runs `fwprof record -q -o DIR/NAME ARGS -- ELF` in `dir`; its output
/// and the profile it wrote (panics, with fwprof's stderr, if none).
#[allow(dead_code)]
pub fn record_into(
    dir: &Path,
    name: &str,
    elf: &Path,
    args: &[&str],
) -> (Output, fwprof_profile::Profile) {
    let out_path = dir.join(name);
    let out = Command::new(fwprof())
        .current_dir(dir)
        .args(["record", "-q", "-o"])
        .arg(&out_path)
        .args(args)
        .arg("--")
        .arg(elf)
        .output()
        .expect("fwprof");
    let p = fwprof_profile::Profile::read(&out_path)
        .unwrap_or_else(|e| panic!("no profile ({e}): {}", String::from_utf8_lossy(&out.stderr)));
    (out, p)
}

/// What [`run_with_timeout`] saw.
#[derive(Debug)]
pub struct TimedRun {
    /// Exit status and everything the child printed (up to the kill, if
    /// it timed out).
    pub out: Output,
    /// Host time from spawn to exit (or to the kill).
    pub elapsed: std::time::Duration,
    /// True if the child was still running at the deadline and was killed.
    pub timed_out: bool,
}

/// Runs `cmd` with stdin from the file `input` (none: `/dev/null`), stdout
/// and stderr captured, and kills it (by its pid) if it has not ended after
/// `timeout`, so that a guest that never ends cannot hang the suite.
pub fn run_with_timeout(
    mut cmd: Command,
    input: Option<&Path>,
    timeout: std::time::Duration,
) -> TimedRun {
    use std::io::Read;
    let stdin = match input {
        Some(p) => {
            Stdio::from(std::fs::File::open(p).unwrap_or_else(|e| panic!("{}: {e}", p.display())))
        }
        None => Stdio::null(),
    };
    let start = std::time::Instant::now();
    let mut child = cmd
        .stdin(stdin)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap_or_else(|e| panic!("cannot run {cmd:?}: {e}"));
    let drain = |mut r: Box<dyn Read + Send>| {
        std::thread::spawn(move || {
            let mut v = Vec::new();
            let _ = r.read_to_end(&mut v);
            v
        })
    };
    let stdout = drain(Box::new(child.stdout.take().unwrap()));
    let stderr = drain(Box::new(child.stderr.take().unwrap()));
    let mut timed_out = false;
    let status = loop {
        if let Some(st) = child.try_wait().expect("wait") {
            break st;
        }
        if start.elapsed() >= timeout {
            timed_out = true;
            let _ = child.kill();
            break child.wait().expect("wait after kill");
        }
        std::thread::sleep(std::time::Duration::from_millis(5));
    };
    let elapsed = start.elapsed();
    TimedRun {
        out: Output {
            status,
            stdout: stdout.join().unwrap(),
            stderr: stderr.join().unwrap(),
        },
        elapsed,
        timed_out,
    }
}

/// The `--tier` arguments every program of the differential suites runs
/// with: the interpreter; the translation tier translating every block
/// before its first execution (issue 16: nearly every instruction then
/// runs as translated code); and translating every block after its first
/// execution (so that the blocks it leads to are known and regions of
/// several blocks form, as they do at the default threshold).
pub const TIERS: [&[&str]; 3] = [
    &["interp"],
    &["jit", "--jit-threshold", "0"],
    &["jit", "--jit-threshold", "1"],
];

/// For a profile recorded with the translation tier `tier` (`--tier`
/// arguments of [`TIERS`]), that short programs cannot hide behind the
/// interpreter. At `--jit-threshold 0`: translated code ran at least 99%
/// of the instructions (the rest: blocks the run loop cuts short at a
/// checkpoint, and blocks Cranelift cannot take). At `--jit-threshold 1`:
/// it ran at least 97% of the instructions a block ran after its first
/// execution (at each address, its count less one; the rest is left to
/// the blocks the run loop cuts short, and an address in several blocks),
/// and regions of several blocks formed. An error message otherwise.
pub fn check_translated(p: &fwprof_profile::Profile, tier: &[&str]) -> Result<(), String> {
    let Some(e) = p.meta.engine.as_ref() else {
        return Err("the profile does not say how it was executed".into());
    };
    if tier.last() == Some(&"0") {
        let all: u64 = p.costs.iter().map(|c| c.cost[0]).sum();
        if (e.translated_instructions as f64) < 0.99 * all as f64 {
            return Err(format!(
                "at threshold 0 only {} of {all} instructions ran as translated code",
                e.translated_instructions
            ));
        }
        return Ok(());
    }
    let repeated: u64 = p.costs.iter().map(|c| c.cost[0].saturating_sub(1)).sum();
    if (e.translated_instructions as f64) < 0.97 * repeated as f64 {
        return Err(format!(
            "only {} of {repeated} repeated instructions ran as translated code",
            e.translated_instructions
        ));
    }
    if e.translated_blocks > 0 && e.region_blocks <= e.translated_blocks {
        return Err(format!(
            "no region of several blocks formed ({} blocks translated)",
            e.translated_blocks
        ));
    }
    Ok(())
}
