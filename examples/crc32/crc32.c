#include "crc32.h"

static uint32_t table[4][256];

void crc32_init_tables(void) {
    for (uint32_t i = 0; i < 256; i++) {
        uint32_t c = i;
        for (int k = 0; k < 8; k++) c = (c & 1) ? 0xEDB88320u ^ (c >> 1) : c >> 1;
        table[0][i] = c;
    }
    for (uint32_t i = 0; i < 256; i++)
        for (int t = 1; t < 4; t++) table[t][i] = (table[t - 1][i] >> 8) ^ table[0][table[t - 1][i] & 0xff];
}

uint32_t crc32_bitwise(const uint8_t *data, size_t len) {
    uint32_t c = 0xFFFFFFFFu;
    for (size_t i = 0; i < len; i++) {
        c ^= data[i];
        for (int k = 0; k < 8; k++) c = (c >> 1) ^ (0xEDB88320u & (0u - (c & 1)));
    }
    return ~c;
}

uint32_t crc32_table(const uint8_t *data, size_t len) {
    uint32_t c = 0xFFFFFFFFu;
    while (len--) c = table[0][(c ^ *data++) & 0xff] ^ (c >> 8);
    return ~c;
}

uint32_t crc32_slice4(const uint8_t *data, size_t len) {
    uint32_t c = 0xFFFFFFFFu;
    while (len >= 4) {
        c ^= (uint32_t)data[0] | (uint32_t)data[1] << 8 | (uint32_t)data[2] << 16 | (uint32_t)data[3] << 24;
        c = table[3][c & 0xff] ^ table[2][(c >> 8) & 0xff] ^ table[1][(c >> 16) & 0xff] ^ table[0][c >> 24];
        data += 4;
        len -= 4;
    }
    while (len--) c = table[0][(c ^ *data++) & 0xff] ^ (c >> 8);
    return ~c;
}
