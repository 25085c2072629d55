//! Damage to a profile file is always detected and explained in words:
//! every single-bit flip of a version-2 file is rejected; a version-1 file
//! (no checksum) still reads; fields a reader trusts are validated.

use fwprof_profile::{Error, FunctionRecord, Meta, Profile, Target};

/// A small profile of two functions, as `record` would write for Linux.
fn small() -> Profile {
    let mut meta = Meta::new("prog.elf");
    meta.sha256 = "0123456789abcdef".repeat(4);
    meta.target = Target::Linux;
    meta.set_environment(&["HOME=/root".into(), "LANG=C".into()], false);
    let mut p = Profile::new(meta, vec!["instructions".into()]);
    let main = p.add_function(FunctionRecord::new("main", 0x100, 0x110));
    p.functions[main.index()].self_cost = vec![3];
    p.functions[main.index()].inclusive = vec![3];
    p.functions[main.index()].calls = 1;
    p.costs
        .push(fwprof_profile::AddressCost {
            addr: 0x100,
            function: main,
            len: 4,
            raw: 0x13,
            cost: vec![3],
        })
        .unwrap();
    p.arcs
        .push(fwprof_profile::Arc::spontaneous(main, 1, vec![131_820]));
    p.totals = vec![3];
    p
}

/// The messages a damaged file may give: fixed words, no parser internals.
fn is_words_only(e: &Error) -> bool {
    let m = e.to_string();
    let allowed = m == "checksum mismatch: the file is damaged"
        || m.starts_with("not an fwprof profile")
        || m.starts_with("unsupported profile format version")
        || m.starts_with("the profile file is truncated")
        || m.starts_with("the profile file is damaged: it is longer");
    allowed && !m.contains("Syntax") && !m.contains("Semantic")
}

#[test]
fn every_single_bit_flip_is_rejected_in_words() {
    let p = small();
    let bytes = p.to_bytes().unwrap();
    assert!(bytes.len() * 8 > 2000, "{} bytes", bytes.len());
    let mut kinds = std::collections::BTreeMap::<String, usize>::new();
    for bit in 0..bytes.len() * 8 {
        let mut damaged = bytes.clone();
        damaged[bit / 8] ^= 1 << (bit % 8);
        match Profile::from_bytes(&damaged) {
            Ok(q) => panic!("flip of bit {bit} accepted (equal: {})", q == p),
            Err(e) => {
                assert!(is_words_only(&e), "bit {bit}: {e}");
                *kinds.entry(e.to_string()).or_default() += 1;
            }
        }
    }
    let body_flips = (bytes.len() - 24) * 8 + 32;
    assert!(
        kinds["checksum mismatch: the file is damaged"] >= body_flips,
        "{kinds:?}"
    );
}

#[test]
fn a_version_1_file_still_reads_unchecked() {
    let bytes = include_bytes!("fixtures/v1.fwprof");
    assert_eq!(u32::from_le_bytes(bytes[8..12].try_into().unwrap()), 1);
    let p = Profile::from_bytes(bytes).unwrap();
    assert_eq!(p.meta.format_version, 1);
    assert!(!p.is_checksummed());
    assert_eq!(p.functions.len(), 2);
    assert_eq!(p.totals, vec![7, 10]);
    // Old profiles stored the environment's values: still read, and their
    // digest stands in for the missing `environment_sha256`.
    assert_eq!(p.meta.environment, ["HOME=/home/user", "LANG=C.UTF-8"]);
    assert_eq!(p.meta.environment_sha256, None);
    assert_eq!(
        p.meta.environment_fingerprint(),
        Some(fwprof_profile::environment_sha256(&p.meta.environment))
    );
    // Written again, it becomes a checksummed file of the current version.
    let again = Profile::from_bytes(&p.to_bytes().unwrap()).unwrap();
    assert!(again.is_checksummed());
    assert_eq!(again.meta.format_version, fwprof_profile::FORMAT_VERSION);
    assert_eq!(again.functions, p.functions);
}

fn reencoded(p: &Profile) -> Result<Profile, Error> {
    Profile::from_bytes(&p.to_bytes().unwrap())
}

#[test]
fn fields_readers_trust_are_validated() {
    let mut p = small();
    // Non-ASCII of 64 bytes: `compare` sliced it at byte 12 and panicked.
    p.meta.sha256 = "é".repeat(32);
    match reencoded(&p) {
        Err(e @ Error::Inconsistent(_)) => assert_eq!(
            e.to_string(),
            "the profile is inconsistent: the program's SHA-256 is not 64 hex digits"
        ),
        other => panic!("{other:?}"),
    }
    let mut p = small();
    p.meta.sha256 = "z".repeat(64);
    assert!(matches!(reencoded(&p), Err(Error::Inconsistent(_))));
    let mut p = small();
    p.meta.sha256.clear();
    reencoded(&p).unwrap();
    let mut p = small();
    p.meta.build_id = Some("xyz".into());
    assert!(matches!(reencoded(&p), Err(Error::Inconsistent(m)) if m.contains("build id")));
    let mut p = small();
    p.meta.environment_sha256 = Some("abc".into());
    assert!(matches!(reencoded(&p), Err(Error::Inconsistent(m)) if m.contains("environment")));
    let mut p = small();
    p.instrumented.push(fwprof_profile::InstrumentRecord {
        function: fwprof_profile::FunctionId(7),
        calls: 0,
        total: 0,
        self_time: 0,
        total_compensated: 0,
        self_compensated: 0,
        min: 0,
        max: 0,
        histogram: vec![],
    });
    assert!(
        matches!(reencoded(&p), Err(Error::Inconsistent(m)) if m.contains("instrumented record 0"))
    );
}
