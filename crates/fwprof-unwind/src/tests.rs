//! Unwinding hand-built frames: CFI written with gimli's writer, memory
//! and registers laid out as GCC's RISC-V code leaves them.

use std::collections::HashMap;

use gimli::write::{
    Address, CallFrameInstruction as I, CommonInformationEntry, EndianVec, Expression,
    FrameDescriptionEntry, FrameTable,
};
use gimli::{Encoding, Format, LittleEndian, Register};

use crate::{call_site, FrameSource, Layout, Registers, StackEnd, UnwindMemory, Unwinder};

const RA: Register = Register(1);
const SP: Register = Register(2);
const S0: Register = Register(8);
/// `jal ra, 0`: a 4-byte call.
const JAL_RA: u32 = 0x0000_00ef;
/// `addi x0, x0, 0`.
const NOP: u32 = 0x0000_0013;
/// `c.jalr a5`.
const C_JALR_A5: u16 = 0x9782;

/// Byte-addressed little-endian memory.
#[derive(Default)]
struct Mem(HashMap<u64, u8>);

impl Mem {
    fn put(&mut self, addr: u64, bytes: &[u8]) {
        for (i, b) in bytes.iter().enumerate() {
            self.0.insert(addr + i as u64, *b);
        }
    }
    fn word(&mut self, addr: u64, v: u64, size: u8) {
        self.put(addr, &v.to_le_bytes()[..size as usize]);
    }
    fn read(&self, addr: u64, n: usize) -> Option<u64> {
        let mut v = 0u64;
        for i in 0..n {
            v |= u64::from(*self.0.get(&(addr + i as u64))?) << (8 * i);
        }
        Some(v)
    }
}

impl UnwindMemory for Mem {
    fn read_u32(&mut self, addr: u64) -> Option<u32> {
        self.read(addr, 4).map(|v| v as u32)
    }
    fn read_u64(&mut self, addr: u64) -> Option<u64> {
        self.read(addr, 8)
    }
}

/// The test program: `_start` [0x100, 0x200) calls `main` from 0x110;
/// `main` [0x200, 0x300) calls `f` from 0x220; `f` [0x300, 0x400) calls
/// `g` (a leaf) from 0x340 with a `c.jalr`; `g` [0x400, 0x500).
fn layout(address_size: u8) -> Layout {
    Layout {
        address_size,
        entry: 0x100,
        code: vec![(0x100, 0x1000)],
        functions: vec![
            (0x100, 0x200),
            (0x200, 0x300),
            (0x300, 0x400),
            (0x400, 0x500),
        ],
        main: None,
    }
}

/// Call instructions at the call sites; `main` and `f` begin with GCC's
/// frame-pointer prologue (16 and 32 bytes); `g` starts with 16 `nop`s.
fn code(mem: &mut Mem) {
    for a in (0x400..0x440).step_by(4) {
        mem.put(a, &NOP.to_le_bytes());
    }
    // addi sp,sp,-16; sd ra,8(sp); sd s0,0(sp); addi s0,sp,16
    for (i, w) in [0xff01_0113u32, 0x0011_3423, 0x0081_3023, 0x0101_0413]
        .iter()
        .enumerate()
    {
        mem.put(0x200 + 4 * i as u64, &w.to_le_bytes());
    }
    // addi sp,sp,-32; sd ra,24(sp); sd s0,16(sp); addi s0,sp,32
    for (i, w) in [0xfe01_0113u32, 0x0011_3c23, 0x0081_3823, 0x0201_0413]
        .iter()
        .enumerate()
    {
        mem.put(0x300 + 4 * i as u64, &w.to_le_bytes());
    }
    mem.put(0x110, &JAL_RA.to_le_bytes());
    mem.put(0x220, &JAL_RA.to_le_bytes());
    mem.put(0x33e, &[0x01, 0x00]); // c.nop before the c.jalr
    mem.put(0x340, &C_JALR_A5.to_le_bytes());
}

/// CFI of GCC's RISC-V code for the program: `main` and `f` save `ra`
/// (and `f` also `s0`) in a 16/32-byte frame; `g` is a frameless leaf.
/// `_start` has none. `w` is the register size.
fn frame_table(w: u8, version: u16) -> FrameTable {
    let enc = Encoding {
        format: Format::Dwarf32,
        version,
        address_size: w,
    };
    let mut table = FrameTable::default();
    let mut cie = CommonInformationEntry::new(enc, 2, -(w as i8), RA);
    cie.add_instruction(I::Cfa(SP, 0));
    let cie = table.add_cie(cie);
    let w = i32::from(w);
    // main: addi sp,sp,-16 @0x200; sd ra,8(sp) @0x204; ... ret @0x2fe.
    let mut main = FrameDescriptionEntry::new(Address::Constant(0x200), 0x100);
    main.add_instruction(4, I::CfaOffset(16));
    main.add_instruction(8, I::Offset(RA, -w));
    main.add_instruction(0xf8, I::Restore(RA));
    main.add_instruction(0xfc, I::CfaOffset(0));
    table.add_fde(cie, main);
    // f: addi sp,sp,-32; sd ra,24(sp); sd s0,16(sp) (CFA - w, CFA - 2w).
    let mut f = FrameDescriptionEntry::new(Address::Constant(0x300), 0x100);
    f.add_instruction(4, I::CfaOffset(32));
    f.add_instruction(8, I::Offset(RA, -w));
    f.add_instruction(8, I::Offset(S0, -2 * w));
    table.add_fde(cie, f);
    let g = FrameDescriptionEntry::new(Address::Constant(0x400), 0x100);
    table.add_fde(cie, g);
    table
}

fn debug_frame(table: &FrameTable) -> Vec<u8> {
    let mut s = gimli::write::DebugFrame::from(EndianVec::new(LittleEndian));
    table.write_debug_frame(&mut s).unwrap();
    s.slice().to_vec()
}

fn eh_frame(table: &FrameTable) -> Vec<u8> {
    let mut s = gimli::write::EhFrame::from(EndianVec::new(LittleEndian));
    table.write_eh_frame(&mut s).unwrap();
    s.slice().to_vec()
}

/// Stack top (the CFA of `main`).
const TOP: u64 = 0x8000;

/// Memory and registers stopped in `g` (pc 0x410): `main`'s frame
/// [TOP-16, TOP) holds `ra` = 0x114; `f`'s frame [TOP-48, TOP-16) holds
/// `ra` = 0x224 and `s0` = 0x5555; `ra` = 0x342 (after the c.jalr).
fn stopped_in_g(w: u8) -> (Mem, Registers) {
    let mut mem = Mem::default();
    code(&mut mem);
    let w64 = u64::from(w);
    mem.word(TOP - w64, 0x114, w);
    mem.word(TOP - 16 - w64, 0x224, w);
    mem.word(TOP - 16 - 2 * w64, 0x5555, w);
    let mut x = [0u64; 32];
    x[1] = 0x342;
    x[2] = TOP - 48;
    x[8] = 0x7777;
    (mem, Registers { x, pc: 0x410 })
}

#[test]
fn cfi_rv64_debug_frame() {
    let mut u = Unwinder::new(layout(8), None, Some(debug_frame(&frame_table(8, 1)))).unwrap();
    assert_eq!(u.fde_counts(), (0, 3));
    let (mut mem, regs) = stopped_in_g(8);
    let s = u.unwind(&regs, &mut mem);
    assert_eq!(s.addresses(), vec![0x410, 0x340, 0x220, 0x110]);
    assert_eq!(s.end, StackEnd::EntryFunction);
    assert!(s.exact_rules_only() && !s.truncated());
    assert_eq!(s.frames[1].return_address, Some(0x342));
    // CFAs: g's is its sp, f's is 32 above, main's is the top.
    let cfas: Vec<_> = s.frames.iter().map(|f| f.cfa).collect();
    assert_eq!(cfas, vec![Some(TOP - 48), Some(TOP - 16), Some(TOP), None]);
}

#[test]
fn cfi_rv32_eh_frame() {
    let mut u = Unwinder::new(
        layout(4),
        Some((0x9000, eh_frame(&frame_table(4, 1)))),
        None,
    )
    .unwrap();
    assert_eq!(u.fde_counts(), (3, 0));
    let (mut mem, mut regs) = stopped_in_g(4);
    // Upper bits of RV32 registers are ignored.
    regs.x[1] |= 0xffff_ffff_0000_0000;
    let s = u.unwind(&regs, &mut mem);
    assert_eq!(s.addresses(), vec![0x410, 0x340, 0x220, 0x110]);
    assert!(s.exact_rules_only());
}

#[test]
fn prologue_and_epilogue_rows() {
    let mut u = Unwinder::new(layout(8), None, Some(debug_frame(&frame_table(8, 4)))).unwrap();
    let mut mem = Mem::default();
    code(&mut mem);
    let mut x = [0u64; 32];
    // main's first instruction: nothing allocated, ra live.
    x[1] = 0x114;
    x[2] = TOP;
    let s = u.unwind(&Registers { x, pc: 0x200 }, &mut mem);
    assert_eq!(s.addresses(), vec![0x200, 0x110]);
    // After `addi sp,sp,-16`, before `sd ra`: CFA = sp + 16, ra live.
    x[2] = TOP - 16;
    let s = u.unwind(&Registers { x, pc: 0x204 }, &mut mem);
    assert_eq!(s.addresses(), vec![0x204, 0x110]);
    assert_eq!(s.frames[0].cfa, Some(TOP));
    // In the epilogue after `ld ra` (ra restored, frame still allocated);
    // a stale ra in memory must not be used.
    mem.word(TOP - 8, 0xdead, 8);
    let s = u.unwind(&Registers { x, pc: 0x2f8 }, &mut mem);
    assert_eq!(s.addresses(), vec![0x2f8, 0x110]);
    // At the `ret`, sp restored.
    x[2] = TOP;
    let s = u.unwind(&Registers { x, pc: 0x2fc }, &mut mem);
    assert_eq!(s.addresses(), vec![0x2fc, 0x110]);
    assert!(s.exact_rules_only());
}

#[test]
fn cfa_expression_and_val_offset() {
    let enc = Encoding {
        format: Format::Dwarf32,
        version: 1,
        address_size: 8,
    };
    let mut table = FrameTable::default();
    let mut cie = CommonInformationEntry::new(enc, 2, -8, RA);
    cie.add_instruction(I::Cfa(SP, 0));
    let cie = table.add_cie(cie);
    // main's CFA as an expression: sp + 16; ra saved at CFA - 8 through an
    // expression too (DW_OP_breg2 8: CFA is pushed first, so use
    // DW_OP_lit8, DW_OP_minus).
    let mut main = FrameDescriptionEntry::new(Address::Constant(0x200), 0x100);
    let mut cfa = Expression::new();
    cfa.op_breg(SP, 16);
    main.add_instruction(0, I::CfaExpression(cfa));
    let mut ra = Expression::new();
    ra.op_constu(8);
    ra.op(gimli::constants::DW_OP_minus);
    main.add_instruction(0, I::Expression(RA, ra));
    table.add_fde(cie, main);
    let mut u = Unwinder::new(layout(8), None, Some(debug_frame(&table))).unwrap();
    let mut mem = Mem::default();
    code(&mut mem);
    mem.word(TOP - 8, 0x114, 8);
    let mut x = [0u64; 32];
    x[2] = TOP - 16;
    let s = u.unwind(&Registers { x, pc: 0x250 }, &mut mem);
    assert_eq!(s.addresses(), vec![0x250, 0x110]);
    assert_eq!(s.frames[0].cfa, Some(TOP));
}

#[test]
fn return_address_zero_and_undefined_are_roots() {
    // No entry function in this layout: the stack must end by ra.
    let mut l = layout(8);
    l.entry = 0x900;
    let table = frame_table(8, 1);
    let mut u = Unwinder::new(l.clone(), None, Some(debug_frame(&table))).unwrap();
    let mut mem = Mem::default();
    code(&mut mem);
    mem.word(TOP - 8, 0, 8);
    let mut x = [0u64; 32];
    x[2] = TOP - 16;
    let s = u.unwind(&Registers { x, pc: 0x250 }, &mut mem);
    assert_eq!(s.addresses(), vec![0x250]);
    assert_eq!(s.end, StackEnd::ReturnAddressZero);
    assert!(!s.truncated());

    // `.cfi_undefined ra` in main's FDE (as glibc's _start has).
    let enc = Encoding {
        format: Format::Dwarf32,
        version: 1,
        address_size: 8,
    };
    let mut table = FrameTable::default();
    let mut cie = CommonInformationEntry::new(enc, 2, -8, RA);
    cie.add_instruction(I::Cfa(SP, 0));
    let cie = table.add_cie(cie);
    let mut main = FrameDescriptionEntry::new(Address::Constant(0x200), 0x100);
    main.add_instruction(0, I::Undefined(RA));
    table.add_fde(cie, main);
    let mut u = Unwinder::new(l, None, Some(debug_frame(&table))).unwrap();
    x[1] = 0x114;
    let s = u.unwind(&Registers { x, pc: 0x250 }, &mut mem);
    assert_eq!(s.end, StackEnd::UndefinedReturnAddress);
    assert_eq!(s.frames.len(), 1);
}

#[test]
fn unreadable_memory_truncates() {
    let mut u = Unwinder::new(layout(8), None, Some(debug_frame(&frame_table(8, 1)))).unwrap();
    let (mut mem, regs) = stopped_in_g(8);
    mem.0.remove(&(TOP - 16 - 8));
    let s = u.unwind(&regs, &mut mem);
    assert_eq!(s.addresses(), vec![0x410, 0x340]);
    assert_eq!(s.end, StackEnd::MemoryUnreadable(TOP - 16 - 8));
    assert!(s.truncated() && !s.exact_rules_only());
}

#[test]
fn garbage_return_address_truncates() {
    let mut u = Unwinder::new(layout(8), None, Some(debug_frame(&frame_table(8, 1)))).unwrap();
    let (mut mem, regs) = stopped_in_g(8);
    mem.word(TOP - 16 - 8, 0x1234_5678, 8);
    let s = u.unwind(&regs, &mut mem);
    assert_eq!(s.end, StackEnd::OutsideProgram(0x1234_5678));
    assert_eq!(s.addresses(), vec![0x410, 0x340]);
}

#[test]
fn cfa_must_grow() {
    // f claims a zero-size frame with ra saved below sp: its CFA equals
    // g's, which would loop.
    let enc = Encoding {
        format: Format::Dwarf32,
        version: 1,
        address_size: 8,
    };
    let mut table = FrameTable::default();
    let mut cie = CommonInformationEntry::new(enc, 2, -8, RA);
    cie.add_instruction(I::Cfa(SP, 0));
    let cie = table.add_cie(cie);
    let mut f = FrameDescriptionEntry::new(Address::Constant(0x300), 0x100);
    f.add_instruction(0, I::Offset(RA, -8));
    table.add_fde(cie, f);
    table.add_fde(
        cie,
        FrameDescriptionEntry::new(Address::Constant(0x400), 0x100),
    );
    let mut u = Unwinder::new(layout(8), None, Some(debug_frame(&table))).unwrap();
    let (mut mem, mut regs) = stopped_in_g(8);
    regs.x[2] = TOP - 16;
    mem.word(TOP - 24, 0x224, 8);
    let s = u.unwind(&regs, &mut mem);
    assert_eq!(s.end, StackEnd::CfaNotGrowing);
    assert_eq!(s.addresses(), vec![0x410, 0x340]);
}

/// No CFI at all: `main` and `f` keep GCC's frame-pointer layout
/// (`-fno-omit-frame-pointer`): s0 = CFA, ra at s0 - w, caller's s0 at
/// s0 - 2w. `g` is a leaf that has not set up a frame (ra live).
fn frame_pointer_stack(w: u8) -> (Mem, Registers) {
    let w64 = u64::from(w);
    let mut mem = Mem::default();
    code(&mut mem);
    // main's frame [TOP-16, TOP): ra = 0x114, caller s0 = 0 (from _start).
    mem.word(TOP - w64, 0x114, w);
    mem.word(TOP - 2 * w64, 0, w);
    // f's frame [TOP-48, TOP-16): ra = 0x224, caller s0 = TOP.
    mem.word(TOP - 16 - w64, 0x224, w);
    mem.word(TOP - 16 - 2 * w64, TOP, w);
    let mut x = [0u64; 32];
    x[1] = 0x342;
    x[2] = TOP - 48;
    x[8] = TOP - 16;
    (mem, Registers { x, pc: 0x410 })
}

#[test]
fn frame_pointer_fallback_rv64_and_rv32() {
    for w in [8u8, 4] {
        let mut u = Unwinder::new(layout(w), None, None).unwrap();
        let (mut mem, regs) = frame_pointer_stack(w);
        let s = u.unwind(&regs, &mut mem);
        assert_eq!(s.addresses(), vec![0x410, 0x340, 0x220, 0x110], "w={w}");
        let src: Vec<_> = s.frames.iter().map(|f| f.source).collect();
        assert_eq!(
            src,
            vec![
                FrameSource::Pc,
                FrameSource::LinkRegister,
                FrameSource::FramePointer,
                FrameSource::FramePointer
            ]
        );
        assert_eq!(s.end, StackEnd::EntryFunction);
        assert!(!s.truncated() && !s.exact_rules_only());

        // Stopped in f itself (its frame set up, ra stale after the call
        // to g returned): the frame pointer is used, not the stale ra.
        let mut x = regs.x;
        x[1] = 0x342;
        let s = u.unwind(&Registers { x, pc: 0x350 }, &mut mem);
        assert_eq!(s.addresses(), vec![0x350, 0x220, 0x110]);
        assert_eq!(s.frames[1].source, FrameSource::FramePointer);
    }
}

#[test]
fn leaf_with_frame_pointer_only_frame() {
    // g built with -fno-omit-frame-pointer saves only s0 (at s0 - w): its
    // s0 is its CFA; the caller's s0 is recovered from there.
    let w = 8u8;
    let (mut mem, mut regs) = frame_pointer_stack(w);
    // addi sp,sp,-16; sd s0,8(sp); addi s0,sp,16
    mem.put(0x400, &0xff01_0113u32.to_le_bytes());
    mem.put(0x404, &0x0081_3423u32.to_le_bytes());
    mem.put(0x408, &0x0101_0413u32.to_le_bytes());
    regs.x[2] = TOP - 64;
    regs.x[8] = TOP - 48;
    mem.word(TOP - 48 - 8, TOP - 16, w);
    let mut u = Unwinder::new(layout(w), None, None).unwrap();
    let s = u.unwind(&regs, &mut mem);
    assert_eq!(s.addresses(), vec![0x410, 0x340, 0x220, 0x110]);
}

#[test]
fn no_cfi_and_no_frame_pointer_truncates() {
    let mut u = Unwinder::new(layout(8), None, None).unwrap();
    let mut mem = Mem::default();
    code(&mut mem);
    let mut x = [0u64; 32];
    x[1] = 0x342; // stale: inside f, where the pc is
    x[2] = TOP - 48;
    x[8] = 0x3; // not a frame pointer
    let s = u.unwind(&Registers { x, pc: 0x350 }, &mut mem);
    assert_eq!(s.addresses(), vec![0x350]);
    assert_eq!(s.end, StackEnd::NoUnwindInfo);
    assert!(s.truncated());
}

#[test]
fn depth_limit() {
    let mut u = Unwinder::new(layout(8), None, Some(debug_frame(&frame_table(8, 1)))).unwrap();
    u.set_max_frames(2);
    let (mut mem, regs) = stopped_in_g(8);
    let s = u.unwind(&regs, &mut mem);
    assert_eq!(s.addresses(), vec![0x410, 0x340]);
    assert_eq!(s.end, StackEnd::TooDeep);
}

#[test]
fn call_sites() {
    let mut mem = Mem::default();
    code(&mut mem);
    assert_eq!(call_site(&mut mem, 0x114, true), Some(0x110));
    assert_eq!(call_site(&mut mem, 0x342, true), Some(0x340));
    // jalr ra, 0(a5) = 0x000780e7.
    mem.put(0x500, &0x0007_80e7u32.to_le_bytes());
    assert_eq!(call_site(&mut mem, 0x504, true), Some(0x500));
    // jalr x0 (a return) is not a call; neither is an add.
    mem.put(0x600, &0x0000_8067u32.to_le_bytes());
    assert_eq!(call_site(&mut mem, 0x604, true), None);
    // c.jal (RV32 only): 0x2001 | imm bits.
    mem.put(0x700, &[0x01, 0x00, 0x05, 0x20]);
    assert_eq!(call_site(&mut mem, 0x704, false), Some(0x702));
    assert_eq!(call_site(&mut mem, 0x704, true), None);
    assert_eq!(call_site(&mut mem, 0x9000, true), None);
}

#[test]
fn real_elf() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let elf = std::fs::read(root.join("examples/crc32/crc32.rv32imac.elf")).unwrap();
    let u = Unwinder::from_elf(&elf).unwrap();
    assert_eq!(u.layout().address_size, 4);
    let (eh, debug) = u.fde_counts();
    assert!(eh + debug > 10, "{eh} + {debug} FDEs");
    assert!(u.layout().functions.len() > 10);
    assert!(Unwinder::from_elf(b"not an elf").is_err());
}

#[test]
fn main_caller_without_unwind_info_is_a_root() {
    // No entry function here; `main` is [0x200, 0x300). The frame of
    // main's caller (0x110) has neither CFI nor a frame pointer (s0 = 0).
    let mut l = layout(8);
    l.entry = 0x900;
    l.main = Some((0x200, 0x300));
    let mut u = Unwinder::new(l.clone(), None, None).unwrap();
    let (mut mem, regs) = frame_pointer_stack(8);
    let s = u.unwind(&regs, &mut mem);
    assert_eq!(s.addresses(), vec![0x410, 0x340, 0x220, 0x110]);
    assert_eq!(s.end, StackEnd::MainCaller);
    assert!(!s.truncated());
    // Without `main` known, the same stack is truncated.
    l.main = None;
    let mut u = Unwinder::new(l, None, None).unwrap();
    let s = u.unwind(&regs, &mut mem);
    assert_eq!(s.end, StackEnd::NoUnwindInfo);
    assert!(s.truncated());
}

/// `jal rd, off` (J-type encoding).
fn jal(rd: u32, off: i32) -> u32 {
    let o = off as u32;
    ((o >> 20 & 1) << 31)
        | ((o >> 1 & 0x3ff) << 21)
        | ((o >> 11 & 1) << 20)
        | ((o >> 12 & 0xff) << 12)
        | (rd << 7)
        | 0x6f
}

const RET: u32 = 0x0000_8067;

#[test]
fn epilogue_is_executed_even_against_the_cfi() {
    // f's CFI (frame_table) has no epilogue rows: at its `ret` it still
    // claims CFA = sp + 32. The code after the pc is just `ret`: executing
    // it gives the caller exactly.
    let mut u = Unwinder::new(layout(8), None, Some(debug_frame(&frame_table(8, 1)))).unwrap();
    let (mut mem, _) = stopped_in_g(8);
    mem.put(0x3fc, &RET.to_le_bytes());
    let mut x = [0u64; 32];
    x[1] = 0x224;
    x[2] = TOP - 16;
    let s = u.unwind(&Registers { x, pc: 0x3fc }, &mut mem);
    assert_eq!(s.addresses(), vec![0x3fc, 0x220, 0x110]);
    assert_eq!(s.frames[1].source, FrameSource::Epilogue);
    assert_eq!(s.frames[2].source, FrameSource::Cfi);
    assert!(s.exact_rules_only());

    // Without any CFI: `ld ra, 24(sp); ld s0, 16(sp); addi sp, sp, 32; ret`.
    let mut u = Unwinder::new(layout(8), None, None).unwrap();
    for (i, w) in [0x0181_3083u32, 0x0101_3403, 0x0201_0113, RET]
        .iter()
        .enumerate()
    {
        mem.put(0x380 + 4 * i as u64, &w.to_le_bytes());
    }
    x[1] = 0x342; // stale
    x[2] = TOP - 48;
    let s = u.unwind(&Registers { x, pc: 0x380 }, &mut mem);
    assert_eq!(s.addresses()[..2], [0x380, 0x220]);
    assert_eq!(s.frames[0].cfa, Some(TOP - 16));
}

#[test]
fn save_restore_millicode() {
    // f's prologue is `jal t0, __riscv_save_0` (at 0x500); its epilogue
    // `j __riscv_restore_0` (at 0x600). CFI as GCC emits it for f: from
    // the instruction after the save call, CFA = sp + 16, ra at CFA - 8,
    // s0 at CFA - 16. The millicode has none.
    let mut l = layout(8);
    l.functions.push((0x500, 0x600));
    l.functions.push((0x600, 0x700));
    let enc = Encoding {
        format: Format::Dwarf32,
        version: 1,
        address_size: 8,
    };
    let mut table = FrameTable::default();
    let mut cie = CommonInformationEntry::new(enc, 2, -8, RA);
    cie.add_instruction(I::Cfa(SP, 0));
    let cie = table.add_cie(cie);
    let mut main = FrameDescriptionEntry::new(Address::Constant(0x200), 0x100);
    main.add_instruction(4, I::CfaOffset(16));
    main.add_instruction(8, I::Offset(RA, -8));
    table.add_fde(cie, main);
    let mut f = FrameDescriptionEntry::new(Address::Constant(0x300), 0x100);
    f.add_instruction(4, I::CfaOffset(16));
    f.add_instruction(4, I::Offset(RA, -8));
    f.add_instruction(4, I::Offset(S0, -16));
    table.add_fde(cie, f);
    let mut u = Unwinder::new(l, None, Some(debug_frame(&table))).unwrap();

    let mut mem = Mem::default();
    code(&mut mem);
    mem.put(0x300, &jal(5, 0x200).to_le_bytes());
    // __riscv_save_0: addi sp,sp,-16; sd s0,0(sp); sd ra,8(sp); jr t0
    for (i, w) in [0xff01_0113u32, 0x0081_3023, 0x0011_3423, 0x0002_8067]
        .iter()
        .enumerate()
    {
        mem.put(0x500 + 4 * i as u64, &w.to_le_bytes());
    }
    // __riscv_restore_0: ld ra,8(sp); ld s0,0(sp); addi sp,sp,16; ret
    for (i, w) in [0x0081_3083u32, 0x0001_3403, 0x0101_0113, RET]
        .iter()
        .enumerate()
    {
        mem.put(0x600 + 4 * i as u64, &w.to_le_bytes());
    }
    mem.put(0x3f0, &jal(0, 0x600 - 0x3f0).to_le_bytes());
    // main's frame holds its return address into _start.
    mem.word(TOP - 8, 0x114, 8);
    let f_cfa = TOP - 16;

    // Stopped inside the save routine, after it stored s0, before ra.
    mem.word(f_cfa - 16, 0x7777, 8);
    let mut x = [0u64; 32];
    x[1] = 0x224;
    x[5] = 0x304;
    x[2] = f_cfa - 16;
    x[8] = 0x7777;
    let s = u.unwind(&Registers { x, pc: 0x508 }, &mut mem);
    assert_eq!(s.addresses(), vec![0x508, 0x300, 0x220, 0x110]);
    assert_eq!(s.frames[1].source, FrameSource::Epilogue);
    assert!(s.exact_rules_only());

    // At f's tail jump to the restore routine, and inside it.
    mem.word(f_cfa - 8, 0x224, 8);
    x[1] = 0x9999; // clobbered
    for pc in [0x3f0, 0x600, 0x604, 0x60c] {
        let mut x = x;
        x[2] = if pc == 0x60c { f_cfa } else { f_cfa - 16 };
        if pc >= 0x604 {
            x[1] = 0x224;
        }
        let s = u.unwind(&Registers { x, pc }, &mut mem);
        assert_eq!(s.addresses()[1..], [0x220, 0x110], "pc {pc:#x}");
        assert_eq!(s.frames[1].source, FrameSource::Epilogue);
    }
}

/// B-type encoding of a conditional branch.
fn branch(funct3: u32, rs1: u32, rs2: u32, off: i32) -> u32 {
    let o = off as u32;
    ((o >> 12 & 1) << 31)
        | ((o >> 5 & 0x3f) << 25)
        | (rs2 << 20)
        | (rs1 << 15)
        | (funct3 << 12)
        | ((o >> 1 & 0xf) << 8)
        | ((o >> 11 & 1) << 7)
        | 0x63
}

#[test]
fn code_analysis_without_cfi_handles_shrink_wrapping() {
    // f [0x300, 0x400), no CFI, shrink-wrapped as GCC -O2 does: the leaf
    // path at 0x324 runs before any frame is set up (a linear scan would
    // see the `sd ra` at 0x30c first); the recursive path saves ra and s0.
    let f_code: [(u64, u32); 11] = [
        (0x300, branch(0, 10, 0, 0x24)), // beqz a0, 0x324
        (0x304, 0xfe01_0113),            // addi sp,sp,-32
        (0x308, 0x0081_3823),            // sd s0,16(sp)
        (0x30c, 0x0011_3c23),            // sd ra,24(sp)
        (0x310, jal(1, -0x10)),          // jal ra, f
        (0x314, 0x0181_3083),            // ld ra,24(sp)
        (0x318, 0x0101_3403),            // ld s0,16(sp)
        (0x31c, 0x0201_0113),            // addi sp,sp,32
        (0x320, RET),
        (0x324, branch(0, 11, 0, 4)), // beqz a1, 0x328
        (0x328, RET),
    ];
    let mut mem = Mem::default();
    code(&mut mem);
    for (a, w) in f_code {
        mem.put(a, &w.to_le_bytes());
    }
    let mut l = layout(8);
    l.functions[2] = (0x300, 0x32c);
    let mut u = Unwinder::new(l, None, None).unwrap();
    // main's frame-pointer frame [TOP-16, TOP); f's CFA is TOP - 16.
    mem.word(TOP - 8, 0x114, 8);
    mem.word(TOP - 16, 0, 8);
    let f_cfa = TOP - 16;

    // (a) In the leaf path, called from main: ra live, no frame.
    let mut x = [0u64; 32];
    x[1] = 0x224;
    x[2] = f_cfa;
    x[8] = TOP;
    let s = u.unwind(&Registers { x, pc: 0x324 }, &mut mem);
    assert_eq!(s.addresses(), vec![0x324, 0x220, 0x110]);
    assert_eq!(s.frames[1].source, FrameSource::CodeAnalysis);

    // (b) In the leaf path of an inner activation called from 0x310.
    mem.word(f_cfa - 8, 0x224, 8);
    mem.word(f_cfa - 16, TOP, 8);
    x[1] = 0x314;
    x[2] = f_cfa - 32;
    x[8] = 0x5555; // f's own use of s0
    let s = u.unwind(&Registers { x, pc: 0x324 }, &mut mem);
    assert_eq!(s.addresses(), vec![0x324, 0x310, 0x220, 0x110]);
    let src: Vec<_> = s.frames.iter().map(|f| f.source).collect();
    assert_eq!(
        src,
        vec![
            FrameSource::Pc,
            FrameSource::CodeAnalysis,
            FrameSource::CodeAnalysis,
            FrameSource::FramePointer
        ]
    );
    assert!(!s.truncated());
}

#[test]
fn frame_pointer_rule_needs_a_frame_pointer_set_up() {
    // g has no CFI, saved ra (so ra is stale) and never sets s0 from sp:
    // s0 is still f's frame pointer, and using it would skip f.
    let (mut mem, mut regs) = frame_pointer_stack(8);
    mem.put(0x404, &0x0011_3423u32.to_le_bytes()); // sd ra,8(sp)
    regs.x[1] = 0x224; // stale, into main
    regs.x[2] = TOP - 64;
    regs.pc = 0x420;
    let mut u = Unwinder::new(layout(8), None, None).unwrap();
    let s = u.unwind(&regs, &mut mem);
    assert_eq!(s.addresses(), vec![0x420]);
    assert_eq!(s.end, StackEnd::NoUnwindInfo);
}
