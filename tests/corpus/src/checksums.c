/* CRC32 (bitwise and table), Adler-32, FNV-1a 32/64, Fletcher-16 over generated data. */
#include "common.h"

static uint32_t crc_table[256];
static void crc_init(void) {
    for (uint32_t i = 0; i < 256; i++) {
        uint32_t c = i;
        for (int k = 0; k < 8; k++) c = (c & 1) ? 0xEDB88320u ^ (c >> 1) : c >> 1;
        crc_table[i] = c;
    }
}
static uint32_t crc32_table(const uint8_t *p, size_t n) {
    uint32_t c = 0xFFFFFFFFu;
    while (n--) c = crc_table[(c ^ *p++) & 0xFF] ^ (c >> 8);
    return c ^ 0xFFFFFFFFu;
}
static uint32_t crc32_bitwise(const uint8_t *p, size_t n) {
    uint32_t c = 0xFFFFFFFFu;
    for (size_t i = 0; i < n; i++) {
        c ^= p[i];
        for (int k = 0; k < 8; k++) c = (c >> 1) ^ (0xEDB88320u & -(c & 1));
    }
    return ~c;
}
static uint32_t adler32(const uint8_t *p, size_t n) {
    uint32_t a = 1, b = 0;
    for (size_t i = 0; i < n; i++) { a = (a + p[i]) % 65521; b = (b + a) % 65521; }
    return (b << 16) | a;
}
static uint64_t fnv1a64(const uint8_t *p, size_t n) {
    uint64_t h = 14695981039346656037ull;
    for (size_t i = 0; i < n; i++) { h ^= p[i]; h *= 1099511628211ull; }
    return h;
}
static uint16_t fletcher16(const uint8_t *p, size_t n) {
    uint16_t s1 = 0, s2 = 0;
    for (size_t i = 0; i < n; i++) { s1 = (s1 + p[i]) % 255; s2 = (s2 + s1) % 255; }
    return (uint16_t)((s2 << 8) | s1);
}

static uint8_t buf[4096];

int main(void) {
    crc_init();
    const char *check = "123456789";
    printf("crc32(\"123456789\") = %08lx (expect cbf43926)\n",
           (unsigned long)crc32_table((const uint8_t *)check, 9));
    printf("adler32(\"Wikipedia\") = %08lx (expect 11e60398)\n",
           (unsigned long)adler32((const uint8_t *)"Wikipedia", 9));
    uint32_t s = 12345;
    for (size_t i = 0; i < sizeof buf; i++) buf[i] = (uint8_t)xs32(&s);
    for (size_t n = 1; n <= sizeof buf; n *= 4) {
        uint32_t a = crc32_table(buf, n), b = crc32_bitwise(buf, n);
        printf("n=%4u crc=%08lx %s adler=%08lx fnv32=%08lx fnv64=%016llx fl16=%04x\n",
               (unsigned)n, (unsigned long)a, a == b ? "ok" : "MISMATCH",
               (unsigned long)adler32(buf, n), (unsigned long)fnv1a32(FNV32_INIT, buf, n),
               (unsigned long long)fnv1a64(buf, n), fletcher16(buf, n));
    }
    return 0;
}
