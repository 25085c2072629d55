#!/usr/bin/env bash
# Builds the reliability workloads (reliability/src/*.c) for RISC-V Linux
# (rv64gc, static glibc) into two committed ELFs:
#   reliability/workloads.rv64-linux.elf             -O2 -g
#   reliability/workloads-instrument.rv64-linux.elf  the same with -finstrument-functions,
#       linked with fwprof's hook runtime runtime/fwprof_instrument.c when it exists,
#       otherwise with the empty hooks of reliability/hooks.c
# Run: reliability/workloads.rv64-linux.elf NAME PARAM (see reliability/README.md).
# Sources are named relative to the repository root and -fdebug-prefix-map strips the
# checkout's path, so DWARF names repo-relative files. Rebuild after changing a source;
# `fwprof reliability` runs the committed ELFs.
set -euo pipefail

REPO="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$REPO"

CC=riscv64-linux-gnu-gcc
FLAGS=(-static -march=rv64gc -mabi=lp64d -O2 -g "-fdebug-prefix-map=$REPO=." -Wall -Wextra -Werror)
SRCS=(reliability/src/*.c)

"$CC" "${FLAGS[@]}" "${SRCS[@]}" -o reliability/workloads.rv64-linux.elf

if [ -f runtime/fwprof_instrument.c ]; then
  HOOKS=runtime/fwprof_instrument.c
else
  HOOKS=reliability/hooks.c
fi
# The hook runtime itself is compiled without instrumentation.
"$CC" "${FLAGS[@]}" -c "$HOOKS" -o /tmp/fwprof-reliability-hooks.$$.o
"$CC" "${FLAGS[@]}" -finstrument-functions "${SRCS[@]}" /tmp/fwprof-reliability-hooks.$$.o \
  -o reliability/workloads-instrument.rv64-linux.elf
rm -f /tmp/fwprof-reliability-hooks.$$.o
echo "built reliability/workloads.rv64-linux.elf reliability/workloads-instrument.rv64-linux.elf (hooks: $HOOKS)"
