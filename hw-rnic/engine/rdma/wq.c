/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Work queues: SQ WQE fetch and validation, receive WQE take (RQ or SRQ),
 * SQ completions, local work requests and flushing to ERROR.
 */
#include <string.h>
#include "rdma_int.h"
#include "core/eq.h"
#include "wire/le.h"

#define WQE_FLAGS_ALL (RNIC_WQE_SIGNALED | RNIC_WQE_SOLICITED | \
                       RNIC_WQE_FENCE | RNIC_WQE_INLINE)

/* What an opcode may carry. */
struct op_shape {
    bool known;
    bool data;                  /* SGEs or in-line data */
    bool inline_ok;
    bool sink;                  /* the SGEs receive data: LOCAL_WRITE */
    bool atomic;                /* exactly one 8-byte SGE */
};

static struct op_shape op_shape(uint8_t op)
{
    struct op_shape s = { 0 };

    switch (op) {
    case RNIC_WR_SEND:
    case RNIC_WR_SEND_INV:
    case RNIC_WR_SEND_IMM:
    case RNIC_WR_WRITE:
    case RNIC_WR_WRITE_IMM:
        s.known = s.data = s.inline_ok = true;
        break;
    case RNIC_WR_READ:
    case RNIC_WR_READ_INV:
        s.known = s.data = s.sink = true;
        break;
    case RNIC_WR_ATOMIC_FADD:
    case RNIC_WR_ATOMIC_CSWAP:
        s.known = s.data = s.sink = s.atomic = true;
        break;
    case RNIC_WR_LOCAL_INV:
    case RNIC_WR_REG_MR:
    case RNIC_WR_BIND_MW:
        s.known = true;
        break;
    }
    return s;
}

static uint8_t wc_opcode(uint8_t op)
{
    switch (op) {
    case RNIC_WR_WRITE:
    case RNIC_WR_WRITE_IMM:
        return RNIC_WC_WRITE;
    case RNIC_WR_READ:
    case RNIC_WR_READ_INV:
        return RNIC_WC_READ;
    case RNIC_WR_ATOMIC_FADD:
        return RNIC_WC_ATOMIC_FADD;
    case RNIC_WR_ATOMIC_CSWAP:
        return RNIC_WC_ATOMIC_CSWAP;
    case RNIC_WR_LOCAL_INV:
        return RNIC_WC_LOCAL_INV;
    case RNIC_WR_REG_MR:
        return RNIC_WC_REG_MR;
    case RNIC_WR_BIND_MW:
        return RNIC_WC_BIND_MW;
    default:
        return RNIC_WC_SEND;
    }
}

/* Copy n SGEs to host order and check each against the QP's PD. */
static unsigned load_sges(struct rne_dev *d, uint32_t pdn,
                          const struct rnic_sge *in, uint32_t n, bool sink,
                          struct rne_sgl *sgl)
{
    uint32_t access = sink ? RNIC_ACCESS_LOCAL_WRITE : 0, i;

    sgl->n = n;
    sgl->total = 0;
    for (i = 0; i < n; i++) {
        struct rnic_sge *s = &sgl->sge[i];

        s->addr = rne_le64_to_cpu(in[i].addr);
        s->length = rne_le32_to_cpu(in[i].length);
        s->lkey = rne_le32_to_cpu(in[i].lkey);
        sgl->total += s->length;
        /* Zero-length SGEs reach no memory: their lkey does not matter. */
        if (s->length && rne_mr_check(d, s->lkey, pdn, access, s->addr,
                                      s->length) != RNE_MR_OK) {
            return RNIC_WC_LOC_PROT_ERR;
        }
    }
    /* A message's length must fit the 32-bit byte_len of its CQE. */
    return sgl->total > UINT32_MAX ? RNIC_WC_LOC_LEN_ERR : RNIC_WC_SUCCESS;
}

unsigned rne_sq_fetch(struct rne_dev *d, struct rne_qp *qp, uint32_t idx,
                      struct rnic_sq_wqe *wqe, struct rne_sgl *sgl)
{
    struct op_shape s;
    uint32_t count;
    bool inl;

    memset(sgl, 0, sizeof(*sgl));
    if (rne_ring_read(&qp->sq.ring, &d->host, idx, wqe)) {
        memset(wqe, 0, sizeof(*wqe));
        return RNIC_WC_LOC_QP_OP_ERR;
    }
    s = op_shape(wqe->hdr.opcode);
    count = rne_le16_to_cpu(wqe->hdr.count);
    inl = wqe->hdr.flags & RNIC_WQE_INLINE;
    if (!s.known || (wqe->hdr.flags & ~WQE_FLAGS_ALL) ||
        (inl && !s.inline_ok) || (!s.data && count)) {
        return RNIC_WC_LOC_QP_OP_ERR;
    }
    if (inl) {
        if (count > qp->max_inline) {
            return RNIC_WC_LOC_QP_OP_ERR;
        }
        sgl->total = count;
        return RNIC_WC_SUCCESS;
    }
    if (count > qp->max_send_sge || (s.atomic && count != 1)) {
        return RNIC_WC_LOC_QP_OP_ERR;
    }
    if (s.atomic && rne_le32_to_cpu(wqe->data.sge[0].length) != 8) {
        return RNIC_WC_LOC_LEN_ERR;
    }
    return load_sges(d, qp->pdn, wqe->data.sge, count, s.sink, sgl);
}

int rne_rq_take(struct rne_dev *d, struct rne_qp *qp, uint64_t *wr_id,
                struct rne_sgl *sgl, uint16_t *wqe_idx, unsigned *status)
{
    struct rne_srq *srq = NULL;
    struct rnic_rq_wqe wqe;
    struct rne_wq *wq = &qp->rq;
    uint32_t max_sge = qp->max_recv_sge, n;

    if (qp->srqn != RNIC_NO_SRQ) {
        srq = &d->rdma->srq[qp->srqn];
        wq = &srq->wq;
        max_sge = srq->max_sge;
    }
    memset(sgl, 0, sizeof(*sgl));
    if (wq->cidx == wq->pidx) {
        return -1;
    }
    *wqe_idx = (uint16_t)(wq->cidx & (wq->ring.depth - 1));
    *wr_id = 0;
    if (rne_ring_read(&wq->ring, &d->host, wq->cidx, &wqe)) {
        *status = RNIC_WC_LOC_QP_OP_ERR;
    } else {
        *wr_id = rne_le64_to_cpu(wqe.wr_id);
        n = rne_le16_to_cpu(wqe.num_sge);
        *status = n > max_sge ? RNIC_WC_LOC_QP_OP_ERR :
                  load_sges(d, qp->pdn, wqe.sge, n, true, sgl);
    }
    wq->cidx++;
    /* SRQ limit: one event when the posted count drops below it. */
    if (srq && srq->limit && wq->pidx - wq->cidx < srq->limit) {
        srq->limit = 0;
        rne_eq_post_async(d, RNIC_ASYNC_SRQ_LIMIT, qp->srqn, 0);
    }
    return 0;
}

static void sq_cqe(struct rne_dev *d, struct rne_qp *qp, uint32_t idx,
                   const struct rnic_sq_wqe *wqe, unsigned status,
                   uint32_t byte_len)
{
    struct rnic_cqe cqe;

    memset(&cqe, 0, sizeof(cqe));
    cqe.wr_id = wqe->hdr.wr_id;
    cqe.byte_len = rne_cpu_to_le32(byte_len);
    cqe.qpn = rne_cpu_to_le32(qp->qpn);
    cqe.wqe_idx = rne_cpu_to_le16((uint16_t)(idx & (qp->sq.ring.depth - 1)));
    cqe.opcode = wc_opcode(wqe->hdr.opcode);
    cqe.status = (uint8_t)status;
    rne_cq_post(d, qp->send_cqn, &cqe);
}

void rne_sq_complete(struct rne_dev *d, struct rne_qp *qp, uint32_t idx,
                     const struct rnic_sq_wqe *wqe, unsigned status,
                     uint32_t byte_len)
{
    qp->sq_done = idx + 1;
    if (status != RNIC_WC_SUCCESS || (wqe->hdr.flags & RNIC_WQE_SIGNALED) ||
        (qp->flags & RNIC_QP_F_SQ_SIG_ALL)) {
        sq_cqe(d, qp, idx, wqe, status, byte_len);
    }
}

unsigned rne_sq_local_wr(struct rne_dev *d, struct rne_qp *qp,
                         const struct rnic_sq_wqe *wqe)
{
    switch (wqe->hdr.opcode) {
    case RNIC_WR_LOCAL_INV:
        /* Only STags of the QP's PD: a user QP reaches its own windows. */
        return rne_mr_invalidate(d, rne_le32_to_cpu(wqe->hdr.ex), qp) ?
               RNIC_WC_LOC_PROT_ERR : RNIC_WC_SUCCESS;
    case RNIC_WR_REG_MR:
        /* Guest-physical page lists: kernel QPs only. */
        if (qp->uctx) {
            return RNIC_WC_LOC_QP_OP_ERR;
        }
        return rne_mr_fast_reg(d, qp, &wqe->op.reg_mr);
    case RNIC_WR_BIND_MW:
        return rne_mw_bind(d, qp, &wqe->op.bind_mw);
    default:
        return RNIC_WC_LOC_QP_OP_ERR;
    }
}

/* Complete every posted WQE not completed yet with WR_FLUSH_ERR. */
static void flush(struct rne_dev *d, struct rne_qp *qp)
{
    union {
        struct rnic_sq_wqe sq;
        struct rnic_rq_wqe rq;
    } w;
    struct rnic_cqe cqe;

    for (; qp->sq_done != qp->sq.pidx; qp->sq_done++) {
        if (rne_ring_read(&qp->sq.ring, &d->host, qp->sq_done, &w.sq)) {
            memset(&w.sq, 0, sizeof(w.sq));
        }
        /* A CQ in overflow drops the CQE; the flush goes on. */
        sq_cqe(d, qp, qp->sq_done, &w.sq, RNIC_WC_WR_FLUSH_ERR, 0);
    }
    qp->sq.cidx = qp->sq.pidx;
    if (qp->srqn != RNIC_NO_SRQ) {
        return;     /* SRQ WQEs belong to no QP until taken */
    }
    for (; qp->rq.cidx != qp->rq.pidx; qp->rq.cidx++) {
        if (rne_ring_read(&qp->rq.ring, &d->host, qp->rq.cidx, &w.rq)) {
            memset(&w.rq, 0, sizeof(w.rq));
        }
        memset(&cqe, 0, sizeof(cqe));
        cqe.wr_id = w.rq.wr_id;
        cqe.qpn = rne_cpu_to_le32(qp->qpn);
        cqe.wqe_idx = rne_cpu_to_le16((uint16_t)(qp->rq.cidx &
                                                 (qp->rq.ring.depth - 1)));
        cqe.opcode = RNIC_WC_RECV;
        cqe.status = RNIC_WC_WR_FLUSH_ERR;
        rne_cq_post(d, qp->recv_cqn, &cqe);
    }
}

void rne_qp_to_error(struct rne_dev *d, struct rne_qp *qp,
                     uint8_t async_code)
{
    if (qp->state != RNIC_QPS_ERROR) {
        rne_iw_qp_error(d, qp);
        rne_trace_qp_state(&d->host, qp->qpn, qp->state, RNIC_QPS_ERROR);
        qp->state = RNIC_QPS_ERROR;
    }
    flush(d, qp);
    if (async_code) {
        rne_eq_post_async(d, async_code, qp->qpn, 0);
    }
}
