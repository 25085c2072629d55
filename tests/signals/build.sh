#!/usr/bin/env bash
# Builds the signal test program (committed; rebuild after changing sigtest.c):
#   sigtest.rv64-linux.elf   riscv64-linux-gnu-gcc -static (glibc), -O2 -g
# with -fdebug-prefix-map=<repo>=. so that DWARF names repo-relative paths.
# Run by hand; crates/fwprof-cli/tests/guest_signals.rs uses the committed ELF.
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
REPO="$(cd "$HERE/../.." && pwd)"
cd "$REPO"
D=tests/signals
riscv64-linux-gnu-gcc -static -march=rv64gc -mabi=lp64d -O2 -g "-fdebug-prefix-map=$REPO=." \
  -Wall -Wextra $D/sigtest.c -lm -o $D/sigtest.rv64-linux.elf
echo "built $D/sigtest.rv64-linux.elf"
