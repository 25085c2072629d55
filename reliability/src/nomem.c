/* 003 kernel 1, no memory: for j<z: for i<n: s += i (registers only). */
#include "common.h"

NOINLINE uint64_t nomem_work(long n, long z) {
    uint64_t s = 0;
    for (long j = 0; j < z; j++)
        for (long i = 0; i < n; i++) {
            s += (uint64_t)i;
            OPAQUE(s);
        }
    return s;
}

uint64_t run_nomem(long n) { return nomem_work(n, 1000); }
