//! `fwprof`: the command-line front end. Parses options (clap), converts
//! them into plain option structs, wires loader, simulator, collector and
//! reports, and maps every outcome to a documented exit status:
//!
//! | status | meaning |
//! |---|---|
//! | the guest's own | the program exited |
//! | 128+N | the guest was killed by signal N (Linux), or took a fatal trap (bare metal, `mtvec` = 0: the signal Linux would send for that cause) |
//! | 124 | `--max-instructions` reached |
//! | 128+N | stopped by signal N: SIGINT (Ctrl-C, 130), SIGTERM (143) or SIGHUP (129); the partial profile is written, marked `signal SIGINT` (`SIGTERM`, `SIGHUP`) |
//! | 2 | usage error (argument parsing; also `record -o -`) |
//! | 125 | an error of fwprof itself (bad ELF, unreadable file, ...) |
//! | 141 | fwprof's own output went to a pipe whose reader went away (as a process killed by SIGPIPE) |
//! | 2 | a usage error (clap's convention: unknown option, bad value, a combination the options cannot make) |

mod cli;
mod compare_cmd;
mod exit;
mod export_cmd;
mod files;
mod progress;
mod record;
mod reliability_cmd;
mod report_cmd;
mod signals;

use std::process::ExitCode;

fn main() -> ExitCode {
    let cli = cli::parse();
    match record::dispatch(cli) {
        Ok(code) => ExitCode::from(code),
        // The reader of a report went away (`fwprof report | head`): stop
        // quietly, as Unix filters do on SIGPIPE.
        Err(e) if exit::is_broken_pipe(&e) => ExitCode::from(exit::die_of_sigpipe()),
        Err(e) => {
            eprintln!("fwprof: {}", exit::one_line(&e));
            ExitCode::from(exit::FWPROF_ERROR)
        }
    }
}
