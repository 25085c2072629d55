//! Machines: which memory and devices sit where, and what an access to an
//! address with neither memory nor a device does.
//!
//! Two machines are built in: [`Board::bare`], fwprof's bare-metal machine
//! since its first version (RAM, QEMU `virt`'s reset ROM and CLINT; a
//! program talks to the host through semihosting), and [`Board::virt`],
//! QEMU 7.2's RISC-V `virt` board (`hw/riscv/virt.c`, `virt_memmap`)
//! with the devices fwprof models: the CLINT, the PLIC, a 16550A UART and
//! the SiFive test device, and a generated device tree. Both take their
//! RAM from `--ram`. A board file (`--board FILE.toml`, read by
//! [`Board::from_toml`], format in `docs/boards.md`) describes a real
//! part: its memory regions, the modelled devices on it, the names of the
//! peripherals fwprof does not model, and what an unmodelled access does.
//! The device *behaviour* lives in the simulator (`fwprof_sim::devices`);
//! this module only describes the map, so that the loader, the device
//! tree, the simulator and the messages read one description.

use crate::Perm;

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

/// What a memory region is made of (a board file's `kind`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MemoryKind {
    /// Read-only memory (mask ROM, OTP): read and execute by default.
    Rom,
    /// Flash memory, memory-mapped (execute in place): read and execute by
    /// default; the program cannot write it (flash controllers are not
    /// modelled), a loader or `--load` can.
    Flash,
    /// RAM (SRAM, DTIM, DRAM): read, write and execute by default.
    Ram,
}

impl MemoryKind {
    /// The name used in board files: `rom`, `flash`, `ram`.
    pub fn name(self) -> &'static str {
        match self {
            MemoryKind::Rom => "rom",
            MemoryKind::Flash => "flash",
            MemoryKind::Ram => "ram",
        }
    }

    /// The access a region of this kind has unless the board file says
    /// otherwise: `rwx` for RAM, `rx` for ROM and flash.
    pub fn default_perm(self) -> Perm {
        Perm {
            read: true,
            write: self == MemoryKind::Ram,
            exec: true,
        }
    }
}

/// One memory region of a board (a board file's `[[memory]]`): mapped at
/// load, filled from the program's segments and `--load` images, then
/// given its permissions.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MemoryRegion {
    /// Its name in messages (e.g. `flash`, `dtim`).
    pub name: String,
    /// Physical base address.
    pub base: u64,
    /// Size in bytes (> 0; `base + size` does not wrap).
    pub size: u64,
    /// What it is made of.
    pub kind: MemoryKind,
    /// What the program may do with it (`access`; default from `kind`).
    pub perm: Perm,
    /// Extra cycles per access that reaches this memory, for the timing
    /// model of `--core` (docs/boards.md, "Wait states").
    pub wait_states: u32,
}

impl MemoryRegion {
    /// One past the last byte.
    pub fn end(&self) -> u64 {
        self.base + self.size
    }

    /// True if physical address `addr` is in this region.
    pub fn contains(&self, addr: u64) -> bool {
        addr.wrapping_sub(self.base) < self.size
    }
}

/// A peripheral fwprof does not model, named for the report of unmodelled
/// accesses (a board file's `[[peripheral]]`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Peripheral {
    /// Its name as the part's manual gives it (e.g. `UART0`, `RCC`).
    pub name: String,
    /// Physical base address.
    pub base: u64,
    /// Size of its register window in bytes.
    pub size: u64,
}

impl Peripheral {
    /// True if physical address `addr` is in this peripheral's window.
    pub fn contains(&self, addr: u64) -> bool {
        addr.wrapping_sub(self.base) < self.size
    }
}

/// A machine: its name, memory, devices and the rule for unmodelled
/// addresses.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Board {
    /// `bare` or `virt`, or a board file's `name` (default: the file stem).
    pub name: String,
    /// A board file's `description`, one line.
    pub description: Option<String>,
    /// The memory regions, in file order; they do not overlap each other
    /// nor any device window. Empty for [`Board::bare`] and
    /// [`Board::virt`], whose RAM is `--ram`; never empty for a board file.
    pub memory: Vec<MemoryRegion>,
    /// The devices, in no particular order; windows do not overlap.
    pub devices: Vec<Device>,
    /// The peripherals fwprof does not model, by name (board files only).
    pub peripherals: Vec<Peripheral>,
    /// What an access that hits no memory and no device does.
    pub unmodelled: Unmodelled,
    /// True if the machine generates a device tree for the program
    /// (passed in `a1`, as QEMU does).
    pub device_tree: bool,
    /// Where the hart starts (a board file's `start`); `None`: the ELF
    /// entry point (board files) or the reset ROM (`bare`, `virt`).
    pub start: Option<u64>,
    /// The register width of the board's core (a board file's `xlen`): a
    /// program of the other width is refused. `None`: either.
    pub xlen: Option<u32>,
}

/// Most addresses the report of unmodelled accesses names one by one
/// ([`Board::describe_unmodelled`]).
pub const UNMODELLED_REPORT_MAX: usize = 20;

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
            description: None,
            memory: Vec::new(),
            peripherals: Vec::new(),
            start: None,
            xlen: None,
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
            description: None,
            memory: Vec::new(),
            peripherals: Vec::new(),
            start: None,
            xlen: None,
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

    /// The memory region holding physical address `addr` (board files).
    pub fn region_at(&self, addr: u64) -> Option<&MemoryRegion> {
        self.memory.iter().find(|r| r.contains(addr))
    }

    /// The unmodelled peripheral whose window holds physical address
    /// `addr` (board files).
    pub fn peripheral_at(&self, addr: u64) -> Option<&Peripheral> {
        self.peripherals.iter().find(|p| p.contains(addr))
    }

    /// Why nothing answered at physical address `addr`, for the one-line
    /// message of a run stopped by an access fault there: on the bare
    /// machine, the `virt` device at that address and the hint to use
    /// `--machine virt`; on `virt`, the device QEMU has there and fwprof
    /// does not model; on a board file, the peripheral named there and the
    /// hint to set `unmodelled = "ignore"`; `None` when nothing more can be
    /// said.
    pub fn explain_unmapped(&self, addr: u64) -> Option<String> {
        if !self.memory.is_empty() {
            return self.peripheral_at(addr).map(|p| {
                format!(
                    "no device at {addr:#x}: board {} has {} there, which fwprof does not model (unmodelled = \"ignore\" in the board file reads 0 and drops writes)",
                    self.name, p.name
                )
            });
        }
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

    /// The one-line report of the unmodelled addresses a run touched
    /// (`accesses`: physical address, loads, stores; in address order):
    /// `unmodelled device accesses: 0x40021000 (RCC) read 12x, write 3x;
    /// 0x40021018 (RCC) write 1x; ...`, each address with the name of the
    /// [`Peripheral`] that holds it, if any, and at most
    /// [`UNMODELLED_REPORT_MAX`] addresses, then `… and N more`. `None`
    /// when `accesses` is empty.
    pub fn describe_unmodelled(&self, accesses: &[(u64, u64, u64)]) -> Option<String> {
        if accesses.is_empty() {
            return None;
        }
        let parts: Vec<String> = accesses
            .iter()
            .take(UNMODELLED_REPORT_MAX)
            .map(|&(addr, reads, writes)| {
                let name = self
                    .peripheral_at(addr)
                    .map(|p| format!(" ({})", p.name))
                    .unwrap_or_default();
                let mut counts = Vec::new();
                if reads > 0 {
                    counts.push(format!("read {reads}x"));
                }
                if writes > 0 {
                    counts.push(format!("write {writes}x"));
                }
                format!("{addr:#x}{name} {}", counts.join(", "))
            })
            .collect();
        let mut line = format!("unmodelled device accesses: {}", parts.join("; "));
        if accesses.len() > UNMODELLED_REPORT_MAX {
            line.push_str(&format!(
                "; … and {} more",
                accesses.len() - UNMODELLED_REPORT_MAX
            ));
        }
        Some(line)
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

    #[test]
    fn unmodelled_accesses_are_reported_by_peripheral() {
        let mut b = Board::bare();
        b.peripherals.push(Peripheral {
            name: "RCC".into(),
            base: 0x4002_1000,
            size: 0x400,
        });
        assert_eq!(b.describe_unmodelled(&[]), None);
        assert_eq!(
            b.describe_unmodelled(&[(0x4002_1000, 12, 3), (0x4002_1018, 0, 1), (0x5000_0000, 2, 0)])
                .unwrap(),
            "unmodelled device accesses: 0x40021000 (RCC) read 12x, write 3x; 0x40021018 (RCC) write 1x; 0x50000000 read 2x"
        );
        let many: Vec<(u64, u64, u64)> = (0..25).map(|i| (0x1000 + 4 * i, 1, 0)).collect();
        let line = b.describe_unmodelled(&many).unwrap();
        assert!(line.ends_with("; 0x104c read 1x; … and 5 more"), "{line}");
        assert_eq!(line.matches("read 1x").count(), UNMODELLED_REPORT_MAX);
    }
}
