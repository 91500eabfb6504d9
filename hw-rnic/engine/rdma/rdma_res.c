/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * RDMA resources: the object tables, their life cycle with the device,
 * admin command dispatch and the SQ/RQ/SRQ/CQ doorbells (latched in MMIO
 * context, applied in rne_dev_process context).
 */
#include <stdlib.h>
#include <string.h>
#include "rdma_int.h"
#include "core/eq.h"
#include "wire/le.h"

int rne_rdma_init(struct rne_dev *d)
{
    const struct rne_dev_config *c = &d->cfg;
    struct rne_rdma *r = calloc(1, sizeof(*r));
    int k;

    d->rdma = r;
    if (!r) {
        return -1;
    }
    r->nobj[RNE_DBK_SQ] = c->max_qp;
    r->nobj[RNE_DBK_RQ] = c->max_qp;
    r->nobj[RNE_DBK_SRQ] = c->max_srq;
    r->nobj[RNE_DBK_CQ] = c->max_cq;
    r->cq = calloc(c->max_cq, sizeof(*r->cq));
    r->srq = calloc(c->max_srq ? c->max_srq : 1, sizeof(*r->srq));
    r->qp = calloc(c->max_qp, sizeof(*r->qp));
    r->mr = calloc(c->max_mr, sizeof(*r->mr));
    r->pd_users = calloc(c->max_pd, sizeof(*r->pd_users));
    r->uctx_users = calloc(c->max_uctx + 1, sizeof(*r->uctx_users));
    r->db_cap = 0;
    for (k = 0; k < RNE_DBK_NUM; k++) {
        r->latch[k] = calloc(r->nobj[k] ? r->nobj[k] : 1,
                             sizeof(*r->latch[k]));
        if (!r->latch[k]) {
            return -1;
        }
        r->db_cap += r->nobj[k];
    }
    r->db_list = calloc(r->db_cap, sizeof(*r->db_list));
    if (!r->cq || !r->srq || !r->qp || !r->mr || !r->pd_users ||
        !r->uctx_users || !r->db_list) {
        return -1;
    }
    r->ready = true;
    return 0;
}

/* Free every object's device memory (page lists); tables stay. */
static void free_objects(struct rne_dev *d)
{
    struct rne_rdma *r = d->rdma;
    uint32_t i;

    for (i = 0; i < d->cfg.max_qp; i++) {
        if (r->qp[i].live) {
            rne_qp_free(d, i);
        }
    }
    for (i = 0; i < d->cfg.max_srq; i++) {
        if (r->srq[i].live) {
            rne_srq_free(d, i);
        }
    }
    for (i = 0; i < d->cfg.max_cq; i++) {
        if (r->cq[i].live) {
            rne_cq_free(d, i);
        }
    }
    for (i = 0; i < d->cfg.max_mr; i++) {
        if (r->mr[i].state != RNE_MR_FREE) {
            rne_mr_free(d, i);
        }
    }
    r->mw_count = 0;
}

void rne_rdma_fini(struct rne_dev *d)
{
    struct rne_rdma *r = d->rdma;
    int k;

    if (!r) {
        return;
    }
    if (r->ready) {
        free_objects(d);
    }
    free(r->cq);
    free(r->srq);
    free(r->qp);
    free(r->mr);
    free(r->pd_users);
    free(r->uctx_users);
    for (k = 0; k < RNE_DBK_NUM; k++) {
        free(r->latch[k]);
    }
    free(r->db_list);
    free(r);
    d->rdma = NULL;
}

void rne_rdma_reset(struct rne_dev *d)
{
    struct rne_rdma *r = d->rdma;
    int k;

    free_objects(d);
    memset(r->pd_users, 0, d->cfg.max_pd * sizeof(*r->pd_users));
    memset(r->uctx_users, 0, (d->cfg.max_uctx + 1) * sizeof(*r->uctx_users));
    for (k = 0; k < RNE_DBK_NUM; k++) {
        memset(r->latch[k], 0, r->nobj[k] * sizeof(*r->latch[k]));
    }
    r->db_head = 0;
    r->db_count = 0;
}

bool rne_rdma_pd_busy(struct rne_dev *d, uint32_t pdn)
{
    return pdn < d->cfg.max_pd && d->rdma->pd_users[pdn];
}

bool rne_rdma_uctx_busy(struct rne_dev *d, uint32_t uctx)
{
    return uctx <= d->cfg.max_uctx && d->rdma->uctx_users[uctx];
}

unsigned rne_rdma_check_uctx(struct rne_dev *d, uint32_t uctx)
{
    if (uctx > d->cfg.max_uctx) {
        return RNIC_STS_BAD_INDEX;
    }
    if (uctx && !d->uctx_live[uctx]) {
        return RNIC_STS_NOT_FOUND;
    }
    return RNIC_STS_OK;
}

/* A PD a context may use: live and created for the same context. */
unsigned rne_rdma_check_pd(struct rne_dev *d, uint32_t pdn, uint32_t uctx)
{
    if (pdn >= d->cfg.max_pd) {
        return RNIC_STS_BAD_INDEX;
    }
    if (d->pd_owner[pdn] != uctx + 1) {
        return RNIC_STS_NOT_FOUND;
    }
    return RNIC_STS_OK;
}

/* pdn UINT32_MAX: the object has no PD (CQ). */
void rne_rdma_hold(struct rne_dev *d, uint32_t pdn, uint32_t uctx)
{
    if (pdn != UINT32_MAX) {
        d->rdma->pd_users[pdn]++;
    }
    d->rdma->uctx_users[uctx]++;
}

void rne_rdma_release(struct rne_dev *d, uint32_t pdn, uint32_t uctx)
{
    if (pdn != UINT32_MAX) {
        d->rdma->pd_users[pdn]--;
    }
    d->rdma->uctx_users[uctx]--;
}

unsigned rne_rdma_admin(struct rne_dev *d, const struct rnic_admin_cmd *cmd,
                        struct rnic_admin_cqe *cqe)
{
    const struct rnic_cmd_obj *obj = &cmd->u.obj;
    uint32_t id = rne_le32_to_cpu(obj->id), carried;
    unsigned sts;

    switch (cmd->hdr.opcode) {
    case RNIC_CMD_CREATE_CQ:
        return rne_cq_create(d, &cmd->u.create_cq);
    case RNIC_CMD_CREATE_SRQ:
        return rne_srq_create(d, &cmd->u.create_srq);
    case RNIC_CMD_MODIFY_SRQ:
        return rne_srq_modify(d, &cmd->u.modify_srq);
    case RNIC_CMD_CREATE_QP:
        return rne_qp_create(d, &cmd->u.create_qp);
    case RNIC_CMD_MODIFY_QP:
        return rne_qp_modify(d, &cmd->u.modify_qp);
    case RNIC_CMD_QUERY_QP:
        return rne_qp_query(d, &cmd->u.query_qp);
    case RNIC_CMD_REG_MR:
        return rne_mr_reg(d, &cmd->u.reg_mr);
    case RNIC_CMD_ALLOC_MR:
        return rne_mr_alloc(d, &cmd->u.alloc_mr);
    case RNIC_CMD_REREG_MR:
        return rne_mr_rereg(d, &cmd->u.reg_mr);
    case RNIC_CMD_ALLOC_MW:
        return rne_mw_alloc(d, &cmd->u.alloc_mw);
    case RNIC_CMD_RESIZE_CQ:
        sts = rne_cq_resize(d, &cmd->u.resize_cq, &carried);
        if (!sts) {
            cqe->result0 = rne_cpu_to_le32(carried);
        }
        return sts;
    default:
        break;
    }
    /* The rest name one object. */
    if (obj->rsvd) {
        return RNIC_STS_BAD_PARAM;
    }
    switch (cmd->hdr.opcode) {
    case RNIC_CMD_DESTROY_CQ:
        return rne_cq_destroy(d, id);
    case RNIC_CMD_DESTROY_SRQ:
        return rne_srq_destroy(d, id);
    case RNIC_CMD_DESTROY_QP:
        return rne_qp_destroy(d, id);
    case RNIC_CMD_DEREG_MR:
        return rne_mr_dereg(d, id);
    case RNIC_CMD_DEALLOC_MW:
        return rne_mw_dealloc(d, id);
    default:
        return RNIC_STS_BAD_OPCODE;
    }
}

/* ------------------------------------------------------------------ */
/* Doorbells                                                           */
/* ------------------------------------------------------------------ */

static enum rne_db_kind db_kind(uint32_t off)
{
    switch (off) {
    case RNIC_DB_SQ:
        return RNE_DBK_SQ;
    case RNIC_DB_RQ:
        return RNE_DBK_RQ;
    case RNIC_DB_SRQ:
        return RNE_DBK_SRQ;
    default:
        return RNE_DBK_CQ;
    }
}

static const uint32_t db_offset[RNE_DBK_NUM] = {
    [RNE_DBK_SQ] = RNIC_DB_SQ,
    [RNE_DBK_RQ] = RNIC_DB_RQ,
    [RNE_DBK_SRQ] = RNIC_DB_SRQ,
    [RNE_DBK_CQ] = RNIC_DB_CQ,
};

/* Owner context of a live object, or -1. */
static int64_t db_owner(struct rne_dev *d, enum rne_db_kind kind,
                        uint32_t obj)
{
    struct rne_rdma *r = d->rdma;

    switch (kind) {
    case RNE_DBK_SQ:
    case RNE_DBK_RQ:
        if (!r->qp[obj].live ||
            (kind == RNE_DBK_RQ && r->qp[obj].srqn != RNIC_NO_SRQ)) {
            return -1;
        }
        return r->qp[obj].uctx;
    case RNE_DBK_SRQ:
        return r->srq[obj].live ? (int64_t)r->srq[obj].uctx : -1;
    default:
        return r->cq[obj].live ? (int64_t)r->cq[obj].uctx : -1;
    }
}

/* Record the first refused doorbell for the DB_ERROR event. */
static bool db_refuse(struct rne_dev *d, uint32_t page, uint32_t off,
                      uint32_t obj)
{
    if (!rne_dev_db_error_once(d, page)) {
        return false;
    }
    rne_guest_error(&d->host, "RDMA doorbell rejected",
                    (uint64_t)page << 32 | off, obj);
    d->db_err_obj = obj;
    d->db_err_off = off;
    d->pending |= RNE_PEND_DB_ERROR;
    return true;
}

bool rne_rdma_doorbell(struct rne_dev *d, uint32_t page, uint32_t off,
                       uint64_t val)
{
    struct rne_rdma *r = d->rdma;
    enum rne_db_kind kind = db_kind(off);
    uint32_t obj = RNIC_DB_GET_OBJ(val);
    struct rne_db_latch *l;

    /* Only this context's live objects; a refusal latches no work. */
    if (obj >= r->nobj[kind] || db_owner(d, kind, obj) != page) {
        return db_refuse(d, page, off, obj);
    }
    l = &r->latch[kind][obj];
    l->idx = RNIC_DB_GET_IDX(val);
    if (kind == RNE_DBK_CQ) {
        /* Coalesced doorbells never lose an arm. */
        l->flags |= RNIC_DB_GET_FLAGS(val) &
                    (RNIC_DB_ARM | RNIC_DB_ARM_SOLICITED);
    }
    l->set = true;
    if (!l->queued) {
        l->queued = true;
        r->db_list[(r->db_head + r->db_count) % r->db_cap] =
            (uint32_t)kind << 24 | obj;
        r->db_count++;
    }
    return true;
}

void rne_rdma_unlatch(struct rne_dev *d, enum rne_db_kind kind,
                      uint32_t obj)
{
    struct rne_db_latch *l = &d->rdma->latch[kind][obj];

    l->set = false;
    l->flags = 0;
}

void rne_rdma_db_error(struct rne_dev *d, uint32_t obj, uint32_t off,
                       const char *what)
{
    if (!rne_dev_db_error_once(d, db_owner(d, db_kind(off), obj))) {
        return;
    }
    rne_guest_error(&d->host, what, obj, off);
    rne_eq_post_async(d, RNIC_ASYNC_DB_ERROR, obj, off);
}

void rne_rdma_run(struct rne_dev *d)
{
    struct rne_rdma *r = d->rdma;
    uint32_t n = r->db_count;

    /* Only what was latched before this pass: kicks may latch more. */
    while (n-- && r->db_count) {
        uint32_t e = r->db_list[r->db_head];
        enum rne_db_kind kind = (enum rne_db_kind)(e >> 24);
        uint32_t obj = e & RNIC_DB_OBJ_MASK;
        struct rne_db_latch l = r->latch[kind][obj];

        r->db_head = (r->db_head + 1) % r->db_cap;
        r->db_count--;
        r->latch[kind][obj].queued = false;
        r->latch[kind][obj].set = false;
        r->latch[kind][obj].flags = 0;
        if (!l.set) {
            continue;   /* the object was destroyed meanwhile */
        }
        if (db_owner(d, kind, obj) < 0) {
            rne_rdma_db_error(d, obj, db_offset[kind],
                              "doorbell for a destroyed object");
            continue;
        }
        switch (kind) {
        case RNE_DBK_SQ:
            rne_sq_doorbell(d, &r->qp[obj], l.idx);
            break;
        case RNE_DBK_RQ:
            rne_rq_doorbell(d, &r->qp[obj], l.idx);
            break;
        case RNE_DBK_SRQ:
            rne_srq_doorbell(d, obj, l.idx);
            break;
        default:
            rne_cq_doorbell(d, obj, &l);
            break;
        }
    }
}
