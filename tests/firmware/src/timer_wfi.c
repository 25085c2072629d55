/* timer_wfi: waiting for the machine timer in wfi.
 * Part 1, interrupts on: main sleeps in wfi until the M-mode handler has
 * counted TICKS interrupts; mepc must be the instruction after the wfi.
 * Part 2, mstatus.MIE off but mie.MTIE on: wfi wakes when MTIP becomes
 * pending, no trap is taken, and mtime is read right after waking.
 * Part 3: wfi with the interrupt already pending does not wait.
 * Under QEMU's -icount sleep=off the clock jumps to the deadline during wfi;
 * the printed mtime values check that fwprof's clock does the same. */
#include "fw.h"

#define PERIOD 25
#define TICKS 8

extern void m_trap_entry(void);
extern char after_wfi[];
static volatile unsigned ticks, epc_ok;

void m_trap(reg_t *frame, int vector) {
    reg_t cause = csr_read(mcause);
    if (cause != (MCAUSE_INT | IRQ_M_TIMER)) {
        printf("unexpected mcause %lx\n", (unsigned long)cause);
        timer_off();
        return;
    }
    if (csr_read(mepc) == (reg_t)after_wfi) epc_ok++;
    if (++ticks < TICKS)
        set_mtimecmp(mtime() + PERIOD);
    else
        timer_off();
}

int main(void) {
    csr_write(mtvec, (reg_t)m_trap_entry);
    uint64_t t0 = mtime();
    set_mtimecmp(t0 + PERIOD);
    csr_set(mie, 1ul << IRQ_M_TIMER);
    csr_set(mstatus, MSTATUS_MIE);
    unsigned sleeps = 0;
    while (ticks < TICKS) {
        sleeps++;
        __asm__ volatile("wfi\n.globl after_wfi\nafter_wfi:" ::: "memory");
    }
    csr_clear(mstatus, MSTATUS_MIE);
    uint64_t t1 = mtime();
    printf("part 1: %u interrupts after %u wfi, mepc after the wfi %u times, %lu ticks\n", ticks,
           sleeps, epc_ok, (unsigned long)(t1 - t0));

    /* Part 2: MIE off, wake-up without a trap. */
    unsigned wakes = 0;
    uint64_t lateness = 0;
    for (int i = 0; i < 4; i++) {
        uint64_t deadline = mtime() + 30 + 7 * i;
        set_mtimecmp(deadline);
        __asm__ volatile("wfi" ::: "memory");
        uint64_t now = mtime();
        if (csr_read(mip) & (1ul << IRQ_M_TIMER)) wakes++;
        lateness += now - deadline;
    }
    printf("part 2: %u of 4 wake-ups with MTIP pending, mtime past the deadlines by %lu ticks in all\n",
           wakes, (unsigned long)lateness);

    /* Part 3: the interrupt is already pending (mtimecmp in the past). */
    set_mtimecmp(0);
    uint64_t before = mtime();
    __asm__ volatile("wfi" ::: "memory");
    uint64_t waited = mtime() - before;
    printf("part 3: wfi with MTIP pending waited %lu ticks\n", (unsigned long)waited);
    timer_off();
    return ticks == TICKS && epc_ok == TICKS && wakes == 4 && waited < 2 ? 0 : 1;
}
