/* measure(out, fn, arg): read mhpmcounter3..10 into out[0..7], call
 * fn(arg), read them again into out[8..15]. Between the two reads of any
 * one counter run exactly 17 instructions besides fn's (8 reads and 8
 * stores of one group, the jalr), 8 of them stores, none a load, a branch
 * or compressed: the caller subtracts that. */
    .option norvc
    .text
    .globl measure
    .type measure, @function
measure:
    addi sp, sp, -16
    sw ra, 12(sp)
    sw s0, 8(sp)
    mv s0, a0
    mv t6, a1
    mv a0, a2
    csrr t0, mhpmcounter3
    sw t0, 0(s0)
    csrr t0, mhpmcounter4
    sw t0, 4(s0)
    csrr t0, mhpmcounter5
    sw t0, 8(s0)
    csrr t0, mhpmcounter6
    sw t0, 12(s0)
    csrr t0, mhpmcounter7
    sw t0, 16(s0)
    csrr t0, mhpmcounter8
    sw t0, 20(s0)
    csrr t0, mhpmcounter9
    sw t0, 24(s0)
    csrr t0, mhpmcounter10
    sw t0, 28(s0)
    jalr ra, 0(t6)
    csrr t0, mhpmcounter3
    sw t0, 32(s0)
    csrr t0, mhpmcounter4
    sw t0, 36(s0)
    csrr t0, mhpmcounter5
    sw t0, 40(s0)
    csrr t0, mhpmcounter6
    sw t0, 44(s0)
    csrr t0, mhpmcounter7
    sw t0, 48(s0)
    csrr t0, mhpmcounter8
    sw t0, 52(s0)
    csrr t0, mhpmcounter9
    sw t0, 56(s0)
    csrr t0, mhpmcounter10
    sw t0, 60(s0)
    lw ra, 12(sp)
    lw s0, 8(sp)
    addi sp, sp, 16
    ret
    .size measure, .-measure

/* spin(n): n iterations of a compressed decrement and a compressed
 * branch: 2n + 1 instructions (the c.jr), all compressed; n conditional
 * branches, n - 1 of them taken. */
    .option rvc
    .globl spin
    .type spin, @function
spin:
    c.addi a0, -1
    c.bnez a0, spin
    c.jr ra
    .size spin, .-spin
