/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Two simulated rnics on one link with N connected QPs between them: the
 * set-up shared by the workloads and the benchmark.  Device A (10.0.0.1)
 * connects, device B (10.0.0.2) listens and accepts; each QP has its own
 * send and receive CQ on both sides (or B's QPs share one SRQ).
 * With loopback, A and B are one device (10.0.0.1) that connects to its
 * own listener: both ends of every QP pair live on it (QP, CQ and SRQ
 * numbers of side B follow side A's) and the link carries nothing of
 * theirs (port B only counts what reaches the wire).
 */
#ifndef SIMPAIR_H
#define SIMPAIR_H

#include "simlink.h"

#define SP_MAX_QP       64              /* the workloads' tables */
#define SP_MAX_CONN     4096            /* sp_connect alone (idle QPs) */
#define SP_PORT         5000
#define SP_PDN          1

struct sp_opts {
    unsigned nqp;
    uint8_t mpa_rev;                    /* 1 or 2 */
    uint8_t mpa_flags;                  /* RNIC_MPA_* asked by both ends */
    uint8_t ird, ord;
    unsigned sq_log, rq_log, cq_log;
    bool srq;                           /* receivers use one SRQ per device */
    uint16_t mtu;
    uint64_t mem_size;                  /* guest memory per device */
    unsigned batch;                     /* (dis)connect this many at a time */
    struct rne_dev_config *cfg;         /* NULL: defaults */
    bool loopback;                      /* one device, sd[1] == sd[0] */
    /*
     * Over a VLAN: each side's guest announces its address tagged with
     * vlan_tci[side] (802.1Q TCI: VID, PCP << 13) and A connects with
     * RNIC_CONNECT_F_VLAN and vlan_tci[0].
     */
    bool vlan;
    uint16_t vlan_tci[2];
    /* B listens on its address with RNIC_LISTEN_F_VLAN, not on 0.0.0.0 */
    bool vlan_listen;
};

struct sp_end {
    struct sd_qp qp;
    struct sd_cq scq, rcq;
    uint32_t conn_id;
    struct sd_cm_event est;             /* CONNECT_REPLY / ESTABLISHED */
};

struct simpair {
    struct simlink sl;
    struct simdev *sd[2];
    struct sd_srq srq[2];
    struct sp_end (*end)[2];            /* [o.nqp] */
    struct sp_opts o;
    uint64_t wire_base;                 /* frames on the wire after init */
    char err[512];
};

/* Link and devices up, PD SP_PDN created; false with sp->err on failure. */
bool sp_init(struct simpair *sp, const struct sp_opts *o, uint64_t seed);
/* Create the QPs and connect them all (private data checked). */
bool sp_connect(struct simpair *sp);
/* Graceful close of every connection; both ends must see CLOSED. */
bool sp_disconnect(struct simpair *sp);
void sp_fini(struct simpair *sp);

#endif
