#!/usr/bin/env bash
# Builds the reliability workloads (reliability/src/*.c) for RISC-V Linux
# (rv64gc, static glibc) into two committed ELFs:
#   reliability/workloads.rv64-linux.elf             -O2 -g
#   reliability/workloads-instrument.rv64-linux.elf  the same with -finstrument-functions,
#       linked with fwprof's hook runtime runtime/fwprof_instrument.c when it exists,
#       otherwise with the empty hooks of reliability/hooks.c
# and the bare-metal form of the forced-context-loss kernel (reliability/baremetal/ctxloss.c)
# for QEMU virt (rv32imac, ilp32, picolibc with semihosting, linked at 0x80000000 as
# tests/corpus/build.sh does) into:
#   reliability/ctxloss.rv32imac.elf                 -O2 -g
# Run: reliability/workloads.rv64-linux.elf NAME PARAM, reliability/ctxloss.rv32imac.elf
# BURSTS [wfi|poll] (see reliability/README.md).
# OUT=DIR writes the three ELFs into DIR instead (the tests check that a fresh build is
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

# -misa-spec=2.2 keeps Zicsr (csrs/csrc) inside I for the assembler without breaking
# picolibc's multilib selection (as in tests/corpus/build.sh).
BARE_CC=riscv64-unknown-elf-gcc
BARE_FLAGS=(-march=rv32imac -mabi=ilp32 -misa-spec=2.2 -O2 -g "-fdebug-prefix-map=$REPO=."
  -Wall -Wextra -Werror)
BARE_LINK=(--specs=picolibc.specs --crt0=semihost --oslib=semihost
  -Wl,--defsym=__flash=0x80000000 -Wl,--defsym=__flash_size=0x400000
  -Wl,--defsym=__ram=0x80400000 -Wl,--defsym=__ram_size=0x7c00000
  -Wl,--defsym=__stack_size=0x10000)
"$BARE_CC" "${BARE_FLAGS[@]}" reliability/baremetal/ctxloss.c "${BARE_LINK[@]}" \
  -o "$OUT/ctxloss.rv32imac.elf"
echo "built $OUT/workloads.rv64-linux.elf $OUT/workloads-instrument.rv64-linux.elf (hooks: $HOOKS)" \
  "$OUT/ctxloss.rv32imac.elf"
