/* String building for the RTOS (tests/rtos), and the memset/memcpy GCC may
 * call even with -ffreestanding. Not instrumented (NO_INSTR, as a libc
 * built without -finstrument-functions) and leaf functions with no stack
 * frame: a task that formats a line does not go deeper than its own frame
 * (README.md: why the painted stack depths do not depend on timing). Built
 * without loop-pattern distribution, so GCC does not turn the loops into
 * calls. */
#include "rtos.h"

/* Copies s (without its NUL) to p; returns the end. */
char *fmt_str(char *p, const char *s)
{
  while (*s)
    *p++ = *s++;
  return p;
}

/* Writes v in decimal at p; returns the end. Counts the digits first and
 * writes them from the right: no buffer. */
char *fmt_dec(char *p, unsigned long v)
{
  unsigned long t = v;
  int n = 1;
  while (t >= 10) {
    t /= 10;
    n++;
  }
  char *end = p + n;
  do {
    *--end = (char)('0' + v % 10);
    v /= 10;
  } while (v);
  return p + n;
}

/* Writes 0x and v in lowercase hexadecimal, no leading zeros. */
char *fmt_hex(char *p, unsigned long v)
{
  int shift = (int)sizeof(v) * 8 - 4;
  *p++ = '0';
  *p++ = 'x';
  while (shift > 0 && !((v >> shift) & 0xf))
    shift -= 4;
  for (; shift >= 0; shift -= 4)
    *p++ = "0123456789abcdef"[(v >> shift) & 0xf];
  return p;
}

NO_INSTR void *memset(void *d, int c, size_t n)
{
  unsigned char *p = d;
  while (n--)
    *p++ = (unsigned char)c;
  return d;
}

NO_INSTR void *memcpy(void *d, const void *s, size_t n)
{
  unsigned char *p = d;
  const unsigned char *q = s;
  while (n--)
    *p++ = *q++;
  return d;
}
