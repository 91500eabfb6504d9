// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Offload TCP internals shared by the tcp_*.c files. Not for the upper layer.
 */
#ifndef RNE_TCP_INT_H
#define RNE_TCP_INT_H

#include "tcp.h"

/* Sequence space comparisons (RFC 9293 §3.4). */
#define SEQ_LT(a, b)  ((int32_t)((uint32_t)(a) - (uint32_t)(b)) < 0)
#define SEQ_LEQ(a, b) ((int32_t)((uint32_t)(a) - (uint32_t)(b)) <= 0)
#define SEQ_GT(a, b)  ((int32_t)((uint32_t)(a) - (uint32_t)(b)) > 0)
#define SEQ_GEQ(a, b) ((int32_t)((uint32_t)(a) - (uint32_t)(b)) >= 0)
#define SEQ_MAX(a, b) (SEQ_GT(a, b) ? (a) : (b))
#define SEQ_MIN(a, b) (SEQ_LT(a, b) ? (a) : (b))

#define TH_FIN 0x01
#define TH_SYN 0x02
#define TH_RST 0x04
#define TH_PSH 0x08
#define TH_ACK 0x10
#define TH_URG 0x20

#define TCP_HLEN        20
#define TCP_MAXOPT      40
#define TCP_DUPTHRESH   3
/* held out-of-order ranges; beyond that, drop */
#define TCP_OOO_MAX     16
#define TCP_ACKQ_MAX    32      /* connections owing a batch-end ACK */
#define TCP_SACK_MAX    32      /* scoreboard ranges on the sender */
#define TCP_MAX_WSCALE  14
#define NS_PER_MS       1000000ull

enum tcp_timer { T_REXMT, T_DELACK, T_PERSIST, T_KEEP, T_2MSL, T_NTIMERS };

struct tcp_range { uint32_t s, e; };    /* [s, e) in sequence space */

/* A received segment after header and option parsing. */
struct tcp_seg {
    uint32_t seq, ack, len;     /* len: payload bytes (SYN/FIN not counted) */
    uint32_t wnd;               /* raw 16-bit field */
    uint8_t flags;
    const uint8_t *data;
    bool has_mss, has_ws, has_ts, sack_ok;
    uint16_t mss;
    uint8_t ws;
    uint32_t tsval, tsecr;
    int nsack;
    struct tcp_range sack[4];
    const struct rne_ip4_pkt *ip;
    uint16_t sport, dport;
};

struct rne_tcp_listener {
    struct rne_tcp_listener *next;
    uint16_t port;
    uint32_t backlog, pending;  /* pending: embryonic (SYN_RCVD) children */
    void *user;
    uint16_t tci;               /* its children's 802.1Q TCI (cfg.vlan) */
};

struct rne_tcp_conn {
    struct rne_tcp *t;
    struct rne_tcp_conn *hnext;         /* demux chain / free list */
    struct rne_tcp_conn *dnext;         /* deferred-free list */
    struct rne_tcp_conn *rnext;         /* t->ready: events to take */
    struct rne_tcp_listener *lis;       /* SYN_RCVD child of this listener */
    void *user;
    void *listen_user;                  /* RNE_TCP_EV_ACCEPTED's */
    uint8_t state;
    bool live;                          /* taken from the pool */
    bool in_hash, dead, fin_queued, fin_rcvd_ooo;
    bool ack_now, sack_ok, ts_ok, ws_ok, in_recovery, rtt_timing, syn_rexmit;
    uint8_t snd_ws, rcv_ws;
    uint32_t hash;
    struct rne_ipaddr raddr;
    uint16_t lport, rport;
    uint8_t rmac[RNE_ETH_ALEN];
    uint16_t tci;                       /* 802.1Q TCI, with cfg.vlan */

    /* send sequence space */
    uint32_t iss, snd_una, snd_nxt, snd_max, snd_wnd, snd_wl1, snd_wl2,
             max_sndwnd;
    uint32_t fin_seq;                   /* valid if fin_queued */
    /*
     * send buffer: ring of bytes starting at sequence sb_seq, plus record ends
     */
    uint8_t *sb;                        /* NULL while nothing is queued */
    uint32_t sb_size, sb_head, sb_len, sb_seq;
    /* ring of record end sequence numbers */
    uint32_t *rec;                      /* with sb */
    uint32_t rec_cap, rec_head, rec_cnt;

    /* receive sequence space */
    uint32_t irs, rcv_nxt, rcv_adv, rcv_buf, rcv_unread;
    uint32_t fin_rcv_seq;
    /* out-of-order ring of rcv_buf bytes, while something is held */
    uint8_t *ob;
    uint32_t ob_head;                   /* ring index of sequence rcv_nxt */
    /* unread in-order octets (tcp_read.c): ring [rd_pos, +rd_len) */
    uint32_t rd_pos, rd_len;
    /* the first rd_frame_len of them, still in the received frame */
    const uint8_t *rd_frame;
    uint32_t rd_frame_len;
    struct tcp_range ooo[TCP_OOO_MAX];
    int n_ooo;
    /* for SACK block ordering (RFC 2018 §4) */
    uint32_t last_ooo_seq;
    /* full segments since last ACK (delack) */
    uint32_t segs_unacked;
    /* octets still ACKed every 2nd segment (cfg.ack_batch) */
    uint32_t quick_left;
    bool ack_queued;                    /* in t->ackq */

    /* events for rne_tcp_pull (RNE_TCP_EV_*), queued on t->ready */
    bool in_ready;
    bool ev_time_wait;
    bool out_owed;                      /* tcp_output after the pull */
    uint8_t ev;
    int ev_err;
    uint32_t ev_acked;

    /* options */
    uint16_t peer_mss, mtu;
    uint32_t emss, emss_reported;
    uint32_t ts_recent, ts_offset, last_ack_sent;
    uint64_t ts_recent_age;

    /* RTT / RTO (RFC 6298), in ns */
    uint64_t srtt, rttvar, rto, rtt_start;
    uint32_t rtt_seq;
    uint32_t nrexmit;                   /* consecutive RTO expirations */
    uint32_t persist_backoff, keep_probes;

    /* congestion control (RFC 5681 / 6582 / 6675) */
    uint32_t cwnd, ssthresh, recover, dupacks, high_rxt, bytes_acked;
    struct tcp_range sacked[TCP_SACK_MAX];
    int n_sacked;

    /* timers */
    uint64_t tm[T_NTIMERS];
    uint64_t deadline;
    uint32_t heap_idx;                  /* UINT32_MAX if not in heap */
    uint64_t last_rx;
    uint64_t rexmits;
};

struct rne_tcp {
    struct rne_tcp_config cfg;
    const struct rne_tcp_ops *ops;
    void *opaque;
    struct rne_tcp_conn *pool, *free;
    struct rne_tcp_conn **hash;
    /* last demuxed connection: bulk flows skip the hash */
    struct rne_tcp_conn *last;
    uint32_t hmask;
    struct rne_tcp_listener *lhash[64];
    struct rne_tcp_conn **heap;
    uint32_t heap_n;
    uint64_t now, reported_deadline;
    /* now / 1 ms, for timestamps (no division per segment) */
    uint32_t now_ms;
    /* dropped during this call: freed at its end (tcp_end) */
    struct rne_tcp_conn *dead;
    /* connections with events for rne_tcp_pull, oldest first */
    struct rne_tcp_conn *ready, *ready_tail;
    /* the connection rne_tcp_pull returned last, if it owes output */
    struct rne_tcp_conn *out_next;
    /*
     * The connection of the event rne_tcp_pull returned last: its handle
     * stays valid while the upper layer acts on the event, even if that
     * drops it (rne_tcp_abort); dropped, it goes back to the pool at the
     * next pull, the one point where a handed-out connection is released.
     */
    struct rne_tcp_conn *held;
    /* the connection with unread octets in the last frame (rd_frame) */
    struct rne_tcp_conn *rd_conn;
    uint8_t *scratch;
    uint16_t ip_id;
    uint32_t eph_next;
    uint64_t hash_key[2];
    /* RFC 5961 §7 challenge ACK budget window */
    uint64_t chal_start;
    uint32_t chal_count;
    struct rne_tcp_stats st;
    /* ACKs owed at rne_tcp_rx_batch_end; entries may be stale (dead/reused) */
    struct rne_tcp_conn *ackq[TCP_ACKQ_MAX];
    uint32_t ackq_n;
};

/* Report a retransmission of kind RNE_TCP_REXMIT_* (ops->rexmit). */
/* Ethernet header length of the engine's frames: one 802.1Q tag on a VLAN. */
static inline size_t tcp_l2_hlen(const struct rne_tcp *t)
{
    return RNE_ETH_HLEN + (t->cfg.vlan ? RNE_VLAN_HLEN : 0);
}

static inline void tcp_trace_rexmit(struct rne_tcp_conn *c, int kind)
{
    if (c->t->ops->rexmit) {
        c->t->ops->rexmit(c->t->opaque, c, c->user, kind, c->snd_una,
                          c->nrexmit, (uint32_t)(c->rto / NS_PER_MS));
    }
}

/* tcp_isn.c */
uint64_t tcp_siphash(const uint64_t key[2], const uint8_t *data, size_t len);
uint32_t tcp_isn(struct rne_tcp *t, uint16_t lport,
                 const struct rne_ipaddr *raddr,
                 uint16_t rport);

/* tcp_demux.c */
uint32_t tcp_tuple_hash(const struct rne_tcp *t,
                        const struct rne_ipaddr *raddr,
                        uint16_t lport, uint16_t rport);
struct rne_tcp_conn *tcp_lookup(struct rne_tcp *t,
                                const struct rne_ipaddr *raddr,
                                uint16_t lport, uint16_t rport);
void tcp_hash_insert(struct rne_tcp_conn *c);
void tcp_hash_remove(struct rne_tcp_conn *c);
struct rne_tcp_listener *tcp_listener_find(struct rne_tcp *t, uint16_t port);

/* tcp_conn.c */
struct rne_tcp_conn *tcp_conn_alloc(struct rne_tcp *t);
/* Counted memory (st.mem_*_bytes): NULL without memory, zeroed. */
void *tcp_mem_alloc(struct rne_tcp *t, uint64_t *count, size_t n);
void tcp_mem_free(struct rne_tcp *t, uint64_t *count, void *p, size_t n);
/* The send ring and record ends, taken at the first send; false: no memory. */
bool tcp_sb_get(struct rne_tcp_conn *c);
/* Give them back once nothing is queued. */
void tcp_sb_put_if_empty(struct rne_tcp_conn *c);
void tcp_conn_set_state(struct rne_tcp_conn *c, int state);
/* -> CLOSED, notify, free */
void tcp_conn_drop(struct rne_tcp_conn *c, int err);
void tcp_conn_enter_time_wait(struct rne_tcp_conn *c);
void tcp_conn_notify_closed(struct rne_tcp_conn *c, int err);
void tcp_conn_update_emss(struct rne_tcp_conn *c);
void tcp_conn_event(struct rne_tcp_conn *c, unsigned ev);
void tcp_conn_output_owed(struct rne_tcp_conn *c);
void tcp_begin(struct rne_tcp *t, uint64_t now);
void tcp_end(struct rne_tcp *t);

/*
 * Someone takes c's events: its user, or the upper layer about to pull the
 * RNE_TCP_EV_ACCEPTED that gives it one.
 */
static inline bool tcp_has_user(const struct rne_tcp_conn *c)
{
    return c->user || (c->ev & RNE_TCP_EV_ACCEPTED);
}

/* ... and still wants them: CLOSED went with TIME_WAIT, nothing follows. */
static inline bool tcp_has_reader(const struct rne_tcp_conn *c)
{
    return tcp_has_user(c) && c->state != RNE_TCP_TIME_WAIT;
}

/* tcp_read.c */
void tcp_rd_add(struct rne_tcp_conn *c, const uint8_t *p, uint32_t n);
void tcp_rd_take(struct rne_tcp_conn *c, uint32_t len);
void tcp_rd_drop(struct rne_tcp_conn *c);
void tcp_rd_frame_end(struct rne_tcp *t);
bool tcp_ob_get(struct rne_tcp_conn *c);
void tcp_ob_write(struct rne_tcp_conn *c, uint32_t pos, const uint8_t *p,
                  uint32_t n);
void tcp_ob_put_if_idle(struct rne_tcp_conn *c);

/* tcp_opt.c */
bool tcp_parse_options(struct tcp_seg *s, const uint8_t *opt, size_t len);
size_t tcp_build_options(struct rne_tcp_conn *c, uint8_t *opt, uint8_t flags,
                         size_t room);
uint32_t tcp_ts_now(const struct rne_tcp_conn *c);

/* tcp_input.c */
void tcp_input_segment(struct rne_tcp *t, const struct rne_ip4_pkt *ip,
                       struct tcp_seg *s);

/* tcp_output.c */
void tcp_output(struct rne_tcp_conn *c);
void tcp_send_ack(struct rne_tcp_conn *c);
void tcp_send_syn(struct rne_tcp_conn *c);
void tcp_send_probe(struct rne_tcp_conn *c);
void tcp_xmit(struct rne_tcp_conn *c, uint32_t seq, uint32_t len,
              uint8_t flags);
uint32_t tcp_seg_len_at(const struct rne_tcp_conn *c, uint32_t seq);
uint32_t tcp_rexmit_len(const struct rne_tcp_conn *c, uint32_t seq);
void tcp_send_rst(struct rne_tcp *t, const struct rne_ip4_pkt *ip,
                  const struct tcp_seg *s);
void tcp_send_rst_conn(struct rne_tcp_conn *c);
uint32_t tcp_rcv_window(struct rne_tcp_conn *c);
void tcp_rcv_release(struct rne_tcp_conn *c, size_t len);
void tcp_sb_ack(struct rne_tcp_conn *c, uint32_t ack);

/* tcp_timer.c */
void tcp_timer_set(struct rne_tcp_conn *c, enum tcp_timer which,
                   uint64_t when);
void tcp_timer_clear(struct rne_tcp_conn *c, enum tcp_timer which);
void tcp_timer_clear_all(struct rne_tcp_conn *c);
void tcp_timers_run(struct rne_tcp *t, uint64_t now);
void tcp_rexmt_arm(struct rne_tcp_conn *c);
void tcp_rtt_sample(struct rne_tcp_conn *c, uint64_t rtt_ns);
void tcp_report_deadline(struct rne_tcp *t);

/* tcp_cc.c */
void tcp_cc_init(struct rne_tcp_conn *c);
void tcp_cc_ack(struct rne_tcp_conn *c, uint32_t acked, uint32_t prev_una);
void tcp_cc_dupack(struct rne_tcp_conn *c, bool sack_new);
void tcp_cc_rto(struct rne_tcp_conn *c);
void tcp_cc_output_recovery(struct rne_tcp_conn *c);

/* tcp_sack.c */
void tcp_sack_update(struct rne_tcp_conn *c, const struct tcp_seg *s);
void tcp_sack_ack(struct rne_tcp_conn *c);
void tcp_sack_clear(struct rne_tcp_conn *c);
bool tcp_sack_is_sacked(const struct rne_tcp_conn *c, uint32_t seq,
                        uint32_t *end);
uint32_t tcp_sack_pipe(const struct rne_tcp_conn *c);
bool tcp_sack_next_lost(const struct rne_tcp_conn *c, uint32_t *seq,
                        uint32_t *len);
bool tcp_sack_is_lost(const struct rne_tcp_conn *c, uint32_t seq);
/* receiver side: out-of-order reassembly and the SACK blocks we advertise */
void tcp_ooo_insert(struct rne_tcp_conn *c, uint32_t seq, const uint8_t *data,
                    uint32_t len);
void tcp_ooo_deliver(struct rne_tcp_conn *c);
void tcp_rcv_advance(struct rne_tcp_conn *c, uint32_t n);
void tcp_fin_arrived(struct rne_tcp_conn *c);
int tcp_ooo_sack_blocks(const struct rne_tcp_conn *c, struct tcp_range *out,
                        int max);

#endif
