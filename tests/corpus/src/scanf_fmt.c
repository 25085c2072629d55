/* sscanf of many formats, strtol/strtoul/strtod/atoi round trips. */
#include "common.h"
#include <stdlib.h>

int main(void) {
    int a, b, c, n; unsigned u; long l; long long ll; unsigned long long ull; short sh; signed char hh;
    char w1[32], w2[32]; char ch; double d1, d2; float f1; unsigned x;
    int r = sscanf("  12 -34 +56", "%d %d %d", &a, &b, &c);
    printf("r=%d %d %d %d\n", r, a, b, c);
    r = sscanf("0x1F 077 0b 42", "%i %i %x %o", &a, &b, &x, &c);
    printf("r=%d %d %d %x %d\n", r, a, b, x, c);
    r = sscanf("4294967295 -9223372036854775807 18446744073709551615", "%u %lld %llu", &u, &ll, &ull);
    printf("r=%d %u %lld %llu\n", r, u, ll, ull);
    r = sscanf("-32768 -128 123456789", "%hd %hhd %ld", &sh, &hh, &l);
    printf("r=%d %d %d %ld\n", r, sh, hh, l);
    r = sscanf("hello, world!", "%31[^,], %31s", w1, w2);
    printf("r=%d <%s> <%s>\n", r, w1, w2);
    r = sscanf("key=value;rest", "%31[a-z]=%31[^;];%n", w1, w2, &n);
    printf("r=%d <%s> <%s> n=%d\n", r, w1, w2, n);
    r = sscanf("3.14159 -2.5e-3 1e10", "%lf %lf %f", &d1, &d2, &f1);
    printf("r=%d %.10g %.10g %.6g\n", r, d1, d2, (double)f1);
    r = sscanf("0x1.8p1 inf nan", "%lf %lf %lf", &d1, &d2, &d1);
    printf("r=%d d2=%g\n", r, d2);
    r = sscanf("abc 123", "%c%c%c %3d", &ch, w1, w1 + 1, &a);
    printf("r=%d ch=%c a=%d\n", r, ch, a);
    r = sscanf("12345678", "%3d%2d%d", &a, &b, &c);
    printf("width r=%d %d %d %d\n", r, a, b, c);
    r = sscanf("10 skip 20", "%d %*s %d", &a, &b);
    printf("suppress r=%d %d %d\n", r, a, b);
    r = sscanf("abc", "%d", &a);
    printf("mismatch r=%d\n", r);
    r = sscanf("", "%d", &a);
    printf("empty r=%d\n", r);
    r = sscanf("100%", "%d%%", &a);
    printf("percent r=%d a=%d\n", r, a);
    char *end;
    printf("strtol: %ld %ld %ld\n", strtol("  -0x7fff", &end, 16), strtol("z", &end, 36), strtol("777", NULL, 8));
    printf("strtoul: %lu end=<%s>\n", strtoul("123abc", &end, 10), end);
    printf("strtoll: %lld %llu\n", strtoll("-9223372036854775808", NULL, 10), strtoull("ffffffffffffffff", NULL, 16));
    const char *ds[] = {"0", "-0", "1e-310", "2.2250738585072014e-308", "1.7976931348623157e308", "1e309",
                        "0.1", "123.456e-2", "  +.5", "0x1p-1074", "3.4028235e38"};
    for (unsigned i = 0; i < sizeof ds / sizeof ds[0]; i++) {
        double d = strtod(ds[i], &end);
        uint64_t bits; memcpy(&bits, &d, 8);
        float f = strtof(ds[i], NULL); uint32_t fb; memcpy(&fb, &f, 4);
        printf("strtod(%s) = %016llx %.17g  strtof = %08lx\n", ds[i], (unsigned long long)bits, d, (unsigned long)fb);
    }
    printf("atoi=%d atol=%ld\n", atoi("-77xyz"), atol("99999"));
    /* printf -> sscanf round trip of doubles */
    uint32_t s = 5; int bad = 0;
    for (int i = 0; i < 200; i++) {
        double d = (double)(int32_t)xs32(&s) * 1.0e-3 / (double)((xs32(&s) & 0xff) + 1), back;
        char buf[64]; snprintf(buf, sizeof buf, "%.17g", d);
        sscanf(buf, "%lf", &back);
        bad += back != d;
    }
    printf("round trip mismatches=%d\n", bad);
    return 0;
}
