#!/usr/bin/env python3
"""Runs every corpus ELF under QEMU 7.2 (scripts/qemu-ref.py) and writes manifest.json.

Usage: tests/corpus/gen-manifest.py [--jobs N] [--no-trace] [--from-json] [--reverse]
                                    [--from-logs LOG...]
Build first with tests/corpus/build.sh.  Fails (exit 1) if any ELF exits with a code other
than its expected one, or if a program's stdout differs between two of its builds that
must agree.

manifest.json: {"qemu_version": str, "lockstep_limit": int, "entries": [entry...]}, entry =
  elf           repo-relative path of the ELF
  program, config, opt
  mode          "system" (qemu-system-riscv32/64 -M virt, semihosting) or "user" (qemu-riscv64)
  args          guest arguments; "{tmpdir}" stands for a fresh writable directory
  cwd           "{tmpdir}" (always run in a fresh temporary directory)
  stdin         repo-relative input file or "/dev/null"
  exit_code     expected exit status
  instructions  executed instructions under QEMU (reset ROM excluded)
  lockstep      true if small enough for a register lock-step comparison (< lockstep_limit)
  compare       what must be equal to QEMU: subset of stdout, stderr, exit_code, counts
  notes         behaviour notes

manifest.txt carries the same facts for line-oriented readers, one ELF per line:
  <elf file name> | <args> | <stdin or -> | <skip reason> | insns=N lockstep=yes|no | notes
(the skip reason is empty for comparable programs; the readc variant is JSON-only.)
--from-json rewrites manifest.txt from an existing manifest.json without running QEMU.
--from-logs assembles both manifests from the stdout logs of earlier runs (one line per ELF,
as printed below), e.g. of two runs working in opposite orders (--reverse).
"""

import argparse
import concurrent.futures
import importlib.util
import json
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
LOCKSTEP_LIMIT = 200_000

spec = importlib.util.spec_from_file_location("qemu_ref", os.path.join(REPO, "scripts", "qemu-ref.py"))
qemu_ref = importlib.util.module_from_spec(spec)
spec.loader.exec_module(qemu_ref)

NOTES = {
    "checksums": "CRC32 (table and bitwise), Adler-32, FNV-1a 32/64, Fletcher-16",
    "sha256": "SHA-256 test vectors and generated data",
    "dhrystone": "Dhrystone 2.1, 100 runs, final values checked; rdcycle/rdinstret read around the loop (printed only with the argument --counters; their registers differ from QEMU's, which counts host time); rv32im -O3 is PicoRV32's published configuration",
    "md5": "MD5 RFC 1321 suite",
    "qsort": "libc qsort/bsearch (picolibc or glibc) with int/u64/double/string/struct comparators",
    "printf_fmt": "printf flags, widths, %e %f %g %a; output differs between picolibc and glibc",
    "scanf_fmt": "sscanf formats, strtol/strtod family",
    "softfloat": "C float/double arithmetic: libgcc soft-float on rv32imac, hardware elsewhere",
    "libm": "libm functions; bits printed; pass one extra argument for per-call output",
    "fp_edge": "inline-asm F/D ops with static and dynamic rounding modes, saturating fcvt, NaN boxing; fflags printed",
    "atomics": "all AMOs .w/.d with aq/rl variants, LR/SC success and failure cases",
    "setjmp": "setjmp/longjmp out of recursion, longjmp(…,0)",
    "funcptr": "function-pointer tables, dense (jump table) and sparse switch, bytecode VM",
    "recursion": "100k-deep recursion on Linux (about 6.4 MB of stack at -O0; needs the usual 8 MiB guest stack), 1k on bare metal; mutual recursion, Ackermann",
    "tailcalls": "sibling/tail calls (jumps at -O2), tail-calling state machines",
    "malloc_stress": "malloc/calloc/realloc/free pattern with content checks",
    "strings": "string.h and ctype functions",
    "csr": "Zicsr forms on fflags/frm/fcsr; bare metal also mhartid, mscratch, mstatus.MIE",
    "int_edge": "div/rem by zero and overflow, mulh*, shifts by xlen-1, W ops, int128",
    "misaligned": "misaligned integer and FP loads/stores (handled by QEMU, no traps)",
    "isa_all": "executes every RV32GC/RV64GC mnemonic (see scripts/isa-coverage.py); bare metal takes 3 traps (ecall, ebreak, c.ebreak) through its own mtvec handler and mret",
    "semihost_all": "every semihosting call directly; creates, renames and removes files in the cwd; QEMU quirks documented in the source",
    "linux_fileio": "open/read/lseek/fstat/mmap/pread/rename/unlink, readlink /proc/self/exe, getrandom, uname; writes into argv[1]",
    "exit_code": "exits with status 3 after atexit handlers",
    "bitfields": "bitfields, popcount/clz/ctz, bswap, rotates",
    "matrix": "int/double matmul (FMA contraction differs by -O level), elimination, stencil",
    "bigint": "32-bit-limb bignums: 100!, 2^1000, fib(1000)",
    "sieve_hash": "sieve of Eratosthenes, open-addressing hash table",
    "asm_calls": "hand-written assembly (asm_calls.S): jump table, non-leaf, copy loop",
    "bitmanip": "every Zba/Zbb/Zbc/Zbs instruction (inline asm) over edge values, and plain C that GCC 12 "
                "turns into them; ctzw of values with a zero low word left out (QEMU 7.2 counts 64 bits)",
}


def entries():
    names = subprocess.run([os.path.join(HERE, "build.sh"), "--list"], check=True, capture_output=True,
                           text=True).stdout.split()
    for n in names:
        program, config, opt, _ = n.split(".")
        e = {"elf": f"tests/corpus/build/{n}", "program": program, "config": config, "opt": opt,
             "args": [], "cwd": "{tmpdir}", "stdin": "/dev/null",
             "exit_code": 3 if program == "exit_code" else 0,
             "compare": ["stdout", "stderr", "exit_code", "counts"], "notes": NOTES.get(program, "")}
        if program == "linux_fileio":
            e["args"] = ["{tmpdir}"]
        if config == "rv64-linux-pg":
            e["compare"] = ["stdout", "exit_code"]
            e["notes"] = ("-pg build: writes gmon.out into the cwd; compare `gprof -b` call-graph arcs. "
                          "Instruction counts are not comparable: profil() takes SIGPROF timer samples.")
        yield e
        if program == "semihost_all" and opt == "O2":
            r = dict(e, args=["readc"], stdin="tests/corpus/input/readc.txt", compare=["exit_code"],
                     notes="SYS_READC variant. QEMU 7.2 SYS_READC is racy (it halts the CPU and re-executes the "
                           "ebreak until the chardev delivers input; the first call has returned garbage), so only "
                           "the exit code is comparable")
            yield r


def run(e, trace):
    with tempfile.TemporaryDirectory() as tmp:
        ns = type("NS", (), dict(elf=os.path.join(REPO, e["elf"]), args=[a.replace("{tmpdir}", tmp) for a in e["args"]],
                                 mode="auto", cwd=tmp, timeout=1800.0,
                                 stdin=None if e["stdin"] == "/dev/null" else os.path.join(REPO, e["stdin"])))
        res = qemu_ref.cmd_run(ns, trace=trace)
    out = dict(e)
    out["mode"] = res["mode"]
    got = res["exit_code"]
    if trace:
        out["instructions"] = res["instructions"]
        out["lockstep"] = res["instructions"] < LOCKSTEP_LIMIT and "counts" in e["compare"]
    return out, got, res["stdout"], res["seconds"]


def write_txt(manifest):
    lines = [
        "# fwprof differential-test corpus, generated by tests/corpus/gen-manifest.py from QEMU runs.",
        f"# {manifest['qemu_version']}; lock-step limit {manifest['lockstep_limit']} instructions.",
        "# Each program runs with a fresh temporary directory as cwd (linux_fileio writes there: argv[1]",
        "# defaults to \".\"); stdin /dev/null unless given.  Expected exit code 0 except exit_code (3).",
        "# Format: elf file | args | stdin or - | skip reason (empty = compare stdout, stderr, exit",
        "# code and per-address counts) | insns=N lockstep=yes|no | notes",
    ]
    for e in manifest["entries"]:
        if e["args"] and e["program"] == "semihost_all":
            continue   # the readc variant needs per-run args; see manifest.json
        skip = ""
        if "counts" not in e["compare"]:
            skip = "counts not comparable: " + e["notes"]
        args = " ".join(a for a in e["args"] if a != "{tmpdir}")
        stdin = "-" if e["stdin"] == "/dev/null" else e["stdin"]
        info = f"insns={e.get('instructions', '?')} lockstep={'yes' if e.get('lockstep') else 'no'}"
        notes = "" if skip else e["notes"]
        lines.append(f"{os.path.basename(e['elf'])} | {args} | {stdin} | {skip} | {info} | {notes}")
    with open(os.path.join(HERE, "manifest.txt"), "w") as f:
        f.write("\n".join(lines) + "\n")


def assemble_from_logs(logs):
    seen = {}
    for log in logs:
        with open(log) as f:
            for line in f:
                parts = line.split()
                if len(parts) < 4 or parts[0] != "ok" or not parts[2].isdigit():
                    continue
                seen[(parts[3], tuple(parts[4:]))] = int(parts[2])
    results, missing = [], []
    for e in entries():
        n = seen.get((e["elf"], tuple(e["args"])))
        if n is None:
            missing.append(e["elf"] + " " + " ".join(e["args"]))
            continue
        bits, lowest = qemu_ref.elf_info(os.path.join(REPO, e["elf"]))
        out = dict(e, mode="system" if bits == 32 or lowest >= 0x80000000 else "user", instructions=n)
        out["lockstep"] = n < LOCKSTEP_LIMIT and "counts" in e["compare"]
        results.append(out)
    if missing:
        print("missing from the logs: " + ", ".join(missing))
        return 1
    results.sort(key=lambda r: (r["program"], r["config"], r["opt"], r["args"]))
    ver = subprocess.run(["qemu-riscv64", "--version"], capture_output=True, text=True).stdout.split("\n")[0]
    manifest = {"qemu_version": ver, "lockstep_limit": LOCKSTEP_LIMIT, "entries": results}
    with open(os.path.join(HERE, "manifest.json"), "w") as f:
        json.dump(manifest, f, indent=1)
        f.write("\n")
    write_txt(manifest)
    print(f"{len(results)} entries")
    return 0


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 2)
    ap.add_argument("--no-trace", action="store_true")
    ap.add_argument("--from-json", action="store_true")
    ap.add_argument("--reverse", action="store_true", help="run the ELFs in reverse order")
    ap.add_argument("--from-logs", nargs="+", metavar="LOG")
    ns = ap.parse_args()
    if ns.from_logs:
        return assemble_from_logs(ns.from_logs)
    if ns.from_json:
        with open(os.path.join(HERE, "manifest.json")) as f:
            write_txt(json.load(f))
        return 0
    todo = list(entries())
    if ns.reverse:
        todo.reverse()
    results, bad = [], []
    stdouts = {}
    with concurrent.futures.ThreadPoolExecutor(ns.jobs) as pool:
        futs = {pool.submit(run, e, not ns.no_trace): e for e in todo}
        for f in concurrent.futures.as_completed(futs):
            e = futs[f]
            out, got, stdout, secs = f.result()
            status = "ok" if got == e["exit_code"] else f"EXIT {got} != {e['exit_code']}"
            if got != e["exit_code"]:
                bad.append(e["elf"])
            print(f"{status:4} {secs:7.2f}s {out.get('instructions', '-'):>12} {e['elf']} {' '.join(e['args'])}",
                  flush=True)
            results.append(out)
            if "stdout" in e["compare"] and e["program"] not in ("matrix",):
                stdouts.setdefault((e["program"], e["config"], tuple(e["args"])), set()).add(stdout)
    for k, v in stdouts.items():
        if len(v) > 1:
            bad.append(f"{k}: stdout differs between optimisation levels")
            print(f"MISMATCH {k}: stdout differs between optimisation levels")
    results.sort(key=lambda r: (r["program"], r["config"], r["opt"], r["args"]))
    ver = subprocess.run(["qemu-riscv64", "--version"], capture_output=True, text=True).stdout.split("\n")[0]
    if not ns.no_trace:
        manifest = {"qemu_version": ver, "lockstep_limit": LOCKSTEP_LIMIT, "entries": results}
        with open(os.path.join(HERE, "manifest.json"), "w") as f:
            json.dump(manifest, f, indent=1)
            f.write("\n")
        write_txt(manifest)
    print(f"{len(results)} runs, {len(bad)} problems")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
