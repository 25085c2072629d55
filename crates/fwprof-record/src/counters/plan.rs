//! What `--method counters` checks and resolves before any run: the
//! counters per run, the events, the regions, the call-graph file, the
//! safe-stop address.

use fwprof_profile::{events, Method, Profile};
use fwprof_timing::CoreConfig;

use crate::options::{CountersOptions, RegionMode};
use crate::symbol_files::Symbols;
use crate::Error;

use super::DEFAULT_COUNTERS;

/// What the session checked and resolved before any run.
#[derive(Clone, Debug)]
pub(crate) struct Plan {
    /// Counters per run.
    pub(super) counters: u32,
    /// Event indexes (into `events::TIMING`) each measurement takes a
    /// counter for, in the order given.
    pub(super) events: Vec<usize>,
    /// Resolved regions: (name, start, end).
    pub(super) regions: Vec<(String, u64, u64)>,
    /// The profile of `--call-graph FILE`, read and checked.
    pub(super) call_graph: Option<Box<Profile>>,
    /// `--safe-stop`'s address.
    pub(super) safe_stop: Option<u64>,
}

/// The index of event `name` in `events::TIMING`.
fn event_index(name: &str) -> Option<usize> {
    events::TIMING.iter().position(|&e| e == name)
}

impl Plan {
    /// Check the options against the core and the program.
    ///
    /// # Errors
    /// [`Error::Options`], one line naming the option at fault.
    pub(crate) fn new(
        o: &CountersOptions,
        core: Option<&CoreConfig>,
        symbols: &Symbols,
        limited: bool,
    ) -> Result<Plan, Error> {
        let core_name = core.map_or("(none)", |c| c.name.as_str());
        let counters = match (o.counters, core) {
            (Some(n), _) => n,
            (None, Some(c)) => c.pmu.counters,
            (None, None) => DEFAULT_COUNTERS,
        };
        if counters == 0 {
            return Err(Error::Options(match o.counters {
                Some(_) => "--counters must be at least 1".into(),
                None => format!(
                    "--core {core_name} has no programmable counters ([pmu] counters = 0): give --counters N to pretend it had some"
                ),
            }));
        }
        if let (Some(n), Some(c)) = (o.counters, core) {
            if n > c.pmu.counters {
                return Err(Error::Options(format!(
                    "--counters {n}: --core {core_name} has {} programmable counters ([pmu] counters)",
                    c.pmu.counters
                )));
            }
        }
        let names: Vec<String> = if o.events.is_empty() {
            vec![if core.is_some() {
                events::CYCLES
            } else {
                events::INSTRUCTIONS
            }
            .to_string()]
        } else {
            o.events.clone()
        };
        let mut ev = Vec::new();
        for name in &names {
            let Some(i) = event_index(name) else {
                let ratio = ["cpi", "ipc"].contains(&name.as_str())
                    || name.ends_with("_rate")
                    || name.contains('/');
                return Err(Error::Options(if ratio {
                    format!("--event {name}: a ratio is not a count a counter can hold, and the descent's bound holds only for counts that add up over callees (the study's monotonic metrics, §3.6); count its parts as events")
                } else {
                    format!(
                        "--event {name}: unknown event; the counters count {}",
                        events::TIMING.join(", ")
                    )
                }));
            };
            if i != 0 && core.is_none() {
                return Err(Error::Options(format!(
                    "--event {name} needs --core (events other than instructions come from a core model)"
                )));
            }
            if !ev.contains(&i) {
                ev.push(i);
            }
        }
        if o.region_mode == RegionMode::Exclusive {
            if o.descent.is_some() {
                return Err(Error::Options(
                    "--descent with --region-mode exclusive: the descent bounds a function by its callers' inclusive counts (switched on at entry, off at the return); range-limited counters do not give them".into(),
                ));
            }
            if !core.is_some_and(|c| c.pmu.range_filter) {
                return Err(Error::Options(format!(
                    "--region-mode exclusive: the counters of --core {core_name} cannot be limited to an address range (range_filter = false; standard RISC-V counters have no such filter); use --core arc-hs or a core file with range_filter = true"
                )));
            }
            // A profile's first event is instructions: it takes a counter.
            if !ev.contains(&0) {
                ev.insert(0, 0);
            }
        }
        if ev.len() > counters as usize {
            return Err(Error::Options(format!(
                "{} events need {} counters per measurement; the core has {counters}",
                ev.len(),
                ev.len()
            )));
        }
        if let Some(t) = o.descent {
            if !(t > 0.0 && t <= 100.0) {
                return Err(Error::Options(format!(
                    "--threshold {t}: must be above 0 and at most 100 (percent)"
                )));
            }
            if !o.regions.is_empty() {
                return Err(Error::Options(
                    "--descent measures functions; --region measures regions: give one or the other".into(),
                ));
            }
        }
        let mut regions = Vec::new();
        for r in &o.regions {
            let Some((a, b)) = r.split_once("..") else {
                return Err(Error::Options(format!(
                    "--region {r}: expected START..END (addresses, symbols, symbol+offset or FILE:LINE)"
                )));
            };
            let start =
                resolve(a, symbols).map_err(|m| Error::Options(format!("--region {r}: {m}")))?;
            let end =
                resolve(b, symbols).map_err(|m| Error::Options(format!("--region {r}: {m}")))?;
            if start == end {
                return Err(Error::Options(format!(
                    "--region {r}: START and END are the same address"
                )));
            }
            regions.push((r.clone(), start, end));
        }
        if regions.len() * ev.len() > counters as usize {
            return Err(Error::Options(format!(
                "{} regions of {} events need {} counters; the core has {counters} (one run measures them all)",
                regions.len(),
                ev.len(),
                regions.len() * ev.len()
            )));
        }
        let call_graph = match &o.call_graph {
            None => None,
            Some(path) => Some(Box::new(read_call_graph(path, symbols)?)),
        };
        let safe_stop = match &o.safe_stop {
            None => None,
            Some(text) => {
                if o.descent.is_some() || !regions.is_empty() {
                    return Err(Error::Options(
                        "--safe-stop measures every function in turn: give it without --descent and --region".into(),
                    ));
                }
                if o.slice == 0 {
                    return Err(Error::Options("--slice must be at least 1".into()));
                }
                if !limited && o.call_graph.is_none() {
                    return Err(Error::Options(
                        "--safe-stop: a program that never ends needs --max-instructions N for its call-graph run (or --call-graph FILE, and Ctrl-C to end the measurement)".into(),
                    ));
                }
                Some(
                    resolve(text, symbols)
                        .map_err(|m| Error::Options(format!("--safe-stop {text}: {m}")))?,
                )
            }
        };
        Ok(Plan {
            counters,
            events: ev,
            regions,
            call_graph,
            safe_stop,
        })
    }

    /// The `--call-graph` profile, if one was given (taken out).
    pub(crate) fn take_call_graph(&mut self) -> Option<Profile> {
        self.call_graph.take().map(|b| *b)
    }

    /// Functions measured per run.
    /// The profile's events as indexes into `events::TIMING`:
    /// `instructions`, then the measured events other than it.
    pub(super) fn profile_events(&self) -> Vec<usize> {
        let mut ev = vec![0];
        ev.extend(self.events.iter().copied().filter(|&e| e != 0));
        ev
    }

    pub(super) fn per_run(&self) -> usize {
        (self.counters as usize / self.events.len()).max(1)
    }
}

/// Reads `--call-graph FILE`: a profile of this very program (same
/// SHA-256) that saw every call.
///
/// # Errors
/// [`Error::Options`] naming the file: unreadable, another program, a
/// sampled profile (its call graph misses calls, so the descent's bound
/// would not hold).
fn read_call_graph(path: &std::path::Path, symbols: &Symbols) -> Result<Profile, Error> {
    let shown = path.display();
    let p =
        Profile::read(path).map_err(|e| Error::Options(format!("--call-graph {shown}: {e}")))?;
    let sha = symbols.main.sha256_hex();
    if p.meta.sha256 != sha {
        return Err(Error::Options(format!(
            "--call-graph {shown}: a profile of another program ({}, sha256 {}…; this one is {}…)",
            p.meta.program,
            &p.meta.sha256.get(..12).unwrap_or(""),
            &sha[..12]
        )));
    }
    if p.meta.method == Method::Sample {
        return Err(Error::Options(format!(
            "--call-graph {shown}: a sampled profile misses calls, and the descent's bound needs every caller; give an exact, instrumented or counters profile"
        )));
    }
    Ok(p)
}

/// An address: a number (`0x…` or decimal), a symbol of any kind (a
/// function, a label), `symbol+offset`, or `FILE:LINE` (the lowest address
/// of that source line's code, as GDB's `break FILE:LINE`).
fn resolve(text: &str, symbols: &Symbols) -> Result<u64, String> {
    let text = text.trim();
    let number = |s: &str| {
        s.strip_prefix("0x")
            .or_else(|| s.strip_prefix("0X"))
            .map_or_else(
                || s.parse::<u64>().ok(),
                |h| u64::from_str_radix(h, 16).ok(),
            )
    };
    if let Some(n) = number(text) {
        return Ok(n);
    }
    if let Some((file, line)) = text.rsplit_once(':') {
        if let Ok(line) = line.parse::<u32>() {
            let addrs = symbols
                .main
                .line_addresses(file, line)
                .map_err(|e| format!("{file}:{line}: {e}"))?;
            return addrs.first().copied().ok_or_else(|| {
                format!("no code for source line {file}:{line} (is the program built with -g?)")
            });
        }
    }
    let (name, offset) = match text.rsplit_once('+') {
        Some((n, off)) => match number(off.trim()) {
            Some(o) => (n.trim(), o),
            None => return Err(format!("bad offset `{off}`")),
        },
        None => (text, 0),
    };
    let addr = symbols
        .main
        .symbol_address(name)
        .ok_or_else(|| format!("no symbol named `{name}` in the program"))?;
    Ok(addr.wrapping_add(offset))
}
