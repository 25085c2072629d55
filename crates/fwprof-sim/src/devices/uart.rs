//! QEMU 7.2's 16550A UART (`hw/char/serial.c`) as virt maps it:
//! `serial_mm_init(system_memory, 0x1000_0000, regshift 0, PLIC source 10,
//! 399193, serial_hd(0), DEVICE_LITTLE_ENDIAN)`.
//!
//! **Registers.** `serial_mm_read`/`serial_mm_write` accept accesses of
//! any size and reach one 8-bit register at `offset >> regshift`
//! (`serial_ioport_read`/`serial_ioport_write`); writes keep the low byte
//! (`value &= 255`). The bus handles the access sizes; [`Uart16550::read`]
//! and [`Uart16550::write`] take the register number 0..=7:
//!
//! | offset | read                     | write                       |
//! |--------|--------------------------|-----------------------------|
//! | 0      | RBR, or DLL when LCR.DLAB | THR, or DLL when LCR.DLAB  |
//! | 1      | IER (4 bits), or DLM      | IER, or DLM                |
//! | 2      | IIR                       | FCR                        |
//! | 3      | LCR                       | LCR                        |
//! | 4      | MCR (5 bits)              | MCR                        |
//! | 5      | LSR                       | ignored                    |
//! | 6      | MSR                       | ignored                    |
//! | 7      | SCR                       | SCR                        |
//!
//! Interrupt identification, priorities and the line follow
//! `serial_update_irq`: receiver line status (IER.RLSI and LSR.OE/PE/FE/BI),
//! then character timeout (IER.RDI and a pending timeout), then received
//! data (IER.RDI, LSR.DR and, with FIFOs, at least the trigger level in the
//! FIFO), then transmitter empty (IER.THRI and `thr_ipending`), then modem
//! status (IER.MSI and an MSR delta bit). IIR bits 7:6 read 0xC0 while
//! FIFOs are enabled (`serial_write_fcr`).
//!
//! fwprof replaces QEMU's host-timed character device with deterministic
//! rules, so that the guest sees the same bytes at the same points
//! whatever the speed of the host's input:
//!
//! * **Input arrives only when the guest asks for it.** A read of LSR, or
//!   of RBR with LCR.DLAB clear, while the receive buffer (the FIFO, or the
//!   holding register when FIFOs are off) is empty first calls
//!   [`Uart16550::fetch_input`], which takes exactly one byte from
//!   [`SerialHost::receive`] — never more — and delivers it as QEMU's
//!   `serial_receive1` would. The simulator calls `fetch_input` too when
//!   the hart sleeps in `wfi` while [`Uart16550::wants_input`] (receive
//!   interrupt enabled, buffer empty, input not ended). So the buffer holds
//!   at most one byte and never overruns. Once `receive` returns `None`
//!   (end of input) it is never called again and LSR.DR never sets again.
//! * **Transmit is instant.** A THR write calls [`SerialHost::transmit`] at
//!   once (QEMU `serial_xmit` with a character device that accepts the
//!   byte); LSR.THRE and LSR.TEMT read set again right after the write.
//!   `thr_ipending` follows QEMU: the write clears it and the "sent" byte
//!   sets it again; an IIR read returning the THRI id clears it; an IER
//!   write that changes IER.THRI sets it to IER.THRI && LSR.THRE; an FCR
//!   write that clears the transmit FIFO sets it.
//! * **Character timeout.** With FIFOs enabled, QEMU raises the character
//!   timeout interrupt (CTI, IIR id 0xC) when data has waited in the FIFO
//!   for 4 character times (`fifo_timeout_int`), which is what interrupts
//!   the guest when fewer bytes than the trigger level arrived. Here no
//!   more input can arrive until the guest reads, so the timeout elapses at
//!   once: whenever the FIFO holds data but fewer bytes than the trigger
//!   level (after a byte arrives, after an RBR read that leaves data, after
//!   an FCR write), the timeout is pending immediately. At or above the
//!   trigger level the received-data interrupt is raised and the timeout
//!   is never considered elapsed (QEMU would raise CTI only if the guest
//!   left the data unread for 4 character times). As in QEMU, an RBR read
//!   or a receive-FIFO reset clears a pending timeout.
//!
//! **Not modelled:** loopback (MCR bit 4): transmitted bytes still go to
//! the host and input still comes from it (QEMU loops them back into the
//! receiver), but an MSR read in loopback mode returns QEMU's mapping of
//! the modem control outputs (OUT2→DCD, OUT1→RI, RTS→CTS, DTR→DSR), which
//! drivers' loopback probes check. Breaks (no host break events), baud
//! rates and timing (the divisor latch only stores its value), and
//! modem-status polling: the host side is not a tty, so QEMU's
//! `serial_update_msl` finds `CHR_IOCTL_SERIAL_GET_TIOCM` unsupported and
//! MSR stays DCD|DSR|CTS (0xB0).

use super::SerialHost;
use std::collections::VecDeque;

const LCR_DLAB: u8 = 0x80;

const IER_MSI: u8 = 0x08;
const IER_RLSI: u8 = 0x04;
const IER_THRI: u8 = 0x02;
const IER_RDI: u8 = 0x01;

const IIR_NO_INT: u8 = 0x01;
const IIR_ID: u8 = 0x06;
const IIR_MSI: u8 = 0x00;
const IIR_THRI: u8 = 0x02;
const IIR_RDI: u8 = 0x04;
const IIR_RLSI: u8 = 0x06;
const IIR_CTI: u8 = 0x0C;
const IIR_FE: u8 = 0xC0;

const MCR_LOOP: u8 = 0x10;
const MCR_OUT2: u8 = 0x08;

const MSR_DCD: u8 = 0x80;
const MSR_DSR: u8 = 0x20;
const MSR_CTS: u8 = 0x10;
const MSR_ANY_DELTA: u8 = 0x0F;

const LSR_TEMT: u8 = 0x40;
const LSR_THRE: u8 = 0x20;
const LSR_BI: u8 = 0x10;
const LSR_OE: u8 = 0x02;
const LSR_DR: u8 = 0x01;
const LSR_INT_ANY: u8 = 0x1E;

const FCR_FE: u8 = 0x01;
const FCR_RFR: u8 = 0x02;
const FCR_XFR: u8 = 0x04;

/// `UART_FIFO_LENGTH`.
const FIFO_LEN: usize = 16;

/// QEMU 7.2's 16550A UART with fwprof's deterministic host side (see the
/// module documentation for the registers and the input, transmit and
/// timeout rules).
#[derive(Debug, Clone)]
pub struct Uart16550 {
    divider: u16,
    rbr: u8,
    ier: u8,
    iir: u8,
    lcr: u8,
    mcr: u8,
    lsr: u8,
    msr: u8,
    scr: u8,
    fcr: u8,
    recv_fifo: VecDeque<u8>,
    recv_fifo_itl: usize,
    thr_ipending: bool,
    timeout_ipending: bool,
    /// The interrupt line as the last `serial_update_irq` set it.
    irq: bool,
    /// `SerialHost::receive` returned `None`.
    input_ended: bool,
}

impl Default for Uart16550 {
    fn default() -> Self {
        Self::new()
    }
}

impl Uart16550 {
    /// Registers QEMU maps (`8 << regshift` bytes, regshift 0 on virt):
    /// offsets 0..`REGISTERS` of the UART window.
    pub const REGISTERS: u64 = 8;

    /// QEMU's reset state (`serial_reset`): RBR, IER, LCR, SCR and FCR 0;
    /// IIR = NO_INT (0x01); LSR = TEMT|THRE (0x60); MSR = DCD|DSR|CTS
    /// (0xB0); MCR = OUT2 (0x08); divisor 12 (9600 baud); FIFOs empty; no
    /// interrupt pending; line low; input not ended.
    pub fn new() -> Uart16550 {
        Uart16550 {
            divider: 0x0C,
            rbr: 0,
            ier: 0,
            iir: IIR_NO_INT,
            lcr: 0,
            mcr: MCR_OUT2,
            lsr: LSR_TEMT | LSR_THRE,
            msr: MSR_DCD | MSR_DSR | MSR_CTS,
            scr: 0,
            fcr: 0,
            recv_fifo: VecDeque::with_capacity(FIFO_LEN),
            recv_fifo_itl: 1,
            thr_ipending: false,
            timeout_ipending: false,
            irq: false,
            input_ended: false,
        }
    }

    /// A read of register `offset` (0..=7; higher offsets wrap modulo 8),
    /// QEMU `serial_ioport_read`. Reads of RBR and IIR, LSR and MSR have
    /// QEMU's side effects (data taken, THR-empty interrupt acknowledged,
    /// BI/OE cleared, MSR delta bits cleared); a read of LSR, or of RBR with
    /// LCR.DLAB clear, first fetches one byte of input when the receive
    /// buffer is empty (see the module documentation). RBR reads 0 from an
    /// empty FIFO, and the last byte received when FIFOs are off.
    pub fn read(&mut self, offset: u64, host: &mut dyn SerialHost) -> u8 {
        match offset & 7 {
            0 => {
                if self.lcr & LCR_DLAB != 0 {
                    return self.divider.to_le_bytes()[0];
                }
                if self.rx_empty() {
                    self.fetch_input(host);
                }
                let ret = if self.fcr & FCR_FE != 0 {
                    let byte = self.recv_fifo.pop_front().unwrap_or(0);
                    self.timeout_ipending = false;
                    if self.recv_fifo.is_empty() {
                        self.lsr &= !(LSR_DR | LSR_BI);
                    } else {
                        // QEMU re-arms the timeout timer; it elapses at once.
                        self.timeout_elapses();
                    }
                    byte
                } else {
                    self.lsr &= !(LSR_DR | LSR_BI);
                    self.rbr
                };
                self.update_irq();
                ret
            }
            1 => {
                if self.lcr & LCR_DLAB != 0 {
                    self.divider.to_le_bytes()[1]
                } else {
                    self.ier
                }
            }
            2 => {
                let ret = self.iir;
                if ret & IIR_ID == IIR_THRI {
                    self.thr_ipending = false;
                    self.update_irq();
                }
                ret
            }
            3 => self.lcr,
            4 => self.mcr,
            5 => {
                if self.rx_empty() {
                    self.fetch_input(host);
                }
                let ret = self.lsr;
                if self.lsr & (LSR_BI | LSR_OE) != 0 {
                    self.lsr &= !(LSR_BI | LSR_OE);
                    self.update_irq();
                }
                ret
            }
            6 => {
                if self.mcr & MCR_LOOP != 0 {
                    // The modem outputs looped back to the inputs.
                    ((self.mcr & 0x0c) << 4) | ((self.mcr & 0x02) << 3) | ((self.mcr & 0x01) << 5)
                } else {
                    let ret = self.msr;
                    if self.msr & MSR_ANY_DELTA != 0 {
                        self.msr &= 0xF0;
                        self.update_irq();
                    }
                    ret
                }
            }
            _ => self.scr,
        }
    }

    /// A write of `value` to register `offset` (0..=7; higher offsets wrap
    /// modulo 8), QEMU `serial_ioport_write`. A THR write transmits the byte
    /// to `host` at once.
    pub fn write(&mut self, offset: u64, value: u8, host: &mut dyn SerialHost) {
        match offset & 7 {
            0 => {
                if self.lcr & LCR_DLAB != 0 {
                    self.divider = (self.divider & 0xff00) | u16::from(value);
                } else {
                    self.transmit(value, host);
                }
            }
            1 => {
                if self.lcr & LCR_DLAB != 0 {
                    self.divider = (self.divider & 0x00ff) | (u16::from(value) << 8);
                } else {
                    let changed = (self.ier ^ value) & 0x0f;
                    self.ier = value & 0x0f;
                    // "Turning on the THRE interrupt on IER can trigger the
                    // interrupt if LSR.THRE=1, even if it had been masked
                    // before by reading IIR."
                    if changed & IER_THRI != 0 {
                        self.thr_ipending = self.ier & IER_THRI != 0 && self.lsr & LSR_THRE != 0;
                    }
                    if changed != 0 {
                        self.update_irq();
                    }
                }
            }
            2 => self.write_fcr(value),
            3 => self.lcr = value,
            4 => self.mcr = value & 0x1f,
            5 | 6 => {}
            _ => self.scr = value,
        }
    }

    /// The interrupt line (the result of QEMU's `serial_update_irq`: high
    /// while IIR identifies an interrupt).
    pub fn irq(&self) -> bool {
        self.irq
    }

    /// True when the guest waits for input by interrupt: the receive
    /// interrupt is enabled (IER bit 0), the receive buffer is empty and
    /// input has not ended. The simulator calls [`Uart16550::fetch_input`]
    /// when the hart sleeps in `wfi` in that state.
    pub fn wants_input(&self) -> bool {
        self.ier & IER_RDI != 0 && self.rx_empty() && !self.input_ended
    }

    /// Takes one byte from `host.receive()` into the receive buffer (QEMU
    /// `serial_receive1`), or records the end of input, and updates the
    /// interrupt state. Does nothing once input has ended or while the
    /// receive buffer holds data (so a byte is never lost to an overrun).
    pub fn fetch_input(&mut self, host: &mut dyn SerialHost) {
        if self.input_ended || !self.rx_empty() {
            return;
        }
        match host.receive() {
            Some(byte) => self.receive(byte),
            None => self.input_ended = true,
        }
        self.update_irq();
    }

    /// True once `SerialHost::receive` has returned `None`.
    pub fn input_ended(&self) -> bool {
        self.input_ended
    }

    /// The receive buffer holds no data: the FIFO is empty when FIFOs are
    /// enabled, LSR.DR is clear otherwise.
    fn rx_empty(&self) -> bool {
        if self.fcr & FCR_FE != 0 {
            self.recv_fifo.is_empty()
        } else {
            self.lsr & LSR_DR == 0
        }
    }

    /// QEMU `serial_receive1` for one byte.
    fn receive(&mut self, byte: u8) {
        if self.fcr & FCR_FE != 0 {
            // recv_fifo_put: overruns do not overwrite the FIFO.
            if self.recv_fifo.len() < FIFO_LEN {
                self.recv_fifo.push_back(byte);
            } else {
                self.lsr |= LSR_OE;
            }
            self.lsr |= LSR_DR;
            // QEMU arms the timeout timer; it elapses at once.
            self.timeout_elapses();
        } else {
            if self.lsr & LSR_DR != 0 {
                self.lsr |= LSR_OE;
            }
            self.rbr = byte;
            self.lsr |= LSR_DR;
        }
        self.update_irq();
    }

    /// fwprof's character timeout (QEMU `fifo_timeout_int` when its timer
    /// fires): pending at once while the FIFO holds data below the trigger
    /// level.
    fn timeout_elapses(&mut self) {
        if self.fcr & FCR_FE != 0
            && !self.recv_fifo.is_empty()
            && self.recv_fifo.len() < self.recv_fifo_itl
        {
            self.timeout_ipending = true;
        }
    }

    /// A THR write (QEMU `serial_ioport_write` offset 0 without DLAB, then
    /// `serial_xmit` with a character device that takes the byte).
    fn transmit(&mut self, value: u8, host: &mut dyn SerialHost) {
        // With FIFOs the byte goes through the transmit FIFO, which
        // `serial_xmit` empties at once: it is always empty here.
        self.thr_ipending = false;
        self.lsr &= !(LSR_THRE | LSR_TEMT);
        self.update_irq();
        // serial_xmit: the holding register (or FIFO) is empty again.
        self.lsr |= LSR_THRE;
        if !self.thr_ipending {
            self.thr_ipending = true;
            self.update_irq();
        }
        host.transmit(value);
        self.lsr |= LSR_TEMT;
    }

    /// An FCR write (QEMU `serial_ioport_write` offset 2 and
    /// `serial_write_fcr`).
    fn write_fcr(&mut self, value: u8) {
        let mut val = value;
        // Enabling or disabling the FIFOs flushes them.
        if (val ^ self.fcr) & FCR_FE != 0 {
            val |= FCR_XFR | FCR_RFR;
        }
        if val & FCR_RFR != 0 {
            self.lsr &= !(LSR_DR | LSR_BI);
            self.timeout_ipending = false;
            self.recv_fifo.clear();
        }
        if val & FCR_XFR != 0 {
            self.lsr |= LSR_THRE;
            self.thr_ipending = true;
        }
        // serial_write_fcr: only bits 7:6, 3 and 0 stick.
        self.fcr = val & 0xC9;
        if self.fcr & FCR_FE != 0 {
            self.iir |= IIR_FE;
            self.recv_fifo_itl = match self.fcr & 0xC0 {
                0x00 => 1,
                0x40 => 4,
                0x80 => 8,
                _ => 14,
            };
        } else {
            self.iir &= !IIR_FE;
        }
        self.timeout_elapses();
        self.update_irq();
    }

    /// QEMU `serial_update_irq`: the interrupt id in IIR bits 3:0 and the
    /// line.
    fn update_irq(&mut self) {
        let id = if self.ier & IER_RLSI != 0 && self.lsr & LSR_INT_ANY != 0 {
            IIR_RLSI
        } else if self.ier & IER_RDI != 0 && self.timeout_ipending {
            IIR_CTI
        } else if self.ier & IER_RDI != 0
            && self.lsr & LSR_DR != 0
            && (self.fcr & FCR_FE == 0 || self.recv_fifo.len() >= self.recv_fifo_itl)
        {
            IIR_RDI
        } else if self.ier & IER_THRI != 0 && self.thr_ipending {
            IIR_THRI
        } else if self.ier & IER_MSI != 0 && self.msr & MSR_ANY_DELTA != 0 {
            IIR_MSI
        } else {
            IIR_NO_INT
        };
        self.iir = id | (self.iir & 0xF0);
        self.irq = id != IIR_NO_INT;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const RBR: u64 = 0;
    const IER: u64 = 1;
    const IIR: u64 = 2;
    const FCR: u64 = 2;
    const LCR: u64 = 3;
    const MCR: u64 = 4;
    const LSR: u64 = 5;
    const MSR: u64 = 6;
    const SCR: u64 = 7;

    /// A host with scripted input that counts `receive` calls.
    #[derive(Default)]
    struct FakeHost {
        output: Vec<u8>,
        input: VecDeque<u8>,
        receives: usize,
    }

    impl FakeHost {
        fn with_input(input: &[u8]) -> FakeHost {
            FakeHost {
                input: input.iter().copied().collect(),
                ..FakeHost::default()
            }
        }
    }

    impl SerialHost for FakeHost {
        fn transmit(&mut self, byte: u8) {
            self.output.push(byte);
        }
        fn receive(&mut self) -> Option<u8> {
            self.receives += 1;
            self.input.pop_front()
        }
    }

    #[test]
    fn reset_state() {
        let mut host = FakeHost::default();
        let mut uart = Uart16550::new();
        assert_eq!(uart.read(IER, &mut host), 0);
        assert_eq!(uart.read(IIR, &mut host), 0x01);
        assert_eq!(uart.read(LCR, &mut host), 0);
        assert_eq!(uart.read(MCR, &mut host), 0x08);
        assert_eq!(uart.read(MSR, &mut host), 0xB0);
        assert_eq!(uart.read(SCR, &mut host), 0);
        assert!(!uart.irq());
        // An LSR read with an empty buffer asks the host once: at EOF.
        assert_eq!(uart.read(LSR, &mut host), 0x60);
        assert_eq!(host.receives, 1);
        assert!(uart.input_ended());
    }

    #[test]
    fn polled_transmit() {
        let mut host = FakeHost::default();
        let mut uart = Uart16550::new();
        for &b in b"hi\n" {
            assert_ne!(uart.read(LSR, &mut host) & 0x20, 0);
            uart.write(0, b, &mut host);
            assert_eq!(uart.read(LSR, &mut host) & 0x60, 0x60);
        }
        assert_eq!(host.output, b"hi\n");
        assert!(!uart.irq());
    }

    #[test]
    fn receive_one_byte_at_a_time() {
        let mut host = FakeHost::with_input(b"ab");
        let mut uart = Uart16550::new();
        // Nothing is fetched until the guest asks.
        assert_eq!(host.receives, 0);
        assert!(!uart.wants_input()); // IER.RDI clear
        let lsr = uart.read(LSR, &mut host);
        assert_eq!(lsr & 0x01, 0x01);
        assert_eq!(host.receives, 1);
        // More LSR reads do not fetch while 'a' waits.
        assert_eq!(uart.read(LSR, &mut host) & 0x01, 0x01);
        assert_eq!(host.receives, 1);
        assert_eq!(uart.read(RBR, &mut host), b'a');
        assert_eq!(host.receives, 1);
        // The second LSR read fetches 'b'.
        assert_eq!(uart.read(LSR, &mut host) & 0x01, 0x01);
        assert_eq!(host.receives, 2);
        assert_eq!(uart.read(RBR, &mut host), b'b');
        // End of input: DR stays clear, receive() is not called again.
        assert_eq!(uart.read(LSR, &mut host) & 0x01, 0);
        assert_eq!(host.receives, 3);
        assert!(uart.input_ended());
        for _ in 0..3 {
            assert_eq!(uart.read(LSR, &mut host) & 0x01, 0);
            uart.read(RBR, &mut host);
            uart.fetch_input(&mut host);
        }
        assert_eq!(host.receives, 3);
        assert!(!uart.wants_input());
    }

    #[test]
    fn rbr_read_with_empty_buffer_fetches_first() {
        let mut host = FakeHost::with_input(b"xy");
        let mut uart = Uart16550::new();
        assert_eq!(uart.read(RBR, &mut host), b'x');
        assert_eq!(uart.read(RBR, &mut host), b'y');
        assert_eq!(host.receives, 2);
        // At EOF with FIFOs off, RBR keeps its last byte (QEMU returns rbr).
        assert_eq!(uart.read(RBR, &mut host), b'y');
        assert_eq!(uart.read(LSR, &mut host) & 0x01, 0);
    }

    #[test]
    fn rx_interrupt_after_fetch_cleared_by_rbr_read() {
        let mut host = FakeHost::with_input(b"z");
        let mut uart = Uart16550::new();
        uart.write(IER, 0x01, &mut host);
        assert!(!uart.irq());
        assert!(uart.wants_input());
        assert_eq!(host.receives, 0);
        uart.fetch_input(&mut host);
        assert_eq!(host.receives, 1);
        assert!(uart.irq());
        assert!(!uart.wants_input());
        // Only one byte, however often the simulator asks.
        uart.fetch_input(&mut host);
        assert_eq!(host.receives, 1);
        assert_eq!(uart.read(IIR, &mut host), 0x04);
        assert_eq!(uart.read(RBR, &mut host), b'z');
        assert!(!uart.irq());
        assert_eq!(uart.read(IIR, &mut host), 0x01);
        assert!(uart.wants_input());
        uart.fetch_input(&mut host);
        assert!(uart.input_ended());
        assert!(!uart.wants_input());
        assert!(!uart.irq());
    }

    #[test]
    fn thr_empty_interrupt_follows_qemu() {
        let mut host = FakeHost::default();
        let mut uart = Uart16550::new();
        // IER.THRI 0→1 with THRE set raises the interrupt at once.
        uart.write(IER, 0x02, &mut host);
        assert!(uart.irq());
        // Reading IIR returns the THRI id and acknowledges it.
        assert_eq!(uart.read(IIR, &mut host), 0x02);
        assert!(!uart.irq());
        assert_eq!(uart.read(IIR, &mut host), 0x01);
        // Rewriting the same IER changes nothing.
        uart.write(IER, 0x02, &mut host);
        assert!(!uart.irq());
        // A transmitted byte is "sent" at once: THR empty again.
        uart.write(0, b'q', &mut host);
        assert_eq!(host.output, b"q");
        assert!(uart.irq());
        assert_eq!(uart.read(IIR, &mut host), 0x02);
        assert!(!uart.irq());
        // THRI 1→0 clears thr_ipending; 0→1 sets it again.
        uart.write(0, b'r', &mut host);
        assert!(uart.irq());
        uart.write(IER, 0x00, &mut host);
        assert!(!uart.irq());
        uart.write(IER, 0x02, &mut host);
        assert!(uart.irq());
        // Without IER.THRI a transmit leaves the line low.
        uart.write(IER, 0x00, &mut host);
        uart.write(0, b's', &mut host);
        assert!(!uart.irq());
        assert_eq!(uart.read(IIR, &mut host), 0x01);
        assert_eq!(host.output, b"qrs");
    }

    #[test]
    fn rx_interrupt_has_priority_over_thr_empty() {
        let mut host = FakeHost::with_input(b"k");
        let mut uart = Uart16550::new();
        uart.write(IER, 0x03, &mut host);
        assert_eq!(uart.read(IIR, &mut host), 0x02);
        uart.write(IER, 0x01, &mut host);
        uart.write(IER, 0x03, &mut host);
        uart.fetch_input(&mut host);
        assert_eq!(uart.read(IIR, &mut host), 0x04);
        assert_eq!(uart.read(RBR, &mut host), b'k');
        assert_eq!(uart.read(IIR, &mut host), 0x02);
        assert_eq!(uart.read(IIR, &mut host), 0x01);
    }

    #[test]
    fn iir_values_with_and_without_fifo() {
        let mut host = FakeHost::with_input(b"12");
        let mut uart = Uart16550::new();
        assert_eq!(uart.read(IIR, &mut host), 0x01);
        // Enable FIFOs, trigger level 1.
        uart.write(FCR, 0x01, &mut host);
        assert_eq!(uart.read(IIR, &mut host), 0xC1);
        uart.write(IER, 0x01, &mut host);
        uart.fetch_input(&mut host);
        assert_eq!(uart.read(IIR, &mut host), 0xC4);
        assert_eq!(uart.read(RBR, &mut host), b'1');
        assert_eq!(uart.read(IIR, &mut host), 0xC1);
        uart.write(IER, 0x03, &mut host);
        assert_eq!(uart.read(IIR, &mut host), 0xC2);
        assert_eq!(uart.read(IIR, &mut host), 0xC1);
        // FCR bits that do not stick (resets, bits 5:4) leave IIR alone.
        uart.write(FCR, 0x07, &mut host);
        assert_eq!(uart.read(IIR, &mut host), 0xC2); // XFR set thr_ipending
                                                     // Disabling the FIFOs clears IIR bits 7:6.
        uart.write(FCR, 0x00, &mut host);
        assert_eq!(uart.read(IIR, &mut host), 0x02);
        assert_eq!(uart.read(IIR, &mut host), 0x01);
        assert_eq!(uart.read(RBR, &mut host), b'2');
    }

    #[test]
    fn fcr_enable_change_flushes_received_data() {
        let mut host = FakeHost::with_input(b"ab");
        let mut uart = Uart16550::new();
        assert_eq!(uart.read(LSR, &mut host) & 0x01, 0x01);
        uart.write(FCR, 0x01, &mut host);
        // 'a' was flushed; the next LSR read fetches 'b' into the FIFO.
        assert_eq!(uart.read(LSR, &mut host) & 0x01, 0x01);
        assert_eq!(uart.read(RBR, &mut host), b'b');
        // An explicit receive-FIFO reset also drops data.
        let mut host = FakeHost::with_input(b"cd");
        let mut uart = Uart16550::new();
        uart.write(FCR, 0x01, &mut host);
        assert_eq!(uart.read(LSR, &mut host) & 0x01, 0x01);
        uart.write(FCR, 0x03, &mut host);
        assert_eq!(host.receives, 1);
        assert_eq!(uart.read(RBR, &mut host), b'd');
        // Empty FIFO: RBR reads 0.
        assert_eq!(uart.read(RBR, &mut host), 0);
    }

    #[test]
    fn character_timeout_below_trigger_level() {
        let mut host = FakeHost::with_input(b"AB");
        let mut uart = Uart16550::new();
        // FIFOs on, trigger level 4 (FCR bits 7:6 = 01).
        uart.write(FCR, 0x41, &mut host);
        uart.write(IER, 0x01, &mut host);
        assert!(uart.wants_input());
        uart.fetch_input(&mut host);
        // One byte < 4: the timeout elapses at once: CTI.
        assert!(uart.irq());
        assert_eq!(uart.read(IIR, &mut host), 0xCC);
        assert_eq!(uart.read(RBR, &mut host), b'A');
        assert!(!uart.irq());
        assert_eq!(uart.read(IIR, &mut host), 0xC1);
        // CTI is masked by IER.RDI, as in QEMU.
        uart.fetch_input(&mut host);
        assert!(uart.irq());
        uart.write(IER, 0x00, &mut host);
        assert!(!uart.irq());
        assert_eq!(uart.read(IIR, &mut host), 0xC1);
        uart.write(IER, 0x01, &mut host);
        assert_eq!(uart.read(IIR, &mut host), 0xCC);
        // An RBR read acknowledges the timeout.
        assert_eq!(uart.read(RBR, &mut host), b'B');
        assert!(!uart.irq());
    }

    #[test]
    fn trigger_level_one_raises_rdi_not_cti() {
        let mut host = FakeHost::with_input(b"A");
        let mut uart = Uart16550::new();
        uart.write(FCR, 0x01, &mut host);
        uart.write(IER, 0x01, &mut host);
        uart.fetch_input(&mut host);
        assert_eq!(uart.read(IIR, &mut host), 0xC4);
        // Raising the trigger level above the FIFO count: the timeout
        // elapses at once.
        uart.write(FCR, 0xC1, &mut host);
        assert_eq!(uart.read(IIR, &mut host), 0xCC);
        assert_eq!(uart.read(RBR, &mut host), b'A');
        assert_eq!(uart.read(IIR, &mut host), 0xC1);
    }

    #[test]
    fn dlab_selects_the_divisor_latch() {
        let mut host = FakeHost::with_input(b"x");
        let mut uart = Uart16550::new();
        uart.write(LCR, 0x83, &mut host);
        assert_eq!(uart.read(0, &mut host), 0x0C);
        assert_eq!(uart.read(1, &mut host), 0x00);
        uart.write(0, 0x01, &mut host);
        uart.write(1, 0x02, &mut host);
        assert_eq!(uart.read(0, &mut host), 0x01);
        assert_eq!(uart.read(1, &mut host), 0x02);
        // Neither transmitted, nor IER written, nor input fetched.
        assert!(host.output.is_empty());
        assert_eq!(host.receives, 0);
        uart.write(LCR, 0x03, &mut host);
        assert_eq!(uart.read(LCR, &mut host), 0x03);
        assert_eq!(uart.read(IER, &mut host), 0);
        assert_eq!(uart.read(0, &mut host), b'x');
        // IER keeps 4 bits.
        uart.write(IER, 0xff, &mut host);
        assert_eq!(uart.read(IER, &mut host), 0x0f);
    }

    #[test]
    fn mcr_msr_scr_and_loopback_msr() {
        let mut host = FakeHost::default();
        let mut uart = Uart16550::new();
        uart.write(SCR, 0x5a, &mut host);
        assert_eq!(uart.read(SCR, &mut host), 0x5a);
        uart.write(MCR, 0xff, &mut host);
        assert_eq!(uart.read(MCR, &mut host), 0x1f);
        // Loopback: OUT2|RTS → DCD|CTS (Linux's 8250 probe expects 0x90).
        uart.write(MCR, 0x1a, &mut host);
        assert_eq!(uart.read(MSR, &mut host), 0x90);
        uart.write(MCR, 0x15, &mut host);
        assert_eq!(uart.read(MSR, &mut host), 0x60);
        // Loopback is not modelled for data: bytes still go to the host.
        uart.write(0, b'L', &mut host);
        assert_eq!(host.output, b"L");
        uart.write(MCR, 0x08, &mut host);
        assert_eq!(uart.read(MSR, &mut host), 0xB0);
        // LSR and MSR writes are ignored.
        uart.write(LSR, 0xff, &mut host);
        uart.write(MSR, 0xff, &mut host);
        assert_eq!(uart.read(MSR, &mut host), 0xB0);
    }

    #[test]
    fn lsr_read_clears_overrun() {
        let mut host = FakeHost::default();
        let mut uart = Uart16550::new();
        // Force an overrun through the QEMU receive path.
        uart.receive(b'1');
        uart.receive(b'2');
        uart.write(IER, 0x04, &mut host);
        assert!(uart.irq());
        assert_eq!(uart.read(IIR, &mut host), 0x06);
        assert_eq!(uart.read(LSR, &mut host), 0x63);
        assert!(!uart.irq());
        assert_eq!(uart.read(LSR, &mut host), 0x61);
        assert_eq!(uart.read(RBR, &mut host), b'2');
        assert_eq!(host.receives, 0);
    }

    #[test]
    fn arbitrary_accesses_never_panic() {
        let mut host = FakeHost::with_input(&[0x55; 64]);
        let mut uart = Uart16550::new();
        let mut x = 0x853c_49e6_748f_ea9bu64;
        for _ in 0..200_000 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            let offset = if x & 0x100 != 0 {
                x >> 16
            } else {
                (x >> 16) & 7
            };
            match x & 3 {
                0 => {
                    uart.read(offset, &mut host);
                }
                1 | 2 => uart.write(offset, (x >> 8) as u8, &mut host),
                _ => uart.fetch_input(&mut host),
            }
            let _ = (uart.irq(), uart.wants_input());
            if host.input.is_empty() && x & 0xf000 == 0 {
                host.input.extend([0xaa; 8]);
            }
        }
    }
}
