//! Exit statuses and one-line error presentation.

use fwprof_sim::StopReason;

/// An error of fwprof itself.
pub const FWPROF_ERROR: u8 = 125;
/// `--max-instructions` reached (as `timeout(1)`).
pub const INSTRUCTION_LIMIT: u8 = 124;

/// The whole error chain on one line: `outer: inner: root`.
pub fn one_line(e: &anyhow::Error) -> String {
    let mut s = String::new();
    for (i, c) in e.chain().enumerate() {
        let text = c.to_string();
        if i > 0 {
            if s.contains(&text) {
                continue;
            }
            s.push_str(": ");
        }
        s.push_str(&text);
    }
    s.replace('\n', " ")
}

/// The signal Linux sends for a synchronous exception cause (Privileged ISA
/// 20211203 Table 3.6 → Linux `arch/riscv/kernel/traps.c`).
pub fn signal_for_cause(cause: u64) -> i32 {
    match cause {
        0 | 4 | 6 => 7,                 // misaligned fetch/load/store: SIGBUS
        1 | 5 | 7 | 12 | 13 | 15 => 11, // access / page faults: SIGSEGV
        2 => 4,                         // illegal instruction: SIGILL
        3 => 5,                         // breakpoint: SIGTRAP
        _ => 11,
    }
}

/// Process exit status for a stop reason (see the table in `main.rs`).
pub fn status_for(stop: &StopReason) -> u8 {
    match stop {
        StopReason::Exit(code) => (*code & 0xff) as u8,
        StopReason::InstructionLimit => INSTRUCTION_LIMIT,
        StopReason::Interrupted => (128 + crate::signals::stopping_signal()) as u8,
        StopReason::Fault { cause, .. } => (128 + signal_for_cause(*cause)) as u8,
        StopReason::Signal { signo, .. } => (128 + signo) as u8,
    }
}

/// Name of a synchronous exception cause (Privileged ISA 20211203, Table 3.6).
pub fn cause_name(cause: u64) -> &'static str {
    // Causes here are never interrupts, so XLEN does not matter.
    fwprof_report::trap_cause_name(cause, 64).unwrap_or("unknown exception")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn statuses() {
        assert_eq!(status_for(&StopReason::Exit(3)), 3);
        assert_eq!(status_for(&StopReason::Exit(256 + 7)), 7);
        assert_eq!(status_for(&StopReason::InstructionLimit), 124);
        assert_eq!(status_for(&StopReason::Interrupted), 130);
        assert_eq!(
            status_for(&StopReason::Signal {
                signo: 11,
                cause: 5,
                pc: 0,
                tval: 0
            }),
            139
        );
        assert_eq!(
            status_for(&StopReason::Fault {
                cause: 2,
                pc: 0,
                tval: 0,
                raw: 0,
                len: 4
            }),
            132
        );
    }

    #[test]
    fn chain_on_one_line() {
        let e = anyhow::anyhow!("root cause\nsecond line").context("loading x.elf");
        assert_eq!(one_line(&e), "loading x.elf: root cause second line");
    }
}
