/* coremix: a CoreMark-like deterministic workload for measuring simulator speed.
 *
 *   coremix [ITERATIONS]        default ITERATIONS gives >= 10^9 RV64 instructions
 *
 * Each iteration runs four kernels over fixed data, seeded by the iteration number:
 *   list    - linked-list find / reverse / merge sort (pointer chasing, branches)
 *   matrix  - 16-bit matrix times matrix and matrix times constant, accumulated (mul)
 *   state   - a character-class state machine that scans numeric tokens (indirect-ish
 *             branches through a switch)
 *   crc     - CRC-16/CCITT over every result (shifts, xors)
 * The final line prints a CRC over all iterations, so the work cannot be optimised away
 * and results can be compared across targets.
 *
 * As in CoreMark, the kernels are real functions (noinline), the list sort compares
 * through a function pointer, the state machine calls its transition function once
 * per character and the CRC is computed by a call per value, so an exact profile of
 * this program has a real call graph (tens of thousands of calls per iteration). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define DEFAULT_ITERATIONS 6000
#define LIST_NODES 200
#define MAT_N 24
#define STATE_LEN 600
#define NOINLINE __attribute__((noinline))

NOINLINE static uint16_t crc16(uint16_t crc, uint32_t v, int bytes) {
    for (int b = 0; b < bytes; b++) {
        crc ^= (uint16_t)((v >> (8 * b)) & 0xff) << 8;
        for (int k = 0; k < 8; k++) crc = (crc & 0x8000) ? (uint16_t)((crc << 1) ^ 0x1021) : (uint16_t)(crc << 1);
    }
    return crc;
}

/* ---- list ---- */
typedef struct node { struct node *next; int16_t key; int16_t val; } node;
static node pool[LIST_NODES];

NOINLINE static node *list_build(uint32_t seed) {
    node *head = NULL;
    for (int i = LIST_NODES - 1; i >= 0; i--) {
        seed = seed * 1103515245u + 12345u;
        pool[i].key = (int16_t)((seed >> 16) & 0x3ff);
        pool[i].val = (int16_t)i;
        pool[i].next = head;
        head = &pool[i];
    }
    return head;
}
NOINLINE static node *list_reverse(node *h) {
    node *prev = NULL;
    while (h) { node *n = h->next; h->next = prev; prev = h; h = n; }
    return prev;
}
NOINLINE static node *list_find(node *h, int16_t key) { while (h && h->key != key) h = h->next; return h; }
typedef int (*node_cmp)(const node *, const node *);
NOINLINE static int cmp_key_val(const node *a, const node *b) {
    return a->key != b->key ? a->key - b->key : a->val - b->val;
}
NOINLINE static node *list_sort(node *h, node_cmp cmp) {   /* bottom-up merge sort */
    if (!h || !h->next) return h;
    for (int width = 1;; width *= 2) {
        node *p = h, *tail = NULL, *out = NULL;
        int merges = 0;
        while (p) {
            merges++;
            node *q = p; int psize = 0;
            for (int i = 0; i < width && q; i++) { psize++; q = q->next; }
            int qsize = width;
            while (psize > 0 || (qsize > 0 && q)) {
                node *e;
                if (psize == 0) { e = q; q = q->next; qsize--; }
                else if (qsize == 0 || !q) { e = p; p = p->next; psize--; }
                else if (cmp(p, q) <= 0) { e = p; p = p->next; psize--; }
                else { e = q; q = q->next; qsize--; }
                if (tail) tail->next = e; else out = e;
                tail = e;
            }
            p = q;
        }
        tail->next = NULL;
        h = out;
        if (merges <= 1) return h;
    }
}
NOINLINE static uint16_t bench_list(uint32_t seed, uint16_t crc) {
    node *h = list_build(seed);
    int found = 0;
    for (int16_t k = 0; k < 64; k++) found += list_find(h, (int16_t)(k * 16)) != NULL;
    h = list_reverse(h);
    h = list_sort(h, cmp_key_val);
    int32_t acc = 0;
    for (node *n = h; n; n = n->next) acc = acc * 3 + n->key - n->val;
    crc = crc16(crc, (uint32_t)found, 2);
    return crc16(crc, (uint32_t)acc, 4);
}

/* ---- matrix ---- */
static int16_t ma[MAT_N][MAT_N], mb[MAT_N][MAT_N];
static int32_t mc[MAT_N][MAT_N];
NOINLINE static uint16_t bench_matrix(uint32_t seed, uint16_t crc) {
    for (int i = 0; i < MAT_N; i++)
        for (int j = 0; j < MAT_N; j++) {
            seed = seed * 1664525u + 1013904223u;
            ma[i][j] = (int16_t)((seed >> 20) - 2048);
            mb[i][j] = (int16_t)((seed >> 8) & 0xff);
        }
    for (int i = 0; i < MAT_N; i++)
        for (int j = 0; j < MAT_N; j++) {
            int32_t s = 0;
            for (int k = 0; k < MAT_N; k++) s += ma[i][k] * mb[k][j];
            mc[i][j] = s;
        }
    int32_t sum = 0;
    for (int i = 0; i < MAT_N; i++)
        for (int j = 0; j < MAT_N; j++) { sum += mc[i][j] >> 4; mc[i][j] = ma[i][j] * 7; sum ^= mc[i][j]; }
    return crc16(crc, (uint32_t)sum, 4);
}

/* ---- state machine ---- */
enum st { START, INT, FRAC, EXP_SIGN, EXP, SCI, INVALID, NSTATES };
static char text[STATE_LEN + 1];
NOINLINE static enum st transition(enum st s, char c) {
    switch (s) {
    case START: return (c >= '0' && c <= '9') ? INT : (c == '+' || c == '-') ? INT : (c == '.') ? FRAC : INVALID;
    case INT: return (c >= '0' && c <= '9') ? INT : (c == '.') ? FRAC : (c == 'e' || c == 'E') ? EXP_SIGN : INVALID;
    case FRAC: return (c >= '0' && c <= '9') ? FRAC : (c == 'e' || c == 'E') ? EXP_SIGN : INVALID;
    case EXP_SIGN: return (c >= '0' && c <= '9') ? SCI : (c == '+' || c == '-') ? EXP : INVALID;
    case EXP: return (c >= '0' && c <= '9') ? SCI : INVALID;
    case SCI: return (c >= '0' && c <= '9') ? SCI : INVALID;
    default: return s;
    }
}
NOINLINE static uint16_t bench_state(uint32_t seed, uint16_t crc) {
    static const char alphabet[] = "0123456789.+-eE,, x";
    for (int i = 0; i < STATE_LEN; i++) {
        seed = seed * 22695477u + 1u;
        text[i] = alphabet[(seed >> 16) % (sizeof alphabet - 1)];
    }
    text[STATE_LEN] = 0;
    uint32_t counts[NSTATES] = {0}, transitions = 0;
    enum st s = START;
    for (const char *p = text;; p++) {
        char c = *p;
        enum st prev = s;
        if (c == ',' || c == 0) { counts[s]++; s = START; if (!c) break; continue; }
        s = transition(s, c);
        transitions += s != prev;
    }
    for (int i = 0; i < NSTATES; i++) crc = crc16(crc, counts[i], 2);
    return crc16(crc, transitions, 4);
}

int main(int argc, char **argv) {
    long iterations = argc > 1 ? strtol(argv[1], NULL, 10) : DEFAULT_ITERATIONS;
    if (iterations <= 0) { fprintf(stderr, "usage: coremix [ITERATIONS>0]\n"); return 2; }
    uint16_t crc = 0xffff;
    for (long it = 0; it < iterations; it++) {
        uint32_t seed = (uint32_t)it * 2654435761u + 1;
        crc = bench_list(seed, crc);
        crc = bench_matrix(seed, crc);
        crc = bench_state(seed, crc);
    }
    printf("coremix iterations=%ld crc=%04x\n", iterations, crc);
    return 0;
}
