//! Round trips, malformed files and invariants of the profile format.

use fwprof_profile::{
    AddressCost, Arc, Error, FunctionId, FunctionRecord, Meta, Profile, Target, TrapRecord,
    FORMAT_VERSION, MAGIC,
};
use proptest::prelude::*;

/// main (0x100) calls leaf (0x200) twice from 0x104; events: instructions, cycles.
fn sample() -> Profile {
    let mut meta = Meta::new("prog.elf");
    meta.sha256 = "ab".repeat(32);
    meta.build_id = Some("0123abcd".into());
    meta.target = Target::Linux;
    meta.partial = Some("instruction limit".into());
    meta.exit_status = Some(3);
    meta.warnings.push("no symbols".into());
    let mut p = Profile::new(meta, vec!["instructions".into(), "cycles".into()]);
    let main = p.add_function(FunctionRecord::new("main", 0x100, 0x110));
    let leaf = p.add_function(FunctionRecord::new("leaf", 0x200, 0x208));
    p.costs
        .push(AddressCost {
            addr: 0x100,
            function: main,
            len: 4,
            raw: 0x13,
            cost: vec![1, 1],
        })
        .unwrap();
    p.costs
        .push(AddressCost {
            addr: 0x104,
            function: main,
            len: 4,
            raw: 0x0080_00ef,
            cost: vec![1, 2],
        })
        .unwrap();
    p.costs
        .push(AddressCost {
            addr: 0x108,
            function: main,
            len: 2,
            raw: 0x8082,
            cost: vec![1, 1],
        })
        .unwrap();
    p.costs
        .push(AddressCost {
            addr: 0x200,
            function: leaf,
            len: 2,
            raw: 0x0505,
            cost: vec![2, 2],
        })
        .unwrap();
    p.costs
        .push(AddressCost {
            addr: 0x202,
            function: leaf,
            len: 2,
            raw: 0x8082,
            cost: vec![2, 4],
        })
        .unwrap();
    let f = &mut p.functions;
    f[0].calls = 1;
    f[0].self_cost = vec![3, 4];
    f[0].inclusive = vec![7, 10];
    f[0].file = Some("main.c".into());
    f[0].line = Some(3);
    f[1].calls = 2;
    f[1].self_cost = vec![4, 6];
    f[1].inclusive = vec![4, 6];
    p.arcs.push(Arc::spontaneous(main, 1, vec![7, 10]));
    p.arcs.push(Arc {
        caller: Some(main),
        callee: leaf,
        call_site: 0x104,
        calls: 2,
        tail: false,
        inclusive: vec![4, 6],
    });
    p.traps.push(TrapRecord {
        cause: 8,
        pc: 0x108,
        count: 1,
    });
    p.totals = vec![7, 10];
    p
}

#[test]
fn round_trip_through_a_file() {
    let p = sample();
    p.check_invariants().unwrap();
    let dir = std::env::temp_dir().join(format!("fwprof-profile-test-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("out.fwprof");
    p.write_atomic(&path).unwrap();
    let back = Profile::read(&path).unwrap();
    assert_eq!(back, p);
    // No temporary file is left behind.
    let names: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert_eq!(names, vec![std::ffi::OsString::from("out.fwprof")]);
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn header_layout_is_as_documented() {
    let bytes = sample().to_bytes().unwrap();
    assert_eq!(&bytes[..8], b"FWPROF\0\x01");
    assert_eq!(&bytes[..8], &MAGIC);
    assert_eq!(
        u32::from_le_bytes(bytes[8..12].try_into().unwrap()),
        FORMAT_VERSION
    );
    let body = u64::from_le_bytes(bytes[12..20].try_into().unwrap());
    assert_eq!(body as usize, bytes.len() - 24);
    let crc = u32::from_le_bytes(bytes[20..24].try_into().unwrap());
    // Version 3: of the first 20 header bytes, then the body.
    assert_eq!(
        crc,
        crc32c::crc32c_append(crc32c::crc32c(&bytes[..20]), &bytes[24..])
    );
}

#[test]
fn address_cost_views() {
    let p = sample();
    assert_eq!(p.costs.len(), 5);
    let c = p.costs.find(0x104).unwrap();
    assert_eq!((c.len, c.raw, c.cost), (4, 0x0080_00ef, &[1u64, 2][..]));
    assert!(p.costs.find(0x106).is_none());
    let leaf: Vec<u64> = p.costs.range(0x200, 0x208).map(|c| c.addr).collect();
    assert_eq!(leaf, vec![0x200, 0x202]);
    assert_eq!(p.function_at(0x202), Some(FunctionId(1)));
    assert_eq!(p.event_index("cycles"), Some(1));
}

#[test]
fn push_rejects_bad_entries() {
    let mut p = sample();
    let out_of_order = AddressCost {
        addr: 0x100,
        function: FunctionId(0),
        len: 4,
        raw: 0,
        cost: vec![0, 0],
    };
    assert!(matches!(
        p.costs.push(out_of_order),
        Err(Error::Inconsistent(_))
    ));
    let short = AddressCost {
        addr: 0x300,
        function: FunctionId(0),
        len: 4,
        raw: 0,
        cost: vec![0],
    };
    assert!(matches!(p.costs.push(short), Err(Error::Inconsistent(_))));
    let odd = AddressCost {
        addr: 0x300,
        function: FunctionId(0),
        len: 3,
        raw: 0,
        cost: vec![0, 0],
    };
    assert!(matches!(p.costs.push(odd), Err(Error::Inconsistent(_))));
}

#[test]
fn bad_magic_is_not_a_profile() {
    let mut bytes = sample().to_bytes().unwrap();
    bytes[0] = b'X';
    assert!(matches!(
        Profile::from_bytes(&bytes),
        Err(Error::NotAProfile)
    ));
    assert!(matches!(
        Profile::from_bytes(b"\x7fELF"),
        Err(Error::NotAProfile)
    ));
    assert!(matches!(Profile::from_bytes(b""), Err(Error::Truncated)));
}

#[test]
fn other_versions_are_refused() {
    let mut bytes = sample().to_bytes().unwrap();
    for v in [0u32, 4, 0x0100_0003] {
        bytes[8..12].copy_from_slice(&v.to_le_bytes());
        match Profile::from_bytes(&bytes) {
            Err(
                e @ Error::UnsupportedVersion {
                    oldest: 1,
                    newest: 3,
                    ..
                },
            ) => assert_eq!(
                e.to_string(),
                format!(
                    "unsupported profile format version {v} (this fwprof reads versions 1 to 3)"
                )
            ),
            other => panic!("{other:?}"),
        }
    }
}

#[test]
fn every_truncation_is_reported_as_truncated() {
    let bytes = sample().to_bytes().unwrap();
    for cut in 0..bytes.len() {
        match Profile::from_bytes(&bytes[..cut]) {
            Err(Error::Truncated) => {}
            other => panic!("cut at {cut}: {other:?}"),
        }
    }
}

#[test]
fn trailing_bytes_and_garbage_bodies_are_corrupt() {
    let mut bytes = sample().to_bytes().unwrap();
    bytes.push(0);
    assert!(matches!(
        Profile::from_bytes(&bytes),
        Err(Error::TrailingBytes)
    ));
    // A body with a right checksum that is not CBOR: words, not `Syntax(0)`.
    match Profile::from_bytes(&v2_file(&[0xff, 0xff, 0xff])) {
        Err(e @ Error::Corrupt(_)) => assert_eq!(
            e.to_string(),
            "the profile file is damaged: the body does not have the profile's layout (invalid type: break, expected map)"
        ),
        other => panic!("{other:?}"),
    }
}

/// A version-2 file (checksum of the body only) around `body`, with its right checksum.
fn v2_file(body: &[u8]) -> Vec<u8> {
    let mut bytes = MAGIC.to_vec();
    bytes.extend_from_slice(&2u32.to_le_bytes());
    bytes.extend_from_slice(&(body.len() as u64).to_le_bytes());
    bytes.extend_from_slice(&crc32c::crc32c(body).to_le_bytes());
    bytes.extend_from_slice(body);
    bytes
}

fn reencoded(p: &Profile) -> Result<Profile, Error> {
    // Bypass `validate` on the writing side: encoding does not check shapes.
    Profile::from_bytes(&p.to_bytes().unwrap())
}

#[test]
fn shape_errors_are_inconsistent() {
    let mut p = sample();
    p.arcs[1].callee = FunctionId(9);
    assert!(matches!(reencoded(&p), Err(Error::Inconsistent(m)) if m.contains("arc 1")));
    let mut p = sample();
    p.functions[1].inclusive.pop();
    assert!(matches!(reencoded(&p), Err(Error::Inconsistent(m)) if m.contains("leaf")));
    let mut p = sample();
    p.events[0] = "cycles".into();
    assert!(matches!(reencoded(&p), Err(Error::Inconsistent(_))));
    let mut p = sample();
    p.totals.push(1);
    assert!(matches!(reencoded(&p), Err(Error::Inconsistent(_))));
}

#[test]
fn invariant_violations_are_named() {
    let mut p = sample();
    p.totals[0] = 8;
    assert!(p.check_invariants().unwrap_err().contains("total is 8"));

    let mut p = sample();
    p.functions[1].calls = 3;
    assert!(p
        .check_invariants()
        .unwrap_err()
        .contains("leaf: calls 3 but its incoming arcs carry 2"));

    let mut p = sample();
    p.functions[1].inclusive[1] = 5;
    let err = p.check_invariants().unwrap_err();
    assert!(
        err.contains("leaf: inclusive cycles 5 below self 6"),
        "{err}"
    );
    assert!(err.contains("arc main -> leaf"), "{err}");

    let mut p = sample();
    p.functions[0].inclusive[0] = 70;
    assert!(p
        .check_invariants()
        .unwrap_err()
        .contains("above the total"));

    let mut p = sample();
    p.functions[0].self_cost = vec![2, 4];
    p.functions[1].self_cost = vec![5, 6];
    p.functions[1].inclusive = vec![5, 6];
    p.functions[0].inclusive = vec![7, 10];
    p.arcs[1].inclusive = vec![5, 6];
    // Sums still match the total, but the per-address costs disagree.
    let err = p.check_invariants().unwrap_err();
    assert!(
        err.contains("main: per-address instructions add up to 3, self is 2"),
        "{err}"
    );
}

proptest! {
    #[test]
    fn arbitrary_bytes_never_panic(bytes in proptest::collection::vec(any::<u8>(), 0..512)) {
        let _ = Profile::from_bytes(&bytes);
    }

    #[test]
    fn arbitrary_bodies_never_panic(body in proptest::collection::vec(any::<u8>(), 0..512)) {
        prop_assert!(Profile::from_bytes(&v2_file(&body)).is_err());
    }

    #[test]
    fn mutated_valid_files_never_panic(pos in 0usize..4096, val in any::<u8>(), cut in 0usize..4096) {
        let mut bytes = sample().to_bytes().unwrap();
        let pos = pos % bytes.len();
        bytes[pos] = val;
        let cut = cut % (bytes.len() + 1);
        let _ = Profile::from_bytes(&bytes[..cut]);
        let _ = Profile::from_bytes(&bytes);
    }
}

#[test]
fn io_failures_are_io_errors() {
    let missing = std::env::temp_dir().join(format!("fwprof-no-such-dir-{}", std::process::id()));
    assert!(matches!(
        Profile::read(missing.join("x")),
        Err(Error::Io(_))
    ));
    assert!(matches!(
        sample().write_atomic(missing.join("x")),
        Err(Error::Io(_))
    ));
    assert!(!missing.exists());
}
