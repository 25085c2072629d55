/* A recursion DEPTH deep (default 10^6): a calling-context tree of DEPTH
 * nodes, for the stack exporters' linear-size test
 * (crates/fwprof-cli/tests/numbers.rs). Build for bare metal (the stack,
 * about 32 MB, grows down from the top of RAM) or for Linux with a stack
 * limit of at least 64 MB. */
#include <stdio.h>

#ifndef DEPTH
#define DEPTH 1000000
#endif

static volatile unsigned long sink;

__attribute__((noinline)) unsigned long descend(unsigned long n) {
    if (n == 0)
        return 0;
    unsigned long r = descend(n - 1);
    sink = r; /* work after the call: no tail call, a real frame per level */
    return r + 1;
}

int main(void) {
    unsigned long d = descend(DEPTH);
    printf("depth %lu\n", d);
    return d == DEPTH ? 0 : 1;
}
