/* String and memory functions: strlen strcpy strncpy strcat strcmp strncmp strchr strrchr
 * strstr strspn strcspn strpbrk strtok memcpy memmove memset memcmp memchr, toupper. */
#include "common.h"
#include <ctype.h>
#include <stdlib.h>

static char big[4100], big2[4100];

int main(void) {
    char buf[128];
    strcpy(buf, "Hello");
    strcat(buf, ", ");
    strncat(buf, "world!!!", 6);
    printf("%s len=%u\n", buf, (unsigned)strlen(buf));
    printf("cmp: %d %d %d %d\n", strcmp("abc", "abd") < 0, strcmp("b", "a") > 0, strcmp("x", "x"),
           strncmp("abcdef", "abcxyz", 3));
    printf("chr: %s | %s | %d\n", strchr(buf, 'o'), strrchr(buf, 'o'), strchr(buf, 'z') == NULL);
    printf("str: %s | %d\n", strstr("needle in a haystack", "hay"), strstr("abc", "abd") == NULL);
    printf("spn: %u %u %s\n", (unsigned)strspn("aabbcdd", "ab"), (unsigned)strcspn("hello world", " "),
           strpbrk("find the vowel", "aeiou"));
    char toks[] = "a,b,,c;d e;;f";
    printf("tok:");
    for (char *t = strtok(toks, ",; "); t; t = strtok(NULL, ",; ")) printf(" [%s]", t);
    printf("\n");
    char n[8]; memset(n, 'x', sizeof n); strncpy(n, "ab", sizeof n);
    printf("strncpy pads: %d %d\n", n[2] == 0, n[7] == 0);
    /* memmove overlap both directions, memcpy of all alignments and lengths */
    for (int i = 0; i < 4096; i++) big[i] = (char)(i * 7 + 3);
    uint32_t h = FNV32_INIT;
    for (int src = 0; src < 8; src++)
        for (int dst = 0; dst < 8; dst++)
            for (int len = 0; len < 70; len += 3) {
                memcpy(big2 + dst, big + src, len);
                h = fnv1a32(h, big2, 80);
            }
    printf("memcpy hash=%08lx\n", (unsigned long)h);
    memmove(big + 10, big, 1000); h = fnv1a32(FNV32_INIT, big, 1100);
    memmove(big, big + 33, 1000); h = fnv1a32(h, big, 1100);
    printf("memmove hash=%08lx\n", (unsigned long)h);
    memset(big + 5, 0xab, 3000);
    printf("memset/memchr: %d %d\n", (int)((char *)memchr(big, 0xab, 4096) - big), memcmp(big + 5, big + 6, 2999));
    printf("memcmp: %d %d\n", memcmp("abc", "abd", 3) < 0, memcmp("\xff", "\x01", 1) > 0);
    for (char *p = buf; *p; p++) *p = (char)toupper((unsigned char)*p);
    printf("upper: %s\n", buf);
    int digits = 0, alphas = 0, spaces = 0;
    const char *text = "The 3 quick foxes jumped 42 times over 7 lazy dogs.\n";
    for (const char *p = text; *p; p++) { digits += isdigit((unsigned char)*p) != 0; alphas += isalpha((unsigned char)*p) != 0; spaces += isspace((unsigned char)*p) != 0; }
    printf("ctype: digits=%d alphas=%d spaces=%d\n", digits, alphas, spaces);
    char *d = strdup("duplicate me"); printf("strdup: %s %u\n", d, (unsigned)strlen(d)); free(d);
    /* reverse words in place */
    char sent[] = "one two three four five";
    int len = (int)strlen(sent);
    for (int i = 0, j = len - 1; i < j; i++, j--) { char t = sent[i]; sent[i] = sent[j]; sent[j] = t; }
    for (int i = 0; i < len;) { int j = i; while (j < len && sent[j] != ' ') j++;
        for (int a = i, b = j - 1; a < b; a++, b--) { char t = sent[a]; sent[a] = sent[b]; sent[b] = t; } i = j + 1; }
    printf("reversed: %s\n", sent);
    return 0;
}
