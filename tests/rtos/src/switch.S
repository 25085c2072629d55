/* The RTOS's trap entry, context switch and system-call stub (tests/rtos).
 * Not instrumented (assembly).
 *
 * trap_entry (mtvec, direct mode: Privileged ISA 20211203, §3.1.7) is the
 * only way into the kernel: timer and external interrupts and ecall all
 * come here with mstatus.MIE = 0 (the trap moved MIE to MPIE, §3.1.6.1),
 * so traps do not nest. It
 *   1. pushes a struct frame (32 registers: mepc, ra, mstatus, gp, tp,
 *      t0-t6, s0-s11, a0-a7; rtos.h) on the CURRENT stack, the interrupted
 *      task's: the whole integer context, sp being the frame's address;
 *   2. moves to the kernel's own stack (irq_stack_top) and calls
 *      irq_dispatch(frame);
 *   3. takes the frame irq_dispatch returns, which is on the stack of the
 *      task to run next (the same task, or another one: a context switch),
 *      restores mepc, mstatus and the registers from it, pops it and mrets
 *      (§3.3.2: MIE = MPIE, privilege = MPP = M).
 * The FPU is left off (mstatus.FS = 0, §3.1.6.6): no task has FP state, and
 * an FP instruction would trap as illegal.
 *
 * kcall(nr, a, b): a7 = nr, a0 = a, a1 = b, ecall; the kernel advances
 * mepc past the ecall and leaves the result in the frame's a0. A leaf with
 * no stack frame: the ecall's trap frame lands right below the caller's
 * frame. */
	.file	"switch.S"		/* the ELF FILE symbol; not a temporary name */
#if __riscv_xlen == 64
#define REG_S sd
#define REG_L ld
#define R 8
#else
#define REG_S sw
#define REG_L lw
#define R 4
#endif
#define FRAME (32 * R)

	.text
	.globl trap_entry
	.balign 4
trap_entry:
	addi	sp, sp, -FRAME
	REG_S	x1, 1 * R(sp)
	REG_S	x3, 3 * R(sp)
	REG_S	x4, 4 * R(sp)
	REG_S	x5, 5 * R(sp)
	REG_S	x6, 6 * R(sp)
	REG_S	x7, 7 * R(sp)
	REG_S	x8, 8 * R(sp)
	REG_S	x9, 9 * R(sp)
	REG_S	x10, 10 * R(sp)
	REG_S	x11, 11 * R(sp)
	REG_S	x12, 12 * R(sp)
	REG_S	x13, 13 * R(sp)
	REG_S	x14, 14 * R(sp)
	REG_S	x15, 15 * R(sp)
	REG_S	x16, 16 * R(sp)
	REG_S	x17, 17 * R(sp)
	REG_S	x18, 18 * R(sp)
	REG_S	x19, 19 * R(sp)
	REG_S	x20, 20 * R(sp)
	REG_S	x21, 21 * R(sp)
	REG_S	x22, 22 * R(sp)
	REG_S	x23, 23 * R(sp)
	REG_S	x24, 24 * R(sp)
	REG_S	x25, 25 * R(sp)
	REG_S	x26, 26 * R(sp)
	REG_S	x27, 27 * R(sp)
	REG_S	x28, 28 * R(sp)
	REG_S	x29, 29 * R(sp)
	REG_S	x30, 30 * R(sp)
	REG_S	x31, 31 * R(sp)
	csrr	t0, mepc
	REG_S	t0, 0 * R(sp)
	csrr	t0, mstatus
	REG_S	t0, 2 * R(sp)
	mv	a0, sp			/* the frame, on the interrupted task's stack */
	la	t0, irq_stack_top	/* the kernel's stack, through t0: sp */
	mv	sp, t0			/* never holds auipc's intermediate value */
	call	irq_dispatch
	mv	sp, a0			/* the frame of the task to run */
	REG_L	t0, 0 * R(sp)
	csrw	mepc, t0
	REG_L	t0, 2 * R(sp)
	csrw	mstatus, t0		/* MIE = 0, MPIE = the task's MIE, MPP = M */
	REG_L	x1, 1 * R(sp)
	REG_L	x3, 3 * R(sp)
	REG_L	x4, 4 * R(sp)
	REG_L	x5, 5 * R(sp)
	REG_L	x6, 6 * R(sp)
	REG_L	x7, 7 * R(sp)
	REG_L	x8, 8 * R(sp)
	REG_L	x9, 9 * R(sp)
	REG_L	x10, 10 * R(sp)
	REG_L	x11, 11 * R(sp)
	REG_L	x12, 12 * R(sp)
	REG_L	x13, 13 * R(sp)
	REG_L	x14, 14 * R(sp)
	REG_L	x15, 15 * R(sp)
	REG_L	x16, 16 * R(sp)
	REG_L	x17, 17 * R(sp)
	REG_L	x18, 18 * R(sp)
	REG_L	x19, 19 * R(sp)
	REG_L	x20, 20 * R(sp)
	REG_L	x21, 21 * R(sp)
	REG_L	x22, 22 * R(sp)
	REG_L	x23, 23 * R(sp)
	REG_L	x24, 24 * R(sp)
	REG_L	x25, 25 * R(sp)
	REG_L	x26, 26 * R(sp)
	REG_L	x27, 27 * R(sp)
	REG_L	x28, 28 * R(sp)
	REG_L	x29, 29 * R(sp)
	REG_L	x30, 30 * R(sp)
	REG_L	x31, 31 * R(sp)
	addi	sp, sp, FRAME
	mret

	.globl kcall
	.balign 4
kcall:
	mv	a7, a0
	mv	a0, a1
	mv	a1, a2
	ecall
	ret

/* The kernel's stack: irq_dispatch and everything it calls run here. */
	.bss
	.balign 16
	.globl irq_stack, irq_stack_top
irq_stack:
	.space	2048			/* IRQ_STACK_BYTES (rtos.h) */
irq_stack_top:
