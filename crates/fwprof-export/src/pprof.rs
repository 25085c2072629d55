//! pprof's `profile.proto`, gzipped, for `go tool pprof` and the other
//! readers of that format (the schema is
//! `github.com/google/pprof/proto/profile.proto`; the messages below mirror
//! its field numbers and are encoded with `prost`).
//!
//! What maps to what:
//!
//! * **Sample types**: every event of the profile, the chosen one first and
//!   also named by `default_sample_type` (so `go tool pprof` shows it unless
//!   `-sample_index=NAME` picks another). The type is the event name and
//!   the unit is `count` for every event: each is a number of occurrences
//!   (instructions, cycles, misses, stall cycles), and pprof prints `count`
//!   values as plain numbers (an unknown unit such as `cycles` would be
//!   glued to every number: `5760372cycles`). `period_type` is the chosen
//!   event with `period` 1: every event was counted, none sampled.
//! * **Samples**: one per calling context (node of [`Profile::contexts`])
//!   with a non-zero cost in any event; its values are the context's self
//!   costs and its `location_id`s the context's stack, leaf first. Past
//!   1024 frames recursion is folded into one frame `f [recursion folded]`
//!   (a function of its own) and contexts whose stacks are then equal are
//!   one sample ([`crate::stacks`]). pprof's
//!   *flat* of a function is then fwprof's *self*, and its *cum* (which
//!   counts a function once per sample however often recursion repeats it)
//!   is fwprof's *inclusive*.
//! * **Locations**: the leaf frame of every stack is the location at the
//!   function's entry address, with one line: the function and the line of
//!   its first instruction. A caller's frame is the location of the call
//!   instruction when the profile's arcs name exactly one call site from
//!   that caller to that callee and the program's DWARF is available; its
//!   lines are the DWARF line of the call, innermost first, with the
//!   functions inlined at the call site before the physical caller
//!   (`has_inline_frames`). Otherwise a caller's frame is its entry
//!   location too. fwprof's contexts carry costs per function, not per
//!   instruction, so the leaf cannot be split over source lines:
//!   `pprof -lines`/`-list` put a function's self cost on its first line
//!   (use `fwprof annotate` or the Callgrind export for costs per line).
//! * **Functions**: one per fwprof function (name, source file, first
//!   line), plus one per function that DWARF shows inlined at a call site.
//! * **Mapping**: one, the program: its path (the ELF read, found by
//!   [`fwprof_symbols::find_program`]; else the recorded path), GNU build-id when the ELF has one, and the address
//!   range from the lowest function start to the highest function end. All
//!   four `has_*` flags are set: the profile is fully symbolized by fwprof
//!   (`go tool pprof` must not try to symbolize a RISC-V ELF itself).
//! * `time_nanos` is the start of the recording; `comment`s give the
//!   fwprof version, the command line, the core model, for a partial
//!   run why it is partial, and for a sampled or instrumented profile how
//!   it was taken (`sampled: ... (values are estimates)`; `go tool pprof
//!   -comments`).

use std::collections::HashMap;
use std::io::Write;

use flate2::write::GzEncoder;
use flate2::Compression;
use fwprof_profile::FunctionId;
use fwprof_symbols::Program;
use prost::Message;

use crate::stacks::{Frame, Stacks, FOLDED_SUFFIX};
use crate::{folded, Error, ExportOptions, Profile};

/// The messages of `profile.proto` that fwprof writes, with its field
/// numbers (proto3; unset fields are their zero values).
mod proto {
    /// `perftools.profiles.Profile`.
    #[derive(Clone, PartialEq, prost::Message)]
    pub struct Profile {
        #[prost(message, repeated, tag = "1")]
        pub sample_type: Vec<ValueType>,
        #[prost(message, repeated, tag = "2")]
        pub sample: Vec<Sample>,
        #[prost(message, repeated, tag = "3")]
        pub mapping: Vec<Mapping>,
        #[prost(message, repeated, tag = "4")]
        pub location: Vec<Location>,
        #[prost(message, repeated, tag = "5")]
        pub function: Vec<Function>,
        #[prost(string, repeated, tag = "6")]
        pub string_table: Vec<String>,
        #[prost(int64, tag = "9")]
        pub time_nanos: i64,
        #[prost(message, optional, tag = "11")]
        pub period_type: Option<ValueType>,
        #[prost(int64, tag = "12")]
        pub period: i64,
        #[prost(int64, repeated, tag = "13")]
        pub comment: Vec<i64>,
        #[prost(int64, tag = "14")]
        pub default_sample_type: i64,
    }

    /// `ValueType`: string-table indices of a sample value's type and unit.
    #[derive(Clone, PartialEq, prost::Message)]
    pub struct ValueType {
        #[prost(int64, tag = "1")]
        pub r#type: i64,
        #[prost(int64, tag = "2")]
        pub unit: i64,
    }

    /// `Sample`: a stack (leaf first) and one value per sample type.
    #[derive(Clone, PartialEq, prost::Message)]
    pub struct Sample {
        #[prost(uint64, repeated, tag = "1")]
        pub location_id: Vec<u64>,
        #[prost(int64, repeated, tag = "2")]
        pub value: Vec<i64>,
    }

    /// `Mapping`: the program's address range and identity.
    #[derive(Clone, PartialEq, prost::Message)]
    pub struct Mapping {
        #[prost(uint64, tag = "1")]
        pub id: u64,
        #[prost(uint64, tag = "2")]
        pub memory_start: u64,
        #[prost(uint64, tag = "3")]
        pub memory_limit: u64,
        #[prost(uint64, tag = "4")]
        pub file_offset: u64,
        #[prost(int64, tag = "5")]
        pub filename: i64,
        #[prost(int64, tag = "6")]
        pub build_id: i64,
        #[prost(bool, tag = "7")]
        pub has_functions: bool,
        #[prost(bool, tag = "8")]
        pub has_filenames: bool,
        #[prost(bool, tag = "9")]
        pub has_line_numbers: bool,
        #[prost(bool, tag = "10")]
        pub has_inline_frames: bool,
    }

    /// `Location`: an address and its source lines, innermost first.
    #[derive(Clone, PartialEq, prost::Message)]
    pub struct Location {
        #[prost(uint64, tag = "1")]
        pub id: u64,
        #[prost(uint64, tag = "2")]
        pub mapping_id: u64,
        #[prost(uint64, tag = "3")]
        pub address: u64,
        #[prost(message, repeated, tag = "4")]
        pub line: Vec<Line>,
    }

    /// `Line`: a function and a line in it (0 = unknown).
    #[derive(Clone, PartialEq, prost::Message)]
    pub struct Line {
        #[prost(uint64, tag = "1")]
        pub function_id: u64,
        #[prost(int64, tag = "2")]
        pub line: i64,
    }

    /// `Function`: name, source file and first line.
    #[derive(Clone, PartialEq, prost::Message)]
    pub struct Function {
        #[prost(uint64, tag = "1")]
        pub id: u64,
        #[prost(int64, tag = "2")]
        pub name: i64,
        #[prost(int64, tag = "3")]
        pub system_name: i64,
        #[prost(int64, tag = "4")]
        pub filename: i64,
        #[prost(int64, tag = "5")]
        pub start_line: i64,
    }
}

/// Write `profile` as a gzipped pprof `profile.proto` to `out`, event
/// `opts.event` first and the default sample type.
///
/// Call sites and inlined frames come from the DWARF of
/// [`ExportOptions::program`]; without it callers' frames are their
/// entries.
///
/// # Errors
/// [`Error::Unsupported`] if the profile has no calling contexts, the event
/// index is out of range, the context tree is malformed or a cost does not
/// fit pprof's int64; [`Error::Io`] if writing fails.
pub fn write(profile: &Profile, opts: &ExportOptions, out: &mut dyn Write) -> Result<(), Error> {
    folded::checked_contexts(profile, opts.event)?;
    let message = build(profile, opts, opts.elf())?;
    let mut gz = GzEncoder::new(out, Compression::default());
    gz.write_all(&message.encode_to_vec())?;
    gz.finish()?;
    Ok(())
}

/// pprof's unit of every event: each counts occurrences.
const UNIT: &str = "count";

/// The string table: index 0 is `""`, each string once.
#[derive(Default)]
struct Strings {
    table: Vec<String>,
    index: HashMap<String, i64>,
}

impl Strings {
    fn new() -> Strings {
        let mut s = Strings::default();
        s.id("");
        s
    }

    fn id(&mut self, s: &str) -> i64 {
        if let Some(&i) = self.index.get(s) {
            return i;
        }
        let i = self.table.len() as i64;
        self.table.push(s.to_string());
        self.index.insert(s.to_string(), i);
        i
    }
}

/// Which location a frame is.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
enum Site {
    /// A function's entry (leaf frames, and callers without a known call site).
    Entry(FunctionId),
    /// A call instruction at this address in this function.
    Call(u64, FunctionId),
    /// A frame standing for recursion folded past 1024 frames: the
    /// function's entry, named `f [recursion folded]`.
    Folded(FunctionId),
}

/// Builds the message from the profile's contexts.
struct Builder<'a> {
    profile: &'a Profile,
    program: Option<&'a Program>,
    strings: Strings,
    functions: Vec<proto::Function>,
    physical: HashMap<FunctionId, u64>,
    inlined: HashMap<(String, String), u64>,
    locations: Vec<proto::Location>,
    sites: HashMap<Site, u64>,
}

impl Builder<'_> {
    /// pprof id of fwprof function `f`.
    fn physical(&mut self, f: FunctionId) -> u64 {
        if let Some(&id) = self.physical.get(&f) {
            return id;
        }
        let r = &self.profile.functions[f.index()];
        let id = self.functions.len() as u64 + 1;
        let name = self.strings.id(&r.name);
        self.functions.push(proto::Function {
            id,
            name,
            system_name: name,
            filename: self.strings.id(r.file.as_deref().unwrap_or("")),
            start_line: r.line.map_or(0, i64::from),
        });
        self.physical.insert(f, id);
        id
    }

    /// pprof id of a function DWARF shows inlined, by name and file.
    fn inlined(&mut self, name: &str, file: &str) -> u64 {
        let key = (name.to_string(), file.to_string());
        if let Some(&id) = self.inlined.get(&key) {
            return id;
        }
        let id = self.functions.len() as u64 + 1;
        let name = self.strings.id(name);
        self.functions.push(proto::Function {
            id,
            name,
            system_name: name,
            filename: self.strings.id(file),
            start_line: 0,
        });
        self.inlined.insert(key, id);
        id
    }

    /// pprof id of the location of `site`.
    fn location(&mut self, site: Site) -> u64 {
        if let Some(&id) = self.sites.get(&site) {
            return id;
        }
        let (address, line) = match site {
            Site::Entry(f) => {
                let r = &self.profile.functions[f.index()];
                let line = r.line.map_or(0, i64::from);
                (
                    r.start,
                    vec![proto::Line {
                        function_id: self.physical(f),
                        line,
                    }],
                )
            }
            Site::Call(addr, f) => (addr, self.call_lines(addr, f)),
            Site::Folded(f) => {
                let r = &self.profile.functions[f.index()];
                let name = format!("{}{FOLDED_SUFFIX}", r.name);
                let function_id = self.inlined(&name, r.file.as_deref().unwrap_or(""));
                (
                    r.start,
                    vec![proto::Line {
                        function_id,
                        line: 0,
                    }],
                )
            }
        };
        let id = self.locations.len() as u64 + 1;
        self.locations.push(proto::Location {
            id,
            mapping_id: 1,
            address,
            line,
        });
        self.sites.insert(site, id);
        id
    }

    /// The lines of a call instruction at `addr` in `caller`, innermost
    /// first: DWARF's inlined frames, then `caller` itself.
    fn call_lines(&mut self, addr: u64, caller: FunctionId) -> Vec<proto::Line> {
        let loc = self.program.and_then(|p| p.lines(addr).ok().flatten());
        let Some(loc) = loc else {
            return vec![proto::Line {
                function_id: self.physical(caller),
                line: 0,
            }];
        };
        // Frames innermost first: (name, file, line); the last is the
        // physical function, named as fwprof names it.
        let mut frames = vec![(loc.function.clone(), loc.file.clone(), loc.line)];
        for (k, w) in loc.inlined.iter().enumerate() {
            let name = match loc.inlined.get(k + 1) {
                Some(outer) => Some(outer.function.clone()),
                None => loc.outer_function.clone(),
            };
            frames.push((name, w.call_file.clone(), w.call_line));
        }
        let last = frames.len() - 1;
        let mut lines = Vec::with_capacity(frames.len());
        for (k, (name, file, line)) in frames.into_iter().enumerate() {
            let function_id = if k == last {
                self.physical(caller)
            } else {
                self.inlined(
                    name.as_deref().unwrap_or("??"),
                    file.as_deref().unwrap_or(""),
                )
            };
            lines.push(proto::Line {
                function_id,
                line: line.map_or(0, i64::from),
            });
        }
        lines
    }
}

/// The pprof message for `profile`.
fn build(
    profile: &Profile,
    opts: &ExportOptions,
    program: Option<&Program>,
) -> Result<proto::Profile, Error> {
    let mut b = Builder {
        profile,
        program,
        strings: Strings::new(),
        functions: Vec::new(),
        physical: HashMap::new(),
        inlined: HashMap::new(),
        locations: Vec::new(),
        sites: HashMap::new(),
    };

    // Events: the chosen one first.
    let mut order = vec![opts.event];
    order.extend((0..profile.events.len()).filter(|&e| e != opts.event));
    let sample_type: Vec<proto::ValueType> = order
        .iter()
        .map(|&e| proto::ValueType {
            r#type: b.strings.id(&profile.events[e]),
            unit: b.strings.id(UNIT),
        })
        .collect();

    // The call site from a caller to a callee, when there is exactly one
    // (`None` when there are several); only with DWARF to name its line.
    let mut call_sites: HashMap<(FunctionId, FunctionId), Option<u64>> = HashMap::new();
    if program.is_some() {
        for a in &profile.arcs {
            let Some(caller) = a.caller else { continue };
            if a.calls == 0 {
                continue;
            }
            call_sites
                .entry((caller, a.callee))
                .and_modify(|s| {
                    if *s != Some(a.call_site) {
                        *s = None;
                    }
                })
                .or_insert(Some(a.call_site));
        }
    }

    let stacks = Stacks::new(profile, opts.event)?;
    let values: Vec<Vec<u64>> = order.iter().map(|&e| stacks.values(profile, e)).collect();
    let mut written = vec![false; stacks.len()];
    let mut sample = Vec::new();
    let mut path = Vec::new();
    for i in 0..profile.contexts.len() {
        let node = stacks.node_of(i);
        if written[node] || values.iter().all(|v| v[node] == 0) {
            continue;
        }
        written[node] = true;
        stacks.frames(node, &mut path);
        let mut location_id = Vec::with_capacity(path.len());
        let site_of = |f: Frame| {
            if f.folded {
                Site::Folded(f.function)
            } else {
                Site::Entry(f.function)
            }
        };
        location_id.push(b.location(site_of(path[path.len() - 1])));
        for w in path.windows(2).rev() {
            let (caller, callee) = (w[0], w[1]);
            let site = match call_sites.get(&(caller.function, callee.function)) {
                Some(&Some(addr)) if !caller.folded && !callee.folded => {
                    Site::Call(addr, caller.function)
                }
                _ => site_of(caller),
            };
            location_id.push(b.location(site));
        }
        let value = order
            .iter()
            .zip(&values)
            .map(|(&e, v)| {
                i64::try_from(v[node]).map_err(|_| {
                    Error::Unsupported(format!(
                        "a {} cost of {} does not fit pprof's int64",
                        profile.events[e], v[node]
                    ))
                })
            })
            .collect::<Result<Vec<i64>, Error>>()?;
        sample.push(proto::Sample { location_id, value });
    }

    // The mapping: the program over the functions' address range.
    let memory_start = profile.functions.iter().map(|f| f.start).min().unwrap_or(0);
    let memory_limit = profile.functions.iter().map(|f| f.end).max().unwrap_or(0);
    let file_offset = program
        .and_then(|p| {
            p.sections().iter().find_map(|s| {
                let (off, _) = s.file_range?;
                (s.address <= memory_start && memory_start < s.address + s.size)
                    .then(|| off + (memory_start - s.address))
            })
        })
        .unwrap_or(0);
    let path = match opts.program.and_then(|f| f.path.as_ref()) {
        Some(p) => p.to_string_lossy().into_owned(),
        None => profile.meta.program.clone(),
    };
    let build_id = profile
        .meta
        .build_id
        .clone()
        .or_else(|| program.and_then(Program::build_id_hex))
        .unwrap_or_default();
    let mapping = proto::Mapping {
        id: 1,
        memory_start,
        memory_limit,
        file_offset,
        filename: b.strings.id(&path),
        build_id: b.strings.id(&build_id),
        has_functions: true,
        has_filenames: true,
        has_line_numbers: true,
        has_inline_frames: true,
    };

    let meta = &profile.meta;
    let mut comments = vec![format!("fwprof {}", env!("CARGO_PKG_VERSION"))];
    if !meta.command.is_empty() {
        comments.push(format!("command: {}", meta.command.join(" ")));
    }
    if let Some(core) = &meta.core {
        comments.push(format!("core: {core}"));
    }
    if let Some(why) = &meta.partial {
        comments.push(format!("partial profile: {why}"));
    }
    if let Some(note) = crate::method_note(profile) {
        comments.push(note);
    }
    let comment = comments.iter().map(|c| b.strings.id(c)).collect();
    let default_sample_type = sample_type[0].r#type;
    let period_type = Some(sample_type[0].clone());
    Ok(proto::Profile {
        sample_type,
        sample,
        mapping: vec![mapping],
        location: b.locations,
        function: b.functions,
        string_table: b.strings.table,
        time_nanos: i64::try_from(meta.start_time)
            .ok()
            .and_then(|s| s.checked_mul(1_000_000_000))
            .unwrap_or(0),
        period_type,
        period: 1,
        comment,
        default_sample_type,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use fwprof_profile::{Arc, ContextRecord, FunctionRecord, Meta};
    use std::io::Read;

    /// main -> f -> f (recursion), main -> g; two events.
    fn sample() -> Profile {
        let mut p = Profile::new(
            Meta::new("/nonexistent/prog.elf"),
            vec!["instructions".into(), "cycles".into()],
        );
        for (name, s) in [("main", 0x100), ("f", 0x200), ("g", 0x300)] {
            let mut f = FunctionRecord::new(name, s, s + 0x10);
            f.line = Some(s as u32 / 0x10);
            f.file = Some("p.c".into());
            f.self_cost = vec![0, 0];
            f.inclusive = vec![0, 0];
            p.add_function(f);
        }
        let ctx = |parent, f, cost: [u64; 2]| ContextRecord {
            parent,
            function: FunctionId(f),
            calls: 1,
            self_cost: cost.to_vec(),
        };
        p.contexts = vec![
            ctx(None, 0, [1, 2]),
            ctx(Some(0), 1, [3, 4]),
            ctx(Some(1), 1, [5, 6]),
            ctx(Some(0), 2, [0, 0]),
        ];
        p.arcs = vec![Arc {
            caller: Some(FunctionId(0)),
            callee: FunctionId(1),
            call_site: 0x104,
            calls: 1,
            tail: false,
            inclusive: vec![8, 10],
        }];
        p
    }

    fn decode(bytes: &[u8]) -> proto::Profile {
        let mut raw = Vec::new();
        flate2::read::GzDecoder::new(bytes)
            .read_to_end(&mut raw)
            .unwrap();
        proto::Profile::decode(raw.as_slice()).unwrap()
    }

    #[test]
    fn samples_are_contexts_leaf_first_with_the_chosen_event_first() {
        let mut out = Vec::new();
        write(&sample(), &ExportOptions::new(1), &mut out).unwrap();
        let p = decode(&out);
        let s = |i: i64| p.string_table[i as usize].as_str();
        assert_eq!(p.string_table[0], "");
        assert_eq!(s(p.sample_type[0].r#type), "cycles");
        assert_eq!(s(p.sample_type[0].unit), "count");
        assert_eq!(s(p.sample_type[1].r#type), "instructions");
        assert_eq!(s(p.default_sample_type), "cycles");
        // The zero-cost context main -> g has no sample.
        assert_eq!(p.sample.len(), 3);
        let names = |sample: &proto::Sample| -> Vec<String> {
            sample
                .location_id
                .iter()
                .map(|&l| {
                    let loc = &p.location[l as usize - 1];
                    assert_eq!(loc.id, l);
                    let f = &p.function[loc.line[0].function_id as usize - 1];
                    s(f.name).to_string()
                })
                .collect()
        };
        assert_eq!(names(&p.sample[2]), ["f", "f", "main"]);
        assert_eq!(p.sample[2].value, [6, 5]);
        // Without the ELF, callers are their entries (line of the entry).
        let main = &p.location[p.sample[1].location_id[1] as usize - 1];
        assert_eq!((main.address, main.line[0].line), (0x100, 0x10));
        assert_eq!(p.mapping[0].memory_start, 0x100);
        assert_eq!(p.mapping[0].memory_limit, 0x310);
    }

    #[test]
    fn no_contexts_is_an_error() {
        let mut p = sample();
        p.contexts.clear();
        let e = write(&p, &ExportOptions::new(0), &mut Vec::new()).unwrap_err();
        assert!(e.to_string().contains("re-record it"), "{e}");
    }
}
