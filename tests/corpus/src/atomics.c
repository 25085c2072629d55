/* Generated atomic cases: every AMO (.w, and .d on RV64) with signed/unsigned boundary
 * operands and aq/rl variants; LR/SC success and the failure cases QEMU and the spec
 * agree on: SC without a reservation, SC after an intervening SC, SC to another address,
 * LR replaced by a later LR to another address. */
#include "common.h"

static const uint32_t W[] = {0, 1, 0x7fffffff, 0x80000000, 0xffffffff, 0x12345678, 0xfffffffe, 0x80000001};
#define NW (sizeof W / sizeof W[0])

#define AMOW(NAME, INSN)                                                                    \
    static void NAME(volatile uint32_t *m, uint32_t v, uint32_t *old) {                    \
        long r;                                                                             \
        asm volatile(INSN " %0, %2, (%1)" : "=&r"(r) : "r"(m), "r"(v) : "memory");           \
        *old = (uint32_t)r;                                                                 \
    }
AMOW(amoswap_w, "amoswap.w") AMOW(amoadd_w, "amoadd.w") AMOW(amoxor_w, "amoxor.w")
AMOW(amoand_w, "amoand.w") AMOW(amoor_w, "amoor.w") AMOW(amomin_w, "amomin.w")
AMOW(amomax_w, "amomax.w") AMOW(amominu_w, "amominu.w") AMOW(amomaxu_w, "amomaxu.w")
AMOW(amoadd_w_aq, "amoadd.w.aq") AMOW(amoadd_w_rl, "amoadd.w.rl") AMOW(amoadd_w_aqrl, "amoadd.w.aqrl")
AMOW(amoswap_w_aqrl, "amoswap.w.aqrl") AMOW(amomaxu_w_aq, "amomaxu.w.aq")

typedef void (*amow_fn)(volatile uint32_t *, uint32_t, uint32_t *);
static const struct { const char *n; amow_fn f; } AW[] = {
    {"amoswap.w", amoswap_w}, {"amoadd.w", amoadd_w}, {"amoxor.w", amoxor_w}, {"amoand.w", amoand_w},
    {"amoor.w", amoor_w}, {"amomin.w", amomin_w}, {"amomax.w", amomax_w}, {"amominu.w", amominu_w},
    {"amomaxu.w", amomaxu_w}, {"amoadd.w.aq", amoadd_w_aq}, {"amoadd.w.rl", amoadd_w_rl},
    {"amoadd.w.aqrl", amoadd_w_aqrl}, {"amoswap.w.aqrl", amoswap_w_aqrl}, {"amomaxu.w.aq", amomaxu_w_aq}};

#if XLEN == 64
static const uint64_t D[] = {0, 1, 0x7fffffffffffffffull, 0x8000000000000000ull, 0xffffffffffffffffull,
                             0x00000000ffffffffull, 0xffffffff00000000ull, 0x0000000080000000ull};
#define ND (sizeof D / sizeof D[0])
#define AMOD(NAME, INSN)                                                                    \
    static void NAME(volatile uint64_t *m, uint64_t v, uint64_t *old) {                    \
        uint64_t r;                                                                         \
        asm volatile(INSN " %0, %2, (%1)" : "=&r"(r) : "r"(m), "r"(v) : "memory");           \
        *old = r;                                                                           \
    }
AMOD(amoswap_d, "amoswap.d") AMOD(amoadd_d, "amoadd.d") AMOD(amoxor_d, "amoxor.d")
AMOD(amoand_d, "amoand.d") AMOD(amoor_d, "amoor.d") AMOD(amomin_d, "amomin.d")
AMOD(amomax_d, "amomax.d") AMOD(amominu_d, "amominu.d") AMOD(amomaxu_d, "amomaxu.d")
AMOD(amoor_d_aqrl, "amoor.d.aqrl") AMOD(amomin_d_rl, "amomin.d.rl")
typedef void (*amod_fn)(volatile uint64_t *, uint64_t, uint64_t *);
static const struct { const char *n; amod_fn f; } AD[] = {
    {"amoswap.d", amoswap_d}, {"amoadd.d", amoadd_d}, {"amoxor.d", amoxor_d}, {"amoand.d", amoand_d},
    {"amoor.d", amoor_d}, {"amomin.d", amomin_d}, {"amomax.d", amomax_d}, {"amominu.d", amominu_d},
    {"amomaxu.d", amomaxu_d}, {"amoor.d.aqrl", amoor_d_aqrl}, {"amomin.d.rl", amomin_d_rl}};
#endif

static volatile uint32_t mw[4];
#if XLEN == 64
static volatile uint64_t md[2];
#endif

static long sc_w(volatile uint32_t *m, uint32_t v) {
    long r; asm volatile("sc.w %0, %2, (%1)" : "=&r"(r) : "r"(m), "r"(v) : "memory"); return r;
}
static uint32_t lr_w(volatile uint32_t *m) {
    long r; asm volatile("lr.w %0, (%1)" : "=&r"(r) : "r"(m) : "memory"); return (uint32_t)r;
}

int main(void) {
    for (size_t k = 0; k < sizeof AW / sizeof AW[0]; k++) {
        uint32_t h = FNV32_INIT;
        printf("%-15s", AW[k].n);
        for (size_t i = 0; i < NW; i++)
            for (size_t j = 0; j < NW; j++) {
                uint32_t old;
                mw[1] = W[i];
                AW[k].f(&mw[1], W[j], &old);
                uint32_t nw = mw[1];
                h = fnv1a32(h, &old, 4); h = fnv1a32(h, &nw, 4);
                if (j == (i + 3) % NW) printf(" %08lx", (unsigned long)nw);
            }
        printf(" hash=%08lx\n", (unsigned long)h);
    }
    /* the destination register receives the sign-extended old word on RV64 */
    long r; mw[0] = 0x80000000u;
    asm volatile("amoadd.w %0, zero, (%1)" : "=r"(r) : "r"(&mw[0]) : "memory");
    printf("amoadd.w old sign-extended: %s\n", r < 0 ? "yes" : "no");
    asm volatile("amoswap.w zero, %1, (%0)" : : "r"(&mw[0]), "r"(7) : "memory");
    printf("amoswap.w rd=zero stored=%lu\n", (unsigned long)mw[0]);
#if XLEN == 64
    for (size_t k = 0; k < sizeof AD / sizeof AD[0]; k++) {
        uint32_t h = FNV32_INIT;
        printf("%-15s", AD[k].n);
        for (size_t i = 0; i < ND; i++)
            for (size_t j = 0; j < ND; j++) {
                uint64_t old;
                md[0] = D[i];
                AD[k].f(&md[0], D[j], &old);
                uint64_t nd = md[0];
                h = fnv1a32(h, &old, 8); h = fnv1a32(h, &nd, 8);
                if (j == (i + 3) % ND) printf(" %016llx", (unsigned long long)nd);
            }
        printf(" hash=%08lx\n", (unsigned long)h);
    }
    {
        uint64_t v; long sc;
        md[1] = 5;
        asm volatile("lr.d %0, (%2)\n\taddi %0, %0, 1\n\tsc.d %1, %0, (%2)" : "=&r"(v), "=&r"(sc) : "r"(&md[1]) : "memory");
        printf("lr.d/sc.d sc=%ld mem=%llu\n", sc, (unsigned long long)md[1]);
        asm volatile("lr.d.aq %0, (%2)\n\tsc.d.rl %1, %0, (%2)\n\tsc.d %1, %0, (%2)" : "=&r"(v), "=&r"(sc) : "r"(&md[1]) : "memory");
        printf("sc.d after sc.d=%ld\n", sc);
    }
#endif
    /* LR/SC: success */
    mw[2] = 10;
    uint32_t v = lr_w(&mw[2]);
    long s1 = sc_w(&mw[2], v + 1);
    printf("lr/sc success: sc=%ld mem=%lu\n", s1, (unsigned long)mw[2]);
    /* SC after an intervening SC: the first SC consumed the reservation */
    long s2 = sc_w(&mw[2], 99);
    printf("sc after sc: sc=%s mem=%lu\n", s2 ? "fail" : "ok", (unsigned long)mw[2]);
    /* SC without any reservation (the previous SC cleared it) */
    long s3 = sc_w(&mw[3], 5);
    printf("sc without reservation: sc=%s mem=%lu\n", s3 ? "fail" : "ok", (unsigned long)mw[3]);
    /* SC to a different address than the LR */
    (void)lr_w(&mw[2]);
    long s4 = sc_w(&mw[3], 6);
    printf("sc other address: sc=%s mem=%lu\n", s4 ? "fail" : "ok", (unsigned long)mw[3]);
    (void)sc_w(&mw[2], mw[2]);   /* drop any reservation */
    /* a newer LR to another address replaces the reservation */
    (void)lr_w(&mw[2]);
    (void)lr_w(&mw[3]);
    long s5 = sc_w(&mw[2], 7);
    long s6 = sc_w(&mw[3], 8);
    printf("lr a; lr b; sc a=%s; sc b=%s mem=%lu,%lu\n", s5 ? "fail" : "ok", s6 ? "fail" : "ok",
           (unsigned long)mw[2], (unsigned long)mw[3]);
    /* a CAS loop built from LR/SC, like __atomic_fetch_add */
    mw[0] = 0;
    for (int i = 0; i < 1000; i++) {
        long t, fail;
        asm volatile("1: lr.w.aqrl %0, (%2)\n\taddi %0, %0, 3\n\tsc.w.aqrl %1, %0, (%2)\n\tbnez %1, 1b"
                     : "=&r"(t), "=&r"(fail) : "r"(&mw[0]) : "memory");
    }
    printf("lr/sc loop total=%lu\n", (unsigned long)mw[0]);
    /* compiler builtins (generate amo/lr/sc sequences) */
    static volatile int counter; static volatile unsigned byte; static volatile int half;
    for (int i = 0; i < 100; i++) { __atomic_fetch_add(&counter, i, __ATOMIC_SEQ_CST); __atomic_fetch_or(&byte, 1u << (i & 7), __ATOMIC_RELAXED); __atomic_fetch_add(&half, -3, __ATOMIC_ACQ_REL); }
    int expected = 4950;
    int swapped = __atomic_compare_exchange_n(&counter, &expected, 1, 0, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);
    printf("builtins counter=%d byte=%02x half=%d cas=%d\n", counter, byte, half, swapped);
    return 0;
}
