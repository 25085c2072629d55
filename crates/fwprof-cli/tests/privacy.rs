//! No secret leaves the machine: a profile stores the guest environment's
//! names and digest only (nothing for bare metal), and no output format
//! (report text/JSON, every export, HTML, diff, compare, merge) shows a
//! planted secret, from `-E` or from the host's environment, unless the
//! values were saved on request (`record --save-env`).

mod common;

use std::path::Path;
use std::process::{Command, Output, Stdio};

use fwprof_profile::Profile;

const GUEST_SECRET: &str = "guest-s3cr3t-8b1f0c";
const HOST_SECRET: &str = "host-s3cr3t-77ad24";

/// `fwprof ARGS` in `dir` with the host secret in its environment.
fn fwprof(dir: &Path, args: &[&str]) -> Output {
    let out = Command::new(common::fwprof())
        .current_dir(dir)
        .args(args)
        .env("FWPROF_HOST_SECRET", HOST_SECRET)
        .stdin(Stdio::null())
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "fwprof {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    out
}

fn contains(hay: &[u8], needle: &str) -> bool {
    hay.windows(needle.len()).any(|w| w == needle.as_bytes())
}

/// Every output of every reading command on `a.data` (and `b.data`), as
/// (what, bytes): stdout, stderr and files written.
fn every_output(dir: &Path) -> Vec<(String, Vec<u8>)> {
    let mut outs = Vec::new();
    let mut run = |what: &str, args: &[&str]| {
        let o = fwprof(dir, args);
        outs.push((format!("{what} stdout"), o.stdout));
        outs.push((format!("{what} stderr"), o.stderr));
    };
    run("report", &["report", "a.data"]);
    run("report json", &["report", "--format", "json", "a.data"]);
    run("annotate", &["annotate", "a.data"]);
    for f in [
        "gmon",
        "callgrind",
        "pprof",
        "folded",
        "flamegraph",
        "speedscope",
        "dot",
    ] {
        run(
            &format!("export {f}"),
            &["export", "--format", f, "-o", &format!("out.{f}"), "a.data"],
        );
    }
    run("html", &["html", "-o", "out.html", "a.data"]);
    run("diff", &["diff", "a.data", "b.data"]);
    run(
        "diff json",
        &["diff", "--format", "json", "a.data", "b.data"],
    );
    run("compare", &["compare", "a.data", "b.data"]);
    run(
        "compare json",
        &["compare", "--format", "json", "a.data", "b.data"],
    );
    run("merge", &["merge", "-o", "out.merged", "a.data", "b.data"]);
    for f in [
        "gmon",
        "callgrind",
        "pprof",
        "folded",
        "flamegraph",
        "speedscope",
        "dot",
        "html",
        "merged",
    ] {
        let path = dir.join(format!("out.{f}"));
        let mut bytes = std::fs::read(&path).unwrap();
        if f == "pprof" {
            let o = Command::new("gzip").arg("-dc").arg(&path).output().unwrap();
            assert!(o.status.success());
            bytes = o.stdout;
        }
        outs.push((format!("file out.{f}"), bytes));
    }
    outs
}

#[test]
fn no_output_shows_a_secret_unless_saved() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    let prog = common::repo().join("examples/crc32/crc32.rv64-linux.elf");
    let prog = prog.to_str().unwrap();
    let planted = format!("FWPROF_TEST_SECRET={GUEST_SECRET}");
    fwprof(
        dir,
        &["record", "-q", "-o", "a.data", "-E", &planted, "--", prog],
    );
    fwprof(
        dir,
        &["record", "-q", "-o", "b.data", "-E", "OTHER=1", "--", prog],
    );
    for f in ["a.data", "b.data"] {
        let bytes = std::fs::read(dir.join(f)).unwrap();
        assert!(
            !contains(&bytes, GUEST_SECRET) && !contains(&bytes, HOST_SECRET),
            "{f}"
        );
    }
    let a = Profile::read(dir.join("a.data")).unwrap();
    assert!(a.meta.environment.is_empty());
    assert!(a
        .meta
        .environment_names
        .iter()
        .any(|n| n == "FWPROF_TEST_SECRET"));
    assert!(a
        .meta
        .environment_names
        .iter()
        .any(|n| n == "FWPROF_HOST_SECRET"));
    assert_eq!(
        a.meta.environment_sha256.as_ref().map(String::len),
        Some(64)
    );

    let outs = every_output(dir);
    for (what, bytes) in &outs {
        assert!(!contains(bytes, GUEST_SECRET), "{what} shows the -E secret");
        assert!(
            !contains(bytes, HOST_SECRET),
            "{what} shows the host secret"
        );
    }
    // diff and compare say that the environments differed (names only).
    for what in ["diff stderr", "compare stderr"] {
        let (_, e) = outs.iter().find(|(w, _)| w == what).unwrap();
        let e = String::from_utf8_lossy(e);
        assert!(e.contains("the environments differed"), "{what}: {e}");
        assert!(
            e.contains("FWPROF_TEST_SECRET") && e.contains("OTHER"),
            "{what}: {e}"
        );
    }

    // With --save-env the values are kept and shown where values are shown.
    fwprof(
        dir,
        &[
            "record",
            "-q",
            "--save-env",
            "-o",
            "a.data",
            "-E",
            &planted,
            "--",
            prog,
        ],
    );
    let a = Profile::read(dir.join("a.data")).unwrap();
    assert!(a.meta.environment.contains(&planted));
    assert!(a.meta.environment.iter().any(|e| e.ends_with(HOST_SECRET)));
    fwprof(dir, &["html", "-o", "saved.html", "a.data"]);
    let html = std::fs::read(dir.join("saved.html")).unwrap();
    assert!(contains(&html, GUEST_SECRET) && contains(&html, HOST_SECRET));
}

#[test]
fn a_bare_metal_profile_stores_no_environment() {
    let tmp = tempfile::tempdir().unwrap();
    let prog = common::repo().join("examples/crc32/crc32.rv32imac.elf");
    let planted = format!("FWPROF_TEST_SECRET={GUEST_SECRET}");
    fwprof(
        tmp.path(),
        &[
            "record",
            "-q",
            "--save-env",
            "-E",
            &planted,
            "--",
            prog.to_str().unwrap(),
        ],
    );
    let bytes = std::fs::read(tmp.path().join("fwprof.data")).unwrap();
    assert!(!contains(&bytes, GUEST_SECRET) && !contains(&bytes, HOST_SECRET));
    let p = Profile::read(tmp.path().join("fwprof.data")).unwrap();
    assert!(p.meta.environment.is_empty() && p.meta.environment_names.is_empty());
    assert_eq!(p.meta.environment_sha256, None);
}
