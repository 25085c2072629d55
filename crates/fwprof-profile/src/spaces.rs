//! The `address_spaces` section: the address spaces code ran in (one per
//! `satp` value, Privileged ISA 20211203 §4.1.11) and what each cost
//! (`docs/profile-format.md`, "Sections").
//!
//! With translation on, the recorder keys costs by (address space,
//! virtual address): code of two spaces at the same virtual address is
//! attributed to the function of the symbols that describe each space, or
//! to an unknown range of its own, so [`Profile::costs`] may list one
//! address once per function that ran there. A reader that does not know
//! this section would take that for a damaged file: the section is
//! critical.

use serde::{Deserialize, Serialize};

use crate::model::{FunctionId, Profile};
use crate::sections::SectionKind;

/// Section `address_spaces`, layout version 1, critical. Written when code
/// ran with address translation on.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct AddressSpaceSection {
    /// The spaces, the physical one (`satp` 0) first, then in order of
    /// first use; their costs add up to [`Profile::totals`].
    pub spaces: Vec<AddressSpace>,
}

impl SectionKind for AddressSpaceSection {
    const NAME: &'static str = "address_spaces";
    const VERSION: u32 = 1;
    const CRITICAL: bool = true;
}

/// One address space.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct AddressSpace {
    /// The `satp` value that selected it; 0 for physical addresses
    /// (M-mode, or `satp.MODE` = Bare).
    pub satp: u64,
    /// Translation scheme: `"bare"`, `"sv32"`, `"sv39"`, `"sv48"` or
    /// `"sv57"`.
    pub mode: String,
    /// `satp.ASID`.
    pub asid: u32,
    /// Physical address of the root page table (`satp.PPN` × 4096).
    pub root: u64,
    /// Cost per event of the code executed in it.
    pub cost: Vec<u64>,
    /// Self cost per function in it (non-zero only, by function id).
    pub functions: Vec<SpaceFunctionCost>,
}

/// A function's self cost in one address space.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct SpaceFunctionCost {
    /// The function.
    pub function: FunctionId,
    /// Self cost per event.
    pub self_cost: Vec<u64>,
}

impl AddressSpace {
    /// The space selected by `satp` on a hart of `xlen` bits (32 or 64),
    /// with no costs yet: MODE, ASID and PPN decoded as Privileged ISA
    /// 20211203, §4.1.11 (Sv32: MODE bit 31, ASID bits 30..22, PPN bits
    /// 21..0; RV64: MODE bits 63..60, ASID 59..44, PPN 43..0).
    pub fn from_satp(satp: u64, xlen: u32) -> AddressSpace {
        let (mode, asid, ppn) = if xlen == 32 {
            let mode = if satp >> 31 & 1 == 1 { "sv32" } else { "bare" };
            (mode, (satp >> 22 & 0x1ff) as u32, satp & 0x3f_ffff)
        } else {
            let mode = match satp >> 60 {
                8 => "sv39",
                9 => "sv48",
                10 => "sv57",
                _ => "bare",
            };
            (mode, (satp >> 44 & 0xffff) as u32, satp & ((1 << 44) - 1))
        };
        AddressSpace {
            satp,
            mode: mode.to_string(),
            asid,
            root: ppn << 12,
            cost: Vec::new(),
            functions: Vec::new(),
        }
    }

    /// A short description: `physical`, or e.g. `sv39 asid 1 root
    /// 0x80403000`.
    pub fn describe(&self) -> String {
        if self.satp == 0 {
            "physical".to_string()
        } else {
            format!("{} asid {} root {:#x}", self.mode, self.asid, self.root)
        }
    }
}

impl AddressSpaceSection {
    /// A problem with the section's shape in `profile`, in words.
    pub(crate) fn problem(&self, profile: &Profile) -> Option<String> {
        let n = profile.events.len();
        let bad_len = self
            .spaces
            .iter()
            .any(|s| s.cost.len() != n || s.functions.iter().any(|f| f.self_cost.len() != n));
        if bad_len {
            return Some("the address_spaces section has a cost vector of the wrong length".into());
        }
        if self
            .spaces
            .iter()
            .flat_map(|s| &s.functions)
            .any(|f| f.function.index() >= profile.functions.len())
        {
            return Some("the address_spaces section names a function out of range".into());
        }
        None
    }
}
