/* Evaluates a set of expressions over a range of x, as a configuration-rule engine
 * might; prints per-expression sums and the error count. */
#include <stdio.h>
#include "parser.h"

static const char *const exprs[] = {
    "1 + 2 * 3",
    "(x + 3) * (x - 2) / 7",
    "x * x % 1000 + max(x, 17) - min(x, 17)",
    "((x << 3) | (x >> 2)) ^ 0x5a5a",
    "x > 100 && x < 200 || x == 7",
    "pow(2, x % 20) + abs(-x)",
    "-(x - 50) * -(50 - x)",
    "x / (x % 5)",            /* division by zero for multiples of 5: an error */
    "1 + (2",                 /* syntax error */
};

int main(void) {
    int errors = 0;
    for (unsigned i = 0; i < sizeof exprs / sizeof exprs[0]; i++) {
        long long sum = 0; int bad = 0;
        for (int x = 0; x < 400; x++) {
            eval_result r = evaluate(exprs[i], x);
            if (r.ok) sum += r.value; else bad++;
        }
        errors += bad;
        printf("%-42s sum=%lld errors=%d\n", exprs[i], sum, bad);
    }
    printf("total errors=%d\n", errors);
    return 0;
}
