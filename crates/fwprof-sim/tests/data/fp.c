/* F/D instruction results and fflags over special operands and all rounding
   modes, printed as a checksum per operation plus a few sample lines, for
   comparison with QEMU 7.2. */
#include <stdio.h>
#include <stdint.h>

static const uint32_t S[] = { 0x00000000, 0x80000000, 0x3f800000, 0xbf800000, 0x7f800000, 0xff800000,
    0x7fc00000, 0x7f800001, 0x00000001, 0x807fffff, 0x7f7fffff, 0x4f000000, 0xcf000000, 0x3fc00000,
    0x40490fdb, 0x5f800000, 0xdf000000, 0x4effffff, 0x34000000, 0xc2f6e979 };
static const uint64_t D[] = { 0, 0x8000000000000000ull, 0x3ff0000000000000ull, 0xbff0000000000000ull,
    0x7ff0000000000000ull, 0xfff0000000000000ull, 0x7ff8000000000000ull, 0x7ff0000000000001ull,
    1, 0x800fffffffffffffull, 0x7fefffffffffffffull, 0x41e0000000000000ull, 0xc1e0000000000000ull,
    0x3ff8000000000000ull, 0x400921fb54442d18ull, 0x43f0000000000000ull, 0xc3e0000000000000ull,
    0x41dfffffffc00000ull, 0x3e80000000000000ull, 0xc05edd2f1a9fbe77ull };
#define NS (sizeof S / sizeof S[0])
#define ND (sizeof D / sizeof D[0])

static uint64_t h = 0xcbf29ce484222325ull;
static void mix(uint64_t v) { for (int i = 0; i < 8; i++) { h ^= (v >> (8 * i)) & 0xff; h *= 0x100000001b3ull; } }
static unsigned long flags(void) { unsigned long f; __asm__ volatile("frflags %0" : "=r"(f)); return f; }
static void setrm(int rm) { __asm__ volatile("fsrm %0" :: "r"(rm)); }
static void clr(void) { __asm__ volatile("fsflags zero"); }

#define BOX(x) (0xffffffff00000000ull | (x))
#define OP2S(name, insn) static uint64_t name(uint32_t a, uint32_t b) { float r, x, y; \
    __asm__ volatile("fmv.w.x %1, %3\n fmv.w.x %2, %4\n " insn " %0, %1, %2" : "=&f"(r), "=&f"(x), "=&f"(y) : "r"(a), "r"(b)); \
    uint32_t o; __asm__ volatile("fmv.x.w %0, %1" : "=r"(o) : "f"(r)); return o; }
OP2S(fadds, "fadd.s") OP2S(fsubs, "fsub.s") OP2S(fmuls, "fmul.s") OP2S(fdivs, "fdiv.s")
OP2S(fmins, "fmin.s") OP2S(fmaxs, "fmax.s") OP2S(fsgnjns, "fsgnjn.s")
#define CMPS(name, insn) static uint64_t name(uint32_t a, uint32_t b) { float x, y; long r; \
    __asm__ volatile("fmv.w.x %1, %3\n fmv.w.x %2, %4\n " insn " %0, %1, %2" : "=r"(r), "=&f"(x), "=&f"(y) : "r"(a), "r"(b)); return r; }
CMPS(feqs, "feq.s") CMPS(flts, "flt.s") CMPS(fles, "fle.s")
#define OP2D(name, insn) static uint64_t name(uint64_t a, uint64_t b) { double r, x, y; \
    __asm__ volatile("fmv.d.x %1, %3\n fmv.d.x %2, %4\n " insn " %0, %1, %2" : "=&f"(r), "=&f"(x), "=&f"(y) : "r"(a), "r"(b)); \
    uint64_t o; __asm__ volatile("fmv.x.d %0, %1" : "=r"(o) : "f"(r)); return o; }
#define CMPD(name, insn) static uint64_t name(uint64_t a, uint64_t b) { double x, y; long r; \
    __asm__ volatile("fmv.d.x %1, %3\n fmv.d.x %2, %4\n " insn " %0, %1, %2" : "=r"(r), "=&f"(x), "=&f"(y) : "r"(a), "r"(b)); return r; }
#if __riscv_xlen == 64
OP2D(faddd, "fadd.d") OP2D(fmuld, "fmul.d") OP2D(fdivd, "fdiv.d") OP2D(fmind, "fmin.d") OP2D(fmaxd, "fmax.d")
CMPD(flted, "flt.d") CMPD(feqd, "feq.d")
#endif
#define UNS(name, insn) static uint64_t name(uint32_t a) { float x; long r; \
    __asm__ volatile("fmv.w.x %1, %2\n " insn : "=r"(r), "=&f"(x) : "r"(a)); return r; }
UNS(cvtws, "fcvt.w.s %0, %1, dyn") UNS(cvtwus, "fcvt.wu.s %0, %1, dyn") UNS(classs, "fclass.s %0, %1")
#if __riscv_xlen == 64
UNS(cvtls, "fcvt.l.s %0, %1, dyn") UNS(cvtlus, "fcvt.lu.s %0, %1, dyn")
#endif
static uint64_t sqrts(uint32_t a) { float x, r; uint32_t o;
    __asm__ volatile("fmv.w.x %1, %2\n fsqrt.s %0, %1" : "=&f"(r), "=&f"(x) : "r"(a)); __asm__ volatile("fmv.x.w %0, %1" : "=r"(o) : "f"(r)); return o; }
static uint64_t fmas(uint32_t a, uint32_t b) { float x, y, r; uint32_t o;
    __asm__ volatile("fmv.w.x %1, %3\n fmv.w.x %2, %4\n fnmsub.s %0, %1, %2, %1" : "=&f"(r), "=&f"(x), "=&f"(y) : "r"(a), "r"(b)); __asm__ volatile("fmv.x.w %0, %1" : "=r"(o) : "f"(r)); return o; }

typedef uint64_t (*op2s)(uint32_t, uint32_t);
typedef uint64_t (*op1s)(uint32_t);

int main(void) {
    struct { const char *n; op2s f; } ops2[] = { {"fadd.s", fadds}, {"fsub.s", fsubs}, {"fmul.s", fmuls},
        {"fdiv.s", fdivs}, {"fmin.s", fmins}, {"fmax.s", fmaxs}, {"fsgnjn.s", fsgnjns}, {"feq.s", feqs},
        {"flt.s", flts}, {"fle.s", fles}, {"fnmsub.s", fmas} };
    for (unsigned k = 0; k < sizeof ops2 / sizeof ops2[0]; k++) {
        h = 0xcbf29ce484222325ull;
        for (int rm = 0; rm < 5; rm++) { setrm(rm);
            for (unsigned i = 0; i < NS; i++) for (unsigned j = 0; j < NS; j++) { clr(); mix(ops2[k].f(S[i], S[j])); mix(flags()); } }
        printf("%-9s %016llx\n", ops2[k].n, (unsigned long long)h);
    }
    struct { const char *n; op1s f; } ops1[] = { {"fcvt.w.s", cvtws}, {"fcvt.wu.s", cvtwus}, {"fclass.s", classs},
        {"fsqrt.s", sqrts},
#if __riscv_xlen == 64
        {"fcvt.l.s", cvtls}, {"fcvt.lu.s", cvtlus},
#endif
    };
    for (unsigned k = 0; k < sizeof ops1 / sizeof ops1[0]; k++) {
        h = 0xcbf29ce484222325ull;
        for (int rm = 0; rm < 5; rm++) { setrm(rm);
            for (unsigned i = 0; i < NS; i++) { clr(); mix(ops1[k].f(S[i])); mix(flags()); } }
        printf("%-9s %016llx\n", ops1[k].n, (unsigned long long)h);
    }
#if __riscv_xlen == 64
    struct { const char *n; uint64_t (*f)(uint64_t, uint64_t); } opsd[] = { {"fadd.d", faddd}, {"fmul.d", fmuld},
        {"fdiv.d", fdivd}, {"fmin.d", fmind}, {"fmax.d", fmaxd}, {"flt.d", flted}, {"feq.d", feqd} };
    for (unsigned k = 0; k < sizeof opsd / sizeof opsd[0]; k++) {
        h = 0xcbf29ce484222325ull;
        for (int rm = 0; rm < 5; rm++) { setrm(rm);
            for (unsigned i = 0; i < ND; i++) for (unsigned j = 0; j < ND; j++) { clr(); mix(opsd[k].f(D[i], D[j])); mix(flags()); } }
        printf("%-9s %016llx\n", opsd[k].n, (unsigned long long)h);
    }
#endif
#if __riscv_xlen == 64
    /* NaN-boxing: a double in an f register read as a single. */
    { uint64_t r; double d = 1.0; float f; __asm__ volatile("fmv.d %1, %2\n fadd.s %1, %1, %1\n fmv.x.d %0, %1" : "=r"(r), "=&f"(f) : "f"(d));
      printf("nanbox %llx\n", (unsigned long long)(r)); }
#endif
    printf("fflags-end %lx\n", flags());
    return 0;
}
