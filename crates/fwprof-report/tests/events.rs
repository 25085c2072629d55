//! Reports of a profile with the 16 events of a timing run: choosing the
//! event, extra and derived columns, JSON for every event, stall columns in
//! annotation, and errors for unknown names.

mod common;

use fwprof_profile::{AddressCost, Arc, FunctionId, FunctionRecord, Meta, Profile};
use fwprof_report::{
    event_by_name, parse_columns, write_annotate, write_call_graph, write_flat, write_json,
    AnnotateOptions, CallGraphOptions, Column, Derived, EventError, FlatOptions,
};
use fwprof_symbols::SourceResolver;

const EVENTS: [&str; 16] = [
    "instructions",
    "cycles",
    "loads",
    "stores",
    "branches",
    "branch_mispredicts",
    "icache_accesses",
    "icache_misses",
    "dcache_accesses",
    "dcache_misses",
    "stall_load_use",
    "stall_branch",
    "stall_icache",
    "stall_dcache",
    "stall_muldiv",
    "stall_wait_state",
];

/// An event vector from `(event name, value)` pairs; every instruction
/// also counts one icache access per execution.
fn ev(pairs: &[(&str, u64)]) -> Vec<u64> {
    let mut v = vec![0; EVENTS.len()];
    for &(name, value) in pairs {
        v[EVENTS.iter().position(|e| *e == name).unwrap()] = value;
    }
    v[6] = v[0];
    v
}

const ADDI: u32 = 0x0015_0513; // addi a0,a0,1
const JAL: u32 = 0x0100_00ef; // jal ra,+16
const C_RET: u32 = 0x8082; // ret
const MUL: u32 = 0x02b5_0533; // mul a0,a0,a1
const BNE: u32 = 0xfeb5_1ce3; // bne a0,a1,-8
const LD: u32 = 0x0005_3583; // ld a1,0(a0)
const SD: u32 = 0x00b6_3023; // sd a1,0(a2)

/// `main` calls `compute` (most instructions: 301, 515 cycles) and
/// `memcopy` (most cycles: 101 instructions, 551 cycles, D-cache misses).
/// Per instruction, cycles = instructions + stalls.
fn timing_profile() -> Profile {
    let mut p = Profile::new(
        Meta::new("timing.elf"),
        EVENTS.iter().map(|e| e.to_string()).collect(),
    );
    type Code = Vec<(u8, u32, Vec<u64>)>;
    let funcs: [(&str, u64, u64, Code); 3] = [
        (
            "main",
            0x1000,
            0x1010,
            vec![
                (
                    4,
                    ADDI,
                    ev(&[
                        ("instructions", 1),
                        ("cycles", 11),
                        ("icache_misses", 1),
                        ("stall_icache", 2),
                        ("stall_wait_state", 8),
                    ]),
                ),
                (4, JAL, ev(&[("instructions", 1), ("cycles", 1)])),
                (4, JAL, ev(&[("instructions", 1), ("cycles", 1)])),
                (2, C_RET, ev(&[("instructions", 1), ("cycles", 1)])),
            ],
        ),
        (
            "compute",
            0x1010,
            0x1020,
            vec![
                (
                    4,
                    ADDI,
                    ev(&[
                        ("instructions", 100),
                        ("cycles", 110),
                        ("icache_misses", 1),
                        ("stall_icache", 2),
                        ("stall_wait_state", 8),
                    ]),
                ),
                (
                    4,
                    MUL,
                    ev(&[
                        ("instructions", 100),
                        ("cycles", 300),
                        ("stall_muldiv", 200),
                    ]),
                ),
                (
                    4,
                    BNE,
                    ev(&[
                        ("instructions", 100),
                        ("cycles", 104),
                        ("branches", 100),
                        ("branch_mispredicts", 2),
                        ("stall_branch", 4),
                    ]),
                ),
                (2, C_RET, ev(&[("instructions", 1), ("cycles", 1)])),
            ],
        ),
        (
            "memcopy",
            0x1020,
            0x1030,
            vec![
                (
                    4,
                    LD,
                    ev(&[
                        ("instructions", 50),
                        ("cycles", 450),
                        ("loads", 50),
                        ("dcache_accesses", 50),
                        ("dcache_misses", 10),
                        ("stall_dcache", 400),
                    ]),
                ),
                (
                    4,
                    SD,
                    ev(&[
                        ("instructions", 50),
                        ("cycles", 100),
                        ("stores", 50),
                        ("dcache_accesses", 50),
                        ("stall_load_use", 50),
                    ]),
                ),
                (2, C_RET, ev(&[("instructions", 1), ("cycles", 1)])),
            ],
        ),
    ];
    for (name, start, end, code) in funcs {
        let mut f = FunctionRecord::new(name, start, end);
        f.calls = 1;
        f.self_cost = vec![0; EVENTS.len()];
        let id = p.add_function(f);
        let mut addr = start;
        for (len, raw, cost) in code {
            for (s, c) in p.functions[id.index()].self_cost.iter_mut().zip(&cost) {
                *s += c;
            }
            p.costs
                .push(AddressCost {
                    addr,
                    function: id,
                    len,
                    raw,
                    cost,
                })
                .unwrap();
            addr += u64::from(len);
        }
    }
    let self_of = |p: &Profile, i: usize| p.functions[i].self_cost.clone();
    let sum = |a: &[u64], b: &[u64]| a.iter().zip(b).map(|(x, y)| x + y).collect::<Vec<u64>>();
    let (main, compute, memcopy) = (self_of(&p, 0), self_of(&p, 1), self_of(&p, 2));
    let total = sum(&sum(&main, &compute), &memcopy);
    p.functions[0].inclusive = total.clone();
    p.functions[1].inclusive = compute.clone();
    p.functions[2].inclusive = memcopy.clone();
    let call = |caller: u32, callee: u32, site: u64, inclusive: Vec<u64>| Arc {
        caller: Some(FunctionId(caller)),
        callee: FunctionId(callee),
        call_site: site,
        calls: 1,
        tail: false,
        inclusive,
    };
    p.arcs = vec![
        Arc::spontaneous(FunctionId(0), 1, total.clone()),
        call(0, 1, 0x1004, compute),
        call(0, 2, 0x1008, memcopy),
    ];
    p.totals = total;
    p.check_invariants().unwrap();
    p
}

fn render(f: impl FnOnce(&mut Vec<u8>) -> std::io::Result<()>) -> String {
    let mut out = Vec::new();
    f(&mut out).unwrap();
    String::from_utf8(out).unwrap()
}

fn idx(p: &Profile, name: &str) -> usize {
    event_by_name(p, name).unwrap()
}

/// The flat profile's rows (after the `time` header line) split on blanks.
fn flat_rows(text: &str) -> Vec<Vec<&str>> {
    text.lines()
        .skip_while(|l| !l.trim_start().starts_with("time"))
        .skip(1)
        .take_while(|l| !l.is_empty())
        .map(|l| l.split_whitespace().collect())
        .collect()
}

fn names(rows: &[Vec<&str>]) -> Vec<String> {
    rows.iter().map(|r| r.last().unwrap().to_string()).collect()
}

#[test]
fn flat_profile_order_follows_the_event() {
    let p = timing_profile();
    let brief = |event| FlatOptions {
        event,
        brief: true,
        ..FlatOptions::default()
    };
    let by_instructions = render(|w| write_flat(&p, &brief(idx(&p, "instructions")), w));
    assert_eq!(
        names(&flat_rows(&by_instructions)),
        ["compute", "memcopy", "main"],
        "{by_instructions}"
    );
    let by_cycles = render(|w| write_flat(&p, &brief(idx(&p, "cycles")), w));
    let rows = flat_rows(&by_cycles);
    assert_eq!(names(&rows), ["memcopy", "compute", "main"], "{by_cycles}");
    // 551 of 1080 cycles; cumulative, self, calls, self/call, total/call.
    assert_eq!(
        rows[0],
        ["51.02", "551", "551", "1", "551.00", "551.00", "memcopy"]
    );
    assert!(by_cycles.contains("Each sample counts as 1 cycle (exact"));
    assert!(by_cycles.contains("cycles/call"), "{by_cycles}");
    // An event in no function's top spot: only memcopy has D-cache misses.
    let by_misses = render(|w| write_flat(&p, &brief(idx(&p, "dcache_misses")), w));
    assert_eq!(names(&flat_rows(&by_misses))[0], "memcopy", "{by_misses}");
    assert!(by_misses.contains("1 dcache_miss (exact"), "{by_misses}");
}

#[test]
fn events_columns_with_cpi_and_rates() {
    let p = timing_profile();
    let (event, columns) = parse_columns(
        &p,
        &[
            "cycles",
            "instructions",
            "stall_dcache",
            "cpi",
            "icache_miss_rate",
            "dcache_miss_rate",
            "mispredict_rate",
        ],
    )
    .unwrap();
    assert_eq!(event, 1);
    assert_eq!(
        columns,
        [
            Column::Event(0),
            Column::Event(13),
            Column::Derived(Derived::Cpi),
            Column::Derived(Derived::IcacheMissRate),
            Column::Derived(Derived::DcacheMissRate),
            Column::Derived(Derived::MispredictRate),
        ]
    );
    let opts = FlatOptions {
        event,
        columns,
        ..FlatOptions::default()
    };
    let text = render(|w| write_flat(&p, &opts, w));
    let header = text
        .lines()
        .find(|l| l.trim_start().starts_with("time"))
        .unwrap();
    assert!(
        header.ends_with(
            "  cycles/call       instrs stall_dcache          CPI icache miss % dcache miss % mispredict %  name"
        ),
        "{header}"
    );
    let rows = flat_rows(&text);
    assert_eq!(names(&rows), ["memcopy", "compute", "main"]);
    // instrs, stall_dcache, CPI, icache miss %, dcache miss %, mispredict %.
    assert_eq!(
        &rows[0][6..],
        ["101", "400", "5.46", "0.00", "10.00", "-", "memcopy"]
    );
    assert_eq!(
        &rows[1][6..],
        ["301", "0", "1.71", "0.33", "-", "2.00", "compute"]
    );
    assert_eq!(&rows[2][6..], ["4", "0", "3.50", "25.00", "-", "-", "main"]);
    // The explanation covers the extra columns.
    assert!(text.contains("\n CPI            cycles / instructions (cycles per instruction);"));
    assert!(text.contains("\n mispredict %   branch_mispredicts / branches, in percent; `-` when"));
    common::golden("flat-events.txt", &text);
}

#[test]
fn event_lists_reject_unknown_and_misplaced_names() {
    let p = timing_profile();
    let e = event_by_name(&p, "cylces").unwrap_err();
    assert_eq!(
        e.to_string(),
        format!(
            "unknown event `cylces`; the profile has: {}",
            EVENTS.join(", ")
        )
    );
    let e = parse_columns(&p, &["cycles", "ipc"]).unwrap_err();
    assert!(
        e.to_string()
            .ends_with("(derived: cpi, icache_miss_rate, dcache_miss_rate, mispredict_rate)"),
        "{e}"
    );
    assert_eq!(
        parse_columns(&p, &["cpi"]).unwrap_err(),
        EventError::DerivedFirst { name: "cpi" }
    );
    assert_eq!(
        parse_columns::<&str>(&p, &[]).unwrap_err(),
        EventError::Empty
    );
    // Duplicates and the primary event itself are dropped.
    assert_eq!(
        parse_columns(&p, &["cycles", "cycles", "loads", "loads"]).unwrap(),
        (1, vec![Column::Event(2)])
    );
    // A profile without cycles cannot show CPI.
    let mut small = Profile::new(Meta::new("x"), vec!["instructions".into()]);
    small.totals = vec![0];
    let e = parse_columns(&small, &["instructions", "cpi"]).unwrap_err();
    assert_eq!(
        e.to_string(),
        "`cpi` needs events cycles and instructions; the profile has: instructions"
    );
    let e = parse_columns(&small, &["instructions", "mispredicts"]).unwrap_err();
    assert_eq!(
        e.to_string(),
        "unknown event `mispredicts`; the profile has: instructions"
    );
}

#[test]
fn call_graph_order_follows_the_event() {
    let p = timing_profile();
    let primary_index = |text: &str, name: &str| -> String {
        text.lines()
            .find(|l| l.starts_with('[') && l.contains(&format!(" {name} [")))
            .unwrap()
            .split_whitespace()
            .next()
            .unwrap()
            .to_string()
    };
    let graph = |event| {
        render(|w| {
            write_call_graph(
                &p,
                &CallGraphOptions {
                    event,
                    brief: true,
                    color: false,
                },
                w,
            )
        })
    };
    let instrs = graph(0);
    assert_eq!(primary_index(&instrs, "compute"), "[2]", "{instrs}");
    assert_eq!(primary_index(&instrs, "memcopy"), "[3]", "{instrs}");
    let cycles = graph(1);
    assert_eq!(primary_index(&cycles, "memcopy"), "[2]", "{cycles}");
    assert_eq!(primary_index(&cycles, "compute"), "[3]", "{cycles}");
    assert!(
        cycles.contains("each count is one of 1080 cycles"),
        "{cycles}"
    );
    // The arc main -> memcopy carries memcopy's 551 cycles.
    let arc = cycles
        .lines()
        .find(|l| !l.starts_with('[') && l.contains("memcopy [2]"))
        .unwrap();
    assert_eq!(arc.split_whitespace().next(), Some("551"), "{arc}");
}

#[test]
fn json_has_every_event_in_all_four_places_and_derived_rates() {
    let p = timing_profile();
    let text = render(|w| write_json(&p, w));
    let v: serde_json::Value = serde_json::from_str(&text).unwrap();
    assert_eq!(v["events"], serde_json::json!(EVENTS));
    let keys = |o: &serde_json::Value| -> Vec<String> {
        let mut k: Vec<String> = o.as_object().unwrap().keys().cloned().collect();
        k.sort();
        k
    };
    let mut all: Vec<String> = EVENTS.iter().map(|e| e.to_string()).collect();
    all.sort();
    assert_eq!(keys(&v["totals"]), all);
    for f in v["functions"].as_array().unwrap() {
        assert_eq!(keys(&f["self"]), all, "{f}");
        assert_eq!(keys(&f["inclusive"]), all, "{f}");
    }
    for a in v["call_graph"].as_array().unwrap() {
        assert_eq!(keys(&a["inclusive"]), all, "{a}");
    }
    assert_eq!(v["totals"]["cycles"], 1080);
    assert_eq!(v["totals"]["instructions"], 406);
    assert_eq!(v["totals"]["stall_wait_state"], 16);
    let func = |name: &str| {
        v["functions"]
            .as_array()
            .unwrap()
            .iter()
            .find(|f| f["name"] == name)
            .unwrap()
            .clone()
    };
    let (main, compute, memcopy) = (func("main"), func("compute"), func("memcopy"));
    assert_eq!(compute["self"]["stall_muldiv"], 200);
    assert_eq!(compute["self"]["branch_mispredicts"], 2);
    assert_eq!(memcopy["self"]["dcache_misses"], 10);
    assert_eq!(main["self"]["cycles"], 14);
    assert_eq!(main["inclusive"]["cycles"], 1080);
    assert_eq!(main["inclusive"]["stall_dcache"], 400);
    let arc = v["call_graph"]
        .as_array()
        .unwrap()
        .iter()
        .find(|a| a["callee"] == "memcopy")
        .unwrap();
    assert_eq!(arc["caller"], "main");
    assert_eq!(arc["inclusive"]["cycles"], 551);
    assert_eq!(arc["inclusive"]["dcache_misses"], 10);
    // Derived rates are fractions; null where the denominator is 0.
    let d = &compute["derived"];
    assert_eq!(
        keys(d),
        [
            "cpi",
            "dcache_miss_rate",
            "icache_miss_rate",
            "mispredict_rate"
        ]
    );
    assert!((d["cpi"].as_f64().unwrap() - 515.0 / 301.0).abs() < 1e-12);
    assert!((d["mispredict_rate"].as_f64().unwrap() - 0.02).abs() < 1e-12);
    assert!(d["dcache_miss_rate"].is_null());
    assert_eq!(memcopy["derived"]["dcache_miss_rate"], 0.1);
    assert!(memcopy["derived"]["mispredict_rate"].is_null());
    assert_eq!(main["derived"]["icache_miss_rate"], 0.25);

    // A single-event profile keeps `self.instructions` and has no `derived`.
    let mut one = Profile::new(Meta::new("x"), vec!["instructions".into()]);
    let mut f = FunctionRecord::new("f", 0, 4);
    (f.self_cost, f.inclusive) = (vec![3], vec![3]);
    one.add_function(f);
    one.totals = vec![3];
    let v: serde_json::Value = serde_json::from_str(&render(|w| write_json(&one, w))).unwrap();
    assert_eq!(
        v["functions"][0]["self"],
        serde_json::json!({"instructions": 3})
    );
    assert_eq!(v["totals"], serde_json::json!({"instructions": 3}));
    assert!(v["functions"][0].get("derived").is_none());
}

#[test]
fn annotate_cycles_shows_stall_causes() {
    let p = timing_profile();
    let annotate = |function: &str, event: usize| {
        let opts = AnnotateOptions {
            function: Some(function.into()),
            event,
            ..AnnotateOptions::default()
        };
        render(|w| write_annotate(&p, None, &SourceResolver::default(), &opts, w))
    };
    let memcopy = annotate("memcopy", 1);
    let lines: Vec<&str> = memcopy.lines().collect();
    assert_eq!(
        lines[1],
        "  self 551 cycles (51.02%), inclusive 551 cycles (51.02%), calls 1"
    );
    // Only the causes that occur in memcopy, in STALL_EVENTS order.
    assert_eq!(
        lines[2],
        "  stall cycles: load_use 50 (9.07%), dcache 400 (72.60%)"
    );
    assert_eq!(lines[3], "    cycles        %   load_use     dcache :");
    let ld = lines.iter().find(|l| l.contains("1020:")).unwrap();
    let (counts, code) = ld.split_once(" : ").unwrap();
    // cycles, %, then blank load_use and 400 dcache in fixed columns.
    assert_eq!(counts, "       450  41.6667                   400");
    assert!(
        code.trim_start()
            .starts_with("1020:  00053583  ld a1,0(a0)"),
        "{ld}"
    );
    let sd = lines.iter().find(|l| l.contains("1024:")).unwrap();
    assert!(
        sd.starts_with("       100   9.2593         50            : "),
        "{sd}"
    );

    let compute = annotate("compute", 1);
    assert!(
        compute.contains("  stall cycles: branch 4 (0.78%), icache 2 (0.39%), muldiv 200 (38.83%), wait_state 8 (1.55%)\n"),
        "{compute}"
    );
    assert!(compute.contains("    cycles        %     branch     icache     muldiv wait_state :\n"));

    // Other events show no stall columns.
    let by_instrs = annotate("memcopy", 0);
    assert!(!by_instrs.contains("stall"), "{by_instrs}");
    assert!(!by_instrs.contains("load_use"), "{by_instrs}");
    assert!(
        by_instrs.contains("\ninstructions        % :\n"),
        "{by_instrs}"
    );

    let both = AnnotateOptions {
        event: 1,
        ..AnnotateOptions::default()
    };
    common::golden(
        "annotate-cycles.txt",
        &render(|w| write_annotate(&p, None, &SourceResolver::default(), &both, w)),
    );
}
