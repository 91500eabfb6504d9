/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Device core: registers, admin queue bring-up, command validation,
 * completion phases and back-pressure, ring overflow, reset.
 */
#include <string.h>
#include "test-dev-harness.h"

static struct rnic_admin_cmd mk(uint8_t opcode)
{
    struct rnic_admin_cmd c;

    memset(&c, 0, sizeof(c));
    c.hdr.opcode = opcode;
    return c;
}

static void test_identity(void)
{
    struct harness *h = h_new(NULL);
    struct rne_dev *d = &h->dev;

    CHECK_EQ(rne_dev_reg_read(d, RNIC_REG_MAGIC), RNIC_MAGIC);
    CHECK_EQ(rne_dev_reg_read(d, RNIC_REG_VERSION), 0x10000);
    CHECK_EQ(rne_dev_reg_read(d, RNIC_REG_MAX_EQ), 8);
    CHECK_EQ(rne_dev_reg_read(d, RNIC_REG_NUM_MSIX), 9);
    CHECK_EQ(rne_dev_reg_read(d, RNIC_REG_MAX_MTU), 9216);
    CHECK_EQ(rne_dev_reg_read(d, RNIC_REG_MAX_SEND_SGE), RNIC_SQ_MAX_SGE);
    CHECK_EQ(rne_dev_reg_read(d, RNIC_REG_MAC_LO), 0x12005452);
    CHECK_EQ(rne_dev_reg_read(d, RNIC_REG_MAC_HI), 0x5634);
    CHECK_EQ(rne_dev_reg_read(d, RNIC_REG_DEV_STATUS), RNIC_STATUS_LINK_UP);
    /* Capabilities are read-only. */
    rne_dev_reg_write(d, RNIC_REG_MAX_QP, 7);
    CHECK_EQ(rne_dev_reg_read(d, RNIC_REG_MAX_QP), 1024);
    CHECK(h->guest_errors == 1);
    h_free(h);
}

static void test_config_check(void)
{
    struct rne_dev_config c;

    rne_dev_config_default(&c);
    CHECK(rne_dev_config_check(&c) == NULL);
    c.max_uctx = 64;
    CHECK(rne_dev_config_check(&c) != NULL);
    rne_dev_config_default(&c);
    c.max_eq = 64;
    CHECK(rne_dev_config_check(&c) != NULL);
    rne_dev_config_default(&c);
    c.max_mtu = 65000;      /* the largest frame every netdev carries */
    CHECK(rne_dev_config_check(&c) == NULL);
    c.max_mtu = 65001;
    CHECK(rne_dev_config_check(&c) != NULL);
    c.max_mtu = 1499;
    CHECK(rne_dev_config_check(&c) != NULL);
    rne_dev_config_default(&c);
    c.max_cqe = 1024;       /* below max_qp_wr */
    CHECK(rne_dev_config_check(&c) != NULL);
    rne_dev_config_default(&c);
    c.mac[0] = 1;
    CHECK(rne_dev_config_check(&c) != NULL);
    /* keepalive: on by default as Linux TCP's; 0 idle switches it off */
    rne_dev_config_default(&c);
    CHECK_EQ(c.keep_idle_s, 7200);
    CHECK_EQ(c.keep_intvl_s, 75);
    CHECK_EQ(c.keep_probes, 9);
    c.keep_idle_s = 0;
    CHECK(rne_dev_config_check(&c) == NULL);
    c.keep_idle_s = 32767;
    c.keep_intvl_s = 32767;
    c.keep_probes = 127;
    CHECK(rne_dev_config_check(&c) == NULL);
    c.keep_idle_s = 32768;
    CHECK(rne_dev_config_check(&c) != NULL);
    rne_dev_config_default(&c);
    c.keep_intvl_s = 0;
    CHECK(rne_dev_config_check(&c) != NULL);
    rne_dev_config_default(&c);
    c.keep_probes = 0;
    CHECK(rne_dev_config_check(&c) != NULL);
    c.keep_probes = 128;
    CHECK(rne_dev_config_check(&c) != NULL);
}

static void test_bad_enable(void)
{
    struct harness *h = h_new(NULL);

    /* Depth beyond the limit: fatal with a reason, no DMA attempted. */
    CHECK(!h_enable(h, 11, 2));
    CHECK(rne_dev_reg_read(&h->dev, RNIC_REG_DEV_STATUS) &
          RNIC_STATUS_FATAL);
    CHECK_EQ(rne_dev_reg_read(&h->dev, RNIC_REG_DEV_ERROR),
             RNIC_DEVERR_ADMQ_CFG);
    /* Reset recovers, then a page list outside memory is a DMA error. */
    rne_dev_reg_write(&h->dev, RNIC_REG_DEV_CTRL, RNIC_CTRL_RESET);
    CHECK(rne_dev_reg_read(&h->dev, RNIC_REG_DEV_STATUS) &
          RNIC_STATUS_RESETTING);
    h_run(h);
    CHECK_EQ(rne_dev_reg_read(&h->dev, RNIC_REG_DEV_STATUS),
             RNIC_STATUS_LINK_UP);
    rne_dev_reg_write(&h->dev, RNIC_REG_ADMQ_SQ_PBL_HI, 0x100);
    rne_dev_reg_write(&h->dev, RNIC_REG_ADMQ_CQ_PBL_HI, 0x100);
    rne_dev_reg_write(&h->dev, RNIC_REG_ADMQ_CFG, 0x0202);
    rne_dev_reg_write(&h->dev, RNIC_REG_DEV_CTRL, RNIC_CTRL_ENABLE);
    h_run(h);
    CHECK_EQ(rne_dev_reg_read(&h->dev, RNIC_REG_DEV_ERROR),
             RNIC_DEVERR_ADMQ_DMA);
    h_free(h);
}

static void test_commands(void)
{
    struct harness *h = h_new(NULL);
    struct rnic_admin_cmd c;

    CHECK(h_enable(h, 3, 3));
    /* Commands while enabled cannot move the admin rings. */
    rne_dev_reg_write(&h->dev, RNIC_REG_ADMQ_CFG, 0);
    CHECK_EQ(rne_dev_reg_read(&h->dev, RNIC_REG_ADMQ_CFG), 0x0303);

    c = mk(RNIC_CMD_NOP);
    CHECK_EQ(h_cmd(h, &c), RNIC_STS_OK);
    CHECK_EQ(h->irq_count[0], 1);
    c = mk(0x7f);
    CHECK_EQ(h_cmd(h, &c), RNIC_STS_BAD_OPCODE);
    c = mk(RNIC_CMD_NOP);
    c.hdr.flags = 1;
    CHECK_EQ(h_cmd(h, &c), RNIC_STS_BAD_PARAM);
    c = mk(RNIC_CMD_CREATE_QP);     /* all zero: SQ depth 0 */
    CHECK_EQ(h_cmd(h, &c), RNIC_STS_BAD_PARAM);

    /* Object numbers out of range. */
    c = mk(RNIC_CMD_CREATE_EQ);
    c.u.create_eq.eqn = 9;
    c.u.create_eq.log_depth = 2;
    CHECK_EQ(h_cmd(h, &c), RNIC_STS_BAD_INDEX);
    c.u.create_eq.eqn = 0;
    CHECK_EQ(h_cmd(h, &c), RNIC_STS_BAD_INDEX);
    c = mk(RNIC_CMD_DESTROY_EQ);
    c.u.obj.id = 0xffffffff;
    CHECK_EQ(h_cmd(h, &c), RNIC_STS_BAD_INDEX);
    c = mk(RNIC_CMD_CREATE_PD);
    c.u.create_pd.pdn = 1024;
    CHECK_EQ(h_cmd(h, &c), RNIC_STS_BAD_INDEX);

    /* A page list outside guest memory, and one pointing outside. */
    c = mk(RNIC_CMD_CREATE_EQ);
    c.u.create_eq.eqn = 1;
    c.u.create_eq.log_depth = 2;
    c.u.create_eq.ring.addr = 0x4000000000ull;
    c.u.create_eq.ring.nentries = 1;
    c.u.create_eq.ring.levels = 1;
    c.u.create_eq.ring.page_shift = 12;
    CHECK_EQ(h_cmd(h, &c), RNIC_STS_DMA_ERROR);
    h_pbl(h, &c.u.create_eq.ring, 0x7ffff000ull, 1);
    CHECK_EQ(h_cmd(h, &c), RNIC_STS_DMA_ERROR);
    /* Wrong page count for the depth, misaligned page. */
    h_pbl(h, &c.u.create_eq.ring, h_alloc(h, 2), 2);
    CHECK_EQ(h_cmd(h, &c), RNIC_STS_BAD_PARAM);
    h_pbl(h, &c.u.create_eq.ring, h_alloc(h, 2) + 8, 1);
    CHECK_EQ(h_cmd(h, &c), RNIC_STS_BAD_PARAM);
    /* Then a good one, twice. */
    h_pbl(h, &c.u.create_eq.ring, h_alloc(h, 1), 1);
    CHECK_EQ(h_cmd(h, &c), RNIC_STS_OK);
    CHECK_EQ(h_cmd(h, &c), RNIC_STS_EXISTS);

    /* PDs belong to contexts; contexts with PDs cannot go. */
    c = mk(RNIC_CMD_CREATE_PD);
    c.u.create_pd.pdn = 5;
    c.u.create_pd.uctx = 3;
    CHECK_EQ(h_cmd(h, &c), RNIC_STS_NOT_FOUND);
    c = mk(RNIC_CMD_ALLOC_UCTX);
    c.u.alloc_uctx.uctx = 3;
    CHECK_EQ(h_cmd(h, &c), RNIC_STS_OK);
    c = mk(RNIC_CMD_CREATE_PD);
    c.u.create_pd.pdn = 5;
    c.u.create_pd.uctx = 3;
    CHECK_EQ(h_cmd(h, &c), RNIC_STS_OK);
    c = mk(RNIC_CMD_FREE_UCTX);
    c.u.obj.id = 3;
    CHECK_EQ(h_cmd(h, &c), RNIC_STS_BUSY);
    c = mk(RNIC_CMD_DESTROY_PD);
    c.u.obj.id = 5;
    CHECK_EQ(h_cmd(h, &c), RNIC_STS_OK);
    c = mk(RNIC_CMD_FREE_UCTX);
    c.u.obj.id = 3;
    CHECK_EQ(h_cmd(h, &c), RNIC_STS_OK);

    /* SET_PORT range checks, QUERY_STATS output. */
    c = mk(RNIC_CMD_SET_PORT);
    c.u.set_port.mtu = 9217;
    CHECK_EQ(h_cmd(h, &c), RNIC_STS_BAD_PARAM);
    c.u.set_port.mtu = 9000;
    c.u.set_port.mac[0] = 0x02;
    CHECK_EQ(h_cmd(h, &c), RNIC_STS_OK);
    CHECK_EQ(h->dev.port.mtu, 9000);
    c = mk(RNIC_CMD_QUERY_STATS);
    c.u.query_stats.buf_addr = h_alloc(h, 1);
    c.u.query_stats.buf_len = 64;
    CHECK_EQ(h_cmd(h, &c), RNIC_STS_BAD_PARAM);
    c.u.query_stats.buf_len = sizeof(struct rnic_port_stats);
    CHECK_EQ(h_cmd(h, &c), RNIC_STS_OK);
    c.u.query_stats.buf_addr = GUEST_MEM_SIZE - 64;
    CHECK_EQ(h_cmd(h, &c), RNIC_STS_DMA_ERROR);
    h_free(h);
}

/*
 * The device's own rings (EQs, L2 queues, admin queue) take a level-1 list
 * of 4 KiB pages only; the level-2 lists of work queues and CQs are refused.
 */
static void test_device_ring_lists(void)
{
    struct harness *h = h_new(NULL);
    struct rnic_admin_cmd c;
    struct rnic_pbl *ring = &c.u.create_eq.ring;
    uint64_t base, list, l2;

    CHECK(h_enable(h, 3, 3));
    c = mk(RNIC_CMD_CREATE_EQ);
    c.u.create_eq.eqn = 1;
    c.u.create_eq.log_depth = 7;        /* 128 x 64 bytes: 2 pages */
    base = h_alloc(h, 2);
    h_pbl(h, ring, base, 2);
    list = ring->addr;
    l2 = h_alloc(h, 1);
    memcpy(h->mem + l2, &list, 8);
    ring->addr = l2;
    ring->levels = 2;
    CHECK_EQ(h_cmd(h, &c), RNIC_STS_BAD_PARAM);
    ring->addr = list;
    ring->levels = 1;
    ring->page_shift = 13;
    CHECK_EQ(h_cmd(h, &c), RNIC_STS_BAD_PARAM);
    ring->page_shift = RNIC_PAGE_SHIFT;
    ring->rsvd = 1;
    CHECK_EQ(h_cmd(h, &c), RNIC_STS_BAD_PARAM);
    ring->rsvd = 0;
    ring->addr = list + 4;
    CHECK_EQ(h_cmd(h, &c), RNIC_STS_BAD_PARAM);
    CHECK(!h->dev.eq[1].live);
    ring->addr = list;
    CHECK_EQ(h_cmd(h, &c), RNIC_STS_OK);
    CHECK_EQ(h->dev.eq[1].ring.npages, 2);
    CHECK_EQ(h->dev.eq[1].ring.pages[1], base + RNIC_PAGE_SIZE);
    /* Destroyed and created again: the page list is copied afresh. */
    c = mk(RNIC_CMD_DESTROY_EQ);
    c.u.obj.id = 1;
    CHECK_EQ(h_cmd(h, &c), RNIC_STS_OK);
    c = mk(RNIC_CMD_CREATE_EQ);
    c.u.create_eq.eqn = 1;
    c.u.create_eq.log_depth = 1;
    base = h_alloc(h, 1);
    h_pbl(h, ring, base, 1);
    CHECK_EQ(h_cmd(h, &c), RNIC_STS_OK);
    CHECK_EQ(h->dev.eq[1].ring.npages, 1);
    CHECK_EQ(h->dev.eq[1].ring.pages[0], base);
    h_free(h);
}

static void test_phase_and_backpressure(void)
{
    struct harness *h = h_new(NULL);
    struct rnic_admin_cqe cqe;
    struct rnic_admin_cmd c = mk(RNIC_CMD_NOP);
    int i, n;

    CHECK(h_enable(h, 3, 1));       /* 8 commands, 2 completions */
    for (i = 0; i < 5; i++) {
        h_post(h, &c);
    }
    h_ring_admin(h);
    h_run(h);
    /* Only two fit; the rest wait until the driver frees entries. */
    for (n = 0; n < 5; n++) {
        if (!h_poll(h, &cqe)) {
            h_run(h);
            if (!h_poll(h, &cqe)) {
                break;
            }
        }
        CHECK_EQ(cqe.status, RNIC_STS_OK);
        CHECK_EQ(cqe.sq_head, n + 1);
    }
    CHECK_EQ(n, 5);
    CHECK_EQ(h->dev.admq.sq_head, 5);
    /* Wrapped twice around the 2-entry ring: phase flipped each time. */
    CHECK_EQ(h->cq_head, 5);
    h_free(h);
}

static void test_ring_overflow(void)
{
    struct harness *h = h_new(NULL);
    struct rnic_admin_cqe cqe;
    struct rnic_admin_cmd c = mk(RNIC_CMD_NOP);

    CHECK(h_enable(h, 2, 2));
    rne_dev_reg_write(&h->dev, RNIC_REG_ADMQ_SQ_TAIL, 5);   /* depth 4 */
    h_run(h);
    CHECK(h_poll(h, &cqe));
    CHECK_EQ(cqe.status, RNIC_STS_RING_OVERFLOW);
    CHECK_EQ(cqe.tag, RNIC_ADMIN_TAG_NONE);
    CHECK_EQ(h->dev.admq.sq_head, 0);
    /* The queue still works afterwards. */
    CHECK_EQ(h_cmd(h, &c), RNIC_STS_OK);
    /* A stale (backwards) tail is refused too. */
    rne_dev_reg_write(&h->dev, RNIC_REG_ADMQ_SQ_TAIL, 0);
    h_run(h);
    CHECK(h_poll(h, &cqe));
    CHECK_EQ(cqe.status, RNIC_STS_RING_OVERFLOW);
    h_free(h);
}

static void test_reset(void)
{
    struct harness *h = h_new(NULL);

    CHECK(h_enable(h, 2, 2));
    h_create_eq(h, 1, 2, RNIC_EQ_F_ASYNC);
    CHECK(h->dev.eq[1].live);
    /* Clearing ENABLE is a reset too; registers are ignored meanwhile. */
    rne_dev_reg_write(&h->dev, RNIC_REG_DEV_CTRL, 0);
    rne_dev_reg_write(&h->dev, RNIC_REG_ADMQ_CFG, 0x55);
    h_run(h);
    CHECK(!h->dev.eq[1].live);
    CHECK_EQ(rne_dev_reg_read(&h->dev, RNIC_REG_ADMQ_CFG), 0);
    CHECK_EQ(rne_dev_reg_read(&h->dev, RNIC_REG_DEV_STATUS),
             RNIC_STATUS_LINK_UP);
    CHECK(h_enable(h, 2, 2));
    h_free(h);
}

int main(void)
{
    test_identity();
    test_config_check();
    test_bad_enable();
    test_commands();
    test_device_ring_lists();
    test_phase_and_backpressure();
    test_ring_overflow();
    test_reset();
    if (test_failures) {
        fprintf(stderr, "%d check(s) failed\n", test_failures);
        return 1;
    }
    printf("test-dev-admin: all checks passed\n");
    return 0;
}
