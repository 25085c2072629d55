//! A hand-built profile and golden-file helpers shared by the tests.
#![allow(dead_code)]

use fwprof_profile::{
    AddressCost, Arc, FunctionId, FunctionRecord, Meta, Profile, Target, TrapRecord,
};

/// addi a0,a0,1
pub const ADDI: u32 = 0x0015_0513;
/// c.ret
pub const C_RET: u32 = 0x8082;
/// c.li a5,0
pub const C_LI: u32 = 0x4781;
/// jal ra,+16
pub const JAL: u32 = 0x0100_00ef;

/// `_start` -> `main` -> {`leaf` x10, `even` (cycle with `odd`), `fact`
/// (self-recursive)}; `odd` tail-calls `leaf`; `trap_handler` runs without
/// being called; `unused` never runs. Events: instructions, cycles (= 2x).
pub fn sample() -> Profile {
    let mut meta = Meta::new("tests/prog.elf");
    meta.sha256 = "5e".repeat(32);
    meta.build_id = Some("3be9a88c".into());
    meta.isa = "rv64gc".into();
    meta.target = Target::Baremetal;
    meta.command = vec!["prog.elf".into(), "--fast".into()];
    meta.fwprof_version = "0.1.0".into();
    meta.start_time = 1_700_000_000;
    meta.exit_status = Some(0);
    let mut p = Profile::new(meta, vec!["instructions".into(), "cycles".into()]);
    // (name, start, end, calls, self, inclusive, code: (len, raw, count))
    type Code = &'static [(u8, u32, u64)];
    let funcs: [(&str, u64, u64, u64, u64, u64, Code); 8] = [
        (
            "_start",
            0x1000,
            0x1010,
            1,
            4,
            279,
            &[(4, ADDI, 1), (4, JAL, 1), (2, C_LI, 1), (2, C_RET, 1)],
        ),
        (
            "main",
            0x1010,
            0x1040,
            1,
            100,
            265,
            &[(4, ADDI, 60), (4, JAL, 39), (2, C_RET, 1)],
        ),
        (
            "even",
            0x1040,
            0x1050,
            3,
            30,
            90,
            &[(4, ADDI, 27), (2, C_RET, 3)],
        ),
        (
            "odd",
            0x1050,
            0x1060,
            3,
            40,
            80,
            &[(4, ADDI, 37), (2, C_RET, 3)],
        ),
        (
            "fact",
            0x1060,
            0x1070,
            5,
            25,
            25,
            &[(4, ADDI, 20), (2, C_RET, 5)],
        ),
        (
            "leaf",
            0x1070,
            0x1078,
            14,
            70,
            70,
            &[(2, C_LI, 28), (4, ADDI, 28), (2, C_RET, 14)],
        ),
        (
            "trap_handler",
            0x1080,
            0x1090,
            0,
            10,
            10,
            &[(4, ADDI, 9), (4, 0x3020_0073, 1)],
        ),
        ("unused", 0x1090, 0x10a0, 0, 0, 0, &[]),
    ];
    for (name, start, end, calls, s, incl, code) in funcs {
        let mut f = FunctionRecord::new(name, start, end);
        f.calls = calls;
        f.self_cost = vec![s, 2 * s];
        f.inclusive = vec![incl, 2 * incl];
        if name == "main" {
            f.file = Some("main.c".into());
            f.line = Some(12);
        }
        let id = p.add_function(f);
        let mut addr = start;
        for &(len, raw, count) in code {
            p.costs
                .push(AddressCost {
                    addr,
                    function: id,
                    len,
                    raw,
                    cost: vec![count, 2 * count],
                })
                .unwrap();
            addr += u64::from(len);
        }
    }
    let arc =
        |caller: Option<u32>, callee: u32, site: u64, calls: u64, tail: bool, incl: u64| Arc {
            caller: caller.map(FunctionId),
            callee: FunctionId(callee),
            call_site: site,
            calls,
            tail,
            inclusive: vec![incl, 2 * incl],
        };
    p.arcs = vec![
        arc(None, 0, 0, 1, false, 279),
        arc(Some(0), 1, 0x1004, 1, false, 265),
        arc(Some(1), 5, 0x1014, 10, false, 50),
        arc(Some(1), 2, 0x1014, 1, false, 90),
        arc(Some(1), 4, 0x1014, 1, false, 25),
        arc(Some(2), 3, 0x1040, 3, false, 80),
        arc(Some(3), 2, 0x1050, 2, false, 50),
        arc(Some(3), 5, 0x1054, 4, true, 20),
        arc(Some(4), 4, 0x1060, 4, false, 20),
    ];
    p.traps.push(TrapRecord {
        cause: 11,
        pc: 0x1084,
        count: 1,
    });
    p.totals = vec![279, 558];
    p
}

/// Compares `actual` with `tests/golden/<name>`, or rewrites the file when
/// `FWPROF_BLESS=1`.
pub fn golden(name: &str, actual: &str) {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/golden")
        .join(name);
    if std::env::var("FWPROF_BLESS").as_deref() == Ok("1") {
        std::fs::write(&path, actual).unwrap();
        return;
    }
    let expected = std::fs::read_to_string(&path).unwrap_or_else(|e| {
        panic!(
            "{}: {e} (run with FWPROF_BLESS=1 to create it)",
            path.display()
        )
    });
    if expected != actual {
        panic!("{name} differs from the golden file (FWPROF_BLESS=1 rewrites it):\n--- expected\n{expected}\n--- actual\n{actual}");
    }
}
