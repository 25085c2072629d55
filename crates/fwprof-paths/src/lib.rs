//! Path profiling for fwprof (the LCC/Elbrus study and Ball–Larus 1996;
//! issue 18). This first part recovers each function's control-flow graph
//! from the binary: [`Cfg::build`] decodes a function's bytes into basic
//! blocks, with divergence nodes (several successors), convergence nodes
//! (several predecessors), reverse-postorder numbers, dominator-based back
//! edges and natural loops; indirect jumps get their successors from the
//! targets observed at run time ([`Cfg::add_observed`]), and those edges
//! are marked.
//!
//! Workflow: open the ELF with [`fwprof_symbols::Program`], take a
//! function of its [`fwprof_symbols::FunctionTable`], build its [`Cfg`]
//! (or [`cfgs`] for every function), feed it the indirect targets seen.
#![deny(missing_docs)]

mod cfg;

pub use cfg::{cfgs, Block, Cfg, Edge, EdgeKind, Loop, Term};
