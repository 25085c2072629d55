/* Deep recursion (100k frames on Linux, 1k on bare metal with its 64 KiB stack), mutual
 * recursion, Ackermann, naive Fibonacci, recursive tree building/walking. */
#include "common.h"
#include <stdlib.h>

#ifdef CFG_LINUX
#define DEEP 100000
#else
#define DEEP 1000
#endif

__attribute__((noinline)) static long deep(long n, volatile long *sink) {
    volatile long pad[2]; pad[0] = n; pad[1] = n * 2;
    if (n == 0) return 0;
    long r = deep(n - 1, sink) + (pad[0] & 7) + (pad[1] & 1);
    *sink += r & 1;
    return r;
}
static int is_odd(unsigned n);
__attribute__((noinline)) static int is_even(unsigned n) { return n == 0 ? 1 : is_odd(n - 1); }
__attribute__((noinline)) static int is_odd(unsigned n) { return n == 0 ? 0 : is_even(n - 1); }
static unsigned ack(unsigned m, unsigned n) {
    if (m == 0) return n + 1;
    if (n == 0) return ack(m - 1, 1);
    return ack(m - 1, ack(m, n - 1));
}
static unsigned fib(unsigned n) { return n < 2 ? n : fib(n - 1) + fib(n - 2); }

struct node { int key; struct node *l, *r; };
static struct node pool[4096]; static int used;
static struct node *insert(struct node *t, int k) {
    if (!t) { struct node *n = &pool[used++]; n->key = k; n->l = n->r = NULL; return n; }
    if (k < t->key) t->l = insert(t->l, k); else t->r = insert(t->r, k);
    return t;
}
static int height(const struct node *t) { if (!t) return 0; int a = height(t->l), b = height(t->r); return 1 + (a > b ? a : b); }
static long sum_inorder(const struct node *t, long *pos) {
    if (!t) return 0;
    long s = sum_inorder(t->l, pos);
    s += t->key * ++*pos;
    return s + sum_inorder(t->r, pos);
}
static int hanoi(int n, int a, int b, int c) { return n == 0 ? 0 : hanoi(n - 1, a, c, b) + 1 + hanoi(n - 1, c, b, a); }

int main(void) {
    volatile long sink = 0;
    printf("deep(%d)=%ld sink=%ld\n", DEEP, deep(DEEP, &sink), sink);
    printf("is_even(10001)=%d is_odd(777)=%d\n", is_even(10001), is_odd(777));
    printf("ack(2,3)=%u ack(3,3)=%u\n", ack(2, 3), ack(3, 3));
    printf("fib(20)=%u\n", fib(20));
    uint32_t s = 77; struct node *root = NULL;
    for (int i = 0; i < 3000; i++) root = insert(root, (int)(xs32(&s) % 100000));
    long pos = 0;
    printf("tree height=%d weighted=%ld\n", height(root), sum_inorder(root, &pos));
    printf("hanoi(12)=%d\n", hanoi(12, 1, 2, 3));
    return 0;
}
