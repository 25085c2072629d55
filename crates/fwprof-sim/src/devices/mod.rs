//! Device models of QEMU 7.2's RISC-V `virt` board (`hw/riscv/virt.c`),
//! written as pure state machines: no threads, no host clock, no I/O of
//! their own. The bus that maps them calls `read`/`write` with an offset
//! inside the device's window; the devices answer with values, effects
//! and interrupt levels.
//!
//! * [`Uart16550`]: the 16550A UART (`hw/char/serial.c`) at
//!   [`VIRT_UART0_BASE`], PLIC source [`VIRT_UART0_IRQ`]. Its host side is
//!   a [`SerialHost`]; input is taken one byte at a time, only when the
//!   guest asks for it (see the module documentation of `uart`).
//! * [`Plic`]: the SiFive PLIC (`hw/intc/sifive_plic.c`) at
//!   [`VIRT_PLIC_BASE`], with virt's parameters (96 sources, 7 priorities,
//!   an M and an S context per hart).
//! * [`TestDevice`]: the `sifive_test` finisher (`hw/misc/sifive_test.c`)
//!   at [`VIRT_TEST_BASE`]: exit or reset on a magic write.
//!
//! Accesses QEMU's `MemoryRegionOps.valid` limits refuse (wrong size, or
//! not naturally aligned: none of these devices sets `.valid.unaligned`,
//! so `memory_region_access_valid` refuses `offset & (size - 1) != 0`)
//! return [`Refused`]; QEMU turns them into `MEMTX_DECODE_ERROR`, which
//! the RISC-V hart takes as a load or store access fault.
//!
//! [`Uart16550`]: crate::devices::Uart16550
//! [`Plic`]: crate::devices::Plic
//! [`TestDevice`]: crate::devices::TestDevice
//! [`SerialHost`]: crate::devices::SerialHost
//! [`Refused`]: crate::devices::Refused
//! [`VIRT_UART0_BASE`]: crate::devices::VIRT_UART0_BASE
//! [`VIRT_UART0_IRQ`]: crate::devices::VIRT_UART0_IRQ
//! [`VIRT_PLIC_BASE`]: crate::devices::VIRT_PLIC_BASE
//! [`VIRT_TEST_BASE`]: crate::devices::VIRT_TEST_BASE

mod plic;
mod test_device;
mod uart;

pub use plic::Plic;
pub use test_device::{TestDevice, TestEffect};
pub use uart::Uart16550;

/// Base address of the `sifive_test` finisher on virt
/// (`virt_memmap[VIRT_TEST]`, QEMU 7.2 `hw/riscv/virt.c`); its window is
/// [`TestDevice::SIZE`] bytes.
pub const VIRT_TEST_BASE: u64 = 0x10_0000;
/// Base address of the PLIC on virt (`virt_memmap[VIRT_PLIC]`); its window
/// is [`Plic::SIZE`] bytes.
pub const VIRT_PLIC_BASE: u64 = 0x0c00_0000;
/// Base address of the UART on virt (`virt_memmap[VIRT_UART0]`). The
/// memory map reserves [`VIRT_UART0_SIZE`] bytes but `serial_mm_init`
/// (regshift 0) maps only [`Uart16550::REGISTERS`] of them; the rest of the
/// window is unassigned in QEMU.
pub const VIRT_UART0_BASE: u64 = 0x1000_0000;
/// Size of virt's UART window in the memory map (`virt_memmap[VIRT_UART0]`).
pub const VIRT_UART0_SIZE: u64 = 0x100;
/// The PLIC source the UART's interrupt line drives on virt (`UART0_IRQ`,
/// QEMU 7.2 `include/hw/riscv/virt.h`).
pub const VIRT_UART0_IRQ: u32 = 10;

/// The host side of a serial port: where transmitted bytes go, where received ones come from.
pub trait SerialHost {
    /// The guest transmitted `byte` (write it out now).
    fn transmit(&mut self, byte: u8);
    /// One byte of input, blocking in host time; `None` at end of input (then never called again by the UART).
    fn receive(&mut self) -> Option<u8>;
}

/// A device refused an access (wrong size or alignment, as QEMU's `.valid` limits refuse it): the hart takes an access fault.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Refused;

/// QEMU 7.2 `memory_region_access_valid` for ops without
/// `.valid.unaligned` and without `.valid.accepts`: `size` must lie in
/// `min..=max` and `offset` must be a multiple of it. Sizes that are not a
/// power of two (which no RISC-V access has) are refused too.
pub(crate) fn access_valid(offset: u64, size: u32, min: u32, max: u32) -> Result<(), Refused> {
    if !size.is_power_of_two() || size < min || size > max {
        return Err(Refused);
    }
    if offset & u64::from(size - 1) != 0 {
        return Err(Refused);
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn access_valid_follows_size_and_alignment() {
        assert_eq!(access_valid(0, 4, 4, 4), Ok(()));
        assert_eq!(access_valid(8, 4, 4, 4), Ok(()));
        assert_eq!(access_valid(2, 4, 4, 4), Err(Refused));
        assert_eq!(access_valid(0, 2, 4, 4), Err(Refused));
        assert_eq!(access_valid(0, 8, 4, 4), Err(Refused));
        assert_eq!(access_valid(0, 0, 1, 8), Err(Refused));
        assert_eq!(access_valid(0, 3, 2, 4), Err(Refused));
        assert_eq!(access_valid(2, 2, 2, 4), Ok(()));
        assert_eq!(access_valid(1, 2, 2, 4), Err(Refused));
        assert_eq!(access_valid(u64::MAX, 1, 1, 8), Ok(()));
        assert_eq!(access_valid(u64::MAX, u32::MAX, 1, 8), Err(Refused));
    }
}
