/* rv32_kernel: the "kernel" rv32_fw jumps to, linked at 0x80400000 (rv32;
 * the rv64 variant at 0x80200000), built with -DSMODE (crt.S touches only
 * S-mode CSRs). Also produced as a raw binary, build/rv32_kernel.<cfg>.bin,
 * for loaders that place it themselves (QEMU -kernel X.bin, fwprof
 * --kernel-addr).
 *
 * It prints where it runs (its first instruction's address, read with auipc
 * by crt.S) and whether a1 is the device tree address the firmware got (the
 * firmware leaves {magic, dtb} at 0x80100000), then ends through the SiFive
 * test device from S-mode (the firmware's PMP entry allows it): PASS (status
 * 0) if both are as expected, else FAIL with status 3.
 *
 * Expected output (rv32; rv64: 0x80200000), status 0:
 *   kernel: running in S-mode at 0x80400000
 *   a1 == dtb from fw: yes
 */
#include "virt.h"

int main(reg_t hartid, reg_t dtb, reg_t entry_pc)
{
  (void)hartid;
  volatile uint32_t *mb = (volatile uint32_t *)FW_MAILBOX;
  int same = mb[0] == MAILBOX_MAGIC && *(volatile reg_t *)(FW_MAILBOX + 8) == dtb;
  uart_puts("kernel: running in S-mode at ");
  uart_put_hex(entry_pc);
  uart_puts("\n");
  uart_puts(same ? "a1 == dtb from fw: yes\n" : "a1 == dtb from fw: no\n");
  return entry_pc == KERNEL_ADDR && same ? 0 : 3;
}
