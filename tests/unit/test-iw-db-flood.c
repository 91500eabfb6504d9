/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Async EQ flood by an unprivileged process (issue 17, finding 3): user
 * context 1 rings 10,000 refused doorbells on its own doorbell page (a QP
 * of context 2, and its own QP with a producer index beyond the ring),
 * each run at once as QEMU does, while the kernel driver does not drain
 * the async EQ.  Context 2's QP then fails for real (a Send from the peer
 * with no receive posted): its QP_FATAL must still arrive, and the
 * refusals must cost one event and a bounded number of host log lines.
 */
#include <string.h>
#include "test-iw-pair.h"

#define FLOOD       10000
#define CTX1        1
#define CTX2        2
#define PD1         5
#define PD2         6
#define CQ1         4
#define CQ2         5
#define QP1         7
#define QP2         9
#define BQP         10

static bool connect_qp2(struct pair *p, struct t_qp *bqp)
{
    struct rnic_admin_cmd c;
    struct t_qp aqp;
    struct rnic_eqe e;
    uint32_t conn = 0;
    bool ok = true;

    t_qp_cmd(p->a.h, &c, &aqp, QP2, PD2, CTX2, CQ2, CQ2, RNIC_NO_SRQ, 6, 6);
    ok &= h_cmd(p->a.h, &c) == RNIC_STS_OK;
    ok &= t_create_qp(p->b.h, bqp, BQP, 0, P_CQ, P_CQ, 6, 6) == RNIC_STS_OK;
    ok &= p_listen(&p->b, 1, P_PORT + 1) == RNIC_STS_OK;
    ok &= p_connect_port(p, QP2, P_PORT + 1, 2, RNIC_MPA_CRC, NULL, &conn) ==
          RNIC_STS_OK;
    p_settle(p, 1000000000ull);
    ok &= p_cm_event(&p->b, &e, NULL) && e.code == RNIC_CM_CONNECT_REQUEST;
    ok &= p_accept(&p->b, e.obj, BQP, RNIC_MPA_CRC, NULL) == RNIC_STS_OK;
    p_settle(p, 1000000000ull);
    ok &= p_cm_event(&p->a, &e, NULL) && e.code == RNIC_CM_CONNECT_REPLY;
    ok &= p_cm_event(&p->b, &e, NULL) && e.code == RNIC_CM_ESTABLISHED;
    ok &= p_qp_state(&p->a, QP2) == RNIC_QPS_RTS;
    CHECK(ok);
    return ok;
}

static void test_flood(void)
{
    struct pair *p = p_new();
    struct harness *a = p->a.h;
    struct rnic_admin_cmd c;
    struct t_cq cq1, cq2;
    struct t_qp qp1, bqp;
    struct rnic_sq_wqe w;
    struct rnic_eqe e;
    unsigned i, errs0, db_errors = 0, fatal = 0, other = 0;

    CHECK_EQ(t_alloc_uctx(a, CTX1), RNIC_STS_OK);
    CHECK_EQ(t_alloc_uctx(a, CTX2), RNIC_STS_OK);
    CHECK_EQ(t_create_pd(a, PD1, CTX1), RNIC_STS_OK);
    CHECK_EQ(t_create_pd(a, PD2, CTX2), RNIC_STS_OK);
    CHECK_EQ(t_create_cq(a, &cq1, CQ1, CTX1, 6), RNIC_STS_OK);
    CHECK_EQ(t_create_cq(a, &cq2, CQ2, CTX2, 6), RNIC_STS_OK);
    t_qp_cmd(a, &c, &qp1, QP1, PD1, CTX1, CQ1, CQ1, RNIC_NO_SRQ, 6, 6);
    CHECK_EQ(h_cmd(a, &c), RNIC_STS_OK);
    if (!connect_qp2(p, &bqp)) {
        p_free(p);
        return;
    }
    t_drain_eq(a, &p->a.async, 0);

    /* Context 1 spins on its doorbell page; the driver is not draining. */
    errs0 = a->guest_errors;
    for (i = 0; i < FLOOD; i++) {
        if (i & 1) {
            rne_dev_doorbell(&a->dev, CTX1, RNIC_DB_SQ,
                             RNIC_DB_VAL(QP2, 0, i));
        } else {
            rne_dev_doorbell(&a->dev, CTX1, RNIC_DB_SQ,
                             RNIC_DB_VAL(QP1, 0, 1000 + i));
        }
        h_run(a);
    }
    printf("%u refused doorbells: %u host log lines (guest_error)\n", FLOOD,
           a->guest_errors - errs0);
    CHECK(a->guest_errors - errs0 <= 64);
    CHECK_EQ(a->dev.rdma->qp[QP2].sq.pidx, 0);
    CHECK_EQ(a->dev.rdma->qp[QP1].sq.pidx, 0);

    /* Context 2's QP fails: B sends, A has no receive posted. */
    memset(&w, 0, sizeof(w));
    w.hdr.wr_id = 1;
    w.hdr.opcode = RNIC_WR_SEND;
    w.hdr.flags = RNIC_WQE_SIGNALED | RNIC_WQE_INLINE;
    w.hdr.count = 16;
    memset(w.data.inline_data, 0x5a, 16);
    t_post_send(p->b.h, &bqp, &w);
    h_doorbell(p->b.h, RNIC_DB_SQ, BQP, 0, bqp.sq_prod);
    p_settle(p, 1000000000ull);
    CHECK_EQ(p_qp_state(&p->a, QP2), RNIC_QPS_ERROR);

    while (t_poll_eq(a, &p->a.async, &e)) {
        if (e.code == RNIC_ASYNC_DB_ERROR) {
            db_errors++;
        } else if (e.code == RNIC_ASYNC_QP_FATAL && e.obj == QP2) {
            fatal++;
        } else {
            other++;
        }
    }
    printf("async EQ: %u DB_ERROR, %u QP_FATAL for QP %u, %u other\n",
           db_errors, fatal, QP2, other);
    CHECK_EQ(fatal, 1);
    CHECK(db_errors >= 1 && db_errors <= 2);
    p_free(p);
}

int main(void)
{
    test_flood();
    return t_report("test-iw-db-flood");
}
