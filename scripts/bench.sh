#!/usr/bin/env bash
# Simulation speed table on the coremix workload (bench/coremix.c): guest instructions per
# second of wall time (MIPS), median of RUNS runs, for
#   fwprof record   exact profiling on       (fwprof record -o FILE -- ELF ITER)
#   fwprof record --core generic             the timing model too (caches, predictor)
#   fwprof run      no profile               (fwprof run -- ELF ITER)
#   qemu-riscv64    plain QEMU 7.2 linux-user on the same ELF
#   callgrind       valgrind --tool=callgrind on the host build (its own Ir count),
#                   plain and with --cache-sim=yes --branch-sim=yes
#
#   scripts/bench.sh                 # defaults: ITER=6000 (~1.32e9 RV64 instructions), RUNS=5
#   ITER=500 RUNS=3 scripts/bench.sh # quicker
#   SKIP="callgrind fwprof" scripts/bench.sh
#
# The guest instruction count is `totals.instructions` of `fwprof report FILE --format json`
# for the record run; QEMU's MIPS uses that same count.  If fwprof is unavailable the count
# is extrapolated from two exact QEMU single-step traces (scripts/qemu-ref.py) at small
# iteration counts and marked "(est.)".  fwprof is $FWPROF, else
# ${CARGO_TARGET_DIR:-target}/release/fwprof,
# built with `cargo build --release` when missing.
set -euo pipefail

REPO="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$REPO"
ITER="${ITER:-6000}"
RUNS="${RUNS:-5}"
SKIP="${SKIP:-}"
ELF="bench/coremix.rv64-linux.elf"
HOST="bench/coremix.host"
FWPROF="${FWPROF:-${CARGO_TARGET_DIR:-$REPO/target}/release/fwprof}"
TMP="$(mktemp -d)"
trap 'rm -rf "$TMP"' EXIT

skipped() { case " $SKIP " in *" $1 "*) return 0 ;; *) return 1 ;; esac; }

# Runs "$@" RUNS times; prints the median wall time in seconds.  Output goes to $TMP/out.
median_time() {
  local times=() t0 t1 i
  for ((i = 0; i < RUNS; i++)); do
    t0=$(date +%s.%N)
    "$@" > "$TMP/out" 2> "$TMP/err" < /dev/null || { echo "command failed: $*" >&2; cat "$TMP/err" >&2; return 1; }
    t1=$(date +%s.%N)
    times+=("$(echo "$t1 - $t0" | bc -l)")
  done
  printf '%s\n' "${times[@]}" | sort -g | awk '{a[NR] = $1} END {print a[int((NR + 1) / 2)]}'
}

mips() { echo "$1 / $2 / 1000000" | bc -l | xargs printf '%.1f'; }

rows=()
row() { rows+=("$(printf '%-30s %16s %10.3f %10s' "$1" "$2" "$3" "$4")"); }

[ -f "$ELF" ] || bench/build.sh

# --- fwprof ---------------------------------------------------------------------------
INSNS=""
if ! skipped fwprof; then
  if [ ! -x "$FWPROF" ]; then
    echo "building fwprof (cargo build --release)..." >&2
    cargo build --release >&2 || echo "cargo build failed; skipping fwprof" >&2
  fi
  if [ -x "$FWPROF" ]; then
    if "$FWPROF" record -o "$TMP/p.fwprof" -- "$ELF" "$ITER" > /dev/null 2>&1 &&
       "$FWPROF" report "$TMP/p.fwprof" --format json > "$TMP/report.json" 2> /dev/null; then
      INSNS=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["totals"]["instructions"])' "$TMP/report.json")
      t=$(median_time "$FWPROF" record -o "$TMP/p.fwprof" -- "$ELF" "$ITER")
      row "fwprof record (exact)" "$INSNS" "$t" "$(mips "$INSNS" "$t")"
      t=$(median_time "$FWPROF" record -q --core generic -o "$TMP/c.fwprof" -- "$ELF" "$ITER")
      row "fwprof record --core generic" "$INSNS" "$t" "$(mips "$INSNS" "$t")"
      t=$(median_time "$FWPROF" run -- "$ELF" "$ITER")
      row "fwprof run (no profile)" "$INSNS" "$t" "$(mips "$INSNS" "$t")"
    else
      echo "fwprof record/report failed; skipping fwprof rows" >&2
    fi
  fi
fi

# --- QEMU -----------------------------------------------------------------------------
if ! skipped qemu; then
  label="$INSNS"
  if [ -z "$INSNS" ]; then
    # exact counts at two small iteration counts; the per-iteration cost is ~constant
    count() { python3 scripts/qemu-ref.py run "$ELF" "$1" |
              python3 -c 'import json,sys; print(json.load(sys.stdin)["instructions"])'; }
    c1=$(count 2); c2=$(count 6)
    INSNS=$(python3 -c "a,b=$c1,$c2; per=(b-a)/4; print(int(a+per*($ITER-2)))")
    label="$INSNS (est.)"
  fi
  t=$(median_time env -i PATH=/usr/bin:/bin LANG=C.UTF-8 qemu-riscv64 "$ELF" "$ITER")
  row "qemu-riscv64 7.2 (plain)" "$label" "$t" "$(mips "$INSNS" "$t")"
fi

# --- callgrind --------------------------------------------------------------------------
if ! skipped callgrind; then
  [ -x "$HOST" ] || bench/build.sh > /dev/null
  valgrind --tool=callgrind --callgrind-out-file="$TMP/cg.out" "$HOST" "$ITER" > /dev/null 2>&1
  IR=$(awk '/^(summary|totals):/ {print $2; exit}' "$TMP/cg.out")
  t=$(median_time valgrind --tool=callgrind --callgrind-out-file="$TMP/cg.out" "$HOST" "$ITER")
  row "callgrind (host x86-64 Ir)" "$IR" "$t" "$(mips "$IR" "$t")"
  t=$(median_time valgrind --tool=callgrind --cache-sim=yes --branch-sim=yes \
        --callgrind-out-file="$TMP/cg2.out" "$HOST" "$ITER")
  row "callgrind --cache-sim --branch-sim" "$IR" "$t" "$(mips "$IR" "$t")"
fi

echo "coremix, $ITER iterations, median of $RUNS runs"
printf '%-30s %16s %10s %10s\n' "tool" "instructions" "seconds" "MIPS"
printf '%s\n' "${rows[@]}"
