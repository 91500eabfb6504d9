/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * RDMA resources against a randomized hostile guest: near-valid and junk
 * commands, page lists into scribbled memory, doorbells from every page,
 * data-path calls on garbage WQEs, resets.  After every step the object
 * tables must be consistent (reference counts, ownership, ring indices);
 * ASan/UBSan and the bounds-checked DMA catch everything else.
 */
#include <string.h>
#include "test-rdma-helpers.h"

#define POOL_PAGES  256
#define LIST_PAGES  8
#define NOBJ        10      /* object numbers tried: a few beyond the max */

static uint64_t rng = 0x2545f4914f6cdd1dull;
static uint64_t pool, lists;

static uint32_t rnd(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return (uint32_t)(rng >> 16);
}

static uint32_t below(uint32_t n)
{
    return rnd() % n;
}

static uint64_t pool_page(void)
{
    return pool + (uint64_t)below(POOL_PAGES) * RNIC_PAGE_SIZE;
}

/* A page list of n entries at a random list page: mostly sane. */
static void rnd_pbl(struct harness *h, struct rnic_pbl *p, uint32_t n)
{
    uint64_t list = lists + (uint64_t)below(LIST_PAGES) * RNIC_PAGE_SIZE;
    uint32_t i, cap = n < 512 ? n : 512;

    memset(p, 0, sizeof(*p));
    for (i = 0; i < cap; i++) {
        uint64_t pg = pool_page();

        if (!below(400)) {
            pg = below(2) ? pg + 8 * below(512) : (uint64_t)rnd() << 12;
        }
        memcpy(h->mem + list + 8 * i, &pg, 8);
    }
    p->addr = list;
    p->nentries = below(20) ? n : below(600);
    p->page_shift = below(40) ? RNIC_PAGE_SHIFT : (uint8_t)rnd();
    p->levels = below(40) ? 1 + below(2) : (uint8_t)below(4);
    if (p->levels == 2) {
        /* One level-2 page: its first entry is the list page itself. */
        uint64_t l2 = lists + (uint64_t)below(LIST_PAGES) * RNIC_PAGE_SIZE;

        if (l2 != list) {
            memcpy(h->mem + l2, &list, 8);
            p->addr = l2;
        }
    }
    if (!below(50)) {
        p->addr = rnd();
    }
}

/* Mostly a number that makes sense for uctx, sometimes any. */
static uint32_t pick_pd(struct harness *h, uint32_t uctx)
{
    uint32_t i, n = below(5);

    for (i = 0; below(8) && i < h->dev.cfg.max_pd; i++) {
        if (h->dev.pd_owner[(n + i) % h->dev.cfg.max_pd] == uctx + 1) {
            return (n + i) % h->dev.cfg.max_pd;
        }
    }
    return n;
}

static uint32_t pick_cq(struct harness *h, uint32_t uctx)
{
    struct rnic_rdma *r = h->dev.rdma;
    uint32_t i, n = below(NOBJ);

    for (i = 0; below(8) && i < h->dev.cfg.max_cq; i++) {
        uint32_t k = (n + i) % h->dev.cfg.max_cq;

        if (r->cq[k].live && r->cq[k].uctx == uctx) {
            return k;
        }
    }
    return n;
}

static uint32_t pick_srq(struct harness *h, uint32_t uctx, uint32_t pdn)
{
    struct rnic_rdma *r = h->dev.rdma;
    uint32_t i, n = below(6);

    for (i = 0; below(8) && i < h->dev.cfg.max_srq; i++) {
        uint32_t k = (n + i) % h->dev.cfg.max_srq;

        if (r->srq[k].live && r->srq[k].uctx == uctx && r->srq[k].pdn == pdn) {
            return k;
        }
    }
    return n;
}

static uint32_t pick_free(uint32_t max, bool (*used)(struct harness *,
                                                     uint32_t),
                          struct harness *h)
{
    uint32_t i, n = below(NOBJ);

    for (i = 0; below(8) && i < max; i++) {
        if (!used(h, (n + i) % max)) {
            return (n + i) % max;
        }
    }
    return n;
}

static bool cq_used(struct harness *h, uint32_t n)
{
    return h->dev.rdma->cq[n].live;
}

static bool qp_used(struct harness *h, uint32_t n)
{
    return h->dev.rdma->qp[n].live;
}

static uint32_t pages_for(uint32_t log, uint32_t entry)
{
    return rnic_ring_pages_needed(1u << (log & 15), entry);
}

static void rnd_cmd(struct harness *h, struct rnic_admin_cmd *c)
{
    static const uint8_t ops[] = {
        RNIC_CMD_CREATE_CQ, RNIC_CMD_DESTROY_CQ, RNIC_CMD_CREATE_SRQ,
        RNIC_CMD_MODIFY_SRQ, RNIC_CMD_DESTROY_SRQ, RNIC_CMD_CREATE_QP,
        RNIC_CMD_MODIFY_QP, RNIC_CMD_QUERY_QP, RNIC_CMD_DESTROY_QP,
        RNIC_CMD_REG_MR, RNIC_CMD_ALLOC_MR, RNIC_CMD_DEREG_MR,
        RNIC_CMD_CREATE_PD, RNIC_CMD_DESTROY_PD, RNIC_CMD_FREE_UCTX,
        RNIC_CMD_ALLOC_UCTX, RNIC_CMD_DESTROY_EQ,
    };
    uint8_t op = ops[below(sizeof(ops))];
    uint32_t log;

    *c = t_mk(op);
    switch (op) {
    case RNIC_CMD_CREATE_CQ:
        log = below(9);
        c->u.create_cq.cqn = pick_free(h->dev.cfg.max_cq, cq_used, h);
        c->u.create_cq.eqn = below(8) ? T_COMP_EQ : below(4);
        c->u.create_cq.uctx = below(4) ? below(3) : 3;
        c->u.create_cq.log_depth = (uint8_t)log;
        c->u.create_cq.dbrec_addr = below(10) ? pool_page() + 8 * below(512)
                                              : rnd();
        rnd_pbl(h, &c->u.create_cq.ring, pages_for(log, RNIC_CQE_SIZE));
        break;
    case RNIC_CMD_CREATE_SRQ:
        log = below(8);
        c->u.create_srq.srqn = below(6);
        c->u.create_srq.uctx = below(3);
        c->u.create_srq.pdn = pick_pd(h, c->u.create_srq.uctx);
        c->u.create_srq.log_depth = (uint8_t)log;
        c->u.create_srq.max_sge = (uint8_t)below(9);
        c->u.create_srq.limit = (uint16_t)below(1u << log | 1);
        rnd_pbl(h, &c->u.create_srq.ring, pages_for(log, RNIC_RQ_WQE_SIZE));
        break;
    case RNIC_CMD_MODIFY_SRQ:
        c->u.modify_srq.srqn = below(6);
        c->u.modify_srq.limit = (uint16_t)below(130);
        break;
    case RNIC_CMD_CREATE_QP: {
        struct rnic_cmd_create_qp *q = &c->u.create_qp;
        uint32_t rl = below(10) ? 1 + below(7) : below(8);

        log = below(10) ? 1 + below(7) : below(8);
        q->qpn = pick_free(h->dev.cfg.max_qp, qp_used, h);
        q->uctx = below(3);
        q->pdn = pick_pd(h, q->uctx);
        q->send_cqn = pick_cq(h, q->uctx);
        q->recv_cqn = pick_cq(h, q->uctx);
        q->srqn = below(4) ? RNIC_NO_SRQ : pick_srq(h, q->uctx, q->pdn);
        q->sq_log_depth = (uint8_t)log;
        q->rq_log_depth = q->srqn == RNIC_NO_SRQ ? (uint8_t)rl : 0;
        q->max_send_sge = (uint8_t)below(below(16) ? 13 : 256);
        q->max_recv_sge = (uint8_t)below(below(16) ? 8 : 256);
        q->max_inline = (uint16_t)below(below(16) ? 193 : 65536);
        q->flags = (uint16_t)(below(8) ? below(2) : below(4));
        rnd_pbl(h, &q->sq, pages_for(log, RNIC_SQ_WQE_SIZE));
        if (q->srqn == RNIC_NO_SRQ) {
            rnd_pbl(h, &q->rq, pages_for(rl, RNIC_RQ_WQE_SIZE));
        }
        break;
    }
    case RNIC_CMD_MODIFY_QP:
        c->u.modify_qp.qpn = below(NOBJ);
        c->u.modify_qp.attr_mask = below(20);
        c->u.modify_qp.state = (uint8_t)below(6);
        c->u.modify_qp.ird = (uint8_t)below(20);
        c->u.modify_qp.ord = (uint8_t)below(20);
        c->u.modify_qp.access = below(20);
        break;
    case RNIC_CMD_QUERY_QP:
        c->u.query_qp.qpn = below(NOBJ);
        c->u.query_qp.buf_len = 100 + below(60);
        c->u.query_qp.buf_addr = below(10) ? pool_page() : rnd();
        break;
    case RNIC_CMD_REG_MR: {
        struct rnic_cmd_reg_mr *m = &c->u.reg_mr;
        uint32_t shift = below(4) ? 12 : 21;

        m->stag = RNIC_STAG(below(20), rnd());
        m->pdn = below(5);
        m->access = below(4) ? RNIC_ACCESS_LOCAL_WRITE | below(16) : below(20);
        m->flags = below(8) ? 0 : below(3);
        m->iova = below(3) ? pool_page() + below(4096) : (uint64_t)rnd() << 8;
        m->length = below(10) ? below(5 * RNIC_PAGE_SIZE) : rnd();
        rnd_pbl(h, &m->pages, (uint32_t)((((m->iova & ((1ull << shift) - 1)) +
                                           m->length + (1ull << shift) - 1)
                                          >> shift) & 0xffff));
        m->pages.page_shift = (uint8_t)(below(10) ? shift : below(40));
        if (m->flags & RNIC_MR_F_PHYS && below(2)) {
            memset(&m->pages, 0, sizeof(m->pages));
        }
        break;
    }
    case RNIC_CMD_ALLOC_MR:
        c->u.alloc_mr.stag = RNIC_STAG(below(20), rnd());
        c->u.alloc_mr.pdn = below(5);
        c->u.alloc_mr.max_pages = below(10) ? below(8) : rnd();
        break;
    case RNIC_CMD_DEREG_MR:
        c->u.obj.id = RNIC_STAG(below(20), rnd());
        break;
    case RNIC_CMD_CREATE_PD:
        c->u.create_pd.pdn = below(5);
        c->u.create_pd.uctx = below(4);
        break;
    case RNIC_CMD_ALLOC_UCTX:
        c->u.alloc_uctx.uctx = below(4);
        break;
    case RNIC_CMD_DESTROY_EQ:
        c->u.obj.id = below(4);
        break;
    default:
        c->u.obj.id = below(NOBJ);
        break;
    }
    /* Sometimes one random byte of the body is junk. */
    if (!below(20)) {
        c->u.raw[below(sizeof(c->u.raw))] = (uint8_t)rnd();
    }
}

/* Drive the data-path entry points the iWARP layer uses. */
static void data_path(struct harness *h)
{
    struct rnic_dev *d = &h->dev;
    struct rnic_qp *qp = rnic_qp_get(d, below(NOBJ));
    struct rnic_sq_wqe w;
    struct rnic_sgl sgl;
    struct rnic_cqe cqe;
    uint8_t buf[3 * RNIC_PAGE_SIZE];
    uint64_t wr_id;
    uint16_t slot;
    unsigned sts;

    switch (below(6)) {
    case 0:
        if (qp && qp->sq_done != qp->sq.pidx) {
            sts = rnic_sq_fetch(d, qp, qp->sq_done, &w, &sgl);
            if (!sts && (w.hdr.opcode == RNIC_WR_REG_MR ||
                         w.hdr.opcode == RNIC_WR_LOCAL_INV)) {
                sts = rnic_sq_local_wr(d, qp, &w);
            } else if (!sts && sgl.total <= sizeof(buf)) {
                sts = rnic_sgl_read(d, qp->pdn, &sgl, 0, buf,
                                    (size_t)sgl.total) ?
                      RNIC_WC_LOC_PROT_ERR : 0;
            }
            qp->sq.cidx = qp->sq_done + 1;
            rnic_sq_complete(d, qp, qp->sq_done, &w, sts,
                             (uint32_t)sgl.total);
        }
        break;
    case 1:
        if (qp && !rnic_rq_take(d, qp, &wr_id, &sgl, &slot, &sts) && !sts &&
            sgl.total) {
            rnic_sgl_write(d, qp->pdn, &sgl, below((uint32_t)sgl.total),
                           buf, below(sizeof(buf)));
        }
        break;
    case 2:
        memset(&cqe, 0, sizeof(cqe));
        cqe.status = (uint8_t)below(3);
        cqe.flags = (uint8_t)below(8);
        rnic_cq_post(d, below(NOBJ), &cqe);
        break;
    case 3:
        rnic_mr_write(d, RNIC_STAG(below(20), rnd()), below(5), below(16),
                      below(2) ? pool + rnd() % (POOL_PAGES * 4096)
                               : (uint64_t)rnd() << 20 | rnd(),
                      buf, below(sizeof(buf)));
        break;
    case 4:
        rnic_mr_read(d, RNIC_STAG(below(20), rnd()), below(5), 0,
                     pool + rnd() % (POOL_PAGES * 4096), buf,
                     below(sizeof(buf)));
        rnic_mr_invalidate(d, RNIC_STAG(below(20), rnd()), below(5));
        break;
    default:
        if (qp && !below(4)) {
            rnic_qp_to_error(d, qp, below(2) ? RNIC_ASYNC_QP_FATAL : 0);
        }
        break;
    }
}

static void doorbell(struct harness *h)
{
    static const uint32_t offs[] = {
        RNIC_DB_SQ, RNIC_DB_RQ, RNIC_DB_SRQ, RNIC_DB_CQ,
    };
    struct rnic_dev *d = &h->dev;
    uint32_t off = offs[below(4)], obj = below(NOBJ), idx = rnd();
    struct rnic_qp *qp = rnic_qp_get(d, obj);

    if (below(4)) {
        /* Mostly plausible: a few entries past the current producer. */
        if (qp && off == RNIC_DB_SQ) {
            idx = qp->sq.pidx + below(6);
        } else if (qp && off == RNIC_DB_RQ) {
            idx = qp->rq.pidx + below(6);
        } else if (off == RNIC_DB_CQ && obj < d->cfg.max_cq) {
            idx = d->rdma->cq[obj].pidx - below(4);
        } else {
            idx = below(40);
        }
    }
    rnic_dev_doorbell(d, below(6) ? 0 : below(5), off,
                      RNIC_DB_VAL(obj, rnd() & 0x03000000u, idx));
}

/* The tables must agree with themselves after every step. */
static void check_tables(struct harness *h)
{
    struct rnic_dev *d = &h->dev;
    struct rnic_rdma *r = d->rdma;
    uint32_t pd_users[8] = { 0 }, uctx_users[8] = { 0 };
    uint32_t cq_users[16] = { 0 }, srq_users[8] = { 0 }, eq_users[64] = { 0 };
    uint32_t i;

    for (i = 0; i < d->cfg.max_qp; i++) {
        struct rnic_qp *qp = &r->qp[i];

        if (!qp->live) {
            continue;
        }
        CHECK(r->cq[qp->send_cqn].live && r->cq[qp->send_cqn].uctx == qp->uctx);
        CHECK(r->cq[qp->recv_cqn].live && r->cq[qp->recv_cqn].uctx == qp->uctx);
        CHECK_EQ(d->pd_owner[qp->pdn], qp->uctx + 1);
        CHECK(qp->sq.pidx - qp->sq_done <= qp->sq.ring.depth);
        cq_users[qp->send_cqn]++;
        cq_users[qp->recv_cqn]++;
        if (qp->srqn != RNIC_NO_SRQ) {
            CHECK(r->srq[qp->srqn].live && r->srq[qp->srqn].pdn == qp->pdn);
            srq_users[qp->srqn]++;
        } else {
            CHECK(qp->rq.pidx - qp->rq.cidx <= qp->rq.ring.depth);
        }
        pd_users[qp->pdn]++;
        uctx_users[qp->uctx]++;
    }
    for (i = 0; i < d->cfg.max_srq; i++) {
        if (r->srq[i].live) {
            CHECK_EQ(r->srq[i].users, srq_users[i]);
            CHECK_EQ(d->pd_owner[r->srq[i].pdn], r->srq[i].uctx + 1);
            pd_users[r->srq[i].pdn]++;
            uctx_users[r->srq[i].uctx]++;
        }
    }
    for (i = 0; i < d->cfg.max_cq; i++) {
        struct rnic_cq *cq = &r->cq[i];

        if (cq->live) {
            CHECK_EQ(cq->users, cq_users[i]);
            CHECK(d->eq[cq->eqn].live);
            CHECK(cq->pidx - cq->cidx <= cq->ring.depth);
            eq_users[cq->eqn]++;
            uctx_users[cq->uctx]++;
        }
    }
    for (i = 0; i < d->cfg.max_mr; i++) {
        struct rnic_mr *mr = &r->mr[i];

        if (mr->state != RNIC_MR_FREE) {
            CHECK_EQ(d->pd_owner[mr->pdn], mr->uctx + 1);
            CHECK(!mr->phys || mr->uctx == 0);
            CHECK(mr->npages <= (mr->fast_reg ? mr->max_pages : mr->npages));
            pd_users[mr->pdn]++;
            uctx_users[mr->uctx]++;
        }
    }
    for (i = 0; i < d->cfg.max_pd; i++) {
        CHECK_EQ(r->pd_users[i], pd_users[i]);
    }
    for (i = 0; i <= d->cfg.max_uctx; i++) {
        CHECK_EQ(r->uctx_users[i], uctx_users[i]);
    }
    for (i = 1; i <= d->cfg.max_eq; i++) {
        CHECK_EQ(d->eq[i].users, eq_users[i]);
    }
}

static void setup(struct harness *h, struct t_eq *aeq, struct t_eq *ceq)
{
    h->alloc_next = 0x10000;
    CHECK(h_enable(h, 5, 5));
    aeq->ring = h_create_eq(h, T_ASYNC_EQ, 6, RNIC_EQ_F_ASYNC);
    aeq->cons = 0;
    ceq->ring = h_create_eq(h, T_COMP_EQ, 6, 0);
    ceq->cons = 0;
    t_alloc_uctx(h, 1);
    t_alloc_uctx(h, 2);
    t_create_pd(h, 0, 0);
    t_create_pd(h, 1, 0);
    t_create_pd(h, 2, 1);
    t_create_pd(h, 3, 2);
    pool = h_alloc(h, POOL_PAGES);
    lists = h_alloc(h, LIST_PAGES);
}

int main(void)
{
    struct rnic_dev_config cfg;
    struct t_eq aeq = { .eqn = T_ASYNC_EQ, .depth = 64 };
    struct t_eq ceq = { .eqn = T_COMP_EQ, .depth = 64 };
    struct harness *h;
    unsigned iter, ok = 0, cmds = 0, resets = 0, op_ok[256] = { 0 };

    rnic_dev_config_default(&cfg);
    cfg.max_qp = 8;
    cfg.max_cq = 8;
    cfg.max_mr = 16;
    cfg.max_srq = 4;
    cfg.max_pd = 4;
    cfg.max_uctx = 3;
    cfg.max_qp_wr = 64;
    cfg.max_cqe = 128;
    cfg.max_srq_wr = 64;
    h = h_new(&cfg);
    setup(h, &aeq, &ceq);
    for (iter = 0; iter < 60000; iter++) {
        struct rnic_admin_cmd c;

        switch (below(10)) {
        case 0: case 1: case 2:
            rnd_cmd(h, &c);
            cmds++;
            if (h_cmd(h, &c) == RNIC_STS_OK) {
                ok++;
                op_ok[c.hdr.opcode]++;
            }
            break;
        case 3: case 4:
            doorbell(h);
            if (below(2)) {
                h_run(h);
            }
            break;
        case 5: case 6: case 7:
            data_path(h);
            break;
        case 8: {
            /* Scribble over rings and WQEs. */
            uint64_t a = pool + rnd() % (POOL_PAGES * RNIC_PAGE_SIZE - 16);
            uint32_t v = rnd();

            memcpy(h->mem + a, &v, 4);
            if (below(4)) {
                h->mem[a + 8] = (uint8_t)below(12);     /* an opcode */
            }
            break;
        }
        default:
            t_drain_eq(h, &aeq, 0);
            t_drain_eq(h, &ceq, 0);
            if (!below(300)) {
                rnic_dev_reg_write(&h->dev, RNIC_REG_DEV_CTRL,
                                   RNIC_CTRL_RESET);
                h_run(h);
                resets++;
                setup(h, &aeq, &ceq);
            }
            break;
        }
        check_tables(h);
        if (test_failures) {
            fprintf(stderr, "stopped at iteration %u\n", iter);
            break;
        }
    }
    printf("test-dev-rdma-hostile: %u commands (%u OK), %u resets, "
           "%u guest errors\n", cmds, ok, resets, h->guest_errors);
    printf("  created: %u CQs, %u SRQs, %u QPs, %u MRs, %u fast-reg MRs\n",
           op_ok[RNIC_CMD_CREATE_CQ], op_ok[RNIC_CMD_CREATE_SRQ],
           op_ok[RNIC_CMD_CREATE_QP], op_ok[RNIC_CMD_REG_MR],
           op_ok[RNIC_CMD_ALLOC_MR]);
    /* The generator must reach the valid paths, not only the refusals. */
    CHECK(op_ok[RNIC_CMD_CREATE_CQ] > 20 && op_ok[RNIC_CMD_CREATE_QP] > 20 &&
          op_ok[RNIC_CMD_REG_MR] > 20 && op_ok[RNIC_CMD_ALLOC_MR] > 20);
    h_free(h);
    return t_report("test-dev-rdma-hostile");
}
