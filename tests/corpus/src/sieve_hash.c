/* Sieve of Eratosthenes and an open-addressing hash table with deletions. */
#include "common.h"

#define LIMIT 200000
static unsigned char composite[LIMIT + 1];
#define CAP 4096
static uint32_t keys[CAP], vals[CAP]; static unsigned char state[CAP];  /* 0 empty 1 full 2 deleted */

static int find(uint32_t k) {
    uint32_t i = (k * 2654435761u) & (CAP - 1);
    for (int n = 0; n < CAP; n++, i = (i + 1) & (CAP - 1)) {
        if (state[i] == 0) return -1;
        if (state[i] == 1 && keys[i] == k) return (int)i;
    }
    return -1;
}
static void put(uint32_t k, uint32_t v) {
    int f = find(k); if (f >= 0) { vals[f] = v; return; }
    uint32_t i = (k * 2654435761u) & (CAP - 1);
    while (state[i] == 1) i = (i + 1) & (CAP - 1);
    keys[i] = k; vals[i] = v; state[i] = 1;
}
static void del(uint32_t k) { int f = find(k); if (f >= 0) state[f] = 2; }

int main(void) {
    unsigned count = 0; unsigned long long sum = 0;
    for (unsigned i = 2; i <= LIMIT; i++) {
        if (composite[i]) continue;
        count++; sum += i;
        for (unsigned long j = (unsigned long)i * i; j <= LIMIT; j += i) composite[j] = 1;
    }
    printf("primes<=%d: %u sum=%llu\n", LIMIT, count, sum);
    uint32_t s = 1;
    for (int i = 0; i < 3000; i++) { uint32_t k = xs32(&s) % 5000; if (i % 3 == 2) del(k); else put(k, (uint32_t)i); }
    unsigned live = 0; uint32_t acc = 0;
    for (uint32_t k = 0; k < 5000; k++) { int f = find(k); if (f >= 0) { live++; acc = acc * 31 + vals[f]; } }
    printf("hash live=%u acc=%08lx\n", live, (unsigned long)acc);
    return 0;
}
