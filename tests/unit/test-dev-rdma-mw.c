/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Memory windows in the RDMA resources: ALLOC_MW / DEALLOC_MW, BIND_MW
 * WQEs and what they refuse, the checks a peer's access through a window
 * gets (range, rights, PD, the QP of a type 2 window, the MR behind it),
 * invalidation (type 2 by LOCAL_INV or the QP's peer, type 1 by a
 * zero-length bind only), an MR held while windows are bound to it
 * (DEREG_MR and REREG_MR BUSY, no invalidation), DEALLOC_MW of a bound
 * window and DESTROY_QP ending its type 2 windows.  The iWARP kick is not
 * used: the test calls what the data path calls.
 */
#include <string.h>
#include "test-rdma-helpers.h"

#define MR_BIND  RNIC_STAG(1, 0x11)  /* PD 0, local write + MW_BIND */
#define MR_PLAIN RNIC_STAG(2, 0x22)  /* PD 0, local write, no MW_BIND */
#define MR_RO    RNIC_STAG(3, 0x33)  /* PD 0, MW_BIND, no local write */
#define MR_PD1   RNIC_STAG(4, 0x44)  /* PD 1, MW_BIND */
#define MW1      RNIC_STAG(10, 0)    /* type 1, PD 0 */
#define MW2      RNIC_STAG(11, 0)    /* type 2, PD 0 */
#define QPN      5
#define QPN2     6

#define RW (RNIC_ACCESS_REMOTE_READ | RNIC_ACCESS_REMOTE_WRITE)

struct env {
    struct harness *h;
    struct t_eq aeq, ceq;
    struct t_cq cq;
    struct t_qp qp, qp2;
    uint64_t buf;               /* 4 pages under MR_BIND (iova = address) */
};

static struct rne_qp *QP(struct env *e, uint32_t qpn)
{
    return rne_qp_get(&e->h->dev, qpn);
}

static unsigned alloc_mw(struct env *e, uint32_t stag, uint32_t pdn,
                         uint8_t type)
{
    struct rnic_admin_cmd c = t_mk(RNIC_CMD_ALLOC_MW);

    c.u.alloc_mw.stag = stag;
    c.u.alloc_mw.pdn = pdn;
    c.u.alloc_mw.type = type;
    return h_cmd(e->h, &c);
}

static void env_init(struct env *e)
{
    uint32_t lw = RNIC_ACCESS_LOCAL_WRITE | RNIC_ACCESS_MW_BIND;

    e->h = t_setup(&e->aeq, &e->ceq);
    CHECK_EQ(e->h->dev.cfg.max_mr > 11, true);
    CHECK(rne_dev_reg_read(&e->h->dev, RNIC_REG_FEATURES) & RNIC_FEAT_MW);
    CHECK_EQ(t_create_pd(e->h, 1, 0), RNIC_STS_OK);
    CHECK_EQ(t_create_cq(e->h, &e->cq, 0, 0, 6), RNIC_STS_OK);
    CHECK_EQ(t_create_qp(e->h, &e->qp, QPN, 0, 0, 0, 4, 4), RNIC_STS_OK);
    CHECK_EQ(t_create_qp(e->h, &e->qp2, QPN2, 0, 0, 0, 4, 4), RNIC_STS_OK);
    e->buf = h_alloc(e->h, 4);
    CHECK_EQ(t_reg_mr(e->h, MR_BIND, 0, lw, e->buf, 4 * RNIC_PAGE_SIZE,
                      e->buf), RNIC_STS_OK);
    CHECK_EQ(t_reg_mr(e->h, MR_PLAIN, 0, RNIC_ACCESS_LOCAL_WRITE, e->buf,
                      RNIC_PAGE_SIZE, e->buf), RNIC_STS_OK);
    CHECK_EQ(t_reg_mr(e->h, MR_RO, 0, RNIC_ACCESS_MW_BIND, e->buf,
                      RNIC_PAGE_SIZE, e->buf), RNIC_STS_OK);
    CHECK_EQ(t_reg_mr(e->h, MR_PD1, 1, lw, e->buf, RNIC_PAGE_SIZE, e->buf),
             RNIC_STS_OK);
    CHECK_EQ(alloc_mw(e, MW1, 0, RNIC_MW_TYPE_1), RNIC_STS_OK);
    CHECK_EQ(alloc_mw(e, MW2, 0, RNIC_MW_TYPE_2), RNIC_STS_OK);
}

/* Post one local WQE on QP qpn, run it as the SQ would, complete it. */
static unsigned local_wr(struct env *e, struct t_qp *q,
                         const struct rnic_sq_wqe *w)
{
    struct rne_qp *qp = QP(e, q->qpn);
    uint32_t idx = q->sq_prod;
    struct rnic_sq_wqe got;
    struct rne_sgl sgl;
    unsigned sts;

    t_post_send(e->h, q, w);
    sts = rne_sq_fetch(&e->h->dev, qp, idx, &got, &sgl);
    if (sts == RNIC_WC_SUCCESS) {
        sts = rne_sq_local_wr(&e->h->dev, qp, &got);
    }
    rne_sq_complete(&e->h->dev, qp, idx, &got, sts, 0);
    return sts;
}

static unsigned bind(struct env *e, struct t_qp *q, uint32_t mw,
                     uint32_t mr, uint64_t va, uint64_t len, uint32_t access)
{
    struct rnic_sq_wqe w;
    struct rnic_cqe cqe;
    unsigned sts;

    memset(&w, 0, sizeof(w));
    w.hdr.opcode = RNIC_WR_BIND_MW;
    w.hdr.flags = RNIC_WQE_SIGNALED;
    w.hdr.wr_id = mw;
    w.op.bind_mw.mw_stag = mw;
    w.op.bind_mw.mr_stag = mr;
    w.op.bind_mw.va = va;
    w.op.bind_mw.length = len;
    w.op.bind_mw.access = access;
    sts = local_wr(e, q, &w);
    CHECK(t_poll_cq(e->h, &e->cq, &cqe));
    CHECK_EQ(cqe.opcode, RNIC_WC_BIND_MW);
    CHECK_EQ(cqe.status, sts);
    CHECK_EQ(cqe.wr_id, mw);
    return sts;
}

static unsigned local_inv(struct env *e, struct t_qp *q, uint32_t stag)
{
    struct rnic_sq_wqe w;
    struct rnic_cqe cqe;
    unsigned sts;

    memset(&w, 0, sizeof(w));
    w.hdr.opcode = RNIC_WR_LOCAL_INV;
    w.hdr.flags = RNIC_WQE_SIGNALED;
    w.hdr.ex = stag;
    sts = local_wr(e, q, &w);
    CHECK(t_poll_cq(e->h, &e->cq, &cqe));
    CHECK_EQ(cqe.opcode, RNIC_WC_LOCAL_INV);
    CHECK_EQ(cqe.status, sts);
    return sts;
}

static enum rne_mr_err remote(struct env *e, uint32_t qpn, uint32_t stag,
                              uint32_t access, uint64_t va, uint64_t len)
{
    return rne_mr_remote_check(&e->h->dev, stag, QP(e, qpn), access, va,
                               len);
}

static unsigned dereg(struct env *e, uint32_t stag)
{
    return t_cmd_obj(e->h, RNIC_CMD_DEREG_MR, stag);
}

static void test_alloc(void)
{
    struct env e;
    struct rnic_admin_cmd c;

    env_init(&e);
    CHECK_EQ(alloc_mw(&e, MW2, 0, RNIC_MW_TYPE_2), RNIC_STS_EXISTS);
    CHECK_EQ(alloc_mw(&e, MR_BIND, 0, RNIC_MW_TYPE_2), RNIC_STS_EXISTS);
    CHECK_EQ(alloc_mw(&e, RNIC_STAG(e.h->dev.cfg.max_mr, 0), 0,
                      RNIC_MW_TYPE_1), RNIC_STS_BAD_INDEX);
    CHECK_EQ(alloc_mw(&e, RNIC_STAG(12, 0), 9, RNIC_MW_TYPE_1),
             RNIC_STS_NOT_FOUND);
    CHECK_EQ(alloc_mw(&e, RNIC_STAG(12, 0), 0, 0), RNIC_STS_BAD_PARAM);
    CHECK_EQ(alloc_mw(&e, RNIC_STAG(12, 0), 0, 3), RNIC_STS_BAD_PARAM);
    c = t_mk(RNIC_CMD_ALLOC_MW);
    c.u.alloc_mw.stag = RNIC_STAG(12, 0);
    c.u.alloc_mw.type = RNIC_MW_TYPE_1;
    c.u.alloc_mw.rsvd2 = 1;
    CHECK_EQ(h_cmd(e.h, &c), RNIC_STS_BAD_PARAM);
    /* Windows and MRs are freed by their own command. */
    CHECK_EQ(dereg(&e, MW1), RNIC_STS_BAD_PARAM);
    CHECK_EQ(t_cmd_obj(e.h, RNIC_CMD_DEALLOC_MW, MR_PLAIN),
             RNIC_STS_BAD_PARAM);
    CHECK_EQ(t_cmd_obj(e.h, RNIC_CMD_DEALLOC_MW, RNIC_STAG(12, 0)),
             RNIC_STS_NOT_FOUND);
    /* A window holds its PD; an unbound one is no lkey or rkey. */
    CHECK_EQ(t_create_pd(e.h, 3, 0), RNIC_STS_OK);
    CHECK_EQ(alloc_mw(&e, RNIC_STAG(12, 0), 3, RNIC_MW_TYPE_2), RNIC_STS_OK);
    CHECK_EQ(t_cmd_obj(e.h, RNIC_CMD_DESTROY_PD, 3), RNIC_STS_BUSY);
    CHECK_EQ(remote(&e, QPN, MW2, 0, e.buf, 1), RNE_MR_E_STAG);
    CHECK_EQ(t_cmd_obj(e.h, RNIC_CMD_DEALLOC_MW, RNIC_STAG(12, 7)),
             RNIC_STS_OK);
    CHECK_EQ(e.h->dev.rdma->mr[12].state, RNE_MR_FREE);
    CHECK_EQ(t_cmd_obj(e.h, RNIC_CMD_DESTROY_PD, 3), RNIC_STS_OK);
    h_free(e.h);
}

static void test_bind_rules(void)
{
    struct env e;
    uint64_t b;

    env_init(&e);
    b = e.buf;
    /* MR without MW_BIND, of another PD, wrong key, not an MR. */
    CHECK_EQ(bind(&e, &e.qp, RNIC_STAG(11, 1), MR_PLAIN, b, 16, RW),
             RNIC_WC_MW_BIND_ERR);
    CHECK_EQ(bind(&e, &e.qp, RNIC_STAG(11, 1), MR_PD1, b, 16, RW),
             RNIC_WC_MW_BIND_ERR);
    CHECK_EQ(bind(&e, &e.qp, RNIC_STAG(11, 1), RNIC_STAG(1, 0x12), b, 16,
                  RW), RNIC_WC_MW_BIND_ERR);
    CHECK_EQ(bind(&e, &e.qp, RNIC_STAG(11, 1), MW1, b, 16, RW),
             RNIC_WC_MW_BIND_ERR);
    /* Remote write into an MR its owner may not write. */
    CHECK_EQ(bind(&e, &e.qp, RNIC_STAG(11, 1), MR_RO, b, 16, RW),
             RNIC_WC_MW_BIND_ERR);
    CHECK_EQ(bind(&e, &e.qp, RNIC_STAG(11, 1), MR_RO, b, 16,
                  RNIC_ACCESS_REMOTE_READ), RNIC_WC_SUCCESS);
    CHECK_EQ(local_inv(&e, &e.qp, RNIC_STAG(11, 1)), RNIC_WC_SUCCESS);
    /* Outside the MR, wrapping, unknown or local rights. */
    CHECK_EQ(bind(&e, &e.qp, RNIC_STAG(11, 2), MR_BIND, b - 1, 16, RW),
             RNIC_WC_MW_BIND_ERR);
    CHECK_EQ(bind(&e, &e.qp, RNIC_STAG(11, 2), MR_BIND, b + 0x3ff0, 0x11,
                  RW), RNIC_WC_MW_BIND_ERR);
    CHECK_EQ(bind(&e, &e.qp, RNIC_STAG(11, 2), MR_BIND, b + 16, ~0ull, RW),
             RNIC_WC_MW_BIND_ERR);
    CHECK_EQ(bind(&e, &e.qp, RNIC_STAG(11, 2), MR_BIND, b, 16,
                  RNIC_ACCESS_LOCAL_WRITE), RNIC_WC_MW_BIND_ERR);
    CHECK_EQ(bind(&e, &e.qp, RNIC_STAG(11, 2), MR_BIND, b, 16,
                  RNIC_ACCESS_MW_BIND), RNIC_WC_MW_BIND_ERR);
    /* Type 2: never to nothing, never while bound. */
    CHECK_EQ(bind(&e, &e.qp, RNIC_STAG(11, 2), MR_BIND, b, 0, RW),
             RNIC_WC_MW_BIND_ERR);
    CHECK_EQ(bind(&e, &e.qp, RNIC_STAG(11, 2), MR_BIND, b, 16, RW),
             RNIC_WC_SUCCESS);
    CHECK_EQ(bind(&e, &e.qp, RNIC_STAG(11, 3), MR_BIND, b, 16, RW),
             RNIC_WC_MW_BIND_ERR);
    /* A window of another PD than the QP's. */
    CHECK_EQ(alloc_mw(&e, RNIC_STAG(12, 0), 1, RNIC_MW_TYPE_1), RNIC_STS_OK);
    CHECK_EQ(bind(&e, &e.qp, RNIC_STAG(12, 1), MR_PD1, b, 16, RW),
             RNIC_WC_MW_BIND_ERR);
    /* Reserved words, and the SQ shape: no SGEs. */
    {
        struct rnic_sq_wqe w;

        memset(&w, 0, sizeof(w));
        w.hdr.opcode = RNIC_WR_BIND_MW;
        w.op.bind_mw.mw_stag = RNIC_STAG(10, 1);
        w.op.bind_mw.mr_stag = MR_BIND;
        w.op.bind_mw.va = b;
        w.op.bind_mw.length = 16;
        w.op.bind_mw.rsvd[4] = 1;
        CHECK_EQ(local_wr(&e, &e.qp, &w), RNIC_WC_LOC_QP_OP_ERR);
        w.op.bind_mw.rsvd[4] = 0;
        w.hdr.count = 1;
        CHECK_EQ(local_wr(&e, &e.qp, &w), RNIC_WC_LOC_QP_OP_ERR);
    }
    h_free(e.h);
}

static void test_access(void)
{
    struct env e;
    uint64_t b, win;
    uint8_t data[64], back[64];
    unsigned i;

    env_init(&e);
    b = e.buf;
    win = b + 0x1800;
    for (i = 0; i < sizeof(data); i++) {
        data[i] = (uint8_t)(i * 5 + 3);
    }
    CHECK_EQ(bind(&e, &e.qp, RNIC_STAG(11, 0x5a), MR_BIND, win, 0x1000,
                  RNIC_ACCESS_REMOTE_WRITE), RNIC_WC_SUCCESS);
    /* In range, through the MR's pages: the bytes land at b + 0x1800. */
    CHECK_EQ(rne_mr_remote_write(&e.h->dev, RNIC_STAG(11, 0x5a), QP(&e, QPN),
                                 RNIC_ACCESS_REMOTE_WRITE, win + 0xfc0, data,
                                 64), RNE_MR_OK);
    CHECK(!memcmp(e.h->mem + win + 0xfc0, data, 64));
    /* Outside the window (inside the MR), rights it lacks, old key. */
    CHECK_EQ(remote(&e, QPN, RNIC_STAG(11, 0x5a), RNIC_ACCESS_REMOTE_WRITE,
                    win + 0xfc1, 64), RNE_MR_E_BOUNDS);
    CHECK_EQ(remote(&e, QPN, RNIC_STAG(11, 0x5a), RNIC_ACCESS_REMOTE_WRITE,
                    win - 1, 1), RNE_MR_E_BOUNDS);
    CHECK_EQ(remote(&e, QPN, RNIC_STAG(11, 0x5a), RNIC_ACCESS_REMOTE_READ,
                    win, 1), RNE_MR_E_ACCESS);
    CHECK_EQ(remote(&e, QPN, RNIC_STAG(11, 0), RNIC_ACCESS_REMOTE_WRITE, win,
                    1), RNE_MR_E_STAG);
    /* Type 2: another QP of the same PD is not its stream. */
    CHECK_EQ(remote(&e, QPN2, RNIC_STAG(11, 0x5a), RNIC_ACCESS_REMOTE_WRITE,
                    win, 1), RNE_MR_E_PD);
    /* Windows are no lkeys. */
    CHECK_EQ(rne_mr_check(&e.h->dev, RNIC_STAG(11, 0x5a), 0, 0, win, 1),
             RNE_MR_E_STAG);
    CHECK_EQ(rne_mr_read(&e.h->dev, RNIC_STAG(11, 0x5a), 0, 0, win, back, 1),
             RNE_MR_E_STAG);
    /* The MR itself grants no remote rights. */
    CHECK_EQ(remote(&e, QPN, MR_BIND, RNIC_ACCESS_REMOTE_WRITE, win, 1),
             RNE_MR_E_ACCESS);

    /* Type 1: any QP of the PD; bound again with a new key and range. */
    CHECK_EQ(bind(&e, &e.qp2, RNIC_STAG(10, 1), MR_BIND, b, 0x100, RW),
             RNIC_WC_SUCCESS);
    CHECK_EQ(rne_mr_remote_read(&e.h->dev, RNIC_STAG(10, 1), QP(&e, QPN),
                                RNIC_ACCESS_REMOTE_READ, b + 0xc0, back, 64),
             RNE_MR_OK);
    CHECK(!memcmp(back, e.h->mem + b + 0xc0, 64));
    CHECK_EQ(bind(&e, &e.qp, RNIC_STAG(10, 2), MR_BIND, b + 0x100, 0x100,
                  RNIC_ACCESS_REMOTE_READ), RNIC_WC_SUCCESS);
    CHECK_EQ(e.h->dev.rdma->mr[1].mw_bound, 2);
    CHECK_EQ(remote(&e, QPN2, RNIC_STAG(10, 1), RNIC_ACCESS_REMOTE_READ, b,
                    1), RNE_MR_E_STAG);
    CHECK_EQ(remote(&e, QPN2, RNIC_STAG(10, 2), RNIC_ACCESS_REMOTE_READ, b,
                    1), RNE_MR_E_BOUNDS);
    CHECK_EQ(remote(&e, QPN2, RNIC_STAG(10, 2), RNIC_ACCESS_REMOTE_WRITE,
                    b + 0x100, 1), RNE_MR_E_ACCESS);
    CHECK_EQ(remote(&e, QPN2, RNIC_STAG(10, 2), RNIC_ACCESS_REMOTE_READ,
                    b + 0x100, 0x100), RNE_MR_OK);
    /* A type 1 window cannot be invalidated; a zero-length bind unbinds. */
    CHECK_EQ(local_inv(&e, &e.qp, RNIC_STAG(10, 2)), RNIC_WC_LOC_PROT_ERR);
    CHECK_EQ(rne_mr_invalidate(&e.h->dev, RNIC_STAG(10, 2), QP(&e, QPN)),
             RNE_MR_E_ACCESS);
    CHECK_EQ(bind(&e, &e.qp, RNIC_STAG(10, 3), 0, 0, 0, 0), RNIC_WC_SUCCESS);
    CHECK_EQ(remote(&e, QPN, RNIC_STAG(10, 3), RNIC_ACCESS_REMOTE_READ,
                    b + 0x100, 1), RNE_MR_E_STAG);
    CHECK_EQ(e.h->dev.rdma->mr[1].mw_bound, 1);
    h_free(e.h);
}

static void test_invalidate_and_hold(void)
{
    struct env e;
    struct rnic_admin_cmd c;
    uint64_t b;

    env_init(&e);
    b = e.buf;
    CHECK_EQ(bind(&e, &e.qp, RNIC_STAG(11, 9), MR_BIND, b, 0x2000, RW),
             RNIC_WC_SUCCESS);
    /* The MR is held: no deregistration, re-registration. */
    CHECK_EQ(dereg(&e, MR_BIND), RNIC_STS_BUSY);
    c = t_mk(RNIC_CMD_REREG_MR);
    c.u.reg_mr.stag = MR_BIND;
    c.u.reg_mr.access = RNIC_ACCESS_LOCAL_WRITE;
    c.u.reg_mr.iova = b;
    c.u.reg_mr.length = RNIC_PAGE_SIZE;
    h_pbl(e.h, &c.u.reg_mr.pages, b, 1);
    CHECK_EQ(h_cmd(e.h, &c), RNIC_STS_BUSY);
    CHECK_EQ(remote(&e, QPN, RNIC_STAG(11, 9), RNIC_ACCESS_REMOTE_READ,
                    b + 0x1fff, 1), RNE_MR_OK);
    /* Type 2: only its own QP invalidates it, with the current key. */
    CHECK_EQ(local_inv(&e, &e.qp2, RNIC_STAG(11, 9)), RNIC_WC_LOC_PROT_ERR);
    CHECK_EQ(local_inv(&e, &e.qp, RNIC_STAG(11, 8)), RNIC_WC_LOC_PROT_ERR);
    CHECK_EQ(rne_mr_invalidate(&e.h->dev, RNIC_STAG(11, 9), QP(&e, QPN2)),
             RNE_MR_E_PD);
    CHECK_EQ(local_inv(&e, &e.qp, RNIC_STAG(11, 9)), RNIC_WC_SUCCESS);
    CHECK_EQ(remote(&e, QPN, RNIC_STAG(11, 9), RNIC_ACCESS_REMOTE_READ, b,
                    1), RNE_MR_E_STAG);
    CHECK_EQ(e.h->dev.rdma->mr[1].mw_bound, 0);
    CHECK_EQ(h_cmd(e.h, &c), RNIC_STS_OK);      /* REREG, now free */
    c.u.reg_mr.access = RNIC_ACCESS_LOCAL_WRITE | RNIC_ACCESS_MW_BIND;
    c.u.reg_mr.length = 4 * RNIC_PAGE_SIZE;
    h_pbl(e.h, &c.u.reg_mr.pages, b, 4);
    CHECK_EQ(h_cmd(e.h, &c), RNIC_STS_OK);

    /* The peer's Send with Invalidate is the same call from the QP. */
    CHECK_EQ(bind(&e, &e.qp, RNIC_STAG(11, 10), MR_BIND, b, 0x10, RW),
             RNIC_WC_SUCCESS);
    CHECK_EQ(rne_mr_invalidate(&e.h->dev, RNIC_STAG(11, 10), QP(&e, QPN)),
             RNE_MR_OK);
    /* Bound again after invalidation, then DEALLOC_MW while bound. */
    CHECK_EQ(bind(&e, &e.qp, RNIC_STAG(11, 11), MR_BIND, b, 0x10, RW),
             RNIC_WC_SUCCESS);
    CHECK_EQ(bind(&e, &e.qp, RNIC_STAG(10, 1), MR_BIND, b, 0x10, RW),
             RNIC_WC_SUCCESS);
    CHECK_EQ(e.h->dev.rdma->mr[1].mw_bound, 2);
    CHECK_EQ(t_cmd_obj(e.h, RNIC_CMD_DEALLOC_MW, RNIC_STAG(11, 11)),
             RNIC_STS_OK);
    CHECK_EQ(remote(&e, QPN, RNIC_STAG(11, 11), RNIC_ACCESS_REMOTE_READ, b,
                    1), RNE_MR_E_STAG);
    CHECK_EQ(dereg(&e, MR_BIND), RNIC_STS_BUSY);        /* MW1 still */
    CHECK_EQ(t_cmd_obj(e.h, RNIC_CMD_DEALLOC_MW, RNIC_STAG(10, 1)),
             RNIC_STS_OK);
    CHECK_EQ(dereg(&e, MR_BIND), RNIC_STS_OK);
    CHECK_EQ(e.h->dev.rdma->mw_count, 0);
    h_free(e.h);
}

/* A fast-register MR with a window bound to it cannot be invalidated. */
static void test_frmr_held(void)
{
    struct env e;
    struct rnic_admin_cmd c;
    struct rnic_sq_wqe w;
    struct rnic_cqe cqe;
    uint64_t pg;
    uint32_t fr = RNIC_STAG(20, 1);

    env_init(&e);
    c = t_mk(RNIC_CMD_ALLOC_MR);
    c.u.alloc_mr.stag = RNIC_STAG(20, 0);
    c.u.alloc_mr.max_pages = 2;
    CHECK_EQ(h_cmd(e.h, &c), RNIC_STS_OK);
    pg = h_alloc(e.h, 1);
    memset(&w, 0, sizeof(w));
    w.hdr.opcode = RNIC_WR_REG_MR;
    w.op.reg_mr.iova = pg;
    w.op.reg_mr.length = RNIC_PAGE_SIZE;
    w.op.reg_mr.stag = fr;
    w.op.reg_mr.access = RNIC_ACCESS_LOCAL_WRITE | RNIC_ACCESS_MW_BIND;
    h_pbl(e.h, &w.op.reg_mr.pages, pg, 1);
    CHECK_EQ(local_wr(&e, &e.qp, &w), RNIC_WC_SUCCESS);
    CHECK(!t_poll_cq(e.h, &e.cq, &cqe));
    CHECK_EQ(bind(&e, &e.qp, RNIC_STAG(11, 1), fr, pg, 64, RW),
             RNIC_WC_SUCCESS);
    CHECK_EQ(local_inv(&e, &e.qp, fr), RNIC_WC_LOC_PROT_ERR);
    CHECK_EQ(remote(&e, QPN, RNIC_STAG(11, 1), RNIC_ACCESS_REMOTE_WRITE, pg,
                    64), RNE_MR_OK);
    CHECK_EQ(local_inv(&e, &e.qp, RNIC_STAG(11, 1)), RNIC_WC_SUCCESS);
    CHECK_EQ(local_inv(&e, &e.qp, fr), RNIC_WC_SUCCESS);
    h_free(e.h);
}

/* DESTROY_QP ends its type 2 windows: a new QP of that number gets none. */
static void test_qp_gone(void)
{
    struct env e;
    uint64_t b;

    env_init(&e);
    b = e.buf;
    CHECK_EQ(bind(&e, &e.qp2, RNIC_STAG(11, 4), MR_BIND, b, 0x100, RW),
             RNIC_WC_SUCCESS);
    CHECK_EQ(bind(&e, &e.qp2, RNIC_STAG(10, 4), MR_BIND, b, 0x100, RW),
             RNIC_WC_SUCCESS);
    CHECK_EQ(t_cmd_obj(e.h, RNIC_CMD_DESTROY_QP, QPN2), RNIC_STS_OK);
    CHECK_EQ(t_create_qp(e.h, &e.qp2, QPN2, 0, 0, 0, 4, 4), RNIC_STS_OK);
    CHECK_EQ(remote(&e, QPN2, RNIC_STAG(11, 4), RNIC_ACCESS_REMOTE_READ, b,
                    1), RNE_MR_E_STAG);
    /* The type 1 window belongs to the PD: it stays. */
    CHECK_EQ(remote(&e, QPN2, RNIC_STAG(10, 4), RNIC_ACCESS_REMOTE_READ, b,
                    1), RNE_MR_OK);
    CHECK_EQ(e.h->dev.rdma->mr[1].mw_bound, 1);
    /* A device reset forgets windows with everything else. */
    h_free(e.h);
}

int main(void)
{
    test_alloc();
    test_bind_rules();
    test_access();
    test_invalidate_and_hold();
    test_frmr_held();
    test_qp_gone();
    return t_report("test-dev-rdma-mw");
}
