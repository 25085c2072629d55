    .globl _start
_start:
    li a0, 1
    la a1, msg
    li a2, 6
    li a7, 64          # write
    ecall
    li t0, 0
    li a0, 0
1:  addi a0, a0, 3     # a0 = 3 * 10 = 30
    addi t0, t0, 1
    li t1, 10
    bne t0, t1, 1b
    li a7, 94          # exit_group
    ecall
    .data
msg: .ascii "hello\n"
