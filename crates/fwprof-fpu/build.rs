//! Builds the vendored Berkeley SoftFloat 3e (RISCV specialization, binary32
//! and binary64 subset) plus the stateless wrappers in `csrc/`.
//!
//! Options mirror SoftFloat's own `build/Linux-x86_64-GCC/Makefile`; the
//! state variables are `_Thread_local` so that threads never share a
//! rounding mode or flag word. Always optimised: SoftFloat's `INLINE`
//! functions have no out-of-line definition at `-O0`.

use std::path::Path;

fn main() {
    let root = Path::new("softfloat");
    let source = root.join("source");
    let riscv = source.join("RISCV");
    let mut build = cc::Build::new();
    build
        .include(root.join("build"))
        .include(source.join("include"))
        .include(&riscv)
        .define("INLINE_LEVEL", Some("5"))
        .define("SOFTFLOAT_FAST_INT64", None)
        .define("SOFTFLOAT_FAST_DIV32TO16", None)
        .define("SOFTFLOAT_FAST_DIV64TO32", None)
        .define("THREAD_LOCAL", Some("_Thread_local"))
        .flag_if_supported("-std=gnu99")
        .opt_level(2)
        .warnings(false);
    for dir in [&source, &riscv] {
        let mut files: Vec<_> = std::fs::read_dir(dir)
            .expect("softfloat sources are vendored in the crate")
            .map(|e| e.expect("readable directory entry").path())
            .filter(|p| p.extension().is_some_and(|x| x == "c"))
            .collect();
        files.sort();
        build.files(files);
    }
    build.file("csrc/fwprof_softfloat.c");
    build.compile("fwprof_softfloat");
    println!("cargo:rerun-if-changed=softfloat");
    println!("cargo:rerun-if-changed=csrc");
}
