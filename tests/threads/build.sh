#!/usr/bin/env bash
# Builds the Linux threads corpus (issue 15): static riscv64 Linux programs
# using POSIX threads, into build/<name>.elf.
#
#   tests/threads/build.sh            build what is missing or out of date
#   tests/threads/build.sh --clean    rebuild everything
#   tests/threads/build.sh --list     print the file names that would be built
#
# The ELFs are committed, so that tests need no cross compiler. "Out of
# date" is decided by content: build/inputs.sha256 holds the SHA-256 of
# every file in src/ and of this script at the last build.
#
# riscv64-linux-gnu-gcc -static -O2 -g -pthread (Debian 12: GCC 12.2,
# glibc 2.36). What each program checks and its expected output is at the
# top of its source; expected/ holds qemu-riscv64's output.
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
REPO="$(cd "$HERE/../.." && pwd)"
SRC="$HERE/src"
OUT="$HERE/build"
STAMP="$OUT/inputs.sha256"
CC=riscv64-linux-gnu-gcc
PROGRAMS="pthreads timedwait deadlock"

inputs_hash() {
  (cd "$HERE" && sha256sum build.sh src/*)
}

build_one() {
  local name="$1"
  (cd "$REPO" && "$CC" -static -O2 -g -pthread "-fdebug-prefix-map=$REPO=." -Wall -Wextra \
    "$SRC/$name.c" -Wl,--build-id=none -o "$OUT/$name.elf.tmp") ||
    { echo "FAILED: $name" >&2; rm -f "$OUT/$name.elf.tmp"; return 1; }
  mv "$OUT/$name.elf.tmp" "$OUT/$name.elf"
}

clean=0
case "${1:-}" in
  --list) for p in $PROGRAMS; do echo "$p.elf"; done; exit 0 ;;
  --clean) clean=1 ;;
  "") ;;
  *) echo "usage: $0 [--clean|--list]" >&2; exit 2 ;;
esac

mkdir -p "$OUT"
if [ "$clean" = 1 ] || ! cmp -s "$STAMP" <(inputs_hash); then
  for p in $PROGRAMS; do rm -f "$OUT/$p.elf"; done
  rm -f "$STAMP"
fi
built=0
for p in $PROGRAMS; do
  if [ ! -f "$OUT/$p.elf" ]; then
    command -v "$CC" >/dev/null ||
      { echo "$0: $CC not found (Debian: apt install gcc-riscv64-linux-gnu)" >&2; exit 1; }
    build_one "$p"
    built=1
  fi
done
[ "$built" = 1 ] && inputs_hash >"$STAMP"
echo "threads: $(echo $PROGRAMS | wc -w) files in ${OUT#"$REPO"/}"
