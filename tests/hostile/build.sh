#!/usr/bin/env bash
# Builds the hostile guest programs: every tests/hostile/*.c into
# tests/hostile/build/<name>.elf (rv64 Linux, riscv64-linux-gnu-gcc -static,
# glibc). Rebuilds only what is missing or older than its source.
# Run by scripts/test.sh and by crates/fwprof-cli/tests/hostile.rs.
set -euo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
mkdir -p "$HERE/build"
for src in "$HERE"/*.c; do
  name="$(basename "$src" .c)"
  out="$HERE/build/$name.elf"
  if [[ ! -e "$out" || "$src" -nt "$out" ]]; then
    riscv64-linux-gnu-gcc -static -O1 -g -o "$out.tmp" "$src"
    mv "$out.tmp" "$out"
  fi
done
