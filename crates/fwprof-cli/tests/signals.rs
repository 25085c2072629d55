//! SIGINT, SIGTERM and SIGHUP stop every kind of run cleanly: `record`
//! (exact, `--core`, `--method sample`, `--method instrument`) writes the
//! partial profile marked `signal SIGTERM` ... and exits 128+N; `run` exits
//! 128+N too; a burst of further signals during the write leaves a valid
//! profile and no temporary file.

mod common;

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use fwprof_profile::Profile;

const SIGHUP: i32 = 1;
const SIGINT: i32 = 2;
const SIGTERM: i32 = 15;

fn name(sig: i32) -> &'static str {
    match sig {
        SIGHUP => "SIGHUP",
        SIGINT => "SIGINT",
        _ => "SIGTERM",
    }
}

/// A bare-metal program that never ends: a loop calling `work` between
/// the `-finstrument-functions` hooks (so every method can record it).
fn endless(dir: &Path) -> Option<PathBuf> {
    if !common::require(&["riscv64-unknown-elf-gcc"]) {
        return None;
    }
    let src = dir.join("endless.S");
    std::fs::write(
        &src,
        "    .globl _start\n    .type _start,@function\n_start:\n\
         1:  la a0, work\n    call __cyg_profile_func_enter\n    call work\n\
         \x20   la a0, work\n    call __cyg_profile_func_exit\n    j 1b\n    .size _start,.-_start\n\
         \x20   .globl work\n    .type work,@function\nwork:\n    addi a2, a2, 1\n    ret\n    .size work,.-work\n\
         \x20   .globl __cyg_profile_func_enter\n    .type __cyg_profile_func_enter,@function\n\
         __cyg_profile_func_enter:\n    ret\n    .size __cyg_profile_func_enter,.-__cyg_profile_func_enter\n\
         \x20   .globl __cyg_profile_func_exit\n    .type __cyg_profile_func_exit,@function\n\
         __cyg_profile_func_exit:\n    ret\n    .size __cyg_profile_func_exit,.-__cyg_profile_func_exit\n",
    )
    .unwrap();
    let out = dir.join("endless.elf");
    let st = Command::new("riscv64-unknown-elf-gcc")
        .args([
            "-nostdlib",
            "-nostartfiles",
            "-static",
            "-Wl,-Ttext=0x80000000",
        ])
        .args(["-march=rv64imac", "-mabi=lp64", "-g"])
        .arg(&src)
        .arg("-o")
        .arg(&out)
        .status()
        .unwrap();
    assert!(st.success());
    Some(out)
}

fn spawn(dir: &Path, args: &[&str]) -> Child {
    Command::new(common::fwprof())
        .current_dir(dir)
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap()
}

/// The signals `pid` catches, from `/proc/PID/status` (`SigCgt`).
fn caught(pid: u32) -> u64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap_or_default();
    status
        .lines()
        .find_map(|l| l.strip_prefix("SigCgt:"))
        .and_then(|v| u64::from_str_radix(v.trim(), 16).ok())
        .unwrap_or(0)
}

/// Wait until `child` catches SIGINT, SIGTERM and SIGHUP: its run started.
fn wait_for_handlers(child: &Child) {
    let want = (1u64 << (SIGHUP - 1)) | (1 << (SIGINT - 1)) | (1 << (SIGTERM - 1));
    let start = Instant::now();
    while caught(child.id()) & want != want {
        assert!(
            start.elapsed() < Duration::from_secs(60),
            "fwprof never started its run"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
    // Let some instructions run.
    std::thread::sleep(Duration::from_millis(100));
}

fn kill(pid: u32, sig: i32) {
    let st = Command::new("kill")
        .arg(format!("-{sig}"))
        .arg(pid.to_string())
        .status()
        .unwrap();
    assert!(st.success());
}

/// Stop `args` with `sig` (and `extra` more signals right after); check
/// the exit status, the one line on stderr and the partial profile.
fn stop_with(dir: &Path, args: &[&str], sig: i32, extra: &[i32]) {
    let out_name = format!(
        "p-{}-{}.data",
        args.join("_").replace(['-', '/', '.'], ""),
        sig
    );
    let mut full = vec!["record", "-o", &out_name];
    full.extend_from_slice(args);
    full.extend_from_slice(&["--", "endless.elf"]);
    let child = spawn(dir, &full);
    wait_for_handlers(&child);
    kill(child.id(), sig);
    for &s in extra {
        kill(child.id(), s);
    }
    let out = child.wait_with_output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(128 + sig), "{full:?}: {err}");
    assert!(!err.contains("panicked"), "{err}");
    assert!(
        err.contains(&format!("stopped by {}", name(sig))),
        "{full:?}: {err}"
    );
    let p = Profile::read(dir.join(&out_name)).unwrap_or_else(|e| panic!("{full:?}: {e}"));
    assert_eq!(
        p.meta.partial.as_deref(),
        Some(format!("signal {}", name(sig)).as_str()),
        "{full:?}"
    );
    assert_eq!(p.meta.exit_status, None);
}

#[test]
fn every_method_stops_cleanly_on_every_signal() {
    let tmp = tempfile::tempdir().unwrap();
    let Some(_) = endless(tmp.path()) else {
        return;
    };
    // Every signal with the exact method, one each with the others (a
    // long period: a sample is kept per period, and the run is endless).
    for sig in [SIGTERM, SIGHUP, SIGINT] {
        stop_with(tmp.path(), &[], sig, &[]);
    }
    stop_with(tmp.path(), &["--core", "generic"], SIGTERM, &[]);
    stop_with(
        tmp.path(),
        &["--method", "sample", "--period", "100000"],
        SIGHUP,
        &[],
    );
    stop_with(tmp.path(), &["--method", "instrument"], SIGINT, &[]);
    // `run` too: 128+N and one line.
    for sig in [SIGTERM, SIGHUP, SIGINT] {
        let child = spawn(tmp.path(), &["run", "endless.elf"]);
        wait_for_handlers(&child);
        kill(child.id(), sig);
        let out = child.wait_with_output().unwrap();
        assert_eq!(out.status.code(), Some(128 + sig));
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(err.trim(), format!("fwprof: stopped by {}", name(sig)));
    }
}

#[test]
fn more_signals_during_the_write_leave_a_valid_profile() {
    let tmp = tempfile::tempdir().unwrap();
    let Some(_) = endless(tmp.path()) else {
        return;
    };
    let burst = [SIGTERM, SIGHUP, SIGINT].repeat(20);
    stop_with(tmp.path(), &[], SIGTERM, &burst);
    stop_with(tmp.path(), &["--core", "generic"], SIGHUP, &burst);
    // Nothing but the program, its source and the two profiles.
    let mut names: Vec<String> = std::fs::read_dir(tmp.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    assert_eq!(names.len(), 4, "{names:?}");
}
