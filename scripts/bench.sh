#!/usr/bin/env bash
# Speed table of issue 16 (scripts/bench.py does the work): fwprof's tiers and
# collectors, plain QEMU 7.2 linux-user, and Callgrind (plain, and with its cache and
# branch simulators) on two workloads built from the same C source for RV64 Linux and
# for the host: bench/coremix.c (the bundled benchmark) and bench/corelike.c (shaped
# like EEMBC CoreMark: list processing with pointer chasing, matrix multiply, a state
# machine and CRC, one call per ~110 instructions). Commands are timed in alternating
# pairs; it prints median wall and CPU times, guest MIPS, and the median of the
# per-pair ratios with their range.
#
#   scripts/bench.sh                        # ITER=1000 (coremix), ITER_CORELIKE=200, RUNS=5
#   RUNS=3 ITER=300 ITER_CORELIKE=50 scripts/bench.sh     # quicker
#   WORKLOAD=corelike SKIP="callgrind" scripts/bench.sh   # one workload, no Callgrind
#
# fwprof is $FWPROF, else ${CARGO_TARGET_DIR:-target}/release/fwprof, built with
# `cargo build --release` when missing; the workloads are built by bench/build.sh when
# missing (the RV64 ELFs are committed; the host builds are not).
set -euo pipefail
REPO="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$REPO"
FWPROF="${FWPROF:-${CARGO_TARGET_DIR:-$REPO/target}/release/fwprof}"
[ -x "$FWPROF" ] || cargo build --release >&2
for f in bench/coremix.host bench/corelike.host bench/coremix.cyg.rv64-linux.elf \
         bench/corelike.cyg.rv64-linux.elf; do
  [ -e "$f" ] || { bench/build.sh >&2; break; }
done
FWPROF="$FWPROF" exec python3 scripts/bench.py
