/* uart_hello: polled output through the 16550A UART, exit through the SiFive
 * test device (PASS).
 *
 * Checks: LSR.THRE polling and THR writes; the bytes reach stdout unchanged
 * (no "\n" -> "\r\n" translation: line 3 carries its own "\r"); a write of
 * 0x5555 to 0x100000 ends the run with status 0.
 *
 * Expected output (XX = 32 or 64), status 0:
 *   Hello from uart_hello on rvXX
 *   line 2: LF only
 *   line 3: CR LF\r
 *   line 4: tab\there
 *   hart 0
 *   0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ
 *   bye
 */
#include "virt.h"

int main(reg_t hartid, reg_t dtb, reg_t entry_pc)
{
  (void)dtb;
  (void)entry_pc;
  uart_puts("Hello from uart_hello on rv");
  uart_put_dec(__riscv_xlen);
  uart_puts("\n");
  uart_puts("line 2: LF only\n");
  uart_puts("line 3: CR LF\r\n");
  uart_puts("line 4: tab\there\n");
  uart_puts("hart ");
  uart_put_dec(hartid);
  uart_puts("\n");
  uart_puts("0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ\n");
  uart_puts("bye\n");
  test_exit(0);
}
