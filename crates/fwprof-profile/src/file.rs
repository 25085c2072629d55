//! The profile file: a fixed header followed by a CBOR body
//! (`docs/profile-format.md`).
//!
//! ```text
//! offset  size  field
//! 0       8     magic  "FWPROF" 0x00 0x01
//! 8       4     format version, u32 little-endian (3; 1 and 2 are still read)
//! 12      8     body length in bytes, u64 little-endian
//! 20      4     CRC-32C (Castagnoli), u32 little-endian: of bytes 0..20
//!               and the body (version 3), of the body (version 2);
//!               a version-1 header ends at 20
//! 24      n     body: the Profile as CBOR (RFC 8949)
//! ```

use std::fs::File;
use std::io::{self, BufReader, Read, Write};
use std::path::Path;

use crate::error::Error;
use crate::model::Profile;

/// The first 8 bytes of every profile file: `FWPROF`, NUL, 0x01.
pub const MAGIC: [u8; 8] = *b"FWPROF\0\x01";

/// The format version this build writes: 3. Version 2 added a CRC-32C of
/// the body to the header; version 3 added named optional sections
/// ([`crate::sections`]), the rule by which the format grows from now on.
/// Version-1 (no checksum) and version-2 files are still read.
pub const FORMAT_VERSION: u32 = 3;

/// The oldest format version this build reads.
pub const OLDEST_FORMAT_VERSION: u32 = 1;

/// Header length of a version-1 file (no checksum).
const HEADER_LEN_V1: usize = 20;
/// Header length of a version-2 or later file.
const HEADER_LEN: usize = 24;

impl Profile {
    /// Encodes the profile (header and CBOR body) into `w`, as format
    /// version [`FORMAT_VERSION`] whatever `meta.format_version` says.
    ///
    /// Errors: [`Error::Encode`] if serialisation fails, [`Error::Io`] if
    /// writing fails.
    pub fn write_to(&self, mut w: impl Write) -> Result<(), Error> {
        let mut body = Vec::new();
        if self.meta.format_version == FORMAT_VERSION {
            ciborium::into_writer(self, &mut body)
        } else {
            let mut copy = self.clone();
            copy.meta.format_version = FORMAT_VERSION;
            ciborium::into_writer(&copy, &mut body)
        }
        .map_err(|e| Error::Encode(e.to_string()))?;
        let mut header = [0u8; HEADER_LEN];
        header[..8].copy_from_slice(&MAGIC);
        header[8..12].copy_from_slice(&FORMAT_VERSION.to_le_bytes());
        header[12..20].copy_from_slice(&(body.len() as u64).to_le_bytes());
        let crc = checksum(FORMAT_VERSION, &header[..HEADER_LEN_V1], &body);
        header[20..24].copy_from_slice(&crc.to_le_bytes());
        w.write_all(&header)?;
        w.write_all(&body)?;
        w.flush()?;
        Ok(())
    }

    /// The encoded file as bytes (see [`Profile::write_to`]).
    pub fn to_bytes(&self) -> Result<Vec<u8>, Error> {
        let mut out = Vec::new();
        self.write_to(&mut out)?;
        Ok(out)
    }

    /// Writes the profile to `path` by the rule of [`crate::output`]: a
    /// regular file or a new path atomically (a temporary file in the same
    /// directory, synced, then renamed over `path`, keeping the old file's
    /// mode), so readers see either the old file or the complete new one; a
    /// symbolic link's target by the same rule; a device or FIFO in place.
    ///
    /// Errors: [`Error::Io`] (the temporary file is removed) or [`Error::Encode`].
    pub fn write_atomic(&self, path: impl AsRef<Path>) -> Result<(), Error> {
        crate::output::write_file(path.as_ref(), |w| self.write_to(w))
    }

    /// Reads and checks a profile file (see [`Profile::read_from`]).
    pub fn read(path: impl AsRef<Path>) -> Result<Profile, Error> {
        let file = File::open(path)?;
        Profile::read_from(BufReader::new(file))
    }

    /// Reads a profile from `r`, verifies its checksum and checks its shape
    /// with [`Profile::validate`]. A version-1 file has no checksum: it is
    /// read unchecked, and `meta.format_version` of the result says so
    /// ([`Profile::is_checksummed`]); `meta.format_version` is always the
    /// header's version.
    ///
    /// Errors: [`Error::NotAProfile`] (bad magic), [`Error::UnsupportedVersion`],
    /// [`Error::Truncated`] (header or body cut short),
    /// [`Error::ChecksumMismatch`], [`Error::TrailingBytes`],
    /// [`Error::Corrupt`] (a body that does not decode to a profile),
    /// [`Error::NeedsNewerReader`] (a critical section this build does not
    /// read; unknown ancillary sections are kept and listed by
    /// [`Profile::unknown_sections`]),
    /// [`Error::Inconsistent`] (ids, vector lengths or fields wrong),
    /// [`Error::Io`]. Never panics, whatever the bytes.
    pub fn read_from(mut r: impl Read) -> Result<Profile, Error> {
        let mut header = [0u8; HEADER_LEN];
        let got = read_full(&mut r, &mut header[..HEADER_LEN_V1])?;
        if got < MAGIC.len() {
            return Err(if header[..got] == MAGIC[..got] {
                Error::Truncated
            } else {
                Error::NotAProfile
            });
        }
        if header[..8] != MAGIC {
            return Err(Error::NotAProfile);
        }
        if got < 12 {
            return Err(Error::Truncated);
        }
        let version = u32::from_le_bytes([header[8], header[9], header[10], header[11]]);
        if !(OLDEST_FORMAT_VERSION..=FORMAT_VERSION).contains(&version) {
            return Err(Error::UnsupportedVersion {
                found: version,
                oldest: OLDEST_FORMAT_VERSION,
                newest: FORMAT_VERSION,
            });
        }
        if got < HEADER_LEN_V1 {
            return Err(Error::Truncated);
        }
        let checksum = if version >= 2 {
            if read_full(&mut r, &mut header[HEADER_LEN_V1..])? < HEADER_LEN - HEADER_LEN_V1 {
                return Err(Error::Truncated);
            }
            Some(u32::from_le_bytes([
                header[20], header[21], header[22], header[23],
            ]))
        } else {
            None
        };
        let mut len_bytes = [0u8; 8];
        len_bytes.copy_from_slice(&header[12..20]);
        let body_len = u64::from_le_bytes(len_bytes);
        // `take` + `read_to_end` grows the buffer only as data arrives, so a
        // huge announced length cannot make us allocate it up front.
        let mut body = Vec::new();
        (&mut r).take(body_len).read_to_end(&mut body)?;
        if (body.len() as u64) < body_len {
            return Err(Error::Truncated);
        }
        let mut extra = [0u8; 1];
        if read_full(&mut r, &mut extra)? != 0 {
            return Err(Error::TrailingBytes);
        }
        if checksum.is_some_and(|c| c != self::checksum(version, &header[..HEADER_LEN_V1], &body)) {
            return Err(Error::ChecksumMismatch);
        }
        let mut slice = &body[..];
        let mut profile: Profile = ciborium::from_reader(&mut slice).map_err(|e| {
            Error::Corrupt(match e {
                ciborium::de::Error::Io(_) => "the body ends in the middle of a value".into(),
                ciborium::de::Error::Syntax(at) => {
                    format!("the body is not valid CBOR (at byte {at} of the body)")
                }
                ciborium::de::Error::Semantic(_, what) => {
                    format!("the body does not have the profile's layout ({what})")
                }
                ciborium::de::Error::RecursionLimitExceeded => {
                    "the body nests values too deeply".into()
                }
            })
        })?;
        if !slice.is_empty() {
            return Err(Error::Corrupt(
                "the body has bytes after the profile".into(),
            ));
        }
        profile.meta.format_version = version;
        profile.check_sections()?;
        profile.validate()?;
        profile.check_known_sections()?;
        Ok(profile)
    }

    /// True if the profile was read from a file whose checksum was verified
    /// (format version 2 and later), or was made in memory; false for a
    /// version-1 file, whose damage could not have been detected.
    pub fn is_checksummed(&self) -> bool {
        self.meta.format_version >= 2
    }

    /// Decodes a profile from an in-memory file image (see [`Profile::read_from`]).
    pub fn from_bytes(bytes: &[u8]) -> Result<Profile, Error> {
        Profile::read_from(bytes)
    }
}

/// The header's checksum field: CRC-32C (Castagnoli) of the body in
/// version 2; from version 3 of the first 20 header bytes (magic, version,
/// body length) followed by the body, so that a damaged version field
/// cannot turn one readable version into another unnoticed.
fn checksum(version: u32, header: &[u8], body: &[u8]) -> u32 {
    if version >= 3 {
        crc32c::crc32c_append(crc32c::crc32c(header), body)
    } else {
        crc32c::crc32c(body)
    }
}

/// Reads until `buf` is full or the input ends; returns the bytes read.
fn read_full(r: &mut impl Read, buf: &mut [u8]) -> Result<usize, Error> {
    let mut got = 0;
    while got < buf.len() {
        match r.read(&mut buf[got..]) {
            Ok(0) => break,
            Ok(k) => got += k,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(Error::Io(e)),
        }
    }
    Ok(got)
}
