#!/usr/bin/env bash
# Builds the multi-hart corpus (issue 15): bare-metal programs for QEMU's
# `virt` board run by 2 or 4 harts, with no semihosting and no libc, into
# build/<name><harts>.<config>.elf (e.g. build/psum4.rv64.elf).
#
#   tests/smp/build.sh            build what is missing or out of date
#   tests/smp/build.sh --clean    remove the ELFs first, rebuild everything
#   tests/smp/build.sh --list     print the file names that would be built
#
# The ELFs are committed, so that tests need no cross compiler. "Out of
# date" is decided by content, not by file times (a checkout sets those in
# any order): build/inputs.sha256 holds the SHA-256 of every file in src/
# and of this script as they were at the last build; when it matches, only
# missing ELFs are built, and nothing needs the compiler.
#
# Configurations (-O2 -g, -nostdlib -nostartfiles -ffreestanding, src/crt.S,
# src/smp.c, src/smp.ld), each built with -DHARTS=2 and -DHARTS=4:
#   rv32   -march=rv32imac -mabi=ilp32                      (qemu-system-riscv32)
#   rv64   -march=rv64gc -mabi=lp64d -mcmodel=medany        (qemu-system-riscv64)
# What each program checks, and its expected output, is at the top of its
# source; README.md has the table and the QEMU commands.
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
REPO="$(cd "$HERE/../.." && pwd)"
SRC="$HERE/src"
OUT="$HERE/build"
STAMP="$OUT/inputs.sha256"
CC=riscv64-unknown-elf-gcc

# name -> source: ipi_irq is src/ipi.c with -DIPI_IRQ
PROGRAMS="psum ipi ipi_irq spinlock"
HARTS_LIST="2 4"
CONFIGS="rv32 rv64"

list_jobs() {
  local p n c
  for p in $PROGRAMS; do
    for n in $HARTS_LIST; do
      for c in $CONFIGS; do
        echo "$p $n $c"
      done
    done
  done
}

list_files() {
  list_jobs | while read -r p n c; do echo "$p$n.$c.elf"; done
}

# SHA-256 of the build's inputs, one line per file (path relative to HERE),
# in the C locale's order whatever the caller's
inputs_hash() {
  (cd "$HERE" && LC_ALL=C && sha256sum build.sh src/*)
}

build_one() {
  local name="$1" harts="$2" cfg="$3"
  local elf="$OUT/$name$harts.$cfg.elf" src="$SRC/$name.c" defs=("-DHARTS=$harts") arch
  case "$name" in
    ipi_irq) src="$SRC/ipi.c"; defs+=(-DIPI_IRQ) ;;
  esac
  case "$cfg" in
    rv32) arch=(-march=rv32imac -mabi=ilp32) ;;
    rv64) arch=(-march=rv64gc -mabi=lp64d -mcmodel=medany) ;;
    *) echo "unknown config $cfg" >&2; return 1 ;;
  esac
  (cd "$REPO" && "$CC" "${arch[@]}" -misa-spec=2.2 -O2 -g "-fdebug-prefix-map=$REPO=." \
    -ffreestanding -nostdlib -nostartfiles -Wall -Wextra -I "$SRC" "${defs[@]}" \
    "$SRC/crt.S" "$SRC/smp.c" "$src" -T "$SRC/smp.ld" \
    -Wl,--build-id=none -Wl,--no-warn-rwx-segments -lgcc -o "$elf.tmp") ||
    { echo "FAILED: $name$harts.$cfg" >&2; rm -f "$elf.tmp"; return 1; }
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
missing="$(list_jobs | while read -r p n c; do [ -f "$OUT/$p$n.$c.elf" ] || echo "$p $n $c"; done)"
if [ -n "$missing" ]; then
  command -v "$CC" >/dev/null ||
    { echo "$0: $CC not found (Debian: apt install gcc-riscv64-unknown-elf)" >&2; exit 1; }
  echo "$missing" | xargs -P "${JOBS:-2}" -L 1 "$HERE/build.sh" --one
  inputs_hash >"$STAMP"
fi
echo "smp: $(list_files | wc -l) files in ${OUT#"$REPO"/}"
