/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A connection's byte stream in RDMA mode: MPA deframing (markers, CRC)
 * into FPDUs, each handed to the receive path of iw_rx.c.
 */
#include "iw.h"

void rnic_iw_rx_stream(struct rnic_dev *d, struct rnic_iw_conn *c,
                       const uint8_t *data, size_t len)
{
    struct rnic_iw_qp *iq = c->iq;
    struct rnic_qp *qp = rnic_qp_get(d, c->qpn);

    while (len && !c->zombie && qp && qp->iw == iq) {
        struct rnic_mpa_rx_ev ev;
        size_t n;

        if (!rnic_iw_rx_buf_get(d, c, data, len)) {
            rnic_iw_conn_abort(d, c, RNIC_CM_RESET, RNIC_IW_ST_ECONNABORTED);
            return;
        }
        n = rnic_mpa_rx_feed(&c->rx, data, len, &ev);
        data += n;
        len -= n;
        if (ev.type == RNIC_MPA_RX_ERROR) {
            rnic_iw_count_mpa_err(d, ev.code);
            rnic_iw_terminate(d, qp, rnic_mpa_term_cause(ev.code), NULL, 0);
            return;
        }
        if (ev.type != RNIC_MPA_RX_FPDU) {
            return;
        }
        d->iw->st.fpdu_rx++;
        /* The responder's receive path is live: it sent to us. */
        rnic_iw_nudge_stop(c);
        if (c->state == IWC_RTR_WAIT &&
            rnic_iw_cm_rtr_arrived(d, c, qp, ev.ulpdu, ev.len)) {
            continue;   /* the Send RTR: no ULP message */
        }
        if (c->zombie || qp->iw != iq) {
            return;
        }
        rnic_iw_rx_ulpdu(d, qp, ev.ulpdu, ev.len);
    }
    rnic_iw_rx_buf_put(d, c);
    if (!c->zombie && qp && qp->iw == iq) {
        rnic_iw_tx_pump(d, qp);
        rnic_iw_conn_maybe_fin(d, c);
    }
}
