#!/usr/bin/env bash
# Builds the bundled example programs (examples/<name>/*.c) for two targets:
#   examples/<name>/<name>.rv32imac.elf     bare metal, picolibc + semihosting, QEMU virt
#   examples/<name>/<name>.rv64-linux.elf   static glibc, qemu-riscv64 / fwprof Linux mode
# with -g -O2 -fdebug-prefix-map=<repo>=. and sources named relative to the repo root, so
# DWARF names repo-relative paths (examples/sha256/sha256.c).  The ELFs are committed;
# rebuild with this script after changing a source.  Nothing is stripped.
set -euo pipefail

REPO="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$REPO"

# BARE_LINK, COMMON
source "$REPO/scripts/bare-flags.sh"

for dir in examples/*/; do
  name="$(basename "$dir")"
  srcs=("$dir"*.c)
  [ -e "${srcs[0]}" ] || continue
  srcs=("${srcs[@]%/}")
  riscv64-unknown-elf-gcc -march=rv32imac -mabi=ilp32 "${COMMON[@]}" -I "$dir" "${srcs[@]}" \
    "${BARE_LINK[@]}" -o "$dir$name.rv32imac.elf"
  riscv64-linux-gnu-gcc -static -march=rv64gc -mabi=lp64d "${COMMON[@]}" -I "$dir" "${srcs[@]}" \
    -o "$dir$name.rv64-linux.elf"
  echo "built $dir$name.rv32imac.elf $dir$name.rv64-linux.elf"
done
