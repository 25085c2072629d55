/* Writes 20,000 lines (about 1 MB, more than any pipe buffer holds) to
 * standard output, one flushed line at a time, then exits with status 3.
 * Used to check that fwprof treats failing guest output (a pipe whose
 * reader went away, a full disk) as QEMU does: crates/fwprof-cli/tests/
 * guest_output.rs. Built there for bare metal (picolibc, semihosting) and
 * static Linux. */
#include <stdio.h>

int main(void)
{
    for (int i = 0; i < 20000; i++) {
        printf("line %d of a guest's output, long enough to fill any pipe\n", i);
        fflush(stdout);
    }
    return 3;
}
