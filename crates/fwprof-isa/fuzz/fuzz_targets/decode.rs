//! Fuzz target: every 4-byte window of the input is decoded for both XLENs
//! and disassembled in both styles; nothing may panic.
#![no_main]

use fwprof_isa::{decode, disasm, inst_len, Style, Xlen};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let mut pc = 0u64;
    let mut rest = data;
    while rest.len() >= 2 {
        let half = u16::from_le_bytes([rest[0], rest[1]]);
        let len = inst_len(half) as usize;
        let mut word = [0u8; 4];
        let n = rest.len().min(4);
        word[..n].copy_from_slice(&rest[..n]);
        let raw = u32::from_le_bytes(word);
        for xlen in [Xlen::Rv32, Xlen::Rv64] {
            let inst = decode(raw, xlen);
            assert_eq!(inst.len as usize, len);
            let _ = disasm(&inst, pc, xlen, Style::NoAliases);
            let _ = disasm(&inst, pc, xlen, Style::Pseudo);
        }
        let step = len.min(rest.len());
        rest = &rest[step..];
        pc = pc.wrapping_add(step as u64);
    }
});
