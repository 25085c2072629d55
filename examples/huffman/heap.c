/* Min-heap of (weight, node) pairs used by the code builder. */
#include "heap.h"

static void swap(heap_item *a, heap_item *b) { heap_item t = *a; *a = *b; *b = t; }

void heap_push(heap *h, heap_item it) {
    size_t i = h->n++;
    h->items[i] = it;
    while (i > 0) {
        size_t parent = (i - 1) / 2;
        if (h->items[parent].weight < h->items[i].weight ||
            (h->items[parent].weight == h->items[i].weight && h->items[parent].node <= h->items[i].node))
            break;
        swap(&h->items[parent], &h->items[i]);
        i = parent;
    }
}

heap_item heap_pop(heap *h) {
    heap_item top = h->items[0];
    h->items[0] = h->items[--h->n];
    size_t i = 0;
    for (;;) {
        size_t l = 2 * i + 1, r = l + 1, m = i;
        if (l < h->n && (h->items[l].weight < h->items[m].weight ||
                         (h->items[l].weight == h->items[m].weight && h->items[l].node < h->items[m].node)))
            m = l;
        if (r < h->n && (h->items[r].weight < h->items[m].weight ||
                         (h->items[r].weight == h->items[m].weight && h->items[r].node < h->items[m].node)))
            m = r;
        if (m == i) break;
        swap(&h->items[i], &h->items[m]);
        i = m;
    }
    return top;
}
