/* uart_poll_echo: polled UART receive. Reads stdin byte by byte (LSR.DR,
 * then RBR) and echoes every byte unchanged as soon as it is read; a line
 * ends at '\n' (only: '\r' is an ordinary byte, type Ctrl-J interactively).
 * After each line it prints "[N: L bytes]" (N = line number from 1, L = the
 * line's length without the '\n'); the line "quit" ends the run with
 *   lines: <lines before quit> bytes: <their bytes, '\n's included>
 *   bye
 * and PASS (status 0). Nothing depends on how many bytes have arrived at any
 * moment: one byte is consumed per LSR.DR poll.
 *
 * Input: input/uart_poll_echo.txt. Expected output: that input echoed, each
 * line followed by its "[N: L bytes]" line, then the two lines above.
 */
#include "virt.h"

int main(reg_t hartid, reg_t dtb, reg_t entry_pc)
{
  char line[128];
  unsigned len = 0, lines = 0;
  unsigned long bytes = 0;
  (void)hartid;
  (void)dtb;
  (void)entry_pc;
  uart_puts("uart_poll_echo: type lines, \"quit\" ends\n");
  for (;;) {
    char c = (char)uart_getc();
    uart_putc(c);
    if (c != '\n') {
      if (len < sizeof line)
        line[len] = c;
      len++;
      continue;
    }
    if (len == 4 && line[0] == 'q' && line[1] == 'u' && line[2] == 'i' && line[3] == 't')
      break;
    lines++;
    bytes += len + 1;
    uart_puts("[");
    uart_put_dec(lines);
    uart_puts(": ");
    uart_put_dec(len);
    uart_puts(" bytes]\n");
    len = 0;
  }
  uart_puts("lines: ");
  uart_put_dec(lines);
  uart_puts(" bytes: ");
  uart_put_dec(bytes);
  uart_puts("\nbye\n");
  return 0;
}
