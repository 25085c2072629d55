/* Tries to read and write outside the sandbox; prints the errno name of
   each attempt. Run from a directory holding a symbolic link `link` to
   /etc/passwd, with no --allow-write. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static void try_open(const char *what, const char *path, int flags) {
    int fd = open(path, flags, 0644);
    if (fd >= 0) {
        printf("%s: opened\n", what);
        close(fd);
    } else {
        printf("%s: %s\n", what, errno == EACCES ? "EACCES" : strerror(errno));
    }
}

int main(void) {
    try_open("absolute", "/etc/passwd", O_RDONLY);
    try_open("dotdot", "../../../../../../../../etc/passwd", O_RDONLY);
    try_open("symlink", "link", O_RDONLY);
    try_open("write", "new-file.txt", O_WRONLY | O_CREAT | O_TRUNC);
    try_open("write-outside", "/tmp/fwprof-hostile-escape.txt", O_WRONLY | O_CREAT | O_TRUNC);
    return 0;
}
