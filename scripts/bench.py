#!/usr/bin/env python3
"""Speed of fwprof's execution tiers and collectors beside QEMU and Callgrind.

Called by scripts/bench.sh (see there for the environment variables). For each
workload (bench/coremix.c, the bundled benchmark, and bench/corelike.c, shaped like
EEMBC CoreMark) it runs pairs of commands alternately (A B A B ...), RUNS times each,
and prints

  * per command: median wall time, median CPU time (user + system, all threads and
    children), and guest MIPS (the workload's RV64 instruction count, from an exact
    fwprof profile, over the wall time) for the commands that run the RV64 build;
  * per pair: the median of the per-pair ratios B/A (with their range), i.e. how many
    times faster A is than B, for wall time and for CPU time, and the goal of issue 16.

Callgrind runs the host (x86-64) build of the same source with the same iteration
count; its instruction counts are x86 instructions, so only times are compared.
"""
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
RUNS = int(os.environ.get("RUNS", "5"))
FWPROF = os.environ.get("FWPROF") or os.path.join(
    os.environ.get("CARGO_TARGET_DIR", os.path.join(REPO, "target")), "release", "fwprof")
SKIP = os.environ.get("SKIP", "").split()
WORKLOADS = [
    ("coremix", int(os.environ.get("ITER", "1000"))),
    ("corelike", int(os.environ.get("ITER_CORELIKE", "200"))),
]
ONLY = os.environ.get("WORKLOAD")


def timed(cmd):
    """Runs cmd (output discarded); returns (wall seconds, CPU seconds)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.monotonic()
    r = subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                       stdin=subprocess.DEVNULL, cwd=REPO)
    wall = time.monotonic() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if r.returncode != 0:
        sys.exit(f"command failed ({r.returncode}): {' '.join(cmd)}\n{r.stderr.decode()[-2000:]}")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu


def guest_instructions(elf, n, tmp):
    prof = os.path.join(tmp, "count.fwprof")
    subprocess.run([FWPROF, "record", "-q", "-o", prof, "--", elf, str(n)], check=True,
                   stdout=subprocess.DEVNULL, cwd=REPO)
    out = subprocess.run([FWPROF, "report", prof, "--format", "json"], check=True,
                         capture_output=True, cwd=REPO).stdout
    return json.loads(out)["totals"]["instructions"]


def commands(name, n, tmp):
    elf = f"bench/{name}.rv64-linux.elf"
    cyg = f"bench/{name}.cyg.rv64-linux.elf"
    host = f"bench/{name}.host"
    prof = os.path.join(tmp, "p.fwprof")
    cg = os.path.join(tmp, "cg.out")
    c = {}
    if "fwprof" not in SKIP:
        c["fwprof run --tier interp"] = [FWPROF, "run", "--tier", "interp", "--", elf, str(n)]
        c["fwprof run"] = [FWPROF, "run", "--", elf, str(n)]
        c["fwprof record --tier interp"] = [FWPROF, "record", "-q", "--tier", "interp", "-o",
                                            prof, "--", elf, str(n)]
        c["fwprof record"] = [FWPROF, "record", "-q", "-o", prof, "--", elf, str(n)]
        c["fwprof record --core generic"] = [FWPROF, "record", "-q", "--core", "generic", "-o",
                                             prof, "--", elf, str(n)]
        c["fwprof record --method sample"] = [FWPROF, "record", "-q", "--method", "sample",
                                              "-o", prof, "--", elf, str(n)]
        c["fwprof record --method instrument"] = [FWPROF, "record", "-q", "--method",
                                                  "instrument", "-o", prof, "--", cyg, str(n)]
        # The same instrumented build under the exact collector: its calls
        # to the __cyg_profile_func_* hooks are the program's own work.
        c["fwprof record (instrumented build)"] = [FWPROF, "record", "-q", "-o", prof, "--",
                                                   cyg, str(n)]
    if "qemu" not in SKIP:
        c["qemu-riscv64"] = ["qemu-riscv64", elf, str(n)]
    if "callgrind" not in SKIP:
        c["callgrind"] = ["valgrind", "--tool=callgrind", f"--callgrind-out-file={cg}", host,
                          str(n)]
        c["callgrind --cache-sim --branch-sim"] = [
            "valgrind", "--tool=callgrind", "--cache-sim=yes", "--branch-sim=yes",
            f"--callgrind-out-file={cg}", host, str(n)]
    return c


# (A, B, goal): A is measured against B; the ratio printed is B's time over A's.
PAIRS = [
    ("fwprof record", "callgrind", ">= 3"),
    ("fwprof record --core generic", "callgrind --cache-sim --branch-sim", ">= 2"),
    ("qemu-riscv64", "fwprof run", "<= 3 (fwprof run / qemu)"),
    ("fwprof record", "fwprof record --method sample", "<= 1.5 (sample / record)"),
    ("fwprof record", "fwprof record --method instrument", "<= 1.5 (instrument / record)"),
    ("fwprof record (instrumented build)", "fwprof record --method instrument",
     "<= 1.5 (instrument / record, both on the instrumented build)"),
    ("fwprof run", "fwprof run --tier interp", "what the translation tier is worth"),
    ("fwprof record", "fwprof record --tier interp", "what the translation tier is worth"),
]


def main():
    for name, n in WORKLOADS:
        if ONLY and name != ONLY:
            continue
        with tempfile.TemporaryDirectory() as tmp:
            run_workload(name, n, tmp)


def run_workload(name, n, tmp):
    cmds = commands(name, n, tmp)
    insns = guest_instructions(f"bench/{name}.rv64-linux.elf", n, tmp) if "fwprof" not in SKIP \
        else None
    samples = {k: [] for k in cmds}
    pairs = []
    for a, b, goal in PAIRS:
        if a not in cmds or b not in cmds:
            continue
        walls, cpus = [], []
        for _ in range(RUNS):
            wa, ca = timed(cmds[a])
            wb, cb = timed(cmds[b])
            samples[a].append((wa, ca))
            samples[b].append((wb, cb))
            walls.append(wb / wa)
            cpus.append(cb / ca)
        pairs.append((a, b, goal, walls, cpus))
    print(f"\n{name}, {n} iterations"
          + (f", {insns:,} RV64 instructions" if insns else "")
          + f"; medians of {RUNS} paired runs per comparison")
    print(f"{'command':40} {'wall s':>8} {'CPU s':>8} {'MIPS':>8}")
    for k, v in samples.items():
        if not v:
            continue
        w = statistics.median(x[0] for x in v)
        c = statistics.median(x[1] for x in v)
        mips = f"{insns / w / 1e6:8.0f}" if insns and "callgrind" not in k else f"{'':>8}"
        print(f"{k:40} {w:8.3f} {c:8.3f} {mips}")
    print(f"\n{'A':34} {'B':36} {'B/A wall (range)':>22} {'B/A CPU (range)':>22}  goal")
    for a, b, goal, walls, cpus in pairs:
        fw = f"{statistics.median(walls):.2f} ({min(walls):.2f}-{max(walls):.2f})"
        fc = f"{statistics.median(cpus):.2f} ({min(cpus):.2f}-{max(cpus):.2f})"
        print(f"{a:34} {b:36} {fw:>22} {fc:>22}  {goal}")


if __name__ == "__main__":
    main()
