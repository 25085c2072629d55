/* Signal delivery checks for fwprof against qemu-riscv64 (tests/signals).
 * One program, one case per argument: `sigtest.rv64-linux.elf CASE`.
 * Every case prints what it saw (no addresses, times or loop counts, which
 * differ between fwprof's guest time and QEMU's host time) and exits 0,
 * except the `die_*` cases, which end by a signal's default action.
 *
 * RISC-V has no SIGFPE from arithmetic: integer division by zero gives -1
 * and does not trap (Unprivileged ISA 20191213, §7.2), and floating-point
 * exceptions only set fflags. The `fpe` case therefore raises SIGFPE with
 * raise() and shows that 1/0 does not trap. */
#define _GNU_SOURCE
#include <errno.h>
#include <fenv.h>
#include <setjmp.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <time.h>
#include <ucontext.h>
#include <unistd.h>

#define REG_PC_SLOT 0
#define REG_SP_SLOT 2

static sigjmp_buf env;
static volatile sig_atomic_t hits, depth, maxdepth, last_sig;
static volatile uintptr_t fault_addr_seen, fault_pc_seen;
static volatile int code_seen, signo_seen;

static void install(int sig, void (*h)(int, siginfo_t *, void *), int flags, const int *block) {
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_sigaction = h;
  sa.sa_flags = SA_SIGINFO | flags;
  sigemptyset(&sa.sa_mask);
  for (; block && *block; block++) sigaddset(&sa.sa_mask, *block);
  if (sigaction(sig, &sa, 0) != 0) { perror("sigaction"); exit(2); }
}

static uintptr_t uc_pc(void *ucv) { return ((ucontext_t *)ucv)->uc_mcontext.__gregs[REG_PC_SLOT]; }
static uintptr_t uc_sp(void *ucv) { return ((ucontext_t *)ucv)->uc_mcontext.__gregs[REG_SP_SLOT]; }

/* ---- SIGSEGV: recovery with siglongjmp ------------------------------- */

extern char segv_store[], segv_load[];

__attribute__((noinline)) static void store_to(volatile long *p) {
  __asm__ volatile(".globl segv_store\nsegv_store: sd zero, 0(%0)" ::"r"(p) : "memory");
}
__attribute__((noinline)) static long load_from(volatile long *p) {
  long v;
  __asm__ volatile(".globl segv_load\nsegv_load: ld %0, 0(%1)" : "=r"(v) : "r"(p) : "memory");
  return v;
}

/* The handler's own work: what a profile must show under [signal: SIGSEGV]. */
__attribute__((noinline)) static unsigned handler_work(unsigned n) {
  unsigned h = 2166136261u;
  for (unsigned i = 0; i < n; i++) h = (h ^ i) * 16777619u;
  return h;
}
static volatile unsigned sink;

static void on_segv(int sig, siginfo_t *si, void *uc) {
  signo_seen = sig;
  code_seen = si->si_code;
  fault_addr_seen = (uintptr_t)si->si_addr;
  fault_pc_seen = uc_pc(uc);
  sink = handler_work(1000);
  hits++;
  siglongjmp(env, 1);
}

/* The interrupted function's own work, for the profile. */
__attribute__((noinline)) static unsigned victim(volatile long *p, unsigned n) {
  unsigned h = handler_work(n);
  store_to(p);
  return h;
}

static int case_segv(void) {
  install(SIGSEGV, on_segv, 0, 0);
  volatile long *bad = (volatile long *)0x10;
  for (int i = 0; i < 3; i++) {
    if (sigsetjmp(env, 1) == 0) {
      sink = victim(bad, 200);
      puts("no fault?");
    } else {
      printf("SIGSEGV %d: signo %d code %d addr-ok %d pc-is-store %d\n", i, signo_seen, code_seen,
             fault_addr_seen == (uintptr_t)bad, fault_pc_seen == (uintptr_t)segv_store);
    }
  }
  /* A read-only page: SEGV_ACCERR. */
  long *ro = mmap(0, 4096, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (sigsetjmp(env, 1) == 0) {
    store_to(ro + 3);
  } else {
    printf("read-only store: code %d addr-ok %d pc-is-store %d\n", code_seen,
           fault_addr_seen == (uintptr_t)(ro + 3), fault_pc_seen == (uintptr_t)segv_store);
  }
  if (sigsetjmp(env, 1) == 0) {
    load_from((long *)0x20);
  } else {
    printf("unmapped load: code %d addr-ok %d pc-is-load %d\n", code_seen, fault_addr_seen == 0x20,
           fault_pc_seen == (uintptr_t)segv_load);
  }
  /* siglongjmp restored the mask: SIGSEGV is not blocked any more. */
  sigset_t cur;
  sigprocmask(SIG_BLOCK, 0, &cur);
  printf("SIGSEGV blocked after siglongjmp: %d; handler ran %d times\n", sigismember(&cur, SIGSEGV),
         (int)hits);
  /* A jump to an unmapped address: the fetch faults, si_addr is the pc. */
  if (sigsetjmp(env, 1) == 0) {
    void (*f)(void) = (void (*)(void))0x1000;
    f();
  } else {
    printf("fetch fault: code %d addr-ok %d pc-ok %d\n", code_seen, fault_addr_seen == 0x1000,
           fault_pc_seen == 0x1000);
  }
  return 0;
}

/* ---- SIGILL: recovery by siglongjmp and by skipping the instruction --- */

extern char ill_insn[], ill_insn2[];
__attribute__((noinline)) static void illegal(void) {
  /* csrrw zero, cycle, zero: a write to a read-only CSR. */
  __asm__ volatile(".globl ill_insn\nill_insn: .4byte 0xc0001073" ::: "memory");
}
__attribute__((noinline)) static int illegal_then_continue(void) {
  int r = 7;
  __asm__ volatile(".globl ill_insn2\nill_insn2: .4byte 0xc0001073\n addi %0, %0, 1" : "+r"(r)::"memory");
  return r;
}

static void on_ill(int sig, siginfo_t *si, void *uc) {
  signo_seen = sig;
  code_seen = si->si_code;
  fault_addr_seen = (uintptr_t)si->si_addr;
  fault_pc_seen = uc_pc(uc);
  hits++;
  if (fault_pc_seen == (uintptr_t)ill_insn2) {
    /* Resume after the 4-byte instruction (rt_sigreturn restores pc). */
    ((ucontext_t *)uc)->uc_mcontext.__gregs[REG_PC_SLOT] += 4;
    return;
  }
  siglongjmp(env, 1);
}

static int case_ill(void) {
  install(SIGILL, on_ill, 0, 0);
  if (sigsetjmp(env, 1) == 0) {
    illegal();
    puts("no SIGILL?");
  } else {
    printf("SIGILL: signo %d code %d addr-is-pc %d pc-ok %d\n", signo_seen, code_seen,
           fault_addr_seen == (uintptr_t)ill_insn, fault_pc_seen == (uintptr_t)ill_insn);
  }
  int r = illegal_then_continue();
  printf("skipped the illegal instruction: r = %d, handler ran %d times\n", r, (int)hits);
  return 0;
}

/* ---- SIGTRAP (ebreak) and SIGBUS (misaligned AMO) ---------------------- */

extern char trap_insn[];
static void on_trap(int sig, siginfo_t *si, void *uc) {
  signo_seen = sig;
  code_seen = si->si_code;
  fault_addr_seen = (uintptr_t)si->si_addr;
  fault_pc_seen = uc_pc(uc);
  ((ucontext_t *)uc)->uc_mcontext.__gregs[REG_PC_SLOT] += 4;
}
static void on_bus(int sig, siginfo_t *si, void *uc) {
  signo_seen = sig;
  code_seen = si->si_code;
  fault_addr_seen = (uintptr_t)si->si_addr;
  fault_pc_seen = uc_pc(uc);
  siglongjmp(env, 1);
}

static int case_trap_bus(void) {
  install(SIGTRAP, on_trap, 0, 0);
  __asm__ volatile(".globl trap_insn\ntrap_insn: .4byte 0x00100073" ::: "memory"); /* ebreak */
  printf("SIGTRAP: signo %d code %d addr-is-pc %d pc-ok %d\n", signo_seen, code_seen,
         fault_addr_seen == (uintptr_t)trap_insn, fault_pc_seen == (uintptr_t)trap_insn);
  install(SIGBUS, on_bus, 0, 0);
  static int words[4];
  volatile char *odd = (char *)words + 2;
  if (sigsetjmp(env, 1) == 0) {
    int old;
    __asm__ volatile("amoadd.w %0, %1, (%2)" : "=r"(old) : "r"(1), "r"(odd) : "memory");
    puts("no SIGBUS?");
  } else {
    printf("SIGBUS: signo %d code %d addr-ok %d\n", signo_seen, code_seen,
           fault_addr_seen == (uintptr_t)odd);
  }
  return 0;
}

/* ---- SIGFPE: RISC-V integer division does not trap; raise() ----------- */

static void on_fpe(int sig, siginfo_t *si, void *uc) {
  (void)uc;
  signo_seen = sig;
  code_seen = si->si_code;
  fault_addr_seen = si->si_pid == getpid();
  hits++;
}

static int case_fpe(void) {
  install(SIGFPE, on_fpe, 0, 0);
  volatile int zero = 0, one = 1;
  printf("1/0 = %d, 1%%0 = %d, handler ran %d times (division does not trap on RISC-V)\n",
         one / zero, one % zero, (int)hits);
  raise(SIGFPE);
  printf("raise(SIGFPE): signo %d code %d pid-ok %d, handler ran %d times\n", signo_seen,
         code_seen, (int)fault_addr_seen, (int)hits);
  return 0;
}

/* ---- SA_SIGINFO of kill(), the frame, FP state across a handler ------- */

static volatile int fcsr_in_frame, frm_in_handler;
static volatile double handler_result;

static void on_usr1(int sig, siginfo_t *si, void *ucv) {
  ucontext_t *uc = ucv;
  signo_seen = sig;
  code_seen = si->si_code;
  fault_addr_seen = si->si_pid == getpid() && si->si_uid == getuid();
  fcsr_in_frame = uc->uc_mcontext.__fpregs.__d.__fcsr;
  /* Clobber FP state: rt_sigreturn must restore it. */
  fesetround(FE_UPWARD);
  frm_in_handler = fegetround() == FE_UPWARD;
  volatile double a = 1.0, b = 3.0;
  handler_result = a / b;
  hits++;
}

static int case_siginfo(void) {
  install(SIGUSR1, on_usr1, 0, 0);
  fesetround(FE_TOWARDZERO);
  volatile double x = 2.0, y = 3.0;
  double before = x / y;
  kill(getpid(), SIGUSR1);
  double after = x / y;
  printf("kill: signo %d code %d (SI_USER 0) pid/uid-ok %d\n", signo_seen, code_seen,
         (int)fault_addr_seen);
  printf("frame fcsr.frm %d (RTZ 1); handler rounded up %d; rounding after return RTZ %d; same "
         "quotient %d\n",
         (fcsr_in_frame >> 5) & 7, frm_in_handler, fegetround() == FE_TOWARDZERO, before == after);
  fesetround(FE_TONEAREST);
  raise(SIGUSR1);
  printf("raise: signo %d code %d (SI_TKILL -6) handler ran %d times\n", signo_seen, code_seen,
         (int)hits);
  return 0;
}

/* ---- sigaltstack, SA_ONSTACK, stack overflow recovery ------------------ */

static char altstack[64 * 1024] __attribute__((aligned(16)));
static volatile int on_alt, ss_flags_in_handler;

static void on_segv_alt(int sig, siginfo_t *si, void *uc) {
  (void)si;
  char here;
  stack_t cur;
  signo_seen = sig;
  on_alt = &here >= altstack && &here < altstack + sizeof altstack;
  sigaltstack(0, &cur);
  ss_flags_in_handler = cur.ss_flags;
  fault_pc_seen = uc_sp(uc) < (uintptr_t)altstack || uc_sp(uc) >= (uintptr_t)(altstack + sizeof altstack);
  hits++;
  siglongjmp(env, 1);
}

__attribute__((noinline)) static long recurse(long n) {
  volatile char pad[1024];
  pad[0] = (char)n;
  if (n < 0) return pad[0]; /* never: the stack overflows first */
  return recurse(n + 1) + pad[0];
}

static int case_altstack(void) {
  stack_t ss = {.ss_sp = altstack, .ss_size = sizeof altstack, .ss_flags = 0}, old;
  if (sigaltstack(&ss, &old) != 0) { perror("sigaltstack"); return 1; }
  printf("old altstack flags %d (SS_DISABLE 2)\n", old.ss_flags);
  install(SIGSEGV, on_segv_alt, SA_ONSTACK, 0);
  if (sigsetjmp(env, 1) == 0) {
    store_to((long *)0x10);
  } else {
    printf("fault: on the alternate stack %d, flags there %d (SS_ONSTACK 1), interrupted sp off it %d\n",
           on_alt, ss_flags_in_handler, (int)fault_pc_seen);
  }
  sigaltstack(0, &old);
  printf("flags after leaving the handler %d\n", old.ss_flags);
  if (sigsetjmp(env, 1) == 0) {
    recurse(0);
  } else {
    printf("stack overflow caught on the alternate stack %d\n", on_alt);
  }
  /* Bad sigaltstack arguments. */
  stack_t small = {.ss_sp = altstack, .ss_size = 100, .ss_flags = 0};
  errno = 0;
  printf("too small: %d errno ENOMEM %d\n", sigaltstack(&small, 0), errno == ENOMEM);
  stack_t bad = {.ss_sp = altstack, .ss_size = sizeof altstack, .ss_flags = 7};
  errno = 0;
  printf("bad flags: %d errno EINVAL %d\n", sigaltstack(&bad, 0), errno == EINVAL);
  stack_t off = {.ss_flags = SS_DISABLE};
  sigaltstack(&off, 0);
  sigaltstack(0, &old);
  printf("disabled: flags %d size %d\n", old.ss_flags, (int)old.ss_size);
  return 0;
}

/* ---- masks: blocked signals stay pending, sa_mask, SA_NODEFER, SA_RESETHAND */

static char order[64];
static volatile int norder;

static void note(char c) { if (norder < 63) order[norder++] = c; }

static void on_usr1_mask(int sig, siginfo_t *si, void *uc) {
  (void)sig; (void)si; (void)uc;
  note('1');
}

static void on_usr2(int sig, siginfo_t *si, void *uc) {
  (void)sig; (void)si; (void)uc;
  note('2');
}
static void on_nodefer(int sig, siginfo_t *si, void *uc) {
  (void)si; (void)uc;
  depth++;
  hits++;
  if (depth > maxdepth) maxdepth = depth;
  if (hits < 3) raise(sig); /* nested with SA_NODEFER, after return without */
  depth--;
}
static void on_reset(int sig, siginfo_t *si, void *uc) {
  (void)sig; (void)si; (void)uc;
  hits++;
}

/* sa_mask blocks SIGUSR2 while the SIGUSR1 handler runs: raised there, it
 * runs after the handler returns (order 112, and the handler's mask has
 * SIGUSR2), as on Linux. QEMU 7.2 reads RISC-V's struct sigaction with a
 * sa_restorer word before sa_mask, which RISC-V does not have, so it takes
 * the word after the struct for the mask and runs SIGUSR2 at once (121):
 * this case is compared with Linux's answer, not QEMU's. */
static volatile int usr2_blocked_in_handler;
static void on_usr1_samask(int sig, siginfo_t *si, void *uc) {
  (void)sig; (void)si; (void)uc;
  sigset_t cur;
  sigprocmask(SIG_BLOCK, 0, &cur);
  usr2_blocked_in_handler = sigismember(&cur, SIGUSR2);
  note('1');
  raise(SIGUSR2);
  note('1');
}

static int case_sa_mask(void) {
  int block2[] = {SIGUSR2, 0};
  install(SIGUSR1, on_usr1_samask, 0, block2);
  install(SIGUSR2, on_usr2, 0, 0);
  raise(SIGUSR1);
  order[norder] = 0;
  printf("sa_mask: order %s, SIGUSR2 blocked in the handler %d\n", order,
         (int)usr2_blocked_in_handler);
  struct sigaction cur;
  sigaction(SIGUSR1, 0, &cur);
  printf("sa_mask read back: SIGUSR2 %d SIGUSR1 %d\n", sigismember(&cur.sa_mask, SIGUSR2),
         sigismember(&cur.sa_mask, SIGUSR1));
  return 0;
}
static int case_mask(void) {
  install(SIGUSR1, on_usr1_mask, 0, 0);
  install(SIGUSR2, on_usr2, 0, 0);
  sigset_t s, pend, old;
  sigemptyset(&s);
  sigaddset(&s, SIGUSR1);
  sigprocmask(SIG_BLOCK, &s, &old);
  note('r');
  raise(SIGUSR1);
  note('b');
  sigpending(&pend);
  printf("pending while blocked: USR1 %d USR2 %d\n", sigismember(&pend, SIGUSR1),
         sigismember(&pend, SIGUSR2));
  sigprocmask(SIG_SETMASK, &old, 0);
  note('u');
  order[norder] = 0;
  printf("order: %s (r raise, b still blocked, 1 the handler, u unblocked)\n", order);
  sigpending(&pend);
  printf("pending after: USR1 %d\n", sigismember(&pend, SIGUSR1));
  /* Two blocked signals unblocked at once: both frames are built, the
   * lower number's first, so SIGUSR2's handler runs first, then returns
   * into SIGUSR1's. */
  norder = 0;
  sigaddset(&s, SIGUSR2);
  sigprocmask(SIG_BLOCK, &s, 0);
  raise(SIGUSR2);
  raise(SIGUSR1);
  sigprocmask(SIG_UNBLOCK, &s, 0);
  order[norder] = 0;
  printf("two at once: %s (2 USR2, 1 USR1)\n", order);
  /* SA_NODEFER: the handler interrupts itself. */
  hits = 0;
  install(SIGUSR1, on_nodefer, SA_NODEFER, 0);
  raise(SIGUSR1);
  printf("SA_NODEFER: %d runs, depth %d\n", (int)hits, (int)maxdepth);
  maxdepth = 0;
  hits = 0;
  install(SIGUSR1, on_nodefer, 0, 0);
  raise(SIGUSR1);
  printf("without SA_NODEFER: %d runs, depth %d\n", (int)hits, (int)maxdepth);
  hits = 0;
  /* SA_RESETHAND: the action is the default after one delivery. */
  install(SIGWINCH, on_reset, SA_RESETHAND, 0);
  raise(SIGWINCH);
  raise(SIGWINCH); /* default action of SIGWINCH: ignore */
  struct sigaction cur;
  sigaction(SIGWINCH, 0, &cur);
  printf("SA_RESETHAND: ran %d, handler now default %d\n", (int)hits, cur.sa_handler == SIG_DFL);
  /* Ignored and default-ignored signals. */
  signal(SIGUSR2, SIG_IGN);
  raise(SIGUSR2);
  raise(SIGCHLD);
  raise(SIGURG);
  raise(SIGCONT);
  puts("ignored SIGUSR2, default-ignored SIGCHLD, SIGURG, SIGCONT: still running");
  /* SIG_IGN discards a pending signal. */
  install(SIGUSR2, on_usr2, 0, 0);
  norder = 0;
  sigemptyset(&s);
  sigaddset(&s, SIGUSR2);
  sigprocmask(SIG_BLOCK, &s, 0);
  raise(SIGUSR2);
  signal(SIGUSR2, SIG_IGN);
  sigpending(&pend);
  printf("pending SIGUSR2 after SIG_IGN: %d\n", sigismember(&pend, SIGUSR2));
  sigprocmask(SIG_UNBLOCK, &s, 0);
  /* SIGKILL and SIGSTOP cannot be caught or blocked. */
  errno = 0;
  printf("sigaction(SIGKILL): %d EINVAL %d\n", sigaction(SIGKILL, &cur, 0), errno == EINVAL);
  sigfillset(&s);
  sigprocmask(SIG_SETMASK, &s, 0);
  sigprocmask(SIG_SETMASK, 0, &old);
  printf("blocked all: SIGKILL %d SIGSTOP %d SIGTERM %d\n", sigismember(&old, SIGKILL),
         sigismember(&old, SIGSTOP), sigismember(&old, SIGTERM));
  sigemptyset(&s);
  sigprocmask(SIG_SETMASK, &s, 0);
  return 0;
}

/* ---- alarm, setitimer, pause, sigsuspend, sigtimedwait, nanosleep ----- */

static volatile sig_atomic_t alarms;
static void on_alrm(int sig, siginfo_t *si, void *uc) {
  (void)uc;
  signo_seen = sig;
  code_seen = si->si_code;
  alarms++;
}

static void timer_ms(long first, long every) {
  struct itimerval it = {{every / 1000, (every % 1000) * 1000}, {first / 1000, (first % 1000) * 1000}};
  setitimer(ITIMER_REAL, &it, 0);
}

static int case_alarm(void) {
  install(SIGALRM, on_alrm, 0, 0);
  printf("alarm(5) returns %u, alarm(0) returns %u\n", alarm(5), alarm(0));
  alarm(1);
  int r = pause();
  printf("pause: %d EINTR %d, alarms %d, signo %d\n", r, errno == EINTR, (int)alarms, signo_seen);
  /* A busy loop ended by the timer (the count is not printed). */
  alarms = 0;
  timer_ms(20, 0);
  unsigned long spins = 0;
  while (!alarms) spins++;
  printf("busy loop ended by SIGALRM: %d\n", spins > 0);
  /* A periodic timer and sigsuspend. */
  alarms = 0;
  sigset_t blk, none, old;
  sigemptyset(&blk);
  sigaddset(&blk, SIGALRM);
  sigemptyset(&none);
  sigprocmask(SIG_BLOCK, &blk, &old);
  timer_ms(10, 10);
  for (int i = 0; i < 3; i++) {
    r = sigsuspend(&none);
    printf("sigsuspend %d: %d EINTR %d alarms %d\n", i, r, errno == EINTR, (int)alarms);
  }
  timer_ms(0, 0);
  struct itimerval cur;
  getitimer(ITIMER_REAL, &cur);
  printf("cancelled: %ld %ld\n", (long)cur.it_value.tv_sec, (long)cur.it_value.tv_usec);
  /* A period that ended before the cancel left SIGALRM pending (in host
   * time, under a slow QEMU): ignoring it discards it. */
  signal(SIGALRM, SIG_IGN);
  install(SIGALRM, on_alrm, 0, 0);
  /* sigtimedwait: SIGALRM stays blocked and is taken from the queue. */
  timer_ms(20, 0);
  siginfo_t si;
  struct timespec two = {2, 0};
  int s = sigtimedwait(&blk, &si, &two);
  printf("sigtimedwait: %d (SIGALRM %d) si_signo %d code %d handler ran %d\n", s, SIGALRM,
         si.si_signo, si.si_code, (int)alarms);
  struct timespec short_wait = {0, 30 * 1000 * 1000};
  errno = 0;
  s = sigtimedwait(&blk, &si, &short_wait);
  printf("sigtimedwait with nothing coming: %d EAGAIN %d\n", s, errno == EAGAIN);
  /* A pending signal is returned at once. */
  raise(SIGALRM);
  s = sigwaitinfo(&blk, &si);
  /* (si_code not printed: the kernel says SI_TKILL, QEMU 7.2 0.) */
  printf("sigwaitinfo on a pending SIGALRM: %d\n", s);
  sigprocmask(SIG_SETMASK, &old, 0);
  /* nanosleep interrupted by the timer: EINTR and the time left. */
  alarms = 0;
  timer_ms(20, 0);
  struct timespec req = {1, 0}, rem = {0, 0};
  r = nanosleep(&req, &rem);
  printf("nanosleep: %d EINTR %d, rem between 0.5 and 1 s %d, alarms %d\n", r, errno == EINTR,
         rem.tv_sec == 0 && rem.tv_nsec > 500000000, (int)alarms);
  /* A timer that fires while SIGALRM is blocked does not end a sleep. */
  sigprocmask(SIG_BLOCK, &blk, 0);
  timer_ms(10, 0);
  struct timespec t50 = {0, 50 * 1000 * 1000};
  r = nanosleep(&t50, 0);
  sigset_t pend;
  sigpending(&pend);
  printf("blocked SIGALRM during nanosleep: %d, pending %d\n", r, sigismember(&pend, SIGALRM));
  sigprocmask(SIG_UNBLOCK, &blk, 0);
  printf("delivered on unblock: alarms %d\n", (int)alarms);
  return 0;
}

/* ---- deaths by default actions ---------------------------------------- */

static int die_alarm(void) {
  puts("waiting for SIGALRM with the default action");
  fflush(stdout);
  timer_ms(10, 0);
  pause();
  puts("not reached");
  return 0;
}

static int die_kill(void) {
  puts("kill(getpid(), SIGTERM)");
  fflush(stdout);
  kill(getpid(), SIGTERM);
  puts("not reached");
  return 0;
}

static int die_segv_blocked(void) {
  install(SIGSEGV, on_segv, 0, 0);
  sigset_t s;
  sigemptyset(&s);
  sigaddset(&s, SIGSEGV);
  sigprocmask(SIG_BLOCK, &s, 0);
  puts("a fault with SIGSEGV blocked kills the process");
  fflush(stdout);
  store_to((long *)0x10);
  puts("not reached");
  return 0;
}

static int die_segv_ignored(void) {
  signal(SIGSEGV, SIG_IGN);
  puts("a fault with SIGSEGV ignored kills the process");
  fflush(stdout);
  store_to((long *)0x10);
  puts("not reached");
  return 0;
}

static void on_segv_again(int sig, siginfo_t *si, void *uc) {
  (void)sig; (void)si; (void)uc;
  hits++;
  store_to((long *)0x18); /* SIGSEGV is blocked in its own handler */
}

static int die_segv_in_handler(void) {
  install(SIGSEGV, on_segv_again, 0, 0);
  puts("a fault inside the SIGSEGV handler kills the process");
  fflush(stdout);
  store_to((long *)0x10);
  puts("not reached");
  return 0;
}

static int die_bad_frame(void) {
  install(SIGUSR1, on_usr1, 0, 0);
  puts("a signal whose frame cannot be written (sp unmapped) kills with SIGSEGV");
  fflush(stdout);
  long pid = getpid(), tid = gettid();
  __asm__ volatile("mv s1, sp\n li sp, 0x10000\n mv a0, %0\n mv a1, %1\n li a2, 10\n li a7, 131\n "
                   "ecall\n mv sp, s1"
                   :
                   : "r"(pid), "r"(tid)
                   : "s1", "a0", "a1", "a2", "a7", "memory");
  puts("not reached");
  return 0;
}

static int die_bad_handler(void) {
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = (void (*)(int))0x10;
  sigaction(SIGUSR1, &sa, 0);
  puts("a handler address that faults kills with SIGSEGV");
  fflush(stdout);
  raise(SIGUSR1);
  puts("not reached");
  return 0;
}

/* No timer armed, nothing pending: Linux and QEMU would wait forever;
 * fwprof stops with a one-line error (not run under QEMU). */
static int wait_forever(void) {
  puts("pause() with no timer armed");
  fflush(stdout);
  pause();
  puts("not reached");
  return 0;
}

static int die_abort(void) {
  puts("abort()");
  fflush(stdout);
  abort();
}

int main(int argc, char **argv) {
  setvbuf(stdout, 0, _IOLBF, 0);
  const char *c = argc > 1 ? argv[1] : "";
  static const struct { const char *name; int (*run)(void); } cases[] = {
      {"segv", case_segv},
      {"ill", case_ill},
      {"trap_bus", case_trap_bus},
      {"fpe", case_fpe},
      {"siginfo", case_siginfo},
      {"altstack", case_altstack},
      {"mask", case_mask},
      {"sa_mask", case_sa_mask},
      {"alarm", case_alarm},
      {"die_alarm", die_alarm},
      {"die_kill", die_kill},
      {"die_segv_blocked", die_segv_blocked},
      {"die_segv_ignored", die_segv_ignored},
      {"die_segv_in_handler", die_segv_in_handler},
      {"die_bad_frame", die_bad_frame},
      {"die_bad_handler", die_bad_handler},
      {"die_abort", die_abort},
      {"wait_forever", wait_forever},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
    if (strcmp(c, cases[i].name) == 0) return cases[i].run();
  fprintf(stderr, "usage: sigtest CASE (segv, ill, trap_bus, fpe, siginfo, altstack, mask, "
                  "sa_mask, alarm, die_*)\n");
  return 2;
}
