/* Shared definitions for the QEMU `virt` bare-metal corpus (tests/virt).
 *
 * No semihosting, no libc: every program links src/crt.S (sets sp, clears
 * .bss, calls main(hartid, dtb, entry_pc), exits with main's return value),
 * src/virt.c (UART output, numbers, the test device, a default trap handler)
 * and src/virt.ld. Devices used (QEMU 7.2 hw/riscv/virt.c memory map):
 *   16550A UART    0x10000000  (RBR/THR +0, IER +1, LSR +5; PLIC source 10)
 *   SiFive test    0x00100000  (32-bit write: 0x5555 pass, (code<<16)|0x3333
 *                               fail with status code, 0x7777 reset)
 *   PLIC           0x0c000000  (context 0 = hart 0 M-mode)
 * Output goes byte for byte to the UART: no "\n" -> "\r\n" translation. */
#ifndef VIRT_H
#define VIRT_H
#include <stdint.h>
#include <stddef.h>

typedef uintptr_t reg_t;

#define UART_BASE 0x10000000ul
#define UART_RBR 0 /* read, DLAB = 0 */
#define UART_THR 0 /* write, DLAB = 0 */
#define UART_IER 1
#define UART_IIR 2
#define UART_LCR 3
#define UART_LSR 5
#define UART_IER_RDI 0x01 /* receive data available */
#define UART_LSR_DR 0x01 /* data ready */
#define UART_LSR_THRE 0x20 /* transmit holding register empty */
#define UART_IRQ 10

#define TEST_BASE 0x100000ul
#define TEST_FAIL 0x3333u
#define TEST_PASS 0x5555u
#define TEST_RESET 0x7777u

#define PLIC_BASE 0x0c000000ul
#define PLIC_PRIORITY(src) (PLIC_BASE + 4ul * (src))
#define PLIC_ENABLE(ctx) (PLIC_BASE + 0x2000ul + 0x80ul * (ctx))
#define PLIC_THRESHOLD(ctx) (PLIC_BASE + 0x200000ul + 0x1000ul * (ctx))
#define PLIC_CLAIM(ctx) (PLIC_BASE + 0x200004ul + 0x1000ul * (ctx))

#define FDT_MAGIC 0xd00dfeedu

/* rv32_fw -> rv32_kernel hand-over: the firmware writes {MAILBOX_MAGIC, dtb}
 * here before mret; the kernel compares the dtb with its a1. 1 MiB into RAM:
 * past the firmware, below the kernel (0x80200000 rv64, 0x80400000 rv32). */
#define FW_MAILBOX 0x80100000ul
#define MAILBOX_MAGIC 0x46574d42u /* "FWMB" */
#if __riscv_xlen == 64
#define KERNEL_ADDR 0x80200000ul /* QEMU: firmware end aligned up to 2 MiB */
#else
#define KERNEL_ADDR 0x80400000ul /* QEMU: firmware end aligned up to 4 MiB */
#endif

#define csr_read(csr) ({ reg_t v_; __asm__ volatile("csrr %0, " #csr : "=r"(v_)); v_; })
#define csr_write(csr, v) __asm__ volatile("csrw " #csr ", %0" ::"r"((reg_t)(v)) : "memory")
#define csr_set(csr, v) __asm__ volatile("csrs " #csr ", %0" ::"r"((reg_t)(v)) : "memory")
#define csr_clear(csr, v) __asm__ volatile("csrc " #csr ", %0" ::"r"((reg_t)(v)) : "memory")
#define barrier() __asm__ volatile("" ::: "memory")

#define MSTATUS_MIE (1ul << 3)
#define MSTATUS_MPIE (1ul << 7)
#define MSTATUS_MPP (3ul << 11)
#define MSTATUS_MPP_S (1ul << 11)
#define MIE_MEIE (1ul << 11)
#define MCAUSE_INT ((reg_t)1 << (__riscv_xlen - 1))
#define IRQ_M_EXT 11

static inline void mmio_write8(uintptr_t a, uint8_t v) { *(volatile uint8_t *)a = v; }
static inline void mmio_write16(uintptr_t a, uint16_t v) { *(volatile uint16_t *)a = v; }
static inline void mmio_write32(uintptr_t a, uint32_t v) { *(volatile uint32_t *)a = v; }
static inline uint8_t mmio_read8(uintptr_t a) { return *(volatile uint8_t *)a; }
static inline uint32_t mmio_read32(uintptr_t a) { return *(volatile uint32_t *)a; }

/* virt.c */
void *memset(void *d, int c, size_t n);
void *memcpy(void *d, const void *s, size_t n);
void *memmove(void *d, const void *s, size_t n);
int memcmp(const void *a, const void *b, size_t n);
void uart_putc(char c);                /* waits for LSR.THRE, writes THR */
void uart_puts(const char *s);         /* exactly the bytes of s */
void uart_put_dec(unsigned long v);    /* decimal */
void uart_put_hex(unsigned long v);    /* 0x + lowercase hex, no leading zeros */
int uart_rx_ready(void);               /* LSR.DR */
int uart_getc(void);                   /* polls LSR.DR, reads RBR */
__attribute__((noreturn)) void test_exit(unsigned code); /* 0: PASS, else FAIL code */
__attribute__((noreturn)) void test_reset(void);
__attribute__((noreturn)) void halt(void);                /* wfi forever */
/* Called by crt.S's trap_entry (M-mode programs); the default (weak) prints
 * "unexpected trap mcause=.. mepc=.. mtval=.." and exits with status 1. */
void trap_handler(reg_t mcause, reg_t mepc, reg_t mtval);
void trap_entry(void); /* crt.S, 4-byte aligned, direct mode */

int main(reg_t hartid, reg_t dtb, reg_t entry_pc);
#endif
