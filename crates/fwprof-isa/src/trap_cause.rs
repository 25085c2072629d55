//! Trap causes: the exception codes of `mcause`, their names, and the signal
//! Linux kills a user process with for each synchronous exception; the
//! names of Linux signals and of their handlers' contexts in profiles. The
//! one owner of these facts; the simulator raises the codes, the CLI turns
//! them into exit statuses and messages, and the reports name them.
//!
//! Codes and names: Privileged ISA 20211203, §3.1.15, Table 3.6. Signals:
//! Linux `arch/riscv/kernel/traps.c` (`do_trap_*_misaligned` → SIGBUS,
//! `do_trap_insn_illegal` → SIGILL, `do_trap_break` → SIGTRAP, access and
//! page faults → SIGSEGV), which QEMU 7.2's `linux-user/riscv/cpu_loop.c`
//! reproduces.

/// Instruction address misaligned.
pub const CAUSE_MISALIGNED_FETCH: u64 = 0;
/// Instruction access fault (`mtval` = faulting address).
pub const CAUSE_FETCH_ACCESS: u64 = 1;
/// Illegal instruction (`mtval` = the instruction bits, as QEMU 7.2 sets it).
pub const CAUSE_ILLEGAL_INSTRUCTION: u64 = 2;
/// Breakpoint (`ebreak`; `mtval` = 0 as in QEMU 7.2).
pub const CAUSE_BREAKPOINT: u64 = 3;
/// Load address misaligned (only `lr.w`/`lr.d`; plain loads may be misaligned).
pub const CAUSE_MISALIGNED_LOAD: u64 = 4;
/// Load access fault (`mtval` = first unmapped byte).
pub const CAUSE_LOAD_ACCESS: u64 = 5;
/// Store/AMO address misaligned (`sc`/AMO only).
pub const CAUSE_MISALIGNED_STORE: u64 = 6;
/// Store/AMO access fault (`mtval` = first unmapped/unwritable byte).
pub const CAUSE_STORE_ACCESS: u64 = 7;
/// Environment call from U-mode.
pub const CAUSE_ECALL_U: u64 = 8;
/// Environment call from S-mode.
pub const CAUSE_ECALL_S: u64 = 9;
/// Environment call from M-mode.
pub const CAUSE_ECALL_M: u64 = 11;
/// Instruction page fault (`mtval` = the faulting virtual address).
pub const CAUSE_FETCH_PAGE_FAULT: u64 = 12;
/// Load page fault (`mtval` = the faulting virtual address).
pub const CAUSE_LOAD_PAGE_FAULT: u64 = 13;
/// Store/AMO page fault (`mtval` = the faulting virtual address).
pub const CAUSE_STORE_PAGE_FAULT: u64 = 15;

/// Linux signal numbers (`asm-generic/signal.h`, the same on every
/// architecture fwprof runs on).
const SIGILL: i32 = 4;
const SIGTRAP: i32 = 5;
const SIGBUS: i32 = 7;
const SIGSEGV: i32 = 11;

/// Name of a RISC-V trap cause: `cause` is an `mcause` value, with the
/// interrupt flag in the top bit of an `xlen`-bit register (`xlen` 32 or 64;
/// any other value counts as 64). `None` for reserved or custom codes.
/// Privileged ISA 20211203, §3.1.15, Table 3.6.
pub fn trap_cause_name(cause: u64, xlen: u32) -> Option<&'static str> {
    let top = if xlen == 32 { 1u64 << 31 } else { 1u64 << 63 };
    let code = cause & !top;
    if cause & top != 0 {
        return Some(match code {
            1 => "supervisor software interrupt",
            3 => "machine software interrupt",
            5 => "supervisor timer interrupt",
            7 => "machine timer interrupt",
            9 => "supervisor external interrupt",
            11 => "machine external interrupt",
            _ => return None,
        });
    }
    Some(match code {
        0 => "instruction address misaligned",
        1 => "instruction access fault",
        2 => "illegal instruction",
        3 => "breakpoint",
        4 => "load address misaligned",
        5 => "load access fault",
        6 => "store/AMO address misaligned",
        7 => "store/AMO access fault",
        8 => "environment call from U-mode",
        9 => "environment call from S-mode",
        11 => "environment call from M-mode",
        12 => "instruction page fault",
        13 => "load page fault",
        15 => "store/AMO page fault",
        _ => return None,
    })
}

/// Name of the synthetic root under which a profile shows the handler of a
/// trap (a trap *context*): `[interrupt: <name>]` or `[exception: <name>]`,
/// with the cause's name of [`trap_cause_name`] and, for an interrupt, its
/// trailing `" interrupt"` left out — `[interrupt: machine timer]`,
/// `[exception: environment call from U-mode]`. `code` is the exception
/// code without the interrupt bit; a reserved or custom code is named by
/// its number (`[interrupt: cause 16]`).
pub fn trap_context_name(code: u64, interrupt: bool) -> String {
    let kind = if interrupt { "interrupt" } else { "exception" };
    let cause = if interrupt { 1u64 << 63 | code } else { code };
    match trap_cause_name(cause, 64) {
        Some(name) if code < 1 << 31 => {
            format!("[{kind}: {}]", name.trim_end_matches(" interrupt"))
        }
        _ => format!("[{kind}: cause {code}]"),
    }
}

/// Name of a synchronous exception cause (an RV64 `mcause` value),
/// `"unknown exception"` for a reserved or custom code (Privileged ISA
/// 20211203, Table 3.6; see [`trap_cause_name`]).
pub fn cause_name(cause: u64) -> &'static str {
    // Causes here are never interrupts, so XLEN does not matter.
    trap_cause_name(cause, 64).unwrap_or("unknown exception")
}

/// The signal Linux kills a user process with when it takes the synchronous
/// exception `cause` (Privileged ISA 20211203 Table 3.6 → Linux
/// `arch/riscv/kernel/traps.c`): SIGBUS (7) for misaligned fetch, load and
/// store/AMO; SIGILL (4) for an illegal instruction; SIGTRAP (5) for a
/// breakpoint; SIGSEGV (11) for access and page faults. Every other code
/// also gives SIGSEGV (fwprof's choice; the simulator never stops with
/// one, and Linux's `do_trap_unknown` would send SIGILL).
pub fn signal_for_cause(cause: u64) -> i32 {
    match cause {
        CAUSE_MISALIGNED_FETCH | CAUSE_MISALIGNED_LOAD | CAUSE_MISALIGNED_STORE => SIGBUS,
        CAUSE_ILLEGAL_INSTRUCTION => SIGILL,
        CAUSE_BREAKPOINT => SIGTRAP,
        // Access faults (1, 5, 7), page faults (12, 13, 15) and the rest.
        _ => SIGSEGV,
    }
}

/// Name of Linux signal `signo` in the numbering of `asm-generic/signal.h`
/// (RISC-V's): `SIGSEGV` for 11; `None` outside 1..=31 (the real-time
/// signals 32..=64 have no names of their own).
pub fn signal_name(signo: i32) -> Option<&'static str> {
    const NAMES: [&str; 31] = [
        "SIGHUP",
        "SIGINT",
        "SIGQUIT",
        "SIGILL",
        "SIGTRAP",
        "SIGABRT",
        "SIGBUS",
        "SIGFPE",
        "SIGKILL",
        "SIGUSR1",
        "SIGSEGV",
        "SIGUSR2",
        "SIGPIPE",
        "SIGALRM",
        "SIGTERM",
        "SIGSTKFLT",
        "SIGCHLD",
        "SIGCONT",
        "SIGSTOP",
        "SIGTSTP",
        "SIGTTIN",
        "SIGTTOU",
        "SIGURG",
        "SIGXCPU",
        "SIGXFSZ",
        "SIGVTALRM",
        "SIGPROF",
        "SIGWINCH",
        "SIGIO",
        "SIGPWR",
        "SIGSYS",
    ];
    usize::try_from(signo)
        .ok()
        .and_then(|n| n.checked_sub(1))
        .and_then(|i| NAMES.get(i).copied())
}

/// Name of the synthetic root under which a profile shows a Linux signal
/// handler (a signal *context*, the counterpart of a trap context):
/// `[signal: SIGSEGV]`, or `[signal: 34]` for a signal without a name.
pub fn signal_context_name(signo: i32) -> String {
    match signal_name(signo) {
        Some(name) => format!("[signal: {name}]"),
        None => format!("[signal: {signo}]"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn signal_names_and_contexts() {
        assert_eq!(signal_name(1), Some("SIGHUP"));
        assert_eq!(signal_name(11), Some("SIGSEGV"));
        assert_eq!(signal_name(14), Some("SIGALRM"));
        assert_eq!(signal_name(31), Some("SIGSYS"));
        assert_eq!(signal_name(0), None);
        assert_eq!(signal_name(34), None);
        assert_eq!(signal_context_name(11), "[signal: SIGSEGV]");
        assert_eq!(signal_context_name(34), "[signal: 34]");
        // The signals of the exceptions are named consistently.
        assert_eq!(
            signal_name(signal_for_cause(CAUSE_ILLEGAL_INSTRUCTION)),
            Some("SIGILL")
        );
    }

    #[test]
    fn signals_of_every_exception_code() {
        let want = [
            (0, 7),
            (1, 11),
            (2, 4),
            (3, 5),
            (4, 7),
            (5, 11),
            (6, 7),
            (7, 11),
            (12, 11),
            (13, 11),
            (15, 11),
        ];
        for (cause, signo) in want {
            assert_eq!(signal_for_cause(cause), signo, "cause {cause}");
        }
    }

    #[test]
    fn names_of_exceptions_and_interrupts() {
        assert_eq!(cause_name(2), "illegal instruction");
        assert_eq!(cause_name(7), "store/AMO access fault");
        assert_eq!(cause_name(10), "unknown exception");
        assert_eq!(cause_name(1 << 63 | 7), "machine timer interrupt");
        assert_eq!(
            trap_cause_name(1 << 31 | 11, 32),
            Some("machine external interrupt")
        );
        // On RV64 bit 31 is part of the code: a reserved exception.
        assert_eq!(trap_cause_name(1 << 31 | 11, 64), None);
        assert_eq!(trap_cause_name(14, 64), None);
    }

    #[test]
    fn names_of_trap_contexts() {
        assert_eq!(trap_context_name(7, true), "[interrupt: machine timer]");
        assert_eq!(
            trap_context_name(1, true),
            "[interrupt: supervisor software]"
        );
        assert_eq!(
            trap_context_name(8, false),
            "[exception: environment call from U-mode]"
        );
        assert_eq!(
            trap_context_name(7, false),
            "[exception: store/AMO access fault]"
        );
        assert_eq!(trap_context_name(16, true), "[interrupt: cause 16]");
        assert_eq!(trap_context_name(14, false), "[exception: cause 14]");
    }
}
