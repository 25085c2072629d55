/* Real self-modifying code: N times (argv[1], default 1000) rewrite the
 * immediate of an `addi a0, a0, K` in an executable page, then call it.
 * With argv[2] = "nofence" the rewrite is not followed by `fence.i` (QEMU
 * and fwprof both notice the store into translated code); otherwise it is,
 * as the RISC-V ISA requires. Prints a checksum of the results. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

typedef uint64_t (*fn_t)(uint64_t);

/* addi a0, a0, imm (I-type, opcode 0x13, funct3 0, rd = rs1 = x10). */
static uint32_t addi_a0(int32_t imm)
{
    return ((uint32_t)(imm & 0xfff) << 20) | (10u << 15) | (10u << 7) | 0x13u;
}

int main(int argc, char **argv)
{
    long n = argc > 1 ? atol(argv[1]) : 1000;
    int fence = !(argc > 2 && strcmp(argv[2], "nofence") == 0);
    uint32_t *code = mmap(NULL, 4096, PROT_READ | PROT_WRITE | PROT_EXEC,
                          MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (code == MAP_FAILED) {
        perror("mmap");
        return 1;
    }
    code[0] = addi_a0(0);
    code[1] = 0x00008067u; /* ret (jalr x0, 0(ra)) */
    __asm__ volatile("fence.i" ::: "memory");
    fn_t f = (fn_t)(uintptr_t)code;
    uint64_t sum = 0;
    for (long i = 0; i < n; i++) {
        int32_t k = (int32_t)(i % 2000) - 1000;
        /* Store through a volatile pointer so the compiler keeps it. */
        ((volatile uint32_t *)code)[0] = addi_a0(k);
        if (fence)
            __asm__ volatile("fence.i" ::: "memory");
        sum = sum * 33 + f((uint64_t)i);
    }
    printf("self-modifying (%s): %ld iterations, checksum %llu\n",
           fence ? "fence.i" : "no fence.i", n, (unsigned long long)sum);
    return 0;
}
