//! Core descriptions: the TOML format documented in `docs/core-format.md`
//! (every key, its unit and default), and the presets shipped in `presets/`
//! (each citing the documentation its numbers come from).
//!
//! Reading is strict: an unknown key, a wrong type, a zero or negative size,
//! a cache geometry that is not a power of two, a key that the chosen
//! predictor does not use, or overlapping memory regions is an error naming
//! the file, the line and the key (`core.toml:12: key `icache.ways`: ...`).

mod toml_tree;

#[cfg(test)]
mod tests;

use std::path::Path;

use crate::params::{
    CacheParams, ClassLatencies, MemoryRegion, PipelineParams, PmuParams, PredictorKind,
    PredictorParams, Replacement,
};
use toml_tree::{Field, Section, Source};

/// Names of the shipped presets (`fwprof record --core NAME`).
pub const PRESETS: &[&str] = &["picorv32", "ibex", "generic", "arc-hs", "u74"];

/// The preset files, embedded at build time; same order as [`PRESETS`].
const PRESET_FILES: [(&str, &str); 5] = [
    ("picorv32", include_str!("../presets/picorv32.toml")),
    ("ibex", include_str!("../presets/ibex.toml")),
    ("generic", include_str!("../presets/generic.toml")),
    ("arc-hs", include_str!("../presets/arc-hs.toml")),
    ("u74", include_str!("../presets/u74.toml")),
];

/// A complete core description.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CoreConfig {
    /// Core name (the preset name, or `name` in the file).
    pub name: String,
    /// Where the numbers come from (documentation cited in the file).
    pub source: String,
    /// The register width the core implements (`xlen = 32` or `64` in the
    /// file): a program of another width cannot run on it. `None` (key
    /// absent): the model applies to either.
    pub xlen: Option<u32>,
    /// Pipeline timing.
    pub pipeline: PipelineParams,
    /// Branch prediction.
    pub predictor: PredictorParams,
    /// Instruction cache, if any.
    pub icache: Option<CacheParams>,
    /// Data cache, if any.
    pub dcache: Option<CacheParams>,
    /// Memory ranges with wait states, matched by address; addresses in no
    /// region cost no wait states. Regions never overlap.
    pub regions: Vec<MemoryRegion>,
    /// The performance-monitoring unit (`[pmu]`; absent: none).
    pub pmu: PmuParams,
}

/// Why a core description was rejected. Every variant displays as one line;
/// those about file contents start with `FILE:LINE:` (1-based line).
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ConfigError {
    /// The file could not be read.
    #[error("{file}: {source}")]
    Io {
        /// The path as given.
        file: String,
        /// The operating-system error.
        source: std::io::Error,
    },
    /// The name is neither a preset nor a file.
    #[error(
        "unknown core `{0}`: not a preset ({list}) and not a .toml file",
        list = PRESETS.join(", ")
    )]
    UnknownPreset(String),
    /// Not TOML, or not the shape of a core description: a syntax error, an
    /// unknown key, a wrong type, a missing required key.
    #[error("{file}:{line}: {}{message}", key_prefix(key.as_deref()))]
    Parse {
        /// The path (or `presets/NAME.toml`).
        file: String,
        /// 1-based line of the key (or of the syntax error).
        line: usize,
        /// Dotted key path, e.g. `pipeline.alu` or `region[1].base`
        /// (`None` for a syntax error).
        key: Option<String>,
        /// What is wrong.
        message: String,
    },
    /// Well-formed but impossible: a zero size, a geometry that is not a
    /// power of two, overlapping regions, ...
    #[error("{file}:{line}: key `{key}`: {message}")]
    Invalid {
        /// The path (or `presets/NAME.toml`).
        file: String,
        /// 1-based line of the key (the line of its table when the key was
        /// left at its default).
        line: usize,
        /// Dotted key path.
        key: String,
        /// What is wrong.
        message: String,
    },
}

fn key_prefix(key: Option<&str>) -> String {
    key.map(|k| format!("key `{k}`: ")).unwrap_or_default()
}

impl CoreConfig {
    /// A preset by name (one of [`PRESETS`]), or else a TOML file by path.
    /// An argument that is no preset is read as a file when it ends in
    /// `.toml` or names an existing file.
    ///
    /// # Errors
    /// [`ConfigError::UnknownPreset`] (listing the presets) for any other
    /// name; [`ConfigError::Io`] when the file cannot be read;
    /// [`ConfigError::Parse`] / [`ConfigError::Invalid`] naming the file,
    /// line and key when its contents are rejected.
    pub fn load(name_or_path: &str) -> Result<CoreConfig, ConfigError> {
        if let Some(core) = CoreConfig::preset(name_or_path) {
            return Ok(core);
        }
        let path = Path::new(name_or_path);
        if !name_or_path.ends_with(".toml") && !path.is_file() {
            return Err(ConfigError::UnknownPreset(name_or_path.to_owned()));
        }
        let text = std::fs::read_to_string(path).map_err(|source| ConfigError::Io {
            file: name_or_path.to_owned(),
            source,
        })?;
        CoreConfig::from_toml(&text, name_or_path)
    }

    /// The shipped preset `name`, or `None` when there is no such preset.
    /// Parses the embedded file (a few microseconds).
    ///
    /// # Panics
    /// If a shipped preset fails validation: a bug in fwprof, caught by the
    /// tests.
    pub fn preset(name: &str) -> Option<CoreConfig> {
        let (_, text) = PRESET_FILES.iter().find(|(n, _)| *n == name)?;
        let file = format!("presets/{name}.toml");
        Some(CoreConfig::from_toml(text, &file).unwrap_or_else(|e| panic!("shipped preset: {e}")))
    }

    /// Reads a core description from TOML `text`; `file` names it in error
    /// messages, and its file stem is the default `name`.
    ///
    /// # Errors
    /// [`ConfigError::Parse`] for TOML syntax errors, unknown keys, wrong
    /// types and missing required keys; [`ConfigError::Invalid`] for values
    /// that cannot describe a core. Both carry the file, the 1-based line
    /// and the dotted key.
    pub fn from_toml(text: &str, file: &str) -> Result<CoreConfig, ConfigError> {
        let src = Source::new(file, text);
        let mut root = src.parse(text)?;
        root.allow_only(&[
            "name",
            "source",
            "xlen",
            "pipeline",
            "predictor",
            "icache",
            "dcache",
            "region",
            "pmu",
        ])?;
        let stem = Path::new(file)
            .file_stem()
            .and_then(|s| s.to_str())
            .unwrap_or(file);
        let name = root.string("name", stem)?.value;
        let source = root.string("source", "")?.value;
        let xlen = match root.u32("xlen", 0)? {
            Field { value: 0, .. } => None,
            Field {
                value: x @ (32 | 64),
                ..
            } => Some(x),
            Field { value, line } => {
                return Err(root.invalid("xlen", line, format!("{value} is not 32 or 64")))
            }
        };
        let pipeline = read_pipeline(root.table_or_empty("pipeline")?)?;
        let predictor = read_predictor(root.table_or_empty("predictor")?)?;
        let icache = root
            .table("icache")?
            .map(|s| read_cache(s, false))
            .transpose()?;
        let dcache = root
            .table("dcache")?
            .map(|s| read_cache(s, true))
            .transpose()?;
        let regions = read_regions(root.tables("region")?)?;
        let pmu = match root.table("pmu")? {
            Some(s) => read_pmu(s)?,
            None => PmuParams::default(),
        };
        Ok(CoreConfig {
            name,
            source,
            xlen,
            pipeline,
            predictor,
            icache,
            dcache,
            regions,
            pmu,
        })
    }
}

impl CoreConfig {
    /// Add the wait states of the machine's memory (a board file's
    /// `[[memory]]` regions, `docs/boards.md`) to the core's own
    /// `[[region]]`s. The core's regions take precedence: a machine region
    /// is added only where no core region lies (split around them), so
    /// regions still never overlap and a core file can still make a range
    /// `uncached`. Each machine region keeps its own `uncached`.
    pub fn add_machine_regions(&mut self, machine: &[MemoryRegion]) {
        for m in machine.iter().filter(|m| m.size > 0) {
            let mut parts = vec![(m.base, m.base.saturating_add(m.size))];
            for r in &self.regions {
                let (cs, ce) = (r.base, r.base.saturating_add(r.size));
                parts = parts
                    .into_iter()
                    .flat_map(|(s, e)| {
                        if ce <= s || cs >= e {
                            vec![(s, e)]
                        } else {
                            [(s, cs.max(s)), (ce.min(e), e)]
                                .into_iter()
                                .filter(|(a, b)| a < b)
                                .collect()
                        }
                    })
                    .collect();
            }
            self.regions
                .extend(parts.into_iter().map(|(s, e)| MemoryRegion {
                    name: m.name.clone(),
                    base: s,
                    size: e - s,
                    wait_states: m.wait_states,
                    uncached: m.uncached,
                }));
        }
    }
}

// The two operand-dependent formulas of the format live next to the reader
// that documents them.
impl ClassLatencies {
    /// Cycles of a shift by `amount` bits (the shift amount as executed:
    /// the low 5 or 6 bits of the operand):
    /// `shift + shift_per_step * (amount / shift_step)
    /// + shift_per_remainder_bit * (amount % shift_step)`, saturating.
    /// PicoRV32 (`shift = 4`, steps of 4 bits at 1 cycle, then 1 cycle per
    /// remaining bit): 4 cycles for `amount = 0`, 14 for `amount = 31`.
    pub fn shift_cycles(&self, amount: u32) -> u32 {
        let step = self.shift_step.max(1);
        self.shift
            .saturating_add(self.shift_per_step.saturating_mul(amount / step))
            .saturating_add(self.shift_per_remainder_bit.saturating_mul(amount % step))
    }

    /// Cycles of a division or remainder whose quotient has magnitude
    /// `quotient` (the unsigned quotient for `divu`/`remu`, its absolute
    /// value for `div`/`rem`, the architectural result for a division by
    /// zero). `div` when `div_variable` is off; otherwise `1 +` the number
    /// of significant bits of `quotient`, at most `div`.
    pub fn div_cycles(&self, quotient: u64) -> u32 {
        if self.div_variable {
            (1 + (u64::BITS - quotient.leading_zeros())).min(self.div)
        } else {
            self.div
        }
    }
}

/// Keys of `[pipeline]`, in documentation order.
const PIPELINE_KEYS: &[&str] = &[
    "alu",
    "shift",
    "shift_per_step",
    "shift_step",
    "shift_per_remainder_bit",
    "branch_taken",
    "branch_not_taken",
    "jal",
    "jalr",
    "load",
    "store",
    "mul",
    "mulh",
    "div",
    "div_variable",
    "csr",
    "fence",
    "system",
    "atomic",
    "fp_simple",
    "fp_mul",
    "fp_div",
    "fp_sqrt",
    "fp_convert",
    "fp_load",
    "fp_store",
    "load_use",
    "forwarding",
    "no_forward_stall",
    "mispredict_penalty",
];

/// A class latency: at least 1 cycle, default 1.
fn latency(s: &mut Section, key: &str) -> Result<u32, ConfigError> {
    let f = s.u32(key, 1)?;
    if f.value == 0 {
        return Err(s.invalid(
            key,
            f.line,
            "must be at least 1 cycle (an instruction occupies the pipeline for a cycle or more)",
        ));
    }
    Ok(f.value)
}

/// `[pipeline]`; absent = all defaults (every class 1 cycle, no hazards).
fn read_pipeline(mut s: Section) -> Result<PipelineParams, ConfigError> {
    s.allow_only(PIPELINE_KEYS)?;
    let shift_step = s.u32("shift_step", 1)?;
    if shift_step.value == 0 {
        return Err(s.invalid("shift_step", shift_step.line, "must be at least 1 bit"));
    }
    let latency = ClassLatencies {
        alu: latency(&mut s, "alu")?,
        shift: latency(&mut s, "shift")?,
        shift_per_step: s.u32("shift_per_step", 0)?.value,
        shift_step: shift_step.value,
        branch_not_taken: latency(&mut s, "branch_not_taken")?,
        branch_taken: latency(&mut s, "branch_taken")?,
        jal: latency(&mut s, "jal")?,
        jalr: latency(&mut s, "jalr")?,
        load: latency(&mut s, "load")?,
        store: latency(&mut s, "store")?,
        mul: latency(&mut s, "mul")?,
        mulh: latency(&mut s, "mulh")?,
        div: latency(&mut s, "div")?,
        csr: latency(&mut s, "csr")?,
        fence: latency(&mut s, "fence")?,
        system: latency(&mut s, "system")?,
        atomic: latency(&mut s, "atomic")?,
        fp_simple: latency(&mut s, "fp_simple")?,
        fp_mul: latency(&mut s, "fp_mul")?,
        fp_div: latency(&mut s, "fp_div")?,
        fp_sqrt: latency(&mut s, "fp_sqrt")?,
        fp_convert: latency(&mut s, "fp_convert")?,
        fp_load: latency(&mut s, "fp_load")?,
        fp_store: latency(&mut s, "fp_store")?,
        shift_per_remainder_bit: s.u32("shift_per_remainder_bit", 0)?.value,
        div_variable: s.bool("div_variable", false)?.value,
    };
    Ok(PipelineParams {
        latency,
        load_use: s.u32("load_use", 0)?.value,
        forwarding: s.bool("forwarding", true)?.value,
        no_forward_stall: s.u32("no_forward_stall", 1)?.value,
        mispredict_penalty: s.u32("mispredict_penalty", 0)?.value,
    })
}

/// Default direction-table size of `bimodal` and `gshare`.
const DEFAULT_ENTRIES: u32 = 1024;

/// `[predictor]`; absent = `kind = "none"`, no BTB.
fn read_predictor(mut s: Section) -> Result<PredictorParams, ConfigError> {
    s.allow_only(&["kind", "entries", "history_bits", "btb_entries"])?;
    let kind = s.string("kind", "none")?;
    let (uses_table, uses_history, uses_btb) = match kind.value.as_str() {
        "none" => (false, false, false),
        "static" => (false, false, true),
        "bimodal" => (true, false, true),
        "gshare" => (true, true, true),
        other => {
            return Err(s.invalid(
                "kind",
                kind.line,
                format!(
                    "unknown predictor \"{other}\"; expected \"none\", \"static\", \"bimodal\" or \"gshare\""
                ),
            ))
        }
    };
    // A key the chosen kind ignores is an error, not a silent no-op.
    for (key, used) in [
        ("entries", uses_table),
        ("history_bits", uses_history),
        ("btb_entries", uses_btb),
    ] {
        if let (false, Some(line)) = (used, s.line_of(key)) {
            return Err(s.invalid(key, line, format!("not used by kind = \"{}\"", kind.value)));
        }
    }
    let entries = s.u32("entries", DEFAULT_ENTRIES)?;
    check_pow2(&s, "entries", &entries)?;
    let log2_entries = entries.value.trailing_zeros();
    let history = s.u32("history_bits", log2_entries)?;
    if history.value > log2_entries {
        return Err(s.invalid(
            "history_bits",
            history.line,
            format!(
                "{} bits of history cannot index {} entries (at most log2(entries) = {log2_entries})",
                history.value, entries.value
            ),
        ));
    }
    let btb = s.u32("btb_entries", 0)?;
    if btb.value != 0 {
        check_pow2(&s, "btb_entries", &btb)?;
    }
    let kind = match kind.value.as_str() {
        "none" => PredictorKind::None,
        "static" => PredictorKind::Static,
        "bimodal" => PredictorKind::Bimodal {
            entries: entries.value,
        },
        _ => PredictorKind::Gshare {
            entries: entries.value,
            history_bits: history.value,
        },
    };
    Ok(PredictorParams {
        kind,
        btb_entries: btb.value,
    })
}

/// Rejects a value that is 0 or not a power of two.
fn check_pow2<T: Into<u64> + Copy>(
    s: &Section,
    key: &str,
    f: &Field<T>,
) -> Result<(), ConfigError> {
    let v: u64 = f.value.into();
    if v == 0 {
        Err(s.invalid(key, f.line, "must be greater than 0"))
    } else if !v.is_power_of_two() {
        Err(s.invalid(key, f.line, format!("{v} is not a power of two")))
    } else {
        Ok(())
    }
}

/// Keys of `[dcache]`.
const DCACHE_KEYS: &[&str] = &[
    "size",
    "ways",
    "line",
    "replacement",
    "write_back",
    "write_allocate",
    "hit_latency",
    "miss_penalty",
];
/// Keys of `[icache]`: no write policies.
const ICACHE_KEYS: &[&str] = &[
    "size",
    "ways",
    "line",
    "replacement",
    "hit_latency",
    "miss_penalty",
];

/// `[icache]` (`data = false`) or `[dcache]`.
fn read_cache(mut s: Section, data: bool) -> Result<CacheParams, ConfigError> {
    if !data {
        for key in ["write_back", "write_allocate"] {
            if let Some(line) = s.line_of(key) {
                return Err(s.invalid(
                    key,
                    line,
                    "not used by [icache]: instruction fetches never write",
                ));
            }
        }
    }
    s.allow_only(if data { DCACHE_KEYS } else { ICACHE_KEYS })?;
    let size = s.size("size", Some(4096))?;
    check_pow2(&s, "size", &size)?;
    let Ok(size_u32) = u32::try_from(size.value) else {
        return Err(s.invalid(
            "size",
            size.line,
            format!("{} bytes is too large (at most 2 GiB)", size.value),
        ));
    };
    let line = s.size("line", Some(32))?;
    check_pow2(&s, "line", &line)?;
    if line.value < 4 {
        return Err(s.invalid(
            "line",
            line.line,
            format!("{} bytes is less than one 4-byte word", line.value),
        ));
    }
    if line.value > size.value {
        return Err(s.invalid(
            "line",
            line.line,
            format!(
                "a {}-byte line does not fit a {}-byte cache",
                line.value, size.value
            ),
        ));
    }
    let ways = s.u32("ways", 1)?;
    if ways.value == 0 {
        return Err(s.invalid("ways", ways.line, "must be greater than 0"));
    }
    let way_bytes = line.value * u64::from(ways.value);
    if way_bytes > size.value {
        return Err(s.invalid(
            "ways",
            ways.line,
            format!(
                "{} ways of {}-byte lines exceed the {}-byte size",
                ways.value, line.value, size.value
            ),
        ));
    }
    if size.value % way_bytes != 0 || !(size.value / way_bytes).is_power_of_two() {
        return Err(s.invalid(
            "ways",
            ways.line,
            format!(
                "size / (line * ways) = {} / {way_bytes} is not a power-of-two number of sets",
                size.value
            ),
        ));
    }
    let replacement = s.string("replacement", "lru")?;
    let replacement = match replacement.value.as_str() {
        "lru" => Replacement::Lru,
        "fifo" => Replacement::Fifo,
        "random" => Replacement::Random,
        other => {
            return Err(s.invalid(
                "replacement",
                replacement.line,
                format!("unknown policy \"{other}\"; expected \"lru\", \"fifo\" or \"random\""),
            ))
        }
    };
    let write_back = s.bool("write_back", data)?.value;
    let write_allocate = s.bool("write_allocate", data)?.value;
    let hit = s.u32("hit_latency", 1)?;
    if hit.value == 0 {
        return Err(s.invalid("hit_latency", hit.line, "must be at least 1 cycle"));
    }
    Ok(CacheParams {
        size: size_u32,
        ways: ways.value,
        line: line.value as u32, // <= size, which fits u32
        replacement,
        write_back,
        write_allocate,
        hit_latency: hit.value,
        miss_penalty: s.u32("miss_penalty", 10)?.value,
    })
}

/// `[pmu]`.
fn read_pmu(mut s: Section) -> Result<PmuParams, ConfigError> {
    s.allow_only(&[
        "counters",
        "width",
        "events",
        "sscofpmf",
        "smcntrpmf",
        "range_filter",
    ])?;
    let d = PmuParams::default();
    let counters = s.u32("counters", d.counters)?;
    if counters.value > 29 {
        return Err(s.invalid(
            "counters",
            counters.line,
            format!(
                "{} programmable counters: RISC-V has at most 29 (mhpmcounter3..31)",
                counters.value
            ),
        ));
    }
    let width = s.u32("width", d.width)?;
    if !(1..=64).contains(&width.value) {
        return Err(s.invalid(
            "width",
            width.line,
            format!("{} bits: must be 1 to 64", width.value),
        ));
    }
    let events = s.string("events", "generic")?;
    let events = match events.value.as_str() {
        "generic" => fwprof_sim::EventCoding::Generic,
        "ibex" => fwprof_sim::EventCoding::Ibex,
        "u74" => fwprof_sim::EventCoding::U74,
        other => {
            return Err(s.invalid(
                "events",
                events.line,
                format!("\"{other}\": the event encodings are \"generic\", \"ibex\" and \"u74\""),
            ))
        }
    };
    Ok(PmuParams {
        counters: counters.value,
        width: width.value,
        sscofpmf: s.bool("sscofpmf", d.sscofpmf)?.value,
        range_filter: s.bool("range_filter", d.range_filter)?.value,
        smcntrpmf: s.bool("smcntrpmf", d.smcntrpmf)?.value,
        events,
    })
}

/// `[[region]]` tables, in file order.
fn read_regions(sections: Vec<Section>) -> Result<Vec<MemoryRegion>, ConfigError> {
    let mut regions: Vec<(MemoryRegion, usize)> = Vec::with_capacity(sections.len());
    for (i, mut s) in sections.into_iter().enumerate() {
        s.allow_only(&["name", "base", "size", "wait_states", "uncached"])?;
        let name = s.string("name", &format!("region[{i}]"))?.value;
        let base = s.size("base", None)?;
        let size = s.size("size", None)?;
        if size.value == 0 {
            return Err(s.invalid("size", size.line, "must be greater than 0"));
        }
        let Some(last) = base.value.checked_add(size.value - 1) else {
            return Err(s.invalid(
                "size",
                size.line,
                format!(
                    "base {:#x} + size {:#x} passes the end of the 64-bit address space",
                    base.value, size.value
                ),
            ));
        };
        if let Some((other, other_line)) = regions
            .iter()
            .find(|(r, _)| base.value <= r.base + (r.size - 1) && r.base <= last)
        {
            return Err(s.invalid(
                "base",
                base.line,
                format!(
                    "[{:#x}, {:#x}] overlaps region \"{}\" [{:#x}, {:#x}] (line {other_line})",
                    base.value,
                    last,
                    other.name,
                    other.base,
                    other.base + (other.size - 1)
                ),
            ));
        }
        let region = MemoryRegion {
            name,
            base: base.value,
            size: size.value,
            wait_states: s.u32("wait_states", 0)?.value,
            uncached: s.bool("uncached", false)?.value,
        };
        regions.push((region, base.line));
    }
    Ok(regions.into_iter().map(|(r, _)| r).collect())
}
