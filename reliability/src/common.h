/* Shared declarations of the fwprof reliability workloads (see ../README.md).
 *
 * Every function that must appear in a profile under its own name is NOINLINE:
 * `noipa` keeps GCC from inlining, cloning (.constprop/.isra), merging identical
 * bodies or propagating constants across the call, so per-function shares are
 * those of the source. */
#ifndef RELIABILITY_COMMON_H
#define RELIABILITY_COMMON_H

#include <stdint.h>

#define NOINLINE __attribute__((noipa))

/* Keeps a value in a register without letting the compiler reason about it
 * (defeats closed-form loop replacement and dead-code elimination). */
#define OPAQUE(x) __asm__ volatile("" : "+r"(x))

/* The two fixed reference functions every workload runs besides its kernel:
 * control() about 1.6 M instructions, aux() about 0.4 M (rv64gc, -O2). */
uint64_t control(void);
uint64_t aux(void);

/* Executed-instruction count (the `instret` CSR, readable in user mode). */
static inline uint64_t rdinstret(void) {
    uint64_t v;
    __asm__ volatile("rdinstret %0" : "=r"(v) : : "memory");
    return v;
}

/* Workload entry points: the parameter from the command line; the returned
 * value is printed so nothing is optimised away. */
uint64_t run_nomem(long n);
uint64_t run_memory(long n);
uint64_t run_cache(long n);
uint64_t run_looplen(long k);
uint64_t run_periodic(long k);
uint64_t run_ctxloss(long bursts);
uint64_t run_misalign(long n);
uint64_t run_calls(long n);
uint64_t run_saw(long period);
uint64_t run_tiny(long rounds);
uint64_t run_recursion(long depth);

#endif
