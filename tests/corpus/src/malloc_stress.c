/* malloc/calloc/realloc/free stress with a deterministic pattern; verifies contents. */
#include "common.h"
#include <stdlib.h>

#define SLOTS 256
static unsigned char *slot[SLOTS];
static size_t size[SLOTS];
static unsigned char tag[SLOTS];

/* Blocks are filled with tag+offset; checks sample every 61st byte plus both ends. */
static void fill(unsigned char *p, size_t from, size_t to, unsigned char t) {
    for (size_t k = from; k < to; k += (k + 8 < to && k >= from + 8) ? 61 : 1) p[k] = (unsigned char)(t + k);
}
static int check(int i) {
    for (size_t k = 0; k < size[i]; k += (k + 8 < size[i] && k >= 8) ? 61 : 1)
        if (slot[i][k] != (unsigned char)(tag[i] + k)) return 0;
    return 1;
}
int main(void) {
    uint32_t s = 31337;
    long allocs = 0, frees = 0, reallocs = 0, bad = 0, fails = 0;
    for (int round = 0; round < 2000; round++) {
        int i = (int)(xs32(&s) % SLOTS);
        unsigned op = xs32(&s) % 4;
        if (slot[i] && op == 0) {
            bad += !check(i); free(slot[i]); slot[i] = NULL; frees++;
        } else if (slot[i] && op == 1) {
            bad += !check(i);
            size_t ns = 1 + xs32(&s) % 3000;
            unsigned char *p = realloc(slot[i], ns);
            if (!p) { fails++; continue; }
            slot[i] = p;
            /* refill all: the sampled positions of the old and new parts differ */
            fill(p, 0, ns, tag[i]);
            size[i] = ns; reallocs++;
        } else if (!slot[i]) {
            size_t n = 1 + (xs32(&s) % 4 == 0 ? xs32(&s) % 8000 : xs32(&s) % 200);
            unsigned char *p = (op == 2) ? calloc(n, 1) : malloc(n);
            if (!p) { fails++; continue; }
            if (op == 2) for (size_t k = 0; k < n; k += 13) bad += p[k] != 0;
            tag[i] = (unsigned char)xs32(&s);
            fill(p, 0, n, tag[i]);
            slot[i] = p; size[i] = n; allocs++;
        }
    }
    size_t live = 0;
    for (int i = 0; i < SLOTS; i++) if (slot[i]) { bad += !check(i); live += size[i]; free(slot[i]); }
    printf("allocs=%ld frees=%ld reallocs=%ld fails=%ld bad=%ld live_bytes=%lu\n", allocs, frees, reallocs, fails,
           bad, (unsigned long)live);
    /* alignment guarantees (print only the low bits modulo the guarantee) */
    int misaligned = 0;
    for (int i = 1; i < 100; i++) { void *p = malloc(i); misaligned += ((uintptr_t)p & (2 * sizeof(void *) - 1)) != 0; free(p); }
    printf("misaligned=%d\n", misaligned);
    void *z = malloc(0); free(z);
    printf("huge malloc fails=%d\n", malloc((size_t)-1 / 2) == NULL);
    return 0;
}
