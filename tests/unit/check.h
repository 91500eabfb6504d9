// SPDX-License-Identifier: GPL-2.0-or-later
/* The engine unit tests' assertion: count every check, report each failure. */
#ifndef RNIC_TESTS_CHECK_H
#define RNIC_TESTS_CHECK_H

#include <stdio.h>

static int fails, checks;

#define CHECK(c) do { checks++; if (!(c)) { fails++; \
    fprintf(stderr, "%s:%d: CHECK failed: %s\n", __FILE__, __LINE__, #c); } } while (0)

/* The last line of a test program: its tally and its exit status. */
static inline int check_report(const char *test)
{
    printf("%s: %d checks, %d failed\n", test, checks, fails);
    return fails ? 1 : 0;
}

#endif
