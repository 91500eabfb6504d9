/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The device re-entered while it is working (issue 16):
 *  - a reset from inside the device's own DMA write (an EQ page or a CQ
 *    page), reached through CM_ABORT, a peer RST, an MPA timeout, a SYN
 *    timeout and DESTROY_QP: nothing freed is touched, nothing leaks, the
 *    device works again after;
 *  - a synchronous wire (two devices on a hub, as QEMU's net queue delivers):
 *    a Terminate and an RST arriving while the Send that caused them is
 *    still being segmented, and ACKs arriving in the middle of a message;
 *  - the timer's DMA landing on the doorbell page: the doorbell is not run
 *    inside the timer's work;
 *  - commands in the same dispatch after a connection was freed by the
 *    first of them: not found, freed once, its memory gone at the end.
 */
#include <string.h>
#include "test-iw-pair.h"
#include "iwarp/iw.h"
#include "wire/net.h"

#define ALT_PORT    (P_PORT + 1)
#define ALT_QP      7

/* ---- reset from inside a DMA write ---- */

struct reset_hook {
    struct harness *h;
    uint64_t page;
    bool armed;
    unsigned fired;
};

static void reset_on_write(void *ctx, uint64_t addr, size_t len)
{
    struct reset_hook *k = ctx;

    if (!k->armed || addr + len <= k->page || addr >= k->page + 4096) {
        return;
    }
    k->armed = false;
    k->fired++;
    rne_dev_reset(&k->h->dev);
}

static void arm(struct reset_hook *k, struct p_dev *d, bool cq_page)
{
    k->h = d->h;
    k->page = cq_page ? d->cq.ring : d->cm.ring;
    k->armed = true;
    k->fired = 0;
    d->h->on_dma_write = reset_on_write;
    d->h->on_dma_write_ctx = k;
}

static void post_empty_recv(struct p_dev *d, uint64_t wr_id)
{
    struct rnic_rq_wqe r;

    memset(&r, 0, sizeof(r));
    r.wr_id = wr_id;
    t_post_recv(d->h, &d->qp, &r);
    p_ring_rq(d);
}

static unsigned connect_to(struct pair *p, uint32_t qpn, uint16_t port)
{
    uint32_t conn;

    return p_connect_port(p, qpn, port, 2, RNIC_MPA_CRC, NULL, &conn);
}

/* Skip b's CM events up to the next CONNECT_REQUEST. */
static bool next_request(struct p_dev *d, struct rnic_eqe *e)
{
    while (p_cm_event(d, e, NULL)) {
        if (e->code == RNIC_CM_CONNECT_REQUEST) {
            return true;
        }
    }
    return false;
}

/* After the reset: a's engine is idle and a new connection works. */
static void check_usable_after(struct pair *p)
{
    struct rne_dev *a = &p->a.h->dev;
    struct rnic_eqe e;

    CHECK(!rne_dev_busy(a));
    CHECK_EQ(a->iw->nlive, 0);
    p->a.h->on_dma_write = NULL;
    p->a.mute = p->b.mute = false;
    p_settle(p, 0);
    p_dev_enable(&p->a);
    p_make_qp(&p->a, ALT_QP);
    p_make_qp(&p->b, ALT_QP);
    CHECK_EQ(p_listen(&p->b, 1, ALT_PORT), RNIC_STS_OK);
    while (p_cm_event(&p->b, &e, NULL)) {
        ;       /* b's events of the old connection */
    }
    CHECK_EQ(connect_to(p, ALT_QP, ALT_PORT), RNIC_STS_OK);
    p_settle(p, 1000000000ull);
    CHECK(next_request(&p->b, &e));
    CHECK_EQ(p_accept(&p->b, e.obj, ALT_QP, RNIC_MPA_CRC, NULL), RNIC_STS_OK);
    p_settle(p, 1000000000ull);
    CHECK(p_cm_event(&p->a, &e, NULL));
    CHECK_EQ(e.code, RNIC_CM_CONNECT_REPLY);
    CHECK_EQ(p_qp_state(&p->a, ALT_QP), RNIC_QPS_RTS);
    CHECK_EQ(p_qp_state(&p->b, ALT_QP), RNIC_QPS_RTS);
    /* and it is released when it ends */
    CHECK_EQ(p_conn_cmd(&p->a, RNIC_CMD_CM_ABORT, e.obj), RNIC_STS_OK);
    p_settle(p, 1000000000ull);
    CHECK_EQ(a->iw->nlive, 0);
    CHECK(!rne_dev_busy(a));
}

enum trigger { T_CM_ABORT, T_PEER_RST, T_MPA_TIMEOUT, T_SYN_TIMEOUT,
               T_DESTROY_QP };
static const char *const trigger_name[] = {
    "CM_ABORT", "peer RST", "MPA timeout", "SYN timeout", "DESTROY_QP",
};

static void reset_in_dma(enum trigger t, bool cq_page)
{
    struct pair *p = p_new();
    struct reset_hook k;
    uint32_t conn = 0;

    if (t == T_MPA_TIMEOUT || t == T_SYN_TIMEOUT) {
        p_make_qp(&p->a, P_QP);
        p_make_qp(&p->b, P_QP);
        CHECK_EQ(p_listen(&p->b, 0, P_PORT), RNIC_STS_OK);
        post_empty_recv(&p->a, 1);
        p->b.mute = t == T_SYN_TIMEOUT;
        CHECK_EQ(p_connect(p, P_QP, 2, RNIC_MPA_CRC, NULL, &conn),
                 RNIC_STS_OK);
        arm(&k, &p->a, cq_page);
        /* no Accept: the Reply timer (10 s); no SYN-ACK: SYN retries */
        p_settle(p, 400000000000ull);
    } else {
        if (!p_connect_pair(p, 2, RNIC_MPA_CRC)) {
            p_free(p);
            return;
        }
        post_empty_recv(&p->a, 1);
        arm(&k, &p->a, cq_page);
        switch (t) {
        case T_CM_ABORT:
            p_conn_cmd(&p->a, RNIC_CMD_CM_ABORT, 0);
            break;
        case T_PEER_RST:
            CHECK_EQ(p_conn_cmd(&p->b, RNIC_CMD_CM_ABORT, 0), RNIC_STS_OK);
            break;
        default:
            t_cmd_obj(p->a.h, RNIC_CMD_DESTROY_QP, P_QP);
            break;
        }
        p_settle(p, 1000000000ull);
    }
    printf("reset in the %s page's DMA, via %s: %s\n",
           cq_page ? "CQ" : "CM EQ", trigger_name[t],
           k.fired ? "reset done" : "no write to that page");
    /* the CM event always lands in the CM EQ (a CQE only where flushed) */
    if (!cq_page) {
        CHECK_EQ(k.fired, 1);
    } else if (!k.fired) {
        rne_dev_reset(&p->a.h->dev);    /* DESTROY_QP flushes no CQE */
    }
    check_usable_after(p);
    p_free(p);
}

/*
 * One admin batch, one dispatch: CM_ABORT, the same CM_ABORT again,
 * DESTROY_QP of its QP and CM_DISCONNECT of the freed connection.  The
 * first frees the connection mid-dispatch; the commands after it must not
 * find it (NOT_FOUND, not a second free), and its memory goes when the
 * dispatch ends.
 */
static void abort_twice_in_one_batch(void)
{
    static const uint8_t ops[] = {
        RNIC_CMD_CM_ABORT, RNIC_CMD_CM_ABORT, RNIC_CMD_DESTROY_QP,
        RNIC_CMD_CM_DISCONNECT,
    };
    static const uint8_t want[] = {
        RNIC_STS_OK, RNIC_STS_NOT_FOUND, RNIC_STS_OK, RNIC_STS_NOT_FOUND,
    };
    struct pair *p = p_new();
    struct harness *h = p->a.h;
    struct rnic_admin_cqe cqe;
    unsigned i, n = 0;

    if (!p_connect_pair(p, 2, RNIC_MPA_CRC)) {
        p_free(p);
        return;
    }
    post_empty_recv(&p->a, 1);
    for (i = 0; i < sizeof(ops); i++) {
        struct rnic_admin_cmd c = t_mk(ops[i]);

        c.u.obj.id = ops[i] == RNIC_CMD_DESTROY_QP ? P_QP : 0;
        h_post(h, &c);
    }
    h_ring_admin(h);
    h_run(h);
    while (n < sizeof(ops) && h_poll(h, &cqe)) {
        CHECK_EQ(cqe.opcode, ops[n]);
        CHECK_EQ(cqe.status, want[n]);
        n++;
    }
    CHECK_EQ(n, sizeof(ops));
    CHECK_EQ(h->dev.iw->nlive, 0);
    CHECK(h->dev.iw->gone == NULL);
    printf("abort twice in one batch: %u commands answered\n", n);
    p_settle(p, 1000000000ull);
    CHECK(!rne_dev_busy(&h->dev));
    p_free(p);
}

/* ---- a synchronous wire: frames come back while the sender works ---- */

struct hub {
    struct pair *p;
    bool rst_after_b_data;      /* after b's first data: an RST from b */
    bool rst_sent;
    unsigned nseq, dups;
    uint32_t seq[8192];
};

static struct hub hub;

/* TCP sequence number and payload length of an IPv4 TCP frame. */
static bool tcp_seg(const uint8_t *f, size_t len, uint32_t *seq,
                    size_t *plen)
{
    size_t ihl, thl;

    if (len < 54 || f[12] != 0x08 || f[13] != 0x00 || f[23] != 6) {
        return false;
    }
    ihl = (size_t)(f[14] & 0xf) * 4;
    thl = (size_t)(f[14 + ihl + 12] >> 4) * 4;
    *seq = rne_ld_be32(f + 14 + ihl + 4);
    *plen = rne_ld_be16(f + 16) - ihl - thl;
    return true;
}

/* An RST|ACK from the sender of f, in sequence right after f. */
static size_t make_rst(uint8_t *rst, const uint8_t *f, uint32_t seq,
                       size_t plen)
{
    size_t ihl = (size_t)(f[14] & 0xf) * 4;
    const uint8_t *ft = f + 14 + ihl;
    uint8_t *ip = rst + 14, *tcp = rst + 34;
    uint32_t sum;

    memset(rst, 0, 54);
    memcpy(rst, f, 14);
    memcpy(ip, f + 14, 20);
    ip[0] = 0x45;
    rne_st_be16(ip + 2, 40);
    ip[10] = ip[11] = 0;
    rne_st_be16(ip + 10, rne_csum_fold(rne_csum_add(0, ip, 20)));
    memcpy(tcp, ft, 4);                         /* ports */
    rne_st_be32(tcp + 4, seq + (uint32_t)plen);
    memcpy(tcp + 8, ft + 8, 4);                 /* ack */
    tcp[12] = 5 << 4;
    tcp[13] = 0x14;                             /* RST | ACK */
    sum = rne_csum_pseudo4(ip + 12, ip + 16, 6, 20);
    sum = rne_csum_add(sum, tcp, 20);
    rne_st_be16(tcp + 16, rne_csum_fold(sum));
    return 54;
}

static void hub_from_a(void *ctx, const void *frame, size_t len)
{
    uint32_t seq, i;
    size_t plen;

    (void)ctx;
    if (tcp_seg(frame, len, &seq, &plen) && plen) {
        for (i = 0; i < hub.nseq; i++) {
            hub.dups += hub.seq[i] == seq;
        }
        if (hub.nseq < 8192) {
            hub.seq[hub.nseq++] = seq;
        }
    }
    rne_dev_receive(&hub.p->b.h->dev, frame, len);
}

static void hub_from_b(void *ctx, const void *frame, size_t len)
{
    uint8_t rst[54];
    uint32_t seq;
    size_t plen;

    (void)ctx;
    rne_dev_receive(&hub.p->a.h->dev, frame, len);
    if (hub.rst_after_b_data && !hub.rst_sent &&
        tcp_seg(frame, len, &seq, &plen) && plen) {
        hub.rst_sent = true;
        rne_dev_receive(&hub.p->a.h->dev, rst,
                        make_rst(rst, frame, seq, plen));
    }
}

static void hub_on(struct pair *p, bool rst)
{
    memset(&hub, 0, sizeof(hub));
    hub.p = p;
    hub.rst_after_b_data = rst;
    p->a.h->on_frame = hub_from_a;
    p->b.h->on_frame = hub_from_b;
}

static unsigned count_cqes(struct p_dev *d, uint64_t wr_id, unsigned *other)
{
    struct rnic_cqe cqe;
    unsigned n = 0;

    *other = 0;
    while (t_poll_cq(d->h, &d->cq, &cqe)) {
        if (cqe.wr_id == wr_id) {
            n++;
        } else {
            ++*other;
        }
    }
    return n;
}

static uint64_t mr(struct p_dev *d, uint32_t stag, uint32_t pages)
{
    uint64_t a = h_alloc(d->h, pages);

    CHECK_EQ(t_reg_mr(d->h, stag, 0, RNIC_ACCESS_LOCAL_WRITE, a,
                      (uint64_t)pages * 4096, a), RNIC_STS_OK);
    return a;
}

/* A Send to a peer with no receive posted: Terminate, then RST, nested. */
static void sync_terminate_rst(void)
{
    struct pair *p = p_new();
    unsigned n, other;
    uint64_t src;

    if (!p_connect_pair(p, 2, RNIC_MPA_CRC)) {
        p_free(p);
        return;
    }
    src = mr(&p->a, 0x100, 2);
    hub_on(p, true);
    p_post_send1(&p->a, 31, src, 6000, 0x100);
    p_ring_sq(&p->a);
    h_run(p->a.h);
    CHECK(hub.rst_sent);
    CHECK_EQ(p_qp_state(&p->a, P_QP), RNIC_QPS_ERROR);
    n = count_cqes(&p->a, 31, &other);
    printf("sync Terminate+RST: %u completion(s) of the Send, %u other, "
           "%u segment(s) sent twice\n", n, other, hub.dups);
    CHECK_EQ(n, 1);
    CHECK_EQ(hub.dups, 0);
    p_free(p);
}

/* ACKs arrive (nested) while a multi-segment Send is being segmented. */
static void sync_nested_ack(void)
{
    struct pair *p = p_new();
    struct rnic_rq_wqe r;
    unsigned n, other;
    uint64_t src, dst;
    unsigned i;

    if (!p_connect_pair(p, 2, RNIC_MPA_CRC)) {
        p_free(p);
        return;
    }
    src = mr(&p->a, 0x100, 8);
    dst = mr(&p->b, 0x100, 8);
    for (i = 0; i < 30000; i++) {
        p->a.h->mem[src + i] = (uint8_t)(i * 7 + 3);
    }
    memset(&r, 0, sizeof(r));
    r.wr_id = 41;
    r.num_sge = 1;
    t_sge(&r.sge[0], dst, 32768, 0x100);
    t_post_recv(p->b.h, &p->b.qp, &r);
    p_ring_rq(&p->b);
    hub_on(p, false);
    p_post_send1(&p->a, 42, src, 30000, 0x100);
    p_ring_sq(&p->a);
    h_run(p->a.h);
    h_run(p->b.h);
    n = count_cqes(&p->a, 42, &other);
    printf("sync nested ACKs: %u completion(s) of the Send, %u segment(s) "
           "sent twice\n", n, hub.dups);
    CHECK_EQ(n, 1);
    CHECK_EQ(other, 0);
    CHECK_EQ(hub.dups, 0);
    n = count_cqes(&p->b, 41, &other);
    CHECK_EQ(n, 1);
    CHECK(!memcmp(p->b.h->mem + dst, p->a.h->mem + src, 30000));
    CHECK_EQ(p_qp_state(&p->a, P_QP), RNIC_QPS_RTS);
    CHECK_EQ(p_qp_state(&p->b, P_QP), RNIC_QPS_RTS);
    p_free(p);
}

/* A reset from inside send_frame (the egress flush): the queue it empties
 * is not popped again, and the device works after. */
static struct pair *flush_reset_pair;
static unsigned flush_resets;

static void reset_in_send(void *ctx, const void *frame, size_t len)
{
    struct pair *p = flush_reset_pair;
    uint32_t seq;
    size_t plen;

    (void)ctx;
    if (!flush_resets && tcp_seg(frame, len, &seq, &plen) && plen) {
        flush_resets++;
        CHECK(rne_dev_reset(&p->a.h->dev));     /* no dispatch runs: now */
        return;
    }
    rne_dev_receive(&p->b.h->dev, frame, len);
}

static void reset_in_flush(void)
{
    struct pair *p = p_new();
    uint64_t src;

    if (!p_connect_pair(p, 2, RNIC_MPA_CRC)) {
        p_free(p);
        return;
    }
    src = mr(&p->a, 0x100, 8);
    flush_reset_pair = p;
    flush_resets = 0;
    p_post_send1(&p->a, 61, src, 20000, 0x100);
    p->a.h->on_frame = reset_in_send;
    p_ring_sq(&p->a);
    CHECK_EQ(flush_resets, 1);
    CHECK_EQ(p->a.h->dev.egress.count, 0);
    printf("reset from inside send_frame: %u reset, egress empty\n",
           flush_resets);
    p->a.h->on_frame = p->b.h->on_frame;    /* back to the queued wire */
    p->a.h->on_frame_ctx = &p->a;
    check_usable_after(p);
    p_free(p);
}

/* ---- the timer's DMA must not act as a doorbell ---- */

struct db_hook {
    struct p_dev *d;
    uint64_t page;
    bool armed, inside;
    unsigned fired, nested;     /* device work seen inside the hook */
    void (*on_frame)(void *ctx, const void *frame, size_t len);
};

static struct db_hook dbk;

static void db_watch_frame(void *ctx, const void *frame, size_t len)
{
    dbk.nested += dbk.inside;
    dbk.on_frame(ctx, frame, len);
}

static void db_on_write(void *ctx, uint64_t addr, size_t len)
{
    struct db_hook *k = ctx;

    if (k->inside) {
        k->nested++;
        return;
    }
    if (!k->armed || addr + len <= k->page || addr >= k->page + 4096) {
        return;
    }
    k->armed = false;
    k->fired++;
    /* what QEMU's doorbell MMIO handler does (hw-rnic/rnic.c) */
    k->inside = true;
    if (rne_dev_doorbell(&k->d->h->dev, 0, RNIC_DB_SQ,
                         RNIC_DB_VAL(k->d->qp.qpn, 0, k->d->qp.sq_prod))) {
        rne_dev_process(&k->d->h->dev);
    }
    k->inside = false;
}

static void timer_dma_doorbell(void)
{
    struct pair *p = p_new();
    struct rnic_sq_wqe w;
    struct rnic_rq_wqe r;
    struct rnic_cqe cqe;
    struct rnic_eqe e;
    uint64_t src, dst;

    if (!p_connect_pair(p, 2, RNIC_MPA_CRC)) {
        p_free(p);
        return;
    }
    src = mr(&p->a, 0x100, 1);
    dst = mr(&p->b, 0x100, 1);
    memset(p->a.h->mem + src, 0x5c, 100);
    memset(&r, 0, sizeof(r));
    r.wr_id = 52;
    r.num_sge = 1;
    t_sge(&r.sge[0], dst, 4096, 0x100);
    t_post_recv(p->b.h, &p->b.qp, &r);
    p_ring_rq(&p->b);
    /* a second connection that will time out (no Accept): its CM event */
    {
        struct t_qp keep = p->a.qp, keep_b = p->b.qp;

        p_make_qp(&p->a, ALT_QP);
        p_make_qp(&p->b, ALT_QP);
        p->a.qp = keep;
        p->b.qp = keep_b;
    }
    CHECK_EQ(p_listen(&p->b, 1, ALT_PORT), RNIC_STS_OK);
    CHECK_EQ(connect_to(p, ALT_QP, ALT_PORT), RNIC_STS_OK);
    p_settle(p, 1000000000ull);
    CHECK(next_request(&p->b, &e));
    /* a Send on the first QP, its doorbell rung by the timer's DMA */
    memset(&w, 0, sizeof(w));
    w.hdr.wr_id = 53;
    w.hdr.opcode = RNIC_WR_SEND;
    w.hdr.flags = RNIC_WQE_SIGNALED | RNIC_WQE_INLINE;
    w.hdr.count = 100;
    memset(w.data.inline_data, 0x5c, 100);
    t_post_send(p->a.h, &p->a.qp, &w);
    memset(&dbk, 0, sizeof(dbk));
    dbk.d = &p->a;
    dbk.page = p->a.cm.ring;
    dbk.armed = true;
    dbk.on_frame = p->a.h->on_frame;
    p->a.h->on_frame = db_watch_frame;
    p->a.h->on_dma_write = db_on_write;
    p->a.h->on_dma_write_ctx = &dbk;
    p_settle(p, 20000000000ull);
    printf("timer DMA as a doorbell: fired %u, device work inside it %u\n",
           dbk.fired, dbk.nested);
    CHECK_EQ(dbk.fired, 1);
    CHECK_EQ(dbk.nested, 0);
    CHECK(p_cm_event(&p->a, &e, NULL));
    CHECK(e.code == RNIC_CM_CONNECT_REPLY || e.code == RNIC_CM_TIMEOUT);
    /* the doorbell was not lost: the Send went out after the timer */
    CHECK(t_poll_cq(p->a.h, &p->a.cq, &cqe));
    CHECK_EQ(cqe.wr_id, 53);
    CHECK(t_poll_cq(p->b.h, &p->b.cq, &cqe));
    CHECK_EQ(cqe.wr_id, 52);
    CHECK_EQ(cqe.byte_len, 100);
    CHECK_EQ(p->b.h->mem[dst + 99], 0x5c);
    CHECK(!rne_dev_busy(&p->a.h->dev));
    p->a.h->on_dma_write = NULL;
    p_free(p);
}

int main(int argc, char **argv)
{
    int only = argc > 1 ? atoi(argv[1]) : -1;
    int t;

    for (t = T_CM_ABORT; t <= T_DESTROY_QP; t++) {
        if (only < 0 || only == t * 2) {
            reset_in_dma(t, false);
        }
        if (only < 0 || only == t * 2 + 1) {
            reset_in_dma(t, true);
        }
    }
    if (only < 0 || only == 10) {
        sync_terminate_rst();
    }
    if (only < 0 || only == 11) {
        sync_nested_ack();
    }
    if (only < 0 || only == 12) {
        timer_dma_doorbell();
    }
    if (only < 0 || only == 13) {
        reset_in_flush();
    }
    if (only < 0 || only == 14) {
        abort_twice_in_one_batch();
    }
    return t_report("test-iw-reentry");
}
