//! Collectors: simulator hooks that gather profile data during a run.
//!
//! [`ExactCollector`] counts every executed instruction (per translated block,
//! expanded to per-address counts at [`ExactCollector::finish`]) and tracks the
//! call stack from the return-address-stack hints of the RISC-V Unprivileged
//! ISA 20191213 (Table 2.1), producing self and inclusive instruction counts
//! per function and per call-graph arc, Callgrind-style, and the
//! calling-context tree.
//!
//! Collectors store raw addresses and dense function ids from a
//! [`FunctionMap`]; names are resolved after the run by the caller.
#![deny(missing_docs)]

mod call_stack;
mod context_tree;
mod counters;
mod exact;
mod function_map;
mod instrument;
pub mod sample;
mod stacks;
mod tasks;
#[cfg(test)]
mod tests_signals;
#[cfg(test)]
mod tests_traps;
mod traps;

pub use call_stack::{
    ArcStats, CallMemo, CallStack, ContextStats, Finished, FunctionStats, MAX_EXTRA_EVENTS,
};
pub use context_tree::MAX_CONTEXTS;
pub use counters::{
    CounterCollector, CounterConfig, CounterReading, CounterSpec, Rotation, HISTOGRAM_BUCKETS,
};
pub use exact::{ExactCollector, ExactData, InstSite, TrapStats};
pub use function_map::{AddedRange, FunctionMap, ImageCopy};
pub use instrument::{
    Clock, HookAddresses, HookKind, InstrumentCollector, InstrumentConfig, InstrumentData,
    InstrumentedArc, InstrumentedContext, InstrumentedFunction, INSTRUMENT_EVENTS,
};
pub use stacks::{sp_ops, SpOp, StackMark, StackOwner, StackTracker};
pub use tasks::{TaskStats, TaskSwitch, TaskTracker};
pub use traps::{OpenTrap, RootKind, SignalStack, Spread, TrapCauseStats, TrapCounts, TrapTracker};
