/* float/double arithmetic and conversions in plain C.  Built for rv32imac this runs
 * entirely in libgcc's soft-float routines (__adddf3, __muldf3, __fixdfsi, ...); on F/D
 * targets the same source uses hardware instructions.  Prints result bits. */
#include "common.h"

static uint64_t dbits(double d) { uint64_t b; memcpy(&b, &d, 8); return b; }
static uint32_t fbits(float f) { uint32_t b; memcpy(&b, &f, 4); return b; }
static double dfrom(uint64_t b) { double d; memcpy(&d, &b, 8); return d; }

static volatile double dv[] = {0.0, -0.0, 1.0, -1.0, 0.5, 3.0, 1e-310, -2.2250738585072014e-308, 1e308,
                              -1.7976931348623157e308, 123.456, -7.25, 1.0 / 3.0, 4294967296.5, -2147483648.7};
#define ND (sizeof dv / sizeof dv[0])

int main(void) {
    uint32_t h = FNV32_INIT;
    for (unsigned i = 0; i < ND; i++)
        for (unsigned j = 0; j < ND; j++) {
            double a = dv[i], b = dv[j];
            uint64_t r[4] = {dbits(a + b), dbits(a - b), dbits(a * b), dbits(b != 0 ? a / b : a)};
            float fa = (float)a, fb = (float)b;
            uint32_t q[4] = {fbits(fa + fb), fbits(fa - fb), fbits(fa * fb), fbits(fb != 0 ? fa / fb : fa)};
            h = fnv1a32(h, r, sizeof r); h = fnv1a32(h, q, sizeof q);
            int cmp = (a < b) | (a <= b) << 1 | (a == b) << 2 | (a > b) << 3;
            h = fnv1a32(h, &cmp, sizeof cmp);
            if (i == j || i + 1 == j)
                printf("%2u %2u add=%016llx mul=%016llx div=%016llx fadd=%08lx fmul=%08lx cmp=%x\n", i, j,
                       (unsigned long long)r[0], (unsigned long long)r[2], (unsigned long long)r[3],
                       (unsigned long)q[0], (unsigned long)q[2], cmp);
        }
    printf("arith hash=%08lx\n", (unsigned long)h);
    for (unsigned i = 0; i < ND; i++) {
        double a = dv[i];
        int iw = (a > -2147483649.0 && a < 2147483648.0) ? (int)a : 0;
        long long il = (a > -9.2e18 && a < 9.2e18) ? (long long)a : 0;
        unsigned uw = (a > -1.0 && a < 4294967296.0) ? (unsigned)a : 0;
        printf("cvt %2u: i32=%d i64=%lld u32=%u f32=%08lx back=%016llx\n", i, iw, il, uw,
               (unsigned long)fbits((float)a), (unsigned long long)dbits((double)(float)a));
    }
    long long ints[] = {0, 1, -1, 9007199254740993LL, -9223372036854775807LL - 1, 16777217, 123456789};
    for (unsigned i = 0; i < sizeof ints / sizeof ints[0]; i++)
        printf("i2f %lld -> d=%016llx f=%08lx ud=%016llx\n", ints[i], (unsigned long long)dbits((double)ints[i]),
               (unsigned long)fbits((float)ints[i]), (unsigned long long)dbits((double)(unsigned long long)ints[i]));
    /* a numerical loop: Newton sqrt and series */
    double x = 2.0, g = 1.0;
    for (int k = 0; k < 30; k++) g = 0.5 * (g + x / g);
    double e = 1.0, t = 1.0;
    for (int k = 1; k < 25; k++) { t /= k; e += t; }
    float pf = 0.0f;
    for (int k = 1; k <= 10000; k++) pf += 1.0f / ((float)k * (float)k);
    printf("sqrt2=%016llx e=%016llx basel_f=%08lx\n", (unsigned long long)dbits(g), (unsigned long long)dbits(e),
           (unsigned long)fbits(pf));
    printf("subnormal half=%016llx\n", (unsigned long long)dbits(dfrom(1) * 0.5));
    return 0;
}
