/* load_check: reads what `fwprof --load` placed, and prints it:
 *   raw  at 0x20300000 (flash): a raw binary, --load blob.bin@0x20300000
 *   hex  at 0x20380000 (flash): an Intel HEX file's data record behind an
 *        extended linear address record (0x2038)
 *   otp  at 0x00020100 (OTP):   the same file's record behind an extended
 *        segment address record (0x2000, offset 0x0100)
 * Output with the images of crates/fwprof-cli/tests/boards.rs:
 *   raw 0xc0ffee01
 *   hex 0xdeadbeef
 *   otp 0x12345678
 * and exit status 0; 1 if any word differs (0 where nothing was loaded). */
#include <stdint.h>

#include "semihost.h"

#define WORD(a) (*(const volatile uint32_t *)(a))

int main(void) {
  uint32_t raw = WORD(0x20300000), hex = WORD(0x20380000), otp = WORD(0x00020100);
  sh_puts("raw ");
  sh_put_hex(raw);
  sh_puts("\nhex ");
  sh_put_hex(hex);
  sh_puts("\notp ");
  sh_put_hex(otp);
  sh_puts("\n");
  return !(raw == 0xc0ffee01u && hex == 0xdeadbeefu && otp == 0x12345678u);
}
