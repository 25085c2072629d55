/* Shared helpers for the firmware trap corpus (tests/firmware): CSR access, the
 * CLINT of QEMU's `virt` machine, and privilege-mode switches.
 *
 * Every program runs in M-mode from picolibc's semihosting crt0, does its work
 * (taking interrupts and exceptions, or running S- and U-mode code), then prints
 * what happened from M-mode and returns an exit status. Nothing depends on host
 * time: under `qemu-system-riscv* -icount shift=N,sleep=off` and
 * `fwprof --icount-shift N` every interrupt arrives at the same instruction. */
#ifndef FW_H
#define FW_H
#include <stdint.h>
#include <stdio.h>

typedef uintptr_t reg_t;

#define csr_read(csr) ({ reg_t v_; __asm__ volatile("csrr %0, " #csr : "=r"(v_)); v_; })
#define csr_write(csr, v) __asm__ volatile("csrw " #csr ", %0" ::"r"((reg_t)(v)) : "memory")
#define csr_set(csr, v) __asm__ volatile("csrs " #csr ", %0" ::"r"((reg_t)(v)) : "memory")
#define csr_clear(csr, v) __asm__ volatile("csrc " #csr ", %0" ::"r"((reg_t)(v)) : "memory")
#define csr_swap(csr, v) ({ reg_t v_; __asm__ volatile("csrrw %0, " #csr ", %1" : "=r"(v_) : "r"((reg_t)(v)) : "memory"); v_; })

/* mstatus / sstatus bits (Privileged ISA 20211203, 3.1.6) */
#define MSTATUS_SIE (1ul << 1)
#define MSTATUS_MIE (1ul << 3)
#define MSTATUS_SPIE (1ul << 5)
#define MSTATUS_MPIE (1ul << 7)
#define MSTATUS_SPP (1ul << 8)
#define MSTATUS_MPP (3ul << 11)
#define MSTATUS_MPP_S (1ul << 11)
#define MSTATUS_MPRV (1ul << 17)
#define MSTATUS_SUM (1ul << 18)
#define MSTATUS_MXR (1ul << 19)

/* interrupt numbers: bit positions in mip/mie, mcause codes */
#define IRQ_S_SOFT 1
#define IRQ_M_SOFT 3
#define IRQ_S_TIMER 5
#define IRQ_M_TIMER 7
#define MCAUSE_INT ((reg_t)1 << (__riscv_xlen - 1))

/* exception codes */
#define EXC_INSN_ACCESS 1
#define EXC_ILLEGAL 2
#define EXC_BREAKPOINT 3
#define EXC_LOAD_ACCESS 5
#define EXC_STORE_ACCESS 7
#define EXC_ECALL_U 8
#define EXC_ECALL_S 9
#define EXC_ECALL_M 11
#define EXC_INSN_PAGE 12
#define EXC_LOAD_PAGE 13
#define EXC_STORE_PAGE 15

/* QEMU virt's CLINT (hw/riscv/virt.c: VIRT_CLINT 0x2000000; hw/intc/riscv_aclint.c),
 * timebase 10 MHz: one mtime tick is 100 ns. */
#define CLINT_MSIP ((volatile uint32_t *)0x2000000)
#define CLINT_MTIMECMP_LO ((volatile uint32_t *)0x2004000)
#define CLINT_MTIMECMP_HI ((volatile uint32_t *)0x2004004)
#define CLINT_MTIME_LO ((volatile uint32_t *)0x200bff8)
#define CLINT_MTIME_HI ((volatile uint32_t *)0x200bffc)

static inline uint64_t mtime(void) {
#if __riscv_xlen == 64
    return *(volatile uint64_t *)0x200bff8;
#else
    uint32_t hi, lo;
    do {
        hi = *CLINT_MTIME_HI;
        lo = *CLINT_MTIME_LO;
    } while (hi != *CLINT_MTIME_HI);
    return ((uint64_t)hi << 32) | lo;
#endif
}

/* Sets mtimecmp. On RV32 the high word goes first through all-ones low bits so
 * no spurious interrupt fires between the two stores. */
static inline void set_mtimecmp(uint64_t t) {
#if __riscv_xlen == 64
    *(volatile uint64_t *)0x2004000 = t;
#else
    *CLINT_MTIMECMP_LO = 0xffffffffu;
    *CLINT_MTIMECMP_HI = (uint32_t)(t >> 32);
    *CLINT_MTIMECMP_LO = (uint32_t)t;
#endif
}

static inline void timer_off(void) { set_mtimecmp(~0ull); }

/* PMP entry 0 = NAPOT over the whole address space, RWX. S- and U-mode need a
 * matching entry: QEMU 7.2 refuses an mret to S or U while no PMP entry is
 * active (target/riscv/op_helper.c helper_mret: illegal instruction, mtval =
 * the mret word 0x30200073), and denies S/U accesses no entry matches. */
static inline void pmp_allow_all(void) {
    csr_write(pmpaddr0, ~(reg_t)0 >> 2);
    csr_write(pmpcfg0, 0x1f); /* A=NAPOT, X, W, R */
}

/* Leaves M-mode for `mode` (1 = S, 0 = U) at `entry` with stack `sp`, through
 * mret; interrupts of the target mode as MPIE says (disabled here). Returns when
 * the lower mode makes an ecall that the M-mode trap handler turns into a return
 * (see fw_trap.S: drop_to / back_to_m). */
reg_t drop_to(int mode, void (*entry)(void), void *sp);

/* Called by an M-mode trap handler: ends the drop_to() call, returning `value`. */
void back_to_m(reg_t value) __attribute__((noreturn));

unsigned insn_len(reg_t pc);

/* From S-mode: enter U-mode at `entry` with stack `sp` through sret; returns the
 * value an S-mode trap handler passes to s_back(). */
reg_t s_drop_to_u(void (*entry)(void), void *sp);
void s_back(reg_t value) __attribute__((noreturn));

/* An ecall with a7 = ECALL_DONE asks the handling mode to end the drop. */
#define ECALL_DONE 0x5f
static inline reg_t ecall2(reg_t a7, reg_t a0) {
    register reg_t r_a0 __asm__("a0") = a0;
    register reg_t r_a7 __asm__("a7") = a7;
    __asm__ volatile("ecall" : "+r"(r_a0) : "r"(r_a7) : "memory");
    return r_a0;
}

static inline const char *mode_name(reg_t mpp) {
    return mpp == 3 ? "M" : mpp == 1 ? "S" : "U";
}
#endif
