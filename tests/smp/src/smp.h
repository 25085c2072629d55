/* Shared definitions for the multi-hart corpus (tests/smp).
 *
 * No semihosting, no libc: every program links src/crt.S (starts HARTS
 * harts, each on its own stack, and calls main(hartid) on each), src/smp.c
 * (polled UART output, the test device, CLINT software interrupts, the
 * finish barrier, a default trap handler) and src/smp.ld. HARTS is given at
 * compile time (build.sh: -DHARTS=2 or -DHARTS=4); harts with mhartid >=
 * HARTS park in wfi with mie = 0 and never run main.
 *
 * Devices (QEMU 7.2 hw/riscv/virt.c memory map, hw/intc/riscv_aclint.c):
 *   CLINT          0x02000000  msip[h] at +4*h (32-bit, bit 0 drives mip.MSIP
 *                               of hart h), mtimecmp[h] at +0x4000+8*h,
 *                               mtime at +0xbff8 (10 MHz)
 *   16550A UART    0x10000000  (THR +0, LSR +5)
 *   SiFive test    0x00100000  (32-bit write: 0x5555 pass, (code<<16)|0x3333
 *                               fail with status code)
 * Output goes byte for byte to the UART: no "\n" -> "\r\n" translation.
 * Only hart 0 prints (after the other harts have finished), so the output
 * does not depend on how the harts interleave. */
#ifndef SMP_H
#define SMP_H
#include <stdint.h>
#include <stddef.h>

#ifndef HARTS
#error "build with -DHARTS=N (build.sh)"
#endif

typedef uintptr_t reg_t;

#define UART_BASE 0x10000000ul
#define UART_THR 0
#define UART_LSR 5
#define UART_LSR_THRE 0x20 /* transmit holding register empty */

#define TEST_BASE 0x100000ul
#define TEST_FAIL 0x3333u
#define TEST_PASS 0x5555u

#define CLINT_BASE 0x2000000ul
#define CLINT_MSIP(h) (CLINT_BASE + 4ul * (h))
#define CLINT_MTIME (CLINT_BASE + 0xbff8ul)

#define csr_read(csr) ({ reg_t v_; __asm__ volatile("csrr %0, " #csr : "=r"(v_)); v_; })
#define csr_write(csr, v) __asm__ volatile("csrw " #csr ", %0" ::"r"((reg_t)(v)) : "memory")
#define csr_set(csr, v) __asm__ volatile("csrs " #csr ", %0" ::"r"((reg_t)(v)) : "memory")
#define csr_clear(csr, v) __asm__ volatile("csrc " #csr ", %0" ::"r"((reg_t)(v)) : "memory")
/* A full fence, memory and I/O (Unprivileged ISA 20191213, §2.7): orders
 * the stores before an msip write (I/O) with the write itself, so the hart
 * woken by the IPI sees them. */
#define fence_all() __asm__ volatile("fence iorw, iorw" ::: "memory")
#define wfi() __asm__ volatile("wfi" ::: "memory")

/* mstatus, mie/mip bits (Privileged ISA 20211203, §3.1.6, §3.1.9) */
#define MSTATUS_MIE (1ul << 3)
#define MIP_MSIP (1ul << 3) /* machine software interrupt (CLINT msip) */
#define MIE_MSIE MIP_MSIP
#define MCAUSE_INT ((reg_t)1 << (__riscv_xlen - 1))
#define IRQ_M_SOFT 3

static inline void mmio_write8(uintptr_t a, uint8_t v) { *(volatile uint8_t *)a = v; }
static inline void mmio_write32(uintptr_t a, uint32_t v) { *(volatile uint32_t *)a = v; }
static inline uint8_t mmio_read8(uintptr_t a) { return *(volatile uint8_t *)a; }
static inline uint32_t mmio_read32(uintptr_t a) { return *(volatile uint32_t *)a; }

/* smp.c */
void uart_putc(char c);             /* waits for LSR.THRE, writes THR */
void uart_puts(const char *s);      /* exactly the bytes of s */
void uart_put_dec(unsigned long v); /* decimal */
__attribute__((noreturn)) void test_exit(unsigned code); /* 0: PASS, else FAIL code */
__attribute__((noreturn)) void park(void); /* mie = 0, wfi forever */

/* CLINT software interrupts. ipi_send(h) sets msip[h]: mip.MSIP of hart h
 * stays pending until hart h clears it with ipi_clear(h) (the bit is a
 * level, so an IPI sent before the target sleeps is not lost). */
void ipi_send(unsigned hart);
void ipi_clear(unsigned hart);

/* The finish barrier: every hart calls smp_finish() when its work is done
 * (amoadd.w on a shared counter, then an IPI to hart 0); hart 0, after its
 * own smp_finish(), calls smp_wait_all(), which sleeps in wfi (mie.MSIE,
 * mstatus.MIE off) until the counter reaches HARTS and returns it. */
void smp_finish(void);
unsigned smp_wait_all(void);

/* Called by crt.S's trap_entry; the default (weak) prints
 * "hart H: unexpected trap mcause=.. mepc=.. mtval=.." and exits with
 * status 1. */
void trap_handler(reg_t hartid, reg_t mcause, reg_t mepc, reg_t mtval);
void trap_entry(void); /* crt.S, 4-byte aligned, direct mode */

/* Run by every hart 0..HARTS-1 on its own stack. Hart 0's return value is
 * the exit status (test device); the other harts park when it returns. */
int main(reg_t hartid);
#endif
