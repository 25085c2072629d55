/* Recurses until the stack overflows: SIGSEGV, as on Linux. */
#include <stdio.h>

volatile int sink;

int down(int n) {
    char pad[256];
    pad[n & 255] = (char)n;
    sink = pad[(n * 7) & 255];
    return n ? down(n + 1) + 1 : 0;
}

int main(void) {
    printf("start\n");
    fflush(stdout);
    return down(1);
}
