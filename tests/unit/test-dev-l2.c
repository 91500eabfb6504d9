/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Device core L2 path: TX gather and write-back, TX back-pressure, RX
 * delivery and no-buffer drops, MTU limits, events and interrupts,
 * doorbell validation.
 */
#include <string.h>
#include "test-dev-harness.h"

#define DEPTH_LOG 3
#define DEPTH (1u << DEPTH_LOG)

struct l2 {
    struct harness *h;
    uint64_t eq, txr, rxr, bufs;
    uint32_t tx_tail, rx_tail, eq_head;
};

static void l2_setup(struct l2 *t)
{
    struct rnic_admin_cmd c;

    memset(t, 0, sizeof(*t));
    t->h = h_new(NULL);
    CHECK(h_enable(t->h, 3, 3));
    t->eq = h_create_eq(t->h, 1, 4, RNIC_EQ_F_ASYNC);
    t->txr = h_alloc(t->h, 1);
    t->rxr = h_alloc(t->h, 1);
    t->bufs = h_alloc(t->h, 64);
    memset(&c, 0, sizeof(c));
    c.hdr.opcode = RNIC_CMD_CREATE_TXQ;
    c.u.create_l2q.eqn = 1;
    c.u.create_l2q.log_depth = DEPTH_LOG;
    h_pbl(t->h, &c.u.create_l2q.ring, t->txr, 1);
    CHECK_EQ(h_cmd(t->h, &c), RNIC_STS_OK);
    c.hdr.opcode = RNIC_CMD_CREATE_RXQ;
    h_pbl(t->h, &c.u.create_l2q.ring, t->rxr, 1);
    CHECK_EQ(h_cmd(t->h, &c), RNIC_STS_OK);
    /* The new async EQ was told the link state; consume it and arm. */
    CHECK_EQ(((struct rnic_eqe *)(t->h->mem + t->eq))->code,
             RNIC_ASYNC_PORT_UP);
    t->eq_head = 1;
    h_doorbell(t->h, RNIC_DB_EQ, 1, RNIC_DB_ARM, t->eq_head);
    CHECK_EQ(t->h->irq_count[1], 0);
}

static struct rnic_l2_tx_desc *txd(struct l2 *t, uint32_t i)
{
    return (void *)(t->h->mem + t->txr + (i % DEPTH) * 16);
}

static struct rnic_l2_rx_desc *rxd(struct l2 *t, uint32_t i)
{
    return (void *)(t->h->mem + t->rxr + (i % DEPTH) * 16);
}

static struct rnic_eqe *eqe(struct l2 *t, uint32_t i)
{
    return (void *)(t->h->mem + t->eq + (i % 16) * 64);
}

static void tx_post(struct l2 *t, const void *data, uint16_t len, bool eop)
{
    struct rnic_l2_tx_desc *d = txd(t, t->tx_tail);
    uint64_t buf = t->bufs + (t->tx_tail % DEPTH) * RNIC_PAGE_SIZE * 3;

    memcpy(t->h->mem + buf, data, len);
    d->addr = buf;
    d->len = len;
    d->flags = eop ? RNIC_L2_TX_EOP : 0;
    d->status = 0;
    t->tx_tail++;
}

static void rx_post(struct l2 *t, uint16_t buf_len)
{
    struct rnic_l2_rx_desc *d = rxd(t, t->rx_tail);

    d->addr = t->bufs + 32 * RNIC_PAGE_SIZE +
              (t->rx_tail % DEPTH) * RNIC_PAGE_SIZE * 3;
    d->buf_len = buf_len;
    d->pkt_len = 0;
    d->status = 0;
    t->rx_tail++;
}

static void frame_fill(uint8_t *f, size_t len, const uint8_t *dst, uint8_t seed)
{
    size_t i;

    memcpy(f, dst, 6);
    memset(f + 6, 0x02, 6);
    f[12] = 0x88;
    f[13] = 0xb5;
    for (i = 14; i < len; i++) {
        f[i] = (uint8_t)(seed + i);
    }
}

static void test_tx(void)
{
    static const uint8_t bcast[6] = { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff };
    static uint8_t f[9234];
    struct l2 t;

    l2_setup(&t);
    frame_fill(f, 60, bcast, 1);
    tx_post(&t, f, 60, true);
    h_doorbell(t.h, RNIC_DB_L2_TX, 0, RNIC_DB_ARM, t.tx_tail);
    CHECK_EQ(t.h->ncap, 1);
    CHECK_EQ(t.h->cap_len[0], 60);
    CHECK(!memcmp(t.h->cap[0], f, 60));
    CHECK_EQ(txd(&t, 0)->status, RNIC_L2_DONE);
    /* Armed: one TX event, EQ interrupt on vector 1. */
    CHECK_EQ(eqe(&t, 1)->type, RNIC_EQE_L2_TX);
    CHECK_EQ(eqe(&t, 1)->flags & RNIC_CQE_PHASE, 1);
    CHECK_EQ(t.h->irq_count[1], 1);

    /* A jumbo frame in three pieces; no event since not re-armed. */
    CHECK(h_cmd(t.h, &(struct rnic_admin_cmd){
        .hdr.opcode = RNIC_CMD_SET_PORT,
        .u.set_port = { .mac = { 0x52, 0x54, 0, 0x12, 0x34, 0x56 },
                        .mtu = 9216 } }) == RNIC_STS_OK);
    frame_fill(f, 9234, bcast, 7);
    tx_post(&t, f, 4000, false);
    tx_post(&t, f + 4000, 4000, false);
    h_doorbell(t.h, RNIC_DB_L2_TX, 0, 0, t.tx_tail);
    CHECK_EQ(t.h->ncap, 1);         /* no EOP yet: waits */
    tx_post(&t, f + 8000, 1234, true);
    h_doorbell(t.h, RNIC_DB_L2_TX, 0, 0, t.tx_tail);
    CHECK_EQ(t.h->ncap, 2);
    CHECK_EQ(t.h->cap_len[1], 9234);
    CHECK(!memcmp(t.h->cap[1], f, 9234));
    CHECK_EQ(txd(&t, 3)->status, RNIC_L2_DONE);
    CHECK_EQ(eqe(&t, 2)->type, 0);

    /* Longer than MTU + 18, zero length: errors, nothing sent. */
    tx_post(&t, f, 4000, false);
    tx_post(&t, f, 4000, false);
    tx_post(&t, f, 1235, true);
    tx_post(&t, f, 0, true);
    h_doorbell(t.h, RNIC_DB_L2_TX, 0, 0, t.tx_tail);
    CHECK_EQ(t.h->ncap, 2);
    CHECK_EQ(txd(&t, 6)->status, RNIC_L2_DONE | RNIC_L2_ERR);
    CHECK_EQ(txd(&t, 7)->status, RNIC_L2_DONE | RNIC_L2_ERR);
    CHECK_EQ(t.h->dev.stats.tx_errors, 2);
    CHECK_EQ(t.h->dev.stats.tx_frames, 2);

    /* A buffer outside guest memory: error, queue keeps going. */
    tx_post(&t, f, 60, true);
    txd(&t, 8)->addr = 0x100000000ull;
    tx_post(&t, f, 60, true);
    h_doorbell(t.h, RNIC_DB_L2_TX, 0, 0, t.tx_tail);
    CHECK_EQ(txd(&t, 8)->status, RNIC_L2_DONE | RNIC_L2_ERR);
    CHECK_EQ(t.h->ncap, 3);

    /* Producer beyond consumer + depth: rejected, async error event. */
    h_doorbell(t.h, RNIC_DB_L2_TX, 0, 0, t.tx_tail + DEPTH + 1);
    CHECK_EQ(t.h->ncap, 3);
    CHECK_EQ(eqe(&t, 2)->type, RNIC_EQE_ASYNC);
    CHECK_EQ(eqe(&t, 2)->code, RNIC_ASYNC_L2_ERROR);
    h_free(t.h);
}

static void test_tx_backpressure(void)
{
    static const uint8_t bcast[6] = { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff };
    uint8_t f[64];
    struct l2 t;
    int i;

    l2_setup(&t);
    frame_fill(f, 64, bcast, 9);
    /* The wire queues the first frame and asks us to stop. */
    t.h->wire_busy = true;
    for (i = 0; i < 3; i++) {
        tx_post(&t, f, 64, true);
    }
    h_doorbell(t.h, RNIC_DB_L2_TX, 0, 0, t.tx_tail);
    CHECK_EQ(t.h->ncap, 1);
    /* the device holds copies of the other two in its egress queue */
    CHECK_EQ(txd(&t, 0)->status, RNIC_L2_DONE);
    CHECK_EQ(txd(&t, 2)->status, RNIC_L2_DONE);
    CHECK_EQ(t.h->dev.egress.count, 2);
    /* More doorbells while paused are remembered, not lost. */
    tx_post(&t, f, 64, true);
    h_doorbell(t.h, RNIC_DB_L2_TX, 0, 0, t.tx_tail);
    CHECK_EQ(t.h->ncap, 1);
    CHECK_EQ(txd(&t, 3)->status, 0);
    t.h->wire_busy = false;
    CHECK(rne_dev_tx_resume(&t.h->dev));
    h_run(t.h);
    CHECK_EQ(t.h->ncap, 4);
    CHECK_EQ(txd(&t, 3)->status, RNIC_L2_DONE);
    /* Nothing left: a resume has no work. */
    CHECK(!rne_dev_tx_resume(&t.h->dev));
    h_free(t.h);
}

static void test_rx(void)
{
    static const uint8_t mac[6] = { 0x52, 0x54, 0x00, 0x12, 0x34, 0x56 };
    static const uint8_t other[6] = { 0x52, 0x54, 0x00, 0x99, 0x99, 0x99 };
    uint8_t f[1600];
    struct l2 t;

    l2_setup(&t);
    frame_fill(f, 100, mac, 3);
    /* Queue exists, no buffers: taken, dropped and counted, not held. */
    CHECK(rne_dev_receive(&t.h->dev, f, 100));
    CHECK_EQ(t.h->dev.stats.rx_no_buffer, 1);
    CHECK_EQ(t.h->dev.stats.rx_frames, 0);
    rx_post(&t, 1518);
    rx_post(&t, 1518);
    h_doorbell(t.h, RNIC_DB_L2_RX, 0, RNIC_DB_ARM, t.rx_tail);
    /* Nothing was held, so there is nothing to offer again. */
    CHECK_EQ(t.h->rx_resumes, 0);
    CHECK_EQ(rxd(&t, 0)->status, 0);
    frame_fill(f, 100, mac, 4);
    CHECK(rne_dev_receive(&t.h->dev, f, 100));
    CHECK_EQ(rxd(&t, 0)->status, RNIC_L2_DONE);
    CHECK_EQ(rxd(&t, 0)->pkt_len, 100);
    CHECK(!memcmp(t.h->mem + rxd(&t, 0)->addr, f, 100));
    CHECK_EQ(eqe(&t, 1)->type, RNIC_EQE_L2_RX);
    CHECK_EQ(t.h->irq_count[1], 1);

    /* Not for us: filtered; for us but too long for MTU 1500: dropped. */
    frame_fill(f, 100, other, 3);
    CHECK(rne_dev_receive(&t.h->dev, f, 100));
    CHECK_EQ(t.h->dev.stats.rx_filtered, 1);
    frame_fill(f, 1519, mac, 3);
    CHECK(rne_dev_receive(&t.h->dev, f, 1519));
    CHECK_EQ(t.h->dev.stats.rx_too_long, 1);
    CHECK_EQ(rxd(&t, 1)->status, 0);
    /* Last buffer used: the next frame is dropped again. */
    frame_fill(f, 1518, mac, 5);
    CHECK(rne_dev_receive(&t.h->dev, f, 1518));
    CHECK_EQ(rxd(&t, 1)->pkt_len, 1518);
    CHECK(rne_dev_receive(&t.h->dev, f, 1518));
    CHECK_EQ(t.h->dev.stats.rx_no_buffer, 2);
    CHECK_EQ(t.h->dev.stats.rx_frames, 2);
    /* Not re-armed: no second event. */
    CHECK_EQ(eqe(&t, 2)->type, 0);
    /* Arming with unreported progress raises the event at once. */
    h_doorbell(t.h, RNIC_DB_L2_RX, 0, RNIC_DB_ARM, t.rx_tail);
    CHECK_EQ(eqe(&t, 2)->type, RNIC_EQE_L2_RX);
    /* The EQ was not re-armed, so no new interrupt. */
    CHECK_EQ(t.h->irq_count[1], 1);
    t.eq_head = 3;
    h_doorbell(t.h, RNIC_DB_EQ, 1, RNIC_DB_ARM, t.eq_head);
    CHECK_EQ(t.h->irq_count[1], 1);
    /* Consumer index beyond the producer: refused. */
    h_doorbell(t.h, RNIC_DB_EQ, 1, 0, 7);
    CHECK_EQ(t.h->dev.eq[1].cidx, 3);
    h_free(t.h);
}

static void test_doorbell_rules(void)
{
    struct l2 t;

    l2_setup(&t);
    /* User pages cannot ring kernel-only doorbells; unknown objects. */
    CHECK(rne_dev_doorbell(&t.h->dev, 1, RNIC_DB_L2_TX,
                           RNIC_DB_VAL(0, 0, 1)));
    h_run(t.h);
    CHECK_EQ(t.h->ncap, 0);
    CHECK_EQ(eqe(&t, 1)->code, RNIC_ASYNC_DB_ERROR);
    CHECK(rne_dev_doorbell(&t.h->dev, 0, RNIC_DB_L2_TX,
                           RNIC_DB_VAL(5, 0, 1)));
    CHECK(rne_dev_doorbell(&t.h->dev, 0, RNIC_DB_EQ,
                           RNIC_DB_VAL(60, 0, 1)));
    CHECK(rne_dev_doorbell(&t.h->dev, 64, RNIC_DB_CQ, 0));
    CHECK(rne_dev_doorbell(&t.h->dev, 0, 0x800, 0));
    h_run(t.h);
    CHECK(t.h->guest_errors >= 5);
    /* EQ in use by queues cannot be destroyed. */
    CHECK_EQ(h_cmd(t.h, &(struct rnic_admin_cmd){
        .hdr.opcode = RNIC_CMD_DESTROY_EQ, .u.obj.id = 1 }), RNIC_STS_BUSY);
    CHECK_EQ(h_cmd(t.h, &(struct rnic_admin_cmd){
        .hdr.opcode = RNIC_CMD_DESTROY_TXQ, .u.obj.id = 0 }), RNIC_STS_OK);
    CHECK_EQ(h_cmd(t.h, &(struct rnic_admin_cmd){
        .hdr.opcode = RNIC_CMD_DESTROY_RXQ, .u.obj.id = 0 }), RNIC_STS_OK);
    CHECK_EQ(h_cmd(t.h, &(struct rnic_admin_cmd){
        .hdr.opcode = RNIC_CMD_DESTROY_EQ, .u.obj.id = 1 }), RNIC_STS_OK);
    h_free(t.h);
}

static void test_link(void)
{
    struct l2 t;

    l2_setup(&t);
    /* Creating the async EQ reported the current state (up). */
    CHECK_EQ(eqe(&t, 0)->code, RNIC_ASYNC_PORT_UP);
    CHECK(rne_dev_set_link(&t.h->dev, false));
    h_run(t.h);
    CHECK_EQ(rne_dev_reg_read(&t.h->dev, RNIC_REG_DEV_STATUS) &
             RNIC_STATUS_LINK_UP, 0);
    CHECK_EQ(eqe(&t, 1)->code, RNIC_ASYNC_PORT_DOWN);
    h_free(t.h);
}

int main(void)
{
    test_tx();
    test_tx_backpressure();
    test_rx();
    test_doorbell_rules();
    test_link();
    if (test_failures) {
        fprintf(stderr, "%d check(s) failed\n", test_failures);
        return 1;
    }
    printf("test-dev-l2: all checks passed\n");
    return 0;
}
