//! TEMPORARY: Berkeley SoftFloat 3e's entry points with the public API's
//! shapes, for the case-by-case comparison in `tests/oracle.rs` while both
//! implementations are in the tree.
#![allow(missing_docs)]

use crate::{softfloat, Flags, RoundingMode};

pub mod f32;
pub mod f64;

pub fn f32_to_f64(a: u32, fl: &mut Flags) -> u64 {
    // SAFETY: `fl.0` is a valid, exclusively borrowed byte; see `softfloat`.
    unsafe { softfloat::fwsf_f32_to_f64(a, &mut fl.0) }
}

pub fn f64_to_f32(a: u64, rm: RoundingMode, fl: &mut Flags) -> u32 {
    // SAFETY: as in `f32_to_f64`.
    unsafe { softfloat::fwsf_f64_to_f32(a, rm as u8, &mut fl.0) }
}
