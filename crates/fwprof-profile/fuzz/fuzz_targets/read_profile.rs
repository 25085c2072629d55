//! Fuzz `Profile::from_bytes`: any input must give a profile or an error,
//! never a panic, and an accepted profile must re-encode to a file that
//! reads back equal.
#![no_main]

use fwprof_profile::Profile;
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
    if let Ok(mut p) = Profile::from_bytes(data) {
        let again = Profile::from_bytes(&p.to_bytes().expect("re-encode")).expect("re-read");
        // A version-1 or version-2 input comes back as the current version,
        // otherwise equal.
        p.meta.format_version = fwprof_profile::FORMAT_VERSION;
        assert_eq!(again, p);
        let _ = p.check_invariants();
    }
});
