//! Speed of the bare run loop with a simple counting hook (a bench binary,
//! `cargo bench -p fwprof-sim`): a hand-assembled RV64 loop of ALU ops, a
//! store, a load and a branch. Prints guest MIPS.

use fwprof_isa::Inst;
use fwprof_os::{GuestMemory, Perm};
use fwprof_sim::{BlockId, Hooks, Memory, Simulator, StopReason};
use std::sync::atomic::AtomicBool;
use std::time::Instant;

/// Counts executed instructions from block events (as a real exact-count
/// collector does).
#[derive(Default)]
struct Counter {
    sizes: Vec<u32>,
    executed: u64,
}

impl Hooks for Counter {
    fn on_block_translated(&mut self, _id: BlockId, _pcs: &[u64], insts: &[Inst]) {
        self.sizes.push(insts.len() as u32);
    }
    fn on_cache_flush(&mut self) {
        self.sizes.clear();
    }
    #[inline]
    fn on_block_exec(&mut self, id: BlockId, _executed: u64) {
        self.executed += self.sizes[id.0 as usize] as u64;
    }
    fn on_block_cut(&mut self, id: BlockId, executed: u32) {
        self.executed -= (self.sizes[id.0 as usize] - executed) as u64;
    }
}

const BASE: u64 = 0x8000_0000;

fn program() -> Vec<u32> {
    vec![
        0x0015_0513, // loop: addi a0, a0, 1
        0x00a5_85b3, //       add  a1, a1, a0
        0x00b6_4633, //       xor  a2, a2, a1
        0x00c1_2023, //       sw   a2, 0(sp)
        0x0001_2683, //       lw   a3, 0(sp)
        0x0036_9713, //       slli a4, a3, 3
        0x40c7_07b3, //       sub  a5, a4, a2
        0xfff2_8293, //       addi t0, t0, -1
        0xfe02_90e3, //       bne  t0, zero, loop
        0x0000_0073, //       ecall
    ]
}

/// CPU time this thread has run, in seconds (Linux `schedstat`), so the
/// figure is not distorted by other processes on a shared machine.
fn thread_cpu_secs() -> Option<f64> {
    let s = std::fs::read_to_string("/proc/thread-self/schedstat").ok()?;
    let ns: u64 = s.split_whitespace().next()?.parse().ok()?;
    Some(ns as f64 / 1e9)
}

/// Returns (wall-clock MIPS, CPU-time MIPS, instructions).
fn run(iterations: u64, rv64: bool) -> (f64, Option<f64>, u64) {
    let mut mem = Memory::new();
    mem.map(
        BASE,
        0x10000,
        Perm {
            read: true,
            write: true,
            exec: true,
        },
    )
    .unwrap();
    let bytes: Vec<u8> = program().iter().flat_map(|w| w.to_le_bytes()).collect();
    mem.write(BASE, &bytes).unwrap();
    let mut sim = Simulator::bare(mem, rv64, BASE, Counter::default());
    sim.hart_mut().set_x(5, iterations);
    sim.hart_mut().set_x(2, BASE + 0x8000);
    let t = Instant::now();
    let cpu0 = thread_cpu_secs();
    let stop = sim.run(u64::MAX, &AtomicBool::new(false)).unwrap();
    let secs = t.elapsed().as_secs_f64();
    let cpu = thread_cpu_secs().zip(cpu0).map(|(b, a)| b - a);
    assert!(
        matches!(stop, StopReason::Fault { cause: 11, .. }),
        "{stop:?}"
    );
    assert_eq!(sim.hooks().executed, sim.executed());
    assert_eq!(sim.executed(), iterations * 9 + 1);
    let n = sim.executed() as f64;
    (n / secs / 1e6, cpu.map(|c| n / c / 1e6), sim.executed())
}

fn main() {
    let iterations: u64 = std::env::var("FWPROF_BENCH_ITERS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(40_000_000);
    for (name, rv64) in [("rv64", true), ("rv32", false)] {
        let (wall, cpu, n) = run(iterations, rv64);
        let cpu = cpu.map_or("n/a".to_string(), |c| format!("{c:.0}"));
        println!("sim_speed {name}: {n} instructions, {wall:.0} MIPS wall-clock, {cpu} MIPS of thread CPU time");
    }
}
