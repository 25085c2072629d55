/* Compresses generated English-like text and a skewed binary stream, decodes them and
 * verifies the round trip; prints sizes and a checksum of the bit stream. */
#include <stdio.h>
#include <string.h>
#include "huffman.h"

static const char *const words[] = {"the", "quick", "brown", "fox", "jumps", "over", "lazy", "dog",
    "firmware", "profile", "instruction", "cache", "branch", "register", "memory", "a", "of", "and"};
static uint8_t text[24000], packed[24000], unpacked[24000];

static size_t make_text(uint32_t seed) {
    size_t n = 0;
    while (n < sizeof text - 16) {
        seed = seed * 1664525u + 1013904223u;
        const char *w = words[(seed >> 16) % (sizeof words / sizeof words[0])];
        size_t l = strlen(w);
        memcpy(text + n, w, l);
        n += l;
        text[n++] = (seed & 0xf) == 0 ? '\n' : ' ';
    }
    return n;
}

static int roundtrip(const char *label, const uint8_t *data, size_t len) {
    static huff_table t;
    huff_build(data, len, &t);
    size_t bits = huff_encode(&t, data, len, packed, sizeof packed);
    size_t got = huff_decode(&t, packed, bits, unpacked, len);
    int ok = got == len && memcmp(data, unpacked, len) == 0;
    uint32_t h = 2166136261u;
    for (size_t i = 0; i < (bits + 7) / 8; i++) { h ^= packed[i]; h *= 16777619u; }
    printf("%-8s %6u bytes -> %6u bits (%u.%02u bits/byte) fnv=%08lx %s\n", label, (unsigned)len, (unsigned)bits,
           (unsigned)(bits / len), (unsigned)(bits * 100 / len % 100), (unsigned long)h, ok ? "ok" : "MISMATCH");
    return ok;
}

int main(void) {
    int ok = 1;
    size_t n = make_text(7);
    ok &= roundtrip("text", text, n);
    uint32_t s = 99;
    for (size_t i = 0; i < 20000; i++) {
        s ^= s << 13; s ^= s >> 17; s ^= s << 5;
        text[i] = (uint8_t)((s & 0xff) < 200 ? s % 4 : s % 64);
    }
    ok &= roundtrip("skewed", text, 20000);
    memset(text, 'x', 5000);
    ok &= roundtrip("single", text, 5000);
    return ok ? 0 : 1;
}
