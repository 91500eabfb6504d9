/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * No head-of-line blocking behind the L2 ring (issue 17, finding 4).  B's
 * guest has an L2 RX ring but posts no buffer (a driver that never refills
 * it, or a broadcast flood that ate them all).  A floods B with broadcasts,
 * then writes over an offloaded connection.  B's frames reach it through a
 * model of QEMU's net queue (net/queue.c), which is what rnic.c sits
 * behind: once the NIC's receive returned 0 (or its can_receive, which
 * rnic.c no longer has, said no), every later frame waits behind the
 * first, in order, until the NIC's rx_resume flushes the queue.  The Write must be placed within
 * one round trip (no timer runs), the broadcasts dropped and counted in
 * rx_no_buffer, and nothing left in the queue; once a buffer is posted,
 * the next broadcast lands in it.
 */
#include <string.h>
#include "test-iw-pair.h"

#define FLOOD       64
#define WRITE_LEN   4000

/* QEMU's net queue in front of one NIC. */
struct netq {
    struct p_wire held;
    unsigned head;
    unsigned resumes;               /* the NIC's rx_resume calls seen */
    unsigned long max;              /* most frames ever held */
};

/* rnic.c has no can_receive: QEMU offers every frame to its receive. */
static bool nic_takes(struct rne_dev *d, const uint8_t *f, size_t len)
{
    return rne_dev_receive(d, f, len);
}

/* Offer the held frames in order, as qemu_flush_queued_packets does. */
static void netq_flush(struct netq *q, struct p_dev *dst)
{
    while (q->head < q->held.n &&
           nic_takes(&dst->h->dev, q->held.q[q->head].data,
                     q->held.q[q->head].len)) {
        free(q->held.q[q->head].data);
        q->head++;
        h_run(dst->h);
    }
}

static void netq_offer(struct netq *q, struct p_dev *dst, const uint8_t *f,
                       size_t len)
{
    if (q->head == q->held.n && nic_takes(&dst->h->dev, f, len)) {
        h_run(dst->h);
        return;
    }
    if (q->held.n == q->held.cap) {
        q->held.cap = q->held.cap ? q->held.cap * 2 : 64;
        q->held.q = realloc(q->held.q, q->held.cap * sizeof(*q->held.q));
        if (!q->held.q) {
            abort();
        }
    }
    q->held.q[q->held.n].data = malloc(len);
    if (!q->held.q[q->held.n].data) {
        abort();
    }
    memcpy(q->held.q[q->held.n].data, f, len);
    q->held.q[q->held.n++].len = len;
    if (q->held.n - q->head > q->max) {
        q->max = q->held.n - q->head;
    }
}

static void netq_free(struct netq *q)
{
    while (q->head < q->held.n) {
        free(q->held.q[q->head++].data);
    }
    free(q->held.q);
}

/*
 * Move frames both ways without moving the clock: A to B through B's net
 * queue (flushed whenever B asked for it), B to A directly.
 */
static void pump(struct pair *p, struct netq *q)
{
    unsigned i, guard;

    for (guard = 0; guard < 1000; guard++) {
        struct p_wire a = p->a.out, b = p->b.out;

        if (p->b.h->rx_resumes != q->resumes) {
            q->resumes = p->b.h->rx_resumes;
            netq_flush(q, &p->b);
        }
        if (!a.n && !b.n) {
            return;
        }
        memset(&p->a.out, 0, sizeof(p->a.out));
        memset(&p->b.out, 0, sizeof(p->b.out));
        for (i = 0; i < a.n; i++) {
            netq_offer(q, &p->b, a.q[i].data, a.q[i].len);
            free(a.q[i].data);
        }
        for (i = 0; i < b.n; i++) {
            rne_dev_receive(&p->a.h->dev, b.q[i].data, b.q[i].len);
            h_run(p->a.h);
            free(b.q[i].data);
        }
        free(a.q);
        free(b.q);
    }
}

static void broadcast(uint8_t *f, const uint8_t *src, unsigned seq)
{
    memset(f, 0, 60);
    memset(f, 0xff, 6);
    memcpy(f + 6, src, 6);
    f[12] = 0x08;
    f[13] = 0x06;       /* ARP: L2 traffic, not for the offload engine */
    f[20] = (uint8_t)(seq >> 8);
    f[21] = (uint8_t)seq;
}

int main(void)
{
    struct pair *p = p_new();
    struct rnic_admin_cmd c;
    struct rnic_sq_wqe w;
    struct rnic_l2_rx_desc desc;
    struct rnic_cqe cqe;
    struct netq q;
    uint64_t la, rb, rx_ring, rx_buf, no_buf0;
    uint8_t f[60];
    unsigned i;

    memset(&q, 0, sizeof(q));
    if (!p_connect_pair(p, 2, RNIC_MPA_CRC)) {
        p_free(p);
        return t_report("test-iw-l2-hol");
    }
    /* B's L2 RX ring: live, no buffer posted. */
    rx_ring = h_alloc(p->b.h, 1);
    rx_buf = h_alloc(p->b.h, 1);
    c = t_mk(RNIC_CMD_CREATE_RXQ);
    c.u.create_l2q.eqn = T_COMP_EQ;
    c.u.create_l2q.log_depth = 6;
    h_pbl(p->b.h, &c.u.create_l2q.ring, rx_ring, 1);
    CHECK_EQ(h_cmd(p->b.h, &c), RNIC_STS_OK);

    la = h_alloc(p->a.h, 1);
    CHECK_EQ(t_reg_mr(p->a.h, 0x100, 0, RNIC_ACCESS_LOCAL_WRITE, la, 4096,
                      la), RNIC_STS_OK);
    rb = h_alloc(p->b.h, 1);
    CHECK_EQ(t_reg_mr(p->b.h, 0x200, 0, RNIC_ACCESS_LOCAL_WRITE |
                      RNIC_ACCESS_REMOTE_WRITE, rb, 4096, rb), RNIC_STS_OK);
    for (i = 0; i < WRITE_LEN; i++) {
        p->a.h->mem[la + i] = (uint8_t)(i * 7 + 1);
    }

    no_buf0 = p->b.h->dev.stats.rx_no_buffer;
    for (i = 0; i < FLOOD; i++) {
        broadcast(f, p->a.mac, i);
        netq_offer(&q, &p->b, f, sizeof(f));
    }
    memset(&w, 0, sizeof(w));
    w.hdr.wr_id = 7;
    w.hdr.opcode = RNIC_WR_WRITE;
    w.hdr.flags = RNIC_WQE_SIGNALED;
    w.hdr.count = 1;
    w.op.rdma.remote_addr = rb;
    w.op.rdma.rkey = 0x200;
    t_sge(&w.data.sge[0], la, WRITE_LEN, 0x100);
    t_post_send(p->a.h, &p->a.qp, &w);
    p_ring_sq(&p->a);
    pump(p, &q);

    printf("test-iw-l2-hol: %u broadcasts then a %u-byte Write: %u frames "
           "left in the net queue (at most %lu), rx_no_buffer +%llu\n",
           FLOOD, WRITE_LEN, q.held.n - q.head, q.max,
           (unsigned long long)(p->b.h->dev.stats.rx_no_buffer - no_buf0));
    CHECK(!memcmp(p->b.h->mem + rb, p->a.h->mem + la, WRITE_LEN));
    CHECK(t_poll_cq(p->a.h, &p->a.cq, &cqe));
    CHECK_EQ(cqe.wr_id, 7);
    CHECK_EQ(cqe.status, RNIC_WC_SUCCESS);
    CHECK_EQ(q.held.n - q.head, 0);
    CHECK_EQ(q.max, 0);
    CHECK_EQ(p->b.h->dev.stats.rx_no_buffer - no_buf0, FLOOD);
    CHECK_EQ(p->b.h->dev.stats.rx_frames, 0);

    /* A buffer posted: the next broadcast lands in it, nothing earlier. */
    memset(&desc, 0, sizeof(desc));
    desc.addr = rx_buf;
    desc.buf_len = 2048;
    memcpy(p->b.h->mem + rx_ring, &desc, sizeof(desc));
    h_doorbell(p->b.h, RNIC_DB_L2_RX, 0, 0, 1);
    pump(p, &q);
    broadcast(f, p->a.mac, 1000);
    netq_offer(&q, &p->b, f, sizeof(f));
    memcpy(&desc, p->b.h->mem + rx_ring, sizeof(desc));
    CHECK_EQ(desc.status, RNIC_L2_DONE);
    CHECK_EQ(desc.pkt_len, sizeof(f));
    CHECK(!memcmp(p->b.h->mem + rx_buf, f, sizeof(f)));
    CHECK_EQ(p->b.h->dev.stats.rx_frames, 1);
    CHECK_EQ(p->b.h->dev.stats.rx_no_buffer - no_buf0, FLOOD);

    netq_free(&q);
    p_free(p);
    return t_report("test-iw-l2-hol");
}
