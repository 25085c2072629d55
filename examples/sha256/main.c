/* Hashes test vectors, then a 64 KiB buffer in chunks of varying size (the streaming
 * path), then a hash chain: the kind of work a secure-boot verifier does. */
#include <stdio.h>
#include <string.h>
#include "sha256.h"

static uint8_t buffer[65536];

static void print_digest(const char *label, const uint8_t d[32]) {
    printf("%-12s", label);
    for (int i = 0; i < 32; i++) printf("%02x", d[i]);
    printf("\n");
}

int main(void) {
    sha256_ctx ctx;
    uint8_t d[32];
    sha256_init(&ctx);
    sha256_update(&ctx, "abc", 3);
    sha256_final(&ctx, d);
    print_digest("abc", d);
    uint32_t x = 0x12345678;
    for (size_t i = 0; i < sizeof buffer; i++) {
        x ^= x << 13; x ^= x >> 17; x ^= x << 5;
        buffer[i] = (uint8_t)x;
    }
    sha256_init(&ctx);
    for (size_t off = 0, step = 1; off < sizeof buffer; off += step, step = step * 3 % 997 + 1)
        sha256_update(&ctx, buffer + off, off + step <= sizeof buffer ? step : sizeof buffer - off);
    sha256_final(&ctx, d);
    print_digest("buffer", d);
    for (int i = 0; i < 500; i++) {
        sha256_init(&ctx);
        sha256_update(&ctx, d, sizeof d);
        sha256_final(&ctx, d);
    }
    print_digest("chain500", d);
    return 0;
}
