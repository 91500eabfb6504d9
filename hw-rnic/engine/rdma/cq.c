/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Completion queues: creation, CQE publication with phase bits, overflow
 * detection through the consumer's doorbell record, arming and events
 * (docs/hardware-interface.md sections 6 and 8).  An overrun puts the CQ in
 * error for good and fails every QP bound to it, as the verbs ask.
 */
#include <string.h>
#include "rdma_int.h"
#include "core/eq.h"
#include "wire/le.h"

static void cq_event(struct rne_dev *d, uint32_t cqn, struct rne_cq *cq);

static uint32_t log2_of(uint32_t pow2)
{
    uint32_t n = 0;

    while (pow2 > 1) {
        pow2 >>= 1;
        n++;
    }
    return n;
}

unsigned rne_cq_create(struct rne_dev *d, const struct rnic_cmd_create_cq *c)
{
    uint32_t cqn = rne_le32_to_cpu(c->cqn), eqn = rne_le32_to_cpu(c->eqn);
    uint32_t uctx = rne_le32_to_cpu(c->uctx);
    uint64_t dbrec = rne_le64_to_cpu(c->dbrec_addr);
    struct rne_cq *cq;
    uint32_t probe;
    unsigned sts;

    if (cqn >= d->cfg.max_cq) {
        return RNIC_STS_BAD_INDEX;
    }
    cq = &d->rdma->cq[cqn];
    if (cq->live) {
        return RNIC_STS_EXISTS;
    }
    if (c->rsvd[0] || c->rsvd[1] || c->rsvd[2] || c->log_depth < 1 ||
        c->log_depth > log2_of(d->cfg.max_cqe) || (dbrec & 7)) {
        return RNIC_STS_BAD_PARAM;
    }
    if (eqn == 0 || eqn > d->cfg.max_eq) {
        return RNIC_STS_BAD_INDEX;
    }
    if (!d->eq[eqn].live) {
        return RNIC_STS_NOT_FOUND;
    }
    sts = rne_rdma_check_uctx(d, uctx);
    if (sts) {
        return sts;
    }
    if (rne_dma_read(&d->host, dbrec, &probe, sizeof(probe))) {
        return RNIC_STS_DMA_ERROR;
    }
    sts = rne_rdma_ring_load(d, &cq->ring, &c->ring, 1u << c->log_depth,
                             RNIC_CQE_SIZE);
    if (sts) {
        return sts;
    }
    cq->live = true;
    cq->eqn = eqn;
    cq->uctx = uctx;
    cq->dbrec_addr = dbrec;
    cq->pidx = 0;
    cq->cidx = 0;
    cq->arm = false;
    cq->arm_solicited = false;
    cq->overflow = false;
    cq->users = 0;
    d->eq[eqn].users++;
    rne_rdma_hold(d, UINT32_MAX, uctx);
    return RNIC_STS_OK;
}

/* A CQ doorbell latched before a resize names the old ring: run it now. */
static void cq_run_latched(struct rne_dev *d, uint32_t cqn)
{
    struct rne_db_latch l = d->rdma->latch[RNE_DBK_CQ][cqn];

    rne_rdma_unlatch(d, RNE_DBK_CQ, cqn);
    if (l.set) {
        rne_cq_doorbell(d, cqn, &l);
    }
}

/* The consumer record, if it names a consumer index within what was made. */
static bool cq_refresh_cidx(struct rne_dev *d, struct rne_cq *cq)
{
    uint32_t rec;

    if (rne_dma_read(&d->host, cq->dbrec_addr, &rec, sizeof(rec))) {
        return false;
    }
    rec = rne_le32_to_cpu(rec);
    if (rec - cq->cidx > cq->pidx - cq->cidx) {
        return false;
    }
    cq->cidx = rec;
    return true;
}

/*
 * RESIZE_CQ: the CQEs not consumed yet move to slots 0..n-1 of the new
 * ring; the old ring is freed only once the new one holds them, so a
 * failure leaves the CQ as it was.
 */
unsigned rne_cq_resize(struct rne_dev *d, const struct rnic_cmd_resize_cq *c,
                       uint32_t *carried)
{
    uint32_t cqn = rne_le32_to_cpu(c->cqn);
    uint64_t dbrec = rne_le64_to_cpu(c->dbrec_addr);
    struct rnic_cqe cqe;
    struct rne_ring ring;
    struct rne_cq *cq;
    uint32_t probe, n, i;
    unsigned sts;

    if (cqn >= d->cfg.max_cq) {
        return RNIC_STS_BAD_INDEX;
    }
    cq = &d->rdma->cq[cqn];
    if (!cq->live) {
        return RNIC_STS_NOT_FOUND;
    }
    if (c->rsvd[0] || c->rsvd[1] || c->rsvd[2] || c->log_depth < 1 ||
        c->log_depth > log2_of(d->cfg.max_cqe) || (dbrec & 7)) {
        return RNIC_STS_BAD_PARAM;
    }
    if (cq->overflow || cq->err_pending) {
        return RNIC_STS_BAD_STATE;
    }
    if (rne_dma_read(&d->host, dbrec, &probe, sizeof(probe))) {
        return RNIC_STS_DMA_ERROR;
    }
    cq_run_latched(d, cqn);
    /* The old record was readable at creation: garbage in it is refused. */
    if (!cq_refresh_cidx(d, cq)) {
        return RNIC_STS_BAD_STATE;
    }
    n = cq->pidx - cq->cidx;
    if (n > (1u << c->log_depth)) {
        return RNIC_STS_BAD_STATE;
    }
    memset(&ring, 0, sizeof(ring));
    sts = rne_rdma_ring_load(d, &ring, &c->ring, 1u << c->log_depth,
                             RNIC_CQE_SIZE);
    if (sts) {
        return sts;
    }
    for (i = 0; i < n; i++) {
        if (rne_ring_read(&cq->ring, &d->host, cq->cidx + i, &cqe) ||
            rne_ring_publish(&ring, &d->host, i, &cqe,
                             offsetof(struct rnic_cqe, owner))) {
            rne_rdma_ring_free(d, &ring);
            return RNIC_STS_DMA_ERROR;
        }
    }
    rne_rdma_ring_free(d, &cq->ring);
    cq->ring = ring;
    cq->dbrec_addr = dbrec;
    cq->pidx = n;
    cq->cidx = 0;
    *carried = n;
    /* Armed with CQEs waiting: the consumer hears of them on the new ring. */
    if ((cq->arm || cq->arm_solicited) && n) {
        cq_event(d, cqn, cq);
    }
    return RNIC_STS_OK;
}

void rne_cq_free(struct rne_dev *d, uint32_t cqn)
{
    struct rne_cq *cq = &d->rdma->cq[cqn];

    if (cq->err_pending) {
        d->rdma->cq_err_pending--;
    }
    if (d->eq[cq->eqn].users) {
        d->eq[cq->eqn].users--;
    }
    rne_rdma_release(d, UINT32_MAX, cq->uctx);
    rne_rdma_unlatch(d, RNE_DBK_CQ, cqn);
    rne_rdma_ring_free(d, &cq->ring);
    memset(cq, 0, sizeof(*cq));
}

unsigned rne_cq_destroy(struct rne_dev *d, uint32_t cqn)
{
    if (cqn >= d->cfg.max_cq) {
        return RNIC_STS_BAD_INDEX;
    }
    if (!d->rdma->cq[cqn].live) {
        return RNIC_STS_NOT_FOUND;
    }
    if (d->rdma->cq[cqn].users) {
        return RNIC_STS_BUSY;
    }
    rne_cq_free(d, cqn);
    return RNIC_STS_OK;
}

static void cq_event(struct rne_dev *d, uint32_t cqn, struct rne_cq *cq)
{
    struct rnic_eqe e;

    cq->arm = false;
    cq->arm_solicited = false;
    memset(&e, 0, sizeof(e));
    e.type = RNIC_EQE_COMP;
    e.obj = rne_cpu_to_le32(cqn);
    rne_eq_post(d, cq->eqn, &e);
}

static int cq_fail(struct rne_dev *d, uint32_t cqn, struct rne_cq *cq,
                   const char *what)
{
    rne_guest_error(&d->host, what, cqn, cq->pidx);
    cq->overflow = true;
    rne_eq_post_async(d, RNIC_ASYNC_CQ_OVERFLOW, cqn, cq->pidx);
    /*
     * The QPs fail once the dispatch unwinds: the code that posted this CQE
     * may be in the middle of one of them.
     */
    cq->err_pending = true;
    d->rdma->cq_err_pending++;
    d->deferred |= RNE_DEFER_CQ_ERROR;
    return -1;
}

/* Every QP bound to CQ cqn, as send or receive CQ, not in ERROR yet. */
static void fail_qps(struct rne_dev *d, uint32_t cqn)
{
    struct rne_rdma *r = d->rdma;
    uint32_t i, seen = 0;

    for (i = 0; i < d->cfg.max_qp && seen < r->cq[cqn].users; i++) {
        struct rne_qp *qp = &r->qp[i];

        if (!qp->live || (qp->send_cqn != cqn && qp->recv_cqn != cqn)) {
            continue;
        }
        seen += (qp->send_cqn == cqn) + (qp->recv_cqn == cqn);
        if (qp->state != RNIC_QPS_ERROR) {
            rne_iw_qp_fatal(d, qp);
        }
    }
}

void rne_rdma_cq_errors(struct rne_dev *d)
{
    struct rne_rdma *r = d->rdma;
    uint32_t cqn;

    /* A QP's flush may overrun another CQ: that one is found too. */
    for (cqn = 0; r->cq_err_pending && cqn < d->cfg.max_cq; cqn++) {
        if (r->cq[cqn].err_pending) {
            r->cq[cqn].err_pending = false;
            r->cq_err_pending--;
            fail_qps(d, cqn);
        }
    }
}

/*
 * Room for one more CQE?  The consumer index the device knows is refreshed
 * from the doorbell record only when the ring looks full.
 */
static bool cq_has_room(struct rne_dev *d, struct rne_cq *cq)
{
    if (cq->pidx - cq->cidx < cq->ring.depth) {
        return true;
    }
    /* A record beyond what was produced is garbage: treat as no room. */
    return cq_refresh_cidx(d, cq) && cq->pidx - cq->cidx < cq->ring.depth;
}

int rne_cq_post(struct rne_dev *d, uint32_t cqn, struct rnic_cqe *cqe)
{
    struct rne_cq *cq;
    bool wake;

    if (cqn >= d->cfg.max_cq || !d->rdma->cq[cqn].live) {
        return -1;
    }
    cq = &d->rdma->cq[cqn];
    if (cq->overflow) {
        return -1;
    }
    if (!cq_has_room(d, cq)) {
        return cq_fail(d, cqn, cq, "CQ overflow");
    }
    cqe->owner = 0;
    if (rne_ring_publish(&cq->ring, &d->host, cq->pidx, cqe,
                         offsetof(struct rnic_cqe, owner))) {
        return cq_fail(d, cqn, cq, "CQE DMA failed");
    }
    cq->pidx++;
    wake = cq->arm ||
           (cq->arm_solicited && ((cqe->flags & RNIC_CQE_F_SOLICITED) ||
                                  cqe->status != RNIC_WC_SUCCESS));
    if (wake) {
        cq_event(d, cqn, cq);
    }
    return 0;
}

void rne_cq_doorbell(struct rne_dev *d, uint32_t cqn,
                     const struct rne_db_latch *l)
{
    struct rne_cq *cq = &d->rdma->cq[cqn];

    /* A consumer index within the last ring's worth of CQEs... */
    if (cq->pidx - l->idx > cq->ring.depth) {
        rne_rdma_db_error(d, cqn, RNIC_DB_CQ,
                          "CQ consumer index out of range");
        return;
    }
    /* ...moves the device's view forward only (dbrec may be newer). */
    if (l->idx - cq->cidx <= cq->pidx - cq->cidx) {
        cq->cidx = l->idx;
    }
    if (l->flags & RNIC_DB_ARM) {
        cq->arm = true;
    } else if (l->flags & RNIC_DB_ARM_SOLICITED) {
        cq->arm_solicited = true;
    }
    /* CQEs the consumer has not seen yet: no lost wake-up. */
    if ((cq->arm || cq->arm_solicited) && cq->pidx != cq->cidx) {
        cq_event(d, cqn, cq);
    }
}
