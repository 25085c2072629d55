/* Grows the heap with sbrk in 1 MiB steps until the kernel refuses. */
#include <stdint.h>
#include <stdio.h>
#include <unistd.h>

int main(void) {
    size_t steps = 0;
    for (;;) {
        char *p = sbrk(1 << 20);
        if (p == (char *)-1)
            break;
        p[0] = 1;
        steps++;
    }
    printf("sbrk refused: %s\n", steps > 16 ? "after many steps" : "early");
    return 0;
}
