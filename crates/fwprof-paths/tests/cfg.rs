//! Control-flow graphs recovered from binaries (issue 18, part 1):
//! * hand-written assembly functions (tests/paths/cfg.S) give exactly the
//!   expected blocks, edges, divergence and convergence nodes, RPO
//!   numbers, back edges, loops and irreducible edges;
//! * on corpus programs run in the simulator, every executed transfer
//!   inside a function (not a call, return or trap) is an edge of the
//!   recovered graph, once the indirect jumps' observed targets are added.

mod common;

use common::{cfg_of, program, repo};

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use fwprof_isa::Inst;
use fwprof_paths::{Cfg, EdgeKind, Term};
use fwprof_sim::{jump_kind, BlockId, Hooks, JumpKind, Tier, TrapInfo, TrapReturn};
use fwprof_symbols::Program;

/// The graph as (block start offset, end offset, term), edges as (from
/// offset, to offset, kind).
type Shape = (Vec<(u64, u64, Term)>, Vec<(u64, u64, EdgeKind)>);

fn shape(c: &Cfg) -> Shape {
    let off = |a: u64| a - c.start;
    (
        c.blocks
            .iter()
            .map(|b| (off(b.start), off(b.end), b.term))
            .collect(),
        c.edges
            .iter()
            .map(|e| {
                (
                    off(c.blocks[e.from].start),
                    off(c.blocks[e.to].start),
                    e.kind,
                )
            })
            .collect(),
    )
}

/// Block offsets of `c`'s back edges, irreducible edges, divergence and
/// convergence nodes.
fn offsets(c: &Cfg, edges: &[usize]) -> Vec<(u64, u64)> {
    edges
        .iter()
        .map(|&i| {
            let e = c.edges[i];
            (
                c.blocks[e.from].start - c.start,
                c.blocks[e.to].start - c.start,
            )
        })
        .collect()
}

fn nodes(c: &Cfg, pick: impl Fn(usize) -> bool) -> Vec<u64> {
    (0..c.blocks.len())
        .filter(|&b| pick(b))
        .map(|b| c.blocks[b].start - c.start)
        .collect()
}

#[test]
fn straight_line_code_and_calls_are_one_block() {
    let p = program();
    for (name, len, term) in [
        ("straight", 12, Term::Return),
        ("caller", 24, Term::Return),
        ("tail", 8, Term::TailCall),
        ("handler", 8, Term::Xret),
    ] {
        let c = cfg_of(&p, name);
        assert_eq!(shape(&c), (vec![(0, len, term)], vec![]), "{name}");
        assert_eq!(c.blocks[0].rpo, Some(0));
        assert!(c.loops.is_empty() && c.back_edges.is_empty());
    }
}

#[test]
fn a_diamond_has_one_divergence_and_one_convergence() {
    let c = cfg_of(&program(), "diamond");
    use EdgeKind::*;
    assert_eq!(
        shape(&c),
        (
            vec![
                (0, 4, Term::Branch),
                (4, 12, Term::Jump),
                (12, 16, Term::Fall),
                (16, 20, Term::Return)
            ],
            vec![(0, 4, Fall), (0, 12, Taken), (4, 16, Jump), (12, 16, Fall)]
        )
    );
    assert_eq!(nodes(&c, |b| c.is_divergence(b)), vec![0]);
    assert_eq!(nodes(&c, |b| c.is_convergence(b)), vec![16]);
    // Depth first along the fall-through edge first: 0, 12, 4, 16.
    let rpo: Vec<_> = c.blocks.iter().map(|b| b.rpo.unwrap()).collect();
    assert_eq!(rpo, vec![0, 2, 1, 3]);
    assert!(c.loops.is_empty());
}

#[test]
fn a_loop_with_an_early_exit() {
    let c = cfg_of(&program(), "early_exit");
    use EdgeKind::*;
    assert_eq!(
        shape(&c).1,
        vec![
            (0, 4, Fall),
            (0, 16, Taken),
            (4, 8, Fall),
            (4, 16, Taken),
            (8, 16, Fall),
            (8, 4, Taken)
        ]
    );
    assert_eq!(offsets(&c, &c.back_edges), vec![(8, 4)]);
    assert_eq!(c.loops.len(), 1);
    assert_eq!(c.blocks[c.loops[0].header].start - c.start, 4);
    assert_eq!(c.loops[0].body, vec![1, 2]);
    assert_eq!(nodes(&c, |b| c.is_convergence(b)), vec![4, 16]);
    assert_eq!(nodes(&c, |b| c.is_divergence(b)), vec![0, 4, 8]);
    assert!(c.irreducible.is_empty());
}

#[test]
fn nested_loops_and_a_self_loop() {
    let c = cfg_of(&program(), "nested");
    let blocks: Vec<_> = shape(&c).0.iter().map(|b| (b.0, b.1)).collect();
    assert_eq!(blocks, vec![(0, 4), (4, 8), (8, 20), (20, 28), (28, 36)]);
    let mut back = offsets(&c, &c.back_edges);
    back.sort();
    assert_eq!(back, vec![(8, 8), (20, 4)]);
    let loops: Vec<_> = c
        .loops
        .iter()
        .map(|l| (c.blocks[l.header].start - c.start, l.body.clone()))
        .collect();
    assert_eq!(loops, vec![(4, vec![1, 2, 3]), (8, vec![2])]);
}

#[test]
fn an_irreducible_cycle_is_told_apart() {
    let c = cfg_of(&program(), "irreducible");
    assert!(c.back_edges.is_empty());
    assert_eq!(offsets(&c, &c.irreducible), vec![(12, 4)]);
    assert!(c.loops.is_empty());
}

#[test]
fn a_jump_table_gets_its_successors_from_run_time_and_marks_them() {
    let mut c = cfg_of(&program(), "switch3");
    let (blocks, edges) = shape(&c);
    assert_eq!(
        blocks,
        vec![
            (0, 24, Term::Indirect),
            (24, 32, Term::Return),
            (32, 40, Term::Return),
            (40, 48, Term::Return)
        ]
    );
    assert!(edges.is_empty());
    assert_eq!(c.blocks[2].rpo, None, "not reached before it is observed");
    let jr = c.start + 20;
    assert!(c.add_observed(jr, c.start + 32));
    assert!(!c.add_observed(jr, c.start + 32), "known already");
    assert!(
        !c.add_observed(c.start, c.start + 40),
        "not an indirect jump"
    );
    assert!(c.add_observed(jr, c.start + 40));
    assert_eq!(
        shape(&c).1,
        vec![(0, 32, EdgeKind::Indirect), (0, 40, EdgeKind::Indirect)]
    );
    assert!(c.has_observed_successors(0));
    assert!(c.is_divergence(0));
    assert!(c.blocks[2].rpo.is_some());
    assert_eq!(c.blocks[1].rpo, None);
}

/// Records the executed transfers between blocks: (address of the last
/// instruction that ran, the instruction, the next address).
#[derive(Default)]
struct Transfers {
    blocks: Vec<(Vec<u64>, Vec<Inst>)>,
    prev: Option<(u64, Inst)>,
    seen: BTreeSet<(u64, u64, u32)>,
    raw: BTreeMap<(u64, u64), Inst>,
}

impl Hooks for Transfers {
    const WANTS_BLOCK_EXEC: bool = true;
    fn on_block_translated(&mut self, id: BlockId, pcs: &[u64], insts: &[Inst]) {
        let i = id.0 as usize;
        if self.blocks.len() <= i {
            self.blocks.resize(i + 1, (Vec::new(), Vec::new()));
        }
        self.blocks[i] = (pcs.to_vec(), insts.to_vec());
    }
    fn on_block_exec(&mut self, id: BlockId, _executed: u64) {
        let (pcs, insts) = &self.blocks[id.0 as usize];
        if let Some((from, inst)) = self.prev.take() {
            self.raw.insert((from, pcs[0]), inst);
            self.seen.insert((from, pcs[0], inst.raw));
        }
        self.prev = Some((*pcs.last().unwrap(), *insts.last().unwrap()));
    }
    fn on_block_cut(&mut self, id: BlockId, executed: u32) {
        let (pcs, insts) = &self.blocks[id.0 as usize];
        let k = executed as usize;
        self.prev = (k > 0).then(|| (pcs[k - 1], insts[k - 1]));
    }
    fn on_trap(&mut self, _trap: TrapInfo, _instret: u64, _sp: u64) {
        self.prev = None;
    }
    fn on_trap_return(&mut self, _ret: &TrapReturn) {
        self.prev = None;
    }
    fn on_cache_flush(&mut self) {
        self.blocks.clear();
    }
}

/// Run `elf` in the simulator (interpreter) and check its transfers.
fn check_program(elf: &Path) -> usize {
    let t = common::run_with(elf, Transfers::default(), Tier::Interp);
    let program = Program::open(elf).unwrap();
    let table = program.functions();
    let mut graphs: BTreeMap<u64, Cfg> = BTreeMap::new();
    let mut checked = 0;
    for (&(from, to), inst) in &t.raw {
        let (Some(a), Some(b)) = (table.lookup(from), table.lookup(to)) else {
            continue;
        };
        let f = table.get(a);
        if a != b || f.unknown {
            continue; // a call, a return, a tail call: between functions
        }
        if matches!(
            jump_kind(inst),
            Some(JumpKind::Call | JumpKind::Return | JumpKind::CallReturn)
        ) {
            continue; // recursion: a call or return within one function
        }
        let g = graphs
            .entry(f.start)
            .or_insert_with(|| Cfg::build(&program, f));
        if let Some(blk) = g.block_at(from) {
            if g.blocks[blk].term == Term::Indirect && g.blocks[blk].last == from {
                g.add_observed(from, to);
            }
        }
        assert!(
            g.has_transfer(from, to),
            "{}: {from:#x} -> {to:#x} ({}) is not an edge of {}'s graph",
            elf.display(),
            fwprof_isa::disasm(
                inst,
                from,
                fwprof_isa::Xlen::Rv64,
                fwprof_isa::Style::Pseudo
            ),
            f.name
        );
        checked += 1;
    }
    checked
}

#[test]
fn every_executed_transfer_is_an_edge_on_corpus_programs() {
    let dir = repo().join("tests/corpus/build");
    let mut total = 0;
    for name in [
        "dhrystone.rv32imac.O2",
        "printf_fmt.rv32imac.O2",
        "qsort.rv32imac.O2",
        "funcptr.rv64gc.O2",
        "tailcalls.rv64-linux.O2",
        "recursion.rv32imac.O0",
        "setjmp.rv32imac.O2",
        "strings.rv64gc.Os",
        "printf_fmt.rv64-linux.O2",
    ] {
        let elf = dir.join(format!("{name}.elf"));
        if !elf.exists() {
            panic!("{} missing: run tests/corpus/build.sh", elf.display());
        }
        total += check_program(&elf);
    }
    assert!(total > 3000, "only {total} distinct transfers checked");
}
