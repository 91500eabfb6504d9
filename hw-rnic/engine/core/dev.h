/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The rnic device core, independent of QEMU: BAR0 registers, doorbells,
 * admin queue, event queues, L2 rings and receive classification.
 *
 * The embedder's MMIO handlers call rne_dev_reg_write()/rne_dev_doorbell(),
 * which only latch values and say whether work is pending; the embedder then
 * runs rne_dev_process() outside the latch (QEMU: at once for a doorbell,
 * in a guarded bottom half for register writes).  All guest memory access
 * goes through struct rne_host.
 *
 * One way through: every entry that runs the engine (process, receive,
 * timer, rx_batch_end, tx_resume) enters one dispatch.  An entry made while
 * a dispatch runs (from inside a DMA write or a host callback) only queues
 * its input -- frames into a bounded backlog, doorbells stay latched, a
 * reset is deferred -- and returns; the outermost dispatch drains it.
 * Frames leave through one egress queue, handed to send_frame() only once
 * the engine has returned: a frame the wire delivers back at once is then
 * processed with no engine code on the stack.  Offload frames to the
 * port's own MAC (a connection to an address of this device) never reach
 * the wire: they wait in the loopback queue for the next rne_dev_process()
 * (rne_dev_work_pending() says when one is owed).
 */
#ifndef RNE_ENGINE_DEV_H
#define RNE_ENGINE_DEV_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "rnic/hw.h"
#include "host.h"
#include "ring.h"
#include "classify.h"
#include "mem.h"
#include "frameq.h"

/* Hard limits of this implementation; the properties stay below them. */
#define RNE_ENG_MAX_EQ          63      /* vectors 1..63 + admin vector 0 */
#define RNE_ENG_MAX_L2Q         8
#define RNE_ENG_MAX_UCTX        1023    /* doorbell BAR <= 4 MiB */
#define RNE_ENG_MAX_PD          (1u << 20)
#define RNE_ENG_MAX_OBJ         (1u << 24)      /* doorbell object field */
#define RNE_ENG_MAX_ADMQ_LOG    10      /* 1024 commands */
#define RNE_ENG_MAX_MR_PAGES    (1u << 28)      /* 2 GiB of page lists */
/*
 * Page-list entries one admin pass may load (one maximal MR, 2^18): the
 * commands behind wait for the next pass, which the embedder schedules
 * when rne_dev_work_pending() says so.
 */
#define RNE_ADMIN_PASS_PAGES    (1u << 18)
#define RNE_ENG_MAX_EQ_LOG      12
#define RNE_ENG_MAX_L2Q_LOG     12
#define RNE_MIN_MTU             68
/*
 * 65000: a frame of MTU + 18 fits every netdev of QEMU 10.0 the lab and
 * users take: a UDP dgram netdev's datagram (65507 bytes over IPv4), the
 * stream, socket and tap netdevs' NET_BUFSIZE (69632), filter-dump's
 * 65535-byte snap length; and an FPDU of one TCP segment keeps its ULPDU
 * under MPA's 16-bit length.
 */
#define RNE_MAX_MTU_LIMIT       (RNIC_L2_MAX_FRAME - 22)
#define RNE_L2_HDR_ROOM         18      /* Ethernet header + one VLAN tag */
/*
 * Frames one dispatch may leave for the wire (an offload TCP burst is at
 * most a send buffer, 256 KiB); beyond, offload frames are dropped (TCP
 * retransmits) and L2 TX waits for the flush.
 */
#define RNE_EGRESS_BYTES        (2u << 20)
#define RNE_EGRESS_FRAMES       2048
/* Frames delivered while the device is busy (a nested delivery). */
#define RNE_BACKLOG_BYTES       (256u << 10)
#define RNE_BACKLOG_FRAMES      256
/*
 * Offload frames to the device itself, delivered on the next process pass:
 * as much as the egress queue, for both ends of each looped connection
 * send into it; beyond, they are dropped and TCP retransmits.
 */
#define RNE_LOOP_BYTES          RNE_EGRESS_BYTES
#define RNE_LOOP_FRAMES         RNE_EGRESS_FRAMES

/* Defaults of the limits (QOM property defaults use the same values). */
#define RNE_DEF_MAX_QP          1024
#define RNE_DEF_MAX_CQ          2048
#define RNE_DEF_MAX_MR          4096
#define RNE_DEF_MAX_PD          1024
#define RNE_DEF_MAX_SRQ         256
#define RNE_DEF_MAX_EQ          8
#define RNE_DEF_MAX_UCTX        63
#define RNE_DEF_MAX_L2Q         1
#define RNE_DEF_MAX_IRD         16
#define RNE_DEF_MAX_ORD         16
#define RNE_DEF_MAX_QP_WR       4096
#define RNE_DEF_MAX_CQE         32768
#define RNE_DEF_MAX_SRQ_WR      4096
#define RNE_DEF_MAX_MTU         9216
#define RNE_DEF_MAX_LISTEN      32
#define RNE_DEF_MAX_CONN        1024
#define RNE_DEF_MAX_MR_PAGES    (1u << 21)      /* 16 MiB of page lists */
#define RNE_DEF_ACK_BATCH       true
/* Offload TCP window (KiB): send ring and receive window per connection */
#define RNE_DEF_TCP_WINDOW_KIB 256
#define RNE_MAX_TCP_WINDOW_KIB 16384
/*
 * TCP keepalive of offloaded connections, as Linux TCP's defaults (and the
 * RNICs that follow them): probe after 2 h idle, every 75 s, drop after 9
 * unanswered probes.  Limits as Linux's TCP_KEEPIDLE/INTVL/CNT.
 */
#define RNE_DEF_KEEP_IDLE_S     7200
#define RNE_DEF_KEEP_INTVL_S    75
#define RNE_DEF_KEEP_PROBES     9
#define RNE_MAX_KEEP_S          32767
#define RNE_MAX_KEEP_PROBES     127

/* Device limits, from QOM properties (QEMU) or the test. */
struct rne_dev_config {
    uint8_t mac[6];
    uint32_t max_qp, max_cq, max_mr, max_pd, max_srq;
    uint32_t max_eq, max_uctx, max_l2q;
    uint32_t max_ird, max_ord;
    uint32_t max_qp_wr, max_cqe, max_srq_wr;
    uint32_t max_mtu;
    uint32_t max_listen, max_conn;
    /* Page-list entries all MRs together may hold (REG_MR, ALLOC_MR). */
    uint32_t max_mr_pages;
    /*
     * Offloaded TCP ACKs in-order data once per receive burst (stretch ACKs,
     * see rne_dev_rx_batch_end); on by default (RNE_DEF_ACK_BATCH): the
     * embedder calls rne_dev_rx_batch_end at the end of each burst.
     */
    bool ack_batch;
    /*
     * Keepalive of offloaded connections (RNE_DEF_KEEP_*): seconds idle
     * before the first probe (0: off), seconds between probes, unanswered
     * probes before the connection is dropped (CM TIMEOUT, QP in ERROR).
     */
    uint32_t keep_idle_s, keep_intvl_s, keep_probes;
    /*
     * Each offloaded connection's send ring and receive window, KiB
     * (RNE_DEF_TCP_WINDOW_KIB).   Taken while data is queued or out of
     * order and given back when drained: an idle connection holds none.
     */
    uint32_t tcp_window_kib;
};

/* Host memory the engine holds now, for tests, benchmarks, QUERY_STATS. */
struct rne_dev;
struct rne_mem_usage {
    uint64_t kind[RNE_MEM_KINDS];       /* counted through core/mem.h */
    uint64_t tcp_conn;                  /* offload TCP: per connection */
    uint64_t tcp_engine;                /* offload TCP: engines' own tables */
    uint64_t conn_total;                /* kind[] + tcp_conn */
    uint64_t mismatch;                  /* frees never counted in: 0 */
};
void rne_dev_mem_usage(struct rne_dev *d, struct rne_mem_usage *u);

/* Fill cfg with the defaults documented in docs/hardware-interface.md. */
void rne_dev_config_default(struct rne_dev_config *cfg);
/* NULL if cfg is usable, else a sentence saying what is wrong. */
const char *rne_dev_config_check(const struct rne_dev_config *cfg);

struct rne_eq {
    bool live;
    bool armed;
    uint8_t flags;              /* RNIC_EQ_F_* */
    uint32_t users;             /* L2 queues bound to this EQ */
    uint32_t pidx, cidx;
    struct rne_ring ring;
    struct rne_ring pdata;      /* CM EQ only */
    uint32_t db_idx;            /* latched doorbell */
    bool db_arm;
};

struct rne_l2q {
    bool live;
    bool armed;
    uint32_t eqn;
    uint32_t pidx;              /* last accepted producer index */
    uint32_t cidx;              /* device consumer index */
    uint32_t ev_idx;            /* cidx when the last event was raised */
    struct rne_ring ring;
    uint32_t db_idx;            /* latched doorbell */
    bool db_arm;
};

struct rne_admq {
    bool live;
    uint32_t sq_head, sq_tail;  /* free-running */
    uint32_t cq_tail, cq_head;
    struct rne_ring sq, cq;
    uint32_t pass_pages;        /* page-list entries loaded this pass */
};

struct rne_port {
    uint8_t mac[6];
    uint32_t mtu;
    uint32_t flags;             /* RNIC_PORT_* */
    bool link_up;
};

struct rne_counters {
    uint64_t tx_frames, tx_bytes, tx_errors;
    uint64_t rx_frames, rx_bytes, rx_no_buffer, rx_too_long, rx_filtered;
    uint64_t rx_offload, rx_errors;
};

/* Work latched by the MMIO side for rne_dev_process(). */
#define RNE_PEND_RESET      (1u << 0)
#define RNE_PEND_ENABLE     (1u << 1)
#define RNE_PEND_ADMIN      (1u << 2)
#define RNE_PEND_LINK       (1u << 3)
#define RNE_PEND_DB_ERROR   (1u << 4)

/* Entries that found the dispatch busy: run at its end (dev.c). */
#define RNE_DEFER_PROCESS       (1u << 0)
/* Guest IPv4 addresses remembered from L2 TX (see rne_l2_addr_owned). */
#define RNE_DEV_MAX_OWN_ADDR    16

#define RNE_DEFER_TIMER         (1u << 1)
#define RNE_DEFER_BATCH_END     (1u << 2)
#define RNE_DEFER_RESET         (1u << 3)
/* A CQ went into error: its QPs fail at the end of the dispatch. */
#define RNE_DEFER_CQ_ERROR      (1u << 4)

struct rne_dev {
    struct rne_dev_config cfg;
    struct rne_host host;

    /* Registers. */
    uint32_t ctrl, status, error;
    uint64_t admq_sq_pbl, admq_cq_pbl;
    uint32_t admq_cfg;
    uint32_t admq_db_tail, admq_db_cq_head;

    uint32_t pending;           /* RNE_PEND_* */
    uint64_t eq_db_pending;     /* bit n: EQ n */
    uint32_t txq_db_pending, rxq_db_pending;
    uint32_t db_err_obj, db_err_off;

    struct rne_admq admq;
    struct rne_eq eq[RNE_ENG_MAX_EQ + 1];
    struct rne_l2q txq[RNE_ENG_MAX_L2Q];
    struct rne_l2q rxq[RNE_ENG_MAX_L2Q];
    uint32_t async_eqn, cm_eqn; /* 0: none */
    /*
     * IPv4 addresses the guest sent from (l2.c), the most recent kept,
     * each with the VLAN (VID, 0 untagged) it sent from.
     */
    uint8_t own_addr[RNE_DEV_MAX_OWN_ADDR][4];
    uint16_t own_vlan[RNE_DEV_MAX_OWN_ADDR];
    uint32_t n_own_addr, own_addr_next;
    bool link_reported;         /* link state last sent as an event */

    bool tx_paused;             /* the wire asked us to stop sending */
    struct rne_port port;
    struct rne_counters stats;
    struct rne_mem mem;         /* connection and QP memory held (mem.h) */

    uint8_t *uctx_live;         /* [max_uctx + 1] */
    uint8_t *db_err_sent;       /* [max_uctx + 1] its DB_ERROR was raised */
    uint16_t *pd_owner;         /* [max_pd], uctx + 1, 0 = free */
    struct rne_steer *steer;

    struct rne_rdma *rdma;      /* PD/CQ/SRQ/QP/MR tables (rdma.h) */
    struct rne_iw *iw;          /* offload TCP, CM, connections (iw.h) */

    uint8_t *frame;             /* TX gather buffer, max-mtu + 18 */

    /* The one dispatch (see the top of this file). */
    bool dispatching;           /* engine code is on the stack */
    bool flushing;              /* the egress queue goes to the host */
    bool rx_resume_owed;        /* refused or dropped frames: rx_resume */
    bool tx_full;               /* L2 TX stopped for egress room */
    uint32_t deferred;          /* RNE_DEFER_* */
    uint32_t egress_gen;        /* bumped when a reset empties egress */
    struct rne_frameq backlog; /* frames that arrived during a dispatch */
    struct rne_frameq egress;
    struct rne_frameq loop;     /* offload frames to ourselves (loopback) */
    uint64_t loop_frames;       /* delivered through the loopback queue */
    uint64_t loop_dropped;      /* beyond it, or claimed by no endpoint */
    uint64_t tx_held;           /* frames still queued when the wire paused */
    uint64_t tx_dropped;        /* offload frames beyond the egress queue */
};

/* 0 on success, -1 if memory for the object tables is not available. */
int rne_dev_init(struct rne_dev *d, const struct rne_dev_config *cfg,
                 const struct rne_host_ops *ops, void *opaque);
void rne_dev_fini(struct rne_dev *d);
/*
 * Power-on / PCI reset: drop everything -- now (true), or, if called from
 * inside the device's own work (a DMA write, a host callback), when that
 * work returns (false; rx_resume() follows then).  Each peer of an
 * offloaded connection is sent a RST first (send_frame, before it returns).
 */
bool rne_dev_reset(struct rne_dev *d);
/* Engine code is running (a reset or fini now would be deferred/unsafe). */
bool rne_dev_busy(const struct rne_dev *d);

uint32_t rne_dev_reg_read(struct rne_dev *d, uint32_t off);
/* The *_write/doorbell/set_link calls return true if work was latched. */
bool rne_dev_reg_write(struct rne_dev *d, uint32_t off, uint32_t val);
bool rne_dev_doorbell(struct rne_dev *d, uint32_t page, uint32_t off,
                      uint64_t val);
bool rne_dev_set_link(struct rne_dev *d, bool up);
/*
 * A refused doorbell of context uctx may be reported (event, log): always
 * for the kernel (0), once per user context until it is allocated again,
 * so a spinning process cannot flood the shared async EQ or the host log.
 */
bool rne_dev_db_error_once(struct rne_dev *d, int64_t uctx);
/* The wire took the frame send_frame() queued: TX may go on. */
bool rne_dev_tx_resume(struct rne_dev *d);
void rne_dev_process(struct rne_dev *d);
/*
 * Work is left for another rne_dev_process(): a bounded pass stopped, or
 * looped frames wait.
 */
bool rne_dev_work_pending(const struct rne_dev *d);
/* The deadline requested through host timer_mod passed. */
void rne_dev_timer(struct rne_dev *d);

/*
 * Receive side, called by the net layer with one frame (no FCS).  Every
 * frame is taken, as on a real NIC: offloaded ones go to their connection,
 * an L2 frame with no RX buffer posted is dropped (rx_no_buffer), so none
 * waits behind another.  false only when called from inside the device's
 * own work with its backlog full: offer it again after rx_resume.
 */
bool rne_dev_receive(struct rne_dev *d, const uint8_t *frame, size_t len);
/*
 * Offloaded connections owe ACKs for what rne_dev_receive took: the embedder
 * calls rne_dev_rx_batch_end once the burst of frames it is delivering ends
 * (QEMU: a bottom half), and the ACKs leave then, one per connection.
 */
bool rne_dev_ack_owed(const struct rne_dev *d);
void rne_dev_rx_batch_end(struct rne_dev *d);

/*
 * Inside the engine: every offload frame.  One to the port's own MAC goes
 * to the loopback queue, any other to the egress queue for the wire.
 * false: that queue is full (the frame is dropped).  rne_dev_send_wire:
 * always the egress queue (the guest's L2 TX).  rne_dev_tx_room: a frame
 * of len fits the egress queue.
 */
bool rne_dev_send(struct rne_dev *d, const void *frame, size_t len);
bool rne_dev_send_wire(struct rne_dev *d, const void *frame, size_t len);
bool rne_dev_tx_room(const struct rne_dev *d, size_t len);
/*
 * The dispatch around engine work; begin returns false (and the caller
 * must not run engine code) if one is running already.  For the entry
 * points above and white-box tests.
 */
bool rne_dev_dispatch_begin(struct rne_dev *d);
void rne_dev_dispatch_end(struct rne_dev *d);

#endif
