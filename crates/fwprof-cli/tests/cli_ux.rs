//! Terminal behaviour: shell completions, `record`'s progress line and
//! summary (`-q`, `-v`), and colour in `report` (`--color`, `NO_COLOR`).
//! A terminal is given to fwprof with util-linux `script`, which runs a
//! command on a pseudo-terminal and copies what it shows.

mod common;

use std::path::Path;
use std::process::{Command, Stdio};

use fwprof_profile::Profile;

use common::{fwprof, repo, run_fwprof};

fn coremix() -> String {
    repo()
        .join("bench/coremix.rv64-linux.elf")
        .display()
        .to_string()
}

/// Run the shell command `cmd` in `dir` on a pseudo-terminal (stdin,
/// stdout and stderr all on it), with `env` set; what the terminal showed
/// and the exit status. `None` (skip) if `script` is missing.
fn on_terminal(dir: &Path, cmd: &str, env: &[(&str, &str)]) -> Option<(String, i32)> {
    if !common::require(&["script"]) {
        return None;
    }
    let mut c = Command::new("script");
    c.args(["-q", "-e", "-c", cmd, "/dev/null"])
        .current_dir(dir)
        .env_remove("NO_COLOR")
        .stdin(Stdio::null());
    for (k, v) in env {
        c.env(k, v);
    }
    let o = c.output().unwrap();
    Some((
        String::from_utf8_lossy(&o.stdout).into_owned(),
        o.status.code().unwrap_or(-1),
    ))
}

#[test]
fn completions_name_the_commands_and_bash_accepts_its_script() {
    let tmp = tempfile::tempdir().unwrap();
    for shell in ["bash", "zsh", "fish"] {
        let o = run_fwprof(tmp.path(), &["completions", shell]);
        assert_eq!(o.status.code(), Some(0), "{shell}");
        let script = String::from_utf8(o.stdout).unwrap();
        assert!(script.len() > 500, "{shell}: {script}");
        for word in ["fwprof", "record", "report", "diff", "merge"] {
            assert!(script.contains(word), "{shell} script lacks {word}");
        }
        let file = tmp.path().join(format!("fwprof.{shell}"));
        std::fs::write(&file, &script).unwrap();
        if shell == "bash" || common::have(shell) {
            let st = Command::new(shell).arg("-n").arg(&file).output().unwrap();
            assert!(
                st.status.success(),
                "{shell} -n rejects the script: {}",
                String::from_utf8_lossy(&st.stderr)
            );
        }
    }
    let o = run_fwprof(tmp.path(), &["completions", "tcsh"]);
    assert_eq!(o.status.code(), Some(2), "clap rejects an unknown shell");
}

#[test]
fn record_shows_progress_and_a_summary_only_on_a_terminal() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    let bin = fwprof().display().to_string();
    let prog = coremix();
    let Some((shown, code)) = on_terminal(
        dir,
        &format!("'{bin}' record -o t.fwprof -- '{prog}' 2 >/dev/null"),
        &[],
    ) else {
        return;
    };
    assert_eq!(code, 0, "{shown}");
    let total = Profile::read(dir.join("t.fwprof")).unwrap().totals[0];
    let with_commas = |n: u64| {
        let digits = n.to_string();
        let groups: Vec<&str> = digits
            .as_bytes()
            .rchunks(3)
            .rev()
            .map(|g| std::str::from_utf8(g).unwrap())
            .collect();
        groups.join(",")
    };
    // The progress line: elapsed time, instructions, MIPS; then erased.
    assert!(
        shown.contains("fwprof: 00:00:00 simulated 0 instructions, 0.0 MIPS"),
        "{shown:?}"
    );
    assert!(shown.contains("\r\x1b[2K"), "the line is erased: {shown:?}");
    let summary = format!(
        "fwprof: wrote t.fwprof ({} instructions, ",
        with_commas(total)
    );
    assert!(shown.contains(&summary), "{shown:?} lacks {summary:?}");

    // --quiet: nothing from fwprof.
    let (shown, code) = on_terminal(
        dir,
        &format!("'{bin}' record -q -o q.fwprof -- '{prog}' 2 >/dev/null"),
        &[],
    )
    .unwrap();
    assert_eq!(code, 0);
    assert!(!shown.contains("fwprof"), "{shown:?}");
    assert!(dir.join("q.fwprof").exists());

    // Not a terminal: silent, as before.
    let o = run_fwprof(dir, &["record", "-o", "p.fwprof", "--", &prog, "2"]);
    assert_eq!(o.status.code(), Some(0));
    assert_eq!(String::from_utf8_lossy(&o.stderr), "");

    // -v: the summary with the simulation rate, terminal or not.
    let o = run_fwprof(dir, &["record", "-v", "-o", "v.fwprof", "--", &prog, "2"]);
    assert_eq!(o.status.code(), Some(0));
    let e = String::from_utf8_lossy(&o.stderr);
    assert_eq!(e.lines().count(), 1, "{e}");
    let want = format!(
        "; simulated {} instructions in ",
        with_commas(Profile::read(dir.join("v.fwprof")).unwrap().totals[0])
    );
    assert!(
        e.starts_with("fwprof: wrote v.fwprof (")
            && e.contains(&want)
            && e.trim_end().ends_with(" MIPS"),
        "{e}"
    );
    let o = run_fwprof(dir, &["record", "-q", "-v", "--", &prog, "2"]);
    assert_eq!(o.status.code(), Some(2), "-q and -v conflict");
}

#[test]
fn report_colours_a_terminal_unless_no_color_or_never() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    let prog = coremix();
    let o = run_fwprof(dir, &["record", "-o", "p.fwprof", "--", &prog, "2"]);
    assert_eq!(o.status.code(), Some(0));
    let report = |args: &[&str]| {
        let o = run_fwprof(dir, args);
        assert_eq!(o.status.code(), Some(0));
        o.stdout
    };
    let plain = report(&["report", "p.fwprof"]);
    assert!(!plain.contains(&0x1b), "a pipe is not coloured by default");
    assert_eq!(report(&["report", "--color", "never", "p.fwprof"]), plain);
    assert_eq!(report(&["--color", "auto", "report", "p.fwprof"]), plain);
    let always = report(&["report", "--color", "always", "p.fwprof"]);
    let text = String::from_utf8(always).unwrap();
    assert!(text.starts_with("\x1b[1mFlat profile:\x1b[0m\n"), "{text}");
    assert!(
        text.lines()
            .any(|l| l.starts_with("\x1b[1m\x1b[31m") && l.contains("bench_matrix")),
        "the hottest function is red"
    );
    let json = report(&[
        "report", "--color", "always", "--format", "json", "p.fwprof",
    ]);
    assert!(!json.contains(&0x1b), "JSON is never coloured");

    // On a terminal, `auto` colours unless NO_COLOR is set (and not empty).
    let bin = fwprof().display().to_string();
    let cmd = format!("'{bin}' report --no-call-graph --top 3 p.fwprof");
    let Some((shown, code)) = on_terminal(dir, &cmd, &[]) else {
        return;
    };
    assert_eq!(code, 0);
    assert!(shown.contains("\x1b[1mFlat profile:"), "{shown:?}");
    let (shown, _) = on_terminal(dir, &cmd, &[("NO_COLOR", "1")]).unwrap();
    assert!(
        shown.starts_with("Flat profile:") && !shown.contains('\x1b'),
        "{shown:?}"
    );
    let (shown, _) = on_terminal(dir, &cmd, &[("NO_COLOR", "")]).unwrap();
    assert!(
        shown.contains("\x1b[1mFlat profile:"),
        "empty NO_COLOR: {shown:?}"
    );
    let (shown, _) = on_terminal(dir, &format!("{cmd} --color never"), &[]).unwrap();
    assert!(!shown.contains('\x1b'), "{shown:?}");
    let (shown, _) =
        on_terminal(dir, &format!("{cmd} --color always"), &[("NO_COLOR", "1")]).unwrap();
    assert!(
        shown.contains("\x1b[1mFlat profile:"),
        "--color always wins: {shown:?}"
    );
}
