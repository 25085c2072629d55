/* The two U-mode programs of paging.c. Each occupies its own page and runs at
 * virtual address 0x400000 in its own address space; both use only
 * pc-relative code. System calls: a7 = 1 report(a0), a7 = 2 exit(a0). */
#if __riscv_xlen == 64
#define SREG sd
#define LREG ld
#else
#define SREG sw
#define LREG lw
#endif
    .section .text.user_a, "ax"
    .balign 4096
    .globl user_a
user_a:                       /* sum 1..100, demand pages by store and load */
    li s0, 0
    li t0, 1
    li t1, 101
1:  add s0, s0, t0
    addi t0, t0, 1
    bne t0, t1, 1b
    li t2, 0x500000
    SREG s0, 0(t2)            /* store page fault: mapped on demand */
    LREG a0, 0(t2)
    li a7, 1
    ecall                     /* report 5050 */
    li t2, 0x501008
    SREG s0, 0(t2)            /* a second demand page */
    li t3, 0x600000
    LREG a0, 0(t3)            /* load page fault: a zero page */
    li a7, 1
    ecall                     /* report 0 */
    addi sp, sp, -16
    SREG s0, 0(sp)
    LREG a0, 0(sp)
    addi sp, sp, 16
    li a7, 1
    ecall                     /* report 5050 again, through the stack */
    li a0, 0
    li a7, 2
    ecall                     /* exit(0) */
    .balign 4096

    .section .text.user_b, "ax"
    .balign 4096
    .globl user_b
user_b:                       /* 10!, then a page of its own, then a bad jump */
    li a0, 1
    li t0, 10
1:  mul a0, a0, t0
    addi t0, t0, -1
    bnez t0, 1b
    li a7, 1
    ecall                     /* report 3628800 */
    li t2, 0x500000
    LREG a0, 0(t2)            /* not user_a's page: a fresh zero page */
    li a7, 1
    ecall                     /* report 0 */
    li t0, 0x700000
    jalr t0                   /* instruction page fault: the kernel kills it */
    li a0, 1
    li a7, 2
    ecall
    .balign 4096
