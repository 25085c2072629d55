//! Reading the ELF fixtures in tests/data (rebuilt by tests/data/build.sh).

use fwprof_symbols::{Class, Error, Program, SourceResolver};

fn data(name: &str) -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data")
        .join(name)
}

#[test]
fn rv64_header_facts() {
    let p = Program::open(data("rv64.elf")).unwrap();
    assert_eq!(p.class(), Class::Rv64);
    assert_eq!(p.class().xlen(), 64);
    assert_eq!(p.entry(), 0x1012c);
    assert_eq!(
        p.build_id_hex().as_deref(),
        Some("3be9a88cf21f0a55b36f3a0ccfcd992e8bfb0ce5")
    );
    // The digest of the committed fixture, as `sha256sum tests/data/rv64.elf`
    // prints it (fixed, so the check does not depend on a host tool and
    // cannot compare the code under test with itself; tests/data/build.sh
    // changes it, like the build id above).
    assert_eq!(
        p.sha256_hex(),
        "9d02081b86fe97e29d0004ae4424a219fcbecc6fc063cbf0159d18f319297328"
    );
    assert_eq!(p.executable_ranges(), vec![(0x1010c, 0x10140)]);
    assert!(p.warnings().is_empty(), "{:?}", p.warnings());
    // c.li a5,0 at 0x10112 is 0x4781.
    assert_eq!(p.bytes_at(0x10112, 2), Some(&[0x81, 0x47][..]));
    assert_eq!(p.bytes_at(0x1013e, 4), None);
}

#[test]
fn rv64_function_table() {
    let p = Program::open(data("rv64.elf")).unwrap();
    let t = p.functions();
    let got: Vec<(String, u64, u64)> = t
        .iter()
        .map(|(_, f)| (f.name.clone(), f.start, f.end))
        .collect();
    assert_eq!(
        got,
        vec![
            ("sum_squares".to_string(), 0x1010c, 0x10128),
            ("alias_target".to_string(), 0x10128, 0x1012c),
            ("_start".to_string(), 0x1012c, 0x10138),
            ("notype_entry".to_string(), 0x10138, 0x10140),
        ]
    );
    let alias = t.get(t.lookup(0x1012a).unwrap());
    assert_eq!(alias.aliases, vec!["weak_alias".to_string()]);
    assert_eq!(t.entries(), &[0x1010c, 0x10128, 0x1012c, 0x10138]);
    assert!(t.is_entry(0x10138));
    assert!(!p.symbols().iter().any(|s| s.name.starts_with('$')));
}

#[test]
fn rv64_lines_with_inlining() {
    let p = Program::open(data("rv64.elf")).unwrap();
    assert!(p.has_debug_info());
    let loc = p.lines(0x10116).unwrap().unwrap();
    assert_eq!(loc.file.as_deref(), Some("/build/fwprof/data/sample.c"));
    assert_eq!(loc.line, Some(4));
    assert_eq!(loc.function.as_deref(), Some("square"));
    assert_eq!(loc.outer_function.as_deref(), Some("sum_squares"));
    assert_eq!(loc.inlined.len(), 1);
    assert_eq!(loc.inlined[0].function, "square");
    assert_eq!(
        loc.inlined[0].call_file.as_deref(),
        Some("/build/fwprof/data/sample.c")
    );
    assert_eq!(loc.inlined[0].call_line, Some(11));

    let plain = p.lines(0x1010c).unwrap().unwrap();
    assert_eq!((plain.line, plain.inlined.len()), (Some(8), 0));
    let asm = p.lines(0x10138).unwrap().unwrap();
    assert_eq!(asm.file.as_deref(), Some("/build/fwprof/data/extra.s"));
    assert_eq!(asm.line, Some(4));
    assert_eq!(p.lines(0x5).unwrap(), None);

    // The DWARF path does not exist here; --source-dir finds it by suffix.
    let r = SourceResolver::new(vec![data("")]);
    assert_eq!(
        r.resolve(loc.file.as_deref().unwrap()),
        Some(data("sample.c"))
    );
}

#[test]
fn rv32_class_and_no_build_id() {
    let p = Program::open(data("rv32.elf")).unwrap();
    assert_eq!(p.class(), Class::Rv32);
    assert_eq!(p.build_id(), None);
    let t = p.functions();
    assert!(t.iter().any(|(_, f)| f.name == "sum_squares"));
    for (lo, hi) in p.executable_ranges() {
        for a in lo..hi {
            assert!(t.lookup(a).is_some(), "{a:#x}");
        }
    }
}

#[test]
fn stripped_elf_gives_unknown_ranges_and_a_warning() {
    let p = Program::open(data("rv64-stripped.elf")).unwrap();
    let t = p.functions();
    assert!(t.is_stripped());
    assert_eq!(t.len(), 1);
    assert_eq!(t.get(t.lookup(0x10130).unwrap()).name, "[unknown 0x1010c]");
    let w = p.warnings();
    assert_eq!(w.len(), 1);
    assert!(w[0].contains("stripped"));
    assert!(!p.has_debug_info());
    assert_eq!(p.lines(0x10130).unwrap(), None);
}

#[test]
fn bad_inputs_are_typed_errors() {
    assert!(matches!(
        Program::open(data("missing.elf")),
        Err(Error::Io { .. })
    ));
    assert!(matches!(
        Program::parse(b"not an elf".to_vec()),
        Err(Error::NotElf(_))
    ));
    let mut bytes = std::fs::read(data("rv64.elf")).unwrap();
    bytes[18] = 62; // e_machine = EM_X86_64
    assert!(matches!(
        Program::parse(bytes.clone()),
        Err(Error::NotRiscv(_))
    ));
    // Truncated ELF images never panic.
    let full = std::fs::read(data("rv64.elf")).unwrap();
    for cut in (0..full.len()).step_by(7) {
        if let Ok(p) = Program::parse(full[..cut].to_vec()) {
            let _ = p.functions();
            let _ = p.lines(0x10116);
        }
    }
}
