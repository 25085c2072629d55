/* Many tiny hot functions: 16 functions of two or three instructions each,
 * called in turn n times (the case where instrumentation overhead dominates,
 * and where every function holds only a few percent). */
#include "common.h"

#define TINY(i) \
    NOINLINE uint64_t tiny_##i(uint64_t x) { return (x << (i % 5 + 1)) + (2 * i + 1); }
TINY(0) TINY(1) TINY(2) TINY(3) TINY(4) TINY(5) TINY(6) TINY(7)
TINY(8) TINY(9) TINY(10) TINY(11) TINY(12) TINY(13) TINY(14) TINY(15)

NOINLINE uint64_t tiny_work(long rounds) {
    uint64_t x = 1;
    for (long r = 0; r < rounds; r++) {
        x = tiny_0(x) ^ tiny_1(x);
        x = tiny_2(x) ^ tiny_3(x);
        x = tiny_4(x) ^ tiny_5(x);
        x = tiny_6(x) ^ tiny_7(x);
        x = tiny_8(x) ^ tiny_9(x);
        x = tiny_10(x) ^ tiny_11(x);
        x = tiny_12(x) ^ tiny_13(x);
        x = tiny_14(x) ^ tiny_15(x);
    }
    return x;
}

uint64_t run_tiny(long rounds) { return tiny_work(rounds); }
