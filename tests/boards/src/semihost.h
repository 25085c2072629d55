/* RISC-V semihosting for the tests/boards programs (no libc): console
 * output and exit, the calls fwprof and QEMU (-semihosting) both serve. */
#ifndef SEMIHOST_H
#define SEMIHOST_H
#include <stdint.h>

/* Write a NUL-terminated string to the console (SYS_WRITE0). */
void sh_puts(const char *s);
/* Write `v` in decimal. */
void sh_put_dec(uint32_t v);
/* Write `v` as 0x followed by 8 hex digits. */
void sh_put_hex(uint32_t v);
/* End the run with exit status `code` (SYS_EXIT_EXTENDED,
 * ADP_Stopped_ApplicationExit). */
void sh_exit(int code) __attribute__((noreturn));
#endif
