/* Misaligned loads and stores of every width at every offset (plain accesses; QEMU
 * handles them in both user and system mode). */
#include "common.h"

static unsigned char buf[64] __attribute__((aligned(16)));

int main(void) {
    for (int i = 0; i < 64; i++) buf[i] = (unsigned char)(i * 17 + 1);
    uint32_t h = FNV32_INIT;
    for (int off = 0; off < 8; off++) {
        volatile unsigned char *p = buf + 8 + off;
        uint16_t u16; int16_t s16; uint32_t u32; int32_t s32;
        asm volatile("lhu %0, 0(%1)" : "=r"(u16) : "r"(p));
        asm volatile("lh %0, 1(%1)" : "=r"(s16) : "r"(p));
        asm volatile("lw %0, 0(%1)" : "=r"(u32) : "r"(p));
        asm volatile("lw %0, 3(%1)" : "=r"(s32) : "r"(p));
        printf("off %d: lhu=%04x lh=%d lw=%08lx lw+3=%08lx", off, u16, s16, (unsigned long)u32, (unsigned long)s32);
#if XLEN == 64
        uint64_t u64; uint32_t wu;
        asm volatile("ld %0, 0(%1)" : "=r"(u64) : "r"(p));
        asm volatile("lwu %0, 1(%1)" : "=r"(wu) : "r"(p));
        printf(" ld=%016llx lwu=%08lx", (unsigned long long)u64, (unsigned long)wu);
#endif
        printf("\n");
        asm volatile("sh %0, 0(%1)" : : "r"(0xbeefu), "r"(buf + 32 + off) : "memory");
        asm volatile("sw %0, 5(%1)" : : "r"(0xcafef00du), "r"(buf + 32 + off) : "memory");
#if XLEN == 64
        asm volatile("sd %0, 11(%1)" : : "r"(0x0123456789abcdefull), "r"(buf + 32 + off) : "memory");
#endif
        h = fnv1a32(h, buf, sizeof buf);
    }
    printf("store hash=%08lx\n", (unsigned long)h);
#if HAVE_HW_DOUBLE
    double d; float f;
    memcpy(buf + 1, &(double){3.5}, 8); memcpy(buf + 13, &(float){-2.25f}, 4);
    asm volatile("fld %0, 1(%1)" : "=f"(d) : "r"(buf));
    asm volatile("flw %0, 13(%1)" : "=f"(f) : "r"(buf));
    printf("misaligned fld=%g flw=%g\n", d, (double)f);
    asm volatile("fsd %0, 3(%1)" : : "f"(d * 2), "r"(buf) : "memory");
    asm volatile("fsw %0, 21(%1)" : : "f"(f * 2), "r"(buf) : "memory");
    memcpy(&d, buf + 3, 8); memcpy(&f, buf + 21, 4);
    printf("misaligned fsd=%g fsw=%g\n", d, (double)f);
#endif
    struct __attribute__((packed)) { char c; int i; short s; long long q; } pk = {1, 0x11223344, 0x5566, 0x778899aabbccddeeLL};
    volatile int *pi = &pk.i;
    printf("packed: %x %x %llx\n", *pi, pk.s, (unsigned long long)pk.q);
    return 0;
}
