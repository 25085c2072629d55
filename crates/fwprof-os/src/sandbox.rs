//! File-access confinement for guest programs.
//!
//! Every path a guest names (semihosting `SYS_OPEN`/`SYS_REMOVE`/`SYS_RENAME`,
//! Linux `openat`, `newfstatat`, `statx`, `readlinkat`, `faccessat`,
//! `unlinkat`, `renameat`...) is resolved against the host current directory,
//! canonicalised with every symbolic link resolved (for a name that does not
//! exist yet, its parent directory is canonicalised and the final name
//! appended), and accepted only if the canonical path lies under an allowed
//! root. The host file is then opened through the canonical path with
//! `O_NOFOLLOW`, so a symbolic link planted on the final component between
//! the check and the open makes the open fail (`ELOOP`) rather than escape.
//!
//! Remaining limits (documented, not closed): a directory component of the
//! canonical path that is replaced by a symbolic link between the check and
//! the open is still followed (closing that needs `openat2(RESOLVE_BENEATH)`
//! per component); hard links inside an allowed tree that point at files
//! outside it are indistinguishable from ordinary files.

use std::cell::RefCell;
use std::collections::BTreeSet;
use std::io;
use std::path::{Component, Path, PathBuf};

use crate::Sandbox;

/// A run's [`Sandbox`] (roots canonicalised) and the refusals already
/// reported: the first time the guest is refused a path for an access,
/// one diagnostic names the path and the flag that allows it
/// (`--allow-read DIR` or `--allow-write DIR`), so that a guest's own
/// "Permission denied" (a `-pg` program's `gmon.out`, say) can be told
/// from a host permission problem. Later refusals of that path are quiet.
#[derive(Debug)]
pub(crate) struct Guard {
    roots: Sandbox,
    reported: RefCell<BTreeSet<(PathBuf, bool)>>,
}

impl Guard {
    /// Guard `sandbox`, canonicalising its roots.
    pub(crate) fn new(sandbox: &Sandbox) -> Guard {
        Guard {
            roots: sandbox.canonicalized(),
            reported: RefCell::new(BTreeSet::new()),
        }
    }

    /// [`Sandbox::resolve`], reporting a first refusal (see [`Guard`]).
    pub(crate) fn resolve(
        &self,
        path: &Path,
        access: Access,
        console: &crate::console::Console,
    ) -> Result<PathBuf, SandboxError> {
        self.report(self.roots.resolve(path, access), access, console)
    }

    /// [`Sandbox::resolve_no_follow`], reporting a first refusal.
    pub(crate) fn resolve_no_follow(
        &self,
        path: &Path,
        access: Access,
        console: &crate::console::Console,
    ) -> Result<PathBuf, SandboxError> {
        self.report(self.roots.resolve_no_follow(path, access), access, console)
    }

    fn report(
        &self,
        r: Result<PathBuf, SandboxError>,
        access: Access,
        console: &crate::console::Console,
    ) -> Result<PathBuf, SandboxError> {
        if let Err(SandboxError::Denied(path)) = &r {
            let write = access == Access::Write;
            if self.reported.borrow_mut().insert((path.clone(), write)) {
                let (verb, flag) = if write {
                    ("write", "--allow-write")
                } else {
                    ("read", "--allow-read")
                };
                console.diagnostic(&format!(
                    "the sandbox refused the guest's {verb} access to {} (EACCES); {flag} DIR allows it",
                    path.display()
                ));
            }
        }
        r
    }
}

/// What the guest wants to do with a path.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Access {
    /// Read contents or metadata (`O_RDONLY`, `stat`, `readlink`, `access(R_OK)`).
    Read,
    /// Write, create, truncate, remove or rename (`O_WRONLY`, `O_RDWR`,
    /// `O_CREAT`, `O_TRUNC`, `unlink`, `rename`).
    Write,
}

/// Why a guest path was refused.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum SandboxError {
    /// The canonical path lies outside every allowed root (`EACCES` to the guest).
    #[error("access to {0} denied by the sandbox")]
    Denied(PathBuf),
    /// The path could not be resolved (its parent does not exist, ...); the
    /// host error is passed to the guest as its errno.
    #[error("{0}")]
    Resolve(#[from] io::Error),
}

impl SandboxError {
    /// The Linux errno value the guest sees (`EACCES` for a denial).
    pub fn errno(&self) -> i32 {
        match self {
            SandboxError::Denied(_) => libc::EACCES,
            SandboxError::Resolve(e) => e.raw_os_error().unwrap_or(libc::EIO),
        }
    }
}

impl Sandbox {
    /// A sandbox with canonicalised roots; roots that do not exist are dropped
    /// (nothing can be under them).
    pub fn canonicalized(&self) -> Sandbox {
        let canon = |v: &[PathBuf]| -> Vec<PathBuf> {
            v.iter()
                .filter_map(|p| std::fs::canonicalize(p).ok())
                .collect()
        };
        Sandbox {
            read: canon(&self.read),
            write: canon(&self.write),
        }
    }

    /// Resolve a guest path for `access` and check it against the roots.
    ///
    /// `path` is relative to the host current directory unless absolute.
    /// Writable roots also grant reading. The roots must already be
    /// canonical (see [`Sandbox::canonicalized`]).
    ///
    /// # Errors
    /// [`SandboxError::Denied`] outside the roots; [`SandboxError::Resolve`]
    /// when the path (or, for a new file, its parent) cannot be canonicalised.
    pub fn resolve(&self, path: &Path, access: Access) -> Result<PathBuf, SandboxError> {
        let canonical = canonicalize_for_access(path)?;
        self.check(canonical, access)
    }
}

impl Sandbox {
    /// Like [`Sandbox::resolve`] but the final component is not followed if
    /// it is a symbolic link: for operations on the link itself (`unlink`,
    /// `rename`, `readlink`, `lstat`). The parent directory is canonicalised.
    ///
    /// # Errors
    /// As [`Sandbox::resolve`].
    pub fn resolve_no_follow(&self, path: &Path, access: Access) -> Result<PathBuf, SandboxError> {
        let abs = absolute(path)?;
        let canonical = match abs.components().next_back() {
            Some(Component::Normal(name)) => {
                let parent = abs.parent().unwrap_or(Path::new("/"));
                std::fs::canonicalize(parent)?.join(name)
            }
            // "/", ".", ".." as the last component: nothing to not-follow.
            _ => canonicalize_for_access(&abs)?,
        };
        self.check(canonical, access)
    }

    fn check(&self, canonical: PathBuf, access: Access) -> Result<PathBuf, SandboxError> {
        let under = |roots: &[PathBuf]| roots.iter().any(|r| canonical.starts_with(r));
        let ok = match access {
            Access::Read => under(&self.read) || under(&self.write),
            Access::Write => under(&self.write),
        };
        if ok {
            Ok(canonical)
        } else {
            Err(SandboxError::Denied(canonical))
        }
    }
}

fn absolute(path: &Path) -> io::Result<PathBuf> {
    if path.as_os_str().is_empty() {
        return Err(io::Error::from_raw_os_error(libc::ENOENT));
    }
    Ok(if path.is_absolute() {
        path.to_path_buf()
    } else {
        std::env::current_dir()?.join(path)
    })
}

/// Canonicalise `path` (relative to the current directory). An existing path
/// is fully resolved; a missing final component is appended to its
/// canonicalised parent (so a dangling symbolic link stays a link, which the
/// later `O_NOFOLLOW` open refuses).
fn canonicalize_for_access(path: &Path) -> io::Result<PathBuf> {
    let abs = absolute(path)?;
    match std::fs::canonicalize(&abs) {
        Ok(p) => Ok(p),
        Err(e) if e.kind() == io::ErrorKind::NotFound => {
            let name = match abs.components().next_back() {
                Some(Component::Normal(n)) => n.to_owned(),
                _ => return Err(e),
            };
            let parent = abs.parent().ok_or(e)?;
            let parent = std::fs::canonicalize(parent)?;
            Ok(parent.join(name))
        }
        Err(e) => Err(e),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::symlink;

    fn setup() -> (tempfile::TempDir, Sandbox) {
        let dir = tempfile::tempdir().unwrap();
        let inside = dir.path().join("inside");
        let outside = dir.path().join("outside");
        std::fs::create_dir(&inside).unwrap();
        std::fs::create_dir(&outside).unwrap();
        std::fs::write(inside.join("ok.txt"), b"hello").unwrap();
        std::fs::write(outside.join("secret.txt"), b"secret").unwrap();
        symlink(outside.join("secret.txt"), inside.join("escape")).unwrap();
        symlink(&outside, inside.join("escdir")).unwrap();
        symlink(inside.join("ok.txt"), inside.join("good_link")).unwrap();
        let sb = Sandbox {
            read: vec![inside.clone()],
            write: vec![],
        }
        .canonicalized();
        (dir, sb)
    }

    fn denied(r: Result<PathBuf, SandboxError>) -> bool {
        matches!(r, Err(SandboxError::Denied(_)))
    }

    #[test]
    fn legit_read_allowed_and_canonical() {
        let (dir, sb) = setup();
        let p = dir.path().join("inside/ok.txt");
        let got = sb.resolve(&p, Access::Read).unwrap();
        assert_eq!(got, std::fs::canonicalize(&p).unwrap());
        // A link staying inside is fine and resolves to its target.
        let got = sb
            .resolve(&dir.path().join("inside/good_link"), Access::Read)
            .unwrap();
        assert_eq!(got, std::fs::canonicalize(&p).unwrap());
    }

    #[test]
    fn dotdot_escape_denied() {
        let (dir, sb) = setup();
        let p = dir.path().join("inside/../outside/secret.txt");
        assert!(denied(sb.resolve(&p, Access::Read)));
    }

    #[test]
    fn symlink_escapes_denied() {
        let (dir, sb) = setup();
        assert!(denied(
            sb.resolve(&dir.path().join("inside/escape"), Access::Read)
        ));
        assert!(denied(sb.resolve(
            &dir.path().join("inside/escdir/secret.txt"),
            Access::Read
        )));
        // Creating through a directory link leaving the tree is denied too.
        let sbw = Sandbox {
            read: vec![],
            write: vec![dir.path().join("inside")],
        }
        .canonicalized();
        assert!(denied(sbw.resolve(
            &dir.path().join("inside/escdir/new.txt"),
            Access::Write
        )));
    }

    #[test]
    fn absolute_and_proc_paths_denied() {
        let (_dir, sb) = setup();
        assert!(denied(sb.resolve(Path::new("/etc/passwd"), Access::Read)));
        assert!(denied(
            sb.resolve(Path::new("/proc/self/root/etc/passwd"), Access::Read)
        ));
        assert!(denied(
            sb.resolve(Path::new("/proc/self/cwd/.."), Access::Read)
        ));
        assert!(denied(
            sb.resolve(Path::new("/proc/self/maps"), Access::Read)
        ));
    }

    #[test]
    fn writes_need_write_roots() {
        let (dir, sb) = setup();
        let p = dir.path().join("inside/ok.txt");
        assert!(denied(sb.resolve(&p, Access::Write)));
        assert!(denied(
            sb.resolve(&dir.path().join("inside/new.txt"), Access::Write)
        ));
        let sbw = Sandbox {
            read: vec![],
            write: vec![dir.path().join("inside")],
        }
        .canonicalized();
        assert!(sbw.resolve(&p, Access::Write).is_ok());
        let newp = sbw
            .resolve(&dir.path().join("inside/new.txt"), Access::Write)
            .unwrap();
        assert!(newp.ends_with("inside/new.txt"));
        // Write roots grant reading as well.
        assert!(sbw.resolve(&p, Access::Read).is_ok());
        assert!(denied(
            sbw.resolve(&dir.path().join("outside/x.txt"), Access::Write)
        ));
    }

    #[test]
    fn no_follow_keeps_the_link_itself() {
        let (dir, sb) = setup();
        let got = sb
            .resolve_no_follow(&dir.path().join("inside/escape"), Access::Read)
            .unwrap();
        assert!(got.ends_with("inside/escape"));
        // The parent is still canonicalised: a link directory leaving the tree is denied.
        assert!(denied(sb.resolve_no_follow(
            &dir.path().join("inside/escdir/secret.txt"),
            Access::Read
        )));
    }

    #[test]
    fn missing_parent_is_resolve_error() {
        let (dir, sb) = setup();
        let r = sb.resolve(&dir.path().join("inside/nodir/x"), Access::Read);
        match r {
            Err(e @ SandboxError::Resolve(_)) => assert_eq!(e.errno(), libc::ENOENT),
            other => panic!("unexpected {other:?}"),
        }
    }
}
