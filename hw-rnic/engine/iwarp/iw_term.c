/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Terminate (RFC 5040 section 4.8): the last FPDU a QP sends when it finds
 * an error in the stream, and what a received one does.  Either way the QP
 * leaves RTS through TERMINATE to ERROR (flushing its queues) and the
 * connection closes with a FIN after the Terminate; the driver gets CLOSED
 * (or RESET) when TCP is done.
 */
#include <string.h>
#include "iw.h"
#include "wire/le.h"

struct rne_term_cause rne_iw_mr_cause(enum rne_mr_err err, bool read_req)
{
    uint8_t l = read_req ? RNE_TERM_LAYER_RDMAP : RNE_TERM_LAYER_DDP;
    uint8_t t = read_req ? RNE_RDMAP_ETYPE_REMOTE_PROTECTION :
                           RNE_DDP_ETYPE_TAGGED;

    switch (err) {
    case RNE_MR_E_STAG:
        return rne_term_cause(l, t, read_req ? RNE_RDMAP_EC_INVALID_STAG :
                              RNE_DDP_EC_T_INVALID_STAG, true, read_req);
    case RNE_MR_E_PD:
        return rne_term_cause(l, t, read_req ? RNE_RDMAP_EC_STAG_NOT_ASSOC :
                              RNE_DDP_EC_T_STAG_NOT_ASSOC, true, read_req);
    case RNE_MR_E_BOUNDS:
        return rne_term_cause(l, t, read_req ? RNE_RDMAP_EC_BASE_BOUNDS :
                              RNE_DDP_EC_T_BASE_BOUNDS, true, read_req);
    case RNE_MR_E_ACCESS:
        /* RFC 5041 has no access code: RDMAP's, as RFC 5040 7.2 allows */
        return rne_term_cause(RNE_TERM_LAYER_RDMAP,
                              RNE_RDMAP_ETYPE_REMOTE_PROTECTION,
                              RNE_RDMAP_EC_ACCESS_RIGHTS, true, read_req);
    default:
        return rne_term_cause(l, read_req ?
                              RNE_RDMAP_ETYPE_LOCAL_CATASTROPHIC :
                              RNE_DDP_ETYPE_LOCAL_CATASTROPHIC, 0, true,
                              read_req);
    }
}

static uint8_t async_of(uint8_t layer, uint8_t etype)
{
    if ((layer == RNE_TERM_LAYER_RDMAP &&
         etype == RNE_RDMAP_ETYPE_REMOTE_PROTECTION) ||
        (layer == RNE_TERM_LAYER_DDP && etype == RNE_DDP_ETYPE_TAGGED)) {
        return RNIC_ASYNC_QP_ACCESS_ERR;
    }
    return RNIC_ASYNC_QP_FATAL;
}

/* The QP goes to ERROR; its connection sends what is queued, then FIN. */
static void qp_end(struct rne_dev *d, struct rne_qp *qp, uint8_t async,
                   uint8_t vendor)
{
    struct rne_iw_qp *iq = qp->iw;
    struct rne_iw_conn *c = iq->conn;

    rne_iw_rx_abort(d, qp, RNIC_WC_WR_FLUSH_ERR, vendor);
    rne_trace_qp_state(&d->host, qp->qpn, qp->state, RNIC_QPS_TERMINATE);
    qp->state = RNIC_QPS_TERMINATE;
    qp->iw = NULL;
    c->qpn = RNE_IW_NO_QP;
    rne_iw_set_deadline(d->iw, c, UINT64_MAX);
    if (c->state != IWC_LINGER) {
        rne_iw_trace_state(d, c, IWC_CLOSING);
        c->state = IWC_CLOSING;
    }
    if (c->tc && !c->fin_sent) {
        c->fin_sent = true;
        rne_tcp_close(c->tc, rne_iw_now(d));
    }
    rne_qp_to_error(d, qp, async);
}

/* Send a Terminate naming cause, then end the QP with event async. */
static void term_send(struct rne_dev *d, struct rne_qp *qp,
                      struct rne_term_cause cause, const uint8_t *bad,
                      size_t bad_len, uint8_t async)
{
    struct rne_iw_qp *iq = qp->iw;
    uint8_t buf[RNE_RDMAP_TERM_MAX];
    bool queued;
    size_t n;

    n = rne_rdmap_term_build(buf, sizeof(buf),
                             iq->tx_msn[RNE_RDMAP_QN_TERMINATE] + 1, &cause,
                             bad, bad_len);
    queued = n && rne_iw_send_fpdu(d, iq->conn, buf, n, NULL, 0);
    if (queued) {
        iq->tx_msn[RNE_RDMAP_QN_TERMINATE]++;
    }
    d->iw->st.term_tx += queued;
    rne_trace_term(&d->host, RNE_TRACE_TERM_TX, iq->conn->id, qp->qpn,
                   cause.layer, cause.etype, cause.code, queued);
    qp_end(d, qp, async, (uint8_t)(cause.layer << 4 | cause.etype));
}

void rne_iw_terminate(struct rne_dev *d, struct rne_qp *qp,
                      struct rne_term_cause cause, const uint8_t *bad,
                      size_t bad_len)
{
    if (!qp->iw) {
        return;
    }
    /* A local catastrophic error here is a failed WQE: its CQE says so. */
    term_send(d, qp, cause, bad, bad_len,
              cause.etype == RNE_RDMAP_ETYPE_LOCAL_CATASTROPHIC &&
              cause.layer == RNE_TERM_LAYER_RDMAP ? 0 :
              async_of(cause.layer, cause.etype));
}

void rne_iw_qp_fatal(struct rne_dev *d, struct rne_qp *qp)
{
    /* Before RTS (MPA still negotiating) there is no stream: abort. */
    if (!qp->iw ||
        (qp->state != RNIC_QPS_RTS && qp->state != RNIC_QPS_CLOSING)) {
        rne_qp_to_error(d, qp, RNIC_ASYNC_QP_FATAL);
        return;
    }
    term_send(d, qp, rne_term_cause(RNE_TERM_LAYER_RDMAP,
                                    RNE_RDMAP_ETYPE_LOCAL_CATASTROPHIC,
                                    RNE_RDMAP_EC_LOCAL_CATASTROPHIC,
                                    false, false),
              NULL, 0, RNIC_ASYNC_QP_FATAL);
}

void rne_iw_term_received(struct rne_dev *d, struct rne_qp *qp,
                          const struct rne_rdmap_msg *m)
{
    const struct rne_rdmap_term *t = &m->u.term;

    d->iw->st.term_rx++;
    if (!qp->iw) {
        return;
    }
    rne_trace_term(&d->host, RNE_TRACE_TERM_RX, qp->iw->conn->id, qp->qpn,
                   t->layer, t->etype, t->code, true);
    qp_end(d, qp, async_of(t->layer, t->etype),
           (uint8_t)(t->layer << 4 | t->etype));
}
