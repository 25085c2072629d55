//! The profile file: a fixed header followed by a CBOR body
//! (`docs/profile-format.md`).
//!
//! ```text
//! offset  size  field
//! 0       8     magic  "FWPROF" 0x00 0x01
//! 8       4     format version, u32 little-endian
//! 12      8     body length in bytes, u64 little-endian
//! 20      n     body: the Profile as CBOR (RFC 8949)
//! ```

use std::fs::{self, File};
use std::io::{self, BufReader, BufWriter, Read, Write};
use std::path::Path;

use crate::error::Error;
use crate::model::{Profile, EVENT_INSTRUCTIONS};

/// The first 8 bytes of every profile file: `FWPROF`, NUL, 0x01.
pub const MAGIC: [u8; 8] = *b"FWPROF\0\x01";

/// The format version this build writes and reads.
pub const FORMAT_VERSION: u32 = 1;

const HEADER_LEN: usize = 20;

impl Profile {
    /// Encodes the profile (header and CBOR body) into `w`.
    ///
    /// Errors: [`Error::Encode`] if serialisation fails, [`Error::Io`] if
    /// writing fails.
    pub fn write_to(&self, mut w: impl Write) -> Result<(), Error> {
        let mut body = Vec::new();
        ciborium::into_writer(self, &mut body).map_err(|e| Error::Encode(e.to_string()))?;
        let mut header = [0u8; HEADER_LEN];
        header[..8].copy_from_slice(&MAGIC);
        header[8..12].copy_from_slice(&FORMAT_VERSION.to_le_bytes());
        header[12..20].copy_from_slice(&(body.len() as u64).to_le_bytes());
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

    /// Writes the profile to `path` atomically: into a temporary file in
    /// the same directory, fsynced, then renamed over `path`, so readers see
    /// either the old file or the complete new one.
    ///
    /// Errors: [`Error::Io`] (the temporary file is removed) or [`Error::Encode`].
    pub fn write_atomic(&self, path: impl AsRef<Path>) -> Result<(), Error> {
        let path = path.as_ref();
        let dir = match path.parent() {
            Some(d) if !d.as_os_str().is_empty() => d.to_path_buf(),
            _ => Path::new(".").to_path_buf(),
        };
        let name = path.file_name().ok_or_else(|| {
            Error::Io(io::Error::new(
                io::ErrorKind::InvalidInput,
                "profile path has no file name",
            ))
        })?;
        let mut tmp_name = std::ffi::OsString::from(".");
        tmp_name.push(name);
        tmp_name.push(format!(".tmp.{}", std::process::id()));
        let tmp = dir.join(tmp_name);
        let result = (|| {
            let file = File::create(&tmp)?;
            let mut w = BufWriter::new(file);
            self.write_to(&mut w)?;
            let file = w.into_inner().map_err(|e| Error::Io(e.into_error()))?;
            file.sync_all()?;
            drop(file);
            fs::rename(&tmp, path)?;
            // Make the rename itself durable; not all systems allow this.
            if let Ok(d) = File::open(&dir) {
                let _ = d.sync_all();
            }
            Ok(())
        })();
        if result.is_err() {
            let _ = fs::remove_file(&tmp);
        }
        result
    }

    /// Reads and checks a profile file (see [`Profile::read_from`]).
    pub fn read(path: impl AsRef<Path>) -> Result<Profile, Error> {
        let file = File::open(path)?;
        Profile::read_from(BufReader::new(file))
    }

    /// Reads a profile from `r` and checks its shape with [`Profile::validate`].
    ///
    /// Errors: [`Error::NotAProfile`] (bad magic), [`Error::UnsupportedVersion`],
    /// [`Error::Truncated`] (header or body cut short), [`Error::Corrupt`]
    /// (CBOR that does not decode to a profile, or bytes after the body),
    /// [`Error::Inconsistent`] (ids or vector lengths wrong), [`Error::Io`].
    /// Never panics, whatever the bytes.
    pub fn read_from(mut r: impl Read) -> Result<Profile, Error> {
        let mut header = [0u8; HEADER_LEN];
        let got = read_full(&mut r, &mut header)?;
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
        if got < HEADER_LEN {
            return Err(Error::Truncated);
        }
        let version = u32::from_le_bytes([header[8], header[9], header[10], header[11]]);
        if version != FORMAT_VERSION {
            return Err(Error::UnsupportedVersion {
                found: version,
                supported: FORMAT_VERSION,
            });
        }
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
            return Err(Error::Corrupt("trailing bytes after the body".into()));
        }
        let mut slice = &body[..];
        let profile: Profile = ciborium::from_reader(&mut slice).map_err(|e| match e {
            ciborium::de::Error::Io(e) if e.kind() == io::ErrorKind::UnexpectedEof => {
                Error::Corrupt("CBOR body ends early".into())
            }
            e => Error::Corrupt(e.to_string()),
        })?;
        if !slice.is_empty() {
            return Err(Error::Corrupt("trailing bytes inside the body".into()));
        }
        profile.validate()?;
        Ok(profile)
    }

    /// Decodes a profile from an in-memory file image (see [`Profile::read_from`]).
    pub fn from_bytes(bytes: &[u8]) -> Result<Profile, Error> {
        Profile::read_from(bytes)
    }

    /// Checks the shape of the profile: at least one event and the first is
    /// `"instructions"`; every cost vector has one entry per event; every
    /// function id is in range; `start <= end`; addresses strictly
    /// increasing with lengths 2 or 4; xlen 32 or 64; every context's
    /// parent comes before it.
    ///
    /// Errors: [`Error::Inconsistent`] naming the first problem found.
    pub fn validate(&self) -> Result<(), Error> {
        self.shape_problem()
            .map_or(Ok(()), |m| Err(Error::Inconsistent(m)))
    }

    fn shape_problem(&self) -> Option<String> {
        let n = self.events.len();
        if self.events.first().map(String::as_str) != Some(EVENT_INSTRUCTIONS) {
            return Some(format!("the first event must be \"{EVENT_INSTRUCTIONS}\""));
        }
        if self.meta.xlen != 32 && self.meta.xlen != 64 {
            return Some(format!("xlen {}", self.meta.xlen));
        }
        if self.totals.len() != n {
            return Some(format!(
                "totals have {} entries for {} events",
                self.totals.len(),
                n
            ));
        }
        let nf = self.functions.len();
        if nf > u32::MAX as usize {
            return Some("too many functions".into());
        }
        for (i, f) in self.functions.iter().enumerate() {
            if f.self_cost.len() != n || f.inclusive.len() != n {
                return Some(format!(
                    "function {i} ({}) has cost vectors of the wrong length",
                    f.name
                ));
            }
            if f.start > f.end {
                return Some(format!("function {i} ({}) ends before it starts", f.name));
            }
        }
        if let Err(m) = self.costs.check_shape(n, nf) {
            return Some(m);
        }
        for (i, a) in self.arcs.iter().enumerate() {
            if a.callee.index() >= nf || a.caller.is_some_and(|c| c.index() >= nf) {
                return Some(format!("arc {i} names a function out of range"));
            }
            if a.inclusive.len() != n {
                return Some(format!("arc {i} has a cost vector of the wrong length"));
            }
        }
        for (i, c) in self.contexts.iter().enumerate() {
            if c.function.index() >= nf {
                return Some(format!("context {i} names a function out of range"));
            }
            if c.parent.is_some_and(|p| p as usize >= i) {
                return Some(format!(
                    "context {i} has a parent that does not come before it"
                ));
            }
            if c.self_cost.len() != n {
                return Some(format!("context {i} has a cost vector of the wrong length"));
            }
        }
        None
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
