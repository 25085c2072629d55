/* The M-mode trap handler of sampler.c. mhpmcounter3 counts user-mode
 * instructions only (mhpmevent3.MINH): nothing here is counted. A local
 * counter-overflow interrupt (mcause = interrupt 13) records mepc, clears
 * the counter's OF bit and mip.LCOFIP, and re-arms the counter at
 * -PERIOD; an ecall from U-mode (mcause 8) ends the run through C. */
    .text
    .globl trap_entry
    .align 4
trap_entry:
    csrrw sp, mscratch, sp      /* the handler's own stack */
    sd t0, 0(sp)
    sd t1, 8(sp)
    sd t2, 16(sp)
    csrr t0, mcause
    bgez t0, not_interrupt
    slli t0, t0, 1
    srli t0, t0, 1
    li t1, 13
    bne t0, t1, not_interrupt
    /* samples[n++] = mepc (n < MAX_SAMPLES) */
    la t0, nsamples
    ld t1, 0(t0)
    li t2, 8192
    bgeu t1, t2, full
    addi t2, t1, 1
    sd t2, 0(t0)
    la t0, samples
    slli t1, t1, 3
    add t0, t0, t1
    csrr t1, mepc
    sd t1, 0(t0)
full:
    li t0, -1
    slli t0, t0, 63
    csrc mhpmevent3, t0         /* OF = 0 */
    la t0, period
    ld t0, 0(t0)
    neg t0, t0
    csrw mhpmcounter3, t0       /* -PERIOD */
    li t0, 1 << 13
    csrc mip, t0                /* LCOFIP = 0 */
    ld t0, 0(sp)
    ld t1, 8(sp)
    ld t2, 16(sp)
    csrrw sp, mscratch, sp
    mret
not_interrupt:
    csrrw sp, mscratch, sp
    call trap_exit              /* does not return */
