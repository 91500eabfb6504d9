/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Internals of the state stream: the section ids (their order is the load
 * order) and the per-layer save/load functions state.c calls.
 */
#ifndef RNE_ENGINE_STATE_INT_H
#define RNE_ENGINE_STATE_INT_H

#include "core/dev.h"
#include "stream.h"

enum rne_st_sec {
    RNE_SEC_CONFIG = 1,         /* the configuration, must match */
    RNE_SEC_DEV,                /* registers, latches, port, counters */
    RNE_SEC_ADMQ,               /* the admin queue's rings and indices */
    RNE_SEC_EQ,                 /* one per live EQ */
    RNE_SEC_L2Q,                /* one per live L2 TX/RX queue */
    RNE_SEC_PD,                 /* PD owners */
    RNE_SEC_CQ,                 /* one per live CQ */
    RNE_SEC_SRQ,                /* one per live SRQ */
    RNE_SEC_QP,                 /* one per live QP */
    RNE_SEC_MR,                 /* one per allocated MR */
    RNE_SEC_DBLATCH,            /* RDMA doorbells latched, in order */
    RNE_SEC_FRAMES,             /* backlog, egress and loopback frames */
    RNE_SEC_IW,                 /* the iWARP layer's own state */
    RNE_SEC_LISTEN,             /* one per CM listener */
    RNE_SEC_CONN,               /* one per established connection */
    RNE_SEC_MW,                 /* one per allocated memory window */
    RNE_SEC_END = 0x7fff,       /* last: a stream cut at a section ends */
};

/* What a loader of one section knows and must not repeat. */
struct rne_st_ld {
    struct rne_dev *d;
    struct rne_sr *r;           /* the section's payload */
    uint16_t version;
    int64_t last_obj;           /* per-object sections: strictly rising */
};

/* Version each section is written with today (the newest loaders know). */
#define RNE_SEC_VERSION         1

/* Rings of guest pages (device rings and RDMA rings alike). */
void rne_st_save_ring(struct rne_sw *w, const struct rne_ring *ring);
/*
 * depth 0 in the stream: no ring (only where absent is allowed).  The pages
 * must be 4 KiB aligned guest RAM, exactly what a ring of depth entries of
 * entry_size needs and at most max_pages; depth a power of two, 2..max_depth.
 */
bool rne_st_load_ring(struct rne_st_ld *ld, struct rne_ring *ring,
                      uint32_t entry_size, uint32_t max_depth,
                      uint64_t max_pages, bool may_be_absent,
                      const char *what);

/* state_dev.c: the device core's sections. */
void rne_st_save_config(struct rne_dev *d, struct rne_sw *w);
void rne_st_save_dev(struct rne_dev *d, struct rne_sw *w);
void rne_st_save_admq(struct rne_dev *d, struct rne_sw *w);
void rne_st_save_eqs(struct rne_dev *d, struct rne_sw *w);
void rne_st_save_l2qs(struct rne_dev *d, struct rne_sw *w);
void rne_st_save_pds(struct rne_dev *d, struct rne_sw *w);
void rne_st_save_frames(struct rne_dev *d, struct rne_sw *w);
bool rne_st_load_config(struct rne_st_ld *ld);
bool rne_st_load_dev(struct rne_st_ld *ld);
bool rne_st_load_admq(struct rne_st_ld *ld);
bool rne_st_load_eq(struct rne_st_ld *ld);
bool rne_st_load_l2q(struct rne_st_ld *ld);
bool rne_st_load_pds(struct rne_st_ld *ld);
bool rne_st_load_frames(struct rne_st_ld *ld);
/* Relations between sections, once all are in. */
bool rne_st_check_dev(struct rne_st_ld *ld);

/* state_rdma.c: PD/CQ/SRQ/QP/MR objects and their doorbell latches. */
/* NULL, or why the RDMA state cannot be saved by this version. */
const char *rne_st_rdma_unsaved(struct rne_dev *d, char *buf, size_t n);
void rne_st_save_cqs(struct rne_dev *d, struct rne_sw *w);
void rne_st_save_srqs(struct rne_dev *d, struct rne_sw *w);
void rne_st_save_qps(struct rne_dev *d, struct rne_sw *w);
void rne_st_save_mrs(struct rne_dev *d, struct rne_sw *w);
void rne_st_save_dblatch(struct rne_dev *d, struct rne_sw *w);
bool rne_st_load_cq(struct rne_st_ld *ld);
bool rne_st_load_srq(struct rne_st_ld *ld);
bool rne_st_load_qp(struct rne_st_ld *ld);
bool rne_st_load_mr(struct rne_st_ld *ld);
void rne_st_save_mws(struct rne_dev *d, struct rne_sw *w);
bool rne_st_load_mw(struct rne_st_ld *ld);
bool rne_st_load_dblatch(struct rne_st_ld *ld);

/* state_iw.c: the iWARP layer's ISN secret and listeners. */
const char *rne_st_iw_unsaved(struct rne_dev *d, char *buf, size_t n);
void rne_st_save_iw(struct rne_dev *d, struct rne_sw *w);
bool rne_st_load_iw(struct rne_st_ld *ld);
void rne_st_save_listeners(struct rne_dev *d, struct rne_sw *w);
bool rne_st_load_listener(struct rne_st_ld *ld);

/* state_conn.c: established connections, their MPA and QP state. */
const char *rne_st_conn_unsaved(struct rne_dev *d, char *buf, size_t n);
void rne_st_save_conns(struct rne_dev *d, struct rne_sw *w);
bool rne_st_load_conn(struct rne_st_ld *ld);
/* Every RTS QP got its connection; the host timer is asked for. */
bool rne_st_check_conns(struct rne_st_ld *ld);

/* state_tcp.c: one offloaded TCP connection, times relative to now. */
struct rne_tcp;
struct rne_tcp_conn;
struct rne_ipaddr;
/* t == none is written as "none" and loaded as none. */
void rne_st_save_time(struct rne_sw *w, uint64_t t, uint64_t none,
                      uint64_t now);
bool rne_st_load_time(struct rne_st_ld *ld, uint64_t *t, uint64_t none,
                      uint64_t now, const char *what);
const char *rne_st_tcp_unsaved(const struct rne_tcp_conn *c, char *buf,
                               size_t n);
void rne_st_save_tcp(struct rne_sw *w, const struct rne_tcp_conn *c,
                     uint64_t now);
/* A connection of t in ESTABLISHED, hashed with its timers; NULL: failed. */
struct rne_tcp_conn *rne_st_load_tcp(struct rne_st_ld *ld, struct rne_tcp *t,
                                     const struct rne_ipaddr *raddr,
                                     uint16_t lport, uint16_t rport,
                                     uint64_t now, const char *who);

#endif
