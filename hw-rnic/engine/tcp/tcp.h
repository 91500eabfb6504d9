// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * rnic offload TCP: a sans-I/O TCP engine (RFC 9293 + 7323, 6298, 5681, 6582,
 * 2018, 6675, 5961, 6528).
 *
 * Inputs: Ethernet frames (rne_tcp_input), time (now_ns passed to every
 * call), and requests from the upper layer (connect/listen/send/close).
 * Outputs: frames and timer requests through the ops table, and events for
 * the upper layer, queued on the connection for the upper layer to take with
 * rne_tcp_pull() once the call into the engine has returned: the engine
 * never calls up into the upper layer (ops only carry output: frames, the
 * timer, tracing). No clock, no threads, no global state: same inputs, same
 * outputs.
 *
 * The sender is record-aware: rne_tcp_send() takes one whole record (an MPA
 * FPDU later) and the segmenter never splits a record that fits the EMSS
 * (the one exception: a peer that never offers a window that large); several
 * small records may share a segment, retransmissions keep the boundaries, and
 * EMSS changes are reported as RNE_TCP_EV_EMSS. The receiver queues
 * RNE_TCP_EV_READABLE and the upper layer reads in-order payload where it
 * lies, in the received frame (no copy), with rne_tcp_peek/consume;
 * out-of-order data is held and becomes readable once the gap fills.
 *
 * Connection handles stay valid until the upper layer took their
 * RNE_TCP_EV_CLOSED event (or called rne_tcp_abort). While it takes events
 * the upper layer may call the per-connection API (send, recv_done, close,
 * abort); ops must not call the engine at all.
 *
 * Not implemented: IPv6 (the address type is ready), urgent data (URG is
 * ignored), SYN cookies (the backlog bounds embryonic connections), ECN.
 */
#ifndef RNE_TCP_H
#define RNE_TCP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "wire/net.h"
#include "wire/span.h"

/* one engine: one local MAC/IP, many connections */
struct rne_tcp;
struct rne_tcp_conn;
struct rne_tcp_listener;

struct rne_tcp_ops {
    /*
     * Optional: give a buffer of at least maxlen bytes to build the next frame
     * in (e.g. straight into a device ring). NULL: the engine's scratch is
     * used.
     */
    uint8_t *(*tx_buf)(void *opaque, size_t maxlen);
    /*
     * A complete Ethernet frame to put on the wire (buffer from tx_buf or
     * scratch).
     */
    void (*tx)(void *opaque, uint8_t *frame, size_t len);
    /*
     * Optional: the earliest timer deadline changed; call rne_tcp_tick() then.
     */
    void (*timer)(void *opaque, uint64_t deadline_ns);

    /*
     * rne_tcp_deliver only: RNE_TCP_EV_ACCEPTED. Return the upper layer's
     * context for c, or NULL to refuse it (the peer gets a RST).
     */
    void *(*accept)(void *opaque, void *listen_user, struct rne_tcp_conn *c);
    /* rne_tcp_deliver only: RNE_TCP_EV_CONNECTED. */
    void (*connected)(void *opaque, struct rne_tcp_conn *c, void *user);
    /*
     * rne_tcp_deliver only: RNE_TCP_EV_READABLE's octets, span by span,
     * valid only during the call. Return window with rne_tcp_recv_done.
     */
    void (*recv)(void *opaque, struct rne_tcp_conn *c, void *user,
                 const uint8_t *data, size_t len);
    /* rne_tcp_deliver only: RNE_TCP_EV_ACKED with its bytes. */
    void (*acked)(void *opaque, struct rne_tcp_conn *c, void *user,
                  uint32_t bytes);
    /* rne_tcp_deliver only: RNE_TCP_EV_EMSS. */
    void (*emss)(void *opaque, struct rne_tcp_conn *c, void *user,
                 uint32_t emss);
    /* rne_tcp_deliver only: RNE_TCP_EV_PEER_CLOSED. */
    void (*peer_closed)(void *opaque, struct rne_tcp_conn *c, void *user);
    /*
     * Called by rne_tcp_deliver() only, never by the engine itself: the
     * RNE_TCP_EV_CLOSED event of rne_tcp_pull().
     */
    void (*closed)(void *opaque, struct rne_tcp_conn *c, void *user, int err);
    /*
     * Optional, for tracing only (it must not call the engine): a
     * retransmission of kind RNE_TCP_REXMIT_* from sequence seq; backoff is
     * the consecutive timeouts so far, rto_ms the timeout from now on.
     */
    void (*rexmit)(void *opaque, struct rne_tcp_conn *c, void *user,
                   int kind, uint32_t seq, uint32_t backoff, uint32_t rto_ms);
};

enum {
    RNE_TCP_REXMIT_RTO,         /* retransmission timeout: data or FIN */
    RNE_TCP_REXMIT_SYN,         /* SYN or SYN-ACK again */
    RNE_TCP_REXMIT_FAST,        /* fast retransmit: recovery begins */
    RNE_TCP_REXMIT_GIVEUP,      /* retries exhausted: the connection drops */
};

enum {
    RNE_TCP_OK = 0,
    RNE_TCP_ECONNREFUSED = 1,   /* RST answered our SYN */
    RNE_TCP_ECONNRESET = 2,     /* RST in a synchronized state */
    RNE_TCP_ETIMEDOUT = 3,      /* retransmissions or keepalive gave up */
    /* API return codes (negative) */
    RNE_TCP_EAGAIN = -11,       /* no send space for the whole record */
    RNE_TCP_EINVAL = -22,
    RNE_TCP_ENOMEM = -12,
    RNE_TCP_EADDRINUSE = -98,
    RNE_TCP_ENOTCONN = -107,
    RNE_TCP_EPIPE = -32,
    RNE_TCP_EMSGSIZE = -90,
};

struct rne_tcp_config {
    uint8_t mac[RNE_ETH_ALEN];
    struct rne_ipaddr addr;
    uint16_t mtu;               /* IP MTU, default 1500 */
    uint32_t max_conns;         /* connections incl. embryonic and TIME_WAIT */
    /* per-connection send buffer (bytes), default 256 KiB */
    uint32_t sndbuf;
    /* per-connection receive window (bytes), default 256 KiB */
    uint32_t rcvbuf;
    /* records queued per connection, default sndbuf/64 */
    uint32_t max_records;
    uint8_t isn_secret[16];     /* RFC 6528 key, from the embedder */
    bool no_sack, no_wscale, no_timestamps;
    uint32_t rto_init_ms;       /* RFC 6298: 1000 */
    /* default 200 (as Linux; RFC 6298 suggests 1000) */
    uint32_t rto_min_ms;
    uint32_t rto_max_ms;        /* default 60000 */
    uint32_t syn_retries;       /* default 6 */
    uint32_t data_retries;      /* default 15 */
    uint32_t delack_ms;         /* default 40 */
    uint32_t msl_ms;            /* TIME_WAIT lasts 2*MSL, default 30000 */
    /* FIN_WAIT_2 with nothing heard, default 60000 */
    uint32_t fin_wait2_ms;
    /* RFC 5961 §7: per engine per second, default 1000 */
    uint32_t challenge_ack_limit;
    bool keepalive;             /* off by default */
    uint32_t keep_idle_ms, keep_intvl_ms, keep_probes;
    /* do not compute TX TCP checksums (bench only) */
    bool tx_csum_offload;
    /* do not verify RX TCP checksums (bench only) */
    bool rx_csum_offload;
    /*
     * Stretch ACKs: past its first 2 * rcvbuf octets (and for a window after
     * a hole) a connection's in-order data owes an ACK that waits for
     * rne_tcp_rx_batch_end, up to rcvbuf / 4 octets, instead of going out
     * every 2nd segment. The embedder must then call rne_tcp_rx_batch_end
     * after each burst of rne_tcp_input calls. Off by default.
     */
    bool ack_batch;
    /*
     * The engine lives on an 802.1Q VLAN: every frame it sends carries one
     * tag (vlan_tci, or the TCI its connection was opened with) and it takes
     * only frames tagged with vlan_tci's VID.  Off: untagged frames (and
     * priority-tagged ones, VID 0) only.
     */
    bool vlan;
    uint16_t vlan_tci;
};

struct rne_tcp_stats {
    uint64_t rx_frames, rx_bad, rx_csum_err, rx_no_conn, rx_ooo, rx_dup;
    uint64_t tx_frames, tx_data_segs, tx_rexmit_segs, tx_rst, tx_challenge_ack;
    uint64_t rto_fired, fast_rexmit, paws_drop, persist_probes;
    uint64_t conns_open, conns_now;
    /* in-order segments whose ACK waited for rne_tcp_rx_batch_end */
    uint64_t rx_ack_deferred;
    /*
     * Host memory held now: by connections (send rings and their record
     * ends, taken at the first send and given back when all is acked;
     * out-of-order storage, while something is held) and by the engine
     * itself (connection pool, demux hash, timer heap, listeners).
     */
    uint64_t mem_conn_bytes, mem_engine_bytes;
};

/* Per-connection information (for tests and diagnostics). */
struct rne_tcp_info {
    int state;                  /* enum rne_tcp_state */
    uint32_t emss, snd_wscale, rcv_wscale;
    bool sack, timestamps;
    uint32_t cwnd, ssthresh, snd_wnd, rcv_wnd, srtt_us, rto_ms;
    uint32_t snd_una, snd_nxt, rcv_nxt, unacked, unsent;
    uint64_t rexmits;
};

enum rne_tcp_state {
    RNE_TCP_CLOSED, RNE_TCP_LISTEN, RNE_TCP_SYN_SENT, RNE_TCP_SYN_RCVD,
    RNE_TCP_ESTABLISHED, RNE_TCP_FIN_WAIT_1, RNE_TCP_FIN_WAIT_2,
    RNE_TCP_CLOSE_WAIT, RNE_TCP_CLOSING, RNE_TCP_LAST_ACK,
    RNE_TCP_TIME_WAIT,
};

void rne_tcp_config_default(struct rne_tcp_config *cfg);
struct rne_tcp *rne_tcp_new(const struct rne_tcp_config *cfg,
                            const struct rne_tcp_ops *ops, void *opaque);
/* Frees everything; no events are delivered. */
void rne_tcp_free(struct rne_tcp *t);

/*
 * Feed one received Ethernet frame. Returns true if it was IPv4 for this
 * engine (consumed, maybe dropped), false if not ours (ARP, other
 * ethertypes, other addresses): the embedder may handle those.
 */
bool rne_tcp_input(struct rne_tcp *t, const uint8_t *frame, size_t len,
                   uint64_t now_ns);
/*
 * The end of a burst of rne_tcp_input calls (cfg.ack_batch): send the ACKs
 * the burst owes, one per connection.
 */
void rne_tcp_rx_batch_end(struct rne_tcp *t, uint64_t now_ns);
/* Some ACK waits for rne_tcp_rx_batch_end. */
bool rne_tcp_ack_owed(const struct rne_tcp *t);
/* Run expired timers. */
void rne_tcp_tick(struct rne_tcp *t, uint64_t now_ns);
/* Earliest deadline (ns), UINT64_MAX if none. */
uint64_t rne_tcp_next_deadline(const struct rne_tcp *t);

struct rne_tcp_listener *rne_tcp_listen(struct rne_tcp *t, uint16_t port,
                                        uint32_t backlog,
                                        void *user);
void rne_tcp_unlisten(struct rne_tcp *t, struct rne_tcp_listener *l);
/*
 * On a VLAN engine: the connections the listener accepts from now on send
 * with this TCI's priority (the VID is the engine's).
 */
void rne_tcp_listen_set_tci(struct rne_tcp_listener *l, uint16_t tci);

/* Active open; lport 0 picks an ephemeral port. peer_mac is the next hop. */
struct rne_tcp_conn *rne_tcp_connect(struct rne_tcp *t,
                                     const struct rne_ipaddr *raddr,
                                     uint16_t rport, uint16_t lport,
                                     const uint8_t *peer_mac, void *user,
                                     uint64_t now_ns);
/*
 * The same on a VLAN engine with the connection's own TCI (its PCP; the
 * VID is the engine's, cfg.vlan_tci's).
 */
struct rne_tcp_conn *rne_tcp_connect_tci(struct rne_tcp *t,
                                         const struct rne_ipaddr *raddr,
                                         uint16_t rport, uint16_t lport,
                                         const uint8_t *peer_mac,
                                         uint16_t tci, void *user,
                                         uint64_t now_ns);

/*
 * One record, gathered from iov pieces. All or nothing: EAGAIN if it does not
 * fit.
 */
struct rne_iov { const void *base; size_t len; };
int rne_tcp_sendv(struct rne_tcp_conn *c, const struct rne_iov *iov,
                  int iovcnt,
                  uint64_t now_ns);
int rne_tcp_send(struct rne_tcp_conn *c, const void *rec, size_t len,
                 uint64_t now_ns);
/*
 * The same in two steps, for a record written in place (payload DMA'd
 * straight into the send ring): reserve checks as sendv does and gives the
 * record's len octets as one or two spans of the ring (span[1].len is 0
 * unless it wraps); nothing is queued until commit(len) with the same len,
 * and no other send or reserve may come in between. Not committing is
 * allowed: the spans are then free again.
 */
int rne_tcp_reserve(struct rne_tcp_conn *c, size_t len,
                    struct rne_span span[2]);
void rne_tcp_commit(struct rne_tcp_conn *c, size_t len, uint64_t now_ns);

/*
 * The in-order octets received and not consumed yet (RNE_TCP_EV_READABLE),
 * as up to max spans in stream order; returns how many (0: none). They lie
 * in the last frame given to rne_tcp_input (which must stay valid until
 * rne_tcp_pull returned false or the next rne_tcp_input) or in the
 * connection's receive ring. A span stays valid until it is consumed or the
 * pull ends (what is left unread is then copied into the ring: peek again).
 */
int rne_tcp_peek(const struct rne_tcp_conn *c, struct rne_iov *span,
                 int max);
/*
 * The upper layer is done with the first len readable octets: they go, and
 * the receive window opens by len (as rne_tcp_recv_done).
 */
void rne_tcp_consume(struct rne_tcp_conn *c, size_t len, uint64_t now_ns);

/*
 * Bytes free in the send buffer (the largest record that would be accepted
 * now).
 */
size_t rne_tcp_send_space(const struct rne_tcp_conn *c);
/*
 * The upper layer consumed len received bytes: reopen the window by that much
 * (for octets rne_tcp_deliver handed to ops->recv).
 */
void rne_tcp_recv_done(struct rne_tcp_conn *c, size_t len, uint64_t now_ns);
/*
 * Orderly close: FIN after queued data. RNE_TCP_EV_CLOSED follows when both
 * sides are done.
 */
int rne_tcp_close(struct rne_tcp_conn *c, uint64_t now_ns);
/*
 * Send RST and forget the connection now; no closed event. Handle invalid
 * after.
 */
void rne_tcp_abort(struct rne_tcp_conn *c, uint64_t now_ns);
/*
 * The device is reset: send RST on every connection the peer believes
 * synchronized (SYN_RCVD to LAST_ACK), one frame each, and change nothing
 * else (rne_tcp_free follows). Returns the number sent.
 */
uint32_t rne_tcp_reset_all(struct rne_tcp *t, uint64_t now_ns);
/* Path MTU changed (e.g. ICMP or admin): EMSS is recomputed and reported. */
void rne_tcp_set_mtu(struct rne_tcp_conn *c, uint16_t mtu);
/*
 * ICMP "fragmentation needed" quoting a segment of c from sequence seq with
 * next-hop MTU mtu: when seq is in flight (snd_una <= seq < snd_max, RFC
 * 5927 §4.1) and mtu is below the connection's, the MTU is lowered to it,
 * never below RNE_TCP_MIN_PMTU; EMSS is recomputed and reported. Segments
 * lost to the smaller MTU go again by the retransmission timer. Returns
 * true if the MTU changed.
 */
#define RNE_TCP_MIN_PMTU 576
bool rne_tcp_icmp_mtu(struct rne_tcp_conn *c, uint32_t seq, uint16_t mtu);
/* The local MAC changed (the port's address): used for frames from now on. */
void rne_tcp_set_mac(struct rne_tcp *t, const uint8_t *mac);

/*
 * Events a connection queued for the upper layer: the engine never calls up
 * for them, the upper layer takes them with rne_tcp_pull() after its call
 * into the engine (input, tick, batch end, any API call) has returned.
 */
enum {
    /*
     * The connection is finished for the upper layer: err 0 for an orderly
     * close, or RNE_TCP_E*; time_wait: TCP still answers the peer from
     * TIME_WAIT. The last event: the handle is invalid once it is taken.
     */
    RNE_TCP_EV_CLOSED = 1u << 0,
    /*
     * Bytes of sent records were acknowledged (acked counts them since the
     * last time taken): send space is free again.
     */
    RNE_TCP_EV_ACKED = 1u << 1,
    /* Active open completed (taken before ACKED and CLOSED). */
    RNE_TCP_EV_CONNECTED = 1u << 2,
    /*
     * In-order octets arrived: read them (rne_tcp_peek) and consume them
     * before the pull ends. Handled after CONNECTED, before the others.
     */
    RNE_TCP_EV_READABLE = 1u << 3,
    /* The peer sent FIN after all its data (handled after READABLE). */
    RNE_TCP_EV_PEER_CLOSED = 1u << 4,
    /*
     * A passive connection on a listener reached ESTABLISHED: its first
     * event, handled before all others. ev.user is NULL and ev.listen_user
     * the listener's. The upper layer takes it with rne_tcp_set_user (the
     * rest of the event is then its) or refuses it with rne_tcp_abort (the
     * peer gets a RST, the rest of the event is dropped).
     */
    RNE_TCP_EV_ACCEPTED = 1u << 5,
    /*
     * The effective send MSS (payload per segment) was set or changed:
     * ev.emss (handled after ACCEPTED, before the others).
     */
    RNE_TCP_EV_EMSS = 1u << 6,
};

struct rne_tcp_event {
    struct rne_tcp_conn *conn; /* invalid after RNE_TCP_EV_CLOSED */
    /* rne_tcp_set_user's; NULL only with RNE_TCP_EV_ACCEPTED */
    void *user;
    void *listen_user;          /* RNE_TCP_EV_ACCEPTED: rne_tcp_listen's */
    unsigned events;            /* RNE_TCP_EV_* */
    int err;                    /* RNE_TCP_EV_CLOSED */
    uint32_t acked;             /* RNE_TCP_EV_ACKED */
    bool time_wait;             /* RNE_TCP_EV_CLOSED */
    uint32_t emss;              /* RNE_TCP_EV_EMSS */
};

/*
 * Take the events of the next connection that has some, in the order they
 * were queued; false when none is left. A connection whose user is NULL gets
 * none but RNE_TCP_EV_ACCEPTED. Not from inside a call into the engine.
 * Output that input owed a connection (ACKs, queued data, FIN) is sent at
 * the next call, after the upper layer acted on the events: call until it
 * returns false.
 */
bool rne_tcp_pull(struct rne_tcp *t, struct rne_tcp_event *ev);
/*
 * For embedders that like callbacks: take every event and hand it to the
 * ops table (ops->accept, ops->emss, ops->connected, ops->recv,
 * ops->peer_closed, ops->acked, ops->closed). Not from inside a callback.
 */
void rne_tcp_deliver(struct rne_tcp *t);

void rne_tcp_set_user(struct rne_tcp_conn *c, void *user);
void rne_tcp_get_info(const struct rne_tcp_conn *c,
                      struct rne_tcp_info *info);
void rne_tcp_get_tuple(const struct rne_tcp_conn *c,
                       struct rne_ipaddr *laddr,
                       uint16_t *lport, struct rne_ipaddr *raddr,
                       uint16_t *rport);
const struct rne_tcp_stats *rne_tcp_get_stats(const struct rne_tcp *t);
const char *rne_tcp_state_name(int state);

#endif
