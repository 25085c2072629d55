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

/// Guest-controlled registers never panic the environment (results are
/// error codes or outcomes). The console is captured and the sandbox
/// allows no writes, so random calls cannot touch host files.
fn env_rig(rv64: bool, target: crate::Target) -> (crate::Environment, TestMem) {
    use crate::GuestMemory;
    let mut cfg = config("p", &[], &[]);
    cfg.sandbox = crate::Sandbox::default();
    let mut env = crate::Environment::new(&cfg, target, rv64);
    env.capture_console(b"in".to_vec());
    let mut mem = TestMem::new();
    let rw = crate::Perm {
        read: true,
        write: true,
        exec: false,
    };
    mem.map(0x1000, 0x2000, rw).unwrap();
    mem.write(0x1000, &[0x41; 64]).unwrap();
    (env, mem)
}

fn small_or_any() -> impl Strategy<Value = u64> {
    prop_oneof![0u64..8, 0x1000u64..0x3000, any::<u64>()]
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 400, ..ProptestConfig::default() })]

    #[test]
    fn random_syscalls(rv64 in any::<bool>(), nr in prop_oneof![0u64..300, 400u64..440], args in proptest::array::uniform6(small_or_any())) {
        // exit/kill end the run by design; execve-like calls are not served.
        let (mut env, mut mem) = env_rig(rv64, crate::Target::Linux);
        let mut regs = [0u64; 32];
        regs[17] = nr;
        regs[10..16].copy_from_slice(&args);
        let _ = env.ecall(&mut regs, &mut mem, 0);
    }

    #[test]
    fn random_semihosting(rv64 in any::<bool>(), op in 0u64..0x40, a1 in small_or_any(), block in proptest::array::uniform4(small_or_any())) {
        use crate::GuestMemory;
        let (mut env, mut mem) = env_rig(rv64, crate::Target::BareMetal);
        for (i, w) in block.iter().enumerate() {
            mem.write(0x2000 + 8 * i as u64, &w.to_le_bytes()).unwrap();
        }
        let mut regs = [0u64; 32];
        regs[10] = op;
        regs[11] = a1;
        let _ = env.semihost(&mut regs, &mut mem, 12345);
    }
}
