/* Bitfield structs (signed/unsigned, spanning words), unions, bit tricks, popcount/clz/ctz
 * via libgcc, byte swaps, packing and unpacking of a register-like layout. */
#include "common.h"

struct reg {
    unsigned en : 1;
    unsigned mode : 3;
    signed delta : 5;
    unsigned addr : 19;
    unsigned flags : 4;
};
struct wide { unsigned long long lo : 40; unsigned long long hi : 24; };
union pun { struct reg r; uint32_t raw; };

static unsigned popc(uint32_t x) { unsigned n = 0; while (x) { x &= x - 1; n++; } return n; }
static uint32_t rev32(uint32_t x) {
    x = ((x >> 1) & 0x55555555u) | ((x & 0x55555555u) << 1);
    x = ((x >> 2) & 0x33333333u) | ((x & 0x33333333u) << 2);
    x = ((x >> 4) & 0x0f0f0f0fu) | ((x & 0x0f0f0f0fu) << 4);
    return __builtin_bswap32(x);
}

int main(void) {
    union pun u; u.raw = 0;
    uint32_t s = 11, h = FNV32_INIT;
    for (int i = 0; i < 1000; i++) {
        uint32_t v = xs32(&s);
        u.r.en = v & 1; u.r.mode = v >> 1; u.r.delta = (int)(v >> 4) - 16; u.r.addr = v >> 9; u.r.flags = v >> 28;
        int d = u.r.delta;
        h = fnv1a32(h, &u.raw, 4); h = fnv1a32(h, &d, 4);
    }
    printf("bitfield hash=%08lx last raw=%08lx delta=%d\n", (unsigned long)h, (unsigned long)u.raw, u.r.delta);
    u.r.delta = -16; printf("delta min=%d raw=%08lx\n", u.r.delta, (unsigned long)u.raw);
    u.r.delta = 15; u.r.addr = 0x7ffff; printf("delta max=%d addr=%x raw=%08lx\n", u.r.delta, u.r.addr, (unsigned long)u.raw);
    struct wide w = {0, 0};
    w.lo = 0xffffffffffull; w.hi = 0xabcdef;
    w.lo += 1;
    printf("wide lo=%llx hi=%llx\n", (unsigned long long)w.lo, (unsigned long long)w.hi);
    uint32_t pc = 0, clz = 0, ctz = 0, rv = 0;
    for (int i = 0; i < 1000; i++) {
        uint32_t v = xs32(&s) | 1u << (i % 32);
        pc += popc(v) == (unsigned)__builtin_popcount(v) ? __builtin_popcount(v) : 1000000;
        clz += __builtin_clz(v); ctz += __builtin_ctz(v); rv ^= rev32(v);
    }
    printf("popcount=%lu clz=%lu ctz=%lu rev=%08lx\n", (unsigned long)pc, (unsigned long)clz, (unsigned long)ctz,
           (unsigned long)rv);
    uint64_t q = 0x0102030405060708ull;
    printf("bswap64=%016llx bswap16=%04x clzll=%d ctzll=%d popll=%d parity=%d\n", (unsigned long long)__builtin_bswap64(q),
           __builtin_bswap16(0x1234), __builtin_clzll(q), __builtin_ctzll(q), __builtin_popcountll(q), __builtin_parityll(q));
    /* rotate idioms */
    uint32_t x = 0x80000001u; uint64_t y = 0x8000000000000001ull;
    for (int i = 0; i < 5; i++) { x = (x << 3) | (x >> 29); y = (y >> 7) | (y << 57); }
    printf("rot32=%08lx rot64=%016llx\n", (unsigned long)x, (unsigned long long)y);
    return 0;
}
