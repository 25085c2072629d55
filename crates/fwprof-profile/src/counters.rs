//! The `counters` section: how a profile recorded with emulated hardware
//! performance counters (`record --method counters`, `docs/counters.md`)
//! was measured — the counters and events, the runs, what each run
//! measured, and for each function whether it was measured, bounded and
//! skipped, or never called (the call-graph descent's decisions).

use serde::{Deserialize, Serialize};

use crate::model::{FunctionId, Profile};
use crate::sections::SectionKind;

/// Section `counters`, layout version 1, ancillary (the rest of the
/// profile — functions, costs, arcs — means what it says without it).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct CounterSection {
    /// Programmable counters per run.
    pub counters: u32,
    /// The events each measured function or region took a counter for,
    /// in the order of their values below (names of
    /// [`crate::events::TIMING`]).
    pub events: Vec<String>,
    /// `inclusive` (switched on at entry, off at the return, by injected
    /// probes) or `exclusive` (the counters' address-range filter).
    pub mode: String,
    /// `subsets` (every function, §3.3), `descent` (§3.5), `regions`, or
    /// `cyclic` (`--safe-stop`: every function in turn within one run of a
    /// program that never ends, §3.4).
    pub strategy: String,
    /// The descent's threshold, percent of the global count of the first
    /// event (`None` unless `strategy` is `descent`).
    pub threshold: Option<f64>,
    /// Cycles each probe cost (`--probe-cost`).
    pub probe_cost: u64,
    /// Runs the subset method needs for every function with code
    /// (`ceil(functions / functions per run)`), whatever the strategy.
    pub subset_runs: u64,
    /// The runs made, in order. Run 0 is the call-graph run (every call
    /// and the global count), or with `--call-graph FILE` the global-count
    /// run; the measurement runs follow.
    pub runs: Vec<CounterRun>,
    /// Per function that was considered, what was done.
    pub functions: Vec<CounterFunction>,
    /// Measured regions (`--region`).
    pub regions: Vec<CounterRegion>,
}

impl SectionKind for CounterSection {
    const NAME: &'static str = "counters";
    const VERSION: u32 = 1;
    const CRITICAL: bool = false;
}

/// One run of the program.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct CounterRun {
    /// What it was for: `call-graph`, `global-count` or `measure`.
    pub kind: String,
    /// Functions measured in it.
    pub functions: Vec<FunctionId>,
    /// Instructions it executed.
    pub executed: u64,
    /// Cycles it took, the probes' included (0 without a core model).
    pub cycles: u64,
    /// How it ended (`exit 0`, a fault, a limit), as the run-end rule words it.
    pub end: String,
}

/// What was done for one function.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct CounterFunction {
    /// The function.
    pub function: FunctionId,
    /// `measured`, `skipped` (its bound is below the threshold) or
    /// `not_called`.
    pub decision: String,
    /// The run that measured it (index into [`CounterSection::runs`]).
    pub run: Option<u32>,
    /// Its upper bound when it was chosen or skipped, in the first
    /// event's unit (`None`: a root, or not known yet when it was chosen).
    pub bound: Option<u64>,
    /// Measured values per event of [`CounterSection::events`]: the
    /// inclusive count (mode `inclusive`) or the count inside its range
    /// (mode `exclusive`); empty unless measured.
    pub values: Vec<u64>,
    /// Entries (probes at its first instruction run; 0 in exclusive mode).
    pub entries: u64,
    /// Outermost activations measured.
    pub activations: u64,
    /// Smallest and largest single activation, first event (inclusive mode).
    pub min: u64,
    /// Largest single activation.
    pub max: u64,
    /// Activations by `floor(log2(value))` of the first event.
    pub histogram: Vec<u64>,
    /// Cycles (instructions without a core) during which its counters
    /// were installed: the whole run, or under `cyclic` its slices. The
    /// profile's costs of a cyclic measurement are `values` scaled by the
    /// run's span over this.
    #[serde(default)]
    pub span: u64,
    /// Slices it was measured in (1 unless `cyclic`).
    #[serde(default)]
    pub slices: u64,
}

/// One measured region.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct CounterRegion {
    /// As the user gave it (`START..END`).
    pub name: String,
    /// Where the counters are switched on.
    pub start: u64,
    /// Where they are switched off.
    pub end: u64,
    /// Per event of [`CounterSection::events`], the sum over executions.
    pub totals: Vec<u64>,
    /// Executions measured (from an arrival at `start` to the next at `end`).
    pub executions: u64,
    /// Smallest single execution, first event.
    pub min: u64,
    /// Largest single execution, first event.
    pub max: u64,
    /// Executions by `floor(log2(value))` of the first event.
    pub histogram: Vec<u64>,
    /// Executions still open when the run ended (closed there).
    pub open_at_end: u64,
}

impl CounterSection {
    /// What makes the section not fit `profile`, if anything.
    pub(crate) fn problem(&self, profile: &Profile) -> Option<String> {
        let n = profile.functions.len();
        let bad = self
            .functions
            .iter()
            .map(|f| f.function)
            .chain(self.runs.iter().flat_map(|r| r.functions.iter().copied()))
            .find(|f| f.0 as usize >= n);
        if let Some(f) = bad {
            return Some(format!("counters: function {} out of range", f.0));
        }
        let k = self.events.len();
        if let Some(f) = self
            .functions
            .iter()
            .find(|f| !f.values.is_empty() && f.values.len() != k)
        {
            return Some(format!(
                "counters: function {} has {} values for {k} events",
                f.function.0,
                f.values.len()
            ));
        }
        if let Some(r) = self.regions.iter().find(|r| r.totals.len() != k) {
            return Some(format!(
                "counters: region {} has {} totals for {k} events",
                r.name,
                r.totals.len()
            ));
        }
        None
    }
}
