/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Offload connection management: the MPA Request/Reply exchange
 * (RFC 5044 / RFC 6581) on top of the offload TCP, CM events with their
 * private data, and the ways a connection ends.
 */
#include <string.h>
#include "iw.h"
#include "core/eq.h"
#include "wire/le.h"

static uint8_t rtr_to_flags(uint8_t rtr)
{
    return ((rtr & RNIC_MPA_RTR_WRITE) ? RNIC_MPA_P2P_WRITE : 0) |
           ((rtr & RNIC_MPA_RTR_READ) ? RNIC_MPA_P2P_READ : 0) |
           ((rtr & RNIC_MPA_RTR_SEND) ? RNIC_MPA_P2P_SEND : 0);
}

void rnic_iw_cm_event(struct rnic_dev *d, struct rnic_iw_conn *c,
                      uint8_t code, uint16_t status, const uint8_t *pdata,
                      uint16_t pdata_len)
{
    struct rnic_eq *eq;
    struct rnic_eqe e;
    struct rnic_eqe_cm *cm = &e.u.cm;

    rnic_trace_cm(&d->host, c->id, c->qpn, code, status);
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
    e.obj = rnic_cpu_to_le32(c->id);
    cm->listen_id = rnic_cpu_to_le32(c->listen_id);
    cm->qpn = rnic_cpu_to_le32(c->qpn);
    if (code == RNIC_CM_CONNECT_REQUEST) {
        uint32_t ird = c->req.ird, ord = c->req.ord;

        /*
         * A revision 1 Request carries no IRD/ORD: offer what the device
         * can do (as cxgb4), not 0, which a ULP accepting with the offer
         * (rdma_accept(id, NULL)) would take as "no RDMA Reads".
         */
        if (!c->req.enhanced) {
            ird = d->cfg.max_ord;
            ord = d->cfg.max_ird;
        }
        cm->ird = (uint8_t)(ird > 255 ? 255 : ird);
        cm->ord = (uint8_t)(ord > 255 ? 255 : ord);
        cm->mpa_rev = c->req.rev;
        cm->mpa_flags = (c->req.crc ? RNIC_MPA_CRC : 0) |
                        (c->req.markers ? RNIC_MPA_MARKERS : 0) |
                        (c->req.p2p ? rtr_to_flags(c->req.rtr) : 0) |
                        (c->req.x7306 ? RNIC_MPA_RFC7306 : 0);
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
    cm->pdata_len = rnic_cpu_to_le16(pdata_len);
    cm->status = rnic_cpu_to_le16(status);
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
void rnic_iw_conn_abort(struct rnic_dev *d, struct rnic_iw_conn *c,
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

    /* a freed connection has no TCP any more */
    if (c->state != IWC_CLOSING || c->fin_sent || !c->tc) {
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
    rnic_iw_trace_state(d, c, IWC_CLOSING);
    c->state = IWC_CLOSING;
    if (c->qpn != RNIC_IW_NO_QP) {
        qp = rnic_qp_get(d, c->qpn);
        if (qp && qp->iw) {
            rnic_trace_qp_state(&d->host, qp->qpn, qp->state,
                                RNIC_QPS_CLOSING);
            qp->state = RNIC_QPS_CLOSING;
            qp->iw->close_wanted = true;
        }
    }
    rnic_iw_conn_maybe_fin(d, c);
}

/* ---- TCP events ---- */

/*
 * TCP's RNIC_TCP_EV_ACCEPTED: a connection for the MPA Request to come on,
 * at the port MTU of now; none left: TCP resets it.
 */
struct rnic_iw_conn *rnic_iw_cm_accept(struct rnic_dev *d,
                                       struct rnic_iw_eng *e,
                                       void *listen_user,
                                       struct rnic_tcp_conn *tc)
{
    struct rnic_iw_conn *c = rnic_iw_conn_alloc(d);
    struct rnic_ipaddr la, ra;
    uint16_t lp, rp;

    if (!c) {
        rnic_tcp_abort(tc, rnic_iw_now(d));
        return NULL;
    }
    rnic_trace_conn_state(&d->host, c->id, c->qpn, RNIC_TRACE_NONE,
                          IWC_REQ_WAIT);
    c->eng = e;
    c->tc = tc;
    c->listen_id = (uint32_t)(uintptr_t)listen_user - 1;
    c->state = IWC_REQ_WAIT;
    rnic_tcp_set_user(tc, c);
    rnic_iw_conn_mtu(d, tc, 0);
    rnic_tcp_get_tuple(tc, &la, &lp, &ra, &rp);
    c->tuple.family = RNIC_AF_IPV4;
    memcpy(c->tuple.local_addr, la.u.v4, 4);
    memcpy(c->tuple.remote_addr, ra.u.v4, 4);
    c->tuple.local_port = rnic_cpu_to_le16(lp);
    c->tuple.remote_port = rnic_cpu_to_le16(rp);
    c->key.family = RNIC_AF_IPV4;
    c->key.vlan = e->vlan;              /* the VLAN its SYN came on */
    memcpy(c->key.laddr, la.u.v4, 4);
    memcpy(c->key.raddr, ra.u.v4, 4);
    c->key.lport = lp;
    c->key.rport = rp;
    rnic_iw_steer_conn(d, c, true);
    rnic_mpa_rr_rx_init(&c->hs->rr, false);
    c->deadline = rnic_iw_now(d) + RNIC_IW_MPA_REQ_NS;
    return c;
}

void rnic_iw_cm_connected(struct rnic_dev *d, struct rnic_iw_conn *c)
{
    uint8_t buf[RNIC_MPA_RR_MAX];
    int n;

    if (c->state != IWC_SYN_SENT) {
        return;
    }
    c->req.pd = c->hs->pdata;
    c->req.pd_len = c->pdata_len;
    n = rnic_mpa_rr_encode(&c->req, buf, sizeof(buf));
    if (n <= 0 || rnic_tcp_send(c->tc, buf, (size_t)n, rnic_iw_now(d))) {
        d->iw->st.mpa_neg_fail++;
        rnic_iw_conn_abort(d, c, RNIC_CM_MPA_ERROR, RNIC_IW_ST_EPROTO);
        return;
    }
    rnic_iw_trace_state(d, c, IWC_REP_WAIT);
    c->state = IWC_REP_WAIT;
    rnic_mpa_rr_rx_init(&c->hs->rr, true);
    c->deadline = rnic_iw_now(d) + RNIC_IW_MPA_REP_NS;
}

/* Full operation for c after a successful exchange. */
void rnic_iw_conn_full_op(struct rnic_iw_conn *c)
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
void rnic_iw_conn_set_ird_ord(struct rnic_iw_conn *c)
{
    struct rnic_iw_qp *iq = c->iq;
    uint32_t ird = c->neg.ird_ord_known ? c->neg.ird : c->loc.ird;
    uint32_t ord = c->neg.ird_ord_known ? c->neg.ord : c->loc.ord;

    iq->ird = ird < iq->irq_cap ? ird : iq->irq_cap - 1;
    iq->ord = ord < iq->orq_cap ? ord : iq->orq_cap - 1;
}

/* The MPA exchange's outcome for tracing (accepted: the values in use). */
void rnic_iw_trace_mpa(struct rnic_dev *d, struct rnic_iw_conn *c,
                       uint8_t result, uint8_t code, uint8_t rev,
                       uint16_t pd_len)
{
    struct rnic_trace ev = {
        .id = RNIC_TRACE_MPA, .conn = c->id, .qpn = c->qpn,
        .u.mpa = { .result = result, .code = code, .active = c->active,
                   .rev = rev, .pd_len = pd_len },
    };

    if (!d->host.ops->trace) {
        return;
    }
    if (result == RNIC_TRACE_MPA_ACCEPTED) {
        ev.u.mpa.crc = c->neg.crc;
        ev.u.mpa.markers_tx = c->neg.markers_tx;
        ev.u.mpa.markers_rx = c->neg.markers_rx;
        ev.u.mpa.rtr = c->neg.rtr;
        ev.u.mpa.ird = (uint16_t)(c->iq ? c->iq->ird : c->neg.ird);
        ev.u.mpa.ord = (uint16_t)(c->iq ? c->iq->ord : c->neg.ord);
    }
    rnic_trace_ev(&d->host, &ev);
}

static void rx_reply(struct rnic_dev *d, struct rnic_iw_conn *c,
                     const uint8_t *data, size_t len);

static void rx_request(struct rnic_dev *d, struct rnic_iw_conn *c,
                       const uint8_t *data, size_t len)
{
    struct rnic_mpa_rr rr;
    size_t used = 0;
    int r = rnic_mpa_rr_rx_feed(&c->hs->rr, data, len, &used, &rr);

    if (r == 0) {
        return;
    }
    /*
     * A bad Request, or bytes after it before our Reply (siw does the
     * same): the driver never saw this connection, drop it.
     */
    if (r < 0 || used != len) {
        d->iw->st.mpa_neg_fail++;
        rnic_iw_conn_abort(d, c, 0, 0);
        return;
    }
    c->req = rr;
    if (rr.pd_len) {
        memcpy(c->hs->req_pd, rr.pd, rr.pd_len);
    }
    c->req.pd = c->hs->req_pd;
    rnic_iw_trace_state(d, c, IWC_ACCEPT_WAIT);
    c->state = IWC_ACCEPT_WAIT;
    c->deadline = UINT64_MAX;
    c->req_posted = true;
    rnic_iw_cm_event(d, c, RNIC_CM_CONNECT_REQUEST, 0, c->hs->req_pd,
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
    bool queued = false;
    size_t n;

    rnic_mpa_tx_init(&c->tx, c->req.crc || rep->crc, rep->markers);
    rnic_iw_trace_mpa(d, c, RNIC_TRACE_MPA_REFUSED, code, rep->rev,
                      rep->pd_len);
    n = rnic_rdmap_term_build(ulpdu, sizeof(ulpdu), 1, &cause, NULL, 0);
    if (n && c->tc) {
        queued = rnic_iw_send_fpdu(d, c, ulpdu, n, NULL, 0);
        rnic_tcp_close(c->tc, rnic_iw_now(d));
    }
    rnic_trace_term(&d->host, RNIC_TRACE_TERM_TX, c->id, c->qpn, cause.layer,
                    cause.etype, cause.code, queued);
    d->iw->st.term_tx += queued;
    d->iw->st.mpa_neg_fail++;
    c->fin_sent = true;
    rnic_iw_cm_event(d, c, RNIC_CM_MPA_ERROR, RNIC_IW_ST_EPROTO, NULL, 0);
    rnic_iw_conn_unbind(d, c, 0);
    rnic_iw_trace_state(d, c, IWC_LINGER);
    c->state = IWC_LINGER;
    c->deadline = UINT64_MAX;
}

static void rx_reply(struct rnic_dev *d, struct rnic_iw_conn *c,
                     const uint8_t *data, size_t len)
{
    struct rnic_mpa_rr rep;
    struct rnic_qp *qp;
    size_t used = 0;
    int r = rnic_mpa_rr_rx_feed(&c->hs->rr, data, len, &used, &rep);

    if (r == 0) {
        return;
    }
    if (r < 0) {
        d->iw->st.mpa_neg_fail++;
        rnic_iw_conn_abort(d, c, RNIC_CM_MPA_ERROR, RNIC_IW_ST_EPROTO);
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
        rnic_iw_trace_mpa(d, c, RNIC_TRACE_MPA_REJECTED, 0, rep.rev,
                          rep.pd_len);
        rnic_iw_cm_event(d, c, RNIC_CM_REJECTED, RNIC_IW_ST_ECONNREFUSED,
                         rep.pd, rep.pd_len);
        rnic_iw_conn_unbind(d, c, 0);
        rnic_iw_trace_state(d, c, IWC_LINGER);
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
        rnic_iw_conn_abort(d, c, RNIC_CM_RESET, RNIC_IW_ST_ECONNABORTED);
        return;
    }
    rnic_iw_conn_full_op(c);
    rnic_iw_conn_set_ird_ord(c);
    c->iq->rfc7306 = c->neg.rfc7306;    /* offered and agreed on the wire */
    rnic_iw_trace_mpa(d, c, RNIC_TRACE_MPA_ACCEPTED, 0, c->neg.rev,
                      rep.pd_len);
    rnic_iw_trace_state(d, c, IWC_RTS);
    c->state = IWC_RTS;
    d->iw->st.conns_rts++;
    rnic_trace_qp_state(&d->host, qp->qpn, qp->state, RNIC_QPS_RTS);
    qp->state = RNIC_QPS_RTS;
    rnic_iw_nudge_start(d, c);
    /* RFC 6581: the RTR is the first FPDU of the initiator. */
    if (c->neg.rtr) {
        rnic_iw_send_rtr(d, qp, c->neg.rtr);
    }
    rnic_iw_cm_event(d, c, RNIC_CM_CONNECT_REPLY, 0, rep.pd, rep.pd_len);
    rnic_iw_mpa_done(d, c);
    if (c->zombie || qp->iw != c->iq) {
        return;
    }
    rnic_iw_tx_pump(d, qp);
    if (used < len && !c->zombie) {
        rnic_iw_rx_stream(d, c, data + used, len - used);
    }
}

/* The first FPDU after our Reply is the RTR (P2P): the QP goes live. */
void rnic_iw_cm_established(struct rnic_dev *d, struct rnic_iw_conn *c,
                            struct rnic_qp *qp)
{
    rnic_iw_trace_state(d, c, IWC_RTS);
    c->state = IWC_RTS;
    d->iw->st.conns_rts++;
    c->deadline = UINT64_MAX;
    rnic_trace_qp_state(&d->host, qp->qpn, qp->state, RNIC_QPS_RTS);
    qp->state = RNIC_QPS_RTS;
    rnic_iw_cm_event(d, c, RNIC_CM_ESTABLISHED, 0, NULL, 0);
}

bool rnic_iw_cm_rtr_arrived(struct rnic_dev *d, struct rnic_iw_conn *c,
                            struct rnic_qp *qp, const uint8_t *u, size_t len)
{
    struct rnic_iw_qp *iq = c->iq;
    struct rnic_term_cause cause;
    struct rnic_rdmap_msg m;
    bool send_rtr;

    /*
     * RFC 6581: the Send RTR is a zero-length Send, the first message on
     * QN 0. It tells the responder the initiator is ready; it is no ULP
     * message (like the Write and Read RTRs), so it takes no receive.
     */
    send_rtr = c->neg.rtr == RNIC_MPA_RTR_SEND &&
               !rnic_rdmap_decode(u, len, 0, &m, &cause) &&
               m.opcode == RNIC_RDMAP_SEND && m.ddp.last && !m.ddp.mo &&
               m.ddp.qn == RNIC_RDMAP_QN_SEND && !m.payload_len &&
               m.ddp.msn == iq->rx_msn[RNIC_RDMAP_QN_SEND];
    if (send_rtr) {
        iq->rx_msn[RNIC_RDMAP_QN_SEND]++;
    }
    rnic_iw_cm_established(d, c, qp);
    return send_rtr;
}

void rnic_iw_cm_recv(struct rnic_dev *d, struct rnic_iw_conn *c,
                     const uint8_t *data, size_t len)
{
    switch (c->state) {
    case IWC_REQ_WAIT:
        rx_request(d, c, data, len);
        break;
    case IWC_REP_WAIT:
        rx_reply(d, c, data, len);
        break;
    case IWC_ACCEPT_WAIT:
        /* Nothing may follow the Request before our Reply. */
        d->iw->st.mpa_neg_fail++;
        rnic_iw_conn_abort(d, c, RNIC_CM_MPA_ERROR, RNIC_IW_ST_EPROTO);
        break;
    case IWC_RTR_WAIT:
    case IWC_RTS:
    case IWC_CLOSING:
        if (c->qpn != RNIC_IW_NO_QP) {
            rnic_iw_rx_stream(d, c, data, len);
        }
        break;
    default:
        break;          /* lingering: the QP is gone, data is dropped */
    }
}

void rnic_iw_cm_peer_closed(struct rnic_dev *d, struct rnic_iw_conn *c)
{
    /* the stream before it may have ended c (rnic_iw_pull) */
    if (c->zombie) {
        return;
    }
    switch (c->state) {
    case IWC_REQ_WAIT:
        rnic_iw_conn_abort(d, c, 0, 0);
        break;
    case IWC_ACCEPT_WAIT:
    case IWC_SYN_SENT:
    case IWC_REP_WAIT:
        rnic_iw_conn_abort(d, c, RNIC_CM_RESET, RNIC_IW_ST_ECONNRESET);
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
        rnic_iw_trace_state(d, c, IWC_LINGER);
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
        d->iw->st.mpa_neg_fail++;
        rnic_iw_conn_abort(d, c, 0, 0);
        break;
    case IWC_REP_WAIT:
    case IWC_RTR_WAIT:
        d->iw->st.mpa_neg_fail++;
        rnic_iw_conn_abort(d, c, RNIC_CM_TIMEOUT, RNIC_IW_ST_ETIMEDOUT);
        break;
    case IWC_RTS:
        rnic_iw_nudge_timer(d, c, now);
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
