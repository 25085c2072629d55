#!/usr/bin/env bash
# Runs the tests/rtos corpus under QEMU and compares with expected/.
#
#   tests/rtos/qemu.sh [--runs N] [--icount] [NAME.CFG ...]   check (default: all)
#   tests/rtos/qemu.sh --update [--runs N] [NAME.CFG ...]     rewrite expected/
#   tests/rtos/qemu.sh --cmd NAME.CFG                          print the command
#
# Each case runs N times (default 3) with `timeout 20`; every run must give
# the same stdout bytes and exit status (--update refuses to write otherwise).
# QEMU's timer runs on host time, so each run is pre-empted at different
# instructions; the output must not change. --icount also runs each case
# once under `-icount shift=S,sleep=off` for S = 0..7 (guest time = 2^S ns
# per instruction: the timer interrupts land at other, reproducible
# instructions) and compares those runs too. Run tests/rtos/build.sh first.
set -uo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
cd "$HERE" || exit 1

all_cases() {
  local p c
  for p in rtos rtos_instr; do
    for c in rv32 rv64; do echo "$p.$c"; done
  done
}

# the QEMU command line of a case, as words (an -icount option after it)
cmd_of() {
  local cfg="${1##*.}" qemu
  case "$cfg" in
    rv32) qemu="qemu-system-riscv32" ;;
    rv64) qemu="qemu-system-riscv64" ;;
    *) echo "bad case $1" >&2; return 1 ;;
  esac
  echo "$qemu -M virt -m 128M -nographic -bios none -kernel build/$1.elf${2:+ -icount shift=$2,sleep=off}"
}

update=0 runs=3 icount=0 cases=()
while [ $# -gt 0 ]; do
  case "$1" in
    --update) update=1 ;;
    --runs) runs="$2"; shift ;;
    --icount) icount=1 ;;
    --cmd) echo "timeout 20 $(cmd_of "$2") < /dev/null"; exit 0 ;;
    -*) echo "usage: $0 [--update] [--runs N] [--icount] [NAME.CFG ...] | --cmd NAME.CFG" >&2; exit 2 ;;
    *) cases+=("$1") ;;
  esac
  shift
done
[ ${#cases[@]} -gt 0 ] || mapfile -t cases < <(all_cases)

tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
fail=0
mkdir -p expected
for k in "${cases[@]}"; do
  read -r -a cmd <<<"$(cmd_of "$k")"
  ok=1
  for i in $(seq 1 "$runs"); do
    timeout 20 "${cmd[@]}" </dev/null >"$tmp/$k.$i.out" 2>"$tmp/$k.$i.err"
    echo $? >"$tmp/$k.$i.status"
    if [ "$i" -gt 1 ] && ! { cmp -s "$tmp/$k.1.out" "$tmp/$k.$i.out" && cmp -s "$tmp/$k.1.status" "$tmp/$k.$i.status"; }; then
      echo "$k: run $i differs from run 1 (nondeterministic)"; ok=0
    fi
  done
  if [ "$icount" = 1 ]; then
    for s in 0 1 2 3 4 5 6 7; do
      read -r -a icmd <<<"$(cmd_of "$k" "$s")"
      timeout 60 "${icmd[@]}" </dev/null >"$tmp/$k.i$s.out" 2>/dev/null
      st=$?
      if ! { cmp -s "$tmp/$k.1.out" "$tmp/$k.i$s.out" && [ "$st" = "$(cat "$tmp/$k.1.status")" ]; }; then
        echo "$k: -icount shift=$s differs from run 1 (status $st)"; ok=0
      fi
    done
  fi
  if [ -s "$tmp/$k.1.err" ]; then echo "$k: stderr:"; sed 's/^/  /' "$tmp/$k.1.err"; fi
  if [ "$update" = 1 ]; then
    if [ "$ok" = 1 ]; then
      cp "$tmp/$k.1.out" "expected/$k.out"
      cp "$tmp/$k.1.status" "expected/$k.status"
      echo "$k: status $(cat "$tmp/$k.1.status"), $(wc -c <"$tmp/$k.1.out") bytes -> expected/"
    else fail=1; fi
  else
    if [ "$ok" = 1 ] && cmp -s "$tmp/$k.1.out" "expected/$k.out" && cmp -s "$tmp/$k.1.status" "expected/$k.status"; then
      echo "$k: ok (status $(cat "$tmp/$k.1.status"), $runs runs$([ "$icount" = 1 ] && echo ", -icount shift=0..7"))"
    else
      echo "$k: FAILED (status $(cat "$tmp/$k.1.status"), expected $(cat "expected/$k.status" 2>/dev/null))"
      diff <(cat "expected/$k.out" 2>/dev/null) "$tmp/$k.1.out" | head -20
      fail=1
    fi
  fi
done
exit $fail
