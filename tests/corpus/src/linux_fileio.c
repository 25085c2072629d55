/* Linux file I/O: open/write/close, open/read, lseek, fstat, mmap(MAP_PRIVATE) of a file,
 * pread, rename, unlink, errno for missing files, readlink("/proc/self/exe") (prints only
 * whether it ends with the program's name), getrandom (prints only the length), uname
 * (sysname only), getcwd-independent.  argv[1] is a directory the program may write to
 * (default "."). */
#define _GNU_SOURCE
#include "common.h"
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <unistd.h>

int main(int argc, char **argv) {
    const char *dir = argc > 1 ? argv[1] : ".";
    char path[512], path2[512];
    snprintf(path, sizeof path, "%s/fwprof_fileio.tmp", dir);
    snprintf(path2, sizeof path2, "%s/fwprof_fileio2.tmp", dir);
    char data[3000];
    for (int i = 0; i < (int)sizeof data; i++) data[i] = (char)('A' + i % 26);
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd < 0) { printf("open for write failed errno=%d\n", errno); return 1; }
    ssize_t w = write(fd, data, sizeof data);
    printf("write=%ld close=%d\n", (long)w, close(fd));
    fd = open(path, O_RDONLY);
    struct stat st;
    int fs = fstat(fd, &st);
    printf("fstat=%d size=%ld regular=%d mode=%o\n", fs, (long)st.st_size, S_ISREG(st.st_mode), (unsigned)(st.st_mode & 0777));
    char rb[100];
    ssize_t r = read(fd, rb, 10);
    printf("read=%ld data=%.10s\n", (long)r, rb);
    off_t off = lseek(fd, 100, SEEK_SET);
    r = read(fd, rb, 5);
    printf("lseek=%ld read=%ld data=%.5s\n", (long)off, (long)r, rb);
    off = lseek(fd, -4, SEEK_END); r = read(fd, rb, 100);
    printf("lseek end-4=%ld read=%ld data=%.4s\n", (long)off, (long)r, rb);
    printf("lseek cur=%ld\n", (long)lseek(fd, 0, SEEK_CUR));
    r = read(fd, rb, 100); printf("read at eof=%ld\n", (long)r);
    r = pread(fd, rb, 6, 26 * 3 + 1); printf("pread=%ld data=%.6s\n", (long)r, rb);
    char *m = mmap(NULL, (size_t)st.st_size, PROT_READ | PROT_WRITE, MAP_PRIVATE, fd, 0);
    if (m == MAP_FAILED) { printf("mmap failed errno=%d\n", errno); return 1; }
    printf("mmap hash=%08lx m[2999]=%c\n", (unsigned long)fnv1a32(FNV32_INIT, m, (size_t)st.st_size), m[2999]);
    m[0] = 'z';   /* private: must not reach the file */
    munmap(m, (size_t)st.st_size);
    lseek(fd, 0, SEEK_SET); r = read(fd, rb, 1);
    printf("after private write file[0]=%c\n", rb[0]);
    close(fd);
    printf("rename=%d\n", rename(path, path2));
    errno = 0;
    fd = open(path, O_RDONLY);
    printf("open renamed-away fd<0=%d errno=ENOENT:%d\n", fd < 0, errno == ENOENT);
    printf("unlink=%d\n", unlink(path2));
    errno = 0;
    printf("stat missing=%d errno=ENOENT:%d\n", stat(path2, &st), errno == ENOENT);
    char exe[4096];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (n > 0) {
        exe[n] = 0;
        const char *base = strrchr(argv[0], '/'); base = base ? base + 1 : argv[0];
        size_t bl = strlen(base), el = strlen(exe);
        printf("readlink /proc/self/exe ends with program name: %d\n", el >= bl && strcmp(exe + el - bl, base) == 0);
    } else printf("readlink failed\n");
    unsigned char rnd[16];
    printf("getrandom=%ld\n", (long)getrandom(rnd, sizeof rnd, 0));
    struct utsname u;
    if (uname(&u) == 0) printf("uname sysname=%s\n", u.sysname);
    printf("write to stdout via fd 1: ");
    fflush(stdout);
    w = write(1, "ok\n", 3);
    dprintf(2, "stderr line\n");
    printf("done w=%ld\n", (long)w);
    return 0;
}
