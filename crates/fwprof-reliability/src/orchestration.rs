//! Child-process orchestration: the embedded workload programs written to
//! a private directory, one `fwprof record` child process per recording,
//! every method of one run recorded and judged, and the runs spread over
//! the machine's cores.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;

use fwprof_profile::{events, Profile};

use crate::catalogue::{Program, Workload, CORE, METHODS, PERIOD, SEED, TIME_PERIOD, TOP};
use crate::metrics::{Metrics, Reference, Run};
use crate::transforms::{instructions_as_cycles, raw, without_hooks};
use crate::Error;

/// The plain build of the workloads (`-O2 -g`, rv64gc Linux, static).
static PLAIN_ELF: &[u8] = include_bytes!("../../../reliability/workloads.rv64-linux.elf");
/// The `-finstrument-functions` build of the same sources.
static INSTRUMENTED_ELF: &[u8] =
    include_bytes!("../../../reliability/workloads-instrument.rv64-linux.elf");
/// The bare-metal forced-context-loss program (`reliability/baremetal/ctxloss.c`).
static BARE_ELF: &[u8] = include_bytes!("../../../reliability/ctxloss.rv32imac.elf");
/// Safety limit of every recording (`--max-instructions`); the largest run
/// executes about 45 M (the instrumented `tiny` workload).
const MAX_INSTRUCTIONS: u64 = 400_000_000;

/// The embedded workload ELFs written to a private temporary directory
/// (removed on drop), and where the recordings go.
pub(crate) struct Suite {
    /// The `fwprof` executable that records.
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
    /// Write the programs into a new directory under `/tmp`; `exe` is the
    /// `fwprof` executable the recordings run.
    ///
    /// Errors: the directory or a program cannot be written.
    pub(crate) fn new(exe: &Path) -> Result<Suite, Error> {
        let exe = exe.to_path_buf();
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
        if let Err(source) = std::fs::create_dir(&dir) {
            return Err(Error::CreateDir { path: dir, source });
        }
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
            if let Err(source) = std::fs::write(&path, bytes) {
                return Err(Error::WriteProgram { path, source });
            }
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
        let reference = Reference::of(&exact);
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
            fwprof_report::compare(reference, p, events::CYCLES, TOP)
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

/// Run the jobs on as many threads as the machine has cores (each runs its
/// recordings one after the other), calling `on_done` as each run ends.
pub(crate) fn run_all(
    suite: &Suite,
    jobs: &[(&'static Workload, u64)],
    on_done: &(impl Fn(RunDone) + Sync),
) -> Vec<Run> {
    let threads = std::thread::available_parallelism()
        .map_or(1, |n| n.get())
        .clamp(1, jobs.len().max(1));
    let next = AtomicUsize::new(0);
    let done = AtomicUsize::new(0);
    let results: Mutex<Vec<Option<Run>>> = Mutex::new((0..jobs.len()).map(|_| None).collect());
    std::thread::scope(|s| {
        for _ in 0..threads {
            s.spawn(|| loop {
                let i = next.fetch_add(1, Ordering::SeqCst);
                let Some(&(w, param)) = jobs.get(i) else {
                    break;
                };
                let run = suite.run(w, param);
                let n = done.fetch_add(1, Ordering::SeqCst) + 1;
                on_done(RunDone {
                    done: n,
                    of: jobs.len(),
                    workload: w,
                    param,
                });
                if let Ok(mut r) = results.lock() {
                    r[i] = Some(run);
                }
            });
        }
    });
    results
        .into_inner()
        .unwrap_or_default()
        .into_iter()
        .flatten()
        .collect()
}

/// Progress of [`crate::run_suite`]: one more run has ended.
#[derive(Clone, Copy, Debug)]
pub struct RunDone {
    /// Runs ended so far, this one included (they end in any order).
    pub done: usize,
    /// Runs in all.
    pub of: usize,
    /// The workload of the run that ended.
    pub workload: &'static Workload,
    /// Its parameter value.
    pub param: u64,
}
