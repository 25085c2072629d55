/* Static Huffman coding of byte streams: frequency count, code construction with a
 * binary heap, canonical code assignment, bit-level encode and table-free decode. */
#ifndef EXAMPLE_HUFFMAN_H
#define EXAMPLE_HUFFMAN_H
#include <stddef.h>
#include <stdint.h>

typedef struct {
    uint8_t length[256];   /* code length per symbol, 0 = unused */
    uint32_t code[256];    /* canonical code, MSB-first */
} huff_table;

/* Builds a length-limited (<= 24 bits) canonical code from the data's byte frequencies. */
void huff_build(const uint8_t *data, size_t len, huff_table *t);
/* Encodes into out (capacity in bytes); returns the number of bits written, or 0 if full. */
size_t huff_encode(const huff_table *t, const uint8_t *data, size_t len, uint8_t *out, size_t cap);
/* Decodes count symbols from bits; returns the number of symbols decoded. */
size_t huff_decode(const huff_table *t, const uint8_t *bits, size_t nbits, uint8_t *out, size_t count);
#endif
