/* rtos: three tasks on a tiny preemptive kernel, with a queue, a mutex, an
 * interrupt-driven UART and painted stacks (tests/rtos).
 *
 * main (task 0, on the boot stack) calls kernel_init() (which creates the
 * idle task, 1), creates tasks A, B, C (2, 3, 4) with thread_create(),
 * prints a banner through the UART driver and calls sched_start(), which
 * returns when A, B and C have ended. Meanwhile, preempted every 1000 mtime
 * ticks (100 us) by the timer interrupt:
 *   A: for i in 0..299: work_a(i) (200 rounds of an LCG step and an
 *      xorshift), queue_send() of the result tagged A;
 *   B: for i in 0..199: work_b(i) (400 rounds of xorshift32), queue_send()
 *      of the result tagged B;
 *   C: for i in 0..99: 5 x queue_recv() (adds each value to its sender's
 *      sum, counts it), then work_c(i) (1000 rounds of a rotate-add mix);
 *      then prints two lines through the UART driver (uart_write), from the
 *      task.
 * Each work function also gives the CPU away voluntarily with task_yield()
 * (an ecall, SYS_YIELD) after its computation when i % 100 == 99 (work_a:
 * 3 times), i % 50 == 49 (work_b: 4 times), i % 25 == 24 (work_c: 4 times).
 * The queue holds 4 messages: queue_send() waits on the semaphore of free
 * slots, then takes the queue's mutex, puts the message, releases the
 * mutex and posts the semaphore of messages; queue_recv() the other way
 * round. A full or empty queue, or a mutex held by a preempted task, blocks
 * the caller in the kernel: a voluntary switch. The results (sums and
 * counts) do not depend on the order in which A's and B's messages arrive.
 *
 * Then main prints A's and B's own totals, checks them against what C
 * received, prints how deep each stack was used (stack painting, see
 * README.md), waits for the UART ring to drain and exits with status 0 (1
 * if a check failed).
 *
 * Exact call counts (every build): work_a 300 (all on A), work_b 200 (B),
 * work_c 100 (C); queue_send 300 on A and 200 on B; queue_recv 500 on C;
 * task_yield 3 on A, 4 on B, 4 on C; sem_wait, mutex_lock, mutex_unlock,
 * sem_post: once per queue_send/queue_recv; uart_write 2 on C, 10 on main;
 * thread_create 4 (idle, A, B, C) and sched_start 1, on main.
 *
 * Expected output (the stack lines' numbers depend on the build; see
 * expected/), status 0:
 *   rtos: 5 tasks (main idle A B C), tick 1000, queue 4
 *   C: received 300 from A (sum 0xd73e5c87), 200 from B (sum 0x6fc3195)
 *   C: work_c 100 calls, result 0xc248bbae
 *   A: work_a 300 calls, sent 300, sum 0xd73e5c87
 *   B: work_b 200 calls, sent 200, sum 0x6fc3195
 *   stack main: N bytes
 *   stack idle: N bytes
 *   stack A: N bytes
 *   stack B: N bytes
 *   stack C: N bytes
 *   stack irq: N bytes
 *   rtos: ok
 */
#include "rtos.h"

#define APP __attribute__((noipa)) /* a real function under its own name */
#define N_A 300u
#define N_B 200u
#define N_C 100u
#define PER_C 5u /* messages C takes per work_c call: N_C * PER_C == N_A + N_B */
#define QLEN 4u

struct msg {
  uint32_t src; /* 0: A, 1: B */
  uint32_t value;
};

struct queue {
  struct mutex lock;
  struct sem items, slots;
  struct msg buf[QLEN];
  unsigned head, tail;
};

static struct queue q = {.slots = {.count = QLEN}};

static uint32_t stack_a[TASK_STACK_BYTES / 4] __attribute__((aligned(16)));
static uint32_t stack_b[TASK_STACK_BYTES / 4] __attribute__((aligned(16)));
static uint32_t stack_c[TASK_STACK_BYTES / 4] __attribute__((aligned(16)));

/* results, each written by one task, read by main after they have ended */
static uint32_t calls_a, calls_b, calls_c, sent_a, sent_b;
static uint32_t sum_sent[2], sum_recv[2], count_recv[2], result_c;

/* ---- the queue (task side, built on the kernel's semaphores and mutex) ---- */

APP void queue_send(struct queue *qu, const struct msg *m)
{
  sem_wait(&qu->slots);
  mutex_lock(&qu->lock);
  qu->buf[qu->tail % QLEN] = *m;
  qu->tail++;
  mutex_unlock(&qu->lock);
  sem_post(&qu->items);
}

APP void queue_recv(struct queue *qu, struct msg *m)
{
  sem_wait(&qu->items);
  mutex_lock(&qu->lock);
  *m = qu->buf[qu->head % QLEN];
  qu->head++;
  mutex_unlock(&qu->lock);
  sem_post(&qu->slots);
}

/* ---- the work (deterministic 32-bit arithmetic: the same on rv32 and
 * rv64; no data-dependent branch but the yield) ---- */

APP uint32_t work_a(uint32_t i)
{
  uint32_t x = i ^ 0xa5a5a5a5u;
  for (int r = 0; r < 200; r++) {
    x = x * 1664525u + 1013904223u;
    x ^= x >> 11;
  }
  if (i % 100 == 99)
    task_yield();
  return x;
}

APP uint32_t work_b(uint32_t i)
{
  uint32_t x = i * 2654435761u + 1;
  for (int r = 0; r < 400; r++) {
    x ^= x << 13;
    x ^= x >> 17;
    x ^= x << 5;
  }
  if (i % 50 == 49)
    task_yield();
  return x;
}

APP uint32_t work_c(uint32_t i)
{
  uint32_t x = i + 0x9e3779b9u;
  for (int r = 0; r < 1000; r++)
    x = ((x << 7) | (x >> 25)) ^ (x + 0x6d2b79f5u);
  if (i % 25 == 24)
    task_yield();
  return x;
}

/* ---- the tasks ---- */

APP void task_a(void *arg)
{
  (void)arg;
  for (uint32_t i = 0; i < N_A; i++) {
    struct msg m = {0, work_a(i)};
    calls_a++;
    sum_sent[0] += m.value;
    queue_send(&q, &m);
    sent_a++;
  }
}

APP void task_b(void *arg)
{
  (void)arg;
  for (uint32_t i = 0; i < N_B; i++) {
    struct msg m = {1, work_b(i)};
    calls_b++;
    sum_sent[1] += m.value;
    queue_send(&q, &m);
    sent_b++;
  }
}

APP void task_c(void *arg)
{
  static char line[96]; /* not on the stack: see lib.c */
  char *p;
  (void)arg;
  for (uint32_t i = 0; i < N_C; i++) {
    for (uint32_t k = 0; k < PER_C; k++) {
      struct msg m;
      queue_recv(&q, &m);
      sum_recv[m.src & 1] += m.value;
      count_recv[m.src & 1]++;
    }
    result_c += work_c(i);
    calls_c++;
  }
  p = fmt_str(line, "C: received ");
  p = fmt_dec(p, count_recv[0]);
  p = fmt_str(p, " from A (sum ");
  p = fmt_hex(p, sum_recv[0]);
  p = fmt_str(p, "), ");
  p = fmt_dec(p, count_recv[1]);
  p = fmt_str(p, " from B (sum ");
  p = fmt_hex(p, sum_recv[1]);
  p = fmt_str(p, ")\n");
  uart_write(line, (size_t)(p - line));
  p = fmt_str(line, "C: work_c ");
  p = fmt_dec(p, calls_c);
  p = fmt_str(p, " calls, result ");
  p = fmt_hex(p, result_c);
  p = fmt_str(p, "\n");
  uart_write(line, (size_t)(p - line));
}

/* ---- main ---- */

static void put_line(char *line, char *end)
{
  uart_write(line, (size_t)(end - line));
}

static void report_sender(const char *name, const char *fn, uint32_t calls, uint32_t sent,
                          uint32_t sum)
{
  char line[96], *p;
  p = fmt_str(line, name);
  p = fmt_str(p, ": ");
  p = fmt_str(p, fn);
  p = fmt_str(p, " ");
  p = fmt_dec(p, calls);
  p = fmt_str(p, " calls, sent ");
  p = fmt_dec(p, sent);
  p = fmt_str(p, ", sum ");
  p = fmt_hex(p, sum);
  p = fmt_str(p, "\n");
  put_line(line, p);
}

static void report_stack(const char *name, const void *lo, size_t bytes)
{
  char line[64], *p;
  p = fmt_str(line, "stack ");
  p = fmt_str(p, name);
  p = fmt_str(p, ": ");
  p = fmt_dec(p, stack_used(lo, bytes));
  p = fmt_str(p, " bytes\n");
  put_line(line, p);
}

int main(void)
{
  char line[96], *p;
  kernel_init();
  thread_create("A", task_a, NULL, stack_a, sizeof stack_a);
  thread_create("B", task_b, NULL, stack_b, sizeof stack_b);
  thread_create("C", task_c, NULL, stack_c, sizeof stack_c);

  p = fmt_str(line, "rtos: 5 tasks (main idle A B C), tick 1000, queue ");
  p = fmt_dec(p, QLEN);
  p = fmt_str(p, "\n");
  put_line(line, p);

  sched_start(); /* A, B and C run; back here when all three have ended */

  report_sender("A", "work_a", calls_a, sent_a, sum_sent[0]);
  report_sender("B", "work_b", calls_b, sent_b, sum_sent[1]);
  int ok = calls_a == N_A && sent_a == N_A && calls_b == N_B && sent_b == N_B &&
           calls_c == N_C && count_recv[0] == N_A && count_recv[1] == N_B &&
           sum_recv[0] == sum_sent[0] && sum_recv[1] == sum_sent[1];

  const struct task *t;
  for (int i = 0; (t = task_get(i)); i++)
    report_stack(t->name, t->stack_lo, t->stack_bytes);
  report_stack("irq", irq_stack, IRQ_STACK_BYTES);

  p = fmt_str(line, ok ? "rtos: ok\n" : "rtos: FAILED\n");
  put_line(line, p);
  uart_flush();
  return ok ? 0 : 1;
}
