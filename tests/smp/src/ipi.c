/* ipi, ipi_irq: an inter-processor-interrupt ping-pong between harts 0 and 1
 * through the CLINT's msip registers (tests/smp).
 *
 * A shared counter, the ball, starts at 0; hart 0 may move it when it is
 * even, hart 1 when it is odd. A move (hit(me)) counts the hit in hits[me],
 * stores ball + 1 (release) and sends an IPI to the other hart
 * (msip[other] = 1, which sets its mip.MSIP until that hart clears it). The
 * game ends when the ball reaches 2 * ROUNDS = 2000: each hart has hit
 * ROUNDS = 1000 times and sent 1000 IPIs. With HARTS = 4, harts 2 and 3
 * return from main at once and park (mie = 0, wfi forever).
 *
 * ipi (built without IPI_IRQ): interrupts stay disabled (mstatus.MIE = 0);
 * each hart sets mie.MSIE and waits for its turn in wfi, which resumes when
 * an interrupt is pending and enabled in mie, whatever mstatus.MIE
 * (Privileged ISA 20211203, §3.3.3); no trap is taken. After waking it
 * clears its own msip, then looks at the ball (clear first, then look: an
 * IPI sent after the look leaves msip set and the next wfi returns at
 * once). Hart 0 calls ping() 1000 times, hart 1 pong() 1000 times; each
 * calls hit() once. How often a hart wakes without its turn depends on
 * timing and is not printed.
 *
 * ipi_irq (-DIPI_IRQ): the same game played by a machine-mode trap handler.
 * mstatus.MIE = 1, mie.MSIE = 1, mtvec = crt.S's trap_entry (direct mode,
 * §3.1.7); a machine software interrupt (mcause = interrupt | 3, §3.1.15)
 * runs msi_handler(me): clear own msip, count the interrupt, hit() if it is
 * this hart's turn and the game is not over, and note when the handler sees
 * the ball at 2000. Hart 0's main makes the first hit; the main loops only
 * sleep until their own handler has seen 2000 (looking with mstatus.MIE
 * clear, then wfi, then MIE set to take the pending interrupt: no wake-up
 * is lost, and hart 0 does not stop before taking hart 1's last IPI, which
 * it would if it stopped on the ball alone). Each hart takes exactly 1000
 * interrupts: hart 1 hits in each of its 1000; hart 0 hits in 999 of its
 * 1000 (plus the first hit from main), its last interrupt being hart 1's
 * final IPI, which only says the game is over.
 *
 * Per-hart facts: ipi: hart 0 ping 1000 calls, hart 1 pong 1000 calls,
 * hit 1000 calls and ipi_send 1000 calls on each. ipi_irq: on each of harts
 * 0 and 1, 1000 machine software interrupts, msi_handler 1000 calls, hit
 * 1000 calls (hart 0: 1 from main, 999 from msi_handler).
 *
 * Expected output, status 0 (ipi_irq prints "trap handler" for "wfi
 * polling", and "hart N: 1000 hits, 1000 interrupts"; with HARTS = 4 the
 * line "harts 2..3 parked" follows):
 *   ipi: 2 harts, 1000 rounds, wfi polling
 *   ball 2000
 *   hart 0: 1000 hits
 *   hart 1: 1000 hits
 * The status is 1 if a count is not the expected one.
 */
#include "smp.h"

#define ROUNDS 1000u

static volatile uint32_t ball;
static volatile uint32_t hits[2];
#ifdef IPI_IRQ
static volatile uint32_t irqs[2];
static volatile uint32_t over[2]; /* set by msi_handler when it sees 2000 */
#endif

static uint32_t ball_load(void)
{
  return __atomic_load_n(&ball, __ATOMIC_ACQUIRE);
}

/* One move: count it, pass the ball (the release store makes hits[me]
 * visible with it), wake the other hart. */
__attribute__((noipa)) void hit(unsigned me)
{
  hits[me]++;
  __atomic_store_n(&ball, ball + 1, __ATOMIC_RELEASE);
  ipi_send(me ^ 1);
}

#ifndef IPI_IRQ
/* Sleep until it is this hart's turn: clear own msip, look, wfi. */
static void wait_turn(unsigned me)
{
  for (;;) {
    ipi_clear(me);
    if ((ball_load() & 1) == me)
      return;
    wfi();
  }
}

__attribute__((noipa)) void ping(void)
{
  wait_turn(0);
  hit(0);
}

__attribute__((noipa)) void pong(void)
{
  wait_turn(1);
  hit(1);
}

static void wait_game_over(unsigned me)
{
  for (;;) {
    ipi_clear(me);
    if (ball_load() >= 2 * ROUNDS)
      return;
    wfi();
  }
}

static void play(unsigned me)
{
  csr_set(mie, MIE_MSIE);
  for (uint32_t r = 0; r < ROUNDS; r++) {
    if (me == 0)
      ping();
    else
      pong();
  }
  if (me == 0)
    wait_game_over(0);
  csr_clear(mie, MIE_MSIE);
}
#else
__attribute__((noipa)) void msi_handler(unsigned me)
{
  ipi_clear(me);
  irqs[me]++;
  uint32_t b = ball_load();
  if (b < 2 * ROUNDS && (b & 1) == me)
    hit(me);
  if (ball_load() >= 2 * ROUNDS)
    over[me] = 1;
}

void trap_handler(reg_t hartid, reg_t mcause, reg_t mepc, reg_t mtval)
{
  if (mcause == (MCAUSE_INT | IRQ_M_SOFT) && hartid < 2) {
    msi_handler((unsigned)hartid);
    return;
  }
  uart_puts("hart ");
  uart_put_dec(hartid);
  uart_puts(": unexpected trap mcause=");
  uart_put_dec(mcause & ~MCAUSE_INT);
  uart_puts(mcause & MCAUSE_INT ? " (interrupt)" : "");
  uart_puts(" mepc=");
  uart_put_dec(mepc);
  uart_puts(" mtval=");
  uart_put_dec(mtval);
  uart_puts("\n");
  test_exit(1);
}

static void play(unsigned me)
{
  csr_set(mie, MIE_MSIE);
  csr_set(mstatus, MSTATUS_MIE);
  if (me == 0)
    hit(0); /* the serve; hart 1 may not be listening yet: msip waits */
  for (;;) {
    csr_clear(mstatus, MSTATUS_MIE);
    if (over[me])
      break;
    wfi();
    csr_set(mstatus, MSTATUS_MIE); /* the pending interrupt is taken here */
  }
  csr_clear(mie, MIE_MSIE);
}
#endif

int main(reg_t hartid)
{
  unsigned me = (unsigned)hartid;
  if (me >= 2)
    return 0; /* harts 2..HARTS-1 park (crt.S) */
  play(me);
  if (me != 0)
    return 0;

  int ok = ball_load() == 2 * ROUNDS;
  uart_puts("ipi: ");
  uart_put_dec(HARTS);
  uart_puts(" harts, ");
  uart_put_dec(ROUNDS);
#ifdef IPI_IRQ
  uart_puts(" rounds, trap handler\n");
#else
  uart_puts(" rounds, wfi polling\n");
#endif
  uart_puts("ball ");
  uart_put_dec(ball_load());
  uart_puts("\n");
  for (unsigned h = 0; h < 2; h++) {
    uart_puts("hart ");
    uart_put_dec(h);
    uart_puts(": ");
    uart_put_dec(hits[h]);
    uart_puts(" hits");
    ok = ok && hits[h] == ROUNDS;
#ifdef IPI_IRQ
    uart_puts(", ");
    uart_put_dec(irqs[h]);
    uart_puts(" interrupts");
    ok = ok && irqs[h] == ROUNDS;
#endif
    uart_puts("\n");
  }
  if (HARTS > 2) {
    uart_puts("harts 2..");
    uart_put_dec(HARTS - 1);
    uart_puts(" parked\n");
  }
  return ok ? 0 : 1;
}
