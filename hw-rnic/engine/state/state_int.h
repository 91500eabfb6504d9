/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Internals of the state stream: the section ids (their order is the load
 * order) and the per-layer save/load functions state.c calls.
 */
#ifndef RNIC_ENGINE_STATE_INT_H
#define RNIC_ENGINE_STATE_INT_H

#include "core/dev.h"
#include "stream.h"

enum rnic_st_sec {
    RNIC_SEC_CONFIG = 1,        /* the configuration, must match */
    RNIC_SEC_DEV,               /* registers, latches, port, counters */
    RNIC_SEC_ADMQ,              /* the admin queue's rings and indices */
    RNIC_SEC_EQ,                /* one per live EQ */
    RNIC_SEC_L2Q,               /* one per live L2 TX/RX queue */
    RNIC_SEC_PD,                /* PD owners */
    RNIC_SEC_CQ,                /* one per live CQ */
    RNIC_SEC_SRQ,               /* one per live SRQ */
    RNIC_SEC_QP,                /* one per live QP */
    RNIC_SEC_MR,                /* one per allocated MR */
    RNIC_SEC_DBLATCH,           /* RDMA doorbells latched, in order */
    RNIC_SEC_FRAMES,            /* backlog, egress and loopback frames */
    RNIC_SEC_IW,                /* the iWARP layer's own state */
    RNIC_SEC_LISTEN,            /* one per CM listener */
    RNIC_SEC_END = 0x7fff,      /* last: a stream cut at a section ends */
};

/* What a loader of one section knows and must not repeat. */
struct rnic_st_ld {
    struct rnic_dev *d;
    struct rnic_sr *r;          /* the section's payload */
    uint16_t version;
    int64_t last_obj;           /* per-object sections: strictly rising */
};

/* Version each section is written with today (the newest loaders know). */
#define RNIC_SEC_VERSION        1

/* Rings of guest pages (device rings and RDMA rings alike). */
void rnic_st_save_ring(struct rnic_sw *w, const struct rnic_ring *ring);
/*
 * depth 0 in the stream: no ring (only where absent is allowed).  The pages
 * must be 4 KiB aligned guest RAM, exactly what a ring of depth entries of
 * entry_size needs and at most max_pages; depth a power of two, 2..max_depth.
 */
bool rnic_st_load_ring(struct rnic_st_ld *ld, struct rnic_ring *ring,
                       uint32_t entry_size, uint32_t max_depth,
                       uint64_t max_pages, bool may_be_absent,
                       const char *what);

/* state_dev.c: the device core's sections. */
void rnic_st_save_config(struct rnic_dev *d, struct rnic_sw *w);
void rnic_st_save_dev(struct rnic_dev *d, struct rnic_sw *w);
void rnic_st_save_admq(struct rnic_dev *d, struct rnic_sw *w);
void rnic_st_save_eqs(struct rnic_dev *d, struct rnic_sw *w);
void rnic_st_save_l2qs(struct rnic_dev *d, struct rnic_sw *w);
void rnic_st_save_pds(struct rnic_dev *d, struct rnic_sw *w);
void rnic_st_save_frames(struct rnic_dev *d, struct rnic_sw *w);
bool rnic_st_load_config(struct rnic_st_ld *ld);
bool rnic_st_load_dev(struct rnic_st_ld *ld);
bool rnic_st_load_admq(struct rnic_st_ld *ld);
bool rnic_st_load_eq(struct rnic_st_ld *ld);
bool rnic_st_load_l2q(struct rnic_st_ld *ld);
bool rnic_st_load_pds(struct rnic_st_ld *ld);
bool rnic_st_load_frames(struct rnic_st_ld *ld);
/* Relations between sections, once all are in. */
bool rnic_st_check_dev(struct rnic_st_ld *ld);

/* state_rdma.c: PD/CQ/SRQ/QP/MR objects and their doorbell latches. */
/* NULL, or why the RDMA state cannot be saved by this version. */
const char *rnic_st_rdma_unsaved(struct rnic_dev *d, char *buf, size_t n);
void rnic_st_save_cqs(struct rnic_dev *d, struct rnic_sw *w);
void rnic_st_save_srqs(struct rnic_dev *d, struct rnic_sw *w);
void rnic_st_save_qps(struct rnic_dev *d, struct rnic_sw *w);
void rnic_st_save_mrs(struct rnic_dev *d, struct rnic_sw *w);
void rnic_st_save_dblatch(struct rnic_dev *d, struct rnic_sw *w);
bool rnic_st_load_cq(struct rnic_st_ld *ld);
bool rnic_st_load_srq(struct rnic_st_ld *ld);
bool rnic_st_load_qp(struct rnic_st_ld *ld);
bool rnic_st_load_mr(struct rnic_st_ld *ld);
bool rnic_st_load_dblatch(struct rnic_st_ld *ld);

/* state_iw.c: the iWARP layer (connections are not in the stream yet). */
const char *rnic_st_iw_unsaved(struct rnic_dev *d, char *buf, size_t n);
void rnic_st_save_iw(struct rnic_dev *d, struct rnic_sw *w);
bool rnic_st_load_iw(struct rnic_st_ld *ld);
void rnic_st_save_listeners(struct rnic_dev *d, struct rnic_sw *w);
bool rnic_st_load_listener(struct rnic_st_ld *ld);

#endif
