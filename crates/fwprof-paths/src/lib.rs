//! Path profiling for fwprof (the LCC/Elbrus study and Ball–Larus 1996;
//! issue 18). This first part recovers each function's control-flow graph
//! from the binary: [`Cfg::build`] decodes a function's bytes into basic
//! blocks, with divergence nodes (several successors), convergence nodes
//! (several predecessors), reverse-postorder numbers, dominator-based back
//! edges and natural loops; indirect jumps get their successors from the
//! targets observed at run time ([`Cfg::add_observed`]), and those edges
//! are marked.
//!
//! [`Numbering`] gives every acyclic path of a graph its Ball–Larus number
//! and regenerates a path from its number; [`PathCounter`] counts paths
//! from a stream of edges exactly as Ball–Larus instrumentation would.
//!
//! Workflow: open the ELF with [`fwprof_symbols::Program`], take a
//! function of its [`fwprof_symbols::FunctionTable`], build its [`Cfg`]
//! (or [`cfgs`] for every function), feed it the indirect targets seen.
#![deny(missing_docs)]

mod ball_larus;
mod cfg;
mod collect;

pub use ball_larus::{Activation, Node, Numbering, PathCounter};
pub use cfg::{cfgs, Block, Cfg, Edge, EdgeKind, Loop, Term};
pub use collect::{number_of, FunctionPaths, PathCollector, PathRecord, PathStats, MAX_PATHS};
