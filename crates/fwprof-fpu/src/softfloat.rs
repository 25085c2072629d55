//! Declarations of the C entry points in `csrc/fwprof_softfloat.c`.
//!
//! Each takes the RISC-V `rm` value (0..=4, equal to SoftFloat's
//! `softfloat_round_*` numbering) and a pointer to an `fflags`-layout byte
//! into which the raised flags are ORed. The functions touch only
//! `_Thread_local` SoftFloat state, their arguments and `*fl`, so they are
//! safe to call from any thread with a valid `fl` pointer.

macro_rules! decl_width {
    ($w:ty, $add:ident, $sub:ident, $mul:ident, $div:ident, $sqrt:ident, $fma:ident,
     $eq:ident, $lt:ident, $le:ident, $ti32:ident, $tu32:ident, $ti64:ident, $tu64:ident,
     $fi32:ident, $fu32:ident, $fi64:ident, $fu64:ident) => {
        extern "C" {
            pub(crate) fn $add(a: $w, b: $w, rm: u8, fl: *mut u8) -> $w;
            pub(crate) fn $sub(a: $w, b: $w, rm: u8, fl: *mut u8) -> $w;
            pub(crate) fn $mul(a: $w, b: $w, rm: u8, fl: *mut u8) -> $w;
            pub(crate) fn $div(a: $w, b: $w, rm: u8, fl: *mut u8) -> $w;
            pub(crate) fn $sqrt(a: $w, rm: u8, fl: *mut u8) -> $w;
            pub(crate) fn $fma(a: $w, b: $w, c: $w, rm: u8, fl: *mut u8) -> $w;
            pub(crate) fn $eq(a: $w, b: $w, fl: *mut u8) -> u8;
            pub(crate) fn $lt(a: $w, b: $w, fl: *mut u8) -> u8;
            pub(crate) fn $le(a: $w, b: $w, fl: *mut u8) -> u8;
            pub(crate) fn $ti32(a: $w, rm: u8, fl: *mut u8) -> i32;
            pub(crate) fn $tu32(a: $w, rm: u8, fl: *mut u8) -> u32;
            pub(crate) fn $ti64(a: $w, rm: u8, fl: *mut u8) -> i64;
            pub(crate) fn $tu64(a: $w, rm: u8, fl: *mut u8) -> u64;
            pub(crate) fn $fi32(v: i32, rm: u8, fl: *mut u8) -> $w;
            pub(crate) fn $fu32(v: u32, rm: u8, fl: *mut u8) -> $w;
            pub(crate) fn $fi64(v: i64, rm: u8, fl: *mut u8) -> $w;
            pub(crate) fn $fu64(v: u64, rm: u8, fl: *mut u8) -> $w;
        }
    };
}

decl_width!(
    u32,
    fwsf_f32_add,
    fwsf_f32_sub,
    fwsf_f32_mul,
    fwsf_f32_div,
    fwsf_f32_sqrt,
    fwsf_f32_fma,
    fwsf_f32_eq,
    fwsf_f32_lt,
    fwsf_f32_le,
    fwsf_f32_to_i32,
    fwsf_f32_to_u32,
    fwsf_f32_to_i64,
    fwsf_f32_to_u64,
    fwsf_f32_from_i32,
    fwsf_f32_from_u32,
    fwsf_f32_from_i64,
    fwsf_f32_from_u64
);

decl_width!(
    u64,
    fwsf_f64_add,
    fwsf_f64_sub,
    fwsf_f64_mul,
    fwsf_f64_div,
    fwsf_f64_sqrt,
    fwsf_f64_fma,
    fwsf_f64_eq,
    fwsf_f64_lt,
    fwsf_f64_le,
    fwsf_f64_to_i32,
    fwsf_f64_to_u32,
    fwsf_f64_to_i64,
    fwsf_f64_to_u64,
    fwsf_f64_from_i32,
    fwsf_f64_from_u32,
    fwsf_f64_from_i64,
    fwsf_f64_from_u64
);

extern "C" {
    pub(crate) fn fwsf_f32_to_f64(a: u32, fl: *mut u8) -> u64;
    pub(crate) fn fwsf_f64_to_f32(a: u64, rm: u8, fl: *mut u8) -> u32;
}
