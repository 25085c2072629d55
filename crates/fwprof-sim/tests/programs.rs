//! Whole programs through `fwprof_os::load` and the simulator, checked
//! against QEMU 7.2 (exit status, console output and the number of executed
//! instructions from `-singlestep -d nochain,exec`; see `data/build.sh`).

use fwprof_os::{RunConfig, Sandbox, Target};
use fwprof_sim::{Memory, Simulator, StopReason};
use std::path::PathBuf;
use std::sync::atomic::AtomicBool;

fn data(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data")
        .join(name)
}

/// Load and run `name` with the console captured; returns the stop reason,
/// stdout, the executed-instruction count and the target. The program name
/// the guest sees (semihosting command line, which picolibc's crt0 parses)
/// is the bare file name, as QEMU saw it in the reference run.
fn run(name: &str, single_step: bool, target: Option<Target>) -> (StopReason, String, u64, Target) {
    let elf = std::fs::read(data(name)).unwrap();
    let cfg = RunConfig {
        program: PathBuf::from(name),
        args: vec![],
        env: vec![],
        target,
        ram: (0x8000_0000, 128 << 20),
        sandbox: Sandbox::default(),
    };
    let mut mem = Memory::new();
    let (prog, mut env) = fwprof_os::load(&elf, &cfg, &mut mem).unwrap();
    env.capture_console(Vec::new());
    let mut sim = Simulator::new(mem, &prog, env, ());
    sim.set_single_step(single_step);
    let stop = sim.run(10_000_000, &AtomicBool::new(false)).unwrap();
    let out = String::from_utf8_lossy(sim.environment().unwrap().captured_output().0).into_owned();
    (stop, out, sim.executed(), sim.target())
}

#[test]
fn bare_metal_rv64_picolibc_program_matches_qemu() {
    let (stop, out, n, target) = run("bare64.elf", false, None);
    assert_eq!(target, Target::BareMetal);
    assert_eq!(stop, StopReason::Exit(106));
    assert_eq!(out, "fib=610 acc=12.968444 q=-3 r=-1\n");
    // QEMU: 26450 trace lines, 6 of them in the reset ROM that the loader's
    // initial registers stand in for.
    assert_eq!(n, 26444);
}

#[test]
fn bare_metal_rv32_picolibc_program_matches_qemu() {
    let (stop, out, n, _) = run("bare32.elf", false, None);
    assert_eq!(stop, StopReason::Exit(106));
    assert_eq!(out, "fib=610 acc=12.968444 q=-3 r=-1\n");
    assert_eq!(n, 32167);
}

#[test]
fn single_step_gives_the_same_run() {
    let (stop, out, n, _) = run("bare64.elf", true, None);
    assert_eq!(stop, StopReason::Exit(106));
    assert_eq!(out, "fib=610 acc=12.968444 q=-3 r=-1\n");
    assert_eq!(n, 26444);
}

#[test]
fn linux_user_program_makes_system_calls() {
    // A `-nostdlib` program has no ABI note, so it is run as Linux explicitly.
    let (stop, out, n, target) = run("linux64.elf", false, Some(Target::Linux));
    assert_eq!(target, Target::Linux);
    assert_eq!(stop, StopReason::Exit(30));
    assert_eq!(out, "hello\n");
    assert_eq!(n, 50);
}
