/* vectored: mtvec in vectored mode (MODE = 1). Exceptions go to the base,
 * interrupt i to base + 4*i (fw_trap.S m_vector_table: each slot has its own
 * entry, which passes the slot number). Checks the slot reached for an ecall
 * from M, an illegal instruction, a software and a timer interrupt, and that
 * mtvec reads back with its mode bits. */
#include "fw.h"

extern char m_vector_table[];
static volatile unsigned seen[4];
static volatile int bad;

void m_vtrap(reg_t *frame, int vector) {
    reg_t cause = csr_read(mcause);
    int irq = (cause & MCAUSE_INT) != 0;
    reg_t code = cause & ~MCAUSE_INT;
    if (!irq && vector == 0 && code == EXC_ECALL_M) {
        seen[0]++;
        csr_write(mepc, csr_read(mepc) + 4);
    } else if (!irq && vector == 0 && code == EXC_ILLEGAL) {
        seen[1]++;
        csr_write(mepc, csr_read(mepc) + insn_len(csr_read(mepc)));
    } else if (irq && vector == 3 && code == IRQ_M_SOFT) {
        seen[2]++;
        *CLINT_MSIP = 0;
    } else if (irq && vector == 7 && code == IRQ_M_TIMER) {
        seen[3]++;
        timer_off();
    } else {
        bad++;
        csr_write(mepc, csr_read(mepc) + 4);
    }
}

int main(void) {
    timer_off();
    csr_write(mtvec, (reg_t)m_vector_table | 1);
    reg_t tvec = csr_read(mtvec);
    printf("mtvec mode bits read back: %lu\n", (unsigned long)(tvec & 3));
    __asm__ volatile("ecall" ::: "memory");
    __asm__ volatile(".4byte 0x0000000b" ::: "memory"); /* custom-0: illegal */
    csr_set(mie, (1ul << IRQ_M_SOFT) | (1ul << IRQ_M_TIMER));
    csr_set(mstatus, MSTATUS_MIE);
    *CLINT_MSIP = 1;
    set_mtimecmp(mtime() + 20);
    while (!seen[3]) {}
    csr_clear(mstatus, MSTATUS_MIE);
    printf("vectored: ecall at base %u, illegal at base %u, software at base+12 %u, "
           "timer at base+28 %u, wrong slot %u\n",
           seen[0], seen[1], seen[2], seen[3], bad);
    return (tvec & 3) == 1 && seen[0] == 1 && seen[1] == 1 && seen[2] == 1 && seen[3] == 1 && !bad ? 0 : 1;
}
