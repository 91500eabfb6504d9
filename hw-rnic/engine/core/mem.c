/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Counted allocations of connection and QP memory (mem.h). */
#include <stdlib.h>
#include "mem.h"

void rnic_mem_count(struct rnic_mem *m, enum rnic_mem_kind k, size_t n,
                    int sign)
{
    if (sign < 0) {
        if (m->bytes[k] < n) {
            /* a free without its alloc: the count is wrong, tests fail */
            m->mismatch++;
            n = (size_t)m->bytes[k];
        }
        m->bytes[k] -= n;
    } else {
        m->bytes[k] += n;
    }
}

void *rnic_mem_alloc(struct rnic_mem *m, enum rnic_mem_kind k, size_t n)
{
    void *p = calloc(1, n ? n : 1);

    if (p) {
        rnic_mem_count(m, k, n, 1);
    }
    return p;
}

void rnic_mem_free(struct rnic_mem *m, enum rnic_mem_kind k, void *p,
                   size_t n)
{
    if (p) {
        rnic_mem_count(m, k, n, -1);
        free(p);
    }
}

uint64_t rnic_mem_total(const struct rnic_mem *m)
{
    uint64_t t = 0;
    int k;

    for (k = 0; k < RNIC_MEM_KINDS; k++) {
        t += m->bytes[k];
    }
    return t;
}
