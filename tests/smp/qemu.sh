#!/usr/bin/env bash
# Runs the tests/smp corpus under QEMU and compares with expected/.
#
#   tests/smp/qemu.sh [--runs N] [CASE ...]            check (default: all)
#   tests/smp/qemu.sh --update [--runs N] [CASE ...]   rewrite expected/
#   tests/smp/qemu.sh --cmd CASE                        print the command
#   tests/smp/qemu.sh --list                            print the cases
#
# A case is <name><harts>.<cfg> (build/<name><harts>.<cfg>.elf under
# `-smp <harts>`), or <name>2-smp4.<cfg> (the 2-hart ELF under `-smp 4`:
# harts 2 and 3 must park, the output is the 2-hart one). Each case runs N
# times (default 3) with `timeout 20`; every run must give the same stdout
# bytes and exit status (--update refuses to write otherwise). QEMU runs
# the harts round-robin in one host thread (`-accel tcg,thread=single`).
# Run tests/smp/build.sh first.
set -uo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
cd "$HERE" || exit 1

PROGRAMS="psum ipi ipi_irq spinlock"

all_cases() {
  local p n c
  for p in $PROGRAMS; do
    for c in rv32 rv64; do
      for n in 2 4; do echo "$p$n.$c"; done
      echo "${p}2-smp4.$c"
    done
  done
}

# the QEMU command line of a case, as words
cmd_of() {
  local base="${1%.*}" cfg="${1##*.}" qemu elf smp
  case "$cfg" in
    rv32) qemu="qemu-system-riscv32" ;;
    rv64) qemu="qemu-system-riscv64" ;;
    *) echo "bad case $1" >&2; return 1 ;;
  esac
  case "$base" in
    *-smp4) elf="${base%-smp4}"; smp=4 ;;
    *) elf="$base"; smp="${base: -1}" ;;
  esac
  echo "$qemu -M virt -m 128M -nographic -bios none -accel tcg,thread=single -smp $smp -kernel build/$elf.$cfg.elf"
}

update=0 runs=3 cases=()
while [ $# -gt 0 ]; do
  case "$1" in
    --update) update=1 ;;
    --runs) runs="$2"; shift ;;
    --cmd) echo "timeout 20 $(cmd_of "$2") < /dev/null"; exit 0 ;;
    --list) all_cases; exit 0 ;;
    -*) echo "usage: $0 [--update] [--runs N] [CASE ...] | --cmd CASE | --list" >&2; exit 2 ;;
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
  if [ -s "$tmp/$k.1.err" ]; then echo "$k: stderr:"; sed 's/^/  /' "$tmp/$k.1.err"; fi
  if [ "$update" = 1 ]; then
    if [ "$ok" = 1 ]; then
      cp "$tmp/$k.1.out" "expected/$k.out"
      cp "$tmp/$k.1.status" "expected/$k.status"
      echo "$k: status $(cat "$tmp/$k.1.status"), $(wc -c <"$tmp/$k.1.out") bytes -> expected/"
    else fail=1; fi
  else
    if [ "$ok" = 1 ] && cmp -s "$tmp/$k.1.out" "expected/$k.out" && cmp -s "$tmp/$k.1.status" "expected/$k.status"; then
      echo "$k: ok (status $(cat "$tmp/$k.1.status"), $runs runs)"
    else
      echo "$k: FAILED (status $(cat "$tmp/$k.1.status"), expected $(cat "expected/$k.status" 2>/dev/null))"
      diff <(cat "expected/$k.out" 2>/dev/null) "$tmp/$k.1.out" | head -20
      fail=1
    fi
  fi
done
exit $fail
