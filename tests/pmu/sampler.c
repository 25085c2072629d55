/* A sampling profiler written as guest firmware, as a kernel samples with
 * counter-overflow interrupts (Linux perf on RISC-V with Sscofpmf):
 * mhpmcounter3 counts user-mode instructions (mhpmevent3 = MINH | 2: the
 * M-mode handler is not counted), starts at -PERIOD, and each overflow
 * interrupt (LCOFI) records the interrupted pc (mepc). The user-mode
 * workload runs, then the pcs are printed, one "sample PC" line each.
 * tests/pmu compares them with `fwprof record --method sample --period
 * PERIOD --count-in U` of the same run. Needs a core with Sscofpmf
 * (--core generic). */
#include <stdio.h>
#include <stdlib.h>

#define CSRW(csr, v) __asm__ volatile("csrw " #csr ", %0" ::"r"((unsigned long)(v)))
#define CSRR(csr) ({ unsigned long v_; __asm__ volatile("csrr %0, " #csr : "=r"(v_)); v_; })

void trap_entry(void);

unsigned long period = 997;
unsigned long nsamples;
unsigned long samples[8192];
static unsigned char trap_stack[4096] __attribute__((aligned(16)));
static unsigned char user_stack[16384] __attribute__((aligned(16)));

volatile unsigned table[512];

__attribute__((noinline)) unsigned mix(unsigned x) {
    x ^= x >> 13;
    x *= 0x5bd1e995u;
    return x ^ (x >> 15);
}

__attribute__((noinline)) unsigned scan(int n) {
    unsigned s = 0;
    for (int i = 0; i < n; i++)
        s += table[i & 511];
    return s;
}

__attribute__((noinline)) unsigned hot(int n) {
    unsigned s = 1;
    for (int i = 0; i < n; i++)
        s = mix(s + (unsigned)i);
    return s;
}

/* User mode: some work in three functions, then ecall. */
__attribute__((noinline)) void user_main(void) {
    unsigned s = 0;
    for (int r = 0; r < 20; r++) {
        s += hot(2000);
        s += scan(3000);
    }
    table[0] = s;
    __asm__ volatile("ecall");
    for (;;) {
    }
}

void trap_exit(void) {
    unsigned long cause = CSRR(mcause);
    CSRW(mcountinhibit, 1u << 3);
    if (cause != 8) {
        printf("unexpected trap: mcause=%lx mepc=%lx\n", cause, CSRR(mepc));
        exit(1);
    }
    printf("overflows=%lu period=%lu scountovf=%lx\n", nsamples, period, CSRR(scountovf));
    for (unsigned long i = 0; i < nsamples && i < 8192; i++)
        printf("sample %lx\n", samples[i]);
    exit(0);
}

int main(void) {
    for (int i = 0; i < 512; i++)
        table[i] = (unsigned)i * 2654435761u;
    /* PMP: user mode may access everything. */
    CSRW(pmpaddr0, -1L);
    CSRW(pmpcfg0, 0x1f);
    CSRW(mscratch, trap_stack + sizeof trap_stack);
    CSRW(mtvec, trap_entry);
    /* Count U-mode instructions only, from -PERIOD. */
    CSRW(mhpmevent3, (1UL << 62) | 0x02);
    CSRW(mhpmcounter3, -period);
    CSRW(mie, 1u << 13);
    /* mret to user_main in U-mode on its own stack. */
    unsigned long mstatus = CSRR(mstatus);
    mstatus &= ~(3UL << 11); /* MPP = U */
    CSRW(mstatus, mstatus);
    CSRW(mepc, user_main);
    __asm__ volatile("mv sp, %0\n\tmret" ::"r"(user_stack + sizeof user_stack));
    return 0;
}
