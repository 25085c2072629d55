#!/usr/bin/env bash
# Builds the benchmark workloads (scripts/bench.sh):
#   bench/coremix.rv64-linux.elf      rv64gc static Linux, committed (rebuild after changing coremix.c)
#   bench/corelike.rv64-linux.elf     rv64gc static Linux, CoreMark-shaped, committed
#   bench/*.cyg.rv64-linux.elf        the same with -finstrument-functions (record --method
#                                     instrument), committed
#   bench/fpbench.rv64-linux.elf      rv64gc static Linux, floating-point heavy (F/D speed), committed
#   bench/coremix.host, corelike.host host builds with gcc -O2 for the Callgrind comparison
#                                     (not committed)
set -euo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
REPO="$(cd "$HERE/.." && pwd)"
cd "$REPO"
RV64=(riscv64-linux-gnu-gcc -static -march=rv64gc -mabi=lp64d -O2 -g "-fdebug-prefix-map=$REPO=.")
for w in coremix corelike; do
  "${RV64[@]}" bench/$w.c -o bench/$w.rv64-linux.elf
  "${RV64[@]}" -finstrument-functions bench/$w.c -o bench/$w.cyg.rv64-linux.elf
  gcc -O2 -g bench/$w.c -o bench/$w.host
done
"${RV64[@]}" bench/fpbench.c -o bench/fpbench.rv64-linux.elf -lm
echo "built bench/{coremix,corelike}{.rv64-linux.elf,.cyg.rv64-linux.elf,.host} bench/fpbench.rv64-linux.elf"
