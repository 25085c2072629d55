//! Recognising call instructions before a return address.

use crate::UnwindMemory;

/// The address of the call instruction that returns to `ra`, if the
/// instruction before `ra` is one: a 4-byte `jal`/`jalr` with a non-zero
/// link register at `ra - 4`, else a `c.jalr` (any `rs1`; it links `ra`) or,
/// on RV32, a `c.jal` at `ra - 2` (RISC-V Unprivileged ISA 20191213,
/// §2.5 and §16.4). The 4-byte form is tried first; a halfword with low
/// bits `11` can only start a 32-bit instruction, so the two readings
/// rarely compete. `rv64`: `c.jal` does not exist (its encoding is
/// `c.addiw`). `None` if neither is there or memory cannot be read.
pub fn call_site(mem: &mut dyn UnwindMemory, ra: u64, rv64: bool) -> Option<u64> {
    let word = mem.read_u32(ra.wrapping_sub(4));
    if let Some(w) = word {
        let opcode = w & 0x7f;
        let rd = (w >> 7) & 0x1f;
        let funct3 = (w >> 12) & 7;
        if rd != 0 && (opcode == 0x6f || (opcode == 0x67 && funct3 == 0)) {
            return Some(ra.wrapping_sub(4));
        }
    }
    let half = match word {
        Some(w) => (w >> 16) as u16,
        None => (mem.read_u32(ra.wrapping_sub(2))? & 0xffff) as u16,
    };
    let c_jalr = half & 0xf07f == 0x9002 && (half >> 7) & 0x1f != 0;
    let c_jal = !rv64 && half & 0xe003 == 0x2001;
    (c_jalr || c_jal).then(|| ra.wrapping_sub(2))
}
