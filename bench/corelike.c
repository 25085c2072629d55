/* corelike: a workload shaped like EEMBC CoreMark, for measuring simulator speed.
 *
 *   corelike [ITERATIONS]        default 1000 iterations (about 1.8e9 RV64 instructions)
 *
 * CoreMark itself is not bundled; this program is written from its published
 * description, with the same four kernels and about the same call density (one call
 * per ~100 instructions, where coremix has one per ~25):
 *   list    - a linked list of (index, data) pairs: find by value and by index,
 *             reverse, and a merge sort whose comparison goes through a function
 *             pointer and, like CoreMark's, computes a memoised value that runs the
 *             matrix or state kernel on a cache miss;
 *   matrix  - 16-bit N x N matrices: add a constant, multiply by a constant, by a
 *             vector, by a matrix, and by a matrix with bit-field extraction;
 *   state   - a state machine scanning a buffer of numeric tokens (ints, floats,
 *             exponents, invalid), one call per token;
 *   crc     - CRC-16 over every kernel's result, one call per 16-bit value.
 * The last line prints a CRC over all iterations, so the work cannot be optimised
 * away and the result can be compared across targets. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NOINLINE __attribute__((noinline))
#define LIST_ITEMS 64
#define MAT_N 10
#define STATE_BYTES 360

typedef int16_t mat_t;
typedef int32_t acc_t;

/* ---- crc ---- */
NOINLINE static uint16_t crc8(uint8_t data, uint16_t crc) {
    for (int i = 0; i < 8; i++) {
        uint8_t x16 = (uint8_t)((data & 1) ^ ((uint8_t)crc & 1));
        data >>= 1;
        if (x16 == 1) {
            crc ^= 0x4002;
            crc = (uint16_t)((crc >> 1) | 0x8000);
        } else {
            crc = (uint16_t)(crc >> 1);
        }
    }
    return crc;
}
NOINLINE static uint16_t crc16(int16_t v, uint16_t crc) {
    crc = crc8((uint8_t)v, crc);
    return crc8((uint8_t)((uint16_t)v >> 8), crc);
}
NOINLINE static uint16_t crc32w(uint32_t v, uint16_t crc) {
    crc = crc16((int16_t)v, crc);
    return crc16((int16_t)(v >> 16), crc);
}

/* ---- matrix ---- */
static mat_t mat_a[MAT_N * MAT_N], mat_b[MAT_N * MAT_N];
static acc_t mat_c[MAT_N * MAT_N];

NOINLINE static void mat_add_const(mat_t *a, mat_t v) {
    for (int i = 0; i < MAT_N * MAT_N; i++) a[i] += v;
}
NOINLINE static void mat_mul_const(acc_t *c, const mat_t *a, mat_t v) {
    for (int i = 0; i < MAT_N * MAT_N; i++) c[i] = (acc_t)a[i] * (acc_t)v;
}
NOINLINE static void mat_mul_vect(acc_t *c, const mat_t *a, const mat_t *b) {
    for (int i = 0; i < MAT_N; i++) {
        acc_t s = 0;
        for (int j = 0; j < MAT_N; j++) s += (acc_t)a[i * MAT_N + j] * (acc_t)b[j];
        c[i] = s;
    }
}
NOINLINE static void mat_mul_mat(acc_t *c, const mat_t *a, const mat_t *b) {
    for (int i = 0; i < MAT_N; i++)
        for (int j = 0; j < MAT_N; j++) {
            acc_t s = 0;
            for (int k = 0; k < MAT_N; k++) s += (acc_t)a[i * MAT_N + k] * (acc_t)b[k * MAT_N + j];
            c[i * MAT_N + j] = s;
        }
}
NOINLINE static void mat_mul_bits(acc_t *c, const mat_t *a, const mat_t *b) {
    for (int i = 0; i < MAT_N; i++)
        for (int j = 0; j < MAT_N; j++) {
            acc_t s = 0;
            for (int k = 0; k < MAT_N; k++) {
                acc_t t = (acc_t)a[i * MAT_N + k] * (acc_t)b[k * MAT_N + j];
                s += ((t >> 2) & 0xf) * ((t >> 5) & 0x7f);
            }
            c[i * MAT_N + j] = s;
        }
}
NOINLINE static int16_t mat_sum(const acc_t *c, acc_t clip, int n) {
    acc_t tmp = 0, prev = 0;
    int16_t ret = 0;
    for (int i = 0; i < n; i++) {
        tmp += c[i];
        if (tmp > clip) {
            ret += 10;
            tmp = 0;
        } else {
            ret += (c[i] > prev) ? 1 : 0;
        }
        prev = c[i];
    }
    return ret;
}
NOINLINE static uint16_t matrix_bench(int16_t seed, uint16_t crc) {
    for (int i = 0; i < MAT_N * MAT_N; i++) {
        mat_a[i] = (mat_t)((seed * (i + 1) + i) & 0x3ff);
        mat_b[i] = (mat_t)(((seed ^ i) * 7 + 3) & 0x3ff);
    }
    acc_t clip = (acc_t)seed * 97 + 1000;
    mat_add_const(mat_a, (mat_t)(seed & 0xf));
    mat_mul_const(mat_c, mat_a, (mat_t)(seed | 1));
    crc = crc16(mat_sum(mat_c, clip, MAT_N * MAT_N), crc);
    mat_mul_vect(mat_c, mat_a, mat_b);
    crc = crc16(mat_sum(mat_c, clip, MAT_N), crc);
    mat_mul_mat(mat_c, mat_a, mat_b);
    crc = crc16(mat_sum(mat_c, clip, MAT_N * MAT_N), crc);
    mat_mul_bits(mat_c, mat_a, mat_b);
    crc = crc16(mat_sum(mat_c, clip, MAT_N * MAT_N), crc);
    mat_add_const(mat_a, (mat_t)-(seed & 0xf));
    return crc;
}

/* ---- state machine ---- */
enum { S_START, S_INVALID, S_S1, S_S2, S_INT, S_FLOAT, S_EXP, S_SCI, NUM_STATES };
static char state_buf[STATE_BYTES + 1];

static int is_digit(char c) { return c >= '0' && c <= '9'; }

/* Scans one token from *p (up to a comma), returns its final state. */
NOINLINE static int state_transition(const char **p, uint32_t *transitions) {
    const char *s = *p;
    int state = S_START;
    for (; *s && state != S_INVALID; s++) {
        char c = *s;
        if (c == ',') {
            s++;
            break;
        }
        switch (state) {
        case S_START:
            if (is_digit(c)) state = S_INT;
            else if (c == '+' || c == '-') state = S_S1;
            else if (c == '.') state = S_FLOAT;
            else { state = S_INVALID; transitions[S_INVALID]++; }
            transitions[S_START]++;
            break;
        case S_S1:
            if (is_digit(c)) { state = S_INT; transitions[S_S1]++; }
            else if (c == '.') { state = S_FLOAT; transitions[S_S1]++; }
            else { state = S_INVALID; transitions[S_S1]++; }
            break;
        case S_INT:
            if (c == '.') { state = S_FLOAT; transitions[S_INT]++; }
            else if (!is_digit(c)) { state = S_INVALID; transitions[S_INT]++; }
            break;
        case S_FLOAT:
            if (c == 'E' || c == 'e') { state = S_S2; transitions[S_FLOAT]++; }
            else if (!is_digit(c)) { state = S_INVALID; transitions[S_FLOAT]++; }
            break;
        case S_S2:
            if (c == '+' || c == '-') { state = S_EXP; transitions[S_S2]++; }
            else { state = S_INVALID; transitions[S_S2]++; }
            break;
        case S_EXP:
            if (is_digit(c)) { state = S_SCI; transitions[S_EXP]++; }
            else { state = S_INVALID; transitions[S_EXP]++; }
            break;
        case S_SCI:
            if (!is_digit(c)) { state = S_INVALID; transitions[S_INVALID]++; }
            break;
        default:
            break;
        }
    }
    *p = s;
    return state;
}

static const char *const tokens[] = {"5012", "1234", "-874", "+122", "35.54400", ".1234500",
                                     "-110.700", "+0.64400", "5.500e+3", "-.123e-2",
                                     "-87e+832", "+0.6e-12", "T0.3e-1F", "-T.T++Tq", "1T3.4e4z",
                                     "34.0e-T^"};

NOINLINE static void state_fill(uint32_t seed) {
    size_t at = 0;
    while (at + 10 < STATE_BYTES) {
        seed = seed * 1103515245u + 12345u;
        const char *t = tokens[(seed >> 16) & 15];
        size_t n = strlen(t);
        memcpy(state_buf + at, t, n);
        at += n;
        state_buf[at++] = ',';
    }
    state_buf[at] = 0;
}

NOINLINE static uint16_t state_bench(uint32_t seed, uint16_t crc) {
    uint32_t final[NUM_STATES] = {0}, transitions[NUM_STATES] = {0};
    state_fill(seed);
    const char *p = state_buf;
    while (*p) final[state_transition(&p, transitions)]++;
    /* Corrupt every 7th byte that is a digit, scan again, restore. */
    for (int i = 0; i < STATE_BYTES && state_buf[i]; i += 7)
        if (is_digit(state_buf[i])) state_buf[i] ^= 0x40;
    p = state_buf;
    while (*p) final[state_transition(&p, transitions)]++;
    for (int i = 0; i < NUM_STATES; i++) {
        crc = crc32w(final[i], crc);
        crc = crc32w(transitions[i], crc);
    }
    return crc;
}

/* ---- list ---- */
typedef struct item { struct item *next; int16_t idx; int16_t data; } item;
static item items[LIST_ITEMS];
static int16_t memo[LIST_ITEMS];
static int16_t memo_valid[LIST_ITEMS];
static uint32_t list_seed;

/* Like CoreMark's calc_func: a memoised value that runs a kernel on a miss. */
NOINLINE static int16_t calc_value(item *it) {
    int k = it->idx & (LIST_ITEMS - 1);
    if (memo_valid[k]) return memo[k];
    uint16_t r = (it->data & 1) ? matrix_bench((int16_t)(it->data & 0x7f), 0)
                                : state_bench(list_seed ^ (uint32_t)it->data, 0);
    memo[k] = (int16_t)(r & 0x7ff);
    memo_valid[k] = 1;
    return memo[k];
}

typedef int (*cmp_fn)(item *, item *);
NOINLINE static int cmp_value(item *a, item *b) { return calc_value(a) - calc_value(b); }
NOINLINE static int cmp_idx(item *a, item *b) { return a->idx - b->idx; }

NOINLINE static item *list_sort(item *list, cmp_fn cmp) {
    /* Bottom-up merge sort of a singly linked list (as CoreMark's core_list_mergesort). */
    int insize = 1;
    for (;;) {
        item *p = list, *tail = NULL;
        list = NULL;
        int merges = 0;
        while (p) {
            merges++;
            item *q = p;
            int psize = 0;
            for (int i = 0; i < insize && q; i++) {
                psize++;
                q = q->next;
            }
            int qsize = insize;
            while (psize > 0 || (qsize > 0 && q)) {
                item *e;
                if (psize == 0) { e = q; q = q->next; qsize--; }
                else if (qsize == 0 || !q) { e = p; p = p->next; psize--; }
                else if (cmp(p, q) <= 0) { e = p; p = p->next; psize--; }
                else { e = q; q = q->next; qsize--; }
                if (tail) tail->next = e;
                else list = e;
                tail = e;
            }
            p = q;
        }
        tail->next = NULL;
        if (merges <= 1) return list;
        insize *= 2;
    }
}

NOINLINE static item *list_reverse(item *list) {
    item *prev = NULL;
    while (list) {
        item *next = list->next;
        list->next = prev;
        prev = list;
        list = next;
    }
    return prev;
}

NOINLINE static item *list_find(item *list, int16_t data, int16_t idx) {
    if (idx >= 0) {
        while (list && list->idx != idx) list = list->next;
    } else {
        while (list && (list->data & 0xff) != data) list = list->next;
    }
    return list;
}

NOINLINE static uint16_t list_bench(uint32_t seed, uint16_t crc) {
    item *head = NULL;
    list_seed = seed;
    for (int i = LIST_ITEMS - 1; i >= 0; i--) {
        seed = seed * 1103515245u + 12345u;
        items[i].idx = (int16_t)i;
        items[i].data = (int16_t)((seed >> 16) & 0x7fff);
        items[i].next = head;
        head = &items[i];
        memo_valid[i] = 0;
    }
    int found = 0, missed = 0;
    for (int16_t i = 0; i < 24; i++) {
        item *f = list_find(head, (int16_t)(i * 37 & 0xff), -1);
        if (f) {
            found++;
            crc = crc16(f->data, crc);
        } else {
            missed++;
        }
        f = list_find(head, 0, (int16_t)((i * 13) & (LIST_ITEMS - 1)));
        if (f) crc = crc16(f->idx, crc);
        head = list_reverse(head);
    }
    head = list_sort(head, cmp_value);
    for (item *p = head; p; p = p->next) crc = crc16(calc_value(p), crc);
    head = list_sort(head, cmp_idx);
    crc = crc16((int16_t)found, crc);
    crc = crc16((int16_t)missed, crc);
    return crc16(head->data, crc);
}

int main(int argc, char **argv) {
    long iterations = argc > 1 ? atol(argv[1]) : 1000;
    uint16_t crc = 0;
    for (long it = 0; it < iterations; it++) {
        crc = list_bench((uint32_t)it * 2654435761u, crc);
        crc = matrix_bench((int16_t)(it & 0x3ff), crc);
        crc = state_bench((uint32_t)it, crc);
    }
    printf("corelike iterations=%ld crc=0x%04x\n", iterations, crc);
    return 0;
}
