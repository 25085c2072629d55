//! Golden files and structural checks of the reports.

mod common;

use common::{golden, sample};
use fwprof_profile::{Arc, FunctionId, FunctionRecord, Meta, Profile};
use fwprof_report::{
    find_cycles, write_annotate, write_call_graph, write_flat, write_json, AnnotateOptions,
    CallGraphOptions, FlatOptions, SortKey,
};
use fwprof_symbols::SourceResolver;

fn render(f: impl FnOnce(&mut Vec<u8>) -> std::io::Result<()>) -> String {
    let mut out = Vec::new();
    f(&mut out).unwrap();
    String::from_utf8(out).unwrap()
}

#[test]
fn sample_profile_satisfies_invariants() {
    sample().check_invariants().unwrap();
}

#[test]
fn flat_profile_golden() {
    let p = sample();
    golden(
        "flat.txt",
        &render(|w| write_flat(&p, &FlatOptions::default(), w)),
    );
    let opts = FlatOptions {
        top: Some(3),
        sort: SortKey::Inclusive,
        event: 0,
        columns: Vec::new(),
        brief: true,
        color: false,
    };
    golden(
        "flat-top3-inclusive.txt",
        &render(|w| write_flat(&p, &opts, w)),
    );
    let opts = FlatOptions {
        event: 1,
        brief: true,
        ..FlatOptions::default()
    };
    golden("flat-cycles.txt", &render(|w| write_flat(&p, &opts, w)));
}

#[test]
fn flat_profile_order_and_columns() {
    let p = sample();
    let text = render(|w| {
        write_flat(
            &p,
            &FlatOptions {
                brief: true,
                ..FlatOptions::default()
            },
            w,
        )
    });
    let names: Vec<&str> = text
        .lines()
        .skip(5)
        .map(|l| l.rsplit(' ').next().unwrap())
        .collect();
    // gprof order: self descending; `unused` has no cost and no calls.
    assert_eq!(
        names,
        [
            "main",
            "leaf",
            "odd",
            "even",
            "fact",
            "trap_handler",
            "_start"
        ]
    );
    let main = text.lines().find(|l| l.ends_with(" main")).unwrap();
    let cols: Vec<&str> = main.split_whitespace().collect();
    assert_eq!(
        cols,
        ["35.84", "100", "100", "1", "100.00", "265.00", "main"]
    );
    let handler = text.lines().find(|l| l.ends_with("trap_handler")).unwrap();
    assert_eq!(
        handler.split_whitespace().count(),
        4,
        "no calls columns: {handler}"
    );
    let by_name = render(|w| {
        write_flat(
            &p,
            &FlatOptions {
                sort: SortKey::Name,
                brief: true,
                ..Default::default()
            },
            w,
        )
    });
    let first = by_name.lines().nth(5).unwrap();
    assert!(first.ends_with("_start"), "{first}");
    let by_calls = render(|w| {
        write_flat(
            &p,
            &FlatOptions {
                sort: SortKey::Calls,
                brief: true,
                ..Default::default()
            },
            w,
        )
    });
    assert!(by_calls.lines().nth(5).unwrap().ends_with("leaf"));
}

#[test]
fn call_graph_golden() {
    let p = sample();
    golden(
        "call-graph.txt",
        &render(|w| write_call_graph(&p, &CallGraphOptions::default(), w)),
    );
}

#[test]
fn call_graph_shows_cycles_recursion_and_spontaneous() {
    let p = sample();
    let text = render(|w| {
        write_call_graph(
            &p,
            &CallGraphOptions {
                brief: true,
                event: 0,
                color: false,
            },
            w,
        )
    });
    assert!(text.contains("<cycle 1 as a whole>"), "{text}");
    assert!(text.contains("even <cycle 1> ["));
    assert!(text.contains("odd <cycle 1> ["));
    assert!(!text.contains("fact <cycle"));
    // fact: called once from main, 4 times by itself.
    let fact = text
        .lines()
        .find(|l| l.starts_with('[') && l.ends_with(&format!("fact {}", index_of(&text, "fact"))))
        .unwrap();
    assert!(fact.contains(" 1+4 "), "{fact}");
    // _start has no caller.
    for name in ["_start", "trap_handler"] {
        let block: Vec<&str> = block_of(&text, name).lines().collect();
        let primary = block.iter().position(|l| l.starts_with('[')).unwrap();
        assert_eq!(block[primary - 1].trim(), "<spontaneous>", "{name}");
    }
    // main is called by _start, so it is not spontaneous.
    assert!(!block_of(&text, "main").contains("<spontaneous>"));
    // leaf: 10 of 14 calls from main, 4 from odd.
    let leaf_block = block_of(&text, "leaf");
    assert!(leaf_block.contains("10/14"), "{leaf_block}");
    assert!(leaf_block.contains("4/14"), "{leaf_block}");
    // The cycle as a whole: 70 self (30 + 40), 20 children (leaf), 1 call from main, 5 inside.
    let cycle = text.lines().find(|l| l.contains("as a whole")).unwrap();
    let cols: Vec<&str> = cycle.split_whitespace().collect();
    assert_eq!(&cols[1..5], ["32.3", "70", "20", "1+5"], "{cycle}");
}

fn index_of(text: &str, name: &str) -> String {
    let line = text
        .lines()
        .find(|l| l.starts_with('[') && l.contains(&format!(" {name} [")))
        .unwrap();
    line.split_whitespace().next().unwrap().to_string()
}

fn block_of<'t>(text: &'t str, name: &str) -> &'t str {
    text.split("-----------------------------------------------\n")
        .find(|b| {
            b.lines()
                .any(|l| l.starts_with('[') && l.contains(&format!(" {name} [")))
        })
        .unwrap()
}

#[test]
fn cycle_detection() {
    let p = sample();
    let c = find_cycles(&p, 0);
    assert_eq!(c.members, vec![vec![FunctionId(2), FunctionId(3)]]);
    assert_eq!(c.cycle_of(FunctionId(2)), Some(1));
    assert_eq!(
        c.cycle_of(FunctionId(4)),
        None,
        "self recursion is not a cycle"
    );

    // a -> b -> c -> a, c -> d, d -> e -> d, f alone: two cycles, the hotter first.
    let mut g = Profile::new(Meta::new("g"), vec!["instructions".into()]);
    for (i, name) in ["a", "b", "c", "d", "e", "f"].iter().enumerate() {
        let mut f = FunctionRecord::new(*name, i as u64 * 16, i as u64 * 16 + 16);
        f.self_cost = vec![1];
        f.inclusive = vec![if i >= 3 { 50 } else { 10 }];
        g.add_function(f);
    }
    for (a, b) in [(0, 1), (1, 2), (2, 0), (2, 3), (3, 4), (4, 3)] {
        g.arcs.push(Arc {
            caller: Some(FunctionId(a)),
            callee: FunctionId(b),
            call_site: 0,
            calls: 1,
            tail: false,
            inclusive: vec![1],
        });
    }
    let c = find_cycles(&g, 0);
    assert_eq!(
        c.members,
        vec![
            vec![FunctionId(3), FunctionId(4)],
            vec![FunctionId(0), FunctionId(1), FunctionId(2)]
        ]
    );
    assert_eq!(c.of, vec![2, 2, 2, 1, 1, 0]);
}

#[test]
fn cycle_detection_survives_deep_chains() {
    let n = 200_000u32;
    let mut g = Profile::new(Meta::new("deep"), vec!["instructions".into()]);
    for i in 0..n {
        let mut f = FunctionRecord::new(format!("f{i}"), u64::from(i) * 4, u64::from(i) * 4 + 4);
        f.self_cost = vec![0];
        f.inclusive = vec![0];
        g.add_function(f);
    }
    for i in 0..n - 1 {
        g.arcs.push(Arc {
            caller: Some(FunctionId(i)),
            callee: FunctionId(i + 1),
            call_site: 0,
            calls: 1,
            tail: false,
            inclusive: vec![0],
        });
    }
    g.arcs.push(Arc {
        caller: Some(FunctionId(n - 1)),
        callee: FunctionId(0),
        call_site: 0,
        calls: 1,
        tail: false,
        inclusive: vec![0],
    });
    let c = find_cycles(&g, 0);
    assert_eq!(c.members.len(), 1);
    assert_eq!(c.members[0].len(), n as usize);
}

#[test]
fn json_golden_and_schema_fields() {
    let p = sample();
    let text = render(|w| write_json(&p, w));
    golden("report.json", &text);
    let v: serde_json::Value = serde_json::from_str(&text).unwrap();
    assert_eq!(v["schema"], "fwprof-report/1");
    assert_eq!(v["totals"]["instructions"], 279);
    assert_eq!(v["totals"]["cycles"], 558);
    assert_eq!(v["events"], serde_json::json!(["instructions", "cycles"]));
    for key in [
        "program",
        "sha256",
        "target",
        "isa",
        "partial",
        "exit_status",
    ] {
        assert!(v["meta"].get(key).is_some(), "meta.{key}");
    }
    assert_eq!(v["meta"]["target"], "baremetal");
    let funcs = v["functions"].as_array().unwrap();
    assert_eq!(funcs.len(), 8);
    for f in funcs {
        for key in [
            "name",
            "address",
            "calls",
            "self",
            "inclusive",
            "file",
            "line",
        ] {
            assert!(f.get(key).is_some(), "functions[].{key} in {f}");
        }
        assert!(f["address"].is_u64());
        assert!(f["self"]["instructions"].is_u64() && f["inclusive"]["cycles"].is_u64());
    }
    let main = funcs.iter().find(|f| f["name"] == "main").unwrap();
    assert_eq!(
        (main["address"].as_u64(), main["line"].as_u64()),
        (Some(0x1010), Some(12))
    );
    assert_eq!(main["inclusive"]["instructions"], 265);
    let arcs = v["call_graph"].as_array().unwrap();
    assert_eq!(arcs.len(), 9);
    for a in arcs {
        for key in ["caller", "callee", "calls", "tail", "inclusive"] {
            assert!(a.get(key).is_some(), "call_graph[].{key}");
        }
    }
    assert!(arcs[0]["caller"].is_null());
    let tail = arcs.iter().find(|a| a["tail"] == true).unwrap();
    assert_eq!(
        (tail["caller"].as_str(), tail["callee"].as_str()),
        (Some("odd"), Some("leaf"))
    );
    assert_eq!(tail["inclusive"]["instructions"], 20);
    let trap = &v["traps"][0];
    assert_eq!(trap["name"], "environment call from M-mode");
    assert_eq!(trap["function"], "trap_handler");
}

#[test]
fn annotate_without_program_golden() {
    let p = sample();
    let opts = AnnotateOptions {
        top: Some(2),
        ..AnnotateOptions::default()
    };
    golden(
        "annotate-noelf.txt",
        &render(|w| write_annotate(&p, None, &SourceResolver::default(), &opts, w)),
    );
    let one = AnnotateOptions {
        function: Some("odd".into()),
        ..AnnotateOptions::default()
    };
    let text = render(|w| write_annotate(&p, None, &SourceResolver::default(), &one, w));
    assert!(text.starts_with("Function odd [0x1050, 0x1060)"), "{text}");
    assert!(text.contains("addi a0,a0,1"), "{text}");
    let missing = AnnotateOptions {
        function: Some("nope".into()),
        ..AnnotateOptions::default()
    };
    let err = write_annotate(
        &p,
        None,
        &SourceResolver::default(),
        &missing,
        &mut Vec::new(),
    )
    .unwrap_err();
    assert_eq!(err.kind(), std::io::ErrorKind::NotFound);
}
