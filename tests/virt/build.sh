#!/usr/bin/env bash
# Builds the QEMU `virt` bare-metal corpus (issue 14): programs that print
# through the 16550A UART and end through the SiFive test device, with no
# semihosting and no libc, into build/<name>.<config>.elf (and
# build/rv32_kernel.<config>.bin, the kernel as a raw binary).
#
#   tests/virt/build.sh            build what is missing or out of date
#   tests/virt/build.sh --clean    remove build/ first
#   tests/virt/build.sh --list     print the file names that would be built
#
# Configurations (-O2 -g, -nostdlib -nostartfiles -ffreestanding, src/crt.S,
# src/virt.c, src/virt.ld):
#   rv32   -march=rv32imac -mabi=ilp32                      (qemu-system-riscv32)
#   rv64   -march=rv64gc -mabi=lp64d -mcmodel=medany        (qemu-system-riscv64)
# What each program checks, and its expected output, is at the top of its
# source; README.md has the table and the QEMU commands.
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
REPO="$(cd "$HERE/../.." && pwd)"
SRC="$HERE/src"
OUT="$HERE/build"
CC=riscv64-unknown-elf-gcc
OBJCOPY=riscv64-unknown-elf-objcopy

# name -> source: exit_* are src/exit_codes.c with -DEXIT_<VARIANT>
PROGRAMS="uart_hello exit_pass exit_fail3 exit_fail0 exit_reset exit_16bit exit_wide
  uart_echo_irq uart_poll_echo dt_read rv32_fw rv32_kernel"
CONFIGS="rv32 rv64"

list_jobs() {
  for p in $PROGRAMS; do
    for c in $CONFIGS; do
      [ "$p.$c" = exit_wide.rv32 ] && continue # an 8-byte store needs rv64
      echo "$p $c"
    done
  done
}

list_files() {
  list_jobs | while read -r p c; do
    echo "$p.$c.elf"
    [ "$p" = rv32_kernel ] && echo "$p.$c.bin"
  done
  return 0
}

build_one() {
  local name="$1" cfg="$2"
  local elf="$OUT/$name.$cfg.elf"
  local src="$SRC/$name.c" defs=() start=0x80000000
  case "$name" in
    exit_*)
      src="$SRC/exit_codes.c"
      defs=("-DEXIT_$(echo "${name#exit_}" | tr a-z A-Z)") ;;
    rv32_kernel)
      defs=(-DSMODE)
      case "$cfg" in rv32) start=0x80400000 ;; rv64) start=0x80200000 ;; esac ;;
  esac
  local srcs=("$SRC/crt.S" "$SRC/virt.c" "$src")
  if [ -f "$elf" ]; then
    local stale=0 f
    for f in "${srcs[@]}" "$SRC/virt.h" "$SRC/virt.ld" "$HERE/build.sh"; do
      [ "$f" -nt "$elf" ] && stale=1
    done
    [ "$name" = rv32_kernel ] && [ ! -f "$OUT/$name.$cfg.bin" ] && stale=1
    [ "$stale" = 0 ] && return 0
  fi
  mkdir -p "$OUT"
  local arch
  case "$cfg" in
    rv32) arch=(-march=rv32imac -mabi=ilp32) ;;
    rv64) arch=(-march=rv64gc -mabi=lp64d -mcmodel=medany) ;;
    *) echo "unknown config $cfg" >&2; return 1 ;;
  esac
  (cd "$REPO" && "$CC" "${arch[@]}" -misa-spec=2.2 -O2 -g "-fdebug-prefix-map=$REPO=." \
    -ffreestanding -nostdlib -nostartfiles -Wall -Wextra -I "$SRC" "${defs[@]}" \
    "${srcs[@]}" -T "$SRC/virt.ld" "-Wl,--defsym=__image_start=$start" \
    -Wl,--build-id=none -Wl,--no-warn-rwx-segments -lgcc -o "$elf.tmp") ||
    { echo "FAILED: $name.$cfg" >&2; rm -f "$elf.tmp"; return 1; }
  if [ "$name" = rv32_kernel ]; then
    "$OBJCOPY" -O binary "$elf.tmp" "$OUT/$name.$cfg.bin" ||
      { echo "FAILED: $name.$cfg.bin" >&2; rm -f "$elf.tmp"; return 1; }
  fi
  mv "$elf.tmp" "$elf"
}

case "${1:-}" in
  --one) shift; build_one "$@"; exit $? ;;
  --list) list_files; exit 0 ;;
  --clean) rm -rf "$OUT" ;;
  "") ;;
  *) echo "usage: $0 [--clean|--list]" >&2; exit 2 ;;
esac

command -v "$CC" >/dev/null || { echo "$0: $CC not found (Debian: apt install gcc-riscv64-unknown-elf)" >&2; exit 1; }
command -v "$OBJCOPY" >/dev/null || { echo "$0: $OBJCOPY not found (binutils-riscv64-unknown-elf)" >&2; exit 1; }
mkdir -p "$OUT"
list_jobs | xargs -P "${JOBS:-2}" -L 1 "$HERE/build.sh" --one
echo "virt: $(list_files | wc -l) files in ${OUT#$REPO/}"
