/* pmp.c's execute-only code: its own 64-byte-aligned range for a TOR entry. */
    .section .text.xo, "ax"
    .balign 64
    .globl xo_start, xo_func, xo_end
xo_start:
xo_func:                      /* int xo_func(int x) { return 3 * x + 1; } */
    slli a1, a0, 1
    add a0, a0, a1
    addi a0, a0, 1
    ret
    .balign 64
xo_end:
