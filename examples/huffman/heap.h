#ifndef EXAMPLE_HEAP_H
#define EXAMPLE_HEAP_H
#include <stddef.h>
#include <stdint.h>
typedef struct { uint32_t weight; int node; } heap_item;
typedef struct { heap_item items[512]; size_t n; } heap;
void heap_push(heap *h, heap_item it);
heap_item heap_pop(heap *h);
#endif
