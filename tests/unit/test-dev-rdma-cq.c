/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * RDMA resources: CQE publication with phase bits over several passes,
 * overflow detection through the doorbell record, arming (next / solicited)
 * with exactly one event per arm, and hostile CQ doorbells.
 */
#include <string.h>
#include "test-rdma-helpers.h"

static int post(struct harness *h, uint32_t cqn, uint64_t wr_id,
                uint8_t status, uint8_t flags)
{
    struct rnic_cqe cqe;

    memset(&cqe, 0, sizeof(cqe));
    cqe.wr_id = wr_id;
    cqe.byte_len = (uint32_t)wr_id * 3;
    cqe.status = status;
    cqe.flags = flags;
    return rne_cq_post(&h->dev, cqn, &cqe);
}

static void cq_db(struct harness *h, uint32_t page, uint32_t cqn,
                  uint32_t flags, uint32_t idx)
{
    rne_dev_doorbell(&h->dev, page, RNIC_DB_CQ, RNIC_DB_VAL(cqn, flags, idx));
    h_run(h);
}

static void test_phase_wrap(void)
{
    struct t_eq aeq, ceq;
    struct harness *h = t_setup(&aeq, &ceq);
    struct rnic_cqe cqe;
    struct t_cq cq;
    unsigned i;

    CHECK_EQ(t_create_cq(h, &cq, 3, 0, 2), RNIC_STS_OK);     /* 4 CQEs */
    CHECK(!t_poll_cq(h, &cq, &cqe));
    /* 2.5 passes; the consumer keeps up through its doorbell record. */
    for (i = 0; i < 10; i++) {
        CHECK_EQ(post(h, 3, 100 + i, 0, 0), 0);
        CHECK(t_poll_cq(h, &cq, &cqe));
        CHECK_EQ(cqe.wr_id, 100 + i);
        CHECK_EQ(cqe.byte_len, 300 + 3 * i);
        CHECK_EQ(cqe.owner, ((i / 4) & 1) ? 0 : 1);
        CHECK(!t_poll_cq(h, &cq, &cqe));
    }
    /* Full ring writes, four at a time, then the consumer drains. */
    for (i = 0; i < 3; i++) {
        unsigned k;

        for (k = 0; k < 4; k++) {
            CHECK_EQ(post(h, 3, 1000 + k, 0, 0), 0);
        }
        for (k = 0; k < 4; k++) {
            CHECK(t_poll_cq(h, &cq, &cqe));
            CHECK_EQ(cqe.wr_id, 1000 + k);
        }
        CHECK(!t_poll_cq(h, &cq, &cqe));
    }
    /* No event: never armed. */
    CHECK_EQ(t_drain_eq(h, &ceq, 0), 0);
    CHECK_EQ(t_drain_eq(h, &aeq, 0), 0);
    /* Unknown CQ numbers are refused. */
    CHECK_EQ(post(h, 4, 1, 0, 0), -1);
    CHECK_EQ(post(h, 1u << 30, 1, 0, 0), -1);
    h_free(h);
}

static void test_overflow(void)
{
    struct t_eq aeq, ceq;
    struct harness *h = t_setup(&aeq, &ceq);
    struct rnic_cqe cqe, first;
    struct rnic_eqe e;
    struct t_cq cq;
    unsigned i;

    CHECK_EQ(t_create_cq(h, &cq, 0, 0, 2), RNIC_STS_OK);
    for (i = 0; i < 4; i++) {
        CHECK_EQ(post(h, 0, i, 0, 0), 0);
    }
    memcpy(&first, h->mem + cq.ring, sizeof(first));
    /* A doorbell record beyond the producer is garbage: still full. */
    *(uint32_t *)(h->mem + cq.dbrec) = 9;
    CHECK_EQ(post(h, 0, 4, 0, 0), -1);
    CHECK(!memcmp(h->mem + cq.ring, &first, sizeof(first)));
    CHECK(t_poll_eq(h, &aeq, &e));
    CHECK_EQ(e.type, RNIC_EQE_ASYNC);
    CHECK_EQ(e.code, RNIC_ASYNC_CQ_OVERFLOW);
    CHECK_EQ(e.obj, 0);
    CHECK(h->dev.rdma->cq[0].overflow);
    /* In error for good: nothing more is written, one event only. */
    CHECK(t_poll_cq(h, &cq, &cqe));
    CHECK_EQ(post(h, 0, 5, 0, 0), -1);
    CHECK_EQ(t_drain_eq(h, &aeq, 0), 0);

    /* With an honest record the same ring does not overflow. */
    CHECK_EQ(t_create_cq(h, &cq, 1, 0, 2), RNIC_STS_OK);
    for (i = 0; i < 4; i++) {
        CHECK_EQ(post(h, 1, i, 0, 0), 0);
    }
    CHECK(t_poll_cq(h, &cq, &cqe));     /* dbrec = 1 */
    CHECK_EQ(post(h, 1, 4, 0, 0), 0);
    CHECK_EQ(post(h, 1, 5, 0, 0), -1);
    for (i = 1; i < 5; i++) {
        CHECK(t_poll_cq(h, &cq, &cqe));
        CHECK_EQ(cqe.wr_id, i);
    }
    /* The slot of wr_id 5 was never written: wr_id 4's pass ended. */
    CHECK(!t_poll_cq(h, &cq, &cqe));
    h_free(h);
}

static void test_arm(void)
{
    struct t_eq aeq, ceq;
    struct harness *h = t_setup(&aeq, &ceq);
    struct rnic_cqe cqe;
    struct rnic_eqe e;
    struct t_cq cq;

    CHECK_EQ(t_create_cq(h, &cq, 7, 0, 4), RNIC_STS_OK);
    /* ARM: the next CQE raises one event, the following ones none. */
    cq_db(h, 0, 7, RNIC_DB_ARM, 0);
    CHECK_EQ(t_drain_eq(h, &ceq, 0), 0);
    CHECK_EQ(post(h, 7, 1, 0, 0), 0);
    CHECK_EQ(post(h, 7, 2, 0, 0), 0);
    CHECK_EQ(post(h, 7, 3, 0, RNIC_CQE_F_SOLICITED), 0);
    CHECK(t_poll_eq(h, &ceq, &e));
    CHECK_EQ(e.type, RNIC_EQE_COMP);
    CHECK_EQ(e.obj, 7);
    CHECK_EQ(t_drain_eq(h, &ceq, 0), 0);
    while (t_poll_cq(h, &cq, &cqe)) {
        continue;
    }
    /* Re-armed with everything consumed: again exactly one. */
    cq_db(h, 0, 7, RNIC_DB_ARM, cq.cons);
    CHECK_EQ(t_drain_eq(h, &ceq, 0), 0);
    CHECK_EQ(post(h, 7, 4, 0, 0), 0);
    CHECK_EQ(post(h, 7, 5, 0, 0), 0);
    CHECK_EQ(t_drain_eq(h, &ceq, RNIC_EQE_COMP), 1);

    /* Arming with a CQE the consumer has not seen: event at once. */
    t_poll_cq(h, &cq, &cqe);
    cq_db(h, 0, 7, RNIC_DB_ARM, cq.cons);
    CHECK_EQ(t_drain_eq(h, &ceq, RNIC_EQE_COMP), 1);
    CHECK_EQ(post(h, 7, 6, 0, 0), 0);
    CHECK_EQ(t_drain_eq(h, &ceq, 0), 0);
    while (t_poll_cq(h, &cq, &cqe)) {
        continue;
    }

    /* ARM_SOLICITED: plain successes do not wake, solicited does. */
    cq_db(h, 0, 7, RNIC_DB_ARM_SOLICITED, cq.cons);
    CHECK_EQ(post(h, 7, 7, 0, 0), 0);
    CHECK_EQ(post(h, 7, 8, 0, RNIC_CQE_F_IMM), 0);
    CHECK_EQ(t_drain_eq(h, &ceq, 0), 0);
    CHECK_EQ(post(h, 7, 9, 0, RNIC_CQE_F_SOLICITED), 0);
    CHECK_EQ(post(h, 7, 10, 0, RNIC_CQE_F_SOLICITED), 0);
    CHECK_EQ(t_drain_eq(h, &ceq, RNIC_EQE_COMP), 1);
    while (t_poll_cq(h, &cq, &cqe)) {
        continue;
    }
    /* ...and so does an error completion. */
    cq_db(h, 0, 7, RNIC_DB_ARM_SOLICITED, cq.cons);
    CHECK_EQ(post(h, 7, 11, 0, 0), 0);
    CHECK_EQ(t_drain_eq(h, &ceq, 0), 0);
    CHECK_EQ(post(h, 7, 12, RNIC_WC_WR_FLUSH_ERR, 0), 0);
    CHECK_EQ(t_drain_eq(h, &ceq, RNIC_EQE_COMP), 1);
    while (t_poll_cq(h, &cq, &cqe)) {
        continue;
    }

    /* Coalesced doorbells keep the arm. */
    rne_dev_doorbell(&h->dev, 0, RNIC_DB_CQ,
                     RNIC_DB_VAL(7, RNIC_DB_ARM, cq.cons));
    rne_dev_doorbell(&h->dev, 0, RNIC_DB_CQ, RNIC_DB_VAL(7, 0, cq.cons));
    h_run(h);
    CHECK_EQ(post(h, 7, 13, 0, 0), 0);
    CHECK_EQ(t_drain_eq(h, &ceq, RNIC_EQE_COMP), 1);
    CHECK_EQ(t_drain_eq(h, &aeq, 0), 0);
    /* The completion EQ interrupts only when it is armed itself. */
    while (t_poll_cq(h, &cq, &cqe)) {
        continue;
    }
    h_doorbell(h, RNIC_DB_EQ, T_COMP_EQ, RNIC_DB_ARM, ceq.cons);
    cq_db(h, 0, 7, RNIC_DB_ARM, cq.cons);
    h->irq_count[T_COMP_EQ] = 0;
    CHECK_EQ(post(h, 7, 14, 0, 0), 0);
    CHECK_EQ(h->irq_count[T_COMP_EQ], 1);
    h_free(h);
}

static void test_hostile_doorbells(void)
{
    struct t_eq aeq, ceq;
    struct harness *h = t_setup(&aeq, &ceq);
    struct rnic_eqe e;
    struct t_cq cq, ucq;
    unsigned errs;

    CHECK_EQ(t_alloc_uctx(h, 1), RNIC_STS_OK);
    CHECK_EQ(t_create_cq(h, &cq, 0, 0, 2), RNIC_STS_OK);
    CHECK_EQ(t_create_cq(h, &ucq, 1, 1, 2), RNIC_STS_OK);
    CHECK_EQ(post(h, 0, 1, 0, 0), 0);
    CHECK_EQ(post(h, 0, 2, 0, 0), 0);

    /* Consumer ahead of the producer: refused, state kept. */
    errs = h->guest_errors;
    cq_db(h, 0, 0, RNIC_DB_ARM, 3);
    CHECK(h->guest_errors > errs);
    CHECK(t_poll_eq(h, &aeq, &e));
    CHECK_EQ(e.code, RNIC_ASYNC_DB_ERROR);
    CHECK_EQ(e.obj, 0);
    CHECK_EQ(e.u.async.info, RNIC_DB_CQ);
    CHECK(!h->dev.rdma->cq[0].arm);
    /* More than a ring behind the producer: refused too. */
    CHECK_EQ(post(h, 0, 3, 0, 0), 0);
    CHECK_EQ(post(h, 0, 4, 0, 0), 0);
    *(uint32_t *)(h->mem + cq.dbrec) = 4;
    CHECK_EQ(post(h, 0, 5, 0, 0), 0);
    cq_db(h, 0, 0, 0, 0);
    CHECK_EQ(t_drain_eq(h, &aeq, RNIC_EQE_ASYNC), 1);
    /* An older (but in-window) index than the record is harmless. */
    cq_db(h, 0, 0, 0, 2);
    CHECK_EQ(t_drain_eq(h, &aeq, 0), 0);
    CHECK_EQ(h->dev.rdma->cq[0].cidx, 4);

    /* Another context's page, the kernel page for a user CQ, unknown CQs. */
    errs = h->guest_errors;
    cq_db(h, 1, 0, RNIC_DB_ARM, 5);
    cq_db(h, 2, 1, RNIC_DB_ARM, 0);
    cq_db(h, 0, 1, RNIC_DB_ARM, 0);
    cq_db(h, 0, 9, RNIC_DB_ARM, 0);
    cq_db(h, 0, RNIC_DB_OBJ_MASK, RNIC_DB_ARM, 0);
    CHECK_EQ(h->guest_errors, errs + 5);
    CHECK(!h->dev.rdma->cq[0].arm && !h->dev.rdma->cq[1].arm);
    CHECK(t_drain_eq(h, &aeq, RNIC_EQE_ASYNC) >= 1);
    /* The owner's page works. */
    cq_db(h, 1, 1, RNIC_DB_ARM, 0);
    CHECK(h->dev.rdma->cq[1].arm);
    CHECK_EQ(h->guest_errors, errs + 5);
    /* A doorbell latched for a CQ destroyed before it ran is dropped. */
    rne_dev_doorbell(&h->dev, 1, RNIC_DB_CQ, RNIC_DB_VAL(1, RNIC_DB_ARM, 0));
    CHECK_EQ(t_cmd_obj(h, RNIC_CMD_DESTROY_CQ, 1), RNIC_STS_OK);
    CHECK_EQ(t_create_cq(h, &ucq, 1, 0, 2), RNIC_STS_OK);
    CHECK(!h->dev.rdma->cq[1].arm);
    h_free(h);
}

int main(void)
{
    test_phase_wrap();
    test_overflow();
    test_arm();
    test_hostile_doorbells();
    return t_report("test-dev-rdma-cq");
}
