#!/usr/bin/env bash
# Runs the tests/virt corpus under QEMU and compares with expected/.
#
#   tests/virt/qemu.sh [--runs N] [NAME.CFG ...]            check (default: all)
#   tests/virt/qemu.sh --update [--runs N] [NAME.CFG ...]   rewrite expected/
#   tests/virt/qemu.sh --cmd NAME.CFG                        print the command
#
# Each case runs N times (default 3) with `timeout 20`; every run must give
# the same stdout bytes and exit status (--update refuses to write otherwise).
# Run tests/virt/build.sh first. exit_reset is not run: QEMU resets on 0x7777
# and the program runs again forever (README.md).
set -uo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
cd "$HERE"

CASES="uart_hello exit_pass exit_fail3 exit_fail0 exit_16bit exit_wide uart_echo_irq
  uart_poll_echo dt_read rv32_fw rv32_fw_bin"

all_cases() {
  for p in $CASES; do
    for c in rv32 rv64; do
      [ "$p.$c" = exit_wide.rv32 ] && continue
      echo "$p.$c"
    done
  done
}

# the QEMU command line of a case, as words; stdin is input/<name>.txt if it
# exists, else /dev/null
cmd_of() {
  local name="${1%.*}" cfg="${1##*.}" qemu
  case "$cfg" in rv32) qemu=qemu-system-riscv32 ;; rv64) qemu=qemu-system-riscv64 ;; esac
  local base=("$qemu" -M virt -m 128M -nographic)
  case "$name" in
    rv32_fw) echo "${base[*]} -bios build/rv32_fw.$cfg.elf -kernel build/rv32_kernel.$cfg.elf" ;;
    rv32_fw_bin) echo "${base[*]} -bios build/rv32_fw.$cfg.elf -kernel build/rv32_kernel.$cfg.bin" ;;
    *) echo "${base[*]} -bios none -kernel build/$name.$cfg.elf" ;;
  esac
}

input_of() {
  local name="${1%.*}"
  if [ -f "input/$name.txt" ]; then echo "input/$name.txt"; else echo /dev/null; fi
}

update=0 runs=3 cases=()
while [ $# -gt 0 ]; do
  case "$1" in
    --update) update=1 ;;
    --runs) runs="$2"; shift ;;
    --cmd) echo "timeout 20 $(cmd_of "$2") < $(input_of "$2")"; exit 0 ;;
    -*) echo "usage: $0 [--update] [--runs N] [NAME.CFG ...] | --cmd NAME.CFG" >&2; exit 2 ;;
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
  in="$(input_of "$k")"
  ok=1
  for i in $(seq 1 "$runs"); do
    timeout 20 "${cmd[@]}" <"$in" >"$tmp/$k.$i.out" 2>"$tmp/$k.$i.err"
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
