/* Test program for fwprof-symbols: build with tests/data/build.sh. */
static inline __attribute__((always_inline)) int square(int x)
{
    return x * x;
}

int sum_squares(int n)
{
    int s = 0;
    for (int i = 0; i < n; i++)
        s += square(i);
    return s;
}

int alias_target(int x) { return x + 1; }
int weak_alias(int x) __attribute__((weak, alias("alias_target")));

void _start(void)
{
    volatile int r = sum_squares(10) + alias_target(2);
    (void)r;
    for (;;)
        ;
}
