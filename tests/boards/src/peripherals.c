/* peripherals: firmware for the real FE310-G002 touches registers fwprof
 * does not model (clocks, pins, the SiFive UART). With the shipped board
 * (unmodelled = "ignore") reads give 0 and writes are dropped, so the
 * program runs to its end; fwprof then lists every address touched, with
 * the board's name for it:
 *   PRCI hfrosccfg (0x10008000): read 1, write 1; pllcfg (0x10008008): write 1
 *   GPIO0 output_en (0x10012008): write 1; output_val (0x1001200c): read 3, write 3
 *   UART0 txdata (0x10013000): read 3, write 3 (txdata.full reads 0: not full)
 *   UART0 txctrl (0x10013008): write 1
 * Output: "peripherals done\n", exit status 0. */
#include <stdint.h>

#include "semihost.h"

#define REG(a) (*(volatile uint32_t *)(a))
#define PRCI_HFROSCCFG REG(0x10008000)
#define PRCI_PLLCFG REG(0x10008008)
#define GPIO_OUTPUT_EN REG(0x10012008)
#define GPIO_OUTPUT_VAL REG(0x1001200c)
#define UART0_TXDATA REG(0x10013000)
#define UART0_TXCTRL REG(0x10013008)
#define LED_RED (1u << 22)

static void uart_putc(char c) {
  while (UART0_TXDATA & 0x80000000u) {
  }
  UART0_TXDATA = (uint8_t)c;
}

int main(void) {
  PRCI_HFROSCCFG |= 1u << 30; /* hfroscen */
  PRCI_PLLCFG = 0x00070df1;   /* PLL bypassed, hfxosc reference */
  GPIO_OUTPUT_EN = LED_RED;
  for (int i = 0; i < 3; i++)
    GPIO_OUTPUT_VAL ^= LED_RED;
  UART0_TXCTRL = 1; /* txen */
  uart_putc('h');
  uart_putc('i');
  uart_putc('\n');
  sh_puts("peripherals done\n");
  return 0;
}
