/* 003 kernel 8, procedure calls: a non-inlined foo(a) = a + (a>>8) + (a<<1)
 * called n times; per-call costs of an instrumenting profiler dominate. */
#include "common.h"

NOINLINE uint64_t foo(uint64_t a) { return a + (a >> 8) + (a << 1); }

NOINLINE uint64_t calls_work(long n) {
    uint64_t s = 0;
    for (long i = 0; i < n; i++) s += foo((uint64_t)i);
    return s;
}

uint64_t run_calls(long n) { return calls_work(n); }
