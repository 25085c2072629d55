/* A program that never ends (the ARC study's §3.4): a server loop that
 * idles in `wait_for_request` (the safe-stop address) and then handles a
 * request of one of three kinds with different costs. Run it with
 * --max-instructions. */
#include <stdio.h>

#define NOINLINE __attribute__((noinline))

static volatile unsigned sink;

NOINLINE unsigned wait_for_request(unsigned n) {
    /* Idle: a short poll. */
    for (unsigned i = 0; i < 20; i++)
        sink = i;
    return n * 2654435761u;
}

NOINLINE unsigned checksum(unsigned x, unsigned len) {
    unsigned s = x;
    for (unsigned i = 0; i < len; i++)
        s = (s << 1 | s >> 31) ^ i;
    return s;
}

NOINLINE unsigned handle_small(unsigned r) { return checksum(r, 50); }
NOINLINE unsigned handle_large(unsigned r) { return checksum(r, 800); }
NOINLINE unsigned handle_log(unsigned r) {
    sink = r;
    return r + 1;
}

int main(void) {
    printf("server up\n");
    for (unsigned n = 0;; n++) {
        unsigned r = wait_for_request(n);
        switch (r % 4) {
        case 0: case 1: sink = handle_small(r); break;
        case 2: sink = handle_large(r); break;
        default: sink = handle_log(r); break;
        }
    }
}
