/* Shared code for the tests/virt corpus: polled UART output and input, number
 * formatting, the SiFive test device, a default trap handler, and the few
 * libc functions GCC may call even with -ffreestanding (memset, memcpy,
 * memmove, memcmp). These are built without loop-pattern distribution, so
 * GCC does not turn their loops back into calls to themselves. */
#define NO_LIBCALL __attribute__((optimize("no-tree-loop-distribute-patterns")))
#include "virt.h"

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

void uart_put_hex(unsigned long v)
{
  int shift = (int)sizeof(v) * 8 - 4;
  uart_puts("0x");
  while (shift > 0 && !((v >> shift) & 0xf))
    shift -= 4;
  for (; shift >= 0; shift -= 4)
    uart_putc("0123456789abcdef"[(v >> shift) & 0xf]);
}

int uart_rx_ready(void)
{
  return mmio_read8(UART_BASE + UART_LSR) & UART_LSR_DR;
}

int uart_getc(void)
{
  while (!uart_rx_ready())
    ;
  return mmio_read8(UART_BASE + UART_RBR);
}

void halt(void)
{
  for (;;)
    __asm__ volatile("wfi");
}

void test_exit(unsigned code)
{
  if (code == 0)
    mmio_write32(TEST_BASE, TEST_PASS);
  else
    mmio_write32(TEST_BASE, (code << 16) | TEST_FAIL);
  halt();
}

void test_reset(void)
{
  mmio_write32(TEST_BASE, TEST_RESET);
  halt();
}

__attribute__((weak)) void trap_handler(reg_t mcause, reg_t mepc, reg_t mtval)
{
  uart_puts("unexpected trap mcause=");
  uart_put_hex(mcause);
  uart_puts(" mepc=");
  uart_put_hex(mepc);
  uart_puts(" mtval=");
  uart_put_hex(mtval);
  uart_puts("\n");
  test_exit(1);
}

NO_LIBCALL void *memset(void *d, int c, size_t n)
{
  unsigned char *p = d;
  while (n--)
    *p++ = (unsigned char)c;
  return d;
}

NO_LIBCALL void *memcpy(void *d, const void *s, size_t n)
{
  unsigned char *p = d;
  const unsigned char *q = s;
  while (n--)
    *p++ = *q++;
  return d;
}

NO_LIBCALL void *memmove(void *d, const void *s, size_t n)
{
  unsigned char *p = d;
  const unsigned char *q = s;
  if (p < q) {
    while (n--)
      *p++ = *q++;
  } else {
    while (n--)
      p[n] = q[n];
  }
  return d;
}

NO_LIBCALL int memcmp(const void *a, const void *b, size_t n)
{
  const unsigned char *p = a, *q = b;
  for (; n; n--, p++, q++)
    if (*p != *q)
      return *p - *q;
  return 0;
}
