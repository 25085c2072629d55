//! The plain option structs of a recording session (no argument-parser
//! types: the command line converts its arguments into these).

use std::path::PathBuf;

use fwprof_os::Target;

/// How to run the program: what `fwprof run` and `fwprof record` share.
#[derive(Clone, Debug)]
pub struct ExecOptions {
    /// The RISC-V ELF program, as the user named it (`argv[0]`).
    pub program: PathBuf,
    /// Arguments after the program.
    pub args: Vec<String>,
    /// The guest environment in order (`KEY=VALUE`), e.g. from
    /// [`guest_env`].
    pub env: Vec<String>,
    /// Force bare metal or Linux user mode instead of detecting it from the ELF.
    pub target: Option<Target>,
    /// Bare-metal RAM: base and size in bytes (unused on a board whose
    /// memory regions the board file gives, `fwprof_os::Board::memory`).
    pub ram: (u64, u64),
    /// Most guest memory mapped at once, in bytes (`None`:
    /// [`default_max_memory`]); a request beyond it fails with `ENOMEM`.
    pub max_memory: Option<u64>,
    /// Directories the guest may read (empty: the current directory).
    pub allow_read: Vec<PathBuf>,
    /// Directories the guest may create and write files in.
    pub allow_write: Vec<PathBuf>,
    /// Stop after this many executed instructions.
    pub max_instructions: Option<u64>,
    /// Guest time as QEMU's `-icount shift=N,sleep=off`: one instruction
    /// is 2^N ns (0..=10), so interrupts arrive at the instruction they
    /// arrive at under QEMU (`None`: one retired instruction, or modelled
    /// cycle, per 100 ns).
    pub icount_shift: Option<u32>,
    /// Bare metal: the machine (`--machine virt`: QEMU's `virt` board with
    /// its devices and device tree; `--board FILE.toml`: a board file's
    /// memory, devices and peripherals; default [`fwprof_os::Board::bare`]).
    pub board: fwprof_os::Board,
    /// Bare metal: M-mode firmware started first, the program being the
    /// kernel it hands over to (`--bios FILE`, as QEMU's `-bios`).
    pub bios: Option<PathBuf>,
    /// Bare metal: the device tree's `/chosen/bootargs` (`--append`).
    pub append: Option<String>,
    /// Bare metal: images written into memory after the program
    /// (`--load FILE@ADDR`, a raw binary; `--load FILE`, Intel HEX), in
    /// order.
    pub load: Vec<fwprof_os::LoadSpec>,
    /// Bare metal: the next stage's address in the reset ROM's
    /// `fw_dynamic_info` when it is not the program's entry (a raw kernel
    /// given with `--kernel-addr`, loaded by `load`).
    pub kernel_entry: Option<u64>,
    /// Bare metal: the number of harts (`--harts`, 1 to
    /// [`fwprof_os::MAX_HARTS`]), running in turns of `quantum`
    /// instructions.
    pub harts: u32,
    /// Instructions each hart runs per turn (`--quantum`; `None`: the
    /// simulator's default, `fwprof_sim::DEFAULT_QUANTUM`).
    pub quantum: Option<u64>,
    /// The execution engine (`--tier`; default translated code,
    /// [`fwprof_sim::Tier::Jit`]).
    pub tier: fwprof_sim::Tier,
    /// Times a block is interpreted before it is translated
    /// (`--jit-threshold`; default [`fwprof_sim::DEFAULT_JIT_THRESHOLD`]).
    pub jit_threshold: u32,
}

impl ExecOptions {
    /// Options to run `program` with no arguments, an empty environment,
    /// the default RAM (`0x80000000`, 128 MiB) and memory limit, reading
    /// only the current directory.
    pub fn new(program: impl Into<PathBuf>) -> ExecOptions {
        ExecOptions {
            program: program.into(),
            args: Vec::new(),
            env: Vec::new(),
            target: None,
            ram: (0x8000_0000, 128 << 20),
            max_memory: None,
            allow_read: Vec::new(),
            allow_write: Vec::new(),
            max_instructions: None,
            icount_shift: None,
            board: fwprof_os::Board::bare(),
            bios: None,
            append: None,
            load: Vec::new(),
            kernel_entry: None,
            harts: 1,
            quantum: None,
            tier: fwprof_sim::Tier::default(),
            jit_threshold: fwprof_sim::DEFAULT_JIT_THRESHOLD,
        }
    }
}

/// What a sampling period or an instrumented duration counts.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Unit {
    /// Retired instructions.
    Instructions,
    /// Modelled cycles (needs a core model).
    Cycles,
}

impl Unit {
    /// The unit's event name: `instructions` or `cycles`.
    pub fn event(self) -> &'static str {
        match self {
            Unit::Instructions => fwprof_profile::events::INSTRUCTIONS,
            Unit::Cycles => fwprof_profile::events::CYCLES,
        }
    }
}

/// `--method sample`: periodic pc and stack samples.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SampleOptions {
    /// Mean number of units between samples (at least 1).
    pub period: u64,
    /// What the period counts.
    pub unit: Unit,
    /// Draw each period uniformly from 1 to 2·period−1.
    pub jitter: bool,
    /// Seed of the jitter generator.
    pub seed: u64,
    /// Count the period in instructions retired in these privilege levels
    /// only (bit `Privilege::bits()` of each: 1 U, 2 S, 8 M; `None`: all
    /// instructions), as perf's `:u`/`:k` event modifiers or a counter's
    /// Sscofpmf inhibit bits do. Only with [`Unit::Instructions`].
    pub count_in: Option<u8>,
}

impl SampleOptions {
    /// The period's unit as the profile records it: `instructions`, or
    /// with [`SampleOptions::count_in`] perf's notation of the levels
    /// counted (`instructions:u`, `instructions:su`, ...).
    pub fn unit_name(&self) -> String {
        let mut name = self.unit.event().to_string();
        if let Some(levels) = self.count_in {
            name.push(':');
            for (bit, letter) in [(1u8, 'u'), (2, 's'), (8, 'm')] {
                if levels & bit != 0 {
                    name.push(letter);
                }
            }
        }
        name
    }
}

/// `--method instrument`: the program's compiled-in function hooks.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct InstrumentOptions {
    /// What durations count.
    pub unit: Unit,
    /// Shell-style patterns (`*`, `?`) of functions left out.
    pub exclude: Vec<String>,
}

/// How `--method counters` measures a function or region.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum RegionMode {
    /// Counters switched on at the start and off at the end (a function's
    /// return) by injected probes: callees are counted.
    #[default]
    Inclusive,
    /// Counters limited to the address range (the counters' range
    /// filter): callees outside it are not counted.
    Exclusive,
}

/// `--method counters`: emulated hardware counters driven from outside
/// the program, the ARC study's methods (docs/counters.md).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct CountersOptions {
    /// Counters per run (`None`: the core's `[pmu] counters`, or
    /// [`crate::DEFAULT_COUNTERS`] without a core).
    pub counters: Option<u32>,
    /// Events each measurement counts (`events::TIMING` names; empty:
    /// `cycles` with a core, else `instructions`).
    pub events: Vec<String>,
    /// `START..END` regions to measure instead of functions.
    pub regions: Vec<String>,
    /// Inclusive (probes) or exclusive (range filter).
    pub region_mode: RegionMode,
    /// The call-graph descent with this threshold (percent of the global
    /// count of the first event); `None`: every function, in subsets.
    pub descent: Option<f64>,
    /// Cycles each probe costs.
    pub probe_cost: u64,
    /// Take the call graph from this profile (`--call-graph FILE`, a
    /// profile of the same program with every call: exact, instrumented
    /// or counters) instead of a call-graph run.
    pub call_graph: Option<std::path::PathBuf>,
    /// Programs that never end (`--safe-stop ADDR`): one run whose
    /// counters take the subsets in turn, changed at ADDR (an address,
    /// symbol, `symbol+offset` or `FILE:LINE`).
    pub safe_stop: Option<String>,
    /// `--slice N`: cycles (instructions without a core) each subset
    /// stays at least.
    pub slice: u64,
}

/// The profiling method.
#[derive(Clone, Debug, PartialEq)]
pub enum Method {
    /// Every executed instruction, and the exact call graph.
    Exact,
    /// Periodic samples unwound from the guest's registers and memory.
    Sample(SampleOptions),
    /// The program's `-finstrument-functions` or `-pg` hooks.
    Instrument(InstrumentOptions),
    /// Emulated hardware counters, several runs.
    Counters(CountersOptions),
}

/// Everything a recording needs besides the program's run options.
#[derive(Clone, Debug)]
pub struct RecordOptions {
    /// How to run the program.
    pub exec: ExecOptions,
    /// The profiling method.
    pub method: Method,
    /// A core model: a preset name (`picorv32`, `ibex`, `generic`, `arc-hs`) or a
    /// core description file (docs/core-format.md).
    pub core: Option<String>,
    /// Store the environment's values in the profile (else names and a
    /// SHA-256 only).
    pub save_env: bool,
    /// `--symbols FILE[@ADDR]`: ELF files whose symbols describe code the
    /// program runs, applied to the address spaces that run their code.
    pub symbols: Vec<crate::SymbolFile>,
    /// `--task-hint SYMBOL`: the kernel's context-switch function, for
    /// kernels that switch tasks by a call rather than a trap return
    /// (docs/concurrency.md, "Tasks of an operating system").
    pub task_hint: Option<String>,
}

/// Build the guest environment like `qemu-riscv64`: the `host`
/// environment, emptied when `clear`, then the `unset` names removed and
/// the `set` assignments (`VAR=VALUE`; `VAR` alone sets it empty) applied
/// in order. Returns `KEY=VALUE` strings.
pub fn guest_env(
    host: impl Iterator<Item = (String, String)>,
    clear: bool,
    unset: &[String],
    set: &[String],
) -> Vec<String> {
    let mut env: Vec<(String, String)> = if clear { Vec::new() } else { host.collect() };
    for u in unset {
        env.retain(|(k, _)| k != u);
    }
    for e in set {
        let (k, v) = e.split_once('=').unwrap_or((e.as_str(), ""));
        if let Some(slot) = env.iter_mut().find(|(key, _)| key == k) {
            slot.1 = v.to_string();
        } else {
            env.push((k.to_string(), v.to_string()));
        }
    }
    env.into_iter().map(|(k, v)| format!("{k}={v}")).collect()
}

/// The default guest memory limit in bytes: half of `MemAvailable` in
/// `/proc/meminfo` when the run starts, or 4 GiB when that cannot be read.
pub fn default_max_memory() -> u64 {
    std::fs::read_to_string("/proc/meminfo")
        .ok()
        .and_then(|t| {
            t.lines()
                .find_map(|l| l.strip_prefix("MemAvailable:"))
                .and_then(|v| v.trim().strip_suffix("kB"))
                .and_then(|v| v.trim().parse::<u64>().ok())
        })
        .map_or(4 << 30, |kib| kib.saturating_mul(1024) / 2)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn env_like_qemu() {
        let host = || {
            vec![
                ("A".to_string(), "1".to_string()),
                ("B".to_string(), "2".to_string()),
            ]
            .into_iter()
        };
        let s = |v: &[&str]| v.iter().map(|x| x.to_string()).collect::<Vec<_>>();
        assert_eq!(
            guest_env(host(), false, &s(&["B"]), &s(&["A=9", "NEW=1"])),
            vec!["A=9", "NEW=1"]
        );
        assert_eq!(guest_env(host(), true, &[], &s(&["Z"])), vec!["Z="]);
        assert_eq!(guest_env(host(), false, &[], &[]), vec!["A=1", "B=2"]);
        assert!(default_max_memory() >= 1 << 20);
    }
}
