/* Sampling aliasing ("saw"): a loop whose every iteration executes exactly P
 * instructions, about 70% of them in saw_hot and 30% in saw_rare. A sampler
 * that fires every P instructions then always lands at the same point of the
 * iteration: the workload places that point in the middle of saw_hot, so a
 * fixed-period sampler sees saw_hot 100% of the time and never sees
 * saw_rare, which takes 30% of the run; randomised periods (--jitter) see both.
 *
 * The loop period is made exact at run time: saw_hot(n) and saw_rare(n) are
 * assembly loops of 2 and 3 instructions per round, so the period is
 * 2*na + 3*nb + C; C (the calls and loop overhead, whatever the compiler and
 * -finstrument-functions made of them) is measured with the instret counter
 * as the difference between two and one iterations of the real loop. Before
 * the loop starts, saw_pad burns instructions until the executed count is
 * such that multiples of P fall 35% into an iteration (samplers paced by
 * executed instructions count from the program's first instruction, as
 * instret does); the calibration itself runs just after a multiple of P.
 * About 16 M instructions run in the loop (16e6 / P iterations); afterwards
 * the loop's instruction count is checked against iterations x P. */
#include <stdio.h>
#include <stdlib.h>

#include "common.h"

/* 2 instructions per round (n >= 1). */
NOINLINE void saw_hot(long n) { __asm__ volatile("1: addi %0, %0, -1\n\tbnez %0, 1b" : "+r"(n)); }

/* 3 instructions per round (n >= 1). */
NOINLINE void saw_rare(long n) {
    __asm__ volatile("1: addi %0, %0, -1\n\tnop\n\tbnez %0, 1b" : "+r"(n));
}

/* 2 instructions per round (n >= 1): moves the loop's phase. */
NOINLINE void saw_pad(long n) { __asm__ volatile("1: addi %0, %0, -1\n\tbnez %0, 1b" : "+r"(n)); }

NOINLINE void saw_loop(long iters, long na, long nb) {
    for (long i = 0; i < iters; i++) {
        saw_hot(na);
        saw_rare(nb);
    }
}

/* One function for every measurement, so the instructions around the two
 * counter reads are the same in each and cancel in period_of. */
NOINLINE static uint64_t measure(long iters, long na, long nb) {
    uint64_t t0 = rdinstret();
    saw_loop(iters, na, nb);
    return rdinstret() - t0;
}

/* Instructions of one iteration of saw_loop with these counts. */
static long period_of(long na, long nb) { return (long)(measure(2, na, nb) - measure(1, na, nb)); }

/* Burn instructions until the executed count is about `phase` modulo p. */
static void pad_to(uint64_t p, uint64_t phase) {
    uint64_t burn = (phase + p - rdinstret() % p) % p;
    saw_pad((long)(burn / 2) + 1);
}

uint64_t run_saw(long p) {
    if (p < 200) {
        fprintf(stderr, "saw: a period of %ld instructions is too short (minimum 200)\n", p);
        exit(2);
    }
    /* Calibrate just after a multiple of P: its few hundred instructions then
     * fall between two samples (for P above about 1000) and cannot put a
     * sample into saw_rare at a phase that depends on the start-up code. */
    pad_to((uint64_t)p, 0);
    long c = period_of(10, 10) - 2 * 10 - 3 * 10;
    if (c < 0 || c > 1000) {
        /* Not an instruction count (QEMU's instret): run with an inexact period. */
        fprintf(stderr, "saw: warning: instret does not count instructions here (loop overhead %ld)\n", c);
        c = 0;
    }
    long nb = p * 30 / 100 / 3;
    long rem = p - c - 3 * nb;
    if (rem & 1) {
        nb -= 1;
        rem += 3;
    }
    long na = rem / 2;
    if (na < 1 || nb < 1) {
        fprintf(stderr, "saw: a period of %ld instructions is too short\n", p);
        exit(2);
    }
    long iters = 16000000 / p;
    if (iters < 1) iters = 1;
    /* Start the loop so that executed counts k*P fall 35% into an iteration. */
    pad_to((uint64_t)p, (uint64_t)(p - p * 35 / 100));
    uint64_t t0 = rdinstret();
    saw_loop(iters, na, nb);
    long extra = (long)(rdinstret() - t0) - iters * p;
    if (extra < 0 || extra > 64)
        fprintf(stderr, "saw: warning: the loop ran %ld instructions more than %ld x %ld (no exact instret?)\n",
                extra, iters, p);
    return (uint64_t)na << 32 | (uint64_t)nb;
}
