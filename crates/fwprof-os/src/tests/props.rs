//! The loader never panics: random bytes and random mutations of real ELFs.

use proptest::prelude::*;

use super::fixtures::{bare_rv32, bare_rv64, config, linux_static};
use crate::load;
use crate::test_mem::TestMem;

fn try_load(bytes: &[u8]) {
    let mut mem = TestMem::new();
    let mut cfg = config("p", &[], &[]);
    // Small RAM keeps the in-memory mock cheap.
    cfg.ram = (0x8000_0000, 0x10_0000);
    let _ = load(bytes, &cfg, &mut mem);
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 300, ..ProptestConfig::default() })]

    #[test]
    fn random_bytes(bytes in proptest::collection::vec(any::<u8>(), 0..2048)) {
        try_load(&bytes);
    }

    #[test]
    fn random_bytes_behind_a_valid_ident(tail in proptest::collection::vec(any::<u8>(), 0..512), class in 0u8..4) {
        let mut b = vec![0x7f, b'E', b'L', b'F', class, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0];
        b.extend(tail);
        if b.len() > 19 {
            b[18] = 243;
            b[19] = 0;
        }
        try_load(&b);
    }

    #[test]
    fn mutated_real_elfs(which in 0usize..3, edits in proptest::collection::vec((0usize..4096, any::<u8>()), 1..16), cut in proptest::option::of(0usize..100_000)) {
        let base = [linux_static(), bare_rv64(), bare_rv32()][which];
        let mut b = base.to_vec();
        // Mutations concentrate on the headers, where the loader looks.
        for (at, v) in edits {
            let at = at % b.len().min(4096);
            b[at] = v;
        }
        if let Some(c) = cut {
            b.truncate(c.min(b.len()));
        }
        try_load(&b);
    }
}
