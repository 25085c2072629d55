#!/usr/bin/env bash
# Builds the firmware trap corpus (issue 13): bare-metal programs that take
# interrupts and exceptions, run S- and U-mode code, page and use PMP, for
# rv32 and rv64, into build/<name>.<config>.elf.
#
#   tests/firmware/build.sh            build what is missing or out of date
#   tests/firmware/build.sh --clean    remove build/ first
#   tests/firmware/build.sh --list     print the ELF names that would be built
#
# Configurations (as tests/corpus/build.sh, picolibc + semihosting, -O2 -g):
#   rv32   -march=rv32imac -mabi=ilp32                      (qemu-system-riscv32)
#   rv64   -march=rv64gc -mabi=lp64d -mcmodel=medany        (qemu-system-riscv64)
# Every program links src/fw_common.c and src/fw_trap.S. They are run only with
# deterministic time: qemu-system-riscv* -icount shift=N,sleep=off against
# fwprof --icount-shift N (crates/fwprof-cli/tests/firmware.rs); without it
# QEMU's timer follows the host clock.
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
REPO="$(cd "$HERE/../.." && pwd)"
SRC="$HERE/src"
OUT="$HERE/build"
CC=riscv64-unknown-elf-gcc
source "$REPO/scripts/bare-flags.sh"
LINK=("${BARE_LINK[@]}")

# name: what it checks is at the top of src/<name>.c
PROGRAMS="timer_spin timer_wfi soft_irq nested vectored deleg ecalls paging pmp coop"
# paging's two U-mode programs on their own, linked where they run
# (0x400000), for `record --symbols` (their code is the code paging runs).
USER_PROGRAMS="user_a user_b"
CONFIGS="rv32 rv64"

list_jobs() {
  for p in $PROGRAMS $USER_PROGRAMS; do for c in $CONFIGS; do echo "$p $c"; done; done
}

build_one() {
  local name="$1" cfg="$2"
  local elf="$OUT/$name.$cfg.elf"
  local srcs=("$SRC/$name.c" "$SRC/fw_common.c" "$SRC/fw_trap.S")
  local link=("${LINK[@]}")
  case "$name" in
    user_a | user_b)
      srcs=("$SRC/paging.S")
      link=(-nostdlib -nostartfiles -Wl,--gc-sections "-Wl,-e,$name"
        -Wl,-Ttext=0x400000 -Wl,--build-id=none) ;;
  esac
  [ -f "$SRC/$name.S" ] && srcs+=("$SRC/$name.S")
  if [ -f "$elf" ]; then
    local stale=0 f
    for f in "${srcs[@]}" "$SRC/fw.h" "$HERE/build.sh"; do
      [ "$f" -nt "$elf" ] && stale=1
    done
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
    -Wall -Wextra -Wno-unused-parameter -I "$SRC" "${srcs[@]}" "${link[@]}" -o "$elf.tmp") ||
    { echo "FAILED: $name.$cfg" >&2; rm -f "$elf.tmp"; return 1; }
  mv "$elf.tmp" "$elf"
}

case "${1:-}" in
  --one) shift; build_one "$@"; exit $? ;;
  --list) list_jobs | awk '{print $1"."$2".elf"}'; exit 0 ;;
  --clean) rm -rf "$OUT" ;;
  "") ;;
  *) echo "usage: $0 [--clean|--list]" >&2; exit 2 ;;
esac

mkdir -p "$OUT"
list_jobs | xargs -P "${JOBS:-2}" -L 1 "$HERE/build.sh" --one
echo "firmware: $(list_jobs | wc -l) ELFs in ${OUT#$REPO/}"
