#!/usr/bin/env bash
# Installs what the test suite needs on Debian 12, skipping what is present:
#   * the Debian packages: RISC-V cross toolchains and binutils, QEMU, the
#     real consumers the exporter tests run (valgrind's callgrind_annotate,
#     Graphviz, Go's pprof, chromium, Node.js with npm), and the firmware the
#     uboot test boots (OpenSBI's fw_jump.elf, U-Boot for QEMU virt; dtc to
#     read device trees);
#   * the npm tools of scripts/setup-node.sh (into tools/node);
#   * the clippy component, when the toolchain comes from rustup.
# A machine that already has everything needs neither root nor network: each
# package is checked with dpkg-query first, and apt-get runs (as root, or
# through sudo) only for the missing ones. Called by scripts/test.sh (the
# README's test command) and by .ci/run.
set -euo pipefail
cd "$(dirname "$0")/.."

packages=(
    gcc-riscv64-unknown-elf picolibc-riscv64-unknown-elf binutils-riscv64-unknown-elf
    gcc-riscv64-linux-gnu libc6-dev-riscv64-cross binutils-riscv64-linux-gnu
    qemu-user qemu-system-misc python3 ca-certificates
    valgrind graphviz golang-go chromium
    opensbi u-boot-qemu device-tree-compiler
)
# Node.js and npm: Debian's unless the machine already has an npm (a
# Node.js from elsewhere bundles its own npm, which conflicts with Debian's).
command -v npm >/dev/null 2>&1 || packages+=(nodejs npm)

installed() {
    [ "$(dpkg-query -W -f='${Status}' "$1" 2>/dev/null)" = "install ok installed" ]
}

if command -v dpkg-query >/dev/null 2>&1; then
    missing=()
    for p in "${packages[@]}"; do
        installed "$p" || missing+=("$p")
    done
    if [ ${#missing[@]} -gt 0 ]; then
        echo "install-test-deps: installing ${missing[*]}" >&2
        if [ "$(id -u)" -eq 0 ]; then
            as_root=(env)
        elif command -v sudo >/dev/null 2>&1; then
            as_root=(sudo env)
        else
            echo "install-test-deps: missing Debian packages ${missing[*]}; run as root or install them" >&2
            exit 1
        fi
        "${as_root[@]}" DEBIAN_FRONTEND=noninteractive apt-get update -qq
        "${as_root[@]}" DEBIAN_FRONTEND=noninteractive apt-get install -y -qq \
            --no-install-recommends "${missing[@]}" >/dev/null
    fi
else
    # Not Debian: the tools must come from elsewhere; name what is missing.
    missing=()
    for t in riscv64-unknown-elf-gcc riscv64-unknown-elf-objdump riscv64-linux-gnu-gcc \
        qemu-riscv64 qemu-system-riscv32 qemu-system-riscv64 python3 \
        callgrind_annotate dot go chromium npm; do
        command -v "$t" >/dev/null 2>&1 || missing+=("$t")
    done
    # crates/fwprof-cli/tests/uboot.rs reads them at Debian's paths.
    for f in /usr/lib/riscv64-linux-gnu/opensbi/generic/fw_jump.elf \
        /usr/lib/u-boot/qemu-riscv64_smode/uboot.elf; do
        [ -f "$f" ] || missing+=("$f")
    done
    if [ ${#missing[@]} -gt 0 ]; then
        echo "install-test-deps: no dpkg here and these tools or files are missing: ${missing[*]}" >&2
        exit 1
    fi
fi

# Lints run by scripts/test.sh: rustup's minimal profile has no clippy.
if ! cargo clippy --version >/dev/null 2>&1; then
    if command -v rustup >/dev/null 2>&1; then
        rustup component add clippy
    else
        echo "install-test-deps: cargo clippy is missing (install the clippy component)" >&2
        exit 1
    fi
fi

scripts/setup-node.sh
