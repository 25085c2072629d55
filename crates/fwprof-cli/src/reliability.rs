//! `fwprof reliability`: the bundled suite that measures how wrong each
//! profiling method is, against the exact profile, on workloads built to
//! break profilers.
//!
//! The workloads are one RISC-V Linux program in two builds, embedded in the
//! binary (`reliability/workloads.rv64-linux.elf`, `-O2 -g`, and
//! `reliability/workloads-instrument.rv64-linux.elf`, the same with
//! `-finstrument-functions`; sources and `build.sh` in `reliability/`). The
//! program runs one workload: `workloads NAME PARAM`. One more embedded
//! program, `reliability/ctxloss.rv32imac.elf PARAM`, is the bare-metal
//! form of the forced-context-loss kernel; it has no instrumented build, so
//! the instrumentation methods are `n/a` there. For every workload
//! ([`WORKLOADS`]) and parameter value the suite records, each with
//! `fwprof record` run as a child process (this executable):
//!
//! 1. the exact profile of the plain build, the reference;
//! 2. `--method sample --period` [`PERIOD`] (fixed period);
//! 3. the same with `--jitter --seed` [`SEED`];
//! 4. `--method instrument` of the instrumented build, read as
//!    *instrument* (the raw self and total durations of its
//!    instrumentation records: what the hooks measured, their overhead
//!    included) and as *compensated* (the profile as recorded: the hooks'
//!    cost subtracted);
//! 5. the exact profile of the instrumented build, for *own-build*: the
//!    compensated profile against that build's exact self costs with the
//!    hooks' own instructions left out (what compensation can recover);
//! 6. the exact profile of the plain build with `--core generic`, for
//!    *icount*: the exact instruction shares read as shares of time,
//!    against that run's modelled cycle shares (study 003's own method,
//!    instruction counting, judged by the core model's caches, branch
//!    predictor and pipeline),
//! 7. `--method sample --unit cycles --core generic --period`
//!    [`TIME_PERIOD`] against the cycles of (6), for *time*: a sampler paced
//!    by time, whose clock runs on while the program sleeps,
//! 8. the same with `--jitter`, for *time-jitter*,
//!
//! and compares each with its reference by `fwprof_report::compare`
//! (rank agreement over the top [`TOP`]): per method
//! the largest absolute error of any function's self share (percentage
//! points), the mean absolute error over the functions with ≥ 1% of the
//! reference, Kendall's tau-b, top-k overlap, the functions ≥ 1% it missed,
//! interval coverage (sampled) and the verdict. The reference of every
//! method but *own-build* and *icount* is the exact profile of the *plain*
//! build (event `instructions`): what
//! the program does when nobody watches, so the code
//! `-finstrument-functions` adds inside each function is part of the
//! instrumentation error (the observer effect).
//!
//! Output: a text table (one row per workload and parameter value, one
//! column per method), or `--format json` (`fwprof-reliability/1`, shape in
//! `docs/reliability.md`); `--svg FILE` also writes a chart of error against
//! parameter, one small multiple per workload and one line per method.
//! Exit status 0 when every recording and comparison succeeded, 1 when some
//! failed (the table shows them and the errors are listed after it), 125 on
//! an error of the suite itself (bad `--only`, unwritable `--svg` file).

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::io::{IsTerminal, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;

use anyhow::{Context, Result};
use fwprof_profile::{events, Profile};
use fwprof_report::Comparison;
use serde_json::{json, Value};

use crate::cli::{FormatArg, ReliabilityArgs};

/// The plain build of the workloads (`-O2 -g`, rv64gc Linux, static).
static PLAIN_ELF: &[u8] = include_bytes!("../../../reliability/workloads.rv64-linux.elf");
/// The `-finstrument-functions` build of the same sources.
static INSTRUMENTED_ELF: &[u8] =
    include_bytes!("../../../reliability/workloads-instrument.rv64-linux.elf");
/// The bare-metal forced-context-loss program (`reliability/baremetal/ctxloss.c`).
static BARE_ELF: &[u8] = include_bytes!("../../../reliability/ctxloss.rv32imac.elf");

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
/// Safety limit of every recording (`--max-instructions`); the largest run
/// executes about 45 M (the instrumented `tiny` workload).
const MAX_INSTRUCTIONS: u64 = 400_000_000;

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

/// A function of interest in one comparison (reference or method share
/// ≥ 1%, or missed/invented).
#[derive(Clone, Debug)]
struct FunctionRow {
    name: String,
    reference_share: f64,
    other_share: f64,
    abs_error: f64,
    interval: Option<(f64, f64)>,
    covers: Option<bool>,
    missed: bool,
    invented: bool,
}

/// What the suite keeps of one comparison.
#[derive(Clone, Debug)]
struct Metrics {
    max_abs_error: f64,
    max_abs_error_function: Option<String>,
    mean_abs_error: f64,
    tau_b: Option<f64>,
    top_n: usize,
    top_overlap: usize,
    missed: Vec<String>,
    missed_share: f64,
    invented: Vec<String>,
    invented_share: f64,
    coverage: Option<f64>,
    samples: Option<u64>,
    /// Sampling points that fell while the program slept (sampled only).
    idle_samples: Option<u64>,
    grade: &'static str,
    verdict: String,
    functions: Vec<FunctionRow>,
}

impl Metrics {
    fn of(c: &Comparison) -> Metrics {
        let s = &c.summary;
        let functions = c
            .functions
            .iter()
            .filter(|f| {
                f.reference_share >= fwprof_report::compare::SIGNIFICANT_PERCENT
                    || f.other_share >= fwprof_report::compare::SIGNIFICANT_PERCENT
                    || f.missed
            })
            .map(|f| FunctionRow {
                name: f.name.clone(),
                reference_share: f.reference_share,
                other_share: f.other_share,
                abs_error: f.abs_error,
                interval: f.interval,
                covers: f.covers,
                missed: f.missed,
                invented: f.invented,
            })
            .collect();
        Metrics {
            max_abs_error: s.max_abs_error,
            max_abs_error_function: s.max_abs_error_function.clone(),
            mean_abs_error: s.mean_abs_error,
            tau_b: c.ranking.tau_b,
            top_n: c.ranking.n,
            top_overlap: c.ranking.overlap,
            missed: c.missed.clone(),
            missed_share: s.missed_share,
            invented: c.invented.clone(),
            invented_share: s.invented_share,
            coverage: s.coverage,
            samples: c.other.sampling.as_ref().map(|x| x.samples),
            idle_samples: c.other.sampling.as_ref().map(|x| x.idle_samples),
            grade: c.verdict.grade.as_str(),
            verdict: c.verdict.text.clone(),
            functions,
        }
    }

    /// The share of sampling points that fell while the program slept, in
    /// percent (sampled only).
    fn lost_percent(&self) -> Option<f64> {
        let (n, idle) = (self.samples?, self.idle_samples?);
        Some(percent(idle, n + idle))
    }

    fn json(&self) -> Value {
        let functions: Vec<Value> = self
            .functions
            .iter()
            .map(|f| {
                json!({
                    "name": f.name,
                    "reference_share": f.reference_share,
                    "share": f.other_share,
                    "abs_error": f.abs_error,
                    "interval": f.interval.map(|(lo, hi)| json!([lo, hi])),
                    "covers": f.covers,
                    "missed": f.missed,
                    "invented": f.invented,
                })
            })
            .collect();
        json!({
            "ok": true,
            "max_abs_error": self.max_abs_error,
            "max_abs_error_function": self.max_abs_error_function,
            "mean_abs_error": self.mean_abs_error,
            "tau_b": self.tau_b,
            "top_n": self.top_n,
            "top_overlap": self.top_overlap,
            "missed": self.missed,
            "missed_share": self.missed_share,
            "invented": self.invented,
            "invented_share": self.invented_share,
            "coverage": self.coverage,
            "samples": self.samples,
            "idle_samples": self.idle_samples,
            "lost_percent": self.lost_percent(),
            "verdict": self.grade,
            "verdict_text": self.verdict,
            "functions": functions,
        })
    }
}

/// The exact reference of one run.
#[derive(Clone, Debug)]
struct Reference {
    total: u64,
    /// Functions with ≥ 1% of the total, by share.
    functions: Vec<(String, f64)>,
}

/// One workload at one parameter value.
#[derive(Debug)]
struct Run {
    workload: &'static Workload,
    param: u64,
    reference: Result<Reference, String>,
    /// One result per entry of [`METHODS`]; `None` where the method does
    /// not apply (instrumentation of the bare-metal workload).
    cells: Vec<Option<Result<Metrics, String>>>,
}

/// The embedded workload ELFs written to a private temporary directory
/// (removed on drop), and where the recordings go.
struct Suite {
    /// This executable.
    exe: PathBuf,
    /// The temporary directory.
    dir: PathBuf,
    /// The plain build's file name in `dir`.
    plain: PathBuf,
    /// The instrumented build's file name in `dir`.
    instrumented: PathBuf,
    /// The bare-metal program's file name in `dir`.
    bare: PathBuf,
}

impl Suite {
    fn new() -> Result<Suite> {
        let exe = std::env::current_exe().context("cannot locate the fwprof executable")?;
        let nanos = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.subsec_nanos());
        // glibc's start-up copies the program's absolute path
        // (/proc/self/exe): a directory name of fixed length in /tmp keeps
        // its instruction count the same from run to run.
        let base = if Path::new("/tmp").is_dir() {
            PathBuf::from("/tmp")
        } else {
            std::env::temp_dir()
        };
        let dir = base.join(format!(
            "fwprof-reliability-{:08x}{nanos:08x}",
            std::process::id()
        ));
        std::fs::create_dir(&dir).with_context(|| format!("cannot create {}", dir.display()))?;
        let suite = Suite {
            exe,
            plain: PathBuf::from("workloads.rv64-linux.elf"),
            instrumented: PathBuf::from("workloads-instrument.rv64-linux.elf"),
            bare: PathBuf::from("ctxloss.rv32imac.elf"),
            dir,
        };
        for (name, bytes) in [
            (&suite.plain, PLAIN_ELF),
            (&suite.instrumented, INSTRUMENTED_ELF),
            (&suite.bare, BARE_ELF),
        ] {
            let path = suite.dir.join(name);
            std::fs::write(&path, bytes)
                .with_context(|| format!("cannot write {}", path.display()))?;
        }
        Ok(suite)
    }

    /// `fwprof record -q [extra] --clear-env -- ELF NAME PARAM` into
    /// `TAG.fwprof`, run in the suite's directory with `elf` relative to it:
    /// with no environment, a fixed `argv[0]` and a program path of fixed
    /// length the guest's start-up code executes the same instructions in
    /// every run, so the samples fall at the same points and the results
    /// repeat. The
    /// profile, or the child's last line of stderr.
    fn record(
        &self,
        tag: &str,
        elf: &Path,
        extra: &[&str],
        w: &Workload,
        param: u64,
    ) -> Result<Profile, String> {
        let out = self.dir.join(format!("{tag}.fwprof"));
        let result = Command::new(&self.exe)
            .arg("record")
            .arg("-q")
            .arg("-o")
            .arg(&out)
            .args(extra)
            .arg("--max-instructions")
            .arg(MAX_INSTRUCTIONS.to_string())
            .arg("--clear-env")
            .arg("--")
            .arg(elf)
            .args((w.program == Program::Linux).then_some(w.name))
            .arg(param.to_string())
            .current_dir(&self.dir)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .output()
            .map_err(|e| format!("cannot run {}: {e}", self.exe.display()))?;
        if !result.status.success() {
            let stderr = String::from_utf8_lossy(&result.stderr);
            let line = stderr
                .lines()
                .rev()
                .find(|l| !l.trim().is_empty())
                .unwrap_or("no message")
                .trim();
            let line = line.strip_prefix("fwprof: ").unwrap_or(line);
            let status = result
                .status
                .code()
                .map_or_else(|| "killed".to_string(), |c| format!("exit status {c}"));
            let _ = std::fs::remove_file(&out);
            return Err(format!("{line} ({status})"));
        }
        let profile =
            Profile::read(&out).map_err(|e| format!("cannot read {}: {e}", out.display()));
        let _ = std::fs::remove_file(&out);
        profile
    }

    /// Record and compare every method on one workload and parameter.
    fn run(&self, w: &'static Workload, param: u64) -> Run {
        let tag = format!("{}-{param}", w.name);
        let plain = match w.program {
            Program::Linux => &self.plain,
            Program::BareMetal => &self.bare,
        };
        let exact = match self.record(&format!("{tag}-exact"), plain, &[], w, param) {
            Ok(p) => p,
            Err(e) => {
                return Run {
                    workload: w,
                    param,
                    reference: Err(format!("exact: {e}")),
                    cells: METHODS
                        .iter()
                        .map(|_| Some(Err("no reference".into())))
                        .collect(),
                }
            }
        };
        let reference = reference_of(&exact);
        let period = PERIOD.to_string();
        let seed = SEED.to_string();
        let sample = ["--method", "sample", "--period", &period];
        let jitter = [
            "--method", "sample", "--period", &period, "--jitter", "--seed", &seed,
        ];
        let judge = |p: &Profile| -> Result<Metrics, String> {
            fwprof_report::compare(&exact, p, events::INSTRUCTIONS, TOP)
                .map(|c| Metrics::of(&c))
                .map_err(|e| format!("compare: {e}"))
        };
        let mut cells = Vec::with_capacity(METHODS.len());
        cells.push(Some(
            self.record(&format!("{tag}-sample"), plain, &sample, w, param)
                .and_then(|p| judge(&p)),
        ));
        cells.push(Some(
            self.record(&format!("{tag}-jitter"), plain, &jitter, w, param)
                .and_then(|p| judge(&p)),
        ));
        let instrumented = match w.program {
            Program::Linux => Some(self.record(
                &format!("{tag}-instrument"),
                &self.instrumented,
                &["--method", "instrument"],
                w,
                param,
            )),
            Program::BareMetal => None,
        };
        match instrumented {
            None => cells.extend([None, None, None]),
            Some(Ok(p)) => {
                cells.push(Some(raw(&p).and_then(|r| judge(&r))));
                cells.push(Some(judge(&p)));
                cells.push(Some(
                    self.record(
                        &format!("{tag}-exact-build"),
                        &self.instrumented,
                        &[],
                        w,
                        param,
                    )
                    .and_then(|x| {
                        fwprof_report::compare(&without_hooks(&x), &p, events::INSTRUCTIONS, TOP)
                            .map(|c| Metrics::of(&c))
                            .map_err(|e| format!("compare: {e}"))
                    }),
                ));
            }
            Some(Err(e)) => {
                cells.push(Some(Err(e.clone())));
                cells.push(Some(Err(e.clone())));
                cells.push(Some(Err(e)));
            }
        }
        let core = self.record(&format!("{tag}-core"), plain, &["--core", CORE], w, param);
        let judge_cycles = |reference: &Profile, p: &Profile| -> Result<Metrics, String> {
            fwprof_report::compare(reference, p, EVENT_CYCLES, TOP)
                .map(|c| Metrics::of(&c))
                .map_err(|e| format!("compare: {e}"))
        };
        cells.push(Some(core.clone().and_then(|p| {
            let counted = instructions_as_cycles(&p)?;
            judge_cycles(&p, &counted)
        })));
        let time_period = TIME_PERIOD.to_string();
        let time = [
            "--method",
            "sample",
            "--unit",
            "cycles",
            "--core",
            CORE,
            "--period",
            &time_period,
        ];
        let time_jitter: Vec<&str> = time
            .iter()
            .copied()
            .chain(["--jitter", "--seed", &seed])
            .collect();
        for (suffix, flags) in [("time", &time[..]), ("time-jitter", &time_jitter[..])] {
            cells.push(Some(core.clone().and_then(|reference| {
                let p = self.record(&format!("{tag}-{suffix}"), plain, flags, w, param)?;
                judge_cycles(&reference, &p)
            })));
        }
        Run {
            workload: w,
            param,
            reference: Ok(reference),
            cells,
        }
    }
}

impl Drop for Suite {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

/// The reference's total instructions and its functions with ≥ 1%.
fn reference_of(p: &Profile) -> Reference {
    let e = p.event_index(events::INSTRUCTIONS).unwrap_or(0);
    let total = p.totals.get(e).copied().unwrap_or(0);
    let mut functions: Vec<(String, f64)> = p
        .functions
        .iter()
        .map(|f| {
            let c = f.self_cost.get(e).copied().unwrap_or(0);
            (f.name.clone(), percent(c, total))
        })
        .filter(|(_, s)| *s >= fwprof_report::compare::SIGNIFICANT_PERCENT)
        .collect();
    functions.sort_by(|a, b| b.1.total_cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
    Reference { total, functions }
}

/// `part` as a percentage of `whole` (0 when `whole` is 0).
fn percent(part: u64, whole: u64) -> f64 {
    if whole == 0 {
        0.0
    } else {
        100.0 * part as f64 / whole as f64
    }
}

/// Names of the instrumentation hooks: their cost is the overhead that
/// compensation removes.
const HOOKS: [&str; 4] = [
    "__cyg_profile_func_enter",
    "__cyg_profile_func_exit",
    "_mcount",
    "mcount",
];

/// The instrumented profile as its raw durations tell it: every function
/// with an instrumentation record gets its raw self and total (hooks
/// included, as the hooks measured them), every other function nothing;
/// the total is the sum of the raw self durations (the run as the hooks
/// see it).
///
/// Errors: the profile has no instrumentation records.
fn raw(p: &Profile) -> Result<Profile, String> {
    if p.instrumented.is_empty() {
        return Err("the instrumented profile has no per-function records".into());
    }
    let e = p.event_index(events::INSTRUCTIONS).unwrap_or(0);
    let mut q = p.clone();
    for f in q.functions.iter_mut() {
        for v in [&mut f.self_cost, &mut f.inclusive] {
            if let Some(c) = v.get_mut(e) {
                *c = 0;
            }
        }
    }
    for r in &p.instrumented {
        if let Some(f) = q.functions.get_mut(r.function.0 as usize) {
            if let Some(c) = f.self_cost.get_mut(e) {
                *c = r.self_time;
            }
            if let Some(c) = f.inclusive.get_mut(e) {
                *c = r.total;
            }
        }
    }
    let total: u64 = p.instrumented.iter().map(|r| r.self_time).sum();
    if let Some(t) = q.totals.get_mut(e) {
        *t = total;
    }
    Ok(q)
}

/// The event the core model's time is in.
const EVENT_CYCLES: &str = "cycles";

/// A `--core` profile whose `cycles` are replaced by its instruction
/// counts: instruction counting's estimate of time.
///
/// Errors: the profile lacks either event.
fn instructions_as_cycles(p: &Profile) -> Result<Profile, String> {
    let (Some(i), Some(c)) = (
        p.event_index(events::INSTRUCTIONS),
        p.event_index(EVENT_CYCLES),
    ) else {
        return Err(format!(
            "the --core {CORE} profile has no {EVENT_CYCLES} event"
        ));
    };
    let mut q = p.clone();
    let copy = |v: &mut Vec<u64>| {
        if let Some(&x) = v.get(i) {
            if let Some(y) = v.get_mut(c) {
                *y = x;
            }
        }
    };
    for f in q.functions.iter_mut() {
        copy(&mut f.self_cost);
        copy(&mut f.inclusive);
    }
    copy(&mut q.totals);
    Ok(q)
}

/// An exact profile with the hook functions' own instructions taken out
/// (their self cost set to 0 and subtracted from the total).
fn without_hooks(p: &Profile) -> Profile {
    let e = p.event_index(events::INSTRUCTIONS).unwrap_or(0);
    let mut q = p.clone();
    let mut removed = 0;
    for f in q.functions.iter_mut() {
        if HOOKS.contains(&f.name.as_str()) {
            if let Some(c) = f.self_cost.get_mut(e) {
                removed += *c;
                *c = 0;
            }
            if let Some(c) = f.inclusive.get_mut(e) {
                *c = 0;
            }
        }
    }
    if let Some(t) = q.totals.get_mut(e) {
        *t = t.saturating_sub(removed);
    }
    q
}

/// Run `fwprof reliability`.
pub fn run(a: &ReliabilityArgs) -> Result<u8> {
    let selected: Vec<&'static Workload> = WORKLOADS
        .iter()
        .filter(|w| a.only.is_empty() || a.only.iter().any(|o| w.name.contains(o.as_str())))
        .collect();
    if selected.is_empty() {
        let names: Vec<&str> = WORKLOADS.iter().map(|w| w.name).collect();
        anyhow::bail!(
            "no workload matches --only {}; the workloads are {}",
            a.only.join(", "),
            names.join(", ")
        );
    }
    let jobs: Vec<(&'static Workload, u64)> = selected
        .iter()
        .flat_map(|w| {
            let values = if a.quick { w.quick } else { w.values };
            values.iter().map(move |&v| (*w, v))
        })
        .collect();
    let suite = Suite::new()?;
    let runs = run_all(&suite, &jobs);
    drop(suite);

    let stdout = std::io::stdout();
    let mut out = std::io::BufWriter::new(stdout.lock());
    match a.format {
        FormatArg::Text => write_text(&runs, &mut out)?,
        FormatArg::Json => {
            serde_json::to_writer_pretty(&mut out, &to_json(&runs))?;
            writeln!(out)?;
        }
    }
    out.flush()?;
    if let Some(path) = &a.svg {
        write_atomic(path, svg(&runs).as_bytes())?;
    }
    let failed = runs
        .iter()
        .any(|r| r.reference.is_err() || r.cells.iter().flatten().any(|c| c.is_err()));
    Ok(u8::from(failed))
}

/// Run the jobs on as many threads as the machine has cores (each runs its
/// recordings one after the other), with a progress line on a terminal.
fn run_all(suite: &Suite, jobs: &[(&'static Workload, u64)]) -> Vec<Run> {
    let threads = std::thread::available_parallelism()
        .map_or(1, |n| n.get())
        .clamp(1, jobs.len().max(1));
    let next = AtomicUsize::new(0);
    let done = AtomicUsize::new(0);
    let results: Mutex<Vec<Option<Run>>> = Mutex::new((0..jobs.len()).map(|_| None).collect());
    let progress = std::io::stderr().is_terminal();
    std::thread::scope(|s| {
        for _ in 0..threads {
            s.spawn(|| loop {
                let i = next.fetch_add(1, Ordering::SeqCst);
                let Some(&(w, param)) = jobs.get(i) else {
                    break;
                };
                let run = suite.run(w, param);
                let n = done.fetch_add(1, Ordering::SeqCst) + 1;
                if progress {
                    eprint!(
                        "\r\x1b[Kfwprof reliability: {n}/{} ({} {param})",
                        jobs.len(),
                        w.name
                    );
                }
                if let Ok(mut r) = results.lock() {
                    r[i] = Some(run);
                }
            });
        }
    });
    if progress {
        eprint!("\r\x1b[K");
    }
    results
        .into_inner()
        .unwrap_or_default()
        .into_iter()
        .flatten()
        .collect()
}

/// `1234567` → `1.2M`.
fn short_count(n: u64) -> String {
    if n >= 1_000_000 {
        format!("{:.1}M", n as f64 / 1e6)
    } else if n >= 1_000 {
        format!("{:.0}k", n as f64 / 1e3)
    } else {
        n.to_string()
    }
}

/// A table cell: the largest error in points, and the missed functions.
fn cell_text(c: &Option<Result<Metrics, String>>) -> String {
    let Some(c) = c else {
        return "n/a".to_string();
    };
    let lost = |m: &Metrics| match m.lost_percent() {
        Some(l) if l >= 1.0 => format!(" lost {l:.0}%"),
        Some(l) if l > 0.0 => format!(" lost {l:.1}%"),
        _ => String::new(),
    };
    match c {
        Ok(m) if m.missed.is_empty() => format!("{:.1}{}", m.max_abs_error, lost(m)),
        Ok(m) => format!("{:.1} miss {}{}", m.max_abs_error, m.missed.len(), lost(m)),
        Err(_) => "failed".to_string(),
    }
}

/// The text table, its legend and the errors.
fn write_text(runs: &[Run], w: &mut impl Write) -> std::io::Result<()> {
    writeln!(
        w,
        "fwprof reliability: each method's error against an exact profile (self shares)"
    )?;
    for m in METHODS {
        writeln!(w, "  {:<12} {}", m.name(), m.describe())?;
    }
    writeln!(
        w,
        "References: exact instructions of the plain build; own-build: of the instrumented build without its hooks; icount and time: cycles of --core {CORE}."
    )?;
    writeln!(
        w,
        "Cells: the largest error of any function's share, in percentage points; \"miss N\": N functions with ≥ 1% of the exact profile got nothing; \"lost N%\": sampling points that fell while the program slept."
    )?;
    writeln!(w)?;
    let mut header = format!("{:<12} {:>9} {:>7}", "workload", "parameter", "instr");
    for m in METHODS {
        let _ = write!(header, "  {:>12}", m.name());
    }
    writeln!(w, "{header}")?;
    let mut previous = "";
    for r in runs {
        let name = if r.workload.name == previous {
            ""
        } else {
            r.workload.name
        };
        previous = r.workload.name;
        let total = r
            .reference
            .as_ref()
            .map_or_else(|_| "failed".to_string(), |x| short_count(x.total));
        let mut line = format!("{name:<12} {:>9} {total:>7}", r.param);
        for c in &r.cells {
            let _ = write!(line, "  {:>12}", cell_text(c));
        }
        writeln!(w, "{}", line.trim_end())?;
    }
    writeln!(w)?;
    writeln!(w, "Workloads:")?;
    let mut seen: Vec<&str> = Vec::new();
    for r in runs {
        if seen.contains(&r.workload.name) {
            continue;
        }
        seen.push(r.workload.name);
        writeln!(
            w,
            "  {:<12} {}; breaks: {}",
            r.workload.name, r.workload.parameter, r.workload.breaks
        )?;
    }
    // Errors, each message once with the runs it hit.
    let mut errors: BTreeMap<String, Vec<String>> = BTreeMap::new();
    for r in runs {
        let at = format!("{} {}", r.workload.name, r.param);
        match &r.reference {
            Err(e) => errors.entry(e.clone()).or_default().push(at),
            Ok(_) => {
                for (m, c) in METHODS.iter().zip(&r.cells) {
                    if let Some(Err(e)) = c {
                        errors
                            .entry(format!("{}: {e}", m.name()))
                            .or_default()
                            .push(at.clone());
                    }
                }
            }
        }
    }
    if !errors.is_empty() {
        writeln!(w)?;
        writeln!(w, "Failed:")?;
        for (e, at) in &errors {
            let runs = if at.len() > 3 {
                format!("{} runs", at.len())
            } else {
                at.join(", ")
            };
            writeln!(w, "  {e} [{runs}]")?;
        }
    }
    Ok(())
}

/// The `fwprof-reliability/1` document (see `docs/reliability.md`).
fn to_json(runs: &[Run]) -> Value {
    let methods: Vec<Value> = METHODS
        .iter()
        .map(|m| {
            json!({
                "name": m.name(),
                "description": m.describe(),
                "reference": m.reference(),
            })
        })
        .collect();
    let mut workloads: Vec<Value> = Vec::new();
    let mut current: Option<(&str, Vec<Value>)> = None;
    let flush = |current: &mut Option<(&str, Vec<Value>)>, workloads: &mut Vec<Value>| {
        if let Some((name, runs)) = current.take() {
            if let Some(w) = WORKLOADS.iter().find(|w| w.name == name) {
                workloads.push(json!({
                    "name": w.name,
                    "parameter": w.parameter,
                    "breaks": w.breaks,
                    "runs": runs,
                }));
            }
        }
    };
    for r in runs {
        if current.as_ref().map(|c| c.0) != Some(r.workload.name) {
            flush(&mut current, &mut workloads);
            current = Some((r.workload.name, Vec::new()));
        }
        let reference = match &r.reference {
            Ok(x) => json!({
                "ok": true,
                "total": x.total,
                "functions": x.functions.iter()
                    .map(|(n, s)| json!({"name": n, "share": s}))
                    .collect::<Vec<_>>(),
            }),
            Err(e) => json!({"ok": false, "error": e}),
        };
        let mut methods = serde_json::Map::new();
        for (m, c) in METHODS.iter().zip(&r.cells) {
            let v = match c {
                Some(Ok(x)) => x.json(),
                Some(Err(e)) => json!({"ok": false, "error": e}),
                None => Value::Null,
            };
            methods.insert(m.name().to_string(), v);
        }
        if let Some((_, v)) = current.as_mut() {
            v.push(json!({
                "param": r.param,
                "reference": reference,
                "methods": methods,
            }));
        }
    }
    flush(&mut current, &mut workloads);
    json!({
        "schema": "fwprof-reliability/1",
        "event": events::INSTRUCTIONS,
        "period": PERIOD,
        "time_period": TIME_PERIOD,
        "seed": SEED,
        "top": TOP,
        "significant_percent": fwprof_report::compare::SIGNIFICANT_PERCENT,
        "methods": methods,
        "workloads": workloads,
    })
}

/// Line colours of the methods in the chart.
fn color(m: MethodId) -> &'static str {
    match m {
        MethodId::Sample => "#d62728",
        MethodId::Jitter => "#1f77b4",
        MethodId::Instrument => "#ff7f0e",
        MethodId::Compensated => "#2ca02c",
        MethodId::OwnBuild => "#9467bd",
        MethodId::Icount => "#7f7f7f",
        MethodId::Time => "#8c564b",
        MethodId::TimeJitter => "#17becf",
    }
}

/// The smallest of 1, 2, 5 × 10^k that is ≥ `x` (and ≥ 1).
fn nice_ceiling(x: f64) -> f64 {
    let mut step = 1.0;
    loop {
        for m in [1.0, 2.0, 5.0] {
            if m * step >= x {
                return m * step;
            }
        }
        step *= 10.0;
    }
}

/// `16384` → `16384`, `1000000` → `1M`, `10000` → `10k`.
fn short_param(v: u64) -> String {
    // `u64::is_multiple_of` is newer than the MSRV (1.85).
    if v >= 1_000_000 && (v / 1_000_000) * 1_000_000 == v {
        format!("{}M", v / 1_000_000)
    } else if v >= 10_000 && (v / 1_000) * 1_000 == v {
        format!("{}k", v / 1_000)
    } else {
        v.to_string()
    }
}

/// XML text escaping.
fn esc(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

/// The chart: one small multiple per workload (x: the parameter values,
/// evenly spaced; y: the largest share error in points, from 0), one line
/// per method; a square marks a run where the method missed a function
/// with ≥ 1%. Self-contained SVG 1.1.
fn svg(runs: &[Run]) -> String {
    let mut groups: Vec<(&Workload, Vec<&Run>)> = Vec::new();
    for r in runs {
        match groups.last_mut() {
            Some((w, v)) if w.name == r.workload.name => v.push(r),
            _ => groups.push((r.workload, vec![r])),
        }
    }
    let cols = groups.len().clamp(1, 3);
    let rows = groups.len().div_ceil(cols).max(1);
    let (pw, ph) = (300.0, 200.0); // panel
    let (ml, mr, mt, mb) = (44.0, 12.0, 26.0, 34.0); // plot margins inside a panel
    let top = 70.0; // title and legend
                    // Wide enough for the legend of every method on one line.
    let width = (pw * cols as f64 + 20.0).max(980.0);
    let height = top + ph * rows as f64 + 10.0;
    let mut s = String::new();
    let _ = writeln!(
        s,
        r#"<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" viewBox="0 0 {width} {height}" font-family="sans-serif" font-size="11">"#
    );
    let _ = writeln!(
        s,
        r#"<rect x="0" y="0" width="{width}" height="{height}" fill="white"/>"#
    );
    let _ = writeln!(
        s,
        r#"<text x="10" y="20" font-size="14" font-weight="bold">fwprof reliability: largest error of a function's share against the exact profile (percentage points)</text>"#
    );
    let mut lx = 10.0;
    for m in METHODS {
        let _ = writeln!(
            s,
            r#"<line x1="{lx}" y1="42" x2="{}" y2="42" stroke="{}" stroke-width="2"/><circle cx="{}" cy="42" r="3" fill="{}"/><text x="{}" y="46">{}</text>"#,
            lx + 24.0,
            color(m),
            lx + 12.0,
            color(m),
            lx + 30.0,
            m.name()
        );
        lx += 44.0 + 7.0 * m.name().len() as f64;
    }
    let _ = writeln!(
        s,
        r#"<rect x="{lx}" y="38" width="7" height="7" fill="none" stroke="black"/><text x="{}" y="46">a function ≥ 1% missed</text>"#,
        lx + 12.0
    );
    let _ = writeln!(
        s,
        r##"<text x="10" y="62" fill="#555">sampling period {PERIOD} instructions, time-paced {TIME_PERIOD} cycles; jitter seed {SEED}; instrumentation: -finstrument-functions build, raw and compensated</text>"##
    );
    for (gi, (w, rs)) in groups.iter().enumerate() {
        let ox = 10.0 + pw * (gi % cols) as f64;
        let oy = top + ph * (gi / cols) as f64;
        let (x0, x1) = (ox + ml, ox + pw - mr);
        let (y0, y1) = (oy + ph - mb, oy + mt);
        let ymax = nice_ceiling(
            rs.iter()
                .flat_map(|r| r.cells.iter().flatten())
                .filter_map(|c| c.as_ref().ok().map(|m| m.max_abs_error))
                .fold(0.0, f64::max),
        );
        let n = rs.len();
        let xat = |i: usize| {
            if n <= 1 {
                (x0 + x1) / 2.0
            } else {
                x0 + (x1 - x0) * i as f64 / (n - 1) as f64
            }
        };
        let yat = |v: f64| y0 - (y0 - y1) * (v / ymax).clamp(0.0, 1.0);
        let _ = writeln!(
            s,
            r##"<g><text x="{}" y="{}" font-weight="bold">{} <tspan font-weight="normal" fill="#555">({})</tspan></text>"##,
            ox + 4.0,
            oy + 14.0,
            esc(w.name),
            esc(w.symbol)
        );
        // Axes, grid and labels.
        for k in 0..=2 {
            let v = ymax * k as f64 / 2.0;
            let y = yat(v);
            let _ = writeln!(
                s,
                r##"<line x1="{x0}" y1="{y:.1}" x2="{x1}" y2="{y:.1}" stroke="#ddd"/><text x="{:.1}" y="{:.1}" text-anchor="end">{}</text>"##,
                x0 - 4.0,
                y + 4.0,
                if v.fract() == 0.0 {
                    format!("{v:.0}")
                } else {
                    format!("{v:.1}")
                }
            );
        }
        let _ = writeln!(
            s,
            r##"<line x1="{x0}" y1="{y0}" x2="{x1}" y2="{y0}" stroke="#333"/><line x1="{x0}" y1="{y0}" x2="{x0}" y2="{y1}" stroke="#333"/>"##
        );
        for (i, r) in rs.iter().enumerate() {
            let _ = writeln!(
                s,
                r#"<text x="{:.1}" y="{:.1}" text-anchor="middle">{}</text>"#,
                xat(i),
                y0 + 14.0,
                short_param(r.param)
            );
        }
        for (mi, m) in METHODS.iter().enumerate() {
            let points: Vec<(usize, &Metrics)> = rs
                .iter()
                .enumerate()
                .filter_map(|(i, r)| match &r.cells[mi] {
                    Some(Ok(x)) => Some((i, x)),
                    _ => None,
                })
                .collect();
            if points.len() > 1 {
                let path: Vec<String> = points
                    .iter()
                    .map(|(i, x)| format!("{:.1},{:.1}", xat(*i), yat(x.max_abs_error)))
                    .collect();
                let _ = writeln!(
                    s,
                    r#"<polyline points="{}" fill="none" stroke="{}" stroke-width="1.5"/>"#,
                    path.join(" "),
                    color(*m)
                );
            }
            for (i, x) in &points {
                let (cx, cy) = (xat(*i), yat(x.max_abs_error));
                let title = format!(
                    "{} {} {}: {:.2} points{}",
                    w.name,
                    rs[*i].param,
                    m.name(),
                    x.max_abs_error,
                    if x.missed.is_empty() {
                        String::new()
                    } else {
                        format!(", missed {}", x.missed.join(", "))
                    }
                );
                if x.missed.is_empty() {
                    let _ = writeln!(
                        s,
                        r#"<circle cx="{cx:.1}" cy="{cy:.1}" r="3" fill="{}"><title>{}</title></circle>"#,
                        color(*m),
                        esc(&title)
                    );
                } else {
                    let _ = writeln!(
                        s,
                        r#"<rect x="{:.1}" y="{:.1}" width="8" height="8" fill="{}" stroke="black"><title>{}</title></rect>"#,
                        cx - 4.0,
                        cy - 4.0,
                        color(*m),
                        esc(&title)
                    );
                }
            }
        }
        let _ = writeln!(s, "</g>");
    }
    s.push_str("</svg>\n");
    s
}

/// Write `bytes` to `path` by the output-path rule (`crate::files`).
fn write_atomic(path: &Path, bytes: &[u8]) -> Result<()> {
    crate::files::write_output(path, |w| w.write_all(bytes))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nice_ceilings() {
        assert_eq!(nice_ceiling(0.0), 1.0);
        assert_eq!(nice_ceiling(0.4), 1.0);
        assert_eq!(nice_ceiling(1.5), 2.0);
        assert_eq!(nice_ceiling(3.0), 5.0);
        assert_eq!(nice_ceiling(37.9), 50.0);
        assert_eq!(nice_ceiling(50.0), 50.0);
    }

    #[test]
    fn short_forms() {
        assert_eq!(short_param(16384), "16384");
        assert_eq!(short_param(1_000_000), "1M");
        assert_eq!(short_param(10_000), "10k");
        assert_eq!(short_param(10007), "10007");
        assert_eq!(short_count(18_052_110), "18.1M");
        assert_eq!(short_count(2_500), "2k");
    }

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
