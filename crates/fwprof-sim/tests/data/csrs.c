/* CSR reset values and write masks, printed for comparison with QEMU 7.2. */
#include <stdio.h>
#define R(name) ({ unsigned long v; __asm__ volatile("csrr %0, " #name : "=r"(v)); v; })
#define W(name, val) __asm__ volatile("csrw " #name ", %0" :: "r"((unsigned long)(val)))
#define P(name) printf(#name "=%lx\n", R(name))
#define WR(name, val) do { unsigned long old = R(name); W(name, val); printf(#name " w%lx -> %lx\n", (unsigned long)(val), R(name)); W(name, old); } while (0)
int main(void) {
    /* Not printed (differ by design, see csr.rs): marchid/mimpid (QEMU's
       version), mip (QEMU's MTIP), mstatus after an all-ones write on RV64. */
    P(mstatus); P(misa); P(mie); P(medeleg); P(mideleg); P(mcounteren); P(mhartid);
    P(mvendorid); P(fcsr); P(mscratch); P(mcause); P(mtval); P(mepc);
    P(pmpcfg0); P(pmpaddr0); P(mcountinhibit); P(mhpmcounter3); P(mhpmevent3);
    if (sizeof(long) == 4) WR(mstatus, -1L);
    WR(mstatus, 0x1800 | 0x6000 | 0x88);
    WR(mtvec, 0x80000003UL); WR(mtvec, 0x80000101UL);
    WR(mie, -1L); WR(medeleg, -1L); WR(mideleg, -1L); WR(mcounteren, -1L);
    WR(mepc, 0x80000003UL); WR(mcause, -1L); WR(mtval, -1L); WR(mscratch, -1L);
    WR(mcountinhibit, -1L); WR(misa, 0);
    WR(pmpcfg0, 0x1f); WR(pmpaddr0, -1L);
    WR(fcsr, -1L); WR(frm, -1L); WR(fflags, -1L);
    /* Counters: instret/cycle/time differ by exactly the instructions between reads. */
    unsigned long a = R(instret), b = R(instret), c = R(cycle), d = R(cycle);
    printf("dinstret=%lu dcycle=%lu\n", b - a, d - c);
    return 0;
}
