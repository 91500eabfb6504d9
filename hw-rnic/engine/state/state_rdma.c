/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The RDMA resources' sections of the state stream: CQs, SRQs, QPs, MRs
 * and the doorbells latched for them (docs/migration.md).  Each object is
 * checked as its create command checks it, its references must name live
 * objects of the same context loaded before it, and it takes its share of
 * the counts (users, page-list budget, memory) as creation does, so a
 * failed load is undone by the device's own reset.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "state_int.h"
#include "rdma/rdma_int.h"

const char *rne_st_rdma_unsaved(struct rne_dev *d, char *buf, size_t n)
{
    struct rne_rdma *r = d->rdma;
    uint32_t i;

    for (i = 0; i < d->cfg.max_qp; i++) {
        const struct rne_qp *qp = &r->qp[i];

        /* an RTS QP's connection is checked by rne_st_conn_unsaved */
        if (qp->live && qp->state != RNIC_QPS_IDLE &&
            qp->state != RNIC_QPS_ERROR &&
            (qp->state != RNIC_QPS_RTS || !qp->iw)) {
            snprintf(buf, n, "QP %u is in state %u: only IDLE, ERROR and "
                     "established RTS QPs are in the state stream", i,
                     qp->state);
            return buf;
        }
    }
    if (r->cq_err_pending) {
        snprintf(buf, n, "a CQ error is pending (mid-dispatch)");
        return buf;
    }
    return NULL;
}

/* Context uctx may own objects: the kernel's or an allocated one. */
static bool uctx_ok(struct rne_st_ld *ld, uint32_t uctx, const char *what,
                    uint32_t id)
{
    if (uctx > ld->d->cfg.max_uctx || (uctx && !ld->d->uctx_live[uctx])) {
        return rne_sr_fail(ld->r, "%s %u: context %u not allocated", what,
                           id, uctx);
    }
    return true;
}

static bool pd_ok(struct rne_st_ld *ld, uint32_t pdn, uint32_t uctx,
                  const char *what, uint32_t id)
{
    if (pdn >= ld->d->cfg.max_pd || ld->d->pd_owner[pdn] != uctx + 1) {
        return rne_sr_fail(ld->r, "%s %u: PD %u is not context %u's", what,
                           id, pdn, uctx);
    }
    return true;
}

/* Number id in [0, max), after the previous one of this section kind. */
static bool next_obj(struct rne_st_ld *ld, uint32_t id, uint32_t max,
                     const char *what)
{
    if (id >= max || (int64_t)id <= ld->last_obj) {
        return rne_sr_fail(ld->r, "%s %u: out of range or out of order",
                           what, id);
    }
    ld->last_obj = id;
    return true;
}

/* ---------------------------------------------------------------- */
/* CQs                                                               */

void rne_st_save_cqs(struct rne_dev *d, struct rne_sw *w)
{
    uint32_t i;

    for (i = 0; i < d->cfg.max_cq; i++) {
        const struct rne_cq *cq = &d->rdma->cq[i];

        if (!cq->live) {
            continue;
        }
        rne_sw_begin(w, RNE_SEC_CQ, RNE_SEC_VERSION);
        rne_sw_u32(w, i);
        rne_sw_u32(w, cq->eqn);
        rne_sw_u32(w, cq->uctx);
        rne_sw_u64(w, cq->dbrec_addr);
        rne_sw_u32(w, cq->pidx);
        rne_sw_u32(w, cq->cidx);
        rne_sw_u8(w, cq->arm);
        rne_sw_u8(w, cq->arm_solicited);
        rne_sw_u8(w, cq->overflow);
        rne_st_save_ring(w, &cq->ring);
        rne_sw_end(w);
    }
}

bool rne_st_load_cq(struct rne_st_ld *ld)
{
    struct rne_dev *d = ld->d;
    struct rne_sr *r = ld->r;
    struct rne_cq cq;
    uint32_t cqn;

    memset(&cq, 0, sizeof(cq));
    if (!rne_sr_u32(r, &cqn) || !next_obj(ld, cqn, d->cfg.max_cq, "CQ")) {
        return false;
    }
    rne_sr_u32(r, &cq.eqn);
    rne_sr_u32(r, &cq.uctx);
    rne_sr_u64(r, &cq.dbrec_addr);
    rne_sr_u32(r, &cq.pidx);
    rne_sr_u32(r, &cq.cidx);
    rne_sr_bool(r, &cq.arm);
    rne_sr_bool(r, &cq.arm_solicited);
    if (!rne_sr_bool(r, &cq.overflow)) {
        return false;
    }
    if (cq.eqn == 0 || cq.eqn > d->cfg.max_eq || !d->eq[cq.eqn].live) {
        return rne_sr_fail(r, "CQ %u: EQ %u is not live", cqn, cq.eqn);
    }
    if (!uctx_ok(ld, cq.uctx, "CQ", cqn)) {
        return false;
    }
    if ((cq.dbrec_addr & 7) ||
        rne_dma_check_ram(&d->host, cq.dbrec_addr, 4)) {
        return rne_sr_fail(r, "CQ %u: doorbell record 0x%llx is not "
                           "aligned guest RAM", cqn,
                           (unsigned long long)cq.dbrec_addr);
    }
    if (!rne_st_load_ring(ld, &cq.ring, RNIC_CQE_SIZE, d->cfg.max_cqe,
                          rne_mr_budget_left(d), false, "CQ")) {
        return false;
    }
    if (rne_ring_used(cq.pidx, cq.cidx) > cq.ring.depth) {
        rne_sr_fail(r, "CQ %u: %u CQEs unconsumed in a ring of %u", cqn,
                    rne_ring_used(cq.pidx, cq.cidx), cq.ring.depth);
        rne_ring_free(&cq.ring);
        return false;
    }
    cq.live = true;
    d->rdma->cq[cqn] = cq;
    d->rdma->pbl_pages += cq.ring.npages;
    d->eq[cq.eqn].users++;
    rne_rdma_hold(d, UINT32_MAX, cq.uctx);
    return true;
}

/* ---------------------------------------------------------------- */
/* SRQs                                                              */

void rne_st_save_srqs(struct rne_dev *d, struct rne_sw *w)
{
    uint32_t i;

    for (i = 0; i < d->cfg.max_srq; i++) {
        const struct rne_srq *s = &d->rdma->srq[i];

        if (!s->live) {
            continue;
        }
        rne_sw_begin(w, RNE_SEC_SRQ, RNE_SEC_VERSION);
        rne_sw_u32(w, i);
        rne_sw_u32(w, s->pdn);
        rne_sw_u32(w, s->uctx);
        rne_sw_u32(w, s->max_sge);
        rne_sw_u32(w, s->limit);
        rne_sw_u32(w, s->wq.pidx);
        rne_sw_u32(w, s->wq.cidx);
        rne_st_save_ring(w, &s->wq.ring);
        rne_sw_end(w);
    }
}

bool rne_st_load_srq(struct rne_st_ld *ld)
{
    struct rne_dev *d = ld->d;
    struct rne_sr *r = ld->r;
    struct rne_srq s;
    uint32_t srqn;

    memset(&s, 0, sizeof(s));
    if (!rne_sr_u32(r, &srqn) ||
        !next_obj(ld, srqn, d->cfg.max_srq, "SRQ")) {
        return false;
    }
    rne_sr_u32(r, &s.pdn);
    rne_sr_u32(r, &s.uctx);
    rne_sr_u32(r, &s.max_sge);
    rne_sr_u32(r, &s.limit);
    rne_sr_u32(r, &s.wq.pidx);
    if (!rne_sr_u32(r, &s.wq.cidx) || !uctx_ok(ld, s.uctx, "SRQ", srqn) ||
        !pd_ok(ld, s.pdn, s.uctx, "SRQ", srqn)) {
        return false;
    }
    if (s.max_sge > RNIC_RQ_MAX_SGE) {
        return rne_sr_fail(r, "SRQ %u: %u SGEs (at most %u)", srqn,
                           s.max_sge, RNIC_RQ_MAX_SGE);
    }
    if (!rne_st_load_ring(ld, &s.wq.ring, RNIC_RQ_WQE_SIZE,
                          d->cfg.max_srq_wr, rne_mr_budget_left(d), false,
                          "SRQ")) {
        return false;
    }
    if (s.limit > s.wq.ring.depth ||
        rne_ring_used(s.wq.pidx, s.wq.cidx) > s.wq.ring.depth) {
        rne_ring_free(&s.wq.ring);
        return rne_sr_fail(r, "SRQ %u: limit or posted WQEs beyond its "
                           "depth", srqn);
    }
    s.live = true;
    d->rdma->srq[srqn] = s;
    d->rdma->pbl_pages += s.wq.ring.npages;
    rne_rdma_hold(d, s.pdn, s.uctx);
    return true;
}

/* ---------------------------------------------------------------- */
/* QPs                                                               */

void rne_st_save_qps(struct rne_dev *d, struct rne_sw *w)
{
    uint32_t i;

    for (i = 0; i < d->cfg.max_qp; i++) {
        const struct rne_qp *qp = &d->rdma->qp[i];

        if (!qp->live) {
            continue;
        }
        rne_sw_begin(w, RNE_SEC_QP, RNE_SEC_VERSION);
        rne_sw_u32(w, i);
        rne_sw_u8(w, qp->state);
        rne_sw_u32(w, qp->pdn);
        rne_sw_u32(w, qp->uctx);
        rne_sw_u32(w, qp->send_cqn);
        rne_sw_u32(w, qp->recv_cqn);
        rne_sw_u32(w, qp->srqn);
        rne_sw_u32(w, qp->max_send_sge);
        rne_sw_u32(w, qp->max_recv_sge);
        rne_sw_u32(w, qp->max_inline);
        rne_sw_u32(w, qp->flags);
        rne_sw_u32(w, qp->access);
        rne_sw_u8(w, qp->ird);
        rne_sw_u8(w, qp->ord);
        rne_sw_u32(w, qp->sq.pidx);
        rne_sw_u32(w, qp->sq.cidx);
        rne_sw_u32(w, qp->sq_done);
        rne_sw_u32(w, qp->rq.pidx);
        rne_sw_u32(w, qp->rq.cidx);
        rne_st_save_ring(w, &qp->sq.ring);
        rne_st_save_ring(w, &qp->rq.ring);
        rne_sw_end(w);
    }
}

/*
 * The QP's fields that need no other object.  Its access is what MODIFY_QP
 * takes (any known bits): the MR rule that remote write needs local write
 * is not a QP's.
 */
static bool qp_shape_ok(struct rne_st_ld *ld, const struct rne_qp *q)
{
    struct rne_sr *r = ld->r;
    const struct rne_dev_config *c = &ld->d->cfg;

    /* an RTS QP needs its connection (CONN section, checked at the end) */
    if (q->state != RNIC_QPS_IDLE && q->state != RNIC_QPS_ERROR &&
        q->state != RNIC_QPS_RTS) {
        return rne_sr_fail(r, "QP %u: state %u (the stream carries IDLE, "
                           "RTS and ERROR QPs)", q->qpn, q->state);
    }
    if (q->max_send_sge > RNIC_SQ_MAX_SGE ||
        q->max_recv_sge > RNIC_RQ_MAX_SGE ||
        q->max_inline > RNIC_SQ_MAX_INLINE ||
        (q->flags & ~RNIC_QP_F_SQ_SIG_ALL) ||
        (q->access & ~RNE_QP_ACCESS_ALL) ||
        q->ird > c->max_ird || q->ord > c->max_ord) {
        return rne_sr_fail(r, "QP %u: SGE, inline, flag, access or IRD/ORD "
                           "limits exceeded", q->qpn);
    }
    return true;
}

/* CQs and SRQ: live, the same context, the SRQ in the QP's PD. */
static bool qp_refs_ok(struct rne_st_ld *ld, const struct rne_qp *q)
{
    struct rne_rdma *rd = ld->d->rdma;
    uint32_t max_cq = ld->d->cfg.max_cq;

    if (q->send_cqn >= max_cq || q->recv_cqn >= max_cq ||
        !rd->cq[q->send_cqn].live || !rd->cq[q->recv_cqn].live ||
        rd->cq[q->send_cqn].uctx != q->uctx ||
        rd->cq[q->recv_cqn].uctx != q->uctx) {
        return rne_sr_fail(ld->r, "QP %u: CQs %u/%u not live in context %u",
                           q->qpn, q->send_cqn, q->recv_cqn, q->uctx);
    }
    if (q->srqn != RNIC_NO_SRQ &&
        (q->srqn >= ld->d->cfg.max_srq || !rd->srq[q->srqn].live ||
         rd->srq[q->srqn].uctx != q->uctx ||
         rd->srq[q->srqn].pdn != q->pdn)) {
        return rne_sr_fail(ld->r, "QP %u: SRQ %u not live in its context "
                           "and PD", q->qpn, q->srqn);
    }
    return true;
}

static bool qp_rings(struct rne_st_ld *ld, struct rne_qp *q)
{
    struct rne_dev *d = ld->d;
    bool srq = q->srqn != RNIC_NO_SRQ;

    if (!rne_st_load_ring(ld, &q->sq.ring, RNIC_SQ_WQE_SIZE,
                          d->cfg.max_qp_wr, rne_mr_budget_left(d), false,
                          "QP SQ")) {
        return false;
    }
    if (!rne_st_load_ring(ld, &q->rq.ring, RNIC_RQ_WQE_SIZE,
                          d->cfg.max_qp_wr,
                          rne_mr_budget_left(d) - q->sq.ring.npages, srq,
                          "QP RQ") ||
        (srq && q->rq.ring.pages)) {
        rne_ring_free(&q->sq.ring);
        rne_ring_free(&q->rq.ring);
        return ld->r->failed ? false :
               rne_sr_fail(ld->r, "QP %u: an RQ beside its SRQ", q->qpn);
    }
    /* sq_done <= cidx <= pidx <= sq_done + depth, free-running. */
    if (rne_ring_used(q->sq.pidx, q->sq_done) > q->sq.ring.depth ||
        rne_ring_used(q->sq.cidx, q->sq_done) >
        rne_ring_used(q->sq.pidx, q->sq_done) ||
        (!srq && rne_ring_used(q->rq.pidx, q->rq.cidx) > q->rq.ring.depth) ||
        (srq && (q->rq.pidx || q->rq.cidx))) {
        rne_ring_free(&q->sq.ring);
        rne_ring_free(&q->rq.ring);
        return rne_sr_fail(ld->r, "QP %u: SQ/RQ indices out of order or "
                           "beyond the depth", q->qpn);
    }
    return true;
}

bool rne_st_load_qp(struct rne_st_ld *ld)
{
    struct rne_dev *d = ld->d;
    struct rne_rdma *rd = d->rdma;
    struct rne_sr *r = ld->r;
    struct rne_qp q;
    size_t ring_bytes;

    memset(&q, 0, sizeof(q));
    if (!rne_sr_u32(r, &q.qpn) ||
        !next_obj(ld, q.qpn, d->cfg.max_qp, "QP")) {
        return false;
    }
    rne_sr_u8(r, &q.state);
    rne_sr_u32(r, &q.pdn);
    rne_sr_u32(r, &q.uctx);
    rne_sr_u32(r, &q.send_cqn);
    rne_sr_u32(r, &q.recv_cqn);
    rne_sr_u32(r, &q.srqn);
    rne_sr_u32(r, &q.max_send_sge);
    rne_sr_u32(r, &q.max_recv_sge);
    rne_sr_u32(r, &q.max_inline);
    rne_sr_u32(r, &q.flags);
    rne_sr_u32(r, &q.access);
    rne_sr_u8(r, &q.ird);
    rne_sr_u8(r, &q.ord);
    rne_sr_u32(r, &q.sq.pidx);
    rne_sr_u32(r, &q.sq.cidx);
    rne_sr_u32(r, &q.sq_done);
    rne_sr_u32(r, &q.rq.pidx);
    if (!rne_sr_u32(r, &q.rq.cidx) || !qp_shape_ok(ld, &q) ||
        !uctx_ok(ld, q.uctx, "QP", q.qpn) ||
        !pd_ok(ld, q.pdn, q.uctx, "QP", q.qpn) || !qp_refs_ok(ld, &q) ||
        !qp_rings(ld, &q)) {
        return false;
    }
    q.live = true;
    rd->qp[q.qpn] = q;
    rd->pbl_pages += q.sq.ring.npages + q.rq.ring.npages;
    ring_bytes = ((size_t)q.sq.ring.npages + q.rq.ring.npages) *
                 sizeof(uint64_t);
    rne_mem_count(&d->mem, RNE_MEM_QP_RING, ring_bytes, 1);
    rd->cq[q.send_cqn].users++;
    rd->cq[q.recv_cqn].users++;
    if (q.srqn != RNIC_NO_SRQ) {
        rd->srq[q.srqn].users++;
    }
    rne_rdma_hold(d, q.pdn, q.uctx);
    return true;
}

/* ---------------------------------------------------------------- */
/* MRs                                                               */

void rne_st_save_mrs(struct rne_dev *d, struct rne_sw *w)
{
    uint32_t i, k;

    for (i = 0; i < d->cfg.max_mr; i++) {
        const struct rne_mr *mr = &d->rdma->mr[i];

        if (mr->state == RNE_MR_FREE || mr->mw_type) {
            continue;           /* windows: their own section */
        }
        rne_sw_begin(w, RNE_SEC_MR, RNE_SEC_VERSION);
        rne_sw_u32(w, i);
        rne_sw_u8(w, mr->state);
        rne_sw_u8(w, mr->key);
        rne_sw_u8(w, mr->fast_reg);
        rne_sw_u8(w, mr->phys);
        rne_sw_u32(w, mr->pdn);
        rne_sw_u32(w, mr->uctx);
        rne_sw_u32(w, mr->access);
        rne_sw_u64(w, mr->iova);
        rne_sw_u64(w, mr->length);
        rne_sw_u32(w, mr->page_shift);
        rne_sw_u32(w, mr->max_pages);
        rne_sw_u32(w, mr->npages);
        for (k = 0; k < mr->npages; k++) {
            rne_sw_u64(w, mr->pages[k]);
        }
        rne_sw_end(w);
    }
}

/* The MR's kind, bounds and page-list shape, as REG_MR/ALLOC_MR/FR allow. */
static bool mr_shape_ok(struct rne_st_ld *ld, uint32_t idx,
                        const struct rne_mr *m)
{
    struct rne_sr *r = ld->r;
    bool bound = m->page_shift || m->npages;

    if (m->state != RNE_MR_INVALID && m->state != RNE_MR_VALID) {
        return rne_sr_fail(r, "MR %u: state %u", idx, m->state);
    }
    if (!rne_mr_access_ok(m->access) || m->iova + m->length < m->iova) {
        return rne_sr_fail(r, "MR %u: access 0x%x or range wraps", idx,
                           m->access);
    }
    if (m->phys) {
        if (m->fast_reg || m->uctx || m->page_shift || m->npages ||
            m->max_pages || m->state != RNE_MR_VALID) {
            return rne_sr_fail(r, "MR %u: a physical MR with a page list, "
                               "a user context or not valid", idx);
        }
        return true;
    }
    if (m->fast_reg) {
        if (m->uctx || !m->max_pages || m->max_pages > RNE_MR_MAX_PAGES ||
            m->npages > m->max_pages) {
            return rne_sr_fail(r, "MR %u: fast-register MR of %u/%u pages "
                               "or in a user context", idx, m->npages,
                               m->max_pages);
        }
        if (!bound && m->state == RNE_MR_INVALID) {
            return true;        /* allocated, never registered */
        }
    } else if (m->max_pages || m->state != RNE_MR_VALID) {
        return rne_sr_fail(r, "MR %u: a registered MR with max_pages or "
                           "not valid", idx);
    }
    if (!rne_mr_page_shift_ok(m->page_shift) || m->length > RNE_MR_MAX_SIZE ||
        (m->length && !rne_mr_pages_for(m->iova, m->length, m->page_shift)) ||
        m->npages != rne_mr_pages_for(m->iova, m->length, m->page_shift)) {
        return rne_sr_fail(r, "MR %u: %u pages of 2^%u do not cover its "
                           "0x%llx bytes", idx, m->npages, m->page_shift,
                           (unsigned long long)m->length);
    }
    return true;
}

static bool mr_pages(struct rne_st_ld *ld, uint32_t idx, struct rne_mr *m)
{
    struct rne_sr *r = ld->r;
    uint32_t alloc = m->npages > m->max_pages ? m->npages : m->max_pages;
    uint64_t size = m->phys ? 0 : 1ull << m->page_shift;
    uint32_t k;

    if (rne_sr_left(r) / 8 < m->npages) {
        return rne_sr_fail(r, "MR %u: truncated page list", idx);
    }
    if (m->phys) {
        return true;
    }
    m->pages = calloc(alloc ? alloc : 1, sizeof(*m->pages));
    if (!m->pages) {
        return rne_sr_fail(r, "MR %u: no memory for its page list", idx);
    }
    for (k = 0; k < m->npages; k++) {
        uint64_t pa;

        rne_sr_u64(r, &pa);
        if ((pa & (size - 1)) || rne_dma_check_ram(&ld->d->host, pa, size)) {
            free(m->pages);
            m->pages = NULL;
            return rne_sr_fail(r, "MR %u: page %u at 0x%llx is not an "
                               "aligned page of guest RAM", idx, k,
                               (unsigned long long)pa);
        }
        m->pages[k] = pa;
    }
    return true;
}

bool rne_st_load_mr(struct rne_st_ld *ld)
{
    struct rne_dev *d = ld->d;
    struct rne_sr *r = ld->r;
    struct rne_mr m;
    uint32_t idx, charge;

    memset(&m, 0, sizeof(m));
    if (!rne_sr_u32(r, &idx) || !next_obj(ld, idx, d->cfg.max_mr, "MR")) {
        return false;
    }
    rne_sr_u8(r, &m.state);
    rne_sr_u8(r, &m.key);
    rne_sr_bool(r, &m.fast_reg);
    rne_sr_bool(r, &m.phys);
    rne_sr_u32(r, &m.pdn);
    rne_sr_u32(r, &m.uctx);
    rne_sr_u32(r, &m.access);
    rne_sr_u64(r, &m.iova);
    rne_sr_u64(r, &m.length);
    rne_sr_u32(r, &m.page_shift);
    rne_sr_u32(r, &m.max_pages);
    if (!rne_sr_u32(r, &m.npages) || !uctx_ok(ld, m.uctx, "MR", idx) ||
        !pd_ok(ld, m.pdn, m.uctx, "MR", idx) || !mr_shape_ok(ld, idx, &m)) {
        return false;
    }
    charge = m.fast_reg ? m.max_pages : m.npages;
    if (charge > rne_mr_budget_left(d)) {
        return rne_sr_fail(r, "MR %u: %u page-list entries beyond "
                           "max-mr-pages", idx, charge);
    }
    if (!mr_pages(ld, idx, &m)) {
        return false;
    }
    d->rdma->mr[idx] = m;
    d->rdma->pbl_pages += charge;
    rne_rdma_hold(d, m.pdn, m.uctx);
    return true;
}

/* ---------------------------------------------------------------- */
/* Memory windows: after the MRs and QPs they are bound to            */

void rne_st_save_mws(struct rne_dev *d, struct rne_sw *w)
{
    uint32_t i;

    for (i = 0; i < d->cfg.max_mr; i++) {
        const struct rne_mr *mw = &d->rdma->mr[i];

        if (mw->state == RNE_MR_FREE || !mw->mw_type) {
            continue;
        }
        rne_sw_begin(w, RNE_SEC_MW, RNE_SEC_VERSION);
        rne_sw_u32(w, i);
        rne_sw_u8(w, mw->state);
        rne_sw_u8(w, mw->key);
        rne_sw_u8(w, mw->mw_type);
        rne_sw_u32(w, mw->pdn);
        rne_sw_u32(w, mw->uctx);
        rne_sw_u32(w, mw->access);
        rne_sw_u64(w, mw->iova);
        rne_sw_u64(w, mw->length);
        rne_sw_u32(w, mw->mw_mr);
        rne_sw_u32(w, mw->mw_qpn);
        rne_sw_end(w);
    }
}

/* A bound window as a BIND_MW could have made it (mw.c's rules). */
static bool mw_binding_ok(struct rne_st_ld *ld, uint32_t idx,
                          const struct rne_mr *m)
{
    struct rne_dev *d = ld->d;
    struct rne_sr *r = ld->r;
    const struct rne_mr *mr;
    const struct rne_qp *qp;
    bool writes = m->access & (RNIC_ACCESS_REMOTE_WRITE |
                               RNIC_ACCESS_REMOTE_ATOMIC);

    if (m->state == RNE_MR_INVALID) {
        if (m->access || m->iova || m->length || m->mw_mr || m->mw_qpn) {
            return rne_sr_fail(r, "MW %u: unbound with a binding", idx);
        }
        return true;
    }
    if (m->state != RNE_MR_VALID || (m->access & ~RNE_MW_ACCESS_ALL) ||
        !m->length || m->mw_mr >= d->cfg.max_mr) {
        return rne_sr_fail(r, "MW %u: state %u, access 0x%x or MR %u", idx,
                           m->state, m->access, m->mw_mr);
    }
    mr = &d->rdma->mr[m->mw_mr];
    if (mr->state != RNE_MR_VALID || mr->mw_type || mr->phys ||
        mr->pdn != m->pdn || !(mr->access & RNIC_ACCESS_MW_BIND) ||
        (writes && !(mr->access & RNIC_ACCESS_LOCAL_WRITE))) {
        return rne_sr_fail(r, "MW %u: MR %u is not a valid MR of its PD "
                           "allowing the binding", idx, m->mw_mr);
    }
    if (m->iova < mr->iova || m->length > mr->length ||
        m->iova - mr->iova > mr->length - m->length) {
        return rne_sr_fail(r, "MW %u: range outside MR %u", idx, m->mw_mr);
    }
    if (m->mw_type == RNIC_MW_TYPE_1) {
        if (m->mw_qpn) {
            return rne_sr_fail(r, "MW %u: type 1 bound to a QP", idx);
        }
        return true;
    }
    qp = m->mw_qpn < d->cfg.max_qp ? rne_qp_get(d, m->mw_qpn) : NULL;
    if (!qp || qp->pdn != m->pdn) {
        return rne_sr_fail(r, "MW %u: QP %u is not a live QP of its PD", idx,
                           m->mw_qpn);
    }
    return true;
}

bool rne_st_load_mw(struct rne_st_ld *ld)
{
    struct rne_dev *d = ld->d;
    struct rne_sr *r = ld->r;
    struct rne_mr m;
    uint32_t idx;

    memset(&m, 0, sizeof(m));
    if (!rne_sr_u32(r, &idx) || !next_obj(ld, idx, d->cfg.max_mr, "MW")) {
        return false;
    }
    rne_sr_u8(r, &m.state);
    rne_sr_u8(r, &m.key);
    rne_sr_u8(r, &m.mw_type);
    rne_sr_u32(r, &m.pdn);
    rne_sr_u32(r, &m.uctx);
    rne_sr_u32(r, &m.access);
    rne_sr_u64(r, &m.iova);
    rne_sr_u64(r, &m.length);
    rne_sr_u32(r, &m.mw_mr);
    if (!rne_sr_u32(r, &m.mw_qpn) || !uctx_ok(ld, m.uctx, "MW", idx) ||
        !pd_ok(ld, m.pdn, m.uctx, "MW", idx)) {
        return false;
    }
    if (d->rdma->mr[idx].state != RNE_MR_FREE) {
        return rne_sr_fail(r, "MW %u: the index is an MR's", idx);
    }
    if (m.mw_type != RNIC_MW_TYPE_1 && m.mw_type != RNIC_MW_TYPE_2) {
        return rne_sr_fail(r, "MW %u: type %u", idx, m.mw_type);
    }
    if (!mw_binding_ok(ld, idx, &m)) {
        return false;
    }
    d->rdma->mr[idx] = m;
    d->rdma->mw_count++;
    if (m.state == RNE_MR_VALID) {
        d->rdma->mr[m.mw_mr].mw_bound++;
    }
    rne_rdma_hold(d, m.pdn, m.uctx);
    return true;
}

/* ---------------------------------------------------------------- */
/* Doorbells latched for the RDMA objects, in the order they came    */

void rne_st_save_dblatch(struct rne_dev *d, struct rne_sw *w)
{
    struct rne_rdma *r = d->rdma;
    uint32_t i;

    rne_sw_begin(w, RNE_SEC_DBLATCH, RNE_SEC_VERSION);
    rne_sw_u32(w, r->db_count);
    for (i = 0; i < r->db_count; i++) {
        uint32_t e = r->db_list[(r->db_head + i) % r->db_cap];
        uint32_t kind = e >> 24, obj = e & RNIC_DB_OBJ_MASK;
        const struct rne_db_latch *l = &r->latch[kind][obj];

        rne_sw_u8(w, kind);
        rne_sw_u32(w, obj);
        rne_sw_u8(w, l->set);
        rne_sw_u32(w, l->idx);
        rne_sw_u32(w, l->flags);
    }
    rne_sw_end(w);
}

/* A latch may wait only for a live object that takes that doorbell. */
static bool latch_target_live(struct rne_dev *d, uint8_t kind, uint32_t obj)
{
    struct rne_rdma *r = d->rdma;

    switch (kind) {
    case RNE_DBK_SQ:
        return r->qp[obj].live;
    case RNE_DBK_RQ:
        return r->qp[obj].live && r->qp[obj].srqn == RNIC_NO_SRQ;
    case RNE_DBK_SRQ:
        return r->srq[obj].live;
    default:
        return r->cq[obj].live;
    }
}

bool rne_st_load_dblatch(struct rne_st_ld *ld)
{
    struct rne_dev *d = ld->d;
    struct rne_rdma *rd = d->rdma;
    struct rne_sr *r = ld->r;
    struct rne_db_latch *l;
    uint32_t n, obj, idx, flags;
    uint8_t kind;
    bool set;

    if (!rne_sr_u32(r, &n)) {
        return false;
    }
    if (n > rd->db_cap) {
        return rne_sr_fail(r, "%u latched doorbells (room for %u)", n,
                           rd->db_cap);
    }
    while (n--) {
        rne_sr_u8(r, &kind);
        rne_sr_u32(r, &obj);
        rne_sr_bool(r, &set);
        rne_sr_u32(r, &idx);
        if (!rne_sr_u32(r, &flags)) {
            return false;
        }
        if (kind >= RNE_DBK_NUM || obj >= rd->nobj[kind] ||
            rd->latch[kind][obj].queued) {
            return rne_sr_fail(r, "latched doorbell kind %u object %u: out "
                               "of range or twice", kind, obj);
        }
        if ((flags & ~(RNIC_DB_ARM | RNIC_DB_ARM_SOLICITED)) ||
            (flags && kind != RNE_DBK_CQ) ||
            (!set && (idx || flags)) ||
            (set && !latch_target_live(d, kind, obj))) {
            return rne_sr_fail(r, "latched doorbell kind %u object %u: "
                               "flags 0x%x, or no such object", kind, obj,
                               flags);
        }
        l = &rd->latch[kind][obj];
        l->idx = idx;
        l->flags = flags;
        l->set = set;
        l->queued = true;
        rd->db_list[(rd->db_head + rd->db_count) % rd->db_cap] =
            (uint32_t)kind << 24 | obj;
        rd->db_count++;
    }
    return true;
}
