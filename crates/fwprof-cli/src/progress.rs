//! `fwprof record`'s progress line and end-of-run summary on stderr.
//!
//! The simulator publishes how many instructions it has executed into an
//! [`AtomicU64`] between slices of its run (see [`fwprof_record::SLICE`]:
//! the run is split into pieces with `Simulator::run`'s limit, so its inner
//! loop is untouched). A separate thread reads that counter a
//! few times per second and redraws one `indicatif` line: elapsed time,
//! instructions simulated, MIPS (millions of simulated instructions per
//! second of wall time). The line is drawn only when stderr is a terminal
//! and `--quiet` was not given, and is erased when the run ends.

use std::io::IsTerminal;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::mpsc::{self, RecvTimeoutError, Sender};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use indicatif::{HumanCount, ProgressBar, ProgressDrawTarget, ProgressStyle};

/// How often the progress line is redrawn.
const TICK: Duration = Duration::from_millis(250);

/// How much `record` says on stderr.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Verbosity {
    /// `--quiet`: neither progress line nor summary (diagnostics still appear).
    Quiet,
    /// Default: progress line and one-line summary when stderr is a terminal.
    Normal,
    /// `-v`: the summary always, with the simulated instruction count, the
    /// simulation time and MIPS.
    Verbose,
}

impl Verbosity {
    /// From `record`'s `--quiet` and `-v` flags (clap makes them exclusive).
    pub fn from_flags(quiet: bool, verbose: u8) -> Verbosity {
        match (quiet, verbose) {
            (true, _) => Verbosity::Quiet,
            (false, 0) => Verbosity::Normal,
            _ => Verbosity::Verbose,
        }
    }
}

/// The line as drawn, shared by the drawing thread and the output hook.
#[derive(Default)]
struct Line {
    /// The bar while it is on the terminal.
    bar: Option<ProgressBar>,
    /// When the guest (or a diagnostic) last wrote to the terminal.
    last_output: Option<Instant>,
}

impl Line {
    /// Erase the line, if drawn.
    fn clear(&mut self) {
        if let Some(bar) = self.bar.take() {
            bar.finish_and_clear();
        }
    }
}

/// How long the guest must be silent before the line is drawn again: a
/// program that prints steadily is not interleaved with progress lines.
const QUIET_BEFORE_REDRAW: Duration = Duration::from_secs(1);

/// The drawing thread and how to stop it.
struct Ticker {
    stop: Sender<()>,
    thread: JoinHandle<()>,
    line: Arc<Mutex<Line>>,
}

impl Ticker {
    fn end(self) {
        let _ = self.stop.send(());
        let _ = self.thread.join();
        lock(&self.line).clear();
    }
}

/// The line's state; a panic elsewhere while it was held leaves it usable.
fn lock(line: &Mutex<Line>) -> std::sync::MutexGuard<'_, Line> {
    line.lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// A running progress display. Create it just before the simulation starts,
/// hand [`Progress::counter`] to the run loop and [`Progress::output_hook`]
/// to the guest environment, and call [`Progress::finish`] when the
/// simulation has ended.
pub struct Progress {
    executed: Arc<AtomicU64>,
    start: Instant,
    ticker: Option<Ticker>,
    verbosity: Verbosity,
    terminal: bool,
}

impl Progress {
    /// Start timing; start the progress line if stderr is a terminal and
    /// `verbosity` is not [`Verbosity::Quiet`].
    pub fn start(verbosity: Verbosity) -> Progress {
        let terminal = std::io::stderr().is_terminal();
        let executed = Arc::new(AtomicU64::new(0));
        let start = Instant::now();
        let ticker = (terminal && verbosity != Verbosity::Quiet).then(|| {
            let line = Arc::new(Mutex::new(Line::default()));
            let (stop, rx) = mpsc::channel::<()>();
            let (shared, count) = (line.clone(), executed.clone());
            let draw = move || {
                let mut l = lock(&shared);
                if l.last_output
                    .is_some_and(|t| t.elapsed() < QUIET_BEFORE_REDRAW)
                {
                    return;
                }
                let text = progress_text(count.load(Ordering::Relaxed), start.elapsed());
                match &l.bar {
                    Some(bar) => bar.set_message(text),
                    None => {
                        let bar = ProgressBar::with_draw_target(None, ProgressDrawTarget::stderr());
                        bar.set_style(
                            ProgressStyle::with_template("fwprof: {msg}")
                                .unwrap_or_else(|_| ProgressStyle::default_spinner()),
                        );
                        bar.set_message(text);
                        l.bar = Some(bar);
                    }
                }
            };
            // Drawn at once, then every TICK, until stopped or the sender
            // is dropped.
            draw();
            let thread = std::thread::spawn(move || {
                while let Err(RecvTimeoutError::Timeout) = rx.recv_timeout(TICK) {
                    draw();
                }
            });
            Ticker { stop, thread, line }
        });
        Progress {
            executed,
            start,
            ticker,
            verbosity,
            terminal,
        }
    }

    /// The counter the simulation publishes its executed-instruction count to.
    pub fn counter(&self) -> &AtomicU64 {
        &self.executed
    }

    /// What the guest environment runs before anything is written to the
    /// terminal during the run: erases the progress line, which is drawn
    /// again once the guest has been silent for a second. `None` when no
    /// line is drawn.
    pub fn output_hook(&self) -> Option<fwprof_os::OutputHook> {
        let line = self.ticker.as_ref()?.line.clone();
        Some(Arc::new(move || {
            let mut l = lock(&line);
            l.clear();
            l.last_output = Some(Instant::now());
        }))
    }

    /// Stop and erase the progress line; returns the simulation's wall time.
    pub fn finish(mut self) -> Finished {
        let elapsed = self.start.elapsed();
        if let Some(t) = self.ticker.take() {
            t.end();
        }
        Finished {
            elapsed,
            verbosity: self.verbosity,
            terminal: self.terminal,
        }
    }
}

impl Drop for Progress {
    /// An error ended `record` early: still erase the line.
    fn drop(&mut self) {
        if let Some(t) = self.ticker.take() {
            t.end();
        }
    }
}

/// A finished simulation's timing, for the summary.
pub struct Finished {
    elapsed: Duration,
    verbosity: Verbosity,
    terminal: bool,
}

impl Finished {
    /// The end-of-run summary for a profile written to `output` after
    /// `executed` instructions, with `functions` functions that have a cost:
    /// printed on a terminal by default, always with `-v` (adding the
    /// simulation time and MIPS), never with `--quiet`. `None` when nothing
    /// is to be printed.
    pub fn summary(&self, output: &str, executed: u64, functions: usize) -> Option<String> {
        match self.verbosity {
            Verbosity::Quiet => None,
            Verbosity::Normal if !self.terminal => None,
            Verbosity::Normal => Some(format!(
                "fwprof: wrote {output} ({} instructions, {functions} functions with cost)",
                HumanCount(executed)
            )),
            Verbosity::Verbose => Some(format!(
                "fwprof: wrote {output} ({functions} functions with cost); simulated {}",
                rate_text(executed, self.elapsed)
            )),
        }
    }
}

/// The progress line's message:
/// `00:00:04 simulated 1,234,567 instructions, 2.4 MIPS`.
fn progress_text(executed: u64, elapsed: Duration) -> String {
    let s = elapsed.as_secs();
    format!(
        "{:02}:{:02}:{:02} simulated {} instructions, {:.1} MIPS",
        s / 3600,
        s / 60 % 60,
        s % 60,
        HumanCount(executed),
        mips(executed, elapsed)
    )
}

/// Millions of instructions per second of wall time (0 for no time).
fn mips(executed: u64, elapsed: Duration) -> f64 {
    let secs = elapsed.as_secs_f64();
    if secs > 0.0 {
        executed as f64 / secs / 1e6
    } else {
        0.0
    }
}

/// `1,234,567 instructions in 0.52 s, 2.37 MIPS`.
fn rate_text(executed: u64, elapsed: Duration) -> String {
    format!(
        "{} instructions in {:.2} s, {:.2} MIPS",
        HumanCount(executed),
        elapsed.as_secs_f64(),
        mips(executed, elapsed)
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rate_and_summaries() {
        assert_eq!(
            rate_text(3_000_000, Duration::from_millis(1500)),
            "3,000,000 instructions in 1.50 s, 2.00 MIPS"
        );
        assert_eq!(
            progress_text(12_345_678, Duration::from_secs(4)),
            "00:00:04 simulated 12,345,678 instructions, 3.1 MIPS"
        );
        assert_eq!(
            rate_text(5, Duration::ZERO),
            "5 instructions in 0.00 s, 0.00 MIPS"
        );
        let f = |verbosity, terminal| Finished {
            elapsed: Duration::from_secs(2),
            verbosity,
            terminal,
        };
        assert_eq!(f(Verbosity::Quiet, true).summary("p", 1, 1), None);
        assert_eq!(f(Verbosity::Normal, false).summary("p", 1, 1), None);
        assert_eq!(
            f(Verbosity::Normal, true).summary("p.fwprof", 1234, 7),
            Some("fwprof: wrote p.fwprof (1,234 instructions, 7 functions with cost)".into())
        );
        assert_eq!(
            f(Verbosity::Verbose, false).summary("p.fwprof", 4_000_000, 7),
            Some(
                "fwprof: wrote p.fwprof (7 functions with cost); simulated 4,000,000 instructions in 2.00 s, 2.00 MIPS"
                    .into()
            )
        );
        assert_eq!(Verbosity::from_flags(true, 0), Verbosity::Quiet);
        assert_eq!(Verbosity::from_flags(false, 0), Verbosity::Normal);
        assert_eq!(Verbosity::from_flags(false, 2), Verbosity::Verbose);
    }
}
