/* Heavy printf: integer flags/widths/lengths, %e %f %g %a, strings, chars, %%, snprintf truncation. */
#include "common.h"
#include <inttypes.h>
#include <limits.h>
#include <math.h>

int main(void) {
    int iv[] = {0, 1, -1, 42, -42, 2147483647, -2147483647 - 1, 65535, 1000000};
    for (unsigned i = 0; i < sizeof iv / sizeof iv[0]; i++)
        printf("[%d][%5d][%-5d|][%05d][%+d][% d][%x][%X][%#x][%o][%#o][%u][%8.3d]\n", iv[i], iv[i], iv[i],
               iv[i], iv[i], iv[i], iv[i], iv[i], iv[i], iv[i], iv[i], (unsigned)iv[i], iv[i]);
    long long lv[] = {0, LLONG_MAX, LLONG_MIN, -1234567890123LL, 0x123456789abcdefLL};
    for (unsigned i = 0; i < sizeof lv / sizeof lv[0]; i++)
        printf("[%lld][%llx][%20lld][%-20lld|][%llu]\n", lv[i], (unsigned long long)lv[i], lv[i], lv[i],
               (unsigned long long)lv[i]);
    printf("[%hhd][%hhu][%hd][%hu][%zu][%" PRId64 "][%" PRIx32 "]\n", (signed char)-3, (unsigned char)250,
           (short)-30000, (unsigned short)60000, (size_t)12345, (int64_t)-77, (uint32_t)0xdeadbeef);
    printf("[%c][%5c][%-3c|][%s][%10s][%-10s|][%.3s][%*d][%-*d|][%.*f]\n", 'x', 'y', 'z', "str", "right",
           "left", "truncate", 6, 17, 6, 17, 2, 3.14159);
    double dv[] = {0.0, -0.0, 1.0, -1.5, 3.141592653589793, 1e-300, 1e300, 123456789.125, 0.1, 2.5e-5,
                   1.0 / 3.0, 6.02214076e23, 4.9406564584124654e-324, 1.7976931348623157e308};
    for (unsigned i = 0; i < sizeof dv / sizeof dv[0]; i++) {
        double d = dv[i];
        printf("%.17g | %e | %.3e | %E | %g | %G | %.0f | %12.4f | %-12.2e| %+g | %#g\n", d, d, d, d, d, d,
               fabs(d) < 1e20 ? d : 0.0, fabs(d) < 1e20 ? d : 0.0, d, d, d);
        printf("  %a | %A | %.3a | %.0a\n", d, d, d, d);
    }
    printf("special: %f %f %f %e %g %a\n", (double)INFINITY, -(double)INFINITY, (double)NAN, (double)INFINITY,
           -(double)NAN, (double)INFINITY);
    printf("float promo: %f %g %e\n", (double)1.1f, (double)3.4028235e38f, (double)1.17549435e-38f);
    printf("rounding: %.2f %.2f %.2f %.2f %.1f %.0f %.0f %.0f\n", 2.675, 1.005, 0.125, 0.375, 0.25, 0.5, 1.5, 2.5);
    char small[8];
    int n = snprintf(small, sizeof small, "%s-%d", "abcdefgh", 12345);
    printf("snprintf n=%d buf=%s\n", n, small);
    n = snprintf(NULL, 0, "%d %s %e", 1, "two", 3.0);
    printf("snprintf(NULL) n=%d\n", n);
    printf("percent %% done\n");
    for (int i = 0; i < 40; i++) printf("%d:%.*e%c", i, i % 17, 1.0 / (i + 1), i % 8 == 7 ? '\n' : ' ');
    printf("\n");
    return 0;
}
