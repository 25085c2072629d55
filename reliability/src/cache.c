/* 003 kernel 3, cache misses: n rows of one 4 KiB page each, walked column by
 * column, so consecutive loads are a page apart (a cache and TLB miss on a
 * real core; the same instructions either way). */
#include <stdio.h>
#include <stdlib.h>

#include "common.h"

#define ROW_WORDS 1024 /* 4-byte words per 4 KiB row */

NOINLINE void cache_init(uint32_t *m, long rows) {
    for (long i = 0; i < rows * ROW_WORDS; i++) m[i] = (uint32_t)i;
}

NOINLINE uint64_t cache_walk(const uint32_t *m, long rows) {
    uint64_t s = 0;
    for (long c = 0; c < ROW_WORDS; c++)
        for (long r = 0; r < rows; r++) s += m[r * ROW_WORDS + c];
    return s;
}

uint64_t run_cache(long n) {
    uint32_t *m = malloc((size_t)n * ROW_WORDS * sizeof *m);
    if (!m) {
        fprintf(stderr, "cache: out of memory\n");
        exit(1);
    }
    cache_init(m, n);
    uint64_t s = cache_walk(m, n);
    free(m);
    return s;
}
