//! How fwprof writes an output path (`-o FILE`): the one rule every
//! command follows, so that writing a report never destroys what was there.
//!
//! * A regular file, or a path that does not exist yet, is written
//!   atomically: into a temporary file in the same directory, synced, then
//!   renamed over the target, so a reader (or a crash, or a second signal)
//!   sees the old file or the complete new one. An existing file's
//!   permission bits are kept.
//! * A symbolic link is followed (also a chain of links, also a link to a
//!   path that does not exist yet) and its target is written by the same
//!   rule: the link stays a link.
//! * Anything else that exists (a character or block device such as
//!   `/dev/null`, a FIFO, a socket) is opened and written in place as a
//!   stream: it is never replaced by a regular file.
//! * With [`write`](fn@write), `-` means standard output.
//!
//! [`same_file`] says whether two paths name one file (same device and
//! inode, through hard and symbolic links), for refusing to write a
//! command's output over one of its inputs.

use std::fs::{self, File, OpenOptions};
use std::io::{self, BufWriter, Write};
use std::path::{Path, PathBuf};

/// Most symbolic links followed before giving up (Linux `MAXSYMLINKS`).
const MAX_LINKS: usize = 40;

/// Writes the output of `f` to `path` by the rule in the module docs, `-`
/// meaning standard output.
///
/// `f` gets a buffered writer; it is flushed (and, for a regular file,
/// synced and renamed into place) after `f` returns `Ok`. On an error of
/// `f` or of the file system, a regular target is left as it was and the
/// temporary file is removed.
///
/// Errors: `f`'s own, or an [`io::Error`] converted with `E::from`
/// (including a directory as `path`: [`io::ErrorKind::IsADirectory`]).
pub fn write<E: From<io::Error>>(
    path: &Path,
    f: impl FnOnce(&mut dyn Write) -> Result<(), E>,
) -> Result<(), E> {
    if path == Path::new("-") {
        let stdout = io::stdout();
        let mut w = BufWriter::new(stdout.lock());
        f(&mut w)?;
        w.flush()?;
        return Ok(());
    }
    write_file(path, f)
}

/// Like [`write`](fn@write) without the `-` convention: `path` is always a file name.
pub fn write_file<E: From<io::Error>>(
    path: &Path,
    f: impl FnOnce(&mut dyn Write) -> Result<(), E>,
) -> Result<(), E> {
    let target = resolve_links(path)?;
    match fs::metadata(&target) {
        Ok(m) if m.is_dir() => Err(io::Error::new(
            io::ErrorKind::IsADirectory,
            format!("{} is a directory", target.display()),
        )
        .into()),
        Ok(m) if m.is_file() => replace_atomically(&target, Some(m.permissions()), f),
        Ok(_) => {
            // A device, FIFO or socket: write into it, never replace it.
            let file = OpenOptions::new().write(true).open(&target)?;
            let mut w = BufWriter::new(file);
            f(&mut w)?;
            w.flush()?;
            Ok(())
        }
        Err(e) if e.kind() == io::ErrorKind::NotFound => replace_atomically(&target, None, f),
        Err(e) => Err(e.into()),
    }
}

/// True if `a` and `b` both exist and are one file (same device and inode,
/// so also through hard links and symbolic links).
///
/// Errors: none; a path that cannot be examined is "not the same".
pub fn same_file(a: &Path, b: &Path) -> bool {
    match (fs::metadata(a), fs::metadata(b)) {
        (Ok(x), Ok(y)) => file_id(&x) == file_id(&y),
        _ => false,
    }
}

#[cfg(unix)]
fn file_id(m: &fs::Metadata) -> (u64, u64) {
    use std::os::unix::fs::MetadataExt;
    (m.dev(), m.ino())
}

#[cfg(not(unix))]
fn file_id(_: &fs::Metadata) -> (u64, u64) {
    // No inode numbers: never claim two paths are one file.
    static NEXT: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
    (
        u64::MAX,
        NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed),
    )
}

/// The path a chain of symbolic links at `path` ends at (`path` itself if
/// it is not a link); the last target need not exist.
fn resolve_links(path: &Path) -> io::Result<PathBuf> {
    let mut p = path.to_path_buf();
    for _ in 0..MAX_LINKS {
        match fs::symlink_metadata(&p) {
            Ok(m) if m.file_type().is_symlink() => {
                let to = fs::read_link(&p)?;
                p = match p.parent() {
                    Some(dir) if to.is_relative() => dir.join(to),
                    _ => to,
                };
            }
            _ => return Ok(p),
        }
    }
    Err(io::Error::new(
        io::ErrorKind::InvalidInput,
        format!("{}: too many levels of symbolic links", path.display()),
    ))
}

/// Write through a temporary file beside `target` and rename it over
/// `target`; `keep` is the replaced file's permissions.
fn replace_atomically<E: From<io::Error>>(
    target: &Path,
    keep: Option<fs::Permissions>,
    f: impl FnOnce(&mut dyn Write) -> Result<(), E>,
) -> Result<(), E> {
    let dir = match target.parent() {
        Some(d) if !d.as_os_str().is_empty() => d.to_path_buf(),
        _ => PathBuf::from("."),
    };
    let name = target.file_name().ok_or_else(|| {
        io::Error::new(
            io::ErrorKind::InvalidInput,
            format!("{} has no file name", target.display()),
        )
    })?;
    let mut prefix = std::ffi::OsString::from(".");
    prefix.push(name);
    prefix.push(".");
    let mut builder = tempfile::Builder::new();
    builder.prefix(&prefix).suffix(".fwprof-tmp");
    #[cfg(unix)]
    {
        // tempfile creates 0600 files; a new output gets what `creat`
        // would give (0666 less the umask), as before.
        use std::os::unix::fs::PermissionsExt;
        builder.permissions(fs::Permissions::from_mode(0o666));
    }
    let tmp = builder.tempfile_in(&dir)?;
    let (file, tmp_path) = tmp.into_parts();
    let mut w = BufWriter::new(file);
    f(&mut w)?;
    let file: File = w.into_inner().map_err(|e| e.into_error())?;
    if let Some(perm) = keep {
        // fchmod ignores the umask, so the old mode comes back exactly.
        file.set_permissions(perm)?;
    }
    file.sync_all()?;
    drop(file);
    tmp_path.persist(target).map_err(|e| e.error)?;
    // Make the rename itself durable; not all systems allow this.
    if let Ok(d) = File::open(&dir) {
        let _ = d.sync_all();
    }
    Ok(())
}
