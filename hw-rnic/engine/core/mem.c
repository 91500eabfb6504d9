/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Counted allocations of connection and QP memory (mem.h). */
#include <stdlib.h>
#include "mem.h"

void rne_mem_count(struct rne_mem *m, enum rne_mem_kind k, size_t n,
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

void *rne_mem_alloc(struct rne_mem *m, enum rne_mem_kind k, size_t n)
{
    void *p = calloc(1, n ? n : 1);

    if (p) {
        rne_mem_count(m, k, n, 1);
    }
    return p;
}

void rne_mem_free(struct rne_mem *m, enum rne_mem_kind k, void *p,
                  size_t n)
{
    if (p) {
        rne_mem_count(m, k, n, -1);
        free(p);
    }
}

uint64_t rne_mem_total(const struct rne_mem *m)
{
    uint64_t t = 0;
    int k;

    for (k = 0; k < RNE_MEM_KINDS; k++) {
        t += m->bytes[k];
    }
    return t;
}
