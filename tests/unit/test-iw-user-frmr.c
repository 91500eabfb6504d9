/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Fast-register is for the kernel only (issue 17, finding 5): a REG_MR WQE
 * carries guest-physical page addresses, like the PHYS flag the device
 * already refuses to user contexts.  So ALLOC_MR on a PD of a user context
 * fails with BAD_PARAM, and a REG_MR WQE posted on a user QP (doorbell
 * from the context's own page) completes with LOC_QP_OP_ERR.  LOCAL_INV is
 * a user WQE since memory windows (it invalidates the QP's own type 2
 * windows), but a kernel fast-register STag is out of its reach: another
 * PD, LOC_PROT_ERR.
 * Two devices back to back: the user QPs are connected, so the WQEs run.
 */
#include <string.h>
#include "test-iw-pair.h"

#define UCTX        1
#define UPD         5
#define UCQ         4
#define PORT2       (P_PORT + 1)

static void wqe(struct rnic_sq_wqe *w, uint8_t op, uint64_t wr_id)
{
    memset(w, 0, sizeof(*w));
    w->hdr.wr_id = wr_id;
    w->hdr.opcode = op;
    w->hdr.flags = RNIC_WQE_SIGNALED;
}

/* A's user QP aqpn connected to B's kernel QP bqpn through port. */
static bool connect_user(struct pair *p, struct t_qp *aqp, uint32_t aqpn,
                         uint32_t bqpn, uint32_t listen_id, uint16_t port)
{
    struct rnic_admin_cmd c;
    struct t_qp bqp;
    struct rnic_eqe e;
    uint32_t conn = 0;
    bool ok = true;

    t_qp_cmd(p->a.h, &c, aqp, aqpn, UPD, UCTX, UCQ, UCQ, RNIC_NO_SRQ, 6, 6);
    ok &= h_cmd(p->a.h, &c) == RNIC_STS_OK;
    ok &= t_create_qp(p->b.h, &bqp, bqpn, 0, P_CQ, P_CQ, 6, 6) ==
          RNIC_STS_OK;
    ok &= p_listen(&p->b, listen_id, port) == RNIC_STS_OK;
    ok &= p_connect_port(p, aqpn, port, 2, RNIC_MPA_CRC, NULL, &conn) ==
          RNIC_STS_OK;
    p_settle(p, 1000000000ull);
    ok &= p_cm_event(&p->b, &e, NULL) && e.code == RNIC_CM_CONNECT_REQUEST;
    ok &= p_accept(&p->b, e.obj, bqpn, RNIC_MPA_CRC, NULL) == RNIC_STS_OK;
    p_settle(p, 1000000000ull);
    ok &= p_cm_event(&p->a, &e, NULL) && e.code == RNIC_CM_CONNECT_REPLY;
    ok &= p_cm_event(&p->b, &e, NULL) && e.code == RNIC_CM_ESTABLISHED;
    ok &= p_qp_state(&p->a, aqpn) == RNIC_QPS_RTS;
    CHECK(ok);
    return ok;
}

/* Post one WQE on a user QP, ring its context's doorbell page. */
static void user_post(struct pair *p, struct t_qp *qp,
                      const struct rnic_sq_wqe *w)
{
    t_post_send(p->a.h, qp, w);
    rne_dev_doorbell(&p->a.h->dev, UCTX, RNIC_DB_SQ,
                     RNIC_DB_VAL(qp->qpn, 0, qp->sq_prod));
    h_run(p->a.h);
    p_settle(p, 100000000ull);
}

static void test_user_frmr(void)
{
    struct pair *p = p_new();
    struct rnic_admin_cmd c;
    struct t_qp q1, q2;
    struct t_cq ucq;
    struct rnic_sq_wqe w;
    struct rnic_cqe cqe;
    uint32_t stag = RNIC_STAG(9, 0);
    uint64_t sink;
    unsigned sts;

    CHECK_EQ(t_alloc_uctx(p->a.h, UCTX), RNIC_STS_OK);
    CHECK_EQ(t_create_pd(p->a.h, UPD, UCTX), RNIC_STS_OK);
    CHECK_EQ(t_create_cq(p->a.h, &ucq, UCQ, UCTX, 6), RNIC_STS_OK);

    /* ALLOC_MR on the user's PD. */
    c = t_mk(RNIC_CMD_ALLOC_MR);
    c.u.alloc_mr.stag = stag;
    c.u.alloc_mr.pdn = UPD;
    c.u.alloc_mr.max_pages = 4;
    sts = h_cmd(p->a.h, &c);
    printf("ALLOC_MR on a user PD: status %u\n", sts);
    fflush(stdout);
    CHECK_EQ(sts, RNIC_STS_BAD_PARAM);

    if (!connect_user(p, &q1, 7, 8, 1, PORT2) ||
        !connect_user(p, &q2, 9, 10, 2, PORT2 + 1)) {
        p_free(p);
        return;
    }

    /* A REG_MR WQE from the user QP: guest-physical pages. */
    sink = h_alloc(p->a.h, 2);
    wqe(&w, RNIC_WR_REG_MR, 1);
    w.op.reg_mr.iova = sink;
    w.op.reg_mr.length = 8192;
    w.op.reg_mr.stag = RNIC_STAG(9, 0x11);
    w.op.reg_mr.access = RNIC_ACCESS_LOCAL_WRITE | RNIC_ACCESS_REMOTE_WRITE;
    h_pbl(p->a.h, &w.op.reg_mr.pages, sink, 2);
    user_post(p, &q1, &w);
    CHECK(t_poll_cq(p->a.h, &ucq, &cqe));
    printf("REG_MR WQE from a user QP: opcode %u status %u\n", cqe.opcode,
           cqe.status);
    CHECK_EQ(cqe.wr_id, 1);
    CHECK_EQ(cqe.opcode, RNIC_WC_REG_MR);
    CHECK_EQ(cqe.status, RNIC_WC_LOC_QP_OP_ERR);

    /* The kernel keeps fast-register: ALLOC_MR on PD 0 works. */
    c = t_mk(RNIC_CMD_ALLOC_MR);
    c.u.alloc_mr.stag = RNIC_STAG(10, 0);
    c.u.alloc_mr.max_pages = 4;
    CHECK_EQ(h_cmd(p->a.h, &c), RNIC_STS_OK);

    /* LOCAL_INV of that kernel STag from the other user QP. */
    wqe(&w, RNIC_WR_LOCAL_INV, 2);
    w.hdr.ex = RNIC_STAG(10, 0);
    user_post(p, &q2, &w);
    CHECK(t_poll_cq(p->a.h, &ucq, &cqe));
    printf("LOCAL_INV WQE from a user QP: opcode %u status %u\n", cqe.opcode,
           cqe.status);
    CHECK_EQ(cqe.wr_id, 2);
    CHECK_EQ(cqe.opcode, RNIC_WC_LOCAL_INV);
    CHECK_EQ(cqe.status, RNIC_WC_LOC_PROT_ERR);
    p_free(p);
}

int main(void)
{
    test_user_frmr();
    return t_report("test-iw-user-frmr");
}
