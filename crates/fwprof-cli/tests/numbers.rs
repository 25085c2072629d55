//! Numbers are never silently wrong (issue 11, section 4): corrupt
//! call-frame information falls back like missing CFI; `--program` must
//! match the recorded SHA-256 in every reader; sampled numbers are labelled
//! as estimates and `diff` shows the sampling interval of each change;
//! exports of deep recursion stay linear in the profile's size.

mod common;

use std::path::{Path, PathBuf};

use common::{corpus_elf, run_fwprof};

/// File offset and size of section `name` of a 64-bit little-endian ELF
/// (read from the section headers, so non-allocated sections such as
/// `.debug_frame` are found too).
fn section_range(data: &[u8], name: &str) -> Option<(usize, usize)> {
    let u16_at = |o: usize| u16::from_le_bytes(data[o..o + 2].try_into().unwrap()) as usize;
    let u32_at = |o: usize| u32::from_le_bytes(data[o..o + 4].try_into().unwrap()) as usize;
    let u64_at = |o: usize| u64::from_le_bytes(data[o..o + 8].try_into().unwrap()) as usize;
    assert_eq!(data[4], 2, "a 64-bit ELF");
    let (shoff, shentsize, shnum, shstrndx) =
        (u64_at(0x28), u16_at(0x3a), u16_at(0x3c), u16_at(0x3e));
    let header = |i: usize| shoff + i * shentsize;
    let strtab = u64_at(header(shstrndx) + 0x18);
    (0..shnum).find_map(|i| {
        let h = header(i);
        let at = strtab + u32_at(h);
        let end = at + data[at..].iter().position(|&b| b == 0)?;
        (&data[at..end] == name.as_bytes()).then(|| (u64_at(h + 0x18), u64_at(h + 0x20)))
    })
}

/// A copy of `elf` in `dir` named `name` with every byte of `section`
/// replaced by `0xff`.
fn garble_section(elf: &Path, section: &str, dir: &Path, name: &str) -> PathBuf {
    let mut data = std::fs::read(elf).unwrap();
    let (off, size) = section_range(&data, section)
        .unwrap_or_else(|| panic!("{} has no {section}", elf.display()));
    data[off..off + size].fill(0xff);
    let out = dir.join(name);
    std::fs::write(&out, data).unwrap();
    out
}

/// Lines of `text` that mention `needle`.
fn lines_with<'a>(text: &'a str, needle: &str) -> Vec<&'a str> {
    text.lines().filter(|l| l.contains(needle)).collect()
}

#[test]
fn corrupt_eh_frame_falls_back_with_one_warning() {
    let dir = tempfile::tempdir().unwrap();
    for (src, section) in [
        ("recursion.rv64-linux.O2.elf", ".eh_frame"),
        ("recursion.rv64gc.O2.elf", ".debug_frame"),
    ] {
        garble_section(&corpus_elf(src), section, dir.path(), "bad.elf");
        let out = run_fwprof(
            dir.path(),
            &[
                "record", "--method", "sample", "--period", "997", "-q", "-o", "s.fwprof", "--",
                "bad.elf",
            ],
        );
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(0), "{src} {section}: {stderr}");
        let warnings = lines_with(&stderr, "warning");
        assert_eq!(warnings.len(), 1, "{src}: {stderr}");
        assert!(
            warnings[0].contains(section) && warnings[0].contains("unwinding without it"),
            "{stderr}"
        );
        let p = fwprof_profile::Profile::read(dir.path().join("s.fwprof")).unwrap();
        assert!(p.meta.sampling.as_ref().unwrap().samples > 0);
        assert!(p.meta.warnings.iter().any(|w| w.contains(section)));
        std::fs::remove_file(dir.path().join("s.fwprof")).unwrap();
    }
}

/// Compile C `source` as a static Linux program `dir/name.elf` with debug
/// information (gcc records `dir` as the absolute compilation directory).
fn linux_program(dir: &Path, name: &str, source: &str) -> Option<PathBuf> {
    if !common::require(&["riscv64-linux-gnu-gcc"]) {
        return None;
    }
    std::fs::write(dir.join(format!("{name}.c")), source).unwrap();
    let st = std::process::Command::new("riscv64-linux-gnu-gcc")
        .current_dir(dir)
        .args(["-static", "-g", "-O1", "-o"])
        .arg(format!("{name}.elf"))
        .arg(format!("{name}.c"))
        .status()
        .unwrap();
    assert!(st.success());
    Some(dir.join(format!("{name}.elf")))
}

const PROG_C: &str = "\
#include <stdio.h>
static volatile unsigned sink;
__attribute__((noinline)) unsigned churn(unsigned n) {
    unsigned s = 0;
    for (unsigned i = 0; i < n; i++) s += i * 2654435761u; /* marker: the hot line */
    return s;
}
int main(void) { sink = churn(50000); printf(\"%u\\n\", sink); return 0; }
";

const OTHER_C: &str = "\
#include <stdio.h>
int main(void) { puts(\"another program\"); return 0; }
";

/// SHA-256 of a file as fwprof computes it.
fn sha256_of(path: &Path) -> String {
    fwprof_symbols::Program::open(path).unwrap().sha256_hex()
}

#[test]
fn program_must_match_the_recorded_hash_in_every_reader() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let Some(prog) = linux_program(d, "prog", PROG_C) else {
        return;
    };
    let other = linux_program(d, "other", OTHER_C).unwrap();
    let (good, bad) = (sha256_of(&prog), sha256_of(&other));
    // Recorded with a relative path, read from another directory.
    common::fwprof_output(d, &["record", "-q", "-o", "p.fwprof", "--", "prog.elf"]);
    let elsewhere = d.join("elsewhere");
    std::fs::create_dir(&elsewhere).unwrap();
    let other_arg = other.to_str().unwrap();
    let readers: [&[&str]; 4] = [
        &["annotate", "../p.fwprof", "churn"],
        &["html", "../p.fwprof", "-o", "r.html"],
        &[
            "export",
            "../p.fwprof",
            "--format",
            "pprof",
            "-o",
            "p.pb.gz",
        ],
        &[
            "export",
            "../p.fwprof",
            "--format",
            "callgrind",
            "-o",
            "cg.out",
        ],
    ];
    for args in readers {
        let mut with = args.to_vec();
        with.extend(["--program", other_arg]);
        let o = run_fwprof(&elsewhere, &with);
        let stderr = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(125), "{with:?}: {stderr}");
        assert_eq!(stderr.lines().count(), 1, "{with:?}: {stderr}");
        assert!(
            stderr.contains(&good) && stderr.contains(&bad) && stderr.contains("--force"),
            "{with:?}: {stderr}"
        );
        with.push("--force");
        let o = run_fwprof(&elsewhere, &with);
        assert_eq!(
            o.status.code(),
            Some(0),
            "{with:?}: {}",
            String::from_utf8_lossy(&o.stderr)
        );
        // The recorded program is found by its absolute path, with sources.
        let o = run_fwprof(&elsewhere, args);
        let stderr = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(0), "{args:?}: {stderr}");
        assert!(!stderr.contains("warning"), "{args:?}: {stderr}");
    }
    let annotated = common::fwprof_stdout(&elsewhere, &["annotate", "../p.fwprof", "churn"]);
    assert!(annotated.contains("marker: the hot line"), "{annotated}");
    let page = std::fs::read_to_string(elsewhere.join("r.html")).unwrap();
    assert!(page.contains("marker: the hot line"));
    let cg = std::fs::read_to_string(elsewhere.join("cg.out")).unwrap();
    assert!(cg.contains("prog.c"), "callgrind names the source file");
}

/// Run `fwprof ARGS` in `dir`; its exit status, stderr and peak resident
/// set size in KiB (`wait4`'s `ru_maxrss`, the child alone).
// The child is reaped by `wait4` (for its rusage), not by `Child::wait`.
#[allow(clippy::zombie_processes)]
fn run_measured(dir: &Path, args: &[&str]) -> (i32, String, i64) {
    let child = std::process::Command::new(common::fwprof())
        .current_dir(dir)
        .args(args)
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let pid = child.id() as libc::pid_t;
    let mut stderr = String::new();
    std::io::Read::read_to_string(&mut child.stderr.unwrap(), &mut stderr).unwrap();
    let mut status = 0;
    // SAFETY: an all-zero rusage is a valid value; wait4 fills it for our
    // own child, which std has not reaped (we never called wait on it).
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    let r = unsafe { libc::wait4(pid, &mut status, 0, &mut usage) };
    assert_eq!(r, pid);
    assert!(libc::WIFEXITED(status), "fwprof {args:?} was killed");
    (libc::WEXITSTATUS(status), stderr, usage.ru_maxrss)
}

/// A bare-metal build of `tests/hostile/recursion_depth.c` (10^6 levels).
fn deep_recursion(dir: &Path) -> Option<PathBuf> {
    if !common::require(&["riscv64-unknown-elf-gcc"]) {
        return None;
    }
    let src = common::repo().join("tests/hostile/recursion_depth.c");
    let out = dir.join("deep_recursion.elf");
    let st = std::process::Command::new("riscv64-unknown-elf-gcc")
        .args([
            "-march=rv64gc",
            "-mabi=lp64d",
            "-mcmodel=medany",
            "-O1",
            "-g",
            "--specs=picolibc.specs",
            "--crt0=semihost",
            "--oslib=semihost",
            "-Wl,--defsym=__flash=0x80000000",
            "-Wl,--defsym=__flash_size=0x400000",
            "-Wl,--defsym=__ram=0x80400000",
            "-Wl,--defsym=__ram_size=0x7c00000",
            "-Wl,--defsym=__stack_size=0x10000",
        ])
        .arg(&src)
        .arg("-o")
        .arg(&out)
        .status()
        .unwrap();
    assert!(st.success());
    Some(out)
}

/// Exports of a recursion 10^6 deep stay linear: stacks exact to 1024
/// frames, deeper recursion folded into one frame, one note on stderr;
/// output and peak memory within fixed bounds (before: 24 GB and killed).
#[test]
fn exports_of_deep_recursion_are_linear() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let Some(_) = deep_recursion(d) else { return };
    common::fwprof_output(
        d,
        &[
            "record",
            "-q",
            "-o",
            "deep.fwprof",
            "--",
            "deep_recursion.elf",
        ],
    );
    let profile_size = std::fs::metadata(d.join("deep.fwprof")).unwrap().len();
    let (_, _, read_rss) = run_measured(d, &["report", "deep.fwprof", "--top", "3"]);
    // Outputs: 1024 exact levels (~1024²/2 frames of `descend`), then the
    // folded rest. Bounds: 8 MiB of text (measured: folded 4.2 MB,
    // speedscope 1.6 MB, SVG 0.24 MB), pprof smaller than the profile
    // (12 KB); peak memory at most 64 MiB above what `report` takes to read
    // the same profile (measured: equal within 0.1 MiB, ~120 MiB).
    for (format, out, max_size) in [
        ("folded", "f.txt", 8 << 20),
        ("flamegraph", "f.svg", 8 << 20),
        ("speedscope", "s.json", 8 << 20),
        ("pprof", "p.pb.gz", profile_size),
    ] {
        let (code, stderr, rss) =
            run_measured(d, &["export", "deep.fwprof", "--format", format, "-o", out]);
        assert_eq!(code, 0, "{format}: {stderr}");
        let notes = lines_with(&stderr, "recursion folded");
        assert_eq!(notes.len(), 1, "{format}: {stderr}");
        assert!(
            notes[0].contains("stacks deeper than 1024 frames"),
            "{stderr}"
        );
        let size = std::fs::metadata(d.join(out)).unwrap().len();
        eprintln!("{format}: {size} bytes, peak RSS {rss} KiB (report: {read_rss} KiB)");
        assert!(size <= max_size, "{format}: {size} bytes > {max_size}");
        assert!(
            rss <= read_rss + 64 * 1024,
            "{format}: peak RSS {rss} KiB > {read_rss} KiB + 64 MiB"
        );
    }
    // The folded stacks keep every instruction: exact to 1024 frames, the
    // rest on one folded line.
    let folded = std::fs::read_to_string(d.join("f.txt")).unwrap();
    let p = fwprof_profile::Profile::read(d.join("deep.fwprof")).unwrap();
    let sum: u64 = folded
        .lines()
        .map(|l| l.rsplit(' ').next().unwrap().parse::<u64>().unwrap())
        .sum();
    assert_eq!(sum, p.totals[0]);
    let deep: Vec<&str> = lines_with(&folded, "descend [recursion folded]");
    assert_eq!(deep.len(), 1, "the rest on one folded line");
    // Every instruction of `descend` is on a line whose leaf is `descend`:
    // the exact levels plus the folded rest.
    let cost = |l: &str| l.rsplit(' ').next().unwrap().parse::<u64>().unwrap();
    let descend = p.functions.iter().find(|f| f.name == "descend").unwrap();
    assert_eq!(descend.calls, 1_000_001);
    let exact_descend: u64 = folded
        .lines()
        .filter(|l| !l.contains("[recursion folded]"))
        .filter(|l| l.rsplit(' ').nth(1).unwrap().ends_with(";descend"))
        .map(cost)
        .sum();
    assert_eq!(cost(deep[0]) + exact_descend, descend.self_cost[0]);
    // At most 1024 frames are exact, so the folded line holds all but
    // about 1024 levels' worth of the recursion.
    let per_level = descend.self_cost[0] / descend.calls;
    assert!(cost(deep[0]) >= (descend.calls - 1024) * per_level);
    assert!(
        deep.iter().all(|l| l.split(';').count() <= 1024 + 3),
        "folded lines stay short"
    );
    let longest_exact = folded
        .lines()
        .filter(|l| !l.contains("[recursion folded]"))
        .map(|l| l.split(';').filter(|f| f.starts_with("descend")).count())
        .max()
        .unwrap();
    assert!(
        longest_exact >= 1000,
        "exact stacks up to 1024 frames: {longest_exact}"
    );
}

/// `fwprof diff --format json` of two profiles in `dir`.
fn diff_json(dir: &Path, before: &str, after: &str) -> serde_json::Value {
    let out = common::fwprof_ok(dir, &["diff", "--format", "json", before, after]);
    serde_json::from_slice(&out).unwrap()
}

/// Two sampled runs of one binary (different jitter seeds) differ by
/// sampling noise only: diff labels both as estimates, every share
/// change's 95% interval contains 0 but for a rare one, and
/// `--fail-above` does not fail on noise (before: strlen -36%, no
/// interval, nothing said about sampling).
#[test]
fn diff_of_sampled_runs_shows_noise_as_noise() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let elf = corpus_elf("strings.rv64-linux.O2.elf");
    let elf = elf.to_str().unwrap();
    for (seed, out) in [("1", "s1.fwprof"), ("2", "s2.fwprof")] {
        common::fwprof_output(
            d,
            &[
                "record",
                "-q",
                "--method",
                "sample",
                "--period",
                "101",
                "--jitter",
                "--seed",
                seed,
                "--clear-env",
                "-o",
                out,
                "--",
                elf,
            ],
        );
    }
    let text = common::fwprof_stdout(d, &["diff", "s1.fwprof", "s2.fwprof"]);
    assert!(text.contains("Note: BEFORE is sampled (") && text.contains("its costs are estimates"));
    let strlen = text.lines().find(|l| l.ends_with(" strlen")).expect(&text);
    assert!(strlen.contains(" noise "), "{strlen}");
    let j = diff_json(d, "s1.fwprof", "s2.fwprof");
    assert!(j["sampled"]["before"].as_u64().unwrap() > 9000);
    let functions = j["functions"].as_array().unwrap();
    let flagged: Vec<&str> = functions
        .iter()
        .filter(|f| !f["share_change"]["contains_zero"].as_bool().unwrap())
        .map(|f| f["name"].as_str().unwrap())
        .collect();
    // 95% intervals: about 1 in 20 may exclude 0 by chance.
    assert!(
        flagged.len() <= 1 + functions.len() / 20,
        "{} of {} flagged: {flagged:?}",
        flagged.len(),
        functions.len()
    );
    let s = functions.iter().find(|f| f["name"] == "strlen").unwrap();
    let sc = &s["share_change"];
    assert!(sc["low"].as_f64().unwrap() <= 0.0 && sc["high"].as_f64().unwrap() >= 0.0);
    for pct in ["5", "20"] {
        let o = run_fwprof(d, &["diff", "--fail-above", pct, "s1.fwprof", "s2.fwprof"]);
        assert_eq!(
            o.status.code(),
            Some(0),
            "{}",
            String::from_utf8_lossy(&o.stderr)
        );
    }
}

/// `--fail-above` on a real regression: two exact profiles of one program
/// doing twice the work exit 1 with one line naming what grew; the same
/// profile against itself exits 0.
#[test]
fn fail_above_catches_a_real_regression() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let src = "\
#include <stdio.h>
static volatile unsigned sink;
__attribute__((noinline)) unsigned churn(unsigned n) {
    unsigned s = 0;
    for (unsigned i = 0; i < n; i++) s += i * 2654435761u;
    return s;
}
int main(int argc, char **argv) {
    sink = churn(argc > 1 ? 400000 : 200000);
    printf(\"%u\\n\", sink);
    return 0;
}
";
    let Some(_) = linux_program(d, "work", src) else {
        return;
    };
    common::fwprof_output(
        d,
        &[
            "record",
            "-q",
            "--clear-env",
            "-o",
            "a.fwprof",
            "--",
            "work.elf",
        ],
    );
    common::fwprof_output(
        d,
        &[
            "record",
            "-q",
            "--clear-env",
            "-o",
            "b.fwprof",
            "--",
            "work.elf",
            "more",
        ],
    );
    let o = run_fwprof(d, &["diff", "--fail-above", "10", "a.fwprof", "b.fwprof"]);
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(1), "{stderr}");
    assert!(
        stderr
            .lines()
            .any(|l| l.starts_with("fwprof: churn: self instructions grew +")),
        "{stderr}"
    );
    assert!(
        stderr
            .lines()
            .any(|l| l.starts_with("fwprof: total instructions grew +")),
        "{stderr}"
    );
    // The diff is printed too: the same as without `--fail-above`.
    let plain = run_fwprof(d, &["diff", "a.fwprof", "b.fwprof"]);
    assert_eq!(plain.status.code(), Some(0));
    assert_eq!(
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&plain.stdout)
    );
    assert!(
        String::from_utf8_lossy(&o.stdout)
            .lines()
            .any(|l| l.contains("churn") && l.contains('+')),
        "{}",
        String::from_utf8_lossy(&o.stdout)
    );
    // Shrinking is no regression; neither is growth under the threshold.
    for args in [
        ["diff", "--fail-above", "10", "b.fwprof", "a.fwprof"],
        ["diff", "--fail-above", "150", "a.fwprof", "b.fwprof"],
    ] {
        let o = run_fwprof(d, &args);
        assert_eq!(
            o.status.code(),
            Some(0),
            "{args:?}: {}",
            String::from_utf8_lossy(&o.stderr)
        );
    }
    let o = run_fwprof(d, &["diff", "--fail-above=-3", "a.fwprof", "b.fwprof"]);
    assert_eq!(o.status.code(), Some(125));
}
