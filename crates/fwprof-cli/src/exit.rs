//! Exit statuses and one-line error presentation.

use fwprof_sim::StopReason;

/// An error of fwprof itself.
pub const FWPROF_ERROR: u8 = 125;
/// `--max-instructions` reached (as `timeout(1)`).
pub const INSTRUCTION_LIMIT: u8 = 124;

/// The status of a process killed by SIGPIPE, as a shell reports it.
pub const BROKEN_PIPE: u8 = 128 + 13;

/// True when `e` is fwprof's own output failing because its reader went
/// away (`fwprof report | head`): an `EPIPE` anywhere in the chain, also
/// inside the export and profile libraries' error types, which wrap the
/// I/O error transparently.
pub fn is_broken_pipe(e: &anyhow::Error) -> bool {
    let pipe = |io: &std::io::Error| io.kind() == std::io::ErrorKind::BrokenPipe;
    e.chain().any(|c| {
        c.downcast_ref::<std::io::Error>().is_some_and(pipe)
            || matches!(c.downcast_ref::<fwprof_export::Error>(), Some(fwprof_export::Error::Io(io)) if pipe(io))
            || matches!(c.downcast_ref::<fwprof_profile::Error>(), Some(fwprof_profile::Error::Io(io)) if pipe(io))
    })
}

/// End the process as one killed by SIGPIPE, the way Unix filters end
/// when their reader goes away: quietly, with status 141. Rust ignores
/// SIGPIPE, so the default action is restored and the signal raised; the
/// exit status is the fallback should the signal not end the process.
pub fn die_of_sigpipe() -> u8 {
    // SAFETY: restoring a default disposition and raising a signal at
    // ourselves; no handler runs.
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_DFL);
        libc::raise(libc::SIGPIPE);
    }
    BROKEN_PIPE
}

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

// The cause → signal mapping is owned by fwprof-isa.
use fwprof_isa::signal_for_cause;

/// Process exit status for a stop reason (see the table in `main.rs`).
pub fn status_for(stop: &StopReason) -> u8 {
    match stop {
        StopReason::Exit(code) => (*code & 0xff) as u8,
        // A reset ends the run as its last act, not as a failure.
        StopReason::Reset => 0,
        StopReason::InstructionLimit => INSTRUCTION_LIMIT,
        StopReason::Interrupted => (128 + crate::signals::stopping_signal()) as u8,
        StopReason::Fault { cause, .. } => (128 + signal_for_cause(*cause)) as u8,
        StopReason::Signal { signo, .. } => (128 + signo) as u8,
    }
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
                len: 4,
                looping: false,
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
