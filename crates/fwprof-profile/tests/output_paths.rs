//! The output-path rule (`fwprof_profile::output`): regular files and new
//! paths are replaced atomically keeping their mode; symbolic links stay
//! links; devices and FIFOs are written in place, never replaced.
#![cfg(unix)]

use std::fs;
use std::io::{Read, Write};
use std::os::unix::fs::{FileTypeExt, PermissionsExt};
use std::path::Path;

use fwprof_profile::output;

fn write_text(path: &Path, text: &str) -> std::io::Result<()> {
    output::write_file(path, |w: &mut dyn Write| w.write_all(text.as_bytes()))
}

#[test]
fn a_regular_file_is_replaced_keeping_its_mode() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("out.txt");
    fs::write(&path, "old").unwrap();
    fs::set_permissions(&path, fs::Permissions::from_mode(0o640)).unwrap();
    write_text(&path, "new").unwrap();
    assert_eq!(fs::read_to_string(&path).unwrap(), "new");
    assert_eq!(
        fs::metadata(&path).unwrap().permissions().mode() & 0o7777,
        0o640
    );
    // No temporary file is left; a failing writer leaves the old file.
    let r = output::write_file(&path, |w: &mut dyn Write| {
        w.write_all(b"half")?;
        Err(std::io::Error::other("writer failed"))
    });
    assert!(r.is_err());
    assert_eq!(fs::read_to_string(&path).unwrap(), "new");
    assert_eq!(fs::read_dir(dir.path()).unwrap().count(), 1);
}

#[test]
fn a_new_file_gets_the_usual_mode() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("new.txt");
    write_text(&path, "x").unwrap();
    // 0666 less the umask, as `creat` gives: at least owner read/write
    // and not the 0600 of a bare temporary file when the umask allows more.
    let mode = fs::metadata(&path).unwrap().permissions().mode() & 0o777;
    let umask = {
        let probe = dir.path().join("probe");
        fs::File::create(&probe).unwrap();
        fs::metadata(&probe).unwrap().permissions().mode() & 0o777
    };
    assert_eq!(mode, umask);
}

#[test]
fn a_symbolic_link_stays_a_link_and_its_target_is_replaced() {
    let dir = tempfile::tempdir().unwrap();
    let target = dir.path().join("real.txt");
    fs::write(&target, "old").unwrap();
    fs::set_permissions(&target, fs::Permissions::from_mode(0o604)).unwrap();
    let link = dir.path().join("link.txt");
    std::os::unix::fs::symlink("real.txt", &link).unwrap();
    let link2 = dir.path().join("link2.txt");
    std::os::unix::fs::symlink(&link, &link2).unwrap();
    write_text(&link2, "new").unwrap();
    assert!(fs::symlink_metadata(&link)
        .unwrap()
        .file_type()
        .is_symlink());
    assert!(fs::symlink_metadata(&link2)
        .unwrap()
        .file_type()
        .is_symlink());
    assert_eq!(fs::read_to_string(&target).unwrap(), "new");
    assert_eq!(
        fs::metadata(&target).unwrap().permissions().mode() & 0o7777,
        0o604
    );
    // A dangling link creates its target.
    let dangling = dir.path().join("dangling");
    std::os::unix::fs::symlink("made.txt", &dangling).unwrap();
    write_text(&dangling, "made").unwrap();
    assert!(fs::symlink_metadata(&dangling)
        .unwrap()
        .file_type()
        .is_symlink());
    assert_eq!(
        fs::read_to_string(dir.path().join("made.txt")).unwrap(),
        "made"
    );
}

#[test]
fn dev_null_stays_a_character_device() {
    let null = Path::new("/dev/null");
    write_text(null, "discarded").unwrap();
    assert!(fs::metadata(null).unwrap().file_type().is_char_device());
}

#[test]
fn a_fifo_is_written_as_a_stream() {
    let dir = tempfile::tempdir().unwrap();
    let fifo = dir.path().join("pipe");
    let status = std::process::Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .unwrap();
    assert!(status.success());
    let reader = {
        let fifo = fifo.clone();
        std::thread::spawn(move || {
            let mut s = String::new();
            fs::File::open(&fifo)
                .unwrap()
                .read_to_string(&mut s)
                .unwrap();
            s
        })
    };
    write_text(&fifo, "through the pipe").unwrap();
    assert_eq!(reader.join().unwrap(), "through the pipe");
    assert!(fs::metadata(&fifo).unwrap().file_type().is_fifo());
    assert_eq!(fs::read_dir(dir.path()).unwrap().count(), 1);
}

#[test]
fn a_directory_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let e = write_text(dir.path(), "x").unwrap_err();
    assert_eq!(e.kind(), std::io::ErrorKind::IsADirectory);
}

#[test]
fn same_file_sees_through_links() {
    let dir = tempfile::tempdir().unwrap();
    let a = dir.path().join("a");
    fs::write(&a, "x").unwrap();
    let hard = dir.path().join("hard");
    fs::hard_link(&a, &hard).unwrap();
    let soft = dir.path().join("soft");
    std::os::unix::fs::symlink(&a, &soft).unwrap();
    let other = dir.path().join("other");
    fs::write(&other, "x").unwrap();
    assert!(output::same_file(&a, &hard));
    assert!(output::same_file(&soft, &a));
    assert!(!output::same_file(&a, &other));
    assert!(!output::same_file(&a, &dir.path().join("missing")));
}
