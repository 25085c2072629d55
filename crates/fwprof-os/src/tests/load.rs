//! Loader: target detection, segment placement, and one message per defect.

use super::fixtures::{bare_rv32, bare_rv64, config, linux_dynamic, linux_static};
use crate::test_mem::TestMem;
use crate::{load, GuestMemory, LoadError, Perm, Target};

fn load_err(elf: &[u8]) -> String {
    let mut mem = TestMem::new();
    match load(elf, &config("prog", &[], &[]), &mut mem) {
        Ok(_) => panic!("loaded a malformed ELF"),
        Err(e) => e.to_string(),
    }
}

fn phdr_off(elf: &[u8]) -> usize {
    u64::from_le_bytes(elf[32..40].try_into().unwrap()) as usize
}

fn phnum(elf: &[u8]) -> usize {
    u16::from_le_bytes([elf[56], elf[57]]) as usize
}

/// Index of the first PT_LOAD program header.
fn first_load(elf: &[u8]) -> usize {
    let off = phdr_off(elf);
    (0..phnum(elf))
        .find(|&i| u32::from_le_bytes(elf[off + i * 56..off + i * 56 + 4].try_into().unwrap()) == 1)
        .unwrap()
}

fn set_ph_u64(elf: &mut [u8], i: usize, field: usize, v: u64) {
    let at = phdr_off(elf) + i * 56 + field;
    elf[at..at + 8].copy_from_slice(&v.to_le_bytes());
}

#[test]
fn detects_targets() {
    let mut mem = TestMem::new();
    let (p, env) = load(linux_static(), &config("prog", &[], &[]), &mut mem).unwrap();
    assert_eq!(p.target, Target::Linux);
    assert_eq!(env.target(), Target::Linux);
    assert!(p.rv64);
    let mut mem = TestMem::new();
    let (p, _) = load(bare_rv64(), &config("prog", &[], &[]), &mut mem).unwrap();
    assert_eq!(p.target, Target::BareMetal);
    assert_eq!(p.entry, 0x8000_0000);
    let mut mem = TestMem::new();
    let (p, _) = load(bare_rv32(), &config("prog", &[], &[]), &mut mem).unwrap();
    assert_eq!(p.target, Target::BareMetal);
    assert!(!p.rv64);
}

#[test]
fn forced_target_overrides_detection() {
    let mut cfg = config("prog", &[], &[]);
    cfg.target = Some(Target::Linux);
    let mut mem = TestMem::new();
    let (p, env) = load(bare_rv64(), &cfg, &mut mem).unwrap();
    assert_eq!(p.target, Target::Linux);
    assert!(env.stack_layout().is_some());
    assert_ne!(p.sp, 0);
}

#[test]
fn dynamic_executables_are_refused_by_name() {
    let e = load_err(linux_dynamic());
    assert!(
        e.contains("dynamically linked") && e.contains("ld-linux"),
        "{e}"
    );
}

#[test]
fn bare_metal_places_segments_at_paddr_inside_ram() {
    let elf = bare_rv64();
    let mut mem = TestMem::new();
    let (p, env) = load(elf, &config("prog", &[], &[]), &mut mem).unwrap();
    // RAM is mapped RWX and holds the text at its load address.
    assert_eq!(
        mem.perm_at(0x8000_0000),
        Some(Perm {
            read: true,
            write: true,
            exec: true
        })
    );
    assert_eq!(mem.perm_at(0x87ff_ffff).map(|p| p.write), Some(true));
    assert!(!mem.is_mapped(0x8800_0000, 1));
    let off = 0x1000; // picolibc text is the first page after the headers
    assert_eq!(mem.peek(0x8000_0000, 16), elf[off..off + 16].to_vec());
    // QEMU virt's reset ROM at 0x1000, where the hart starts: its six
    // instructions (auipc t0 first, jr t0 last) set the registers, then the
    // entry and device-tree addresses the `ld`s read.
    assert_eq!(p.start, 0x1000);
    assert_eq!(p.regs, [0; 32]);
    let word = |a: u64| u32::from_le_bytes(mem.peek(a, 4).try_into().unwrap());
    assert_eq!(word(0x1000), 0x0000_0297);
    assert_eq!(word(0x1014), 0x0002_8067);
    let dword = |a: u64| u64::from_le_bytes(mem.peek(a, 8).try_into().unwrap());
    assert_eq!(dword(0x1018), p.entry);
    assert_eq!(dword(0x1020), 0x87e0_0000);
    assert_eq!(
        mem.perm_at(0x1000).map(|p| (p.write, p.exec)),
        Some((false, true))
    );
    // Heap: the largest RAM gap after the image, up to the device tree
    // (qemu-system-riscv64 7.2 answers 0x80200820..0x87e00000 for this layout).
    let h = env.heapinfo();
    assert_eq!(h[1], 0x87e0_0000);
    assert_eq!(h[2], 0x87e0_0000);
    assert_eq!(h[0], h[3]);
    assert!(h[0] > 0x8020_0000 && h[0] < 0x8030_0000, "{h:x?}");
}

#[test]
fn bare_metal_segment_outside_ram_gets_its_own_mapping() {
    let mut cfg = config("prog", &[], &[]);
    // A page of RAM just below the program's stack top (__stack =
    // 0x80400000), the image outside it.
    cfg.ram = (0x803f_f000, 0x1000);
    let mut mem = TestMem::new();
    load(bare_rv64(), &cfg, &mut mem).unwrap();
    // Text lies outside this RAM: mapped with its p_flags (R E).
    assert_eq!(
        mem.perm_at(0x8000_0000),
        Some(Perm {
            read: true,
            write: false,
            exec: true
        })
    );
    assert!(mem.is_mapped(0x803f_f000, 0x1000));
}

#[test]
fn bare_metal_ram_without_the_stack_top_is_refused() {
    let mut cfg = config("prog", &[], &[]);
    cfg.ram = (0x9000_0000, 0x1000);
    let mut mem = TestMem::new();
    let e = load(bare_rv64(), &cfg, &mut mem).unwrap_err().to_string();
    assert_eq!(
        e,
        "RAM 0x90000000..0x90001000 leaves no room for the stack: the program's stack top (__stack = 0x80400000) is outside it (choose a --ram range that contains it)"
    );
}

#[test]
fn linux_segments_get_page_permissions_and_bss_is_zero() {
    let elf = linux_static();
    let mut mem = TestMem::new();
    let (_, env) = load(elf, &config("prog", &[], &[]), &mut mem).unwrap();
    let i = first_load(elf);
    let off = phdr_off(elf) + i * 56;
    let vaddr = u64::from_le_bytes(elf[off + 16..off + 24].try_into().unwrap());
    let p = mem.perm_at(vaddr).unwrap();
    assert!(p.read && p.exec && !p.write);
    // brk starts at the page-aligned end of the image.
    assert_eq!(env.brk() % 4096, 0);
    assert!(!mem.is_mapped(env.brk(), 4096));
    assert!(mem.is_mapped(env.brk() - 4096, 4096));
    assert_eq!(mem.peek(env.brk() - 16, 16), vec![0; 16]);
}

#[test]
fn malformed_inputs_each_named() {
    let good = linux_static();
    assert!(load_err(b"").contains("not an ELF file"));
    assert!(load_err(b"#!/bin/sh\necho hi\n").contains("not an ELF file: bad magic"));
    assert!(load_err(&good[..10]).contains("truncated ELF identification"));
    assert!(load_err(&good[..40]).contains("truncated ELF header: 40 bytes, need 64"));
    let mut e = good.to_vec();
    e[4] = 3;
    assert!(load_err(&e).contains("bad ELF class 3"));
    let mut e = good.to_vec();
    e[5] = 2;
    assert!(load_err(&e).contains("big-endian"));
    let mut e = good.to_vec();
    e[5] = 7;
    assert!(load_err(&e).contains("bad ELF data encoding 7"));
    let mut e = good.to_vec();
    e[18..20].copy_from_slice(&62u16.to_le_bytes());
    assert_eq!(
        load_err(&e),
        "wrong machine: e_machine 62 (x86-64), expected EM_RISCV (243)"
    );
    let mut e = good.to_vec();
    e[16..18].copy_from_slice(&3u16.to_le_bytes());
    assert!(load_err(&e).contains("ET_DYN"));
    let mut e = good.to_vec();
    e[54..56].copy_from_slice(&40u16.to_le_bytes());
    assert!(load_err(&e).contains("e_phentsize 40"));
    assert!(load_err(&good[..100]).contains("truncated program header table"));
    // No PT_LOAD: turn every PT_LOAD into PT_NULL.
    let mut e = good.to_vec();
    let off = phdr_off(&e);
    for i in 0..phnum(&e) {
        if e[off + i * 56] == 1 {
            e[off + i * 56] = 0;
        }
    }
    assert!(load_err(&e).contains("no PT_LOAD segment"));
    let i = first_load(good);
    let mut e = good.to_vec();
    set_ph_u64(&mut e, i, 32, 0x10_0000_0000); // p_filesz
    let msg = load_err(&e);
    assert!(
        msg.contains(&format!("segment {i}: p_filesz")) && msg.contains("exceeds p_memsz"),
        "{msg}"
    );
    let mut e = good.to_vec();
    set_ph_u64(&mut e, i, 8, 0xffff_ffff_0000); // p_offset
    assert!(load_err(&e).contains("beyond the end of the"));
    let mut e = good.to_vec();
    set_ph_u64(&mut e, i, 16, u64::MAX - 0x100); // p_vaddr
    assert!(load_err(&e).contains("outside the 64-bit address space"));
    let mut e = good.to_vec();
    set_ph_u64(&mut e, i, 40, 1 << 40); // p_memsz
    assert!(load_err(&e).contains("larger than 4 GiB"));
}

#[test]
fn rv32_address_space_limit() {
    let mut e = bare_rv32().to_vec();
    let phoff = u32::from_le_bytes(e[28..32].try_into().unwrap()) as usize;
    let n = u16::from_le_bytes([e[44], e[45]]) as usize;
    let i = (0..n).find(|&i| e[phoff + i * 32] == 1).unwrap();
    // p_vaddr and p_paddr at 8 and 12 in an Elf32_Phdr; p_memsz at 20.
    e[phoff + i * 32 + 12..phoff + i * 32 + 16].copy_from_slice(&0xffff_f000u32.to_le_bytes());
    e[phoff + i * 32 + 20..phoff + i * 32 + 24].copy_from_slice(&0x0010_0000u32.to_le_bytes());
    let msg = load_err(&e);
    assert!(msg.contains("outside the 32-bit address space"), "{msg}");
    assert!(matches!(
        load(&e, &config("p", &[], &[]), &mut TestMem::new()),
        Err(LoadError::Memory(_))
    ));
}

#[test]
fn abi_tag_found_by_section_or_note_segment() {
    let detect = |e: &[u8]| {
        let mut mem = TestMem::new();
        load(e, &config("p", &[], &[]), &mut mem)
            .map(|(p, _)| p.target)
            .unwrap()
    };
    let good = linux_static();
    let off = phdr_off(good);
    let note_ph = (0..phnum(good))
        .find(|&i| good[off + i * 56] == 4)
        .expect("PT_NOTE");
    // Without the PT_NOTE program header: the .note.ABI-tag section remains.
    let mut no_note = good.to_vec();
    no_note[off + note_ph * 56] = 0;
    assert_eq!(detect(&no_note), Target::Linux);
    // Without section headers (e_shoff = 0): the PT_NOTE remains.
    let mut no_sections = good.to_vec();
    no_sections[40..48].copy_from_slice(&0u64.to_le_bytes());
    assert_eq!(detect(&no_sections), Target::Linux);
    // Neither: bare metal.
    let mut neither = no_note.clone();
    neither[40..48].copy_from_slice(&0u64.to_le_bytes());
    assert_eq!(detect(&neither), Target::BareMetal);
}
