/* rv32_fw: a tiny M-mode "firmware" in the place of OpenSBI's fw_jump, linked
 * at 0x80000000 (QEMU: -bios build/rv32_fw.rv32.elf). Run together with
 * rv32_kernel (-kernel): QEMU loads a -kernel ELF at its own addresses and a
 * raw -kernel binary at the firmware's end aligned up to 4 MiB (rv32) / 2 MiB
 * (rv64), i.e. 0x80400000 / 0x80200000, where this firmware jumps.
 *
 * It prints "fw: hart <a0> dtb <nonzero|zero>", writes {magic, a1} to the
 * mailbox at 0x80100000 for the kernel to check, delegates nothing
 * (medeleg = mideleg = 0), gives S-mode access to everything through PMP entry
 * 0 (pmpaddr0 = all ones, NAPOT, RWX: QEMU 7.2 denies S/U accesses that match
 * no entry), satp = 0, sets mstatus.MPP = S, mepc = the kernel address, prints
 * "fw: mret to S-mode at <kernel address>" and mrets with a0/a1 as it got
 * them. A trap into M afterwards (e.g. no kernel loaded: an illegal
 * instruction at the kernel address) prints "fw: trap mcause=.. mepc=..
 * mtval=.." and exits with status 1.
 *
 * Expected output (rv32; rv64: 0x80200000), then the kernel's:
 *   fw: hart 0 dtb nonzero
 *   fw: mret to S-mode at 0x80400000
 */
#include "virt.h"

/* runs on the firmware's own stack: sp may be the kernel's */
__asm__(".text\n"
        ".balign 4\n"
        "fw_trap:\n"
        "  la sp, __stack_top\n"
        "  csrr a0, mcause\n"
        "  csrr a1, mepc\n"
        "  csrr a2, mtval\n"
        "  j fw_trap_c\n");
void fw_trap(void);

__attribute__((noreturn, used)) void fw_trap_c(reg_t mcause, reg_t mepc, reg_t mtval)
{
  uart_puts("fw: trap mcause=");
  uart_put_hex(mcause);
  uart_puts(" mepc=");
  uart_put_hex(mepc);
  uart_puts(" mtval=");
  uart_put_hex(mtval);
  uart_puts("\n");
  test_exit(1);
}

int main(reg_t hartid, reg_t dtb, reg_t entry_pc)
{
  (void)entry_pc;
  uart_puts("fw: hart ");
  uart_put_dec(hartid);
  uart_puts(dtb ? " dtb nonzero\n" : " dtb zero\n");

  volatile uint32_t *mb = (volatile uint32_t *)FW_MAILBOX;
  *(volatile reg_t *)(FW_MAILBOX + 8) = dtb;
  mb[0] = MAILBOX_MAGIC;

  csr_write(mtvec, (reg_t)fw_trap);
  csr_write(medeleg, 0);
  csr_write(mideleg, 0);
  csr_write(pmpaddr0, (reg_t)-1);
  csr_write(pmpcfg0, 0x1f); /* entry 0: A = NAPOT, X, W, R */
  csr_write(satp, 0);
  csr_clear(mstatus, MSTATUS_MPP | MSTATUS_MPIE);
  csr_set(mstatus, MSTATUS_MPP_S);
  csr_write(mepc, KERNEL_ADDR);
  uart_puts("fw: mret to S-mode at ");
  uart_put_hex(KERNEL_ADDR);
  uart_puts("\n");

  register reg_t a0 __asm__("a0") = hartid;
  register reg_t a1 __asm__("a1") = dtb;
  __asm__ volatile("mret" ::"r"(a0), "r"(a1) : "memory");
  __builtin_unreachable();
}
