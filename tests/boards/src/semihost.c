/* RISC-V semihosting calls (the "RISC-V Semihosting" spec: slli x0,x0,0x1f;
 * ebreak; srai x0,x0,7 with the operation in a0 and its argument in a1). */
#include "semihost.h"

#define SYS_WRITE0 0x04
#define SYS_EXIT_EXTENDED 0x20
#define ADP_STOPPED_APPLICATION_EXIT 0x20026

static long semihost(long op, const void *arg) {
  register long a0 __asm__("a0") = op;
  register const void *a1 __asm__("a1") = arg;
  __asm__ volatile(".option push\n"
                   ".option norvc\n"
                   "slli x0, x0, 0x1f\n"
                   "ebreak\n"
                   "srai x0, x0, 7\n"
                   ".option pop"
                   : "+r"(a0)
                   : "r"(a1)
                   : "memory");
  return a0;
}

void sh_puts(const char *s) { semihost(SYS_WRITE0, s); }

void sh_put_dec(uint32_t v) {
  char buf[12];
  int i = sizeof buf - 1;
  buf[i] = 0;
  do {
    buf[--i] = (char)('0' + v % 10);
    v /= 10;
  } while (v);
  sh_puts(&buf[i]);
}

void sh_put_hex(uint32_t v) {
  char buf[11];
  buf[0] = '0';
  buf[1] = 'x';
  for (int k = 0; k < 8; k++) {
    uint32_t d = (v >> (28 - 4 * k)) & 0xf;
    buf[2 + k] = (char)(d < 10 ? '0' + d : 'a' + d - 10);
  }
  buf[10] = 0;
  sh_puts(buf);
}

void sh_exit(int code) {
  long block[2] = {ADP_STOPPED_APPLICATION_EXIT, code};
  semihost(SYS_EXIT_EXTENDED, block);
  for (;;) {
  }
}
