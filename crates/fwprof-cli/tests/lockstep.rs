//! Lock-step comparison with QEMU 7.2: after every instruction of small
//! corpus programs, fwprof's integer and floating-point registers and next PC
//! must equal QEMU's (`scripts/qemu-ref.py regs`, from `-d nochain,exec,cpu,fpu`),
//! so a wrong result is caught at the instruction that made it.
//!
//! Both execution tiers are compared, side by side on the same QEMU
//! trace: the interpreter, and the translation tier with every block
//! translated before its first execution (`--tier jit --jit-threshold 0`).
//!
//! rv32 integer registers are compared as 32-bit values (QEMU prints them
//! that way; fwprof keeps them sign-extended); f registers as QEMU's 64-bit
//! view (NaN-boxed singles).

mod common;

use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Command, Stdio};
use std::sync::atomic::AtomicBool;

use fwprof_os::{RunConfig, Sandbox};
use fwprof_sim::{Memory, Simulator, StopReason, Tier};

/// Instructions compared per program (QEMU's register trace is ~1.5 KB per instruction).
const LIMIT: u64 = 40_000;

fn lockstep(name: &str) {
    lockstep_elf(name, &common::corpus_elf(name), None, LIMIT);
}

/// Lock-step on `src` (named `name`); with `shift`, QEMU runs with
/// `-icount shift=N,sleep=off` and fwprof with the same clock, so
/// interrupts arrive between the same two instructions: after the
/// instruction before the interrupt, both stand at the interrupted pc;
/// the next step takes the interrupt and runs the handler's first
/// instruction.
fn lockstep_elf(name: &str, src: &Path, shift: Option<u32>, limit: u64) {
    let tmp = tempfile::tempdir().unwrap();
    let elf = tmp.path().join(name);
    std::fs::copy(src, &elf).unwrap();
    let mut qemu_args = vec!["regs".to_string(), "--limit".into(), limit.to_string()];
    if let Some(n) = shift {
        qemu_args.extend(["--icount-shift".into(), n.to_string()]);
    }
    let mut child = Command::new("python3")
        .arg(common::repo().join("scripts/qemu-ref.py"))
        .args(&qemu_args)
        .arg("--cwd")
        .arg(tmp.path())
        .arg(&elf)
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("qemu-ref.py");
    let reader = BufReader::new(child.stdout.take().unwrap());

    let bytes = std::fs::read(&elf).unwrap();
    let cfg = RunConfig {
        // As qemu-ref.py runs it: argv[0] is the absolute path (Linux), the
        // semihosting command line starts with the base name (bare metal).
        program: if name.contains("linux") {
            elf.clone()
        } else {
            Path::new(name).to_path_buf()
        },
        args: vec![],
        env: vec!["PATH=/usr/bin:/bin".into(), "LANG=C.UTF-8".into()],
        target: None,
        ram: (0x8000_0000, 128 << 20),
        sandbox: Sandbox {
            read: vec![tmp.path().canonicalize().unwrap()],
            write: vec![],
        },
        machine: Default::default(),
    };
    let never = AtomicBool::new(false);
    // Both execution tiers step along the same QEMU trace: the interpreter,
    // and the translation tier translating every block before it runs.
    let mut sims = Vec::new();
    let mut loaded = None;
    for tier in [Tier::Interp, Tier::Jit] {
        let mut mem = Memory::new();
        let (prog, mut env) = fwprof_os::load(&bytes, &cfg, &mut mem).expect("load");
        // qemu-ref.py gives QEMU pipes for stdout and stderr; glibc looks at
        // them with fstat, so fwprof's guest must see pipes too, whatever the
        // test harness's own stdout is.
        env.capture_console(Vec::new());
        let mut sim = Simulator::new(mem, &prog, env, ());
        sim.set_single_step(true);
        sim.set_tier(tier, 0);
        if let Some(n) = shift {
            sim.set_icount_shift(n);
        }
        // qemu-ref.py's records start at the entry, after the reset ROM's six
        // instructions (which fwprof runs too, from 0x1000).
        while sim.hart().pc != prog.entry && sim.executed() < 16 {
            sim.run(sim.executed() + 1, &never).expect("reset ROM");
        }
        sims.push((tier, sim));
        loaded = Some(prog);
    }
    let prog = loaded.expect("loaded");
    let mask = if prog.rv64 { u64::MAX } else { 0xffff_ffff };
    let mut compared = 0u64;
    let mut after_irq = false;
    let mut irqs = 0u64;
    for line in reader.lines() {
        let line = line.unwrap();
        let v: serde_json::Value = serde_json::from_str(&line).unwrap();
        let Some(i) = v.get("i").and_then(|i| i.as_u64()) else {
            break;
        };
        let mut finished = false;
        for (tier, sim) in sims.iter_mut() {
            let name = &format!("{name} (--tier {tier:?})");
            let random = sim
                .environment()
                .and_then(|e| e.stack_layout())
                .map(|l| l.random);
            let pc_before = sim.hart().pc;
            // After a record with `irq`, QEMU's next record is the handler's
            // first instruction; fwprof stands at the interrupted pc and takes
            // the interrupt when the next step starts (the registers after that
            // step are compared as usual).
            if !after_irq {
                assert_eq!(
                    pc_before & mask,
                    v["pc"].as_u64().unwrap(),
                    "{name}: instruction {i}: pc differs"
                );
            }
            let a7 = sim.hart().x(17);
            let mut word = [0u8; 4];
            let is_ecall = sim.memory().peek(pc_before, &mut word).is_some()
                && u32::from_le_bytes(word) == 0x0000_0073;
            // Loads from the 16 AT_RANDOM bytes: QEMU fills them randomly on every
            // run; give fwprof's copy the byte QEMU's load returned.
            let inst = fwprof_isa::decode(
                u32::from_le_bytes(word),
                if prog.rv64 {
                    fwprof_isa::Xlen::Rv64
                } else {
                    fwprof_isa::Xlen::Rv32
                },
            );
            let random_load = match (inst.op, random) {
                (fwprof_isa::Op::Lbu | fwprof_isa::Op::Lb, Some(r)) => {
                    let addr = sim.hart().x(inst.rs1).wrapping_add(inst.imm as i64 as u64);
                    (r..r + 16).contains(&addr).then_some((addr, inst.rd))
                }
                _ => None,
            };
            if let Some((addr, rd)) = random_load {
                let q = v["x"][rd as usize].as_u64().unwrap();
                fwprof_os::GuestMemory::write(sim.memory_mut(), addr, &[q as u8]).unwrap();
            }
            let stop = sim.run(sim.executed() + 1, &never).expect("run");
            // Process ids differ between the QEMU process and fwprof's: after
            // set_tid_address/getpid/getppid/gettid, take QEMU's value and go on.
            if is_ecall
                && prog.target == fwprof_os::Target::Linux
                && matches!(a7, 96 | 172 | 173 | 178)
            {
                let q = v["x"][10].as_u64().unwrap();
                sim.hart_mut().set_x(10, q);
            }
            let stopped = !matches!(stop, StopReason::InstructionLimit);
            let h = sim.hart();
            let x: Vec<u64> = v["x"]
                .as_array()
                .unwrap()
                .iter()
                .map(|r| r.as_u64().unwrap())
                .collect();
            let f: Vec<u64> = v["f"]
                .as_array()
                .unwrap()
                .iter()
                .map(|r| r.as_u64().unwrap())
                .collect();
            for r in 0..32 {
                assert_eq!(
                    h.xs()[r] & mask,
                    x[r],
                    "{name}: after instruction {i} at {pc_before:#x}: x{r} fwprof {:#x} qemu {:#x}",
                    h.xs()[r] & mask,
                    x[r]
                );
                assert_eq!(
                    h.fs_raw()[r],
                    f[r],
                    "{name}: after instruction {i} at {pc_before:#x}: f{r} fwprof {:#x} qemu {:#x}",
                    h.fs_raw()[r],
                    f[r]
                );
            }
            if !stopped {
                assert_eq!(
                    h.pc & mask,
                    v["next_pc"].as_u64().unwrap(),
                    "{name}: after instruction {i}: next pc differs"
                );
            }
            finished |= !matches!(stop, StopReason::InstructionLimit);
        }
        after_irq = v.get("irq").is_some_and(|q| !q.is_null());
        irqs += u64::from(after_irq);
        compared += 1;
        // qemu-ref.py lets QEMU run to the end after the last record: stop reading here.
        if finished || compared >= limit {
            break;
        }
    }
    let _ = child.kill();
    let _ = child.wait();
    for (tier, sim) in &sims {
        if *tier == Tier::Jit {
            let translated = sim.jit_stats().executed;
            assert!(
                translated as f64 >= 0.99 * sim.executed() as f64,
                "{name}: only {translated} of {} instructions ran as translated code",
                sim.executed()
            );
        }
    }
    assert!(
        compared > 1000,
        "{name}: only {compared} instructions compared"
    );
    if shift.is_some() {
        assert!(
            irqs > 0,
            "{name}: no interrupt among the {compared} instructions"
        );
    }
    eprintln!("{name}: {compared} instructions in lock-step, {irqs} interrupts");
}

macro_rules! lockstep_tests {
    ($($test:ident => $elf:expr),* $(,)?) => {$(
        #[test]
        fn $test() {
            if common::require(&["qemu-system-riscv32", "qemu-system-riscv64", "qemu-riscv64", "python3"]) {
                lockstep($elf);
            }
        }
    )*};
}

lockstep_tests! {
    int_edge_rv32imac => "int_edge.rv32imac.O2.elf",
    int_edge_rv64gc => "int_edge.rv64gc.O0.elf",
    fp_edge_rv32imafdc => "fp_edge.rv32imafdc.O2.elf",
    fp_edge_rv64gc => "fp_edge.rv64gc.O2.elf",
    atomics_rv64gc => "atomics.rv64gc.O2.elf",
    atomics_rv32imafdc => "atomics.rv32imafdc.O0.elf",
    isa_all_rv64gc => "isa_all.rv64gc.O2.elf",
    isa_all_rv32imafdc => "isa_all.rv32imafdc.O2.elf",
    libm_rv64_linux => "libm.rv64-linux.O2.elf",
    bitmanip_rv64gc_zb => "bitmanip.rv64gc-zb.O2.elf",
    bitmanip_rv32imac_zb => "bitmanip.rv32imac-zb.O2.elf",
    sha256_rv64_linux_zb => "sha256.rv64-linux-zb.O2.elf",
}

/// The interrupt programs of `tests/firmware` (issue 13), in lock-step with
/// deterministic time: picolibc's start-up takes about 38,000
/// instructions, so 120,000 are compared, and each test asserts that
/// interrupts were taken among them.
macro_rules! lockstep_firmware {
    ($($test:ident => $elf:expr, $shift:expr),* $(,)?) => {$(
        #[test]
        fn $test() {
            if common::require(&["qemu-system-riscv32", "qemu-system-riscv64", "python3"]) {
                lockstep_elf($elf, &common::firmware_elf($elf), Some($shift), 120_000);
            }
        }
    )*};
}

lockstep_firmware! {
    firmware_soft_irq_rv64 => "soft_irq.rv64.elf", 0,
    firmware_timer_wfi_rv32 => "timer_wfi.rv32.elf", 0,
    firmware_nested_rv64 => "nested.rv64.elf", 3,
    firmware_deleg_rv32 => "deleg.rv32.elf", 0,
}
