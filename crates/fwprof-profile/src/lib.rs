//! The fwprof profile: the data model that `fwprof record` writes and every
//! report reads, and its versioned file format.
//!
//! A [`Profile`] holds a named event set ([`Profile::events`], the first is
//! always `"instructions"`), per-function self and inclusive costs
//! ([`FunctionRecord`]), per-address self costs with the instruction bits
//! ([`AddressCosts`]), call arcs carrying inclusive cost ([`Arc`]) and trap
//! counts ([`TrapRecord`]) and the calling-context tree ([`ContextRecord`]). Every cost is an event vector: one `u64` per
//! event, in the order of [`Profile::events`]. The crate knows nothing of
//! the simulator; collectors build a `Profile`, [`Profile::write_atomic`]
//! stores it and [`Profile::read`] loads it back after checking it (the
//! format is described in `docs/profile-format.md`; its header carries a
//! CRC-32C of the body, verified on read). [`match_functions`] is the rule by which
//! two profiles' functions are paired; [`output`] holds the rule by
//! which fwprof writes any output path.
//!
//! ```
//! use fwprof_profile::{AddressCost, Arc, FunctionId, FunctionRecord, Meta, Profile};
//!
//! let mut p = Profile::new(Meta::new("prog.elf"), vec!["instructions".into()]);
//! let main = p.add_function(FunctionRecord::new("main", 0x100, 0x110));
//! p.costs.push(AddressCost { addr: 0x100, function: main, len: 4, raw: 0x0000_0013, cost: vec![3] }).unwrap();
//! p.functions[main.index()].calls = 1;
//! p.functions[main.index()].self_cost = vec![3];
//! p.functions[main.index()].inclusive = vec![3];
//! p.arcs.push(Arc::spontaneous(main, 1, vec![3]));
//! p.totals = vec![3];
//! p.check_invariants().unwrap();
//!
//! let dir = std::env::temp_dir().join(format!("fwprof-doc-{}", std::process::id()));
//! std::fs::create_dir_all(&dir).unwrap();
//! let path = dir.join("fwprof.data");
//! p.write_atomic(&path).unwrap();
//! let back = Profile::read(&path).unwrap();
//! assert_eq!(back, p);
//! # std::fs::remove_dir_all(&dir).unwrap();
//! ```
#![deny(missing_docs)]

mod costs;
mod counters;
mod environment;
mod error;
pub mod events;
mod file;
mod images;
mod invariants;
mod matching;
mod model;
pub mod output;
mod owners;
mod privilege;
pub mod sections;
mod spaces;
mod tasks;
mod threads;
mod traps;
mod validate;

pub use costs::{AddressCost, AddressCostRef, AddressCosts};
pub use counters::{CounterFunction, CounterRegion, CounterRun, CounterSection};
pub use environment::environment_sha256;
pub use error::Error;
pub use file::{FORMAT_VERSION, MAGIC, OLDEST_FORMAT_VERSION};
pub use images::{Image, ImageSection};
pub use matching::match_functions;
pub use model::{
    Arc, ContextRecord, EngineInfo, FunctionId, FunctionRecord, InstrumentInfo, InstrumentRecord,
    Meta, Method, Profile, SampleRecord, SamplingInfo, Target, TrapRecord,
};
pub use privilege::{ContextLevelCost, FunctionLevelCost, Level, LevelCost, PrivilegeSection};
pub use sections::{Section, SectionKind, Sections};
pub use spaces::{AddressSpace, AddressSpaceSection, SpaceFunctionCost};
pub use tasks::{StackRecord, StackSection, TaskRecord, TaskSection};
pub use threads::{ThreadRecord, ThreadSection};
pub use traps::{trap_context_costs, Spread, TrapCause, TrapLatency, TrapSection};
