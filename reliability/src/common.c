/* The fixed reference functions and the program entry: `workloads NAME PARAM`. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common.h"

/* xorshift64: 200000 rounds, about 1.6 M instructions. */
NOINLINE uint64_t control(void) {
    uint64_t x = 88172645463325252ull;
    for (long i = 0; i < 200000; i++) {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
    }
    return x;
}

/* A multiply-accumulate loop: 100000 rounds, about 0.4 M instructions. */
NOINLINE uint64_t aux(void) {
    uint64_t s = 0;
    for (uint64_t i = 0; i < 100000; i++) {
        s += i * i;
        OPAQUE(s);
    }
    return s;
}

static const struct {
    const char *name;
    uint64_t (*run)(long);
    const char *param;
} WORKLOADS[] = {
    {"nomem", run_nomem, "inner loop length n (z = 1000 outer rounds)"},
    {"memory", run_memory, "array length n (8 passes)"},
    {"cache", run_cache, "rows n of one 4 KiB page, walked column-wise"},
    {"looplen", run_looplen, "inner loop length K (M = 2^20 / K outer rounds)"},
    {"periodic", run_periodic, "period k of the operation (2^20 iterations)"},
    {"ctxloss", run_ctxloss, "bursts b separated by nanosleep(1 ms)"},
    {"misalign", run_misalign, "misaligned 4-byte loads n (1-byte stride)"},
    {"calls", run_calls, "calls n of foo(a) = a + (a>>8) + (a<<1)"},
    {"saw", run_saw, "loop period P in instructions (70% saw_hot, 30% saw_rare)"},
    {"tiny", run_tiny, "rounds n over 16 tiny functions"},
    {"recursion", run_recursion, "recursion depth d"},
};

static int usage(void) {
    fprintf(stderr, "usage: workloads NAME PARAM\n");
    for (size_t i = 0; i < sizeof WORKLOADS / sizeof WORKLOADS[0]; i++)
        fprintf(stderr, "  %-10s %s\n", WORKLOADS[i].name, WORKLOADS[i].param);
    return 2;
}

int main(int argc, char **argv) {
    if (argc != 3) return usage();
    char *end;
    long param = strtol(argv[2], &end, 10);
    if (*argv[2] == '\0' || *end != '\0' || param < 1) {
        fprintf(stderr, "workloads: PARAM must be a positive integer, not '%s'\n", argv[2]);
        return 2;
    }
    for (size_t i = 0; i < sizeof WORKLOADS / sizeof WORKLOADS[0]; i++) {
        if (strcmp(argv[1], WORKLOADS[i].name) == 0) {
            uint64_t r = WORKLOADS[i].run(param);
            r ^= control();
            r ^= aux();
            printf("%s %ld %016llx\n", argv[1], param, (unsigned long long)r);
            return 0;
        }
    }
    fprintf(stderr, "workloads: unknown workload '%s'\n", argv[1]);
    return usage();
}
