/* 003 kernel 7, misalignment: n 4-byte loads at a 1-byte stride (three in four
 * misaligned), beside the same number of aligned loads. Both execute the same
 * instructions: only a core model (record --core) can charge the difference. */
#include "common.h"

static unsigned char buf[4096 + 8] __attribute__((aligned(16)));

NOINLINE uint64_t misaligned_work(const unsigned char *p, long n) {
    uint64_t s = 0;
    for (long i = 0; i < n; i++) {
        uint32_t v;
        __asm__ volatile("lw %0, 0(%1)" : "=r"(v) : "r"(p + (i & 4095)));
        s += v;
    }
    return s;
}

NOINLINE uint64_t aligned_work(const unsigned char *p, long n) {
    uint64_t s = 0;
    for (long i = 0; i < n; i++) {
        uint32_t v;
        __asm__ volatile("lw %0, 0(%1)" : "=r"(v) : "r"(p + ((i * 4) & 4095)));
        s += v;
    }
    return s;
}

uint64_t run_misalign(long n) {
    for (long i = 0; i < (long)sizeof buf; i++) buf[i] = (unsigned char)(i * 7 + 1);
    return misaligned_work(buf, n) ^ aligned_work(buf, n);
}
