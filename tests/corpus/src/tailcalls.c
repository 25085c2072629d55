/* Sibling and tail calls (at -O2 GCC turns these into jumps), a state machine written as
 * mutually tail-calling functions, and accumulating recursion. */
#include "common.h"

__attribute__((noinline)) static long leaf(long x) { return x * 3 + 1; }
__attribute__((noinline)) static long sib1(long x) { return leaf(x + 1); }          /* sibcall */
__attribute__((noinline)) static long sib2(long x, long y) { return sib1(x ^ y); }  /* sibcall chain */
__attribute__((noinline)) static long gcd(long a, long b) { return b == 0 ? a : gcd(b, a % b); }
__attribute__((noinline)) static long sum_to(long n, long acc) { return n == 0 ? acc : sum_to(n - 1, acc + n); }

/* Collatz steps via tail calls between two states. */
static long st_odd(unsigned long n, long steps);
__attribute__((noinline)) static long st_even(unsigned long n, long steps) {
    if (n == 1) return steps;
    return (n & 1) ? st_odd(n, steps) : st_even(n / 2, steps + 1);
}
__attribute__((noinline)) static long st_odd(unsigned long n, long steps) {
    if (n == 1) return steps;
    return st_even(3 * n + 1, steps + 1);
}
/* Tokenizer states as tail calls. */
static int s_word(const char *p, int words);
__attribute__((noinline)) static int s_space(const char *p, int words) {
    if (!*p) return words;
    return (*p == ' ') ? s_space(p + 1, words) : s_word(p + 1, words + 1);
}
__attribute__((noinline)) static int s_word(const char *p, int words) {
    if (!*p) return words;
    return (*p == ' ') ? s_space(p + 1, words) : s_word(p + 1, words);
}
typedef long (*fn1)(long);
__attribute__((noinline)) static long apply(fn1 f, long x) { return f(x); }   /* indirect tail call */

int main(void) {
    long acc = 0;
    for (long i = 0; i < 5000; i++) acc += sib2(i, i >> 2);
    printf("sibcalls acc=%ld\n", acc);
    long g = 0;
    for (long i = 1; i < 3000; i++) g += gcd(i * 7919, 104729 % i + i);
    printf("gcd sum=%ld\n", g);
    printf("sum_to(20000)=%ld\n", sum_to(20000, 0));
    long steps = 0;
    for (unsigned long n = 1; n < 3000; n++) steps += st_even(n, 0);
    printf("collatz steps=%ld\n", steps);
    printf("words=%d\n", s_space("  the quick  brown fox jumps over   the lazy dog ", 0));
    long a = 0;
    for (long i = 0; i < 1000; i++) a += apply(leaf, i);
    printf("apply=%ld\n", a);
    return 0;
}
