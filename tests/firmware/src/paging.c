/* paging: an S-mode kernel running two U-mode programs with Sv39 (RV64) or
 * Sv32 (RV32) paging, each in its own address space (its own root table and
 * ASID) with its code at the same virtual address 0x400000 (paging.S).
 * M delegates U ecalls and page faults to S. The kernel maps pages on demand
 * (store and load page faults in 0x500000..0x6fffff), kills a program on an
 * instruction page fault, and after each program reads back the A and D bits
 * the hardware set in its page-table entries. M prints the results. */
#include <string.h>
#include "fw.h"

#define PTE_V 1
#define PTE_R 2
#define PTE_W 4
#define PTE_X 8
#define PTE_U 16
#define PTE_A 64
#define PTE_D 128
#define PAGE 4096
#if __riscv_xlen == 64
#define LEVELS 3
#define VPN_BITS 9
#define SATP_MODE (8ul << 60)
#define SATP_ASID(a) ((reg_t)(a) << 44)
#define SATP_PPN ((1ul << 44) - 1)
#else
#define LEVELS 2
#define VPN_BITS 10
#define SATP_MODE (1ul << 31)
#define SATP_ASID(a) ((reg_t)(a) << 22)
#define SATP_PPN ((1ul << 22) - 1)
#endif
#define USER_CODE 0x400000ul
#define USER_STACK 0x7ff000ul
#define DEMAND_LO 0x500000ul
#define DEMAND_HI 0x700000ul

typedef reg_t pte_t;
extern void m_trap_entry(void), s_trap_entry(void);
extern char user_a[], user_b[];

static uint8_t pool[24][PAGE] __attribute__((aligned(PAGE)));
static unsigned pool_used;
static uint8_t k_stack[4096] __attribute__((aligned(16)));

static struct {
    reg_t reports[4];
    unsigned nreports, store_faults, load_faults, other_faults;
    reg_t status, kill_cause, kill_addr;
    unsigned code_ad, stack_ad, demand_ad[3];
} res[2];
static unsigned cur;

static void *alloc_page(void) {
    void *p = pool[pool_used++];
    memset(p, 0, PAGE);
    return p;
}

static pte_t *walk(pte_t *root, reg_t va, int alloc) {
    pte_t *table = root;
    for (int level = LEVELS - 1; level > 0; level--) {
        pte_t *e = &table[(va >> (12 + VPN_BITS * level)) & ((1u << VPN_BITS) - 1)];
        if (!(*e & PTE_V)) {
            if (!alloc) return 0;
            *e = (((reg_t)alloc_page() >> 12) << 10) | PTE_V;
        }
        table = (pte_t *)((*e >> 10) << 12);
    }
    return &table[(va >> 12) & ((1u << VPN_BITS) - 1)];
}

static void map(pte_t *root, reg_t va, reg_t pa, reg_t flags) {
    *walk(root, va, 1) = ((pa >> 12) << 10) | flags | PTE_V;
}

/* The kernel's own memory, identity-mapped for S only (A and D preset). */
static void map_kernel(pte_t *root) {
    reg_t f = PTE_R | PTE_W | PTE_X | PTE_A | PTE_D | PTE_V;
#if __riscv_xlen == 64
    root[2] = ((0x80000000ul >> 12) << 10) | f; /* one 1 GiB page */
#else
    for (reg_t pa = 0x80000000ul; pa < 0x88000000ul; pa += 0x400000ul) /* 4 MiB pages */
        root[pa >> 22] = ((pa >> 12) << 10) | f;
#endif
}

static unsigned ad(pte_t *root, reg_t va) {
    pte_t *e = walk(root, va, 0);
    if (!e) return 9;
    return (*e & PTE_A ? 1 : 0) | (*e & PTE_D ? 2 : 0);
}

void s_trap(reg_t *frame, int vector) {
    reg_t cause = csr_read(scause), tval = csr_read(stval);
    if (cause == EXC_ECALL_U) {
        if (frame[17] == 2) s_back(frame[10]);
        if (res[cur].nreports < 4) res[cur].reports[res[cur].nreports++] = frame[10];
        csr_write(sepc, csr_read(sepc) + 4);
        return;
    }
    if ((cause == EXC_STORE_PAGE || cause == EXC_LOAD_PAGE) && tval >= DEMAND_LO && tval < DEMAND_HI) {
        pte_t *root = (pte_t *)((csr_read(satp) & SATP_PPN) << 12);
        map(root, tval & ~(reg_t)(PAGE - 1), (reg_t)alloc_page(), PTE_U | PTE_R | PTE_W);
        __asm__ volatile("sfence.vma %0" ::"r"(tval) : "memory");
        if (cause == EXC_STORE_PAGE)
            res[cur].store_faults++;
        else
            res[cur].load_faults++;
        return; /* retry the access */
    }
    res[cur].kill_cause = cause;
    res[cur].kill_addr = tval;
    s_back(100 + cause);
}

static void run(unsigned i, char *code) {
    pte_t *root = alloc_page();
    map_kernel(root);
    map(root, USER_CODE, (reg_t)code, PTE_U | PTE_R | PTE_X);
    map(root, USER_STACK, (reg_t)alloc_page(), PTE_U | PTE_R | PTE_W);
    cur = i;
    csr_write(satp, SATP_MODE | SATP_ASID(i + 1) | ((reg_t)root >> 12));
    __asm__ volatile("sfence.vma" ::: "memory");
    res[i].status = s_drop_to_u((void (*)(void))USER_CODE, (void *)(USER_STACK + PAGE));
    res[i].code_ad = ad(root, USER_CODE);
    res[i].stack_ad = ad(root, USER_STACK);
    res[i].demand_ad[0] = ad(root, 0x500000);
    res[i].demand_ad[1] = ad(root, 0x501000);
    res[i].demand_ad[2] = ad(root, 0x600000);
}

static void kernel(void) {
    csr_write(stvec, (reg_t)s_trap_entry);
    csr_write(sscratch, 0);
    run(0, user_a);
    run(1, user_b);
    csr_write(satp, 0);
    __asm__ volatile("sfence.vma" ::: "memory");
    ecall2(ECALL_DONE, 0);
}

void m_trap(reg_t *frame, int vector) {
    reg_t cause = csr_read(mcause);
    if (cause == EXC_ECALL_S && frame[17] == ECALL_DONE) back_to_m(frame[10]);
    printf("unexpected M trap %lx at %lx, tval %lx\n", (unsigned long)cause, (unsigned long)csr_read(mepc),
           (unsigned long)csr_read(mtval));
    back_to_m(~(reg_t)0);
}

static const char *ad_name(unsigned v) {
    static const char *names[] = {"--", "A-", "-D", "AD"};
    return v < 4 ? names[v] : "unmapped";
}

int main(void) {
    csr_write(mtvec, (reg_t)m_trap_entry);
    pmp_allow_all();
    csr_write(medeleg, (1ul << EXC_ECALL_U) | (1ul << EXC_INSN_PAGE) | (1ul << EXC_LOAD_PAGE) |
                           (1ul << EXC_STORE_PAGE));
    reg_t r = drop_to(1, kernel, k_stack + sizeof k_stack);
    int ok = r == 0;
    for (unsigned i = 0; i < 2; i++) {
        printf("program %c: exit %lu, reports", 'a' + i, (unsigned long)res[i].status);
        for (unsigned k = 0; k < res[i].nreports; k++) printf(" %lu", (unsigned long)res[i].reports[k]);
        printf("; demand-mapped by store %u, by load %u", res[i].store_faults, res[i].load_faults);
        if (res[i].kill_cause)
            printf("; killed by cause %lu at %lx", (unsigned long)res[i].kill_cause,
                   (unsigned long)res[i].kill_addr);
        printf("\n  A/D bits: code %s, stack %s, 0x500000 %s, 0x501000 %s, 0x600000 %s\n",
               ad_name(res[i].code_ad), ad_name(res[i].stack_ad), ad_name(res[i].demand_ad[0]),
               ad_name(res[i].demand_ad[1]), ad_name(res[i].demand_ad[2]));
    }
    printf("paging: %u page-table pages used\n", pool_used);
    ok &= res[0].status == 0 && res[0].nreports == 3 && res[0].reports[0] == 5050 && res[0].reports[1] == 0 &&
          res[0].reports[2] == 5050 && res[0].store_faults == 2 && res[0].load_faults == 1;
    ok &= res[1].status == 100 + EXC_INSN_PAGE && res[1].nreports == 2 && res[1].reports[0] == 3628800 &&
          res[1].reports[1] == 0 && res[1].load_faults == 1 && res[1].kill_addr == 0x700000;
    return ok ? 0 : 1;
}
