/* Defaults shared by the firmware trap corpus: trap handlers a program does not
 * define end the run with a message, so an unexpected trap is never silent. */
#include <stdlib.h>
#include "fw.h"

extern void m_trap_entry(void);

void __attribute__((weak)) m_trap(reg_t *frame, int vector) {
    (void)frame;
    (void)vector;
    csr_write(mtvec, 0);
    printf("unexpected M-mode trap: mcause %lx mepc %lx mtval %lx\n", (unsigned long)csr_read(mcause),
           (unsigned long)csr_read(mepc), (unsigned long)csr_read(mtval));
    exit(90);
}

void __attribute__((weak)) m_vtrap(reg_t *frame, int vector) { m_trap(frame, vector); }

void __attribute__((weak)) s_trap(reg_t *frame, int vector) {
    (void)frame;
    (void)vector;
    /* S-mode cannot print (semihosting is M-mode only here): hand over to M. */
    __asm__ volatile("li a7, 0x5f; ecall" ::: "a7", "memory");
}

/* Length of the instruction at `pc` (2 for a compressed one, else 4); `pc` must be
 * readable by the current mode. */
unsigned insn_len(reg_t pc) { return (*(volatile uint16_t *)pc & 3) == 3 ? 4 : 2; }
