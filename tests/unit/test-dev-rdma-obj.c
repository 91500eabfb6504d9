/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * RDMA resources: CREATE/MODIFY/QUERY/DESTROY of CQs, SRQs, QPs and MRs
 * with valid and invalid fields, context isolation, references that make
 * objects BUSY, and device reset.
 */
#include <string.h>
#include "test-rdma-helpers.h"

static void test_cq_create(void)
{
    struct t_eq aeq, ceq;
    struct harness *h = t_setup(&aeq, &ceq);
    struct rnic_admin_cmd c, ok;
    struct t_cq cq;
    uint64_t l2, list;

    t_cq_cmd(h, &ok, &cq, 5, T_COMP_EQ, 0, 4);
    c = ok;
    c.u.create_cq.cqn = 2048;
    CHECK_EQ(h_cmd(h, &c), RNIC_STS_BAD_INDEX);
    c = ok;
    c.u.create_cq.rsvd[1] = 1;
    CHECK_EQ(h_cmd(h, &c), RNIC_STS_BAD_PARAM);
    c = ok;
    c.u.create_cq.log_depth = 0;
    CHECK_EQ(h_cmd(h, &c), RNIC_STS_BAD_PARAM);
    c = ok;
    c.u.create_cq.log_depth = 16;       /* 65536 > max_cqe 32768 */
    CHECK_EQ(h_cmd(h, &c), RNIC_STS_BAD_PARAM);
    c = ok;
    c.u.create_cq.dbrec_addr += 4;
    CHECK_EQ(h_cmd(h, &c), RNIC_STS_BAD_PARAM);
    c = ok;
    c.u.create_cq.dbrec_addr = GUEST_MEM_SIZE;
    CHECK_EQ(h_cmd(h, &c), RNIC_STS_DMA_ERROR);
    c = ok;
    c.u.create_cq.eqn = 0;
    CHECK_EQ(h_cmd(h, &c), RNIC_STS_BAD_INDEX);
    c.u.create_cq.eqn = 9;
    CHECK_EQ(h_cmd(h, &c), RNIC_STS_BAD_INDEX);
    c.u.create_cq.eqn = 3;              /* not created */
    CHECK_EQ(h_cmd(h, &c), RNIC_STS_NOT_FOUND);
    c = ok;
    c.u.create_cq.uctx = 5;             /* not allocated */
    CHECK_EQ(h_cmd(h, &c), RNIC_STS_NOT_FOUND);
    c.u.create_cq.uctx = 64;
    CHECK_EQ(h_cmd(h, &c), RNIC_STS_BAD_INDEX);
    /* Page list: count, level, page size, alignment, reachability. */
    c = ok;
    c.u.create_cq.ring.nentries = 2;
    CHECK_EQ(h_cmd(h, &c), RNIC_STS_BAD_PARAM);
    c = ok;
    c.u.create_cq.ring.levels = 3;
    CHECK_EQ(h_cmd(h, &c), RNIC_STS_BAD_PARAM);
    c = ok;
    c.u.create_cq.ring.page_shift = 13;
    CHECK_EQ(h_cmd(h, &c), RNIC_STS_BAD_PARAM);
    c = ok;
    c.u.create_cq.ring.rsvd = 1;
    CHECK_EQ(h_cmd(h, &c), RNIC_STS_BAD_PARAM);
    c = ok;
    c.u.create_cq.ring.addr += 4;
    CHECK_EQ(h_cmd(h, &c), RNIC_STS_BAD_PARAM);
    c = ok;
    c.u.create_cq.ring.addr = GUEST_MEM_SIZE;
    CHECK_EQ(h_cmd(h, &c), RNIC_STS_DMA_ERROR);
    list = h_alloc(h, 1);
    c = ok;
    c.u.create_cq.ring.addr = list;
    *(uint64_t *)(h->mem + list) = cq.ring + 0x800;
    CHECK_EQ(h_cmd(h, &c), RNIC_STS_BAD_PARAM);
    *(uint64_t *)(h->mem + list) = 0x40000000;
    CHECK_EQ(h_cmd(h, &c), RNIC_STS_DMA_ERROR);
    CHECK(!h->dev.rdma->cq[5].live);

    CHECK_EQ(h_cmd(h, &ok), RNIC_STS_OK);
    CHECK_EQ(h_cmd(h, &ok), RNIC_STS_EXISTS);
    /* The EQ now has a user. */
    CHECK_EQ(t_cmd_obj(h, RNIC_CMD_DESTROY_EQ, T_COMP_EQ), RNIC_STS_BUSY);

    /* Level 2: a page of page-list page addresses. */
    t_cq_cmd(h, &c, &cq, 6, T_COMP_EQ, 0, 9);  /* 16 KiB: 4 pages */
    l2 = h_alloc(h, 1);
    *(uint64_t *)(h->mem + l2) = c.u.create_cq.ring.addr;
    c.u.create_cq.ring.addr = l2;
    c.u.create_cq.ring.levels = 2;
    CHECK_EQ(h_cmd(h, &c), RNIC_STS_OK);
    CHECK_EQ(h->dev.rdma->cq[6].ring.pages[3], cq.ring + 3 * RNIC_PAGE_SIZE);
    /* A level-2 entry that is not page aligned. */
    t_cq_cmd(h, &c, &cq, 7, T_COMP_EQ, 0, 9);
    l2 = h_alloc(h, 1);
    *(uint64_t *)(h->mem + l2) = c.u.create_cq.ring.addr + 8;
    c.u.create_cq.ring.addr = l2;
    c.u.create_cq.ring.levels = 2;
    CHECK_EQ(h_cmd(h, &c), RNIC_STS_BAD_PARAM);

    CHECK_EQ(t_cmd_obj(h, RNIC_CMD_DESTROY_CQ, 2048), RNIC_STS_BAD_INDEX);
    CHECK_EQ(t_cmd_obj(h, RNIC_CMD_DESTROY_CQ, 7), RNIC_STS_NOT_FOUND);
    c = t_mk(RNIC_CMD_DESTROY_CQ);
    c.u.obj.id = 5;
    c.u.obj.rsvd = 1;
    CHECK_EQ(h_cmd(h, &c), RNIC_STS_BAD_PARAM);
    CHECK_EQ(t_cmd_obj(h, RNIC_CMD_DESTROY_CQ, 5), RNIC_STS_OK);
    CHECK_EQ(t_cmd_obj(h, RNIC_CMD_DESTROY_CQ, 5), RNIC_STS_NOT_FOUND);
    CHECK_EQ(t_cmd_obj(h, RNIC_CMD_DESTROY_CQ, 6), RNIC_STS_OK);
    CHECK_EQ(t_cmd_obj(h, RNIC_CMD_DESTROY_EQ, T_COMP_EQ), RNIC_STS_OK);
    h_free(h);
}

static void test_srq(void)
{
    struct t_eq aeq, ceq;
    struct harness *h = t_setup(&aeq, &ceq);
    struct rnic_admin_cmd c, ok;
    struct t_cq cq;
    struct t_qp qp;
    uint64_t ring = h_alloc(h, 4);

    CHECK_EQ(t_alloc_uctx(h, 1), RNIC_STS_OK);
    CHECK_EQ(t_create_pd(h, 1, 1), RNIC_STS_OK);
    ok = t_mk(RNIC_CMD_CREATE_SRQ);
    ok.u.create_srq.srqn = 3;
    ok.u.create_srq.pdn = 0;
    ok.u.create_srq.log_depth = 5;      /* 32 x 128 B = 1 page */
    ok.u.create_srq.max_sge = 7;
    ok.u.create_srq.limit = 4;
    h_pbl(h, &ok.u.create_srq.ring, ring, 1);

    c = ok;
    c.u.create_srq.srqn = 256;
    CHECK_EQ(h_cmd(h, &c), RNIC_STS_BAD_INDEX);
    c = ok;
    c.u.create_srq.pdn = 7;
    CHECK_EQ(h_cmd(h, &c), RNIC_STS_NOT_FOUND);
    c = ok;
    c.u.create_srq.pdn = 1;             /* PD of context 1, SRQ of 0 */
    CHECK_EQ(h_cmd(h, &c), RNIC_STS_NOT_FOUND);
    c = ok;
    c.u.create_srq.log_depth = 13;      /* > max_srq_wr 4096 */
    CHECK_EQ(h_cmd(h, &c), RNIC_STS_BAD_PARAM);
    c = ok;
    c.u.create_srq.max_sge = 8;
    CHECK_EQ(h_cmd(h, &c), RNIC_STS_BAD_PARAM);
    c = ok;
    c.u.create_srq.limit = 33;          /* the depth itself is allowed */
    CHECK_EQ(h_cmd(h, &c), RNIC_STS_BAD_PARAM);
    c = ok;
    c.u.create_srq.ring.nentries = 2;
    CHECK_EQ(h_cmd(h, &c), RNIC_STS_BAD_PARAM);
    CHECK_EQ(h_cmd(h, &ok), RNIC_STS_OK);
    CHECK_EQ(h_cmd(h, &ok), RNIC_STS_EXISTS);

    c = t_mk(RNIC_CMD_MODIFY_SRQ);
    c.u.modify_srq.srqn = 3;
    c.u.modify_srq.limit = 33;
    CHECK_EQ(h_cmd(h, &c), RNIC_STS_BAD_PARAM);
    c.u.modify_srq.limit = 32;
    CHECK_EQ(h_cmd(h, &c), RNIC_STS_OK);
    c.u.modify_srq.limit = 8;
    c.u.modify_srq.rsvd = 1;
    CHECK_EQ(h_cmd(h, &c), RNIC_STS_BAD_PARAM);
    c.u.modify_srq.rsvd = 0;
    CHECK_EQ(h_cmd(h, &c), RNIC_STS_OK);
    CHECK_EQ(h->dev.rdma->srq[3].limit, 8);
    c.u.modify_srq.srqn = 4;
    CHECK_EQ(h_cmd(h, &c), RNIC_STS_NOT_FOUND);
    c.u.modify_srq.srqn = 300;
    CHECK_EQ(h_cmd(h, &c), RNIC_STS_BAD_INDEX);

    /* A QP on the SRQ keeps it (and the PD) alive. */
    CHECK_EQ(t_create_cq(h, &cq, 0, 0, 4), RNIC_STS_OK);
    t_qp_cmd(h, &c, &qp, 9, 0, 0, 0, 0, 3, 4, 0);
    CHECK_EQ(h_cmd(h, &c), RNIC_STS_OK);
    CHECK_EQ(t_cmd_obj(h, RNIC_CMD_DESTROY_SRQ, 3), RNIC_STS_BUSY);
    CHECK_EQ(t_cmd_obj(h, RNIC_CMD_DESTROY_PD, 0), RNIC_STS_BUSY);
    CHECK_EQ(t_cmd_obj(h, RNIC_CMD_DESTROY_QP, 9), RNIC_STS_OK);
    CHECK_EQ(t_cmd_obj(h, RNIC_CMD_DESTROY_SRQ, 3), RNIC_STS_OK);
    CHECK_EQ(t_cmd_obj(h, RNIC_CMD_DESTROY_SRQ, 3), RNIC_STS_NOT_FOUND);
    CHECK_EQ(t_cmd_obj(h, RNIC_CMD_DESTROY_SRQ, 256), RNIC_STS_BAD_INDEX);
    h_free(h);
}

static void test_qp_create(void)
{
    struct t_eq aeq, ceq;
    struct harness *h = t_setup(&aeq, &ceq);
    struct rnic_admin_cmd c, ok, s;
    struct t_cq cq0, cq1, ucq;
    struct t_qp qp;

    CHECK_EQ(t_alloc_uctx(h, 1), RNIC_STS_OK);
    CHECK_EQ(t_create_pd(h, 1, 1), RNIC_STS_OK);
    CHECK_EQ(t_create_pd(h, 2, 0), RNIC_STS_OK);
    CHECK_EQ(t_create_cq(h, &cq0, 0, 0, 6), RNIC_STS_OK);
    CHECK_EQ(t_create_cq(h, &cq1, 1, 0, 6), RNIC_STS_OK);
    CHECK_EQ(t_create_cq(h, &ucq, 2, 1, 6), RNIC_STS_OK);
    t_qp_cmd(h, &ok, &qp, 4, 0, 0, 0, 1, RNIC_NO_SRQ, 4, 4);

    c = ok;
    c.u.create_qp.qpn = 1024;
    CHECK_EQ(h_cmd(h, &c), RNIC_STS_BAD_INDEX);
    c = ok;
    c.u.create_qp.flags = 2;
    CHECK_EQ(h_cmd(h, &c), RNIC_STS_BAD_PARAM);
    c = ok;
    c.u.create_qp.sq_log_depth = 0;
    CHECK_EQ(h_cmd(h, &c), RNIC_STS_BAD_PARAM);
    c = ok;
    c.u.create_qp.sq_log_depth = 13;    /* > max_qp_wr 4096 */
    CHECK_EQ(h_cmd(h, &c), RNIC_STS_BAD_PARAM);
    c = ok;
    c.u.create_qp.rq_log_depth = 0;
    CHECK_EQ(h_cmd(h, &c), RNIC_STS_BAD_PARAM);
    c = ok;
    c.u.create_qp.max_send_sge = RNIC_SQ_MAX_SGE + 1;
    CHECK_EQ(h_cmd(h, &c), RNIC_STS_BAD_PARAM);
    c = ok;
    c.u.create_qp.max_recv_sge = RNIC_RQ_MAX_SGE + 1;
    CHECK_EQ(h_cmd(h, &c), RNIC_STS_BAD_PARAM);
    c = ok;
    c.u.create_qp.max_inline = RNIC_SQ_MAX_INLINE + 1;
    CHECK_EQ(h_cmd(h, &c), RNIC_STS_BAD_PARAM);
    c = ok;
    c.u.create_qp.pdn = 3;
    CHECK_EQ(h_cmd(h, &c), RNIC_STS_NOT_FOUND);
    c.u.create_qp.pdn = 1;              /* context 1's PD */
    CHECK_EQ(h_cmd(h, &c), RNIC_STS_NOT_FOUND);
    c.u.create_qp.pdn = 5000;
    CHECK_EQ(h_cmd(h, &c), RNIC_STS_BAD_INDEX);
    c = ok;
    c.u.create_qp.send_cqn = 9;
    CHECK_EQ(h_cmd(h, &c), RNIC_STS_NOT_FOUND);
    c.u.create_qp.send_cqn = 2;         /* context 1's CQ */
    CHECK_EQ(h_cmd(h, &c), RNIC_STS_NOT_FOUND);
    c = ok;
    c.u.create_qp.recv_cqn = 4096;
    CHECK_EQ(h_cmd(h, &c), RNIC_STS_BAD_INDEX);
    c = ok;
    c.u.create_qp.uctx = 2;
    CHECK_EQ(h_cmd(h, &c), RNIC_STS_NOT_FOUND);
    c = ok;
    c.u.create_qp.srqn = 7;             /* SRQ with an RQ depth */
    CHECK_EQ(h_cmd(h, &c), RNIC_STS_BAD_PARAM);
    c.u.create_qp.rq_log_depth = 0;
    memset(&c.u.create_qp.rq, 0, sizeof(c.u.create_qp.rq));
    CHECK_EQ(h_cmd(h, &c), RNIC_STS_NOT_FOUND);
    c.u.create_qp.srqn = 256;
    CHECK_EQ(h_cmd(h, &c), RNIC_STS_BAD_INDEX);
    /* An SRQ in another PD. */
    s = t_mk(RNIC_CMD_CREATE_SRQ);
    s.u.create_srq.srqn = 7;
    s.u.create_srq.pdn = 2;
    s.u.create_srq.log_depth = 5;
    s.u.create_srq.max_sge = 1;
    h_pbl(h, &s.u.create_srq.ring, h_alloc(h, 1), 1);
    CHECK_EQ(h_cmd(h, &s), RNIC_STS_OK);
    c.u.create_qp.srqn = 7;
    CHECK_EQ(h_cmd(h, &c), RNIC_STS_BAD_PARAM);
    c = ok;
    c.u.create_qp.rq.nentries = 7;
    CHECK_EQ(h_cmd(h, &c), RNIC_STS_BAD_PARAM);
    c = ok;
    c.u.create_qp.sq.addr = GUEST_MEM_SIZE;
    CHECK_EQ(h_cmd(h, &c), RNIC_STS_DMA_ERROR);
    CHECK(!rne_qp_get(&h->dev, 4));

    CHECK_EQ(h_cmd(h, &ok), RNIC_STS_OK);
    CHECK_EQ(h_cmd(h, &ok), RNIC_STS_EXISTS);
    CHECK(rne_qp_get(&h->dev, 4) != NULL);
    CHECK(rne_qp_get(&h->dev, 5) == NULL);
    CHECK(rne_qp_get(&h->dev, 0xffffffffu) == NULL);
    CHECK_EQ(rne_qp_get(&h->dev, 4)->state, RNIC_QPS_IDLE);
    CHECK_EQ(t_cmd_obj(h, RNIC_CMD_DESTROY_CQ, 0), RNIC_STS_BUSY);
    CHECK_EQ(t_cmd_obj(h, RNIC_CMD_DESTROY_CQ, 1), RNIC_STS_BUSY);

    /* The largest SQ: 4096 x 256 B = 256 pages. */
    t_qp_cmd(h, &c, &qp, 5, 0, 0, 0, 0, RNIC_NO_SRQ, 12, 1);
    CHECK_EQ(h_cmd(h, &c), RNIC_STS_OK);
    CHECK_EQ(rne_qp_get(&h->dev, 5)->sq.ring.npages, 256);

    /* A user QP: everything from context 1. */
    t_qp_cmd(h, &c, &qp, 6, 1, 1, 2, 2, RNIC_NO_SRQ, 3, 3);
    CHECK_EQ(h_cmd(h, &c), RNIC_STS_OK);
    CHECK_EQ(t_cmd_obj(h, RNIC_CMD_FREE_UCTX, 1), RNIC_STS_BUSY);

    CHECK_EQ(t_cmd_obj(h, RNIC_CMD_DESTROY_QP, 1024), RNIC_STS_BAD_INDEX);
    CHECK_EQ(t_cmd_obj(h, RNIC_CMD_DESTROY_QP, 8), RNIC_STS_NOT_FOUND);
    CHECK_EQ(t_cmd_obj(h, RNIC_CMD_DESTROY_QP, 4), RNIC_STS_OK);
    CHECK_EQ(t_cmd_obj(h, RNIC_CMD_DESTROY_CQ, 1), RNIC_STS_OK);
    CHECK_EQ(t_cmd_obj(h, RNIC_CMD_DESTROY_QP, 5), RNIC_STS_OK);
    CHECK_EQ(t_cmd_obj(h, RNIC_CMD_DESTROY_CQ, 0), RNIC_STS_OK);
    CHECK_EQ(t_cmd_obj(h, RNIC_CMD_DESTROY_QP, 6), RNIC_STS_OK);
    CHECK_EQ(t_cmd_obj(h, RNIC_CMD_DESTROY_CQ, 2), RNIC_STS_OK);
    CHECK_EQ(t_cmd_obj(h, RNIC_CMD_DESTROY_PD, 1), RNIC_STS_OK);
    CHECK_EQ(t_cmd_obj(h, RNIC_CMD_FREE_UCTX, 1), RNIC_STS_OK);
    h_free(h);
}

static void test_qp_modify_query(void)
{
    struct t_eq aeq, ceq;
    struct harness *h = t_setup(&aeq, &ceq);
    struct rnic_admin_cmd c;
    struct rnic_qp_attr a;
    struct t_cq cq;
    struct t_qp qp;
    uint64_t buf = h_alloc(h, 1);

    CHECK_EQ(t_create_cq(h, &cq, 0, 0, 6), RNIC_STS_OK);
    CHECK_EQ(t_create_qp(h, &qp, 2, 0, 0, 0, 4, 4), RNIC_STS_OK);

    c = t_mk(RNIC_CMD_MODIFY_QP);
    c.u.modify_qp.qpn = 2;
    c.u.modify_qp.attr_mask = RNIC_QP_ATTR_ACCESS | RNIC_QP_ATTR_IRD |
                              RNIC_QP_ATTR_ORD;
    c.u.modify_qp.access = RNIC_ACCESS_REMOTE_WRITE | RNIC_ACCESS_REMOTE_READ;
    c.u.modify_qp.ird = 16;
    c.u.modify_qp.ord = 17;             /* > max_ord */
    CHECK_EQ(h_cmd(h, &c), RNIC_STS_BAD_PARAM);
    CHECK_EQ(rne_qp_get(&h->dev, 2)->access, 0);    /* nothing applied */
    c.u.modify_qp.ord = 8;
    c.u.modify_qp.rsvd = 1;
    CHECK_EQ(h_cmd(h, &c), RNIC_STS_BAD_PARAM);
    c.u.modify_qp.rsvd = 0;
    c.u.modify_qp.attr_mask |= 1u << 4;
    CHECK_EQ(h_cmd(h, &c), RNIC_STS_BAD_PARAM);
    c.u.modify_qp.attr_mask &= ~(1u << 4);
    c.u.modify_qp.access = 1u << 4;
    CHECK_EQ(h_cmd(h, &c), RNIC_STS_BAD_PARAM);
    c.u.modify_qp.access = RNIC_ACCESS_REMOTE_WRITE | RNIC_ACCESS_REMOTE_READ;
    CHECK_EQ(h_cmd(h, &c), RNIC_STS_OK);
    CHECK_EQ(rne_qp_get(&h->dev, 2)->ird, 16);
    CHECK_EQ(rne_qp_get(&h->dev, 2)->ord, 8);
    c.u.modify_qp.qpn = 3;
    CHECK_EQ(h_cmd(h, &c), RNIC_STS_NOT_FOUND);
    c.u.modify_qp.qpn = 2000;
    CHECK_EQ(h_cmd(h, &c), RNIC_STS_BAD_INDEX);

    /* States: only CLOSING (from RTS) and ERROR can be asked for. */
    c = t_mk(RNIC_CMD_MODIFY_QP);
    c.u.modify_qp.qpn = 2;
    c.u.modify_qp.attr_mask = RNIC_QP_ATTR_STATE;
    c.u.modify_qp.state = RNIC_QPS_RTS;
    CHECK_EQ(h_cmd(h, &c), RNIC_STS_BAD_PARAM);
    c.u.modify_qp.state = RNIC_QPS_CLOSING;
    CHECK_EQ(h_cmd(h, &c), RNIC_STS_BAD_STATE);
    /* As if the CM had connected it. */
    rne_qp_get(&h->dev, 2)->state = RNIC_QPS_RTS;
    CHECK_EQ(h_cmd(h, &c), RNIC_STS_OK);
    CHECK_EQ(rne_qp_get(&h->dev, 2)->state, RNIC_QPS_CLOSING);
    c.u.modify_qp.attr_mask = RNIC_QP_ATTR_IRD;
    c.u.modify_qp.ird = 1;
    CHECK_EQ(h_cmd(h, &c), RNIC_STS_BAD_STATE);
    c.u.modify_qp.attr_mask = RNIC_QP_ATTR_STATE;
    c.u.modify_qp.state = RNIC_QPS_ERROR;
    CHECK_EQ(h_cmd(h, &c), RNIC_STS_OK);
    CHECK_EQ(rne_qp_get(&h->dev, 2)->state, RNIC_QPS_ERROR);
    CHECK_EQ(h_cmd(h, &c), RNIC_STS_OK);   /* again: nothing to flush */

    c = t_mk(RNIC_CMD_QUERY_QP);
    c.u.query_qp.qpn = 2;
    c.u.query_qp.buf_addr = buf;
    c.u.query_qp.buf_len = sizeof(a) - 1;
    CHECK_EQ(h_cmd(h, &c), RNIC_STS_BAD_PARAM);
    c.u.query_qp.buf_len = sizeof(a);
    c.u.query_qp.buf_addr = GUEST_MEM_SIZE - 64;
    CHECK_EQ(h_cmd(h, &c), RNIC_STS_DMA_ERROR);
    c.u.query_qp.buf_addr = buf;
    CHECK_EQ(h_cmd(h, &c), RNIC_STS_OK);
    memcpy(&a, h->mem + buf, sizeof(a));
    CHECK_EQ(a.state, RNIC_QPS_ERROR);
    CHECK_EQ(a.ird, 16);
    CHECK_EQ(a.ord, 8);
    CHECK_EQ(a.access, RNIC_ACCESS_REMOTE_WRITE | RNIC_ACCESS_REMOTE_READ);
    CHECK_EQ(a.conn_id, 0xffffffffu);
    c.u.query_qp.qpn = 3;
    CHECK_EQ(h_cmd(h, &c), RNIC_STS_NOT_FOUND);
    h_free(h);
}

static void test_mr(void)
{
    struct t_eq aeq, ceq;
    struct harness *h = t_setup(&aeq, &ceq);
    struct rnic_admin_cmd c, ok;
    uint64_t base = h_alloc(h, 4), l2;
    uint32_t rw = RNIC_ACCESS_LOCAL_WRITE | RNIC_ACCESS_REMOTE_WRITE;

    CHECK_EQ(t_alloc_uctx(h, 1), RNIC_STS_OK);
    CHECK_EQ(t_create_pd(h, 1, 1), RNIC_STS_OK);
    /* 3 pages: iova starts 0x100 into the first one. */
    ok = t_mk(RNIC_CMD_REG_MR);
    ok.u.reg_mr.stag = RNIC_STAG(3, 0x5a);
    ok.u.reg_mr.pdn = 0;
    ok.u.reg_mr.access = rw;
    ok.u.reg_mr.iova = 0x7000100;
    ok.u.reg_mr.length = 2 * RNIC_PAGE_SIZE + 1;
    h_pbl(h, &ok.u.reg_mr.pages, base, 3);

    c = ok;
    c.u.reg_mr.stag = RNIC_STAG(4096, 0);
    CHECK_EQ(h_cmd(h, &c), RNIC_STS_BAD_INDEX);
    c = ok;
    c.u.reg_mr.pdn = 9;
    CHECK_EQ(h_cmd(h, &c), RNIC_STS_NOT_FOUND);
    c = ok;
    c.u.reg_mr.access = 1u << 5;
    CHECK_EQ(h_cmd(h, &c), RNIC_STS_BAD_PARAM);
    c.u.reg_mr.access = RNIC_ACCESS_REMOTE_WRITE;   /* no LOCAL_WRITE */
    CHECK_EQ(h_cmd(h, &c), RNIC_STS_BAD_PARAM);
    c.u.reg_mr.access = RNIC_ACCESS_REMOTE_ATOMIC;
    CHECK_EQ(h_cmd(h, &c), RNIC_STS_BAD_PARAM);
    c = ok;
    c.u.reg_mr.flags = 2;
    CHECK_EQ(h_cmd(h, &c), RNIC_STS_BAD_PARAM);
    c = ok;
    c.u.reg_mr.pages.page_shift = 13;   /* not in PAGE_SIZES */
    CHECK_EQ(h_cmd(h, &c), RNIC_STS_BAD_PARAM);
    c = ok;
    c.u.reg_mr.pages.nentries = 4;      /* more pages than the range */
    CHECK_EQ(h_cmd(h, &c), RNIC_STS_BAD_PARAM);
    c = ok;
    c.u.reg_mr.length = 2 * RNIC_PAGE_SIZE - 0x100 + 1;    /* needs 3 */
    CHECK_EQ(h_cmd(h, &c), RNIC_STS_OK);
    CHECK_EQ(t_cmd_obj(h, RNIC_CMD_DEREG_MR, RNIC_STAG(3, 0)), RNIC_STS_OK);
    c.u.reg_mr.length = 2 * RNIC_PAGE_SIZE - 0x100;        /* needs 2 */
    CHECK_EQ(h_cmd(h, &c), RNIC_STS_BAD_PARAM);
    c = ok;
    c.u.reg_mr.iova = ~0ull - 4;        /* iova + length wraps */
    CHECK_EQ(h_cmd(h, &c), RNIC_STS_BAD_PARAM);
    c = ok;
    c.u.reg_mr.length = (1ull << 40) + 1;
    CHECK_EQ(h_cmd(h, &c), RNIC_STS_BAD_PARAM);
    c = ok;
    *(uint64_t *)(h->mem + c.u.reg_mr.pages.addr + 8) = base + 0x10;
    CHECK_EQ(h_cmd(h, &c), RNIC_STS_BAD_PARAM);
    *(uint64_t *)(h->mem + c.u.reg_mr.pages.addr + 8) = 1ull << 40;
    CHECK_EQ(h_cmd(h, &c), RNIC_STS_DMA_ERROR);
    *(uint64_t *)(h->mem + c.u.reg_mr.pages.addr + 8) = base + RNIC_PAGE_SIZE;
    /* Guest-physical MRs: kernel PDs only, no page list. */
    c = t_mk(RNIC_CMD_REG_MR);
    c.u.reg_mr.stag = RNIC_STAG(1, 0);
    c.u.reg_mr.pdn = 1;
    c.u.reg_mr.access = RNIC_ACCESS_LOCAL_WRITE;
    c.u.reg_mr.flags = RNIC_MR_F_PHYS;
    c.u.reg_mr.length = ~0ull;
    CHECK_EQ(h_cmd(h, &c), RNIC_STS_BAD_PARAM);
    c.u.reg_mr.pdn = 0;
    c.u.reg_mr.pages.nentries = 1;
    CHECK_EQ(h_cmd(h, &c), RNIC_STS_BAD_PARAM);
    c.u.reg_mr.pages.nentries = 0;
    CHECK_EQ(h_cmd(h, &c), RNIC_STS_OK);
    CHECK(h->dev.rdma->mr[1].phys);

    CHECK_EQ(h_cmd(h, &ok), RNIC_STS_OK);
    CHECK_EQ(h_cmd(h, &ok), RNIC_STS_EXISTS);
    CHECK_EQ(h->dev.rdma->mr[3].npages, 3);
    CHECK_EQ(h->dev.rdma->mr[3].pages[2], base + 2 * RNIC_PAGE_SIZE);
    CHECK_EQ(t_cmd_obj(h, RNIC_CMD_DESTROY_PD, 0), RNIC_STS_BUSY);

    /* 2 MiB pages through a level-2 list (two entries in one page). */
    c = t_mk(RNIC_CMD_REG_MR);
    c.u.reg_mr.stag = RNIC_STAG(10, 1);
    c.u.reg_mr.pdn = 1;
    c.u.reg_mr.access = RNIC_ACCESS_REMOTE_READ;
    c.u.reg_mr.iova = 0x40000000 + 0x1ff000;
    c.u.reg_mr.length = 0x2000;
    l2 = h_alloc(h, 2);
    *(uint64_t *)(h->mem + l2) = l2 + RNIC_PAGE_SIZE;
    *(uint64_t *)(h->mem + l2 + RNIC_PAGE_SIZE) = 0;
    *(uint64_t *)(h->mem + l2 + RNIC_PAGE_SIZE + 8) = 0x200000;
    c.u.reg_mr.pages.addr = l2;
    c.u.reg_mr.pages.nentries = 2;
    c.u.reg_mr.pages.page_shift = 21;
    c.u.reg_mr.pages.levels = 2;
    CHECK_EQ(h_cmd(h, &c), RNIC_STS_OK);
    CHECK_EQ(h->dev.rdma->mr[10].uctx, 1);
    CHECK_EQ(t_cmd_obj(h, RNIC_CMD_FREE_UCTX, 1), RNIC_STS_BUSY);

    /* ALLOC_MR. */
    c = t_mk(RNIC_CMD_ALLOC_MR);
    c.u.alloc_mr.stag = RNIC_STAG(11, 7);
    c.u.alloc_mr.pdn = 0;
    c.u.alloc_mr.max_pages = 0;
    CHECK_EQ(h_cmd(h, &c), RNIC_STS_BAD_PARAM);
    c.u.alloc_mr.max_pages = (1u << 18) + 1;
    CHECK_EQ(h_cmd(h, &c), RNIC_STS_BAD_PARAM);
    c.u.alloc_mr.max_pages = 16;
    c.u.alloc_mr.rsvd = 1;
    CHECK_EQ(h_cmd(h, &c), RNIC_STS_BAD_PARAM);
    c.u.alloc_mr.rsvd = 0;
    c.u.alloc_mr.pdn = 4;
    CHECK_EQ(h_cmd(h, &c), RNIC_STS_NOT_FOUND);
    c.u.alloc_mr.pdn = 0;
    c.u.alloc_mr.stag = RNIC_STAG(3, 7);
    CHECK_EQ(h_cmd(h, &c), RNIC_STS_EXISTS);
    c.u.alloc_mr.stag = RNIC_STAG(11, 7);
    CHECK_EQ(h_cmd(h, &c), RNIC_STS_OK);
    CHECK_EQ(h->dev.rdma->mr[11].state, RNE_MR_INVALID);
    CHECK_EQ(rne_mr_check(&h->dev, RNIC_STAG(11, 7), 0, 0, 0, 0),
             RNE_MR_E_STAG);

    /* DEREG_MR goes by index (a fast-register key moves). */
    CHECK_EQ(t_cmd_obj(h, RNIC_CMD_DEREG_MR, RNIC_STAG(4096, 0)),
             RNIC_STS_BAD_INDEX);
    CHECK_EQ(t_cmd_obj(h, RNIC_CMD_DEREG_MR, RNIC_STAG(12, 0)),
             RNIC_STS_NOT_FOUND);
    CHECK_EQ(t_cmd_obj(h, RNIC_CMD_DEREG_MR, RNIC_STAG(11, 0x99)),
             RNIC_STS_OK);
    CHECK_EQ(t_cmd_obj(h, RNIC_CMD_DEREG_MR, RNIC_STAG(3, 0x5a)), RNIC_STS_OK);
    CHECK_EQ(t_cmd_obj(h, RNIC_CMD_DEREG_MR, RNIC_STAG(1, 0)), RNIC_STS_OK);
    CHECK_EQ(t_cmd_obj(h, RNIC_CMD_DESTROY_PD, 0), RNIC_STS_OK);
    CHECK_EQ(t_cmd_obj(h, RNIC_CMD_DEREG_MR, RNIC_STAG(10, 1)), RNIC_STS_OK);
    CHECK_EQ(t_cmd_obj(h, RNIC_CMD_DESTROY_PD, 1), RNIC_STS_OK);
    CHECK_EQ(t_cmd_obj(h, RNIC_CMD_FREE_UCTX, 1), RNIC_STS_OK);
    h_free(h);
}

/*
 * A level-2 list spanning two list pages: 600 page entries alternating
 * between two guest pages; a write into entry 550 lands where it should.
 */
static void test_mr_level2(void)
{
    struct t_eq aeq, ceq;
    struct harness *h = t_setup(&aeq, &ceq);
    struct rnic_admin_cmd c = t_mk(RNIC_CMD_REG_MR);
    uint64_t a = h_alloc(h, 1), b = h_alloc(h, 1), top = h_alloc(h, 1);
    uint64_t l1 = h_alloc(h, 2), iova = 0x100000000ull, p;
    uint32_t stag = RNIC_STAG(9, 9), i;
    uint8_t v[8] = { 1, 2, 3, 4, 5, 6, 7, 8 }, back[8];

    for (i = 0; i < 600; i++) {
        p = (i & 1) ? b : a;
        memcpy(h->mem + l1 + 8 * i, &p, 8);
    }
    p = l1;
    memcpy(h->mem + top, &p, 8);
    p = l1 + RNIC_PAGE_SIZE;
    memcpy(h->mem + top + 8, &p, 8);
    c.u.reg_mr.stag = stag;
    c.u.reg_mr.pdn = 0;
    c.u.reg_mr.access = RNIC_ACCESS_LOCAL_WRITE;
    c.u.reg_mr.iova = iova;
    c.u.reg_mr.length = 600ull * RNIC_PAGE_SIZE;
    c.u.reg_mr.pages.addr = top;
    c.u.reg_mr.pages.nentries = 600;
    c.u.reg_mr.pages.page_shift = RNIC_PAGE_SHIFT;
    c.u.reg_mr.pages.levels = 2;
    CHECK_EQ(h_cmd(h, &c), RNIC_STS_OK);
    CHECK_EQ(h->dev.rdma->mr[9].pages[599], b);
    CHECK_EQ(rne_mr_write(&h->dev, stag, 0, RNIC_ACCESS_LOCAL_WRITE,
                          iova + 550ull * RNIC_PAGE_SIZE + 16, v, 8),
             RNE_MR_OK);
    CHECK(!memcmp(h->mem + a + 16, v, 8));
    CHECK_EQ(rne_mr_read(&h->dev, stag, 0, 0,
                         iova + 600ull * RNIC_PAGE_SIZE - 8, back, 8),
             RNE_MR_OK);
    /* The second list page missing from the top level: DMA error. */
    c.u.reg_mr.stag = RNIC_STAG(10, 0);
    p = GUEST_MEM_SIZE;
    memcpy(h->mem + top + 8, &p, 8);
    CHECK_EQ(h_cmd(h, &c), RNIC_STS_DMA_ERROR);
    CHECK_EQ(h->dev.rdma->mr[10].state, RNE_MR_FREE);
    h_free(h);
}

/* Reset forgets every object and every latched doorbell. */
static void test_reset(void)
{
    struct t_eq aeq, ceq;
    struct harness *h = t_setup(&aeq, &ceq);
    struct t_cq cq;
    struct t_qp qp;
    uint64_t base = h_alloc(h, 1);
    unsigned i;

    CHECK_EQ(t_create_cq(h, &cq, 0, 0, 6), RNIC_STS_OK);
    CHECK_EQ(t_create_qp(h, &qp, 0, 0, 0, 0, 4, 4), RNIC_STS_OK);
    CHECK_EQ(t_reg_mr(h, RNIC_STAG(0, 1), 0, 0, 0, 64, base), RNIC_STS_OK);
    CHECK(rne_dev_doorbell(&h->dev, 0, RNIC_DB_SQ, RNIC_DB_VAL(0, 0, 1)));
    rne_dev_reg_write(&h->dev, RNIC_REG_DEV_CTRL, RNIC_CTRL_RESET);
    h_run(h);
    CHECK(!rne_qp_get(&h->dev, 0));
    CHECK(!h->dev.rdma->cq[0].live);
    CHECK_EQ(h->dev.rdma->mr[0].state, RNE_MR_FREE);
    CHECK_EQ(h->dev.rdma->db_count, 0);
    for (i = 0; i < h->dev.cfg.max_pd; i++) {
        CHECK_EQ(h->dev.rdma->pd_users[i], 0);
    }
    /* Same numbers work again after re-enabling. */
    h->alloc_next = 0x10000;
    CHECK(h_enable(h, 4, 4));
    aeq.ring = h_create_eq(h, T_ASYNC_EQ, 6, RNIC_EQ_F_ASYNC);
    ceq.ring = h_create_eq(h, T_COMP_EQ, 6, 0);
    CHECK_EQ(t_create_pd(h, 0, 0), RNIC_STS_OK);
    CHECK_EQ(t_create_cq(h, &cq, 0, 0, 6), RNIC_STS_OK);
    CHECK_EQ(t_create_qp(h, &qp, 0, 0, 0, 0, 4, 4), RNIC_STS_OK);
    CHECK_EQ(rne_qp_get(&h->dev, 0)->sq.pidx, 0);
    h_free(h);
}

/* Small tables: every object number at its limit, max_srq 0. */
static void test_small_config(void)
{
    struct rne_dev_config cfg;
    struct rnic_admin_cmd c;
    struct harness *h;

    rne_dev_config_default(&cfg);
    cfg.max_qp = 1;
    cfg.max_cq = 1;
    cfg.max_mr = 1;
    cfg.max_srq = 0;
    h = h_new(&cfg);
    CHECK(h_enable(h, 4, 4));
    h_create_eq(h, T_COMP_EQ, 6, 0);
    CHECK_EQ(t_create_pd(h, 0, 0), RNIC_STS_OK);
    c = t_mk(RNIC_CMD_CREATE_SRQ);
    CHECK_EQ(h_cmd(h, &c), RNIC_STS_BAD_INDEX);
    CHECK_EQ(t_cmd_obj(h, RNIC_CMD_DESTROY_SRQ, 0), RNIC_STS_BAD_INDEX);
    CHECK_EQ(t_reg_mr(h, RNIC_STAG(1, 0), 0, 0, 0, 64, h_alloc(h, 1)),
             RNIC_STS_BAD_INDEX);
    CHECK_EQ(t_reg_mr(h, RNIC_STAG(0, 0), 0, 0, 0, 64, h_alloc(h, 1)),
             RNIC_STS_OK);
    /* SRQ doorbells have no object to reach. */
    CHECK(rne_dev_doorbell(&h->dev, 0, RNIC_DB_SRQ, RNIC_DB_VAL(0, 0, 1)));
    h_run(h);
    CHECK(h->guest_errors >= 1);
    h_free(h);
}

int main(void)
{
    test_cq_create();
    test_srq();
    test_qp_create();
    test_qp_modify_query();
    test_mr();
    test_mr_level2();
    test_reset();
    test_small_config();
    return t_report("test-dev-rdma-obj");
}
