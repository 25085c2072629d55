use super::*;
use proptest::prelude::*;

fn graph(calls: &[u64], roots: &[usize], arcs: &[(usize, usize)]) -> CallGraph {
    CallGraph {
        functions: calls
            .iter()
            .enumerate()
            .map(|(i, &c)| GraphFunction {
                calls: c,
                root: roots.contains(&i),
            })
            .collect(),
        arcs: arcs
            .iter()
            .map(|&(caller, callee)| CallArc {
                caller,
                callee,
                calls: 1,
            })
            .collect(),
    }
}

/// Runs the descent to the end with `m` as the measurement oracle;
/// returns the runs and the descent.
fn descend(g: CallGraph, m: &[u64], share: f64, counters: usize) -> (Vec<Vec<usize>>, Descent) {
    let total = m.iter().copied().max().unwrap_or(0);
    let mut d = Descent::new(g, share, total, counters);
    let mut runs = Vec::new();
    while let Some(run) = d.next_run() {
        let values: Vec<(usize, u64)> = run.iter().map(|&f| (f, m[f])).collect();
        d.record(&values);
        runs.push(run);
        assert!(runs.len() <= m.len(), "the descent does not end");
    }
    (runs, d)
}

#[test]
fn subsets_split_in_order() {
    assert_eq!(
        subsets(&[0, 1, 2, 3, 4], 2),
        vec![vec![0, 1], vec![2, 3], vec![4]]
    );
    assert_eq!(subsets(&[], 8), Vec::<Vec<usize>>::new());
    assert_eq!(subsets(&[7], 0), vec![vec![7]]);
}

#[test]
fn a_cheap_caller_lets_its_callees_be_skipped() {
    // main(1000) -> hot(900) -> leaf(850); main -> cold(10) -> c1, c2.
    let g = graph(
        &[1, 1, 1, 1, 1, 1],
        &[0],
        &[(0, 1), (1, 2), (0, 3), (3, 4), (3, 5)],
    );
    let m = [1000, 900, 850, 10, 4, 5];
    let (runs, d) = descend(g, &m, 0.05, 1);
    assert_eq!(runs, vec![vec![0], vec![1], vec![3], vec![2]]);
    assert_eq!(d.decisions()[4], Decision::Skipped { bound: 10 });
    assert_eq!(d.decisions()[5], Decision::Skipped { bound: 10 });
    assert_eq!(d.significant(), vec![0, 1, 2]);
}

#[test]
fn spare_counters_go_to_functions_without_a_bound_yet() {
    let g = graph(&[1, 1, 1, 1], &[0], &[(0, 1), (1, 2), (2, 3)]);
    let m = [100, 90, 80, 1];
    let (runs, d) = descend(g, &m, 0.05, 3);
    // One run measures main and, on spare counters, the next levels.
    assert_eq!(runs[0], vec![0, 1, 2]);
    assert!(matches!(
        d.decisions()[1],
        Decision::Measured { bound: None, .. }
    ));
    assert_eq!(runs.len(), 2);
}

#[test]
fn a_recursive_function_never_bounds_itself() {
    // main(100) -> f (recursive, M = 3) -> g; f -> f.
    let g = graph(&[1, 5, 5], &[0], &[(0, 1), (1, 1), (1, 2)]);
    let m = [100, 3, 2];
    let (_, d) = descend(g, &m, 0.05, 1);
    // f is bounded by main alone (100 >= 5): measured; g by f's 3: skipped.
    assert!(matches!(
        d.decisions()[1],
        Decision::Measured {
            bound: Some(100),
            ..
        }
    ));
    assert_eq!(d.decisions()[2], Decision::Skipped { bound: 3 });
}

#[test]
fn mutual_recursion_is_bounded_by_the_components_outside_callers() {
    // main -> a (M 4) -> f <-> g; f and g are one component whose only
    // outside caller is a.
    let g = graph(&[1, 1, 3, 3], &[0], &[(0, 1), (1, 2), (2, 3), (3, 2)]);
    let m = [100, 4, 3, 2];
    let (runs, d) = descend(g, &m, 0.05, 1);
    assert_eq!(runs, vec![vec![0], vec![1]]);
    assert_eq!(d.decisions()[2], Decision::Skipped { bound: 4 });
    assert_eq!(d.decisions()[3], Decision::Skipped { bound: 4 });
}

#[test]
fn handlers_are_roots_and_always_measured() {
    // main -> work; an interrupt handler (root) -> isr_work. The handler
    // costs 2% but has no bound: it is measured; its callee is bounded.
    let g = graph(&[1, 1, 40, 40], &[0, 2], &[(0, 1), (2, 3)]);
    let m = [100, 97, 2, 1];
    let (runs, d) = descend(g, &m, 0.05, 1);
    // Both roots are level 0; the more often entered goes first.
    assert_eq!(runs, vec![vec![2], vec![0], vec![1]]);
    assert_eq!(d.decisions()[3], Decision::Skipped { bound: 2 });
    // A function entered both spontaneously and by a call is a root too.
    let g = graph(&[1, 2], &[0, 1], &[(0, 1)]);
    let (_, d) = descend(g, &[100, 1], 0.05, 1);
    assert!(matches!(
        d.decisions()[1],
        Decision::Measured { bound: None, .. }
    ));
}

#[test]
fn indirect_callers_count_like_direct_ones() {
    // A function called through a pointer from two callers: bound = sum.
    let g = graph(&[1, 1, 1, 2], &[0], &[(0, 1), (0, 2), (1, 3), (2, 3)]);
    let m = [100, 3, 3, 5];
    let (_, d) = descend(g, &m, 0.05, 1);
    // 3 + 3 = 6 >= 5: measured although each caller alone is below.
    assert!(matches!(
        d.decisions()[3],
        Decision::Measured { bound: Some(6), .. }
    ));
    assert!(d.significant().contains(&3));
}

#[test]
fn functions_that_never_ran_cost_no_run() {
    let g = graph(&[1, 0, 1], &[0], &[(0, 2)]);
    let (runs, d) = descend(g, &[10, 0, 9], 0.01, 8);
    assert_eq!(runs.len(), 1);
    assert_eq!(d.decisions()[1], Decision::NotCalled);
}

/// A random execution: a call tree of activations (function, self cost,
/// children), function 0 the root. M(f) counts f's outermost activations
/// (what a depth-counting probe measures).
#[derive(Clone, Debug)]
struct Node {
    f: usize,
    own: u64,
    children: Vec<Node>,
}

fn tree(k: usize) -> impl Strategy<Value = Node> {
    let leaf = (0..k, 0u64..50).prop_map(|(f, own)| Node {
        f,
        own,
        children: vec![],
    });
    leaf.prop_recursive(5, 60, 4, move |inner| {
        (0..k, 0u64..50, prop::collection::vec(inner, 0..4)).prop_map(|(f, own, children)| Node {
            f,
            own,
            children,
        })
    })
}

fn walk(
    n: &Node,
    open: &mut Vec<usize>,
    m: &mut [u64],
    calls: &mut [u64],
    arcs: &mut Vec<(usize, usize)>,
) -> u64 {
    calls[n.f] += 1;
    open.push(n.f);
    let mut total = n.own;
    for c in &n.children {
        arcs.push((n.f, c.f));
        total += walk(c, open, m, calls, arcs);
    }
    open.pop();
    if !open.contains(&n.f) {
        m[n.f] += total;
    }
    total
}

proptest! {
    /// Whatever the call graph (recursion, mutual recursion, several
    /// callers), the descent measures exactly the functions at or above
    /// the threshold among its significant ones, and never more runs
    /// than there are functions.
    #[test]
    fn the_descent_finds_every_significant_function(
        children in prop::collection::vec(tree(8), 1..4),
        share in prop::sample::select(vec![0.0, 0.01, 0.05, 0.2, 0.5]),
        counters in 1usize..4,
    ) {
        let k = 9; // function 8 is the root
        let root = Node { f: 8, own: 1, children };
        let (mut m, mut calls, mut arcs) = (vec![0; k], vec![0; k], Vec::new());
        let total = walk(&root, &mut Vec::new(), &mut m, &mut calls, &mut arcs);
        let g = CallGraph {
            functions: calls.iter().enumerate().map(|(i, &c)| GraphFunction { calls: c, root: i == 8 }).collect(),
            arcs: arcs.iter().map(|&(caller, callee)| CallArc { caller, callee, calls: 1 }).collect(),
        };
        let mut d = Descent::new(g, share, total, counters);
        let mut runs = 0;
        while let Some(run) = d.next_run() {
            let values: Vec<(usize, u64)> = run.iter().map(|&f| (f, m[f])).collect();
            d.record(&values);
            runs += 1;
            prop_assert!(runs <= k);
        }
        let expected: Vec<usize> = (0..k).filter(|&f| calls[f] > 0 && m[f] as f64 >= share * total as f64).collect();
        prop_assert_eq!(d.significant(), expected);
        for (f, dec) in d.decisions().iter().enumerate() {
            if let Decision::Skipped { bound } = dec {
                prop_assert!(m[f] <= *bound, "f{} M {} above its bound {}", f, m[f], bound);
            }
            prop_assert!(*dec != Decision::Pending);
        }
    }
}

#[test]
fn gprof_style_conversions_split_a_callee_by_calls() {
    // main calls f 3 times and g once; g calls f once. f: M 40 (10 per
    // call), g: M 25 (self 15), main: M 100.
    let mut g = graph(&[1, 4, 1], &[0], &[]);
    g.arcs = vec![
        CallArc {
            caller: 0,
            callee: 1,
            calls: 3,
        },
        CallArc {
            caller: 0,
            callee: 2,
            calls: 1,
        },
        CallArc {
            caller: 2,
            callee: 1,
            calls: 1,
        },
    ];
    let selfs = self_from_inclusive(&g, &[Some(100), Some(40), Some(25)]);
    assert_eq!(selfs, vec![Some(100 - 30 - 25), Some(40), Some(15)]);
    assert_eq!(inclusive_from_self(&g, &[45, 40, 15]), vec![100, 40, 25]);
    // Recursion: calls inside a component are not taken off.
    let g = graph(&[1, 5], &[0], &[(0, 1), (1, 1)]);
    assert_eq!(
        self_from_inclusive(&g, &[Some(50), Some(30)]),
        vec![Some(20), Some(30)]
    );
    assert_eq!(inclusive_from_self(&g, &[20, 30]), vec![50, 30]);
}
