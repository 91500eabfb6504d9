/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * "A guest and its rnic" for simulations: the device core on a byte array of
 * guest memory, a virtual clock, and a small verbs library that drives the
 * device only through include/rnic/hw.h, as the guest driver does (admin
 * queue, EQs, CQ/QP/SRQ rings, doorbells, phase bits, CM events with private
 * data).
 *
 * Guest memory starts filled with a guard pattern that depends on the
 * address.  Memory handed out by sd_alloc_* is zeroed; everything never
 * handed out, and the slack around MR data inside allocated pages, must keep
 * the pattern: sd_check_guards() proves the device wrote nowhere else.
 * Allocated blocks are separated by one never-allocated guard page.
 *
 * Page lists and other driver bookkeeping are freed by sd_free().
 *
 * Every function that talks to the device returns the admin status (or
 * -1 for "no answer"), and sd_sts_name() spells it for failure messages.
 */
#ifndef SIMDEV_H
#define SIMDEV_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include "core/dev.h"

#if __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "the simulator writes hw.h structures in host order: little-endian only"
#endif

#define SD_MAX_SLACK    4096
#define SD_CM_QUEUE     256
#define SD_L2_RX_BUFS   32

/* EQ numbers this "driver" uses. */
#define SD_EQ_ASYNC     1
#define SD_EQ_CM        2
#define SD_EQ_COMP      3

struct simdev;

/* Where frames go and where time comes from (simlink.c fills these). */
struct sd_env {
    const uint64_t *now;                /* virtual clock, ns */
    void (*tx)(void *opaque, int side, const uint8_t *frame, size_t len);
    void *opaque;
    /* Let the rest of the world run a step (admin waits); false: idle. */
    bool (*step)(void *opaque);
};

struct sd_eq {
    uint32_t eqn, depth, cidx;
    uint64_t *pages;                    /* ring pages */
    uint32_t npages;
    uint64_t *pdata_pages;              /* CM EQ: 512-byte slots */
};

struct sd_cm_event {
    uint8_t code;                       /* enum rnic_cm_event */
    uint32_t conn_id;
    struct rnic_eqe_cm cm;
    uint8_t pdata[RNIC_CM_PDATA_SLOT];
};

struct sd_async_event {
    uint8_t code;
    uint32_t obj, info;
};

/* A ring in scattered guest pages. */
struct sd_ring {
    uint32_t depth, entry_size, npages;
    uint64_t *pages;
    struct rnic_pbl pbl;
};

struct sd_cq {
    uint32_t cqn;
    struct sd_ring ring;
    uint64_t dbrec;
    uint32_t cidx;
};

struct sd_wq {
    struct sd_ring ring;
    uint32_t pidx;
};

struct sd_qp {
    uint32_t qpn, pdn, srqn;
    struct sd_cq *scq, *rcq;
    struct sd_wq sq, rq;
    uint32_t max_send_sge, max_recv_sge;
};

struct sd_srq {
    uint32_t srqn, pdn;
    struct sd_wq wq;
};

struct sd_mr {
    uint32_t stag, pdn, access;
    uint64_t iova, length;
    uint32_t page_shift, npages;
    uint64_t *pages;                    /* guest-physical page addresses */
    uint8_t levels;
    uint64_t pbl_addr;                  /* fast-register: level-1 list */
};

struct sd_stats {
    uint64_t dma_faults;                /* device DMA outside guest memory */
    uint64_t guest_errors;
    uint64_t irqs;
    uint64_t tx_frames, l2_rx_frames;
    uint64_t eq_entries;
};

struct simdev {
    struct rne_dev dev;
    int side;                           /* 0 or 1: name in messages */
    const char *name;
    struct sd_env env;
    uint64_t timer_deadline;            /* UINT64_MAX: none */
    uint64_t loop_seen;                 /* dev.loop_frames at the last step */
    uint8_t *mem;
    uint64_t mem_size;
    uint8_t *page_used;                 /* [mem_size / 4096] */
    uint8_t *page_dev;                  /* queue pages written at run time
                                         * by design: CQ/EQ/L2 rings, CM
                                         * pdata slots, admin ring, dbrec */
    uint64_t alloc_next;
    uint64_t rng;
    struct { uint64_t addr, len; } slack[SD_MAX_SLACK];
    unsigned nslack;
    struct sd_stats st;
    uint32_t features;
    uint8_t mac[6];
    /* Admin queue. */
    uint64_t admq_sq, admq_cq;
    uint32_t admq_depth, admq_tail, admq_head;
    uint16_t tag;
    struct rnic_admin_cqe last_cqe;
    /* Event queues and what they delivered, not yet consumed. */
    struct sd_eq eq_async, eq_cm, eq_comp;
    struct sd_cm_event cmq[SD_CM_QUEUE];
    unsigned cm_head, cm_tail;
    struct sd_async_event asyncq[64];
    unsigned async_n;
    uint32_t comp_events[64];           /* COMP events per cqn % 64 */
    /* L2 RX ring (the device delivers non-offloaded frames only there). */
    uint64_t l2_ring;
    uint64_t tx_ring, tx_buf;           /* L2 TX (sd_announce) */
    uint32_t tx_pidx;
    uint64_t l2_buf[SD_L2_RX_BUFS];
    uint32_t l2_buf_len;                /* MTU of sd_enable + 18 */
    uint32_t l2_pidx, l2_cidx;
    uint64_t scratch_pdata, scratch_query;  /* command buffers */
    void **owned;                       /* freed by sd_free */
    size_t nowned, capowned;
    char err[256];                      /* last failure, for messages */
};

struct simdev *sd_new(const struct rne_dev_config *cfg, uint64_t mem_size,
                      int side, uint64_t seed, const struct sd_env *env);
void sd_free(struct simdev *sd);
uint8_t sd_guard_byte(uint64_t addr);

/* Contiguous zeroed pages (guard page before and after). */
uint64_t sd_alloc(struct simdev *sd, uint32_t pages);
/* npages zeroed pages at scattered addresses (a shuffled block). */
void sd_alloc_scattered(struct simdev *sd, uint32_t npages, uint64_t *out);
/* Queue pages written at run time by design (rings, buffers, dbrec). */
void sd_mark_dev(struct simdev *sd, uint64_t addr, uint32_t pages);
/* Bytes [addr, addr+len) of allocated memory the device must not touch. */
void sd_add_slack(struct simdev *sd, uint64_t addr, uint64_t len);
/* 0, or the number of guard bytes that changed (first one in sd->err). */
uint64_t sd_check_guards(struct simdev *sd);

void sd_run(struct simdev *sd);
/*
 * The guest's IP stack owns ip: announce it with a gratuitous ARP through
 * an L2 TX ring (created on first use), as any guest does.  The device
 * serves wildcard listeners only on addresses the guest has sent from.
 */
int sd_announce(struct simdev *sd, const uint8_t *ip);
/* The same from a VLAN interface: tagged with tci (-1: untagged). */
int sd_announce_vlan(struct simdev *sd, const uint8_t *ip, int32_t tci);
/* Bring-up: admin queue, async/CM/completion EQs, L2 RX ring, port. */
int sd_enable(struct simdev *sd, uint16_t mtu);
/* Post one command and wait for its completion; returns the status. */
int sd_cmd(struct simdev *sd, struct rnic_admin_cmd *cmd);
const char *sd_sts_name(int status);
const char *sd_wc_status_name(unsigned status);
const char *sd_cm_name(unsigned code);
/* Poll EQs (CM events are queued with their private data). */
void sd_poll_events(struct simdev *sd);
bool sd_cm_next(struct simdev *sd, struct sd_cm_event *ev);
bool sd_async_find(struct simdev *sd, uint8_t code, uint32_t obj);

int sd_create_pd(struct simdev *sd, uint32_t pdn);
int sd_create_cq(struct simdev *sd, struct sd_cq *cq, uint32_t cqn,
                 unsigned log_depth);
int sd_create_srq(struct simdev *sd, struct sd_srq *srq, uint32_t srqn,
                  uint32_t pdn, unsigned log_depth);
int sd_create_qp(struct simdev *sd, struct sd_qp *qp, uint32_t qpn,
                 uint32_t pdn, struct sd_cq *scq, struct sd_cq *rcq,
                 struct sd_srq *srq, unsigned sq_log, unsigned rq_log);
int sd_modify_qp_state(struct simdev *sd, uint32_t qpn, uint8_t state);
/* Remote rights the QP grants (RNIC_ACCESS_REMOTE_*; none at creation). */
int sd_modify_qp_access(struct simdev *sd, uint32_t qpn, uint32_t access);
int sd_query_qp(struct simdev *sd, uint32_t qpn, struct rnic_qp_attr *attr);
int sd_destroy(struct simdev *sd, uint8_t opcode, uint32_t id);
int sd_query_stats(struct simdev *sd, struct rnic_port_stats *out);
/* The port block and the protocol counters (a buffer of their size). */
int sd_query_dev_stats(struct simdev *sd, struct rnic_dev_stats *out);

/*
 * Register length bytes at iova in 4 KiB pages scattered over guest memory;
 * levels 1 or 2 (0: 2 if more than 512 pages).  The first byte sits at
 * iova's offset within the first page; the bytes of the first and last page
 * outside the region are guarded slack.
 */
int sd_reg_mr(struct simdev *sd, struct sd_mr *mr, uint32_t stag,
              uint32_t pdn, uint32_t access, uint64_t iova, uint64_t length,
              unsigned levels);
/* Fast-register MR: ALLOC_MR, pages allocated for a later REG_MR WQE. */
int sd_alloc_mr(struct simdev *sd, struct sd_mr *mr, uint32_t stag,
                uint32_t pdn, uint32_t max_pages);
/* A fast-register WQE binding mr (ALLOC_MR) with a new key. */
void sd_wqe_fastreg(struct simdev *sd, struct sd_mr *mr, uint8_t key,
                    uint32_t access, uint64_t iova, uint64_t length,
                    struct rnic_sq_wqe *wqe);
/* Guest-physical address of MR byte va (iova-based); sd_mr_write/read
 * take offsets from iova. */
uint64_t sd_mr_addr(const struct sd_mr *mr, uint64_t va);
void sd_mr_write(struct simdev *sd, const struct sd_mr *mr, uint64_t off,
                 const void *buf, uint64_t len);
void sd_mr_read(struct simdev *sd, const struct sd_mr *mr, uint64_t off,
                void *buf, uint64_t len);

/* Work requests: write the WQE, bump the producer, ring the doorbell. */
void sd_post_send(struct simdev *sd, struct sd_qp *qp,
                  const struct rnic_sq_wqe *wqe);
void sd_post_recv(struct simdev *sd, struct sd_qp *qp,
                  const struct rnic_rq_wqe *wqe);
void sd_post_srq(struct simdev *sd, struct sd_srq *srq,
                 const struct rnic_rq_wqe *wqe);
bool sd_poll_cq(struct simdev *sd, struct sd_cq *cq, struct rnic_cqe *cqe);
void sd_arm_cq(struct simdev *sd, struct sd_cq *cq, bool solicited);

/* CM. */
int sd_cm_listen(struct simdev *sd, uint32_t listen_id, uint16_t port);
/* Listen on one address of a VLAN interface (RNIC_LISTEN_F_VLAN, tci). */
int sd_cm_listen_vlan(struct simdev *sd, uint32_t listen_id, uint16_t port,
                      const uint8_t *ip, uint16_t tci);
int sd_cm_connect(struct simdev *sd, struct rnic_cmd_cm_connect *c,
                  const void *pdata, uint32_t *conn_id);
int sd_cm_accept(struct simdev *sd, uint32_t conn_id, uint32_t qpn,
                 uint8_t ird, uint8_t ord, uint8_t mpa_flags,
                 const void *pdata, uint16_t pdata_len);
int sd_cm_reject(struct simdev *sd, uint32_t conn_id, const void *pdata,
                 uint16_t pdata_len);
int sd_cm_simple(struct simdev *sd, uint8_t opcode, uint32_t id);

/* Copy guest memory in/out (bounds-checked, aborts on misuse). */
void sd_write(struct simdev *sd, uint64_t addr, const void *buf, size_t len);
void sd_read(struct simdev *sd, uint64_t addr, void *buf, size_t len);

#endif
