//! `--load FILE@ADDR` and `--load FILE.hex`: images written into a
//! bare-metal machine's memory after the program, as a programmer or a
//! debugger's `load` would (a data blob in flash, a second program, the
//! contents of an OTP). A raw binary goes at the address given; an Intel
//! HEX file (recognised by its content: `:` records) carries its own
//! addresses (`ihex` crate; data, end-of-file, extended segment and
//! extended linear address records; start address records are ignored:
//! the hart starts where the machine starts it).

use std::path::PathBuf;

use crate::loader::Range;
use crate::{GuestMemory, LoadError};

/// `--load FILE[@ADDR]` as given: which file, and where a raw binary goes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LoadSpec {
    /// The file.
    pub path: PathBuf,
    /// `Some`: a raw binary placed at this physical address. `None`: an
    /// Intel HEX file, whose records give the addresses.
    pub addr: Option<u64>,
}

impl LoadSpec {
    /// Parse `FILE[@ADDR]`; ADDR is decimal or `0x` hexadecimal (K, M, G
    /// suffixes allowed, as sizes). A path that itself contains `@` is
    /// taken whole when what follows the last `@` is not a number.
    ///
    /// # Errors
    /// An empty file name (clap: a usage error).
    pub fn parse(s: &str) -> Result<LoadSpec, String> {
        if let Some((path, addr)) = s.rsplit_once('@') {
            if let Some(a) = crate::sizes::parse_num(addr) {
                if path.is_empty() {
                    return Err(format!("{s}: no file before @"));
                }
                return Ok(LoadSpec {
                    path: path.into(),
                    addr: Some(a),
                });
            }
        }
        if s.is_empty() {
            return Err("empty file name".into());
        }
        Ok(LoadSpec {
            path: s.into(),
            addr: None,
        })
    }

    /// How it was given, for messages: `FILE@0xADDR` or `FILE`.
    pub fn display(&self) -> String {
        match self.addr {
            Some(a) => format!("{}@{a:#x}", self.path.display()),
            None => self.path.display().to_string(),
        }
    }
}

/// An image read from a `--load` file: the bytes to write and where.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LoadImage {
    /// The file and address as given.
    pub spec: LoadSpec,
    /// The bytes as runs `(physical address, bytes)`, in file order (one
    /// run for a raw binary; one per data record of an Intel HEX file,
    /// adjacent records merged).
    pub chunks: Vec<(u64, Vec<u8>)>,
}

impl LoadImage {
    /// Read the file of `spec`: a raw binary when it has an address, else
    /// an Intel HEX file.
    ///
    /// # Errors
    /// [`LoadError::Malformed`] naming the file: unreadable, not Intel HEX
    /// (no `:` at the start) when no address is given, Intel HEX given with
    /// an address, a bad record (with its line), no end-of-file record.
    pub fn read(spec: &LoadSpec) -> Result<LoadImage, LoadError> {
        let bytes = std::fs::read(&spec.path)
            .map_err(|e| LoadError::Malformed(format!("--load {}: {e}", spec.display())))?;
        LoadImage::from_bytes(spec.clone(), &bytes)
    }

    /// [`LoadImage::read`] from the file's contents `bytes`.
    ///
    /// # Errors
    /// As [`LoadImage::read`].
    pub fn from_bytes(spec: LoadSpec, bytes: &[u8]) -> Result<LoadImage, LoadError> {
        let bad = |m: String| LoadError::Malformed(format!("--load {}: {m}", spec.display()));
        let looks_hex = bytes.iter().find(|b| !b.is_ascii_whitespace()) == Some(&b':');
        let chunks = match spec.addr {
            Some(addr) => {
                if looks_hex && parse_hex(bytes).is_ok() {
                    return Err(bad(format!(
                        "{} is an Intel HEX file, whose records carry their addresses: give it without @ADDR",
                        spec.path.display()
                    )));
                }
                if bytes.is_empty() {
                    Vec::new()
                } else {
                    let end = addr.checked_add(bytes.len() as u64 - 1);
                    if end.is_none() {
                        return Err(bad(format!(
                            "{} bytes at {addr:#x} wrap around the address space",
                            bytes.len()
                        )));
                    }
                    vec![(addr, bytes.to_vec())]
                }
            }
            None if looks_hex => parse_hex(bytes).map_err(bad)?,
            None => {
                return Err(bad(
                    "not an Intel HEX file (it does not start with a ':' record); a raw binary needs its address: --load FILE@ADDR"
                        .into(),
                ))
            }
        };
        Ok(LoadImage { spec, chunks })
    }

    /// The address ranges the image writes, half-open.
    pub fn ranges(&self) -> impl Iterator<Item = Range> + '_ {
        self.chunks
            .iter()
            .filter(|(_, b)| !b.is_empty())
            .map(|(a, b)| (*a, a + b.len() as u64))
    }
}

/// The data of an Intel HEX file as merged runs, or a message naming the
/// line at fault.
fn parse_hex(bytes: &[u8]) -> Result<Vec<(u64, Vec<u8>)>, String> {
    let text =
        std::str::from_utf8(bytes).map_err(|_| "not an Intel HEX file: not text".to_string())?;
    let mut chunks: Vec<(u64, Vec<u8>)> = Vec::new();
    // Extended segment (I16HEX) or linear (I32HEX) base of the data records.
    let mut base = 0u64;
    let mut ended = false;
    for (i, line) in text.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() {
            continue;
        }
        if ended {
            return Err(format!(
                "line {}: a record after the end-of-file record",
                i + 1
            ));
        }
        let record = ihex::Record::from_record_string(line).map_err(|e| {
            let why = match e {
                // (checksum of the bytes, checksum in the file)
                ihex::ReaderError::ChecksumMismatch(computed, given) => format!(
                    "checksum {given:02X} does not match the record's bytes ({computed:02X})"
                ),
                e => e.to_string(),
            };
            format!("line {}: bad Intel HEX record: {why}", i + 1)
        })?;
        match record {
            ihex::Record::Data { offset, value } => {
                let addr = base + u64::from(offset);
                match chunks.last_mut() {
                    Some((a, b)) if *a + b.len() as u64 == addr => b.extend_from_slice(&value),
                    _ => chunks.push((addr, value)),
                }
            }
            ihex::Record::ExtendedSegmentAddress(seg) => base = u64::from(seg) << 4,
            ihex::Record::ExtendedLinearAddress(hi) => base = u64::from(hi) << 16,
            ihex::Record::StartSegmentAddress { .. } | ihex::Record::StartLinearAddress(_) => {}
            ihex::Record::EndOfFile => ended = true,
        }
    }
    if !ended {
        return Err("no end-of-file record (:00000001FF): the file is truncated".into());
    }
    Ok(chunks)
}

/// Write every image into `mem`, each byte inside `memory` (the machine's
/// memory, half-open ranges), which must be mapped writable now.
/// `machine` describes the memory in messages (`board fe310-g002`).
///
/// # Errors
/// [`LoadError::Memory`] naming the file and the first range outside
/// `memory`.
pub(crate) fn write_images(
    images: &[LoadImage],
    memory: &[Range],
    machine: &str,
    mem: &mut dyn GuestMemory,
) -> Result<(), LoadError> {
    for image in images {
        for (start, end) in image.ranges() {
            let outside = uncovered((start, end), memory);
            if let Some(&(s, e)) = outside.first() {
                return Err(LoadError::Memory(format!(
                    "--load {}: bytes {s:#x}..{e:#x} are outside the memory of {machine}",
                    image.spec.display()
                )));
            }
        }
        for (addr, bytes) in &image.chunks {
            mem.write(*addr, bytes).map_err(|f| {
                LoadError::Memory(format!(
                    "--load {}: cannot write guest address {:#x}",
                    image.spec.display(),
                    f.addr
                ))
            })?;
        }
    }
    Ok(())
}

/// The parts of `r` not inside any range of `covered`, in address order.
pub(crate) fn uncovered(r: Range, covered: &[Range]) -> Vec<Range> {
    let mut parts = crate::loader::subtract(r, covered);
    parts.sort_unstable();
    parts
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spec(s: &str) -> LoadSpec {
        LoadSpec::parse(s).unwrap()
    }

    #[test]
    fn specs() {
        assert_eq!(spec("blob.bin@0x20300000").addr, Some(0x2030_0000));
        assert_eq!(spec("blob.bin@4K").addr, Some(4096));
        assert_eq!(spec("fw.hex").addr, None);
        let odd = spec("dir@home/fw.hex");
        assert_eq!((odd.path, odd.addr), ("dir@home/fw.hex".into(), None));
        assert!(LoadSpec::parse("@0x100").is_err());
        assert!(LoadSpec::parse("").is_err());
    }

    #[test]
    fn raw_binaries_go_where_they_are_told() {
        let img = LoadImage::from_bytes(spec("b.bin@0x100"), &[1, 2, 3]).unwrap();
        assert_eq!(img.chunks, vec![(0x100, vec![1, 2, 3])]);
        assert_eq!(img.ranges().collect::<Vec<_>>(), vec![(0x100, 0x103)]);
        let e = LoadImage::from_bytes(spec("b.bin@0xffffffffffffffff"), &[1, 2]).unwrap_err();
        assert!(e.to_string().contains("wrap around"), "{e}");
    }

    // 6 bytes at 0x20380000 (extended linear address 0x2038, two data
    // records), 2 at 0x2fff0 (extended segment 0x2000, offset 0xfff0), a
    // start linear address record (ignored), end of file.
    const HEX: &str = ":020000042038A2\n:04000000EFBEADDEC4\n:02000400AABB95\n:020000022000DC\n:02FFF0001122DC\n:0400000520010000D6\n:00000001FF\n";

    #[test]
    fn intel_hex_records_carry_their_addresses() {
        let img = LoadImage::from_bytes(spec("fw.hex"), HEX.as_bytes()).unwrap();
        assert_eq!(
            img.chunks,
            vec![
                (0x2038_0000, vec![0xef, 0xbe, 0xad, 0xde, 0xaa, 0xbb]),
                (0x2fff0, vec![0x11, 0x22]),
            ]
        );
    }

    #[test]
    fn intel_hex_errors_name_the_line() {
        let bad = HEX.replace(":04000000EFBEADDEC4", ":04000000EFBEADDEC5");
        let e = LoadImage::from_bytes(spec("fw.hex"), bad.as_bytes()).unwrap_err();
        assert_eq!(
            e.to_string(),
            "--load fw.hex: line 2: bad Intel HEX record: checksum C5 does not match the record's bytes (C4)"
        );
        let cut = HEX.replace(":00000001FF\n", "");
        let e = LoadImage::from_bytes(spec("fw.hex"), cut.as_bytes()).unwrap_err();
        assert!(e.to_string().contains("no end-of-file record"), "{e}");
        let e = LoadImage::from_bytes(spec("fw.bin"), &[0x7f, b'E']).unwrap_err();
        assert!(e.to_string().contains("not an Intel HEX file"), "{e}");
        let e = LoadImage::from_bytes(spec("fw.hex@0x100"), HEX.as_bytes()).unwrap_err();
        assert!(e.to_string().contains("give it without @ADDR"), "{e}");
    }

    #[test]
    fn images_must_land_in_memory() {
        let mut mem = crate::test_mem::TestMem::default();
        let rw = crate::Perm {
            read: true,
            write: true,
            exec: false,
        };
        mem.map(0x1000, 0x1000, rw).unwrap();
        let img = LoadImage::from_bytes(spec("b.bin@0x1ffe"), &[1, 2, 3, 4]).unwrap();
        let e = write_images(&[img], &[(0x1000, 0x2000)], "board b", &mut mem).unwrap_err();
        assert_eq!(
            e.to_string(),
            "--load b.bin@0x1ffe: bytes 0x2000..0x2002 are outside the memory of board b"
        );
        let img = LoadImage::from_bytes(spec("b.bin@0x1ffc"), &[1, 2, 3, 4]).unwrap();
        write_images(&[img], &[(0x1000, 0x2000)], "board b", &mut mem).unwrap();
        let mut buf = [0u8; 4];
        mem.read(0x1ffc, &mut buf).unwrap();
        assert_eq!(buf, [1, 2, 3, 4]);
    }
}
