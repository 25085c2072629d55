#!/bin/sh
# Rebuilds the ELF fixtures of fwprof-symbols' tests (needs gcc-riscv64-unknown-elf).
set -e
cd "$(dirname "$0")"
CC=riscv64-unknown-elf-gcc
FLAGS="-nostdlib -nostartfiles -ffreestanding -Wl,--build-id=sha1 -fdebug-prefix-map=$(pwd)=/build/fwprof/data"
$CC -march=rv64gc -mabi=lp64d -O2 -g $FLAGS -o rv64.elf sample.c extra.s
$CC -march=rv32imac -mabi=ilp32 -O1 -g -Wl,--build-id=none -nostdlib -nostartfiles -ffreestanding -o rv32.elf sample.c extra.s
riscv64-unknown-elf-strip -o rv64-stripped.elf rv64.elf
