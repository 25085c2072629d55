/* spinlock: HARTS harts increment shared counters under spinlocks
 * (tests/smp).
 *
 * Each hart h runs two phases of M = 2000 increments:
 *   1. inc_amo() M times: spin_lock_amo() (test-and-test-and-set:
 *      lw until free, then amoswap.w.aq 1; Unprivileged ISA 20191213,
 *      §8.4), shared_amo++, spin_unlock_amo() (amoswap.w.rl zero);
 *   2. inc_lrsc() M times: spin_lock_lrsc() (lr.w.aq, bnez, sc.w; a
 *      constrained LR/SC loop, §8.2-8.3), shared_lrsc++, spin_unlock_lrsc()
 *      (fence rw,w then sw zero: a release store, RVWMO §14);
 * and in each increment also mine[h]++, a per-hart counter that needs no
 * lock (only hart h writes its slot). Then smp_finish(); hart 0 waits for
 * all harts in smp_wait_all(), prints the counters and exits with status 0
 * if shared_amo == shared_lrsc == HARTS * M and every mine[h] == 2 * M,
 * else 1. The increments are plain loads and stores (volatile), so a lock
 * that did not exclude would lose some.
 *
 * Per-hart facts (every hart, HARTS = 2 or 4): inc_amo 2000 calls,
 * spin_lock_amo 2000, spin_unlock_amo 2000, inc_lrsc 2000, spin_lock_lrsc
 * 2000, spin_unlock_lrsc 2000, smp_finish 1. How long each hart spins
 * depends on the interleaving and is not printed.
 *
 * Expected output (HARTS = 2), status 0:
 *   spinlock: 2 harts, 2000 increments per hart per lock
 *   shared_amo 4000
 *   shared_lrsc 4000
 *   hart 0: mine 4000
 *   hart 1: mine 4000
 *   finished 2
 * HARTS = 4: 8000, 8000, harts 0..3 "mine 4000", "finished 4".
 */
#include "smp.h"

#define M 2000u

static volatile uint32_t lock_amo, lock_lrsc;
static volatile uint32_t shared_amo, shared_lrsc;
static volatile uint32_t mine[HARTS];

__attribute__((noipa)) void spin_lock_amo(volatile uint32_t *l)
{
  uint32_t old, one = 1;
  for (;;) {
    while (*l)
      ;
    __asm__ volatile("amoswap.w.aq %0, %2, %1" : "=r"(old), "+A"(*l) : "r"(one) : "memory");
    if (old == 0)
      return;
  }
}

__attribute__((noipa)) void spin_unlock_amo(volatile uint32_t *l)
{
  __asm__ volatile("amoswap.w.rl zero, zero, %0" : "+A"(*l) : : "memory");
}

__attribute__((noipa)) void spin_lock_lrsc(volatile uint32_t *l)
{
  uint32_t tmp, one = 1;
  __asm__ volatile("1: lr.w.aq  %0, (%1)\n"
                   "   bnez     %0, 1b\n"
                   "   sc.w     %0, %2, (%1)\n"
                   "   bnez     %0, 1b\n"
                   : "=&r"(tmp)
                   : "r"(l), "r"(one)
                   : "memory");
}

__attribute__((noipa)) void spin_unlock_lrsc(volatile uint32_t *l)
{
  __asm__ volatile("fence rw, w\n"
                   "sw zero, 0(%0)\n"
                   :
                   : "r"(l)
                   : "memory");
}

__attribute__((noipa)) void inc_amo(unsigned me)
{
  spin_lock_amo(&lock_amo);
  shared_amo = shared_amo + 1;
  spin_unlock_amo(&lock_amo);
  mine[me] = mine[me] + 1;
}

__attribute__((noipa)) void inc_lrsc(unsigned me)
{
  spin_lock_lrsc(&lock_lrsc);
  shared_lrsc = shared_lrsc + 1;
  spin_unlock_lrsc(&lock_lrsc);
  mine[me] = mine[me] + 1;
}

int main(reg_t hartid)
{
  unsigned me = (unsigned)hartid;
  for (uint32_t i = 0; i < M; i++)
    inc_amo(me);
  for (uint32_t i = 0; i < M; i++)
    inc_lrsc(me);
  smp_finish();
  if (me != 0)
    return 0;

  unsigned done = smp_wait_all();
  int ok = shared_amo == HARTS * M && shared_lrsc == HARTS * M && done == HARTS;
  uart_puts("spinlock: ");
  uart_put_dec(HARTS);
  uart_puts(" harts, ");
  uart_put_dec(M);
  uart_puts(" increments per hart per lock\nshared_amo ");
  uart_put_dec(shared_amo);
  uart_puts("\nshared_lrsc ");
  uart_put_dec(shared_lrsc);
  uart_puts("\n");
  for (unsigned h = 0; h < HARTS; h++) {
    uart_puts("hart ");
    uart_put_dec(h);
    uart_puts(": mine ");
    uart_put_dec(mine[h]);
    uart_puts("\n");
    ok = ok && mine[h] == 2 * M;
  }
  uart_puts("finished ");
  uart_put_dec(done);
  uart_puts("\n");
  return ok ? 0 : 1;
}
