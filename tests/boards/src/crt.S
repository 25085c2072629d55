/* Start-up code for the tests/boards programs: what a real MCU's reset
 * handler does, written out so that the copy loop is visible in the
 * profile. _start is first in .text (section .text.start): the board's
 * start address (0x20010000) and the ELF entry.
 *   - sp = __stack_top (end of the DTIM, fe310.ld);
 *   - copy .data word by word from its load address in flash
 *     (__data_load) to its run address in the DTIM (__data_start ..
 *     __data_end): one flash load per word;
 *   - clear .bss (__bss_start .. __bss_end);
 *   - mtvec = 0: a trap stops the run (fwprof) with its cause;
 *   - main(), then exit through semihosting with main's return value. */
	.section .text.start, "ax", @progbits
	.globl _start
_start:
	.option push
	.option norelax
	la	sp, __stack_top
	.option pop
	la	t0, __data_load
	la	t1, __data_start
	la	t2, __data_end
	.globl copy_data
copy_data:
	bgeu	t1, t2, 2f
	lw	t3, 0(t0)
	sw	t3, 0(t1)
	addi	t0, t0, 4
	addi	t1, t1, 4
	j	copy_data
2:	la	t0, __bss_start
	la	t1, __bss_end
3:	bgeu	t0, t1, 4f
	sw	zero, 0(t0)
	addi	t0, t0, 4
	j	3b
4:	call	main
	call	sh_exit
5:	j	5b
