//! The growth rule of the profile format (`docs/profile-format.md`,
//! "Growth"): named optional sections that a reader decodes when it knows
//! them, skips and lists when they are ancillary and unknown, and refuses
//! the file for when they are critical and unknown; version-2 files (no
//! sections) keep reading.

use fwprof_profile::{Error, FunctionRecord, Meta, Profile, Section, SectionKind, FORMAT_VERSION};
use serde::{Deserialize, Serialize};

fn small() -> Profile {
    let mut p = Profile::new(Meta::new("prog.elf"), vec!["instructions".into()]);
    let main = p.add_function(FunctionRecord::new("main", 0x100, 0x110));
    p.functions[main.index()].self_cost = vec![0];
    p.functions[main.index()].inclusive = vec![0];
    p
}

/// A section type as a later issue would add one.
#[derive(Debug, PartialEq, Serialize, Deserialize)]
struct HartCosts {
    harts: Vec<(u32, u64)>,
}

impl SectionKind for HartCosts {
    const NAME: &'static str = "hart-costs";
    const VERSION: u32 = 1;
    const CRITICAL: bool = false;
}

#[test]
fn a_section_round_trips_through_the_file() {
    let mut p = small();
    let value = HartCosts {
        harts: vec![(0, 1_000), (1, 2_345)],
    };
    p.set_section(&value).unwrap();
    let back = Profile::from_bytes(&p.to_bytes().unwrap()).unwrap();
    assert_eq!(back.meta.format_version, 3);
    assert_eq!(back.section::<HartCosts>().unwrap(), Some(value));
    assert_eq!(back.sections["hart-costs"].version, 1);
    assert!(!back.sections["hart-costs"].critical);
    // This build does not list "hart-costs" among the sections it knows, so
    // a reader reports it as skipped.
    assert_eq!(back.unknown_sections(), vec![("hart-costs", 1)]);
    assert_eq!(back, p);
}

#[test]
fn an_unknown_ancillary_section_is_skipped_and_listed() {
    let mut p = small();
    p.sections.insert(
        "future.paths".into(),
        Section {
            version: 7,
            critical: false,
            // Any CBOR item: here the text string "opaque" (0x66 + 6 bytes).
            data: serde_bytes::ByteBuf::from(b"\x66opaque".to_vec()),
        },
    );
    let back = Profile::from_bytes(&p.to_bytes().unwrap()).unwrap();
    assert_eq!(back.unknown_sections(), vec![("future.paths", 7)]);
    assert_eq!(back.functions, p.functions);
    assert_eq!(back.sections, p.sections, "kept as they were");
}

#[test]
fn an_unknown_critical_section_refuses_the_file_in_words() {
    let mut p = small();
    p.sections.insert(
        "per-hart".into(),
        Section {
            version: 2,
            critical: true,
            data: serde_bytes::ByteBuf::from(vec![0xf6]),
        },
    );
    match Profile::from_bytes(&p.to_bytes().unwrap()) {
        Err(e @ Error::NeedsNewerReader { .. }) => assert_eq!(
            e.to_string(),
            "the profile needs a newer fwprof: it has a section \"per-hart\" (version 2) that this fwprof does not read and must not skip"
        ),
        other => panic!("{other:?}"),
    }
}

#[test]
fn a_newer_version_of_a_section_is_not_decoded_as_the_old_layout() {
    let mut p = small();
    p.set_section(&HartCosts {
        harts: vec![(0, 1)],
    })
    .unwrap();
    p.sections.get_mut("hart-costs").unwrap().version = 2;
    let back = Profile::from_bytes(&p.to_bytes().unwrap()).unwrap();
    assert_eq!(back.section::<HartCosts>().unwrap(), None);
    assert_eq!(back.unknown_sections(), vec![("hart-costs", 2)]);
}

#[test]
fn malformed_sections_are_inconsistent_or_corrupt() {
    let mut p = small();
    p.sections.insert(
        "Bad Name".into(),
        Section {
            version: 1,
            critical: false,
            data: serde_bytes::ByteBuf::from(vec![0xf6]),
        },
    );
    assert!(matches!(
        Profile::from_bytes(&p.to_bytes().unwrap()),
        Err(Error::Inconsistent(_))
    ));
    let mut p = small();
    p.sections.insert(
        "v0".into(),
        Section {
            version: 0,
            critical: false,
            data: serde_bytes::ByteBuf::from(vec![0xf6]),
        },
    );
    match Profile::from_bytes(&p.to_bytes().unwrap()) {
        Err(e) => assert_eq!(
            e.to_string(),
            "the profile is inconsistent: section \"v0\" has version 0"
        ),
        Ok(_) => panic!("version 0 accepted"),
    }
    // Content that is not the layout the type expects: an error, no panic.
    let mut p = small();
    p.sections.insert(
        "hart-costs".into(),
        Section {
            version: 1,
            critical: false,
            data: serde_bytes::ByteBuf::from(b"\x66opaque".to_vec()),
        },
    );
    let back = Profile::from_bytes(&p.to_bytes().unwrap()).unwrap();
    assert!(matches!(
        back.section::<HartCosts>(),
        Err(Error::Corrupt(_))
    ));
}

#[test]
fn a_version_2_file_still_reads() {
    // Written by fwprof-profile at d49c2af (format version 2): two functions, one
    // call, a calling-context tree.
    let bytes = include_bytes!("fixtures/v2.fwprof");
    assert_eq!(u32::from_le_bytes(bytes[8..12].try_into().unwrap()), 2);
    let p = Profile::from_bytes(bytes).unwrap();
    assert_eq!(p.meta.format_version, 2);
    assert!(p.is_checksummed());
    assert!(p.sections.is_empty());
    assert_eq!(p.functions.len(), 2);
    assert_eq!(p.functions[1].name, "leaf");
    assert_eq!(p.totals, vec![5]);
    assert_eq!(p.contexts.len(), 2);
    p.check_invariants().unwrap();
    let again = Profile::from_bytes(&p.to_bytes().unwrap()).unwrap();
    assert_eq!(again.meta.format_version, FORMAT_VERSION);
    assert_eq!(again.functions, p.functions);
}
