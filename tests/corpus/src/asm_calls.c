/* Calls into hand-written assembly (asm_calls.S): jump table, non-leaf asm, copy loop. */
#include "common.h"

long asm_select(long k, long x);
long asm_sum_select(long n);
void asm_copy(void *dst, const void *src, size_t n);

int main(void) {
    for (long k = 0; k < 8; k++) printf("asm_select(%ld, 9)=%ld\n", k, asm_select(k, 9));
    printf("asm_sum_select(5000)=%ld\n", asm_sum_select(5000));
    char src[100], dst[100] = {0};
    for (int i = 0; i < 100; i++) src[i] = (char)(i * 3);
    asm_copy(dst, src, 100);
    printf("asm_copy equal=%d hash=%08lx\n", memcmp(src, dst, 100) == 0, (unsigned long)fnv1a32(FNV32_INIT, dst, 100));
    return 0;
}
