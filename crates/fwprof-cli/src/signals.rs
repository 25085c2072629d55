//! The signals that stop a run cleanly: SIGINT (Ctrl-C), SIGTERM (`kill`,
//! `timeout`, CI cancellation) and SIGHUP (a closed terminal). While a
//! simulation runs they only set a flag that the simulator polls between
//! blocks; the run stops, the partial profile is written (marked
//! `signal SIGTERM` ...) and fwprof exits with 128+N, as if killed by it.
//! The handlers stay installed until fwprof exits, so a second signal
//! during the write cannot kill it half-way (and the write is atomic).

use std::sync::atomic::{AtomicBool, AtomicI32, Ordering};
use std::sync::{Arc, OnceLock};

use signal_hook::consts::{SIGHUP, SIGINT, SIGTERM};

/// The signals that stop a run cleanly.
pub const STOPPING: [i32; 3] = [SIGINT, SIGTERM, SIGHUP];

/// The first stopping signal received (0: none yet).
static FIRST: AtomicI32 = AtomicI32::new(0);
/// The flag the simulator polls; set by every stopping signal.
static FLAG: OnceLock<Arc<AtomicBool>> = OnceLock::new();

/// The stop flag for `Simulator::run`, installing the handlers of
/// [`STOPPING`] on the first call. If they cannot be installed, the
/// signals keep their default action (the run is killed) and the flag is
/// never set.
pub fn stop_flag() -> Arc<AtomicBool> {
    FLAG.get_or_init(|| {
        let flag = Arc::new(AtomicBool::new(false));
        for sig in STOPPING {
            let f = flag.clone();
            // SAFETY: the handler only stores to atomics, which is
            // async-signal-safe; it allocates nothing and takes no lock.
            let _ = unsafe {
                signal_hook::low_level::register(sig, move || {
                    let _ = FIRST.compare_exchange(0, sig, Ordering::SeqCst, Ordering::SeqCst);
                    f.store(true, Ordering::SeqCst);
                })
            };
        }
        flag
    })
    .clone()
}

/// The first stopping signal received, if any.
pub fn received() -> Option<i32> {
    match FIRST.load(Ordering::SeqCst) {
        0 => None,
        s => Some(s),
    }
}

/// The signal that stopped a run (`StopReason::Interrupted`): the first
/// one received, SIGINT if none was recorded.
pub fn stopping_signal() -> i32 {
    received().unwrap_or(SIGINT)
}

/// The name of a stopping signal: `SIGINT`, `SIGTERM`, `SIGHUP`
/// (`signal N` for another).
pub fn name(sig: i32) -> String {
    match sig {
        SIGINT => "SIGINT".into(),
        SIGTERM => "SIGTERM".into(),
        SIGHUP => "SIGHUP".into(),
        n => format!("signal {n}"),
    }
}
