/* setjmp/longjmp: nested jumps, jumps out of deep recursion, values (0 -> 1), volatile locals. */
#include "common.h"
#include <setjmp.h>

static jmp_buf top, inner;
static int depth_reached;

static void dive(int n) {
    depth_reached = n;
    if (n == 50) longjmp(top, n);
    dive(n + 1);
}
static int layered(int k) {
    if (setjmp(inner) == 0) {
        if (k & 1) longjmp(inner, 0);   /* longjmp with 0 makes setjmp return 1 */
        return 10 + k;
    }
    return 20 + k;
}
int main(void) {
    volatile int counter = 0;
    int r = setjmp(top);
    if (r == 0) { counter++; dive(0); printf("not reached\n"); }
    printf("returned from dive with %d depth=%d counter=%d\n", r, depth_reached, counter);
    for (int k = 0; k < 6; k++) printf("layered(%d)=%d\n", k, layered(k));
    volatile int loops = 0;
    jmp_buf loop;
    int v = setjmp(loop);
    if (v < 1000) { loops++; longjmp(loop, v + 7); }
    printf("jump loop v=%d loops=%d\n", v, loops);
#if HAVE_HW_FLOAT
    volatile double fd = 2.5;
    register double keep = 1.25;
    if (setjmp(top) == 0) { fd = fd * 2; keep = keep * 3; longjmp(top, 1); }
    printf("float across longjmp fd=%g\n", fd);
    (void)keep;
#endif
    return 0;
}
