/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Accounting of the host memory the engine holds for connections and QPs.
 * Every such allocation is taken and given back through rne_mem_alloc /
 * rne_mem_free with its kind and size, so QUERY_STATS and the tests can say
 * what an idle QP costs and check that every byte taken is returned.  The
 * offload TCP (tcp/, below this layer) keeps the same count of its own in
 * struct rne_tcp_stats; rne_dev_mem_usage adds the two.
 */
#ifndef RNE_ENGINE_MEM_H
#define RNE_ENGINE_MEM_H

#include <stddef.h>
#include <stdint.h>

enum rne_mem_kind {
    RNE_MEM_CONN,               /* struct rne_iw_conn */
    RNE_MEM_MPA,                /* MPA Request/Reply state, until RTS */
    RNE_MEM_RX_FPDU,            /* an FPDU arriving in pieces or with markers */
    RNE_MEM_MARKERS,            /* FPDU buffers of a marker-sending link */
    RNE_MEM_IW_QP,              /* a QP's iWARP state, WC/ORQ/IRQ rings */
    RNE_MEM_QP_RING,            /* the page lists of a QP's SQ and RQ */
    RNE_MEM_KINDS
};

struct rne_mem {
    uint64_t bytes[RNE_MEM_KINDS];
    uint64_t mismatch;          /* frees beyond what was counted in: 0 */
};

/* malloc (zeroed) of n bytes counted under kind k; NULL without memory. */
void *rne_mem_alloc(struct rne_mem *m, enum rne_mem_kind k, size_t n);
/* Give back p (NULL: nothing), which was taken with the same k and n. */
void rne_mem_free(struct rne_mem *m, enum rne_mem_kind k, void *p,
                  size_t n);
/* Count n bytes taken (or given back) by an allocator of another layer. */
void rne_mem_count(struct rne_mem *m, enum rne_mem_kind k, size_t n,
                   int sign);
/* Bytes of every kind together. */
uint64_t rne_mem_total(const struct rne_mem *m);

#endif
