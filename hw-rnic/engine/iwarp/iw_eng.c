/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The offload TCP engines, one per local IPv4 address and VLAN: created on
 * first use, frames in (rne_iw_receive) and out (the device's egress queue),
 * and what TCP hands up: its events, pulled (rne_iw_pull).
 */
#include <string.h>
#include "iw.h"
#include "core/l2.h"

/*
 * Offload TCP frames share the device's wire through its egress queue;
 * while the link is down, or beyond the queue, they are dropped and TCP
 * retransmits them.
 */
static void eng_tx(void *opaque, uint8_t *frame, size_t len)
{
    struct rne_iw_eng *e = opaque;
    struct rne_dev *d = e->d;

    if (d->port.link_up && !rne_dev_send(d, frame, len)) {
        d->tx_dropped++;
    }
}

/* The send MSS sizes this connection's FPDUs from now on. */
static void eng_emss(struct rne_iw_conn *ic, uint32_t emss)
{
    ic->emss = emss;
    ic->mulpdu = rne_mpa_mulpdu(emss, ic->tx.markers);
}

/* The offload TCP's kinds are passed on as the trace's. */
_Static_assert(RNE_TCP_REXMIT_RTO == (int)RNE_TRACE_REXMIT_RTO &&
               RNE_TCP_REXMIT_SYN == (int)RNE_TRACE_REXMIT_SYN &&
               RNE_TCP_REXMIT_FAST == (int)RNE_TRACE_REXMIT_FAST &&
               RNE_TCP_REXMIT_GIVEUP == (int)RNE_TRACE_REXMIT_GIVEUP,
               "rexmit kinds differ");

/* Tracing only: a retransmission of connection user's TCP. */
static void eng_rexmit(void *opaque, struct rne_tcp_conn *c, void *user,
                       int kind, uint32_t seq, uint32_t backoff,
                       uint32_t rto_ms)
{
    struct rne_iw_eng *e = opaque;
    struct rne_iw_conn *ic = user;
    struct rne_trace ev = {
        .id = RNE_TRACE_REXMIT,
        .conn = ic ? ic->id : RNE_TRACE_NONE,
        .qpn = ic ? ic->qpn : RNE_TRACE_NONE,
        .u.rexmit = { .kind = (uint8_t)kind, .seq = seq, .backoff = backoff,
                      .rto_ms = rto_ms },
    };

    (void)c;
    rne_trace_ev(&e->d->host, &ev);
}

/*
 * What TCP received in order, read where it lies (the frame, or TCP's ring
 * after a gap) and consumed span by span: the MPA handshake or the FPDU
 * loop (iw_stream.c) places or copies all of it, then the window reopens.
 */
static void eng_readable(struct rne_dev *d, struct rne_tcp_conn *tc,
                         struct rne_iw_conn *ic)
{
    struct rne_iov sp;

    /* a connection this layer let go of leaves the rest to TCP */
    while (ic->tc == tc && rne_tcp_peek(tc, &sp, 1)) {
        rne_iw_cm_recv(d, ic, sp.base, sp.len);
        if (ic->tc == tc) {
            rne_tcp_consume(tc, sp.len, rne_iw_now(d));
        }
    }
}

/* Acknowledged send space: the SQ and responses may go on, then the FIN. */
static void eng_acked(struct rne_dev *d, struct rne_iw_conn *ic)
{
    struct rne_qp *qp;

    if (ic->qpn == RNE_IW_NO_QP) {
        return;
    }
    qp = rne_qp_get(d, ic->qpn);
    if (qp && qp->iw) {
        rne_iw_tx_pump(d, qp);
        rne_iw_conn_maybe_fin(d, ic);
    }
}

/*
 * A connection's TCP is finished: the event the engine queued, taken after
 * the call into TCP returned.
 */
static void eng_closed(struct rne_dev *d, const struct rne_tcp_event *ev)
{
    struct rne_iw_conn *ic = ev->user;

    ic->tc = NULL;
    rne_iw_cm_closed(d, ic, ev->err, ev->time_wait);
}

/*
 * Does ic still hold the TCP connection of ev?  A handler that ended ic
 * (an abort or a QP error in its stream, an abort on the peer's FIN) let it
 * go: the rest of the event is nobody's.  ic's memory stays until the
 * dispatch ends, so asking is safe.
 */
static bool holds(const struct rne_iw_conn *ic, const struct rne_tcp_event *ev)
{
    return ic->tc == ev->conn;
}

/*
 * Take what the TCP engines queued for this layer.  Called by the dispatch
 * after each call into TCP (frame, timers, batch end) and at its end, never
 * from inside TCP; what the handlers ask of TCP may queue more, taken here.
 * The handlers of one event run in order while the connection holds its
 * TCP connection; one that ends it ends the event.
 */
void rne_iw_pull(struct rne_dev *d)
{
    struct rne_iw *iw = d->iw;
    struct rne_tcp_event ev;
    bool more = true;
    uint32_t i;

    while (more) {
        more = false;
        for (i = 0; i < iw->neng; i++) {
            while (rne_tcp_pull(iw->eng[i].tcp, &ev)) {
                more = true;
                /* a connection request got through TCP's handshake */
                if (ev.events & RNE_TCP_EV_ACCEPTED) {
                    ev.user = rne_iw_cm_accept(d, &iw->eng[i],
                                               ev.listen_user, ev.conn);
                    if (!ev.user) {
                        continue;
                    }
                }
                if (ev.events & RNE_TCP_EV_EMSS) {
                    eng_emss(ev.user, ev.emss);
                }
                /* the MPA Request, unless it is over already */
                if ((ev.events & (RNE_TCP_EV_CONNECTED | RNE_TCP_EV_CLOSED))
                    == RNE_TCP_EV_CONNECTED) {
                    rne_iw_cm_connected(d, ev.user);
                }
                /* the stream, then its end */
                if ((ev.events & RNE_TCP_EV_READABLE) && holds(ev.user, &ev)) {
                    eng_readable(d, ev.conn, ev.user);
                }
                if ((ev.events & RNE_TCP_EV_PEER_CLOSED) &&
                    holds(ev.user, &ev)) {
                    rne_iw_cm_peer_closed(d, ev.user);
                }
                /* a finished connection sends nothing more */
                if (ev.events & RNE_TCP_EV_CLOSED) {
                    if (holds(ev.user, &ev)) {
                        eng_closed(d, &ev);
                    }
                    continue;
                }
                /* what the ACK let go */
                if ((ev.events & RNE_TCP_EV_ACKED) && holds(ev.user, &ev)) {
                    eng_acked(d, ev.user);
                }
            }
        }
    }
}

/* What the TCP engines emit: frames, and retransmissions for tracing. */
void rne_iw_eng_ops(struct rne_tcp_ops *ops)
{
    ops->tx = eng_tx;
    ops->rexmit = eng_rexmit;
}

/*
 * An engine nothing uses any more (its address departed, or was never the
 * guest's): no connection, no timer, no listener on its address alone.
 */
static bool eng_idle(struct rne_dev *d, const struct rne_iw_eng *e)
{
    struct rne_iw *iw = d->iw;
    uint32_t i;

    if (rne_tcp_next_deadline(e->tcp) != UINT64_MAX) {
        return false;
    }
    for (i = 0; i < iw->nlive; i++) {
        if (iw->live[i]->eng == e) {
            return false;
        }
    }
    for (i = 0; i < d->cfg.max_listen; i++) {
        if (iw->lis[i].live && !memcmp(iw->lis[i].addr, e->addr, 4) &&
            iw->lis[i].vlan == e->vlan) {
            return false;
        }
    }
    return true;
}

/* A slot for a new engine: a free one, else an idle engine's; -1: none. */
static int eng_slot(struct rne_dev *d)
{
    struct rne_iw *iw = d->iw;
    uint32_t i;

    if (iw->neng < RNE_IW_MAX_ADDR) {
        return iw->neng;
    }
    for (i = 0; i < iw->neng; i++) {
        if (eng_idle(d, &iw->eng[i])) {
            return i;
        }
    }
    return -1;
}

/* Free the idle engine in slot i (its wildcard listens go with it). */
static void eng_evict(struct rne_dev *d, uint32_t i)
{
    struct rne_iw *iw = d->iw;
    uint32_t j;

    for (j = 0; j < d->cfg.max_listen; j++) {
        if (iw->lis[j].live && iw->lis[j].tl[i]) {
            rne_tcp_unlisten(iw->eng[i].tcp, iw->lis[j].tl[i]);
            iw->lis[j].tl[i] = NULL;
        }
    }
    rne_iw_stats_fold(d, iw->eng[i].tcp);
    rne_tcp_free(iw->eng[i].tcp);
}

struct rne_iw_eng *rne_iw_eng_get(struct rne_dev *d, const uint8_t *addr,
                                  int32_t tci, bool create)
{
    uint16_t vid = tci == RNE_NO_VLAN ? 0 : RNE_VLAN_VID((uint16_t)tci);
    struct rne_iw *iw = d->iw;
    struct rne_tcp_config cfg;
    struct rne_tcp *tcp;
    struct rne_iw_eng *e;
    uint32_t i;
    int slot;

    for (i = 0; i < iw->neng; i++) {
        if (!memcmp(iw->eng[i].addr, addr, 4) && iw->eng[i].vlan == vid) {
            /* SET_PORT may have given the port a new address since. */
            rne_tcp_set_mac(iw->eng[i].tcp, d->port.mac);
            return &iw->eng[i];
        }
    }
    if (!create || !(addr[0] | addr[1] | addr[2] | addr[3])) {
        return NULL;
    }
    slot = eng_slot(d);
    if (slot < 0) {
        return NULL;
    }
    rne_tcp_config_default(&cfg);
    memcpy(cfg.mac, d->port.mac, sizeof(cfg.mac));
    rne_ipaddr_v4(&cfg.addr, addr[0], addr[1], addr[2], addr[3]);
    /*
     * The largest MTU the device takes: each connection is then set to the
     * port MTU of its time (rne_iw_conn_mtu), so SET_PORT applies to the
     * connections opened after it.
     */
    cfg.mtu = (uint16_t)d->cfg.max_mtu;
    cfg.max_conns = d->cfg.max_conn;
    cfg.ack_batch = d->cfg.ack_batch;
    cfg.sndbuf = d->cfg.tcp_window_kib * 1024;
    cfg.rcvbuf = cfg.sndbuf;
    /* dead peers are found as Linux TCP finds them (dev.h defaults) */
    cfg.keepalive = d->cfg.keep_idle_s != 0;
    cfg.keep_idle_ms = d->cfg.keep_idle_s * 1000;
    cfg.keep_intvl_ms = d->cfg.keep_intvl_s * 1000;
    cfg.keep_probes = d->cfg.keep_probes;
    /*
     * Priority 0 for what no command named: RSTs, a wildcard listener's
     * connections; CONNECT and VLAN listeners give their own.
     */
    cfg.vlan = vid != 0;
    cfg.vlan_tci = vid;
    /* RFC 6528: one random secret; the hash covers the local address. */
    memcpy(cfg.isn_secret, iw->isn_key, sizeof(cfg.isn_secret));
    e = &iw->eng[slot];
    tcp = rne_tcp_new(&cfg, &iw->ops, e);
    if (!tcp) {
        return NULL;
    }
    if ((uint32_t)slot == iw->neng) {
        iw->neng++;
    } else {
        eng_evict(d, slot);     /* a departed address makes room */
    }
    e->d = d;
    memcpy(e->addr, addr, 4);
    e->vlan = vid;
    e->tcp = tcp;
    /* Wildcard listeners listen on every local address. */
    for (i = 0; i < d->cfg.max_listen; i++) {
        struct rne_iw_listener *l = &iw->lis[i];

        if (l->live && !(l->addr[0] | l->addr[1] | l->addr[2] | l->addr[3])) {
            l->tl[slot] = rne_tcp_listen(e->tcp, l->port, l->backlog,
                                         (void *)(uintptr_t)(i + 1));
        }
    }
    return e;
}

void rne_iw_conn_mtu(struct rne_dev *d, struct rne_tcp_conn *tc,
                     uint16_t mss)
{
    uint32_t mtu = d->port.mtu;

    if (mss && mss + 40u < mtu) {
        mtu = mss + 40u;
    }
    rne_tcp_set_mtu(tc, (uint16_t)(mtu < 576 ? 576 : mtu));
}

static bool any_wildcard_listener(struct rne_dev *d, uint16_t port)
{
    uint32_t i;

    for (i = 0; i < d->cfg.max_listen; i++) {
        struct rne_iw_listener *l = &d->iw->lis[i];

        if (l->live && l->port == port &&
            !(l->addr[0] | l->addr[1] | l->addr[2] | l->addr[3])) {
            return true;
        }
    }
    return false;
}

bool rne_iw_receive(struct rne_dev *d, const uint8_t *frame, size_t len,
                    const struct rne_flow_key *k)
{
    struct rne_iw_eng *e;

    if (k->family != RNIC_AF_IPV4) {
        return false;
    }
    /* the listener table is walked only when no engine has the address */
    e = rne_iw_eng_get(d, k->laddr, k->vlan ? k->vlan : RNE_NO_VLAN, false);
    /*
     * Only addresses the guest sent from, on the VLAN it sent from: no
     * engines for made-up ones.
     */
    if (!e && rne_l2_addr_owned(d, k->laddr, k->vlan) &&
        any_wildcard_listener(d, k->lport)) {
        e = rne_iw_eng_get(d, k->laddr, k->vlan ? k->vlan : RNE_NO_VLAN,
                           true);
    }
    if (!e) {
        return false;
    }
    rne_tcp_input(e->tcp, frame, len, rne_iw_now(d));
    rne_iw_pull(d);
    return true;
}
