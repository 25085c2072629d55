/*
 * Kernel 8 of the profiler-reliability study (Bulychev 2011, "procedure
 * calls"): a non-inlined foo(a) = a + (a >> 8) + (a << 1) called in a loop,
 * the test that exposes per-call instrumentation overhead.  Beside it: bar,
 * a loop that calls foo (its self time excludes foo's), mix, work without
 * calls, and report, the output (it calls the C library, which is not
 * instrumented, so in the instrumented view printf's cost is report's self
 * time).  Built with -finstrument-functions and with -pg by build.sh.
 */
#include <stdio.h>

#define ITERATIONS 20000

__attribute__((noinline)) int foo(int a)
{
    return a + (a >> 8) + (a << 1);
}

__attribute__((noinline)) int bar(int n)
{
    int s = 0;
    for (int i = 0; i < n; i++)
        s += foo(i) ^ (s >> 3);
    return s;
}

__attribute__((noinline)) unsigned mix(unsigned x, int rounds)
{
    for (int i = 0; i < rounds; i++) {
        x ^= x << 13;
        x ^= x >> 17;
        x ^= x << 5;
    }
    return x;
}

__attribute__((noinline)) static void report(int s, unsigned m)
{
    printf("kernel8: %d %u\n", s, m);
}

int main(void)
{
    int s = 0;
    unsigned m = 1;
    for (int i = 0; i < ITERATIONS; i++) {
        s += foo(i);
        if ((i & 63) == 0) {
            s += bar(20);
            m = mix(m + (unsigned)s, 40);
        }
    }
    report(s, m);
    return 0;
}
