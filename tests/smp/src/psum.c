/* psum: a parallel sum with a static, unequal work split (tests/smp).
 *
 * Hart h (0 <= h < HARTS) sums term(i) over its own slice of i:
 *   first = K * h * (h + 1) / 2,  n = (h + 1) * K,  K = 20000,
 * so the slices are consecutive and hart h does (h + 1) times hart 0's work.
 * Each hart
 *   - calls sum_slice(first, n) exactly once, which calls term(i) exactly
 *     n = (h + 1) * K times (both noipa: real calls, no clones);
 *   - stores its partial sum in partial[h] (its own slot, a plain store);
 *   - calls add_lrsc(&total, partial) exactly once: an lr.w/sc.w loop
 *     (inline asm) adding into the shared total (the number of sc.w
 *     failures depends on timing and is not printed);
 *   - calls smp_finish() once: amoadd.w on the shared finished counter,
 *     then an IPI to hart 0.
 * Hart 0 then sleeps in smp_wait_all() until all HARTS harts have finished
 * (how many times it wakes depends on timing), prints the results and
 * exits with status 0 if total == the sum of the partials and finished ==
 * HARTS, else 1.
 *
 * What a per-hart profile shows (HARTS = 2 or 4): on hart h, sum_slice 1
 * call, term (h + 1) * 20000 calls, add_lrsc 1 call, smp_finish 1 call;
 * only hart 0 runs smp_wait_all and the printing (uart_*). term has no
 * branch: 13 instructions per call (GCC 12.2, rv32 and rv64), so its count
 * on hart h is exactly (h + 1) times hart 0's: 260000 * (h + 1). Hart 0
 * sums 20000 elements (about 340k instructions), hart 3 80000 (1.36M).
 *
 * Expected output (HARTS = 2), status 0:
 *   psum: 2 harts, K = 20000
 *   hart 0: first 0, n 20000, partial 9988560
 *   hart 1: first 20000, n 40000, partial 20102871
 *   total 30091431
 *   finished 2
 * HARTS = 4, status 0:
 *   psum: 4 harts, K = 20000
 *   hart 0: first 0, n 20000, partial 9988560
 *   hart 1: first 20000, n 40000, partial 20102871
 *   hart 2: first 60000, n 60000, partial 29985785
 *   hart 3: first 120000, n 80000, partial 39833335
 *   total 99910551
 *   finished 4
 */
#include "smp.h"

#define K 20000u

static uint32_t partial[HARTS];
static volatile uint32_t total;

/* A 32-bit integer hash (multiply/xorshift), reduced to 0..999: the same
 * on rv32 and rv64, no data-dependent branches. */
__attribute__((noipa)) uint32_t term(uint32_t i)
{
  uint32_t x = i * 0x9e3779b1u;
  x ^= x >> 16;
  x *= 0x85ebca6bu;
  x ^= x >> 13;
  return x % 1000u;
}

__attribute__((noipa)) uint32_t sum_slice(uint32_t first, uint32_t n)
{
  uint32_t s = 0;
  for (uint32_t i = first; i < first + n; i++)
    s += term(i);
  return s;
}

/* *p += v atomically with a load-reserved/store-conditional loop
 * (Unprivileged ISA 20191213, §8.2; a constrained LR/SC loop, §8.3: only
 * base integer instructions between lr and sc, so it eventually succeeds).
 * aq on the lr and rl on the sc make it sequentially consistent with this
 * hart's other accesses. */
__attribute__((noipa)) void add_lrsc(volatile uint32_t *p, uint32_t v)
{
  uint32_t tmp, fail;
  __asm__ volatile("1: lr.w.aq   %0, (%2)\n"
                   "   add       %0, %0, %3\n"
                   "   sc.w.rl   %1, %0, (%2)\n"
                   "   bnez      %1, 1b\n"
                   : "=&r"(tmp), "=&r"(fail)
                   : "r"(p), "r"(v)
                   : "memory");
}

int main(reg_t hartid)
{
  uint32_t h = (uint32_t)hartid;
  uint32_t first = K * h * (h + 1) / 2, n = (h + 1) * K;

  partial[h] = sum_slice(first, n);
  add_lrsc(&total, partial[h]);
  smp_finish();
  if (h != 0)
    return 0;

  unsigned done = smp_wait_all();
  uint32_t sum = 0;
  uart_puts("psum: ");
  uart_put_dec(HARTS);
  uart_puts(" harts, K = ");
  uart_put_dec(K);
  uart_puts("\n");
  for (uint32_t i = 0; i < HARTS; i++) {
    uart_puts("hart ");
    uart_put_dec(i);
    uart_puts(": first ");
    uart_put_dec(K * i * (i + 1) / 2);
    uart_puts(", n ");
    uart_put_dec((i + 1) * K);
    uart_puts(", partial ");
    uart_put_dec(partial[i]);
    uart_puts("\n");
    sum += partial[i];
  }
  uart_puts("total ");
  uart_put_dec(total);
  uart_puts("\nfinished ");
  uart_put_dec(done);
  uart_puts("\n");
  return total == sum && done == HARTS ? 0 : 1;
}
