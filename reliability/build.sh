#!/usr/bin/env bash
# Builds the reliability workloads (reliability/src/*.c) for RISC-V Linux
# (rv64gc, static glibc) into two committed ELFs:
#   reliability/workloads.rv64-linux.elf             -O2 -g
#   reliability/workloads-instrument.rv64-linux.elf  the same with -finstrument-functions,
#       linked with fwprof's hook runtime runtime/fwprof_instrument.c when it exists,
#       otherwise with the empty hooks of reliability/hooks.c
# Run: reliability/workloads.rv64-linux.elf NAME PARAM (see reliability/README.md).
# OUT=DIR writes the two ELFs into DIR instead (the tests check that a fresh build is
# byte-identical to the committed ELFs).
# Sources are named relative to the repository root and -fdebug-prefix-map strips the
# checkout's path, so DWARF names repo-relative files. Rebuild after changing a source;
# `fwprof reliability` runs the committed ELFs.
set -euo pipefail

REPO="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$REPO"

CC=riscv64-linux-gnu-gcc
FLAGS=(-static -march=rv64gc -mabi=lp64d -O2 -g "-fdebug-prefix-map=$REPO=." -Wall -Wextra -Werror)
SRCS=(reliability/src/*.c)
OUT="${OUT:-reliability}"
mkdir -p "$OUT"

"$CC" "${FLAGS[@]}" "${SRCS[@]}" -o "$OUT/workloads.rv64-linux.elf"

if [ -f runtime/fwprof_instrument.c ]; then
  HOOKS=runtime/fwprof_instrument.c
else
  HOOKS=reliability/hooks.c
fi
# The hook runtime itself is compiled without instrumentation.
HOOKS_O="${TMPDIR:-/tmp}/fwprof-reliability-hooks.$$.o"
"$CC" "${FLAGS[@]}" -c "$HOOKS" -o "$HOOKS_O"
"$CC" "${FLAGS[@]}" -finstrument-functions "${SRCS[@]}" "$HOOKS_O" \
  -o "$OUT/workloads-instrument.rv64-linux.elf"
rm -f "$HOOKS_O"
echo "built $OUT/workloads.rv64-linux.elf $OUT/workloads-instrument.rv64-linux.elf (hooks: $HOOKS)"
