//! QEMU 7.2's `sifive_test` finisher (`hw/misc/sifive_test.c`), mapped by
//! virt at 0x10_0000 (`sifive_test_create(memmap[VIRT_TEST].base)`).
//!
//! The device has no state. `sifive_test_ops.valid` allows 2- and 4-byte
//! accesses (min 2, max 4; 1- and 8-byte accesses are refused, as are
//! accesses not aligned to their size). Reads return 0
//! (`sifive_test_read`). A write at offset 0 is decoded by
//! `sifive_test_write`: `status = value & 0xffff`, `code = (value >> 16) &
//! 0xffff`;
//!
//! * `FINISHER_FAIL` (0x3333): QEMU calls `exit(code)`;
//! * `FINISHER_PASS` (0x5555): QEMU calls `exit(0)`;
//! * `FINISHER_RESET` (0x7777): `qemu_system_reset_request` (guest reset);
//! * anything else, and any write at another offset, is only logged.
//!
//! A 16-bit write carries no code bits: a 2-byte store of 0x3333 is a
//! "fail" with code 0, so QEMU exits with status 0, exactly as for a pass.
//! The code is QEMU's full 16-bit `exit` argument; a host process status
//! keeps only its low 8 bits.

use super::{access_valid, Refused};

/// What a write to the finisher asks of the machine.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TestEffect {
    /// Nothing (the write is ignored; QEMU only logs it).
    None,
    /// End the run with this exit code (QEMU `exit(code)`): bits 31:16 of a
    /// `FINISHER_FAIL` write, 0 for `FINISHER_PASS`.
    Exit(u16),
    /// Reset the machine (QEMU `qemu_system_reset_request(SHUTDOWN_CAUSE_GUEST_RESET)`).
    Reset,
}

/// The `sifive_test` finisher: a stateless device, so its accesses are
/// associated functions.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct TestDevice;

impl TestDevice {
    /// Size in bytes of the MMIO window (`virt_memmap[VIRT_TEST]` and the
    /// `memory_region_init_io` size in `sifive_test_init`).
    pub const SIZE: u64 = 0x1000;
    /// Low 16 bits of a write that ends the run with bits 31:16 as exit code.
    pub const FINISHER_FAIL: u16 = 0x3333;
    /// Low 16 bits of a write that ends the run with exit code 0.
    pub const FINISHER_PASS: u16 = 0x5555;
    /// Low 16 bits of a write that resets the machine.
    pub const FINISHER_RESET: u16 = 0x7777;

    /// A load of `size` bytes at `offset` (bytes from the window's base):
    /// always 0 (`sifive_test_read`), or [`Refused`] unless `size` is 2 or
    /// 4 and `offset` is a multiple of it.
    pub fn read(offset: u64, size: u32) -> Result<u64, Refused> {
        access_valid(offset, size, 2, 4)?;
        Ok(0)
    }

    /// A store of the low `size` bytes of `value` at `offset`
    /// (`sifive_test_write`), or [`Refused`] unless `size` is 2 or 4 and
    /// `offset` is a multiple of it. Bits of `value` above `size` bytes are
    /// ignored (QEMU never passes them).
    pub fn write(offset: u64, size: u32, value: u64) -> Result<TestEffect, Refused> {
        access_valid(offset, size, 2, 4)?;
        if offset != 0 {
            return Ok(TestEffect::None);
        }
        // `access_valid` bounds `size` to 2 or 4.
        let value = value & (u64::MAX >> (64 - 8 * size));
        let status = (value & 0xffff) as u16;
        let code = ((value >> 16) & 0xffff) as u16;
        Ok(match status {
            Self::FINISHER_FAIL => TestEffect::Exit(code),
            Self::FINISHER_PASS => TestEffect::Exit(0),
            Self::FINISHER_RESET => TestEffect::Reset,
            _ => TestEffect::None,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_return_zero_for_two_and_four_bytes() {
        assert_eq!(TestDevice::read(0, 4), Ok(0));
        assert_eq!(TestDevice::read(0, 2), Ok(0));
        assert_eq!(TestDevice::read(0xffc, 4), Ok(0));
        assert_eq!(TestDevice::read(0x802, 2), Ok(0));
    }

    #[test]
    fn one_and_eight_byte_and_misaligned_accesses_are_refused() {
        assert_eq!(TestDevice::read(0, 1), Err(Refused));
        assert_eq!(TestDevice::read(0, 8), Err(Refused));
        assert_eq!(TestDevice::read(2, 4), Err(Refused));
        assert_eq!(TestDevice::read(1, 2), Err(Refused));
        assert_eq!(TestDevice::write(0, 1, 0x55), Err(Refused));
        assert_eq!(TestDevice::write(0, 8, 0x5555), Err(Refused));
        assert_eq!(TestDevice::write(2, 4, 0x5555), Err(Refused));
        assert_eq!(TestDevice::write(1, 2, 0x5555), Err(Refused));
    }

    #[test]
    fn pass_exits_with_zero_whatever_the_high_bits() {
        assert_eq!(TestDevice::write(0, 4, 0x5555), Ok(TestEffect::Exit(0)));
        assert_eq!(
            TestDevice::write(0, 4, 0x0042_5555),
            Ok(TestEffect::Exit(0))
        );
        assert_eq!(TestDevice::write(0, 2, 0x5555), Ok(TestEffect::Exit(0)));
    }

    #[test]
    fn fail_exits_with_bits_31_to_16() {
        assert_eq!(
            TestDevice::write(0, 4, (3 << 16) | 0x3333),
            Ok(TestEffect::Exit(3))
        );
        assert_eq!(
            TestDevice::write(0, 4, 0xffff_3333),
            Ok(TestEffect::Exit(0xffff))
        );
        // A 16-bit store has no code bits: fail with code 0.
        assert_eq!(TestDevice::write(0, 2, 0x3333), Ok(TestEffect::Exit(0)));
        // Bits beyond the access size are not part of the store.
        assert_eq!(
            TestDevice::write(0, 2, 0x0007_3333),
            Ok(TestEffect::Exit(0))
        );
    }

    #[test]
    fn reset_and_other_values_and_offsets() {
        assert_eq!(TestDevice::write(0, 4, 0x7777), Ok(TestEffect::Reset));
        assert_eq!(TestDevice::write(0, 2, 0x7777), Ok(TestEffect::Reset));
        assert_eq!(TestDevice::write(0, 4, 0x1234), Ok(TestEffect::None));
        assert_eq!(TestDevice::write(0, 4, 0), Ok(TestEffect::None));
        assert_eq!(TestDevice::write(4, 4, 0x5555), Ok(TestEffect::None));
        assert_eq!(TestDevice::write(2, 2, 0x5555), Ok(TestEffect::None));
        assert_eq!(TestDevice::write(0xffc, 4, 0x3333), Ok(TestEffect::None));
    }

    #[test]
    fn arbitrary_accesses_never_panic() {
        let mut x = 0x9e37_79b9_7f4a_7c15u64;
        for _ in 0..100_000 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            let offset = if x & 1 == 0 { x >> 8 } else { (x >> 8) & 0xfff };
            let size = (x >> 3) as u32 % 10;
            let _ = TestDevice::read(offset, size);
            let _ = TestDevice::write(offset, size, x.rotate_left(17));
        }
        for size in [0, 1, 2, 3, 4, 5, 8, 16, u32::MAX] {
            for offset in [0, 1, 2, 4, 0xfff, 0x1000, u64::MAX] {
                let _ = TestDevice::read(offset, size);
                let _ = TestDevice::write(offset, size, u64::MAX);
            }
        }
    }
}
