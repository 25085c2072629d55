//! The bus: loads and stores that no memory answered go to the machine's
//! devices (`fwprof_os::Board`), as QEMU's memory API dispatches MMIO.
//!
//! Design: device windows are not mapped in [`Memory`], so the fast path
//! of every load and store is unchanged; an access to a device fails
//! there, and before the access fault is raised the executor asks the bus
//! ([`Simulator::device_access`]). The address is translated (and checked
//! against PMP) first: a device is reached by its physical address, and
//! an access PMP denies faults as on QEMU. Plain integer loads and stores
//! reach devices; FP loads and stores and AMOs to a device fault (QEMU's
//! devices accept them, but no firmware fwprof was tried on uses them).
//!
//! After every device access the interrupt lines are recomputed: each
//! UART's line drives its PLIC source, and the PLIC's M and S contexts of
//! each hart (2h and 2h + 1) drive its `mip.MEIP` and `mip.SEIP`. The run loop then looks at the
//! interrupts again before the next instruction.
//!
//! An access to an address with neither memory nor a device faults, or,
//! on a board whose unmodelled addresses are `ignore`, reads 0 and drops
//! the write; each such address is counted ([`Simulator::unmodelled_accesses`]).
//! An access that memory refused (a store to a board's flash or ROM) is
//! not unmodelled: it faults on every board.

use std::collections::BTreeMap;

use super::*;
use crate::devices::{Plic, SerialHost, TestEffect, Uart16550};
use fwprof_isa::Op;
use fwprof_os::{Board, DeviceKind, Unmodelled};

/// A device and its window.
#[derive(Debug)]
struct Slot {
    base: u64,
    size: u64,
    dev: Dev,
}

#[derive(Debug)]
enum Dev {
    Clint,
    Plic(Box<Plic>),
    Uart {
        uart: Box<Uart16550>,
        irq: Option<u32>,
    },
    Test,
}

/// Counts of accesses to one unmodelled address.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct UnmodelledCount {
    /// Loads from it.
    pub reads: u64,
    /// Stores to it.
    pub writes: u64,
}

/// The machine's devices, the interrupt lines they drive, and the
/// unmodelled addresses seen.
#[derive(Debug)]
pub(crate) struct Bus {
    slots: Vec<Slot>,
    unmodelled: Unmodelled,
    seen: BTreeMap<u64, UnmodelledCount>,
    /// The first physical address an access fault found neither memory
    /// nor a device at, and how many such faults there were.
    faults: Option<(u64, u64)>,
}

impl Bus {
    /// The devices of `board` on a machine of `harts` harts (the PLIC
    /// has two contexts per hart).
    pub(crate) fn new(board: &Board, harts: usize) -> Bus {
        let slots = board
            .devices
            .iter()
            .map(|d| Slot {
                base: d.base,
                size: d.size,
                dev: match d.kind {
                    DeviceKind::Clint => Dev::Clint,
                    DeviceKind::Plic => Dev::Plic(Box::new(Plic::new(harts))),
                    DeviceKind::Uart16550 => Dev::Uart {
                        uart: Box::new(Uart16550::new()),
                        irq: d.irq,
                    },
                    DeviceKind::SifiveTest => Dev::Test,
                },
            })
            .collect();
        Bus {
            slots,
            unmodelled: board.unmodelled,
            seen: BTreeMap::new(),
            faults: None,
        }
    }

    fn slot_at(&self, addr: u64) -> Option<usize> {
        self.slots
            .iter()
            .position(|s| addr.wrapping_sub(s.base) < s.size)
    }

    /// True if a UART waits for input to raise its receive interrupt.
    fn wants_input(&self) -> bool {
        self.slots
            .iter()
            .any(|s| matches!(&s.dev, Dev::Uart { uart, .. } if uart.wants_input()))
    }

    /// Feed each UART's line to its PLIC source when `uarts` (a UART
    /// was just accessed: QEMU's 16550 sets its line on every register
    /// access, `serial_update_irq`, and only then; a PLIC write alone does
    /// not re-sample it); then [`Bus::lines`] gives each hart's lines.
    fn update(&mut self, uarts: bool) {
        let sources: Vec<(u32, bool)> = if uarts {
            self.slots
                .iter()
                .filter_map(|s| match &s.dev {
                    Dev::Uart {
                        uart,
                        irq: Some(irq),
                    } => Some((*irq, uart.irq())),
                    _ => None,
                })
                .collect()
        } else {
            Vec::new()
        };
        for s in &mut self.slots {
            if let Dev::Plic(p) = &mut s.dev {
                for &(irq, level) in &sources {
                    p.set_source(irq, level);
                }
            }
        }
    }

    /// The PLIC's lines for hart `hart` as `mip` bits (MEIP, SEIP).
    fn lines(&self, hart: usize) -> u64 {
        let mut bits = 0;
        for s in &self.slots {
            if let Dev::Plic(p) = &s.dev {
                let (m, s) = p.lines(hart);
                if m {
                    bits |= crate::irq::MEIP;
                }
                if s {
                    bits |= crate::irq::SEIP;
                }
            }
        }
        bits
    }
}

/// The guest environment's console as a serial port's host side (no
/// environment: output is dropped and there is no input).
struct EnvSerial<'a>(Option<&'a mut Environment>);

impl SerialHost for EnvSerial<'_> {
    fn transmit(&mut self, byte: u8) {
        if let Some(env) = self.0.as_deref_mut() {
            // A closed stdout loses the byte, as QEMU's chardev does.
            let _ = env.serial_write(&[byte]);
        }
    }

    fn receive(&mut self) -> Option<u8> {
        self.0
            .as_deref_mut()
            .and_then(Environment::serial_read_byte)
    }
}

/// What a device access did.
pub(super) enum DeviceOutcome {
    /// No device answered (or it refused the access): the fault stands.
    NotHandled,
    /// Done; the instruction retires.
    Done,
    /// Done, and the run ends (the test device).
    Stop(StopReason),
}

/// Width in bytes, store?, sign-extend? of a plain integer load or store.
fn access_of(op: Op, rv64: bool) -> Option<(u64, bool, bool)> {
    Some(match op {
        Op::Lb => (1, false, true),
        Op::Lbu => (1, false, false),
        Op::Lh => (2, false, true),
        Op::Lhu => (2, false, false),
        Op::Lw => (4, false, true),
        Op::Lwu if rv64 => (4, false, false),
        Op::Ld if rv64 => (8, false, false),
        Op::Sb => (1, true, false),
        Op::Sh => (2, true, false),
        Op::Sw => (4, true, false),
        Op::Sd if rv64 => (8, true, false),
        _ => return None,
    })
}

impl<H: Hooks> Simulator<H> {
    /// A load or store by `inst` at virtual address `vaddr` that no memory
    /// answered: perform it on the device there, if any (see the module
    /// documentation). `at` is the instruction's place, for the clock.
    pub(super) fn device_access(
        &mut self,
        inst: &Inst,
        vaddr: u64,
        at: (u32, u32),
    ) -> DeviceOutcome {
        let Some((size, store, signed)) = access_of(inst.op, self.hart.rv64) else {
            return DeviceOutcome::NotHandled;
        };
        let Some(pa) = self.mem.device_address(vaddr, size, store) else {
            return DeviceOutcome::NotHandled;
        };
        let value = if store {
            let v = self.hart.x[usize::from(inst.rs2)];
            if size == 8 {
                v
            } else {
                v & ((1u64 << (size * 8)) - 1)
            }
        } else {
            0
        };
        let Some(i) = self.bus.slot_at(pa) else {
            // Memory that refused the access (a store to flash or ROM) is
            // an access fault, not an unmodelled device.
            if fwprof_os::GuestMemory::is_mapped(&self.mem, pa, size) {
                return DeviceOutcome::NotHandled;
            }
            if self.bus.unmodelled != Unmodelled::Ignore {
                let f = self.bus.faults.get_or_insert((pa, 0));
                f.1 += 1;
                return DeviceOutcome::NotHandled;
            }
            let c = self.bus.seen.entry(pa).or_default();
            if store {
                c.writes += 1;
            } else {
                c.reads += 1;
                self.set_loaded(inst, 0, size, signed);
            }
            return DeviceOutcome::Done;
        };
        let off = pa - self.bus.slots[i].base;
        let mut result = DeviceOutcome::Done;
        let uart = matches!(self.bus.slots[i].dev, Dev::Uart { .. });
        let loaded: Option<u64> = match &mut self.bus.slots[i].dev {
            Dev::Clint => {
                return if self.clint_access(inst, off, at) {
                    DeviceOutcome::Done
                } else {
                    DeviceOutcome::NotHandled
                };
            }
            Dev::Plic(p) => {
                if store {
                    if p.write(off, size as u32, value).is_err() {
                        return DeviceOutcome::NotHandled;
                    }
                    None
                } else {
                    match p.read(off, size as u32) {
                        Ok(v) => Some(v),
                        Err(_) => return DeviceOutcome::NotHandled,
                    }
                }
            }
            Dev::Uart { uart, .. } => {
                let mut host = EnvSerial(self.env.as_mut());
                if store {
                    uart.write(off, value as u8, &mut host);
                    None
                } else {
                    Some(u64::from(uart.read(off, &mut host)))
                }
            }
            Dev::Test => {
                if store {
                    match crate::devices::TestDevice::write(off, size as u32, value) {
                        Err(_) => return DeviceOutcome::NotHandled,
                        Ok(TestEffect::None) => {}
                        Ok(TestEffect::Exit(code)) => {
                            result = DeviceOutcome::Stop(StopReason::Exit(i32::from(code)))
                        }
                        Ok(TestEffect::Reset) => result = DeviceOutcome::Stop(StopReason::Reset),
                    }
                    None
                } else {
                    match crate::devices::TestDevice::read(off, size as u32) {
                        Ok(v) => Some(v),
                        Err(_) => return DeviceOutcome::NotHandled,
                    }
                }
            }
        };
        if let Some(v) = loaded {
            self.set_loaded(inst, v, size, signed);
        }
        self.bus.update(uart);
        self.set_ext_irqs();
        result
    }

    /// Every hart's `mip.MEIP`/`SEIP` from the PLIC as it stands.
    pub(super) fn set_ext_irqs(&mut self) {
        self.hart.ext_irq = self.bus.lines(self.harts.cur);
        for (i, h) in self.harts.parked.iter_mut().enumerate() {
            h.ext_irq = self.bus.lines(i);
        }
    }

    /// Write a device load's value to `rd`, sign- or zero-extended.
    fn set_loaded(&mut self, inst: &Inst, v: u64, size: u64, signed: bool) {
        let bits = size * 8;
        let v = if bits == 64 {
            v
        } else if signed {
            let sh = 64 - bits;
            (((v << sh) as i64) >> sh) as u64
        } else {
            v & ((1u64 << bits) - 1)
        };
        if inst.rd != 0 {
            self.hart.x[usize::from(inst.rd)] = v;
        }
        self.hart.normalize_x();
    }

    /// A hart about to sleep in `wfi`: let a UART that waits for input
    /// with its receive interrupt enabled take one byte (blocking in host
    /// time; no guest time passes), then recompute the interrupt lines.
    /// True if it took one.
    pub(super) fn feed_waiting_uart(&mut self) -> bool {
        if !self.bus.wants_input() {
            return false;
        }
        for s in &mut self.bus.slots {
            if let Dev::Uart { uart, .. } = &mut s.dev {
                if uart.wants_input() {
                    uart.fetch_input(&mut EnvSerial(self.env.as_mut()));
                }
            }
        }
        self.bus.update(true);
        self.set_ext_irqs();
        true
    }

    /// The physical addresses with neither memory nor a device that the
    /// program read or wrote on a board whose unmodelled addresses are
    /// `ignore`, in address order, with their counts.
    pub fn unmodelled_accesses(&self) -> Vec<(u64, UnmodelledCount)> {
        self.bus.seen.iter().map(|(&a, &c)| (a, c)).collect()
    }

    /// The first physical address where a load or store found neither
    /// memory nor a device (an access fault, delivered to the program's
    /// handler or not), and how many such faults there were.
    pub fn unmapped_faults(&self) -> Option<(u64, u64)> {
        self.bus.faults
    }

    /// The board's description of why nothing answered at the address of
    /// an access fault (see `fwprof_os::Board::explain_unmapped`).
    pub fn board(&self) -> Option<&Board> {
        self.env.as_ref().map(Environment::board)
    }
}

impl<H: Hooks> Simulator<H> {
    /// True if the machine has a PLIC (for the `wfi` diagnosis).
    pub(super) fn bus_has_plic(&self) -> bool {
        self.bus.slots.iter().any(|s| matches!(s.dev, Dev::Plic(_)))
    }
}
