/* flash_data: initialised data whose load address (LMA) is in flash and
 * whose run address (VMA) is in RAM, as on every MCU. The loader places
 * .data's bytes at its load address in the FE310's flash (0x2001xxxx);
 * crt.S copies them to the DTIM (0x80000000) before main. If the loader
 * put them at the run address instead, or nowhere, the copy would bring
 * zeros (the flash is empty where .data should be) and the values below
 * would be 0.
 *
 * It prints the initialised globals, changes them (the DTIM is writable),
 * sums a table in flash read with 8 volatile loads, and exits with
 * (counter + table[0..3] + changes) & 0xff = 123.
 *
 * Expected output (tests/boards/README.md; the same under QEMU 7.2
 * `-M sifive_e,revb=true`):
 *   counter 42
 *   greeting hello from .data
 *   table 1 2 3 4
 *   big 0x11223344 0x55667788
 *   zeroed 0
 *   rom sum 36
 *   after 43 hello from .DATA 5
 * and exit status 123. */
#include <stdint.h>

#include "semihost.h"

int counter = 42;
char greeting[] = "hello from .data";
uint32_t table[4] = {1, 2, 3, 4};
uint64_t big = 0x1122334455667788ull;
uint32_t zeroed[16];

/* In flash (.rodata): read through a volatile pointer, 8 loads from flash. */
static const uint32_t rom_table[8] = {1, 2, 3, 4, 5, 6, 7, 8};

int main(void) {
  sh_puts("counter ");
  sh_put_dec((uint32_t)counter);
  sh_puts("\ngreeting ");
  sh_puts(greeting);
  sh_puts("\ntable");
  for (int i = 0; i < 4; i++) {
    sh_puts(" ");
    sh_put_dec(table[i]);
  }
  sh_puts("\nbig ");
  sh_put_hex((uint32_t)(big >> 32));
  sh_puts(" ");
  sh_put_hex((uint32_t)big);
  uint32_t z = 0;
  for (int i = 0; i < 16; i++)
    z |= zeroed[i];
  sh_puts("\nzeroed ");
  sh_put_dec(z);
  const volatile uint32_t *rom_words = rom_table;
  uint32_t rom = 0;
  for (int i = 0; i < 8; i++)
    rom += rom_words[i];
  sh_puts("\nrom sum ");
  sh_put_dec(rom);
  counter += 1;
  greeting[11] = '.';
  greeting[12] = 'D';
  greeting[13] = 'A';
  greeting[14] = 'T';
  greeting[15] = 'A';
  table[3] += 1;
  sh_puts("\nafter ");
  sh_put_dec((uint32_t)counter);
  sh_puts(" ");
  sh_puts(greeting);
  sh_puts(" ");
  sh_put_dec(table[3]);
  sh_puts("\n");
  /* 43 + 1 + 2 + 3 + 5 + 36 + 33 = 123 */
  return (counter + (int)(table[0] + table[1] + table[2] + table[3]) + (int)rom + 33) & 0xff;
}
