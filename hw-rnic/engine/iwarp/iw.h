/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * iWARP half of the RDMA engine: offload TCP engines (one per local IPv4
 * address), listeners, connections (MPA negotiation, CM events) and the
 * per-QP protocol state of the data path.  See docs/iwarp-engine.md.
 *
 *   iw.c         the layer's life (init/fini/reset), clock and deadline
 *   iw_eng.c     TCP engines per local address, frames in/out, TCP upcalls
 *   iw_conn.c    connection slots, steering, deferred release
 *   iw_deadline.c the connections' MPA timers in a heap
 *   iw_cm.c      MPA Request/Reply exchange, CM events, how connections end
 *   iw_cm_cmd.c  the CM_* admin commands
 *   iw_nudge.c   the initiator's nudge for a siw responder
 *   iw_stream.c  a connection's bytes deframed into FPDUs
 *   iw_qp.c      rdma.h's calls into a QP's connection, QUERY_QP
 *   iw_tx.c      SQ WQEs and Read/Atomic responses to FPDUs
 *   iw_rx.c      FPDUs to placement, completions and responses
 *   iw_term.c    Terminate send/receive, the QP's way to ERROR
 */
#ifndef RNE_ENGINE_IW_H
#define RNE_ENGINE_IW_H

#include <stdbool.h>
#include <stdint.h>
#include "core/dev.h"
#include "rdma/rdma.h"
#include "tcp/tcp.h"
#include "wire/mpa.h"
#include "wire/rdmap.h"

/* Local IPv4 addresses with offloaded endpoints at the same time. */
#define RNE_IW_MAX_ADDR         8
/* MPA timers (siw: Reply 10 s, Request 5 s); RTR as long as the Reply. */
#define RNE_IW_MPA_REQ_NS       (5ull * 1000000000ull)
#define RNE_IW_MPA_REP_NS       (10ull * 1000000000ull)
/* Zero-length Write nudges to a silent responder: 50 ms, doubling, 5 s. */
#define RNE_IW_NUDGE_FIRST_NS   (50ull * 1000000ull)
#define RNE_IW_NUDGE_SPAN_NS    (5ull * 1000000000ull)
/* TIME_WAIT of the offload TCP (2 * MSL, its default MSL is 30 s) */
#define RNE_IW_TIME_WAIT_NS     (60ull * 1000000000ull)
/* Private data we send in one Request/Reply (interop: siw/cxgb4 take 256). */
#define RNE_IW_RX_ULPDU_MAX     65535
#define RNE_IW_TX_BUF           (16 * 1024)
#define RNE_IW_NO_QP            0xffffffffu

/* errno-like values in struct rnic_eqe_cm.status */
#define RNE_IW_ST_ECONNRESET    104
#define RNE_IW_ST_ECONNABORTED 103
#define RNE_IW_ST_ETIMEDOUT     110
#define RNE_IW_ST_ECONNREFUSED 111
#define RNE_IW_ST_EPROTO        71

/* One offload TCP engine per local address (the engine has one IP). */
/*
 * A local address on one VLAN (vlan: its VID, 0 untagged): a VLAN
 * interface of the guest is an address of its own, with an engine whose
 * frames all carry the tag.
 */
struct rne_iw_eng {
    struct rne_dev *d;
    uint8_t addr[4];
    uint16_t vlan;
    struct rne_tcp *tcp;
};

struct rne_iw_listener {
    bool live;
    uint8_t addr[4];            /* 0.0.0.0: any local address */
    uint16_t vlan;              /* VID of addr's VLAN, 0 none; any: unused */
    uint16_t port;
    uint32_t backlog;
    struct rne_tcp_listener *tl[RNE_IW_MAX_ADDR];       /* per engine */
};

enum rne_iw_conn_state {
    IWC_SYN_SENT,               /* active: TCP handshake */
    IWC_REP_WAIT,               /* active: Request sent, waiting for Reply */
    IWC_REQ_WAIT,               /* passive: reading the Request */
    IWC_ACCEPT_WAIT,            /* passive: CONNECT_REQUEST posted */
    IWC_RTR_WAIT,               /* passive: Reply sent, waiting for the RTR */
    IWC_RTS,                    /* full operation */
    IWC_CLOSING,                /* FIN wanted (after the SQ drains) or sent */
    IWC_LINGER,                 /* no longer the driver's: TCP finishing */
};

struct rne_iw_qp;

/* What only the MPA Request/Reply exchange needs: freed at RTS. */
struct rne_iw_mpa_hs {
    uint8_t req_pd[RNE_MPA_PD_MAX];     /* the peer's Request (passive) */
    struct rne_mpa_rr_rx rr;
    uint8_t pdata[RNE_MPA_PD_MAX];      /* ours, for the Request */
};

struct rne_iw_conn {
    uint32_t id;
    uint32_t live_idx;          /* in rne_iw.live */
    uint8_t state;              /* enum rne_iw_conn_state */
    bool active;
    bool fin_sent;
    bool steered;
    bool req_posted;            /* passive: CONNECT_REQUEST was posted */
    struct rne_iw_eng *eng;
    struct rne_tcp_conn *tc;
    uint32_t listen_id;
    uint32_t qpn;               /* RNE_IW_NO_QP when none is bound */
    struct rnic_tuple tuple;    /* as in events (little-endian ports) */
    struct rne_flow_key key;
    /* MPA timer, UINT64_MAX: none; set with rne_iw_set_deadline */
    uint64_t deadline;

    /* MPA startup */
    struct rne_mpa_local loc;
    /* our Request, or the peer's (passive); pd only until RTS */
    struct rne_mpa_rr req;
    struct rne_iw_mpa_hs *hs;   /* NULL from RTS on */
    struct rne_mpa_neg neg;
    uint16_t pdata_len;

    /* Full operation */
    struct rne_mpa_tx tx;
    struct rne_mpa_rx rx;
    /* [RNE_IW_RX_ULPDU_MAX]: only while an FPDU arrives in pieces */
    uint8_t *rxbuf;
    /* [RNE_IW_TX_BUF] one FPDU and its payload: only with markers on TX */
    uint8_t *txbuf;
    uint8_t *pbuf;
    uint32_t emss, mulpdu;
    struct rne_iw_qp *iq;       /* protocol state of the bound QP */
    /* Freed: in no table; its memory goes at the dispatch's end (iw_conn.c) */
    struct rne_iw_conn *gone_next;

    /* Initiator: wake a responder that missed our first FPDUs (iw_cm.c) */
    uint64_t nudge_end;         /* no nudge after this; 0: none */
    uint64_t nudge_gap;         /* until the next check, doubles */
    uint32_t nudge_seq;         /* our snd_nxt when the Reply came */
    /* in rne_iw.dl_heap, RNE_IW_NO_DL: none (here: in the tail padding) */
    uint32_t dl_idx;
};

/* An outstanding Read Request or Atomic Request of ours (ORD). */
struct rne_iw_orq {
    bool rtr;                   /* the RTR Read: completes nothing */
    bool atomic;
    uint32_t sq_idx;
    struct rnic_wqe_hdr hdr;
    struct rne_sgl sgl;
    uint32_t sink_stag;
    uint64_t sink_to;
    uint64_t got;
};

/* An inbound Read Request or Atomic Request we answer (IRD). */
struct rne_iw_irq {
    bool atomic;
    uint32_t src_stag, sink_stag, size;
    uint64_t src_to, sink_to, sent;
    uint32_t req_id;
    uint64_t orig;              /* atomics: value before the operation */
};

/* SQ WQEs between sq_done and sq_next waiting to complete in order. */
struct rne_iw_wc {
    bool done;
    uint8_t status;
    uint32_t byte_len;
    struct rnic_wqe_hdr hdr;
};

struct rne_iw_qp {
    struct rne_iw_conn *conn;
    bool rfc7306;               /* Immediate Data and Atomics allowed */
    bool close_wanted;          /* FIN once the SQ is drained */

    /* TX */
    uint32_t sq_next;           /* next SQ index to fetch */
    bool cur_active;            /* cur is being segmented */
    uint32_t cur_idx;
    uint8_t cur_phase;          /* Send-Imm/Write-Imm: 1 = the Imm message */
    struct rnic_sq_wqe cur;
    struct rne_sgl cur_sgl;
    uint64_t cur_off;
    uint32_t cur_msn;
    uint32_t tx_msn[4];         /* last MSN sent per QN */
    bool tx_turn;               /* fairness between SQ and responses */
    bool stopped;               /* a local error: fetch nothing more */
    /* [wc_cap]: the SQ's depth; the rings are NULL while empty */
    struct rne_iw_wc *wc;
    uint32_t wc_cap;

    struct rne_iw_orq *orq;     /* [orq_cap] ring */
    uint32_t orq_cap, orq_head, orq_cnt, ord;
    struct rne_iw_irq *irq;     /* [irq_cap] ring */
    uint32_t irq_cap, irq_head, irq_cnt, ird;
    uint32_t atomic_req_id;

    /* RX */
    uint32_t rx_msn[4];         /* next expected MSN per QN */
    bool rx_active;             /* an untagged QN 0 message in progress */
    uint32_t rx_cur_msn;
    uint64_t rx_wr_id;
    uint16_t rx_wqe_idx;
    struct rne_sgl rx_sgl;
    uint64_t rx_got;
    bool rx_write_open;         /* previous tagged Write had no L yet */
    bool rx_last_write;         /* the last message was an RDMA Write */
    bool rx_imm_pending;        /* Send-Imm: immediate for the next Send */
    uint32_t rx_imm;
    uint64_t rx_write_len;      /* bytes of the last RDMA Write message */
};

/*
 * Event counts of the iWARP layer for QUERY_STATS (iw_stats.c), each taken
 * where its event happens; a device reset zeroes them.  tcp_gone keeps the
 * counters of TCP engines freed to make room for another address.
 */
struct rne_iw_stats {
    uint64_t mpa_crc_err, mpa_frame_err, mpa_neg_fail;
    uint64_t term_tx, term_rx, fpdu_tx, fpdu_rx, conns_rts;
    struct rne_tcp_stats tcp_gone;
};

struct rne_iw {
    struct rne_iw_eng eng[RNE_IW_MAX_ADDR];
    uint32_t neng;
    struct rne_iw_listener *lis;        /* [max_listen] */
    struct rne_iw_conn **conn;          /* [max_conn] by id */
    /* the allocated ones, dense: for walks at reset and save, not per frame */
    struct rne_iw_conn **live;          /* [max_conn] */
    uint32_t nlive;
    /* those with a deadline, a min-heap by it (iw_deadline.c) */
    struct rne_iw_conn **dl_heap;       /* [max_conn] */
    uint32_t dl_n;
    struct rne_iw_conn **dl_due;        /* [max_conn] a timer pass's */
    /*
     * Freed during this dispatch, out of conn[] and live[]: a handler that
     * ended one may still read it until the dispatch ends, nothing finds it.
     */
    struct rne_iw_conn *gone;
    uint32_t next_conn;
    struct rne_tcp_ops ops;
    uint8_t isn_key[16];        /* RFC 6528 secret, from host random */
    /*
     * The deadline the host timer holds (armed_ok): every entry point ends
     * in rne_iw_rearm, and asking again for the same one is skipped.
     */
    uint64_t armed;
    bool armed_ok;
    struct rne_iw_stats st;
};

/* Trace c's move to state (before c->state is set). */
static inline void rne_iw_trace_state(struct rne_dev *d,
                                      const struct rne_iw_conn *c,
                                      uint32_t state)
{
    rne_trace_conn_state(&d->host, c->id, c->qpn, c->state, state);
}

/* iw_stats.c: the counters of QUERY_STATS */
/* An MPA receive error of code (RNE_MPA_EC_*) on some connection. */
void rne_iw_count_mpa_err(struct rne_dev *d, uint8_t code);
/* ok: an FPDU went to TCP (counted); returns ok. */
bool rne_iw_count_fpdu_tx(struct rne_dev *d, bool ok);
/* A TCP engine is freed: keep its counters. */
void rne_iw_stats_fold(struct rne_dev *d, const struct rne_tcp *tcp);
/* Every protocol counter, little-endian, as QUERY_STATS returns them. */
void rne_iw_query_stats(struct rne_dev *d, struct rnic_proto_stats *out);

/* iw.c: the layer's life, clock and deadline */
uint64_t rne_iw_now(struct rne_dev *d);
/* Ask the host for a timer at the earliest TCP/MPA deadline. */
void rne_iw_rearm(struct rne_dev *d);

/* iw_deadline.c: the connections' deadlines in a heap */
#define RNE_IW_NO_DL UINT32_MAX
/* c's MPA timer at when (UINT64_MAX: none). */
void rne_iw_set_deadline(struct rne_iw *iw, struct rne_iw_conn *c,
                         uint64_t when);
/* The earliest connection deadline, UINT64_MAX if none. */
uint64_t rne_iw_next_deadline(const struct rne_iw *iw);
/* Run the MPA timer of every connection due at now. */
void rne_iw_deadlines_run(struct rne_dev *d, uint64_t now);

/*
 * iw_eng.c: the TCP engines, one per local address and VLAN.  tci: an
 * 802.1Q TCI whose VID names the VLAN (its PCP is not the engine's: each
 * connection has its own), RNE_NO_VLAN untagged.
 */
struct rne_iw_eng *rne_iw_eng_get(struct rne_dev *d, const uint8_t *addr,
                                  int32_t tci, bool create);
/* Send MTU of a new connection: the port MTU, or mss + 40 if smaller. */
void rne_iw_conn_mtu(struct rne_dev *d, struct rne_tcp_conn *tc,
                     uint16_t mss);
/* The TCP engines' upcalls into this layer. */
void rne_iw_eng_ops(struct rne_tcp_ops *ops);
void rne_iw_pull(struct rne_dev *d);

/* iw_conn.c: connection slots */
struct rne_iw_conn *rne_iw_conn_alloc(struct rne_dev *d);
struct rne_iw_conn *rne_iw_conn_find(struct rne_dev *d, uint32_t id);
void rne_iw_conn_free(struct rne_dev *d, struct rne_iw_conn *c);
/* Free c's slot and memory now (reset). */
void rne_iw_conn_release(struct rne_dev *d, struct rne_iw_conn *c);
/* Free the memory of the connections freed since the last call. */
void rne_iw_conn_reap(struct rne_dev *d);
void rne_iw_steer_conn(struct rne_dev *d, struct rne_iw_conn *c, bool add);
/* The MPA exchange is over: give its state back. */
void rne_iw_mpa_done(struct rne_dev *d, struct rne_iw_conn *c);
/*
 * Before rne_mpa_rx_feed of data: take the partial-FPDU buffer unless the
 * FPDU at the head is whole in data (the deframer then reads it in place).
 * false: no memory.
 */
bool rne_iw_rx_buf_get(struct rne_dev *d, struct rne_iw_conn *c,
                       const uint8_t *data, size_t len);
/* After the FPDUs of a delivery: give it back unless an FPDU is open. */
void rne_iw_rx_buf_put(struct rne_dev *d, struct rne_iw_conn *c);
/* The FPDU buffers of a connection that sends markers; false: no memory. */
bool rne_iw_tx_bufs(struct rne_dev *d, struct rne_iw_conn *c);

/* iw_cm.c: TCP events of a connection and timers */
struct rne_iw_conn *rne_iw_cm_accept(struct rne_dev *d,
                                     struct rne_iw_eng *e,
                                     void *listen_user,
                                     struct rne_tcp_conn *tc);
void rne_iw_cm_connected(struct rne_dev *d, struct rne_iw_conn *c);
void rne_iw_cm_recv(struct rne_dev *d, struct rne_iw_conn *c,
                    const uint8_t *data, size_t len);
void rne_iw_cm_peer_closed(struct rne_dev *d, struct rne_iw_conn *c);
/* time_wait: TCP stays in TIME_WAIT, keep the tuple steered to it. */
void rne_iw_cm_closed(struct rne_dev *d, struct rne_iw_conn *c, int err,
                      bool time_wait);
void rne_iw_cm_timer(struct rne_dev *d, struct rne_iw_conn *c,
                     uint64_t now);
/* Post a CM event for c (pdata to the slot of the entry). */
void rne_iw_cm_event(struct rne_dev *d, struct rne_iw_conn *c,
                     uint8_t code, uint16_t status, const uint8_t *pdata,
                     uint16_t pdata_len);
/* Trace the MPA exchange's outcome (accepted: the values in use). */
void rne_iw_trace_mpa(struct rne_dev *d, struct rne_iw_conn *c,
                      uint8_t result, uint8_t code, uint8_t rev,
                      uint16_t pd_len);
/* The QP's connection ended: unbind, flush the QP with async code. */
void rne_iw_conn_unbind(struct rne_dev *d, struct rne_iw_conn *c,
                        uint8_t async_code);
/* End c now with a RST: event code (0: none), the QP flushed. */
void rne_iw_conn_abort(struct rne_dev *d, struct rne_iw_conn *c,
                       uint8_t code, uint16_t status);
/* Start the graceful close of c (FIN once its QP's SQ drained). */
void rne_iw_conn_close(struct rne_dev *d, struct rne_iw_conn *c);
/* The SQ of c's QP may have drained: send the FIN if one is wanted. */
void rne_iw_conn_maybe_fin(struct rne_dev *d, struct rne_iw_conn *c);
/* Full operation for c after a successful exchange. */
void rne_iw_conn_full_op(struct rne_dev *d, struct rne_iw_conn *c);
/* Negotiated IRD/ORD for the QP: from the MPA v2 block, else as asked. */
void rne_iw_conn_set_ird_ord(struct rne_iw_conn *c);
/* The first FPDU after our Reply is the RTR (P2P): the QP goes live. */
void rne_iw_cm_established(struct rne_dev *d, struct rne_iw_conn *c,
                           struct rne_qp *qp);
/*
 * The first FPDU (ULPDU u) arrived in RTR_WAIT: the connection is
 * established. True if u was the zero-length Send RTR, which is consumed
 * here (no receive WQE, no completion), false if it is for the QP.
 */
bool rne_iw_cm_rtr_arrived(struct rne_dev *d, struct rne_iw_conn *c,
                           struct rne_qp *qp, const uint8_t *u, size_t len);

/* iw_cm_cmd.c: the CM_* admin commands */
unsigned rne_iw_cm_admin(struct rne_dev *d, const struct rnic_admin_cmd *cmd,
                         struct rnic_admin_cqe *cqe);

/* iw_nudge.c: wake a siw responder that missed our first FPDUs */
void rne_iw_nudge_start(struct rne_dev *d, struct rne_iw_conn *c);
void rne_iw_nudge_stop(struct rne_dev *d, struct rne_iw_conn *c);
void rne_iw_nudge_timer(struct rne_dev *d, struct rne_iw_conn *c,
                        uint64_t now);

/* iw_stream.c: bytes of a connection in RDMA mode, deframed into FPDUs */
void rne_iw_rx_stream(struct rne_dev *d, struct rne_iw_conn *c,
                      const uint8_t *data, size_t len);

/* iw_tx.c */
/* Bind qp to c (QP stays in its state); NULL if out of memory. */
struct rne_iw_qp *rne_iw_qp_new(struct rne_dev *d, struct rne_qp *qp,
                                struct rne_iw_conn *c);
void rne_iw_qp_destroy(struct rne_dev *d, struct rne_iw_qp *iq);
/* The ORQ / IRQ ring of iq, taken on first use; false: no memory. */
bool rne_iw_orq_get(struct rne_dev *d, struct rne_iw_qp *iq);
bool rne_iw_irq_get(struct rne_dev *d, struct rne_iw_qp *iq);
/* Send what the TCP window allows: responses and SQ WQEs, interleaved. */
void rne_iw_tx_pump(struct rne_dev *d, struct rne_qp *qp);
/* One FPDU carrying hdr + payload; false if TCP has no room for it. */
bool rne_iw_send_fpdu(struct rne_dev *d, struct rne_iw_conn *c,
                      const uint8_t *hdr, size_t hlen,
                      const uint8_t *payload, size_t plen);
/* Mark SQ WQE idx finished and complete every finished WQE in order. */
void rne_iw_wc_done(struct rne_dev *d, struct rne_qp *qp, uint32_t idx,
                    unsigned status, uint32_t byte_len);
/* The P2P RTR (initiator): the first FPDU after the Reply. */
void rne_iw_send_rtr(struct rne_dev *d, struct rne_qp *qp, uint8_t rtr);
bool rne_iw_sq_drained(const struct rne_qp *qp);

/* iw_rx.c: one verified ULPDU (DDP segment). */
void rne_iw_rx_ulpdu(struct rne_dev *d, struct rne_qp *qp,
                     const uint8_t *ulpdu, size_t len);
/* Complete the receive WQE of a message in progress with status. */
void rne_iw_rx_abort(struct rne_dev *d, struct rne_qp *qp, uint8_t status,
                     uint8_t vendor);

/* iw_term.c */
void rne_iw_terminate(struct rne_dev *d, struct rne_qp *qp,
                      struct rne_term_cause cause, const uint8_t *bad,
                      size_t bad_len);
/* The Terminate cause of a failed STag check (tagged: DDP/RDMAP layer). */
struct rne_term_cause rne_iw_mr_cause(enum rne_mr_err err, bool read_req);
void rne_iw_term_received(struct rne_dev *d, struct rne_qp *qp,
                          const struct rne_rdmap_msg *m);

#endif
