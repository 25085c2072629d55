/* Calls every RISC-V semihosting operation directly through the
 * `slli x0,x0,0x1f; ebreak; srai x0,x0,7` sequence (bare metal only) and prints only
 * values that are deterministic under QEMU: return codes, file contents and lengths,
 * errno values, the command line after its first word.
 *
 * QEMU 7.2 quirks this program pins down (fwprof must reproduce them):
 *  - SYS_OPEN mode 8 ("a") opens the host file O_WRONLY|O_CREAT *without* O_APPEND, so
 *    the "append" overwrites from offset 0 (content becomes "++23456789...", flen 36).
 *  - SYS_ISTTY on a :tt handle returns 0 when QEMU's stdio chardev is a pipe.
 *  - SYS_READC blocks forever at EOF (the chardev never reports EOF), hence the
 *    "readc" mode below, which must be run with stdin = tests/corpus/input/readc.txt.  Times (CLOCK, TIME, ELAPSED) are
 * reduced to sanity booleans; HEAPINFO to "succeeded".  Files are created in the current
 * directory (or in the directory given as the first user argument).  stdin is expected to
 * be empty (/dev/null): READ from :tt returns "all bytes not read".  With the user
 * argument "readc" the program instead calls SYS_READC twice (stdin must then hold at
 * least two bytes, e.g. "AB") and skips SYS_READ on :tt.
 * SYS_SYSTEM (runs a host shell command) is deliberately not called.
 * Ends with SYS_EXIT_EXTENDED(ADP_Stopped_ApplicationExit, 0). */
#include "common.h"

enum {
    SYS_OPEN = 0x01, SYS_CLOSE = 0x02, SYS_WRITEC = 0x03, SYS_WRITE0 = 0x04, SYS_WRITE = 0x05,
    SYS_READ = 0x06, SYS_READC = 0x07, SYS_ISERROR = 0x08, SYS_ISTTY = 0x09, SYS_SEEK = 0x0a,
    SYS_FLEN = 0x0c, SYS_TMPNAM = 0x0d, SYS_REMOVE = 0x0e, SYS_RENAME = 0x0f, SYS_CLOCK = 0x10,
    SYS_TIME = 0x11, SYS_ERRNO = 0x13, SYS_GET_CMDLINE = 0x15, SYS_HEAPINFO = 0x16,
    SYS_EXIT = 0x18, SYS_EXIT_EXTENDED = 0x20, SYS_ELAPSED = 0x30, SYS_TICKFREQ = 0x31,
};
#define ADP_Stopped_ApplicationExit 0x20026

/* Parameter blocks are arrays of XLEN-sized fields. */
typedef long field;

/* The trap sequence lives in its own 16-byte aligned section so that the three
 * uncompressed instructions never straddle a page (QEMU reads them back to recognise the
 * call) and linker relaxation cannot disturb the alignment. */
asm(".pushsection .text.semihost_trap, \"ax\", @progbits\n"
    ".balign 16\n"
    ".globl semihost_trap\n"
    ".type semihost_trap, @function\n"
    "semihost_trap:\n"
    ".option push\n.option norvc\n"
    "slli x0, x0, 0x1f\nebreak\nsrai x0, x0, 7\nret\n"
    ".option pop\n"
    ".size semihost_trap, .-semihost_trap\n"
    ".popsection\n");
long semihost_trap(long op, const void *arg);

static long semihost(long op, const void *arg) { return semihost_trap(op, arg); }

static void say(const char *s) { semihost(SYS_WRITE0, s); }
static char line[512];
#define SAY(...) do { snprintf(line, sizeof line, __VA_ARGS__); say(line); } while (0)

static long sh_open(const char *name, long mode) {
    field b[3] = {(field)name, mode, (field)strlen(name)};
    return semihost(SYS_OPEN, b);
}
static long sh_close(long fd) { field b[1] = {fd}; return semihost(SYS_CLOSE, b); }
static long sh_write(long fd, const void *p, long n) { field b[3] = {fd, (field)p, n}; return semihost(SYS_WRITE, b); }
static long sh_read(long fd, void *p, long n) { field b[3] = {fd, (field)p, n}; return semihost(SYS_READ, b); }
static long sh_seek(long fd, long pos) { field b[2] = {fd, pos}; return semihost(SYS_SEEK, b); }
static long sh_flen(long fd) { field b[1] = {fd}; return semihost(SYS_FLEN, b); }
static long sh_istty(long fd) { field b[1] = {fd}; return semihost(SYS_ISTTY, b); }
static long sh_iserror(long st) { field b[1] = {st}; return semihost(SYS_ISERROR, b); }
static long sh_remove(const char *n) { field b[2] = {(field)n, (field)strlen(n)}; return semihost(SYS_REMOVE, b); }
static long sh_rename(const char *a, const char *b2) {
    field b[4] = {(field)a, (field)strlen(a), (field)b2, (field)strlen(b2)};
    return semihost(SYS_RENAME, b);
}

int main(int argc, char **argv) {
    /* picolibc: argv[0]="program-name", argv[1]=first cmdline word, argv[2..]=user args */
    const char *dir = argc > 2 && strcmp(argv[2], "readc") != 0 ? argv[2] : ".";
    int do_readc = argc > 2 && strcmp(argv[argc - 1], "readc") == 0;
    say("SYS_WRITE0: hello from semihosting\n");
    const char *wc = "SYS_WRITEC: ok\n";
    for (const char *p = wc; *p; p++) semihost(SYS_WRITEC, p);

    /* :tt in the three modes */
    long tin = sh_open(":tt", 0), tout = sh_open(":tt", 4), terr = sh_open(":tt", 8);
    SAY("open :tt r/w/a ok=%d %d %d\n", tin >= 0, tout >= 0, terr >= 0);
    const char *msg = "SYS_WRITE to :tt (w)\n";
    long nw = sh_write(tout, msg, (long)strlen(msg));
    SAY("SYS_WRITE not-written=%ld\n", nw);
    nw = sh_write(terr, "SYS_WRITE to :tt (a) -> stderr\n", 31);
    SAY("SYS_WRITE stderr not-written=%ld\n", nw);
    SAY("SYS_ISTTY :tt=%ld\n", sh_istty(tout));
    char rbuf[64];
    long nr;
    if (do_readc) {
        long c1 = semihost(SYS_READC, NULL);
        long c2 = semihost(SYS_READC, NULL);
        SAY("SYS_READC=%ld,%ld\n", c1, c2);
    } else {
        nr = sh_read(tin, rbuf, 16);
        SAY("SYS_READ :tt at EOF not-read=%ld of 16\n", nr);
    }

    /* :semihosting-features */
    long ff = sh_open(":semihosting-features", 0);
    if (ff >= 0) {
        unsigned char feat[8] = {0};
        long flen = sh_flen(ff);
        long left = sh_read(ff, feat, 8);
        SAY("features: flen=%ld not-read=%ld magic=%c%c%c%c byte=%02x\n", flen, left, feat[0], feat[1], feat[2], feat[3],
            feat[4]);
        SAY("features close=%ld\n", sh_close(ff));
    } else SAY("features: open failed\n");

    /* a real file */
    char name[256], name2[256];
    snprintf(name, sizeof name, "%s/semihost_test.txt", dir);
    snprintf(name2, sizeof name2, "%s/semihost_renamed.txt", dir);
    long fd = sh_open(name, 6);   /* "w+" */
    SAY("open file ok=%d istty=%ld\n", fd >= 0, sh_istty(fd));
    const char *content = "0123456789abcdefghijklmnopqrstuvwxyz";
    SAY("write not-written=%ld\n", sh_write(fd, content, 36));
    SAY("flen=%ld\n", sh_flen(fd));
    SAY("seek 10 -> %ld\n", sh_seek(fd, 10));
    memset(rbuf, 0, sizeof rbuf);
    nr = sh_read(fd, rbuf, 5);
    SAY("read not-read=%ld data=%s\n", nr, rbuf);
    sh_seek(fd, 30);
    memset(rbuf, 0, sizeof rbuf);
    nr = sh_read(fd, rbuf, 20);
    SAY("short read not-read=%ld data=%s\n", nr, rbuf);
    nr = sh_read(fd, rbuf, 20);
    SAY("read at eof not-read=%ld\n", nr);
    SAY("close=%ld\n", sh_close(fd));
    fd = sh_open(name, 8);   /* "a": append */
    SAY("open append ok=%d\n", fd >= 0);
    SAY("append write not-written=%ld\n", sh_write(fd, "++", 2));
    SAY("append close=%ld\n", sh_close(fd));
    fd = sh_open(name, 1);   /* "rb" */
    memset(rbuf, 0, sizeof rbuf);
    nr = sh_read(fd, rbuf, 6);
    SAY("after append flen=%ld head=%s\n", sh_flen(fd), rbuf);
    sh_close(fd);
    SAY("rename=%ld\n", sh_rename(name, name2));
    long bad = sh_open(name, 0);
    long err = semihost(SYS_ERRNO, NULL);
    SAY("open renamed-away: fd=%ld iserror=%d errno=%ld\n", bad, sh_iserror(bad) != 0, err);
    SAY("iserror(0)=%ld\n", sh_iserror(0));
    SAY("remove=%ld remove-again-fails=%d\n", sh_remove(name2), sh_remove(name2) != 0);
    SAY("close bad fd=%ld\n", sh_close(12345));

    /* TMPNAM: only the status (the name contains a host-specific path) */
    char tmpn[64];
    field tb[3] = {(field)tmpn, 42, (field)sizeof tmpn};
    SAY("tmpnam status=%ld\n", semihost(SYS_TMPNAM, tb));

    /* times: sanity only */
    long clk = semihost(SYS_CLOCK, NULL);
    long tm = semihost(SYS_TIME, NULL);
    SAY("clock>=0:%d time>2020:%d\n", clk >= 0, (unsigned long)tm > 1577836800ul);
    field el[2] = {0, 0};
    long er = semihost(SYS_ELAPSED, el);
    SAY("elapsed status=%ld\n", er);
    SAY("tickfreq=%ld\n", semihost(SYS_TICKFREQ, NULL));

    /* command line: print the words after the first (the first is the image name) */
    char cmd[256];
    field cb[2] = {(field)cmd, (field)sizeof cmd};
    long cr = semihost(SYS_GET_CMDLINE, cb);
    const char *rest = strchr(cmd, ' ');
    SAY("get_cmdline status=%ld args=<%s>\n", cr, cr == 0 && rest ? rest + 1 : "");

    field heap[4];
    field hb[1] = {(field)heap};
    long hr = semihost(SYS_HEAPINFO, hb);
    SAY("heapinfo returned=%ld\n", hr);

    say("exiting via SYS_EXIT_EXTENDED(0)\n");
    field xb[2] = {ADP_Stopped_ApplicationExit, 0};
    semihost(SYS_EXIT_EXTENDED, xb);
    say("not reached\n");
    return 1;
}
