//! The initial Linux stack, parsed back word by word and compared with
//! what qemu-riscv64 7.2 builds (addresses observed with a probe program
//! printing `&argc`, argv, auxv under `env -i A=1 B=2 qemu-riscv64 ./probe x yy`).

use super::fixtures::{config, linux_static};
use crate::auxv::*;
use crate::test_mem::TestMem;
use crate::{load, AT_RANDOM_BYTES, ELF_HWCAP};

#[test]
fn layout_matches_qemu_7_2() {
    let elf = linux_static();
    let mut mem = TestMem::new();
    let cfg = config("./probe", &["x", "yy"], &["A=1", "B=2"]);
    let (p, env) = load(elf, &cfg, &mut mem).unwrap();
    let l = env.stack_layout().unwrap().clone();
    let sp = p.sp;
    assert_eq!(p.regs[2], sp);
    assert_eq!(sp % 16, 0);
    if crate::linux_stack::host_stack_size() == 8 << 20 {
        // Exact QEMU addresses (8 MiB host RLIMIT_STACK).
        assert_eq!(sp, 0x40_0080_0e70);
        assert_eq!(l.arg_strings, 0x40_0080_0fdb);
        assert_eq!(l.execfn, 0x40_0080_0ff0);
        assert_eq!(l.random, 0x40_0080_0fc0);
        assert_eq!(l.auxv, 0x40_0080_0eb0);
        assert_eq!(l.stack_limit, 0x40_0000_1000);
        assert_eq!(l.sigtramp, 0x40_0080_1000);
    }
    // Guard page below the stack, trampoline code after it.
    assert!(mem
        .perm_at(l.stack_limit - 1)
        .is_some_and(|p| !p.read && !p.write));
    assert_eq!(
        mem.peek(l.sigtramp, 8),
        [0x93, 0x08, 0xb0, 0x08, 0x73, 0, 0, 0]
    );
    // argc, argv, envp (reversed, as QEMU's envlist gives it).
    assert_eq!(mem.peek_u64(sp), 3);
    let argv: Vec<String> = (0..3)
        .map(|i| mem.peek_cstr(mem.peek_u64(sp + 8 + i * 8)))
        .collect();
    assert_eq!(argv, ["./probe", "x", "yy"]);
    assert_eq!(mem.peek_u64(sp + 8 * 4), 0);
    let envp = sp + 8 * 5;
    assert_eq!(mem.peek_cstr(mem.peek_u64(envp)), "B=2");
    assert_eq!(mem.peek_cstr(mem.peek_u64(envp + 8)), "A=1");
    assert_eq!(mem.peek_u64(envp + 16), 0);
    // auxv order and values.
    let auxv = envp + 24;
    assert_eq!(auxv, l.auxv);
    let mut entries = Vec::new();
    let mut at = auxv;
    loop {
        let (k, v) = (mem.peek_u64(at), mem.peek_u64(at + 8));
        entries.push((k, v));
        at += 16;
        if k == AT_NULL {
            break;
        }
    }
    let keys: Vec<u64> = entries.iter().map(|e| e.0).collect();
    assert_eq!(
        keys,
        [
            AT_PHDR, AT_PHENT, AT_PHNUM, AT_PAGESZ, AT_BASE, AT_FLAGS, AT_ENTRY, AT_UID, AT_EUID,
            AT_GID, AT_EGID, AT_HWCAP, AT_CLKTCK, AT_RANDOM, AT_SECURE, AT_EXECFN, AT_NULL
        ]
    );
    let get = |k: u64| entries.iter().find(|e| e.0 == k).unwrap().1;
    let phoff = u64::from_le_bytes(elf[32..40].try_into().unwrap());
    assert_eq!(get(AT_PHDR), 0x10000 + phoff);
    assert_eq!(get(AT_PHENT), 56);
    assert_eq!(
        get(AT_PHNUM),
        u64::from(u16::from_le_bytes([elf[56], elf[57]]))
    );
    assert_eq!(get(AT_PAGESZ), 4096);
    assert_eq!(get(AT_ENTRY), p.entry);
    assert_eq!(get(AT_HWCAP), 0x112d);
    assert_eq!(ELF_HWCAP, 0x112d);
    assert_eq!(get(AT_CLKTCK), 100);
    assert_eq!(get(AT_RANDOM), l.random);
    assert_eq!(mem.peek(l.random, 16), AT_RANDOM_BYTES);
    assert_eq!(mem.peek_cstr(get(AT_EXECFN)), "./probe");
    // SAFETY: getuid cannot fail.
    assert_eq!(get(AT_UID), u64::from(unsafe { libc::getuid() }));
    // Registers other than sp are zero.
    assert!(p.regs.iter().enumerate().all(|(i, &r)| i == 2 || r == 0));
}

#[test]
fn alignment_with_odd_counts() {
    // argc + envc odd/even both give a 16-byte aligned sp and a valid walk.
    for (args, env) in [
        (vec![], vec![]),
        (vec!["a"], vec![]),
        (vec!["a"], vec!["K=V"]),
    ] {
        let mut mem = TestMem::new();
        let cfg = config("p", &args, &env);
        let (p, _) = load(linux_static(), &cfg, &mut mem).unwrap();
        assert_eq!(p.sp % 16, 0);
        assert_eq!(mem.peek_u64(p.sp), 1 + args.len() as u64);
        let envp = p.sp + 8 * (3 + args.len() as u64);
        assert_eq!(mem.peek_u64(envp + 8 * env.len() as u64), 0);
    }
}
