//! `-o` never destroys what was there: devices and FIFOs are written in
//! place, links stay links, `-` is standard output (refused for `record`),
//! and an output that is one of the command's inputs is refused.

mod common;

use std::os::unix::fs::{FileTypeExt, PermissionsExt};
use std::path::Path;
use std::process::Output;

use fwprof_profile::Profile;

use common::run_fwprof as fwprof;

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

fn bare_prog() -> String {
    common::repo()
        .join("examples/crc32/crc32.rv32imac.elf")
        .display()
        .to_string()
}

/// Record the bare-metal example into `dir/p.data`.
fn recorded(dir: &Path) {
    let o = fwprof(dir, &["record", "-q", "-o", "p.data", "--", &bare_prog()]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
}

#[test]
fn dev_null_stays_a_device_for_every_writer() {
    let tmp = tempfile::tempdir().unwrap();
    recorded(tmp.path());
    let null = "/dev/null";
    let runs: Vec<Vec<&str>> = vec![
        vec!["record", "-q", "-o", null, "--", "PROG"],
        vec!["html", "-o", null, "p.data"],
        vec!["export", "--format", "callgrind", "-o", null, "p.data"],
        vec!["merge", "-o", null, "p.data", "p.data"],
    ];
    let prog = bare_prog();
    for args in runs {
        let args: Vec<&str> = args
            .iter()
            .map(|a| if *a == "PROG" { prog.as_str() } else { a })
            .collect();
        let o = fwprof(tmp.path(), &args);
        assert_eq!(o.status.code(), Some(0), "{args:?}: {}", stderr(&o));
        let m = std::fs::metadata(null).unwrap();
        assert!(
            m.file_type().is_char_device(),
            "{args:?} replaced /dev/null"
        );
    }
}

#[test]
fn a_fifo_is_read_as_a_stream() {
    let tmp = tempfile::tempdir().unwrap();
    recorded(tmp.path());
    let fifo = tmp.path().join("pipe");
    assert!(std::process::Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .unwrap()
        .success());
    let reader = {
        let fifo = fifo.clone();
        std::thread::spawn(move || std::fs::read(&fifo).unwrap())
    };
    let o = fwprof(tmp.path(), &["merge", "-o", "pipe", "p.data", "p.data"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let bytes = reader.join().unwrap();
    let merged = Profile::from_bytes(&bytes).unwrap();
    let one = Profile::read(tmp.path().join("p.data")).unwrap();
    assert_eq!(merged.totals[0], 2 * one.totals[0]);
    assert!(std::fs::metadata(&fifo).unwrap().file_type().is_fifo());
}

#[test]
fn a_symlink_stays_a_link_and_keeps_its_targets_mode() {
    let tmp = tempfile::tempdir().unwrap();
    recorded(tmp.path());
    let dir = tmp.path();
    std::fs::create_dir(dir.join("real")).unwrap();
    for (name, args) in [
        (
            "prof",
            vec!["record", "-q", "-o", "link-prof", "--", "PROG"],
        ),
        ("html", vec!["html", "-o", "link-html", "p.data"]),
    ] {
        let target = dir.join("real").join(name);
        std::fs::write(&target, "old").unwrap();
        std::fs::set_permissions(&target, std::fs::Permissions::from_mode(0o640)).unwrap();
        let link = format!("link-{name}");
        std::os::unix::fs::symlink(format!("real/{name}"), dir.join(&link)).unwrap();
        let prog = bare_prog();
        let args: Vec<&str> = args
            .iter()
            .map(|a| if *a == "PROG" { prog.as_str() } else { a })
            .collect();
        let o = fwprof(dir, &args);
        assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
        assert!(std::fs::symlink_metadata(dir.join(&link))
            .unwrap()
            .file_type()
            .is_symlink());
        let m = std::fs::metadata(&target).unwrap();
        assert_eq!(m.permissions().mode() & 0o7777, 0o640, "{name}");
        assert_ne!(std::fs::read(&target).unwrap(), b"old");
    }
    Profile::read(dir.join("real/prof")).unwrap();
}

#[test]
fn dash_is_standard_output_except_for_record() {
    let tmp = tempfile::tempdir().unwrap();
    recorded(tmp.path());
    let dir = tmp.path();
    let html = fwprof(dir, &["html", "-o", "-", "p.data"]);
    assert_eq!(html.status.code(), Some(0), "{}", stderr(&html));
    assert!(
        html.stdout.starts_with(b"<!DOCTYPE html>") || html.stdout.starts_with(b"<!doctype html>")
    );
    let merged = fwprof(dir, &["merge", "-o", "-", "p.data", "p.data"]);
    assert_eq!(merged.status.code(), Some(0), "{}", stderr(&merged));
    Profile::from_bytes(&merged.stdout).unwrap();
    let ex = fwprof(
        dir,
        &["export", "--format", "callgrind", "-o", "-", "p.data"],
    );
    assert!(
        ex.stdout.starts_with(b"# callgrind format")
            || String::from_utf8_lossy(&ex.stdout).contains("events:")
    );
    assert!(!dir.join("-").exists());
    let r = fwprof(dir, &["record", "-o", "-", "--", &bare_prog()]);
    assert_eq!(r.status.code(), Some(2));
    let e = stderr(&r);
    assert_eq!(e.lines().count(), 1, "{e}");
    assert!(e.contains("standard output"), "{e}");
    assert!(!dir.join("-").exists());
}

#[test]
fn an_output_that_is_an_input_is_refused() {
    let tmp = tempfile::tempdir().unwrap();
    recorded(tmp.path());
    let dir = tmp.path();
    std::fs::copy(bare_prog(), dir.join("prog.elf")).unwrap();
    std::fs::hard_link(dir.join("prog.elf"), dir.join("hard.elf")).unwrap();
    std::os::unix::fs::symlink("p.data", dir.join("soft.data")).unwrap();
    std::fs::write(dir.join("core.toml"), "not read").unwrap();
    let elf = std::fs::read(dir.join("prog.elf")).unwrap();
    let data = std::fs::read(dir.join("p.data")).unwrap();
    let cases: [&[&str]; 8] = [
        &["record", "-o", "prog.elf", "--", "prog.elf"],
        &["record", "-o", "hard.elf", "--", "prog.elf"],
        &[
            "record",
            "--core",
            "core.toml",
            "-o",
            "core.toml",
            "--",
            "prog.elf",
        ],
        &["html", "-o", "soft.data", "p.data"],
        &["html", "--program", "prog.elf", "-o", "hard.elf", "p.data"],
        &["export", "--format", "gmon", "-o", "p.data", "p.data"],
        &[
            "export",
            "--format",
            "gmon",
            "--program",
            "prog.elf",
            "-o",
            "prog.elf",
            "p.data",
        ],
        &["merge", "-o", "soft.data", "p.data", "p.data"],
    ];
    for args in cases {
        let o = fwprof(dir, args);
        let e = stderr(&o);
        assert_eq!(o.status.code(), Some(125), "{args:?}: {e}");
        assert_eq!(e.lines().count(), 1, "{args:?}: {e}");
        assert!(e.contains("refusing to write"), "{args:?}: {e}");
    }
    assert_eq!(std::fs::read(dir.join("prog.elf")).unwrap(), elf);
    assert_eq!(std::fs::read(dir.join("p.data")).unwrap(), data);
    assert_eq!(std::fs::read(dir.join("core.toml")).unwrap(), b"not read");
}
