/* deleg: delegation to S-mode (medeleg/mideleg, stvec, sret).
 * M delegates the supervisor software and timer interrupts and illegal
 * instructions, then drops to an S-mode "kernel" that:
 *   1. raises its own software interrupt (csrs sip.SSIP): taken right after;
 *   2. executes an M-only CSR read: illegal instruction, handled in S;
 *   3. runs a timer through M-mode (SBI-style): an ecall asks M to arm
 *      mtimecmp; M's timer handler forwards it by setting mip.STIP, which S
 *      takes as its timer interrupt once M returns;
 *   4. uses Sstc's stimecmp directly when menvcfg.STCE can be set (a second
 *      run of the kernel, after M has set STCE: 1 and 2 again, then 4).
 * Then S reports back with an ecall and M prints the counts. */
#include "fw.h"

#define CSR_STIMECMP 0x14d
#define CSR_STIMECMPH 0x15d
#define ROUNDS 4
#define PERIOD 30

extern void m_trap_entry(void), s_trap_entry(void);
extern char after_ssip[];
static uint8_t s_stack[4096] __attribute__((aligned(16)));
static volatile unsigned s_soft, s_illegal, s_timer_fwd, s_timer_sstc, m_timer, m_set_timer, sstc;
static volatile reg_t ssip_epc, s_bad;
static volatile int sstc_mode;

void m_trap(reg_t *frame, int vector) {
    reg_t cause = csr_read(mcause);
    if (cause == (MCAUSE_INT | IRQ_M_TIMER)) { /* forward to S */
        m_timer++;
        csr_clear(mie, 1ul << IRQ_M_TIMER);
        csr_set(mip, 1ul << IRQ_S_TIMER);
        return;
    }
    if (cause == EXC_ECALL_S) {
        if (frame[17] == ECALL_DONE) back_to_m(frame[10]);
        /* a7 = 0: set timer to a0 (all ones: off), as SBI's legacy set_timer */
        m_set_timer++;
        csr_clear(mip, 1ul << IRQ_S_TIMER);
        if (frame[10] == ~(reg_t)0) {
            timer_off();
        } else {
            set_mtimecmp(frame[10]);
            csr_set(mie, 1ul << IRQ_M_TIMER);
        }
        csr_write(mepc, csr_read(mepc) + 4);
        return;
    }
    printf("unexpected M trap %lx at %lx\n", (unsigned long)cause, (unsigned long)csr_read(mepc));
    back_to_m(~(reg_t)0);
}

static inline uint64_t s_time(void) {
#if __riscv_xlen == 64
    return csr_read(time);
#else
    uint32_t hi, lo;
    do {
        hi = csr_read(timeh);
        lo = csr_read(time);
    } while (hi != csr_read(timeh));
    return ((uint64_t)hi << 32) | lo;
#endif
}

static inline void s_set_stimecmp(uint64_t t) {
#if __riscv_xlen == 64
    __asm__ volatile("csrw 0x14d, %0" ::"r"(t));
#else
    __asm__ volatile("csrw 0x14d, %0" ::"r"(~0ul));
    __asm__ volatile("csrw 0x15d, %0" ::"r"((reg_t)(t >> 32)));
    __asm__ volatile("csrw 0x14d, %0" ::"r"((reg_t)t));
#endif
}

void s_trap(reg_t *frame, int vector) {
    reg_t cause = csr_read(scause);
    if (cause == (MCAUSE_INT | IRQ_S_SOFT)) {
        s_soft++;
        ssip_epc = csr_read(sepc);
        csr_clear(sip, 1ul << IRQ_S_SOFT);
    } else if (cause == EXC_ILLEGAL) {
        s_illegal++;
        csr_write(sepc, csr_read(sepc) + insn_len(csr_read(sepc)));
    } else if (cause == (MCAUSE_INT | IRQ_S_TIMER)) {
        if (sstc_mode) {
            s_timer_sstc++;
            s_set_stimecmp(~0ull);
        } else {
            s_timer_fwd++;
            ecall2(0, ~(reg_t)0); /* M clears STIP */
        }
    } else {
        s_bad = cause;
        ecall2(ECALL_DONE, 1);
    }
}

static void s_main(void) {
    csr_write(stvec, (reg_t)s_trap_entry);
    csr_write(sscratch, 0);
    csr_set(sie, (1ul << IRQ_S_SOFT) | (1ul << IRQ_S_TIMER));
    csr_set(sstatus, MSTATUS_SIE);
    /* 1 */
    __asm__ volatile("csrs sip, %0\n.globl after_ssip\nafter_ssip:" ::"r"(1ul << IRQ_S_SOFT) : "memory");
    /* 2 */
    reg_t v;
    __asm__ volatile("csrr %0, mstatus" : "=r"(v)::"memory");
    /* 3 (first run; with STCE set, mip.STIP is no longer writable by M) */
    for (unsigned i = 0; i < ROUNDS && !sstc; i++) {
        unsigned before = s_timer_fwd;
        ecall2(0, s_time() + PERIOD);
        while (s_timer_fwd == before) {}
    }
    /* 4 */
    if (sstc) {
        sstc_mode = 1;
        for (unsigned i = 0; i < ROUNDS; i++) {
            unsigned before = s_timer_sstc;
            s_set_stimecmp(s_time() + PERIOD);
            while (s_timer_sstc == before) {}
        }
    }
    ecall2(ECALL_DONE, 0);
}

int main(void) {
    csr_write(mtvec, (reg_t)m_trap_entry);
    timer_off();
    pmp_allow_all();
    csr_write(mideleg, (1ul << IRQ_S_SOFT) | (1ul << IRQ_S_TIMER));
    csr_write(medeleg, 1ul << EXC_ILLEGAL);
    csr_write(mcounteren, 2); /* TM: S may read time (and use stimecmp) */
    /* QEMU 7.2's default CPU has H: its mideleg also reads VSSIP, VSTIP, VSEIP and
     * SGEIP as one. Only the S bits are the program's business. */
    reg_t mideleg = csr_read(mideleg) & 0x222;
    reg_t r = drop_to(1, s_main, s_stack + sizeof s_stack);
    /* Sstc: menvcfg.STCE is bit 63 (menvcfgh bit 31 on RV32). */
#if __riscv_xlen == 64
    csr_set(0x30a, 1ul << 63);
    sstc = (csr_read(0x30a) >> 63) & 1;
    if (sstc) __asm__ volatile("csrw 0x14d, %0" ::"r"(~0ul)); /* stimecmp: no interrupt yet */
#else
    csr_set(0x31a, 1ul << 31);
    sstc = (csr_read(0x31a) >> 31) & 1;
    if (sstc) {
        __asm__ volatile("csrw 0x14d, %0" ::"r"(~0ul));
        __asm__ volatile("csrw 0x15d, %0" ::"r"(~0ul));
    }
#endif
    reg_t r2 = drop_to(1, s_main, s_stack + sizeof s_stack);
    printf("mideleg reads %lx; S-mode runs returned %lu %lu\n", (unsigned long)mideleg, (unsigned long)r,
           (unsigned long)r2);
    printf("S software interrupts %u (taken right after csrs sip: %s)\n", s_soft,
           ssip_epc == (reg_t)after_ssip ? "yes" : "no");
    printf("illegal instructions handled in S: %u\n", s_illegal);
    printf("timer through M: %u set_timer calls, %u M timer interrupts, %u S timer interrupts\n",
           m_set_timer, m_timer, s_timer_fwd);
    printf("Sstc: STCE %s, %u S timer interrupts from stimecmp\n", sstc ? "set" : "not writable",
           s_timer_sstc);
    printf("unexpected S traps: %lu\n", (unsigned long)s_bad);
    int ok = r == 0 && r2 == 0 && s_soft == 2 && s_illegal == 2 && s_timer_fwd == ROUNDS &&
             m_timer == ROUNDS && (!sstc || s_timer_sstc == ROUNDS) && !s_bad;
    return ok ? 0 : 1;
}
