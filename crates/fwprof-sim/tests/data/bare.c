#include <stdio.h>
#include <stdlib.h>
static int fib(int n) { return n < 2 ? n : fib(n - 1) + fib(n - 2); }
volatile double dv = 2.5;
volatile long lv = -7;
int main(void) {
    double acc = 0;
    for (int i = 1; i <= 100; i++) acc += dv / i;
    long q = lv / 2, r = lv % 2;
    int f = fib(15);
    printf("fib=%d acc=%.6f q=%ld r=%ld\n", f, acc, q, r);
    return (f + (int)acc + (int)q + (int)r) & 0xff;
}
