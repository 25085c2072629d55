/* Allocates 1 MiB blocks, touching one byte of each, until malloc returns
   NULL; then frees them and exits with its own status 3. The output does
   not depend on how many blocks fitted. */
#include <stdio.h>
#include <stdlib.h>

int main(void) {
    void **blocks = NULL;
    size_t n = 0, cap = 0;
    for (;;) {
        char *b = malloc(1 << 20);
        if (!b)
            break;
        b[0] = 1;
        if (n == cap) {
            cap = cap ? cap * 2 : 1024;
            void **nb = realloc(blocks, cap * sizeof *blocks);
            if (!nb) {
                free(b);
                break;
            }
            blocks = nb;
        }
        blocks[n++] = b;
    }
    printf("malloc returned NULL: %s\n", n > 16 ? "after many blocks" : "early");
    for (size_t i = 0; i < n; i++)
        free(blocks[i]);
    free(blocks);
    char *again = malloc(1 << 20);
    printf("after free: %s\n", again ? "malloc works" : "still NULL");
    return 3;
}
