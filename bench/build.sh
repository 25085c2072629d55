#!/usr/bin/env bash
# Builds the benchmark workload:
#   bench/coremix.rv64-linux.elf  rv64gc static Linux, committed (rebuild after changing coremix.c)
#   bench/fpbench.rv64-linux.elf  rv64gc static Linux, floating-point heavy (F/D speed), committed
#   bench/coremix.host            host build with gcc -O2 for the callgrind comparison (not committed)
set -euo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
REPO="$(cd "$HERE/.." && pwd)"
cd "$REPO"
riscv64-linux-gnu-gcc -static -march=rv64gc -mabi=lp64d -O2 -g "-fdebug-prefix-map=$REPO=." \
  bench/coremix.c -o bench/coremix.rv64-linux.elf
riscv64-linux-gnu-gcc -static -march=rv64gc -mabi=lp64d -O2 -g "-fdebug-prefix-map=$REPO=." \
  bench/fpbench.c -o bench/fpbench.rv64-linux.elf -lm
gcc -O2 -g bench/coremix.c -o bench/coremix.host
echo "built bench/coremix.rv64-linux.elf bench/fpbench.rv64-linux.elf bench/coremix.host"
