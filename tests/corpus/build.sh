#!/usr/bin/env bash
# Builds the fwprof differential-test corpus: every program in src/ in each configuration
# it applies to, at several optimisation levels, into build/<name>.<config>.<opt>.elf.
#
#   tests/corpus/build.sh            build what is missing or out of date (parallel)
#   tests/corpus/build.sh --clean    remove build/ first
#   tests/corpus/build.sh --list     print the ELF names that would be built
#
# Configurations:
#   rv32imac    bare metal, ilp32 (soft float), picolibc + semihosting   (qemu-system-riscv32)
#   rv32im      bare metal, ilp32, no C: PicoRV32's Dhrystone build (qemu-system-riscv32)
#   rv32imafdc  bare metal, ilp32d                                        (qemu-system-riscv32)
#   rv64gc      bare metal, lp64d, -mcmodel=medany                       (qemu-system-riscv64)
#   rv64-linux  riscv64-linux-gnu-gcc -static (glibc), lp64d              (qemu-riscv64)
#   rv64-linux-pg  as rv64-linux with -pg (writes gmon.out in the cwd on exit)
# Bit-manipulation variants (Zba, Zbb, Zbc, Zbs; QEMU 7.2's default CPUs have all four):
#   rv64gc-zb       as rv64gc, compiled with -march=rv64gc_zba_zbb_zbc_zbs (picolibc's lp64d
#                   multilib, which GCC picks for that -march too)
#   rv64-linux-zb   as rv64-linux with -march=rv64gc_zba_zbb_zbc_zbs
#   rv32imac-zb     the program's own objects compiled with -march=rv32imac_zba_zbb_zbc_zbs,
#                   linked with -march=rv32imac: GCC's multilib selection knows no Zb* march
#                   (it would fall back to the rv64 default), so the link line names the
#                   rv32imac/ilp32 picolibc multilib; the library itself has no Zb* code
# Stack-unwinding variants (sampling tests: unwound stacks against exact call tracking):
#   rv32imac-fp     as rv32imac with -fno-omit-frame-pointer (CFI in .debug_frame)
#   rv64-linux-fp   as rv64-linux with -fno-omit-frame-pointer (CFI in .eh_frame and .debug_frame)
#   rv64gc-nocfi    as rv64gc with -fno-omit-frame-pointer -fno-asynchronous-unwind-tables
#                   -fno-unwind-tables, and .debug_frame (which -g still emits) removed after
#                   linking: no CFI at all, frame pointers in the program's own code only
#   rv64-linux-nocfi  as rv64-linux with the same flags and .debug_frame removed: the program's
#                   code has no CFI and keeps frame pointers; glibc keeps its .eh_frame
# -misa-spec=2.2 keeps Zicsr/Zifencei inside I for the assembler (GCC 12 defaults to the
# 20191213 spec where rv32imac lacks them) without breaking picolibc multilib selection.
# Bare-metal images link at 0x80000000 (QEMU virt RAM, 128 MiB): code/rodata in the first
# 4 MiB, data/bss/heap/stack above.  Compiled with -g -fdebug-prefix-map=<repo>=. so
# DWARF names repo-relative paths.
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
REPO="$(cd "$HERE/../.." && pwd)"
SRC="$HERE/src"
OUT="$HERE/build"
JOBS="${JOBS:-$(nproc)}"

BARE_CC=riscv64-unknown-elf-gcc
LINUX_CC=riscv64-linux-gnu-gcc
# BARE_LINK (its COMMON is not used here: each build sets its own flags)
source "$REPO/scripts/bare-flags.sh"

# Program table: name | configurations | optimisation levels
#   all  = rv32imac rv32imafdc rv64gc rv64-linux
#   fp   = rv32imafdc rv64gc rv64-linux          (needs hardware F+D)
#   bare = rv32imac rv32imafdc rv64gc
#   soft = rv32imac                              (soft-float only)
#   linux = rv64-linux
#   zb   = rv32imac-zb rv64gc-zb rv64-linux-zb   (Zba/Zbb/Zbc/Zbs)
# A program may have several lines (dhrystone: the usual configurations, plus rv32im -O3).
# A file src/<name>.S, if present, is compiled and linked in as well.
PROGRAMS="
checksums   all    O0 O2 Os
sha256      all    O0 O2 O3
md5         all    O0 O2
qsort       all    O0 O2
printf_fmt  all    O0 O2
scanf_fmt   all    O0 O2
softfloat   all    O0 O2
libm        all    O0 O2
fp_edge     fp     O0 O2
atomics     all    O0 O2
setjmp      all    O0 O2
funcptr     all    O0 O2 Os
recursion   all    O0 O2
tailcalls   all    O0 O2 O3
malloc_stress all  O0 O2
strings     all    O0 O2 Os
csr         all    O0 O2
int_edge    all    O0 O2 O3
misaligned  all    O0 O2
isa_all     fp     O0 O2
semihost_all bare  O0 O2
linux_fileio linux O0 O2
exit_code   all    O0 O2
bitfields   all    O0 O2 Os
matrix      all    O0 O2 O3
bigint      all    O0 O2
sieve_hash  all    O0 O2
asm_calls   all    O0 O2
dhrystone   all    O0 O2 O3
dhrystone   rv32im O3
bitmanip    zb     O0 O2
sha256      zb     O2
checksums   zb     O2
int_edge    zb     O2
bigint      zb     O2
"
# -pg builds (Linux, -O2) for the gprof call-graph comparison.
PG_PROGRAMS="recursion qsort funcptr tailcalls"
# Unwinding variants (-O2) for the sampling tests: call-heavy programs, bare metal and Linux
# (recursion only on bare metal: its Linux build recurses 100,000 deep).
UNWIND_BARE="recursion tailcalls funcptr qsort dhrystone"
UNWIND_LINUX="tailcalls funcptr qsort dhrystone"

expand_configs() {
  case "$1" in
    all) echo rv32imac rv32imafdc rv64gc rv64-linux ;;
    fp) echo rv32imafdc rv64gc rv64-linux ;;
    bare) echo rv32imac rv32imafdc rv64gc ;;
    soft) echo rv32imac ;;
    linux) echo rv64-linux ;;
    zb) echo rv32imac-zb rv64gc-zb rv64-linux-zb ;;
    *) echo "$1" ;;
  esac
}

# Prints "name config opt" for every ELF to build.
list_jobs() {
  echo "$PROGRAMS" | while read -r name cfgs opts; do
    [ -z "${name:-}" ] && continue
    for cfg in $(expand_configs "$cfgs"); do
      for opt in $opts; do echo "$name $cfg $opt"; done
    done
  done
  for name in $PG_PROGRAMS; do echo "$name rv64-linux-pg O2"; done
  for name in $UNWIND_BARE; do
    echo "$name rv32imac-fp O2"
    echo "$name rv64gc-nocfi O2"
  done
  for name in $UNWIND_LINUX; do
    echo "$name rv64-linux-fp O2"
    echo "$name rv64-linux-nocfi O2"
  done
}

# Builds one ELF (called through xargs).
build_one() {
  local name="$1" cfg="$2" opt="$3"
  local elf="$OUT/$name.$cfg.$opt.elf"
  local srcs=("$SRC/$name.c")
  [ -f "$SRC/$name.S" ] && srcs+=("$SRC/$name.S")
  # Up to date if newer than its sources, the shared header and this script.
  if [ -f "$elf" ]; then
    local stale=0 f
    for f in "${srcs[@]}" "$SRC/common.h" "$HERE/build.sh"; do
      [ "$f" -nt "$elf" ] && stale=1
    done
    [ "$stale" = 0 ] && return 0
  fi
  local common=(-misa-spec=2.2 -g "-$opt" "-fdebug-prefix-map=$REPO=." -Wall -Wno-unused-function -I "$SRC")
  local cmd strip_cfi=0
  local fp=(-fno-omit-frame-pointer)
  local nocfi=(-fno-omit-frame-pointer -fno-asynchronous-unwind-tables -fno-unwind-tables)
  case "$cfg" in
    rv32imac) cmd=("$BARE_CC" -march=rv32imac -mabi=ilp32 -DCFG_BARE "${common[@]}" "${srcs[@]}" "${BARE_LINK[@]}" -lm) ;;
    rv32im) cmd=("$BARE_CC" -march=rv32im -mabi=ilp32 -DCFG_BARE "${common[@]}" "${srcs[@]}" "${BARE_LINK[@]}" -lm) ;;
    rv32imafdc) cmd=("$BARE_CC" -march=rv32imafdc -mabi=ilp32d -DCFG_BARE "${common[@]}" "${srcs[@]}" "${BARE_LINK[@]}" -lm) ;;
    rv64gc) cmd=("$BARE_CC" -march=rv64gc -mabi=lp64d -mcmodel=medany -DCFG_BARE "${common[@]}" "${srcs[@]}" "${BARE_LINK[@]}" -lm) ;;
    rv64-linux) cmd=("$LINUX_CC" -static -march=rv64gc -mabi=lp64d -DCFG_LINUX "${common[@]}" "${srcs[@]}" -lm) ;;
    rv32imac-fp) cmd=("$BARE_CC" -march=rv32imac -mabi=ilp32 -DCFG_BARE "${fp[@]}" "${common[@]}" "${srcs[@]}" "${BARE_LINK[@]}" -lm) ;;
    rv64gc-nocfi) strip_cfi=1; cmd=("$BARE_CC" -march=rv64gc -mabi=lp64d -mcmodel=medany -DCFG_BARE "${nocfi[@]}" "${common[@]}" "${srcs[@]}" "${BARE_LINK[@]}" -lm) ;;
    rv64-linux-fp) cmd=("$LINUX_CC" -static -march=rv64gc -mabi=lp64d -DCFG_LINUX "${fp[@]}" "${common[@]}" "${srcs[@]}" -lm) ;;
    rv64-linux-nocfi) strip_cfi=1; cmd=("$LINUX_CC" -static -march=rv64gc -mabi=lp64d -DCFG_LINUX "${nocfi[@]}" "${common[@]}" "${srcs[@]}" -lm) ;;
    rv64-linux-pg) cmd=("$LINUX_CC" -static -pg -march=rv64gc -mabi=lp64d -DCFG_LINUX -DCFG_PG "${common[@]}" "${srcs[@]}" -lm) ;;
    rv64gc-zb) cmd=("$BARE_CC" -march=rv64gc_zba_zbb_zbc_zbs -mabi=lp64d -mcmodel=medany -DCFG_BARE "${common[@]}" "${srcs[@]}" "${BARE_LINK[@]}" -lm) ;;
    rv64-linux-zb) cmd=("$LINUX_CC" -static -march=rv64gc_zba_zbb_zbc_zbs -mabi=lp64d -DCFG_LINUX "${common[@]}" "${srcs[@]}" -lm) ;;
    rv32imac-zb)
      # Compile each source with Zb*, then link against the rv32imac multilib.
      local objs=() f o
      for f in "${srcs[@]}"; do
        o="$elf.$(basename "$f").o"
        (cd "$REPO" && "$BARE_CC" -march=rv32imac_zba_zbb_zbc_zbs -mabi=ilp32 --specs=picolibc.specs -DCFG_BARE "${common[@]}" -c "$f" -o "$o") ||
          { echo "FAILED: $name.$cfg.$opt ($f)" >&2; return 1; }
        objs+=("$o")
      done
      cmd=("$BARE_CC" -march=rv32imac -mabi=ilp32 -misa-spec=2.2 "${objs[@]}" "${BARE_LINK[@]}" -lm) ;;
    *) echo "unknown config $cfg" >&2; return 1 ;;
  esac
  # Compile from the repo root so relative paths in DWARF are stable too.
  (cd "$REPO" && "${cmd[@]}" -o "$elf.tmp") || { echo "FAILED: $name.$cfg.$opt" >&2; rm -f "$elf.tmp"; return 1; }
  if [ "$strip_cfi" = 1 ]; then
    riscv64-unknown-elf-objcopy --remove-section=.debug_frame "$elf.tmp" ||
      { echo "FAILED: objcopy $name.$cfg.$opt" >&2; rm -f "$elf.tmp"; return 1; }
  fi
  mv "$elf.tmp" "$elf"
  rm -f "$elf".*.o
}

case "${1:-}" in
  --one) shift; build_one "$@"; exit $? ;;
  --list) list_jobs | awk '{print $1"."$2"."$3".elf"}'; exit 0 ;;
  --clean) rm -rf "$OUT" ;;
  "") ;;
  *) echo "usage: $0 [--clean|--list]" >&2; exit 2 ;;
esac

mkdir -p "$OUT"
list_jobs | xargs -P "$JOBS" -L 1 "$HERE/build.sh" --one
n=$(list_jobs | wc -l)
echo "corpus: $n ELFs in ${OUT#$REPO/}"
