/* A loop of N iterations (argv[1], default 1000) that executes `fence.i`
 * each time: every iteration flushes fwprof's block cache. Prints a
 * checksum so the run can be compared with QEMU's. */
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    long n = argc > 1 ? atol(argv[1]) : 1000;
    unsigned long sum = 0;
    for (long i = 0; i < n; i++) {
        __asm__ volatile("fence.i" ::: "memory");
        sum = sum * 31 + (unsigned long)i;
    }
    printf("fence.i loop: %ld iterations, checksum %lu\n", n, sum);
    return 0;
}
