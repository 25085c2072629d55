//! Tests of the core description reader: the presets carry their cited
//! numbers, the documented example reads back exactly, and every kind of bad
//! input is rejected with the file, line and key.

use super::toml_tree::parse_size;
use super::*;
use crate::params::PmuParams;

/// The first ```toml block of docs/core-format.md: the complete example.
fn doc_example() -> &'static str {
    let doc = include_str!("../../../../docs/core-format.md");
    let start = doc
        .find("```toml\n")
        .expect("docs/core-format.md has a ```toml example")
        + 8;
    let len = doc[start..]
        .find("```")
        .expect("the example block is closed");
    &doc[start..start + len]
}

#[test]
fn picorv32_preset_has_the_readme_numbers() {
    let c = CoreConfig::preset("picorv32").unwrap();
    assert_eq!(c.name, "picorv32");
    assert!(c.source.contains("https://github.com/YosysHQ/picorv32"));
    let l = &c.pipeline.latency;
    assert_eq!(
        (
            l.jal,
            l.alu,
            l.branch_not_taken,
            l.load,
            l.store,
            l.branch_taken,
            l.jalr
        ),
        (3, 3, 3, 5, 5, 5, 6)
    );
    assert_eq!((l.mul, l.mulh, l.div), (40, 72, 40));
    assert!(!l.div_variable);
    // "shift operations 4-14": 4 + n/4 + n%4 with the two-stage shifter.
    assert_eq!(l.shift_cycles(0), 4);
    assert_eq!(l.shift_cycles(1), 5);
    assert_eq!(l.shift_cycles(4), 5);
    assert_eq!(l.shift_cycles(7), 8);
    assert_eq!(l.shift_cycles(31), 14);
    assert_eq!((0..32).map(|n| l.shift_cycles(n)).max(), Some(14));
    assert_eq!(c.pipeline.load_use, 0);
    assert_eq!(
        c.predictor,
        PredictorParams {
            kind: PredictorKind::None,
            btb_entries: 0
        }
    );
    assert_eq!((c.icache, c.dcache), (None, None));
    assert!(c.regions.is_empty());
}

#[test]
fn ibex_preset_has_the_pipeline_table_numbers() {
    let c = CoreConfig::preset("ibex").unwrap();
    assert_eq!(c.name, "ibex");
    assert!(c.source.contains("https://ibex-core.readthedocs.io/"));
    let l = &c.pipeline.latency;
    // Stall cycles + 1: integer 0, CSR 0, load/store 1, fast MUL 2 / MULH 3,
    // jump 1, branch not taken 0, taken 2; division 37 cycles.
    assert_eq!((l.alu, l.shift, l.csr), (1, 1, 1));
    assert_eq!((l.load, l.store), (2, 2));
    assert_eq!((l.mul, l.mulh, l.div), (3, 4, 37));
    assert_eq!(
        (l.jal, l.jalr, l.branch_not_taken, l.branch_taken),
        (2, 2, 1, 3)
    );
    assert_eq!(l.fence, 1);
    assert_eq!(l.shift_cycles(31), 1);
    assert_eq!(c.pipeline.load_use, 0);
    assert_eq!(c.predictor.kind, PredictorKind::None);
    assert_eq!((c.icache, c.dcache), (None, None));
}

#[test]
fn generic_preset_is_the_described_what_if_core() {
    let c = CoreConfig::preset("generic").unwrap();
    assert_eq!(c.name, "generic");
    assert!(c.source.contains("illustrative"));
    let cache = CacheParams {
        size: 16 * 1024,
        ways: 4,
        line: 32,
        replacement: Replacement::Lru,
        write_back: true,
        write_allocate: true,
        hit_latency: 1,
        miss_penalty: 20,
    };
    assert_eq!(c.dcache, Some(cache.clone()));
    assert_eq!(
        c.icache,
        Some(CacheParams {
            write_back: false,
            write_allocate: false,
            ..cache
        })
    );
    assert_eq!(
        c.predictor,
        PredictorParams {
            kind: PredictorKind::Bimodal { entries: 1024 },
            btb_entries: 64
        }
    );
    let p = &c.pipeline;
    assert_eq!(
        (p.mispredict_penalty, p.load_use, p.forwarding),
        (2, 1, true)
    );
    let l = &p.latency;
    assert_eq!((l.alu, l.mul, l.div), (1, 3, 20));
    assert_eq!((l.fp_simple, l.fp_mul, l.fp_div, l.fp_sqrt), (3, 4, 20, 25));
}

#[test]
fn every_preset_loads_by_name_and_only_presets_do() {
    for name in PRESETS {
        let by_load = CoreConfig::load(name).unwrap();
        assert_eq!(Some(by_load), CoreConfig::preset(name));
    }
    assert_eq!(PRESETS.len(), PRESET_FILES.len());
    assert!(CoreConfig::preset("cortex-m0").is_none());
}

#[test]
fn unknown_preset_lists_the_presets() {
    let e = CoreConfig::load("cortex-m0").unwrap_err();
    assert!(matches!(&e, ConfigError::UnknownPreset(n) if n == "cortex-m0"));
    assert_eq!(
        e.to_string(),
        "unknown core `cortex-m0`: not a preset (picorv32, ibex, generic, arc-hs, u74) and not a .toml file"
    );
}

#[test]
fn a_missing_toml_file_is_an_io_error_naming_it() {
    let path = std::env::temp_dir().join("fwprof-no-such-core-file.toml");
    let path = path.to_str().unwrap();
    let e = CoreConfig::load(path).unwrap_err();
    assert!(matches!(&e, ConfigError::Io { file, .. } if file == path));
    assert!(e.to_string().starts_with(&format!("{path}: ")));
}

#[test]
fn a_file_loads_by_path_and_is_named_after_its_stem() {
    let dir = std::env::temp_dir().join(format!("fwprof-config-test-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("slow-flash.toml");
    std::fs::write(
        &path,
        "[pipeline]\nload = 4\n\n[[region]]\nbase = 0\nsize = \"64KiB\"\nwait_states = 3\n",
    )
    .unwrap();
    let c = CoreConfig::load(path.to_str().unwrap()).unwrap();
    std::fs::remove_dir_all(&dir).unwrap();
    assert_eq!(c.name, "slow-flash");
    assert_eq!(c.pipeline.latency.load, 4);
    assert_eq!(
        c.regions,
        vec![MemoryRegion {
            name: "region[0]".into(),
            base: 0,
            size: 65536,
            wait_states: 3,
            uncached: false
        }]
    );
}

#[test]
fn an_empty_file_is_the_documented_one_cycle_core() {
    let c = CoreConfig::from_toml("", "dir/plain.toml").unwrap();
    assert_eq!(c.name, "plain");
    assert_eq!(c.source, "");
    let l = &c.pipeline.latency;
    let classes = [
        l.alu,
        l.shift,
        l.branch_not_taken,
        l.branch_taken,
        l.jal,
        l.jalr,
        l.load,
        l.store,
        l.mul,
        l.mulh,
        l.div,
        l.csr,
        l.fence,
        l.system,
        l.atomic,
        l.fp_simple,
        l.fp_mul,
        l.fp_div,
        l.fp_sqrt,
        l.fp_convert,
        l.fp_load,
        l.fp_store,
    ];
    assert!(classes.iter().all(|&c| c == 1), "{classes:?}");
    assert_eq!(
        (l.shift_per_step, l.shift_step, l.shift_per_remainder_bit),
        (0, 1, 0)
    );
    assert!(!l.div_variable);
    let p = &c.pipeline;
    assert_eq!(
        (
            p.load_use,
            p.forwarding,
            p.no_forward_stall,
            p.mispredict_penalty
        ),
        (0, true, 1, 0)
    );
    assert_eq!(
        c.predictor,
        PredictorParams {
            kind: PredictorKind::None,
            btb_entries: 0
        }
    );
    assert_eq!((c.icache, c.dcache), (None, None));
    assert!(c.regions.is_empty());
}

#[test]
fn empty_cache_and_predictor_tables_take_the_documented_defaults() {
    let c = CoreConfig::from_toml(
        "[icache]\n[dcache]\n[predictor]\nkind = \"gshare\"\n",
        "d.toml",
    )
    .unwrap();
    let d = CacheParams {
        size: 4096,
        ways: 1,
        line: 32,
        replacement: Replacement::Lru,
        write_back: true,
        write_allocate: true,
        hit_latency: 1,
        miss_penalty: 10,
    };
    assert_eq!(c.dcache, Some(d.clone()));
    assert_eq!(
        c.icache,
        Some(CacheParams {
            write_back: false,
            write_allocate: false,
            ..d
        })
    );
    assert_eq!(
        c.predictor,
        PredictorParams {
            kind: PredictorKind::Gshare {
                entries: 1024,
                history_bits: 10
            },
            btb_entries: 0
        }
    );
}

#[test]
fn the_documented_example_reads_back_exactly() {
    let c = CoreConfig::from_toml(doc_example(), "my-mcu.toml").unwrap();
    let expected = CoreConfig {
        name: "my-mcu".into(),
        source: "vendor datasheet rev 3, section 4.2 (instruction timing)".into(),
        xlen: None,
        pipeline: PipelineParams {
            latency: ClassLatencies {
                alu: 1,
                shift: 1,
                shift_per_step: 0,
                shift_step: 1,
                branch_not_taken: 1,
                branch_taken: 3,
                jal: 2,
                jalr: 3,
                load: 2,
                store: 1,
                mul: 2,
                mulh: 3,
                div: 34,
                csr: 2,
                fence: 1,
                system: 4,
                atomic: 3,
                fp_simple: 2,
                fp_mul: 3,
                fp_div: 15,
                fp_sqrt: 16,
                fp_convert: 2,
                fp_load: 2,
                fp_store: 1,
                shift_per_remainder_bit: 0,
                div_variable: true,
            },
            load_use: 1,
            forwarding: true,
            no_forward_stall: 2,
            mispredict_penalty: 2,
        },
        predictor: PredictorParams {
            kind: PredictorKind::Gshare {
                entries: 512,
                history_bits: 8,
            },
            btb_entries: 32,
        },
        icache: Some(CacheParams {
            size: 8192,
            ways: 2,
            line: 32,
            replacement: Replacement::Fifo,
            write_back: false,
            write_allocate: false,
            hit_latency: 1,
            miss_penalty: 8,
        }),
        dcache: Some(CacheParams {
            size: 4096,
            ways: 4,
            line: 16,
            replacement: Replacement::Random,
            write_back: false,
            write_allocate: false,
            hit_latency: 1,
            miss_penalty: 8,
        }),
        regions: vec![
            MemoryRegion {
                name: "flash".into(),
                base: 0,
                size: 512 << 10,
                wait_states: 2,
                uncached: false,
            },
            MemoryRegion {
                name: "sram".into(),
                base: 0x2000_0000,
                size: 128 << 10,
                wait_states: 0,
                uncached: false,
            },
            MemoryRegion {
                name: "peripherals".into(),
                base: 0x4000_0000,
                size: 512 << 20,
                wait_states: 1,
                uncached: true,
            },
        ],
        pmu: PmuParams {
            counters: 4,
            width: 40,
            sscofpmf: false,
            range_filter: false,
            smcntrpmf: false,
            events: fwprof_sim::EventCoding::Generic,
        },
    };
    assert_eq!(c, expected);
    // div_variable: 1 + significant quotient bits, at most `div`.
    let l = &c.pipeline.latency;
    assert_eq!(l.div_cycles(0), 1);
    assert_eq!(l.div_cycles(5), 4);
    assert_eq!(l.div_cycles(u64::from(u32::MAX)), 33);
    assert_eq!(l.div_cycles(u64::MAX), 34);
}

#[test]
fn fixed_division_ignores_the_quotient() {
    let c = CoreConfig::from_toml("[pipeline]\ndiv = 37\n", "f.toml").unwrap();
    assert_eq!(c.pipeline.latency.div_cycles(0), 37);
    assert_eq!(c.pipeline.latency.div_cycles(u64::MAX), 37);
}

/// `(file text, line, key, words of the message)`: every rejected input.
const BAD: &[(&str, usize, &str, &str)] = &[
    // unknown keys
    ("name = \"x\"\nnmae = \"y\"\n", 2, "nmae", "unknown key; expected one of: name, source"),
    ("[pipeline]\nalu = 1\naluu = 2\n", 3, "pipeline.aluu", "unknown key"),
    ("[pipline]\nalu = 1\n", 1, "pipline", "unknown key"),
    ("[icache]\nsize = 1024\nassoc = 2\n", 3, "icache.assoc", "unknown key"),
    ("[[region]]\nbase = 0\nsize = 4\nwaitstates = 1\n", 4, "region[0].waitstates", "unknown key"),
    // wrong types
    ("\n[pipeline]\nalu = \"fast\"\n", 3, "pipeline.alu", "expected a non-negative integer, found a string"),
    ("pipeline.alu = 1.5\n", 1, "pipeline.alu", "expected a non-negative integer, found a float"),
    ("[pipeline]\nforwarding = 1\n", 2, "pipeline.forwarding", "expected true or false, found an integer"),
    ("name = 3\n", 1, "name", "expected a string, found an integer"),
    ("pipeline = 3\n", 1, "pipeline", "expected a table ([pipeline]), found an integer"),
    ("[region]\nbase = 0\n", 1, "region", "expected an array of tables ([[region]])"),
    ("[dcache]\nsize = true\n", 2, "dcache.size", "expected a size"),
    ("[dcache]\nsize = \"16KB\"\n", 2, "dcache.size", "unknown unit `KB`"),
    ("[pipeline]\ndiv = 99999999999\n", 2, "pipeline.div", "too large"),
    // negative and zero
    ("[pipeline]\nload = -1\n", 2, "pipeline.load", "expected a non-negative integer, found -1"),
    ("[pipeline]\nalu = 0\n", 2, "pipeline.alu", "must be at least 1 cycle"),
    ("[pipeline]\nshift_step = 0\n", 2, "pipeline.shift_step", "at least 1 bit"),
    ("[icache]\nsize = 0\n", 2, "icache.size", "must be greater than 0"),
    ("[icache]\nsize = -4096\n", 2, "icache.size", "found -4096"),
    ("[dcache]\nways = 0\n", 2, "dcache.ways", "must be greater than 0"),
    ("[dcache]\nhit_latency = 0\n", 2, "dcache.hit_latency", "at least 1 cycle"),
    ("[[region]]\nbase = 0\nsize = 0\n", 3, "region[0].size", "must be greater than 0"),
    // geometry
    ("[dcache]\nsize = 3000\n", 2, "dcache.size", "3000 is not a power of two"),
    ("[dcache]\nsize = \"16KiB\"\nline = 24\n", 3, "dcache.line", "24 is not a power of two"),
    ("[dcache]\nline = 2\n", 2, "dcache.line", "less than one 4-byte word"),
    ("[dcache]\nsize = 64\nline = 128\n", 3, "dcache.line", "does not fit"),
    ("[dcache]\nsize = \"16KiB\"\nways = 3\n", 3, "dcache.ways", "not a power-of-two number of sets"),
    ("[dcache]\nsize = 256\nline = 32\nways = 16\n", 4, "dcache.ways", "exceed the 256-byte size"),
    ("[dcache]\nsize = \"4GiB\"\n", 2, "dcache.size", "too large"),
    ("[dcache]\nreplacement = \"plru\"\n", 2, "dcache.replacement", "unknown policy \"plru\""),
    ("[icache]\nwrite_back = true\n", 2, "icache.write_back", "not used by [icache]"),
    // predictor
    ("[predictor]\nkind = \"tage\"\n", 2, "predictor.kind", "unknown predictor \"tage\""),
    ("[predictor]\nkind = \"bimodal\"\nentries = 1000\n", 3, "predictor.entries", "1000 is not a power of two"),
    ("[predictor]\nkind = \"gshare\"\nentries = 256\nhistory_bits = 9\n", 4, "predictor.history_bits", "at most log2(entries) = 8"),
    ("[predictor]\nkind = \"static\"\nentries = 256\n", 3, "predictor.entries", "not used by kind = \"static\""),
    ("[predictor]\nkind = \"bimodal\"\nhistory_bits = 4\n", 3, "predictor.history_bits", "not used by kind = \"bimodal\""),
    ("[predictor]\nbtb_entries = 64\n", 2, "predictor.btb_entries", "not used by kind = \"none\""),
    ("[predictor]\nkind = \"static\"\nbtb_entries = 48\n", 3, "predictor.btb_entries", "48 is not a power of two"),
    // regions
    ("[[region]]\nname = \"flash\"\nsize = 16\n", 2, "region[0].base", "missing"),
    (
        "[[region]]\nname = \"flash\"\nbase = 0\nsize = \"1MiB\"\n\n[[region]]\nname = \"sram\"\nbase = 0x80000\nsize = 16\n",
        8,
        "region[1].base",
        "overlaps region \"flash\" [0x0, 0xfffff] (line 3)",
    ),
    ("[[region]]\nbase = \"0xffff_ffff_ffff_fff0\"\nsize = 32\n", 3, "region[0].size", "passes the end"),
    ("[pmu]\nevents = \"arm\"\n", 2, "pmu.events", "\"generic\", \"ibex\" and \"u74\""),
];

/// The guest PMU's indexes into the model's event vector (fwprof-sim
/// cannot see this crate's) are this crate's.
#[test]
fn the_guest_pmu_reads_the_models_events_where_they_are() {
    use crate::ev;
    use fwprof_sim::model_ev as m;
    assert_eq!(fwprof_sim::MODEL_EVENTS, crate::NUM_EVENTS);
    for (a, b) in [
        (m::BRANCH_MISPREDICTS, ev::BRANCH_MISPREDICTS),
        (m::ICACHE_MISSES, ev::ICACHE_MISSES),
        (m::DCACHE_ACCESSES, ev::DCACHE_ACCESSES),
        (m::DCACHE_MISSES, ev::DCACHE_MISSES),
        (m::STALL_LOAD_USE, ev::STALL_LOAD_USE),
        (m::STALL_ICACHE, ev::STALL_ICACHE),
        (m::STALL_DCACHE, ev::STALL_DCACHE),
        (m::STALL_MULDIV, ev::STALL_MULDIV),
    ] {
        assert_eq!(a, b);
    }
}

#[test]
fn pmu_presets_give_the_documented_guest_counters() {
    let cfg = |name: &str| {
        let c = CoreConfig::load(name).unwrap();
        c.pmu.guest(&c.pipeline.latency)
    };
    let u74 = cfg("u74");
    assert_eq!((u74.counters, u74.width, u74.sscofpmf), (2, 40, false));
    assert_eq!(u74.coding, fwprof_sim::EventCoding::U74);
    let ibex = cfg("ibex");
    assert_eq!(ibex.coding, fwprof_sim::EventCoding::Ibex);
    // Ibex: loads 2 cycles, mul 3, div 37 against a 1-cycle ALU.
    assert_eq!((ibex.lsu_wait, ibex.mul_wait, ibex.div_wait), (1, 2, 36));
    let generic = cfg("generic");
    assert!(generic.sscofpmf && generic.smcntrpmf);
    assert_eq!((generic.counters, generic.width), (8, 64));
}

#[test]
fn bad_input_names_the_file_line_and_key() {
    for &(text, line, key, words) in BAD {
        let err = CoreConfig::from_toml(text, "cores/bad.toml")
            .expect_err(&format!("accepted bad input:\n{text}"));
        let shown = err.to_string();
        let prefix = format!("cores/bad.toml:{line}: key `{key}`: ");
        assert!(
            shown.starts_with(&prefix),
            "{shown:?} does not start with {prefix:?}\ninput:\n{text}"
        );
        assert!(
            shown.contains(words),
            "{shown:?} does not contain {words:?}"
        );
        assert!(!shown.contains('\n'), "not one line: {shown:?}");
    }
}

#[test]
fn structural_and_semantic_errors_are_told_apart() {
    let e = CoreConfig::from_toml("[pipeline]\nalu = \"x\"\n", "a.toml").unwrap_err();
    assert!(
        matches!(e, ConfigError::Parse { line: 2, key: Some(ref k), .. } if k == "pipeline.alu")
    );
    let e = CoreConfig::from_toml("[icache]\nsize = 100\n", "a.toml").unwrap_err();
    assert!(matches!(e, ConfigError::Invalid { line: 2, ref key, .. } if key == "icache.size"));
}

#[test]
fn syntax_errors_give_the_line_without_a_key() {
    for (text, line) in [
        ("name = \"x\"\n[pipeline]\nalu = \n", 3),
        ("[pipeline]\nalu = 1\nalu = 2\n", 3),
        ("[pipeline\n", 1),
        ("\n\nsource = 2024-01-01\n", 3),
    ] {
        let e = CoreConfig::from_toml(text, "s.toml").unwrap_err();
        let shown = e.to_string();
        assert!(matches!(e, ConfigError::Parse { key: None, .. }), "{shown}");
        assert!(
            shown.starts_with(&format!("s.toml:{line}: ")),
            "{shown:?} for\n{text}"
        );
        assert!(!shown.contains('\n'), "not one line: {shown:?}");
    }
}

#[test]
fn one_error_reads_exactly_as_documented() {
    let e =
        CoreConfig::from_toml("[pipeline]\nalu = 1\nload = \"two\"\n", "core.toml").unwrap_err();
    assert_eq!(
        e.to_string(),
        "core.toml:3: key `pipeline.load`: expected a non-negative integer, found a string"
    );
}

#[test]
fn sizes_take_units_and_hex() {
    assert_eq!(parse_size("16KiB"), Ok(16384));
    assert_eq!(parse_size(" 1 MiB "), Ok(1 << 20));
    assert_eq!(parse_size("2GiB"), Ok(2 << 30));
    assert_eq!(parse_size("64B"), Ok(64));
    assert_eq!(parse_size("4_096"), Ok(4096));
    assert_eq!(parse_size("0x4000"), Ok(16384));
    assert_eq!(parse_size("0xffff_ffff_ffff_ffff"), Ok(u64::MAX));
    assert_eq!(parse_size("0x10B"), Ok(0x10b));
    assert!(parse_size("0x10KiB")
        .unwrap_err()
        .contains("unexpected `K`"));
    assert!(parse_size("16 kB")
        .unwrap_err()
        .contains("unknown unit `kB`"));
    assert!(parse_size("KiB").is_err());
    assert!(parse_size("99999999999GiB")
        .unwrap_err()
        .contains("too large"));
}

#[test]
fn regions_may_touch_but_not_overlap() {
    let touching = "[[region]]\nbase = 0\nsize = 16\n[[region]]\nbase = 16\nsize = 16\n";
    assert_eq!(
        CoreConfig::from_toml(touching, "t.toml")
            .unwrap()
            .regions
            .len(),
        2
    );
    let inside = "[[region]]\nbase = 0x100\nsize = 16\n[[region]]\nbase = 0\nsize = 0x1000\n";
    let e = CoreConfig::from_toml(inside, "t.toml")
        .unwrap_err()
        .to_string();
    assert!(
        e.starts_with("t.toml:5: key `region[1].base`: [0x0, 0xfff] overlaps region \"region[0]\""),
        "{e}"
    );
    let top = "[[region]]\nbase = \"0xffff_ffff_ffff_fff0\"\nsize = 16\n";
    assert_eq!(
        CoreConfig::from_toml(top, "t.toml").unwrap().regions[0].base,
        0xffff_ffff_ffff_fff0
    );
}

#[test]
fn xlen_is_32_64_or_absent() {
    let c = |t: &str| CoreConfig::from_toml(t, "x.toml");
    assert_eq!(c("xlen = 32").unwrap().xlen, Some(32));
    assert_eq!(c("xlen = 64").unwrap().xlen, Some(64));
    assert_eq!(c("").unwrap().xlen, None);
    let e = c("\nxlen = 48").unwrap_err().to_string();
    assert_eq!(e, "x.toml:2: key `xlen`: 48 is not 32 or 64");
    assert_eq!(CoreConfig::preset("picorv32").unwrap().xlen, Some(32));
    assert_eq!(CoreConfig::preset("ibex").unwrap().xlen, Some(32));
    assert_eq!(CoreConfig::preset("generic").unwrap().xlen, None);
}

#[test]
fn machine_regions_fill_in_around_the_core_regions() {
    let core = "[[region]]\nname = \"sram\"\nbase = 0x1000\nsize = 0x100\nuncached = true\n";
    let mut c = CoreConfig::from_toml(core, "t.toml").unwrap();
    let m = |name: &str, base, size, wait_states| MemoryRegion {
        name: name.into(),
        base,
        size,
        wait_states,
        uncached: false,
    };
    c.add_machine_regions(&[m("flash", 0x0, 0x2000, 3), m("ram", 0x8000, 0x100, 1)]);
    let got: Vec<(&str, u64, u64, u32, bool)> = c
        .regions
        .iter()
        .map(|r| (r.name.as_str(), r.base, r.size, r.wait_states, r.uncached))
        .collect();
    assert_eq!(
        got,
        vec![
            ("sram", 0x1000, 0x100, 0, true),
            ("flash", 0x0, 0x1000, 3, false),
            ("flash", 0x1100, 0xf00, 3, false),
            ("ram", 0x8000, 0x100, 1, false),
        ]
    );
}
