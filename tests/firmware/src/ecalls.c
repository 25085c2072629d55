/* ecalls: ecall from each privilege mode, and its delegation.
 * M-mode ecall -> cause 11 in M; S-mode -> cause 9 in M; U-mode -> cause 8 in
 * M; then with medeleg bit 8 set, a U-mode ecall goes to S-mode's stvec
 * (scause 8, sstatus.SPP = U). Each handler returns a value in a0 the caller
 * checks. Also the mstatus.MPP each M handler sees. */
#include "fw.h"

extern void m_trap_entry(void), s_trap_entry(void);
static volatile reg_t causes[8], mpps[8];
static volatile unsigned n;
static uint8_t s_stack[2048] __attribute__((aligned(16)));
static uint8_t u_stack[2048] __attribute__((aligned(16)));
static volatile reg_t s_seen_cause, s_seen_spp, u_result, s_result;

void m_trap(reg_t *frame, int vector) {
    reg_t cause = csr_read(mcause);
    if (cause & MCAUSE_INT) {
        printf("unexpected interrupt %lx\n", (unsigned long)cause);
        return;
    }
    if (n < 8) {
        causes[n] = cause;
        mpps[n] = (csr_read(mstatus) & MSTATUS_MPP) >> 11;
        n++;
    }
    if (frame[17] == ECALL_DONE) back_to_m(frame[10]);
    frame[10] = frame[10] * 3 + cause; /* the "service" result */
    csr_write(mepc, csr_read(mepc) + 4);
}

void s_trap(reg_t *frame, int vector) {
    s_seen_cause = csr_read(scause);
    s_seen_spp = (csr_read(sstatus) & MSTATUS_SPP) >> 8;
    s_back(frame[10] + 1000);
}

static void u_main(void) {
    reg_t r = ecall2(1, 7);
    ecall2(ECALL_DONE, r);
}

static void s_main(void) {
    reg_t r = ecall2(1, 5);
    ecall2(ECALL_DONE, r);
}

static void u_main_delegated(void) { ecall2(1, 42); }

static void s_main_delegating(void) {
    csr_write(stvec, (reg_t)s_trap_entry);
    reg_t r = s_drop_to_u(u_main_delegated, u_stack + sizeof u_stack);
    ecall2(ECALL_DONE, r);
}

int main(void) {
    csr_write(mtvec, (reg_t)m_trap_entry);
    pmp_allow_all();
    reg_t m = ecall2(1, 1);
    reg_t s = drop_to(1, s_main, s_stack + sizeof s_stack);
    reg_t u = drop_to(0, u_main, u_stack + sizeof u_stack);
    csr_write(medeleg, 1ul << EXC_ECALL_U);
    reg_t d = drop_to(1, s_main_delegating, s_stack + sizeof s_stack);
    printf("ecall from M: result %lu\n", (unsigned long)m);
    printf("ecall from S: result %lu\n", (unsigned long)s);
    printf("ecall from U: result %lu\n", (unsigned long)u);
    for (unsigned i = 0; i < n; i++)
        printf("  M trap %u: mcause %lu, from %s-mode\n", i, (unsigned long)causes[i], mode_name(mpps[i]));
    printf("delegated U ecall: handled in S with scause %lu, SPP %lu, result %lu\n",
           (unsigned long)s_seen_cause, (unsigned long)s_seen_spp, (unsigned long)d);
    int ok = m == 1 * 3 + 11 && s == 5 * 3 + 9 && u == 7 * 3 + 8 && s_seen_cause == 8 &&
             s_seen_spp == 0 && d == 1042;
    return ok ? 0 : 1;
}
