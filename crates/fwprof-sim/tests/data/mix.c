#include <stdio.h>
#include <stdint.h>
#include <string.h>
#include <stdlib.h>
#include <math.h>

static int cmp(const void *a, const void *b) { return *(const int *)a - *(const int *)b; }
static long counter;
typedef int (*op_fn)(int, int);
static int op_add(int a, int b) { return a + b; }
static int op_mul(int a, int b) { return a * b; }
static int op_div(int a, int b) { return b ? a / b : -1; }
static op_fn ops[] = { op_add, op_mul, op_div };

static int classify(int x) {
    switch (x & 7) {
    case 0: return 11; case 1: return 22; case 2: return 33; case 3: return 44;
    case 4: return 55; case 5: return 66; case 6: return 77; default: return 88;
    }
}

int main(void) {
    int arr[32];
    uint32_t s = 12345;
    for (int i = 0; i < 32; i++) { s = s * 1103515245u + 12345u; arr[i] = (int)(s >> 8) % 1000 - 500; }
    qsort(arr, 32, sizeof arr[0], cmp);
    for (int i = 0; i < 100; i++) __atomic_fetch_add(&counter, i, __ATOMIC_SEQ_CST);
    long expected = 7;
    int swapped = __atomic_compare_exchange_n(&counter, &expected, 99, 0, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);
    float f = 0.1f; double d = 1.0;
    for (int i = 0; i < 20; i++) { f = f * 1.5f + 0.25f; d = sqrt(d + i) * 1.01; }
    int64_t big = 0x123456789abcLL; uint64_t ub = 0xfedcba9876543210ULL;
    int64_t q = big / -37, r = big % -37; uint64_t uq = ub / 1000003u;
    int acc = 0;
    for (int i = 0; i < 30; i++) acc += ops[i % 3](i, 3) + classify(i);
    char buf[64]; strcpy(buf, "hello, world"); size_t n = strlen(buf);
    printf("min=%d max=%d ctr=%ld sw=%d exp=%ld f=%.5f d=%.9f\n", arr[0], arr[31], counter, swapped, expected, (double)f, d);
    printf("q=%lld r=%lld uq=%llu acc=%d n=%zu lf=%.4f\n", (long long)q, (long long)r, (unsigned long long)uq, acc, n, (double)floorf(f));
    return (acc + (int)n) & 0xff;
}
