/* The RTOS kernel (tests/rtos): tasks, the round-robin scheduler, the trap
 * dispatcher, system calls (yield, exit, counting semaphores, mutexes,
 * UART output), the CLINT tick, stack painting. See rtos.h for the design.
 *
 * Tasks, by index: 0 main (the boot stack; blocked from sched_start() until
 * every other task but idle has ended), 1 idle (created by kernel_init),
 * then the tasks main creates. sched_switch() is plain round-robin over the
 * READY tasks, idle included: idle gives the CPU away at once (SYS_IDLE)
 * when any other task is ready, and sleeps in wfi otherwise.
 *
 * The kernel runs only in traps (mstatus.MIE = 0), on irq_stack. Every
 * decision to switch sets need_switch; irq_dispatch then calls
 * sched_switch() once, at its end. */
#include "rtos.h"

#define KFUNC __attribute__((noipa)) /* a real function under its own name */
#define TICK 1000u                    /* mtime ticks per time slice: 100 us at 10 MHz */

static struct task tasks[MAX_TASKS];
static int ntasks;
static struct task *current;
static int need_switch;
static unsigned live; /* tasks after idle that have not ended */
static struct wait_list tx_waiters;
static uint32_t idle_stack[TASK_STACK_BYTES / 4] __attribute__((aligned(16)));
extern uint32_t __boot_stack_bottom[], __boot_stack_top[];

/* ---- stacks ---- */

static void paint(uint32_t *lo, size_t bytes)
{
  for (size_t i = 0; i < bytes / 4; i++)
    ((volatile uint32_t *)lo)[i] = STACK_PAINT;
}

size_t stack_used(const void *lo, size_t bytes)
{
  const volatile uint32_t *p = lo, *end = p + bytes / 4;
  while (p < end && *p == STACK_PAINT)
    p++;
  return (size_t)(end - p) * 4;
}

const struct task *task_get(int i)
{
  return i >= 0 && i < ntasks ? &tasks[i] : NULL;
}

/* ---- the timer (CLINT; Privileged ISA 20211203, §3.2.1) ---- */

INLINE uint64_t mtime(void)
{
#if __riscv_xlen == 64
  return *(volatile uint64_t *)CLINT_MTIME;
#else
  uint32_t hi, lo;
  do { /* hi, lo, hi again: lo may wrap between the two halves */
    hi = mmio_read32(CLINT_MTIME + 4);
    lo = mmio_read32(CLINT_MTIME);
  } while (hi != mmio_read32(CLINT_MTIME + 4));
  return (uint64_t)hi << 32 | lo;
#endif
}

INLINE void set_mtimecmp(uint64_t t)
{
#if __riscv_xlen == 64
  *(volatile uint64_t *)CLINT_MTIMECMP0 = t;
#else
  /* §3.2.1's sequence: the low half to all ones first, so that no
   * intermediate value is smaller than both the old and the new one */
  mmio_write32(CLINT_MTIMECMP0, 0xffffffffu);
  mmio_write32(CLINT_MTIMECMP0 + 4, (uint32_t)(t >> 32));
  mmio_write32(CLINT_MTIMECMP0, (uint32_t)t);
#endif
}

static void timer_start(void)
{
  set_mtimecmp(mtime() + TICK);
  csr_set(mie, MIE_MTIE);
}

static void timer_stop(void)
{
  csr_clear(mie, MIE_MTIE);
  set_mtimecmp(~(uint64_t)0);
}

/* The next slice starts now (not at the old deadline): a slow handler
 * cannot pile up ticks. Pre-empts the running task. */
KFUNC void timer_isr(void)
{
  set_mtimecmp(mtime() + TICK);
  need_switch = 1;
}

/* ---- wait lists (FIFO) ---- */

INLINE void wl_push(struct wait_list *l, struct task *t)
{
  t->next_waiter = NULL;
  if (l->tail)
    l->tail->next_waiter = t;
  else
    l->head = t;
  l->tail = t;
}

INLINE struct task *wl_pop(struct wait_list *l)
{
  struct task *t = l->head;
  if (t) {
    l->head = t->next_waiter;
    if (!l->head)
      l->tail = NULL;
  }
  return t;
}

INLINE void block_current(struct wait_list *l)
{
  current->state = TASK_BLOCKED;
  wl_push(l, current);
  need_switch = 1;
}

/* ---- tasks ---- */

static void idle_task(void *arg)
{
  (void)arg;
  for (;;)
    if (kcall(SYS_IDLE, 0, 0))
      __asm__ volatile("wfi");
}

void kernel_init(void)
{
  paint(irq_stack, IRQ_STACK_BYTES);
  tasks[0].name = "main";
  tasks[0].stack_lo = __boot_stack_bottom;
  tasks[0].stack_bytes = (size_t)((char *)__boot_stack_top - (char *)__boot_stack_bottom);
  tasks[0].state = TASK_READY;
  current = &tasks[0];
  ntasks = 1;
  thread_create("idle", idle_task, NULL, idle_stack, sizeof idle_stack);
  uart_init();
  csr_set(mstatus, MSTATUS_MIE); /* main takes UART interrupts from now on */
}

/* The new task's first context: a frame at the top of its stack, as
 * trap_entry would have saved it, that "returns" (mret) to entry(arg) in
 * M-mode with interrupts on, and from entry to task_exit. */
KFUNC int thread_create(const char *name, void (*entry)(void *), void *arg, uint32_t *stack,
                        size_t bytes)
{
  if (ntasks == MAX_TASKS)
    kernel_panic("too many tasks", (reg_t)ntasks, 0);
  paint(stack, bytes);
  uintptr_t top = ((uintptr_t)stack + bytes) & ~(uintptr_t)15;
  struct frame *f = (struct frame *)(top - sizeof(struct frame));
  for (int i = 0; i < 32; i++)
    ((volatile reg_t *)f->x)[i] = 0;
  f->x[F_MEPC] = (reg_t)entry;
  f->x[F_MSTATUS] = MSTATUS_MPP_M | MSTATUS_MPIE;
  f->x[F_RA] = (reg_t)task_exit;
  f->x[F_A0] = (reg_t)arg;
  struct task *t = &tasks[ntasks];
  t->sp = f;
  t->name = name;
  t->stack_lo = stack;
  t->stack_bytes = bytes;
  t->state = TASK_READY;
  if (ntasks >= 2)
    live++;
  return ntasks++;
}

/* Round-robin: the next READY task after the current one, the current one
 * last. Idle is always READY, so there is always one. */
KFUNC struct frame *sched_switch(void)
{
  int cur = (int)(current - tasks);
  for (int k = 1; k <= ntasks; k++) {
    struct task *t = &tasks[(cur + k) % ntasks];
    if (t->state == TASK_READY) {
      current = t;
      return t->sp;
    }
  }
  kernel_panic("no task ready", 0, 0);
}

/* From uart_isr when the ring has drained: every blocked writer retries
 * (and runs first: an idle wfi must not sleep through the wake-up). */
void kernel_wake_tx_waiters(void)
{
  struct task *t;
  if (!tx_waiters.head)
    return;
  while ((t = wl_pop(&tx_waiters)))
    t->state = TASK_READY;
  need_switch = 1;
}

/* ---- system calls ---- */

KFUNC reg_t syscall_dispatch(reg_t nr, reg_t a, reg_t b)
{
  switch (nr) {
  case SYS_START: /* main: wait until every task has ended */
    current->state = TASK_BLOCKED;
    timer_start();
    need_switch = 1;
    return 0;
  case SYS_YIELD:
    need_switch = 1;
    return 0;
  case SYS_EXIT:
    current->state = TASK_DONE;
    if (--live == 0) {
      timer_stop();
      tasks[0].state = TASK_READY; /* main */
    }
    need_switch = 1;
    return 0;
  case SYS_IDLE:
    for (int i = 0; i < ntasks; i++)
      if (i != 1 && tasks[i].state == TASK_READY) {
        need_switch = 1;
        return 0;
      }
    return 1; /* nothing else to run: sleep */
  case SYS_SEM_WAIT: {
    struct sem *s = (struct sem *)a;
    if (s->count)
      s->count--;
    else
      block_current(&s->waiters); /* sem_post hands the unit over */
    return 0;
  }
  case SYS_SEM_POST: {
    struct sem *s = (struct sem *)a;
    struct task *t = wl_pop(&s->waiters);
    if (t)
      t->state = TASK_READY;
    else
      s->count++;
    return 0;
  }
  case SYS_MUTEX_LOCK: {
    struct mutex *m = (struct mutex *)a;
    if (!m->owner)
      m->owner = current;
    else if (m->owner == current)
      kernel_panic("mutex locked twice", a, 0);
    else
      block_current(&m->waiters); /* mutex_unlock hands it over */
    return 0;
  }
  case SYS_MUTEX_UNLOCK: {
    struct mutex *m = (struct mutex *)a;
    if (m->owner != current)
      kernel_panic("mutex unlocked by non-owner", a, 0);
    struct task *t = wl_pop(&m->waiters);
    m->owner = t;
    if (t)
      t->state = TASK_READY;
    return 0;
  }
  case SYS_WRITE:
    if (uart_tx_put((const char *)a, (size_t)b))
      return b;
    block_current(&tx_waiters); /* woken when the ring has drained; retries */
    return (reg_t)-1;
  default:
    kernel_panic("bad system call", nr, 0);
  }
}

/* Interrupts: the timer (mcause 7) and the PLIC (11: claim, the UART's
 * handler, complete; §3.1.15, the PLIC's claim/complete registers).
 * Exceptions: only ecall from M-mode (11), with mepc advanced past it. */
KFUNC static void external_isr(void)
{
  uint32_t id = mmio_read32(PLIC_CLAIM(0));
  if (id == UART_IRQ)
    uart_isr();
  else if (id)
    kernel_panic("unexpected PLIC source", id, 0);
  if (id)
    mmio_write32(PLIC_CLAIM(0), id);
}

KFUNC struct frame *irq_dispatch(struct frame *f)
{
  reg_t cause = csr_read(mcause);
  current->sp = f;
  if (cause == (MCAUSE_INT | IRQ_M_TIMER))
    timer_isr();
  else if (cause == (MCAUSE_INT | IRQ_M_EXT))
    external_isr();
  else if (cause == EXC_ECALL_M) {
    f->x[F_MEPC] += 4;
    f->x[F_A0] = syscall_dispatch(f->x[F_A7], f->x[F_A0], f->x[F_A1]);
  } else
    kernel_panic("unexpected trap", cause, f->x[F_MEPC]);
  if (need_switch) {
    need_switch = 0;
    return sched_switch();
  }
  return f;
}

/* ---- the task side of the system calls ---- */

void sched_start(void)
{
  kcall(SYS_START, 0, 0);
}

void task_yield(void)
{
  kcall(SYS_YIELD, 0, 0);
}

void task_exit(void)
{
  kcall(SYS_EXIT, 0, 0);
  for (;;)
    ;
}

void sem_wait(struct sem *s)
{
  kcall(SYS_SEM_WAIT, (reg_t)s, 0);
}

void sem_post(struct sem *s)
{
  kcall(SYS_SEM_POST, (reg_t)s, 0);
}

void mutex_lock(struct mutex *m)
{
  kcall(SYS_MUTEX_LOCK, (reg_t)m, 0);
}

void mutex_unlock(struct mutex *m)
{
  kcall(SYS_MUTEX_UNLOCK, (reg_t)m, 0);
}

void uart_write(const char *s, size_t n)
{
  while ((long)kcall(SYS_WRITE, (reg_t)s, n) < 0)
    ;
}

/* ---- the end ---- */

void kernel_panic(const char *what, reg_t a, reg_t b)
{
  char buf[80], *p = buf;
  csr_clear(mstatus, MSTATUS_MIE);
  p = fmt_str(p, "panic: ");
  p = fmt_str(p, what);
  p = fmt_str(p, " ");
  p = fmt_hex(p, a);
  p = fmt_str(p, " ");
  p = fmt_hex(p, b);
  p = fmt_str(p, "\n");
  *p = 0;
  uart_panic_puts(buf);
  test_exit(1);
}

void test_exit(unsigned code)
{
  if (code == 0)
    mmio_write32(TEST_BASE, TEST_PASS);
  else
    mmio_write32(TEST_BASE, (code << 16) | TEST_FAIL);
  for (;;)
    __asm__ volatile("wfi");
}
