//! Decode throughput (no external harness): decodes a fixed mix of 1M
//! 32-bit words and all 16-bit parcels repeatedly and prints ns/instruction.
//! Run with `cargo bench -p fwprof-isa --bench decode`.

use std::hint::black_box;
use std::time::Instant;

use fwprof_isa::{decode, disasm, Style, Xlen};

fn main() {
    // SplitMix64 words with legal-looking opcodes, plus every RVC parcel.
    let mut state = 0x1234_5678_9abc_def0u64;
    let mut words: Vec<u32> = (0..1_000_000)
        .map(|_| {
            state = state.wrapping_add(0x9e37_79b9_7f4a_7c15);
            let mut z = state;
            z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
            z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
            (z ^ (z >> 31)) as u32 | 3
        })
        .collect();
    words.extend((0..=0xffffu32).filter(|h| h & 3 != 3));
    for xlen in [Xlen::Rv32, Xlen::Rv64] {
        let rounds = 20;
        let start = Instant::now();
        let mut acc = 0u64;
        for _ in 0..rounds {
            for &w in &words {
                let inst = decode(black_box(w), xlen);
                acc = acc.wrapping_add(inst.op as u64 + inst.imm as u64);
            }
        }
        let ns = start.elapsed().as_nanos() as f64 / (rounds * words.len()) as f64;
        println!("decode {xlen:?}: {ns:.2} ns/instruction (checksum {acc:x})");
    }
    let sample = &words[..100_000];
    let start = Instant::now();
    let mut len = 0usize;
    for &w in sample {
        len += disasm(&decode(w, Xlen::Rv64), 0x1000, Xlen::Rv64, Style::NoAliases).len();
    }
    let ns = start.elapsed().as_nanos() as f64 / sample.len() as f64;
    println!("decode+disasm Rv64: {ns:.0} ns/instruction ({len} bytes)");
}
