/* Arbitrary-precision arithmetic on 32-bit limbs: 100!, 2^1000, Fibonacci(1000), and a
 * long division by small numbers to print in decimal. */
#include "common.h"

#define LIMBS 120
typedef struct { uint32_t d[LIMBS]; int n; } big;

static void set_u(big *a, uint32_t v) { memset(a, 0, sizeof *a); a->d[0] = v; a->n = 1; }
static void mul_small(big *a, uint32_t m) {
    uint64_t carry = 0;
    for (int i = 0; i < a->n; i++) { uint64_t t = (uint64_t)a->d[i] * m + carry; a->d[i] = (uint32_t)t; carry = t >> 32; }
    if (carry) a->d[a->n++] = (uint32_t)carry;
}
static void add(big *r, const big *a, const big *b) {
    uint64_t carry = 0; int n = a->n > b->n ? a->n : b->n;
    for (int i = 0; i < n; i++) { uint64_t t = (uint64_t)a->d[i] + b->d[i] + carry; r->d[i] = (uint32_t)t; carry = t >> 32; }
    r->n = n; if (carry) r->d[r->n++] = (uint32_t)carry;
}
static uint32_t div_small(big *a, uint32_t m) {
    uint64_t rem = 0;
    for (int i = a->n - 1; i >= 0; i--) { uint64_t cur = (rem << 32) | a->d[i]; a->d[i] = (uint32_t)(cur / m); rem = cur % m; }
    while (a->n > 1 && a->d[a->n - 1] == 0) a->n--;
    return (uint32_t)rem;
}
static void print_dec(const char *label, const big *x) {
    big t = *x; char buf[1300]; int len = 0;
    do { uint32_t r = div_small(&t, 1000000000u);
         for (int k = 0; k < 9; k++) { buf[len++] = (char)('0' + r % 10); r /= 10; }
    } while (!(t.n == 1 && t.d[0] == 0));
    while (len > 1 && buf[len - 1] == '0') len--;
    printf("%s (%d digits) = ", label, len);
    for (int i = len - 1; i >= 0; i--) putchar(buf[i]);
    putchar('\n');
}
int main(void) {
    big a; set_u(&a, 1);
    for (uint32_t i = 2; i <= 100; i++) mul_small(&a, i);
    print_dec("100!", &a);
    set_u(&a, 1);
    for (int i = 0; i < 1000; i++) mul_small(&a, 2);
    print_dec("2^1000", &a);
    big f0, f1, f2; set_u(&f0, 0); set_u(&f1, 1);
    for (int i = 2; i <= 1000; i++) { add(&f2, &f0, &f1); f0 = f1; f1 = f2; }
    print_dec("fib(1000)", &f1);
    return 0;
}
