/* Guest-programmed performance counters read around two regions, printed
 * for tests/pmu (crates/fwprof-cli/tests/pmu.rs), which compares them with
 * fwprof's exact profile of the same run. Detects the event encoding of
 * the --core: Ibex (fixed events: mhpmevent3 reads 1 << 3), U74 (two
 * counters: mhpmevent5 reads back 0), or generic. */
#include <stdio.h>

#define CSRW(csr, v) __asm__ volatile("csrw " #csr ", %0" ::"r"((unsigned long)(v)))
#define CSRR(csr) ({ unsigned long v_; __asm__ volatile("csrr %0, " #csr : "=r"(v_)); v_; })

void measure(unsigned long out[16], int (*fn)(int), int arg);
int spin(int n);

volatile int data[256];

/* Loads, stores, data-dependent branches and calls. */
__attribute__((noinline)) int step(int i) {
    int v = data[(i * 7) & 255];
    if (v & 1) {
        data[i & 255] = v + i;
        return v;
    }
    return -i;
}

__attribute__((noinline)) int work(int n) {
    int s = 0;
    for (int i = 0; i < n; i++) {
        s += step(i);
        if (s > 100000)
            s -= 99999;
    }
    return s;
}

static void print(const char *what, const char *mode, const unsigned long *out) {
    printf("%s mode=%s", what, mode);
    for (int k = 0; k < 8; k++)
        printf(" d%d=%lu", k + 3, out[8 + k] - out[k]);
    printf("\n");
}

int main(void) {
    for (int i = 0; i < 256; i++)
        data[i] = i * 37 + 11;
    const char *mode;
    CSRW(mhpmevent3, 0x02);
    if (CSRR(mhpmevent3) == 1u << 3) {
        mode = "ibex";
    } else {
        CSRW(mhpmevent5, 0x103);
        if (CSRR(mhpmevent5) == 0) {
            mode = "u74";
            CSRW(mhpmevent3, 0x0000200); /* integer load retired */
            CSRW(mhpmevent4, 0x0004000); /* conditional branch retired */
        } else {
            mode = "generic";
            CSRW(mhpmevent4, 0x102); /* loads */
            CSRW(mhpmevent6, 0x104); /* conditional branches */
            CSRW(mhpmevent7, 0x201); /* taken conditional branches */
            CSRW(mhpmevent8, 0x202); /* compressed */
            CSRW(mhpmevent9, 0x105); /* branch mispredictions (model) */
            CSRW(mhpmevent10, 0x109); /* data-cache misses (model) */
        }
    }
    unsigned long out[16];
    measure(out, work, 3000);
    print("work", mode, out);
    measure(out, spin, 1000);
    print("spin", mode, out);
    /* mcountinhibit stops a counter: nothing counts while bit 3 is set. */
    CSRW(mcountinhibit, 1u << 3);
    measure(out, spin, 1000);
    CSRW(mcountinhibit, 0);
    print("inhibited", mode, out);
    return 0;
}
