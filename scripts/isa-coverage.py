#!/usr/bin/env python3
"""Checks that the corpus *executes* every RV32GC/RV64GC mnemonic (stdlib only).

Usage: isa-coverage.py [ELF...]
  (default: tests/corpus/build/isa_all.{rv32imafdc,rv64gc,rv64-linux}.O0.elf)

Each ELF is run under QEMU through scripts/qemu-ref.py (per-address execution counts),
disassembled with `riscv64-unknown-elf-objdump -d -M no-aliases`, and the executed
addresses are mapped to mnemonics (c.addi zero,0 is reported as c.nop).  Prints the
required mnemonics that were never executed and exits 1 if there are any.
"""

import importlib.util
import os
import re
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)

RV_I = """lui auipc jal jalr beq bne blt bge bltu bgeu lb lh lw lbu lhu sb sh sw addi slti sltiu
xori ori andi slli srli srai add sub sll slt sltu xor srl sra or and fence fence.tso ecall ebreak"""
RV64_I = "lwu ld sd addiw slliw srliw sraiw addw subw sllw srlw sraw"
ZIFENCEI = "fence.i"
ZICSR = "csrrw csrrs csrrc csrrwi csrrsi csrrci"
RV_M = "mul mulh mulhsu mulhu div divu rem remu"
RV64_M = "mulw divw divuw remw remuw"
RV_A = "lr.w sc.w amoswap.w amoadd.w amoxor.w amoand.w amoor.w amomin.w amomax.w amominu.w amomaxu.w"
RV64_A = "lr.d sc.d amoswap.d amoadd.d amoxor.d amoand.d amoor.d amomin.d amomax.d amominu.d amomaxu.d"
RV_F = """flw fsw fmadd.s fmsub.s fnmsub.s fnmadd.s fadd.s fsub.s fmul.s fdiv.s fsqrt.s fsgnj.s
fsgnjn.s fsgnjx.s fmin.s fmax.s fcvt.w.s fcvt.wu.s fmv.x.w feq.s flt.s fle.s fclass.s fcvt.s.w
fcvt.s.wu fmv.w.x"""
RV64_F = "fcvt.l.s fcvt.lu.s fcvt.s.l fcvt.s.lu"
RV_D = """fld fsd fmadd.d fmsub.d fnmsub.d fnmadd.d fadd.d fsub.d fmul.d fdiv.d fsqrt.d fsgnj.d
fsgnjn.d fsgnjx.d fmin.d fmax.d fcvt.s.d fcvt.d.s feq.d flt.d fle.d fclass.d fcvt.w.d fcvt.wu.d
fcvt.d.w fcvt.d.wu"""
RV64_D = "fcvt.l.d fcvt.lu.d fmv.x.d fcvt.d.l fcvt.d.lu fmv.d.x"
RV_C = """c.addi4spn c.fld c.lw c.fsd c.sw c.nop c.addi c.li c.addi16sp c.lui c.srli c.srai
c.andi c.sub c.xor c.or c.and c.j c.beqz c.bnez c.slli c.fldsp c.lwsp c.jr c.mv c.ebreak
c.jalr c.add c.fsdsp c.swsp"""
RV32_C = "c.jal c.flw c.fsw c.flwsp c.fswsp"
RV64_C = "c.ld c.sd c.addiw c.subw c.addw c.ldsp c.sdsp"

REQUIRED = set(" ".join([RV_I, RV64_I, ZIFENCEI, ZICSR, RV_M, RV64_M, RV_A, RV64_A, RV_F, RV64_F,
                         RV_D, RV64_D, RV_C, RV32_C, RV64_C]).split())

LINE_RE = re.compile(r"^\s*([0-9a-f]+):\s+[0-9a-f]+\s+(\S+)\s*(.*)$")
# Ordering/rounding suffixes that objdump may print on A instructions.
AQRL_RE = re.compile(r"\.(aqrl|aq|rl)$")


def load_qemu_ref():
    spec = importlib.util.spec_from_file_location("qemu_ref", os.path.join(HERE, "qemu-ref.py"))
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def disassemble(elf):
    out = subprocess.run(["riscv64-unknown-elf-objdump", "-d", "-M", "no-aliases", elf],
                         check=True, capture_output=True, text=True).stdout
    table = {}
    for line in out.splitlines():
        m = LINE_RE.match(line)
        if not m:
            continue
        addr, mnem, ops = int(m.group(1), 16), m.group(2), m.group(3)
        if mnem == "c.addi" and ops.startswith("zero,0"):
            mnem = "c.nop"
        mnem = AQRL_RE.sub("", mnem)
        table[addr] = mnem
    return table


def main():
    elfs = sys.argv[1:] or [os.path.join(REPO, "tests/corpus/build", f"isa_all.{c}.O0.elf")
                            for c in ("rv32imafdc", "rv64gc", "rv64-linux")]
    qr = load_qemu_ref()
    executed = set()
    for elf in elfs:
        with tempfile.TemporaryDirectory() as tmp:
            ns = type("NS", (), dict(elf=os.path.abspath(elf), args=[], mode="auto", stdin=None, cwd=tmp,
                                     timeout=600.0))
            res = qr.cmd_run(ns)
        table = disassemble(elf)
        seen = {table[int(a, 16)] for a in res["counts"] if int(a, 16) in table}
        print(f"{os.path.basename(elf)}: {res['instructions']} instructions, {len(seen)} distinct mnemonics")
        executed |= seen
    missing = sorted(REQUIRED - executed)
    print(f"required {len(REQUIRED)}, executed {len(REQUIRED & executed)}")
    if missing:
        print("never executed: " + " ".join(missing))
        return 1
    print("every required mnemonic was executed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
