/* 003 kernel 2, active memory: a[i] = i, then
 * for j<z: for i<n { s += a[i]; a[i] += s; } */
#include <stdio.h>
#include <stdlib.h>

#include "common.h"

NOINLINE void memory_init(uint64_t *a, long n) {
    for (long i = 0; i < n; i++) a[i] = (uint64_t)i;
}

NOINLINE uint64_t memory_work(uint64_t *a, long n, long z) {
    uint64_t s = 0;
    for (long j = 0; j < z; j++)
        for (long i = 0; i < n; i++) {
            s += a[i];
            a[i] += s;
        }
    return s;
}

uint64_t run_memory(long n) {
    uint64_t *a = malloc((size_t)n * sizeof *a);
    if (!a) {
        fprintf(stderr, "memory: out of memory\n");
        exit(1);
    }
    memory_init(a, n);
    uint64_t s = memory_work(a, n, 8);
    free(a);
    return s;
}
