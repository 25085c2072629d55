/* Trap handler for traps.c: records mcause, mtval, mepc, mstatus in t_regs
   and returns past the faulting instruction (length from its first parcel). */
#if __riscv_xlen == 64
#define SX sd
#define LX ld
#define SZ 8
#else
#define SX sw
#define LX lw
#define SZ 4
#endif
    .text
    .globl trap_entry
    .align 4
trap_entry:
    csrw mscratch, t0
    la t0, t_regs
    SX t1, 0(t0)
    csrr t1, mcause
    SX t1, 1*SZ(t0)
    csrr t1, mtval
    SX t1, 2*SZ(t0)
    csrr t1, mepc
    SX t1, 3*SZ(t0)
    csrr t1, mstatus
    SX t1, 4*SZ(t0)
    csrr t1, mepc
    lhu t0, 0(t1)
    andi t0, t0, 3
    addi t1, t1, 2
    xori t0, t0, 3
    bnez t0, 1f
    addi t1, t1, 2
1:  csrw mepc, t1
    la t0, t_regs
    LX t1, 0(t0)
    csrr t0, mscratch
    mret
    .bss
    .globl t_regs
    .align 3
t_regs: .space 5*SZ
