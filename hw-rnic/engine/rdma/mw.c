/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Memory windows: ALLOC_MW / DEALLOC_MW, the BIND_MW WQE and window
 * invalidation.  A window is an entry of the STag table (struct rne_mr
 * with mw_type set); mr.c checks accesses through it.  A bound window
 * counts in its MR's mw_bound, which keeps the MR from being deregistered,
 * re-registered or invalidated while the window points into it.
 */
#include <string.h>
#include "rdma_int.h"
#include "wire/le.h"

unsigned rne_mw_alloc(struct rne_dev *d, const struct rnic_cmd_alloc_mw *c)
{
    uint32_t stag = rne_le32_to_cpu(c->stag), pdn = rne_le32_to_cpu(c->pdn);
    uint32_t index = RNIC_STAG_INDEX(stag);
    struct rne_mr *mw;

    if (index >= d->cfg.max_mr) {
        return RNIC_STS_BAD_INDEX;
    }
    mw = &d->rdma->mr[index];
    if (mw->state != RNE_MR_FREE) {
        return RNIC_STS_EXISTS;
    }
    if (pdn >= d->cfg.max_pd) {
        return RNIC_STS_BAD_INDEX;
    }
    if (!d->pd_owner[pdn]) {
        return RNIC_STS_NOT_FOUND;
    }
    if ((c->type != RNIC_MW_TYPE_1 && c->type != RNIC_MW_TYPE_2) ||
        c->rsvd[0] || c->rsvd[1] || c->rsvd[2] || c->rsvd2) {
        return RNIC_STS_BAD_PARAM;
    }
    memset(mw, 0, sizeof(*mw));
    mw->state = RNE_MR_INVALID;
    mw->key = (uint8_t)RNIC_STAG_KEY(stag);
    mw->mw_type = c->type;
    mw->pdn = pdn;
    mw->uctx = d->pd_owner[pdn] - 1u;
    d->rdma->mw_count++;
    rne_rdma_hold(d, pdn, mw->uctx);
    return RNIC_STS_OK;
}

/* A bound window lets go of its MR. */
static void mw_unbind(struct rne_dev *d, struct rne_mr *mw)
{
    if (mw->state == RNE_MR_VALID) {
        d->rdma->mr[mw->mw_mr].mw_bound--;
    }
    mw->state = RNE_MR_INVALID;
    mw->access = 0;
    mw->iova = 0;
    mw->length = 0;
    mw->mw_mr = 0;
    mw->mw_qpn = 0;
}

/* By index, like DEREG_MR; a bound window is unbound first (verbs). */
unsigned rne_mw_dealloc(struct rne_dev *d, uint32_t stag)
{
    uint32_t index = RNIC_STAG_INDEX(stag);
    struct rne_mr *mw;

    if (index >= d->cfg.max_mr) {
        return RNIC_STS_BAD_INDEX;
    }
    mw = &d->rdma->mr[index];
    if (mw->state == RNE_MR_FREE) {
        return RNIC_STS_NOT_FOUND;
    }
    if (!mw->mw_type) {
        return RNIC_STS_BAD_PARAM;      /* an MR: DEREG_MR */
    }
    mw_unbind(d, mw);
    d->rdma->mw_count--;
    rne_mr_free(d, index);
    return RNIC_STS_OK;
}

void rne_mw_qp_gone(struct rne_dev *d, uint32_t qpn)
{
    struct rne_rdma *r = d->rdma;
    uint32_t i;

    for (i = 0; r->mw_count && i < d->cfg.max_mr; i++) {
        struct rne_mr *mw = &r->mr[i];

        if (mw->mw_type == RNIC_MW_TYPE_2 && mw->state == RNE_MR_VALID &&
            mw->mw_qpn == qpn) {
            mw_unbind(d, mw);
        }
    }
}

enum rne_mr_err rne_mw_invalidate(struct rne_dev *d, struct rne_mr *mw,
                                  const struct rne_qp *qp)
{
    /* Type 1 windows are unbound by a zero-length bind only. */
    if (mw->mw_type != RNIC_MW_TYPE_2) {
        return RNE_MR_E_ACCESS;
    }
    if (mw->state == RNE_MR_VALID && mw->mw_qpn != qp->qpn) {
        return RNE_MR_E_PD;
    }
    mw_unbind(d, mw);
    return RNE_MR_OK;
}

struct rne_mr *rne_mw_target(struct rne_dev *d, const struct rne_mr *mw)
{
    struct rne_mr *mr = &d->rdma->mr[mw->mw_mr];

    /* mw_bound keeps this true; checked so a slip cannot reach memory. */
    return mr->state == RNE_MR_VALID && !mr->mw_type ? mr : NULL;
}

/* The MR a BIND_MW names, if the window may be bound into it. */
static struct rne_mr *bind_target(struct rne_dev *d, struct rne_qp *qp,
                                  const struct rnic_wqe_bind_mw *w,
                                  uint32_t access, uint64_t va, uint64_t len)
{
    uint32_t stag = rne_le32_to_cpu(w->mr_stag);
    uint32_t index = RNIC_STAG_INDEX(stag);
    struct rne_mr *mr;

    if (index >= d->cfg.max_mr) {
        return NULL;
    }
    mr = &d->rdma->mr[index];
    if (mr->state != RNE_MR_VALID || mr->key != RNIC_STAG_KEY(stag) ||
        mr->mw_type || mr->phys || mr->pdn != qp->pdn ||
        !(mr->access & RNIC_ACCESS_MW_BIND)) {
        return NULL;
    }
    /* Remote write and atomics land in memory the owner may write. */
    if ((access & (RNIC_ACCESS_REMOTE_WRITE | RNIC_ACCESS_REMOTE_ATOMIC)) &&
        !(mr->access & RNIC_ACCESS_LOCAL_WRITE)) {
        return NULL;
    }
    if (va < mr->iova || len > mr->length || va - mr->iova > mr->length - len) {
        return NULL;
    }
    return mr;
}

unsigned rne_mw_bind(struct rne_dev *d, struct rne_qp *qp,
                     const struct rnic_wqe_bind_mw *w)
{
    uint32_t stag = rne_le32_to_cpu(w->mw_stag);
    uint32_t access = rne_le32_to_cpu(w->access);
    uint64_t va = rne_le64_to_cpu(w->va);
    uint64_t len = rne_le64_to_cpu(w->length);
    uint32_t index = RNIC_STAG_INDEX(stag), i;
    struct rne_mr *mw, *mr = NULL;

    for (i = 0; i < sizeof(w->rsvd) / sizeof(w->rsvd[0]); i++) {
        if (w->rsvd[i]) {
            return RNIC_WC_LOC_QP_OP_ERR;
        }
    }
    if (index >= d->cfg.max_mr) {
        return RNIC_WC_MW_BIND_ERR;
    }
    mw = &d->rdma->mr[index];
    if (!mw->mw_type || mw->pdn != qp->pdn || (access & ~RNE_MW_ACCESS_ALL)) {
        return RNIC_WC_MW_BIND_ERR;
    }
    /* Type 2: bound only when invalid, never to nothing. */
    if (mw->mw_type == RNIC_MW_TYPE_2 &&
        (mw->state != RNE_MR_INVALID || !len)) {
        return RNIC_WC_MW_BIND_ERR;
    }
    if (len) {
        mr = bind_target(d, qp, w, access, va, len);
        if (!mr) {
            return RNIC_WC_MW_BIND_ERR;
        }
    }
    mw_unbind(d, mw);
    mw->key = (uint8_t)RNIC_STAG_KEY(stag);
    if (!mr) {
        return RNIC_WC_SUCCESS;         /* type 1, length 0: unbound */
    }
    mw->state = RNE_MR_VALID;
    mw->access = access;
    mw->iova = va;
    mw->length = len;
    mw->mw_mr = (uint32_t)(mr - d->rdma->mr);
    mw->mw_qpn = mw->mw_type == RNIC_MW_TYPE_2 ? qp->qpn : 0;
    mr->mw_bound++;
    return RNIC_WC_SUCCESS;
}
