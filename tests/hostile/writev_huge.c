/* One writev of 1024 iovecs that all point at one 16 MiB buffer (16 GiB in
   all) to stderr: Linux writes at most MAX_RW_COUNT (0x7ffff000) bytes and
   returns that short count. Run with stderr on /dev/null. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>

int main(void) {
    size_t len = 16 << 20;
    char *buf = malloc(len);
    if (!buf)
        return 1;
    memset(buf, 'x', len);
    static struct iovec iov[1024];
    for (int i = 0; i < 1024; i++) {
        iov[i].iov_base = buf;
        iov[i].iov_len = len;
    }
    ssize_t n = writev(2, iov, 1024);
    printf("writev returned %zd\n", n);
    return 0;
}
