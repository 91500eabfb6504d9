/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Shared receive queues: creation, the limit event, doorbells.
 */
#include <string.h>
#include "rdma_int.h"
#include "wire/le.h"

unsigned rne_srq_create(struct rne_dev *d,
                        const struct rnic_cmd_create_srq *c)
{
    uint32_t srqn = rne_le32_to_cpu(c->srqn), pdn = rne_le32_to_cpu(c->pdn);
    uint32_t uctx = rne_le32_to_cpu(c->uctx);
    uint32_t limit = rne_le16_to_cpu(c->limit);
    struct rne_srq *srq;
    uint32_t depth;
    unsigned sts;

    if (srqn >= d->cfg.max_srq) {
        return RNIC_STS_BAD_INDEX;
    }
    srq = &d->rdma->srq[srqn];
    if (srq->live) {
        return RNIC_STS_EXISTS;
    }
    if (c->log_depth < 1 || c->log_depth > 31 ||
        (1u << c->log_depth) > d->cfg.max_srq_wr ||
        c->max_sge > RNIC_RQ_MAX_SGE) {
        return RNIC_STS_BAD_PARAM;
    }
    depth = 1u << c->log_depth;
    if (limit > depth) {
        return RNIC_STS_BAD_PARAM;
    }
    sts = rne_rdma_check_uctx(d, uctx);
    if (!sts) {
        sts = rne_rdma_check_pd(d, pdn, uctx);
    }
    if (!sts) {
        sts = rne_rdma_ring_load(d, &srq->wq.ring, &c->ring, depth,
                                 RNIC_RQ_WQE_SIZE);
    }
    if (sts) {
        return sts;
    }
    srq->live = true;
    srq->pdn = pdn;
    srq->uctx = uctx;
    srq->max_sge = c->max_sge;
    srq->limit = limit;
    srq->wq.pidx = 0;
    srq->wq.cidx = 0;
    srq->users = 0;
    rne_rdma_hold(d, pdn, uctx);
    return RNIC_STS_OK;
}

unsigned rne_srq_modify(struct rne_dev *d,
                        const struct rnic_cmd_modify_srq *c)
{
    uint32_t srqn = rne_le32_to_cpu(c->srqn);
    uint32_t limit = rne_le16_to_cpu(c->limit);
    struct rne_srq *srq;

    if (srqn >= d->cfg.max_srq) {
        return RNIC_STS_BAD_INDEX;
    }
    srq = &d->rdma->srq[srqn];
    if (!srq->live) {
        return RNIC_STS_NOT_FOUND;
    }
    if (c->rsvd || limit > srq->wq.ring.depth) {
        return RNIC_STS_BAD_PARAM;
    }
    srq->limit = limit;     /* (re-)armed; 0 disarms */
    return RNIC_STS_OK;
}

void rne_srq_free(struct rne_dev *d, uint32_t srqn)
{
    struct rne_srq *srq = &d->rdma->srq[srqn];

    rne_rdma_release(d, srq->pdn, srq->uctx);
    rne_rdma_unlatch(d, RNE_DBK_SRQ, srqn);
    rne_rdma_ring_free(d, &srq->wq.ring);
    memset(srq, 0, sizeof(*srq));
}

unsigned rne_srq_destroy(struct rne_dev *d, uint32_t srqn)
{
    if (srqn >= d->cfg.max_srq) {
        return RNIC_STS_BAD_INDEX;
    }
    if (!d->rdma->srq[srqn].live) {
        return RNIC_STS_NOT_FOUND;
    }
    if (d->rdma->srq[srqn].users) {
        return RNIC_STS_BUSY;
    }
    rne_srq_free(d, srqn);
    return RNIC_STS_OK;
}

void rne_srq_doorbell(struct rne_dev *d, uint32_t srqn, uint32_t idx)
{
    struct rne_wq *wq = &d->rdma->srq[srqn].wq;

    if (!rne_prod_ok(idx, wq->pidx, wq->cidx, wq->ring.depth)) {
        rne_rdma_db_error(d, srqn, RNIC_DB_SRQ,
                          "SRQ producer index out of range");
        return;
    }
    wq->pidx = idx;
}
