/* Executes every mnemonic of RV32GC / RV64GC (I, M, A, F, D, Zicsr, Zifencei, C) at least
 * once through inline assembly and prints each result.  Built for rv32imafdc (RV32-only
 * forms: c.jal c.flw c.fsw c.flwsp c.fswsp) and rv64gc (RV64-only forms: ld sd lwu *w,
 * .d atomics, fcvt.*.l[u], fmv.x.d/fmv.d.x, c.ld c.sd c.ldsp c.sdsp c.addiw c.addw c.subw).
 * On bare metal ecall, ebreak and c.ebreak are executed under a local M-mode trap handler
 * (mtvec) that records mcause and returns with mret; on Linux ecall is a write syscall.
 * Values that are addresses (auipc, jal/jalr links, c.addi4spn) are printed as
 * differences.  scripts/isa-coverage.py checks the executed set against objdump. */
#include "common.h"

#define U unsigned long
#define P(name, v) printf("%-12s %0*lx\n", name, XLEN / 4, (U)(v))
#define RR(insn, a, b) ({ U r_; asm volatile(insn " %0, %1, %2" : "=r"(r_) : "r"((U)(a)), "r"((U)(b))); r_; })
#define RI(insn, a, imm) ({ U r_; asm volatile(insn " %0, %1, %2" : "=r"(r_) : "r"((U)(a)), "i"(imm)); r_; })
#define TR(insn, a, b) P(insn, RR(insn, a, b))
#define TI(insn, a, imm) P(insn, RI(insn, a, imm))

static U mem[8] __attribute__((aligned(16)));

#ifdef CFG_BARE
volatile U trap_cause[4];
volatile U trap_count;
asm(".pushsection .text.isa_trap, \"ax\", @progbits\n"
    ".balign 64\n"
    "isa_trap_handler:\n"
    ".option push\n.option norvc\n"
    "  csrrw t2, mscratch, t2\n"     /* keep t2 */
    "  csrr t0, mcause\n"
    "  la t1, trap_count\n"
#if __riscv_xlen == 64
    "  ld t2, 0(t1)\n  addi t2, t2, 1\n  sd t2, 0(t1)\n"
    "  la t1, trap_cause\n  andi t2, t2, 3\n  slli t2, t2, 3\n  add t1, t1, t2\n  sd t0, 0(t1)\n"
#else
    "  lw t2, 0(t1)\n  addi t2, t2, 1\n  sw t2, 0(t1)\n"
    "  la t1, trap_cause\n  andi t2, t2, 3\n  slli t2, t2, 2\n  add t1, t1, t2\n  sw t0, 0(t1)\n"
#endif
    "  csrr t0, mepc\n"
    "  lhu t1, 0(t0)\n"
    "  andi t1, t1, 3\n"
    "  addi t0, t0, 2\n"
    "  addi t1, t1, -3\n"
    "  bnez t1, 1f\n"
    "  addi t0, t0, 2\n"
    "1: csrw mepc, t0\n"
    "  csrrw t2, mscratch, t2\n"
    "  mret\n"
    ".option pop\n"
    ".popsection\n");
#endif

static void base_integer(void) {
    U a = (U)0x87654321u, b = 5, n = (U)-7;
    U r;
    asm volatile("lui %0, 0xfedcb" : "=r"(r)); P("lui", r);
    U r2;
    asm volatile("auipc %0, 0\n\tauipc %1, 0" : "=r"(r), "=r"(r2)); P("auipc-diff", r2 - r);
    asm volatile("jal %0, 1f\n1:\n\tauipc %1, 0" : "=r"(r), "=r"(r2)); P("jal-link", r2 - r);
    asm volatile("la %1, 1f\n\tjalr %0, 0(%1)\n1:\n\tauipc %1, 0" : "=&r"(r), "=&r"(r2)); P("jalr-link", r2 - r);
#define BR(insn, x, y) ({ U t_; asm volatile("li %0, 1\n\t" insn " %1, %2, 1f\n\tli %0, 0\n1:" : "=&r"(t_) : "r"((U)(x)), "r"((U)(y))); t_; })
    printf("beq %lu%lu bne %lu%lu blt %lu%lu bge %lu%lu bltu %lu%lu bgeu %lu%lu\n", BR("beq", 3, 3), BR("beq", 3, 4),
           BR("bne", 3, 3), BR("bne", 3, 4), BR("blt", n, b), BR("blt", b, n), BR("bge", n, b), BR("bge", b, b),
           BR("bltu", n, b), BR("bltu", b, n), BR("bgeu", n, b), BR("bgeu", b, n));
    static unsigned char bytes[16] = {0x81, 0x82, 0x83, 0x84, 0x85, 0x86, 0x87, 0x88, 1, 2, 3, 4, 5, 6, 7, 8};
    asm volatile("lb %0, 0(%1)" : "=r"(r) : "r"(bytes)); P("lb", r);
    asm volatile("lh %0, 0(%1)" : "=r"(r) : "r"(bytes)); P("lh", r);
    asm volatile("lw %0, 0(%1)" : "=r"(r) : "r"(bytes)); P("lw", r);
    asm volatile("lbu %0, 0(%1)" : "=r"(r) : "r"(bytes)); P("lbu", r);
    asm volatile("lhu %0, 2(%1)" : "=r"(r) : "r"(bytes)); P("lhu", r);
    asm volatile("sb %1, 0(%0)\n\tsh %1, 2(%0)\n\tsw %1, 4(%0)" : : "r"(mem), "r"(a) : "memory");
    P("sb/sh/sw", mem[0]);
#if XLEN == 64
    asm volatile("lwu %0, 0(%1)" : "=r"(r) : "r"(bytes)); P("lwu", r);
    asm volatile("ld %0, 0(%1)" : "=r"(r) : "r"(bytes)); P("ld", r);
    asm volatile("sd %1, 8(%0)" : : "r"(mem), "r"(~a) : "memory"); P("sd", mem[1]);
#endif
    TI("addi", a, -2048); TI("slti", n, -6); TI("sltiu", b, -1); TI("xori", a, -1); TI("ori", a, 0x7f0);
    TI("andi", a, 0x0ff); TI("slli", a, 4); TI("srli", a, 4); TI("srai", n, 1);
    TR("add", a, b); TR("sub", b, a); TR("sll", a, 36); TR("slt", n, b); TR("sltu", n, b);
    TR("xor", a, n); TR("srl", n, 3); TR("sra", n, 3); TR("or", a, b); TR("and", a, n);
#if XLEN == 64
    TI("addiw", a, 1); TI("slliw", a, 4); TI("srliw", a, 4); TI("sraiw", a, 4);
    TR("addw", a, a); TR("subw", b, a); TR("sllw", a, 33); TR("srlw", a, 33); TR("sraw", a, 33);
#endif
    asm volatile("fence\n\tfence rw, rw\n\tfence iorw, iorw\n\tfence.tso\n\tfence.i" ::: "memory");
    printf("fence fence.tso fence.i done\n");
}

static void mul_div(void) {
    U a = (U)-12345678, b = 1000;
    TR("mul", a, b); TR("mulh", a, b); TR("mulhsu", a, b); TR("mulhu", a, b);
    TR("div", a, b); TR("divu", a, b); TR("rem", a, b); TR("remu", a, b);
#if XLEN == 64
    TR("mulw", a, b); TR("divw", a, b); TR("divuw", a, b); TR("remw", a, b); TR("remuw", a, b);
#endif
}

static void atomics(void) {
    U r, sc;
#define AMO(insn, v) do { mem[2] = 100; asm volatile(insn " %0, %2, (%1)" : "=r"(r) : "r"(&mem[2]), "r"((U)(v)) : "memory"); \
                          printf("%-12s old=%lx new=%lx\n", insn, r, mem[2]); } while (0)
    AMO("amoswap.w", 7); AMO("amoadd.w", 7); AMO("amoxor.w", 7); AMO("amoand.w", 7); AMO("amoor.w", 7);
    AMO("amomin.w", -7); AMO("amomax.w", -7); AMO("amominu.w", -7); AMO("amomaxu.w", -7);
    mem[3] = 41;
    asm volatile("lr.w %0, (%2)\n\taddi %0, %0, 1\n\tsc.w %1, %0, (%2)" : "=&r"(r), "=&r"(sc) : "r"(&mem[3]) : "memory");
    printf("lr.w/sc.w sc=%lu mem=%lu\n", sc, mem[3]);
#if XLEN == 64
    AMO("amoswap.d", 7); AMO("amoadd.d", 7); AMO("amoxor.d", 7); AMO("amoand.d", 7); AMO("amoor.d", 7);
    AMO("amomin.d", -7); AMO("amomax.d", -7); AMO("amominu.d", -7); AMO("amomaxu.d", -7);
    asm volatile("lr.d %0, (%2)\n\taddi %0, %0, 1\n\tsc.d %1, %0, (%2)" : "=&r"(r), "=&r"(sc) : "r"(&mem[3]) : "memory");
    printf("lr.d/sc.d sc=%lu mem=%lu\n", sc, mem[3]);
#endif
}

static uint32_t fb(float f) { uint32_t x; memcpy(&x, &f, 4); return x; }
static uint64_t db(double d) { uint64_t x; memcpy(&x, &d, 8); return x; }
#define PF(name, f) printf("%-12s %08lx\n", name, (unsigned long)fb(f))
#define PD(name, d) printf("%-12s %016llx\n", name, (unsigned long long)db(d))
#define F2(insn, a, b) ({ float r_; asm volatile(insn " %0, %1, %2" : "=f"(r_) : "f"(a), "f"(b)); r_; })
#define F3(insn, a, b, c) ({ float r_; asm volatile(insn " %0, %1, %2, %3" : "=f"(r_) : "f"(a), "f"(b), "f"(c)); r_; })
#define D2(insn, a, b) ({ double r_; asm volatile(insn " %0, %1, %2" : "=f"(r_) : "f"(a), "f"(b)); r_; })
#define D3(insn, a, b, c) ({ double r_; asm volatile(insn " %0, %1, %2, %3" : "=f"(r_) : "f"(a), "f"(b), "f"(c)); r_; })
#define X1(insn, a) ({ U r_; asm volatile(insn " %0, %1" : "=r"(r_) : "f"(a)); r_; })
#define X2(insn, a, b) ({ U r_; asm volatile(insn " %0, %1, %2" : "=r"(r_) : "f"(a), "f"(b)); r_; })
#define FX(insn, x) ({ float r_; asm volatile(insn " %0, %1" : "=f"(r_) : "r"((U)(x))); r_; })
#define DX(insn, x) ({ double r_; asm volatile(insn " %0, %1" : "=f"(r_) : "r"((U)(x))); r_; })
#define FF(insn, a) ({ float r_; asm volatile(insn " %0, %1" : "=f"(r_) : "f"(a)); r_; })
#define DD(insn, a) ({ double r_; asm volatile(insn " %0, %1" : "=f"(r_) : "f"(a)); r_; })

static void single(void) {
    static float fm[2] = {1.5f, 0};
    float a = -2.75f, b = 0.3f, c = 10.0f, r;
    asm volatile("flw %0, 0(%1)" : "=f"(r) : "r"(fm)); PF("flw", r);
    asm volatile("fsw %0, 4(%1)" : : "f"(a), "r"(fm) : "memory"); PF("fsw", fm[1]);
    PF("fmadd.s", F3("fmadd.s", a, b, c)); PF("fmsub.s", F3("fmsub.s", a, b, c));
    PF("fnmsub.s", F3("fnmsub.s", a, b, c)); PF("fnmadd.s", F3("fnmadd.s", a, b, c));
    PF("fadd.s", F2("fadd.s", a, b)); PF("fsub.s", F2("fsub.s", a, b)); PF("fmul.s", F2("fmul.s", a, b));
    PF("fdiv.s", F2("fdiv.s", a, b)); PF("fsqrt.s", FF("fsqrt.s", c));
    PF("fsgnj.s", F2("fsgnj.s", b, a)); PF("fsgnjn.s", F2("fsgnjn.s", b, a)); PF("fsgnjx.s", F2("fsgnjx.s", a, a));
    PF("fmin.s", F2("fmin.s", a, b)); PF("fmax.s", F2("fmax.s", a, b));
    P("fcvt.w.s", X1("fcvt.w.s", a)); P("fcvt.wu.s", X1("fcvt.wu.s", c)); P("fmv.x.w", X1("fmv.x.w", a));
    P("feq.s", X2("feq.s", a, a)); P("flt.s", X2("flt.s", a, b)); P("fle.s", X2("fle.s", b, a));
    P("fclass.s", X1("fclass.s", a));
    PF("fcvt.s.w", FX("fcvt.s.w", -123)); PF("fcvt.s.wu", FX("fcvt.s.wu", 0xffffffffu));
    PF("fmv.w.x", FX("fmv.w.x", 0x40490fdbu));
#if XLEN == 64
    P("fcvt.l.s", X1("fcvt.l.s", a)); P("fcvt.lu.s", X1("fcvt.lu.s", c));
    PF("fcvt.s.l", FX("fcvt.s.l", -1234567890123L)); PF("fcvt.s.lu", FX("fcvt.s.lu", 0xffffffffffffffffUL));
#endif
}

static void dbl(void) {
    static double dm[2] = {2.5, 0};
    double a = -1.0 / 3.0, b = 1e10, c = 2.0, r;
    asm volatile("fld %0, 0(%1)" : "=f"(r) : "r"(dm)); PD("fld", r);
    asm volatile("fsd %0, 8(%1)" : : "f"(a), "r"(dm) : "memory"); PD("fsd", dm[1]);
    PD("fmadd.d", D3("fmadd.d", a, b, c)); PD("fmsub.d", D3("fmsub.d", a, b, c));
    PD("fnmsub.d", D3("fnmsub.d", a, b, c)); PD("fnmadd.d", D3("fnmadd.d", a, b, c));
    PD("fadd.d", D2("fadd.d", a, b)); PD("fsub.d", D2("fsub.d", a, b)); PD("fmul.d", D2("fmul.d", a, b));
    PD("fdiv.d", D2("fdiv.d", a, b)); PD("fsqrt.d", DD("fsqrt.d", c));
    PD("fsgnj.d", D2("fsgnj.d", b, a)); PD("fsgnjn.d", D2("fsgnjn.d", b, a)); PD("fsgnjx.d", D2("fsgnjx.d", a, a));
    PD("fmin.d", D2("fmin.d", a, b)); PD("fmax.d", D2("fmax.d", a, b));
    float s; asm volatile("fcvt.s.d %0, %1" : "=f"(s) : "f"(a)); PF("fcvt.s.d", s);
    double d; asm volatile("fcvt.d.s %0, %1" : "=f"(d) : "f"(s)); PD("fcvt.d.s", d);
    P("feq.d", X2("feq.d", a, a)); P("flt.d", X2("flt.d", a, b)); P("fle.d", X2("fle.d", b, a));
    P("fclass.d", X1("fclass.d", a));
    P("fcvt.w.d", X1("fcvt.w.d", b)); P("fcvt.wu.d", X1("fcvt.wu.d", c));
    PD("fcvt.d.w", DX("fcvt.d.w", -5)); PD("fcvt.d.wu", DX("fcvt.d.wu", 0xfffffffbu));
#if XLEN == 64
    P("fcvt.l.d", X1("fcvt.l.d", b)); P("fcvt.lu.d", X1("fcvt.lu.d", c)); P("fmv.x.d", X1("fmv.x.d", a));
    PD("fcvt.d.l", DX("fcvt.d.l", -5L)); PD("fcvt.d.lu", DX("fcvt.d.lu", 0x8000000000000001UL));
    PD("fmv.d.x", DX("fmv.d.x", 0x400921fb54442d18UL));
#endif
}

static void zicsr(void) {
    U o1, o2, o3, o4, o5, o6, v;
    asm volatile("csrrw %0, fcsr, %6\n\tcsrrs %1, fflags, %7\n\tcsrrc %2, fflags, %8\n\t"
                 "csrrwi %3, frm, 2\n\tcsrrsi %4, fflags, 4\n\tcsrrci %5, fflags, 1"
                 : "=&r"(o1), "=&r"(o2), "=&r"(o3), "=&r"(o4), "=&r"(o5), "=&r"(o6)
                 : "r"((U)0x21), "r"((U)0x6), "r"((U)0x2));
    asm volatile("csrr %0, fcsr" : "=r"(v));
    printf("csrrw=%lx csrrs=%lx csrrc=%lx csrrwi=%lx csrrsi=%lx csrrci=%lx fcsr=%lx\n", o1, o2, o3, o4, o5, o6, v);
    asm volatile("csrw fcsr, zero");
}

/* Compressed forms, written explicitly (the compiler also emits many on its own). */
static void compressed(void) {
    static U cbuf[8] __attribute__((aligned(16)));
    static double cd[4] = {1.25, 0, 0, 0};
    U r0, r2, r4;
    asm volatile(
        "c.li a0, 5\n\t"
        "c.lui a1, 3\n\t"
        "c.addi a0, 7\n\t"
        "c.slli a1, 2\n\t"
        "c.srli a1, 1\n\t"
        "c.srai a0, 1\n\t"
        "c.andi a0, 15\n\t"
        "c.mv a2, a0\n\t"
        "c.add a2, a1\n\t"
        "c.sub a2, a0\n\t"
        "c.xor a2, a1\n\t"
        "c.or a2, a0\n\t"
        "c.and a2, a1\n\t"
        "c.nop\n\t"
#if __riscv_xlen == 64
        "c.addiw a0, 1\n\t"
        "c.addw a2, a0\n\t"
        "c.subw a2, a1\n\t"
#endif
        "mv a3, %[buf]\n\t"
        "c.sw a2, 0(a3)\n\t"
        "c.lw a4, 0(a3)\n\t"
#if __riscv_xlen == 64
        "c.sd a4, 8(a3)\n\t"
        "c.ld a5, 8(a3)\n\t"
        "c.add a4, a5\n\t"
#endif
        "mv a5, %[dbuf]\n\t"
        "c.fld fa0, 0(a5)\n\t"
        "c.fsd fa0, 8(a5)\n\t"
#if __riscv_xlen == 32
        "c.flw fa1, 8(a5)\n\t"
        "c.fsw fa1, 16(a5)\n\t"
#endif
        /* stack-pointer forms */
        "c.addi16sp sp, -64\n\t"
        "c.addi4spn a3, sp, 16\n\t"
        "c.sw a0, 0(a3)\n\t"
        "c.lwsp a5, 16(sp)\n\t"
        "c.swsp a5, 0(sp)\n\t"
        "c.add a4, a5\n\t"
        "c.fsdsp fa0, 24(sp)\n\t"
        "c.fldsp fa1, 24(sp)\n\t"
        "c.fsd fa1, 16(a3)\n\t"          /* a3 = sp+16: stores at sp+32 */
#if __riscv_xlen == 32
        "c.fswsp fa0, 40(sp)\n\t"
        "c.flwsp fa1, 40(sp)\n\t"
#else
        "c.sdsp a4, 40(sp)\n\t"
        "c.ldsp a5, 40(sp)\n\t"
        "c.add a4, a5\n\t"
#endif
        "c.addi16sp sp, 64\n\t"
        /* control flow */
        "c.li a3, 0\n\t"
        "c.beqz a3, 1f\n\t"
        "c.li a3, 9\n"
        "1:\n\t"
        "c.bnez a3, 2f\n\t"
        "c.addi a3, 1\n"
        "2:\n\t"
        "c.j 3f\n\t"
        "c.li a3, 13\n"
        "3:\n\t"
        "la a5, 4f\n\t"
        "c.jr a5\n\t"
        "c.li a3, 14\n"
        "4:\n\t"
        "la a5, 5f\n\t"
        "c.jalr a5\n\t"
        "c.li a3, 15\n"
        "5:\n\t"
#if __riscv_xlen == 32
        "c.jal 6f\n\t"
        "c.li a3, 16\n"
        "6:\n\t"
#endif
        "c.addi a3, 2\n\t"
        "mv %[r0], a2\n\t"
        "mv %[r2], a3\n\t"
        "mv %[r4], a4\n\t"
        : [r0] "=r"(r0), [r2] "=r"(r2), [r4] "=r"(r4)
        : [buf] "r"(cbuf), [dbuf] "r"(cd)
        : "a0", "a1", "a2", "a3", "a4", "a5", "ra", "fa0", "fa1", "memory");
    printf("compressed alu=%lx ctl=%lx mem=%lx fsd=%016llx\n", r0, r2, r4, (unsigned long long)db(cd[1]));
}

static void system_insns(void) {
#ifdef CFG_BARE
    U old, cnt;
    extern char isa_trap_handler[];
    asm volatile("csrrw %0, mtvec, %1" : "=r"(old) : "r"(isa_trap_handler));
    asm volatile("li a7, 93\n\tecall" ::: "a7", "t0", "t1", "memory");
    asm volatile(".option push\n\t.option norvc\n\tebreak\n\t.option pop" ::: "t0", "t1", "memory");
    asm volatile("c.ebreak" ::: "t0", "t1", "memory");
    asm volatile("csrw mtvec, %0" : : "r"(old));
    /* wfi: with mstatus.MIE off but mie.MTIE on, QEMU's wfi returns at once
     * (its machine timer is pending from reset) without taking a trap; so
     * does fwprof's (MTIP: time >= mtimecmp = 0). mie is restored. */
    {
        U mie_old;
        asm volatile("csrrci zero, mstatus, 8\n\t"
                     "li t0, 0x80\n\t"
                     "csrrs %0, mie, t0\n\t"
                     "wfi\n\t"
                     "csrw mie, %0"
                     : "=&r"(mie_old)
                     :
                     : "t0", "memory");
    }
    cnt = trap_count;
    printf("traps=%lu causes=%lu,%lu,%lu (ecall from M=11, breakpoint=3)\n", cnt, trap_cause[1], trap_cause[2],
           trap_cause[3]);
#else
    static const char msg[] = "ecall: write(1, ...) via inline syscall\n";
    fflush(stdout);
    register U a0 asm("a0") = 1;
    register const char *a1 asm("a1") = msg;
    register U a2 asm("a2") = sizeof msg - 1;
    register U a7 asm("a7") = 64;
    asm volatile("ecall" : "+r"(a0) : "r"(a1), "r"(a2), "r"(a7) : "memory");
    printf("ecall returned %lu\n", a0);
#endif
}

int main(void) {
    base_integer();
    mul_div();
    atomics();
    single();
    dbl();
    zicsr();
    compressed();
    system_insns();
    return 0;
}
