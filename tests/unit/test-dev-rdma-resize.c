/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * RESIZE_CQ and REREG_MR (docs/hardware-interface.md section 5): the CQEs
 * not consumed move to the new ring in order and the CQ goes on there;
 * a shrink below them, a CQ in error, a garbage consumer record, bad
 * fields and unreachable rings are refused and change nothing; an MR takes
 * a new page list, PD, access and key at once, within the page-list budget
 * less what it gives back, and refusals leave it as it was.
 */
#include <string.h>
#include "test-rdma-helpers.h"

static int post(struct harness *h, uint32_t cqn, uint64_t wr_id)
{
    struct rnic_cqe cqe;

    memset(&cqe, 0, sizeof(cqe));
    cqe.wr_id = wr_id;
    return rne_cq_post(&h->dev, cqn, &cqe);
}

/* A RESIZE_CQ to 2^log entries on fresh memory; *n gets result0. */
static unsigned resize(struct harness *h, struct t_cq *cq, unsigned log,
                       struct t_cq *out, uint32_t *n)
{
    struct rnic_admin_cmd c = t_mk(RNIC_CMD_RESIZE_CQ);
    uint32_t pages = rne_ring_pages_needed(1u << log, RNIC_CQE_SIZE);
    struct rnic_admin_cqe cqe;

    *out = *cq;
    out->depth = 1u << log;
    out->cons = 0;
    out->ring = h_alloc(h, pages);
    out->dbrec = h_alloc(h, 1) + 8;
    c.u.resize_cq.cqn = cq->cqn;
    c.u.resize_cq.log_depth = (uint8_t)log;
    c.u.resize_cq.dbrec_addr = out->dbrec;
    h_pbl(h, &c.u.resize_cq.ring, out->ring, pages);
    h_post(h, &c);
    h_ring_admin(h);
    h_run(h);
    if (!h_poll(h, &cqe)) {
        return 0xff;
    }
    *n = cqe.result0;
    return cqe.status;
}

static unsigned resize_cmd(struct harness *h, struct rnic_admin_cmd *c)
{
    return h_cmd(h, c);
}

/* The CQ still takes and gives CQEs in order: wr_ids from..from+k-1. */
static void check_cq_works(struct harness *h, struct t_cq *cq,
                           uint64_t from, unsigned k)
{
    struct rnic_cqe cqe;
    unsigned i, j;

    /* In batches of a ring's worth. */
    for (i = 0; i < k; i += cq->depth) {
        for (j = i; j < k && j < i + cq->depth; j++) {
            CHECK_EQ(post(h, cq->cqn, from + j), 0);
        }
        for (j = i; j < k && j < i + cq->depth; j++) {
            CHECK(t_poll_cq(h, cq, &cqe));
            CHECK_EQ(cqe.wr_id, from + j);
        }
    }
    CHECK(!t_poll_cq(h, cq, &cqe));
}

static void test_grow_and_shrink(void)
{
    struct t_eq aeq, ceq;
    struct harness *h = t_setup(&aeq, &ceq);
    struct rnic_cqe cqe;
    struct t_cq cq, big, small;
    uint64_t pbl_pages;
    uint32_t n = 99;
    unsigned i;

    CHECK_EQ(t_create_cq(h, &cq, 3, 0, 2), RNIC_STS_OK);     /* 4 */
    /* Past a wrap of the old ring: 5 posted and taken, 3 waiting. */
    check_cq_works(h, &cq, 1, 5);
    for (i = 0; i < 3; i++) {
        CHECK_EQ(post(h, 3, 10 + i), 0);
    }
    CHECK(t_poll_cq(h, &cq, &cqe));
    CHECK_EQ(cqe.wr_id, 10);
    pbl_pages = h->dev.rdma->pbl_pages;
    CHECK_EQ(resize(h, &cq, 4, &big, &n), RNIC_STS_OK);     /* 16 */
    CHECK_EQ(n, 2);
    /* The old ring's one page is returned, the new one's taken. */
    CHECK_EQ(h->dev.rdma->pbl_pages, pbl_pages);
    CHECK(t_poll_cq(h, &big, &cqe));
    CHECK_EQ(cqe.wr_id, 11);
    CHECK(t_poll_cq(h, &big, &cqe));
    CHECK_EQ(cqe.wr_id, 12);
    CHECK(!t_poll_cq(h, &big, &cqe));
    /* Twice around the new ring, 12 at a time (more than the old held). */
    check_cq_works(h, &big, 100, 12);
    check_cq_works(h, &big, 200, 12);
    check_cq_works(h, &big, 300, 12);

    /* Shrinking below the 10 waiting CQEs is refused; nothing changed. */
    for (i = 0; i < 10; i++) {
        CHECK_EQ(post(h, 3, 400 + i), 0);
    }
    CHECK_EQ(resize(h, &big, 3, &small, &n), RNIC_STS_BAD_STATE);
    for (i = 0; i < 8; i++) {
        CHECK(t_poll_cq(h, &big, &cqe));
        CHECK_EQ(cqe.wr_id, 400 + i);
    }
    /* Two left: a 2-entry ring holds them. */
    CHECK_EQ(resize(h, &big, 1, &small, &n), RNIC_STS_OK);
    CHECK_EQ(n, 2);
    CHECK(t_poll_cq(h, &small, &cqe));
    CHECK_EQ(cqe.wr_id, 408);
    CHECK(t_poll_cq(h, &small, &cqe));
    CHECK_EQ(cqe.wr_id, 409);
    check_cq_works(h, &small, 500, 2);
    check_cq_works(h, &small, 600, 2);
    /* Full and one more: the overrun rule holds on the new ring. */
    CHECK_EQ(post(h, 3, 700), 0);
    CHECK_EQ(post(h, 3, 701), 0);
    CHECK_EQ(post(h, 3, 702), -1);
    CHECK_EQ(t_drain_eq(h, &aeq, RNIC_EQE_ASYNC), 1);
    /* A CQ in error is not resized. */
    CHECK_EQ(resize(h, &small, 4, &big, &n), RNIC_STS_BAD_STATE);
    CHECK_EQ(t_cmd_obj(h, RNIC_CMD_DESTROY_CQ, 3), RNIC_STS_OK);
    CHECK_EQ(h->dev.rdma->pbl_pages, 0);
    h_free(h);
}

static void test_arm_carried(void)
{
    struct t_eq aeq, ceq;
    struct harness *h = t_setup(&aeq, &ceq);
    struct t_cq cq, big;
    struct rnic_eqe e;
    uint32_t n;

    CHECK_EQ(t_create_cq(h, &cq, 0, 0, 2), RNIC_STS_OK);
    /* Armed, nothing waiting: the arm stays for the new ring. */
    h_doorbell(h, RNIC_DB_CQ, 0, RNIC_DB_ARM, 0);
    h_run(h);
    CHECK_EQ(resize(h, &cq, 3, &big, &n), RNIC_STS_OK);
    CHECK_EQ(n, 0);
    CHECK_EQ(t_drain_eq(h, &ceq, 0), 0);
    CHECK_EQ(post(h, 0, 1), 0);
    CHECK(t_poll_eq(h, &ceq, &e));
    CHECK_EQ(e.type, RNIC_EQE_COMP);
    CHECK_EQ(e.obj, 0);
    /* An arm latched before the resize with a CQE waiting: one event. */
    h_doorbell(h, RNIC_DB_CQ, 0, RNIC_DB_ARM, 0);
    CHECK_EQ(resize(h, &big, 4, &cq, &n), RNIC_STS_OK);
    CHECK_EQ(n, 1);
    CHECK_EQ(t_drain_eq(h, &ceq, RNIC_EQE_COMP), 1);
    CHECK_EQ(t_drain_eq(h, &aeq, 0), 0);
    h_free(h);
}

static void test_bad_resize(void)
{
    struct t_eq aeq, ceq;
    struct harness *h = t_setup(&aeq, &ceq);
    struct rnic_admin_cmd c;
    struct rnic_cqe cqe;
    struct t_cq cq, other;
    uint64_t pbl_pages;
    uint32_t n, bad = 1000;

    CHECK_EQ(t_create_cq(h, &cq, 2, 0, 3), RNIC_STS_OK);
    CHECK_EQ(post(h, 2, 1), 0);
    pbl_pages = h->dev.rdma->pbl_pages;
    /* Fields: a fresh CREATE_CQ shape turned into RESIZE_CQ. */
    t_cq_cmd(h, &c, &other, 2, T_COMP_EQ, 0, 3);
    c.hdr.opcode = RNIC_CMD_RESIZE_CQ;
    memset(&c.u.resize_cq, 0, sizeof(c.u.resize_cq));
    c.u.resize_cq.cqn = 2;
    c.u.resize_cq.log_depth = 3;
    c.u.resize_cq.dbrec_addr = other.dbrec;
    h_pbl(h, &c.u.resize_cq.ring, other.ring, 1);
    c.u.resize_cq.cqn = h->dev.cfg.max_cq;
    CHECK_EQ(resize_cmd(h, &c), RNIC_STS_BAD_INDEX);
    c.u.resize_cq.cqn = 5;
    CHECK_EQ(resize_cmd(h, &c), RNIC_STS_NOT_FOUND);
    c.u.resize_cq.cqn = 2;
    c.u.resize_cq.log_depth = 0;
    CHECK_EQ(resize_cmd(h, &c), RNIC_STS_BAD_PARAM);
    c.u.resize_cq.log_depth = 31;
    CHECK_EQ(resize_cmd(h, &c), RNIC_STS_BAD_PARAM);
    c.u.resize_cq.log_depth = 3;
    c.u.resize_cq.rsvd[1] = 1;
    CHECK_EQ(resize_cmd(h, &c), RNIC_STS_BAD_PARAM);
    c.u.resize_cq.rsvd[1] = 0;
    c.u.resize_cq.dbrec_addr = other.dbrec + 4;
    CHECK_EQ(resize_cmd(h, &c), RNIC_STS_BAD_PARAM);
    c.u.resize_cq.dbrec_addr = (uint64_t)GUEST_MEM_SIZE + 64;
    CHECK_EQ(resize_cmd(h, &c), RNIC_STS_DMA_ERROR);
    c.u.resize_cq.dbrec_addr = other.dbrec;
    /* The new ring's page outside guest memory. */
    memcpy(h->mem + c.u.resize_cq.ring.addr, &(uint64_t){GUEST_MEM_SIZE}, 8);
    CHECK_EQ(resize_cmd(h, &c), RNIC_STS_DMA_ERROR);
    memcpy(h->mem + c.u.resize_cq.ring.addr, &other.ring, 8);
    /* A page list too short for the depth. */
    c.u.resize_cq.log_depth = 8;
    CHECK_EQ(resize_cmd(h, &c), RNIC_STS_BAD_PARAM);
    c.u.resize_cq.log_depth = 3;
    /* A consumer record beyond what the device produced. */
    memcpy(h->mem + cq.dbrec, &bad, 4);
    CHECK_EQ(resize_cmd(h, &c), RNIC_STS_BAD_STATE);
    memset(h->mem + cq.dbrec, 0, 4);
    /* Nothing changed: the same pages held, the waiting CQE in place. */
    CHECK_EQ(h->dev.rdma->pbl_pages, pbl_pages);
    CHECK(t_poll_cq(h, &cq, &cqe));
    CHECK_EQ(cqe.wr_id, 1);
    check_cq_works(h, &cq, 2, 8);
    /* And the same command, fixed, goes through. */
    CHECK_EQ(post(h, 2, 10), 0);
    CHECK_EQ(resize(h, &cq, 3, &other, &n), RNIC_STS_OK);
    CHECK_EQ(n, 1);
    CHECK(t_poll_cq(h, &other, &cqe));
    CHECK_EQ(cqe.wr_id, 10);
    check_cq_works(h, &other, 11, 8);
    h_free(h);
}

/* Over the budget: the new ring is refused and the old one stays. */
static void test_resize_budget(void)
{
    struct rne_dev_config cfg;
    struct rnic_cqe cqe;
    struct t_cq cq, big;
    struct harness *h;
    uint32_t n;

    rne_dev_config_default(&cfg);
    cfg.max_mr_pages = 4;
    h = h_new(&cfg);
    CHECK(h_enable(h, 5, 5));
    h_create_eq(h, T_COMP_EQ, 6, 0);
    CHECK_EQ(t_create_cq(h, &cq, 0, 0, 7), RNIC_STS_OK);     /* 1 page */
    CHECK_EQ(post(h, 0, 7), 0);
    /* 4 pages more than the 3 left: both rings are held during the copy. */
    CHECK_EQ(resize(h, &cq, 9, &big, &n), RNIC_STS_NO_RESOURCES);
    CHECK_EQ(h->dev.rdma->pbl_pages, 1);
    CHECK_EQ(resize(h, &cq, 8, &big, &n), RNIC_STS_OK);      /* 2 pages */
    CHECK_EQ(n, 1);
    CHECK_EQ(h->dev.rdma->pbl_pages, 2);
    CHECK(t_poll_cq(h, &big, &cqe));
    CHECK_EQ(cqe.wr_id, 7);
    check_cq_works(h, &big, 8, 300);
    h_free(h);
}

static unsigned rereg(struct harness *h, uint32_t stag, uint32_t pdn,
                      uint32_t access, uint64_t iova, uint64_t len,
                      uint64_t base)
{
    struct rnic_admin_cmd c = t_mk(RNIC_CMD_REREG_MR);
    uint32_t pages = (uint32_t)(((iova & (RNIC_PAGE_SIZE - 1)) + len +
                                 RNIC_PAGE_SIZE - 1) / RNIC_PAGE_SIZE);

    c.u.reg_mr.stag = stag;
    c.u.reg_mr.pdn = pdn;
    c.u.reg_mr.access = access;
    c.u.reg_mr.iova = iova;
    c.u.reg_mr.length = len;
    h_pbl(h, &c.u.reg_mr.pages, base, pages);
    return h_cmd(h, &c);
}

#define RW (RNIC_ACCESS_LOCAL_WRITE | RNIC_ACCESS_REMOTE_WRITE | \
            RNIC_ACCESS_REMOTE_READ)

static void test_rereg(void)
{
    struct t_eq aeq, ceq;
    struct harness *h = t_setup(&aeq, &ceq);
    struct rne_dev *d = &h->dev;
    uint64_t a = h_alloc(h, 2), b = h_alloc(h, 3), pbl_pages;
    struct rnic_admin_cmd c;
    struct rne_mr *mr = &d->rdma->mr[5];
    uint32_t stag = RNIC_STAG(5, 0x11), stag2 = RNIC_STAG(5, 0x22);

    CHECK_EQ(t_create_pd(h, 1, 0), RNIC_STS_OK);
    CHECK_EQ(t_reg_mr(h, stag, 0, RNIC_ACCESS_LOCAL_WRITE, 0x10000, 8192, a),
             RNIC_STS_OK);
    pbl_pages = d->rdma->pbl_pages;
    /* New pages, iova, length, access, PD and key at once. */
    CHECK_EQ(rereg(h, stag2, 1, RW, 0x7000100, 3 * 4096 - 0x100, b),
             RNIC_STS_OK);
    CHECK_EQ(d->rdma->pbl_pages, pbl_pages + 1);
    CHECK_EQ(mr->pages[0], b);
    CHECK_EQ(mr->pages[2], b + 2 * 4096);
    CHECK_EQ(rne_mr_check(d, stag2, 1, RNIC_ACCESS_REMOTE_WRITE, 0x7000100,
                          3 * 4096 - 0x100), RNE_MR_OK);
    CHECK_EQ(rne_mr_check(d, stag, 1, 0, 0x7000100, 1), RNE_MR_E_STAG);
    CHECK_EQ(rne_mr_check(d, stag2, 0, 0, 0x7000100, 1), RNE_MR_E_PD);
    CHECK_EQ(rne_mr_check(d, stag2, 1, 0, 0x10000, 1), RNE_MR_E_BOUNDS);
    /* PD 0 is no longer held by it, PD 1 is. */
    CHECK_EQ(t_cmd_obj(h, RNIC_CMD_DESTROY_PD, 1), RNIC_STS_BUSY);
    CHECK_EQ(t_create_pd(h, 2, 0), RNIC_STS_OK);
    CHECK_EQ(rereg(h, stag2, 2, RW, 0x7000100, 100, b), RNIC_STS_OK);
    CHECK_EQ(t_cmd_obj(h, RNIC_CMD_DESTROY_PD, 1), RNIC_STS_OK);

    /* Refusals leave the MR as it was (PD 2, one page at b, RW). */
    CHECK_EQ(rereg(h, RNIC_STAG(h->dev.cfg.max_mr, 0), 2, RW, 0, 10, a),
             RNIC_STS_BAD_INDEX);
    CHECK_EQ(rereg(h, RNIC_STAG(6, 0), 2, RW, 0, 10, a), RNIC_STS_NOT_FOUND);
    CHECK_EQ(rereg(h, stag2, 9, RW, 0, 10, a), RNIC_STS_NOT_FOUND);
    CHECK_EQ(rereg(h, stag2, 2, RNIC_ACCESS_REMOTE_WRITE, 0, 10, a),
             RNIC_STS_BAD_PARAM);
    CHECK_EQ(rereg(h, stag2, 2, RW, UINT64_MAX - 4, 10, a),
             RNIC_STS_BAD_PARAM);
    CHECK_EQ(rereg(h, stag2, 2, RW, 0, 10, (uint64_t)GUEST_MEM_SIZE),
             RNIC_STS_DMA_ERROR);
    c = t_mk(RNIC_CMD_REREG_MR);
    c.u.reg_mr.stag = stag2;
    c.u.reg_mr.pdn = 2;
    c.u.reg_mr.flags = RNIC_MR_F_PHYS;
    c.u.reg_mr.length = 4096;
    CHECK_EQ(h_cmd(h, &c), RNIC_STS_BAD_PARAM);
    c.u.reg_mr.flags = 0;
    h_pbl(h, &c.u.reg_mr.pages, a, 2);      /* 2 entries for 1 page */
    CHECK_EQ(h_cmd(h, &c), RNIC_STS_BAD_PARAM);
    /* A PD of another context. */
    CHECK_EQ(t_alloc_uctx(h, 1), RNIC_STS_OK);
    CHECK_EQ(t_create_pd(h, 3, 1), RNIC_STS_OK);
    CHECK_EQ(rereg(h, stag2, 3, RW, 0, 10, a), RNIC_STS_BAD_PARAM);
    CHECK_EQ(mr->pdn, 2);
    CHECK_EQ(mr->npages, 1);
    CHECK_EQ(mr->pages[0], b);
    CHECK_EQ(mr->access, RW);
    CHECK_EQ(rne_mr_check(d, stag2, 2, RNIC_ACCESS_REMOTE_READ, 0x7000100,
                          100), RNE_MR_OK);

    /* Fast-register and PHYS MRs keep their kind. */
    c = t_mk(RNIC_CMD_ALLOC_MR);
    c.u.alloc_mr.stag = RNIC_STAG(7, 1);
    c.u.alloc_mr.pdn = 0;
    c.u.alloc_mr.max_pages = 4;
    CHECK_EQ(h_cmd(h, &c), RNIC_STS_OK);
    CHECK_EQ(rereg(h, RNIC_STAG(7, 1), 0, RW, 0, 10, a), RNIC_STS_BAD_PARAM);
    c = t_mk(RNIC_CMD_REG_MR);
    c.u.reg_mr.stag = RNIC_STAG(8, 1);
    c.u.reg_mr.flags = RNIC_MR_F_PHYS;
    c.u.reg_mr.length = UINT64_MAX;
    c.u.reg_mr.access = RNIC_ACCESS_LOCAL_WRITE;
    CHECK_EQ(h_cmd(h, &c), RNIC_STS_OK);
    CHECK_EQ(rereg(h, RNIC_STAG(8, 1), 0, RW, 0, 10, a), RNIC_STS_BAD_PARAM);

    /* Deregistered, the budget is back to the other MRs'. */
    CHECK_EQ(t_cmd_obj(h, RNIC_CMD_DEREG_MR, stag2), RNIC_STS_OK);
    CHECK_EQ(t_cmd_obj(h, RNIC_CMD_DESTROY_PD, 2), RNIC_STS_OK);
    CHECK_EQ(d->rdma->pbl_pages, 4);
    h_free(h);
}

/* The budget counts what the MR gives back. */
static void test_rereg_budget(void)
{
    struct rne_dev_config cfg;
    struct harness *h;
    uint64_t a;
    uint32_t stag = RNIC_STAG(1, 0);

    rne_dev_config_default(&cfg);
    cfg.max_mr_pages = 8;
    h = h_new(&cfg);
    CHECK(h_enable(h, 5, 5));
    CHECK_EQ(t_create_pd(h, 0, 0), RNIC_STS_OK);
    a = h_alloc(h, 9);
    CHECK_EQ(t_reg_mr(h, stag, 0, RW, 0, 6 * 4096, a), RNIC_STS_OK);
    CHECK_EQ(t_reg_mr(h, RNIC_STAG(2, 0), 0, RW, 0, 4096, a), RNIC_STS_OK);
    /* 7 of 8 held: this MR may grow from 6 to 7 pages, not to 8. */
    CHECK_EQ(rereg(h, stag, 0, RW, 0, 8 * 4096, a), RNIC_STS_NO_RESOURCES);
    CHECK_EQ(h->dev.rdma->pbl_pages, 7);
    CHECK_EQ(h->dev.rdma->mr[1].npages, 6);
    CHECK_EQ(rereg(h, stag, 0, RW, 0, 7 * 4096, a), RNIC_STS_OK);
    CHECK_EQ(h->dev.rdma->pbl_pages, 8);
    CHECK_EQ(rereg(h, stag, 0, RW, 0, 4096, a), RNIC_STS_OK);
    CHECK_EQ(h->dev.rdma->pbl_pages, 2);
    h_free(h);
}

int main(void)
{
    test_grow_and_shrink();
    test_arm_carried();
    test_bad_resize();
    test_resize_budget();
    test_rereg();
    test_rereg_budget();
    return t_report("test-dev-rdma-resize");
}
