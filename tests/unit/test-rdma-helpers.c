/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Driver-side helpers for the RDMA resource tests (test-rdma-helpers.h).
 */
#include <string.h>
#include "test-rdma-helpers.h"

struct rnic_admin_cmd t_mk(uint8_t opcode)
{
    struct rnic_admin_cmd c;

    memset(&c, 0, sizeof(c));
    c.hdr.opcode = opcode;
    return c;
}

struct harness *t_setup(struct t_eq *async, struct t_eq *comp)
{
    struct harness *h = h_new(NULL);

    if (!h_enable(h, 5, 5)) {
        abort();
    }
    async->eqn = T_ASYNC_EQ;
    async->depth = 64;
    async->cons = 0;
    async->ring = h_create_eq(h, T_ASYNC_EQ, 6, RNIC_EQ_F_ASYNC);
    comp->eqn = T_COMP_EQ;
    comp->depth = 64;
    comp->cons = 0;
    comp->ring = h_create_eq(h, T_COMP_EQ, 6, 0);
    h_run(h);   /* link state event */
    t_drain_eq(h, async, 0);
    CHECK_EQ(t_create_pd(h, 0, 0), RNIC_STS_OK);
    return h;
}

unsigned t_cmd_obj(struct harness *h, uint8_t opcode, uint32_t id)
{
    struct rnic_admin_cmd c = t_mk(opcode);

    c.u.obj.id = id;
    return h_cmd(h, &c);
}

unsigned t_create_pd(struct harness *h, uint32_t pdn, uint32_t uctx)
{
    struct rnic_admin_cmd c = t_mk(RNIC_CMD_CREATE_PD);

    c.u.create_pd.pdn = pdn;
    c.u.create_pd.uctx = uctx;
    return h_cmd(h, &c);
}

unsigned t_alloc_uctx(struct harness *h, uint32_t uctx)
{
    struct rnic_admin_cmd c = t_mk(RNIC_CMD_ALLOC_UCTX);

    c.u.alloc_uctx.uctx = uctx;
    return h_cmd(h, &c);
}

void t_cq_cmd(struct harness *h, struct rnic_admin_cmd *c, struct t_cq *cq,
              uint32_t cqn, uint32_t eqn, uint32_t uctx, unsigned log)
{
    uint32_t pages = rne_ring_pages_needed(1u << log, RNIC_CQE_SIZE);

    *c = t_mk(RNIC_CMD_CREATE_CQ);
    memset(cq, 0, sizeof(*cq));
    cq->cqn = cqn;
    cq->depth = 1u << log;
    cq->ring = h_alloc(h, pages);
    cq->dbrec = h_alloc(h, 1) + 64;
    c->u.create_cq.cqn = cqn;
    c->u.create_cq.eqn = eqn;
    c->u.create_cq.uctx = uctx;
    c->u.create_cq.log_depth = (uint8_t)log;
    c->u.create_cq.dbrec_addr = cq->dbrec;
    h_pbl(h, &c->u.create_cq.ring, cq->ring, pages);
}

unsigned t_create_cq(struct harness *h, struct t_cq *cq, uint32_t cqn,
                     uint32_t uctx, unsigned log)
{
    struct rnic_admin_cmd c;

    t_cq_cmd(h, &c, cq, cqn, T_COMP_EQ, uctx, log);
    return h_cmd(h, &c);
}

bool t_poll_cq(struct harness *h, struct t_cq *cq, struct rnic_cqe *cqe)
{
    uint64_t slot = cq->ring + (uint64_t)(cq->cons & (cq->depth - 1)) *
                    RNIC_CQE_SIZE;
    uint8_t phase = ((cq->cons / cq->depth) & 1) ? 0 : 1;

    memcpy(cqe, h->mem + slot, sizeof(*cqe));
    if ((cqe->owner & RNIC_CQE_PHASE) != phase) {
        return false;
    }
    cq->cons++;
    memcpy(h->mem + cq->dbrec, &cq->cons, 4);
    return true;
}

void t_qp_cmd(struct harness *h, struct rnic_admin_cmd *c, struct t_qp *qp,
              uint32_t qpn, uint32_t pdn, uint32_t uctx, uint32_t scq,
              uint32_t rcq, uint32_t srqn, unsigned sq_log, unsigned rq_log)
{
    struct rnic_cmd_create_qp *q = &c->u.create_qp;
    uint32_t sp = rne_ring_pages_needed(1u << sq_log, RNIC_SQ_WQE_SIZE);

    *c = t_mk(RNIC_CMD_CREATE_QP);
    memset(qp, 0, sizeof(*qp));
    qp->qpn = qpn;
    qp->sq_depth = 1u << sq_log;
    qp->sq = h_alloc(h, sp);
    q->qpn = qpn;
    q->pdn = pdn;
    q->uctx = uctx;
    q->send_cqn = scq;
    q->recv_cqn = rcq;
    q->srqn = srqn;
    q->sq_log_depth = (uint8_t)sq_log;
    q->max_send_sge = RNIC_SQ_MAX_SGE;
    q->max_recv_sge = RNIC_RQ_MAX_SGE;
    q->max_inline = RNIC_SQ_MAX_INLINE;
    h_pbl(h, &q->sq, qp->sq, sp);
    if (srqn == RNIC_NO_SRQ) {
        uint32_t rp = rne_ring_pages_needed(1u << rq_log, RNIC_RQ_WQE_SIZE);

        qp->rq_depth = 1u << rq_log;
        qp->rq = h_alloc(h, rp);
        q->rq_log_depth = (uint8_t)rq_log;
        h_pbl(h, &q->rq, qp->rq, rp);
    }
}

unsigned t_create_qp(struct harness *h, struct t_qp *qp, uint32_t qpn,
                     uint32_t pdn, uint32_t scq, uint32_t rcq,
                     unsigned sq_log, unsigned rq_log)
{
    struct rnic_admin_cmd c;

    t_qp_cmd(h, &c, qp, qpn, pdn, 0, scq, rcq, RNIC_NO_SRQ, sq_log, rq_log);
    return h_cmd(h, &c);
}

void t_post_send(struct harness *h, struct t_qp *qp,
                 const struct rnic_sq_wqe *w)
{
    uint64_t slot = qp->sq + (uint64_t)(qp->sq_prod & (qp->sq_depth - 1)) *
                    RNIC_SQ_WQE_SIZE;

    memcpy(h->mem + slot, w, sizeof(*w));
    qp->sq_prod++;
}

void t_post_recv(struct harness *h, struct t_qp *qp,
                 const struct rnic_rq_wqe *w)
{
    uint64_t slot = qp->rq + (uint64_t)(qp->rq_prod & (qp->rq_depth - 1)) *
                    RNIC_RQ_WQE_SIZE;

    memcpy(h->mem + slot, w, sizeof(*w));
    qp->rq_prod++;
}

unsigned t_reg_mr(struct harness *h, uint32_t stag, uint32_t pdn,
                  uint32_t access, uint64_t iova, uint64_t len, uint64_t base)
{
    struct rnic_admin_cmd c = t_mk(RNIC_CMD_REG_MR);
    uint64_t first = iova & (RNIC_PAGE_SIZE - 1);
    uint32_t pages = (uint32_t)((first + len + RNIC_PAGE_SIZE - 1) /
                                RNIC_PAGE_SIZE);

    c.u.reg_mr.stag = stag;
    c.u.reg_mr.pdn = pdn;
    c.u.reg_mr.access = access;
    c.u.reg_mr.iova = iova;
    c.u.reg_mr.length = len;
    h_pbl(h, &c.u.reg_mr.pages, base, pages);
    return h_cmd(h, &c);
}

bool t_poll_eq(struct harness *h, struct t_eq *eq, struct rnic_eqe *e)
{
    uint64_t slot = eq->ring + (uint64_t)(eq->cons & (eq->depth - 1)) *
                    RNIC_EQE_SIZE;
    uint8_t phase = ((eq->cons / eq->depth) & 1) ? 0 : 1;

    memcpy(e, h->mem + slot, sizeof(*e));
    if ((e->flags & RNIC_CQE_PHASE) != phase) {
        return false;
    }
    eq->cons++;
    h_doorbell(h, RNIC_DB_EQ, eq->eqn, 0, eq->cons);
    return true;
}

unsigned t_drain_eq(struct harness *h, struct t_eq *eq, uint8_t type)
{
    struct rnic_eqe e;
    unsigned n = 0;

    while (t_poll_eq(h, eq, &e)) {
        if (!type || e.type == type) {
            n++;
        }
    }
    return n;
}

void t_sge(struct rnic_sge *s, uint64_t addr, uint32_t len, uint32_t lkey)
{
    s->addr = addr;
    s->length = len;
    s->lkey = lkey;
}

int t_report(const char *name)
{
    if (test_failures) {
        fprintf(stderr, "%s: %d check(s) failed\n", name, test_failures);
        return 1;
    }
    printf("%s: all checks passed\n", name);
    return 0;
}
