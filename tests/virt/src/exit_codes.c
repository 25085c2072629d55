/* exit_codes: the SiFive test device's exit protocol. One source, one build
 * variant per -D define (build.sh):
 *
 *   variant     define       write to 0x100000              expected status
 *   exit_pass   EXIT_PASS    sw 0x5555                      0
 *   exit_fail3  EXIT_FAIL3   sw 0x00033333 ((3<<16)|0x3333) 3
 *   exit_fail0  EXIT_FAIL0   sw 0x3333 (FAIL with code 0)   0
 *   exit_reset  EXIT_RESET   sw 0x7777 (reset)              none: QEMU resets
 *                            the machine and the program runs again, forever
 *                            (not comparable with QEMU)
 *   exit_16bit  EXIT_16BIT   sh 0x5555 (2-byte access)      0
 *   exit_wide   EXIT_WIDE    sd 0x5555 (8-byte access, rv64 only): QEMU's
 *                            device accepts 2..4-byte accesses, so the store
 *                            faults; the mtvec handler prints the fault and
 *                            exits with code 7 (sw 0x00073333)   7
 *
 * Expected output: "exit_codes: <variant> on rvXX" then "writing <value>"; the
 * line "still running" only if the write did not end the run (followed by
 * status 1 through a 32-bit FAIL write). exit_wide adds
 *   store access fault mcause=7 mtval=0x100000
 * exit_reset under QEMU repeats its two lines forever.
 */
#include "virt.h"

#if defined(EXIT_PASS)
#define VARIANT "exit_pass"
#elif defined(EXIT_FAIL3)
#define VARIANT "exit_fail3"
#elif defined(EXIT_FAIL0)
#define VARIANT "exit_fail0"
#elif defined(EXIT_RESET)
#define VARIANT "exit_reset"
#elif defined(EXIT_16BIT)
#define VARIANT "exit_16bit"
#elif defined(EXIT_WIDE)
#define VARIANT "exit_wide"
#if __riscv_xlen != 64
#error "exit_wide is rv64 only"
#endif
#else
#error "define one of EXIT_PASS EXIT_FAIL3 EXIT_FAIL0 EXIT_RESET EXIT_16BIT EXIT_WIDE"
#endif

#ifdef EXIT_WIDE
static void wide_trap(reg_t mcause, reg_t mepc, reg_t mtval)
{
  (void)mepc;
  if (mcause == 7) {
    uart_puts("store access fault mcause=");
    uart_put_dec(mcause);
    uart_puts(" mtval=");
    uart_put_hex(mtval);
    uart_puts("\n");
    mmio_write32(TEST_BASE, (7u << 16) | TEST_FAIL);
    halt();
  }
  uart_puts("unexpected trap mcause=");
  uart_put_hex(mcause);
  uart_puts(" mtval=");
  uart_put_hex(mtval);
  uart_puts("\n");
  test_exit(1);
}

/* crt.S's trap_entry calls trap_handler; this overrides virt.c's weak one. */
void trap_handler(reg_t mcause, reg_t mepc, reg_t mtval)
{
  wide_trap(mcause, mepc, mtval);
}
#endif

int main(reg_t hartid, reg_t dtb, reg_t entry_pc)
{
  (void)hartid;
  (void)dtb;
  (void)entry_pc;
  uart_puts("exit_codes: " VARIANT " on rv");
  uart_put_dec(__riscv_xlen);
  uart_puts("\n");
#if defined(EXIT_PASS)
  uart_puts("writing 0x5555 (32-bit)\n");
  mmio_write32(TEST_BASE, TEST_PASS);
#elif defined(EXIT_FAIL3)
  uart_puts("writing 0x33333 (32-bit)\n");
  mmio_write32(TEST_BASE, (3u << 16) | TEST_FAIL);
#elif defined(EXIT_FAIL0)
  uart_puts("writing 0x3333 (32-bit)\n");
  mmio_write32(TEST_BASE, TEST_FAIL);
#elif defined(EXIT_RESET)
  uart_puts("writing 0x7777 (32-bit)\n");
  mmio_write32(TEST_BASE, TEST_RESET);
#elif defined(EXIT_16BIT)
  uart_puts("writing 0x5555 (16-bit)\n");
  mmio_write16(TEST_BASE, TEST_PASS);
#elif defined(EXIT_WIDE)
  /* the handler is crt.S's trap_entry -> trap_handler above; install it
   * again here so this program does not depend on crt.S doing it */
  csr_write(mtvec, (reg_t)trap_entry);
  uart_puts("writing 0x5555 (64-bit)\n");
  *(volatile uint64_t *)TEST_BASE = TEST_PASS;
#endif
  uart_puts("still running\n");
  mmio_write32(TEST_BASE, (1u << 16) | TEST_FAIL);
  halt();
}
