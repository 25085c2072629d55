/* Shared code for the multi-hart corpus (tests/smp): polled UART output,
 * the SiFive test device, CLINT software interrupts (IPIs), the finish
 * barrier and a default trap handler. See smp.h. */
#include "smp.h"

void uart_putc(char c)
{
  while (!(mmio_read8(UART_BASE + UART_LSR) & UART_LSR_THRE))
    ;
  mmio_write8(UART_BASE + UART_THR, (uint8_t)c);
}

void uart_puts(const char *s)
{
  while (*s)
    uart_putc(*s++);
}

void uart_put_dec(unsigned long v)
{
  char buf[24];
  int n = 0;
  do {
    buf[n++] = (char)('0' + v % 10);
    v /= 10;
  } while (v);
  while (n)
    uart_putc(buf[--n]);
}

static void uart_put_hex(unsigned long v)
{
  int shift = (int)sizeof(v) * 8 - 4;
  uart_puts("0x");
  while (shift > 0 && !((v >> shift) & 0xf))
    shift -= 4;
  for (; shift >= 0; shift -= 4)
    uart_putc("0123456789abcdef"[(v >> shift) & 0xf]);
}

void park(void)
{
  csr_write(mie, 0);
  for (;;)
    wfi();
}

void test_exit(unsigned code)
{
  if (code == 0)
    mmio_write32(TEST_BASE, TEST_PASS);
  else
    mmio_write32(TEST_BASE, (code << 16) | TEST_FAIL);
  park();
}

/* msip[h] is a 32-bit register whose bit 0 is hart h's mip.MSIP (QEMU 7.2
 * riscv_aclint_swi_write). The full fence before the write makes this
 * hart's earlier stores visible before the target can wake. */
void ipi_send(unsigned hart)
{
  fence_all();
  mmio_write32(CLINT_MSIP(hart), 1);
}

void ipi_clear(unsigned hart)
{
  mmio_write32(CLINT_MSIP(hart), 0);
  fence_all();
}

static volatile uint32_t finished; /* harts that called smp_finish */

void smp_finish(void)
{
  uint32_t one = 1, old;
  /* amoadd.w with release semantics: this hart's results are visible before
   * the count (Unprivileged ISA 20191213, §8.4) */
  __asm__ volatile("amoadd.w.rl %0, %2, %1" : "=r"(old), "+A"(finished) : "r"(one) : "memory");
  (void)old;
  ipi_send(0);
}

/* Hart 0 only. Clear own msip first, then look at the count, then sleep: an
 * IPI sent after the look leaves msip set, so the wfi returns at once and
 * the count is looked at again. Returns the count (HARTS). */
unsigned smp_wait_all(void)
{
  uint32_t n;
  csr_set(mie, MIE_MSIE);
  for (;;) {
    ipi_clear(0);
    n = __atomic_load_n(&finished, __ATOMIC_ACQUIRE);
    if (n >= HARTS)
      break;
    wfi();
  }
  csr_clear(mie, MIE_MSIE);
  return n;
}

__attribute__((weak)) void trap_handler(reg_t hartid, reg_t mcause, reg_t mepc, reg_t mtval)
{
  uart_puts("hart ");
  uart_put_dec(hartid);
  uart_puts(": unexpected trap mcause=");
  uart_put_hex(mcause);
  uart_puts(" mepc=");
  uart_put_hex(mepc);
  uart_puts(" mtval=");
  uart_put_hex(mtval);
  uart_puts("\n");
  test_exit(1);
}
