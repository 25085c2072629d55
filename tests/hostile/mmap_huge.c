/* Asks for 1 TiB of anonymous memory: the request fails with ENOMEM and the
   program goes on (a smaller mapping still works). */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>

int main(void) {
    size_t tib = (size_t)1 << 40;
    void *p = mmap(NULL, tib, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED)
        printf("mmap 1 TiB: %s\n", strerror(errno));
    else
        printf("mmap 1 TiB: mapped\n");
    char *q = mmap(NULL, 1 << 20, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (q == MAP_FAILED)
        return 1;
    memset(q, 7, 1 << 20);
    printf("mmap 1 MiB: %d\n", q[12345]);
    return 0;
}
