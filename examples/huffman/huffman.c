#include "huffman.h"
#include "heap.h"
#include <string.h>

static void lengths_from_tree(const int *parent, int nleaves, uint8_t *len) {
    for (int s = 0; s < nleaves; s++) {
        int d = 0;
        for (int n = s; parent[n] >= 0; n = parent[n]) d++;
        len[s] = (uint8_t)d;
    }
}

void huff_build(const uint8_t *data, size_t len, huff_table *t) {
    uint32_t freq[256] = {0};
    for (size_t i = 0; i < len; i++) freq[data[i]]++;
    for (;;) {
        static heap h;
        int parent[512];
        h.n = 0;
        int used = 0;
        for (int s = 0; s < 256; s++) {
            parent[s] = -1;
            if (freq[s]) { heap_push(&h, (heap_item){freq[s], s}); used++; }
        }
        memset(t->length, 0, sizeof t->length);
        if (used == 1) { t->length[h.items[0].node] = 1; break; }
        int next = 256;
        while (h.n > 1) {
            heap_item a = heap_pop(&h), b = heap_pop(&h);
            parent[next] = -1;
            parent[a.node] = next;
            parent[b.node] = next;
            heap_push(&h, (heap_item){a.weight + b.weight, next});
            next++;
        }
        uint8_t l[256];
        lengths_from_tree(parent, 256, l);
        int maxlen = 0;
        for (int s = 0; s < 256; s++) if (freq[s]) { t->length[s] = l[s]; if (l[s] > maxlen) maxlen = l[s]; }
        if (maxlen <= 24) break;
        for (int s = 0; s < 256; s++) if (freq[s]) freq[s] = (freq[s] >> 1) | 1;   /* flatten and retry */
    }
    /* canonical codes: by (length, symbol) */
    uint32_t code = 0;
    for (int bits = 1; bits <= 24; bits++) {
        for (int s = 0; s < 256; s++)
            if (t->length[s] == bits) t->code[s] = code++;
        code <<= 1;
    }
}

size_t huff_encode(const huff_table *t, const uint8_t *data, size_t len, uint8_t *out, size_t cap) {
    size_t bit = 0;
    memset(out, 0, cap);
    for (size_t i = 0; i < len; i++) {
        int l = t->length[data[i]];
        uint32_t c = t->code[data[i]];
        if ((bit + l + 7) / 8 > cap) return 0;
        for (int k = l - 1; k >= 0; k--, bit++)
            if ((c >> k) & 1) out[bit / 8] |= (uint8_t)(0x80 >> (bit % 8));
    }
    return bit;
}

size_t huff_decode(const huff_table *t, const uint8_t *bits, size_t nbits, uint8_t *out, size_t count) {
    /* first code and symbol index per length, canonical decoding */
    uint32_t first[25] = {0}, cnt[25] = {0};
    int offset[25] = {0};
    uint8_t sorted[256];
    int n = 0;
    for (int l = 1; l <= 24; l++) {
        offset[l] = n;
        for (int s = 0; s < 256; s++) if (t->length[s] == l) { sorted[n++] = (uint8_t)s; cnt[l]++; }
    }
    uint32_t code = 0;
    for (int l = 1; l <= 24; l++) { first[l] = code; code = (code + cnt[l]) << 1; }
    size_t pos = 0, done = 0;
    while (done < count && pos < nbits) {
        uint32_t c = 0;
        int l = 0;
        for (;;) {
            c = (c << 1) | ((bits[pos / 8] >> (7 - pos % 8)) & 1);
            pos++; l++;
            if (c - first[l] < cnt[l]) { out[done++] = sorted[offset[l] + (c - first[l])]; break; }
            if (l == 24 || pos >= nbits) return done;
        }
    }
    return done;
}
