//! Numbers are never silently wrong (issue 11, section 4): corrupt
//! call-frame information falls back like missing CFI; `--program` must
//! match the recorded SHA-256 in every reader; sampled numbers are labelled
//! as estimates and `diff` shows the sampling interval of each change;
//! exports of deep recursion stay linear in the profile's size.

mod common;

use std::path::{Path, PathBuf};

use common::{corpus_elf, run_fwprof};

/// File offset and size of section `name` of a 64-bit little-endian ELF
/// (read from the section headers, so non-allocated sections such as
/// `.debug_frame` are found too).
fn section_range(data: &[u8], name: &str) -> Option<(usize, usize)> {
    let u16_at = |o: usize| u16::from_le_bytes(data[o..o + 2].try_into().unwrap()) as usize;
    let u32_at = |o: usize| u32::from_le_bytes(data[o..o + 4].try_into().unwrap()) as usize;
    let u64_at = |o: usize| u64::from_le_bytes(data[o..o + 8].try_into().unwrap()) as usize;
    assert_eq!(data[4], 2, "a 64-bit ELF");
    let (shoff, shentsize, shnum, shstrndx) =
        (u64_at(0x28), u16_at(0x3a), u16_at(0x3c), u16_at(0x3e));
    let header = |i: usize| shoff + i * shentsize;
    let strtab = u64_at(header(shstrndx) + 0x18);
    (0..shnum).find_map(|i| {
        let h = header(i);
        let at = strtab + u32_at(h);
        let end = at + data[at..].iter().position(|&b| b == 0)?;
        (&data[at..end] == name.as_bytes()).then(|| (u64_at(h + 0x18), u64_at(h + 0x20)))
    })
}

/// A copy of `elf` in `dir` named `name` with every byte of `section`
/// replaced by `0xff`.
fn garble_section(elf: &Path, section: &str, dir: &Path, name: &str) -> PathBuf {
    let mut data = std::fs::read(elf).unwrap();
    let (off, size) = section_range(&data, section)
        .unwrap_or_else(|| panic!("{} has no {section}", elf.display()));
    data[off..off + size].fill(0xff);
    let out = dir.join(name);
    std::fs::write(&out, data).unwrap();
    out
}

/// Lines of `text` that mention `needle`.
fn lines_with<'a>(text: &'a str, needle: &str) -> Vec<&'a str> {
    text.lines().filter(|l| l.contains(needle)).collect()
}

#[test]
fn corrupt_eh_frame_falls_back_with_one_warning() {
    let dir = tempfile::tempdir().unwrap();
    for (src, section) in [
        ("recursion.rv64-linux.O2.elf", ".eh_frame"),
        ("recursion.rv64gc.O2.elf", ".debug_frame"),
    ] {
        garble_section(&corpus_elf(src), section, dir.path(), "bad.elf");
        let out = run_fwprof(
            dir.path(),
            &[
                "record", "--method", "sample", "--period", "997", "-q", "-o", "s.fwprof",
                "--", "bad.elf",
            ],
        );
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(0), "{src} {section}: {stderr}");
        let warnings = lines_with(&stderr, "warning");
        assert_eq!(warnings.len(), 1, "{src}: {stderr}");
        assert!(
            warnings[0].contains(section) && warnings[0].contains("unwinding without it"),
            "{stderr}"
        );
        let p = fwprof_profile::Profile::read(&dir.path().join("s.fwprof")).unwrap();
        assert!(p.meta.sampling.as_ref().unwrap().samples > 0);
        assert!(p.meta.warnings.iter().any(|w| w.contains(section)));
        std::fs::remove_file(dir.path().join("s.fwprof")).unwrap();
    }
}
