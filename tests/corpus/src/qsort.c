/* libc qsort with several comparators (ints, unsigned, doubles, strings, structs), bsearch. */
#include "common.h"
#include <stdlib.h>

typedef struct { int key; unsigned seq; char name[8]; } rec;

static int cmp_int(const void *a, const void *b) { int x = *(const int *)a, y = *(const int *)b; return (x > y) - (x < y); }
static int cmp_int_desc(const void *a, const void *b) { return cmp_int(b, a); }
static int cmp_u64(const void *a, const void *b) { uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b; return (x > y) - (x < y); }
static int cmp_dbl(const void *a, const void *b) { double x = *(const double *)a, y = *(const double *)b; return (x > y) - (x < y); }
static int cmp_str(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }
static int cmp_rec(const void *a, const void *b) {
    const rec *x = a, *y = b;
    if (x->key != y->key) return x->key < y->key ? -1 : 1;
    return x->seq < y->seq ? -1 : x->seq > y->seq;   /* makes the order total (qsort is unstable) */
}

#define N 1000
static int ia[N];
static uint64_t ua[N];
static double da[N];
static rec ra[300];
static char sbuf[200][12];
static char *sp[200];

int main(void) {
    uint32_t s = 2024;
    for (int i = 0; i < N; i++) { ia[i] = (int)xs32(&s) % 100000; ua[i] = ((uint64_t)xs32(&s) << 32) | xs32(&s);
                                  da[i] = (double)(int32_t)xs32(&s) / 977.0; }
    qsort(ia, N, sizeof ia[0], cmp_int);
    int ok = 1; for (int i = 1; i < N; i++) ok &= ia[i-1] <= ia[i];
    printf("int asc ok=%d first=%d last=%d mid=%d fnv=%08lx\n", ok, ia[0], ia[N-1], ia[N/2],
           (unsigned long)fnv1a32(FNV32_INIT, ia, sizeof ia));
    int key = ia[123]; int *hit = bsearch(&key, ia, N, sizeof ia[0], cmp_int);
    printf("bsearch found=%d value=%d\n", hit != NULL, hit ? *hit : 0);
    key = 100001; printf("bsearch missing=%d\n", bsearch(&key, ia, N, sizeof ia[0], cmp_int) == NULL);
    qsort(ia, N, sizeof ia[0], cmp_int_desc);
    printf("int desc first=%d last=%d\n", ia[0], ia[N-1]);
    qsort(ua, N, sizeof ua[0], cmp_u64);
    printf("u64 first=%016llx last=%016llx fnv=%08lx\n", (unsigned long long)ua[0], (unsigned long long)ua[N-1],
           (unsigned long)fnv1a32(FNV32_INIT, ua, sizeof ua));
    qsort(da, N, sizeof da[0], cmp_dbl);
    printf("dbl first=%.6f last=%.6f median=%.6f\n", da[0], da[N-1], da[N/2]);
    for (int i = 0; i < 200; i++) {
        int len = 1 + (int)(xs32(&s) % 10);
        for (int k = 0; k < len; k++) sbuf[i][k] = (char)('a' + xs32(&s) % 26);
        sbuf[i][len] = 0; sp[i] = sbuf[i];
    }
    qsort(sp, 200, sizeof sp[0], cmp_str);
    printf("str first=%s last=%s [100]=%s\n", sp[0], sp[199], sp[100]);
    for (unsigned i = 0; i < 300; i++) { ra[i].key = (int)(xs32(&s) % 17) - 8; ra[i].seq = i;
                                         snprintf(ra[i].name, sizeof ra[i].name, "r%u", i); }
    qsort(ra, 300, sizeof ra[0], cmp_rec);
    printf("rec:");
    for (int i = 0; i < 300; i += 37) printf(" %d/%s", ra[i].key, ra[i].name);
    printf("\n");
    /* degenerate inputs */
    for (int i = 0; i < N; i++) ia[i] = 5;
    qsort(ia, N, sizeof ia[0], cmp_int);
    for (int i = 0; i < N; i++) ia[i] = N - i;
    qsort(ia, N, sizeof ia[0], cmp_int);
    qsort(ia, 0, sizeof ia[0], cmp_int);
    qsort(ia, 1, sizeof ia[0], cmp_int);
    printf("reverse sorted first=%d last=%d\n", ia[0], ia[N-1]);
    return 0;
}
