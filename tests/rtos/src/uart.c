/* The RTOS's interrupt-driven UART transmitter (tests/rtos).
 *
 * Tasks write through the SYS_WRITE system call (uart_write, kernel.c),
 * which copies the bytes into a TX ring buffer with uart_tx_put and turns
 * on the 16550's transmitter-holding-register-empty interrupt (IER bit 1,
 * THRI). The UART raises it as soon as THR is empty (QEMU 7.2 serial.c
 * raises it on the rising edge of IER.THRI when LSR.THRE is set); its line
 * is PLIC source 10, enabled for context 0 (hart 0 M-mode) with priority 1
 * and threshold 0, and reaches the hart as mip.MEIP (mie.MEIE on). The
 * handler, uart_isr (called between the PLIC claim and complete), reads
 * IIR (which clears a THRE interrupt), writes bytes from the ring to THR
 * while LSR.THRE says THR is empty, and turns THRI off when the ring is
 * empty. Without the FIFO (left off, QEMU's default) THR holds one byte;
 * QEMU sends it at once and sets THRE again, so one interrupt usually
 * drains the whole ring. Bytes are sent exactly as written (no "\n" ->
 * "\r\n"). */
#include "rtos.h"

#define TX_RING 256 /* a power of two: the indices run freely */

static char ring[TX_RING];
static volatile unsigned ring_head; /* next byte to send */
static volatile unsigned ring_tail; /* next free slot */

void uart_init(void)
{
  mmio_write8(UART_BASE + UART_IER, 0);
  mmio_write32(PLIC_PRIORITY(UART_IRQ), 1);
  mmio_write32(PLIC_ENABLE(0), 1u << UART_IRQ);
  mmio_write32(PLIC_THRESHOLD(0), 0);
  csr_set(mie, MIE_MEIE);
}

/* Kernel side (interrupts off). All n bytes or none. */
int uart_tx_put(const char *s, size_t n)
{
  unsigned tail = ring_tail;
  if (n > TX_RING - (tail - ring_head))
    return 0;
  for (size_t i = 0; i < n; i++)
    ring[(tail + i) % TX_RING] = s[i];
  ring_tail = tail + (unsigned)n;
  mmio_write8(UART_BASE + UART_IER, UART_IER_THRI);
  return 1;
}

__attribute__((noipa)) void uart_isr(void)
{
  (void)mmio_read8(UART_BASE + UART_IIR);
  while (ring_head != ring_tail && (mmio_read8(UART_BASE + UART_LSR) & UART_LSR_THRE)) {
    mmio_write8(UART_BASE + UART_THR, (uint8_t)ring[ring_head % TX_RING]);
    ring_head = ring_head + 1;
  }
  if (ring_head == ring_tail) {
    mmio_write8(UART_BASE + UART_IER, 0);
    kernel_wake_tx_waiters(); /* a writer blocked on a full ring retries */
  }
}

int uart_tx_idle(void)
{
  return ring_head == ring_tail;
}

/* Task side: sleep until the ring has drained. Looks with mstatus.MIE
 * clear, then wfi (which wakes on the pending interrupt even with MIE
 * clear, §3.3.3), then MIE set to take it: no wake-up is lost. */
void uart_flush(void)
{
  for (;;) {
    csr_clear(mstatus, MSTATUS_MIE);
    if (uart_tx_idle())
      break;
    __asm__ volatile("wfi");
    csr_set(mstatus, MSTATUS_MIE);
  }
  csr_set(mstatus, MSTATUS_MIE);
}

/* For kernel_panic: polled, bypassing the ring. */
void uart_panic_puts(const char *s)
{
  mmio_write8(UART_BASE + UART_IER, 0);
  while (*s) {
    while (!(mmio_read8(UART_BASE + UART_LSR) & UART_LSR_THRE))
      ;
    mmio_write8(UART_BASE + UART_THR, (uint8_t)*s++);
  }
}
