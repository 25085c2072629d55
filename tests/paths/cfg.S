/* Hand-written functions whose control-flow graphs are known, for
 * crates/fwprof-paths/tests/cfg.rs (offsets in the comments, from each
 * function's start; no compressed instructions). */
    .option norvc
    .text

    .globl straight
    .type straight, @function
straight:                   /* one block */
    addi a0, a0, 1          /* +0 */
    addi a0, a0, 2          /* +4 */
    ret                     /* +8 */
    .size straight, .-straight

    .globl diamond
    .type diamond, @function
diamond:                    /* if (a0 < 0) a0 = -a0; else a0 <<= 1 */
    bgez a0, 1f             /* +0  B0 */
    neg a0, a0              /* +4  B1 */
    j 2f                    /* +8 */
1:  slli a0, a0, 1          /* +12 B2 */
2:  ret                     /* +16 B3 */
    .size diamond, .-diamond

    .globl early_exit
    .type early_exit, @function
early_exit:                 /* while (n) { if (a1 == n) break; n--; } */
    beqz a0, 3f             /* +0  B0 */
1:  beq a1, a0, 3f          /* +4  B1: loop header */
    addi a0, a0, -1         /* +8  B2 */
    bnez a0, 1b             /* +12    back edge to B1 */
3:  ret                     /* +16 B3 */
    .size early_exit, .-early_exit

    .globl nested
    .type nested, @function
nested:                     /* for i < a0: for j < a1: a2++ */
    mv t0, a0               /* +0  B0 */
1:  mv t1, a1               /* +4  B1: outer header */
2:  addi a2, a2, 1          /* +8  B2: inner header, a self loop */
    addi t1, t1, -1         /* +12 */
    bnez t1, 2b             /* +16 */
    addi t0, t0, -1         /* +20 B3 */
    bnez t0, 1b             /* +24 */
    mv a0, a2               /* +28 B4 */
    ret                     /* +32 */
    .size nested, .-nested

    .globl switch3
    .type switch3, @function
switch3:                    /* a jump table: return (10, 20, 30)[a0] */
    la t1, .Ltable          /* +0, +4 */
    slli a0, a0, 2          /* +8 */
    add t1, t1, a0          /* +12 */
    lw t1, 0(t1)            /* +16 */
    jr t1                   /* +20 B0: indirect (jr t0 would be a return) */
.Lcase0:
    li a0, 10               /* +24 B1 */
    ret
.Lcase1:
    li a0, 20               /* +32 B2 */
    ret
.Lcase2:
    li a0, 30               /* +40 B3 */
    ret
    .size switch3, .-switch3

    .globl tail
    .type tail, @function
tail:                       /* a tail call */
    addi a0, a0, 1          /* +0 */
    j straight              /* +4 */
    .size tail, .-tail

    .globl irreducible
    .type irreducible, @function
irreducible:                /* a cycle B1 <-> B2 entered at both */
    beqz a0, 2f             /* +0  B0 */
1:  addi a1, a1, -1         /* +4  B1 */
    beqz a1, 3f             /* +8 */
2:  addi a2, a2, -1         /* +12 B2 */
    bnez a2, 1b             /* +16 */
3:  ret                     /* +20 B3 */
    .size irreducible, .-irreducible

    .globl caller
    .type caller, @function
caller:                     /* a call does not end a block */
    addi sp, sp, -16        /* +0 */
    sw ra, 12(sp)           /* +4 */
    jal ra, straight        /* +8 */
    lw ra, 12(sp)           /* +12 */
    addi sp, sp, 16         /* +16 */
    ret                     /* +20 */
    .size caller, .-caller

    .globl handler
    .type handler, @function
handler:
    csrr t0, mcause         /* +0 */
    mret                    /* +4 */
    .size handler, .-handler

    .section .rodata
    .align 2
.Ltable:
    .word .Lcase0, .Lcase1, .Lcase2
