//! Tests of the simulator's environment side: Linux user mode (faults as
//! signals, ecalls), the general execution path, the timing hooks, `wfi`
//! and the machine timer (CLINT), `nanosleep` and modelled time.

use crate::test_asm::*;
use crate::{SimError, StopReason};
use std::sync::atomic::AtomicBool;

/// A Linux user-mode simulator over `words` at `BASE` (environment built
/// directly, no ELF).
pub(crate) fn linux_sim(words: &[u32]) -> crate::Simulator<Rec> {
    use fwprof_os::{Environment, LoadedProgram, RunConfig, Sandbox, Target};
    let cfg = RunConfig {
        program: "prog".into(),
        args: vec![],
        env: vec![],
        target: Some(Target::Linux),
        ram: (0, 0),
        sandbox: Sandbox::default(),
        machine: Default::default(),
    };
    let mut env = Environment::new(&cfg, Target::Linux, true);
    env.capture_console(Vec::new());
    let prog = LoadedProgram {
        target: Target::Linux,
        rv64: true,
        entry: BASE,
        start: BASE,
        sp: DATA,
        regs: [0; 32],
    };
    crate::Simulator::new(memory_with(words), &prog, env, Rec::default())
}

#[test]
fn linux_faults_become_signals() {
    use crate::hart::Privilege;
    let cases: [(Vec<u32>, i32, u64); 5] = [
        (vec![0xffff_ffff], 4, 2),    // illegal instruction: SIGILL
        (vec![EBREAK], 5, 3),         // ebreak: SIGTRAP
        (vec![lw(10, 0, 64)], 11, 5), // unmapped load: SIGSEGV
        (vec![addi(5, 2, 1), amo(0, 2, 10, 5, 0)], 7, 6), // misaligned AMO: SIGBUS
        (vec![csr(2, 10, 0, 0x300)], 4, 2), // mstatus from U-mode: SIGILL
    ];
    for (words, signo, cause) in cases {
        let mut sm = linux_sim(&words);
        assert_eq!(sm.hart().privilege(), Privilege::User);
        let stop = go(&mut sm, 100);
        assert!(
            matches!(stop, StopReason::Signal { signo: s, cause: c, .. } if s == signo && c == cause),
            "{words:x?}: {stop:?}"
        );
    }
}

#[test]
fn linux_ecall_reaches_the_environment() {
    // write(1, msg, 3); exit_group(5)
    let mut sm = linux_sim(&[
        addi(10, 0, 1),
        auipc(11, 0),
        addi(11, 11, 32), // a1 = BASE + 36
        addi(12, 0, 3),
        addi(17, 0, 64),
        ECALL,
        addi(10, 0, 5),
        addi(17, 0, 94),
        ECALL,
        u32::from_le_bytes(*b"hi!\n"),
    ]);
    let stop = go(&mut sm, 100);
    assert_eq!(stop, StopReason::Exit(5));
    assert_eq!(sm.environment().unwrap().captured_output().0, b"hi!");
    assert_eq!(sm.executed(), 9);
    // System calls retire (they complete; only traps do not).
    assert_eq!(sm.hart().retired(), 9);
}

#[test]
fn general_path_instruction_inside_a_full_length_block() {
    // amoadd.d (executed by the general path) early in a block that ends
    // only because it reaches MAX_BLOCK_INSTS: the next block must start
    // after the last instruction, not after the amoadd (a regression: the
    // amoadd's next pc was taken as the block's exit).
    let mut w = Vec::new();
    w.extend(li(5, (DATA - BASE) as i32));
    w.push(auipc(6, 0));
    w.push(add(5, 5, 6)); // t0 = DATA + 8 (auipc ran at BASE + 8)
    w.push(addi(7, 0, 1));
    w.push(amo(0x00, 3, 0, 5, 7)); // amoadd.d x0, t2, (t0)
    while w.len() < crate::MAX_BLOCK_INSTS + 8 {
        w.push(addi(10, 10, 1));
    }
    w.push(ECALL);
    let sm = run_ok(true, &w);
    let adds = (crate::MAX_BLOCK_INSTS + 8 - 6) as u64;
    assert_eq!(sm.hart().x(10), adds);
    assert_eq!(sm.executed(), adds + 7);
    assert_eq!(sm.hooks().sizes[0] as usize, crate::MAX_BLOCK_INSTS);
}

/// Records the timing-model hooks.
#[derive(Default, Debug)]
struct TimingRec {
    mem: Vec<(u32, u64, u8, bool)>,
    branches: Vec<(bool, u64)>,
    operands: Vec<(u32, u64, u64)>,
    cycle_queries: Vec<(u32, u32)>,
}

impl crate::Hooks for TimingRec {
    const WANTS_MEMORY: bool = true;
    const WANTS_BRANCHES: bool = true;
    const WANTS_OPERANDS: bool = true;
    const MODELS_CYCLES: bool = true;
    fn on_mem(&mut self, index: u32, addr: u64, size: u8, write: bool) {
        self.mem.push((index, addr, size, write));
    }
    fn on_branch(&mut self, _id: crate::BlockId, taken: bool, target: u64) {
        self.branches.push((taken, target));
    }
    fn on_operands(&mut self, index: u32, a: u64, b: u64) {
        self.operands.push((index, a, b));
    }
    fn cycles_before(&mut self, id: crate::BlockId, index: u32) -> u64 {
        self.cycle_queries.push((id.0, index));
        1000 + u64::from(index)
    }
}

#[test]
fn timing_hooks_see_accesses_branches_operands_and_supply_cycles() {
    let w = [
        sd(5, 6, 8),             // 0: sd t1, 8(t0)
        ld(7, 5, 8),             // 1: ld t2, 8(t0)
        amo(0x00, 3, 0, 5, 6),   // 2: amoadd.d x0, t1, (t0): read + write
        r(0x33, 1, 0, 10, 6, 7), // 3: sll a0, t1, t2
        r(0x33, 4, 1, 11, 7, 6), // 4: div a1, t2, t1
        b(0, 0, 0, 8),           // 5: beq x0, x0, +8 (taken, skips 6)
        NOP,                     // 6
        csr(2, 12, 0, 0xb00),    // 7: csrr a2, mcycle
        ECALL,
    ];
    let mut sm = crate::Simulator::bare(memory_with(&w), true, BASE, TimingRec::default());
    sm.hart_mut().set_x(5, DATA);
    sm.hart_mut().set_x(6, 3);
    let stop = sm.run(1000, &AtomicBool::new(false)).unwrap();
    assert!(matches!(stop, StopReason::Fault { cause: 11, .. }));
    let h = sm.hooks();
    assert_eq!(
        h.mem,
        vec![
            (0, DATA + 8, 8, true),
            (1, DATA + 8, 8, false),
            (2, DATA, 8, false),
            (2, DATA, 8, true),
        ]
    );
    // t2 = 3 (loaded back): sll 3 << 3, div 3 / 3.
    assert_eq!(h.operands, vec![(3, 3, 3), (4, 3, 3)]);
    assert_eq!(h.branches, vec![(true, BASE + 7 * 4)]);
    // The csrr is instruction 0 of the block after the branch: mcycle reads
    // the model's cycles.
    assert_eq!(h.cycle_queries.len(), 1);
    assert_eq!(h.cycle_queries[0].1, 0);
    assert_eq!(sm.hart().x(12), 1000);
}

/// `lui rd, 0x2004` etc.: the CLINT registers (QEMU 7.2 `virt`).
const MTIMECMP_HI20: u32 = 0x2004;
const MSIP_HI20: u32 = 0x2000;
const MTIME_HI20: u32 = 0x200c; // 0x0200_C000 - 8 = mtime

#[test]
fn wfi_sleeps_until_the_machine_timer() {
    let prog = [
        lui(5, MTIMECMP_HI20), // 0: t0 = &mtimecmp
        addi(6, 0, 1000),      // 1: t1 = 1000
        sd(5, 6, 0),           // 2: mtimecmp = 1000
        addi(7, 0, 0x80),      // 3
        csr(2, 0, 7, 0x304),   // 4: csrs mie, MTIE
        csr(2, 13, 0, 0x344),  // 5: a3 = mip (not pending yet)
        WFI,                   // 6: sleeps until time = 1000
        csr(2, 10, 0, 0xC01),  // 7: a0 = time
        lui(28, MTIME_HI20),   // 8
        ld(11, 28, -8),        // 9: a1 = mtime
        csr(2, 12, 0, 0x344),  // 10: a2 = mip
        csr(2, 14, 0, 0xC02),  // 11: a4 = instret
        ld(15, 5, 0),          // 12: a5 = mtimecmp
        WFI,                   // 13: MTIP pending: no sleep
        ECALL,
    ];
    let sm = run_ok(true, &prog);
    let h = sm.hart();
    // After the wfi, 7 instructions have run: 993 ticks to go.
    assert_eq!(sm.hooks().idles, vec![(993, 7)]);
    assert_eq!(h.idle_ticks(), 993);
    assert_eq!(h.x(13) & 0x80, 0, "MTIP clear before mtimecmp");
    assert_eq!(h.x(10), 1000, "time = 7 retired + 993 asleep");
    assert_eq!(h.x(11), 1002);
    assert_eq!(h.x(12) & 0x80, 0x80, "MTIP pending after the wait");
    assert_eq!(h.x(14), 11, "instret does not count the sleep");
    assert_eq!(h.x(15), 1000);
}

#[test]
fn clint_words_on_rv32_and_msip() {
    let prog = [
        lui(5, MTIMECMP_HI20), // 0
        addi(6, 0, 500),       // 1
        sw(5, 6, 0),           // 2: mtimecmp low = 500
        sw(5, 0, 4),           // 3: mtimecmp high = 0
        addi(7, 0, 0x80),      // 4
        csr(2, 0, 7, 0x304),   // 5: csrs mie, MTIE
        WFI,                   // 6: sleeps 493
        lui(28, MTIME_HI20),   // 7
        lw(10, 28, -8),        // 8: a0 = mtime low = 8 + 493
        lw(11, 28, -4),        // 9: a1 = mtime high
        lui(29, MSIP_HI20),    // 10
        addi(6, 0, 1),         // 11
        sw(29, 6, 0),          // 12: msip = 1
        csr(2, 12, 0, 0x344),  // 13: a2 = mip
        lw(13, 29, 0),         // 14: a3 = msip
        lw(14, 29, 0x100),     // 15: a4 = 0 (unused CLINT word)
        addi(6, 0, -1),        // 16
        sw(28, 6, -8),         // 17: mtime low = 0xffff_ffff
        csr(2, 15, 0, 0xC01),  // 18: a5 = time (low word)
        csr(2, 16, 0, 0xC81),  // 19: a6 = timeh
        ECALL,
    ];
    let sm = run_ok(false, &prog);
    let h = sm.hart();
    assert_eq!(sm.hooks().idles, vec![(493, 7)]);
    assert_eq!((h.x(10), h.x(11)), (501, 0));
    assert_eq!(h.x(12) & 0x88, 0x88, "MSIP and MTIP pending");
    assert_eq!((h.x(13), h.x(14)), (1, 0));
    // mtime written to 0xffff_ffff one instruction before the read.
    assert_eq!(h.x(15) as u32, 0);
    assert_eq!(h.x(16), 1);
}

#[test]
fn wfi_that_cannot_end_or_would_trap_is_an_error() {
    // Nothing enabled in mie: QEMU would wait forever.
    let mut sm = sim(true, &[NOP, WFI, ECALL]);
    let err = sm.run(1000, &AtomicBool::new(false)).unwrap_err();
    assert!(
        matches!(err, SimError::Wfi { pc, .. } if pc == BASE + 4),
        "{err}"
    );
    assert!(err.to_string().contains("sleep forever"), "{err}");
    // mstatus.MIE set: the wait ends in the timer interrupt, taken with
    // mepc after the wfi; the handler (at BASE + 0x40) reads mcause.
    let mut prog = vec![
        lui(5, MTIMECMP_HI20),
        addi(6, 0, 100),
        sd(5, 6, 0),
        addi(7, 0, 0x80),
        csr(2, 0, 7, 0x304), // csrs mie, MTIE
        auipc(8, 0),
        addi(8, 8, 0x40 - 5 * 4),
        csr(1, 0, 8, 0x305), // csrw mtvec, s0
        csr(6, 0, 8, 0x300), // csrsi mstatus, MIE
        WFI,
        ECALL,
    ];
    prog.resize(16, NOP);
    prog.extend([
        csr(2, 10, 0, 0x342), // csrr a0, mcause
        csr(2, 11, 0, 0x341), // csrr a1, mepc
        csr(1, 0, 0, 0x305),  // csrw mtvec, zero: the ecall stops the run
        ECALL,
    ]);
    let mut sm = sim(true, &prog);
    let stop = sm.run(1000, &AtomicBool::new(false)).unwrap();
    assert!(
        matches!(stop, StopReason::Fault { cause: 11, .. }),
        "{stop:?}"
    );
    assert_eq!(sm.hart().x(10), 1 << 63 | 7, "mcause: machine timer");
    assert_eq!(sm.hart().x(11), BASE + 10 * 4, "mepc: after the wfi");
    let t = sm.hooks().traps[0];
    assert!(
        t.interrupt && t.cause == 7 && t.handler == BASE + 0x40,
        "{t:?}"
    );
    assert_eq!(t.latency.map(|l| l.instructions), Some(0));
    // mtimecmp = all ones: the timer is off, the wait would never end.
    let prog = [
        lui(5, MTIMECMP_HI20),
        addi(6, 0, -1),
        sd(5, 6, 0),
        addi(7, 0, 0x80),
        csr(2, 0, 7, 0x304),
        WFI,
        ECALL,
    ];
    let mut sm = sim(true, &prog);
    let err = sm.run(1000, &AtomicBool::new(false)).unwrap_err();
    assert!(
        err.to_string()
            .contains("with MTIE enabled and mtimecmp 0xffffffffffffffff never reached"),
        "{err}"
    );
    // Other widths, or outside the CLINT, still fault.
    let (_, stop) = run(
        true,
        &[lui(5, MTIMECMP_HI20), r(0x03, 1, 0, 10, 5, 0), ECALL],
    );
    assert!(
        matches!(
            stop,
            StopReason::Fault {
                cause: 5,
                tval: 0x0200_4000,
                ..
            }
        ),
        "{stop:?}"
    );
    let (_, stop) = run(true, &[lui(5, 0x2010), ld(10, 5, 0), ECALL]);
    assert!(
        matches!(stop, StopReason::Fault { cause: 5, .. }),
        "{stop:?}"
    );
}

#[test]
fn linux_nanosleep_sleeps_in_guest_time() {
    // The timespecs live at BASE + 0x100: {0, 1_000_050} (1 ms + 50 ns),
    // {0, 1_000_000_000} (invalid), then clock_nanosleep(CLOCK_MONOTONIC,
    // 0, {2, 0}); an unreadable request at address 8.
    let mut words = vec![
        auipc(10, 0),        // 0
        addi(10, 10, 0x100), // 1: a0 = BASE + 0x100
        addi(11, 0, 0),
        addi(17, 0, 101), // nanosleep
        ECALL,            // 4: sleeps 10_001 ticks
        addi(18, 10, 0),  // s2 = result
        auipc(10, 0),     // 6: BASE + 24
        addi(10, 10, 0x110 - 24),
        addi(17, 0, 101),
        ECALL, // 9: EINVAL
        addi(19, 10, 0),
        addi(10, 0, 8),
        ECALL, // 12: EFAULT
        addi(20, 10, 0),
        addi(10, 0, 1), // CLOCK_MONOTONIC
        addi(11, 0, 0),
        auipc(12, 0), // 16: BASE + 64
        addi(12, 12, 0x120 - 64),
        addi(17, 0, 115), // clock_nanosleep
        ECALL,            // 19: sleeps 2 s
        addi(21, 10, 0),
        addi(10, 0, 0),
        addi(17, 0, 94),
        ECALL,
    ];
    words.resize(0x40, NOP);
    words.extend([0, 0, 1_000_050, 0]);
    words.extend([0, 0, 1_000_000_000, 0]);
    words.extend([2, 0, 0, 0]);
    let mut sm = linux_sim(&words);
    assert_eq!(go(&mut sm, 1000), StopReason::Exit(0));
    let h = sm.hart();
    assert_eq!(h.x(18), 0);
    assert_eq!(h.x(19) as i64, -22, "EINVAL");
    assert_eq!(h.x(20) as i64, -14, "EFAULT");
    assert_eq!(h.x(21), 0);
    assert_eq!(sm.hooks().idles, vec![(10_001, 5), (20_000_000, 20)]);
    assert_eq!(h.idle_ticks(), 20_010_001);
}

/// A timing model of three cycles per instruction.
#[derive(Default)]
struct ThreeCpi {
    block_start: u64,
    idles: Vec<u64>,
}

impl crate::Hooks for ThreeCpi {
    const MODELS_CYCLES: bool = true;
    fn on_block_exec(&mut self, _id: crate::BlockId, executed: u64) {
        self.block_start = executed;
    }
    fn cycles_before(&mut self, _id: crate::BlockId, index: u32) -> u64 {
        3 * (self.block_start + u64::from(index))
    }
    fn on_idle(&mut self, ticks: u64, _executed: u64) {
        self.idles.push(ticks);
    }
}

#[test]
fn with_a_core_model_time_counts_modelled_cycles() {
    let prog = [
        lui(5, MTIMECMP_HI20),
        addi(6, 0, 300),
        sd(5, 6, 0), // mtimecmp = 300
        addi(7, 0, 0x80),
        csr(2, 0, 7, 0x304),  // 4: csrs mie, MTIE (ends a block)
        WFI,                  // 5: after it, 6 instructions = 18 cycles
        csr(2, 10, 0, 0xC01), // 6: a0 = time
        csr(2, 11, 0, 0xC00), // 7: a1 = cycle (no sleep in it)
        lui(28, MTIME_HI20),
        ld(12, 28, -8), // 9: a2 = mtime
        ECALL,
    ];
    let mut sm = crate::Simulator::bare(memory_with(&prog), true, BASE, ThreeCpi::default());
    let stop = sm.run(1000, &AtomicBool::new(false)).unwrap();
    assert!(
        matches!(stop, StopReason::Fault { cause: 11, .. }),
        "{stop:?}"
    );
    assert_eq!(sm.hooks().idles, vec![282]);
    let h = sm.hart();
    assert_eq!(h.x(10), 300, "the hart wakes when time reaches mtimecmp");
    assert_eq!(h.x(11), 21);
    assert_eq!(h.x(12), 3 * 9 + 282);
}

#[test]
fn a_spin_on_a_masked_interrupt_is_diagnosed() {
    // mtimecmp = 50, MTIE set, mstatus.MIE clear, then spin: the timer
    // interrupt becomes pending and enabled but is never taken.
    let prog = [
        lui(5, MTIMECMP_HI20),
        addi(6, 0, 50),
        sd(5, 6, 0),
        addi(7, 0, 0x80),
        csr(2, 0, 7, 0x304), // csrs mie, MTIE
        jal(0, 0),           // spin
    ];
    let mut sm = sim(true, &prog);
    assert_eq!(go(&mut sm, 1000), StopReason::InstructionLimit);
    let d = sm.interrupt_diagnosis().expect("a diagnosis");
    assert!(
        d.contains("machine timer interrupt pending and enabled in mie, but mstatus.MIE is clear"),
        "{d}"
    );
    // MIE set but MTIE not: the line is up, mie does not enable it.
    let prog = [
        lui(5, MTIMECMP_HI20),
        addi(6, 0, 50),
        sd(5, 6, 0),
        csr(6, 0, 8, 0x300), // csrsi mstatus, MIE
        jal(0, 0),
    ];
    let mut sm = sim(true, &prog);
    assert_eq!(go(&mut sm, 1000), StopReason::InstructionLimit);
    let d = sm.interrupt_diagnosis().expect("a diagnosis");
    assert!(d.contains("mie does not enable it"), "{d}");
    // A plain spin with no timer programmed: nothing to say.
    let mut sm = sim(true, &[jal(0, 0)]);
    assert_eq!(go(&mut sm, 1000), StopReason::InstructionLimit);
    assert_eq!(sm.interrupt_diagnosis(), None);
}

#[test]
fn a_board_moves_the_clint_ignores_unmodelled_addresses_and_faults_on_flash_stores() {
    use fwprof_os::{
        Board, Device, DeviceKind, Environment, LoadedProgram, Perm, RunConfig, Target, Unmodelled,
    };
    let mut board = Board::bare();
    board.devices = vec![Device {
        kind: DeviceKind::Clint,
        name: "clint".into(),
        base: 0x4000_0000,
        size: 0x1_0000,
        irq: None,
    }];
    board.unmodelled = Unmodelled::Ignore;
    let cfg = RunConfig {
        program: "prog".into(),
        args: vec![],
        env: vec![],
        target: Some(Target::BareMetal),
        ram: (0, 0),
        sandbox: Default::default(),
        machine: fwprof_os::MachineConfig {
            board,
            ..Default::default()
        },
    };
    // RV32: `lui` of 0x90000 is not sign-extended past bit 31.
    let env = Environment::new(&cfg, Target::BareMetal, false);
    let mut mem = memory_with(&[
        lui(5, 0x40004),  // t0 = the moved CLINT's mtimecmp
        addi(6, 0, 500),  //
        sw(5, 6, 0),      // mtimecmp low = 500
        lw(10, 5, 0),     // a0 = 500
        lui(7, 0x50000),  // t2 = an unmodelled address
        addi(11, 0, 7),   //
        lw(11, 7, 0),     // a1 = 0 (read ignored)
        sw(7, 6, 4),      // dropped
        sw(7, 6, 4),      // dropped
        lui(28, 0x90000), // t3 = read-only memory ("flash")
        lw(12, 28, 0),    // a2 = 0: it reads
        sw(28, 6, 0),     // store access fault: memory, not a device
        NOP,
    ]);
    let ro = Perm {
        read: true,
        write: false,
        exec: true,
    };
    fwprof_os::GuestMemory::map(&mut mem, 0x9000_0000, 0x1000, ro).unwrap();
    let prog = LoadedProgram {
        target: Target::BareMetal,
        rv64: false,
        entry: BASE,
        start: BASE,
        sp: 0,
        regs: [0; 32],
    };
    let mut sm = crate::Simulator::new(mem, &prog, env, Rec::default());
    let stop = go(&mut sm, 100);
    assert!(
        matches!(
            stop,
            StopReason::Fault {
                cause: 7,
                tval: 0x9000_0000,
                ..
            }
        ),
        "{stop:?}"
    );
    let h = sm.hart();
    assert_eq!((h.x(10), h.x(11), h.x(12)), (500, 0, 0));
    let seen: Vec<(u64, u64, u64)> = sm
        .unmodelled_accesses()
        .into_iter()
        .map(|(a, c)| (a, c.reads, c.writes))
        .collect();
    assert_eq!(seen, vec![(0x5000_0000, 1, 0), (0x5000_0004, 0, 2)]);
}
