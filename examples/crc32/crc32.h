/* CRC-32 (IEEE 802.3, reflected, polynomial 0xEDB88320) in three implementations. */
#ifndef EXAMPLE_CRC32_H
#define EXAMPLE_CRC32_H
#include <stddef.h>
#include <stdint.h>

/* Bit-at-a-time reference implementation. */
uint32_t crc32_bitwise(const uint8_t *data, size_t len);
/* Byte-at-a-time table (256 entries), the usual firmware choice. */
uint32_t crc32_table(const uint8_t *data, size_t len);
/* Slicing-by-4 (4 x 256 entries). */
uint32_t crc32_slice4(const uint8_t *data, size_t len);
void crc32_init_tables(void);
#endif
