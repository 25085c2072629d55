/* A tiny preemptive RTOS for one hart of QEMU's virt board (tests/rtos).
 *
 * Everything runs in machine mode. Tasks run with mstatus.MIE = 1; the
 * kernel runs only inside traps (mstatus.MIE = 0, no nesting), on its own
 * stack (irq_stack). src/switch.S's trap_entry saves the interrupted task's
 * whole integer context (struct frame) on that task's stack, switches to
 * irq_stack and calls irq_dispatch(frame); irq_dispatch returns the frame
 * of the task to run next (sched_switch() picks it, round-robin), and
 * trap_entry restores it from that task's stack and mrets. So a context
 * switch is an mret that lands on another stack.
 *
 * Kernel services are system calls: kcall() (switch.S) executes ecall with
 * the service number in a7 (Privileged ISA 20211203, §3.3.1: mcause 11,
 * environment call from M-mode); the functions below wrap it. task_yield()
 * is one of them (a voluntary switch by ecall). Preemption: the CLINT timer
 * interrupt every TICK = 1000 ticks of mtime (10 MHz: 100 us).
 *
 * Devices (QEMU 7.2 hw/riscv/virt.c memory map):
 *   CLINT          0x02000000  mtimecmp (hart 0) +0x4000, mtime +0xbff8
 *   PLIC           0x0c000000  priority of source s at +4*s, enables of
 *                               context 0 (hart 0 M-mode) at +0x2000,
 *                               threshold/claim of context 0 at
 *                               +0x200000/+0x200004
 *   16550A UART    0x10000000  (THR +0, IER +1, IIR +2, LSR +5; PLIC
 *                               source 10)
 *   SiFive test    0x00100000  (0x5555 pass, (code<<16)|0x3333 fail)
 */
#ifndef RTOS_H
#define RTOS_H
#include <stdint.h>
#include <stddef.h>

typedef uintptr_t reg_t;

/* Functions that must not call the -finstrument-functions hooks: the hooks
 * themselves, the string helpers (lib.c, as a libc built without the flag)
 * and the inline helpers below. */
#define NO_INSTR __attribute__((no_instrument_function))
#define INLINE static inline __attribute__((always_inline, no_instrument_function))

/* ---- hardware ---- */
#define UART_BASE 0x10000000ul
#define UART_THR 0
#define UART_IER 1
#define UART_IIR 2
#define UART_LSR 5
#define UART_IER_THRI 0x02 /* transmitter holding register empty interrupt */
#define UART_LSR_THRE 0x20
#define UART_IRQ 10

#define PLIC_BASE 0x0c000000ul
#define PLIC_PRIORITY(src) (PLIC_BASE + 4ul * (src))
#define PLIC_ENABLE(ctx) (PLIC_BASE + 0x2000ul + 0x80ul * (ctx))
#define PLIC_THRESHOLD(ctx) (PLIC_BASE + 0x200000ul + 0x1000ul * (ctx))
#define PLIC_CLAIM(ctx) (PLIC_BASE + 0x200004ul + 0x1000ul * (ctx))

#define CLINT_MTIMECMP0 0x2004000ul
#define CLINT_MTIME 0x200bff8ul

#define TEST_BASE 0x100000ul
#define TEST_FAIL 0x3333u
#define TEST_PASS 0x5555u

/* mstatus, mie, mcause (Privileged ISA 20211203, §3.1.6, §3.1.9, §3.1.15) */
#define MSTATUS_MIE (1ul << 3)
#define MSTATUS_MPIE (1ul << 7)
#define MSTATUS_MPP_M (3ul << 11)
#define MIE_MTIE (1ul << 7)
#define MIE_MEIE (1ul << 11)
#define MCAUSE_INT ((reg_t)1 << (__riscv_xlen - 1))
#define IRQ_M_TIMER 7
#define IRQ_M_EXT 11
#define EXC_ECALL_M 11

#define csr_read(csr) ({ reg_t v_; __asm__ volatile("csrr %0, " #csr : "=r"(v_)); v_; })
#define csr_write(csr, v) __asm__ volatile("csrw " #csr ", %0" ::"r"((reg_t)(v)) : "memory")
#define csr_set(csr, v) __asm__ volatile("csrs " #csr ", %0" ::"r"((reg_t)(v)) : "memory")
#define csr_clear(csr, v) __asm__ volatile("csrc " #csr ", %0" ::"r"((reg_t)(v)) : "memory")

INLINE void mmio_write8(uintptr_t a, uint8_t v) { *(volatile uint8_t *)a = v; }
INLINE void mmio_write32(uintptr_t a, uint32_t v) { *(volatile uint32_t *)a = v; }
INLINE uint8_t mmio_read8(uintptr_t a) { return *(volatile uint8_t *)a; }
INLINE uint32_t mmio_read32(uintptr_t a) { return *(volatile uint32_t *)a; }

/* ---- the saved context (switch.S) ----
 * x[i] holds register xi for i = 1 and 3..31; x[0] holds mepc and x[2]
 * mstatus (sp itself is the frame's address + sizeof(struct frame)). */
struct frame {
  reg_t x[32];
};
#define F_MEPC 0
#define F_MSTATUS 2
#define F_RA 1
#define F_A0 10
#define F_A1 11
#define F_A2 12
#define F_A7 17

/* ---- stacks ----
 * Every stack is painted with STACK_PAINT words when it is set up (task
 * stacks by thread_create, the kernel's irq_stack by kernel_init, the boot
 * stack that main runs on by crt.S before main). stack_used() returns how
 * many bytes from the top have been written: the distance from the top to
 * the lowest word that no longer holds the paint. */
#define STACK_PAINT 0xdeadbeefu
#define TASK_STACK_BYTES 2048
#define IRQ_STACK_BYTES 2048
size_t stack_used(const void *lo, size_t bytes);

/* ---- tasks ---- */
#define MAX_TASKS 6
enum task_state { TASK_FREE, TASK_READY, TASK_BLOCKED, TASK_DONE };
struct task {
  struct frame *sp;  /* saved context, on the task's own stack */
  const char *name;
  uint32_t *stack_lo; /* lowest word of the stack */
  size_t stack_bytes;
  enum task_state state;
  struct task *next_waiter; /* in a wait list while blocked */
};

struct wait_list {
  struct task *head, *tail;
};
struct sem {
  unsigned count;
  struct wait_list waiters;
};
struct mutex {
  struct task *owner;
  struct wait_list waiters;
};

/* kernel.c, called before sched_start() (interrupts off) */
void kernel_init(void);
/* Creates a task that starts at entry(arg) with mstatus.MIE = 1 on the
 * given stack (painted first); when entry returns, the task ends
 * (task_exit). Returns the task's index (main is 0, idle 1). */
int thread_create(const char *name, void (*entry)(void *), void *arg, uint32_t *stack,
                  size_t bytes);
/* The tasks, by index, for the stack report (NULL past the last). */
const struct task *task_get(int i);
extern uint32_t irq_stack[IRQ_STACK_BYTES / 4];

/* system calls (kernel.c: task side) */
void sched_start(void); /* main: run the tasks; returns when all have ended */
void task_yield(void);  /* voluntary switch (ecall) */
__attribute__((noreturn)) void task_exit(void);
void sem_wait(struct sem *s);
void sem_post(struct sem *s);
void mutex_lock(struct mutex *m);
void mutex_unlock(struct mutex *m);
void uart_write(const char *s, size_t n); /* blocks while the ring has no room */

/* kernel entry points (switch.S calls irq_dispatch; both are in kernel.c) */
struct frame *irq_dispatch(struct frame *f);
struct frame *sched_switch(void);
reg_t kcall(reg_t nr, reg_t a, reg_t b); /* switch.S: a7 = nr, ecall */
void trap_entry(void);                   /* switch.S */

enum syscall_nr {
  SYS_START = 1,
  SYS_YIELD,
  SYS_EXIT,
  SYS_IDLE,
  SYS_SEM_WAIT,
  SYS_SEM_POST,
  SYS_MUTEX_LOCK,
  SYS_MUTEX_UNLOCK,
  SYS_WRITE,
};

/* uart.c: the interrupt-driven transmitter (kernel side) */
void uart_init(void);
int uart_tx_put(const char *s, size_t n); /* all n bytes into the ring, or 0 */
void uart_isr(void);                      /* PLIC source 10 */
int uart_tx_idle(void);                   /* ring empty */
void uart_flush(void);                    /* task side: sleep until the ring is empty */
void uart_panic_puts(const char *s);      /* polled, for kernel_panic */
void kernel_wake_tx_waiters(void);        /* kernel.c: the ring has room again */

__attribute__((noreturn)) void kernel_panic(const char *what, reg_t a, reg_t b);
__attribute__((noreturn)) void test_exit(unsigned code);

/* lib.c: string building into a caller's buffer, no stack frame */
NO_INSTR char *fmt_str(char *p, const char *s);
NO_INSTR char *fmt_dec(char *p, unsigned long v);
NO_INSTR char *fmt_hex(char *p, unsigned long v);
void *memset(void *d, int c, size_t n);
void *memcpy(void *d, const void *s, size_t n);

int main(void);
#endif
