//! Fuzz `Profile::from_bytes`: any input must give a profile or an error,
//! never a panic, and an accepted profile must re-encode to a file that
//! reads back equal.
#![no_main]

use fwprof_profile::Profile;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Ok(p) = Profile::from_bytes(data) {
        let again = Profile::from_bytes(&p.to_bytes().expect("re-encode")).expect("re-read");
        assert_eq!(again, p);
        let _ = p.check_invariants();
    }
});
