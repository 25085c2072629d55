/* Start-up code for the tests/virt corpus: no libc, no semihosting.
 *
 * _start is placed first in .text (section .text.start), so it is the ELF
 * entry and the first byte of the image (QEMU's reset ROM jumps to the start
 * of RAM, 0x80000000, with -bios none; a -bios firmware jumps to the kernel
 * address itself). On entry a0 = hart id, a1 = device tree address (from the
 * reset ROM or from the firmware). It
 *   - records its own address (auipc) for main's third argument,
 *   - parks every hart but hart 0 in a wfi loop,
 *   - sets sp to __stack_top (virt.ld), clears .bss,
 *   - enables the FPU (mstatus.FS/sstatus.FS = initial) when compiled with F,
 *   - M-mode builds: points mtvec at trap_entry (direct mode),
 *   - calls main(hartid, dtb, entry_pc) and exits through the SiFive test
 *     device with main's return value (0: PASS, else FAIL with that code).
 * Built with -DSMODE (rv32_kernel) it touches only S-mode CSRs. */
#if __riscv_xlen == 64
#define REG_S sd
#define REG_L ld
#define REGBYTES 8
#else
#define REG_S sw
#define REG_L lw
#define REGBYTES 4
#endif

	.section .text.start, "ax", @progbits
	.globl _start
_start:
	auipc	s2, 0			/* entry pc */
	mv	s0, a0			/* hart id */
	mv	s1, a1			/* device tree */
	bnez	a0, park
	.option push
	.option norelax
	la	sp, __stack_top
	.option pop
	la	t0, __bss_start
	la	t1, __bss_end
1:	bgeu	t0, t1, 2f
	REG_S	zero, 0(t0)
	addi	t0, t0, REGBYTES
	j	1b
2:
#ifdef __riscv_flen
	li	t0, (1 << 13)		/* FS = initial */
#ifdef SMODE
	csrs	sstatus, t0
#else
	csrs	mstatus, t0
#endif
	fscsr	zero
#endif
#ifndef SMODE
	la	t0, trap_entry
	csrw	mtvec, t0
#endif
	mv	a0, s0
	mv	a1, s1
	mv	a2, s2
	call	main
	call	test_exit
park:
	wfi
	j	park

#ifndef SMODE
/* Direct-mode M trap entry: saves the caller-saved registers on the current
 * stack, calls trap_handler(mcause, mepc, mtval), restores them and mrets
 * (to mepc as the handler left it). */
	.text
	.globl trap_entry
	.balign 4
trap_entry:
	addi	sp, sp, -16 * REGBYTES
	REG_S	ra, 0 * REGBYTES(sp)
	REG_S	t0, 1 * REGBYTES(sp)
	REG_S	t1, 2 * REGBYTES(sp)
	REG_S	t2, 3 * REGBYTES(sp)
	REG_S	a0, 4 * REGBYTES(sp)
	REG_S	a1, 5 * REGBYTES(sp)
	REG_S	a2, 6 * REGBYTES(sp)
	REG_S	a3, 7 * REGBYTES(sp)
	REG_S	a4, 8 * REGBYTES(sp)
	REG_S	a5, 9 * REGBYTES(sp)
	REG_S	a6, 10 * REGBYTES(sp)
	REG_S	a7, 11 * REGBYTES(sp)
	REG_S	t3, 12 * REGBYTES(sp)
	REG_S	t4, 13 * REGBYTES(sp)
	REG_S	t5, 14 * REGBYTES(sp)
	REG_S	t6, 15 * REGBYTES(sp)
	csrr	a0, mcause
	csrr	a1, mepc
	csrr	a2, mtval
	call	trap_handler
	REG_L	ra, 0 * REGBYTES(sp)
	REG_L	t0, 1 * REGBYTES(sp)
	REG_L	t1, 2 * REGBYTES(sp)
	REG_L	t2, 3 * REGBYTES(sp)
	REG_L	a0, 4 * REGBYTES(sp)
	REG_L	a1, 5 * REGBYTES(sp)
	REG_L	a2, 6 * REGBYTES(sp)
	REG_L	a3, 7 * REGBYTES(sp)
	REG_L	a4, 8 * REGBYTES(sp)
	REG_L	a5, 9 * REGBYTES(sp)
	REG_L	a6, 10 * REGBYTES(sp)
	REG_L	a7, 11 * REGBYTES(sp)
	REG_L	t3, 12 * REGBYTES(sp)
	REG_L	t4, 13 * REGBYTES(sp)
	REG_L	t5, 14 * REGBYTES(sp)
	REG_L	t6, 15 * REGBYTES(sp)
	addi	sp, sp, 16 * REGBYTES
	mret
#endif
