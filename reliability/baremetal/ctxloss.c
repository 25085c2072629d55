/* 003 kernel 6, forced context loss, bare-metal form (QEMU `virt`, picolibc
 * with semihosting): the work of ../src/ctxloss.c, 2^21 units cut into b
 * bursts, each followed by a wait of about 1 ms:
 *
 *   ctxloss BURSTS [wfi|poll]
 *
 *   wfi  (default)  pause_tick(): sleep until the next 1 ms boundary of the
 *                   CLINT's mtime, as an RTOS's vTaskDelay(1) ends in the
 *                   idle task's wfi. No program code runs while asleep, so a
 *                   sampler paced by time sees none of this program there.
 *   poll            pause_poll(): the same wait as a busy loop on the
 *                   semihosting clock (SYS_ELAPSED): the wait is program code.
 *
 * Prints `ctxloss BURSTS CHECKSUM` (CHECKSUM: the 64-bit LCG state after the
 * 2^21 units, not the Linux workload's, which also mixes in control() and
 * aux()) and exits 0; bad arguments: a message on stderr, exit 2 (picolibc's
 * semihosting stdio has one console FILE: stderr is stdout, SYS_WRITEC).
 *
 * Machine: QEMU 7.2 `virt`'s CLINT for hart 0 (mtimecmp at 0x0200_4000,
 * mtime at 0x0200_BFF8, 10 MHz), which fwprof models too. The timer wait is
 * the polled form: mie.MTIE set, mstatus.MIE clear, so the pending timer
 * ends the wfi without a trap (Privileged ISA 20211203, §3.3.3). */
#include <semihost.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../src/common.h"

#define CLINT_MTIMECMP ((volatile uint32_t *)0x02004000)
#define CLINT_MTIME ((volatile uint32_t *)0x0200BFF8)
/* mtime ticks per millisecond (10 MHz). */
#define TICKS_PER_MS 10000u
#define MIP_MTIP (1u << 7)
#define MSTATUS_MIE (1u << 3)

/* The 64-bit mtime read with 32-bit loads (high, low, high again: retried
 * if the low word carried in between). */
static inline uint64_t mtime(void) {
#if __riscv_xlen == 32
    uint32_t hi, lo;
    do {
        hi = CLINT_MTIME[1];
        lo = CLINT_MTIME[0];
    } while (hi != CLINT_MTIME[1]);
    return (uint64_t)hi << 32 | lo;
#else
    return *(volatile uint64_t *)CLINT_MTIME;
#endif
}

/* mtimecmp := t without a spurious early match on RV32: the high word is
 * parked at all-ones while the low word changes (Privileged ISA §3.2.1). */
static inline void set_mtimecmp(uint64_t t) {
#if __riscv_xlen == 32
    CLINT_MTIMECMP[1] = 0xffffffffu;
    CLINT_MTIMECMP[0] = (uint32_t)t;
    CLINT_MTIMECMP[1] = (uint32_t)(t >> 32);
#else
    *(volatile uint64_t *)CLINT_MTIMECMP = t;
#endif
}

NOINLINE uint64_t burst(long n, uint64_t s) {
    for (long i = 0; i < n; i++) {
        s = s * 6364136223846793005ull + 1442695040888963407ull;
        OPAQUE(s);
    }
    return s;
}

/* Sleep until the next 1 ms boundary of mtime. */
NOINLINE void pause_tick(void) {
    uint64_t deadline = (mtime() / TICKS_PER_MS + 1) * TICKS_PER_MS;
    set_mtimecmp(deadline);
    __asm__ volatile("csrc mstatus, %0" : : "r"(MSTATUS_MIE) : "memory");
    __asm__ volatile("csrs mie, %0" : : "r"(MIP_MTIP) : "memory");
    while (mtime() < deadline)
        __asm__ volatile("wfi" : : : "memory");
    __asm__ volatile("csrc mie, %0" : : "r"(MIP_MTIP) : "memory");
}

/* Busy-wait 1 ms of the semihosting clock (SYS_TICKFREQ / 1000 ticks of
 * SYS_ELAPSED). */
NOINLINE void pause_poll(void) {
    uint64_t wait = sys_semihost_tickfreq() / 1000u;
    uint64_t start = sys_semihost_elapsed();
    while (sys_semihost_elapsed() - start < wait) {
    }
}

NOINLINE uint64_t run_ctxloss_bare(long bursts, void (*pause)(void)) {
    long per = (1L << 21) / bursts;
    uint64_t s = 1;
    for (long b = 0; b < bursts; b++) {
        s = burst(per, s);
        pause();
    }
    return s;
}

static int usage(void) {
    fprintf(stderr, "usage: ctxloss BURSTS [wfi|poll]  (BURSTS 1..2097152; 2^21 units of work, "
                    "a 1 ms wait after each burst)\n");
    return 2;
}

int main(int argc, char **argv) {
    /* picolibc's semihosting crt0: argv[0] = "program-name", argv[1] = the
     * first word of the command line (the program), then the arguments. */
    if (argc < 3 || argc > 4) return usage();
    char *end;
    long bursts = strtol(argv[2], &end, 10);
    if (*argv[2] == '\0' || *end != '\0' || bursts < 1 || bursts > (1L << 21)) {
        fprintf(stderr, "ctxloss: BURSTS must be an integer in 1..2097152, not '%s'\n", argv[2]);
        return 2;
    }
    void (*pause)(void) = pause_tick;
    if (argc == 4) {
        if (strcmp(argv[3], "poll") == 0) {
            pause = pause_poll;
        } else if (strcmp(argv[3], "wfi") != 0) {
            fprintf(stderr, "ctxloss: MODE must be wfi or poll, not '%s'\n", argv[3]);
            return usage();
        }
    }
    uint64_t s = run_ctxloss_bare(bursts, pause);
    printf("ctxloss %ld %016llx\n", bursts, (unsigned long long)s);
    return 0;
}
