/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * RDMA resources: SQ WQE validation, receive WQEs (RQ and SRQ with its
 * limit event), fast-register / local invalidate through SQ WQEs, MR and
 * SGL copies that never leave their region, SQ completions, flushing to
 * ERROR and hostile SQ/RQ/SRQ doorbells.  The iWARP kick is not used: the
 * test calls the functions the data path calls.
 */
#include <string.h>
#include "test-rdma-helpers.h"

#define STAG_A  RNIC_STAG(1, 0x11)  /* PD 0, local write */
#define STAG_RO RNIC_STAG(2, 0x22)  /* PD 0, no rights */
#define STAG_B  RNIC_STAG(3, 0x33)  /* PD 1 */
#define STAG_P  RNIC_STAG(4, 0x44)  /* PD 0, guest-physical */

struct env {
    struct harness *h;
    struct t_eq aeq, ceq;
    struct t_cq scq, rcq;
    struct t_qp qp;
    uint64_t buf;           /* 4 pages under STAG_A (iova = address) */
    uint64_t ro;            /* 1 page under STAG_RO */
};

static struct rne_qp *QP(struct env *e)
{
    return rne_qp_get(&e->h->dev, e->qp.qpn);
}

static void env_init(struct env *e)
{
    struct rnic_admin_cmd c;

    e->h = t_setup(&e->aeq, &e->ceq);
    CHECK_EQ(t_create_pd(e->h, 1, 0), RNIC_STS_OK);
    CHECK_EQ(t_create_cq(e->h, &e->scq, 0, 0, 6), RNIC_STS_OK);
    CHECK_EQ(t_create_cq(e->h, &e->rcq, 1, 0, 6), RNIC_STS_OK);
    CHECK_EQ(t_create_qp(e->h, &e->qp, 5, 0, 0, 1, 4, 4), RNIC_STS_OK);
    e->buf = h_alloc(e->h, 4);
    e->ro = h_alloc(e->h, 1);
    CHECK_EQ(t_reg_mr(e->h, STAG_A, 0, RNIC_ACCESS_LOCAL_WRITE, e->buf,
                      4 * RNIC_PAGE_SIZE, e->buf), RNIC_STS_OK);
    CHECK_EQ(t_reg_mr(e->h, STAG_RO, 0, 0, e->ro, RNIC_PAGE_SIZE, e->ro),
             RNIC_STS_OK);
    CHECK_EQ(t_reg_mr(e->h, STAG_B, 1, RNIC_ACCESS_LOCAL_WRITE, e->buf,
                      RNIC_PAGE_SIZE, e->buf), RNIC_STS_OK);
    c = t_mk(RNIC_CMD_REG_MR);
    c.u.reg_mr.stag = STAG_P;
    c.u.reg_mr.pdn = 0;
    c.u.reg_mr.access = RNIC_ACCESS_LOCAL_WRITE;
    c.u.reg_mr.flags = RNIC_MR_F_PHYS;
    c.u.reg_mr.length = ~0ull;
    CHECK_EQ(h_cmd(e->h, &c), RNIC_STS_OK);
}

static struct rnic_sq_wqe wqe(uint8_t op, uint8_t flags, uint64_t wr_id)
{
    struct rnic_sq_wqe w;

    memset(&w, 0, sizeof(w));
    w.hdr.opcode = op;
    w.hdr.flags = flags;
    w.hdr.wr_id = wr_id;
    return w;
}

/* Post w at the SQ producer and fetch it back through the device. */
static unsigned fetch(struct env *e, struct rnic_sq_wqe *w,
                      struct rne_sgl *sgl)
{
    struct rnic_sq_wqe got;
    unsigned sts;

    t_post_send(e->h, &e->qp, w);
    sts = rne_sq_fetch(&e->h->dev, QP(e), e->qp.sq_prod - 1, &got, sgl);
    CHECK(!memcmp(&got, w, sizeof(got)));
    return sts;
}

static void test_sq_fetch(void)
{
    struct env e;
    struct rnic_sq_wqe w;
    struct rne_sgl sgl;
    unsigned i;

    env_init(&e);
    w = wqe(RNIC_WR_SEND, RNIC_WQE_SIGNALED, 1);
    w.hdr.count = 3;
    t_sge(&w.data.sge[0], e.buf + 10, 100, STAG_A);
    t_sge(&w.data.sge[1], 0, 0, 0xdeadbeef);       /* zero length */
    t_sge(&w.data.sge[2], e.ro, RNIC_PAGE_SIZE, STAG_RO);
    CHECK_EQ(fetch(&e, &w, &sgl), RNIC_WC_SUCCESS);
    CHECK_EQ(sgl.n, 3);
    CHECK_EQ(sgl.total, 100 + RNIC_PAGE_SIZE);
    CHECK_EQ(sgl.sge[0].addr, e.buf + 10);
    CHECK_EQ(sgl.sge[2].lkey, STAG_RO);

    /* Malformed WQEs. */
    w = wqe(RNIC_WR_BIND_MW + 1, 0, 2);
    CHECK_EQ(fetch(&e, &w, &sgl), RNIC_WC_LOC_QP_OP_ERR);
    w = wqe(RNIC_WR_SEND, 0x10, 3);
    CHECK_EQ(fetch(&e, &w, &sgl), RNIC_WC_LOC_QP_OP_ERR);
    w = wqe(RNIC_WR_SEND, 0, 4);
    w.hdr.count = RNIC_SQ_MAX_SGE + 1;
    CHECK_EQ(fetch(&e, &w, &sgl), RNIC_WC_LOC_QP_OP_ERR);
    w = wqe(RNIC_WR_READ, RNIC_WQE_INLINE, 5);
    w.hdr.count = 4;
    CHECK_EQ(fetch(&e, &w, &sgl), RNIC_WC_LOC_QP_OP_ERR);
    w = wqe(RNIC_WR_LOCAL_INV, 0, 6);
    w.hdr.count = 1;
    CHECK_EQ(fetch(&e, &w, &sgl), RNIC_WC_LOC_QP_OP_ERR);
    /* In-line data up to the QP's limit. */
    w = wqe(RNIC_WR_WRITE, RNIC_WQE_INLINE, 7);
    w.hdr.count = RNIC_SQ_MAX_INLINE;
    CHECK_EQ(fetch(&e, &w, &sgl), RNIC_WC_SUCCESS);
    CHECK_EQ(sgl.total, RNIC_SQ_MAX_INLINE);
    CHECK_EQ(sgl.n, 0);
    w.hdr.count = RNIC_SQ_MAX_INLINE + 1;
    CHECK_EQ(fetch(&e, &w, &sgl), RNIC_WC_LOC_QP_OP_ERR);
    QP(&e)->max_inline = 16;
    w.hdr.count = 17;
    CHECK_EQ(fetch(&e, &w, &sgl), RNIC_WC_LOC_QP_OP_ERR);
    QP(&e)->max_send_sge = 1;
    w = wqe(RNIC_WR_SEND, 0, 8);
    w.hdr.count = 2;
    CHECK_EQ(fetch(&e, &w, &sgl), RNIC_WC_LOC_QP_OP_ERR);
    QP(&e)->max_send_sge = RNIC_SQ_MAX_SGE;

    /* Bad lkeys: key, index, bounds, PD; READ sinks need LOCAL_WRITE. */
    w = wqe(RNIC_WR_SEND, 0, 9);
    w.hdr.count = 1;
    t_sge(&w.data.sge[0], e.buf, 8, STAG_A ^ 1);
    CHECK_EQ(fetch(&e, &w, &sgl), RNIC_WC_LOC_PROT_ERR);
    t_sge(&w.data.sge[0], e.buf, 8, RNIC_STAG(4095, 0x11));
    CHECK_EQ(fetch(&e, &w, &sgl), RNIC_WC_LOC_PROT_ERR);
    t_sge(&w.data.sge[0], e.buf + 4 * RNIC_PAGE_SIZE - 4, 8, STAG_A);
    CHECK_EQ(fetch(&e, &w, &sgl), RNIC_WC_LOC_PROT_ERR);
    t_sge(&w.data.sge[0], e.buf - 1, 8, STAG_A);
    CHECK_EQ(fetch(&e, &w, &sgl), RNIC_WC_LOC_PROT_ERR);
    t_sge(&w.data.sge[0], e.buf, 8, STAG_B);
    CHECK_EQ(fetch(&e, &w, &sgl), RNIC_WC_LOC_PROT_ERR);
    w = wqe(RNIC_WR_READ, 0, 10);
    w.hdr.count = 1;
    w.op.rdma.rkey = 0x1234;
    t_sge(&w.data.sge[0], e.ro, 8, STAG_RO);
    CHECK_EQ(fetch(&e, &w, &sgl), RNIC_WC_LOC_PROT_ERR);
    t_sge(&w.data.sge[0], e.buf, 8, STAG_A);
    CHECK_EQ(fetch(&e, &w, &sgl), RNIC_WC_SUCCESS);
    /* Atomics: one 8-byte sink. */
    w = wqe(RNIC_WR_ATOMIC_FADD, 0, 11);
    w.hdr.count = 1;
    t_sge(&w.data.sge[0], e.buf, 8, STAG_A);
    CHECK_EQ(fetch(&e, &w, &sgl), RNIC_WC_SUCCESS);
    w.data.sge[0].length = 4;
    CHECK_EQ(fetch(&e, &w, &sgl), RNIC_WC_LOC_LEN_ERR);
    w.hdr.count = 2;
    CHECK_EQ(fetch(&e, &w, &sgl), RNIC_WC_LOC_QP_OP_ERR);
    /* A message longer than 2^32 - 1 bytes. */
    w = wqe(RNIC_WR_WRITE, 0, 12);
    w.hdr.count = 2;
    for (i = 0; i < 2; i++) {
        t_sge(&w.data.sge[i], 0, 0x80000000u, STAG_P);
    }
    CHECK_EQ(fetch(&e, &w, &sgl), RNIC_WC_LOC_LEN_ERR);
    /* A slot the device cannot read: QP_OP_ERR with a zeroed WQE. */
    QP(&e)->sq.ring.pages[0] = GUEST_MEM_SIZE;
    CHECK_EQ(rne_sq_fetch(&e.h->dev, QP(&e), 0, &w, &sgl),
             RNIC_WC_LOC_QP_OP_ERR);
    CHECK_EQ(w.hdr.wr_id, 0);
    QP(&e)->sq.ring.pages[0] = e.qp.sq;
    h_free(e.h);
}

static void fill(struct harness *h, uint64_t a, uint8_t v, size_t n)
{
    memset(h->mem + a, v, n);
}

static bool all(struct harness *h, uint64_t a, uint8_t v, size_t n)
{
    size_t i;

    for (i = 0; i < n; i++) {
        if (h->mem[a + i] != v) {
            return false;
        }
    }
    return true;
}

/* Run one local WQE as the data path does: fetch, execute, complete. */
static unsigned local_wr(struct env *e, struct rnic_sq_wqe *w)
{
    struct rnic_sq_wqe got;
    struct rne_sgl sgl;
    uint32_t idx = e->qp.sq_prod;
    unsigned sts;

    t_post_send(e->h, &e->qp, w);
    sts = rne_sq_fetch(&e->h->dev, QP(e), idx, &got, &sgl);
    if (sts == RNIC_WC_SUCCESS) {
        sts = rne_sq_local_wr(&e->h->dev, QP(e), &got);
    }
    rne_sq_complete(&e->h->dev, QP(e), idx, &got, sts, 0);
    return sts;
}

static void test_fast_reg(void)
{
    struct env e;
    struct rnic_admin_cmd c;
    struct rnic_sq_wqe w;
    struct rnic_cqe cqe;
    uint8_t data[0x2000], back[0x2000];
    uint64_t p1, p2, list, iova = 0x50000800;
    uint32_t stag = RNIC_STAG(20, 2), rw;
    struct rne_qp other_pd = { .pdn = 1 };
    unsigned i;

    env_init(&e);
    rw = RNIC_ACCESS_LOCAL_WRITE | RNIC_ACCESS_REMOTE_WRITE;
    /* Two pages apart, a gap of sentinels around and between them. */
    p1 = h_alloc(e.h, 5) + RNIC_PAGE_SIZE;
    p2 = p1 + 2 * RNIC_PAGE_SIZE;
    fill(e.h, p1 - RNIC_PAGE_SIZE, 0xaa, 5 * RNIC_PAGE_SIZE);
    list = h_alloc(e.h, 1);
    memcpy(e.h->mem + list, &p1, 8);
    memcpy(e.h->mem + list + 8, &p2, 8);

    c = t_mk(RNIC_CMD_ALLOC_MR);
    c.u.alloc_mr.stag = RNIC_STAG(20, 1);
    c.u.alloc_mr.pdn = 0;
    c.u.alloc_mr.max_pages = 2;
    CHECK_EQ(h_cmd(e.h, &c), RNIC_STS_OK);

    w = wqe(RNIC_WR_REG_MR, RNIC_WQE_SIGNALED, 77);
    w.op.reg_mr.iova = iova;
    w.op.reg_mr.length = 0x1800;        /* 0x800 of p1 + all of p2 */
    w.op.reg_mr.stag = stag;
    w.op.reg_mr.access = rw;
    w.op.reg_mr.pages.addr = list;
    w.op.reg_mr.pages.nentries = 2;
    w.op.reg_mr.pages.page_shift = 12;
    w.op.reg_mr.pages.levels = 1;
    CHECK_EQ(rne_mr_check(&e.h->dev, stag, 0, 0, iova, 1), RNE_MR_E_STAG);
    CHECK_EQ(local_wr(&e, &w), RNIC_WC_SUCCESS);
    CHECK(t_poll_cq(e.h, &e.scq, &cqe));
    CHECK_EQ(cqe.wr_id, 77);
    CHECK_EQ(cqe.opcode, RNIC_WC_REG_MR);
    CHECK_EQ(cqe.status, RNIC_WC_SUCCESS);
    CHECK_EQ(cqe.qpn, 5);
    CHECK_EQ(cqe.wqe_idx, 0);
    CHECK_EQ(QP(&e)->sq_done, 1);

    /* Checks: old key, PD, rights, bounds (overflow-safe). */
    CHECK_EQ(rne_mr_check(&e.h->dev, RNIC_STAG(20, 1), 0, 0, iova, 1),
             RNE_MR_E_STAG);
    CHECK_EQ(rne_mr_check(&e.h->dev, stag, 1, 0, iova, 1), RNE_MR_E_PD);
    CHECK_EQ(rne_mr_check(&e.h->dev, stag, 0, RNIC_ACCESS_REMOTE_READ, iova,
                          1), RNE_MR_E_ACCESS);
    CHECK_EQ(rne_mr_check(&e.h->dev, stag, 0, rw, iova, 0x1800),
             RNE_MR_OK);
    CHECK_EQ(rne_mr_check(&e.h->dev, stag, 0, 0, iova, 0x1801),
             RNE_MR_E_BOUNDS);
    CHECK_EQ(rne_mr_check(&e.h->dev, stag, 0, 0, iova - 1, 1),
             RNE_MR_E_BOUNDS);
    CHECK_EQ(rne_mr_check(&e.h->dev, stag, 0, 0, iova + 0x1800, 0),
             RNE_MR_OK);
    CHECK_EQ(rne_mr_check(&e.h->dev, stag, 0, 0, iova + 1, ~0ull),
             RNE_MR_E_BOUNDS);
    CHECK_EQ(rne_mr_check(&e.h->dev, stag, 0, 0, ~0ull, 2),
             RNE_MR_E_BOUNDS);

    /* Writes land in the two pages only. */
    for (i = 0; i < sizeof(data); i++) {
        data[i] = (uint8_t)(i * 7 + 1);
    }
    CHECK_EQ(rne_mr_write(&e.h->dev, stag, 0, RNIC_ACCESS_REMOTE_WRITE,
                          iova + 0x700, data, 0x200), RNE_MR_OK);
    CHECK(!memcmp(e.h->mem + p1 + 0xf00, data, 0x100));
    CHECK(!memcmp(e.h->mem + p2, data + 0x100, 0x100));
    CHECK_EQ(rne_mr_write(&e.h->dev, stag, 0, RNIC_ACCESS_REMOTE_WRITE,
                          iova + 0x1790, data, 0x80), RNE_MR_E_BOUNDS);
    CHECK_EQ(rne_mr_write(&e.h->dev, stag, 0, RNIC_ACCESS_REMOTE_WRITE,
                          iova, data, 0x1800), RNE_MR_OK);
    CHECK(!memcmp(e.h->mem + p1 + 0x800, data, 0x800));
    CHECK(!memcmp(e.h->mem + p2, data + 0x800, 0x1000));
    CHECK(all(e.h, p1 - RNIC_PAGE_SIZE, 0xaa, RNIC_PAGE_SIZE + 0x800));
    CHECK(all(e.h, p1 + RNIC_PAGE_SIZE, 0xaa, RNIC_PAGE_SIZE));
    CHECK(all(e.h, p2 + RNIC_PAGE_SIZE, 0xaa, RNIC_PAGE_SIZE));
    memset(back, 0, sizeof(back));
    CHECK_EQ(rne_mr_read(&e.h->dev, stag, 0, 0, iova + 0x10, back, 0x17f0),
             RNE_MR_OK);
    CHECK(!memcmp(back, data + 0x10, 0x17f0));

    /* A VALID MR cannot be registered again. */
    w.hdr.wr_id = 78;
    CHECK_EQ(local_wr(&e, &w), RNIC_WC_LOC_PROT_ERR);
    CHECK(t_poll_cq(e.h, &e.scq, &cqe));
    CHECK_EQ(cqe.status, RNIC_WC_LOC_PROT_ERR);
    CHECK_EQ(cqe.wqe_idx, 1);

    /* LOCAL_INV: wrong key, non-fast-register MR, then the real one. */
    w = wqe(RNIC_WR_LOCAL_INV, 0, 80);
    w.hdr.ex = RNIC_STAG(20, 3);
    CHECK_EQ(local_wr(&e, &w), RNIC_WC_LOC_PROT_ERR);
    w.hdr.ex = STAG_A;
    CHECK_EQ(local_wr(&e, &w), RNIC_WC_LOC_PROT_ERR);
    CHECK_EQ(rne_mr_check(&e.h->dev, STAG_A, 0, 0, e.buf, 1), RNE_MR_OK);
    CHECK_EQ(rne_mr_invalidate(&e.h->dev, stag, &other_pd), RNE_MR_E_PD);
    w.hdr.ex = stag;
    CHECK_EQ(local_wr(&e, &w), RNIC_WC_SUCCESS);   /* unsignaled: no CQE */
    CHECK(t_poll_cq(e.h, &e.scq, &cqe));
    CHECK(t_poll_cq(e.h, &e.scq, &cqe));
    CHECK(!t_poll_cq(e.h, &e.scq, &cqe));
    CHECK_EQ(rne_mr_check(&e.h->dev, stag, 0, 0, iova, 1), RNE_MR_E_STAG);
    CHECK_EQ(rne_mr_write(&e.h->dev, stag, 0, 0, iova, data, 1),
             RNE_MR_E_STAG);

    /* Re-register: too many pages, unknown page size, unknown rights. */
    w = wqe(RNIC_WR_REG_MR, 0, 90);
    w.op.reg_mr.iova = iova;
    w.op.reg_mr.length = 0x2000;        /* needs 3 pages > max_pages 2 */
    w.op.reg_mr.stag = RNIC_STAG(20, 4);
    w.op.reg_mr.access = rw;
    w.op.reg_mr.pages.addr = list;
    w.op.reg_mr.pages.nentries = 3;
    w.op.reg_mr.pages.page_shift = 12;
    w.op.reg_mr.pages.levels = 1;
    CHECK_EQ(local_wr(&e, &w), RNIC_WC_LOC_LEN_ERR);
    w.op.reg_mr.length = 0x1800;
    w.op.reg_mr.pages.nentries = 2;
    w.op.reg_mr.pages.page_shift = 13;
    CHECK_EQ(local_wr(&e, &w), RNIC_WC_LOC_QP_OP_ERR);
    w.op.reg_mr.pages.page_shift = 12;
    w.op.reg_mr.access = RNIC_ACCESS_REMOTE_WRITE;
    CHECK_EQ(local_wr(&e, &w), RNIC_WC_LOC_QP_OP_ERR);
    w.op.reg_mr.access = rw;
    w.op.reg_mr.pages.addr = GUEST_MEM_SIZE;
    CHECK_EQ(local_wr(&e, &w), RNIC_WC_LOC_QP_OP_ERR);
    CHECK_EQ(h_cmd(e.h, &c), RNIC_STS_EXISTS);
    c.u.alloc_mr.stag = RNIC_STAG(21, 0);
    c.u.alloc_mr.pdn = 1;
    CHECK_EQ(h_cmd(e.h, &c), RNIC_STS_OK);
    w.op.reg_mr.pages.addr = list;
    w.op.reg_mr.stag = RNIC_STAG(21, 9);        /* MR of PD 1, QP of PD 0 */
    CHECK_EQ(local_wr(&e, &w), RNIC_WC_LOC_PROT_ERR);
    w.op.reg_mr.stag = RNIC_STAG(20, 4);
    CHECK_EQ(local_wr(&e, &w), RNIC_WC_SUCCESS);
    CHECK_EQ(rne_mr_check(&e.h->dev, RNIC_STAG(20, 4), 0, 0, iova, 1),
             RNE_MR_OK);
    /* Remote invalidate of the fast-register MR, by its PD only. */
    CHECK_EQ(rne_mr_invalidate(&e.h->dev, RNIC_STAG(20, 4), QP(&e)),
             RNE_MR_OK);
    CHECK_EQ(rne_mr_invalidate(&e.h->dev, RNIC_STAG(5000, 4), QP(&e)),
             RNE_MR_E_STAG);
    h_free(e.h);
}

static void test_sgl(void)
{
    struct env e;
    struct rne_sgl sgl;
    uint8_t data[300], back[300];
    unsigned i;

    env_init(&e);
    for (i = 0; i < sizeof(data); i++) {
        data[i] = (uint8_t)(i + 3);
    }
    fill(e.h, e.buf, 0xaa, 4 * RNIC_PAGE_SIZE);
    memset(&sgl, 0, sizeof(sgl));
    sgl.n = 3;
    t_sge(&sgl.sge[0], e.buf + 100, 50, STAG_A);
    t_sge(&sgl.sge[1], 0, 0, 0);
    t_sge(&sgl.sge[2], e.buf + 1000, 250, STAG_A);
    sgl.total = 300;
    /* Offset 20: 30 bytes into SGE 0, then 240 into SGE 2. */
    CHECK_EQ(rne_sgl_write(&e.h->dev, 0, &sgl, 20, data, 270), RNE_MR_OK);
    CHECK(!memcmp(e.h->mem + e.buf + 120, data, 30));
    CHECK(!memcmp(e.h->mem + e.buf + 1000, data + 30, 240));
    CHECK(all(e.h, e.buf + 100, 0xaa, 20));
    CHECK(all(e.h, e.buf + 150, 0xaa, 850));
    CHECK(all(e.h, e.buf + 1240, 0xaa, 10));
    CHECK_EQ(rne_sgl_read(&e.h->dev, 0, &sgl, 20, back, 270), RNE_MR_OK);
    CHECK(!memcmp(back, data, 270));
    CHECK_EQ(rne_sgl_write(&e.h->dev, 0, &sgl, 20, data, 281),
             RNE_MR_E_BOUNDS);
    CHECK_EQ(rne_sgl_write(&e.h->dev, 0, &sgl, ~0ull, data, 2),
             RNE_MR_E_BOUNDS);
    CHECK_EQ(rne_sgl_write(&e.h->dev, 1, &sgl, 0, data, 10), RNE_MR_E_PD);
    sgl.sge[0].lkey = STAG_RO;
    sgl.sge[0].addr = e.ro;
    CHECK_EQ(rne_sgl_write(&e.h->dev, 0, &sgl, 0, data, 10),
             RNE_MR_E_ACCESS);
    CHECK_EQ(rne_sgl_read(&e.h->dev, 0, &sgl, 0, back, 10), RNE_MR_OK);
    h_free(e.h);
}

static void test_recv(void)
{
    struct env e;
    struct rnic_admin_cmd c;
    struct rnic_rq_wqe r;
    struct rne_sgl sgl;
    struct rnic_eqe ev;
    struct t_qp sq;
    uint64_t wr_id, srq_ring;
    uint16_t slot;
    unsigned sts, i;

    env_init(&e);
    memset(&r, 0, sizeof(r));
    r.wr_id = 500;
    r.num_sge = 2;
    t_sge(&r.sge[0], e.buf, 64, STAG_A);
    t_sge(&r.sge[1], e.buf + 4096, 64, STAG_A);
    t_post_recv(e.h, &e.qp, &r);
    r.wr_id = 501;
    r.num_sge = RNIC_RQ_MAX_SGE + 1;
    t_post_recv(e.h, &e.qp, &r);
    r.wr_id = 502;
    r.num_sge = 1;
    t_sge(&r.sge[0], e.ro, 64, STAG_RO);       /* no LOCAL_WRITE */
    t_post_recv(e.h, &e.qp, &r);
    CHECK_EQ(rne_rq_take(&e.h->dev, QP(&e), &wr_id, &sgl, &slot, &sts), -1);
    h_doorbell(e.h, RNIC_DB_RQ, 5, 0, e.qp.rq_prod);
    CHECK_EQ(rne_rq_take(&e.h->dev, QP(&e), &wr_id, &sgl, &slot, &sts), 0);
    CHECK_EQ(sts, RNIC_WC_SUCCESS);
    CHECK_EQ(wr_id, 500);
    CHECK_EQ(slot, 0);
    CHECK_EQ(sgl.n, 2);
    CHECK_EQ(sgl.total, 128);
    CHECK_EQ(rne_rq_take(&e.h->dev, QP(&e), &wr_id, &sgl, &slot, &sts), 0);
    CHECK_EQ(sts, RNIC_WC_LOC_QP_OP_ERR);
    CHECK_EQ(wr_id, 501);
    CHECK_EQ(rne_rq_take(&e.h->dev, QP(&e), &wr_id, &sgl, &slot, &sts), 0);
    CHECK_EQ(sts, RNIC_WC_LOC_PROT_ERR);
    CHECK_EQ(slot, 2);
    CHECK_EQ(rne_rq_take(&e.h->dev, QP(&e), &wr_id, &sgl, &slot, &sts), -1);

    /* SRQ of 8 with limit 3: one event when fewer than 3 stay posted. */
    srq_ring = h_alloc(e.h, 1);
    c = t_mk(RNIC_CMD_CREATE_SRQ);
    c.u.create_srq.srqn = 2;
    c.u.create_srq.pdn = 0;
    c.u.create_srq.log_depth = 3;
    c.u.create_srq.max_sge = 1;
    c.u.create_srq.limit = 3;
    h_pbl(e.h, &c.u.create_srq.ring, srq_ring, 1);
    CHECK_EQ(h_cmd(e.h, &c), RNIC_STS_OK);
    t_qp_cmd(e.h, &c, &sq, 6, 0, 0, 0, 1, 2, 3, 0);
    CHECK_EQ(h_cmd(e.h, &c), RNIC_STS_OK);
    for (i = 0; i < 5; i++) {
        memset(&r, 0, sizeof(r));
        r.wr_id = 600 + i;
        r.num_sge = 1;
        t_sge(&r.sge[0], e.buf + 64 * i, 64, STAG_A);
        memcpy(e.h->mem + srq_ring + i * RNIC_RQ_WQE_SIZE, &r, sizeof(r));
    }
    h_doorbell(e.h, RNIC_DB_SRQ, 2, 0, 5);
    /* The SRQ has no RQ doorbell of its QP. */
    sts = e.h->guest_errors;
    h_doorbell(e.h, RNIC_DB_RQ, 6, 0, 1);
    CHECK_EQ(e.h->guest_errors, sts + 1);
    t_drain_eq(e.h, &e.aeq, 0);
    for (i = 0; i < 2; i++) {
        CHECK_EQ(rne_rq_take(&e.h->dev, rne_qp_get(&e.h->dev, 6), &wr_id,
                             &sgl, &slot, &sts), 0);
        CHECK_EQ(wr_id, 600 + i);
    }
    CHECK_EQ(t_drain_eq(e.h, &e.aeq, 0), 0);
    CHECK_EQ(rne_rq_take(&e.h->dev, rne_qp_get(&e.h->dev, 6), &wr_id, &sgl,
                         &slot, &sts), 0);
    CHECK(t_poll_eq(e.h, &e.aeq, &ev));
    CHECK_EQ(ev.code, RNIC_ASYNC_SRQ_LIMIT);
    CHECK_EQ(ev.obj, 2);
    CHECK_EQ(rne_rq_take(&e.h->dev, rne_qp_get(&e.h->dev, 6), &wr_id, &sgl,
                         &slot, &sts), 0);
    CHECK_EQ(t_drain_eq(e.h, &e.aeq, 0), 0);  /* disarmed */
    c = t_mk(RNIC_CMD_MODIFY_SRQ);
    c.u.modify_srq.srqn = 2;
    c.u.modify_srq.limit = 2;
    CHECK_EQ(h_cmd(e.h, &c), RNIC_STS_OK);
    CHECK_EQ(rne_rq_take(&e.h->dev, rne_qp_get(&e.h->dev, 6), &wr_id, &sgl,
                         &slot, &sts), 0);
    CHECK_EQ(wr_id, 604);
    CHECK_EQ(slot, 4);
    CHECK_EQ(t_drain_eq(e.h, &e.aeq, RNIC_EQE_ASYNC), 1);
    CHECK_EQ(rne_rq_take(&e.h->dev, rne_qp_get(&e.h->dev, 6), &wr_id, &sgl,
                         &slot, &sts), -1);
    /* An SRQ producer more than its depth ahead is refused. */
    h_doorbell(e.h, RNIC_DB_SRQ, 2, 0, 5 + 9);
    CHECK_EQ(e.h->dev.rdma->srq[2].wq.pidx, 5);
    CHECK_EQ(t_drain_eq(e.h, &e.aeq, RNIC_EQE_ASYNC), 1);
    h_free(e.h);
}

static void test_complete(void)
{
    struct env e;
    struct rnic_sq_wqe w;
    struct rnic_cqe cqe;

    env_init(&e);
    w = wqe(RNIC_WR_SEND, 0, 1);
    rne_sq_complete(&e.h->dev, QP(&e), 0, &w, RNIC_WC_SUCCESS, 10);
    CHECK(!t_poll_cq(e.h, &e.scq, &cqe));
    w = wqe(RNIC_WR_WRITE, RNIC_WQE_SIGNALED, 2);
    rne_sq_complete(&e.h->dev, QP(&e), 1, &w, RNIC_WC_SUCCESS, 20);
    CHECK(t_poll_cq(e.h, &e.scq, &cqe));
    CHECK_EQ(cqe.wr_id, 2);
    CHECK_EQ(cqe.opcode, RNIC_WC_WRITE);
    CHECK_EQ(cqe.byte_len, 20);
    CHECK_EQ(cqe.wqe_idx, 1);
    w = wqe(RNIC_WR_READ, 0, 3);
    rne_sq_complete(&e.h->dev, QP(&e), 2, &w, RNIC_WC_REM_ACCESS_ERR, 0);
    CHECK(t_poll_cq(e.h, &e.scq, &cqe));
    CHECK_EQ(cqe.status, RNIC_WC_REM_ACCESS_ERR);
    CHECK_EQ(cqe.opcode, RNIC_WC_READ);
    QP(&e)->flags = RNIC_QP_F_SQ_SIG_ALL;
    w = wqe(RNIC_WR_ATOMIC_CSWAP, 0, 4);
    rne_sq_complete(&e.h->dev, QP(&e), 19, &w, RNIC_WC_SUCCESS, 8);
    CHECK(t_poll_cq(e.h, &e.scq, &cqe));
    CHECK_EQ(cqe.opcode, RNIC_WC_ATOMIC_CSWAP);
    CHECK_EQ(cqe.wqe_idx, 3);           /* 19 & 15 */
    CHECK_EQ(QP(&e)->sq_done, 20);
    h_free(e.h);
}

static void test_flush(void)
{
    struct env e;
    struct rnic_admin_cmd c;
    struct rnic_sq_wqe w;
    struct rnic_rq_wqe r;
    struct rnic_cqe cqe;
    struct rnic_eqe ev;
    struct t_cq small;
    struct t_qp q2;
    unsigned i;

    env_init(&e);
    for (i = 0; i < 3; i++) {
        w = wqe(RNIC_WR_SEND, 0, 10 + i);
        t_post_send(e.h, &e.qp, &w);
    }
    memset(&r, 0, sizeof(r));
    for (i = 0; i < 2; i++) {
        r.wr_id = 20 + i;
        t_post_recv(e.h, &e.qp, &r);
    }
    /* IDLE: doorbells only remember. */
    h_doorbell(e.h, RNIC_DB_SQ, 5, 0, 3);
    h_doorbell(e.h, RNIC_DB_RQ, 5, 0, 2);
    CHECK_EQ(QP(&e)->sq.pidx, 3);
    CHECK(!t_poll_cq(e.h, &e.scq, &cqe));
    /* The first one was sent, unsignaled. */
    w = wqe(RNIC_WR_SEND, 0, 10);
    rne_sq_complete(&e.h->dev, QP(&e), 0, &w, RNIC_WC_SUCCESS, 0);

    c = t_mk(RNIC_CMD_MODIFY_QP);
    c.u.modify_qp.qpn = 5;
    c.u.modify_qp.attr_mask = RNIC_QP_ATTR_STATE;
    c.u.modify_qp.state = RNIC_QPS_ERROR;
    CHECK_EQ(h_cmd(e.h, &c), RNIC_STS_OK);
    for (i = 1; i < 3; i++) {
        CHECK(t_poll_cq(e.h, &e.scq, &cqe));
        CHECK_EQ(cqe.wr_id, 10 + i);
        CHECK_EQ(cqe.status, RNIC_WC_WR_FLUSH_ERR);
        CHECK_EQ(cqe.opcode, RNIC_WC_SEND);
        CHECK_EQ(cqe.wqe_idx, i);
        CHECK_EQ(cqe.qpn, 5);
    }
    CHECK(!t_poll_cq(e.h, &e.scq, &cqe));
    for (i = 0; i < 2; i++) {
        CHECK(t_poll_cq(e.h, &e.rcq, &cqe));
        CHECK_EQ(cqe.wr_id, 20 + i);
        CHECK_EQ(cqe.status, RNIC_WC_WR_FLUSH_ERR);
        CHECK_EQ(cqe.opcode, RNIC_WC_RECV);
    }
    CHECK(!t_poll_cq(e.h, &e.rcq, &cqe));
    CHECK_EQ(QP(&e)->sq_done, 3);
    CHECK_EQ(QP(&e)->sq.cidx, 3);       /* nothing left to fetch */
    /* In ERROR, new WQEs are flushed as soon as they are rung. */
    w = wqe(RNIC_WR_WRITE, 0, 30);
    t_post_send(e.h, &e.qp, &w);
    h_doorbell(e.h, RNIC_DB_SQ, 5, 0, 4);
    CHECK(t_poll_cq(e.h, &e.scq, &cqe));
    CHECK_EQ(cqe.wr_id, 30);
    CHECK_EQ(cqe.opcode, RNIC_WC_WRITE);
    CHECK_EQ(cqe.status, RNIC_WC_WR_FLUSH_ERR);
    r.wr_id = 31;
    t_post_recv(e.h, &e.qp, &r);
    h_doorbell(e.h, RNIC_DB_RQ, 5, 0, 3);
    CHECK(t_poll_cq(e.h, &e.rcq, &cqe));
    CHECK_EQ(cqe.wr_id, 31);
    /* The async code of a fatal error, once. */
    rne_qp_to_error(&e.h->dev, QP(&e), RNIC_ASYNC_QP_FATAL);
    CHECK(t_poll_eq(e.h, &e.aeq, &ev));
    CHECK_EQ(ev.code, RNIC_ASYNC_QP_FATAL);
    CHECK_EQ(ev.obj, 5);
    CHECK(!t_poll_cq(e.h, &e.scq, &cqe));

    /* A flush into a CQ too small for it: completes, CQ overflows. */
    CHECK_EQ(t_create_cq(e.h, &small, 9, 0, 1), RNIC_STS_OK);
    t_qp_cmd(e.h, &c, &q2, 7, 0, 0, 9, 9, RNIC_NO_SRQ, 3, 3);
    CHECK_EQ(h_cmd(e.h, &c), RNIC_STS_OK);
    for (i = 0; i < 8; i++) {
        w = wqe(RNIC_WR_SEND, 0, 40 + i);
        t_post_send(e.h, &q2, &w);
        t_post_recv(e.h, &q2, &r);
    }
    h_doorbell(e.h, RNIC_DB_SQ, 7, 0, 8);
    h_doorbell(e.h, RNIC_DB_RQ, 7, 0, 8);
    rne_qp_to_error(&e.h->dev, rne_qp_get(&e.h->dev, 7), 0);
    CHECK_EQ(rne_qp_get(&e.h->dev, 7)->sq_done, 8);
    CHECK_EQ(rne_qp_get(&e.h->dev, 7)->rq.cidx, 8);
    CHECK(e.h->dev.rdma->cq[9].overflow);
    CHECK_EQ(t_drain_eq(e.h, &e.aeq, RNIC_EQE_ASYNC), 1);
    /* Destroying a QP writes no CQE for its WQEs. */
    w = wqe(RNIC_WR_SEND, RNIC_WQE_SIGNALED, 50);
    t_post_send(e.h, &e.qp, &w);
    h_doorbell(e.h, RNIC_DB_SQ, 5, 0, 5);
    CHECK(t_poll_cq(e.h, &e.scq, &cqe));    /* ERROR: flushed at once */
    QP(&e)->state = RNIC_QPS_IDLE;
    t_post_send(e.h, &e.qp, &w);
    h_doorbell(e.h, RNIC_DB_SQ, 5, 0, 6);
    CHECK_EQ(t_cmd_obj(e.h, RNIC_CMD_DESTROY_QP, 5), RNIC_STS_OK);
    CHECK(!t_poll_cq(e.h, &e.scq, &cqe));
    CHECK(!t_poll_cq(e.h, &e.rcq, &cqe));
    h_free(e.h);
}

static void test_hostile_doorbells(void)
{
    struct env e;
    struct rnic_admin_cmd c;
    struct rnic_eqe ev;
    struct t_cq ucq;
    struct t_qp uqp;
    unsigned errs;

    env_init(&e);
    /* Producer more than the depth (16) ahead of what completed. */
    h_doorbell(e.h, RNIC_DB_SQ, 5, 0, 17);
    CHECK_EQ(QP(&e)->sq.pidx, 0);
    CHECK(t_poll_eq(e.h, &e.aeq, &ev));
    CHECK_EQ(ev.code, RNIC_ASYNC_DB_ERROR);
    CHECK_EQ(ev.obj, 5);
    CHECK_EQ(ev.u.async.info, RNIC_DB_SQ);
    h_doorbell(e.h, RNIC_DB_SQ, 5, 0, 16);
    CHECK_EQ(QP(&e)->sq.pidx, 16);
    /* Backwards. */
    h_doorbell(e.h, RNIC_DB_SQ, 5, 0, 15);
    CHECK_EQ(QP(&e)->sq.pidx, 16);
    CHECK_EQ(t_drain_eq(e.h, &e.aeq, RNIC_EQE_ASYNC), 1);
    h_doorbell(e.h, RNIC_DB_RQ, 5, 0, 0xffffffffu);
    CHECK_EQ(QP(&e)->rq.pidx, 0);
    CHECK_EQ(t_drain_eq(e.h, &e.aeq, RNIC_EQE_ASYNC), 1);

    /* Wrong page, unknown QP, unknown SRQ: refused at the doorbell. */
    CHECK_EQ(t_alloc_uctx(e.h, 1), RNIC_STS_OK);
    CHECK_EQ(t_create_pd(e.h, 2, 1), RNIC_STS_OK);
    CHECK_EQ(t_create_cq(e.h, &ucq, 3, 1, 6), RNIC_STS_OK);
    t_qp_cmd(e.h, &c, &uqp, 8, 2, 1, 3, 3, RNIC_NO_SRQ, 3, 3);
    CHECK_EQ(h_cmd(e.h, &c), RNIC_STS_OK);
    errs = e.h->guest_errors;
    CHECK(rne_dev_doorbell(&e.h->dev, 1, RNIC_DB_SQ, RNIC_DB_VAL(5, 0, 1)));
    CHECK(rne_dev_doorbell(&e.h->dev, 0, RNIC_DB_SQ, RNIC_DB_VAL(8, 0, 1)));
    CHECK(rne_dev_doorbell(&e.h->dev, 2, RNIC_DB_RQ, RNIC_DB_VAL(8, 0, 1)));
    CHECK(rne_dev_doorbell(&e.h->dev, 0, RNIC_DB_SQ, RNIC_DB_VAL(9, 0, 1)));
    CHECK(rne_dev_doorbell(&e.h->dev, 0, RNIC_DB_SQ,
                           RNIC_DB_VAL(1023, 0, 1)));
    CHECK(rne_dev_doorbell(&e.h->dev, 0, RNIC_DB_SQ,
                           RNIC_DB_VAL(1024, 0, 1)));
    CHECK(rne_dev_doorbell(&e.h->dev, 0, RNIC_DB_SRQ, RNIC_DB_VAL(0, 0, 1)));
    CHECK(rne_dev_doorbell(&e.h->dev, 0, RNIC_DB_SRQ,
                           RNIC_DB_VAL(RNIC_DB_OBJ_MASK, 0, 1)));
    h_run(e.h);
    CHECK_EQ(e.h->guest_errors, errs + 8);
    CHECK_EQ(rne_qp_get(&e.h->dev, 8)->sq.pidx, 0);
    CHECK_EQ(rne_qp_get(&e.h->dev, 8)->rq.pidx, 0);
    CHECK_EQ(e.h->dev.rdma->db_count, 0);
    CHECK(t_drain_eq(e.h, &e.aeq, RNIC_EQE_ASYNC) >= 1);
    /* The owner's page reaches it. */
    CHECK(rne_dev_doorbell(&e.h->dev, 1, RNIC_DB_SQ, RNIC_DB_VAL(8, 0, 2)));
    CHECK(rne_dev_doorbell(&e.h->dev, 1, RNIC_DB_RQ, RNIC_DB_VAL(8, 0, 3)));
    h_run(e.h);
    CHECK_EQ(rne_qp_get(&e.h->dev, 8)->sq.pidx, 2);
    CHECK_EQ(rne_qp_get(&e.h->dev, 8)->rq.pidx, 3);
    CHECK_EQ(e.h->guest_errors, errs + 8);
    /* Latched, then the QP is destroyed: nothing happens. */
    CHECK(rne_dev_doorbell(&e.h->dev, 1, RNIC_DB_SQ, RNIC_DB_VAL(8, 0, 3)));
    CHECK_EQ(t_cmd_obj(e.h, RNIC_CMD_DESTROY_QP, 8), RNIC_STS_OK);
    CHECK_EQ(e.h->guest_errors, errs + 8);
    CHECK_EQ(e.h->dev.rdma->db_count, 0);
    /* Many doorbells for one QP take one slot of the latch list. */
    CHECK(rne_dev_doorbell(&e.h->dev, 0, RNIC_DB_SQ, RNIC_DB_VAL(5, 0, 1)));
    CHECK(rne_dev_doorbell(&e.h->dev, 0, RNIC_DB_SQ, RNIC_DB_VAL(5, 0, 1)));
    CHECK_EQ(e.h->dev.rdma->db_count, 1);
    h_run(e.h);
    h_free(e.h);
}

int main(void)
{
    test_sq_fetch();
    test_fast_reg();
    test_sgl();
    test_recv();
    test_complete();
    test_flush();
    test_hostile_doorbells();
    return t_report("test-dev-rdma-wq");
}
