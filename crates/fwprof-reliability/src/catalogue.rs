//! The suite's fixed parts: the workloads and their parameter sweeps, the
//! profiling methods judged, and the settings every run shares.

/// Sampling period of both sampled methods, in instructions (`record`'s
/// default; a prime, so ordinary loops rarely divide it).
pub const PERIOD: u64 = 10007;
/// Sampling period of the time-paced methods, in cycles: 1 ms of the
/// hart's nominal 10 MHz clock, a round period as time-based profilers use
/// (`perf record -F 1000`, a 1 kHz timer).
pub const TIME_PERIOD: u64 = 10_000;
/// Seed of the `--jitter` generator.
pub const SEED: u64 = 1;
/// Functions in the rank agreement and top-k overlap.
pub const TOP: usize = 10;
/// The core model whose cycles judge instruction counting (`icount`).
pub const CORE: &str = "generic";

/// One workload of the suite: the program's first argument, the meaning of
/// its parameter, and the values swept.
#[derive(Debug)]
pub struct Workload {
    /// Name (the program's first argument).
    pub name: &'static str,
    /// The parameter's symbol, for the chart's axis.
    pub symbol: &'static str,
    /// What the parameter is.
    pub parameter: &'static str,
    /// What the workload breaks.
    pub breaks: &'static str,
    /// Parameter values of the full sweep.
    pub values: &'static [u64],
    /// Parameter values with `--quick`.
    pub quick: &'static [u64],
    /// Which embedded program runs it.
    pub program: Program,
}

/// The program a workload runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Program {
    /// `workloads.rv64-linux.elf NAME PARAM` (and its instrumented build).
    Linux,
    /// `ctxloss.rv32imac.elf PARAM`: bare metal, semihosting, the machine
    /// timer; there is no instrumented build of it, so the instrumentation
    /// methods do not apply.
    BareMetal,
}

/// The workloads, in the order of the table: the eight kernels of study 003
/// ("How reliable are profilers?"), then sampling aliasing, many tiny
/// functions and deep recursion. Every run also executes the fixed
/// reference functions `control` (about 1.6 M instructions) and `aux`
/// (about 0.4 M).
pub const WORKLOADS: &[Workload] = &[
    Workload {
        name: "nomem",
        symbol: "n",
        parameter: "inner loop length n (1000 outer rounds of s += i)",
        breaks: "nothing: the baseline, register-only work of growing share",
        values: &[100, 300, 1000, 2000, 4000],
        quick: &[100, 4000],
        program: Program::Linux,
    },
    Workload {
        name: "memory",
        symbol: "n",
        parameter: "array length n (a[i] = i, then 8 passes of s += a[i]; a[i] += s)",
        breaks: "time-based readings under memory load; instruction counts are immune",
        values: &[1024, 16384, 65536, 262144],
        quick: &[1024, 262144],
        program: Program::Linux,
    },
    Workload {
        name: "cache",
        symbol: "rows",
        parameter: "rows n of one 4 KiB page, walked column by column",
        breaks: "cache and TLB misses: same instructions, very different cycles",
        values: &[16, 64, 256, 1024],
        quick: &[16, 1024],
        program: Program::Linux,
    },
    Workload {
        name: "looplen",
        symbol: "K",
        parameter: "inner loop length K (M = 2^20 / K calls of looplen_inner)",
        breaks: "per-call overhead: short loops make a call every few instructions",
        values: &[1, 4, 16, 64, 256, 4096],
        quick: &[1, 4096],
        program: Program::Linux,
    },
    Workload {
        name: "periodic",
        symbol: "k",
        parameter: "period k of the operation (periodic_op every k-th of 2^20 iterations)",
        breaks: "rare but regular code, and sampling in step with it",
        values: &[1, 10, 100, 1000, 10000],
        quick: &[1, 1000],
        program: Program::Linux,
    },
    Workload {
        name: "ctxloss",
        symbol: "bursts",
        parameter: "bursts b of work (2^21 units in all), each followed by nanosleep(1 ms)",
        breaks: "time-paced samplers lose samples while the program sleeps",
        values: &[1, 16, 256, 4096],
        quick: &[1, 4096],
        program: Program::Linux,
    },
    Workload {
        name: "ctxloss-bare",
        symbol: "bursts",
        parameter: "bursts b of work (2^21 units in all, rv32imac bare metal), each followed by a wfi sleep until the next 1 ms tick of the machine timer",
        breaks: "time-paced samplers in step with the timer that wakes the program",
        values: &[1, 256, 1024, 4096, 8192],
        quick: &[1, 8192],
        program: Program::BareMetal,
    },
    Workload {
        name: "misalign",
        symbol: "n",
        parameter: "n misaligned 4-byte loads (1-byte stride) and n aligned ones",
        breaks: "misaligned loads, often trapped and emulated on RISC-V cores; fwprof's core models charge them nothing",
        values: &[10000, 100000, 1000000],
        quick: &[10000, 1000000],
        program: Program::Linux,
    },
    Workload {
        name: "calls",
        symbol: "n",
        parameter: "calls n of foo(a) = a + (a>>8) + (a<<1)",
        breaks: "instrumentation: hooks cost more than the function they measure",
        values: &[10000, 100000, 1000000],
        quick: &[10000, 1000000],
        program: Program::Linux,
    },
    Workload {
        name: "saw",
        symbol: "P",
        parameter:
            "loop period P in instructions (70% saw_hot, 30% saw_rare); sampling period 10007",
        breaks: "fixed-period sampling: a loop in step with the sampler hides saw_rare",
        values: &[10007, 10008, 10107, 20014],
        quick: &[10007, 10107],
        program: Program::Linux,
    },
    Workload {
        name: "tiny",
        symbol: "rounds",
        parameter: "rounds n over 16 tiny functions of 2-3 instructions",
        breaks: "instrumentation overhead dominates; many functions near 1%",
        values: &[1000, 10000, 100000],
        quick: &[1000, 100000],
        program: Program::Linux,
    },
    Workload {
        name: "recursion",
        symbol: "depth",
        parameter: "recursion depth d (about 2^18 levels in all)",
        breaks: "deep stacks: unwinding, calling contexts, inclusive costs",
        values: &[10, 100, 1000, 10000, 100000],
        quick: &[10, 100000],
        program: Program::Linux,
    },
];

/// A profiling method judged by the suite.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MethodId {
    /// Sampling with a fixed period.
    Sample,
    /// Sampling with randomised periods.
    Jitter,
    /// Instrumentation, raw values.
    Instrument,
    /// Instrumentation, overhead-compensated values.
    Compensated,
    /// Compensated values against the instrumented build's exact profile.
    OwnBuild,
    /// Exact instruction shares against the exact cycle shares of
    /// `--core generic`.
    Icount,
    /// Sampling paced by time (`--unit cycles` of `--core generic`, fixed
    /// period), against the exact cycle shares: its clock keeps running
    /// while the program sleeps, and those points see no program code.
    Time,
    /// The same with randomised periods.
    TimeJitter,
}

/// The methods, in the order of the table's columns.
pub const METHODS: [MethodId; 8] = [
    MethodId::Sample,
    MethodId::Jitter,
    MethodId::Instrument,
    MethodId::Compensated,
    MethodId::OwnBuild,
    MethodId::Icount,
    MethodId::Time,
    MethodId::TimeJitter,
];

impl MethodId {
    /// The column and JSON key: `sample`, `jitter`, `instrument`,
    /// `compensated`, `own-build`, `icount`, `time`, `time-jitter`.
    pub fn name(self) -> &'static str {
        match self {
            MethodId::Sample => "sample",
            MethodId::Jitter => "jitter",
            MethodId::Instrument => "instrument",
            MethodId::Compensated => "compensated",
            MethodId::OwnBuild => "own-build",
            MethodId::Icount => "icount",
            MethodId::Time => "time",
            MethodId::TimeJitter => "time-jitter",
        }
    }

    /// How the method's profile is taken.
    pub fn describe(self) -> String {
        match self {
            MethodId::Sample => format!("record --method sample --period {PERIOD} (fixed period)"),
            MethodId::Jitter => {
                format!("record --method sample --period {PERIOD} --jitter --seed {SEED}")
            }
            MethodId::Instrument => {
                "record --method instrument of the -finstrument-functions build, raw durations"
                    .to_string()
            }
            MethodId::Compensated => {
                "the same profile as recorded: hook overhead subtracted".to_string()
            }
            MethodId::OwnBuild => {
                "compensated, against the instrumented build's own exact profile (hooks left out)"
                    .to_string()
            }
            MethodId::Icount => format!(
                "exact instruction counts read as time, against the cycles of record --core {CORE}"
            ),
            MethodId::Time => format!(
                "record --method sample --unit cycles --core {CORE} --period {TIME_PERIOD} (paced by time: its clock runs on while the program sleeps)"
            ),
            MethodId::TimeJitter => format!("the same with --jitter --seed {SEED}"),
        }
    }

    /// The method's reference profile and event.
    pub fn reference(self) -> String {
        match self {
            MethodId::OwnBuild => {
                "exact profile of the instrumented build without the hooks, instructions"
                    .to_string()
            }
            MethodId::Icount | MethodId::Time | MethodId::TimeJitter => {
                format!("exact profile with --core {CORE}, cycles")
            }
            _ => "exact profile of the plain build, instructions".to_string(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn workloads_are_consistent() {
        for w in WORKLOADS {
            assert!(!w.values.is_empty(), "{}", w.name);
            assert!(
                w.quick.iter().all(|v| w.values.contains(v)),
                "{}: quick values are a subset",
                w.name
            );
        }
        let saw = WORKLOADS.iter().find(|w| w.name == "saw").unwrap();
        assert!(
            saw.quick.contains(&PERIOD),
            "saw runs in step with the sampler"
        );
    }
}
