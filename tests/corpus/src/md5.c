/* MD5 (RFC 1321) over the RFC test suite plus generated data. */
#include "common.h"

static const uint32_t T[64] = {
    0xd76aa478,0xe8c7b756,0x242070db,0xc1bdceee,0xf57c0faf,0x4787c62a,0xa8304613,0xfd469501,
    0x698098d8,0x8b44f7af,0xffff5bb1,0x895cd7be,0x6b901122,0xfd987193,0xa679438e,0x49b40821,
    0xf61e2562,0xc040b340,0x265e5a51,0xe9b6c7aa,0xd62f105d,0x02441453,0xd8a1e681,0xe7d3fbc8,
    0x21e1cde6,0xc33707d6,0xf4d50d87,0x455a14ed,0xa9e3e905,0xfcefa3f8,0x676f02d9,0x8d2a4c8a,
    0xfffa3942,0x8771f681,0x6d9d6122,0xfde5380c,0xa4beea44,0x4bdecfa9,0xf6bb4b60,0xbebfbc70,
    0x289b7ec6,0xeaa127fa,0xd4ef3085,0x04881d05,0xd9d4d039,0xe6db99e5,0x1fa27cf8,0xc4ac5665,
    0xf4292244,0x432aff97,0xab9423a7,0xfc93a039,0x655b59c3,0x8f0ccc92,0xffeff47d,0x85845dd1,
    0x6fa87e4f,0xfe2ce6e0,0xa3014314,0x4e0811a1,0xf7537e82,0xbd3af235,0x2ad7d2bb,0xeb86d391};
static const uint8_t S[64] = {7,12,17,22,7,12,17,22,7,12,17,22,7,12,17,22,5,9,14,20,5,9,14,20,5,9,14,20,5,9,14,20,
    4,11,16,23,4,11,16,23,4,11,16,23,4,11,16,23,6,10,15,21,6,10,15,21,6,10,15,21,6,10,15,21};

static void md5_block(uint32_t h[4], const uint8_t *p) {
    uint32_t m[16];
    for (int i = 0; i < 16; i++) m[i] = p[4*i] | p[4*i+1] << 8 | p[4*i+2] << 16 | (uint32_t)p[4*i+3] << 24;
    uint32_t a = h[0], b = h[1], c = h[2], d = h[3];
    for (int i = 0; i < 64; i++) {
        uint32_t f; int g;
        switch (i / 16) {
        case 0: f = (b & c) | (~b & d); g = i; break;
        case 1: f = (d & b) | (~d & c); g = (5*i + 1) % 16; break;
        case 2: f = b ^ c ^ d; g = (3*i + 5) % 16; break;
        default: f = c ^ (b | ~d); g = (7*i) % 16; break;
        }
        uint32_t t = d; d = c; c = b;
        uint32_t x = a + f + T[i] + m[g];
        b = b + ((x << S[i]) | (x >> (32 - S[i])));
        a = t;
    }
    h[0] += a; h[1] += b; h[2] += c; h[3] += d;
}
static void md5(const uint8_t *msg, size_t n, uint8_t out[16]) {
    uint32_t h[4] = {0x67452301, 0xefcdab89, 0x98badcfe, 0x10325476};
    uint8_t blk[64];
    size_t i = 0;
    for (; i + 64 <= n; i += 64) md5_block(h, msg + i);
    size_t r = n - i;
    memset(blk, 0, 64); memcpy(blk, msg + i, r); blk[r] = 0x80;
    if (r >= 56) { md5_block(h, blk); memset(blk, 0, 64); }
    uint64_t bits = (uint64_t)n * 8;
    for (int k = 0; k < 8; k++) blk[56 + k] = (uint8_t)(bits >> (8*k));
    md5_block(h, blk);
    for (int k = 0; k < 4; k++) for (int j = 0; j < 4; j++) out[4*k+j] = (uint8_t)(h[k] >> (8*j));
}
static uint8_t data[2048];
int main(void) {
    const char *v[] = {"", "a", "abc", "message digest", "abcdefghijklmnopqrstuvwxyz",
        "12345678901234567890123456789012345678901234567890123456789012345678901234567890"};
    uint8_t d[16];
    for (unsigned i = 0; i < sizeof v / sizeof v[0]; i++) {
        md5((const uint8_t *)v[i], strlen(v[i]), d);
        printf("md5[%u] ", i);
        for (int k = 0; k < 16; k++) printf("%02x", d[k]);
        printf("\n");
    }
    uint32_t s = 99, acc = FNV32_INIT;
    for (size_t i = 0; i < sizeof data; i++) data[i] = (uint8_t)xs32(&s);
    for (size_t n = 0; n <= sizeof data; n += 97) { md5(data, n, d); acc = fnv1a32(acc, d, 16); }
    printf("md5 chain fnv=%08lx\n", (unsigned long)acc);
    return 0;
}
