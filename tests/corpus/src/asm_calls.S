/* Hand-written assembly called from asm_calls.c: a leaf with a computed jump table, a
 * non-leaf that saves ra on the stack, and a memcpy-like loop.  XLEN-generic. */
#if __riscv_xlen == 64
#define SREG sd
#define LREG ld
#define SZREG 8
#else
#define SREG sw
#define LREG lw
#define SZREG 4
#endif
    .text
    .globl asm_select
    .type asm_select, @function
/* long asm_select(long k, long x): jump table on k & 3 */
asm_select:
    andi a0, a0, 3
    la t0, 1f
    slli a0, a0, 3
    add t0, t0, a0
    jr t0
    .balign 4
    .option push
    .option norvc
1:  addi a0, a1, 1
    ret
    slli a0, a1, 1
    ret
    xori a0, a1, -1
    ret
    mul a0, a1, a1
    ret
    .option pop
    .size asm_select, .-asm_select

    .globl asm_sum_select
    .type asm_sum_select, @function
/* long asm_sum_select(long n): sum of asm_select(i, i) for i < n (non-leaf) */
asm_sum_select:
    addi sp, sp, -4*SZREG
    SREG ra, 3*SZREG(sp)
    SREG s0, 2*SZREG(sp)
    SREG s1, 1*SZREG(sp)
    mv s0, a0
    li s1, 0
    beqz s0, 2f
1:  addi s0, s0, -1
    mv a0, s0
    mv a1, s0
    call asm_select
    add s1, s1, a0
    bnez s0, 1b
2:  mv a0, s1
    LREG ra, 3*SZREG(sp)
    LREG s0, 2*SZREG(sp)
    LREG s1, 1*SZREG(sp)
    addi sp, sp, 4*SZREG
    ret
    .size asm_sum_select, .-asm_sum_select

    .globl asm_copy
    .type asm_copy, @function
/* void asm_copy(void *dst, const void *src, size_t n) */
asm_copy:
    beqz a2, 2f
1:  lbu t0, 0(a1)
    sb t0, 0(a0)
    addi a1, a1, 1
    addi a0, a0, 1
    addi a2, a2, -1
    bnez a2, 1b
2:  ret
    .size asm_copy, .-asm_copy
