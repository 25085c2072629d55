/* uart_echo_irq: interrupt-driven UART receive through the PLIC.
 *
 * Set-up: UART IER = receive data available; PLIC source 10 priority 1,
 * enable bit 10 for context 0 (hart 0 M-mode), threshold 0; mie.MEIE,
 * mstatus.MIE; mtvec = crt.S's trap_entry (direct). The handler (machine
 * external interrupt, mcause = interrupt|11) claims (read 0xc200004), drains
 * RBR while LSR.DR into a ring buffer, completes (writes the id back) and
 * counts the lines received. main sleeps in wfi until the handler has
 * received a whole line (race-free: it checks with mstatus.MIE clear, wfi
 * wakes on the pending interrupt, then sets MIE to take it), then for each
 * byte of the line echoes it uppercased, and after the '\n' prints
 * "got N bytes" (N = the line's length without the '\n'). The line "quit"
 * (echoed "QUIT") prints "bye" and ends with PASS (status 0).
 *
 * The number of interrupts taken is not printed: under QEMU it depends on
 * how many bytes are waiting in the chardev when the handler drains RBR,
 * which depends on host timing (it varied between runs, see README.md).
 *
 * Input: input/uart_echo_irq.txt. Expected output: the banner, each input
 * line uppercased followed by "got N bytes", then "QUIT" and "bye".
 */
#include "virt.h"

#define RING 1024 /* more than the whole input: the handler never drops */
static volatile char ring[RING];
static volatile unsigned ring_wr, ring_rd;
static volatile unsigned lines_rx;     /* '\n's received by the handler */
static volatile unsigned long irqs;    /* external interrupts taken */
static volatile unsigned long spurious; /* claims other than source 10 */

void trap_handler(reg_t mcause, reg_t mepc, reg_t mtval)
{
  if (mcause != (MCAUSE_INT | IRQ_M_EXT)) {
    uart_puts("unexpected trap mcause=");
    uart_put_hex(mcause);
    uart_puts(" mepc=");
    uart_put_hex(mepc);
    uart_puts(" mtval=");
    uart_put_hex(mtval);
    uart_puts("\n");
    test_exit(1);
  }
  irqs++;
  uint32_t id = mmio_read32(PLIC_CLAIM(0));
  if (id == UART_IRQ) {
    while (uart_rx_ready()) {
      char c = (char)mmio_read8(UART_BASE + UART_RBR);
      unsigned w = ring_wr;
      if (w - ring_rd < RING) {
        ring[w % RING] = c;
        barrier();
        ring_wr = w + 1;
        if (c == '\n')
          lines_rx++;
      }
    }
  } else {
    spurious++;
  }
  if (id)
    mmio_write32(PLIC_CLAIM(0), id);
}

static void wait_for_line(unsigned lines_done)
{
  for (;;) {
    csr_clear(mstatus, MSTATUS_MIE);
    if (lines_rx != lines_done)
      break;
    __asm__ volatile("wfi");
    csr_set(mstatus, MSTATUS_MIE); /* the pending interrupt is taken here */
  }
  csr_set(mstatus, MSTATUS_MIE);
}

int main(reg_t hartid, reg_t dtb, reg_t entry_pc)
{
  char line[128];
  unsigned len = 0, lines_done = 0;
  (void)hartid;
  (void)dtb;
  (void)entry_pc;
  uart_puts("uart_echo_irq: type lines, \"quit\" ends\n");

  mmio_write32(PLIC_PRIORITY(UART_IRQ), 1);
  mmio_write32(PLIC_ENABLE(0), 1u << UART_IRQ);
  mmio_write32(PLIC_THRESHOLD(0), 0);
  mmio_write8(UART_BASE + UART_IER, UART_IER_RDI);
  csr_write(mtvec, (reg_t)trap_entry);
  csr_set(mie, MIE_MEIE);
  csr_set(mstatus, MSTATUS_MIE);

  for (;;) {
    wait_for_line(lines_done);
    /* a whole line is in the ring: consume it up to its '\n' */
    for (;;) {
      unsigned r = ring_rd;
      char c = ring[r % RING];
      barrier();
      ring_rd = r + 1;
      uart_putc(c >= 'a' && c <= 'z' ? (char)(c - 'a' + 'A') : c);
      if (c == '\n')
        break;
      if (len < sizeof line)
        line[len] = c;
      len++;
    }
    lines_done++;
    if (len == 4 && line[0] == 'q' && line[1] == 'u' && line[2] == 'i' && line[3] == 't')
      break;
    uart_puts("got ");
    uart_put_dec(len);
    uart_puts(" bytes\n");
    len = 0;
  }
  csr_clear(mstatus, MSTATUS_MIE);
  mmio_write8(UART_BASE + UART_IER, 0);
#ifdef PRINT_IRQS
  uart_puts("interrupts: ");
  uart_put_dec(irqs);
  uart_puts(" spurious: ");
  uart_put_dec(spurious);
  uart_puts("\n");
#endif
  uart_puts("bye\n");
  return 0;
}
