//! Real firmware nobody here wrote: Debian 12's OpenSBI (`fw_jump.elf`,
//! package `opensbi`) starting Debian's U-Boot for QEMU `virt` in S-mode
//! (`uboot.elf`, package `u-boot-qemu`), under
//! `qemu-system-riscv64 -M virt -m 128M -nographic -bios FW -kernel UBOOT`
//! and under `fwprof record --machine virt --bios FW UBOOT`, with the same
//! U-Boot commands on stdin. Both must end by themselves (`poweroff`) with
//! status 0 and print the same lines, except the lines listed in
//! [`allowed_differences`], each with its reason; the profile must show a
//! long run in M- and S-mode.

mod common;

use std::path::Path;
use std::process::Command;
use std::time::Duration;

use common::run_with_timeout;

const FW_JUMP: &str = "/usr/lib/riscv64-linux-gnu/opensbi/generic/fw_jump.elf";
const UBOOT: &str = "/usr/lib/u-boot/qemu-riscv64_smode/uboot.elf";

/// What is typed at U-Boot's prompt.
///
/// - The junk first line: stopping the autoboot countdown (`bootdelay` 2)
///   consumes a few characters, under QEMU a number that depends on host
///   timing (QEMU's serial input arrives whenever the host delivers it;
///   fwprof's input is read only when the guest polls the UART, so its
///   consumption is deterministic: 4). 3 to 5 were seen under QEMU, also
///   with six QEMUs at once on two cores; 16 leave a margin. The rest of
///   the line is an unknown command (see the allowed differences).
/// - `md` checks for Ctrl-C while it prints (`ctrlc()` reads and discards
///   any typed character), and `sleep` reads and discards typed characters
///   while it waits: each must be followed by no more input, so `md`,
///   `sleep` and `poweroff` share the last line.
const INPUT: &str = "xxxxxxxxxxxxxxxx
mw.l 81000000 12345678 4000
crc32 81000000 10000
setenv foo bar; printenv foo
md.l 81000000 4; sleep 1; poweroff
";

/// Lines the commands must print (under both), so that two runs that both
/// failed in the same way cannot pass.
const MUST_PRINT: &[&str] = &[
    "OpenSBI v1.1",
    "Domain0 Next Mode         : S-mode",
    "crc32 for 81000000 ... 8100ffff ==> 7bbe7183",
    "foo=bar",
    "81000000: 12345678 12345678 12345678 12345678  xV4.xV4.xV4.xV4.",
    "poweroff ...",
];

type Matcher = Box<dyn Fn(&str) -> bool>;

/// A line allowed to differ: how it looks under QEMU and under fwprof
/// (`None`: never on that side), and why.
struct Allowed {
    reason: &'static str,
    qemu: Option<Matcher>,
    fwprof: Option<Matcher>,
    /// The line may be on one side only (otherwise each side must have as
    /// many differing lines of this kind as the other).
    one_sided: bool,
}

fn exact(s: &'static str) -> Option<Matcher> {
    Some(Box::new(move |l| l == s))
}

fn prefix_hex(p: &'static str) -> Option<Matcher> {
    Some(Box::new(move |l| {
        l.strip_prefix(p)
            .is_some_and(|h| !h.is_empty() && h.bytes().all(|b| b.is_ascii_hexdigit()))
    }))
}

/// `=> ` followed by the part of the junk line the countdown left.
fn junk_echo() -> Option<Matcher> {
    Some(Box::new(|l| {
        l.strip_prefix("=> ")
            .is_some_and(|x| x.bytes().all(|b| b == b'x'))
    }))
}

fn junk_unknown() -> Option<Matcher> {
    Some(Box::new(|l| {
        l.strip_prefix("Unknown command '")
            .and_then(|r| r.strip_suffix("' - try 'help'"))
            .is_some_and(|x| !x.is_empty() && x.bytes().all(|b| b == b'x'))
    }))
}

/// The exact list of lines allowed to differ (QEMU 7.2 / Debian 12's
/// OpenSBI 1.1 and U-Boot 2023.01); every other line must be equal.
fn allowed_differences() -> Vec<Allowed> {
    let both = |reason, qemu, fwprof| Allowed {
        reason,
        qemu,
        fwprof,
        one_sided: false,
    };
    vec![
        both(
            "fwprof has no H extension",
            exact("Boot HART Base ISA        : rv64imafdch"),
            exact("Boot HART Base ISA        : rv64imafdc"),
        ),
        both(
            "without --core fwprof's mhpmcounter3..31 read as zero (the programmable counters come with a core: docs/pmu.md)",
            exact("Boot HART MHPM Count      : 16"),
            exact("Boot HART MHPM Count      : 0"),
        ),
        both(
            "the H extension's delegable interrupts (VSSIP, VSTIP, VSEIP, SGEIP)",
            exact("Boot HART MIDELEG         : 0x0000000000001666"),
            exact("Boot HART MIDELEG         : 0x0000000000000222"),
        ),
        both(
            "the H extension's delegable exceptions (VS ecall, guest page faults, virtual instruction)",
            exact("Boot HART MEDELEG         : 0x0000000000f0b509"),
            exact("Boot HART MEDELEG         : 0x000000000000b109"),
        ),
        both(
            "U-Boot's CPU line is the device tree's riscv,isa: no H under fwprof",
            exact("CPU:   rv64imafdch_zicsr_zifencei_zihintpause_zba_zbb_zbc_zbs_sstc"),
            exact("CPU:   rv64imafdc_zicsr_zifencei_zihintpause_zba_zbb_zbc_zbs_sstc"),
        ),
        both(
            "QEMU's virt also has virtio, PCIe, flash, the RTC and fw_cfg, which fwprof does not model",
            exact("Core:  25 devices, 12 uclasses, devicetree: board"),
            exact("Core:  14 devices, 10 uclasses, devicetree: board"),
        ),
        Allowed {
            reason: "fwprof has no CFI flash",
            qemu: exact("Flash: 32 MiB"),
            fwprof: None,
            one_sided: true,
        },
        both(
            "U-Boot copies the device tree just below itself; the trees differ in size (the devices above)",
            prefix_hex("Working FDT set to "),
            prefix_hex("Working FDT set to "),
        ),
        both(
            "under QEMU the key arrives after the countdown started (`\\b\\b\\b 0 `), under fwprof before \
             it (`\\b\\b\\b 0`, no trailing space, when a key is already waiting)",
            Some(Box::new(|l| {
                l == "Hit any key to stop autoboot:  2 \u{8}\u{8}\u{8} 0 "
                    || l == "Hit any key to stop autoboot:  2 \u{8}\u{8}\u{8} 0"
            })),
            exact("Hit any key to stop autoboot:  2 \u{8}\u{8}\u{8} 0"),
        ),
        Allowed {
            reason: "the echo of the junk line: how much of it the autoboot countdown ate",
            qemu: junk_echo(),
            fwprof: junk_echo(),
            one_sided: true,
        },
        Allowed {
            reason: "the junk line as an unknown command (absent if the countdown ate it all)",
            qemu: junk_unknown(),
            fwprof: junk_unknown(),
            one_sided: true,
        },
    ]
}

/// The differing parts of `a` and `b` (a longest common subsequence diff):
/// pairs of (lines only in `a`, lines only in `b`).
fn diff_hunks<'a>(a: &[&'a str], b: &[&'a str]) -> Vec<(Vec<&'a str>, Vec<&'a str>)> {
    let (n, m) = (a.len(), b.len());
    // lcs[i][j]: LCS length of a[i..] and b[j..].
    let mut lcs = vec![vec![0u32; m + 1]; n + 1];
    for i in (0..n).rev() {
        for j in (0..m).rev() {
            lcs[i][j] = if a[i] == b[j] {
                lcs[i + 1][j + 1] + 1
            } else {
                lcs[i + 1][j].max(lcs[i][j + 1])
            };
        }
    }
    let mut hunks = Vec::new();
    let (mut i, mut j) = (0, 0);
    let mut cur: (Vec<&str>, Vec<&str>) = (Vec::new(), Vec::new());
    while i < n || j < m {
        if i < n && j < m && a[i] == b[j] {
            if !cur.0.is_empty() || !cur.1.is_empty() {
                hunks.push(std::mem::take(&mut cur));
            }
            i += 1;
            j += 1;
        } else if j == m || (i < n && lcs[i + 1][j] >= lcs[i][j + 1]) {
            cur.0.push(a[i]);
            i += 1;
        } else {
            cur.1.push(b[j]);
            j += 1;
        }
    }
    if !cur.0.is_empty() || !cur.1.is_empty() {
        hunks.push(cur);
    }
    hunks
}

/// Checks QEMU's and fwprof's lines against [`allowed_differences`]; every
/// problem, in words (empty: the outputs agree up to the allowed lines),
/// and which allowed differences were seen.
fn check_differences(qemu: &[&str], fwprof: &[&str]) -> (Vec<String>, Vec<String>) {
    let rules = allowed_differences();
    let mut errs = Vec::new();
    let mut seen = Vec::new();
    let mut used = vec![(0usize, 0usize); rules.len()];
    for (q_only, f_only) in diff_hunks(qemu, fwprof) {
        for (side, lines) in [("QEMU", &q_only), ("fwprof", &f_only)] {
            for l in lines.iter() {
                let hit = rules.iter().position(|r| {
                    let m = if side == "QEMU" { &r.qemu } else { &r.fwprof };
                    m.as_ref().is_some_and(|m| m(l))
                });
                match hit {
                    Some(k) if side == "QEMU" => used[k].0 += 1,
                    Some(k) => used[k].1 += 1,
                    None => errs.push(format!("line only under {side}: {l:?}")),
                }
            }
        }
    }
    for (r, (q, f)) in rules.iter().zip(&used) {
        if !r.one_sided && q != f {
            errs.push(format!(
                "{q} differing line(s) under QEMU but {f} under fwprof of the kind: {}",
                r.reason
            ));
        }
        seen.push(if *q + *f > 0 {
            format!(
                "allowed difference ({q} QEMU, {f} fwprof line): {}",
                r.reason
            )
        } else {
            format!("allowed difference not seen: {}", r.reason)
        });
    }
    (errs, seen)
}

fn lines(stdout: &[u8]) -> Vec<String> {
    String::from_utf8_lossy(stdout)
        .lines()
        .map(|l| l.trim_end_matches('\r').to_string())
        .collect()
}

#[test]
fn uboot_under_opensbi_matches_qemu() {
    let mut missing = Vec::new();
    if !common::have("qemu-system-riscv64") {
        missing.push("qemu-system-riscv64".to_string());
    }
    for (file, package) in [(FW_JUMP, "opensbi"), (UBOOT, "u-boot-qemu")] {
        if !Path::new(file).is_file() {
            missing.push(format!("{file} (Debian package {package})"));
        }
    }
    if !common::present_or_skip(&missing) {
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let input = tmp.path().join("input.txt");
    std::fs::write(&input, INPUT).unwrap();
    let profile = tmp.path().join("uboot.fwprof");

    let mut qemu = Command::new("qemu-system-riscv64");
    qemu.args(["-M", "virt", "-m", "128M", "-nographic", "-bios", FW_JUMP])
        .args(["-kernel", UBOOT]);
    let mut fwprof = Command::new(common::fwprof());
    fwprof
        .current_dir(tmp.path())
        .arg("record")
        .arg("-o")
        .arg(&profile)
        .args(["--machine", "virt", "--bios", FW_JUMP, UBOOT]);
    let (q, f) = std::thread::scope(|s| {
        let q = s.spawn(|| run_with_timeout(qemu, Some(&input), Duration::from_secs(60)));
        let f = s.spawn(|| run_with_timeout(fwprof, Some(&input), Duration::from_secs(120)));
        (q.join().unwrap(), f.join().unwrap())
    });
    let (q_lines, f_lines) = (lines(&q.out.stdout), lines(&f.out.stdout));
    let show = |what: &str, r: &common::TimedRun, l: &[String]| {
        format!(
            "{what}: status {:?}{}, stderr {:?}, stdout:\n{}",
            r.out.status,
            if r.timed_out {
                " (killed: timeout)"
            } else {
                ""
            },
            String::from_utf8_lossy(&r.out.stderr),
            l.join("\n")
        )
    };
    assert!(
        !q.timed_out && q.out.status.code() == Some(0),
        "{}",
        show("QEMU", &q, &q_lines)
    );
    assert!(
        !f.timed_out && f.out.status.code() == Some(0),
        "{}",
        show("fwprof", &f, &f_lines)
    );
    for want in MUST_PRINT {
        for (what, l) in [("QEMU", &q_lines), ("fwprof", &f_lines)] {
            assert!(
                l.iter().any(|x| x == want),
                "{want:?} not printed under {what}:\n{}",
                l.join("\n")
            );
        }
    }
    let qs: Vec<&str> = q_lines.iter().map(String::as_str).collect();
    let fs: Vec<&str> = f_lines.iter().map(String::as_str).collect();
    let (errs, seen) = check_differences(&qs, &fs);
    for s in &seen {
        eprintln!("{s}");
    }
    assert!(
        errs.is_empty(),
        "outputs differ beyond the allowed lines:\n  {}\n--- QEMU\n{}\n--- fwprof\n{}",
        errs.join("\n  "),
        q_lines.join("\n"),
        f_lines.join("\n")
    );

    // The profile: a long run in M-mode (OpenSBI) and S-mode (U-Boot),
    // ended by the guest with status 0.
    let json = common::fwprof_stdout(
        tmp.path(),
        &["report", "--format", "json", &profile.display().to_string()],
    );
    let v: serde_json::Value = serde_json::from_str(&json).expect("report JSON");
    assert_eq!(v["meta"]["exit_status"], 0, "exit_status in {}", v["meta"]);
    let total = v["totals"]["instructions"].as_u64().expect("totals");
    assert!(total > 10_000_000, "only {total} instructions");
    let priv_total = |p: &str| v["privilege_totals"][p]["instructions"].as_u64();
    let (m, s) = (priv_total("M"), priv_total("S"));
    assert!(
        m.is_some_and(|n| n > 0) && s.is_some_and(|n| n > 0),
        "privilege_totals: {}",
        v["privilege_totals"]
    );
    eprintln!(
        "U-Boot under OpenSBI: {total} instructions (M {}, S {}); fwprof record {:.2?}, QEMU {:.2?}",
        m.unwrap(),
        s.unwrap(),
        f.elapsed,
        q.elapsed
    );
}

/// The comparison itself: a difference outside the list fails, and so
/// does a line on one side only.
#[test]
fn the_difference_check_is_strict() {
    let q = [
        "a",
        "Boot HART Base ISA        : rv64imafdch",
        "Flash: 32 MiB",
        "=> xxx",
        "b",
    ];
    let f = [
        "a",
        "Boot HART Base ISA        : rv64imafdc",
        "=> xxxx",
        "b",
    ];
    let errs = |q: &[&str], f: &[&str]| check_differences(q, f).0;
    assert!(errs(&q, &f).is_empty());
    // Not in the list.
    let errs2 = errs(&["a", "b"], &["a", "c"]);
    assert_eq!(errs2.len(), 2, "{errs2:?}");
    // Only on one side: an extra line, a missing one, the fwprof side of a
    // one-sided entry, one half of a pair.
    assert_eq!(errs(&["a"], &["a", "b"]).len(), 1);
    assert_eq!(errs(&["a", "b"], &["a"]).len(), 1);
    assert_eq!(errs(&["a"], &["a", "Flash: 32 MiB"]).len(), 1);
    assert_eq!(
        errs(&["a", "Boot HART MHPM Count      : 16"], &["a"]).len(),
        1
    );
}
