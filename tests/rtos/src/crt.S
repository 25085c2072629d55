/* Start-up code for the RTOS (tests/rtos): no libc, no semihosting.
 *
 * QEMU's reset ROM (-bios none) jumps here, to 0x80000000, on every hart
 * with a0 = mhartid. The RTOS uses hart 0 only: any other hart parks at
 * once (mie = 0, wfi forever; Privileged ISA 20211203, §3.3.3). Hart 0
 *   - paints its boot stack (__boot_stack_bottom..__boot_stack_top,
 *     rtos.ld) with 0xdeadbeef words before using it, so the stack report
 *     can tell how deep main went (this loop runs before sp is set),
 *   - sets sp to the boot stack's top, clears .bss,
 *   - points mtvec at switch.S's trap_entry (direct mode, §3.1.7),
 *   - calls main() and exits through the SiFive test device with main's
 *     return value (0: PASS, else FAIL with that code).
 * mstatus.FS stays 0 (off): the RTOS saves no FP state (switch.S). */
	.file	"crt.S"		/* the ELF FILE symbol; not a temporary name */
#if __riscv_xlen == 64
#define REG_S sd
#define REGBYTES 8
#else
#define REG_S sw
#define REGBYTES 4
#endif

	.section .text.start, "ax", @progbits
	.globl _start
_start:
	csrr	t0, mhartid
	bnez	t0, park
	la	t0, __boot_stack_bottom
	la	t1, __boot_stack_top
	li	t2, 0xdeadbeef
1:	bgeu	t0, t1, 2f
	sw	t2, 0(t0)
	addi	t0, t0, 4
	j	1b
2:
	la	t0, __boot_stack_top	/* through t0: sp never holds auipc's */
	mv	sp, t0			/* intermediate value */
	la	t0, __bss_start
	la	t1, __bss_end
3:	bgeu	t0, t1, 4f
	REG_S	zero, 0(t0)
	addi	t0, t0, REGBYTES
	j	3b
4:	la	t0, trap_entry
	csrw	mtvec, t0
	call	main
	call	test_exit
park:
	csrw	mie, zero
5:	wfi
	j	5b
