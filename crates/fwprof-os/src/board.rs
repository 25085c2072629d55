//! Machines: which devices sit where, and what an access to an address
//! with neither memory nor a device does.
//!
//! Two machines are built in: [`Board::bare`], fwprof's bare-metal machine
//! since its first version (RAM, QEMU `virt`'s reset ROM and CLINT; a
//! program talks to the host through semihosting), and [`Board::virt`],
//! QEMU 7.2's RISC-V `virt` board (`hw/riscv/virt.c`, `virt_memmap`)
//! with the devices fwprof models: the CLINT, the PLIC, a 16550A UART and
//! the SiFive test device, and a generated device tree. The device
//! *behaviour* lives in the simulator (`fwprof_sim::devices`); this module
//! only describes the map, so that the loader, the device tree and the
//! simulator read one description.

/// A device model fwprof has.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DeviceKind {
    /// The SiFive CLINT / ACLINT: `msip`, `mtimecmp`, `mtime` (10 MHz),
    /// QEMU 7.2 `hw/intc/riscv_aclint.c`.
    Clint,
    /// The SiFive PLIC, QEMU 7.2 `hw/intc/sifive_plic.c` with `virt`'s
    /// parameters (96 sources, 7 priorities, an M and an S context per hart).
    Plic,
    /// A 16550A UART on fwprof's stdin and stdout, QEMU 7.2
    /// `hw/char/serial.c` (register shift 0).
    Uart16550,
    /// The SiFive test device (`sifive_test`): ends the run with a status,
    /// or with a reset, QEMU 7.2 `hw/misc/sifive_test.c`.
    SifiveTest,
}

impl DeviceKind {
    /// The name used in board files and messages: `clint`, `plic`,
    /// `uart16550`, `sifive_test`.
    pub fn name(self) -> &'static str {
        match self {
            DeviceKind::Clint => "clint",
            DeviceKind::Plic => "plic",
            DeviceKind::Uart16550 => "uart16550",
            DeviceKind::SifiveTest => "sifive_test",
        }
    }
}

/// One device on a machine's bus.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Device {
    /// What it is.
    pub kind: DeviceKind,
    /// Its name in messages and in the device tree (e.g. `serial`).
    pub name: String,
    /// Physical base address.
    pub base: u64,
    /// Size of its window in bytes.
    pub size: u64,
    /// The PLIC source its interrupt line drives (the UART: 10 on `virt`).
    pub irq: Option<u32>,
}

impl Device {
    /// True if physical address `addr` is in this device's window.
    pub fn contains(&self, addr: u64) -> bool {
        addr.wrapping_sub(self.base) < self.size
    }
}

/// What happens at a physical address with neither memory nor a device.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum Unmodelled {
    /// An access fault (Privileged ISA 20211203, §3.7.1: the hart traps
    /// with cause 5 or 7), as on QEMU.
    #[default]
    Fault,
    /// Reads return 0 and writes are dropped; each address is counted and
    /// reported at the end of the run.
    Ignore,
}

/// A machine: its name, its devices and the rule for unmodelled addresses.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Board {
    /// `bare` or `virt` (or a board file's name).
    pub name: String,
    /// The devices, in no particular order; windows do not overlap.
    pub devices: Vec<Device>,
    /// What an access that hits no memory and no device does.
    pub unmodelled: Unmodelled,
    /// True if the machine generates a device tree for the program
    /// (passed in `a1`, as QEMU does).
    pub device_tree: bool,
}

/// QEMU 7.2 `virt_memmap`: the CLINT.
pub const VIRT_CLINT: (u64, u64) = (0x0200_0000, 0x1_0000);
/// QEMU 7.2 `virt_memmap`: the PLIC (`VIRT_PLIC_SIZE(VIRT_CPUS_MAX * 2)`).
pub const VIRT_PLIC: (u64, u64) = (0x0c00_0000, 0x60_0000);
/// QEMU 7.2 `virt_memmap`: the UART (UART0).
pub const VIRT_UART0: (u64, u64) = (0x1000_0000, 0x100);
/// QEMU 7.2 `virt_memmap`: the SiFive test device.
pub const VIRT_TEST: (u64, u64) = (0x10_0000, 0x1000);
/// QEMU 7.2 `virt`: the UART's PLIC source (`UART0_IRQ`).
pub const VIRT_UART0_IRQ: u32 = 10;

/// The devices of QEMU 7.2's `virt` memory map that fwprof does not model,
/// for messages: (base, size, name).
const VIRT_UNMODELLED: [(u64, u64, &str); 6] = [
    (0x10_1000, 0x1000, "the RTC (goldfish)"),
    (0x1000_1000, 0x8000, "virtio-mmio"),
    (0x1010_0000, 0x18, "fw_cfg"),
    (0x2000_0000, 0x400_0000, "flash"),
    (0x3000_0000, 0x1000_0000, "PCIe"),
    (0x4000_0000, 0x4000_0000, "PCIe"),
];

impl Default for Board {
    /// [`Board::bare`].
    fn default() -> Board {
        Board::bare()
    }
}

impl Board {
    /// fwprof's bare-metal machine (the default): RAM, the reset ROM and
    /// the CLINT at QEMU `virt`'s addresses; every other address faults.
    /// Programs talk to the host through semihosting.
    pub fn bare() -> Board {
        Board {
            name: "bare".into(),
            devices: vec![Device {
                kind: DeviceKind::Clint,
                name: "clint".into(),
                base: VIRT_CLINT.0,
                size: VIRT_CLINT.1,
                irq: None,
            }],
            unmodelled: Unmodelled::Fault,
            device_tree: false,
        }
    }

    /// QEMU 7.2's `virt` board as fwprof models it: the CLINT at
    /// 0x2000000, the PLIC at 0xc000000, a 16550A UART at 0x10000000 (PLIC
    /// source 10) and the SiFive test device at 0x100000, with a device
    /// tree. Semihosting stays available.
    pub fn virt() -> Board {
        let dev = |kind, name: &str, (base, size): (u64, u64), irq| Device {
            kind,
            name: name.into(),
            base,
            size,
            irq,
        };
        Board {
            name: "virt".into(),
            devices: vec![
                dev(DeviceKind::SifiveTest, "test", VIRT_TEST, None),
                dev(DeviceKind::Clint, "clint", VIRT_CLINT, None),
                dev(DeviceKind::Plic, "plic", VIRT_PLIC, None),
                // QEMU's 16550 answers in 8 bytes (`serial_mm_init`:
                // `8 << regshift`) of the 0x100 the map reserves; the rest
                // faults, as on QEMU.
                dev(
                    DeviceKind::Uart16550,
                    "serial",
                    (VIRT_UART0.0, 8),
                    Some(VIRT_UART0_IRQ),
                ),
            ],
            unmodelled: Unmodelled::Fault,
            device_tree: true,
        }
    }

    /// The device whose window holds physical address `addr`.
    pub fn device_at(&self, addr: u64) -> Option<&Device> {
        self.devices.iter().find(|d| d.contains(addr))
    }

    /// Why nothing answered at physical address `addr`, for the one-line
    /// message of a run stopped by an access fault there: on the bare
    /// machine, the `virt` device at that address and the hint to use
    /// `--machine virt`; on `virt`, the device QEMU has there and fwprof
    /// does not model; `None` when nothing more can be said.
    pub fn explain_unmapped(&self, addr: u64) -> Option<String> {
        if self.name == "bare" {
            let virt = Board::virt();
            if let Some(d) = virt.device_at(addr) {
                return Some(format!(
                    "no device at {addr:#x}; this program may need --machine virt (QEMU virt's {} is there)",
                    d.kind.name()
                ));
            }
        }
        if self.name == "bare" || self.name == "virt" {
            if let Some((_, _, name)) = VIRT_UNMODELLED
                .iter()
                .find(|(b, s, _)| addr.wrapping_sub(*b) < *s)
            {
                return Some(format!(
                    "no device at {addr:#x}: QEMU virt has {name} there, which fwprof does not model"
                ));
            }
        }
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn devices_are_found_by_address() {
        let v = Board::virt();
        assert_eq!(
            v.device_at(0x1000_0005).unwrap().kind,
            DeviceKind::Uart16550
        );
        assert_eq!(v.device_at(0x0c20_0004).unwrap().kind, DeviceKind::Plic);
        assert_eq!(v.device_at(0x10_0000).unwrap().kind, DeviceKind::SifiveTest);
        assert_eq!(v.device_at(0x0200_bff8).unwrap().kind, DeviceKind::Clint);
        assert!(v.device_at(0x1000_0008).is_none());
        assert!(Board::bare().device_at(0x1000_0000).is_none());
    }

    #[test]
    fn unmapped_addresses_are_explained() {
        let m = Board::bare().explain_unmapped(0x1000_0005).unwrap();
        assert!(
            m.starts_with("no device at 0x10000005; this program may need --machine virt"),
            "{m}"
        );
        let m = Board::virt().explain_unmapped(0x2000_0000).unwrap();
        assert!(m.contains("flash"), "{m}");
        assert_eq!(Board::virt().explain_unmapped(0x5000), None);
    }
}
