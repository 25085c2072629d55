/* Trap entries and mode switches for the firmware trap corpus (see fw.h).
 *
 * TRAP_ENTRY builds a handler entry for M-mode (mscratch/mret) or S-mode
 * (sscratch/sret): while a lower mode runs, xscratch holds the top of this
 * mode's trap stack and is swapped with sp on entry; while this mode runs,
 * xscratch is 0 and sp is kept, so a trap taken inside a handler (a nested
 * interrupt) pushes a new frame below the current one. The frame is 32
 * registers (x0's slot unused, x2's slot holds the interrupted sp); the C
 * handler gets (frame, vector) and may change any saved register. */
#if __riscv_xlen == 64
#define SREG sd
#define LREG ld
#define R 8
#else
#define SREG sw
#define LREG lw
#define R 4
#endif
#define FRAME (32 * R)

    .macro TRAP_ENTRY name, scratch, xret, handler, vector, status, ppmask
    .text
    .globl \name
    .align 2
\name:
    csrrw sp, \scratch, sp
    bnez sp, 1f
    csrrw sp, \scratch, sp
1:  addi sp, sp, -FRAME
    SREG x1, 1*R(sp)
    SREG x3, 3*R(sp)
    SREG x4, 4*R(sp)
    SREG x5, 5*R(sp)
    SREG x6, 6*R(sp)
    SREG x7, 7*R(sp)
    SREG x8, 8*R(sp)
    SREG x9, 9*R(sp)
    SREG x10, 10*R(sp)
    SREG x11, 11*R(sp)
    SREG x12, 12*R(sp)
    SREG x13, 13*R(sp)
    SREG x14, 14*R(sp)
    SREG x15, 15*R(sp)
    SREG x16, 16*R(sp)
    SREG x17, 17*R(sp)
    SREG x18, 18*R(sp)
    SREG x19, 19*R(sp)
    SREG x20, 20*R(sp)
    SREG x21, 21*R(sp)
    SREG x22, 22*R(sp)
    SREG x23, 23*R(sp)
    SREG x24, 24*R(sp)
    SREG x25, 25*R(sp)
    SREG x26, 26*R(sp)
    SREG x27, 27*R(sp)
    SREG x28, 28*R(sp)
    SREG x29, 29*R(sp)
    SREG x30, 30*R(sp)
    SREG x31, 31*R(sp)
    csrrw t0, \scratch, zero
    bnez t0, 2f
    addi t0, sp, FRAME
2:  SREG t0, 2*R(sp)
    mv a0, sp
    li a1, \vector
    call \handler
    /* Back to a lower mode: xscratch = this frame's top, the trap stack top. */
    csrr t0, \status
    li t1, \ppmask
    and t0, t0, t1
    beq t0, t1, 3f
    addi t0, sp, FRAME
    csrw \scratch, t0
3:  LREG x1, 1*R(sp)
    LREG x3, 3*R(sp)
    LREG x4, 4*R(sp)
    LREG x5, 5*R(sp)
    LREG x6, 6*R(sp)
    LREG x7, 7*R(sp)
    LREG x8, 8*R(sp)
    LREG x9, 9*R(sp)
    LREG x10, 10*R(sp)
    LREG x11, 11*R(sp)
    LREG x12, 12*R(sp)
    LREG x13, 13*R(sp)
    LREG x14, 14*R(sp)
    LREG x15, 15*R(sp)
    LREG x16, 16*R(sp)
    LREG x17, 17*R(sp)
    LREG x18, 18*R(sp)
    LREG x19, 19*R(sp)
    LREG x20, 20*R(sp)
    LREG x21, 21*R(sp)
    LREG x22, 22*R(sp)
    LREG x23, 23*R(sp)
    LREG x24, 24*R(sp)
    LREG x25, 25*R(sp)
    LREG x26, 26*R(sp)
    LREG x27, 27*R(sp)
    LREG x28, 28*R(sp)
    LREG x29, 29*R(sp)
    LREG x30, 30*R(sp)
    LREG x31, 31*R(sp)
    LREG x2, 2*R(sp)
    \xret
    .endm

/* M-mode: "still M" when mstatus.MPP == 3; S-mode: when sstatus.SPP == 1. */
#define M_ENTRY(name, handler, vector) TRAP_ENTRY name, mscratch, mret, handler, vector, mstatus, 0x1800
#define S_ENTRY(name, handler, vector) TRAP_ENTRY name, sscratch, sret, handler, vector, sstatus, 0x100

    M_ENTRY(m_trap_entry, m_trap, 0)
    .weak s_trap
    S_ENTRY(s_trap_entry, s_trap, 0)

/* Vectored mtvec (mode 1): exceptions at base, interrupt i at base + 4*i. Each
 * slot reaches its own entry, which passes its slot number to m_vtrap. */
    .weak m_vtrap
    M_ENTRY(m_vec_exc, m_vtrap, 0)
    M_ENTRY(m_vec_msi, m_vtrap, 3)
    M_ENTRY(m_vec_mti, m_vtrap, 7)
    M_ENTRY(m_vec_other, m_vtrap, 99)
    .text
    .globl m_vector_table
    .align 6
    .option push
    .option norvc          /* 4-byte slots */
m_vector_table:
    j m_vec_exc      /* 0: exceptions */
    j m_vec_other    /* 1 */
    j m_vec_other    /* 2 */
    j m_vec_msi      /* 3: machine software */
    j m_vec_other    /* 4 */
    j m_vec_other    /* 5 */
    j m_vec_other    /* 6 */
    j m_vec_mti      /* 7: machine timer */
    j m_vec_other    /* 8 */
    j m_vec_other    /* 9 */
    j m_vec_other    /* 10 */
    j m_vec_other    /* 11 */
    .option pop

/* Mode switches: DROP saves the caller's callee-saved registers, sp and ra in
 * `ctx`, points xscratch at this mode's trap stack and xret's to `entry` in the
 * lower mode with stack `sp`, its interrupts off (xPIE = 0). BACK, called from
 * this mode's trap handler, restores `ctx` and so returns from DROP. */
    .macro SAVE_CTX ctx
    la t0, \ctx
    SREG ra, 0*R(t0)
    SREG sp, 1*R(t0)
    SREG s0, 2*R(t0)
    SREG s1, 3*R(t0)
    SREG s2, 4*R(t0)
    SREG s3, 5*R(t0)
    SREG s4, 6*R(t0)
    SREG s5, 7*R(t0)
    SREG s6, 8*R(t0)
    SREG s7, 9*R(t0)
    SREG s8, 10*R(t0)
    SREG s9, 11*R(t0)
    SREG s10, 12*R(t0)
    SREG s11, 13*R(t0)
    .endm
    .macro RESTORE_CTX ctx
    la t0, \ctx
    LREG ra, 0*R(t0)
    LREG sp, 1*R(t0)
    LREG s0, 2*R(t0)
    LREG s1, 3*R(t0)
    LREG s2, 4*R(t0)
    LREG s3, 5*R(t0)
    LREG s4, 6*R(t0)
    LREG s5, 7*R(t0)
    LREG s6, 8*R(t0)
    LREG s7, 9*R(t0)
    LREG s8, 10*R(t0)
    LREG s9, 11*R(t0)
    LREG s10, 12*R(t0)
    LREG s11, 13*R(t0)
    .endm

/* reg_t drop_to(int mode, void (*entry)(void), void *sp): M -> mode (1 = S, 0 = U) */
    .text
    .globl drop_to
    .align 2
drop_to:
    SAVE_CTX m_ctx
    la t0, m_trap_stack_top
    csrw mscratch, t0
    csrw mepc, a1
    li t0, 0x1880          /* MPP, MPIE */
    csrc mstatus, t0
    slli a0, a0, 11
    csrs mstatus, a0
    mv sp, a2
    mret

/* void back_to_m(reg_t value): from an M-mode trap handler, return from drop_to. */
    .globl back_to_m
    .align 2
back_to_m:
    csrw mscratch, zero
    RESTORE_CTX m_ctx
    ret

/* reg_t s_drop_to_u(void (*entry)(void), void *sp): S -> U */
    .globl s_drop_to_u
    .align 2
s_drop_to_u:
    SAVE_CTX s_ctx
    la t0, s_trap_stack_top
    csrw sscratch, t0
    csrw sepc, a0
    li t0, 0x120           /* SPP, SPIE */
    csrc sstatus, t0
    mv sp, a1
    sret

/* void s_back(reg_t value): from an S-mode trap handler, return from s_drop_to_u. */
    .globl s_back
    .align 2
s_back:
    csrw sscratch, zero
    RESTORE_CTX s_ctx
    ret

    .bss
    .align 4
m_ctx:
    .space 14 * R
    .align 4
m_trap_stack:
    .space 4096
m_trap_stack_top:
    .align 4
s_ctx:
    .space 14 * R
    .align 4
s_trap_stack:
    .space 4096
s_trap_stack_top:
