//! What the tests of `fwprof-paths` share: the repository, the
//! hand-written graphs' ELF, a function's graph, and a run of a program
//! in the simulator with given hooks.
#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicBool;

use fwprof_os::{RunConfig, Sandbox};
use fwprof_paths::Cfg;
use fwprof_sim::{Hooks, Memory, Simulator, Tier};
use fwprof_symbols::Program;

/// The repository's root.
pub fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../..")
        .canonicalize()
        .unwrap()
}

/// tests/paths/cfg.rv32imac.elf, the hand-written functions.
pub fn program() -> Program {
    Program::open(repo().join("tests/paths/cfg.rv32imac.elf")).unwrap()
}

/// The graph of `program`'s function `name`.
pub fn cfg_of(program: &Program, name: &str) -> Cfg {
    let (_, f) = program
        .functions()
        .iter()
        .find(|(_, f)| f.name == name)
        .unwrap_or_else(|| panic!("no function {name}"));
    Cfg::build(program, f)
}

/// Run `elf` (at most 50 million instructions) with `hooks` on `tier`;
/// the hooks afterwards.
pub fn run_with<H: Hooks>(elf: &Path, hooks: H, tier: Tier) -> H {
    let data = std::fs::read(elf).unwrap();
    let cfg = RunConfig {
        program: PathBuf::from(elf.file_name().unwrap()),
        args: vec![],
        env: vec![],
        target: None,
        ram: (0x8000_0000, 128 << 20),
        sandbox: Sandbox::default(),
        machine: Default::default(),
    };
    let mut mem = Memory::new();
    let (prog, mut env) = fwprof_os::load(&data, &cfg, &mut mem).unwrap();
    env.capture_console(Vec::new());
    let mut sim = Simulator::new(mem, &prog, env, hooks);
    sim.set_tier(tier, 0);
    sim.run(50_000_000, &AtomicBool::new(false)).unwrap();
    sim.into_hooks()
}
