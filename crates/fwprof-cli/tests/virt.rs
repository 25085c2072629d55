//! The QEMU `virt` bare-metal corpus (`tests/virt`, issue 14) against live
//! QEMU 7.2: every case `tests/virt/qemu.sh` knows runs under
//! `qemu-system-riscv{32,64} -M virt -m 128M -nographic` and under
//! `fwprof run --machine virt`, with the same stdin; stdout bytes and exit
//! status must be equal. Also what only fwprof does: `record` of the UART
//! interrupt program (the machine external interrupt in the trap table),
//! a reset request (`exit_reset`), the hint for a program that needs
//! `--machine virt`, and the one-line refusals of `--bios`/`--machine`.

mod common;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use common::{run_with_timeout, TimedRun};

/// `qemu.sh`'s limit per run; every case ends in well under a second.
const TIMEOUT: Duration = Duration::from_secs(20);

/// The programs compared with QEMU, as `tests/virt/qemu.sh`'s `CASES`
/// (`exit_wide` is rv64 only; `exit_reset` is not comparable: QEMU resets
/// and runs the program again forever). `rv32_fw` is the firmware +
/// kernel pair with the kernel as an ELF, `rv32_fw_bin` with the kernel as
/// a raw binary (QEMU places it at 0x80400000 / 0x80200000; fwprof with
/// `--kernel-addr`).
const CASES: &[&str] = &[
    "rv32_fw_bin",
    "uart_hello",
    "exit_pass",
    "exit_fail3",
    "exit_fail0",
    "exit_16bit",
    "exit_wide",
    "uart_echo_irq",
    "uart_poll_echo",
    "dt_read",
    "rv32_fw",
];
const CONFIGS: &[&str] = &["rv32", "rv64"];

fn virt_dir() -> PathBuf {
    common::repo().join("tests/virt")
}

/// `tests/virt/build/NAME` (e.g. `uart_hello.rv64.elf`); runs
/// `tests/virt/build.sh` once per test process first (it rebuilds only what
/// is missing or older than its sources; the `Once` keeps two tests of this
/// file from building at the same time).
fn virt_elf(name: &str) -> PathBuf {
    common::built_elf("virt", name)
}

/// The tools the corpus needs to be built.
fn have_build_tools() -> bool {
    common::require(&["riscv64-unknown-elf-gcc", "riscv64-unknown-elf-objcopy"])
}

fn have_qemu() -> bool {
    common::require(&[
        "qemu-system-riscv32",
        "qemu-system-riscv64",
        "riscv64-unknown-elf-gcc",
        "riscv64-unknown-elf-objcopy",
    ])
}

/// One case: `program.cfg`, the two command lines and the input.
struct Case {
    name: String,
    qemu: Command,
    fwprof: Command,
    input: Option<PathBuf>,
}

fn case(program: &str, cfg: &str) -> Case {
    let qemu_bin = match cfg {
        "rv32" => "qemu-system-riscv32",
        _ => "qemu-system-riscv64",
    };
    let mut qemu = Command::new(qemu_bin);
    qemu.current_dir(virt_dir())
        .args(["-M", "virt", "-m", "128M", "-nographic"]);
    let mut fwprof = Command::new(common::fwprof());
    fwprof
        .current_dir(virt_dir())
        .args(["run", "--machine", "virt"]);
    if program == "rv32_fw" {
        let fw = virt_elf(&format!("rv32_fw.{cfg}.elf"));
        let kernel = virt_elf(&format!("rv32_kernel.{cfg}.elf"));
        qemu.arg("-bios").arg(&fw).arg("-kernel").arg(&kernel);
        fwprof.arg("--bios").arg(&fw).arg(&kernel);
    } else if program == "rv32_fw_bin" {
        let fw = virt_elf(&format!("rv32_fw.{cfg}.elf"));
        let kernel = virt_elf(&format!("rv32_kernel.{cfg}.bin"));
        let addr = if cfg == "rv32" {
            "0x80400000"
        } else {
            "0x80200000"
        };
        qemu.arg("-bios").arg(&fw).arg("-kernel").arg(&kernel);
        fwprof
            .arg("--bios")
            .arg(&fw)
            .args(["--kernel-addr", addr])
            .arg(&kernel);
    } else {
        let elf = virt_elf(&format!("{program}.{cfg}.elf"));
        qemu.args(["-bios", "none", "-kernel"]).arg(&elf);
        fwprof.arg(&elf);
    }
    let input = virt_dir().join(format!("input/{program}.txt"));
    Case {
        name: format!("{program}.{cfg}"),
        qemu,
        fwprof,
        input: input.exists().then_some(input),
    }
}

fn all_cases() -> Vec<(&'static str, &'static str)> {
    CASES
        .iter()
        .flat_map(|p| CONFIGS.iter().map(move |c| (*p, *c)))
        .filter(|(p, c)| !(*p == "exit_wide" && *c == "rv32"))
        .collect()
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

/// Runs QEMU and fwprof on one case at the same time; a description of
/// every difference.
fn compare(c: Case) -> Result<String, String> {
    let Case {
        name,
        qemu,
        fwprof,
        input,
    } = c;
    let input = input.as_deref();
    let (q, f): (TimedRun, TimedRun) = std::thread::scope(|s| {
        let q = s.spawn(|| run_with_timeout(qemu, input, TIMEOUT));
        let f = s.spawn(|| run_with_timeout(fwprof, input, TIMEOUT));
        (q.join().unwrap(), f.join().unwrap())
    });
    let mut errs = Vec::new();
    if q.timed_out {
        errs.push(format!("QEMU did not end within {TIMEOUT:?}"));
    }
    if f.timed_out {
        errs.push(format!("fwprof did not end within {TIMEOUT:?}"));
    }
    if q.out.status.code() != f.out.status.code() {
        errs.push(format!(
            "exit status: qemu {:?}, fwprof {:?}",
            q.out.status, f.out.status
        ));
    }
    if q.out.stdout != f.out.stdout {
        errs.push(format!(
            "stdout differs:\n--- qemu\n{}--- fwprof\n{}",
            text(&q.out.stdout),
            text(&f.out.stdout)
        ));
    }
    // QEMU's own output against the one recorded in tests/virt/expected
    // (QEMU 7.2): a note only, the comparison above is with live QEMU.
    let recorded = virt_dir().join(format!("expected/{name}.out"));
    if std::fs::read(&recorded).ok().as_deref() != Some(&q.out.stdout[..]) {
        eprintln!(
            "note: {name}: QEMU's output differs from {}",
            recorded.display()
        );
    }
    if errs.is_empty() {
        Ok(format!(
            "same {name}: status {:?}, {} bytes (qemu {:.2?}, fwprof {:.2?})",
            f.out.status.code(),
            f.out.stdout.len(),
            q.elapsed,
            f.elapsed
        ))
    } else {
        Err(format!(
            "{name}:\n  {}\n  fwprof stderr: {}",
            errs.join("\n  "),
            text(&f.out.stderr)
        ))
    }
}

/// Every case of tests/virt, both configurations, against live QEMU: the
/// same stdout bytes and exit status. `dt_read` included with no exception:
/// the device tree fwprof generates gives exactly QEMU's output (the lines
/// tests/virt/README.md allows to differ do not).
#[test]
fn corpus_matches_live_qemu() {
    if !have_qemu() {
        return;
    }
    let cases: Vec<Case> = all_cases().iter().map(|(p, c)| case(p, c)).collect();
    let n = cases.len();
    let cases: Vec<std::sync::Mutex<Option<Case>>> = cases
        .into_iter()
        .map(|c| std::sync::Mutex::new(Some(c)))
        .collect();
    let next = AtomicUsize::new(0);
    // Two workers, each running QEMU and fwprof side by side.
    let results: Vec<Result<String, String>> = std::thread::scope(|s| {
        let workers: Vec<_> = (0..2)
            .map(|_| {
                s.spawn(|| {
                    let mut out = Vec::new();
                    loop {
                        let i = next.fetch_add(1, Ordering::Relaxed);
                        let Some(slot) = cases.get(i) else { break };
                        let c = slot.lock().unwrap().take().unwrap();
                        out.push(compare(c));
                    }
                    out
                })
            })
            .collect();
        workers
            .into_iter()
            .flat_map(|w| w.join().unwrap())
            .collect()
    });
    assert_eq!(results.len(), n);
    let mut failures = Vec::new();
    for r in results {
        match r {
            Ok(m) => eprintln!("{m}"),
            Err(e) => {
                eprintln!("DIFFERENT {e}");
                failures.push(e);
            }
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {n} cases differ from QEMU:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

/// Runs `fwprof ARGS` in tests/virt with stdin from `input`, killed after
/// [`TIMEOUT`].
fn fwprof_timed(args: &[&str], input: Option<&Path>) -> TimedRun {
    let mut cmd = Command::new(common::fwprof());
    cmd.current_dir(virt_dir()).args(args);
    run_with_timeout(cmd, input, TIMEOUT)
}

/// `record --machine virt` on `uart_echo_irq`: the run's output is QEMU's
/// (tests/virt/expected), and the profile's trap table has the UART's
/// receive interrupt as a machine external interrupt (PLIC → `mip.MEIP`).
#[test]
fn record_uart_echo_irq_shows_the_machine_external_interrupt() {
    if !have_build_tools() {
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let input = virt_dir().join("input/uart_echo_irq.txt");
    for cfg in CONFIGS {
        let elf = virt_elf(&format!("uart_echo_irq.{cfg}.elf"));
        let profile = tmp.path().join(format!("echo.{cfg}.fwprof"));
        let r = fwprof_timed(
            &[
                "record",
                "-q",
                "-o",
                &profile.display().to_string(),
                "--machine",
                "virt",
                &elf.display().to_string(),
            ],
            Some(&input),
        );
        assert!(!r.timed_out, "{cfg}: record did not end");
        assert_eq!(
            r.out.status.code(),
            Some(0),
            "{cfg}: {}",
            text(&r.out.stderr)
        );
        let expected =
            std::fs::read(virt_dir().join(format!("expected/uart_echo_irq.{cfg}.out"))).unwrap();
        assert_eq!(text(&r.out.stdout), text(&expected), "{cfg}: output");
        let report = common::fwprof_stdout(
            tmp.path(),
            &["report", "--color", "never", &profile.display().to_string()],
        );
        let traps: Vec<&str> = report
            .lines()
            .skip_while(|l| !l.starts_with("Trap contexts:"))
            .take_while(|l| !l.starts_with("Flat profile:"))
            .collect();
        let irq = traps
            .iter()
            .find(|l| l.trim_end().ends_with("[interrupt: machine external]"))
            .unwrap_or_else(|| panic!("{cfg}: no machine external interrupt in:\n{report}"));
        let count: u64 = irq
            .split_whitespace()
            .next()
            .and_then(|n| n.parse().ok())
            .unwrap_or_else(|| panic!("{cfg}: no count in {irq:?}"));
        assert!(count >= 1, "{cfg}: {irq}");
        eprintln!("{cfg}: {}", irq.trim());
    }
}

/// `exit_reset` writes 0x7777 (reset) to the test device. QEMU boots
/// again, forever, so there is nothing to compare; fwprof ends the run
/// there with status 0 and says so on stderr.
#[test]
fn exit_reset_ends_the_run() {
    if !have_build_tools() {
        return;
    }
    for cfg in CONFIGS {
        let elf = virt_elf(&format!("exit_reset.{cfg}.elf"));
        let r = fwprof_timed(
            &["run", "--machine", "virt", &elf.display().to_string()],
            None,
        );
        assert!(!r.timed_out, "{cfg}: run did not end");
        let err = text(&r.out.stderr);
        assert_eq!(r.out.status.code(), Some(0), "{cfg}: {err}");
        assert!(
            err.contains("the guest reset the machine"),
            "{cfg}: stderr {err:?}"
        );
        // One pass of the program: QEMU prints these two lines on each of
        // its passes; `still running` would mean the write did nothing.
        assert_eq!(
            text(&r.out.stdout),
            format!("exit_codes: exit_reset on {cfg}\nwriting 0x7777 (32-bit)\n"),
            "{cfg}"
        );
    }
}

/// A one-line fwprof error with a non-zero status, containing `words`.
fn assert_one_line_error(what: &str, o: &Output, words: &str) {
    let err = text(&o.stderr);
    assert!(
        !o.status.success() && o.status.code().is_some(),
        "{what}: status {:?}, stderr {err:?}",
        o.status
    );
    assert_eq!(err.lines().count(), 1, "{what}: not one line: {err:?}");
    assert!(err.starts_with("fwprof: "), "{what}: {err:?}");
    assert!(err.contains(words), "{what}: {err:?} lacks {words:?}");
}

/// A `virt` program run on the default (`bare`) machine: the UART is not
/// there, the first access (the poll of LSR at 0x10000005) is a load
/// access fault, and with no trap handler (`mtvec` = 0: `rv32_kernel` is
/// built for S-mode, so its start-up code leaves `mtvec` alone) the run
/// stops with a one-line message naming the address and `--machine virt`.
#[test]
fn unmapped_device_without_a_trap_handler_hints_at_machine_virt() {
    if !have_build_tools() {
        return;
    }
    for cfg in CONFIGS {
        let elf = virt_elf(&format!("rv32_kernel.{cfg}.elf"));
        let r = fwprof_timed(&["run", &elf.display().to_string()], None);
        assert!(!r.timed_out, "{cfg}: run did not end");
        assert_one_line_error(
            cfg,
            &r.out,
            "no device at 0x10000005; this program may need --machine virt",
        );
        assert!(r.out.stdout.is_empty(), "{cfg}");
    }
}

/// The same for `uart_hello.rv64.elf`, whose start-up code installs a trap
/// handler (crt.S's `trap_entry`, which reports through the UART): the
/// handler's own UART access faults again, the nested traps push frames
/// until the stack runs into `.text`, and the hart then traps in the
/// handler forever. fwprof stops that loop (100,000 exceptions at one pc
/// with no trap return between) and names the first access that found no
/// device.
#[test]
fn unmapped_device_with_a_trap_handler_hints_at_machine_virt() {
    if !have_build_tools() {
        return;
    }
    let elf = virt_elf("uart_hello.rv64.elf");
    let r = fwprof_timed(&["run", &elf.display().to_string()], None);
    assert!(!r.timed_out, "the run did not end within {TIMEOUT:?}");
    assert_one_line_error(
        "uart_hello.rv64",
        &r.out,
        "no device at 0x10000005; this program may need --machine virt",
    );
}

/// `--bios` with a firmware of one XLEN and a kernel of the other: a
/// one-line error naming both.
#[test]
fn bios_and_kernel_of_different_xlen_are_refused() {
    if !have_build_tools() {
        return;
    }
    for (fw, kernel, words) in [
        (
            "rv32",
            "rv64",
            "an RV32 firmware and the program an RV64 kernel",
        ),
        (
            "rv64",
            "rv32",
            "an RV64 firmware and the program an RV32 kernel",
        ),
    ] {
        let fw = virt_elf(&format!("rv32_fw.{fw}.elf"));
        let kernel = virt_elf(&format!("rv32_kernel.{kernel}.elf"));
        let r = fwprof_timed(
            &[
                "run",
                "--machine",
                "virt",
                "--bios",
                &fw.display().to_string(),
                &kernel.display().to_string(),
            ],
            None,
        );
        assert!(!r.timed_out);
        assert_one_line_error(words, &r.out, words);
    }
}

/// A kernel linked over the firmware (both at 0x80000000): a one-line
/// error.
#[test]
fn kernel_overlapping_the_firmware_is_refused() {
    if !have_build_tools() {
        return;
    }
    for cfg in CONFIGS {
        let fw = virt_elf(&format!("rv32_fw.{cfg}.elf"));
        let kernel = virt_elf(&format!("uart_hello.{cfg}.elf"));
        let r = fwprof_timed(
            &[
                "run",
                "--machine",
                "virt",
                "--bios",
                &fw.display().to_string(),
                &kernel.display().to_string(),
            ],
            None,
        );
        assert!(!r.timed_out);
        assert_one_line_error(cfg, &r.out, "overlaps the firmware");
    }
}

/// `--machine virt`, `--bios` or `--append` with a Linux program: refused
/// in one line.
#[test]
fn machine_options_on_a_linux_program_are_refused() {
    if !common::require(&[
        "riscv64-linux-gnu-gcc",
        "riscv64-unknown-elf-gcc",
        "riscv64-unknown-elf-objcopy",
    ]) {
        return;
    }
    let linux = common::corpus_elf("strings.rv64-linux.O2.elf");
    let linux = linux.display().to_string();
    let fw = virt_elf("rv32_fw.rv64.elf").display().to_string();
    for opts in [
        &["--machine", "virt"][..],
        &["--bios", &fw],
        &["--append", "console=ttyS0"],
    ] {
        let mut args = vec!["run"];
        args.extend_from_slice(opts);
        args.push(&linux);
        let r = fwprof_timed(&args, None);
        assert!(!r.timed_out);
        assert_one_line_error(
            &opts.join(" "),
            &r.out,
            "--machine, --board, --bios, --append, --load and --harts apply to bare-metal programs",
        );
    }
}

/// The executed-instruction count at every address, the reset ROM's
/// included, against QEMU's (`scripts/qemu-ref.py run --with-rom
/// --serial`, which connects the UART to stdout), for the programs whose
/// run does not depend on host timing: they only transmit (QEMU's THR is
/// empty again at once, as fwprof's) and end through the test device.
/// The echo programs are left out (QEMU's receive timing decides how many
/// polls they make), and `dt_read` (QEMU's tree has more nodes to walk).
#[test]
fn per_address_counts_match_qemu() {
    if !have_build_tools() || !have_qemu() || !common::require(&["python3"]) {
        return;
    }
    let mut failures = Vec::new();
    for program in [
        "uart_hello",
        "exit_pass",
        "exit_fail3",
        "exit_16bit",
        "exit_wide",
    ] {
        for cfg in CONFIGS {
            if program == "exit_wide" && *cfg == "rv32" {
                continue;
            }
            let elf = virt_elf(&format!("{program}.{cfg}.elf"));
            let q = Command::new("python3")
                .arg(common::repo().join("scripts/qemu-ref.py"))
                .args(["run", "--with-rom", "--serial", "--timeout", "60"])
                .arg(&elf)
                .output()
                .expect("qemu-ref.py");
            assert!(q.status.success(), "qemu-ref.py: {}", text(&q.stderr));
            let v: serde_json::Value = serde_json::from_slice(&q.stdout).expect("JSON");
            let theirs = common::qemu_counts(&v);
            let tmp = tempfile::tempdir().unwrap();
            let profile = tmp.path().join("p.fwprof");
            let out = Command::new(common::fwprof())
                .args(["record", "-q", "--machine", "virt", "-o"])
                .arg(&profile)
                .arg(&elf)
                .stdin(std::process::Stdio::null())
                .output()
                .expect("fwprof");
            let p = fwprof_profile::Profile::read(&profile).expect("profile");
            let mut ours: std::collections::BTreeMap<u64, u64> = Default::default();
            for c in p.costs.iter().filter(|c| c.cost[0] > 0) {
                *ours.entry(c.addr).or_default() += c.cost[0];
            }
            let name = format!("{program}.{cfg}");
            if text(&out.stdout) != v["stdout"].as_str().unwrap_or("") {
                failures.push(format!("{name}: stdout differs"));
            }
            if i64::from(out.status.code().unwrap_or(-1)) != v["exit_code"].as_i64().unwrap_or(-2) {
                failures.push(format!("{name}: exit status differs"));
            }
            if ours != theirs {
                let first = theirs
                    .keys()
                    .chain(ours.keys())
                    .find(|a| theirs.get(a) != ours.get(a))
                    .copied()
                    .unwrap_or(0);
                failures.push(format!(
                    "{name}: per-address counts differ (totals qemu {} fwprof {}), first at {first:#x}: qemu {:?} fwprof {:?}",
                    theirs.values().sum::<u64>(),
                    ours.values().sum::<u64>(),
                    theirs.get(&first),
                    ours.get(&first)
                ));
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
