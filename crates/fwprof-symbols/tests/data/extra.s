    .text
    .globl notype_entry
notype_entry:
    addi a0, a0, 1
.Llocal_label:
    ret
    .4byte 0
    .size notype_entry, 8
