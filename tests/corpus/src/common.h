/* Shared helpers for the fwprof differential-test corpus.
 * Every program is deterministic: it prints values only (never addresses,
 * fd numbers, times or counters) and exits 0 unless documented otherwise. */
#ifndef CORPUS_COMMON_H
#define CORPUS_COMMON_H
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#if defined(__riscv_flen) && __riscv_flen >= 64
#define HAVE_HW_DOUBLE 1
#else
#define HAVE_HW_DOUBLE 0
#endif
#if defined(__riscv_flen)
#define HAVE_HW_FLOAT 1
#else
#define HAVE_HW_FLOAT 0
#endif
#define XLEN __riscv_xlen

static inline uint32_t fnv1a32(uint32_t h, const void *p, size_t n) {
    const unsigned char *b = (const unsigned char *)p;
    for (size_t i = 0; i < n; i++) { h ^= b[i]; h *= 16777619u; }
    return h;
}
#define FNV32_INIT 2166136261u

/* A tiny deterministic PRNG (xorshift32). */
static inline uint32_t xs32(uint32_t *s) {
    uint32_t x = *s; x ^= x << 13; x ^= x >> 17; x ^= x << 5; return *s = x;
}

static inline const char *config_name(void) {
#if defined(CFG_LINUX)
    return "linux";
#else
    return "bare";
#endif
}
#endif
