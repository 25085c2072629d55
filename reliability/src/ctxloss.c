/* 003 kernel 6, forced context loss: 2^21 units of work cut into b bursts,
 * each followed by nanosleep(1 ms). The sleep executes no program code:
 * fwprof, which paces everything by executed instructions, sees only the
 * few instructions of the system call (its simulated Linux returns at once);
 * a time-paced sampler on hardware would lose the sleeping time to the idle
 * task (see docs/reliability.md). */
#include <time.h>

#include "common.h"

NOINLINE uint64_t burst(long n, uint64_t s) {
    for (long i = 0; i < n; i++) {
        s = s * 6364136223846793005ull + 1442695040888963407ull;
        OPAQUE(s);
    }
    return s;
}

NOINLINE void pause_1ms(void) {
    struct timespec ts = {0, 1000000};
    nanosleep(&ts, 0);
}

uint64_t run_ctxloss(long bursts) {
    long per = (1L << 21) / bursts;
    uint64_t s = 1;
    for (long b = 0; b < bursts; b++) {
        s = burst(per, s);
        pause_1ms();
    }
    return s;
}
