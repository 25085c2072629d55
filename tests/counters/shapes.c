/* The call-graph shapes the counter methods must handle (issue 17):
 * small hot functions (where injected probes cost most), direct and
 * mutual recursion, indirect calls through a table, a tail call, a
 * function never called, and a region between two labels of main's loop
 * (`region_start`, `region_end`: global labels typed as objects, so that
 * they do not split main into functions, for --region).
 * Prints a checksum so that every run can be compared. */
#include <stdio.h>

#define NOINLINE __attribute__((noinline))

static volatile unsigned sink;

NOINLINE unsigned tiny(unsigned x) { return x * 3u + 1u; }

NOINLINE unsigned fib(unsigned n) { return n < 2 ? n : fib(n - 1) + fib(n - 2); }

NOINLINE unsigned is_odd(unsigned n);
NOINLINE unsigned is_even(unsigned n) { return n == 0 ? 1u : is_odd(n - 1); }
NOINLINE unsigned is_odd(unsigned n) { return n == 0 ? 0u : is_even(n - 1); }

NOINLINE unsigned op_add(unsigned a) { return a + 7u; }
NOINLINE unsigned op_mix(unsigned a) {
    unsigned s = 0;
    for (unsigned i = 0; i < 40; i++)
        s += tiny(a + i);
    return s;
}
NOINLINE unsigned op_rot(unsigned a) { return (a << 5) | (a >> 27); }
static unsigned (*const ops[3])(unsigned) = {op_add, op_mix, op_rot};

/* Ends in a tail call to op_rot (at -O2). */
NOINLINE unsigned finish(unsigned a) { return op_rot(a ^ 0x5a5a5a5au); }

NOINLINE unsigned heavy(unsigned n) {
    unsigned s = 0;
    for (unsigned i = 0; i < n; i++)
        s = s * 31u + (i ^ (s >> 3));
    return s;
}

NOINLINE unsigned never_called(unsigned x) { return heavy(x) + fib(x); }

int main(void) {
    unsigned s = 0;
    for (unsigned k = 0; k < 200; k++) {
        __asm__ volatile(".globl region_start\n.type region_start, %object\nregion_start:");
        s += tiny(k);
        s += ops[k % 3](s);
        __asm__ volatile(".globl region_end\n.type region_end, %object\nregion_end:");
        s += is_even(k % 17);
    }
    s += fib(18);
    s += heavy(20000);
    s = finish(s);
    sink = s;
    if (sink == 0)
        s += never_called(3);
    printf("shapes %08x\n", s);
    return 0;
}
