/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A program built with the sanitizers that commits the error it is asked
 * for, so tests/asan/report-check.sh can prove that a real sanitizer report
 * fails lab.py and qtest-asan.py:
 *   sanitizer-inject asan    heap-buffer-overflow (AddressSanitizer)
 *   sanitizer-inject ubsan   signed integer overflow (UBSan)
 *   sanitizer-inject none    nothing: exit 0
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv)
{
    const char *what = argc > 1 ? argv[1] : "none";
    volatile int n = INT_MAX;
    volatile size_t len = 9;    /* volatile: out of the compiler's sight */
    char *p;

    if (!strcmp(what, "asan")) {
        p = malloc(8);
        memset(p, 0, len);
        printf("wrote past a heap buffer: %d\n", p[0]);
        free(p);
    } else if (!strcmp(what, "ubsan")) {
        n += argc;
        printf("signed overflow: %d\n", n);
    } else if (strcmp(what, "none")) {
        fprintf(stderr, "usage: sanitizer-inject asan|ubsan|none\n");
        return 2;
    }
    return 0;
}
