/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Accounting of the host memory the engine holds for connections and QPs.
 * Every such allocation is taken and given back through rnic_mem_alloc /
 * rnic_mem_free with its kind and size, so QUERY_STATS and the tests can say
 * what an idle QP costs and check that every byte taken is returned.  The
 * offload TCP (tcp/, below this layer) keeps the same count of its own in
 * struct rnic_tcp_stats; rnic_dev_mem_usage adds the two.
 */
#ifndef RNIC_ENGINE_MEM_H
#define RNIC_ENGINE_MEM_H

#include <stddef.h>
#include <stdint.h>

enum rnic_mem_kind {
    RNIC_MEM_CONN,              /* struct rnic_iw_conn */
    RNIC_MEM_MPA,               /* MPA Request/Reply state, until RTS */
    RNIC_MEM_RX_FPDU,           /* an FPDU arriving in pieces or with markers */
    RNIC_MEM_MARKERS,           /* FPDU buffers of a marker-sending link */
    RNIC_MEM_IW_QP,             /* a QP's iWARP state, WC/ORQ/IRQ rings */
    RNIC_MEM_QP_RING,           /* the page lists of a QP's SQ and RQ */
    RNIC_MEM_KINDS
};

struct rnic_mem {
    uint64_t bytes[RNIC_MEM_KINDS];
    uint64_t mismatch;          /* frees beyond what was counted in: 0 */
};

/* malloc (zeroed) of n bytes counted under kind k; NULL without memory. */
void *rnic_mem_alloc(struct rnic_mem *m, enum rnic_mem_kind k, size_t n);
/* Give back p (NULL: nothing), which was taken with the same k and n. */
void rnic_mem_free(struct rnic_mem *m, enum rnic_mem_kind k, void *p,
                   size_t n);
/* Count n bytes taken (or given back) by an allocator of another layer. */
void rnic_mem_count(struct rnic_mem *m, enum rnic_mem_kind k, size_t n,
                    int sign);
/* Bytes of every kind together. */
uint64_t rnic_mem_total(const struct rnic_mem *m);

#endif
