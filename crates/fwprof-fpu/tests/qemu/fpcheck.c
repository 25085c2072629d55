/*
 * fpcheck: runs single RISC-V F/D instructions on operand bit patterns and
 * prints result bits and fflags, as the reference for fwprof-fpu's tests.
 *
 * Input, one case per line:   MNEMONIC RM A B C   (RM decimal 0..4, A/B/C hex)
 * Output, one line per case:  RESULT FLAGS        (hex; RESULT is the raw
 * 64-bit value: fmv.x.d of a D result, fmv.x.w (sign-extended) of an S
 * result, the integer register for compares, fclass and fcvt to integer).
 *
 * Each instruction runs inside one asm statement together with
 * `fsflags zero` before and `frflags` after, with the static rounding mode
 * written into the instruction, so nothing else can touch fflags.
 * Build: riscv64-linux-gnu-gcc -static -O1 -march=rv64gc fpcheck.c
 */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

typedef uint64_t u64;
typedef unsigned long ul;

static float tof(u64 x) { uint32_t v = (uint32_t)x; float f; memcpy(&f, &v, 4); return f; }
static double tod(u64 x) { double d; memcpy(&d, &x, 8); return d; }
static u64 fromf(float f) { int32_t v; memcpy(&v, &f, 4); return (u64)(int64_t)v; }
static u64 fromd(double d) { u64 v; memcpy(&v, &d, 8); return v; }

/* One asm statement per static rounding mode. */
#define RM_ASM(pre, post, ...)                                                 \
    switch (rm) {                                                              \
    case 0: __asm__ volatile(pre "rne" post __VA_ARGS__); break;               \
    case 1: __asm__ volatile(pre "rtz" post __VA_ARGS__); break;               \
    case 2: __asm__ volatile(pre "rdn" post __VA_ARGS__); break;               \
    case 3: __asm__ volatile(pre "rup" post __VA_ARGS__); break;               \
    default: __asm__ volatile(pre "rmm" post __VA_ARGS__); break;              \
    }

#define PRE "fsflags zero\n\t"
#define POST "\n\tfrflags %1"

/* fp = fp op fp, rounded */
#define OP_FF_RM(fn, insn, T, TO, FROM)                                        \
    static u64 fn(u64 a, u64 b, u64 c, int rm, ul *fl) {                       \
        T x = TO(a), y = TO(b), z;                                             \
        (void)c;                                                               \
        RM_ASM(PRE insn " %0, %2, %3, ", POST, : "=&f"(z), "=r"(*fl) : "f"(x), "f"(y)) \
        return FROM(z);                                                        \
    }
/* fp = op fp, rounded */
#define OP_F_RM(fn, insn, T, TO, R, FROM)                                      \
    static u64 fn(u64 a, u64 b, u64 c, int rm, ul *fl) {                       \
        T x = TO(a);                                                           \
        R z;                                                                   \
        (void)b; (void)c;                                                      \
        RM_ASM(PRE insn " %0, %2, ", POST, : "=&f"(z), "=r"(*fl) : "f"(x))     \
        return FROM(z);                                                        \
    }
/* fp = fp * fp + fp, rounded */
#define OP_FFF_RM(fn, insn, T, TO, FROM)                                       \
    static u64 fn(u64 a, u64 b, u64 c, int rm, ul *fl) {                       \
        T x = TO(a), y = TO(b), w = TO(c), z;                                  \
        RM_ASM(PRE insn " %0, %2, %3, %4, ", POST, : "=&f"(z), "=r"(*fl) : "f"(x), "f"(y), "f"(w)) \
        return FROM(z);                                                        \
    }
/* int = op fp, rounded */
#define OP_IF_RM(fn, insn, T, TO)                                              \
    static u64 fn(u64 a, u64 b, u64 c, int rm, ul *fl) {                       \
        T x = TO(a);                                                           \
        ul z;                                                                  \
        (void)b; (void)c;                                                      \
        RM_ASM(PRE insn " %0, %2, ", POST, : "=&r"(z), "=&r"(*fl) : "f"(x))    \
        return z;                                                              \
    }
/* fp = op int, rounded */
#define OP_FI_RM(fn, insn, R, FROM)                                            \
    static u64 fn(u64 a, u64 b, u64 c, int rm, ul *fl) {                       \
        ul x = a;                                                              \
        R z;                                                                   \
        (void)b; (void)c;                                                      \
        RM_ASM(PRE insn " %0, %2, ", POST, : "=&f"(z), "=r"(*fl) : "r"(x))     \
        return FROM(z);                                                        \
    }
/* fp = fp op fp, no rounding */
#define OP_FF(fn, insn, T, TO, FROM)                                           \
    static u64 fn(u64 a, u64 b, u64 c, int rm, ul *fl) {                       \
        T x = TO(a), y = TO(b), z;                                             \
        (void)c; (void)rm;                                                     \
        __asm__ volatile(PRE insn " %0, %2, %3" POST : "=&f"(z), "=r"(*fl) : "f"(x), "f"(y)); \
        return FROM(z);                                                        \
    }
/* int = fp op fp */
#define OP_IFF(fn, insn, T, TO)                                                \
    static u64 fn(u64 a, u64 b, u64 c, int rm, ul *fl) {                       \
        T x = TO(a), y = TO(b);                                                \
        ul z;                                                                  \
        (void)c; (void)rm;                                                     \
        __asm__ volatile(PRE insn " %0, %2, %3" POST : "=&r"(z), "=&r"(*fl) : "f"(x), "f"(y)); \
        return z;                                                              \
    }
/* int = op fp / fp = op fp (exact) / fp = op int (exact) */
#define OP_IF(fn, insn, T, TO)                                                 \
    static u64 fn(u64 a, u64 b, u64 c, int rm, ul *fl) {                       \
        T x = TO(a);                                                           \
        ul z;                                                                  \
        (void)b; (void)c; (void)rm;                                            \
        __asm__ volatile(PRE insn " %0, %2" POST : "=&r"(z), "=&r"(*fl) : "f"(x)); \
        return z;                                                              \
    }
#define OP_F(fn, insn, T, TO, R, FROM)                                         \
    static u64 fn(u64 a, u64 b, u64 c, int rm, ul *fl) {                       \
        T x = TO(a);                                                           \
        R z;                                                                   \
        (void)b; (void)c; (void)rm;                                            \
        __asm__ volatile(PRE insn " %0, %2" POST : "=&f"(z), "=r"(*fl) : "f"(x)); \
        return FROM(z);                                                        \
    }
#define OP_FI(fn, insn, R, FROM)                                               \
    static u64 fn(u64 a, u64 b, u64 c, int rm, ul *fl) {                       \
        ul x = a;                                                              \
        R z;                                                                   \
        (void)b; (void)c; (void)rm;                                            \
        __asm__ volatile(PRE insn " %0, %2" POST : "=&f"(z), "=r"(*fl) : "r"(x)); \
        return FROM(z);                                                        \
    }

#define WIDTH(S, T, TO, FROM)                                                  \
    OP_FF_RM(fadd_##S, "fadd." #S, T, TO, FROM)                                \
    OP_FF_RM(fsub_##S, "fsub." #S, T, TO, FROM)                                \
    OP_FF_RM(fmul_##S, "fmul." #S, T, TO, FROM)                                \
    OP_FF_RM(fdiv_##S, "fdiv." #S, T, TO, FROM)                                \
    OP_F_RM(fsqrt_##S, "fsqrt." #S, T, TO, T, FROM)                            \
    OP_FFF_RM(fmadd_##S, "fmadd." #S, T, TO, FROM)                             \
    OP_FFF_RM(fmsub_##S, "fmsub." #S, T, TO, FROM)                             \
    OP_FFF_RM(fnmsub_##S, "fnmsub." #S, T, TO, FROM)                           \
    OP_FFF_RM(fnmadd_##S, "fnmadd." #S, T, TO, FROM)                           \
    OP_FF(fmin_##S, "fmin." #S, T, TO, FROM)                                   \
    OP_FF(fmax_##S, "fmax." #S, T, TO, FROM)                                   \
    OP_IFF(feq_##S, "feq." #S, T, TO)                                          \
    OP_IFF(flt_##S, "flt." #S, T, TO)                                          \
    OP_IFF(fle_##S, "fle." #S, T, TO)                                          \
    OP_IF(fclass_##S, "fclass." #S, T, TO)                                     \
    OP_IF_RM(fcvt_w_##S, "fcvt.w." #S, T, TO)                                  \
    OP_IF_RM(fcvt_wu_##S, "fcvt.wu." #S, T, TO)                                \
    OP_IF_RM(fcvt_l_##S, "fcvt.l." #S, T, TO)                                  \
    OP_IF_RM(fcvt_lu_##S, "fcvt.lu." #S, T, TO)                                \
    OP_FI_RM(fcvt_##S##_l, "fcvt." #S ".l", T, FROM)                           \
    OP_FI_RM(fcvt_##S##_lu, "fcvt." #S ".lu", T, FROM)

WIDTH(s, float, tof, fromf)
WIDTH(d, double, tod, fromd)
/* int32 -> binary32 rounds; int32 -> binary64 is exact (no rm operand) */
OP_FI_RM(fcvt_s_w, "fcvt.s.w", float, fromf)
OP_FI_RM(fcvt_s_wu, "fcvt.s.wu", float, fromf)
OP_FI(fcvt_d_w, "fcvt.d.w", double, fromd)
OP_FI(fcvt_d_wu, "fcvt.d.wu", double, fromd)
OP_F_RM(fcvt_s_d, "fcvt.s.d", double, tod, float, fromf)
OP_F(fcvt_d_s, "fcvt.d.s", float, tof, double, fromd)

typedef u64 (*opfn)(u64, u64, u64, int, ul *);
#define E(S)                                                                   \
    {"fadd." #S, fadd_##S}, {"fsub." #S, fsub_##S}, {"fmul." #S, fmul_##S},    \
    {"fdiv." #S, fdiv_##S}, {"fsqrt." #S, fsqrt_##S},                          \
    {"fmadd." #S, fmadd_##S}, {"fmsub." #S, fmsub_##S},                        \
    {"fnmsub." #S, fnmsub_##S}, {"fnmadd." #S, fnmadd_##S},                    \
    {"fmin." #S, fmin_##S}, {"fmax." #S, fmax_##S}, {"feq." #S, feq_##S},      \
    {"flt." #S, flt_##S}, {"fle." #S, fle_##S}, {"fclass." #S, fclass_##S},    \
    {"fcvt.w." #S, fcvt_w_##S}, {"fcvt.wu." #S, fcvt_wu_##S},                  \
    {"fcvt.l." #S, fcvt_l_##S}, {"fcvt.lu." #S, fcvt_lu_##S},                  \
    {"fcvt." #S ".l", fcvt_##S##_l}, {"fcvt." #S ".lu", fcvt_##S##_lu}
static const struct { const char *name; opfn fn; } ops[] = {
    E(s), E(d),
    {"fcvt.s.w", fcvt_s_w}, {"fcvt.s.wu", fcvt_s_wu},
    {"fcvt.d.w", fcvt_d_w}, {"fcvt.d.wu", fcvt_d_wu},
    {"fcvt.s.d", fcvt_s_d}, {"fcvt.d.s", fcvt_d_s},
};

int main(void) {
    char name[32];
    int rm;
    unsigned long long a, b, c;
    while (scanf("%31s %d %llx %llx %llx", name, &rm, &a, &b, &c) == 5) {
        opfn fn = 0;
        for (size_t i = 0; i < sizeof ops / sizeof ops[0]; i++)
            if (strcmp(ops[i].name, name) == 0) fn = ops[i].fn;
        if (!fn) {
            fprintf(stderr, "fpcheck: unknown mnemonic %s\n", name);
            return 2;
        }
        ul fl = 0;
        u64 r = fn(a, b, c, rm, &fl);
        printf("%016llx %02lx\n", (unsigned long long)r, fl);
    }
    return 0;
}
