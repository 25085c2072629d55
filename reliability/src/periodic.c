/* 003 kernel 5, periodic operation: if (!j) { op; j = k; } j--; over 2^20
 * iterations: the operation (a call of periodic_op) runs every k-th one. */
#include "common.h"

NOINLINE uint64_t periodic_op(uint64_t s, long i) { return s * 31 + (uint64_t)i; }

NOINLINE uint64_t periodic_work(long n, long k) {
    uint64_t s = 0;
    long j = 0;
    for (long i = 0; i < n; i++) {
        if (!j) {
            s = periodic_op(s, i);
            j = k;
        }
        j--;
        s += 1;
        OPAQUE(s);
    }
    return s;
}

uint64_t run_periodic(long k) { return periodic_work(1L << 20, k); }
