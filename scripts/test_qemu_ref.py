#!/usr/bin/env python3
"""Unit tests for qemu-ref.py's log parsers on synthetic QEMU 7.2 logs, plus (when QEMU
and the corpus are present) one real run.  Run: python3 scripts/test_qemu_ref.py"""

import importlib.util
import io
import json
import os
import shutil
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
spec = importlib.util.spec_from_file_location("qemu_ref", os.path.join(HERE, "qemu-ref.py"))
qr = importlib.util.module_from_spec(spec)
spec.loader.exec_module(qr)


def dump(pc, x1=0, f0=0, csrs=True):
    lines = [f" pc       {pc:08x}"]
    if csrs:
        lines += [" mhartid  00000000", " mstatus  00000000"]
    regs = [0] * 32
    regs[1] = x1
    for row in range(8):
        lines.append(" ".join(f"x{i}/r{i}    {regs[i]:08x}" for i in range(row * 4, row * 4 + 4)))
    fl = [0] * 32
    fl[0] = f0
    for row in range(8):
        lines.append(" ".join(f"f{i}/ft{i}   {fl[i]:016x}" for i in range(row * 4, row * 4 + 4)))
    return "\n".join(" " + ln.strip() for ln in lines) + "\n"


def trace(pc, sym=""):
    return f"Trace 0: 0x7f80e4000100 [00000000/{pc:08x}/00109003/ff000201] {sym}\n"


class CounterTest(unittest.TestCase):
    def test_counts_skip_reset_rom_and_cancelled_blocks(self):
        log = (trace(0x1000) + trace(0x1004) + trace(0x80000000, "_start") + trace(0x80000004) +
               "Stopped execution of TB chain before 0x7f80e4000100 [80000008] main\n" +
               trace(0x80000008) + trace(0x80000004) + trace(0x80000008))
        c = qr.Counter()
        c(io.BytesIO(log.encode()))
        self.assertEqual(c.result(), {0x80000000: 1, 0x80000004: 2, 0x80000008: 1})

    def test_lines_split_across_reads(self):
        log = "".join(trace(0x80000000 + 4 * (i % 7)) for i in range(50000)).encode()

        class Chunky(io.BytesIO):
            def read(self, n=-1):
                return super().read(min(n, 777) if n > 0 else 777)

        c = qr.Counter()
        c(Chunky(log))
        self.assertEqual(sum(c.result().values()), 50000)
        self.assertEqual(c.result()[0x80000000], 7143)


class IcountLogTest(unittest.TestCase):
    REWOUND = "cpu_io_recompile: rewound execution of TB to 80000004\n"
    IRQ = ("riscv_cpu_do_interrupt: hart:0, async:1, cause:0000000000000007, "
           "epc:0x0000000080000008, tval:0x0000000000000000, desc=m_timer\n")

    def test_rewound_block_counts_once_and_traps_are_numbered(self):
        log = (trace(0x1000) + trace(0x80000000) + trace(0x80000004) + self.REWOUND +
               trace(0x80000004) + trace(0x80000008) +
               "Stopped execution of TB chain before 0x7f80e4000100 [80000008] \n" + self.IRQ +
               trace(0x80000100) + trace(0x80000008))
        c = qr.Counter(with_rom=True)
        c(io.BytesIO(log.encode()))
        self.assertEqual(c.result(), {0x1000: 1, 0x80000000: 1, 0x80000004: 1,
                                      0x80000008: 1, 0x80000100: 1})
        self.assertEqual(c.rom_instructions(), 1)
        self.assertEqual(c.traps, [{"n": 3, "async": True, "cause": 7, "epc": 0x80000008,
                                    "tval": 0}])
        self.assertNotIn(0x1000, qr.Counter.result(type("C", (), {
            "counts": c.counts, "with_rom": False})()))

    def test_regs_interrupt_after_stopped_and_direct(self):
        # Stopped: 0x80000008 was logged but not run, the interrupt comes after
        # 0x80000004. Direct: 0x80000008 runs, then the interrupt (epc 0x8000000c).
        for stopped in (True, False):
            epc = 0x80000008 if stopped else 0x8000000c
            log = (trace(0x80000000) + dump(0x80000000) + trace(0x80000004) + dump(0x80000004, x1=1) +
                   self.REWOUND + trace(0x80000004) + dump(0x80000004, x1=1) +
                   trace(0x80000008) + dump(0x80000008, x1=2))
            if stopped:
                log += "Stopped execution of TB chain before 0x7f80e4000100 [80000008] \n"
            log += self.IRQ.replace("0000000080000008", f"{epc:016x}")
            log += trace(0x80000100) + dump(0x80000100, x1=2) + trace(0x80000104) + dump(0x80000104, x1=3)
            out = io.StringIO()
            qr.RegWriter(out, None)(io.BytesIO(log.encode()))
            recs = [json.loads(line) for line in out.getvalue().splitlines()]
            pcs = [0x80000000, 0x80000004] + ([] if stopped else [0x80000008]) + [0x80000100]
            self.assertEqual([r["pc"] for r in recs], pcs)
            k = len(pcs) - 2
            self.assertEqual((recs[k]["irq"], recs[k]["handler"], recs[k]["next_pc"]),
                             (7, 0x80000100, epc))
            self.assertEqual(sum("irq" in r for r in recs), 1)


class RegWriterTest(unittest.TestCase):
    def test_records_hold_state_after_each_instruction(self):
        log = (trace(0x1000) + dump(0x1000) + trace(0x80000000) + dump(0x80000000) +
               trace(0x80000004) + dump(0x80000004, x1=5) + trace(0x80000008) + dump(0x80000008, x1=5, f0=0xffffffff3f800000))
        out = io.StringIO()
        w = qr.RegWriter(out, None)
        w(io.BytesIO(log.encode()))
        recs = [json.loads(line) for line in out.getvalue().splitlines()]
        self.assertEqual([r["pc"] for r in recs], [0x80000000, 0x80000004])
        self.assertEqual(recs[0]["x"][1], 5)          # after 0x80000000 executed
        self.assertEqual(recs[0]["next_pc"], 0x80000004)
        self.assertEqual(recs[1]["f"][0], 0xffffffff3f800000)

    def test_cancelled_block_does_not_duplicate_a_record(self):
        log = (trace(0x80000000) + dump(0x80000000) + trace(0x80000004) + dump(0x80000004, x1=1) +
               "Stopped execution of TB chain before 0x7f80e4000100 [80000004] \n" +
               trace(0x80000004) + dump(0x80000004, x1=1) + trace(0x80000008) + dump(0x80000008, x1=2))
        out = io.StringIO()
        qr.RegWriter(out, None)(io.BytesIO(log.encode()))
        recs = [json.loads(line) for line in out.getvalue().splitlines()]
        self.assertEqual([(r["pc"], r["x"][1]) for r in recs], [(0x80000000, 1), (0x80000004, 2)])


CORPUS_ELF = os.path.join(os.path.dirname(HERE), "tests/corpus/build/bigint.rv32imac.O2.elf")


@unittest.skipUnless(shutil.which("qemu-system-riscv32") and os.path.exists(CORPUS_ELF), "needs QEMU and the corpus")
class RealRunTest(unittest.TestCase):
    def test_run_is_deterministic_and_excludes_reset_rom(self):
        ns = type("NS", (), dict(elf=CORPUS_ELF, args=[], mode="auto", stdin=None, cwd=None, timeout=300.0))
        a, b = qr.cmd_run(ns), qr.cmd_run(ns)
        self.assertEqual(a["exit_code"], 0)
        self.assertIn("100! (158 digits)", a["stdout"])
        self.assertEqual(a["counts"], b["counts"])
        self.assertNotIn("0x1000", a["counts"])
        self.assertEqual(a["counts"]["0x80000000"], 1)
        self.assertEqual(a["trace_lines"], a["instructions"] + 6)


if __name__ == "__main__":
    unittest.main()
