/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Page-list amplification (issue 17, finding 1): a REG_MR or ALLOC_MR of
 * 2^18 pages costs the guest a 12 KiB two-level list whose entries all
 * name one page, and the device 2 MiB of host memory plus a DMA per entry.
 * Through the admin queue only: the device-wide page-list budget
 * (max-mr-pages, default 2^21 entries = 16 MiB) answers NO_RESOURCES, and
 * one processing pass loads at most one maximal page list.
 */
#include <string.h>
#include <unistd.h>
#include "test-rdma-helpers.h"

#define HOSTILE_MRS     4096
#define MR_PAGES        (1u << 18)              /* RNIC_MR_MAX_PAGES */
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
static void test_budget(void)
{
    struct harness *h = h_new(NULL);
    uint64_t rss0, held = 0, peak = 0;
    unsigned ok = 0, refused = 0, sts;
    uint32_t i;

    CHECK(h_enable(h, 5, 5));
    CHECK_EQ(t_create_pd(h, 0, 0), RNIC_STS_OK);
    hostile_lists(h);
    rss0 = rss_bytes();
    for (i = 0; i < HOSTILE_MRS; i++) {
        struct rnic_admin_cmd c = hostile_reg(i);

        sts = h_cmd(h, &c);
        if (sts == RNIC_STS_OK) {
            ok++;
            held += (uint64_t)MR_PAGES * 8;
        } else {
            CHECK_EQ(sts, RNIC_STS_NO_RESOURCES);
            refused++;
        }
        if (held > BUDGET_BYTES) {
            fprintf(stderr, "REG_MR %u accepted: %llu MiB of page lists "
                    "held, budget %llu MiB\n", i,
                    (unsigned long long)(held >> 20),
                    (unsigned long long)(BUDGET_BYTES >> 20));
            CHECK(held <= BUDGET_BYTES);
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
        if (h->dev.rdma->mr[i].state != RNIC_MR_FREE) {
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
        sts = h_cmd(h, &c);
        if (sts == RNIC_STS_OK) {
            ok++;
            held += (uint64_t)MR_PAGES * 8;
        } else {
            CHECK_EQ(sts, RNIC_STS_NO_RESOURCES);
            refused++;
        }
        if (held > BUDGET_BYTES) {
            fprintf(stderr, "ALLOC_MR %u accepted: %llu MiB of page lists "
                    "reserved, budget %llu MiB\n", i,
                    (unsigned long long)(held >> 20),
                    (unsigned long long)(BUDGET_BYTES >> 20));
            CHECK(held <= BUDGET_BYTES);
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

int main(void)
{
    test_budget();
    test_pass_bound();
    return t_report("test-dev-mr-budget");
}
