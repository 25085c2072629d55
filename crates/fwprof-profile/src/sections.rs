//! Named optional sections: the one rule by which the profile format grows
//! (format version 3 and later; `docs/profile-format.md`, "Growth").
//!
//! Data that later versions of fwprof add to a profile (interrupt contexts,
//! costs per privilege level, hart or task, hardware-counter readings, path
//! profiles, instruction-set statistics, ...) never becomes a new top-level
//! field and never changes the meaning of an existing one. It goes into
//! [`Profile::sections`], a CBOR map from a section name to a [`Section`]:
//!
//! ```text
//! "sections": {
//!     "<name>": { "version": 1, "critical": false, "data": h'<one CBOR item>' },
//!     ...
//! }
//! ```
//!
//! The content is an encoded CBOR item held in a byte string, so a reader
//! skips a section without decoding it. A reader that does not know a
//! section's name, or knows only older versions of it, keeps the file
//! readable when the section is *ancillary* (`critical: false`: the rest of
//! the profile means what it says without it) and lists it in
//! [`Profile::unknown_sections`], which the CLI reports in one note; it
//! refuses the file with [`Error::NeedsNewerReader`] when the section is
//! *critical* (the rest of the profile would be misread without it). This is
//! the rule of PNG's ancillary and critical chunks (PNG specification,
//! 3rd edition, §5.4), applied to CBOR maps.
//!
//! A section's own layout carries its own `version`; a change of layout
//! bumps that number, never the file's. The file's format version changes
//! only if the header or an existing top-level field changes meaning, which
//! this rule exists to avoid.

use std::collections::BTreeMap;

use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use serde_bytes::ByteBuf;

use crate::error::Error;
use crate::model::Profile;

/// The sections this build of fwprof reads, each with the newest version
/// of its layout it understands: `traps` ([`crate::TrapSection`]),
/// `privilege` ([`crate::PrivilegeSection`]), `address_spaces`
/// ([`crate::AddressSpaceSection`]), `images` ([`crate::ImageSection`])
/// `threads` ([`crate::ThreadSection`]), `tasks` ([`crate::TaskSection`])
/// `stacks` ([`crate::StackSection`]) and `counters`
/// ([`crate::CounterSection`]). A new section type adds its
/// [`SectionKind`] implementation and its entry here.
pub const KNOWN_SECTIONS: &[(&str, u32)] = &[
    (crate::TrapSection::NAME, crate::TrapSection::VERSION),
    (
        crate::PrivilegeSection::NAME,
        crate::PrivilegeSection::VERSION,
    ),
    (
        crate::AddressSpaceSection::NAME,
        crate::AddressSpaceSection::VERSION,
    ),
    (crate::ImageSection::NAME, crate::ImageSection::VERSION),
    (crate::ThreadSection::NAME, crate::ThreadSection::VERSION),
    (crate::TaskSection::NAME, crate::TaskSection::VERSION),
    (crate::StackSection::NAME, crate::StackSection::VERSION),
    (crate::CounterSection::NAME, crate::CounterSection::VERSION),
];

/// Longest section name accepted, in bytes.
pub const MAX_SECTION_NAME: usize = 64;

/// The sections of a profile, by name (sorted, so files are deterministic).
pub type Sections = BTreeMap<String, Section>;

/// One named optional section of a profile (see the [module](self) docs).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Section {
    /// Version of this section's layout, from 1; a reader that knows only
    /// older versions treats the section as unknown.
    pub version: u32,
    /// True if a reader that does not know the section must refuse the
    /// file; false if it may skip it.
    pub critical: bool,
    /// The content: exactly one CBOR data item (RFC 8949), encoded, held as
    /// a CBOR byte string.
    pub data: ByteBuf,
}

impl Section {
    /// A section of layout `version` holding `data`, which must be one
    /// encoded CBOR data item (it is not checked here).
    pub fn new(version: u32, critical: bool, data: Vec<u8>) -> Section {
        Section {
            version,
            critical,
            data: ByteBuf::from(data),
        }
    }
}

/// A type stored as a profile section: its name, layout version and
/// whether readers must understand it. Its serde encoding (with
/// `ciborium`) is the section's `data`.
pub trait SectionKind: Serialize + DeserializeOwned {
    /// The section's name: 1 to [`MAX_SECTION_NAME`] bytes of lowercase
    /// ASCII letters, digits, `_`, `-` and `.`.
    const NAME: &'static str;
    /// The newest layout version this build writes and reads (from 1).
    const VERSION: u32;
    /// True if a reader that does not know the section must refuse the
    /// file (the rest of the profile would be misread without it).
    const CRITICAL: bool;
}

/// True if `name` is a well-formed section name (see [`SectionKind::NAME`]).
pub fn is_valid_section_name(name: &str) -> bool {
    !name.is_empty()
        && name.len() <= MAX_SECTION_NAME
        && name
            .bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b"_-.".contains(&b))
}

/// True if this build reads version `version` of the section `name`.
pub fn is_known_section(name: &str, version: u32) -> bool {
    KNOWN_SECTIONS
        .iter()
        .any(|&(n, newest)| n == name && (1..=newest).contains(&version))
}

impl Profile {
    /// Stores `value` as the section [`SectionKind::NAME`], replacing any
    /// section of that name.
    ///
    /// Errors: [`Error::Encode`] if `value` cannot be serialised.
    pub fn set_section<T: SectionKind>(&mut self, value: &T) -> Result<(), Error> {
        let mut data = Vec::new();
        ciborium::into_writer(value, &mut data).map_err(|e| Error::Encode(e.to_string()))?;
        self.sections.insert(
            T::NAME.to_string(),
            Section {
                version: T::VERSION,
                critical: T::CRITICAL,
                data: ByteBuf::from(data),
            },
        );
        Ok(())
    }

    /// The section [`SectionKind::NAME`] decoded, or `None` if the profile
    /// has none, or has a newer version of it than `T` reads (then it is
    /// also in [`Profile::unknown_sections`]).
    ///
    /// Errors: [`Error::Corrupt`] if the content does not decode as `T`.
    pub fn section<T: SectionKind>(&self) -> Result<Option<T>, Error> {
        let Some(s) = self.sections.get(T::NAME) else {
            return Ok(None);
        };
        if s.version > T::VERSION {
            return Ok(None);
        }
        let mut slice = &s.data[..];
        let value = ciborium::from_reader(&mut slice).map_err(|_| {
            Error::Corrupt(format!(
                "section \"{}\" does not have its layout (version {})",
                T::NAME,
                s.version
            ))
        })?;
        if !slice.is_empty() {
            return Err(Error::Corrupt(format!(
                "section \"{}\" has bytes after its content",
                T::NAME
            )));
        }
        Ok(Some(value))
    }

    /// The sections this build does not read (unknown names, or newer
    /// versions than it knows), as `(name, version)`, sorted by name. All
    /// are ancillary: a profile with an unknown critical section is
    /// refused by [`Profile::read`].
    pub fn unknown_sections(&self) -> Vec<(&str, u32)> {
        self.sections
            .iter()
            .filter(|(name, s)| !is_known_section(name, s.version))
            .map(|(name, s)| (name.as_str(), s.version))
            .collect()
    }

    /// Err if a section is malformed or is critical and unknown to this
    /// build (see [`Profile::read_from`]).
    pub(crate) fn check_sections(&self) -> Result<(), Error> {
        for (name, s) in &self.sections {
            if !is_valid_section_name(name) {
                return Err(Error::Inconsistent(format!(
                    "a section name is not 1 to {MAX_SECTION_NAME} lowercase letters, digits, '_', '-' or '.'"
                )));
            }
            if s.version == 0 {
                return Err(Error::Inconsistent(format!(
                    "section \"{name}\" has version 0"
                )));
            }
            if s.critical && !is_known_section(name, s.version) {
                return Err(Error::NeedsNewerReader {
                    section: name.clone(),
                    version: s.version,
                });
            }
        }
        Ok(())
    }

    /// Err if a section this build reads does not decode or does not fit
    /// the rest of the profile (functions, contexts, events).
    pub(crate) fn check_known_sections(&self) -> Result<(), Error> {
        let problem = match self.section::<crate::TrapSection>()? {
            Some(t) => t.problem(self),
            None => None,
        };
        let problem = match (problem, self.section::<crate::PrivilegeSection>()?) {
            (None, Some(p)) => p.problem(self),
            (problem, _) => problem,
        };
        let problem = match (problem, self.section::<crate::AddressSpaceSection>()?) {
            (None, Some(s)) => s.problem(self),
            (problem, _) => problem,
        };
        let problem = match (problem, self.section::<crate::ImageSection>()?) {
            (None, Some(s)) => s.problem(self),
            (problem, _) => problem,
        };
        let problem = match (problem, self.section::<crate::ThreadSection>()?) {
            (None, Some(s)) => s.problem(self),
            (problem, _) => problem,
        };
        let problem = match (problem, self.section::<crate::TaskSection>()?) {
            (None, Some(s)) => s.problem(self),
            (problem, _) => problem,
        };
        let problem = match (problem, self.section::<crate::StackSection>()?) {
            (None, Some(s)) => s.problem(),
            (problem, _) => problem,
        };
        let problem = match (problem, self.section::<crate::CounterSection>()?) {
            (None, Some(s)) => s.problem(self),
            (problem, _) => problem,
        };
        problem.map_or(Ok(()), |m| Err(Error::Inconsistent(m)))
    }
}
