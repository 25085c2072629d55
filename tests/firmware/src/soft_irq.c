/* soft_irq: the CLINT's machine software interrupt (msip at 0x2000000).
 * Checks exactly where QEMU takes it: right after the store to msip when
 * enabled; right after the csrs that sets mstatus.MIE or mie.MSIE when it was
 * already pending; not at all while disabled. Then the order of MSI and MTI
 * pending together, and wfi returning at once when MSIP is pending. */
#include "fw.h"

extern void m_trap_entry(void);
extern char after_store[], after_mie[], after_msie[];
static volatile unsigned count;
static volatile reg_t last_epc;
static volatile reg_t order[4];
static volatile unsigned norder;

void m_trap(reg_t *frame, int vector) {
    reg_t cause = csr_read(mcause);
    last_epc = csr_read(mepc);
    if (norder < 4) order[norder++] = cause & ~MCAUSE_INT;
    if (cause == (MCAUSE_INT | IRQ_M_SOFT)) {
        *CLINT_MSIP = 0;
        count++;
    } else if (cause == (MCAUSE_INT | IRQ_M_TIMER)) {
        timer_off();
        count++;
    } else {
        printf("unexpected mcause %lx\n", (unsigned long)cause);
        csr_clear(mie, ~(reg_t)0);
    }
}

static const char *at(reg_t epc, const char *label) {
    return epc == (reg_t)label ? "right after it" : "elsewhere";
}

int main(void) {
    int ok = 1;
    csr_write(mtvec, (reg_t)m_trap_entry);
    timer_off();
    csr_set(mie, 1ul << IRQ_M_SOFT);
    csr_set(mstatus, MSTATUS_MIE);

    /* 1: enabled, the store raises it. */
    __asm__ volatile("sw %0, 0(%1)\n.globl after_store\nafter_store:" ::"r"(1), "r"(CLINT_MSIP) : "memory");
    printf("store to msip: %u interrupt, taken %s\n", count, at(last_epc, after_store));
    ok &= count == 1 && last_epc == (reg_t)after_store;

    /* 2: pending while MIE is off, taken when csrs sets MIE. */
    csr_clear(mstatus, MSTATUS_MIE);
    *CLINT_MSIP = 1;
    unsigned before = count;
    for (volatile int i = 0; i < 3; i++) {}
    printf("while MIE=0: %u interrupts, msip reads %lu\n", count - before, (unsigned long)*CLINT_MSIP);
    ok &= count == before;
    __asm__ volatile("csrsi mstatus, 8\n.globl after_mie\nafter_mie:" ::: "memory");
    printf("csrsi mstatus.MIE: taken %s\n", at(last_epc, after_mie));
    ok &= count == before + 1 && last_epc == (reg_t)after_mie;

    /* 3: pending while MSIE is off, taken when csrs sets mie.MSIE. */
    csr_clear(mie, 1ul << IRQ_M_SOFT);
    *CLINT_MSIP = 1;
    before = count;
    __asm__ volatile("csrs mie, %0\n.globl after_msie\nafter_msie:" ::"r"(1ul << IRQ_M_SOFT) : "memory");
    printf("csrs mie.MSIE: taken %s\n", at(last_epc, after_msie));
    ok &= count == before + 1 && last_epc == (reg_t)after_msie;

    /* 4: MSI and MTI pending together: the order they are taken in. */
    csr_clear(mstatus, MSTATUS_MIE);
    csr_set(mie, 1ul << IRQ_M_TIMER);
    *CLINT_MSIP = 1;
    set_mtimecmp(0);
    norder = 0;
    csr_set(mstatus, MSTATUS_MIE);
    csr_clear(mstatus, MSTATUS_MIE);
    printf("MSI and MTI pending: taken as causes %lu then %lu\n", (unsigned long)order[0],
           (unsigned long)order[1]);
    ok &= norder == 2 && order[0] == IRQ_M_SOFT && order[1] == IRQ_M_TIMER;

    /* 5: wfi with MSIP pending (MIE off) falls through. */
    *CLINT_MSIP = 1;
    __asm__ volatile("wfi" ::: "memory");
    printf("wfi with MSIP pending: mip.MSIP %lu\n", (unsigned long)((csr_read(mip) >> IRQ_M_SOFT) & 1));
    *CLINT_MSIP = 0;
    printf("soft_irq: %u interrupts\n", count);
    return ok ? 0 : 1;
}
