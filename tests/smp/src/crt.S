/* Start-up code for the multi-hart corpus (tests/smp): no libc, no
 * semihosting.
 *
 * With -bios none -kernel X.elf every hart of QEMU's virt board starts at
 * the reset ROM (0x1000), which puts the hart id in a0 and the device tree
 * address in a1 and jumps to 0x80000000, where _start (section .text.start,
 * first in the image) is. All harts run this code at the same time, so:
 *   - every hart reads its own id from mhartid (Privileged ISA 20211203,
 *     §3.1.5) and takes its own stack: hart h's stack is the STACK_SIZE
 *     bytes below stacks_top - h * STACK_SIZE (section .stacks, NOLOAD);
 *   - harts with mhartid >= HARTS (QEMU started with more harts than the
 *     program was built for) park at once: mie = 0, wfi forever;
 *   - hart 0 clears .bss, points mtvec at trap_entry, then releases each
 *     other hart with an IPI (CLINT msip[h] = 1) after a full fence, so the
 *     cleared .bss is visible to them, and spins until every released hart
 *     has counted itself in harts_up (amoadd.w): only then has each one
 *     consumed its release IPI, so an IPI the program sends cannot merge
 *     with it (msip is one bit) and be lost. How long hart 0 spins depends
 *     on the interleaving (QEMU's round-robin switches harts only when one
 *     sleeps, or every 100 ms);
 *   - a released hart has been sleeping in wfi with mie.MSIE set and
 *     mstatus.MIE clear: wfi resumes when an interrupt is pending and
 *     enabled in mie, whatever mstatus.MIE (§3.3.3), and no trap is taken.
 *     It waits until mip.MSIP is set (wfi may also return early, §3.3.3),
 *     clears its msip and waits until mip.MSIP reads 0, so the release IPI
 *     is consumed exactly once and never seen again by the program; then
 *     mie = 0, mtvec = trap_entry, it adds 1 to harts_up and calls
 *     main(hartid);
 *   - hart 0 calls main(0) and exits through the test device with its
 *     return value (0: PASS, else FAIL with that code); the other harts
 *     park when main returns. */
	.file	"crt.S"		/* the ELF FILE symbol; not a temporary name */
/* keep in step with smp.h */
#ifndef HARTS
#error "build with -DHARTS=N (build.sh)"
#endif

#if __riscv_xlen == 64
#define REG_S sd
#define REG_L ld
#define REGBYTES 8
#else
#define REG_S sw
#define REG_L lw
#define REGBYTES 4
#endif

#define STACK_SHIFT 12			/* 4 KiB per hart */
#define STACK_SIZE (1 << STACK_SHIFT)
#define CLINT_BASE 0x2000000		/* msip[h] at +4*h */
#define MIP_MSIP_BIT 8			/* mip/mie bit 3: machine software interrupt */

	.section .text.start, "ax", @progbits
	.globl _start
_start:
	csrr	a0, mhartid
	li	t0, HARTS
	bgeu	a0, t0, park_hart	/* not one of the program's harts */
	/* sp = stacks_top - hartid * STACK_SIZE, computed in t1 so that sp
	 * never holds an intermediate value (a profiler that tracks the lowest
	 * sp would see it) */
	la	t1, stacks_top
	slli	t0, a0, STACK_SHIFT
	sub	t1, t1, t0
	mv	sp, t1
	mv	s0, a0
	bnez	a0, secondary

	/* hart 0: clear .bss, then release the others */
	la	t0, __bss_start
	la	t1, __bss_end
1:	bgeu	t0, t1, 2f
	REG_S	zero, 0(t0)
	addi	t0, t0, REGBYTES
	j	1b
2:	la	t0, trap_entry
	csrw	mtvec, t0
	fence	iorw, iorw
	li	t0, CLINT_BASE
	li	t1, 1
	li	t2, 1
3:	li	t3, HARTS
	bgeu	t2, t3, 4f
	slli	t3, t2, 2
	add	t3, t3, t0
	sw	t1, 0(t3)		/* msip[h] = 1 */
	addi	t2, t2, 1
	j	3b
4:	la	t0, harts_up		/* wait until every other hart is up */
	li	t1, HARTS - 1
5:	lw	t2, 0(t0)
	bne	t2, t1, 5b
	fence	iorw, iorw
	li	a0, 0
	call	main
	call	test_exit		/* does not return */

secondary:
	li	t0, MIP_MSIP_BIT
	csrw	mie, t0			/* only MSIE: wfi wakes on the release IPI */
1:	csrr	t1, mip
	and	t1, t1, t0
	bnez	t1, 2f
	wfi
	j	1b
2:	li	t1, CLINT_BASE
	slli	t2, s0, 2
	add	t1, t1, t2
	sw	zero, 0(t1)		/* msip[h] = 0 */
3:	csrr	t1, mip			/* until the clear has reached mip */
	and	t1, t1, t0
	bnez	t1, 3b
	csrw	mie, zero
	fence	iorw, iorw		/* hart 0's .bss clearing is visible */
	la	t0, trap_entry
	csrw	mtvec, t0
	la	t0, harts_up
	li	t1, 1
	amoadd.w.aqrl zero, t1, (t0)	/* this hart is up */
	mv	a0, s0
	call	main

	.globl park_hart
park_hart:
	csrw	mie, zero
1:	wfi
	j	1b

/* Direct-mode M trap entry (mtvec MODE = 0, §3.1.7): saves the
 * caller-saved registers on the current hart's stack, calls
 * trap_handler(hartid, mcause, mepc, mtval), restores them and mrets (to
 * mepc as the handler left it). Interrupts stay disabled in the handler
 * (the trap cleared mstatus.MIE, §3.1.6.1), so traps do not nest. */
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
	csrr	a0, mhartid
	csrr	a1, mcause
	csrr	a2, mepc
	csrr	a3, mtval
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

	.bss
	.balign 4
harts_up:			/* secondary harts that have consumed their release */
	.word	0

/* One stack per hart, not part of the file (NOLOAD, smp.ld). */
	.section .stacks, "aw", @nobits
	.balign 16
	.globl hart_stacks, stacks_top
hart_stacks:
	.space	HARTS * STACK_SIZE
stacks_top:
