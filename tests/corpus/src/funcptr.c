/* Function pointers, dispatch tables, dense switch (jump tables) and sparse switch. */
#include "common.h"

typedef long (*op_fn)(long, long);
static long op_add(long a, long b) { return a + b; }
static long op_sub(long a, long b) { return a - b; }
static long op_mul(long a, long b) { return a * b; }
static long op_div(long a, long b) { return b ? a / b : 0; }
static long op_and(long a, long b) { return a & b; }
static long op_or(long a, long b) { return a | b; }
static long op_xor(long a, long b) { return a ^ b; }
static long op_shl(long a, long b) { return a << (b & 15); }
static op_fn const table[] = {op_add, op_sub, op_mul, op_div, op_and, op_or, op_xor, op_shl};

__attribute__((noinline)) static int dense_switch(int x) {
    switch (x) {
    case 0: return 11; case 1: return 23; case 2: return 37; case 3: return 41; case 4: return 59;
    case 5: return 61; case 6: return 73; case 7: return 89; case 8: return 97; case 9: return 101;
    case 10: return 103; case 11: return 107; case 12: return 109; case 13: return 113;
    default: return -1;
    }
}
__attribute__((noinline)) static int sparse_switch(int x) {
    switch (x) {
    case 1: return 1; case 10: return 2; case 100: return 3; case 1000: return 4; case 10000: return 5;
    case -5: return 6; case 77777: return 7; default: return 0;
    }
}
/* A bytecode interpreter loop: the classic indirect-branch workload. */
enum { PUSH, ADD, MUL, DUP, SWAP, DEC, JNZ, POP, HALT };
static long run_vm(const int *code) {
    long st[16]; int sp = 0, pc = 0;
    for (;;) {
        switch (code[pc++]) {
        case PUSH: st[sp++] = code[pc++]; break;
        case ADD: sp--; st[sp-1] += st[sp]; break;
        case MUL: sp--; st[sp-1] *= st[sp]; break;
        case DUP: st[sp] = st[sp-1]; sp++; break;
        case SWAP: { long t = st[sp-1]; st[sp-1] = st[sp-2]; st[sp-2] = t; } break;
        case DEC: st[sp-1]--; break;
        case JNZ: { int target = code[pc++]; if (st[sp-1]) pc = target; } break;
        case POP: sp--; break;
        case HALT: return st[sp-1];
        }
    }
}
struct shape { const char *name; long (*area)(const struct shape *); long a, b; };
static long rect_area(const struct shape *s) { return s->a * s->b; }
static long tri_area(const struct shape *s) { return s->a * s->b / 2; }
static long sq_area(const struct shape *s) { return s->a * s->a; }

int main(void) {
    long acc = 1;
    uint32_t s = 3;
    for (int i = 0; i < 2000; i++) acc = table[xs32(&s) & 7](acc, (long)(xs32(&s) % 1000) + 1) & 0xffffff;
    printf("table dispatch acc=%ld\n", acc);
    long sum = 0;
    for (int i = -3; i < 20; i++) sum = sum * 3 + dense_switch(i);
    printf("dense switch sum=%ld\n", sum);
    int xs[] = {1, 10, 100, 1000, 10000, -5, 77777, 3, 0};
    sum = 0;
    for (unsigned i = 0; i < sizeof xs / sizeof xs[0]; i++) sum = sum * 10 + sparse_switch(xs[i]);
    printf("sparse switch sum=%ld\n", sum);
    int expr[] = {PUSH, 6, PUSH, 7, MUL, PUSH, 100, ADD, DUP, ADD, HALT};
    printf("vm expr=%ld\n", run_vm(expr));
    int loop[] = {PUSH, 0, PUSH, 100000, /*4*/ DEC, JNZ, 4, POP, PUSH, 7, MUL, HALT};
    printf("vm loop=%ld\n", run_vm(loop));
    struct shape shapes[] = {{"rect", rect_area, 3, 4}, {"tri", tri_area, 6, 5}, {"square", sq_area, 7, 0}};
    for (int i = 0; i < 3; i++) printf("%s area=%ld\n", shapes[i].name, shapes[i].area(&shapes[i]));
    return 0;
}
