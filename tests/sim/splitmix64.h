/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * splitmix64, the tests' reproducible random source: the simulator, its
 * link, the device harnesses and the benches all draw from it, so one seed
 * replays a run.
 */
#ifndef RNIC_TESTS_SPLITMIX64_H
#define RNIC_TESTS_SPLITMIX64_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

/* One draw: advances *state. */
static inline uint64_t splitmix64_next(uint64_t *state)
{
    uint64_t z = (*state += 0x9e3779b97f4a7c15ull);

    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

/* len bytes of successive draws (host byte order; a short tail is cut). */
static inline void splitmix64_fill(uint64_t *state, void *buf, size_t len)
{
    uint8_t *out = buf;

    while (len) {
        uint64_t z = splitmix64_next(state);
        size_t n = len < 8 ? len : 8;

        memcpy(out, &z, n);
        out += n;
        len -= n;
    }
}

#endif
