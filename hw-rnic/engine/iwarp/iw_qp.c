/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The rdma/ layer's calls into a QP's connection (rdma.h): SQ doorbell,
 * QP error, close, and QUERY_QP's connection part.
 */
#include "iw.h"
#include "wire/le.h"

void rne_iw_sq_kick(struct rne_dev *d, struct rne_qp *qp)
{
    if (!qp->iw) {
        return;
    }
    rne_iw_tx_pump(d, qp);
    if (qp->iw) {
        rne_iw_conn_maybe_fin(d, qp->iw->conn);
    }
}

void rne_iw_qp_error(struct rne_dev *d, struct rne_qp *qp)
{
    struct rne_iw_conn *c;

    if (!qp->iw) {
        return;
    }
    c = qp->iw->conn;
    qp->iw = NULL;
    c->qpn = RNE_IW_NO_QP;
    if (c->tc) {
        rne_tcp_abort(c->tc, rne_iw_now(d));
        c->tc = NULL;
    }
    if (c->state != IWC_LINGER) {
        rne_iw_cm_event(d, c, RNIC_CM_RESET, RNE_IW_ST_ECONNABORTED, NULL, 0);
    }
    rne_iw_conn_free(d, c);
}

void rne_iw_qp_close(struct rne_dev *d, struct rne_qp *qp)
{
    if (!qp->iw) {
        return;
    }
    rne_iw_conn_close(d, qp->iw->conn);
}

/* Placeholder from the resources half (QUERY_QP); conn_id stays unset. */
void rne_iw_qp_query(struct rne_dev *d, struct rne_qp *qp,
                     struct rnic_qp_attr *attr)
{
    struct rne_iw_conn *c;
    struct rne_tcp_info ti;

    (void)d;
    if (!qp->iw) {
        return;
    }
    c = qp->iw->conn;
    attr->conn_id = rne_cpu_to_le32(c->id);
    attr->ird = (uint8_t)qp->iw->ird;
    attr->ord = (uint8_t)qp->iw->ord;
    attr->mpa_rev = c->neg.rev;
    attr->mpa_flags = (c->neg.crc ? RNIC_MPA_CRC : 0) |
                      (c->neg.markers_tx || c->neg.markers_rx ?
                       RNIC_MPA_MARKERS : 0) |
                      (qp->iw->rfc7306 ? RNIC_MPA_RFC7306 : 0);
    attr->tuple = c->tuple;
    if (!c->tc) {
        return;
    }
    rne_tcp_get_info(c->tc, &ti);
    attr->tcp_state = (uint8_t)ti.state;
    attr->tcp.snd_una = rne_cpu_to_le32(ti.snd_una);
    attr->tcp.snd_nxt = rne_cpu_to_le32(ti.snd_nxt);
    attr->tcp.rcv_nxt = rne_cpu_to_le32(ti.rcv_nxt);
    attr->tcp.snd_wnd = rne_cpu_to_le32(ti.snd_wnd);
    attr->tcp.rcv_wnd = rne_cpu_to_le32(ti.rcv_wnd);
    attr->tcp.mss = rne_cpu_to_le16((uint16_t)ti.emss);
    attr->tcp.snd_wscale = (uint8_t)ti.snd_wscale;
    attr->tcp.rcv_wscale = (uint8_t)ti.rcv_wscale;
    attr->tcp.srtt_us = rne_cpu_to_le32(ti.srtt_us);
    attr->tcp.retransmits = rne_cpu_to_le32((uint32_t)ti.rexmits);
}
