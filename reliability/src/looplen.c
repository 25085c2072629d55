/* 003 kernel 4, loop length: N = M*K operations as M calls of a K-iteration
 * loop (N = 2^20). Small K: the call and loop overhead dominate (and an
 * instrumenting profiler pays per call). */
#include "common.h"

NOINLINE uint64_t looplen_inner(long k, uint64_t s) {
    for (long i = 0; i < k; i++) {
        s += (uint64_t)i;
        OPAQUE(s);
    }
    return s;
}

NOINLINE uint64_t looplen_outer(long m, long k) {
    uint64_t s = 0;
    for (long j = 0; j < m; j++) s = looplen_inner(k, s);
    return s;
}

uint64_t run_looplen(long k) {
    long m = (1L << 20) / k;
    return looplen_outer(m < 1 ? 1 : m, k);
}
