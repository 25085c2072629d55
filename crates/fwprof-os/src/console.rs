//! The guest's standard streams: the host's fds 0, 1 and 2, or in-memory
//! buffers when output is captured (tests, and callers that want the
//! guest's output as data).

use std::io;

/// Called before anything is written to the host's standard streams (the
/// guest's output, fwprof's diagnostics during a run): a caller drawing a
/// progress line on the terminal clears it here, so that no stale line
/// sits above the guest's output. See [`crate::Environment::set_before_output`].
pub type OutputHook = std::sync::Arc<dyn Fn() + Send + Sync>;

/// Where guest stdin/stdout/stderr go.
pub(crate) enum Console {
    /// Host file descriptors 0, 1, 2, written unbuffered.
    Host {
        /// Run before every write to the host's streams.
        before_output: Option<OutputHook>,
        /// The terminal settings of stdin before [`Console::raw_input`]
        /// changed them; restored when dropped.
        tty: Option<TtyGuard>,
        /// Writes to stdout and stderr are dropped (reported as written):
        /// the guest sees the host's streams as they are (a terminal, a
        /// pipe) but its output is not shown. See
        /// [`crate::Environment::mute_output`].
        muted: bool,
    },
    /// In-memory streams.
    Captured {
        /// Bytes the guest will read from stdin.
        stdin: Vec<u8>,
        /// Read position in `stdin`.
        pos: usize,
        /// What the guest wrote to stdout.
        stdout: Vec<u8>,
        /// What the guest wrote to stderr.
        stderr: Vec<u8>,
    },
}

impl Default for Console {
    fn default() -> Console {
        Console::Host {
            before_output: None,
            tty: None,
            muted: false,
        }
    }
}

/// Stdin's terminal settings as they were; dropping it restores them.
pub(crate) struct TtyGuard(libc::termios);

impl Drop for TtyGuard {
    fn drop(&mut self) {
        // SAFETY: tcsetattr reads a valid termios for fd 0.
        unsafe {
            libc::tcsetattr(0, libc::TCSANOW, &self.0);
        }
    }
}

impl std::fmt::Debug for Console {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Console::Host { before_output, .. } => f
                .debug_struct("Host")
                .field("before_output", &before_output.is_some())
                .finish(),
            Console::Captured { stdout, stderr, .. } => f
                .debug_struct("Captured")
                .field("stdout", &stdout.len())
                .field("stderr", &stderr.len())
                .finish(),
        }
    }
}

fn host_write(fd: i32, mut data: &[u8]) -> io::Result<usize> {
    let total = data.len();
    while !data.is_empty() {
        // SAFETY: writing from a valid slice to a host fd.
        let n = unsafe { libc::write(fd, data.as_ptr().cast(), data.len()) };
        if n < 0 {
            let e = io::Error::last_os_error();
            if e.kind() == io::ErrorKind::Interrupted {
                continue;
            }
            if total == data.len() {
                return Err(e);
            }
            break;
        }
        data = &data[n as usize..];
    }
    Ok(total - data.len())
}

impl Console {
    /// Write to stream 1 (stdout) or 2 (stderr); returns bytes written.
    pub fn write(&mut self, stream: i32, data: &[u8]) -> io::Result<usize> {
        match self {
            Console::Host { muted: true, .. } => Ok(data.len()),
            Console::Host { before_output, .. } => {
                if let Some(hook) = before_output {
                    hook();
                }
                host_write(stream, data)
            }
            Console::Captured { stdout, stderr, .. } => {
                if stream == 2 {
                    stderr.extend_from_slice(data);
                } else {
                    stdout.extend_from_slice(data);
                }
                Ok(data.len())
            }
        }
    }

    /// Read from stdin into `buf`; 0 at end of input.
    pub fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        match self {
            Console::Host { .. } => loop {
                // SAFETY: reading into a valid mutable slice from host fd 0.
                let n = unsafe { libc::read(0, buf.as_mut_ptr().cast(), buf.len()) };
                if n >= 0 {
                    return Ok(n as usize);
                }
                let e = io::Error::last_os_error();
                if e.kind() != io::ErrorKind::Interrupted {
                    return Err(e);
                }
            },
            Console::Captured { stdin, pos, .. } => {
                let rest = &stdin[(*pos).min(stdin.len())..];
                let n = rest.len().min(buf.len());
                buf[..n].copy_from_slice(&rest[..n]);
                *pos += n;
                Ok(n)
            }
        }
    }

    /// For a serial port on a terminal: turn off stdin's line editing
    /// (`ICANON`) and echo, once, so that each key reaches the guest as it
    /// is typed and only the guest echoes it; signals (`ISIG`: Ctrl-C)
    /// stay on. The settings come back when the console is dropped.
    pub fn raw_input(&mut self) {
        let Console::Host { tty, .. } = self else {
            return;
        };
        // SAFETY: isatty only inspects the fd.
        if tty.is_some() || unsafe { libc::isatty(0) } != 1 {
            return;
        }
        // SAFETY: tcgetattr fills a zeroed termios for fd 0; tcsetattr
        // reads the modified copy.
        unsafe {
            let mut t: libc::termios = std::mem::zeroed();
            if libc::tcgetattr(0, &mut t) != 0 {
                return;
            }
            let saved = t;
            t.c_lflag &= !(libc::ICANON | libc::ECHO);
            t.c_cc[libc::VMIN] = 1;
            t.c_cc[libc::VTIME] = 0;
            if libc::tcsetattr(0, libc::TCSANOW, &t) == 0 {
                *tty = Some(TtyGuard(saved));
            }
        }
    }

    /// True if `stream` (0, 1, 2) is a terminal (never when captured).
    pub fn isatty(&self, stream: i32) -> bool {
        match self {
            // SAFETY: isatty only inspects the fd.
            Console::Host { .. } => unsafe { libc::isatty(stream) == 1 },
            Console::Captured { .. } => false,
        }
    }

    /// One line of fwprof's own on stderr during a run, `fwprof: ` and
    /// `message` (after the output hook, as guest output).
    pub fn diagnostic(&self, message: &str) {
        if let Console::Host {
            before_output: Some(hook),
            ..
        } = self
        {
            hook();
        }
        eprintln!("fwprof: {message}");
    }

    /// True when the streams are in-memory buffers.
    pub fn is_captured(&self) -> bool {
        matches!(self, Console::Captured { .. })
    }
}
