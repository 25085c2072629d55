#!/usr/bin/env python3
"""QEMU 7.2 reference runner for fwprof's differential tests (stdlib only).

Usage
-----
  qemu-ref.py run   ELF [ARGS...] [--cwd DIR] [--stdin FILE] [--no-trace] [--timeout S] [--serial]
                    [--icount-shift N] [--with-rom] [--traps]
  qemu-ref.py regs  ELF [ARGS...] [--cwd DIR] [--stdin FILE] [-o OUT.jsonl] [--limit N]
                    [--icount-shift N]
  qemu-ref.py selftest ELF           (runs `run` twice, checks identical counts, prints speed)

Options must come before the ELF; everything after the ELF is passed to the guest
(use `--` to pass guest arguments that start with `-`).

How the guest is run
--------------------
* Mode is chosen from the ELF (``--mode`` overrides): a 32-bit ELF, or a 64-bit ELF
  whose lowest PT_LOAD address is >= 0x80000000, runs in system mode
  (``qemu-system-riscv32/64 -M virt -m 128M -bios none -kernel ELF`` with semihosting
  on a stdio chardev, no serial, no monitor); otherwise in Linux user mode
  (``qemu-riscv64``).
* Linux user mode: environment is exactly ``PATH=/usr/bin:/bin LANG=C.UTF-8`` (QEMU
  copies its own environment into the guest, so Python's is never inherited; note QEMU
  7.2 *reverses* the order, so the guest's envp is ["LANG=C.UTF-8", "PATH=/usr/bin:/bin"]),
  argv is ``[ELF as given (made absolute when --cwd is used), ARGS...]``, stdin is
  ``--stdin`` (default /dev/null), stdout and stderr are pipes.  QEMU opens its log file itself, so the guest sees one extra low
  file descriptor: corpus programs never print fd numbers.
* System mode: the semihosting command line (SYS_GET_CMDLINE) is made deterministic by
  always passing ``-semihosting-config arg=<basename(ELF)>,arg=ARG1,...``; QEMU joins
  the args with single spaces.  (Without ``arg=`` QEMU 7.2 would fall back to the
  ``-kernel`` path as given plus ``-append``.)  picolibc's semihost crt0 turns that
  into argv = ["program-name", <basename>, ARG1, ...], i.e. argc = 2 + len(ARGS).
  The exit code is the SYS_EXIT / SYS_EXIT_EXTENDED code QEMU's process exits with.

Execution trace (``run``)
-------------------------
QEMU is started with ``-singlestep -d nochain,exec`` so every translation block is one
guest instruction and no block chaining hides block entries.  The log is written to a
pipe (``-D /dev/fd/N``, the write end passed to QEMU) and parsed while QEMU runs; it is
never stored.  QEMU 7.2 prints, in ``cpu_tb_exec`` *before* the block runs::

    Trace 0: 0x7f80e4000a00 [00000000/80000004/00109003/ff000201] _start
             host TB ptr      cs_base  guest pc flags    cflags   symbol (may be empty)

cs_base and pc are TARGET_FMT_lx: 8 hex digits on riscv32, 16 on riscv64.  If the TB
is abandoned before its first instruction (exit request, e.g. a kick from the I/O
thread), QEMU 7.2 then prints::

    Stopped execution of TB chain before 0x7f... [80000004] sym

and the block will be entered (and logged) again later, so such a line cancels one
count for that pc.  With ``-icount`` an MMIO access (the CLINT's msip, mtimecmp, mtime)
from a block not translated for I/O makes QEMU 7.2 undo the block and translate it again
(``cpu_io_recompile`` in accel/tcg/translate-all.c), logging::

    cpu_io_recompile: rewound execution of TB to 0000000080000014

right after that block's Trace line; the block is logged again when it really runs, so
this line also cancels one count for that pc.  (Without -icount every block may do I/O
and the line never appears.)  An instruction that raises an exception (ecall, the
semihosting ebreak, a fault) is counted once, like a retired instruction.  In system
mode QEMU's reset ROM at 0x1000..0x1014 (6 instructions, before jumping to the ELF entry)
is left out of the counts and the total unless ``--with-rom`` is given.

Deterministic interrupts (``--icount-shift N``)
-----------------------------------------------
``run --icount-shift N`` (and ``regs --icount-shift N``) add ``-icount shift=N,sleep=off``:
QEMU's virtual clock then runs on the instruction count, 2^N ns per instruction, and a
``wfi`` advances it to the next timer deadline at once, so timer interrupts arrive at
the same instruction on every run (docs/simulator.md, "Interrupts and QEMU's icount",
has the arithmetic).  ``-singlestep`` stays on: it is part of the reference (without
it QEMU charges a ``wfi`` for the rest of its block and the clock drifts).  The log then
also has ``int`` (``riscv_cpu_do_interrupt`` lines), which ``run`` reports as ``traps``
(also given by ``--traps`` without icount).

Output of ``run`` (one JSON object on stdout)::

    {"elf": str, "mode": "user"|"system", "qemu": [argv...], "exit_code": int,
     "stdout": str (UTF-8, replacement chars if invalid), "stdout_b64": str,
     "stderr": str, "stderr_b64": str,
     "instructions": int, "counts": {"0x80000000": int, ...} (sorted by address),
     "rom_instructions": int, "with_rom": bool, "icount_shift": int|null,
     "trace_lines": int, "seconds": float,
     "traps": [{"n": int, "async": bool, "cause": int, "epc": int, "tval": int}, ...]}

``instructions`` is the sum of ``counts``; both hold the reset ROM's instructions
(0x1000..0x1014, one each) exactly when ``with_rom`` is true, and ``rom_instructions``
always says how many ROM instructions QEMU executed (6 in system mode, 0 in user mode).
``traps`` (only with ``--traps`` or ``--icount-shift``) lists every trap QEMU took, in
order: ``n`` is the number of instructions executed before it, reset ROM included (the
trap happens between instruction n-1 and instruction n, 0-based); ``cause`` is the
mcause/scause value without the interrupt bit (``async`` says whether it is an
interrupt); ``epc`` is the pc saved in mepc/sepc.  Semihosting calls are not traps.

Register trace (``regs``)
-------------------------
QEMU is started with ``-singlestep -d nochain,exec,cpu,fpu``.  For every ``Trace`` line
QEMU 7.2 then dumps the CPU state (``riscv_cpu_dump_state``) *at entry to that
one-instruction TB, i.e. before the instruction executes*: a `` pc`` line, in system
mode also a list of CSRs (`` V = 0``, mhartid, mstatus, mstatush, hstatus, vsstatus,
mip, mie, mideleg, hideleg, medeleg, hedeleg, mtvec, stvec, vstvec, mepc, sepc, vsepc,
mcause, scause, vscause, mtval, stval, htval, mtval2, mscratch, sscratch, satp; not in
user mode), then ``x0/zero .. x31/t6`` four per line, then with ``fpu`` ``f0/ft0 ..
f31/ft11`` four per line.  The f registers are always printed as 16 hex digits (FLEN=64
in QEMU even on rv32; single-precision values appear NaN-boxed as ffffffffxxxxxxxx).
fcsr/fflags/frm are NOT printed by QEMU 7.2, so they cannot be compared in lock-step
(the corpus prints fflags itself).

Hence the state *after* instruction k is the dump that comes with Trace line k+1.  The
JSON-lines file written by ``regs`` has one object per executed instruction k (0-based)
except the last one (after it QEMU exits, so no after-state exists)::

    {"i": k, "pc": <pc of instruction k>, "next_pc": <pc after it (== pc of k+1)>,
     "x": [x0..x31 after k], "f": [f0..f31 raw 64-bit after k]}

With ``--icount-shift`` the log has ``int`` too, and when QEMU takes an interrupt
between instruction k and k+1 the record of k also holds ``"irq": <cause>`` and
``"handler": <pc of the handler's first instruction>``; its ``next_pc`` is then the
interrupted pc (the value mepc/sepc receives), whatever the order of QEMU's log lines.

All values are JSON integers (unsigned, full 64-bit; rv32 values are 32-bit).  A
trapping instruction's after-state is the trap handler entry (next_pc = handler); for
the semihosting ``ebreak`` it is a0 = result, next_pc = ebreak + 4; for a Linux
``ecall`` it is the syscall result in a0, next_pc = ecall + 4.  Reset-ROM instructions
(system mode, pc 0x1000..0x1014) are skipped, so record 0 is the first instruction at
the ELF entry.  Note QEMU's initial stack pointer and auxv (user mode) are QEMU's own;
a lock-step comparison must start from fwprof's state or tolerate sp-derived values.
The last line of stdout is a JSON summary {"records": n, "exit_code": c, ...}.
Verified: for ``_start: auipc sp,0x8000`` at 0x80000000 record 0 already holds
sp = 0x88000000.

State QEMU 7.2 leaves that a lock-step comparison must know about
----------------------------------------------------------------------
* System mode, at the ELF entry (set by the reset ROM): a0 = mhartid = 0,
  a1 = FDT address (0x87e00000 with -m 128M), a2 = 0x1028 (fw_dynamic info),
  t0 = 0x1000; all other x and f registers 0.
* Semihosting results in a0 (seen with tests/corpus/src/semihost_all.c): SYS_WRITEC and
  SYS_WRITE0 leave a0 = 0xdeadbeef ("corrupted" per the spec); SYS_OPEN returns small
  guest handles starting at 1 and reusing the lowest free one; SYS_CLOSE of a bad handle
  and SYS_REMOVE of a missing file return -1; SYS_CLOCK and SYS_TIME are wall-clock values
  (mask them); SYS_TICKFREQ returns 1000000000; SYS_ELAPSED, SYS_HEAPINFO, SYS_TMPNAM
  return 0.  SYS_READC blocks at EOF and re-executes the ebreak while waiting (counts and
  the result become racy).
* User mode: sp and the auxv/argv/envp block are QEMU's (sp around 0x40008xxxxx).
"""

import argparse
import base64
import collections
import fcntl
import json
import os
import re
import signal
import struct
import subprocess
import sys
import threading
import time

RESET_ROM = (0x1000, 0x1018)
F_SETPIPE_SZ = 1031  # Linux fcntl
PIPE_SIZE = 1 << 20
QEMU_ENV = {"PATH": "/usr/bin:/bin", "LANG": "C.UTF-8"}

TRACE_RE = re.compile(rb"^Trace \d+: 0x[0-9a-f]+ \[[0-9a-f]+/([0-9a-f]+)/", re.M)
# Fast form for counting: only Trace lines contain "[cs_base/pc/" (symbols never hold '[').
TRACE_PC_RE = re.compile(rb"\[[0-9a-f]+/([0-9a-f]+)/")
STOP_RE = re.compile(rb"^Stopped execution of TB chain before 0x[0-9a-f]+ \[([0-9a-f]+)\]", re.M)
REWOUND_RE = re.compile(rb"^cpu_io_recompile: rewound execution of TB to ([0-9a-f]+)", re.M)
# target/riscv/cpu_helper.c riscv_cpu_do_interrupt (QEMU 7.2), logged with -d int.
INT_RE = re.compile(rb"^riscv_cpu_do_interrupt: hart:\d+, async:(\d), cause:([0-9a-f]+), "
                    rb"epc:0x([0-9a-f]+), tval:0x([0-9a-f]+)", re.M)
# Every line the sequential parser cares about, in log order.
EVENT_RE = re.compile(rb"^(?:Trace \d+: 0x[0-9a-f]+ \[[0-9a-f]+/([0-9a-f]+)/"
                      rb"|Stopped execution of TB chain before 0x[0-9a-f]+ \[([0-9a-f]+)\]"
                      rb"|cpu_io_recompile: rewound execution of TB to ([0-9a-f]+)"
                      rb"|riscv_cpu_do_interrupt: hart:\d+, async:(\d), cause:([0-9a-f]+), "
                      rb"epc:0x([0-9a-f]+), tval:0x([0-9a-f]+))", re.M)
REG_RE = re.compile(rb"\b([xf])(\d+)/[a-z0-9]+ +([0-9a-f]+)")
REGVAL_RE = re.compile(rb"\b[xf]\d+/[a-z0-9]+ +([0-9a-f]+)")


class QemuRefError(Exception):
    """A user-facing error (bad ELF, QEMU missing, timeout)."""


def elf_info(path):
    """Return (bits, lowest PT_LOAD vaddr) of a RISC-V ELF."""
    try:
        with open(path, "rb") as f:
            data = f.read(1 << 16)
    except OSError as e:
        raise QemuRefError(f"cannot read {path}: {e}")
    if len(data) < 64 or data[:4] != b"\x7fELF":
        raise QemuRefError(f"{path}: not an ELF file")
    bits = 32 if data[4] == 1 else 64
    if bits == 32:
        phoff, = struct.unpack_from("<I", data, 28)
        phentsize, phnum = struct.unpack_from("<HH", data, 42)
    else:
        phoff, = struct.unpack_from("<Q", data, 32)
        phentsize, phnum = struct.unpack_from("<HH", data, 54)
    lowest = None
    for i in range(phnum):
        off = phoff + i * phentsize
        if off + phentsize > len(data):
            break
        ptype, = struct.unpack_from("<I", data, off)
        if ptype != 1:
            continue
        vaddr = struct.unpack_from("<I", data, off + 8)[0] if bits == 32 else \
            struct.unpack_from("<Q", data, off + 16)[0]
        lowest = vaddr if lowest is None else min(lowest, vaddr)
    return bits, (lowest or 0)


def qemu_command(elf, args, mode, log_items, log_path, icount_shift=None, serial=False):
    bits, lowest = elf_info(elf)
    if mode == "auto":
        mode = "system" if bits == 32 or lowest >= 0x80000000 else "user"
    debug = ["-singlestep", "-d", log_items, "-D", log_path] if log_items else []
    if icount_shift is not None:
        # softmmu/icount.c icount_configure: shift 0..10 (MAX_ICOUNT_SHIFT).
        if not 0 <= icount_shift <= 10:
            raise QemuRefError(f"--icount-shift {icount_shift}: QEMU accepts 0 to 10")
        if mode == "user":
            raise QemuRefError("--icount-shift needs system mode (qemu-riscv64 has no -icount)")
        debug = ["-icount", f"shift={icount_shift},sleep=off"] + debug
    if mode == "user":
        if bits != 64:
            raise QemuRefError("user mode needs a 64-bit ELF (qemu-riscv64)")
        return mode, ["qemu-riscv64"] + debug + [elf] + list(args)
    sh_args = [os.path.basename(elf)] + list(args)
    cfg = "enable=on,target=native,chardev=c0" + "".join(
        ",arg=" + a.replace(",", ",,") for a in sh_args)
    # -cpu rvNN,h=false: fwprof's hart has no hypervisor extension, and misa,
    # mie and mideleg read back what the hart implements (docs/simulator.md).
    # --serial: the virt board's UART shares the stdio chardev (a mux) with
    # semihosting, for programs that print through the UART.
    chardev, ser = ("stdio,id=c0,mux=on", "chardev:c0") if serial else ("stdio,id=c0", "none")
    return mode, [f"qemu-system-riscv{bits}", "-M", "virt", "-cpu", f"rv{bits},h=false",
                  "-m", "128M", "-bios", "none",
                  "-display", "none", "-nodefaults", "-chardev", chardev,
                  "-semihosting-config", cfg, "-serial", ser, "-monitor", "none",
                  "-kernel", elf] + debug


def _die_with_parent():
    """Child side: get SIGKILL if the thread that started QEMU dies (PR_SET_PDEATHSIG)."""
    try:
        import ctypes
        ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGKILL, 0, 0, 0)
    except (OSError, AttributeError):
        pass


def _drain(stream, sink):
    sink.append(stream.read())


def run_qemu(elf, args, mode="auto", stdin=None, cwd=None, timeout=None, log_items=None,
             consume=None, icount_shift=None, serial=False):
    """Run QEMU; `consume(readable_binary_file)` parses the log pipe while QEMU runs.

    Returns (mode, argv, exit_code, stdout bytes, stderr bytes, seconds)."""
    rfd = wfd = None
    log_path = None
    if log_items:
        rfd, wfd = os.pipe()
        # QEMU 7.2 issues one write(2) per log line; a large pipe buffer keeps the
        # reader from being woken for every line.
        try:
            fcntl.fcntl(wfd, F_SETPIPE_SZ, PIPE_SIZE)
        except OSError:
            pass
        log_path = f"/dev/fd/{wfd}"
    mode, argv = qemu_command(elf, args, mode, log_items, log_path, icount_shift, serial)
    stdin_f = open(stdin or os.devnull, "rb")
    t0 = time.monotonic()
    try:
        proc = subprocess.Popen(argv, stdin=stdin_f, stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE, cwd=cwd, env=dict(QEMU_ENV),
                                pass_fds=(wfd,) if wfd is not None else (),
                                preexec_fn=_die_with_parent)
    except FileNotFoundError:
        raise QemuRefError(f"{argv[0]} not found")
    finally:
        stdin_f.close()
        if wfd is not None:
            os.close(wfd)
    out, err = [], []
    threads = [threading.Thread(target=_drain, args=(proc.stdout, out)),
               threading.Thread(target=_drain, args=(proc.stderr, err))]
    for t in threads:
        t.start()
    timer = None
    if timeout:
        timer = threading.Timer(timeout, proc.kill)
        timer.start()
    try:
        if rfd is not None:
            with os.fdopen(rfd, "rb", buffering=0) as logf:
                consume(logf)
        code = proc.wait()
    except BaseException:
        proc.kill()
        raise
    finally:
        if timer:
            timer.cancel()
    for t in threads:
        t.join()
    secs = time.monotonic() - t0
    if timeout and secs >= timeout and code < 0:
        raise QemuRefError(f"timeout after {timeout}s")
    return mode, argv, code, out[0], err[0], secs


class Counter:
    """Streams `-d nochain,exec[,int]` output into per-pc counts (and the traps taken)."""

    def __init__(self, with_rom=False):
        self.counts = collections.Counter()
        self.lines = 0
        self.with_rom = with_rom
        self.executed = 0  # instructions so far, reset ROM included (sequential parse only)
        self.traps = []

    def __call__(self, f):
        counts = self.counts
        tail = b""
        while True:
            chunk = f.read(1 << 20)
            if not chunk:
                break
            buf = tail + chunk
            cut = buf.rfind(b"\n") + 1
            tail, buf = buf[cut:], buf[:cut]
            self._feed(buf, counts)
        if tail:
            self._feed(tail + b"\n", counts)

    def _feed(self, buf, counts):
        if b"riscv_cpu_do_interrupt" in buf or b"cpu_io_recompile" in buf:
            self._feed_events(buf, counts)
            return
        pcs = TRACE_PC_RE.findall(buf)
        self.lines += len(pcs)
        self.executed += len(pcs)
        counts.update(pcs)
        if b"Stopped" in buf:
            stopped = STOP_RE.findall(buf)
            counts.subtract(stopped)
            self.executed -= len(stopped)

    def _feed_events(self, buf, counts):
        """In log order: a Trace line counts its pc; a Stopped or rewound line cancels
        the count of the Trace line just before it; an interrupt line records a trap."""
        for m in EVENT_RE.finditer(buf):
            pc, stopped, rewound, is_async = m.group(1), m.group(2), m.group(3), m.group(4)
            if pc is not None:
                counts[pc] += 1
                self.lines += 1
                self.executed += 1
            elif stopped is not None or rewound is not None:
                counts[stopped or rewound] -= 1
                self.executed -= 1
            elif is_async is not None:
                self.traps.append({"n": self.executed, "async": is_async == b"1",
                                   "cause": int(m.group(5), 16), "epc": int(m.group(6), 16),
                                   "tval": int(m.group(7), 16)})

    def rom_instructions(self):
        return sum(n for pc, n in self.counts.items()
                   if RESET_ROM[0] <= int(pc, 16) < RESET_ROM[1])

    def result(self):
        res = {}
        for pc, n in self.counts.items():
            a = int(pc, 16)
            if n == 0 or (not self.with_rom and RESET_ROM[0] <= a < RESET_ROM[1]):
                continue
            res[a] = n
        return dict(sorted(res.items()))


def text(b):
    return b.decode("utf-8", errors="replace")


def cmd_run(ns, trace=True):
    icount = getattr(ns, "icount_shift", None)
    with_rom = getattr(ns, "with_rom", False)
    traps = icount is not None or getattr(ns, "traps", False)
    counter = Counter(with_rom)
    items = ("nochain,exec,int" if traps else "nochain,exec") if trace else None
    mode, argv, code, out, err, secs = run_qemu(
        ns.elf, ns.args, ns.mode, ns.stdin, ns.cwd, ns.timeout, items, counter, icount,
        getattr(ns, "serial", False))
    res = {"elf": ns.elf, "mode": mode, "qemu": argv, "exit_code": code,
           "stdout": text(out), "stdout_b64": base64.b64encode(out).decode(),
           "stderr": text(err), "stderr_b64": base64.b64encode(err).decode(),
           "seconds": round(secs, 3), "icount_shift": icount}
    if trace:
        counts = counter.result()
        res["instructions"] = sum(counts.values())
        res["rom_instructions"] = counter.rom_instructions()
        res["with_rom"] = with_rom
        res["trace_lines"] = counter.lines
        res["counts"] = {f"0x{a:x}": n for a, n in counts.items()}
        if traps:
            res["traps"] = counter.traps
    return res


class RegWriter:
    """Streams `-d nochain,exec,cpu,fpu[,int]` output into after-state JSON lines."""

    def __init__(self, out, limit):
        self.out = out
        self.limit = limit
        self.records = 0
        self.prev_pc = None  # pc of the previous (counted) instruction
        self.skip_next = False
        self.pending = None  # the last record, held back so an interrupt can annotate it
        self.irq = None      # (cause, epc) of an interrupt logged since the last Trace line

    def __call__(self, f):
        tail = b""
        while True:
            chunk = f.read(1 << 20)
            if not chunk:
                break
            buf = tail + chunk
            # Split at the start of the last Trace/Stopped line: everything before is a
            # complete set of (Trace + dump) entries.
            cut = max(buf.rfind(b"\nTrace "), buf.rfind(b"\nStopped "))
            if cut < 0:
                tail = buf
                continue
            tail, buf = buf[cut + 1:], buf[:cut + 1]
            self._feed(buf)
        if tail:
            self._feed(tail)
        self._flush()

    def _flush(self):
        if self.pending is not None:
            self.out.write(json.dumps(self.pending) + "\n")
            self.pending = None

    def _emit(self, rec):
        """Write the held-back record and hold `rec` (None: just count)."""
        self._flush()
        if rec is not None:
            self.pending = rec
        self.records += 1

    def _feed(self, buf):
        # An interrupt noted at the end of the previous chunk annotates the first record
        # of this one: only the slow path does that.
        if (self.irq is None and b"Stopped" not in buf and b"cpu_io_recompile" not in buf
                and b"riscv_cpu_do_interrupt" not in buf and self._feed_fast(buf)):
            return
        self._feed_slow(buf)

    def _feed_fast(self, buf):
        """Whole-chunk parse: one findall for pcs, one for register values (x then f,
        32 or 64 per Trace line, in order).  Returns False if the shape is unexpected."""
        pcs = TRACE_PC_RE.findall(buf)
        vals = REGVAL_RE.findall(buf)
        if not pcs or len(vals) % len(pcs):
            return not pcs and not vals
        per = len(vals) // len(pcs)
        if per not in (32, 64):
            return False
        limit = self.limit
        for k, pcb in enumerate(pcs):
            pc = int(pcb, 16)
            if RESET_ROM[0] <= pc < RESET_ROM[1]:
                continue
            if self.skip_next:
                self.skip_next = False
            elif self.prev_pc is not None:
                rec = None
                if limit is None or self.records < limit:
                    regs = [int(v, 16) for v in vals[k * per:(k + 1) * per]]
                    f = regs[32:] if per == 64 else [0] * 32
                    rec = {"i": self.records, "pc": self.prev_pc, "next_pc": pc,
                           "x": regs[:32], "f": f}
                self._emit(rec)
            self.prev_pc = pc
        return True

    def _take_irq(self, rec, handler):
        cause, epc = self.irq
        self.irq = None
        if rec is not None:
            rec["irq"], rec["handler"], rec["next_pc"] = cause, handler, epc

    def _feed_slow(self, buf):
        for entry in re.split(rb"(?m)^(?=Trace |Stopped )", buf):
            if not entry:
                continue
            if entry.startswith(b"Stopped "):
                # The TB just logged was not entered: the record for the instruction
                # before it is right, but the next Trace line repeats the same pc and
                # state (or, if an interrupt is taken now, is the handler's first
                # instruction), so it must not produce a record.
                self.skip_next = True
                self._note_irq(entry)
                continue
            m = TRACE_RE.match(entry)
            if not m:
                continue
            pc = int(m.group(1), 16)
            if RESET_ROM[0] <= pc < RESET_ROM[1]:
                continue
            regs = {b"x": [0] * 32, b"f": [0] * 32}
            for kind, idx, val in REG_RE.findall(entry):
                regs[kind][int(idx)] = int(val, 16)
            if self.skip_next:
                self.skip_next = False
                if self.irq is not None:
                    self._take_irq(self.pending, pc)
            elif self.prev_pc is not None:
                rec = None
                if self.limit is None or self.records < self.limit:
                    rec = {"i": self.records, "pc": self.prev_pc, "next_pc": pc,
                           "x": regs[b"x"], "f": regs[b"f"]}
                if self.irq is not None:
                    self._take_irq(rec, pc)
                self._emit(rec)
            self.prev_pc = pc
            if REWOUND_RE.search(entry):
                # cpu_io_recompile: this block was undone before its I/O; QEMU logs it
                # again (same pc, same state) when it really runs.
                self.skip_next = True
            self._note_irq(entry)

    def _note_irq(self, entry):
        m = INT_RE.search(entry)
        if m and m.group(1) == b"1":
            self.irq = (int(m.group(2), 16), int(m.group(3), 16))


def cmd_regs(ns):
    out = open(ns.output, "w") if ns.output else sys.stdout
    writer = RegWriter(out, ns.limit)
    icount = getattr(ns, "icount_shift", None)
    items = "nochain,exec,cpu,fpu" + (",int" if icount is not None else "")
    mode, argv, code, sout, serr, secs = run_qemu(
        ns.elf, ns.args, ns.mode, ns.stdin, ns.cwd, ns.timeout, items, writer, icount)
    summary = {"records": writer.records, "exit_code": code, "mode": mode,
               "stdout": text(sout), "stderr": text(serr), "seconds": round(secs, 3)}
    if ns.output:
        out.close()
    print(json.dumps(summary))
    return 0


def cmd_selftest(ns):
    a = cmd_run(ns)
    b = cmd_run(ns)
    same = a["counts"] == b["counts"] and a["stdout"] == b["stdout"] and \
        a["exit_code"] == b["exit_code"]
    n = a["instructions"]
    print(json.dumps({"elf": ns.elf, "deterministic": same, "instructions": n,
                      "distinct_pcs": len(a["counts"]), "exit_code": a["exit_code"],
                      "seconds": [a["seconds"], b["seconds"]],
                      "insns_per_second": int(n / max(min(a["seconds"], b["seconds"]), 1e-9))}))
    return 0 if same else 1


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("command", choices=["run", "regs", "selftest"])
    p.add_argument("--mode", choices=["auto", "user", "system"], default="auto")
    p.add_argument("--cwd", help="working directory for QEMU (semihosting/open paths)")
    p.add_argument("--stdin", help="file fed to the guest's stdin (default /dev/null)")
    p.add_argument("--timeout", type=float, default=600.0, help="seconds (default 600)")
    p.add_argument("--no-trace", action="store_true", help="run: only stdout/exit code")
    p.add_argument("-o", "--output", help="regs: write JSON lines here (default stdout)")
    p.add_argument("--limit", type=int, help="regs: write at most N records")
    p.add_argument("--icount-shift", type=int, metavar="N",
                   help="run/regs: -icount shift=N,sleep=off (2^N ns per instruction)")
    p.add_argument("--with-rom", action="store_true",
                   help="run: count the reset ROM's instructions at 0x1000 too")
    p.add_argument("--serial", action="store_true",
                   help="system mode: connect the virt board's UART to stdin/stdout "
                        "(with semihosting, through a mux)")
    p.add_argument("--traps", action="store_true",
                   help="run: also log interrupts/exceptions (implied by --icount-shift)")
    p.add_argument("elf")
    p.add_argument("args", nargs=argparse.REMAINDER)
    ns = p.parse_args()
    if ns.args and ns.args[0] == "--":
        ns.args = ns.args[1:]
    ns.elf = os.path.abspath(ns.elf) if ns.cwd else ns.elf
    try:
        if ns.command == "run":
            json.dump(cmd_run(ns, trace=not ns.no_trace), sys.stdout)
            sys.stdout.write("\n")
            return 0
        if ns.command == "regs":
            return cmd_regs(ns)
        return cmd_selftest(ns)
    except QemuRefError as e:
        print(f"qemu-ref: {e}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
