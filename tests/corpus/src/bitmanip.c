/* Bit-manipulation extensions Zba, Zbb, Zbc, Zbs (built with -march=..._zba_zbb_zbc_zbs):
 * every instruction through inline assembly over edge values (0, 1, -1, the sign bit, bit
 * patterns, shift amounts 0..XLEN+1), the RV64-only .uw and w forms on RV64, and plain C that
 * GCC 12 compiles into them at -O2 (popcount, clz/ctz, rotates, min/max, byte swap, sign and
 * zero extension, and-not, single-bit operations, scaled and unsigned-index addressing). */
#include "common.h"

#define R(insn, a, b) ({ long r_; asm volatile(insn " %0, %1, %2" : "=r"(r_) : "r"(a), "r"(b)); r_; })
#define U(insn, a) ({ long r_; asm volatile(insn " %0, %1" : "=r"(r_) : "r"(a)); r_; })
#define I(insn, a, imm) ({ long r_; asm volatile(insn " %0, %1, %2" : "=r"(r_) : "r"(a), "i"(imm)); r_; })

static const long V[] = {0, 1, -1, 2, 7, -8, 0x80, 0xff, 0x7fff, 0x8000, 0x7fffffff,
                         -0x7fffffff - 1, 0x12345678, 0x00ff00f0, 31, 32, 33, 63, 64,
#if XLEN == 64
    0x7fffffffffffffffL, -0x7fffffffffffffffL - 1, 0x00000000ffffffffL, 0xffffffff00000000L,
    0x123456789abcdef0L, 0x0100800000010200L,
#endif
};
#define NV (sizeof V / sizeof V[0])

/* Register-register instructions: rd = op(rs1, rs2). */
static const char *const rr_names[] = {
    "sh1add", "sh2add", "sh3add", "andn", "orn", "xnor", "max", "maxu", "min", "minu",
    "rol", "ror", "clmul", "clmulh", "clmulr", "bclr", "bext", "binv", "bset",
#if XLEN == 64
    "add.uw", "sh1add.uw", "sh2add.uw", "sh3add.uw", "rolw", "rorw",
#endif
};
#define NRR (sizeof rr_names / sizeof rr_names[0])

static long rr(int op, long a, long b) {
    switch (op) {
    case 0: return R("sh1add", a, b);
    case 1: return R("sh2add", a, b);
    case 2: return R("sh3add", a, b);
    case 3: return R("andn", a, b);
    case 4: return R("orn", a, b);
    case 5: return R("xnor", a, b);
    case 6: return R("max", a, b);
    case 7: return R("maxu", a, b);
    case 8: return R("min", a, b);
    case 9: return R("minu", a, b);
    case 10: return R("rol", a, b);
    case 11: return R("ror", a, b);
    case 12: return R("clmul", a, b);
    case 13: return R("clmulh", a, b);
    case 14: return R("clmulr", a, b);
    case 15: return R("bclr", a, b);
    case 16: return R("bext", a, b);
    case 17: return R("binv", a, b);
    case 18: return R("bset", a, b);
#if XLEN == 64
    case 19: return R("add.uw", a, b);
    case 20: return R("sh1add.uw", a, b);
    case 21: return R("sh2add.uw", a, b);
    case 22: return R("sh3add.uw", a, b);
    case 23: return R("rolw", a, b);
    case 24: return R("rorw", a, b);
#endif
    }
    return 0;
}

/* Unary instructions: rd = op(rs1). */
static const char *const un_names[] = {
    "clz", "ctz", "cpop", "sext.b", "sext.h", "zext.h", "orc.b", "rev8",
#if XLEN == 64
    "clzw", "ctzw", "cpopw", "zext.w",
#endif
};
#define NUN (sizeof un_names / sizeof un_names[0])

static long un(int op, long a) {
    switch (op) {
    case 0: return U("clz", a);
    case 1: return U("ctz", a);
    case 2: return U("cpop", a);
    case 3: return U("sext.b", a);
    case 4: return U("sext.h", a);
    case 5: return U("zext.h", a);
    case 6: return U("orc.b", a);
    case 7: return U("rev8", a);
#if XLEN == 64
    case 8: return U("clzw", a);
    case 9: return U("ctzw", a);
    case 10: return U("cpopw", a);
    case 11: return U("zext.w", a);
#endif
    }
    return 0;
}

/* Immediate instructions at the edges of their shift amount / bit index. */
static long imm_ops(long a, uint32_t *h) {
    long r[] = {
        I("rori", a, 0), I("rori", a, 1), I("rori", a, 13), I("rori", a, XLEN - 1),
        I("bclri", a, 0), I("bclri", a, 7), I("bclri", a, XLEN - 1),
        I("bexti", a, 0), I("bexti", a, 15), I("bexti", a, XLEN - 1),
        I("binvi", a, 0), I("binvi", a, 31), I("binvi", a, XLEN - 1),
        I("bseti", a, 0), I("bseti", a, 8), I("bseti", a, XLEN - 1),
#if XLEN == 64
        I("bseti", a, 32), I("bexti", a, 40), I("rori", a, 32),
        I("roriw", a, 0), I("roriw", a, 1), I("roriw", a, 31),
        I("slli.uw", a, 0), I("slli.uw", a, 1), I("slli.uw", a, 31), I("slli.uw", a, 32),
        I("slli.uw", a, 63),
#endif
    };
    *h = fnv1a32(*h, r, sizeof r);
    return r[3] ^ r[9] ^ r[15];
}

/* Plain C that GCC 12 -O2 turns into Zba/Zbb/Zbs instructions. */
typedef unsigned long ul;
__attribute__((noinline)) static ul c_rotl(ul x, unsigned n) { return (x << (n % XLEN)) | (x >> ((XLEN - n) % XLEN)); }
__attribute__((noinline)) static ul c_rotr(ul x, unsigned n) { return (x >> (n % XLEN)) | (x << ((XLEN - n) % XLEN)); }
__attribute__((noinline)) static uint32_t c_rotl32(uint32_t x, unsigned n) { return (x << (n & 31)) | (x >> ((32 - n) & 31)); }
__attribute__((noinline)) static int c_counts(ul x) {
    return __builtin_popcountl(x) + (x ? __builtin_clzl(x) * 3 + __builtin_ctzl(x) * 5 : -1);
}
__attribute__((noinline)) static int c_counts32(uint32_t x) {
    return __builtin_popcount(x) + (x ? __builtin_clz(x) * 3 + __builtin_ctz(x) * 5 : -1);
}
__attribute__((noinline)) static long c_minmax(long a, long b) {
    long mx = a > b ? a : b, mn = a < b ? a : b;
    ul umx = (ul)a > (ul)b ? (ul)a : (ul)b, umn = (ul)a < (ul)b ? (ul)a : (ul)b;
    return mx * 3 + mn * 5 + (long)(umx ^ (umn << 1));
}
__attribute__((noinline)) static ul c_logic(ul a, ul b) { return (a & ~b) + (a | ~b) * 3 + ~(a ^ b) * 7; }
__attribute__((noinline)) static ul c_ext(ul a) {
    return (ul)(long)(signed char)a + (ul)(long)(short)a * 3 + (ul)(unsigned short)a * 5 +
           (ul)(uint32_t)a * 7;
}
__attribute__((noinline)) static ul c_bswap(ul a) {
#if XLEN == 64
    return __builtin_bswap64(a);
#else
    return __builtin_bswap32(a);
#endif
}
__attribute__((noinline)) static ul c_bits(ul a, unsigned n) {
    n %= XLEN;
    return (a | (1UL << n)) + (a & ~(1UL << n)) * 3 + (a ^ (1UL << n)) * 5 + ((a >> n) & 1) * 7;
}
/* Scaled indexing with 32-bit unsigned indices: sh1add/sh2add/sh3add and their .uw forms. */
__attribute__((noinline)) static ul c_index(const uint16_t *h16, const uint32_t *w32,
                                            const uint64_t *d64, unsigned i, unsigned j) {
    return h16[i] + w32[j] + d64[i ^ j] + (ul)(i + j) * 3;
}

static void c_part(void) {
    static uint16_t h16[64];
    static uint32_t w32[64];
    static uint64_t d64[64];
    uint32_t s = 0x9e3779b9, h = FNV32_INIT;
    for (int i = 0; i < 64; i++) {
        h16[i] = (uint16_t)xs32(&s);
        w32[i] = xs32(&s);
        d64[i] = (uint64_t)xs32(&s) << 32 | xs32(&s);
    }
    for (size_t i = 0; i < NV; i++) {
        ul a = (ul)V[i];
        for (unsigned n = 0; n <= XLEN + 1; n += 3) {
            ul r[] = {c_rotl(a, n), c_rotr(a, n), c_rotl32((uint32_t)a, n), c_bits(a, n)};
            h = fnv1a32(h, r, sizeof r);
        }
        for (size_t j = 0; j < NV; j++) {
            ul r[] = {(ul)c_minmax((long)a, V[j]), c_logic(a, (ul)V[j])};
            h = fnv1a32(h, r, sizeof r);
        }
        ul r[] = {(ul)c_counts(a), (ul)c_counts32((uint32_t)a), c_ext(a), c_bswap(a),
                  c_index(h16, w32, d64, (unsigned)(i % 64), (unsigned)((a & 63)))};
        h = fnv1a32(h, r, sizeof r);
    }
    printf("plain C: h=%08lx\n", (unsigned long)h);
}

/* QEMU 7.2's ctzw counts all 64 bits when the low word is 0 (ctzw of 1 << 63 gives 63; the
 * spec says 32): fwprof follows the spec, so those inputs are left out of the comparison
 * (docs/simulator.md). */
static int qemu_ctzw_differs(int op, long a) {
    return !strcmp(un_names[op], "ctzw") && (uint32_t)a == 0 && a != 0;
}

/* Every instruction on a few operands before any output, so that the lock-step test's
 * window (the first 40,000 instructions) executes all of them. */
static void quick_pass(void) {
    uint32_t h = FNV32_INIT;
    for (size_t op = 0; op < NRR; op++)
        for (size_t i = 0; i < NV; i += 4) {
            long r = rr((int)op, V[i], V[NV - 1 - i]);
            h = fnv1a32(h, &r, sizeof r);
        }
    for (size_t op = 0; op < NUN; op++)
        for (size_t i = 0; i < NV; i += 4) {
            if (qemu_ctzw_differs((int)op, V[i])) continue;
            long r = un((int)op, V[i]);
            h = fnv1a32(h, &r, sizeof r);
        }
    for (size_t i = 0; i < NV; i += 6) imm_ops(V[i], &h);
    printf("quick: h=%08lx\n", (unsigned long)h);
}

int main(void) {
    quick_pass();
    for (size_t op = 0; op < NRR; op++) {
        uint32_t h = FNV32_INIT;
        printf("%-10s", rr_names[op]);
        for (size_t i = 0; i < NV; i++)
            for (size_t j = 0; j < NV; j++) {
                long r = rr((int)op, V[i], V[j]);
                h = fnv1a32(h, &r, sizeof r);
                if (i == j && (i % 4 == 2)) printf(" %lx", (unsigned long)r);
            }
        printf(" h=%08lx\n", (unsigned long)h);
    }
    for (size_t op = 0; op < NUN; op++) {
        uint32_t h = FNV32_INIT;
        printf("%-10s", un_names[op]);
        for (size_t i = 0; i < NV; i++) {
            if (qemu_ctzw_differs((int)op, V[i])) continue;
            long r = un((int)op, V[i]);
            h = fnv1a32(h, &r, sizeof r);
            if (i % 3 == 0) printf(" %lx", (unsigned long)r);
        }
        printf(" h=%08lx\n", (unsigned long)h);
    }
    uint32_t h = FNV32_INIT;
    long x = 0;
    for (size_t i = 0; i < NV; i++) x ^= imm_ops(V[i], &h);
    printf("immediates: x=%lx h=%08lx\n", (unsigned long)x, (unsigned long)h);
    c_part();
    printf("bitmanip %s xlen=%d done\n", config_name(), XLEN);
    return 0;
}
