/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Queue pairs: CREATE/MODIFY/QUERY/DESTROY_QP and the SQ/RQ doorbells.
 */
#include <string.h>
#include "rdma_int.h"
#include "wire/le.h"

struct rne_qp *rne_qp_get(struct rne_dev *d, uint32_t qpn)
{
    if (qpn >= d->cfg.max_qp || !d->rdma->qp[qpn].live) {
        return NULL;
    }
    return &d->rdma->qp[qpn];
}

/* The host copies of the SQ's and RQ's page lists (rne_ring_load_large). */
static size_t qp_ring_bytes(const struct rne_qp *qp)
{
    return ((size_t)qp->sq.ring.npages + qp->rq.ring.npages) *
           sizeof(qp->sq.ring.pages[0]);
}

/*
 * A CQ the context may bind: live, created for the same context, and not
 * in error (its completions would be lost).
 */
static unsigned check_cq(struct rne_dev *d, uint32_t cqn, uint32_t uctx)
{
    if (cqn >= d->cfg.max_cq) {
        return RNIC_STS_BAD_INDEX;
    }
    if (!d->rdma->cq[cqn].live || d->rdma->cq[cqn].uctx != uctx) {
        return RNIC_STS_NOT_FOUND;
    }
    return d->rdma->cq[cqn].overflow ? RNIC_STS_BAD_STATE : RNIC_STS_OK;
}

static bool log_depth_ok(uint8_t log, uint32_t max)
{
    return log >= 1 && log <= 31 && (1u << log) <= max;
}

/* Field ranges that need no table lookup. */
static unsigned check_shape(struct rne_dev *d,
                            const struct rnic_cmd_create_qp *c, bool srq)
{
    if ((rne_le16_to_cpu(c->flags) & ~RNIC_QP_F_SQ_SIG_ALL) ||
        !log_depth_ok(c->sq_log_depth, d->cfg.max_qp_wr) ||
        c->max_send_sge > RNIC_SQ_MAX_SGE ||
        c->max_recv_sge > RNIC_RQ_MAX_SGE ||
        rne_le16_to_cpu(c->max_inline) > RNIC_SQ_MAX_INLINE) {
        return RNIC_STS_BAD_PARAM;
    }
    if (srq ? (c->rq_log_depth || !rne_pbl_is_zero(&c->rq)) :
              !log_depth_ok(c->rq_log_depth, d->cfg.max_qp_wr)) {
        return RNIC_STS_BAD_PARAM;
    }
    return RNIC_STS_OK;
}

unsigned rne_qp_create(struct rne_dev *d, const struct rnic_cmd_create_qp *c)
{
    uint32_t qpn = rne_le32_to_cpu(c->qpn), pdn = rne_le32_to_cpu(c->pdn);
    uint32_t uctx = rne_le32_to_cpu(c->uctx), srqn = rne_le32_to_cpu(c->srqn);
    uint32_t scqn = rne_le32_to_cpu(c->send_cqn);
    uint32_t rcqn = rne_le32_to_cpu(c->recv_cqn);
    bool has_srq = srqn != RNIC_NO_SRQ;
    struct rne_rdma *r = d->rdma;
    struct rne_qp q;
    unsigned sts;

    if (qpn >= d->cfg.max_qp) {
        return RNIC_STS_BAD_INDEX;
    }
    if (r->qp[qpn].live) {
        return RNIC_STS_EXISTS;
    }
    sts = check_shape(d, c, has_srq);
    if (!sts) {
        sts = rne_rdma_check_uctx(d, uctx);
    }
    if (!sts) {
        sts = rne_rdma_check_pd(d, pdn, uctx);
    }
    if (!sts) {
        sts = check_cq(d, scqn, uctx);
    }
    if (!sts) {
        sts = check_cq(d, rcqn, uctx);
    }
    if (sts) {
        return sts;
    }
    if (has_srq) {
        if (srqn >= d->cfg.max_srq) {
            return RNIC_STS_BAD_INDEX;
        }
        if (!r->srq[srqn].live || r->srq[srqn].uctx != uctx) {
            return RNIC_STS_NOT_FOUND;
        }
        /* Receive SGEs are checked against one PD: the QP's. */
        if (r->srq[srqn].pdn != pdn) {
            return RNIC_STS_BAD_PARAM;
        }
    }
    memset(&q, 0, sizeof(q));
    sts = rne_rdma_ring_load(d, &q.sq.ring, &c->sq, 1u << c->sq_log_depth,
                             RNIC_SQ_WQE_SIZE);
    if (sts) {
        return sts;
    }
    if (!has_srq) {
        sts = rne_rdma_ring_load(d, &q.rq.ring, &c->rq,
                                 1u << c->rq_log_depth, RNIC_RQ_WQE_SIZE);
        if (sts) {
            rne_rdma_ring_free(d, &q.sq.ring);
            return sts;
        }
    }
    rne_mem_count(&d->mem, RNE_MEM_QP_RING, qp_ring_bytes(&q), 1);
    q.live = true;
    q.state = RNIC_QPS_IDLE;
    q.qpn = qpn;
    q.pdn = pdn;
    q.uctx = uctx;
    q.send_cqn = scqn;
    q.recv_cqn = rcqn;
    q.srqn = srqn;
    q.max_send_sge = c->max_send_sge;
    q.max_recv_sge = c->max_recv_sge;
    q.max_inline = rne_le16_to_cpu(c->max_inline);
    q.flags = rne_le16_to_cpu(c->flags);
    r->qp[qpn] = q;
    r->cq[scqn].users++;
    r->cq[rcqn].users++;
    if (has_srq) {
        r->srq[srqn].users++;
    }
    rne_rdma_hold(d, pdn, uctx);
    return RNIC_STS_OK;
}

unsigned rne_qp_modify(struct rne_dev *d, const struct rnic_cmd_modify_qp *c)
{
    uint32_t mask = rne_le32_to_cpu(c->attr_mask);
    uint32_t access = rne_le32_to_cpu(c->access);
    struct rne_qp *qp;

    if (rne_le32_to_cpu(c->qpn) >= d->cfg.max_qp) {
        return RNIC_STS_BAD_INDEX;
    }
    qp = rne_qp_get(d, rne_le32_to_cpu(c->qpn));
    if (!qp) {
        return RNIC_STS_NOT_FOUND;
    }
    if (c->rsvd || (mask & ~(RNIC_QP_ATTR_STATE | RNIC_QP_ATTR_ACCESS |
                             RNIC_QP_ATTR_IRD | RNIC_QP_ATTR_ORD))) {
        return RNIC_STS_BAD_PARAM;
    }
    if ((mask & RNIC_QP_ATTR_ACCESS) && (access & ~RNE_QP_ACCESS_ALL)) {
        return RNIC_STS_BAD_PARAM;
    }
    if (((mask & RNIC_QP_ATTR_IRD) && c->ird > d->cfg.max_ird) ||
        ((mask & RNIC_QP_ATTR_ORD) && c->ord > d->cfg.max_ord)) {
        return RNIC_STS_BAD_PARAM;
    }
    /* IRD/ORD go into the MPA exchange: only before connecting. */
    if ((mask & (RNIC_QP_ATTR_IRD | RNIC_QP_ATTR_ORD)) &&
        qp->state != RNIC_QPS_IDLE) {
        return RNIC_STS_BAD_STATE;
    }
    if (mask & RNIC_QP_ATTR_STATE) {
        if (c->state != RNIC_QPS_CLOSING && c->state != RNIC_QPS_ERROR) {
            return RNIC_STS_BAD_PARAM;
        }
        if (c->state == RNIC_QPS_CLOSING && qp->state != RNIC_QPS_RTS &&
            qp->state != RNIC_QPS_CLOSING) {
            return RNIC_STS_BAD_STATE;
        }
    }
    /* Everything checked: apply. */
    if (mask & RNIC_QP_ATTR_ACCESS) {
        qp->access = access;
    }
    if (mask & RNIC_QP_ATTR_IRD) {
        qp->ird = c->ird;
    }
    if (mask & RNIC_QP_ATTR_ORD) {
        qp->ord = c->ord;
    }
    if (mask & RNIC_QP_ATTR_STATE) {
        if (c->state == RNIC_QPS_ERROR) {
            rne_qp_to_error(d, qp, 0);
        } else if (qp->state == RNIC_QPS_RTS) {
            rne_trace_qp_state(&d->host, qp->qpn, qp->state,
                               RNIC_QPS_CLOSING);
            qp->state = RNIC_QPS_CLOSING;
            rne_iw_qp_close(d, qp);
        }
    }
    return RNIC_STS_OK;
}

unsigned rne_qp_query(struct rne_dev *d, const struct rnic_cmd_query_qp *c)
{
    struct rnic_qp_attr a;
    struct rne_qp *qp;

    if (rne_le32_to_cpu(c->qpn) >= d->cfg.max_qp) {
        return RNIC_STS_BAD_INDEX;
    }
    qp = rne_qp_get(d, rne_le32_to_cpu(c->qpn));
    if (!qp) {
        return RNIC_STS_NOT_FOUND;
    }
    if (rne_le32_to_cpu(c->buf_len) < sizeof(a)) {
        return RNIC_STS_BAD_PARAM;
    }
    memset(&a, 0, sizeof(a));
    a.state = qp->state;
    a.ird = qp->ird;
    a.ord = qp->ord;
    a.access = rne_cpu_to_le32(qp->access);
    a.conn_id = rne_cpu_to_le32(0xffffffffu);
    /* Slots are free again once completed, not merely fetched. */
    a.sq_cons = rne_cpu_to_le32(qp->sq_done);
    a.rq_cons = rne_cpu_to_le32(qp->rq.cidx);
    rne_iw_qp_query(d, qp, &a);
    if (rne_dma_write(&d->host, rne_le64_to_cpu(c->buf_addr), &a,
                      sizeof(a))) {
        return RNIC_STS_DMA_ERROR;
    }
    return RNIC_STS_OK;
}

void rne_qp_free(struct rne_dev *d, uint32_t qpn)
{
    struct rne_rdma *r = d->rdma;
    struct rne_qp *qp = &r->qp[qpn];

    r->cq[qp->send_cqn].users--;
    r->cq[qp->recv_cqn].users--;
    if (qp->srqn != RNIC_NO_SRQ) {
        r->srq[qp->srqn].users--;
    }
    rne_rdma_release(d, qp->pdn, qp->uctx);
    rne_rdma_unlatch(d, RNE_DBK_SQ, qpn);
    rne_rdma_unlatch(d, RNE_DBK_RQ, qpn);
    rne_mem_count(&d->mem, RNE_MEM_QP_RING, qp_ring_bytes(qp), -1);
    rne_rdma_ring_free(d, &qp->sq.ring);
    rne_rdma_ring_free(d, &qp->rq.ring);
    memset(qp, 0, sizeof(*qp));
}

unsigned rne_qp_destroy(struct rne_dev *d, uint32_t qpn)
{
    struct rne_qp *qp;

    if (qpn >= d->cfg.max_qp) {
        return RNIC_STS_BAD_INDEX;
    }
    qp = rne_qp_get(d, qpn);
    if (!qp) {
        return RNIC_STS_NOT_FOUND;
    }
    /* Abort the connection; the WQEs go away without CQEs. */
    rne_iw_qp_error(d, qp);
    rne_mw_qp_gone(d, qpn);
    rne_qp_free(d, qpn);
    return RNIC_STS_OK;
}

void rne_sq_doorbell(struct rne_dev *d, struct rne_qp *qp, uint32_t idx)
{
    if (!rne_prod_ok(idx, qp->sq.pidx, qp->sq_done, qp->sq.ring.depth)) {
        rne_rdma_db_error(d, qp->qpn, RNIC_DB_SQ,
                          "SQ producer index out of range");
        return;
    }
    qp->sq.pidx = idx;
    /* CLOSING still drains the SQ before the FIN: the kick decides. */
    if (qp->state == RNIC_QPS_RTS || qp->state == RNIC_QPS_CLOSING) {
        rne_iw_sq_kick(d, qp);
    } else if (qp->state == RNIC_QPS_ERROR) {
        rne_qp_to_error(d, qp, 0);
    }
}

void rne_rq_doorbell(struct rne_dev *d, struct rne_qp *qp, uint32_t idx)
{
    if (!rne_prod_ok(idx, qp->rq.pidx, qp->rq.cidx, qp->rq.ring.depth)) {
        rne_rdma_db_error(d, qp->qpn, RNIC_DB_RQ,
                          "RQ producer index out of range");
        return;
    }
    qp->rq.pidx = idx;
    if (qp->state == RNIC_QPS_ERROR) {
        rne_qp_to_error(d, qp, 0);
    }
}
