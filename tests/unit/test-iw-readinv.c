/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * RDMA Read with Local Invalidate (RNIC_WR_READ_INV), the way Linux's
 * rdma_rw reads on iWARP (nvmet-rdma): the sink is a fast-register MR bound
 * by a REG_MR WQE; when the Read Response has landed the device invalidates
 * the sink STag, so a later use of it is refused.
 */
#include <string.h>
#include "test-iw-pair.h"
#include "iwarp/iw.h"

static void wqe(struct rnic_sq_wqe *w, uint8_t op, uint64_t wr_id)
{
    memset(w, 0, sizeof(*w));
    w->hdr.wr_id = wr_id;
    w->hdr.opcode = op;
    w->hdr.flags = RNIC_WQE_SIGNALED;
}

static void test_read_inv(void)
{
    struct pair *p = p_new();
    struct rnic_admin_cmd c;
    struct rnic_sq_wqe w;
    struct rnic_cqe cqe;
    uint64_t src, sink;
    uint32_t stag = RNIC_STAG(9, 0x5a);
    size_t i;

    if (!p_connect_pair(p, 2, RNIC_MPA_CRC)) {
        p_free(p);
        return;
    }
    /* B: the Read source, remotely readable */
    src = h_alloc(p->b.h, 2);
    CHECK_EQ(t_reg_mr(p->b.h, 0x300, 0, RNIC_ACCESS_REMOTE_READ, src, 8192,
                      src), RNIC_STS_OK);
    for (i = 0; i < 8192; i++) {
        p->b.h->mem[src + i] = (uint8_t)(i * 7 + 1);
    }
    /* A: a fast-register sink bound by REG_MR */
    c = t_mk(RNIC_CMD_ALLOC_MR);
    c.u.alloc_mr.stag = RNIC_STAG(9, 0);
    c.u.alloc_mr.max_pages = 4;
    CHECK_EQ(h_cmd(p->a.h, &c), RNIC_STS_OK);
    sink = h_alloc(p->a.h, 2);
    wqe(&w, RNIC_WR_REG_MR, 1);
    w.op.reg_mr.iova = sink;
    w.op.reg_mr.length = 8192;
    w.op.reg_mr.stag = stag;
    w.op.reg_mr.access = RNIC_ACCESS_LOCAL_WRITE | RNIC_ACCESS_REMOTE_WRITE;
    h_pbl(p->a.h, &w.op.reg_mr.pages, sink, 2);
    t_post_send(p->a.h, &p->a.qp, &w);
    /* Read 6000 bytes into it and invalidate it on completion */
    wqe(&w, RNIC_WR_READ_INV, 2);
    w.hdr.count = 1;
    w.hdr.ex = stag;
    w.op.rdma.remote_addr = src + 100;
    w.op.rdma.rkey = 0x300;
    t_sge(&w.data.sge[0], sink + 50, 6000, stag);
    t_post_send(p->a.h, &p->a.qp, &w);
    p_ring_sq(&p->a);
    p_settle(p, 1000000000ull);
    CHECK(!memcmp(p->a.h->mem + sink + 50, p->b.h->mem + src + 100, 6000));
    CHECK(t_poll_cq(p->a.h, &p->a.cq, &cqe));
    CHECK_EQ(cqe.wr_id, 1);
    CHECK_EQ(cqe.opcode, RNIC_WC_REG_MR);
    CHECK(t_poll_cq(p->a.h, &p->a.cq, &cqe));
    CHECK_EQ(cqe.wr_id, 2);
    CHECK_EQ(cqe.opcode, RNIC_WC_READ);
    CHECK_EQ(cqe.status, RNIC_WC_SUCCESS);
    CHECK_EQ(cqe.byte_len, 6000);
    /* The sink STag is invalid now: using it again is a local error */
    wqe(&w, RNIC_WR_READ, 3);
    w.hdr.count = 1;
    w.op.rdma.remote_addr = src;
    w.op.rdma.rkey = 0x300;
    t_sge(&w.data.sge[0], sink, 100, stag);
    t_post_send(p->a.h, &p->a.qp, &w);
    p_ring_sq(&p->a);
    p_settle(p, 1000000000ull);
    CHECK(t_poll_cq(p->a.h, &p->a.cq, &cqe));
    CHECK_EQ(cqe.wr_id, 3);
    CHECK_EQ(cqe.status, RNIC_WC_LOC_PROT_ERR);
    p_free(p);
}

/* Invalidating an STag that is not a fast-register MR fails the Read. */
static void test_read_inv_not_frmr(void)
{
    struct pair *p = p_new();
    struct rnic_sq_wqe w;
    struct rnic_cqe cqe;
    uint64_t src, sink;

    if (!p_connect_pair(p, 2, 0)) {
        p_free(p);
        return;
    }
    src = h_alloc(p->b.h, 1);
    CHECK_EQ(t_reg_mr(p->b.h, 0x300, 0, RNIC_ACCESS_REMOTE_READ, src, 4096,
                      src), RNIC_STS_OK);
    sink = h_alloc(p->a.h, 1);
    CHECK_EQ(t_reg_mr(p->a.h, 0x200, 0, RNIC_ACCESS_LOCAL_WRITE, sink, 4096,
                      sink), RNIC_STS_OK);
    wqe(&w, RNIC_WR_READ_INV, 7);
    w.hdr.count = 1;
    w.hdr.ex = 0x200;
    w.op.rdma.remote_addr = src;
    w.op.rdma.rkey = 0x300;
    t_sge(&w.data.sge[0], sink, 512, 0x200);
    t_post_send(p->a.h, &p->a.qp, &w);
    p_ring_sq(&p->a);
    p_settle(p, 1000000000ull);
    CHECK(t_poll_cq(p->a.h, &p->a.cq, &cqe));
    CHECK_EQ(cqe.wr_id, 7);
    CHECK_EQ(cqe.opcode, RNIC_WC_READ);
    CHECK_EQ(cqe.status, RNIC_WC_LOC_PROT_ERR);
    p_free(p);
}

int main(void)
{
    test_read_inv();
    test_read_inv_not_frmr();
    if (test_failures) {
        fprintf(stderr, "test-iw-readinv: %d failure(s)\n", test_failures);
        return 1;
    }
    printf("test-iw-readinv: ok\n");
    return 0;
}
