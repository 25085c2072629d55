#!/usr/bin/env bash
# Builds the control-flow-graph test functions (committed; rebuild after
# changing cfg.S): cfg.rv32imac.elf, hand-written assembly, no C runtime
# (it is read, not run).
set -euo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
cd "$HERE"
riscv64-unknown-elf-gcc -march=rv32imac -misa-spec=2.2 -mabi=ilp32 -nostdlib -nostartfiles \
  -Wl,-Ttext=0x80000000 -Wl,-e,straight cfg.S -o cfg.rv32imac.elf
echo "built tests/paths/cfg.rv32imac.elf"
