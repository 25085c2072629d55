/* Deliberate non-zero exit: prints, flushes through atexit handlers, then exit(3). */
#include "common.h"
#include <stdlib.h>

static void handler1(void) { printf("atexit handler 1\n"); }
static void handler2(void) { printf("atexit handler 2 (runs first)\n"); }

int main(void) {
    atexit(handler1);
    atexit(handler2);
    printf("exiting with status 3\n");
    exit(3);
}
