//! Ball–Larus numbering and counting (issue 18, part 2's core) on the
//! hand-written graphs of tests/paths/cfg.S, with their known paths, and
//! on every function of corpus programs: numbers regenerate to distinct
//! paths whose edge values sum to the number, and on random walks the
//! path counts sum to the edge counts they cover.

mod common;

use common::{cfg_of, program, repo};

use std::collections::HashMap;

use fwprof_paths::{Activation, Cfg, Node, Numbering, PathCounter};
use fwprof_symbols::Program;

/// Block offsets of a regenerated path (ENTRY and EXIT left out).
fn offsets(c: &Cfg, nodes: &[Node]) -> Vec<u64> {
    nodes
        .iter()
        .filter_map(|n| match n {
            Node::Block(b) => Some(c.blocks[*b].start - c.start),
            _ => None,
        })
        .collect()
}

/// Walk `blocks` (by offset) as one activation, counting.
fn walk(c: &Cfg, n: &Numbering, counter: &mut PathCounter, offs: &[u64]) {
    let mut a: Activation = counter.enter(n);
    assert_eq!(c.blocks[0].start - c.start, offs[0]);
    for &o in &offs[1..] {
        let to = c.block_at(c.start + o).unwrap();
        assert!(counter.edge(n, &mut a, to), "no edge to +{o}");
    }
    assert!(counter.exit(n, &a));
}

/// The paths counted, as block-offset sequences with their counts.
fn counted(c: &Cfg, n: &Numbering, counter: &PathCounter) -> Vec<(Vec<u64>, u64)> {
    let mut v: Vec<_> = counter
        .counts
        .iter()
        .map(|(&num, &k)| (offsets(c, &n.path(num).unwrap()), k))
        .collect();
    v.sort();
    v
}

#[test]
fn a_diamond_has_two_paths() {
    let p = program();
    let c = cfg_of(&p, "diamond");
    let n = Numbering::new(&c).unwrap();
    assert_eq!(n.total, 2);
    let mut k = PathCounter::default();
    walk(&c, &n, &mut k, &[0, 4, 16]);
    walk(&c, &n, &mut k, &[0, 4, 16]);
    walk(&c, &n, &mut k, &[0, 12, 16]);
    assert_eq!(
        counted(&c, &n, &k),
        vec![(vec![0, 4, 16], 2), (vec![0, 12, 16], 1)]
    );
}

#[test]
fn a_loop_is_cut_into_paths_at_its_back_edge() {
    let p = program();
    let c = cfg_of(&p, "early_exit");
    let n = Numbering::new(&c).unwrap();
    // From the entry: 0-4-8-16, 0-4-8(back), 0-4-16, 0-16; from the
    // header after the back edge: 4-8-16, 4-8(back), 4-16.
    assert_eq!(n.total, 7);
    // early_exit(n = 3, a1 = 1): two iterations, then the break.
    let mut k = PathCounter::default();
    walk(&c, &n, &mut k, &[0, 4, 8, 4, 8, 4, 16]);
    assert_eq!(
        counted(&c, &n, &k),
        vec![(vec![0, 4, 8], 1), (vec![4, 8], 1), (vec![4, 16], 1)]
    );
    // All seven regenerate, all different.
    let all: std::collections::BTreeSet<_> = (0..n.total)
        .map(|i| offsets(&c, &n.path(i).unwrap()))
        .collect();
    assert_eq!(all.len(), 7);
    assert_eq!(n.path(7), None);
}

#[test]
fn nested_loops_and_irreducible_cycles_are_numbered() {
    let p = program();
    let nested = Numbering::new(&cfg_of(&p, "nested")).unwrap();
    // Starts: entry, outer header, inner header; ends: the exit, the two
    // back edges' sources.
    assert_eq!(nested.total, 9);
    let c = cfg_of(&p, "irreducible");
    let n = Numbering::new(&c).unwrap();
    let mut k = PathCounter::default();
    // Enter the cycle at B2, go round once through B1, leave from B1.
    walk(&c, &n, &mut k, &[0, 12, 4, 20]);
    assert_eq!(
        counted(&c, &n, &k),
        vec![(vec![0, 12], 1), (vec![4, 20], 1)]
    );
}

/// A small deterministic generator (xorshift64*).
struct Rng(u64);
impl Rng {
    fn below(&mut self, n: usize) -> usize {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        (self.0.wrapping_mul(0x2545_f491_4f6c_dd1d) >> 33) as usize % n
    }
}

#[test]
fn on_corpus_functions_numbers_regenerate_and_paths_cover_the_edge_counts() {
    let dir = repo().join("tests/corpus/build");
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    let mut functions = 0;
    for name in [
        "dhrystone.rv32imac.O2",
        "printf_fmt.rv64gc.O2",
        "qsort.rv32imac.O0",
    ] {
        let program = Program::open(dir.join(format!("{name}.elf"))).unwrap();
        for c in fwprof_paths::cfgs(&program) {
            let Some(n) = Numbering::new(&c) else {
                continue;
            };
            functions += 1;
            // Regeneration: each number's path sums to it.
            for num in (0..n.total).take(300) {
                let nodes = n.path(num).unwrap();
                let sum: u128 = nodes.windows(2).map(|w| n.val(w[0], w[1]).unwrap()).sum();
                assert_eq!(sum, num, "{}: path {num}", c.name);
            }
            // Random walks from the entry over the graph's edges.
            let mut k = PathCounter::default();
            let mut edges: HashMap<(usize, usize), u64> = HashMap::new();
            for _ in 0..20 {
                let mut a = k.enter(&n);
                for _ in 0..200 {
                    let succ = c.successors(a.block);
                    let can_exit = n.val(Node::Block(a.block), Node::Exit).is_some();
                    if succ.is_empty() || (rng.below(8) == 0 && can_exit) {
                        break;
                    }
                    let to = succ[rng.below(succ.len())];
                    *edges.entry((a.block, to)).or_default() += 1;
                    assert!(k.edge(&n, &mut a, to));
                }
                // Go on along the DAG's edges to a block that can exit
                // (every DAG path ends at EXIT), so every path is counted.
                while n.val(Node::Block(a.block), Node::Exit).is_none() {
                    let to = c
                        .successors(a.block)
                        .into_iter()
                        .find(|&t| !n.is_breaking(a.block, t))
                        .unwrap();
                    *edges.entry((a.block, to)).or_default() += 1;
                    assert!(k.edge(&n, &mut a, to));
                }
                assert!(k.exit(&n, &a));
            }
            // Each non-breaking edge's count is the sum of the counts of
            // the paths through it.
            let mut covered: HashMap<(usize, usize), u64> = HashMap::new();
            for (&num, &cnt) in &k.counts {
                for w in n.path(num).unwrap().windows(2) {
                    if let (Node::Block(x), Node::Block(y)) = (w[0], w[1]) {
                        *covered.entry((x, y)).or_default() += cnt;
                    }
                }
            }
            for (&(x, y), &cnt) in &edges {
                if !n.is_breaking(x, y) {
                    assert_eq!(
                        covered.remove(&(x, y)),
                        Some(cnt),
                        "{}: edge {x}->{y}",
                        c.name
                    );
                }
            }
            assert!(covered.is_empty(), "{}: paths over untaken edges", c.name);
        }
    }
    assert!(functions > 100, "{functions}");
}
