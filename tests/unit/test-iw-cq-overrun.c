/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A CQ overrun through the device's entry points (issue 20): two devices
 * back to back, B's connected QP receives into a 4-entry CQ its consumer
 * never polls, and an idle QP of B sends its completions there too.
 * The fifth receive completion finds the ring full.  Checked: the four
 * CQEs in the ring are the first four and nothing around the ring changed;
 * the CQ is in error (CQ_OVERFLOW once, no CQE ever again, arming raises
 * nothing); every QP bound to it is in ERROR with QP_FATAL after the CQ's
 * event; the connected one sent a Terminate (RDMAP, local catastrophic)
 * that A received, and the connection closed on both sides; work whose
 * CQ is healthy is flushed there; a new QP may not bind the errored CQ;
 * the objects can be destroyed.
 */
#include <string.h>
#include "test-iw-pair.h"
#include "iwarp/iw.h"

#define SMALL_CQ        4       /* B's CQ of 4 entries */
#define IDLE_QP         5       /* B's QP that never connects */
#define N_SENDS         8
#define GUARD           0x5a

#define MAX_EV 256

struct rec {
    struct harness *h;
    struct rne_trace ev[MAX_EV];
    unsigned n;
};

static struct rec rec_a, rec_b;
static struct rne_host_ops ops_a, ops_b;

static void record(void *opaque, const struct rne_trace *ev)
{
    struct rec *r = opaque == rec_a.h ? &rec_a : &rec_b;

    if (r->n < MAX_EV) {
        r->ev[r->n++] = *ev;
    }
}

static void trace_on(struct pair *p)
{
    ops_a = *p->a.h->dev.host.ops;
    ops_a.trace = record;
    p->a.h->dev.host.ops = &ops_a;
    ops_b = *p->b.h->dev.host.ops;
    ops_b.trace = record;
    p->b.h->dev.host.ops = &ops_b;
    rec_a.h = p->a.h;
    rec_b.h = p->b.h;
}

/* The Terminate events of r: how many, and the last one. */
static unsigned terms(const struct rec *r, enum rne_trace_id id,
                      struct rne_trace *last)
{
    unsigned i, n = 0;

    for (i = 0; i < r->n; i++) {
        if (r->ev[i].id == id) {
            *last = r->ev[i];
            n++;
        }
    }
    return n;
}

static void grant_access(struct p_dev *d, uint32_t qpn)
{
    struct rnic_admin_cmd c = t_mk(RNIC_CMD_MODIFY_QP);

    c.u.modify_qp.qpn = qpn;
    c.u.modify_qp.attr_mask = RNIC_QP_ATTR_ACCESS;
    c.u.modify_qp.access = RNIC_ACCESS_REMOTE_WRITE | RNIC_ACCESS_REMOTE_READ;
    CHECK_EQ(h_cmd(d->h, &c), RNIC_STS_OK);
}

static void recv1(struct harness *h, struct t_qp *qp, uint64_t wr_id,
                  uint64_t a, uint32_t len, uint32_t stag)
{
    struct rnic_rq_wqe r;

    memset(&r, 0, sizeof(r));
    r.wr_id = wr_id;
    r.num_sge = 1;
    t_sge(&r.sge[0], a, len, stag);
    t_post_recv(h, qp, &r);
    h_doorbell(h, RNIC_DB_RQ, qp->qpn, 0, qp->rq_prod);
    h_run(h);
}

/* B's QP P_QP: sends complete on the big CQ, receives on SMALL_CQ. */
static bool connect(struct pair *p)
{
    p_make_qp(&p->a, P_QP);
    CHECK_EQ(t_create_qp(p->b.h, &p->b.qp, P_QP, 0, P_CQ, SMALL_CQ, 6, 6),
             RNIC_STS_OK);
    grant_access(&p->b, P_QP);
    return p_connect_made(p, 2, RNIC_MPA_CRC);
}

/*
 * The ring's page after the ring and the doorbell record's page but the
 * record itself (t_cq_cmd: the page after the ring, record at 64): GUARD.
 */
static void guard_set(struct harness *h, const struct t_cq *cq)
{
    uint64_t end = cq->ring + (uint64_t)cq->depth * RNIC_CQE_SIZE;

    CHECK_EQ(cq->dbrec, cq->ring + 4096 + 64);
    memset(h->mem + end, GUARD, cq->ring + 4096 - end);
    memset(h->mem + cq->dbrec - 64, GUARD, 64);
    memset(h->mem + cq->dbrec + 4, GUARD, 4096 - 68);
}

static bool guarded(struct harness *h, const struct t_cq *cq)
{
    uint64_t a = cq->ring + (uint64_t)cq->depth * RNIC_CQE_SIZE;

    for (; a < cq->ring + 8192; a++) {
        if ((a < cq->dbrec || a >= cq->dbrec + 4) && h->mem[a] != GUARD) {
            return false;
        }
    }
    return true;
}

/* The last CM event of d (0: none). */
static uint8_t last_cm(struct p_dev *d)
{
    struct rnic_eqe e;
    uint8_t code = 0;

    while (p_cm_event(d, &e, NULL)) {
        code = e.code;
    }
    return code;
}

static void test_overrun(void)
{
    struct pair *p = p_new();
    struct t_cq small;
    struct t_qp idle;
    struct rne_trace tx, rx;
    struct rnic_eqe e;
    struct rnic_cqe cqe;
    uint64_t src, dst;
    unsigned i, a_cqes, fatal_b = 0, cqerr_b = 0, fatal_a = 0;
    uint8_t cm;

    memset(&tx, 0, sizeof(tx));
    memset(&rx, 0, sizeof(rx));
    /* A 4-entry CQ with guard bytes after its ring */
    CHECK_EQ(t_create_cq(p->b.h, &small, SMALL_CQ, 0, 2), RNIC_STS_OK);
    guard_set(p->b.h, &small);
    if (!connect(p)) {
        p_free(p);
        return;
    }
    trace_on(p);
    /* An idle QP of B: sends to SMALL_CQ, two receives for the big CQ */
    CHECK_EQ(t_create_qp(p->b.h, &idle, IDLE_QP, 0, SMALL_CQ, P_CQ, 2, 2),
             RNIC_STS_OK);
    dst = h_alloc(p->b.h, 4);
    CHECK_EQ(t_reg_mr(p->b.h, 0x100, 0, RNIC_ACCESS_LOCAL_WRITE, dst, 16384,
                      dst), RNIC_STS_OK);
    recv1(p->b.h, &idle, 300, dst, 64, 0x100);
    recv1(p->b.h, &idle, 301, dst, 64, 0x100);
    for (i = 0; i < N_SENDS; i++) {
        recv1(p->b.h, &p->b.qp, 100 + i, dst + 1024 + i * 64, 64, 0x100);
    }
    src = h_alloc(p->a.h, 1);
    CHECK_EQ(t_reg_mr(p->a.h, 0x100, 0, 0, src, 4096, src), RNIC_STS_OK);
    memset(p->a.h->mem + src, 0xc3, 4096);
    for (i = 0; i < N_SENDS; i++) {
        p_post_send1(&p->a, 200 + i, src + i * 64, 64, 0x100);
    }
    p_ring_sq(&p->a);
    p_settle(p, 5000000000ull);

    /* The ring holds the first four receives; nothing else was written */
    for (i = 0; i < small.depth; i++) {
        CHECK(t_poll_cq(p->b.h, &small, &cqe));
        CHECK_EQ(cqe.wr_id, 100 + i);
        CHECK_EQ(cqe.status, RNIC_WC_SUCCESS);
        CHECK_EQ(cqe.qpn, P_QP);
    }
    CHECK(!t_poll_cq(p->b.h, &small, &cqe));
    CHECK(guarded(p->b.h, &small));
    CHECK(p->b.h->dev.rdma->cq[SMALL_CQ].overflow);

    /* B: CQ_OVERFLOW once, then QP_FATAL for both QPs bound to it */
    while (t_poll_eq(p->b.h, &p->b.async, &e)) {
        if (e.code == RNIC_ASYNC_CQ_OVERFLOW) {
            CHECK_EQ(e.obj, SMALL_CQ);
            CHECK_EQ(fatal_b, 0);
            cqerr_b++;
        } else if (e.code == RNIC_ASYNC_QP_FATAL) {
            CHECK(e.obj == P_QP || e.obj == IDLE_QP);
            fatal_b |= 1u << (e.obj == P_QP);
        } else {
            fprintf(stderr, "B: async code %u obj %u\n", e.code, e.obj);
            CHECK(0);
        }
    }
    CHECK_EQ(cqerr_b, 1);
    CHECK_EQ(fatal_b, 3);
    CHECK_EQ(p_qp_state(&p->b, P_QP), RNIC_QPS_ERROR);
    CHECK_EQ(p_qp_state(&p->b, IDLE_QP), RNIC_QPS_ERROR);

    /* The idle QP's receives complete on the healthy CQ: flushed */
    for (i = 0; i < 2; i++) {
        CHECK(t_poll_cq(p->b.h, &p->b.cq, &cqe));
        CHECK_EQ(cqe.wr_id, 300 + i);
        CHECK_EQ(cqe.qpn, IDLE_QP);
        CHECK_EQ(cqe.status, RNIC_WC_WR_FLUSH_ERR);
    }
    CHECK(!t_poll_cq(p->b.h, &p->b.cq, &cqe));

    /* A Terminate left B for its QP and reached A, then both closed */
    CHECK_EQ(terms(&rec_b, RNE_TRACE_TERM_TX, &tx), 1);
    CHECK_EQ(tx.qpn, P_QP);
    CHECK_EQ(tx.u.term.layer, RNE_TERM_LAYER_RDMAP);
    CHECK_EQ(tx.u.term.etype, RNE_RDMAP_ETYPE_LOCAL_CATASTROPHIC);
    CHECK(tx.u.term.queued);
    CHECK_EQ(terms(&rec_a, RNE_TRACE_TERM_RX, &rx), 1);
    CHECK_EQ(rx.qpn, P_QP);
    CHECK_EQ(rx.u.term.layer, RNE_TERM_LAYER_RDMAP);
    CHECK_EQ(rx.u.term.etype, RNE_RDMAP_ETYPE_LOCAL_CATASTROPHIC);
    CHECK_EQ(p_qp_state(&p->a, P_QP), RNIC_QPS_ERROR);
    while (t_poll_eq(p->a.h, &p->a.async, &e)) {
        fatal_a += e.code == RNIC_ASYNC_QP_FATAL && e.obj == P_QP;
    }
    CHECK_EQ(fatal_a, 1);
    cm = last_cm(&p->a);
    CHECK(cm == RNIC_CM_CLOSED || cm == RNIC_CM_RESET);
    cm = last_cm(&p->b);
    CHECK(cm == RNIC_CM_CLOSED || cm == RNIC_CM_RESET);

    /* A's Sends all completed on its healthy CQ, success or flushed */
    for (a_cqes = 0; t_poll_cq(p->a.h, &p->a.cq, &cqe); a_cqes++) {
        CHECK_EQ(cqe.wr_id, 200 + a_cqes);
        CHECK(cqe.status == RNIC_WC_SUCCESS ||
              cqe.status == RNIC_WC_WR_FLUSH_ERR);
    }
    CHECK_EQ(a_cqes, N_SENDS);

    /* The CQ stays in error: new work and arming write and raise nothing */
    recv1(p->b.h, &p->b.qp, 150, dst, 64, 0x100);
    h_doorbell(p->b.h, RNIC_DB_CQ, SMALL_CQ, RNIC_DB_ARM, small.cons);
    h_run(p->b.h);
    p_settle(p, 1000000000ull);
    CHECK(!t_poll_cq(p->b.h, &small, &cqe));
    CHECK(guarded(p->b.h, &small));
    CHECK_EQ(t_drain_eq(p->b.h, &p->b.comp, 0), 0);
    CHECK_EQ(t_drain_eq(p->b.h, &p->b.async, 0), 0);

    /* A new QP may not bind the CQ in error: its completions would be lost */
    {
        struct t_qp late;

        CHECK_EQ(t_create_qp(p->b.h, &late, 6, 0, P_CQ, SMALL_CQ, 2, 2),
                 RNIC_STS_BAD_STATE);
        CHECK(!p->b.h->dev.rdma->qp[6].live);
    }

    /* Teardown works as usual */
    CHECK_EQ(t_cmd_obj(p->b.h, RNIC_CMD_DESTROY_QP, P_QP), RNIC_STS_OK);
    CHECK_EQ(t_cmd_obj(p->b.h, RNIC_CMD_DESTROY_QP, IDLE_QP), RNIC_STS_OK);
    CHECK_EQ(t_cmd_obj(p->b.h, RNIC_CMD_DESTROY_CQ, SMALL_CQ), RNIC_STS_OK);
    CHECK_EQ(p->b.h->guest_errors > 0, 1);
    p_free(p);
}

/*
 * A QP still negotiating MPA (CM_CONNECT sent, no Reply yet) is bound to a
 * CQ that another QP's flush overruns: it has no RDMA stream to carry a
 * Terminate, so its connection is aborted instead; it goes to ERROR with
 * QP_FATAL like the others.  The QP moved to ERROR by the command raises
 * no event of its own.
 */
static void test_overrun_while_connecting(void)
{
    struct pair *p = p_new();
    struct rnic_admin_cmd c;
    struct t_cq small;
    struct t_qp conn_qp, flush_qp;
    struct rne_trace tx;
    struct rnic_eqe e;
    uint32_t conn = 0, i;
    unsigned cqerr = 0, fatal = 0, other = 0;

    CHECK_EQ(t_create_cq(p->a.h, &small, SMALL_CQ, 0, 2), RNIC_STS_OK);
    CHECK_EQ(t_create_qp(p->a.h, &conn_qp, 7, 0, SMALL_CQ, P_CQ, 2, 2),
             RNIC_STS_OK);
    CHECK_EQ(p_listen(&p->b, 0, P_PORT), RNIC_STS_OK);
    CHECK_EQ(p_connect(p, 7, 2, RNIC_MPA_CRC, NULL, &conn), RNIC_STS_OK);
    p_settle(p, 1000000000ull);
    CHECK(p_cm_event(&p->b, &e, NULL) && e.code == RNIC_CM_CONNECT_REQUEST);
    CHECK_EQ(p_qp_state(&p->a, 7), RNIC_QPS_IDLE);
    trace_on(p);
    rec_a.n = rec_b.n = 0;

    /* QP 8's six receives flushed into the 4-entry CQ */
    CHECK_EQ(t_create_qp(p->a.h, &flush_qp, 8, 0, P_CQ, SMALL_CQ, 2, 3),
             RNIC_STS_OK);
    for (i = 0; i < 6; i++) {
        recv1(p->a.h, &flush_qp, 400 + i, 0, 0, 0);
    }
    c = t_mk(RNIC_CMD_MODIFY_QP);
    c.u.modify_qp.qpn = 8;
    c.u.modify_qp.attr_mask = RNIC_QP_ATTR_STATE;
    c.u.modify_qp.state = RNIC_QPS_ERROR;
    CHECK_EQ(h_cmd(p->a.h, &c), RNIC_STS_OK);
    p_settle(p, 1000000000ull);

    while (t_poll_eq(p->a.h, &p->a.async, &e)) {
        if (e.code == RNIC_ASYNC_CQ_OVERFLOW && e.obj == SMALL_CQ) {
            cqerr++;
        } else if (e.code == RNIC_ASYNC_QP_FATAL && e.obj == 7) {
            CHECK_EQ(cqerr, 1);
            fatal++;
        } else {
            other++;
        }
    }
    CHECK_EQ(cqerr, 1);
    CHECK_EQ(fatal, 1);
    CHECK_EQ(other, 0);
    CHECK_EQ(p_qp_state(&p->a, 7), RNIC_QPS_ERROR);
    CHECK_EQ(terms(&rec_a, RNE_TRACE_TERM_TX, &tx), 0);
    CHECK_EQ(last_cm(&p->a), RNIC_CM_RESET);
    for (i = 0; i < small.depth; i++) {
        struct rnic_cqe cqe;

        CHECK(t_poll_cq(p->a.h, &small, &cqe));
        CHECK_EQ(cqe.wr_id, 400 + i);
    }
    p_free(p);
}

int main(void)
{
    test_overrun();
    test_overrun_while_connecting();
    return t_report("test-iw-cq-overrun");
}
