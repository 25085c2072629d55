#!/usr/bin/env bash
# Builds the RTOS corpus (issue 15): a tiny preemptive kernel with three
# tasks for one hart of QEMU's `virt` board, with no semihosting and no
# libc, into build/<name>.<config>.elf:
#   rtos.rv32.elf  rtos.rv64.elf               plain
#   rtos_instr.rv32.elf  rtos_instr.rv64.elf   -finstrument-functions, with
#                                              src/cyg.c's empty hooks
#
#   tests/rtos/build.sh            build what is missing or out of date
#   tests/rtos/build.sh --clean    remove the ELFs first, rebuild everything
#   tests/rtos/build.sh --list     print the file names that would be built
#
# The ELFs are committed, so that tests need no cross compiler. "Out of
# date" is decided by content, not by file times (a checkout sets those in
# any order): build/inputs.sha256 holds the SHA-256 of every file in src/
# and of this script as they were at the last build; when it matches, only
# missing ELFs are built, and nothing needs the compiler.
#
# Configurations (-O2 -g, -nostdlib -nostartfiles -ffreestanding, src/*.S,
# src/*.c but cyg.c, src/rtos.ld):
#   rv32   -march=rv32imac -mabi=ilp32                      (qemu-system-riscv32)
#   rv64   -march=rv64gc -mabi=lp64d -mcmodel=medany        (qemu-system-riscv64)
# What the program checks, and its expected output, is at the top of
# src/app.c; README.md has the details and the QEMU commands.
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
REPO="$(cd "$HERE/../.." && pwd)"
SRC="$HERE/src"
OUT="$HERE/build"
STAMP="$OUT/inputs.sha256"
CC=riscv64-unknown-elf-gcc

PROGRAMS="rtos rtos_instr"
CONFIGS="rv32 rv64"

list_jobs() {
  local p c
  for p in $PROGRAMS; do
    for c in $CONFIGS; do echo "$p $c"; done
  done
}

list_files() {
  list_jobs | while read -r p c; do echo "$p.$c.elf"; done
}

# SHA-256 of the build's inputs, one line per file (path relative to HERE),
# in the C locale's order whatever the caller's
inputs_hash() {
  (cd "$HERE" && LC_ALL=C && sha256sum build.sh src/*)
}

build_one() {
  local name="$1" cfg="$2"
  local elf="$OUT/$name.$cfg.elf" arch extra=()
  local srcs=("$SRC/crt.S" "$SRC/switch.S" "$SRC/kernel.c" "$SRC/uart.c" "$SRC/lib.c" "$SRC/app.c")
  case "$name" in
    rtos_instr) extra=(-finstrument-functions); srcs+=("$SRC/cyg.c") ;;
  esac
  case "$cfg" in
    rv32) arch=(-march=rv32imac -mabi=ilp32) ;;
    rv64) arch=(-march=rv64gc -mabi=lp64d -mcmodel=medany) ;;
    *) echo "unknown config $cfg" >&2; return 1 ;;
  esac
  (cd "$REPO" && "$CC" "${arch[@]}" -misa-spec=2.2 -O2 -g "-fdebug-prefix-map=$REPO=." \
    -ffreestanding -nostdlib -nostartfiles -fno-tree-loop-distribute-patterns \
    -Wall -Wextra -I "$SRC" "${extra[@]}" "${srcs[@]}" -T "$SRC/rtos.ld" \
    -Wl,--build-id=none -Wl,--no-warn-rwx-segments -lgcc -o "$elf.tmp") ||
    { echo "FAILED: $name.$cfg" >&2; rm -f "$elf.tmp"; return 1; }
  mv "$elf.tmp" "$elf"
}

clean=0
case "${1:-}" in
  --one) shift; build_one "$@"; exit $? ;;
  --list) list_files; exit 0 ;;
  --clean) clean=1 ;;
  "") ;;
  *) echo "usage: $0 [--clean|--list]" >&2; exit 2 ;;
esac

mkdir -p "$OUT"
if [ "$clean" = 1 ] || ! cmp -s "$STAMP" <(inputs_hash); then
  list_files | while read -r f; do rm -f "$OUT/$f"; done
  rm -f "$STAMP"
fi
missing="$(list_jobs | while read -r p c; do [ -f "$OUT/$p.$c.elf" ] || echo "$p $c"; done)"
if [ -n "$missing" ]; then
  command -v "$CC" >/dev/null ||
    { echo "$0: $CC not found (Debian: apt install gcc-riscv64-unknown-elf)" >&2; exit 1; }
  echo "$missing" | xargs -P "${JOBS:-2}" -L 1 "$HERE/build.sh" --one
  inputs_hash >"$STAMP"
fi
echo "rtos: $(list_files | wc -l) files in ${OUT#"$REPO"/}"
