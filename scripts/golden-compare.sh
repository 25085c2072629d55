#!/usr/bin/env bash
# Compare every user-visible output of two fwprof binaries on the bundled
# examples: the proof that a refactoring changed no output.
#
#   scripts/golden-compare.sh OLD_FWPROF NEW_FWPROF [WORKDIR]
#
# For each bundled example (examples/*/*.elf) and recording method (exact;
# exact with a core model; sampled by instructions; sampled by cycles) and
# for the instrumented kernel8 builds of tests/instrument (if built), each
# binary records its own profile; then each binary writes, from its own
# profile: the text report (plain, --color always, -b with the derived ratio columns),
# the JSON report, annotate (every function with cost), every export format
# and the HTML report. The profile's start time is the only field allowed
# to differ (it is normalised in the JSON report). Both binaries record with
# the same minimal environment (`env -i`): a shell's `_` variable holds the
# binary's path, and a guest environment of another size shifts the guest's
# stack, which moves sampled stacks and printf's cycles. Outputs also go through
# the cross pair (NEW reading OLD's profile) so reading is checked on its
# own. The pprof and HTML outputs embed the recording's start time (whole
# seconds): two recordings made in different seconds differ there only; their
# cross pair must still be identical. Prints one line per differing output and exits 1 if any differs.
set -euo pipefail
OLD="$(realpath "$1")"
NEW="$(realpath "$2")"
REPO="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
WORK="${3:-$(mktemp -d)}"
mkdir -p "$WORK"
cd "$WORK"

cases=()
for elf in "$REPO"/examples/*/*.elf; do
    name="$(basename "$elf" .elf)"
    case "$name" in
        *rv32*) core=picorv32 ;;
        *) core=generic ;;
    esac
    cases+=("$name.exact|$elf|")
    cases+=("$name.core|$elf|--core $core")
    cases+=("$name.sample|$elf|--method sample --period 997")
    cases+=("$name.samplecyc|$elf|--method sample --unit cycles --core $core --period 5003 --jitter --seed 7")
done
for elf in "$REPO"/tests/instrument/kernel8.{cyg,pg}.{rv32imac,rv64-linux}.elf; do
    [ -f "$elf" ] || continue
    name="$(basename "$elf" .elf)"
    case "$name" in
        *rv32*) core=picorv32 ;;
        *) core=generic ;;
    esac
    cases+=("$name.instr|$elf|--method instrument")
    cases+=("$name.instrcyc|$elf|--method instrument --unit cycles --core $core")
done

outputs() { # BIN PROFILE PREFIX
    local bin="$1" prof="$2" p="$3"
    "$bin" report --color never "$prof" >"$p.report.txt" 2>&1 || true
    "$bin" report --color always "$prof" >"$p.report.color" 2>&1 || true
    "$bin" report -b --events cycles,instructions,cpi,icache_miss_rate,dcache_miss_rate,mispredict_rate "$prof" >"$p.report.brief" 2>&1 || true
    "$bin" report --format json "$prof" 2>&1 | sed 's/"start_time": [0-9]*/"start_time": 0/' >"$p.report.json" || true
    "$bin" annotate --color never "$prof" >"$p.annotate" 2>&1 || true
    for fmt in gmon callgrind pprof folded flamegraph speedscope dot; do
        "$bin" export --format "$fmt" -o "$p.export.$fmt" "$prof" >"$p.export.$fmt.log" 2>&1 || true
    done
    "$bin" html -o "$p.html" "$prof" >"$p.html.log" 2>&1 || true
}

status=0
for c in "${cases[@]}"; do
    IFS='|' read -r name elf flags <<<"$c"
    for side in old new; do
        bin="$OLD"; [ "$side" = new ] && bin="$NEW"
        # shellcheck disable=SC2086
        env -i PATH="$PATH" HOME="$HOME" "$bin" record -q $flags -o "$name.$side.fwprof" -- "$elf" >"$name.$side.record.out" 2>"$name.$side.record.err" || echo $? >"$name.$side.record.rc"
        outputs "$bin" "$name.$side.fwprof" "$name.$side"
    done
    outputs "$NEW" "$name.old.fwprof" "$name.cross"
    for f in "$name".old.*; do
        suffix="${f#"$name".old.}"
        [ "$suffix" = fwprof ] && continue
        for other in new cross; do
            g="$name.$other.$suffix"
            [ -e "$g" ] || continue
            if ! cmp -s "$f" "$g"; then
                echo "differs: $g"
                status=1
            fi
        done
    done
done
echo "golden-compare: ${#cases[@]} recordings compared in $WORK"
exit $status
