/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A hostile guest against the device core, under ASan/UBSan: random and
 * half-valid admin commands, page lists, register writes, resets,
 * doorbells, scribbled rings and garbage frames.  The core must stay
 * inside its own host memory (ASan), keep its indices in range, and keep
 * answering commands and moving frames.
 */
#include <string.h>
#include "test-dev-harness.h"

static uint64_t rng_state = 0x9e3779b97f4a7c15ull;

static uint64_t rnd(void)
{
    /* xorshift64*: deterministic, so a failure reproduces. */
    rng_state ^= rng_state >> 12;
    rng_state ^= rng_state << 25;
    rng_state ^= rng_state >> 27;
    return rng_state * 2685821657736338717ull;
}

static uint32_t rnd_below(uint32_t n)
{
    return (uint32_t)(rnd() % n);
}

/* Mostly plausible, sometimes absurd guest addresses. */
static uint64_t rnd_addr(void)
{
    switch (rnd_below(4)) {
    case 0:
        return rnd();
    case 1:
        return GUEST_MEM_SIZE - rnd_below(8192);
    default:
        return (uint64_t)(0x100 + rnd_below(0x300)) * RNIC_PAGE_SIZE;
    }
}

static void rnd_pbl(struct harness *h, struct rnic_pbl *p)
{
    uint32_t n = 1 + rnd_below(rnd_below(4) ? 2 : 80), i;
    uint64_t list = (uint64_t)(0x80 + rnd_below(0x40)) * RNIC_PAGE_SIZE;

    for (i = 0; i < n && i < 512; i++) {
        uint64_t page = rnd_below(8) ? (uint64_t)(0x100 + rnd_below(0x300)) *
                        RNIC_PAGE_SIZE : rnd_addr();

        memcpy(h->mem + list + 8 * i, &page, 8);
    }
    memset(p, 0, sizeof(*p));
    p->addr = rnd_below(10) ? list : rnd_addr();
    p->nentries = rnd_below(6) ? n : (uint32_t)rnd();
    p->levels = rnd_below(8) ? 1 : (uint8_t)rnd();
    p->page_shift = rnd_below(8) ? 12 : (uint8_t)rnd();
}

static const uint8_t opcodes[] = {
    RNIC_CMD_NOP, RNIC_CMD_QUERY_STATS, RNIC_CMD_SET_PORT,
    RNIC_CMD_CREATE_EQ, RNIC_CMD_DESTROY_EQ, RNIC_CMD_CREATE_TXQ,
    RNIC_CMD_DESTROY_TXQ, RNIC_CMD_CREATE_RXQ, RNIC_CMD_DESTROY_RXQ,
    RNIC_CMD_ALLOC_UCTX, RNIC_CMD_FREE_UCTX, RNIC_CMD_CREATE_PD,
    RNIC_CMD_DESTROY_PD, RNIC_CMD_CREATE_QP, RNIC_CMD_CM_CONNECT, 0x7f,
};

static void rnd_cmd(struct harness *h, struct rnic_admin_cmd *c)
{
    uint32_t i;

    for (i = 0; i < sizeof(*c); i++) {
        ((uint8_t *)c)[i] = (uint8_t)rnd();
    }
    c->hdr.opcode = opcodes[rnd_below(sizeof(opcodes))];
    if (rnd_below(4)) {
        c->hdr.flags = 0;
        c->hdr.rsvd = 0;
    }
    switch (c->hdr.opcode) {
    case RNIC_CMD_CREATE_EQ:
        c->u.create_eq.eqn = rnd_below(12);
        c->u.create_eq.log_depth = (uint8_t)rnd_below(14);
        c->u.create_eq.flags = (uint8_t)rnd_below(5);
        c->u.create_eq.rsvd = 0;
        rnd_pbl(h, &c->u.create_eq.ring);
        if (c->u.create_eq.flags & RNIC_EQ_F_CM) {
            rnd_pbl(h, &c->u.create_eq.pdata);
        } else {
            memset(&c->u.create_eq.pdata, 0, sizeof(c->u.create_eq.pdata));
        }
        break;
    case RNIC_CMD_CREATE_TXQ:
    case RNIC_CMD_CREATE_RXQ:
        c->u.create_l2q.qid = rnd_below(3);
        c->u.create_l2q.eqn = rnd_below(10);
        c->u.create_l2q.log_depth = (uint8_t)rnd_below(14);
        memset(c->u.create_l2q.rsvd, 0, sizeof(c->u.create_l2q.rsvd));
        rnd_pbl(h, &c->u.create_l2q.ring);
        break;
    case RNIC_CMD_SET_PORT:
        c->u.set_port.mtu = (uint16_t)(rnd_below(2) ? rnd_below(9300) : rnd());
        c->u.set_port.flags = rnd_below(4);
        break;
    case RNIC_CMD_QUERY_STATS:
        c->u.query_stats.buf_addr = rnd_addr();
        c->u.query_stats.buf_len = rnd_below(300);
        c->u.query_stats.rsvd = 0;
        break;
    default:
        if (rnd_below(2)) {
            c->u.obj.id = rnd_below(70);
        }
    }
}

static void rnd_frame(struct harness *h)
{
    static uint8_t f[9400];
    size_t len = rnd_below(4) ? rnd_below(1600) : rnd_below(sizeof(f));
    size_t i;

    for (i = 0; i < len; i++) {
        f[i] = (uint8_t)rnd();
    }
    if (len >= 6 && rnd_below(2)) {
        memcpy(f, h->dev.port.mac, 6);
    }
    if (len >= 24 && rnd_below(2)) {
        f[12] = 0x08;
        f[13] = 0x00;
        f[14] = 0x45;
        f[23] = 6;
    }
    {
        uint64_t before = h->dev.stats.rx_frames;

        CHECK(rne_dev_receive(&h->dev, f, len));
        h->received_total += h->dev.stats.rx_frames != before;
    }
}

/* The opcode posted under each tag (tags are not reused in this run). */
static uint8_t posted_op[65536];
static bool posted[65536], posted_clean[65536];    /* clean: hdr rsvd 0 */

/* Known-good EQ and L2 rings, so the random traffic reaches the L2 path. */
struct l2_mem {
    uint64_t eq, tx, rx, lists;
};

static void setup_l2(struct harness *h, const struct l2_mem *m)
{
    struct rnic_admin_cmd c;
    uint64_t list;
    unsigned i;

    for (i = 0; i < 3; i++) {
        uint64_t ring = i == 0 ? m->eq : i == 1 ? m->tx : m->rx;

        list = m->lists + 8 * i;
        memcpy(h->mem + list, &ring, 8);
        memset(&c, 0, sizeof(c));
        c.hdr.opcode = i == 0 ? RNIC_CMD_CREATE_EQ :
                       i == 1 ? RNIC_CMD_CREATE_TXQ : RNIC_CMD_CREATE_RXQ;
        if (i == 0) {
            c.u.create_eq.eqn = 1;
            c.u.create_eq.log_depth = 6;
            c.u.create_eq.flags = RNIC_EQ_F_ASYNC;
            c.u.create_eq.ring = (struct rnic_pbl){ .addr = list,
                .nentries = 1, .levels = 1, .page_shift = 12 };
        } else {
            c.u.create_l2q.eqn = 1;
            c.u.create_l2q.log_depth = 8;
            c.u.create_l2q.ring = (struct rnic_pbl){ .addr = list,
                .nentries = 1, .levels = 1, .page_shift = 12 };
        }
        CHECK_EQ(h_cmd(h, &c), RNIC_STS_OK);
        posted[h->next_tag] = true;
        posted_op[h->next_tag] = c.hdr.opcode;
    }
}

/* Plausible-looking but hostile descriptors. */
static void scribble_ring(struct harness *h, uint64_t ring)
{
    unsigned i;

    for (i = 0; i < 16; i++) {
        struct rnic_l2_tx_desc d;

        d.addr = rnd_below(4) ? 0x200000 + rnd_below(0x100000) : rnd_addr();
        d.len = (uint16_t)(rnd_below(2) ? rnd_below(1600) : rnd());
        d.flags = (uint8_t)(rnd_below(3) ? RNIC_L2_TX_EOP : rnd());
        d.status = 0;
        d.rsvd = (uint32_t)rnd();
        memcpy(h->mem + ring + 16 * rnd_below(256), &d, sizeof(d));
    }
}

/*
 * A completion must answer a command the driver posted: its tag and opcode
 * (or an empty, all-zero slot the driver's random SQ tail pointed at, a
 * NOP), an overflow only with no tag, an unknown opcode with a clean
 * header BAD_OPCODE.
 */
static void check_cqe(const struct rnic_admin_cqe *cqe)
{
    CHECK(cqe->status <= RNIC_STS_RING_OVERFLOW);
    if (cqe->status == RNIC_STS_RING_OVERFLOW) {
        CHECK_EQ(cqe->tag, RNIC_ADMIN_TAG_NONE);
        return;
    }
    if (!cqe->tag) {
        CHECK_EQ(cqe->opcode, RNIC_CMD_NOP);
        return;
    }
    CHECK(posted[cqe->tag]);
    CHECK_EQ(cqe->opcode, posted_op[cqe->tag]);
    if (cqe->opcode == 0x7f && posted_clean[cqe->tag]) {
        CHECK_EQ(cqe->status, RNIC_STS_BAD_OPCODE);
    }
}

static const uint32_t db_offs[] = {
    RNIC_DB_SQ, RNIC_DB_RQ, RNIC_DB_SRQ, RNIC_DB_CQ, RNIC_DB_EQ,
    RNIC_DB_L2_TX, RNIC_DB_L2_RX, 0x38, 0xff8,
};

int main(void)
{
    struct harness *h = h_new(NULL);
    unsigned status_seen[256] = { 0 }, completions = 0, resets = 0;
    unsigned iter, i, kinds = 0;
    struct rnic_admin_cqe cqe;

    struct l2_mem m;

    m.eq = h_alloc(h, 1);
    m.tx = h_alloc(h, 1);
    m.rx = h_alloc(h, 1);
    m.lists = h_alloc(h, 1);
    CHECK(h_enable(h, 4, 4));
    setup_l2(h, &m);
    for (iter = 0; iter < 20000; iter++) {
        switch (rnd_below(10)) {
        case 0: case 1: case 2: {
            struct rnic_admin_cmd c;

            rnd_cmd(h, &c);
            h_post(h, &c);
            CHECK(h->next_tag != RNIC_ADMIN_TAG_NONE && !posted[h->next_tag]);
            posted[h->next_tag] = true;
            posted_op[h->next_tag] = c.hdr.opcode;
            posted_clean[h->next_tag] = !c.hdr.flags && !c.hdr.rsvd;
            h_ring_admin(h);
            break;
        }
        case 3:
            if (rnd_below(50) == 0) {
                rne_dev_reg_write(&h->dev, RNIC_REG_DEV_CTRL,
                                  RNIC_CTRL_RESET);
                h_run(h);
                resets++;
                /* Same admin memory each time: the bump allocator would
                 * otherwise run into the scribbled area. */
                h->alloc_next = m.lists + RNIC_PAGE_SIZE;
                CHECK(h_enable(h, 1 + rnd_below(4), 1 + rnd_below(4)));
                setup_l2(h, &m);
            } else if (rnd_below(10) == 0) {
                rne_dev_reg_write(&h->dev, RNIC_REG_ADMQ_SQ_TAIL,
                                  (uint32_t)rnd());
            } else {
                rne_dev_reg_write(&h->dev, rnd_below(0x400) & ~3u,
                                  (uint32_t)rnd() & 0xfffffffc);
            }
            break;
        case 4: case 5: {
            uint32_t off = db_offs[rnd_below(sizeof(db_offs) / 4)];
            uint32_t idx = rnd_below(40);

            /* Mostly a few entries past the device's view, sometimes junk. */
            if (off == RNIC_DB_L2_TX) {
                idx = h->dev.txq[0].pidx + rnd_below(6);
            } else if (off == RNIC_DB_L2_RX) {
                idx = h->dev.rxq[0].pidx + rnd_below(6);
            }
            if (!rnd_below(8)) {
                idx = (uint32_t)rnd();
            }
            rne_dev_doorbell(&h->dev, rnd_below(8) ? 0 : rnd_below(80), off,
                             RNIC_DB_VAL(rnd_below(8) ? 0 : rnd_below(4),
                                         rnd_below(2) ? RNIC_DB_ARM : 0,
                                         idx));
            break;
        }
        case 6:
            /* The guest scribbles over rings and buffers. */
            scribble_ring(h, rnd_below(2) ? m.tx : m.rx);
            for (i = 0; i < 64; i++) {
                h->mem[0x100000 + rnd_below(0x300000)] = (uint8_t)rnd();
            }
            break;
        case 7:
            rne_dev_set_link(&h->dev, rnd_below(4) != 0);
            break;
        default:
            rnd_frame(h);
        }
        h_run(h);
        /* Random DEV_CTRL writes reset it too: bring it back like a driver. */
        if (!(rne_dev_reg_read(&h->dev, RNIC_REG_DEV_STATUS) &
              RNIC_STATUS_READY)) {
            rne_dev_reg_write(&h->dev, RNIC_REG_DEV_CTRL, RNIC_CTRL_RESET);
            h_run(h);
            resets++;
            h->alloc_next = m.lists + RNIC_PAGE_SIZE;
            CHECK(h_enable(h, 1 + rnd_below(4), 1 + rnd_below(4)));
            setup_l2(h, &m);
            continue;
        }
        while (h_poll(h, &cqe)) {
            status_seen[cqe.status]++;
            completions++;
            check_cqe(&cqe);
        }
        /* The device state stays within its own bounds. */
        CHECK(h->dev.async_eqn <= h->dev.cfg.max_eq);
        CHECK(rne_ring_used(h->dev.admq.sq_tail, h->dev.admq.sq_head) <=
              h->dev.admq.sq.depth);
        for (i = 1; i <= h->dev.cfg.max_eq; i++) {
            if (h->dev.eq[i].live) {
                CHECK(rne_ring_used(h->dev.eq[i].pidx, h->dev.eq[i].cidx) <=
                      h->dev.eq[i].ring.depth);
            }
        }
    }
    for (i = 0; i < 256; i++) {
        kinds += status_seen[i] != 0;
    }
    printf("test-dev-hostile: %u completions, %u distinct statuses "
           "(ok %u, bad_param %u, bad_index %u, dma %u, overflow %u), "
           "%u resets, %lu frames sent, %lu received, %u guest errors\n",
           completions, kinds, status_seen[RNIC_STS_OK],
           status_seen[RNIC_STS_BAD_PARAM], status_seen[RNIC_STS_BAD_INDEX],
           status_seen[RNIC_STS_DMA_ERROR],
           status_seen[RNIC_STS_RING_OVERFLOW], resets,
           h->sent_total, h->received_total, h->guest_errors);
    /* The run must have reached both the good and the bad paths. */
    CHECK(status_seen[RNIC_STS_OK] > 100);
    CHECK(kinds >= 8);
    CHECK(h->sent_total > 100 && h->received_total > 100);
    h_free(h);
    if (test_failures) {
        fprintf(stderr, "%d check(s) failed\n", test_failures);
        return 1;
    }
    return 0;
}
