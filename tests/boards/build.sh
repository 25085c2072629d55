#!/usr/bin/env bash
# Builds the board-file corpus (issue 14, --board): bare-metal programs
# for the SiFive FE310-G002 (boards/fe310-g002.toml), linked to run from its
# flash at 0x20010000 with .data loaded in flash and copied to the DTIM by
# src/crt.S, talking to the host through semihosting, into
# build/<name>.elf.
#
#   tests/boards/build.sh            build what is missing or out of date
#   tests/boards/build.sh --clean    remove build/ first
#   tests/boards/build.sh --list     print the file names that would be built
#
# One configuration: -march=rv32imac -mabi=ilp32 -O2 -g, -nostdlib
# -nostartfiles -ffreestanding, src/crt.S, src/semihost.c, src/fe310.ld.
# What each program checks, and its expected output, is at the top of its
# source; README.md has the table.
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
REPO="$(cd "$HERE/../.." && pwd)"
SRC="$HERE/src"
OUT="$HERE/build"
CC=riscv64-unknown-elf-gcc

PROGRAMS="flash_data peripherals load_check"

list_files() {
  for p in $PROGRAMS; do echo "$p.elf"; done
}

build_one() {
  local name="$1"
  local elf="$OUT/$name.elf"
  local srcs=("$SRC/crt.S" "$SRC/semihost.c" "$SRC/$name.c")
  if [ -f "$elf" ]; then
    local stale=0 f
    for f in "${srcs[@]}" "$SRC/semihost.h" "$SRC/fe310.ld" "$HERE/build.sh"; do
      [ "$f" -nt "$elf" ] && stale=1
    done
    [ "$stale" = 0 ] && return 0
  fi
  mkdir -p "$OUT"
  (cd "$REPO" && "$CC" -march=rv32imac -mabi=ilp32 -misa-spec=2.2 -O2 -g \
    "-fdebug-prefix-map=$REPO=." -ffreestanding -fno-tree-loop-distribute-patterns \
    -nostdlib -nostartfiles -Wall -Wextra -I "$SRC" "${srcs[@]}" -T "$SRC/fe310.ld" \
    -Wl,--build-id=none -Wl,--no-warn-rwx-segments -lgcc -o "$elf.tmp") ||
    { echo "FAILED: $name" >&2; rm -f "$elf.tmp"; return 1; }
  mv "$elf.tmp" "$elf"
}

case "${1:-}" in
  --list) list_files; exit 0 ;;
  --clean) rm -rf "$OUT" ;;
  "") ;;
  *) echo "usage: $0 [--clean|--list]" >&2; exit 2 ;;
esac

command -v "$CC" >/dev/null || { echo "$0: $CC not found (Debian: apt install gcc-riscv64-unknown-elf)" >&2; exit 1; }
mkdir -p "$OUT"
for p in $PROGRAMS; do build_one "$p"; done
echo "boards: $(list_files | wc -l) files in ${OUT#$REPO/}"
