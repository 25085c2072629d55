#!/usr/bin/env bash
# Builds the guest-PMU test programs (committed; rebuild after changing a
# source), bare metal (picolibc + semihosting), flags as
# scripts/build-examples.sh:
#   count.rv32imac.elf     count.c + measure.S: counters programmed by the
#                          guest and read around two regions
#   sampler.rv64imac.elf   sampler.c + sampler_trap.S: a counter-overflow
#                          interrupt sampler in M-mode over a U-mode workload
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
REPO="$(cd "$HERE/../.." && pwd)"
cd "$REPO"

# BARE_LINK, COMMON
source "$REPO/scripts/bare-flags.sh"
D=tests/pmu

riscv64-unknown-elf-gcc -march=rv32imac -mabi=ilp32 "${COMMON[@]}" \
  $D/count.c $D/measure.S "${BARE_LINK[@]}" -o $D/count.rv32imac.elf
riscv64-unknown-elf-gcc -march=rv64imac -mabi=lp64 -mcmodel=medany "${COMMON[@]}" \
  $D/sampler.c $D/sampler_trap.S "${BARE_LINK[@]}" -o $D/sampler.rv64imac.elf
echo "built $D/{count.rv32imac,sampler.rv64imac}.elf"
