/* Deep recursion: recurse() to depth d (one rec_step per level), repeated so
 * that about 2^18 levels run in all. Deep stacks stress unwinding (samples)
 * and calling-context trees; self costs are unaffected. */
#include "common.h"

NOINLINE uint64_t rec_step(uint64_t s, long d) { return s * 1103515245u + (uint64_t)d; }

NOINLINE uint64_t recurse(long d, uint64_t s) {
    if (d == 0) return s;
    s = rec_step(s, d);
    uint64_t r = recurse(d - 1, s);
    OPAQUE(r); /* work after the call: no tail call, a real frame per level */
    return r ^ (uint64_t)d;
}

NOINLINE uint64_t recursion_work(long depth, long reps) {
    uint64_t s = 0;
    for (long i = 0; i < reps; i++) s = recurse(depth, s);
    return s;
}

uint64_t run_recursion(long depth) {
    long reps = (1L << 18) / depth;
    return recursion_work(depth, reps < 1 ? 1 : reps);
}
