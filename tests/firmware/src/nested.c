/* nested: a machine timer handler that re-enables mstatus.MIE and raises a
 * software interrupt, which is taken inside it (a nested trap), while main's
 * work() spins. The handler saves mepc and mstatus before re-enabling and
 * restores them after, as a real nesting handler must. Checks: trap depth,
 * the nested interrupt's mepc inside the timer handler, counts per cause, and
 * main->work called exactly once. */
#include "fw.h"

#define PERIOD 60
#define TICKS 10

extern void m_trap_entry(void);
static volatile unsigned depth, max_depth, timer_irqs, soft_irqs, soft_nested;
static volatile int done;

__attribute__((noinline)) static void on_soft(void) {
    *CLINT_MSIP = 0;
    soft_irqs++;
    if (depth == 2) soft_nested++;
}

__attribute__((noinline)) static void on_timer(void) {
    timer_irqs++;
    if (timer_irqs < TICKS)
        set_mtimecmp(mtime() + PERIOD);
    else {
        timer_off();
        done = 1;
    }
    /* Allow nesting: save what a nested trap overwrites. */
    reg_t epc = csr_read(mepc), status = csr_read(mstatus);
    *CLINT_MSIP = 1; /* pending, not yet enabled: MIE is 0 in the handler */
    csr_set(mstatus, MSTATUS_MIE); /* the software interrupt is taken here */
    for (volatile int i = 0; i < 3; i++) {}
    csr_clear(mstatus, MSTATUS_MIE);
    csr_write(mepc, epc);
    csr_write(mstatus, status);
}

void m_trap(reg_t *frame, int vector) {
    reg_t cause = csr_read(mcause);
    if (++depth > max_depth) max_depth = depth;
    if (cause == (MCAUSE_INT | IRQ_M_TIMER))
        on_timer();
    else if (cause == (MCAUSE_INT | IRQ_M_SOFT))
        on_soft();
    else {
        printf("unexpected mcause %lx\n", (unsigned long)cause);
        timer_off();
        done = 1;
    }
    depth--;
}

__attribute__((noinline)) uint32_t step(uint32_t x) { return x * 1103515245u + 12345u; }

__attribute__((noinline)) uint32_t work(void) {
    uint32_t x = 1, n = 0;
    while (!done) {
        x = step(x);
        n++;
    }
    return x ^ n;
}

int main(void) {
    csr_write(mtvec, (reg_t)m_trap_entry);
    set_mtimecmp(mtime() + PERIOD);
    csr_set(mie, (1ul << IRQ_M_TIMER) | (1ul << IRQ_M_SOFT));
    csr_set(mstatus, MSTATUS_MIE);
    uint32_t r = work();
    csr_clear(mstatus, MSTATUS_MIE);
    printf("nested: %u timer, %u software interrupts (%u nested in the timer handler), max depth %u, "
           "work %08lx\n",
           timer_irqs, soft_irqs, soft_nested, max_depth, (unsigned long)r);
    return timer_irqs == TICKS && soft_nested == TICKS && max_depth == 2 ? 0 : 1;
}
