//! Fuzz everything that reads a profile file, as `fwprof report`, `diff`
//! and `merge` do: `Profile::from_bytes` must give a profile or an error,
//! never a panic. An accepted profile's invariants are checked (an error is
//! fine, a panic is not); then the flat profile, call graph and JSON report
//! are written, the profile is diffed against itself (text and JSON, every
//! change zero) and merged with itself, which must double its totals and,
//! if the profile passed its invariants, pass them too.
//!
//! (`crates/fwprof-profile/fuzz`'s `read_profile` fuzzes the file format
//! alone, with an encode/decode round trip.)
#![no_main]

use fwprof_export::{diff, merge};
use fwprof_profile::Profile;
use fwprof_report::{CallGraphOptions, FlatOptions, SortKey};
use libfuzzer_sys::fuzz_target;

/// Input that is not a profile file is taken as the body of a version-2
/// file with the right CRC-32C, so that the fuzzer reaches the decoder and
/// the readers behind the checksum.
fn as_file(data: &[u8]) -> std::borrow::Cow<'_, [u8]> {
    if data.starts_with(&fwprof_profile::MAGIC) {
        return data.into();
    }
    let mut file = fwprof_profile::MAGIC.to_vec();
    file.extend_from_slice(&2u32.to_le_bytes());
    file.extend_from_slice(&(data.len() as u64).to_le_bytes());
    file.extend_from_slice(&crc32c::crc32c(data).to_le_bytes());
    file.extend_from_slice(data);
    file.into()
}

fuzz_target!(|data: &[u8]| {
    let data = &as_file(data)[..];
    let Ok(p) = Profile::from_bytes(data) else {
        return;
    };
    let consistent = p.check_invariants().is_ok();
    let mut sink = std::io::sink();
    for event in 0..p.events.len().min(2) {
        let flat = FlatOptions {
            top: None,
            sort: SortKey::SelfCost,
            event,
            columns: Vec::new(),
            brief: false,
        };
        let _ = fwprof_report::write_flat(&p, &flat, &mut sink);
        let cg = CallGraphOptions {
            event,
            brief: false,
        };
        let _ = fwprof_report::write_call_graph(&p, &cg, &mut sink);
    }
    let _ = fwprof_report::write_json(&p, &mut sink);

    let d = diff::compare(&p, &p, 0).expect("a profile shares its events with itself");
    assert!(d.functions.iter().all(|f| f
        .self_cost
        .iter()
        .chain(&f.inclusive)
        .all(|c| c.delta() == 0)));
    d.write(false, &mut sink).expect("text diff");
    d.write(true, &mut sink).expect("JSON diff");

    match merge::merge(&[p.clone(), p.clone()], false) {
        Ok(m) => {
            assert!(consistent, "merge accepted an inconsistent profile");
            m.check_invariants().expect("merged profile is consistent");
            for (t, u) in m.totals.iter().zip(&p.totals) {
                assert_eq!(*t, u * 2);
            }
        }
        // Inconsistent input, or a sum overflowing 64 bits.
        Err(_) => {}
    }
});
