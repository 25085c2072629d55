/* Tries to start processes and open a network socket; prints the errno
   name of each attempt. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

static const char *name(int e) {
    switch (e) {
    case ENOSYS: return "ENOSYS";
    case EACCES: return "EACCES";
    case EPERM: return "EPERM";
    default: return strerror(e);
    }
}

int main(void) {
    pid_t pid = fork();
    if (pid == 0)
        _exit(0);
    if (pid < 0)
        printf("fork: %s\n", name(errno));
    else {
        waitpid(pid, NULL, 0);
        printf("fork: ok\n");
    }
    char *argv[] = {"/bin/sh", "-c", "echo escaped", NULL};
    char *envp[] = {NULL};
    execve("/bin/sh", argv, envp);
    printf("execve: %s\n", name(errno));
    int s = socket(AF_INET, SOCK_STREAM, 0);
    printf("socket: %s\n", s < 0 ? name(errno) : "ok");
    return 0;
}
