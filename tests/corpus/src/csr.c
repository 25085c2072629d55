/* CSR access: fflags/frm/fcsr with every Zicsr form (csrrw csrrs csrrc csrrwi csrrsi csrrci)
 * on F targets; on bare metal also machine CSRs whose values QEMU and the spec fix:
 * mhartid (0 on the single-hart virt board), mscratch (read/write), mstatus.FS/MIE bit
 * toggles read back through masks. */
#include "common.h"

int main(void) {
#if HAVE_HW_FLOAT
    unsigned long old, v;
    asm volatile("csrrw %0, fcsr, %1" : "=r"(old) : "r"(0x0ful));
    asm volatile("csrr %0, fcsr" : "=r"(v));
    printf("fcsr after csrrw 0x0f: %03lx (old=%03lx)\n", v, old);
    asm volatile("csrrs %0, fflags, %1" : "=r"(old) : "r"(0x10ul));
    asm volatile("csrr %0, fflags" : "=r"(v));
    printf("fflags csrrs 0x10: old=%02lx new=%02lx\n", old, v);
    asm volatile("csrrc %0, fflags, %1" : "=r"(old) : "r"(0x03ul));
    asm volatile("csrr %0, fflags" : "=r"(v));
    printf("fflags csrrc 0x03: old=%02lx new=%02lx\n", old, v);
    asm volatile("csrrwi %0, frm, 3" : "=r"(old));
    asm volatile("csrr %0, frm" : "=r"(v));
    printf("frm csrrwi 3: old=%lx new=%lx\n", old, v);
    asm volatile("csrrsi %0, frm, 4" : "=r"(old));
    asm volatile("csrr %0, frm" : "=r"(v));
    printf("frm csrrsi 4: old=%lx new=%lx\n", old, v);
    asm volatile("csrrci %0, frm, 2" : "=r"(old));
    asm volatile("csrr %0, fcsr" : "=r"(v));
    printf("frm csrrci 2: old=%lx fcsr=%03lx\n", old, v);
    asm volatile("csrwi fcsr, 0\n\tcsrsi fflags, 0x1f\n\tcsrr %0, fcsr" : "=r"(v));
    printf("fcsr after csrsi fflags 0x1f: %03lx\n", v);
    asm volatile("csrw fcsr, %1\n\tcsrr %0, fcsr" : "=r"(v) : "r"(0xfffffffful));
    printf("fcsr write all ones reads: %03lx\n", v);
    asm volatile("csrwi fcsr, 0");
    /* rounding mode via frm affects C arithmetic */
    volatile float a = 1.0f, b = 3.0f;
    float q[4];
    for (int rm = 0; rm < 4; rm++) { asm volatile("csrw frm, %0" : : "r"(rm)); q[rm] = a / b; }
    asm volatile("csrwi frm, 0");
    uint32_t qb[4]; memcpy(qb, q, sizeof q);
    printf("1/3 by frm: %08lx %08lx %08lx %08lx\n", (unsigned long)qb[0], (unsigned long)qb[1], (unsigned long)qb[2],
           (unsigned long)qb[3]);
    asm volatile("csrwi fflags, 0");
#else
    printf("no F extension: fcsr tests skipped\n");
#endif
#ifdef CFG_BARE
    unsigned long hart, scratch, ms, ms2;
    asm volatile("csrr %0, mhartid" : "=r"(hart));
    asm volatile("csrw mscratch, %1\n\tcsrr %0, mscratch" : "=r"(scratch) : "r"(0x5a5a1234ul));
    printf("mhartid=%lu mscratch=%lx\n", hart, scratch);
    asm volatile("csrrs %0, mscratch, %1" : "=r"(scratch) : "r"(0xf0000ul));
    asm volatile("csrr %0, mscratch" : "=r"(ms));
    printf("mscratch csrrs: old=%lx new=%lx\n", scratch, ms);
    asm volatile("csrr %0, mstatus" : "=r"(ms));
    asm volatile("csrsi mstatus, 8\n\tcsrr %0, mstatus\n\tcsrci mstatus, 8" : "=r"(ms2));
    printf("mstatus.MIE toggles: before=%lu set=%lu\n", (ms >> 3) & 1, (ms2 >> 3) & 1);
#if HAVE_HW_FLOAT
    printf("mstatus.FS nonzero=%d\n", ((ms >> 13) & 3) != 0);
#endif
#endif
    return 0;
}
