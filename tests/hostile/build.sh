#!/usr/bin/env bash
# Builds every guest program in tests/hostile/ (*.c, *.S) for 64-bit RISC-V
# Linux with riscv64-linux-gnu-gcc -static -O2 into tests/hostile/build/
# (git-ignored), as build/<name>.elf. Rebuilds only what is out of date.
set -euo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
OUT="$HERE/build"
mkdir -p "$OUT"
shopt -s nullglob
for src in "$HERE"/*.c "$HERE"/*.S; do
    name="$(basename "${src%.*}")"
    elf="$OUT/$name.elf"
    if [[ ! -e "$elf" || "$src" -nt "$elf" ]]; then
        riscv64-linux-gnu-gcc -static -O2 -g -o "$elf.tmp" "$src"
        mv "$elf.tmp" "$elf"
    fi
done
