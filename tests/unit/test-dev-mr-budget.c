/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Page-list amplification (issue 17, finding 1): a REG_MR or ALLOC_MR of
 * 2^18 pages costs the guest a 12 KiB two-level list whose entries all
 * name one page, and the device 2 MiB of host memory plus a DMA per entry.
 * Through the admin queue only: the device-wide page-list budget
 * (max-mr-pages, default 2^21 entries = 16 MiB) answers NO_RESOURCES, and
 * one processing pass loads at most one maximal page list.  The page arrays
 * of CQ, QP and SRQ rings draw on the same budget: many large rings whose
 * lists all name one page must not hold host memory beyond it either, and
 * they count toward the per-pass bound like MR page lists.
 */
#include <string.h>
#include <unistd.h>
#include "test-rdma-helpers.h"

#define HOSTILE_MRS     4096
#define MR_PAGES        (1u << 18)              /* RNE_MR_MAX_PAGES */
#define BUDGET_ENTRIES  (1u << 21)              /* max-mr-pages default */
#define BUDGET_BYTES    ((uint64_t)BUDGET_ENTRIES * 8)
#define QUEUED_MRS      32

static uint64_t rss_bytes(void)
{
    unsigned long size = 0, rss = 0;
    FILE *f = fopen("/proc/self/statm", "r");

    if (f) {
        if (fscanf(f, "%lu %lu", &size, &rss) != 2) {
            rss = 0;
        }
        fclose(f);
    }
    return (uint64_t)rss * (uint64_t)sysconf(_SC_PAGESIZE);
}

static uint64_t l1;

/* A 2^18-entry two-level list: 512 level-2 pages that are all one page. */
static void hostile_lists(struct harness *h)
{
    uint64_t l2, data;
    uint32_t i;

    l1 = h_alloc(h, 1);
    l2 = h_alloc(h, 1);
    data = h_alloc(h, 1);
    for (i = 0; i < RNIC_PBL_PER_PAGE; i++) {
        memcpy(h->mem + l1 + 8 * i, &l2, 8);
        memcpy(h->mem + l2 + 8 * i, &data, 8);
    }
}

static void hostile_pbl(struct rnic_pbl *p)
{
    memset(p, 0, sizeof(*p));
    p->addr = l1;
    p->nentries = MR_PAGES;
    p->page_shift = RNIC_PAGE_SHIFT;
    p->levels = 2;
}

static struct rnic_admin_cmd hostile_reg(uint32_t index)
{
    struct rnic_admin_cmd c = t_mk(RNIC_CMD_REG_MR);

    c.u.reg_mr.stag = RNIC_STAG(index, 0);
    c.u.reg_mr.access = RNIC_ACCESS_LOCAL_WRITE;
    c.u.reg_mr.length = (uint64_t)MR_PAGES << RNIC_PAGE_SHIFT;
    hostile_pbl(&c.u.reg_mr.pages);
    return c;
}

/* 4096 REG_MRs, then 4096 ALLOC_MRs: what the device holds stays bounded. */
/*
 * Count one registration's answer: OK holds MR_PAGES entries, anything else
 * must be NO_RESOURCES.  False (and a failed check) once more is held than
 * the budget.
 */
static bool tally(unsigned sts, const char *what, unsigned i, unsigned *ok,
                  unsigned *refused, uint64_t *held_bytes)
{
    if (sts == RNIC_STS_OK) {
        (*ok)++;
        *held_bytes += (uint64_t)MR_PAGES * 8;
    } else {
        CHECK_EQ(sts, RNIC_STS_NO_RESOURCES);
        (*refused)++;
    }
    if (*held_bytes > BUDGET_BYTES) {
        fprintf(stderr, "%s %u accepted: %llu MiB of page lists held, "
                "budget %llu MiB\n", what, i,
                (unsigned long long)(*held_bytes >> 20),
                (unsigned long long)(BUDGET_BYTES >> 20));
        CHECK(*held_bytes <= BUDGET_BYTES);
        return false;
    }
    return true;
}

static void test_budget(void)
{
    struct harness *h = h_new(NULL);
    uint64_t rss0, held = 0, peak = 0;
    unsigned ok = 0, refused = 0;
    uint32_t i;

    CHECK(h_enable(h, 5, 5));
    CHECK_EQ(t_create_pd(h, 0, 0), RNIC_STS_OK);
    hostile_lists(h);
    rss0 = rss_bytes();
    for (i = 0; i < HOSTILE_MRS; i++) {
        struct rnic_admin_cmd c = hostile_reg(i);

        if (!tally(h_cmd(h, &c), "REG_MR", i, &ok, &refused, &held)) {
            break;
        }
    }
    peak = rss_bytes() - rss0;
    printf("REG_MR: %u accepted, %u NO_RESOURCES, RSS growth %llu KiB\n",
           ok, refused, (unsigned long long)(peak >> 10));
    CHECK(peak <= BUDGET_BYTES + (8u << 20));
    if (held <= BUDGET_BYTES) {
        CHECK_EQ(ok, BUDGET_ENTRIES / MR_PAGES);
        /* Giving one back makes room for exactly one more. */
        CHECK_EQ(t_cmd_obj(h, RNIC_CMD_DEREG_MR, RNIC_STAG(0, 0)),
                 RNIC_STS_OK);
        {
            struct rnic_admin_cmd c = hostile_reg(0);

            CHECK_EQ(h_cmd(h, &c), RNIC_STS_OK);
            c = hostile_reg(HOSTILE_MRS - 1);
            CHECK_EQ(h_cmd(h, &c), RNIC_STS_NO_RESOURCES);
        }
    }
    for (i = 0; i < HOSTILE_MRS; i++) {
        if (h->dev.rdma->mr[i].state != RNE_MR_FREE) {
            CHECK_EQ(t_cmd_obj(h, RNIC_CMD_DEREG_MR, RNIC_STAG(i, 0)),
                     RNIC_STS_OK);
        }
    }

    /* ALLOC_MR reserves max_pages entries for later fast-registers. */
    ok = refused = 0;
    held = 0;
    for (i = 0; i < HOSTILE_MRS; i++) {
        struct rnic_admin_cmd c = t_mk(RNIC_CMD_ALLOC_MR);

        c.u.alloc_mr.stag = RNIC_STAG(i, 0);
        c.u.alloc_mr.max_pages = MR_PAGES;
        if (!tally(h_cmd(h, &c), "ALLOC_MR", i, &ok, &refused, &held)) {
            break;
        }
    }
    printf("ALLOC_MR: %u accepted, %u NO_RESOURCES\n", ok, refused);
    h_free(h);
}

/*
 * 32 hostile REG_MRs and a NOP queued at once: each pass loads at most one
 * maximal page list, and the NOP completes within a bounded number of
 * passes (the refused REG_MRs cost no page-list work).
 */
static void test_pass_bound(void)
{
    struct harness *h = h_new(NULL);
    struct rnic_admin_cmd nop = t_mk(RNIC_CMD_NOP);
    unsigned pass, done = 0, max_cmds = 0;
    uint64_t max_entries = 0;
    unsigned long max_reads = 0;
    bool nop_done = false;
    uint32_t i;

    CHECK(h_enable(h, 6, 6));
    CHECK_EQ(t_create_pd(h, 0, 0), RNIC_STS_OK);
    hostile_lists(h);
    for (i = 0; i < QUEUED_MRS; i++) {
        struct rnic_admin_cmd c = hostile_reg(i);

        h_post(h, &c);
    }
    h_post(h, &nop);
    h_ring_admin(h);
    for (pass = 1; pass <= 64 && !nop_done; pass++) {
        struct rnic_admin_cqe cqe;
        unsigned long reads0 = h->dma_reads;
        unsigned cmds = 0;
        uint64_t entries = 0;

        h_run(h);
        while (h_poll(h, &cqe)) {
            cmds++;
            if (cqe.opcode == RNIC_CMD_NOP) {
                nop_done = true;
            } else if (cqe.status == RNIC_STS_OK) {
                entries += MR_PAGES;
            }
        }
        done += cmds;
        if (cmds > max_cmds) {
            max_cmds = cmds;
        }
        if (entries > max_entries) {
            max_entries = entries;
        }
        if (h->dma_reads - reads0 > max_reads) {
            max_reads = h->dma_reads - reads0;
        }
    }
    printf("%u commands in %u passes: at most %u commands, %llu page-list "
           "entries, %lu DMA reads in one pass\n", done, pass - 1, max_cmds,
           (unsigned long long)max_entries, max_reads);
    CHECK(nop_done);
    CHECK_EQ(done, QUEUED_MRS + 1);
    CHECK(max_entries <= MR_PAGES);
    CHECK(pass - 1 <= BUDGET_ENTRIES / MR_PAGES + 2);
    h_free(h);
}

/*
 * Rings against the budget: a small budget (1024 entries) and ring page
 * lists that all name one guest page, so the guest spends one list page
 * per ring while the device would hold 256 entries.
 */
#define RING_BUDGET     1024u
#define CQ_LOG          15      /* 2^15 x 32 B CQEs = 256 pages */
#define CQ_PAGES        256u

static uint64_t ring_list;      /* one page of 512 entries, all one page */

static void ring_lists(struct harness *h)
{
    uint64_t data = h_alloc(h, 1);
    uint32_t i;

    ring_list = h_alloc(h, 1);
    for (i = 0; i < RNIC_PBL_PER_PAGE; i++) {
        memcpy(h->mem + ring_list + 8 * i, &data, 8);
    }
}

static void ring_pbl(struct rnic_pbl *p, uint32_t pages)
{
    memset(p, 0, sizeof(*p));
    p->addr = ring_list;
    p->nentries = pages;
    p->page_shift = RNIC_PAGE_SHIFT;
    p->levels = 1;
}

static uint64_t held(struct harness *h)
{
    return h->dev.rdma->pbl_pages;
}

static unsigned ring_cq(struct harness *h, uint32_t cqn)
{
    struct rnic_admin_cmd c;
    struct t_cq cq;

    t_cq_cmd(h, &c, &cq, cqn, T_COMP_EQ, 0, 1);
    c.u.create_cq.log_depth = CQ_LOG;
    ring_pbl(&c.u.create_cq.ring, CQ_PAGES);
    return h_cmd(h, &c);
}

/* SQ of 2^sq_log 256-byte WQEs, RQ of 2^rq_log 128-byte ones (0: SRQ 0). */
static unsigned ring_qp(struct harness *h, uint32_t qpn, unsigned sq_log,
                        unsigned rq_log)
{
    bool srq = !rq_log;
    struct rnic_admin_cmd c;
    struct t_qp qp;

    t_qp_cmd(h, &c, &qp, qpn, 0, 0, 0, 1, srq ? 0 : RNIC_NO_SRQ, 1, 1);
    c.u.create_qp.sq_log_depth = (uint8_t)sq_log;
    ring_pbl(&c.u.create_qp.sq,
             rne_ring_pages_needed(1u << sq_log, RNIC_SQ_WQE_SIZE));
    if (!srq) {
        c.u.create_qp.rq_log_depth = (uint8_t)rq_log;
        ring_pbl(&c.u.create_qp.rq,
                 rne_ring_pages_needed(1u << rq_log, RNIC_RQ_WQE_SIZE));
    }
    return h_cmd(h, &c);
}

static unsigned ring_srq(struct harness *h, uint32_t srqn, unsigned log)
{
    struct rnic_admin_cmd c = t_mk(RNIC_CMD_CREATE_SRQ);

    c.u.create_srq.srqn = srqn;
    c.u.create_srq.log_depth = (uint8_t)log;
    c.u.create_srq.max_sge = RNIC_RQ_MAX_SGE;
    ring_pbl(&c.u.create_srq.ring,
             rne_ring_pages_needed(1u << log, RNIC_RQ_WQE_SIZE));
    return h_cmd(h, &c);
}

static unsigned alloc_mr(struct harness *h, uint32_t index, uint32_t pages)
{
    struct rnic_admin_cmd c = t_mk(RNIC_CMD_ALLOC_MR);

    c.u.alloc_mr.stag = RNIC_STAG(index, 0);
    c.u.alloc_mr.max_pages = pages;
    return h_cmd(h, &c);
}

static void test_ring_budget(void)
{
    struct rne_dev_config cfg;
    struct harness *h;
    unsigned ok = 0, refused = 0, sts;
    uint32_t i;

    rne_dev_config_default(&cfg);
    cfg.max_mr_pages = RING_BUDGET;
    h = h_new(&cfg);
    CHECK(h_enable(h, 5, 5));
    h_create_eq(h, T_COMP_EQ, 6, 0);
    CHECK_EQ(t_create_pd(h, 0, 0), RNIC_STS_OK);
    ring_lists(h);

    /* 8 CQs of 256 pages: 4 fit, the rest are refused like an MR. */
    for (i = 0; i < 8; i++) {
        sts = ring_cq(h, i);
        if (sts == RNIC_STS_OK) {
            ok++;
        } else {
            CHECK_EQ(sts, RNIC_STS_NO_RESOURCES);
            refused++;
        }
    }
    printf("CREATE_CQ of %u pages, budget %u: %u accepted, %u "
           "NO_RESOURCES, %llu entries held\n", CQ_PAGES, RING_BUDGET, ok,
           refused, (unsigned long long)held(h));
    CHECK_EQ(ok, RING_BUDGET / CQ_PAGES);
    CHECK_EQ(held(h), (uint64_t)RING_BUDGET);
    /* An MR finds no room behind the rings. */
    CHECK_EQ(alloc_mr(h, 0, 1), RNIC_STS_NO_RESOURCES);

    /* Destroying CQs gives their pages back. */
    for (i = 2; i < 8; i++) {
        if (h->dev.rdma->cq[i].live) {
            CHECK_EQ(t_cmd_obj(h, RNIC_CMD_DESTROY_CQ, i), RNIC_STS_OK);
        }
    }
    CHECK_EQ(held(h), 2 * CQ_PAGES);

    /* SRQ of 4096 WQEs (128 pages), a QP on it (SQ 4096: 256 pages). */
    CHECK_EQ(ring_srq(h, 0, 12), RNIC_STS_OK);
    CHECK_EQ(ring_qp(h, 0, 12, 0), RNIC_STS_OK);
    CHECK_EQ(held(h), 2 * CQ_PAGES + 128 + 256);
    /* SQ (64 pages) fits the 128 left, SQ + RQ (192) does not. */
    CHECK_EQ(ring_qp(h, 1, 10, 12), RNIC_STS_NO_RESOURCES);
    CHECK_EQ(held(h), 2 * CQ_PAGES + 128 + 256);
    CHECK_EQ(ring_qp(h, 1, 10, 10), RNIC_STS_OK);       /* 64 + 32 */
    CHECK_EQ(held(h), 2 * CQ_PAGES + 128 + 256 + 96);
    CHECK_EQ(ring_srq(h, 1, 12), RNIC_STS_NO_RESOURCES);
    /* MRs share what is left: 32 entries. */
    CHECK_EQ(alloc_mr(h, 0, 33), RNIC_STS_NO_RESOURCES);
    CHECK_EQ(alloc_mr(h, 0, 32), RNIC_STS_OK);
    CHECK_EQ(held(h), (uint64_t)RING_BUDGET);
    CHECK_EQ(ring_cq(h, 2), RNIC_STS_NO_RESOURCES);

    /* Everything destroyed: the budget is whole again. */
    CHECK_EQ(t_cmd_obj(h, RNIC_CMD_DESTROY_QP, 0), RNIC_STS_OK);
    CHECK_EQ(t_cmd_obj(h, RNIC_CMD_DESTROY_QP, 1), RNIC_STS_OK);
    CHECK_EQ(t_cmd_obj(h, RNIC_CMD_DESTROY_SRQ, 0), RNIC_STS_OK);
    CHECK_EQ(t_cmd_obj(h, RNIC_CMD_DESTROY_CQ, 0), RNIC_STS_OK);
    CHECK_EQ(t_cmd_obj(h, RNIC_CMD_DESTROY_CQ, 1), RNIC_STS_OK);
    CHECK_EQ(t_cmd_obj(h, RNIC_CMD_DEREG_MR, RNIC_STAG(0, 0)), RNIC_STS_OK);
    CHECK_EQ(held(h), 0);

    /* A device reset returns what live rings and MRs held. */
    for (i = 0; i < 4; i++) {
        CHECK_EQ(ring_cq(h, i), RNIC_STS_OK);
    }
    CHECK_EQ(ring_cq(h, 4), RNIC_STS_NO_RESOURCES);
    rne_dev_reg_write(&h->dev, RNIC_REG_DEV_CTRL, RNIC_CTRL_RESET);
    h_run(h);
    CHECK_EQ(held(h), 0);
    CHECK(h_enable(h, 5, 5));
    h_create_eq(h, T_COMP_EQ, 6, 0);
    CHECK_EQ(t_create_pd(h, 0, 0), RNIC_STS_OK);
    for (i = 0; i < 4; i++) {
        CHECK_EQ(ring_cq(h, i), RNIC_STS_OK);
    }
    CHECK_EQ(held(h), (uint64_t)RING_BUDGET);
    h_free(h);                  /* fini frees the live rings (ASan) */
}

/*
 * Ring page lists count toward the admin pass bound like MR page lists:
 * 1024 CREATE_QPs queued at once, each loading 256 SQ + 128 RQ entries
 * (393,216 in all, within the device-wide budget), may not all run in one
 * pass; a pass stops once it has loaded RNE_ADMIN_PASS_PAGES entries, so
 * it loads at most one command's entries beyond the bound.
 */
#define PASS_QPS        1024u
#define QP_RING_PAGES   (256u + 128u)

static void test_ring_pass_bound(void)
{
    struct harness *h = h_new(NULL);
    struct rnic_admin_cmd c;
    struct t_cq cq;
    uint64_t max_entries = 0;
    unsigned pass, done = 0, passes = 0;
    uint32_t i;

    CHECK(h_enable(h, 10, 10));
    h_create_eq(h, T_COMP_EQ, 6, 0);
    CHECK_EQ(t_create_pd(h, 0, 0), RNIC_STS_OK);
    CHECK_EQ(t_create_cq(h, &cq, 0, 0, 1), RNIC_STS_OK);
    ring_lists(h);
    for (i = 0; i < PASS_QPS; i++) {
        struct rnic_cmd_create_qp *q = &c.u.create_qp;

        c = t_mk(RNIC_CMD_CREATE_QP);
        q->qpn = i;
        q->srqn = RNIC_NO_SRQ;
        q->sq_log_depth = 12;
        q->rq_log_depth = 12;
        q->max_send_sge = 1;
        q->max_recv_sge = 1;
        ring_pbl(&q->sq, 256);
        ring_pbl(&q->rq, 128);
        h_post(h, &c);
    }
    h_ring_admin(h);
    for (pass = 1; pass <= 16 && done < PASS_QPS; pass++) {
        struct rnic_admin_cqe cqe;
        uint64_t entries = 0;

        h_run(h);
        while (h_poll(h, &cqe)) {
            CHECK_EQ(cqe.status, RNIC_STS_OK);
            entries += QP_RING_PAGES;
            done++;
        }
        if (entries > max_entries) {
            max_entries = entries;
        }
        passes++;
    }
    printf("%u CREATE_QPs in %u passes: at most %llu ring page-list entries "
           "in one pass (bound %u)\n", done, passes,
           (unsigned long long)max_entries, RNE_ADMIN_PASS_PAGES);
    CHECK_EQ(done, PASS_QPS);
    CHECK_EQ(held(h), (uint64_t)PASS_QPS * QP_RING_PAGES + 1);
    CHECK(max_entries < RNE_ADMIN_PASS_PAGES + QP_RING_PAGES);
    CHECK(passes >= 2);
    h_free(h);
}

int main(void)
{
    test_budget();
    test_pass_bound();
    test_ring_budget();
    test_ring_pass_bound();
    return t_report("test-dev-mr-budget");
}
