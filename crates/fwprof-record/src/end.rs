//! How a run ended, in words: the one-line diagnostic of a stop that is
//! not the program's own exit.

use fwprof_isa::{cause_name, decode, disasm, Style, Xlen};
use fwprof_sim::StopReason;

use crate::session::RunEnd;

impl RunEnd {
    /// The one-line diagnostic of the stop, `None` for the program's own
    /// exit: `instruction limit reached`; `stopped by SIGINT`
    /// (`stopped_by` names the signal); `guest fault: CAUSE (mcause N) at
    /// pc 0x…, mtval 0x…, instruction WORD `DISASSEMBLY` (mtvec is 0, no
    /// trap handler)` for a bare-metal trap with no handler (with the
    /// [`RunEnd::unmapped`] text after `guest fault: ` when there is one);
    /// a machine reset; `guest killed
    /// by signal N: CAUSE (mcause N) at pc 0x…, address 0x…` (or the
    /// [`RunEnd::stack_overflow`] text) for a Linux guest.
    pub fn describe(&self, stopped_by: &str) -> Option<String> {
        Some(match &self.stop {
            StopReason::Exit(_) => return None,
            StopReason::Reset => "the guest reset the machine (test device FINISHER_RESET); the run ends here, where QEMU would boot again".to_string(),
            StopReason::InstructionLimit => {
                self.with_reasons("instruction limit reached".to_string())
            }
            StopReason::Interrupted => self.with_reasons(format!("stopped by {stopped_by}")),
            StopReason::Fault {
                cause,
                pc,
                tval,
                raw,
                len,
                looping,
            } => {
                let xlen = if self.rv64 { Xlen::Rv64 } else { Xlen::Rv32 };
                let text = disasm(&decode(*raw, xlen), *pc, xlen, Style::Pseudo);
                let word = if *len == 2 {
                    format!("{raw:04x}")
                } else {
                    format!("{raw:08x}")
                };
                let why = match &self.unmapped {
                    Some(w) => format!("{w}: "),
                    None => String::new(),
                };
                let handler = if *looping {
                    "the trap handler raises it again and again, never returning: it would trap there forever"
                } else {
                    "mtvec is 0, no trap handler"
                };
                format!(
                    "guest fault: {why}{} (mcause {cause}) at pc {pc:#x}, mtval {tval:#x}, instruction {word} `{text}` ({handler})",
                    cause_name(*cause)
                )
            }
            StopReason::Signal { signo, pc, .. } if self.stack_overflow.is_some() => format!(
                "guest killed by signal {signo}: {} at pc {pc:#x}",
                self.stack_overflow.as_deref().unwrap_or_default()
            ),
            StopReason::Signal {
                signo,
                cause,
                pc,
                tval,
            } => format!(
                "guest killed by signal {signo}: {} (mcause {cause}) at pc {pc:#x}, address {tval:#x}",
                cause_name(*cause)
            ),
        })
    }

    /// `what`, then the interrupt the hart waited for in vain and the
    /// access faults where no device answered, when known.
    fn with_reasons(&self, what: String) -> String {
        let mut s = what;
        for r in [&self.waiting, &self.unmapped].into_iter().flatten() {
            s.push_str("; ");
            s.push_str(r);
        }
        s
    }
}
