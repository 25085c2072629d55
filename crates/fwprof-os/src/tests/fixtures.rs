//! Small RISC-V programs compiled once per test run with the installed
//! cross compilers (`riscv64-linux-gnu-gcc`, `riscv64-unknown-elf-gcc` with
//! picolibc). A missing compiler fails the test with the command line.

use std::path::PathBuf;
use std::process::Command;
use std::sync::OnceLock;

fn dir() -> &'static PathBuf {
    static DIR: OnceLock<PathBuf> = OnceLock::new();
    DIR.get_or_init(|| {
        let d = std::env::temp_dir().join(format!("fwprof-os-fixtures-{}", std::process::id()));
        std::fs::create_dir_all(&d).unwrap();
        d
    })
}

fn build(name: &str, source: &str, cc: &str, flags: &[&str]) -> PathBuf {
    let src = dir().join(format!("{name}.c"));
    let out = dir().join(name);
    std::fs::write(&src, source).unwrap();
    let status = Command::new(cc)
        .args(flags)
        .arg("-o")
        .arg(&out)
        .arg(&src)
        .status()
        .unwrap_or_else(|e| panic!("cannot run {cc}: {e}"));
    assert!(status.success(), "{cc} {flags:?} failed for {name}");
    out
}

const HELLO: &str =
    "#include <stdio.h>\nint main(int c, char **v) { printf(\"hi %d\\n\", c); return 0; }\n";

const PICOLIBC: &[&str] = &[
    "--specs=picolibc.specs",
    "--oslib=semihost",
    "-mcmodel=medany",
    "-O1",
    "-Wl,--defsym=__flash=0x80000000",
    "-Wl,--defsym=__flash_size=0x200000",
    "-Wl,--defsym=__ram=0x80200000",
    "-Wl,--defsym=__ram_size=0x200000",
];

/// A glibc static riscv64 Linux executable.
pub fn linux_static() -> &'static [u8] {
    static ELF: OnceLock<Vec<u8>> = OnceLock::new();
    ELF.get_or_init(|| {
        let p = build(
            "linux_static",
            HELLO,
            "riscv64-linux-gnu-gcc",
            &["-static", "-O1"],
        );
        std::fs::read(p).unwrap()
    })
}

/// A glibc dynamically linked riscv64 Linux executable.
pub fn linux_dynamic() -> &'static [u8] {
    static ELF: OnceLock<Vec<u8>> = OnceLock::new();
    ELF.get_or_init(|| {
        let p = build("linux_dynamic", HELLO, "riscv64-linux-gnu-gcc", &["-O1"]);
        std::fs::read(p).unwrap()
    })
}

/// A picolibc semihosting rv64 bare-metal executable at 0x80000000.
pub fn bare_rv64() -> &'static [u8] {
    static ELF: OnceLock<Vec<u8>> = OnceLock::new();
    ELF.get_or_init(|| {
        let mut f = PICOLIBC.to_vec();
        f.extend(["-march=rv64imac", "-mabi=lp64"]);
        let p = build("bare_rv64", HELLO, "riscv64-unknown-elf-gcc", &f);
        std::fs::read(p).unwrap()
    })
}

/// A picolibc semihosting rv32 bare-metal executable at 0x80000000.
pub fn bare_rv32() -> &'static [u8] {
    static ELF: OnceLock<Vec<u8>> = OnceLock::new();
    ELF.get_or_init(|| {
        let mut f = PICOLIBC.to_vec();
        f.extend(["-march=rv32imac", "-mabi=ilp32"]);
        let p = build("bare_rv32", HELLO, "riscv64-unknown-elf-gcc", &f);
        std::fs::read(p).unwrap()
    })
}

/// Path of a fixture on disk (for `/proc/self/exe`).
pub fn linux_static_path() -> PathBuf {
    linux_static();
    dir().join("linux_static")
}

/// A default run configuration for `program`.
pub fn config(program: &str, args: &[&str], env: &[&str]) -> crate::RunConfig {
    crate::RunConfig {
        program: program.into(),
        args: args.iter().map(|s| s.to_string()).collect(),
        env: env.iter().map(|s| s.to_string()).collect(),
        target: None,
        ram: (0x8000_0000, 128 << 20),
        sandbox: crate::Sandbox {
            read: vec![std::env::current_dir().unwrap()],
            write: vec![],
        },
        machine: Default::default(),
    }
}
