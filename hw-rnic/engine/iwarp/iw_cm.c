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
    return ((rtr & RNE_MPA_RTR_WRITE) ? RNIC_MPA_P2P_WRITE : 0) |
           ((rtr & RNE_MPA_RTR_READ) ? RNIC_MPA_P2P_READ : 0) |
           ((rtr & RNE_MPA_RTR_SEND) ? RNIC_MPA_P2P_SEND : 0);
}

void rne_iw_cm_event(struct rne_dev *d, struct rne_iw_conn *c,
                     uint8_t code, uint16_t status, const uint8_t *pdata,
                     uint16_t pdata_len)
{
    struct rne_eq *eq;
    struct rnic_eqe e;
    struct rnic_eqe_cm *cm = &e.u.cm;

    rne_trace_cm(&d->host, c->id, c->qpn, code, status);
    if (!d->cm_eqn || !d->eq[d->cm_eqn].live) {
        rne_guest_error(&d->host, "CM event without a CM EQ", code, c->id);
        return;
    }
    eq = &d->eq[d->cm_eqn];
    if (pdata_len > RNIC_CM_PDATA_SLOT) {
        pdata_len = RNIC_CM_PDATA_SLOT;
    }
    /* The slot of a full EQ still belongs to an unconsumed entry. */
    if (pdata_len && rne_ring_used(eq->pidx, eq->cidx) < eq->ring.depth &&
        rne_dma_write(&d->host, rne_ring_slot(&eq->pdata, eq->pidx),
                      pdata, pdata_len)) {
        rne_guest_error(&d->host, "CM private data slot not reachable",
                        d->cm_eqn, eq->pidx);
        pdata_len = 0;
    }
    memset(&e, 0, sizeof(e));
    e.type = RNIC_EQE_CM;
    e.code = code;
    e.obj = rne_cpu_to_le32(c->id);
    cm->listen_id = rne_cpu_to_le32(c->listen_id);
    cm->qpn = rne_cpu_to_le32(c->qpn);
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
    cm->pdata_len = rne_cpu_to_le16(pdata_len);
    cm->status = rne_cpu_to_le16(status);
    cm->tuple = c->tuple;
    rne_eq_post(d, d->cm_eqn, &e);
}

void rne_iw_conn_unbind(struct rne_dev *d, struct rne_iw_conn *c,
                        uint8_t async_code)
{
    struct rne_qp *qp;

    if (c->qpn == RNE_IW_NO_QP) {
        return;
    }
    qp = rne_qp_get(d, c->qpn);
    c->qpn = RNE_IW_NO_QP;
    if (qp && qp->iw == c->iq) {
        qp->iw = NULL;
        rne_qp_to_error(d, qp, async_code);
    }
}

/* End c now with a RST: event code (0: none), the QP flushed. */
void rne_iw_conn_abort(struct rne_dev *d, struct rne_iw_conn *c,
                       uint8_t code, uint16_t status)
{
    if (c->tc) {
        rne_tcp_abort(c->tc, rne_iw_now(d));
        c->tc = NULL;
    }
    rne_iw_conn_unbind(d, c, 0);
    if (code) {
        rne_iw_cm_event(d, c, code, status, NULL, 0);
    }
    rne_iw_conn_free(d, c);
}

void rne_iw_conn_maybe_fin(struct rne_dev *d, struct rne_iw_conn *c)
{
    struct rne_qp *qp = NULL;

    /* without its TCP (finished, or let go of) there is no FIN to send */
    if (c->state != IWC_CLOSING || c->fin_sent || !c->tc) {
        return;
    }
    if (c->qpn != RNE_IW_NO_QP) {
        qp = rne_qp_get(d, c->qpn);
    }
    if (qp && qp->iw && !rne_iw_sq_drained(qp)) {
        return;
    }
    c->fin_sent = true;
    rne_tcp_close(c->tc, rne_iw_now(d));
}

void rne_iw_conn_close(struct rne_dev *d, struct rne_iw_conn *c)
{
    struct rne_qp *qp;

    if (c->state != IWC_RTS && c->state != IWC_RTR_WAIT) {
        return;
    }
    rne_iw_trace_state(d, c, IWC_CLOSING);
    c->state = IWC_CLOSING;
    if (c->qpn != RNE_IW_NO_QP) {
        qp = rne_qp_get(d, c->qpn);
        if (qp && qp->iw) {
            rne_trace_qp_state(&d->host, qp->qpn, qp->state,
                               RNIC_QPS_CLOSING);
            qp->state = RNIC_QPS_CLOSING;
            qp->iw->close_wanted = true;
        }
    }
    rne_iw_conn_maybe_fin(d, c);
}

/* ---- TCP events ---- */

/*
 * TCP's RNE_TCP_EV_ACCEPTED: a connection for the MPA Request to come on,
 * at the port MTU of now; none left: TCP resets it.
 */
struct rne_iw_conn *rne_iw_cm_accept(struct rne_dev *d,
                                     struct rne_iw_eng *e,
                                     void *listen_user,
                                     struct rne_tcp_conn *tc)
{
    struct rne_iw_conn *c = rne_iw_conn_alloc(d);
    struct rne_ipaddr la, ra;
    uint16_t lp, rp;

    if (!c) {
        rne_tcp_abort(tc, rne_iw_now(d));
        return NULL;
    }
    rne_trace_conn_state(&d->host, c->id, c->qpn, RNE_TRACE_NONE,
                         IWC_REQ_WAIT);
    c->eng = e;
    c->tc = tc;
    c->listen_id = (uint32_t)(uintptr_t)listen_user - 1;
    c->state = IWC_REQ_WAIT;
    rne_tcp_set_user(tc, c);
    rne_iw_conn_mtu(d, tc, 0);
    rne_tcp_get_tuple(tc, &la, &lp, &ra, &rp);
    c->tuple.family = RNIC_AF_IPV4;
    memcpy(c->tuple.local_addr, la.u.v4, 4);
    memcpy(c->tuple.remote_addr, ra.u.v4, 4);
    c->tuple.local_port = rne_cpu_to_le16(lp);
    c->tuple.remote_port = rne_cpu_to_le16(rp);
    c->key.family = RNIC_AF_IPV4;
    c->key.vlan = e->vlan;              /* the VLAN its SYN came on */
    memcpy(c->key.laddr, la.u.v4, 4);
    memcpy(c->key.raddr, ra.u.v4, 4);
    c->key.lport = lp;
    c->key.rport = rp;
    rne_iw_steer_conn(d, c, true);
    rne_mpa_rr_rx_init(&c->hs->rr, false);
    rne_iw_set_deadline(d->iw, c, rne_iw_now(d) + RNE_IW_MPA_REQ_NS);
    return c;
}

void rne_iw_cm_connected(struct rne_dev *d, struct rne_iw_conn *c)
{
    uint8_t buf[RNE_MPA_RR_MAX];
    int n;

    if (c->state != IWC_SYN_SENT) {
        return;
    }
    c->req.pd = c->hs->pdata;
    c->req.pd_len = c->pdata_len;
    n = rne_mpa_rr_encode(&c->req, buf, sizeof(buf));
    if (n <= 0 || rne_tcp_send(c->tc, buf, (size_t)n, rne_iw_now(d))) {
        d->iw->st.mpa_neg_fail++;
        rne_iw_conn_abort(d, c, RNIC_CM_MPA_ERROR, RNE_IW_ST_EPROTO);
        return;
    }
    rne_iw_trace_state(d, c, IWC_REP_WAIT);
    c->state = IWC_REP_WAIT;
    rne_mpa_rr_rx_init(&c->hs->rr, true);
    rne_iw_set_deadline(d->iw, c, rne_iw_now(d) + RNE_IW_MPA_REP_NS);
}

/* Full operation for c after a successful exchange. */
void rne_iw_conn_full_op(struct rne_dev *d, struct rne_iw_conn *c)
{
    struct rne_tcp_info ti;

    rne_mpa_tx_init(&c->tx, c->neg.crc, c->neg.markers_tx);
    rne_mpa_rx_init(&c->rx, c->neg.crc, c->neg.markers_rx, c->rxbuf,
                    RNE_IW_RX_ULPDU_MAX);
    if (!c->emss) {
        rne_tcp_get_info(c->tc, &ti);
        c->emss = ti.emss;
    }
    c->mulpdu = rne_mpa_mulpdu(c->emss, c->tx.markers);
    rne_iw_set_deadline(d->iw, c, UINT64_MAX);
}

/* Negotiated IRD/ORD for the QP: from the MPA v2 block, else as asked. */
void rne_iw_conn_set_ird_ord(struct rne_iw_conn *c)
{
    struct rne_iw_qp *iq = c->iq;
    uint32_t ird = c->neg.ird_ord_known ? c->neg.ird : c->loc.ird;
    uint32_t ord = c->neg.ird_ord_known ? c->neg.ord : c->loc.ord;

    iq->ird = ird < iq->irq_cap ? ird : iq->irq_cap - 1;
    iq->ord = ord < iq->orq_cap ? ord : iq->orq_cap - 1;
}

/* The MPA exchange's outcome for tracing (accepted: the values in use). */
void rne_iw_trace_mpa(struct rne_dev *d, struct rne_iw_conn *c,
                      uint8_t result, uint8_t code, uint8_t rev,
                      uint16_t pd_len)
{
    struct rne_trace ev = {
        .id = RNE_TRACE_MPA, .conn = c->id, .qpn = c->qpn,
        .u.mpa = { .result = result, .code = code, .active = c->active,
                   .rev = rev, .pd_len = pd_len },
    };

    if (!d->host.ops->trace) {
        return;
    }
    if (result == RNE_TRACE_MPA_ACCEPTED) {
        ev.u.mpa.crc = c->neg.crc;
        ev.u.mpa.markers_tx = c->neg.markers_tx;
        ev.u.mpa.markers_rx = c->neg.markers_rx;
        ev.u.mpa.rtr = c->neg.rtr;
        ev.u.mpa.ird = (uint16_t)(c->iq ? c->iq->ird : c->neg.ird);
        ev.u.mpa.ord = (uint16_t)(c->iq ? c->iq->ord : c->neg.ord);
    }
    rne_trace_ev(&d->host, &ev);
}

static void rx_reply(struct rne_dev *d, struct rne_iw_conn *c,
                     const uint8_t *data, size_t len);

static void rx_request(struct rne_dev *d, struct rne_iw_conn *c,
                       const uint8_t *data, size_t len)
{
    struct rne_mpa_rr rr;
    size_t used = 0;
    int r = rne_mpa_rr_rx_feed(&c->hs->rr, data, len, &used, &rr);

    if (r == 0) {
        return;
    }
    /*
     * A bad Request, or bytes after it before our Reply (siw does the
     * same): the driver never saw this connection, drop it.
     */
    if (r < 0 || used != len) {
        d->iw->st.mpa_neg_fail++;
        rne_iw_conn_abort(d, c, 0, 0);
        return;
    }
    c->req = rr;
    if (rr.pd_len) {
        memcpy(c->hs->req_pd, rr.pd, rr.pd_len);
    }
    c->req.pd = c->hs->req_pd;
    rne_iw_trace_state(d, c, IWC_ACCEPT_WAIT);
    c->state = IWC_ACCEPT_WAIT;
    rne_iw_set_deadline(d->iw, c, UINT64_MAX);
    c->req_posted = true;
    rne_iw_cm_event(d, c, RNIC_CM_CONNECT_REQUEST, 0, c->hs->req_pd,
                    c->req.pd_len);
}

/*
 * RFC 6581: a Reply we cannot live with (revision, IRD, RTR) is answered
 * with a Terminate carrying the MPA error code, then the connection closes.
 */
static void reply_refused(struct rne_dev *d, struct rne_iw_conn *c,
                          const struct rne_mpa_rr *rep, uint8_t code)
{
    struct rne_term_cause cause = rne_mpa_term_cause(code);
    uint8_t ulpdu[RNE_RDMAP_TERM_MAX];
    bool queued = false;
    size_t n;

    rne_mpa_tx_init(&c->tx, c->req.crc || rep->crc, rep->markers);
    rne_iw_trace_mpa(d, c, RNE_TRACE_MPA_REFUSED, code, rep->rev,
                     rep->pd_len);
    n = rne_rdmap_term_build(ulpdu, sizeof(ulpdu), 1, &cause, NULL, 0);
    if (n && c->tc) {
        queued = rne_iw_send_fpdu(d, c, ulpdu, n, NULL, 0);
        rne_tcp_close(c->tc, rne_iw_now(d));
    }
    rne_trace_term(&d->host, RNE_TRACE_TERM_TX, c->id, c->qpn, cause.layer,
                   cause.etype, cause.code, queued);
    d->iw->st.term_tx += queued;
    d->iw->st.mpa_neg_fail++;
    c->fin_sent = true;
    rne_iw_cm_event(d, c, RNIC_CM_MPA_ERROR, RNE_IW_ST_EPROTO, NULL, 0);
    rne_iw_conn_unbind(d, c, 0);
    rne_iw_trace_state(d, c, IWC_LINGER);
    c->state = IWC_LINGER;
    rne_iw_set_deadline(d->iw, c, UINT64_MAX);
}

static void rx_reply(struct rne_dev *d, struct rne_iw_conn *c,
                     const uint8_t *data, size_t len)
{
    struct rne_mpa_rr rep;
    struct rne_qp *qp;
    size_t used = 0;
    int r = rne_mpa_rr_rx_feed(&c->hs->rr, data, len, &used, &rep);

    if (r == 0) {
        return;
    }
    if (r < 0) {
        d->iw->st.mpa_neg_fail++;
        rne_iw_conn_abort(d, c, RNIC_CM_MPA_ERROR, RNE_IW_ST_EPROTO);
        return;
    }
    r = rne_mpa_check_reply(&c->req, &rep, &c->neg);
    if (r == RNE_MPA_EC_INSUFFICIENT_IRD && rep.ord <= d->cfg.max_ird) {
        /* Relaxed IRD negotiation (as siw): take the responder's ORD. */
        struct rne_mpa_rr req = c->req;

        req.ird = rep.ord;
        r = rne_mpa_check_reply(&req, &rep, &c->neg);
    }
    if (r < 0) {
        /* Rejected: the peer's private data goes to the driver. */
        c->neg.rev = rep.rev;
        rne_iw_trace_mpa(d, c, RNE_TRACE_MPA_REJECTED, 0, rep.rev,
                         rep.pd_len);
        rne_iw_cm_event(d, c, RNIC_CM_REJECTED, RNE_IW_ST_ECONNREFUSED,
                        rep.pd, rep.pd_len);
        rne_iw_conn_unbind(d, c, 0);
        rne_iw_trace_state(d, c, IWC_LINGER);
        c->state = IWC_LINGER;
        rne_iw_set_deadline(d->iw, c, UINT64_MAX);
        if (c->tc) {
            rne_tcp_close(c->tc, rne_iw_now(d));
        }
        return;
    }
    if (r > 0) {
        reply_refused(d, c, &rep, (uint8_t)r);
        return;
    }
    qp = rne_qp_get(d, c->qpn);
    if (!qp || qp->iw != c->iq) {
        rne_iw_conn_abort(d, c, RNIC_CM_RESET, RNE_IW_ST_ECONNABORTED);
        return;
    }
    rne_iw_conn_full_op(d, c);
    rne_iw_conn_set_ird_ord(c);
    c->iq->rfc7306 = c->neg.rfc7306;    /* offered and agreed on the wire */
    rne_iw_trace_mpa(d, c, RNE_TRACE_MPA_ACCEPTED, 0, c->neg.rev,
                     rep.pd_len);
    rne_iw_trace_state(d, c, IWC_RTS);
    c->state = IWC_RTS;
    d->iw->st.conns_rts++;
    rne_trace_qp_state(&d->host, qp->qpn, qp->state, RNIC_QPS_RTS);
    qp->state = RNIC_QPS_RTS;
    rne_iw_nudge_start(d, c);
    /* RFC 6581: the RTR is the first FPDU of the initiator. */
    if (c->neg.rtr) {
        rne_iw_send_rtr(d, qp, c->neg.rtr);
    }
    rne_iw_cm_event(d, c, RNIC_CM_CONNECT_REPLY, 0, rep.pd, rep.pd_len);
    rne_iw_mpa_done(d, c);
    rne_iw_tx_pump(d, qp);
    if (used < len) {
        rne_iw_rx_stream(d, c, data + used, len - used);
    }
}

/* The first FPDU after our Reply is the RTR (P2P): the QP goes live. */
void rne_iw_cm_established(struct rne_dev *d, struct rne_iw_conn *c,
                           struct rne_qp *qp)
{
    rne_iw_trace_state(d, c, IWC_RTS);
    c->state = IWC_RTS;
    d->iw->st.conns_rts++;
    rne_iw_set_deadline(d->iw, c, UINT64_MAX);
    rne_trace_qp_state(&d->host, qp->qpn, qp->state, RNIC_QPS_RTS);
    qp->state = RNIC_QPS_RTS;
    rne_iw_cm_event(d, c, RNIC_CM_ESTABLISHED, 0, NULL, 0);
}

bool rne_iw_cm_rtr_arrived(struct rne_dev *d, struct rne_iw_conn *c,
                           struct rne_qp *qp, const uint8_t *u, size_t len)
{
    struct rne_iw_qp *iq = c->iq;
    struct rne_term_cause cause;
    struct rne_rdmap_msg m;
    bool send_rtr;

    /*
     * RFC 6581: the Send RTR is a zero-length Send, the first message on
     * QN 0. It tells the responder the initiator is ready; it is no ULP
     * message (like the Write and Read RTRs), so it takes no receive.
     */
    send_rtr = c->neg.rtr == RNE_MPA_RTR_SEND &&
               !rne_rdmap_decode(u, len, 0, &m, &cause) &&
               m.opcode == RNE_RDMAP_SEND && m.ddp.last && !m.ddp.mo &&
               m.ddp.qn == RNE_RDMAP_QN_SEND && !m.payload_len &&
               m.ddp.msn == iq->rx_msn[RNE_RDMAP_QN_SEND];
    if (send_rtr) {
        iq->rx_msn[RNE_RDMAP_QN_SEND]++;
    }
    rne_iw_cm_established(d, c, qp);
    return send_rtr;
}

void rne_iw_cm_recv(struct rne_dev *d, struct rne_iw_conn *c,
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
        rne_iw_conn_abort(d, c, RNIC_CM_MPA_ERROR, RNE_IW_ST_EPROTO);
        break;
    case IWC_RTR_WAIT:
    case IWC_RTS:
    case IWC_CLOSING:
        if (c->qpn != RNE_IW_NO_QP) {
            rne_iw_rx_stream(d, c, data, len);
        }
        break;
    default:
        break;          /* lingering: the QP is gone, data is dropped */
    }
}

void rne_iw_cm_peer_closed(struct rne_dev *d, struct rne_iw_conn *c)
{
    switch (c->state) {
    case IWC_REQ_WAIT:
        rne_iw_conn_abort(d, c, 0, 0);
        break;
    case IWC_ACCEPT_WAIT:
    case IWC_SYN_SENT:
    case IWC_REP_WAIT:
        rne_iw_conn_abort(d, c, RNIC_CM_RESET, RNE_IW_ST_ECONNRESET);
        break;
    case IWC_RTR_WAIT:
    case IWC_RTS:
        /* The peer is done sending: finish ours, then close. */
        rne_iw_conn_close(d, c);
        break;
    default:
        break;
    }
}

void rne_iw_cm_closed(struct rne_dev *d, struct rne_iw_conn *c, int err,
                      bool time_wait)
{
    uint8_t code;
    uint16_t status = 0;

    if (c->state == IWC_LINGER || c->state == IWC_REQ_WAIT) {
        rne_iw_conn_unbind(d, c, 0);
        goto out;
    }
    switch (err) {
    case RNE_TCP_OK:
        code = RNIC_CM_CLOSED;
        break;
    case RNE_TCP_ETIMEDOUT:
        code = RNIC_CM_TIMEOUT;
        status = RNE_IW_ST_ETIMEDOUT;
        break;
    case RNE_TCP_ECONNREFUSED:
        code = RNIC_CM_RESET;
        status = RNE_IW_ST_ECONNREFUSED;
        break;
    default:
        code = RNIC_CM_RESET;
        status = RNE_IW_ST_ECONNRESET;
        break;
    }
    rne_iw_conn_unbind(d, c, 0);
    rne_iw_cm_event(d, c, code, status, NULL, 0);
out:
    if (time_wait) {
        /*
         * The peer may still retransmit its FIN: the tuple stays steered
         * to the engine (which answers from TIME_WAIT) for 2 MSL.
         */
        rne_iw_trace_state(d, c, IWC_LINGER);
        c->state = IWC_LINGER;
        rne_iw_set_deadline(d->iw, c,
                            rne_iw_now(d) + RNE_IW_TIME_WAIT_NS);
        return;
    }
    rne_iw_conn_free(d, c);
}

void rne_iw_cm_timer(struct rne_dev *d, struct rne_iw_conn *c, uint64_t now)
{
    switch (c->state) {
    case IWC_REQ_WAIT:
        d->iw->st.mpa_neg_fail++;
        rne_iw_conn_abort(d, c, 0, 0);
        break;
    case IWC_REP_WAIT:
    case IWC_RTR_WAIT:
        d->iw->st.mpa_neg_fail++;
        rne_iw_conn_abort(d, c, RNIC_CM_TIMEOUT, RNE_IW_ST_ETIMEDOUT);
        break;
    case IWC_RTS:
        rne_iw_nudge_timer(d, c, now);
        break;
    case IWC_LINGER:
        if (!c->tc) {
            rne_iw_conn_free(d, c);
        }
        break;
    default:
        break;
    }
}
