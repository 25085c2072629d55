#!/usr/bin/env python3
"""The table of docs/counters.md: the ARC study's counter methods on
fwprof's emulated counters, against the exact profile of the same run.

For each program: functions with code, the runs of the subset method and
of the call-graph descent at 1% and 5% (and whether the descent found
exactly the exact profile's functions at or above the threshold), and the
per-function relative error of the measured inclusive cycles M(f) with
probes of 0 and of 40 cycles (the study measured 9-55 per call), mean and
maximum over the functions of at least 1% (inclusive), and the maximum
over every measured function.

    scripts/counters-table.py [--fwprof target/release/fwprof] [--core generic] [ELF ...]

Without ELFs: the bundled examples (RV32) and tests/counters. Prints a
Markdown table.
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DEFAULT = [
    "examples/crc32/crc32.rv32imac.elf",
    "examples/exprcalc/exprcalc.rv32imac.elf",
    "examples/huffman/huffman.rv32imac.elf",
    "examples/sha256/sha256.rv32imac.elf",
    "tests/counters/shapes.rv32imac.elf",
    "tests/counters/many.rv32imac.elf",
]


def record(fwprof, out, elf, core, extra):
    cmd = [fwprof, "record", "-q", "-o", out, "--core", core] + extra + ["--", elf]
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL)


def report(fwprof, prof):
    r = subprocess.run([fwprof, "report", "--format", "json", prof],
                       check=True, capture_output=True, text=True)
    return json.loads(r.stdout)


def descent(fwprof, prof):
    r = subprocess.run([fwprof, "report", "--descent", "--format", "json", prof],
                       check=True, capture_output=True, text=True)
    return json.loads(r.stdout)


def inclusive(rep):
    return {f["name"]: f["inclusive"]["cycles"] for f in rep["functions"]}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--fwprof", default=os.path.join(REPO, "target/release/fwprof"))
    ap.add_argument("--core", default="generic")
    ap.add_argument("elfs", nargs="*")
    a = ap.parse_args()
    elfs = a.elfs or [os.path.join(REPO, e) for e in DEFAULT]
    print("| program | functions | runs: subsets | descent 1% | descent 5% | same set | "
          "mean / max error ≥1%, cost 0 | mean / max error ≥1%, cost 40 | max error, all, cost 40 |")
    print("|---|---|---|---|---|---|---|---|---|")
    with tempfile.TemporaryDirectory() as d:
        for elf in elfs:
            p = lambda n: os.path.join(d, n)
            record(a.fwprof, p("x"), elf, a.core, [])
            exact = report(a.fwprof, p("x"))
            x = inclusive(exact)
            total = exact["totals"]["cycles"]
            runs, same = {}, True
            for pct in ("1", "5"):
                record(a.fwprof, p("d"), elf, a.core,
                       ["--method", "counters", "--descent", "--threshold", pct])
                sec = descent(a.fwprof, p("d"))
                runs[pct] = len(sec["runs"]) - 1
                subset_runs = sec["subset_runs"]
                want = {n for n, v in x.items()
                        if not n.startswith("[") and v >= float(pct) / 100 * total}
                names = {f["id"]: f["name"] for f in report(a.fwprof, p("d"))["functions"]}
                got = {names[f["function"]] for f in sec["functions"]
                       if f["decision"] == "measured"
                       and f["values"][0] >= float(pct) / 100 * total}
                same = same and got == want
            errs = {}
            for cost in ("0", "40"):
                record(a.fwprof, p("c"), elf, a.core,
                       ["--method", "counters", "--probe-cost", cost])
                c = inclusive(report(a.fwprof, p("c")))
                sec = descent(a.fwprof, p("c"))
                names = {f["id"]: f["name"] for f in report(a.fwprof, p("c"))["functions"]}
                measured = [names[f["function"]] for f in sec["functions"]
                            if f["decision"] == "measured"]
                rel = {n: abs(c[n] - x[n]) / x[n] * 100 for n in measured if x.get(n, 0) > 0}
                big = [rel[n] for n in rel if x[n] >= 0.01 * total]
                errs[cost] = (sum(big) / len(big) if big else 0.0, max(big, default=0.0),
                              max(rel.values(), default=0.0))
            nfun = len([1 for f in sec["functions"]])
            name = os.path.basename(elf)
            print(f"| {name} | {nfun} | {subset_runs} | {runs['1']} | {runs['5']} | "
                  f"{'yes' if same else 'NO'} | {errs['0'][0]:.2f}% / {errs['0'][1]:.2f}% | "
                  f"{errs['40'][0]:.2f}% / {errs['40'][1]:.2f}% | {errs['40'][2]:.0f}% |")
            sys.stdout.flush()


if __name__ == "__main__":
    main()
