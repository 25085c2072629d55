/* coop: cooperative tasks switched by a plain call (issue 15, --task-hint).
 * main is the scheduler: it switches to task_one 50 times and to task_two
 * 30 times with coop_switch(from, to), which saves ra, sp and s0-s11 in
 * *from, loads them from *to and returns on the other task's stack (the
 * way many small kernels and coroutine libraries switch). No trap is taken,
 * so fwprof sees the switches only with --task-hint coop_switch. Each task
 * runs its work function once per turn: work_one 50 times on task_one's
 * stack, work_two 30 times on task_two's. Prints the two sums. */
#include "fw.h"

/* ra, sp, s0..s11: 14 registers. */
struct ctx {
    reg_t regs[14];
};

void coop_switch(struct ctx *from, struct ctx *to);

#if __riscv_xlen == 64
#define SAVE "sd"
#define LOAD "ld"
#define W "8"
#else
#define SAVE "sw"
#define LOAD "lw"
#define W "4"
#endif

/* The save and restore, register i at offset i * XLEN/8. */
__asm__(".text\n"
        ".globl coop_switch\n"
        ".type coop_switch, @function\n"
        "coop_switch:\n"
        SAVE " ra, 0*" W "(a0)\n" SAVE " sp, 1*" W "(a0)\n"
        SAVE " s0, 2*" W "(a0)\n" SAVE " s1, 3*" W "(a0)\n"
        SAVE " s2, 4*" W "(a0)\n" SAVE " s3, 5*" W "(a0)\n"
        SAVE " s4, 6*" W "(a0)\n" SAVE " s5, 7*" W "(a0)\n"
        SAVE " s6, 8*" W "(a0)\n" SAVE " s7, 9*" W "(a0)\n"
        SAVE " s8, 10*" W "(a0)\n" SAVE " s9, 11*" W "(a0)\n"
        SAVE " s10, 12*" W "(a0)\n" SAVE " s11, 13*" W "(a0)\n"
        LOAD " ra, 0*" W "(a1)\n" LOAD " sp, 1*" W "(a1)\n"
        LOAD " s0, 2*" W "(a1)\n" LOAD " s1, 3*" W "(a1)\n"
        LOAD " s2, 4*" W "(a1)\n" LOAD " s3, 5*" W "(a1)\n"
        LOAD " s4, 6*" W "(a1)\n" LOAD " s5, 7*" W "(a1)\n"
        LOAD " s6, 8*" W "(a1)\n" LOAD " s7, 9*" W "(a1)\n"
        LOAD " s8, 10*" W "(a1)\n" LOAD " s9, 11*" W "(a1)\n"
        LOAD " s10, 12*" W "(a1)\n" LOAD " s11, 13*" W "(a1)\n"
        "ret\n"
        ".size coop_switch, .-coop_switch\n");

static struct ctx main_ctx, ctx_one, ctx_two;
static uint8_t stack_one[2048] __attribute__((aligned(16)));
static uint8_t stack_two[2048] __attribute__((aligned(16)));
static volatile unsigned long sum_one, sum_two;

__attribute__((noinline)) void work_one(unsigned i) {
    for (unsigned k = 0; k < 20; k++)
        sum_one += (i * 7u + k) ^ (k << 3);
}

__attribute__((noinline)) void work_two(unsigned i) {
    for (unsigned k = 0; k < 40; k++)
        sum_two += (i * 13u + k) ^ (k << 2);
}

__attribute__((noinline)) void task_one(void) {
    for (unsigned i = 0;; i++) {
        work_one(i);
        coop_switch(&ctx_one, &main_ctx);
    }
}

__attribute__((noinline)) void task_two(void) {
    for (unsigned i = 0;; i++) {
        work_two(i);
        coop_switch(&ctx_two, &main_ctx);
    }
}

static void start(struct ctx *c, void (*entry)(void), uint8_t *stack, unsigned size) {
    c->regs[0] = (reg_t)entry;
    c->regs[1] = (reg_t)(stack + size);
}

int main(void) {
    start(&ctx_one, task_one, stack_one, sizeof stack_one);
    start(&ctx_two, task_two, stack_two, sizeof stack_two);
    for (unsigned round = 0; round < 50; round++) {
        coop_switch(&main_ctx, &ctx_one);
        if (round < 30)
            coop_switch(&main_ctx, &ctx_two);
    }
    printf("coop: one %lu two %lu\n", (unsigned long)sum_one, (unsigned long)sum_two);
    return 0;
}
