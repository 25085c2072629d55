//! The `images` section: the code images a bare-metal machine loaded (the
//! program, a `--bios` firmware, the reset ROM) and which functions' code
//! is each image's, including copies an image made of itself and ran
//! from (`docs/profile-format.md`, "Sections").
//!
//! Firmware is often stripped, and boot loaders relocate themselves (U-Boot
//! copies itself to the top of RAM): a flat profile of `[unknown 0x…]`
//! ranges does not say whose code ran. This section does. It is
//! ancillary: a reader that does not know it loses only the per-image
//! view.

use serde::{Deserialize, Serialize};

use crate::model::{FunctionId, Profile};
use crate::sections::SectionKind;

/// Section `images`, layout version 1, ancillary. Written for bare-metal
/// recordings.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ImageSection {
    /// The images, in load order (the reset ROM last).
    pub images: Vec<Image>,
}

impl SectionKind for ImageSection {
    const NAME: &'static str = "images";
    const VERSION: u32 = 1;
    const CRITICAL: bool = false;
}

/// One loaded image.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Image {
    /// Its file name (e.g. `fw_jump.elf`), or `[reset ROM]`.
    pub name: String,
    /// `program` (the program run with no `--bios`), `firmware`
    /// (`--bios`), `kernel` (the program after a `--bios` firmware) or
    /// `boot ROM`.
    pub role: String,
    /// Where its executable sections were loaded: `[start, end)` ranges,
    /// physical addresses.
    pub loaded: Vec<(u64, u64)>,
    /// Copies of it that ran: run address minus load address, in the
    /// order found.
    pub copies: Vec<u64>,
    /// The functions whose code is this image's (its own symbols and
    /// unknown ranges, and the ranges found to be copies of it).
    pub functions: Vec<FunctionId>,
}

impl ImageSection {
    /// A problem with the section's shape in `profile`, in words.
    pub(crate) fn problem(&self, profile: &Profile) -> Option<String> {
        let n = profile.functions.len();
        self.images
            .iter()
            .flat_map(|i| &i.functions)
            .any(|f| f.index() >= n)
            .then(|| "the images section names a function out of range".to_string())
    }
}
