/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * RDMA resources against a randomized hostile guest, only through the
 * device's entry points (admin queue, doorbells, frames): near-valid and
 * junk commands, page lists into scribbled memory, doorbells from every
 * page, WQEs flushed from scribbled rings, resets.  After every step the
 * object tables must be consistent (reference counts, ownership, ring
 * indices, MR page counts), and a doorbell from a page that does not own
 * its object must change nothing.  Then the data path over a real
 * connection (test_data_path).  ASan/UBSan and the bounds-checked DMA
 * catch everything else.
 */
#include <string.h>
#include "test-iw-pair.h"

#define POOL_PAGES  256
#define LIST_PAGES  8
#define NOBJ        10      /* object numbers tried: a few beyond the max */

static uint64_t rng = 0x2545f4914f6cdd1dull;
static uint64_t pool, lists;
static unsigned foreign_db;         /* doorbells from a page not the owner's */

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
    struct rne_rdma *r = h->dev.rdma;
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
    struct rne_rdma *r = h->dev.rdma;
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
    return rne_ring_pages_needed(1u << (log & 15), entry);
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

/*
 * The data path without a connection, through the guest's entry points:
 * SQ/RQ doorbells from the owner's page a few WQEs ahead (the WQEs are
 * whatever the scribbled pool holds), CQ doorbells with arms, and QPs
 * moved to ERROR by MODIFY_QP, which flushes those WQEs into the CQs.
 */
static void data_path(struct harness *h)
{
    struct rne_rdma *r = h->dev.rdma;
    uint32_t n = below(NOBJ);
    struct rne_qp *qp = rne_qp_get(&h->dev, n);
    struct rnic_admin_cmd c;

    switch (below(4)) {
    case 0:
        if (qp) {
            rne_dev_doorbell(&h->dev, qp->uctx, RNIC_DB_SQ,
                             RNIC_DB_VAL(n, 0, qp->sq.pidx + 1 + below(4)));
        }
        break;
    case 1:
        if (qp && qp->srqn == RNIC_NO_SRQ) {
            rne_dev_doorbell(&h->dev, qp->uctx, RNIC_DB_RQ,
                             RNIC_DB_VAL(n, 0, qp->rq.pidx + 1 + below(4)));
        }
        break;
    case 2:
        if (n < h->dev.cfg.max_cq && r->cq[n].live) {
            rne_dev_doorbell(&h->dev, r->cq[n].uctx, RNIC_DB_CQ,
                             RNIC_DB_VAL(n, below(2) ? RNIC_DB_ARM :
                                         RNIC_DB_ARM_SOLICITED,
                                         r->cq[n].pidx - below(3)));
        }
        break;
    default:
        c = t_mk(RNIC_CMD_MODIFY_QP);
        c.u.modify_qp.qpn = n;
        c.u.modify_qp.attr_mask = RNIC_QP_ATTR_STATE;
        c.u.modify_qp.state = RNIC_QPS_ERROR;
        h_cmd(h, &c);
        break;
    }
    h_run(h);
}

/* What a doorbell may move: every index of every object. */
struct db_view {
    uint32_t sq[NOBJ], rq[NOBJ], srq[NOBJ], cq[NOBJ];
    bool arm[NOBJ];
};

static void db_view(struct harness *h, struct db_view *v)
{
    struct rne_rdma *r = h->dev.rdma;
    uint32_t i;

    memset(v, 0, sizeof(*v));
    for (i = 0; i < NOBJ; i++) {
        if (i < h->dev.cfg.max_qp && r->qp[i].live) {
            v->sq[i] = r->qp[i].sq.pidx;
            v->rq[i] = r->qp[i].rq.pidx;
        }
        if (i < h->dev.cfg.max_srq && r->srq[i].live) {
            v->srq[i] = r->srq[i].wq.pidx;
        }
        if (i < h->dev.cfg.max_cq && r->cq[i].live) {
            v->cq[i] = r->cq[i].cidx;
            v->arm[i] = r->cq[i].arm || r->cq[i].arm_solicited;
        }
    }
}

static void doorbell(struct harness *h)
{
    static const uint32_t offs[] = {
        RNIC_DB_SQ, RNIC_DB_RQ, RNIC_DB_SRQ, RNIC_DB_CQ,
    };
    struct rne_dev *d = &h->dev;
    uint32_t off = offs[below(4)], obj = below(NOBJ), idx = rnd(), page;
    struct rne_qp *qp = rne_qp_get(d, obj);
    struct db_view before, after;
    bool owned;

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
    page = below(6) ? 0 : below(5);
    owned = (off == RNIC_DB_SQ || off == RNIC_DB_RQ) ? qp && qp->uctx == page :
            off == RNIC_DB_SRQ ? obj < d->cfg.max_srq &&
                                 d->rdma->srq[obj].live &&
                                 d->rdma->srq[obj].uctx == page :
            obj < d->cfg.max_cq && d->rdma->cq[obj].live &&
            d->rdma->cq[obj].uctx == page;
    if (owned) {
        rne_dev_doorbell(d, page, off,
                         RNIC_DB_VAL(obj, rnd() & 0x03000000u, idx));
        return;
    }
    /* Not the object's page: nothing may move, not even its neighbours. */
    h_run(h);
    db_view(h, &before);
    rne_dev_doorbell(d, page, off, RNIC_DB_VAL(obj, rnd() & 0x03000000u,
                                               idx));
    h_run(h);
    db_view(h, &after);
    CHECK(!memcmp(&before, &after, sizeof(before)));
    foreign_db++;
}

/* The tables must agree with themselves after every step. */
static void check_tables(struct harness *h)
{
    struct rne_dev *d = &h->dev;
    struct rne_rdma *r = d->rdma;
    uint32_t pd_users[8] = { 0 }, uctx_users[8] = { 0 };
    uint32_t cq_users[16] = { 0 }, srq_users[8] = { 0 }, eq_users[64] = { 0 };
    uint64_t pbl_pages = 0;
    uint32_t i;

    for (i = 0; i < d->cfg.max_qp; i++) {
        struct rne_qp *qp = &r->qp[i];

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
        pbl_pages += qp->sq.ring.npages + qp->rq.ring.npages;
        pd_users[qp->pdn]++;
        uctx_users[qp->uctx]++;
    }
    for (i = 0; i < d->cfg.max_srq; i++) {
        if (r->srq[i].live) {
            CHECK_EQ(r->srq[i].users, srq_users[i]);
            CHECK_EQ(d->pd_owner[r->srq[i].pdn], r->srq[i].uctx + 1);
            pbl_pages += r->srq[i].wq.ring.npages;
            pd_users[r->srq[i].pdn]++;
            uctx_users[r->srq[i].uctx]++;
        }
    }
    for (i = 0; i < d->cfg.max_cq; i++) {
        struct rne_cq *cq = &r->cq[i];

        if (cq->live) {
            CHECK_EQ(cq->users, cq_users[i]);
            CHECK(d->eq[cq->eqn].live);
            CHECK(cq->pidx - cq->cidx <= cq->ring.depth);
            pbl_pages += cq->ring.npages;
            eq_users[cq->eqn]++;
            uctx_users[cq->uctx]++;
        }
    }
    for (i = 0; i < d->cfg.max_mr; i++) {
        struct rne_mr *mr = &r->mr[i];

        if (mr->state != RNE_MR_FREE) {
            CHECK_EQ(d->pd_owner[mr->pdn], mr->uctx + 1);
            CHECK(!mr->phys || mr->uctx == 0);
            if (mr->fast_reg) {
                CHECK(mr->npages <= mr->max_pages);
            } else if (mr->phys) {
                CHECK_EQ(mr->npages, 0);
            } else if (!mr->length) {
                CHECK_EQ(mr->npages, 0);
            } else {
                /* exactly the pages covering [iova, iova + length) */
                uint64_t first = mr->iova >> mr->page_shift;
                uint64_t last = (mr->iova + mr->length - 1) >> mr->page_shift;

                CHECK(mr->page_shift >= RNIC_PAGE_SHIFT);
                CHECK_EQ(mr->npages, last - first + 1);
            }
            pbl_pages += mr->fast_reg ? mr->max_pages : mr->npages;
            pd_users[mr->pdn]++;
            uctx_users[mr->uctx]++;
        }
    }
    /* the page-list budget counts exactly what the MRs and rings hold */
    CHECK_EQ(r->pbl_pages, pbl_pages);
    CHECK(pbl_pages <= d->cfg.max_mr_pages);
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

/*
 * The data path through a real connection: A's guest posts near-valid and
 * bad WQEs (Write, Read, Send, fast-register, local invalidate, junk) and
 * rings its SQ doorbell; the frames go to B, whose guest keeps receives
 * posted.  A valid operation must complete with its bytes in place; a bad
 * one must not succeed; and nothing may land outside the memory it was
 * allowed to reach: guard pages around every region and B's Read-only MR
 * keep their bytes.  A QP that went to ERROR is reset and reconnected.
 */
#define DP_OPS      300
#define M1_PAGES    4       /* B: remote Write and Read */
#define M2_PAGES    2       /* B: remote Read only */
#define M3_PAGES    2       /* B: receive buffers, local only */
#define LA_PAGES    4       /* A: sources and Read targets */
#define RECV_LEN    1024
#define GUARD       0xa5

struct dp {
    struct pair *p;
    uint64_t g[4], m1, m2, m3, ga[2], la;
    uint64_t mark_a, mark_b, recv_slot, now;
    unsigned reconnects, ok, refused;
};

static uint64_t dp_region(struct harness *h, uint32_t pages, uint8_t fill)
{
    uint64_t a = h_alloc(h, pages);

    memset(h->mem + a, fill, (size_t)pages * RNIC_PAGE_SIZE);
    return a;
}

static void dp_post_recv(struct dp *s)
{
    struct rnic_rq_wqe r;

    memset(&r, 0, sizeof(r));
    r.wr_id = 1000 + s->recv_slot;
    r.num_sge = 1;
    t_sge(&r.sge[0], s->m3 + (s->recv_slot % (M3_PAGES * 4)) * RECV_LEN,
          RECV_LEN, 0x500);
    s->recv_slot++;
    t_post_recv(s->p->b.h, &s->p->b.qp, &r);
    p_ring_rq(&s->p->b);
}

/* MRs, the connection and B's receives, on freshly enabled devices. */
static bool dp_connect(struct dp *s)
{
    struct pair *p = s->p;
    unsigned i;

    CHECK_EQ(t_reg_mr(p->a.h, 0x200, 0, RNIC_ACCESS_LOCAL_WRITE, s->la,
                      LA_PAGES * RNIC_PAGE_SIZE, s->la), RNIC_STS_OK);
    CHECK_EQ(t_reg_mr(p->b.h, 0x300, 0, RNIC_ACCESS_LOCAL_WRITE |
                      RNIC_ACCESS_REMOTE_WRITE | RNIC_ACCESS_REMOTE_READ,
                      s->m1, M1_PAGES * RNIC_PAGE_SIZE, s->m1), RNIC_STS_OK);
    CHECK_EQ(t_reg_mr(p->b.h, 0x400, 0, RNIC_ACCESS_REMOTE_READ, s->m2,
                      M2_PAGES * RNIC_PAGE_SIZE, s->m2), RNIC_STS_OK);
    CHECK_EQ(t_reg_mr(p->b.h, 0x500, 0, RNIC_ACCESS_LOCAL_WRITE, s->m3,
                      M3_PAGES * RNIC_PAGE_SIZE, s->m3), RNIC_STS_OK);
    if (!p_connect_pair(p, 2, RNIC_MPA_CRC)) {
        return false;
    }
    for (i = 0; i < 8; i++) {
        dp_post_recv(s);
    }
    return true;
}

static void dp_reset(struct dp *s)
{
    struct p_dev *d[2] = { &s->p->a, &s->p->b };
    uint64_t mark[2] = { s->mark_a, s->mark_b };
    unsigned i;

    for (i = 0; i < 2; i++) {
        rne_dev_reg_write(&d[i]->h->dev, RNIC_REG_DEV_CTRL, RNIC_CTRL_RESET);
        h_run(d[i]->h);
        d[i]->h->alloc_next = mark[i];
        p_dev_enable(d[i]);
    }
    p_settle(s->p, 100000000ull);   /* frames for the old connection */
    s->recv_slot = 0;
    s->reconnects++;
    CHECK(dp_connect(s));
}

static bool untouched(const uint8_t *m, size_t n, uint8_t fill)
{
    size_t i;

    for (i = 0; i < n; i++) {
        if (m[i] != fill) {
            return false;
        }
    }
    return true;
}

/* The regions nobody may write still hold their fill. */
static void dp_check_isolation(struct dp *s)
{
    const uint8_t *a = s->p->a.h->mem, *b = s->p->b.h->mem;
    unsigned i;

    for (i = 0; i < 4; i++) {
        CHECK(untouched(b + s->g[i], RNIC_PAGE_SIZE, GUARD));
    }
    CHECK(untouched(b + s->m2, M2_PAGES * RNIC_PAGE_SIZE, 0x5b));
    CHECK(untouched(a + s->ga[0], RNIC_PAGE_SIZE, GUARD));
    CHECK(untouched(a + s->ga[1], RNIC_PAGE_SIZE, GUARD));
}

/*
 * One operation from A; returns true if it was built valid (must succeed).
 * *src, *dst, *len: the bytes that must then match (len 0: none).
 */
static bool dp_wqe(struct dp *s, struct rnic_sq_wqe *w, const uint8_t **src,
                   const uint8_t **dst, uint32_t *len)
{
    const uint8_t *a = s->p->a.h->mem, *b = s->p->b.h->mem;
    uint32_t n = 1 + below(3 * RNIC_PAGE_SIZE), lo = below(RNIC_PAGE_SIZE);
    uint32_t ro = below(RNIC_PAGE_SIZE), lkey = 0x200, rkey = 0x300;
    uint64_t rbase = s->m1;
    bool valid = below(2);
    unsigned op = below(8);

    memset(w, 0, sizeof(*w));
    w->hdr.wr_id = rnd();
    w->hdr.flags = RNIC_WQE_SIGNALED;
    w->hdr.count = 1;
    *len = 0;
    if (op >= 6) {
        /* Fast-register, local invalidate or junk: never placed remotely. */
        uint8_t *raw = (uint8_t *)w;
        size_t i;

        for (i = 8; i < sizeof(*w); i++) {
            raw[i] = (uint8_t)rnd();
        }
        w->hdr.opcode = below(2) ? (below(2) ? RNIC_WR_REG_MR :
                                    RNIC_WR_LOCAL_INV) : (uint8_t)rnd();
        w->hdr.flags = (uint8_t)(rnd() | RNIC_WQE_SIGNALED);
        return false;
    }
    if (op == 4 && below(2)) {
        rbase = s->m2;              /* Read-only MR: Reads only */
        rkey = 0x400;
        n = 1 + below(M2_PAGES * RNIC_PAGE_SIZE - ro);
    }
    if (!valid) {
        switch (below(5)) {
        case 0:
            rkey ^= 0x01 << (8 * below(2));         /* wrong key or index */
            break;
        case 1:
            ro = M1_PAGES * RNIC_PAGE_SIZE - n / 2; /* past M1's end */
            rbase = s->m1;
            rkey = 0x300;
            break;
        case 2:
            lkey = 0x300;           /* B's STag on A: not A's */
            break;
        case 3:
            lo = LA_PAGES * RNIC_PAGE_SIZE - n / 2; /* past LA's end */
            break;
        default:
            rbase = s->m2;          /* a Write/Send into Read-only M2 */
            rkey = 0x400;
            if (op == 5) {
                lkey ^= 0x100;
            }
            op = op == 5 ? 5 : 0;
            break;
        }
    }
    t_sge(&w->data.sge[0], s->la + lo, n, lkey);
    w->op.rdma.remote_addr = rbase + ro;
    w->op.rdma.rkey = rkey;
    if (op <= 2) {
        w->hdr.opcode = RNIC_WR_WRITE;
        *src = a + s->la + lo;
        *dst = b + rbase + ro;
    } else if (op <= 4) {
        w->hdr.opcode = RNIC_WR_READ;
        *src = b + rbase + ro;
        *dst = a + s->la + lo;
    } else {
        n = n % RECV_LEN + 1;
        w->data.sge[0].length = n;
        if (!valid && lkey == 0x200) {
            w->data.sge[0].length = RECV_LEN + 1 + below(100);  /* too long */
        }
        w->hdr.opcode = RNIC_WR_SEND;
        *src = a + s->la + lo;
        *dst = b + s->m3 + ((s->recv_slot - 8) % (M3_PAGES * 4)) * RECV_LEN;
    }
    *len = n;
    return valid;
}

static void test_data_path(void)
{
    struct dp s;
    struct p_dev *a, *b;
    unsigned i, k;

    memset(&s, 0, sizeof(s));
    s.p = p_new();
    a = &s.p->a;
    b = &s.p->b;
    for (k = 0; k < 4; k++) {
        s.g[k] = dp_region(b->h, 1, GUARD);
        if (k == 0) {
            s.m1 = dp_region(b->h, M1_PAGES, 0x11);
        } else if (k == 1) {
            s.m2 = dp_region(b->h, M2_PAGES, 0x5b);
        } else if (k == 2) {
            s.m3 = dp_region(b->h, M3_PAGES, 0x33);
        }
    }
    s.ga[0] = dp_region(a->h, 1, GUARD);
    s.la = dp_region(a->h, LA_PAGES, 0);
    s.ga[1] = dp_region(a->h, 1, GUARD);
    s.mark_a = a->h->alloc_next;
    s.mark_b = b->h->alloc_next;
    if (!dp_connect(&s)) {
        p_free(s.p);
        return;
    }
    for (i = 0; i < DP_OPS && !test_failures; i++) {
        struct rnic_sq_wqe w;
        struct rnic_cqe cqe;
        const uint8_t *src = NULL, *dst = NULL;
        uint32_t len;
        bool valid, done = false;

        for (k = 0; k < LA_PAGES * RNIC_PAGE_SIZE; k++) {
            a->h->mem[s.la + k] = (uint8_t)rnd();
        }
        valid = dp_wqe(&s, &w, &src, &dst, &len);
        t_post_send(a->h, &a->qp, &w);
        p_ring_sq(a);
        p_settle(s.p, 2000000000ull);
        while (t_poll_cq(a->h, &a->cq, &cqe)) {
            if (cqe.wr_id != w.hdr.wr_id) {
                continue;       /* a flush of an earlier one */
            }
            done = true;
            if (valid) {
                CHECK_EQ(cqe.status, RNIC_WC_SUCCESS);
            }
            s.ok += cqe.status == RNIC_WC_SUCCESS;
            s.refused += cqe.status != RNIC_WC_SUCCESS;
        }
        if (valid) {
            CHECK(done);
            CHECK(len && !memcmp(src, dst, len));
        }
        while (t_poll_cq(b->h, &b->cq, &cqe)) {
            if (cqe.opcode == RNIC_WC_RECV && cqe.status == RNIC_WC_SUCCESS) {
                dp_post_recv(&s);
            }
        }
        dp_check_isolation(&s);
        if (test_failures) {
            fprintf(stderr, "data path: stopped at operation %u (opcode %u, "
                    "%s)\n", i, w.hdr.opcode, valid ? "valid" : "bad");
        }
        if (p_qp_state(a, P_QP) != RNIC_QPS_RTS ||
            p_qp_state(b, P_QP) != RNIC_QPS_RTS) {
            dp_reset(&s);
        }
    }
    printf("  data path: %u operations, %u succeeded, %u refused, "
           "%u reconnects\n", i, s.ok, s.refused, s.reconnects);
    CHECK(s.ok > DP_OPS / 4 && s.refused > DP_OPS / 10);
    p_free(s.p);
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
    struct rne_dev_config cfg;
    struct t_eq aeq = { .eqn = T_ASYNC_EQ, .depth = 64 };
    struct t_eq ceq = { .eqn = T_COMP_EQ, .depth = 64 };
    struct harness *h;
    unsigned iter, ok = 0, cmds = 0, resets = 0, op_ok[256] = { 0 };

    rne_dev_config_default(&cfg);
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
                rne_dev_reg_write(&h->dev, RNIC_REG_DEV_CTRL,
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
           "%u guest errors, %u doorbells from foreign pages\n", cmds, ok,
           resets, h->guest_errors, foreign_db);
    printf("  created: %u CQs, %u SRQs, %u QPs, %u MRs, %u fast-reg MRs\n",
           op_ok[RNIC_CMD_CREATE_CQ], op_ok[RNIC_CMD_CREATE_SRQ],
           op_ok[RNIC_CMD_CREATE_QP], op_ok[RNIC_CMD_REG_MR],
           op_ok[RNIC_CMD_ALLOC_MR]);
    /* The generator must reach the valid paths, not only the refusals. */
    CHECK(op_ok[RNIC_CMD_CREATE_CQ] > 20 && op_ok[RNIC_CMD_CREATE_QP] > 20 &&
          op_ok[RNIC_CMD_REG_MR] > 20 && op_ok[RNIC_CMD_ALLOC_MR] > 20);
    CHECK(foreign_db > 1000);
    h_free(h);
    if (!test_failures) {
        test_data_path();
    }
    return t_report("test-dev-rdma-hostile");
}
