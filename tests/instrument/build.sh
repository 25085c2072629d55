#!/usr/bin/env bash
# Builds the instrumentation test programs (committed; rebuild after changing a source):
#   kernel8.cyg.rv64-linux.elf     -finstrument-functions, static glibc (glibc's hooks: one
#                                  empty function under both names)
#   kernel8.cyg.rv32imac.elf       -finstrument-functions, picolibc + semihosting, hooks from
#                                  runtime/fwprof_instrument.c
#   kernel8.trace.rv64-linux.elf   -finstrument-functions with the program's own hooks
#                                  (trace_hooks.c: a ring buffer)
#   kernel8.pg.rv64-linux.elf      -pg, static glibc (glibc's _mcount; writes gmon.out)
#   kernel8.pg.rv32imac.elf        -pg, picolibc, _mcount from runtime/fwprof_instrument.c
# with -g -O2 -fdebug-prefix-map=<repo>=. (flags as scripts/build-examples.sh).
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
REPO="$(cd "$HERE/../.." && pwd)"
cd "$REPO"

# BARE_LINK, COMMON
source "$REPO/scripts/bare-flags.sh"
RV32=(riscv64-unknown-elf-gcc -march=rv32imac -mabi=ilp32 "${COMMON[@]}")
RV64=(riscv64-linux-gnu-gcc -static -march=rv64gc -mabi=lp64d "${COMMON[@]}")
D=tests/instrument
RT=runtime/fwprof_instrument.c

"${RV64[@]}" -finstrument-functions $D/kernel8.c -o $D/kernel8.cyg.rv64-linux.elf
"${RV32[@]}" -finstrument-functions $D/kernel8.c "${BARE_LINK[@]}" $RT -o $D/kernel8.cyg.rv32imac.elf
"${RV64[@]}" -finstrument-functions $D/kernel8.c $D/trace_hooks.c -o $D/kernel8.trace.rv64-linux.elf
"${RV64[@]}" -pg $D/kernel8.c -o $D/kernel8.pg.rv64-linux.elf
# The runtime is compiled without -pg (its _mcount must not call itself).
"${RV32[@]}" -c $RT -o "${TMPDIR:-/tmp}/fwprof_instrument.rv32.o"
"${RV32[@]}" -pg $D/kernel8.c "${BARE_LINK[@]}" "${TMPDIR:-/tmp}/fwprof_instrument.rv32.o" \
  -o $D/kernel8.pg.rv32imac.elf
rm -f "${TMPDIR:-/tmp}/fwprof_instrument.rv32.o"
echo "built $D/kernel8.{cyg,trace,pg}.*.elf"
