//! Errors of a recording session: each message names the file or option
//! at fault, as `fwprof` prints it (its causes follow through
//! [`std::error::Error::source`]).

use std::path::PathBuf;

/// Why a recording could not start or finish. A simulation that stops on
/// an error of its own is not an `Error` of [`crate::Session::run`]: its
/// partial profile is returned with [`crate::RunEnd::error`] set.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// The program file could not be read.
    #[error("cannot read {}", path.display())]
    ReadProgram {
        /// The program path.
        path: PathBuf,
        /// The I/O error.
        #[source]
        source: std::io::Error,
    },
    /// The loader refused the program (a bad ELF, no RISC-V code, a bad
    /// `ram` range, a host memory failure).
    #[error("cannot load {}", path.display())]
    Load {
        /// The program path.
        path: PathBuf,
        /// The loader's reason.
        #[source]
        source: fwprof_os::LoadError,
    },
    /// The current directory (the default readable tree) is unknown.
    #[error("cannot determine the current directory")]
    CurrentDir(#[source] std::io::Error),
    /// A directory given to the sandbox does not exist.
    #[error("{option} {}: no such directory", dir.display())]
    NoSuchDirectory {
        /// `--allow-read` or `--allow-write`.
        option: &'static str,
        /// The directory as given.
        dir: PathBuf,
        /// The I/O error of canonicalising it.
        #[source]
        source: std::io::Error,
    },
    /// The core description could not be read.
    #[error(transparent)]
    Core(#[from] fwprof_timing::ConfigError),
    /// An RV32 core model and an RV64 program, or the reverse.
    #[error("--core {core}: an RV{core_xlen} core cannot run {}, an RV{program_xlen} program", program.display())]
    CoreXlen {
        /// The core's name.
        core: String,
        /// The core's XLEN (32 or 64).
        core_xlen: u32,
        /// The program path.
        program: PathBuf,
        /// The program's XLEN.
        program_xlen: u32,
    },
    /// The program's symbols or debug information could not be read.
    #[error("cannot read symbols of {}", path.display())]
    Symbols {
        /// The program path.
        path: PathBuf,
        /// The reason.
        #[source]
        source: fwprof_symbols::Error,
    },
    /// The program's call-frame information could not be read (sampling).
    #[error("cannot read the call-frame information of {}", path.display())]
    CallFrames {
        /// The program path.
        path: PathBuf,
        /// The reason.
        #[source]
        source: fwprof_unwind::Error,
    },
    /// Options that cannot work together or a bad value (e.g. `--unit
    /// cycles` without a core model, a period of 0).
    #[error("{0}")]
    Options(String),
    /// `--method instrument` on a program without hook symbols.
    #[error("{} has no instrumentation hooks (__cyg_profile_func_enter, __cyg_profile_func_exit, _mcount): build it with -finstrument-functions or -pg (bare metal: also link runtime/fwprof_instrument.c)", path.display())]
    NoHooks {
        /// The program path.
        path: PathBuf,
    },
    /// `--method instrument` on a program that ran without calling them.
    #[error("{} never called its instrumentation hooks: build it with -finstrument-functions or -pg", path.display())]
    HooksNeverCalled {
        /// The program path.
        path: PathBuf,
    },
    /// The simulator stopped with an error of its own before anything
    /// could be profiled (`fwprof run`, or an instrumented run that never
    /// reached its hooks).
    #[error("simulation failed")]
    Simulation(#[source] fwprof_sim::SimError),
}
