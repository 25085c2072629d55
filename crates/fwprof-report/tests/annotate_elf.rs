//! Annotation against a real ELF with DWARF (the fixture of fwprof-symbols).

use fwprof_profile::{AddressCost, Arc, FunctionRecord, Meta, Profile};
use fwprof_report::{write_annotate, AnnotateOptions};
use fwprof_symbols::{Program, SourceResolver};

mod common;

fn fixture(name: &str) -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../fwprof-symbols/tests/data")
        .join(name)
}

/// `sum_squares(10)` of tests/data/sample.c: the loop at 0x10116..0x1011e
/// runs 10 times.
fn profile_for(program: &Program) -> Profile {
    let mut p = Profile::new(Meta::new("rv64.elf"), vec!["instructions".into()]);
    let f = p.add_function(FunctionRecord::new("sum_squares", 0x1010c, 0x10128));
    let counts = [
        (0x1010c, 1),
        (0x1010e, 1),
        (0x10112, 1),
        (0x10114, 1),
        (0x10116, 10),
        (0x1011a, 10),
        (0x1011c, 10),
        (0x1011e, 10),
        (0x10122, 1),
    ];
    let mut total = 0;
    for (addr, n) in counts {
        let half = program.bytes_at(addr, 2).unwrap();
        let low = u16::from_le_bytes([half[0], half[1]]);
        let (len, raw) = if low & 3 == 3 {
            let b = program.bytes_at(addr, 4).unwrap();
            (4, u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
        } else {
            (2, u32::from(low))
        };
        p.costs
            .push(AddressCost {
                addr,
                function: f,
                len,
                raw,
                cost: vec![n],
            })
            .unwrap();
        total += n;
    }
    let r = &mut p.functions[0];
    (r.calls, r.self_cost, r.inclusive) = (1, vec![total], vec![total]);
    p.arcs.push(Arc::spontaneous(f, 1, vec![total]));
    p.totals = vec![total];
    p
}

fn render(
    p: &Profile,
    program: Option<&Program>,
    resolver: &SourceResolver,
    opts: &AnnotateOptions,
) -> String {
    let mut out = Vec::new();
    write_annotate(p, program, resolver, opts, &mut out).unwrap();
    String::from_utf8(out).unwrap()
}

#[test]
fn annotate_with_source_and_inlining() {
    let program = Program::open(fixture("rv64.elf")).unwrap();
    let p = profile_for(&program);
    p.check_invariants().unwrap();
    let resolver = SourceResolver::new(vec![fixture("")]);
    let text = render(&p, Some(&program), &resolver, &AnnotateOptions::default());
    common::golden("annotate-elf.txt", &text);
    // The inlined square() is labelled, with its call site.
    let inl = text.lines().find(|l| l.contains("[inlined:")).unwrap();
    assert!(inl.contains("return x * x;"), "{inl}");
    assert!(
        inl.contains("[inlined: square, called at sample.c:11]"),
        "{inl}"
    );
    // Instructions that never ran (0x10124: li a0,0) are listed from the ELF, without a count.
    let never = text.lines().find(|l| l.contains("10124:")).unwrap();
    assert!(never.trim_start().starts_with(':'), "{never}");
    // Each source line's count is the sum of its instructions.
    let loop_line = text
        .lines()
        .find(|l| l.contains("s += square(i);"))
        .unwrap();
    assert!(loop_line.trim_start().starts_with("10 "), "{loop_line}");
    let header = text
        .lines()
        .find(|l| l.contains("for (int i = 0; i < n; i++)") && l.trim_start().starts_with("11 "))
        .unwrap();
    assert!(header.contains("24.4444"), "{header}");
}

#[test]
fn annotate_without_source_files_shows_disassembly() {
    let program = Program::open(fixture("rv64.elf")).unwrap();
    let p = profile_for(&program);
    // No --source-dir: the DWARF path /build/fwprof/data/sample.c does not exist.
    let text = render(
        &p,
        Some(&program),
        &SourceResolver::default(),
        &AnnotateOptions::default(),
    );
    assert!(text.contains("<source not found>"));
    assert!(text.contains("mulw a4,a5,a5"), "{text}");
    let no_source = AnnotateOptions {
        no_source: true,
        ..AnnotateOptions::default()
    };
    let text = render(
        &p,
        Some(&program),
        &SourceResolver::new(vec![fixture("")]),
        &no_source,
    );
    assert!(!text.contains("file /build"));
    let instructions = text.lines().filter(|l| l.contains(":  ")).count();
    assert_eq!(instructions, 11, "{text}");
}

/// The profile of [`profile_for`] with cycles: `mulw` stalls 2 cycles
/// (muldiv) and each taken `bne`/`blez` 1 cycle (branch) per execution.
fn timing_profile_for(program: &Program) -> Profile {
    let base = profile_for(program);
    let events = ["instructions", "cycles", "stall_branch", "stall_muldiv"];
    let mut p = Profile::new(
        Meta::new("rv64.elf"),
        events.iter().map(|e| e.to_string()).collect(),
    );
    let f = p.add_function(FunctionRecord::new("sum_squares", 0x1010c, 0x10128));
    let mut total = vec![0u64; events.len()];
    for c in base.costs.iter() {
        let n = c.cost[0];
        let (branch, muldiv) = match c.addr {
            0x10116 => (0, 2 * n),
            0x1010e | 0x1011e => (n, 0),
            _ => (0, 0),
        };
        let cost = vec![n, n + branch + muldiv, branch, muldiv];
        for (t, v) in total.iter_mut().zip(&cost) {
            *t += v;
        }
        p.costs
            .push(AddressCost {
                addr: c.addr,
                function: f,
                len: c.len,
                raw: c.raw,
                cost,
            })
            .unwrap();
    }
    let r = &mut p.functions[0];
    (r.calls, r.self_cost, r.inclusive) = (1, total.clone(), total.clone());
    p.arcs.push(Arc::spontaneous(f, 1, total.clone()));
    p.totals = total;
    p.check_invariants().unwrap();
    p
}

#[test]
fn annotate_cycles_sums_stalls_per_source_line() {
    let program = Program::open(fixture("rv64.elf")).unwrap();
    let p = timing_profile_for(&program);
    let opts = AnnotateOptions {
        event: 1,
        ..AnnotateOptions::default()
    };
    let text = render(
        &p,
        Some(&program),
        &SourceResolver::new(vec![fixture("")]),
        &opts,
    );
    // 45 instructions + 11 branch + 20 muldiv stall cycles.
    assert!(
        text.contains("  self 76 cycles (100.00%), inclusive 76 cycles (100.00%), calls 1\n"),
        "{text}"
    );
    assert!(
        text.contains("  stall cycles: branch 11 (14.47%), muldiv 20 (26.32%)\n"),
        "{text}"
    );
    assert!(
        text.contains("\n    cycles        %     branch     muldiv :\n"),
        "{text}"
    );
    let file = text.lines().find(|l| l.contains(": file ")).unwrap();
    assert!(file.trim_start().starts_with(": file "), "{file}");
    // The inlined square(): one mulw, 10 runs of 3 cycles, 2 of them muldiv stalls.
    let square = text.lines().find(|l| l.contains("return x * x;")).unwrap();
    let cols: Vec<&str> = square
        .split(" : ")
        .next()
        .unwrap()
        .split_whitespace()
        .collect();
    assert_eq!(cols, ["30", "39.4737", "20"], "{square}");
    // Line 10 in the loop: bne (10 runs, 1 stall each) and ret (1) = 21 cycles.
    let bne_line = text
        .lines()
        .find(|l| l.contains("for (int i = 0; i < n; i++)") && l.trim_start().starts_with("21 "))
        .unwrap();
    let (counts, _) = bne_line.split_once(" : ").unwrap();
    assert_eq!(
        counts, "        21  27.6316         10           ",
        "{bne_line}"
    );
}
