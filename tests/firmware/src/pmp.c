/* pmp: physical memory protection (Privileged ISA 3.7), enforced for U- and
 * S-mode and, through a locked entry, for M-mode.
 *   entry 0  NA4 over ro_word, read-only
 *   entry 1  NAPOT over secret[] (32 bytes), no access
 *   entry 3  TOR [xo_start, xo_end) (entry 2 is its base), execute-only
 *   entry 15 NAPOT over everything, RWX (the lowest-numbered match wins)
 * The same code runs in U-mode and in S-mode: it reads ro_word, writes it,
 * reads secret, calls the execute-only xo_func, reads xo_func's bytes and
 * calls into secret. M counts the access faults (cause and which object
 * mtval names) and skips the faulting instruction. Last, entry 4 locks a
 * read-only word for M-mode too, and an M-mode store to it faults. */
#include "fw.h"

extern void m_trap_entry(void);
extern char xo_start[], xo_end[];
int xo_func(int x);

static volatile uint32_t ro_word __attribute__((aligned(4))) = 7;
static volatile uint32_t secret[8] __attribute__((aligned(32))) = {1, 2, 3, 4, 5, 6, 7, 8};
static volatile uint32_t m_ro_word __attribute__((aligned(4))) = 11;
static uint8_t lower_stack[2048] __attribute__((aligned(16)));

#define MAXF 16
static volatile struct { reg_t cause; const char *what; reg_t mode; } faults[MAXF];
static volatile unsigned nfaults;

static const char *which(reg_t a) {
    if (a == (reg_t)&ro_word) return "ro_word";
    if (a >= (reg_t)secret && a < (reg_t)secret + sizeof secret) return "secret";
    if (a >= (reg_t)xo_start && a < (reg_t)xo_end) return "xo_func";
    if (a == (reg_t)&m_ro_word) return "m_ro_word";
    return "elsewhere";
}

void m_trap(reg_t *frame, int vector) {
    reg_t cause = csr_read(mcause), epc = csr_read(mepc);
    reg_t mode = (csr_read(mstatus) & MSTATUS_MPP) >> 11;
    if (cause == EXC_ECALL_U || cause == EXC_ECALL_S) back_to_m(frame[10]);
    if (nfaults < MAXF) {
        faults[nfaults].cause = cause;
        faults[nfaults].what = which(csr_read(mtval));
        faults[nfaults].mode = mode;
        nfaults++;
    }
    if (cause == EXC_INSN_ACCESS)
        csr_write(mepc, frame[1]); /* return to the caller of the bad call */
    else if (cause == EXC_LOAD_ACCESS || cause == EXC_STORE_ACCESS)
        csr_write(mepc, epc + insn_len(epc));
    else {
        printf("unexpected M trap %lx\n", (unsigned long)cause);
        back_to_m(~(reg_t)0);
    }
}

static void lower_main(void) {
    reg_t v = ro_word;               /* allowed */
    ro_word = 5;                     /* store access fault */
    v += secret[3];                  /* load access fault (the value is whatever the register held) */
    reg_t r = (reg_t)xo_func(4);     /* execute-only: allowed */
    reg_t w;
    __asm__ volatile("lw %0, 0(%1)" : "=r"(w) : "r"(xo_start) : "memory"); /* load access fault */
    v += w;
    ((void (*)(void))secret)();      /* instruction access fault */
    (void)v;
    ecall2(ECALL_DONE, r);
}

static void set_cfg(unsigned i, reg_t cfg) {
#if __riscv_xlen == 64
    unsigned shift = (i % 8) * 8;
    if (i < 8) {
        csr_clear(pmpcfg0, (reg_t)0xff << shift);
        csr_set(pmpcfg0, cfg << shift);
    } else {
        csr_clear(pmpcfg2, (reg_t)0xff << shift);
        csr_set(pmpcfg2, cfg << shift);
    }
#else
    unsigned shift = (i % 4) * 8;
    switch (i / 4) {
    case 0: csr_clear(pmpcfg0, (reg_t)0xff << shift); csr_set(pmpcfg0, cfg << shift); break;
    case 1: csr_clear(pmpcfg1, (reg_t)0xff << shift); csr_set(pmpcfg1, cfg << shift); break;
    case 2: csr_clear(pmpcfg2, (reg_t)0xff << shift); csr_set(pmpcfg2, cfg << shift); break;
    default: csr_clear(pmpcfg3, (reg_t)0xff << shift); csr_set(pmpcfg3, cfg << shift); break;
    }
#endif
}

#define A_TOR (1 << 3)
#define A_NA4 (2 << 3)
#define A_NAPOT (3 << 3)
#define P_R 1
#define P_W 2
#define P_X 4
#define P_L 0x80

int main(void) {
    csr_write(mtvec, (reg_t)m_trap_entry);
    csr_write(pmpaddr0, (reg_t)&ro_word >> 2);
    csr_write(pmpaddr1, ((reg_t)secret >> 2) | 3); /* 32 bytes: 2 trailing ones + 3 */
    csr_write(pmpaddr2, (reg_t)xo_start >> 2);
    csr_write(pmpaddr3, (reg_t)xo_end >> 2);
    csr_write(pmpaddr15, ~(reg_t)0 >> 2);
    set_cfg(0, A_NA4 | P_R);
    set_cfg(1, A_NAPOT);
    set_cfg(3, A_TOR | P_X);
    set_cfg(15, A_NAPOT | P_R | P_W | P_X);
    reg_t ru = drop_to(0, lower_main, lower_stack + sizeof lower_stack);
    unsigned nu = nfaults;
    reg_t rs = drop_to(1, lower_main, lower_stack + sizeof lower_stack);
    unsigned ns = nfaults - nu;
    /* M-mode: a locked read-only entry binds M too. */
    csr_write(pmpaddr4, (reg_t)&m_ro_word >> 2);
    set_cfg(4, P_L | A_NA4 | P_R);
    reg_t before = m_ro_word;
    m_ro_word = 99;
    unsigned nm = nfaults - nu - ns;
    printf("U-mode: xo_func(4) = %lu, %u faults; S-mode: xo_func(4) = %lu, %u faults; M-mode: %u faults, "
           "m_ro_word still %lu\n",
           (unsigned long)ru, nu, (unsigned long)rs, ns, nm, (unsigned long)m_ro_word);
    for (unsigned i = 0; i < nfaults; i++)
        printf("  fault %u: %s-mode, cause %lu, at %s\n", i, mode_name(faults[i].mode),
               (unsigned long)faults[i].cause, faults[i].what);
    int ok = ru == 13 && rs == 13 && nu == 4 && ns == 4 && nm == 1 && before == 11 && m_ro_word == 11;
    return ok ? 0 : 1;
}
