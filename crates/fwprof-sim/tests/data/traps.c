/* Exceptions and their mcause/mtval/mepc/mstatus, printed for comparison
   with QEMU 7.2 (handler in trap_entry.S). */
#include <stdio.h>

extern void trap_entry(void);
extern volatile unsigned long t_regs[5];

#define TRY(name, ...) do { \
    t_regs[1] = t_regs[2] = t_regs[3] = 0xdead; \
    __asm__ volatile(".option push\n.option norvc\n" \
                     "1: auipc t2, 0\n" __VA_ARGS__ "\n.option pop" \
                     : "=r"(out) : "r"(addr) : "t2", "memory"); \
    unsigned long here; __asm__ volatile("auipc %0, 0" : "=r"(here)); \
    printf("%-12s cause=%lx tval=%lx epc_off=%ld st=%lx out=%lx\n", name, t_regs[1], t_regs[2], \
           (long)(t_regs[3] - (here & ~0xfffUL)) , t_regs[4] & 0x1888, out); \
} while (0)

static unsigned long buf[4];

int main(void) {
    unsigned long out = 0, addr = 0;
    __asm__ volatile("csrw mtvec, %0" :: "r"(trap_entry));
    TRY("unimp", "unimp");
    TRY("c.unimp", ".2byte 0");
    TRY("custom0", ".4byte 0x0000000b");
    TRY("ebreak", "ebreak");
    TRY("c.ebreak", ".option rvc\nc.ebreak");
    TRY("ecall", "ecall");
    addr = 0;
    TRY("load0", "lw %0, 0(%1)");
    addr = 0x10;
    TRY("store10", "sw %0, 0(%1)");
    addr = (unsigned long)&buf[0] + 2;
    TRY("amo-mis", "amoadd.w %0, %0, (%1)");
    TRY("lr-mis", "lr.w %0, (%1)");
    out = 5;
    TRY("sc-mis", "sc.w %0, %0, (%1)");
    TRY("lw-mis", "lw %0, 0(%1)");
    TRY("csr-7ff", "csrr %0, 0x7ff");
    TRY("rm5", ".4byte 0x00005053"); /* fadd.s ft0,ft0,ft0 with rm=5 */
    /* MPIE records MIE (no interrupt source is enabled, so none is taken;
       QEMU's timer interrupt is pending from reset, fwprof has no timer). */
    __asm__ volatile("csrsi mstatus, 8");
    TRY("mie-ecall", "ecall");
    __asm__ volatile("csrci mstatus, 8");
    __asm__ volatile("li t0, 0x6000; csrc mstatus, t0" ::: "t0");
    TRY("fs-off", "fadd.s ft0, ft0, ft0");
    TRY("fs-off-csr", "frcsr %0");
    __asm__ volatile("li t0, 0x2000; csrs mstatus, t0" ::: "t0");
    return 0;
}
