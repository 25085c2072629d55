/* Checksums a generated 16 KiB "firmware image" in 1 KiB blocks with each CRC-32
 * implementation and checks that they agree; a typical boot-time integrity check. */
#include <stdio.h>
#include "crc32.h"

#define IMAGE_SIZE 16384
#define BLOCK 1024
static uint8_t image[IMAGE_SIZE];

static void make_image(uint32_t seed) {
    for (size_t i = 0; i < IMAGE_SIZE; i++) {
        seed = seed * 1103515245u + 12345u;
        image[i] = (uint8_t)(seed >> 16);
    }
}

int main(void) {
    crc32_init_tables();
    make_image(1);
    printf("crc32(\"123456789\") = %08lx\n", (unsigned long)crc32_table((const uint8_t *)"123456789", 9));
    uint32_t whole_bit = crc32_bitwise(image, IMAGE_SIZE);
    uint32_t whole_tab = crc32_table(image, IMAGE_SIZE);
    uint32_t whole_s4 = crc32_slice4(image, IMAGE_SIZE);
    printf("image crc bitwise=%08lx table=%08lx slice4=%08lx\n", (unsigned long)whole_bit, (unsigned long)whole_tab,
           (unsigned long)whole_s4);
    uint32_t combined = 0;
    int mismatches = 0;
    for (int round = 0; round < 8; round++) {
        for (size_t off = 0; off < IMAGE_SIZE; off += BLOCK) {
            uint32_t a = crc32_table(image + off, BLOCK), b = crc32_slice4(image + off, BLOCK);
            mismatches += a != b;
            combined = combined * 31 + a;
        }
        image[round * 97] ^= 0x5a;   /* corrupt one byte per round */
    }
    printf("block crc combined=%08lx mismatches=%d\n", (unsigned long)combined, mismatches);
    return mismatches != 0;
}
