/* timer_spin: machine timer interrupts while the program spins.
 * main calls work() exactly once; work() loops (calling mix()) until the
 * M-mode timer handler has counted TICKS interrupts, each re-arming mtimecmp
 * PERIOD ticks after the mtime it reads. Checks: interrupts taken in the middle
 * of ordinary code, mepc/mcause, the mtimecmp deadline arithmetic (the loop
 * count printed depends on the exact instruction each interrupt hits), and a
 * call graph where main->work has exactly one call. */
#include "fw.h"

#define PERIOD 40 /* mtime ticks (100 ns each) */
#define TICKS 16

extern void m_trap_entry(void);
static volatile unsigned ticks, late;
static volatile uint32_t in_work;

void m_trap(reg_t *frame, int vector) {
    reg_t cause = csr_read(mcause);
    if (cause != (MCAUSE_INT | IRQ_M_TIMER)) {
        printf("unexpected mcause %lx\n", (unsigned long)cause);
        timer_off();
        return;
    }
    uint64_t now = mtime();
    if (in_work) late += 1;
    if (++ticks < TICKS)
        set_mtimecmp(now + PERIOD);
    else
        timer_off();
}

__attribute__((noinline)) uint32_t mix(uint32_t h, uint32_t i) { return (h ^ i) * 16777619u; }

__attribute__((noinline)) uint32_t work(uint32_t *loops) {
    uint32_t h = 2166136261u, i = 0;
    in_work = 1;
    while (ticks < TICKS) h = mix(h, i++);
    in_work = 0;
    *loops = i;
    return h;
}

int main(void) {
    csr_write(mtvec, (reg_t)m_trap_entry);
    set_mtimecmp(mtime() + PERIOD);
    csr_set(mie, 1ul << IRQ_M_TIMER);
    csr_set(mstatus, MSTATUS_MIE);
    uint32_t loops;
    uint32_t h = work(&loops);
    csr_clear(mstatus, MSTATUS_MIE);
    printf("timer_spin: %u timer interrupts (%u inside work), work looped %lu times, hash %08lx\n",
           ticks, late, (unsigned long)loops, (unsigned long)h);
    return ticks == TICKS && late == TICKS ? 0 : 1;
}
