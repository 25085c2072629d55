//! A long run must not exhaust the host through what fwprof keeps per
//! sample: a sampled profile stores at most 2^21 samples one by one and
//! counts the rest in its costs (a program sampled for hours grew by about
//! 30 bytes a sample before, 4.5 GB after 8 minutes of an endless loop).

mod common;

use std::process::Command;

use common::{fwprof, repo};
use fwprof_profile::Profile;

/// Peak resident memory of one child, in KiB (`wait4`'s own rusage).
// The child is reaped by `wait4`, which clippy does not see.
#[allow(clippy::zombie_processes)]
fn peak_rss_kib(cmd: &mut Command) -> (i32, i64) {
    use std::os::unix::process::ExitStatusExt;
    let child = cmd.spawn().unwrap();
    let mut status = 0;
    // SAFETY: rusage is plain data filled by wait4 for our own child.
    let mut ru: libc::rusage = unsafe { std::mem::zeroed() };
    let pid = child.id() as libc::pid_t;
    assert_eq!(unsafe { libc::wait4(pid, &mut status, 0, &mut ru) }, pid);
    let st = std::process::ExitStatus::from_raw(status);
    (st.code().unwrap_or(-1), ru.ru_maxrss)
}

#[test]
fn a_sampled_run_keeps_at_most_two_million_samples_one_by_one() {
    let tmp = tempfile::tempdir().unwrap();
    let prog = repo().join("examples/crc32/crc32.rv64-linux.elf");
    // Period 1: one sample per instruction, about 4.3 million of them.
    let (code, rss) = peak_rss_kib(
        Command::new(fwprof())
            .current_dir(tmp.path())
            .args([
                "record", "-q", "--method", "sample", "--period", "1", "-o", "s.fwprof", "--",
            ])
            .arg(&prog)
            .stdout(std::process::Stdio::null()),
    );
    assert_eq!(code, 0);
    let p = Profile::read(tmp.path().join("s.fwprof")).unwrap();
    let taken = p.meta.sampling.as_ref().unwrap().samples;
    assert!(taken > 4_000_000, "{taken}");
    assert_eq!(p.samples.len(), 1 << 21);
    // Every sample counts in the costs: the samples event sums to all of them.
    let e = p.event_index("samples").unwrap();
    assert_eq!(p.totals[e], taken);
    assert!(
        p.meta
            .warnings
            .iter()
            .any(|w| w.contains(&format!("only the first 2097152 of {taken} samples"))),
        "{:?}",
        p.meta.warnings
    );
    // 2^21 stored samples of a shallow program: well under 1 GiB.
    assert!(rss < 1 << 20, "peak RSS {rss} KiB");
}
