/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A connection's byte stream in RDMA mode: MPA deframing (markers, CRC)
 * into FPDUs, each handed to the receive path of iw_rx.c.
 *
 * Nothing on the receive path frees the connection (a QP error inside it
 * finds the QP already unbound, a CQ overrun is deferred to the dispatch),
 * so the loop asks one thing: is the QP still this connection's?  A
 * Terminate, sent or received, unbinds it.
 */
#include <assert.h>
#include "iw.h"

void rne_iw_rx_stream(struct rne_dev *d, struct rne_iw_conn *c,
                      const uint8_t *data, size_t len)
{
    struct rne_iw_qp *iq = c->iq;
    struct rne_qp *qp = rne_qp_get(d, c->qpn);

    while (len && qp && qp->iw == iq) {
        struct rne_mpa_rx_ev ev;
        size_t n;

        if (!rne_iw_rx_buf_get(d, c, data, len)) {
            rne_iw_conn_abort(d, c, RNIC_CM_RESET, RNE_IW_ST_ECONNABORTED);
            return;
        }
        n = rne_mpa_rx_feed(&c->rx, data, len, &ev);
        data += n;
        len -= n;
        if (ev.type == RNE_MPA_RX_ERROR) {
            rne_iw_count_mpa_err(d, ev.code);
            rne_iw_terminate(d, qp, rne_mpa_term_cause(ev.code), NULL, 0);
            return;
        }
        if (ev.type != RNE_MPA_RX_FPDU) {
            return;
        }
        d->iw->st.fpdu_rx++;
        /* The responder's receive path is live: it sent to us. */
        rne_iw_nudge_stop(d, c);
        if (c->state == IWC_RTR_WAIT &&
            rne_iw_cm_rtr_arrived(d, c, qp, ev.ulpdu, ev.len)) {
            continue;   /* the Send RTR: no ULP message */
        }
        rne_iw_rx_ulpdu(d, qp, ev.ulpdu, ev.len);
    }
    /* a QP still bound has its connection listed */
    assert(!qp || qp->iw != iq || d->iw->conn[c->id] == c);
    rne_iw_rx_buf_put(d, c);
    if (qp && qp->iw == iq) {
        rne_iw_tx_pump(d, qp);
        rne_iw_conn_maybe_fin(d, c);
    }
}
