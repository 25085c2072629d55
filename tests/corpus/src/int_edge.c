/* Integer edge cases: div/rem by zero and overflow (RISC-V defines the results), mulh,
 * mulhsu, mulhu, shifts by xlen-1, W instructions on RV64, sign/zero extension. */
#include "common.h"

#define R(insn, a, b) ({ long r_; asm volatile(insn " %0, %1, %2" : "=r"(r_) : "r"(a), "r"(b)); r_; })

static const long V[] = {0, 1, -1, 2, -2, 7, -7, 0x7fffffff, -0x7fffffff - 1, 0x12345678,
#if XLEN == 64
    0x7fffffffffffffffL, -0x7fffffffffffffffL - 1, 0x00000000ffffffffL, 0x123456789abcdef0L,
#endif
};
#define NV (sizeof V / sizeof V[0])

int main(void) {
    static const char *names[] = {"div", "divu", "rem", "remu", "mul", "mulh", "mulhsu", "mulhu",
                                  "sll", "srl", "sra", "slt", "sltu"};
    for (int op = 0; op < 13; op++) {
        uint32_t h = FNV32_INIT;
        printf("%-7s", names[op]);
        for (size_t i = 0; i < NV; i++)
            for (size_t j = 0; j < NV; j++) {
                long a = V[i], b = V[j], r = 0;
                switch (op) {
                case 0: r = R("div", a, b); break;   case 1: r = R("divu", a, b); break;
                case 2: r = R("rem", a, b); break;   case 3: r = R("remu", a, b); break;
                case 4: r = R("mul", a, b); break;   case 5: r = R("mulh", a, b); break;
                case 6: r = R("mulhsu", a, b); break; case 7: r = R("mulhu", a, b); break;
                case 8: r = R("sll", a, b); break;   case 9: r = R("srl", a, b); break;
                case 10: r = R("sra", a, b); break;  case 11: r = R("slt", a, b); break;
                case 12: r = R("sltu", a, b); break;
                }
                h = fnv1a32(h, &r, sizeof r);
                if (j == 0 || j == 2 || (i == 8 && j == 2)) printf(" %lx", (unsigned long)r);
            }
        printf(" h=%08lx\n", (unsigned long)h);
    }
    long minv = (long)1 << (XLEN - 1);
    printf("MIN/-1: div=%lx rem=%lx\n", (unsigned long)R("div", minv, -1L), (unsigned long)R("rem", minv, -1L));
    printf("x/0: div=%lx divu=%lx rem=%lx remu=%lx\n", (unsigned long)R("div", 42L, 0L), (unsigned long)R("divu", 42L, 0L),
           (unsigned long)R("rem", -42L, 0L), (unsigned long)R("remu", 42L, 0L));
    long r;
    asm volatile("slli %0, %1, %2" : "=r"(r) : "r"(1L), "i"(XLEN - 1)); printf("slli xlen-1: %lx\n", (unsigned long)r);
    asm volatile("srai %0, %1, %2" : "=r"(r) : "r"(minv), "i"(XLEN - 1)); printf("srai xlen-1: %lx\n", (unsigned long)r);
    asm volatile("srli %0, %1, %2" : "=r"(r) : "r"(-1L), "i"(XLEN - 1)); printf("srli xlen-1: %lx\n", (unsigned long)r);
    printf("sll by xlen+3 (masked): %lx\n", (unsigned long)R("sll", 1L, (long)XLEN + 3));
    asm volatile("slli %0, %1, 31" : "=r"(r) : "r"(3L)); printf("slli 31: %lx\n", (unsigned long)r);
    asm volatile("srai %0, %1, 31" : "=r"(r) : "r"(-0x7fffffffL - 1)); printf("srai 31: %lx\n", (unsigned long)r);
#if XLEN == 64
    static const char *wn[] = {"addw", "subw", "sllw", "srlw", "sraw", "mulw", "divw", "divuw", "remw", "remuw"};
    for (int op = 0; op < 10; op++) {
        uint32_t h = FNV32_INIT;
        printf("%-6s", wn[op]);
        for (size_t i = 0; i < NV; i++)
            for (size_t j = 0; j < NV; j++) {
                long a = V[i], b = V[j], x = 0;
                switch (op) {
                case 0: x = R("addw", a, b); break; case 1: x = R("subw", a, b); break;
                case 2: x = R("sllw", a, b); break; case 3: x = R("srlw", a, b); break;
                case 4: x = R("sraw", a, b); break; case 5: x = R("mulw", a, b); break;
                case 6: x = R("divw", a, b); break; case 7: x = R("divuw", a, b); break;
                case 8: x = R("remw", a, b); break; case 9: x = R("remuw", a, b); break;
                }
                h = fnv1a32(h, &x, sizeof x);
                if (j == 0 || j == 2) printf(" %lx", (unsigned long)x);
            }
        printf(" h=%08lx\n", (unsigned long)h);
    }
    asm volatile("addiw %0, %1, 1" : "=r"(r) : "r"(0x7fffffffL)); printf("addiw overflow: %lx\n", (unsigned long)r);
    asm volatile("slliw %0, %1, 31" : "=r"(r) : "r"(1L)); printf("slliw 31: %lx\n", (unsigned long)r);
    asm volatile("srliw %0, %1, 31" : "=r"(r) : "r"(-1L)); printf("srliw 31: %lx\n", (unsigned long)r);
    asm volatile("sraiw %0, %1, 31" : "=r"(r) : "r"(0x80000000L)); printf("sraiw 31: %lx\n", (unsigned long)r);
    asm volatile("srai %0, %1, 63" : "=r"(r) : "r"(minv)); printf("srai 63: %lx\n", (unsigned long)r);
    asm volatile("divw %0, %1, %2" : "=r"(r) : "r"(-0x80000000L), "r"(-1L)); printf("divw MIN/-1: %lx\n", (unsigned long)r);
    asm volatile("remw %0, %1, %2" : "=r"(r) : "r"(-0x80000000L), "r"(-1L)); printf("remw MIN/-1: %lx\n", (unsigned long)r);
    asm volatile("divuw %0, %1, %2" : "=r"(r) : "r"(5L), "r"(0L)); printf("divuw x/0: %lx\n", (unsigned long)r);
    asm volatile("lui %0, 0x80000" : "=r"(r)); printf("lui sign-extends: %lx\n", (unsigned long)r);
    __int128 p = (__int128)0x123456789abcdefLL * (__int128)-0x7edcba987654321LL;
    unsigned __int128 up = (unsigned __int128)0xffffffffffffffffull * 0xffffffffffffffffull;
    printf("int128: %016llx%016llx %016llx%016llx\n", (unsigned long long)(p >> 64), (unsigned long long)p,
           (unsigned long long)(up >> 64), (unsigned long long)up);
#endif
    long long a64 = 0x123456789LL, b64 = -987654321LL;
    printf("64-bit ops: mul=%llx div=%llx rem=%llx shr=%llx\n", (unsigned long long)(a64 * b64),
           (unsigned long long)(a64 / b64), (unsigned long long)(a64 % b64), (unsigned long long)(b64 >> 7));
    unsigned long long ua = 0xfedcba9876543210ull;
    printf("u64: div=%llx rem=%llx\n", ua / 12345, ua % 12345);
    signed char sc = (signed char)0x80; unsigned char uc = 0x80; short ss = (short)0x8000;
    printf("ext: %ld %lu %ld\n", (long)sc, (unsigned long)uc, (long)ss);
    return 0;
}
