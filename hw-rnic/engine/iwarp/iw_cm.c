/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Offload connection management: CM_* commands, the MPA Request/Reply
 * exchange (RFC 5044 / RFC 6581) on top of the offload TCP, CM events with
 * their private data, and the ways a connection ends.
 */
#include <string.h>
#include "iw.h"
#include "core/eq.h"
#include "wire/le.h"

#define MPA_FLAGS_KNOWN (RNIC_MPA_CRC | RNIC_MPA_MARKERS | \
                         RNIC_MPA_P2P_WRITE | RNIC_MPA_P2P_READ | \
                         RNIC_MPA_P2P_SEND | RNIC_MPA_RFC7306)

static uint8_t rtr_to_flags(uint8_t rtr)
{
    return ((rtr & RNIC_MPA_RTR_WRITE) ? RNIC_MPA_P2P_WRITE : 0) |
           ((rtr & RNIC_MPA_RTR_READ) ? RNIC_MPA_P2P_READ : 0) |
           ((rtr & RNIC_MPA_RTR_SEND) ? RNIC_MPA_P2P_SEND : 0);
}

static uint8_t flags_to_rtr(uint8_t f)
{
    return ((f & RNIC_MPA_P2P_WRITE) ? RNIC_MPA_RTR_WRITE : 0) |
           ((f & RNIC_MPA_P2P_READ) ? RNIC_MPA_RTR_READ : 0) |
           ((f & RNIC_MPA_P2P_SEND) ? RNIC_MPA_RTR_SEND : 0);
}

static bool addr_any(const uint8_t *a)
{
    return !(a[0] | a[1] | a[2] | a[3]);
}

void rnic_iw_cm_event(struct rnic_dev *d, struct rnic_iw_conn *c,
                      uint8_t code, uint16_t status, const uint8_t *pdata,
                      uint16_t pdata_len)
{
    struct rnic_eq *eq;
    struct rnic_eqe e;
    struct rnic_eqe_cm *cm = &e.u.cm;

    if (!d->cm_eqn || !d->eq[d->cm_eqn].live) {
        rnic_guest_error(&d->host, "CM event without a CM EQ", code, c->id);
        return;
    }
    eq = &d->eq[d->cm_eqn];
    if (pdata_len > RNIC_CM_PDATA_SLOT) {
        pdata_len = RNIC_CM_PDATA_SLOT;
    }
    /* The slot of a full EQ still belongs to an unconsumed entry. */
    if (pdata_len && rnic_ring_used(eq->pidx, eq->cidx) < eq->ring.depth &&
        rnic_dma_write(&d->host, rnic_ring_slot(&eq->pdata, eq->pidx),
                       pdata, pdata_len)) {
        rnic_guest_error(&d->host, "CM private data slot not reachable",
                         d->cm_eqn, eq->pidx);
        pdata_len = 0;
    }
    memset(&e, 0, sizeof(e));
    e.type = RNIC_EQE_CM;
    e.code = code;
    e.obj = rnic_st32(c->id);
    cm->listen_id = rnic_st32(c->listen_id);
    cm->qpn = rnic_st32(c->qpn);
    if (code == RNIC_CM_CONNECT_REQUEST) {
        cm->ird = (uint8_t)(c->req.ird > 255 ? 255 : c->req.ird);
        cm->ord = (uint8_t)(c->req.ord > 255 ? 255 : c->req.ord);
        cm->mpa_rev = c->req.rev;
        cm->mpa_flags = (c->req.crc ? RNIC_MPA_CRC : 0) |
                        (c->req.markers ? RNIC_MPA_MARKERS : 0) |
                        (c->req.p2p ? rtr_to_flags(c->req.rtr) : 0);
    } else if (c->neg.rev) {
        cm->ird = (uint8_t)(c->iq ? c->iq->ird : c->neg.ird);
        cm->ord = (uint8_t)(c->iq ? c->iq->ord : c->neg.ord);
        cm->mpa_rev = c->neg.rev;
        cm->mpa_flags = (c->neg.crc ? RNIC_MPA_CRC : 0) |
                        (c->neg.markers_tx || c->neg.markers_rx ?
                         RNIC_MPA_MARKERS : 0) |
                        rtr_to_flags(c->neg.rtr) |
                        (c->iq && c->iq->rfc7306 ? RNIC_MPA_RFC7306 : 0);
    }
    cm->pdata_len = rnic_st16(pdata_len);
    cm->status = rnic_st16(status);
    cm->tuple = c->tuple;
    rnic_eq_post(d, d->cm_eqn, &e);
}

void rnic_iw_conn_unbind(struct rnic_dev *d, struct rnic_iw_conn *c,
                         uint8_t async_code)
{
    struct rnic_qp *qp;

    if (c->qpn == RNIC_IW_NO_QP) {
        return;
    }
    qp = rnic_qp_get(d, c->qpn);
    c->qpn = RNIC_IW_NO_QP;
    if (qp && qp->iw == c->iq) {
        qp->iw = NULL;
        rnic_qp_to_error(d, qp, async_code);
    }
}

/* End c now with a RST: event code (0: none), the QP flushed. */
static void conn_abort(struct rnic_dev *d, struct rnic_iw_conn *c,
                       uint8_t code, uint16_t status)
{
    if (c->tc) {
        rnic_tcp_abort(c->tc, rnic_iw_now(d));
        c->tc = NULL;
    }
    rnic_iw_conn_unbind(d, c, 0);
    if (code) {
        rnic_iw_cm_event(d, c, code, status, NULL, 0);
    }
    rnic_iw_conn_free(d, c);
}

void rnic_iw_conn_maybe_fin(struct rnic_dev *d, struct rnic_iw_conn *c)
{
    struct rnic_qp *qp = NULL;

    if (c->zombie || c->state != IWC_CLOSING || c->fin_sent || !c->tc) {
        return;
    }
    if (c->qpn != RNIC_IW_NO_QP) {
        qp = rnic_qp_get(d, c->qpn);
    }
    if (qp && qp->iw && !rnic_iw_sq_drained(qp)) {
        return;
    }
    c->fin_sent = true;
    rnic_tcp_close(c->tc, rnic_iw_now(d));
}

void rnic_iw_conn_close(struct rnic_dev *d, struct rnic_iw_conn *c)
{
    struct rnic_qp *qp;

    if (c->state != IWC_RTS && c->state != IWC_RTR_WAIT) {
        return;
    }
    c->state = IWC_CLOSING;
    if (c->qpn != RNIC_IW_NO_QP) {
        qp = rnic_qp_get(d, c->qpn);
        if (qp && qp->iw) {
            qp->state = RNIC_QPS_CLOSING;
            qp->iw->close_wanted = true;
        }
    }
    rnic_iw_conn_maybe_fin(d, c);
}

/* ---- TCP events ---- */

void *rnic_iw_cm_accept(struct rnic_dev *d, struct rnic_iw_eng *e,
                        uint32_t listen_id, struct rnic_tcp_conn *tc)
{
    struct rnic_iw_conn *c = rnic_iw_conn_alloc(d);
    struct rnic_ipaddr la, ra;
    uint16_t lp, rp;

    if (!c) {
        return NULL;
    }
    c->eng = e;
    c->tc = tc;
    c->listen_id = listen_id;
    c->state = IWC_REQ_WAIT;
    rnic_iw_conn_mtu(d, tc, 0);
    rnic_tcp_get_tuple(tc, &la, &lp, &ra, &rp);
    c->tuple.family = RNIC_AF_IPV4;
    memcpy(c->tuple.local_addr, la.u.v4, 4);
    memcpy(c->tuple.remote_addr, ra.u.v4, 4);
    c->tuple.local_port = rnic_st16(lp);
    c->tuple.remote_port = rnic_st16(rp);
    c->key.family = RNIC_AF_IPV4;
    memcpy(c->key.laddr, la.u.v4, 4);
    memcpy(c->key.raddr, ra.u.v4, 4);
    c->key.lport = lp;
    c->key.rport = rp;
    rnic_iw_steer_conn(d, c, true);
    rnic_mpa_rr_rx_init(&c->rr, false);
    c->deadline = rnic_iw_now(d) + RNIC_IW_MPA_REQ_NS;
    return c;
}

void rnic_iw_cm_connected(struct rnic_dev *d, struct rnic_iw_conn *c)
{
    uint8_t buf[RNIC_MPA_RR_MAX];
    int n;

    if (!c || c->zombie || c->state != IWC_SYN_SENT) {
        return;
    }
    c->req.pd = c->pdata;
    c->req.pd_len = c->pdata_len;
    n = rnic_mpa_rr_encode(&c->req, buf, sizeof(buf));
    if (n <= 0 || rnic_tcp_send(c->tc, buf, (size_t)n, rnic_iw_now(d))) {
        conn_abort(d, c, RNIC_CM_MPA_ERROR, RNIC_IW_ST_EPROTO);
        return;
    }
    c->state = IWC_REP_WAIT;
    rnic_mpa_rr_rx_init(&c->rr, true);
    c->deadline = rnic_iw_now(d) + RNIC_IW_MPA_REP_NS;
}

/* Full operation for c after a successful exchange. */
static void conn_full_op(struct rnic_iw_conn *c)
{
    struct rnic_tcp_info ti;

    rnic_mpa_tx_init(&c->tx, c->neg.crc, c->neg.markers_tx);
    rnic_mpa_rx_init(&c->rx, c->neg.crc, c->neg.markers_rx, c->rxbuf,
                     RNIC_IW_RX_ULPDU_MAX);
    if (!c->emss) {
        rnic_tcp_get_info(c->tc, &ti);
        c->emss = ti.emss;
    }
    c->mulpdu = rnic_mpa_mulpdu(c->emss, c->tx.markers);
    c->deadline = UINT64_MAX;
}

/* Negotiated IRD/ORD for the QP: from the MPA v2 block, else as asked. */
static void qp_set_ird_ord(struct rnic_iw_conn *c)
{
    struct rnic_iw_qp *iq = c->iq;
    uint32_t ird = c->neg.ird_ord_known ? c->neg.ird : c->loc.ird;
    uint32_t ord = c->neg.ird_ord_known ? c->neg.ord : c->loc.ord;

    iq->ird = ird < iq->irq_cap ? ird : iq->irq_cap - 1;
    iq->ord = ord < iq->orq_cap ? ord : iq->orq_cap - 1;
}

static void rx_reply(struct rnic_dev *d, struct rnic_iw_conn *c,
                     const uint8_t *data, size_t len);
static void rx_fpdus(struct rnic_dev *d, struct rnic_iw_conn *c,
                     const uint8_t *data, size_t len);

static void rx_request(struct rnic_dev *d, struct rnic_iw_conn *c,
                       const uint8_t *data, size_t len)
{
    struct rnic_mpa_rr rr;
    size_t used = 0;
    int r = rnic_mpa_rr_rx_feed(&c->rr, data, len, &used, &rr);

    if (r == 0) {
        return;
    }
    /*
     * A bad Request, or bytes after it before our Reply (siw does the
     * same): the driver never saw this connection, drop it.
     */
    if (r < 0 || used != len) {
        conn_abort(d, c, 0, 0);
        return;
    }
    c->req = rr;
    if (rr.pd_len) {
        memcpy(c->req_pd, rr.pd, rr.pd_len);
    }
    c->req.pd = c->req_pd;
    c->state = IWC_ACCEPT_WAIT;
    c->deadline = UINT64_MAX;
    c->req_posted = true;
    rnic_iw_cm_event(d, c, RNIC_CM_CONNECT_REQUEST, 0, c->req_pd,
                     c->req.pd_len);
}

/*
 * RFC 6581: a Reply we cannot live with (revision, IRD, RTR) is answered
 * with a Terminate carrying the MPA error code, then the connection closes.
 */
static void reply_refused(struct rnic_dev *d, struct rnic_iw_conn *c,
                          const struct rnic_mpa_rr *rep, uint8_t code)
{
    struct rnic_term_cause cause = rnic_mpa_term_cause(code);
    uint8_t ulpdu[RNIC_RDMAP_TERM_MAX];
    size_t n;

    rnic_mpa_tx_init(&c->tx, c->req.crc || rep->crc, rep->markers);
    n = rnic_rdmap_term_build(ulpdu, sizeof(ulpdu), 1, &cause, NULL, 0);
    if (n && c->tc) {
        rnic_iw_send_fpdu(d, c, ulpdu, n, NULL, 0);
        rnic_tcp_close(c->tc, rnic_iw_now(d));
    }
    c->fin_sent = true;
    rnic_iw_cm_event(d, c, RNIC_CM_MPA_ERROR, RNIC_IW_ST_EPROTO, NULL, 0);
    rnic_iw_conn_unbind(d, c, 0);
    c->state = IWC_LINGER;
    c->deadline = UINT64_MAX;
}

/*
 * Linux siw as responder (6.12 siw_accept) is in RDMA mode when it sends
 * its Reply, but hooks the socket to the QP (or its RTR handler) only
 * after that: FPDUs of ours arriving in between are TCP-acked and left
 * unread until more data comes, so a request/response ULP waits forever.
 * Nothing on the wire tells us, so the initiator nudges: while the
 * responder has sent no FPDU, we sent some since its Reply, all of it is
 * acked and our SQ is between messages, a zero-length RDMA Write every
 * 50 ms, 100 ms, ... for 5 s. RFC 5040 zero-length Writes name no buffer
 * and place nothing (no STag check, siw's siw_proc_write returns at once);
 * their arrival makes the peer read all that waits in its socket.
 */
static void nudge_start(struct rnic_dev *d, struct rnic_iw_conn *c)
{
    struct rnic_tcp_info ti;
    uint64_t now = rnic_iw_now(d);

    rnic_tcp_get_info(c->tc, &ti);
    c->nudge_seq = ti.snd_nxt;
    c->nudge_gap = RNIC_IW_NUDGE_FIRST_NS;
    c->nudge_end = now + RNIC_IW_NUDGE_SPAN_NS;
    c->deadline = now + c->nudge_gap;
}

/* In RTS the deadline is the nudge's; later states own it. */
static void nudge_stop(struct rnic_iw_conn *c)
{
    if (c->nudge_end && c->state == IWC_RTS) {
        c->deadline = UINT64_MAX;
    }
    c->nudge_end = 0;
}

static void nudge_timer(struct rnic_dev *d, struct rnic_iw_conn *c,
                        uint64_t now)
{
    struct rnic_qp *qp = rnic_qp_get(d, c->qpn);
    struct rnic_tcp_info ti;

    if (!c->nudge_end || !c->tc || c->fin_sent || !qp || !qp->iw ||
        qp->iw != c->iq) {
        nudge_stop(c);
        return;
    }
    rnic_tcp_get_info(c->tc, &ti);
    if (ti.snd_una != c->nudge_seq && !ti.unacked && !ti.unsent &&
        !c->iq->cur_active) {
        /* The Write "RTR" is exactly a zero-length Write (STag 1, TO 0). */
        rnic_iw_send_rtr(d, qp, RNIC_MPA_RTR_WRITE);
    }
    c->nudge_gap *= 2;
    if (now + c->nudge_gap > c->nudge_end) {
        nudge_stop(c);
        return;
    }
    c->deadline = now + c->nudge_gap;
}

static void rx_reply(struct rnic_dev *d, struct rnic_iw_conn *c,
                     const uint8_t *data, size_t len)
{
    struct rnic_mpa_rr rep;
    struct rnic_qp *qp;
    size_t used = 0;
    int r = rnic_mpa_rr_rx_feed(&c->rr, data, len, &used, &rep);

    if (r == 0) {
        return;
    }
    if (r < 0) {
        conn_abort(d, c, RNIC_CM_MPA_ERROR, RNIC_IW_ST_EPROTO);
        return;
    }
    r = rnic_mpa_check_reply(&c->req, &rep, &c->neg);
    if (r == RNIC_MPA_EC_INSUFFICIENT_IRD && rep.ord <= d->cfg.max_ird) {
        /* Relaxed IRD negotiation (as siw): take the responder's ORD. */
        struct rnic_mpa_rr req = c->req;

        req.ird = rep.ord;
        r = rnic_mpa_check_reply(&req, &rep, &c->neg);
    }
    if (r < 0) {
        /* Rejected: the peer's private data goes to the driver. */
        c->neg.rev = rep.rev;
        rnic_iw_cm_event(d, c, RNIC_CM_REJECTED, RNIC_IW_ST_ECONNREFUSED,
                         rep.pd, rep.pd_len);
        rnic_iw_conn_unbind(d, c, 0);
        c->state = IWC_LINGER;
        c->deadline = UINT64_MAX;
        if (c->tc) {
            rnic_tcp_close(c->tc, rnic_iw_now(d));
        }
        return;
    }
    if (r > 0) {
        reply_refused(d, c, &rep, (uint8_t)r);
        return;
    }
    qp = rnic_qp_get(d, c->qpn);
    if (!qp || qp->iw != c->iq) {
        conn_abort(d, c, RNIC_CM_RESET, RNIC_IW_ST_ECONNABORTED);
        return;
    }
    conn_full_op(c);
    qp_set_ird_ord(c);
    c->state = IWC_RTS;
    qp->state = RNIC_QPS_RTS;
    nudge_start(d, c);
    /* RFC 6581: the RTR is the first FPDU of the initiator. */
    if (c->neg.rtr) {
        rnic_iw_send_rtr(d, qp, c->neg.rtr);
    }
    rnic_iw_cm_event(d, c, RNIC_CM_CONNECT_REPLY, 0, rep.pd, rep.pd_len);
    if (c->zombie || qp->iw != c->iq) {
        return;
    }
    rnic_iw_tx_pump(d, qp);
    if (used < len && !c->zombie) {
        rx_fpdus(d, c, data + used, len - used);
    }
}

/* The first FPDU after our Reply is the RTR (P2P): the QP goes live. */
static void passive_established(struct rnic_dev *d, struct rnic_iw_conn *c,
                                struct rnic_qp *qp)
{
    c->state = IWC_RTS;
    c->deadline = UINT64_MAX;
    qp->state = RNIC_QPS_RTS;
    rnic_iw_cm_event(d, c, RNIC_CM_ESTABLISHED, 0, NULL, 0);
}

static void rx_fpdus(struct rnic_dev *d, struct rnic_iw_conn *c,
                     const uint8_t *data, size_t len)
{
    struct rnic_iw_qp *iq = c->iq;
    struct rnic_qp *qp = rnic_qp_get(d, c->qpn);

    while (len && !c->zombie && qp && qp->iw == iq) {
        struct rnic_mpa_rx_ev ev;
        size_t n = rnic_mpa_rx_feed(&c->rx, data, len, &ev);

        data += n;
        len -= n;
        if (ev.type == RNIC_MPA_RX_ERROR) {
            rnic_iw_terminate(d, qp, rnic_mpa_term_cause(ev.code), NULL, 0);
            return;
        }
        if (ev.type != RNIC_MPA_RX_FPDU) {
            return;
        }
        /* The responder's receive path is live: it sent to us. */
        nudge_stop(c);
        if (c->state == IWC_RTR_WAIT) {
            passive_established(d, c, qp);
            if (c->zombie || qp->iw != iq) {
                return;
            }
        }
        rnic_iw_rx_ulpdu(d, qp, ev.ulpdu, ev.len);
    }
    if (!c->zombie && qp && qp->iw == iq) {
        rnic_iw_tx_pump(d, qp);
        rnic_iw_conn_maybe_fin(d, c);
    }
}

void rnic_iw_cm_recv(struct rnic_dev *d, struct rnic_iw_conn *c,
                     const uint8_t *data, size_t len)
{
    if (!c || c->zombie) {
        return;
    }
    switch (c->state) {
    case IWC_REQ_WAIT:
        rx_request(d, c, data, len);
        break;
    case IWC_REP_WAIT:
        rx_reply(d, c, data, len);
        break;
    case IWC_ACCEPT_WAIT:
        /* Nothing may follow the Request before our Reply. */
        conn_abort(d, c, RNIC_CM_MPA_ERROR, RNIC_IW_ST_EPROTO);
        break;
    case IWC_RTR_WAIT:
    case IWC_RTS:
    case IWC_CLOSING:
        if (c->qpn != RNIC_IW_NO_QP) {
            rx_fpdus(d, c, data, len);
        }
        break;
    default:
        break;          /* lingering: the QP is gone, data is dropped */
    }
}

void rnic_iw_cm_peer_closed(struct rnic_dev *d, struct rnic_iw_conn *c)
{
    if (!c || c->zombie) {
        return;
    }
    switch (c->state) {
    case IWC_REQ_WAIT:
        conn_abort(d, c, 0, 0);
        break;
    case IWC_ACCEPT_WAIT:
    case IWC_SYN_SENT:
    case IWC_REP_WAIT:
        conn_abort(d, c, RNIC_CM_RESET, RNIC_IW_ST_ECONNRESET);
        break;
    case IWC_RTR_WAIT:
    case IWC_RTS:
        /* The peer is done sending: finish ours, then close. */
        rnic_iw_conn_close(d, c);
        break;
    default:
        break;
    }
}

void rnic_iw_cm_closed(struct rnic_dev *d, struct rnic_iw_conn *c, int err,
                       bool time_wait)
{
    uint8_t code;
    uint16_t status = 0;

    if (c->zombie) {
        return;
    }
    if (c->state == IWC_LINGER || c->state == IWC_REQ_WAIT) {
        rnic_iw_conn_unbind(d, c, 0);
        goto out;
    }
    switch (err) {
    case RNIC_TCP_OK:
        code = RNIC_CM_CLOSED;
        break;
    case RNIC_TCP_ETIMEDOUT:
        code = RNIC_CM_TIMEOUT;
        status = RNIC_IW_ST_ETIMEDOUT;
        break;
    case RNIC_TCP_ECONNREFUSED:
        code = RNIC_CM_RESET;
        status = RNIC_IW_ST_ECONNREFUSED;
        break;
    default:
        code = RNIC_CM_RESET;
        status = RNIC_IW_ST_ECONNRESET;
        break;
    }
    rnic_iw_conn_unbind(d, c, 0);
    rnic_iw_cm_event(d, c, code, status, NULL, 0);
out:
    if (time_wait) {
        /*
         * The peer may still retransmit its FIN: the tuple stays steered
         * to the engine (which answers from TIME_WAIT) for 2 MSL.
         */
        c->state = IWC_LINGER;
        c->deadline = rnic_iw_now(d) + RNIC_IW_TIME_WAIT_NS;
        return;
    }
    rnic_iw_conn_free(d, c);
}

void rnic_iw_cm_timer(struct rnic_dev *d, struct rnic_iw_conn *c, uint64_t now)
{
    switch (c->state) {
    case IWC_REQ_WAIT:
        conn_abort(d, c, 0, 0);
        break;
    case IWC_REP_WAIT:
    case IWC_RTR_WAIT:
        conn_abort(d, c, RNIC_CM_TIMEOUT, RNIC_IW_ST_ETIMEDOUT);
        break;
    case IWC_RTS:
        nudge_timer(d, c, now);
        break;
    case IWC_LINGER:
        if (!c->tc) {
            rnic_iw_conn_free(d, c);
        }
        break;
    default:
        break;
    }
}

/* ---- commands ---- */

static unsigned read_pdata(struct rnic_dev *d, uint64_t addr, uint16_t len,
                           uint8_t *buf, uint16_t room)
{
    if (len > room) {
        return RNIC_STS_BAD_PARAM;
    }
    if (len && rnic_dma_read(&d->host, addr, buf, len)) {
        return RNIC_STS_DMA_ERROR;
    }
    return RNIC_STS_OK;
}

static unsigned qp_for_bind(struct rnic_dev *d, uint32_t qpn,
                            struct rnic_qp **out)
{
    struct rnic_qp *qp;

    if (qpn >= d->cfg.max_qp) {
        return RNIC_STS_BAD_INDEX;
    }
    qp = rnic_qp_get(d, qpn);
    if (!qp) {
        return RNIC_STS_NOT_FOUND;
    }
    if (qp->state != RNIC_QPS_IDLE || qp->iw) {
        return RNIC_STS_BAD_STATE;
    }
    *out = qp;
    return RNIC_STS_OK;
}

static unsigned cmd_listen(struct rnic_dev *d,
                           const struct rnic_cmd_cm_listen *c)
{
    struct rnic_iw *iw = d->iw;
    uint32_t id = rnic_ld32(c->listen_id), i;
    uint16_t port = rnic_ld16(c->port);
    struct rnic_iw_listener *l;

    if (id >= d->cfg.max_listen) {
        return RNIC_STS_BAD_INDEX;
    }
    l = &iw->lis[id];
    if (l->live) {
        return RNIC_STS_EXISTS;
    }
    if (c->family == RNIC_AF_IPV6) {
        return RNIC_STS_UNSUPPORTED;
    }
    if (c->family != RNIC_AF_IPV4 || c->rsvd || port == 0) {
        return RNIC_STS_BAD_PARAM;
    }
    for (i = 4; i < 16; i++) {
        if (c->addr[i]) {
            return RNIC_STS_BAD_PARAM;
        }
    }
    if (rnic_steer_add_listener(d->steer, id, RNIC_AF_IPV4, c->addr, port)) {
        return RNIC_STS_EXISTS;
    }
    memset(l, 0, sizeof(*l));
    memcpy(l->addr, c->addr, 4);
    l->port = port;
    l->backlog = rnic_ld32(c->backlog);
    if (l->backlog == 0 || l->backlog > 1024) {
        l->backlog = l->backlog ? 1024 : 1;
    }
    if (!addr_any(l->addr) && !rnic_iw_eng_get(d, l->addr, true)) {
        rnic_steer_del_listener(d->steer, id);
        return RNIC_STS_NO_RESOURCES;
    }
    for (i = 0; i < iw->neng; i++) {
        if (addr_any(l->addr) || !memcmp(iw->eng[i].addr, l->addr, 4)) {
            l->tl[i] = rnic_tcp_listen(iw->eng[i].tcp, port, l->backlog,
                                       (void *)(uintptr_t)(id + 1));
            if (!l->tl[i]) {
                uint32_t j;

                for (j = 0; j < i; j++) {
                    if (l->tl[j]) {
                        rnic_tcp_unlisten(iw->eng[j].tcp, l->tl[j]);
                    }
                }
                rnic_steer_del_listener(d->steer, id);
                return RNIC_STS_EXISTS;
            }
        }
    }
    l->live = true;
    return RNIC_STS_OK;
}

static unsigned cmd_destroy_listen(struct rnic_dev *d, uint32_t id)
{
    struct rnic_iw *iw = d->iw;
    struct rnic_iw_listener *l;
    uint32_t i;

    if (id >= d->cfg.max_listen) {
        return RNIC_STS_BAD_INDEX;
    }
    l = &iw->lis[id];
    if (!l->live) {
        return RNIC_STS_NOT_FOUND;
    }
    for (i = 0; i < iw->neng; i++) {
        if (l->tl[i]) {
            rnic_tcp_unlisten(iw->eng[i].tcp, l->tl[i]);
        }
    }
    rnic_steer_del_listener(d->steer, id);
    memset(l, 0, sizeof(*l));
    return RNIC_STS_OK;
}

static unsigned check_ird_ord(struct rnic_dev *d, uint8_t ird, uint8_t ord,
                              uint8_t flags)
{
    if (ird > d->cfg.max_ird || ord > d->cfg.max_ord ||
        (flags & ~MPA_FLAGS_KNOWN)) {
        return RNIC_STS_BAD_PARAM;
    }
    return RNIC_STS_OK;
}

static unsigned cmd_connect(struct rnic_dev *d,
                            const struct rnic_cmd_cm_connect *cmd,
                            struct rnic_admin_cqe *cqe)
{
    const struct rnic_tuple *t = &cmd->tuple;
    uint32_t flags = rnic_ld32(cmd->flags);
    uint16_t pdlen = rnic_ld16(cmd->pdata_len), mss = rnic_ld16(cmd->mss);
    uint16_t rport = rnic_ld16(t->remote_port);
    uint16_t room = RNIC_MPA_PD_MAX - (cmd->mpa_rev == 2 ? RNIC_MPA_V2_LEN : 0);
    struct rnic_iw_conn *c;
    struct rnic_iw_eng *e;
    struct rnic_ipaddr ra;
    struct rnic_qp *qp;
    uint16_t lport;
    unsigned sts;
    uint32_t i;

    sts = qp_for_bind(d, rnic_ld32(cmd->qpn), &qp);
    if (sts) {
        return sts;
    }
    if (t->family == RNIC_AF_IPV6) {
        return RNIC_STS_UNSUPPORTED;
    }
    if (flags & RNIC_CONNECT_F_VLAN) {
        return RNIC_STS_UNSUPPORTED;    /* the offload TCP sends untagged */
    }
    if (t->family != RNIC_AF_IPV4 || flags || rport == 0 ||
        (cmd->mpa_rev != 1 && cmd->mpa_rev != 2) ||
        addr_any(t->local_addr) || addr_any(t->remote_addr) ||
        (cmd->next_hop_mac[0] & 1) || (mss && mss < 536)) {
        return RNIC_STS_BAD_PARAM;
    }
    for (i = 4; i < 16; i++) {
        if (t->local_addr[i] || t->remote_addr[i]) {
            return RNIC_STS_BAD_PARAM;
        }
    }
    sts = check_ird_ord(d, cmd->ird, cmd->ord, cmd->mpa_flags);
    if (sts) {
        return sts;
    }
    c = rnic_iw_conn_alloc(d);
    if (!c) {
        return RNIC_STS_NO_RESOURCES;
    }
    sts = read_pdata(d, rnic_ld64(cmd->pdata_addr), pdlen, c->pdata, room);
    e = sts ? NULL : rnic_iw_eng_get(d, t->local_addr, true);
    if (!sts && !e) {
        sts = RNIC_STS_NO_RESOURCES;
    }
    if (sts) {
        rnic_iw_conn_free(d, c);
        return sts;
    }
    c->active = true;
    c->eng = e;
    c->pdata_len = pdlen;
    c->loc.rev = cmd->mpa_rev;
    c->loc.crc = cmd->mpa_flags & RNIC_MPA_CRC;
    c->loc.markers = cmd->mpa_flags & RNIC_MPA_MARKERS;
    c->loc.rtr_caps = flags_to_rtr(cmd->mpa_flags);
    c->loc.p2p = c->loc.rtr_caps != 0;
    c->loc.ird = cmd->ird;
    c->loc.ord = cmd->ord;
    rnic_mpa_make_request(&c->loc, &c->req);
    if (!rnic_iw_qp_new(d, qp, c)) {
        rnic_iw_conn_free(d, c);
        return RNIC_STS_NO_RESOURCES;
    }
    c->iq->rfc7306 = cmd->mpa_flags & RNIC_MPA_RFC7306;
    c->tuple = *t;
    lport = rnic_ld16(t->local_port);
    rnic_ipaddr_v4(&ra, t->remote_addr[0], t->remote_addr[1],
                   t->remote_addr[2], t->remote_addr[3]);
    c->state = IWC_SYN_SENT;
    c->tc = rnic_tcp_connect(e->tcp, &ra, rport, lport, cmd->next_hop_mac, c,
                             rnic_iw_now(d));
    if (!c->tc) {
        qp->iw = NULL;
        c->qpn = RNIC_IW_NO_QP;
        rnic_iw_conn_free(d, c);
        return lport ? RNIC_STS_EXISTS : RNIC_STS_NO_RESOURCES;
    }
    rnic_tcp_get_tuple(c->tc, NULL, &lport, NULL, NULL);
    c->tuple.local_port = rnic_st16(lport);
    c->key.family = RNIC_AF_IPV4;
    memcpy(c->key.laddr, t->local_addr, 4);
    memcpy(c->key.raddr, t->remote_addr, 4);
    c->key.lport = lport;
    c->key.rport = rport;
    rnic_iw_steer_conn(d, c, true);
    rnic_iw_conn_mtu(d, c->tc, mss);
    cqe->result0 = rnic_st32(c->id);
    return RNIC_STS_OK;
}

static struct rnic_iw_conn *conn_of(struct rnic_dev *d, uint32_t id,
                                    unsigned *sts)
{
    struct rnic_iw_conn *c;

    if (id >= d->cfg.max_conn) {
        *sts = RNIC_STS_BAD_INDEX;
        return NULL;
    }
    c = rnic_iw_conn_find(d, id);
    if (!c || c->state == IWC_LINGER || (!c->active && !c->req_posted)) {
        *sts = RNIC_STS_NOT_FOUND;
        return NULL;
    }
    *sts = RNIC_STS_OK;
    return c;
}

static unsigned cmd_accept(struct rnic_dev *d,
                           const struct rnic_cmd_cm_accept *cmd)
{
    uint16_t pdlen = rnic_ld16(cmd->pdata_len);
    uint8_t buf[RNIC_MPA_RR_MAX], pd[RNIC_MPA_PD_MAX];
    struct rnic_mpa_local loc;
    struct rnic_mpa_rr rep;
    struct rnic_iw_conn *c;
    struct rnic_qp *qp;
    unsigned sts;
    int n;

    c = conn_of(d, rnic_ld32(cmd->conn_id), &sts);
    if (!c) {
        return sts;
    }
    if (c->state != IWC_ACCEPT_WAIT) {
        return RNIC_STS_BAD_STATE;
    }
    if (cmd->rsvd || cmd->rsvd2) {
        return RNIC_STS_BAD_PARAM;
    }
    sts = check_ird_ord(d, cmd->ird, cmd->ord, cmd->mpa_flags);
    if (!sts) {
        sts = qp_for_bind(d, rnic_ld32(cmd->qpn), &qp);
    }
    if (!sts) {
        sts = read_pdata(d, rnic_ld64(cmd->pdata_addr), pdlen, pd,
                         RNIC_MPA_PD_MAX - (c->req.enhanced ?
                                            RNIC_MPA_V2_LEN : 0));
    }
    if (sts) {
        return sts;
    }
    memset(&loc, 0, sizeof(loc));
    loc.rev = 2;
    loc.crc = cmd->mpa_flags & RNIC_MPA_CRC;
    loc.markers = cmd->mpa_flags & RNIC_MPA_MARKERS;
    /*
     * Accept the RTRs the driver names, else Read or Write (never Send:
     * no Linux peer uses it).
     */
    loc.rtr_caps = flags_to_rtr(cmd->mpa_flags);
    if (!loc.rtr_caps) {
        loc.rtr_caps = RNIC_MPA_RTR_READ | RNIC_MPA_RTR_WRITE;
    }
    loc.p2p = true;
    loc.ird = cmd->ird;
    loc.ord = cmd->ord;
    /* Relaxed IRD (as siw): room for the Reads the initiator will issue. */
    if (c->req.enhanced && c->req.ord > loc.ird &&
        c->req.ord <= d->cfg.max_ird) {
        loc.ird = c->req.ord;
    }
    if (rnic_mpa_make_reply(&c->req, &loc, &rep)) {
        return RNIC_STS_BAD_PARAM;      /* no common RTR: reject instead */
    }
    rep.pd = pd;
    rep.pd_len = pdlen;
    n = rnic_mpa_rr_encode(&rep, buf, sizeof(buf));
    if (n <= 0) {
        return RNIC_STS_BAD_PARAM;
    }
    if (!rnic_iw_qp_new(d, qp, c)) {
        return RNIC_STS_NO_RESOURCES;
    }
    c->loc = loc;
    c->iq->rfc7306 = cmd->mpa_flags & RNIC_MPA_RFC7306;
    rnic_mpa_responder_neg(&c->req, &rep, &c->neg);
    conn_full_op(c);
    qp_set_ird_ord(c);
    if (!c->tc || rnic_tcp_send(c->tc, buf, (size_t)n, rnic_iw_now(d))) {
        conn_abort(d, c, RNIC_CM_RESET, RNIC_IW_ST_ECONNRESET);
        return RNIC_STS_OK;     /* the event tells the driver */
    }
    if (c->neg.rtr) {
        c->state = IWC_RTR_WAIT;
        c->deadline = rnic_iw_now(d) + RNIC_IW_MPA_REP_NS;
    } else {
        passive_established(d, c, qp);
        /* WQEs posted while the QP was IDLE may go now. */
        if (!c->zombie && qp->iw == c->iq) {
            rnic_iw_tx_pump(d, qp);
        }
    }
    return RNIC_STS_OK;
}

static unsigned cmd_reject(struct rnic_dev *d,
                           const struct rnic_cmd_cm_reject *cmd)
{
    uint16_t pdlen = rnic_ld16(cmd->pdata_len);
    uint8_t buf[RNIC_MPA_RR_MAX], pd[RNIC_MPA_PD_MAX];
    struct rnic_mpa_rr rep;
    struct rnic_iw_conn *c;
    unsigned sts;
    int n;

    c = conn_of(d, rnic_ld32(cmd->conn_id), &sts);
    if (!c) {
        return sts;
    }
    if (c->state != IWC_ACCEPT_WAIT) {
        return RNIC_STS_BAD_STATE;
    }
    if (cmd->rsvd) {
        return RNIC_STS_BAD_PARAM;
    }
    sts = read_pdata(d, rnic_ld64(cmd->pdata_addr), pdlen, pd,
                     RNIC_MPA_PD_MAX - (c->req.enhanced ? RNIC_MPA_V2_LEN : 0));
    if (sts) {
        return sts;
    }
    memset(&rep, 0, sizeof(rep));
    rep.reply = true;
    rep.reject = true;
    rep.rev = c->req.rev >= 2 ? 2 : 1;
    rep.enhanced = c->req.enhanced && rep.rev == 2;
    rep.pd = pd;
    rep.pd_len = pdlen;
    n = rnic_mpa_rr_encode(&rep, buf, sizeof(buf));
    if (n <= 0) {
        return RNIC_STS_BAD_PARAM;
    }
    /* The Reply, then FIN; the connection is no longer the driver's. */
    c->state = IWC_LINGER;
    if (c->tc) {
        rnic_tcp_send(c->tc, buf, (size_t)n, rnic_iw_now(d));
        rnic_tcp_close(c->tc, rnic_iw_now(d));
    } else {
        rnic_iw_conn_free(d, c);
    }
    return RNIC_STS_OK;
}

static unsigned cmd_disconnect(struct rnic_dev *d, uint32_t id)
{
    struct rnic_iw_conn *c;
    unsigned sts;

    c = conn_of(d, id, &sts);
    if (!c) {
        return sts;
    }
    switch (c->state) {
    case IWC_RTS:
    case IWC_RTR_WAIT:
        rnic_iw_conn_close(d, c);
        return RNIC_STS_OK;
    case IWC_CLOSING:
        return RNIC_STS_OK;
    default:
        return RNIC_STS_BAD_STATE;
    }
}

static unsigned cmd_abort(struct rnic_dev *d, uint32_t id)
{
    struct rnic_iw_conn *c;
    unsigned sts;

    c = conn_of(d, id, &sts);
    if (!c) {
        return sts;
    }
    conn_abort(d, c, RNIC_CM_RESET, RNIC_IW_ST_ECONNABORTED);
    return RNIC_STS_OK;
}

unsigned rnic_iw_cm_admin(struct rnic_dev *d, const struct rnic_admin_cmd *cmd,
                          struct rnic_admin_cqe *cqe)
{
    /* Connections report through the CM EQ: none, no new connections. */
    if ((cmd->hdr.opcode == RNIC_CMD_CM_LISTEN ||
         cmd->hdr.opcode == RNIC_CMD_CM_CONNECT) && !d->cm_eqn) {
        return RNIC_STS_BAD_STATE;
    }
    switch (cmd->hdr.opcode) {
    case RNIC_CMD_CM_LISTEN:
        return cmd_listen(d, &cmd->u.cm_listen);
    case RNIC_CMD_CM_DESTROY_LISTEN:
        return cmd_destroy_listen(d, rnic_ld32(cmd->u.obj.id));
    case RNIC_CMD_CM_CONNECT:
        return cmd_connect(d, &cmd->u.cm_connect, cqe);
    case RNIC_CMD_CM_ACCEPT:
        return cmd_accept(d, &cmd->u.cm_accept);
    case RNIC_CMD_CM_REJECT:
        return cmd_reject(d, &cmd->u.cm_reject);
    case RNIC_CMD_CM_DISCONNECT:
        return cmd_disconnect(d, rnic_ld32(cmd->u.obj.id));
    case RNIC_CMD_CM_ABORT:
        return cmd_abort(d, rnic_ld32(cmd->u.obj.id));
    default:
        return RNIC_STS_BAD_OPCODE;
    }
}
