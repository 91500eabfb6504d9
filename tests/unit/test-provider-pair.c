// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The rdma-core provider's ring code against the real device core: two rnics
 * back to back (test-iw-pair), work requests turned into WQEs by
 * provider/rnic_ring.h from ibv_send_wr/ibv_recv_wr, doorbells with the
 * provider's values, and the completions read back, translated and retired
 * by the provider's poll logic.  The provider <-> device contract end to end,
 * with no kernel in between (the kernel only pins memory and creates objects).
 */
#include <string.h>
#include "rnic_ring.h"
#include "test-iw-pair.h"

#define ALL_ACCESS (RNIC_ACCESS_LOCAL_WRITE | RNIC_ACCESS_REMOTE_WRITE | \
                    RNIC_ACCESS_REMOTE_READ | RNIC_ACCESS_REMOTE_ATOMIC)

/* One side as the provider sees it: its rings in the device's guest memory. */
struct side {
    struct p_dev *d;
    struct rnic_work_queue sq, rq;
    struct rnic_cq_ring cq;
    struct rnic_sq_policy pol;
};

static void side_init(struct side *s, struct p_dev *d)
{
    uint8_t *mem = d->h->mem;

    memset(s, 0, sizeof(*s));
    s->d = d;
    s->sq.buf = mem + d->qp.sq;
    s->sq.depth = d->qp.sq_depth;
    s->sq.wqe_shift = 8;
    s->sq.max_sge = RNIC_SQ_MAX_SGE;
    s->sq.max_inline = RNIC_SQ_MAX_INLINE;
    s->rq.buf = mem + d->qp.rq;
    s->rq.depth = d->qp.rq_depth;
    s->rq.wqe_shift = 7;
    s->rq.max_sge = RNIC_RQ_MAX_SGE;
    s->cq.cqe = (struct rnic_cqe *)(mem + d->cq.ring);
    s->cq.depth = d->cq.depth;
    s->cq.log_depth = (uint32_t)__builtin_ctz(d->cq.depth);
    s->cq.dbrec = (__le32 *)(mem + d->cq.dbrec);
    /* What the driver copies from RNIC_REG_FEATURES into the ucontext. */
    s->pol.features = rne_dev_reg_read(&d->h->dev, RNIC_REG_FEATURES);
}

/* qp.c/srq.c after a post: the doorbell carrying the new producer index. */
static void ring(struct side *s, uint32_t off, uint32_t prod)
{
    rne_dev_doorbell(&s->d->h->dev, 0, off, rnic_db_producer(s->d->qp.qpn, prod));
    h_run(s->d->h);
}

static int post_send(struct side *s, struct ibv_send_wr *wr, struct ibv_send_wr **bad)
{
    uint32_t old = s->sq.prod;
    int ret = rnic_sq_post(&s->sq, &s->pol, wr, bad);

    if (s->sq.prod != old) {
        ring(s, RNIC_DB_SQ, s->sq.prod);
    }
    return ret;
}

static int post_recv(struct side *s, struct ibv_recv_wr *wr)
{
    struct ibv_recv_wr *bad = NULL;
    uint32_t old = s->rq.prod;
    int ret = rnic_rq_post(&s->rq, wr, &bad);

    if (s->rq.prod != old) {
        ring(s, RNIC_DB_RQ, s->rq.prod);
    }
    return ret;
}

/* cq.c's poll loop; the QP table lookup is the one QP of the side. */
static int poll(struct side *s, struct ibv_wc *wc, int n)
{
    const struct rnic_cqe *cqe;
    int i;

    for (i = 0; i < n; i++) {
        cqe = rnic_cq_peek(&s->cq);
        if (!cqe) {
            break;
        }
        __atomic_thread_fence(__ATOMIC_ACQUIRE);
        rnic_cqe_to_wc(cqe, &wc[i]);
        CHECK_EQ(wc[i].qp_num, s->d->qp.qpn);
        if (!rnic_cqe_is_recv(cqe)) {
            CHECK(rnic_sq_retire(&s->sq, le16toh(cqe->wqe_idx)));
        } else {
            CHECK(rnic_rq_retire(&s->rq));
        }
        rnic_cq_advance(&s->cq);
    }
    if (i) {
        rnic_cq_update_dbrec(&s->cq);
    }
    return i;
}

static uint64_t mr(struct p_dev *d, uint32_t stag, uint32_t access, uint32_t pages)
{
    uint64_t a = h_alloc(d->h, pages);

    CHECK_EQ(t_reg_mr(d->h, stag, 0, access, a, (uint64_t)pages * 4096, a), RNIC_STS_OK);
    return a;
}

static void fill(struct p_dev *d, uint64_t a, size_t n, unsigned seed)
{
    for (size_t i = 0; i < n; i++) {
        d->h->mem[a + i] = (uint8_t)(i * 151 + seed + (i >> 9));
    }
}

static struct ibv_sge sge(uint64_t addr, uint32_t len, uint32_t lkey)
{
    return (struct ibv_sge){ .addr = addr, .length = len, .lkey = lkey };
}

static struct pair *connected(uint8_t mpa_flags, struct side *a, struct side *b)
{
    struct pair *p = p_new();

    if (!p_connect_pair(p, 2, mpa_flags)) {
        p_free(p);
        return NULL;
    }
    side_init(a, &p->a);
    side_init(b, &p->b);
    return p;
}

/*
 * Sends: gather/scatter, in-line, unsignaled before signaled, solicited.
 * (Send with Immediate is left out: the device carries it as a Send plus an
 * RFC 7306 Immediate Data message, two receive completions.)
 */
static void test_sends(void)
{
    struct side a, b;
    struct pair *p = connected(RNIC_MPA_CRC | RNIC_MPA_RFC7306, &a, &b);
    struct ibv_sge rs[2], rs2, rs3, ss[3], is;
    struct ibv_recv_wr rwr[3];
    struct ibv_send_wr swr[3], *bad = NULL;
    struct ibv_wc wc[8];
    uint64_t src, dst;
    char text[] = "in-line through the provider";

    if (!p) {
        return;
    }
    src = mr(&p->a, 0x100, RNIC_ACCESS_LOCAL_WRITE, 4);
    dst = mr(&p->b, 0x100, RNIC_ACCESS_LOCAL_WRITE, 4);
    fill(&p->a, src, 16384, 3);

    memset(rwr, 0, sizeof(rwr));
    rs[0] = sge(dst, 3000, 0x100);
    rs[1] = sge(dst + 8192, 4000, 0x100);
    rs2 = sge(dst + 12288, 100, 0x100);
    rs3 = sge(dst + 13312, 3000, 0x100);
    rwr[0] = (struct ibv_recv_wr){ .wr_id = 901, .sg_list = rs, .num_sge = 2, .next = &rwr[1] };
    rwr[1] = (struct ibv_recv_wr){ .wr_id = 902, .sg_list = &rs2, .num_sge = 1,
                                   .next = &rwr[2] };
    rwr[2] = (struct ibv_recv_wr){ .wr_id = 903, .sg_list = &rs3, .num_sge = 1 };
    CHECK_EQ(post_recv(&b, rwr), 0);
    CHECK_EQ(b.rq.prod, 3);

    ss[0] = sge(src + 1, 1000, 0x100);
    ss[1] = sge(src + 5000, 2000, 0x100);
    ss[2] = sge(src + 9000, 500, 0x100);
    is = sge((uintptr_t)text, sizeof(text), 0);
    memset(swr, 0, sizeof(swr));
    swr[0] = (struct ibv_send_wr){ .wr_id = 801, .sg_list = ss, .num_sge = 3,
                                   .opcode = IBV_WR_SEND, .next = &swr[1] };
    swr[1] = (struct ibv_send_wr){ .wr_id = 802, .sg_list = &is, .num_sge = 1,
                                   .opcode = IBV_WR_SEND, .next = &swr[2],
                                   .send_flags = IBV_SEND_INLINE | IBV_SEND_SOLICITED };
    swr[2] = (struct ibv_send_wr){ .wr_id = 803, .sg_list = ss, .num_sge = 1,
                                   .opcode = IBV_WR_SEND,
                                   .send_flags = IBV_SEND_SIGNALED };
    CHECK_EQ(post_send(&a, swr, &bad), 0);
    p_settle(p, 1000000000ull);

    /* Only the signaled Send completes; it frees all three SQ slots. */
    CHECK_EQ(poll(&a, wc, 8), 1);
    CHECK_EQ(wc[0].wr_id, 803);
    CHECK_EQ(wc[0].opcode, IBV_WC_SEND);
    CHECK_EQ(wc[0].status, IBV_WC_SUCCESS);
    CHECK_EQ(rnic_wq_outstanding(&a.sq), 0);

    CHECK_EQ(poll(&b, wc, 8), 3);
    CHECK_EQ(wc[0].wr_id, 901);
    CHECK_EQ(wc[0].opcode, IBV_WC_RECV);
    CHECK_EQ(wc[0].byte_len, 3500);
    CHECK_EQ(wc[0].wc_flags, 0);
    CHECK(!memcmp(p->b.h->mem + dst, p->a.h->mem + src + 1, 1000));
    CHECK(!memcmp(p->b.h->mem + dst + 1000, p->a.h->mem + src + 5000, 2000));
    CHECK(!memcmp(p->b.h->mem + dst + 8192, p->a.h->mem + src + 9000, 500));
    CHECK_EQ(wc[1].wr_id, 902);
    CHECK_EQ(wc[1].byte_len, sizeof(text));
    CHECK(!memcmp(p->b.h->mem + dst + 12288, text, sizeof(text)));
    CHECK_EQ(wc[2].wr_id, 903);
    CHECK_EQ(wc[2].byte_len, 1000);
    CHECK(!memcmp(p->b.h->mem + dst + 13312, p->a.h->mem + src + 1, 1000));
    CHECK_EQ(rnic_wq_outstanding(&b.rq), 0);
    /* The device learns the consumer index from the dbrec. */
    CHECK_EQ(le32toh(*b.cq.dbrec), 3);
    p_free(p);
}

/* Write with Immediate, Read into two pieces, both atomics. */
static void test_rdma_and_atomics(void)
{
    struct side a, b;
    struct pair *p = connected(RNIC_MPA_CRC | RNIC_MPA_RFC7306, &a, &b);
    struct ibv_sge wsrc, rd[2], fsink, csink, rs;
    struct ibv_recv_wr rwr;
    struct ibv_send_wr w[4], *bad = NULL;
    struct ibv_wc wc[8];
    uint64_t la, rb, v;

    if (!p) {
        return;
    }
    la = mr(&p->a, 0x200, RNIC_ACCESS_LOCAL_WRITE, 8);
    rb = mr(&p->b, 0x300, ALL_ACCESS, 8);
    fill(&p->a, la, 8000, 5);
    fill(&p->b, rb + 16384, 6000, 9);
    v = 1000;
    memcpy(p->b.h->mem + rb + 24576, &v, 8);

    rs = sge(rb + 30000, 16, 0x300);
    rwr = (struct ibv_recv_wr){ .wr_id = 700, .sg_list = &rs, .num_sge = 1 };
    CHECK_EQ(post_recv(&b, &rwr), 0);

    wsrc = sge(la, 8000, 0x200);
    rd[0] = sge(la + 16384, 2500, 0x200);
    rd[1] = sge(la + 20480, 3500, 0x200);
    fsink = sge(la + 28672, 8, 0x200);
    csink = sge(la + 28680, 8, 0x200);
    memset(w, 0, sizeof(w));
    w[0].wr_id = 601;
    w[0].opcode = IBV_WR_RDMA_WRITE_WITH_IMM;
    w[0].imm_data = htobe32(0x01020304);
    w[0].sg_list = &wsrc;
    w[0].num_sge = 1;
    w[0].wr.rdma.remote_addr = rb + 7;
    w[0].wr.rdma.rkey = 0x300;
    w[1].wr_id = 602;
    w[1].opcode = IBV_WR_RDMA_READ;
    w[1].sg_list = rd;
    w[1].num_sge = 2;
    w[1].wr.rdma.remote_addr = rb + 16384;
    w[1].wr.rdma.rkey = 0x300;
    w[2].wr_id = 603;
    w[2].opcode = IBV_WR_ATOMIC_FETCH_AND_ADD;
    w[2].sg_list = &fsink;
    w[2].num_sge = 1;
    w[2].wr.atomic.remote_addr = rb + 24576;
    w[2].wr.atomic.rkey = 0x300;
    w[2].wr.atomic.compare_add = 24;
    w[3] = w[2];
    w[3].wr_id = 604;
    w[3].opcode = IBV_WR_ATOMIC_CMP_AND_SWP;
    w[3].sg_list = &csink;
    w[3].wr.atomic.compare_add = 1024;
    w[3].wr.atomic.swap = 77;
    for (int i = 0; i < 4; i++) {
        w[i].send_flags = IBV_SEND_SIGNALED | (i == 2 ? IBV_SEND_FENCE : 0);
        w[i].next = i < 3 ? &w[i + 1] : NULL;
    }
    CHECK_EQ(post_send(&a, w, &bad), 0);
    p_settle(p, 1000000000ull);

    CHECK(!memcmp(p->b.h->mem + rb + 7, p->a.h->mem + la, 8000));
    CHECK(!memcmp(p->a.h->mem + la + 16384, p->b.h->mem + rb + 16384, 2500));
    CHECK(!memcmp(p->a.h->mem + la + 20480, p->b.h->mem + rb + 18884, 3500));
    memcpy(&v, p->a.h->mem + la + 28672, 8);
    CHECK_EQ(v, 1000);
    memcpy(&v, p->a.h->mem + la + 28680, 8);
    CHECK_EQ(v, 1024);
    memcpy(&v, p->b.h->mem + rb + 24576, 8);
    CHECK_EQ(v, 77);

    CHECK_EQ(poll(&a, wc, 8), 4);
    CHECK_EQ(wc[0].wr_id, 601);
    CHECK_EQ(wc[0].opcode, IBV_WC_RDMA_WRITE);
    CHECK_EQ(wc[1].wr_id, 602);
    CHECK_EQ(wc[1].opcode, IBV_WC_RDMA_READ);
    CHECK_EQ(wc[1].byte_len, 6000);
    CHECK_EQ(wc[2].opcode, IBV_WC_FETCH_ADD);
    CHECK_EQ(wc[3].opcode, IBV_WC_COMP_SWAP);
    for (int i = 0; i < 4; i++) {
        CHECK_EQ(wc[i].status, IBV_WC_SUCCESS);
    }
    CHECK_EQ(poll(&b, wc, 8), 1);
    CHECK_EQ(wc[0].wr_id, 700);
    CHECK_EQ(wc[0].opcode, IBV_WC_RECV_RDMA_WITH_IMM);
    CHECK_EQ(wc[0].imm_data, htobe32(0x01020304));
    CHECK_EQ(wc[0].byte_len, 8000);
    p_free(p);
}

/* Thousands of Writes, one in four signaled: the SQ (64) and the CQ (256)
 * wrap many times; a full SQ answers ENOMEM until completions free it. */
static void test_wrap(void)
{
    struct side a, b;
    struct pair *p = connected(RNIC_MPA_CRC, &a, &b);
    struct ibv_send_wr w[80], *bad;
    struct ibv_sge s;
    struct ibv_wc wc[32];
    uint64_t la, rb, next_wr = 0, next_done = 3, nomem = 0;
    const uint64_t total = 4000;
    unsigned rounds = 0;

    if (!p) {
        return;
    }
    la = mr(&p->a, 0x200, RNIC_ACCESS_LOCAL_WRITE, 1);
    rb = mr(&p->b, 0x300, ALL_ACCESS, 1);
    fill(&p->a, la, 4096, 1);
    s = sge(la, 64, 0x200);
    while (next_done < total) {
        int n = 0, got;

        if (++rounds > 1000) {
            CHECK(!"the SQ stopped completing");
            break;
        }
        memset(w, 0, sizeof(w));
        for (int i = 0; i < 80 && next_wr < total; i++, n++) {
            w[i].wr_id = next_wr;
            w[i].opcode = IBV_WR_RDMA_WRITE;
            w[i].sg_list = &s;
            w[i].num_sge = 1;
            w[i].wr.rdma.remote_addr = rb + (next_wr % 64) * 64;
            w[i].wr.rdma.rkey = 0x300;
            w[i].send_flags = next_wr % 4 == 3 ? IBV_SEND_SIGNALED : 0;
            w[i].next = i + 1 < 80 && next_wr + 1 < total ? &w[i + 1] : NULL;
            next_wr++;
        }
        if (n) {
            uint32_t before = a.sq.prod;
            int ret;

            bad = NULL;
            ret = post_send(&a, w, &bad);
            /* What did not fit is posted again next round. */
            if (ret) {
                CHECK_EQ(ret, ENOMEM);
                CHECK(bad != NULL);
                nomem++;
                next_wr -= (uint64_t)(n - (int)(a.sq.prod - before));
                CHECK(bad && bad->wr_id == next_wr);
            }
        }
        p_settle(p, 1000000000ull);
        while ((got = poll(&a, wc, 32)) > 0) {
            for (int i = 0; i < got; i++) {
                CHECK_EQ(wc[i].wr_id, next_done);
                CHECK_EQ(wc[i].status, IBV_WC_SUCCESS);
                next_done += 4;
            }
        }
    }
    CHECK_EQ(rnic_wq_outstanding(&a.sq), 0);
    CHECK_EQ(a.sq.prod, total);
    CHECK_EQ(a.cq.cons, total / 4);
    CHECK(a.cq.cons > 2 * a.cq.depth);  /* the phase flipped several times */
    CHECK(nomem > 0);
    CHECK_EQ(le32toh(*a.cq.dbrec), a.cq.cons);
    CHECK_EQ(p_qp_state(&p->a, P_QP), RNIC_QPS_RTS);
    printf("wrap: %llu Writes, %u CQEs, %llu ENOMEM rounds\n",
           (unsigned long long)total, a.cq.cons, (unsigned long long)nomem);
    p_free(p);
}

/*
 * What the provider's rnic_resize_cq does once the kernel's RESIZE_CQ went
 * through: the side's CQ ring is the new one, its consumer starts at 0.
 */
static unsigned resize_cq(struct side *s, unsigned log, uint32_t *carried)
{
    struct harness *h = s->d->h;
    struct rnic_admin_cmd c = t_mk(RNIC_CMD_RESIZE_CQ);
    uint32_t pages = rne_ring_pages_needed(1u << log, RNIC_CQE_SIZE);
    uint64_t ring = h_alloc(h, pages), dbrec = h_alloc(h, 1);
    struct rnic_admin_cqe cqe;

    /* The consumer's record as the provider leaves it before the call. */
    rnic_cq_update_dbrec(&s->cq);
    c.u.resize_cq.cqn = s->d->cq.cqn;
    c.u.resize_cq.log_depth = (uint8_t)log;
    c.u.resize_cq.dbrec_addr = dbrec;
    h_pbl(h, &c.u.resize_cq.ring, ring, pages);
    h_post(h, &c);
    h_ring_admin(h);
    h_run(h);
    if (!h_poll(h, &cqe)) {
        return 0xff;
    }
    if (cqe.status == RNIC_STS_OK) {
        *carried = cqe.result0;
        s->cq.cqe = (struct rnic_cqe *)(h->mem + ring);
        s->cq.depth = 1u << log;
        s->cq.log_depth = log;
        s->cq.cons = 0;
        s->cq.dbrec = (__le32 *)(h->mem + dbrec);
    }
    return cqe.status;
}

/*
 * ibv_resize_cq under traffic on both CQs (A's send CQ with Writes and
 * Sends in flight, B's receive CQ with Sends arriving), a shrink below
 * the waiting CQEs refused; then ibv_rereg_mr: B's MR moves to a new
 * buffer under a new key, A writes and reads it back through the new
 * rkey, the old buffer keeps its bytes and the old rkey draws an error.
 */
static void test_resize_rereg(void)
{
    struct side a, b;
    struct pair *p = connected(RNIC_MPA_CRC, &a, &b);
    struct ibv_send_wr w, *bad;
    struct ibv_recv_wr r;
    struct ibv_sge s, rs;
    struct ibv_wc wc[32];
    uint64_t la, rb, rb2, lread, sent = 0, done = 0, recvd = 0, posted_r = 0;
    uint32_t carried = 0, resized_a = 0, resized_b = 0;
    const uint64_t total = 600;
    unsigned rounds = 0, refused = 0;
    int got;

    if (!p) {
        return;
    }
    la = mr(&p->a, 0x200, RNIC_ACCESS_LOCAL_WRITE, 4);
    rb = mr(&p->b, 0x300, ALL_ACCESS, 4);
    rs = sge(mr(&p->b, 0x500, RNIC_ACCESS_LOCAL_WRITE, 1), 4096, 0x500);
    fill(&p->a, la, 4 * 4096, 5);
    while (done < total || recvd < total / 2) {
        if (++rounds > 2000) {
            CHECK(!"traffic stopped");
            break;
        }
        /* B keeps receives posted for the Sends (every other WR). */
        while (posted_r < total / 2 && posted_r - recvd < 32) {
            memset(&r, 0, sizeof(r));
            r.wr_id = 10000 + posted_r;
            r.sg_list = &rs;
            r.num_sge = 1;
            CHECK_EQ(post_recv(&b, &r), 0);
            posted_r++;
        }
        /* A keeps at most a CQ's worth of signaled WRs in flight. */
        while (sent < total && sent - done < a.cq.depth &&
               rnic_wq_outstanding(&a.sq) < a.sq.depth) {
            memset(&w, 0, sizeof(w));
            w.wr_id = sent;
            s = sge(la + (sent % 4) * 4096, 100 + (uint32_t)(sent % 200),
                    0x200);
            w.sg_list = &s;
            w.num_sge = 1;
            w.send_flags = IBV_SEND_SIGNALED;
            if (sent % 2) {
                w.opcode = IBV_WR_SEND;
            } else {
                w.opcode = IBV_WR_RDMA_WRITE;
                w.wr.rdma.remote_addr = rb + (sent % 4) * 4096;
                w.wr.rdma.rkey = 0x300;
            }
            bad = NULL;
            CHECK_EQ(post_send(&a, &w, &bad), 0);
            sent++;
        }
        p_settle(p, 1000000000ull);
        /* Resize with CQEs waiting: A at 100 done, B at 60 received. */
        if (done >= 100 && !resized_a) {
            CHECK_EQ(resize_cq(&a, 2, &carried), RNIC_STS_BAD_STATE);
            refused += carried == 0;
            CHECK_EQ(resize_cq(&a, 10, &carried), RNIC_STS_OK);
            resized_a = carried;
        }
        if (recvd >= 60 && !resized_b) {
            CHECK_EQ(resize_cq(&b, 9, &carried), RNIC_STS_OK);
            resized_b = carried + 1;
        }
        while ((got = poll(&a, wc, 7)) > 0) {
            for (int i = 0; i < got; i++) {
                CHECK_EQ(wc[i].wr_id, done);
                CHECK_EQ(wc[i].status, IBV_WC_SUCCESS);
                done++;
            }
        }
        while ((got = poll(&b, wc, 5)) > 0) {
            for (int i = 0; i < got; i++) {
                CHECK_EQ(wc[i].wr_id, 10000 + recvd);
                CHECK_EQ(wc[i].status, IBV_WC_SUCCESS);
                CHECK_EQ(wc[i].byte_len, 100 + (2 * recvd + 1) % 200);
                recvd++;
            }
        }
    }
    CHECK_EQ(done, total);
    CHECK_EQ(recvd, total / 2);
    CHECK(resized_a > 0);       /* CQEs were waiting at the resize */
    CHECK(resized_b > 0);
    CHECK_EQ(refused, 1);
    CHECK_EQ(a.cq.depth, 1024);
    CHECK_EQ(b.cq.depth, 512);
    CHECK_EQ(memcmp(p->b.h->mem + rb, p->a.h->mem + la, 100), 0);

    /* Rereg: B's MR 0x300 -> 0x301 on new pages, remote read kept. */
    rb2 = h_alloc(p->b.h, 4);
    {
        struct rnic_admin_cmd c = t_mk(RNIC_CMD_REREG_MR);

        c.u.reg_mr.stag = 0x301;
        c.u.reg_mr.access = ALL_ACCESS;
        c.u.reg_mr.iova = 0x900000;
        c.u.reg_mr.length = 4 * 4096;
        h_pbl(p->b.h, &c.u.reg_mr.pages, rb2, 4);
        CHECK_EQ(h_cmd(p->b.h, &c), RNIC_STS_OK);
    }
    uint8_t before[4 * 4096];
    memcpy(before, p->b.h->mem + rb, sizeof(before));
    fill(&p->a, la, 4 * 4096, 9);
    memset(&w, 0, sizeof(w));
    s = sge(la, 4 * 4096, 0x200);
    w.wr_id = 1;
    w.sg_list = &s;
    w.num_sge = 1;
    w.send_flags = IBV_SEND_SIGNALED;
    w.opcode = IBV_WR_RDMA_WRITE;
    w.wr.rdma.remote_addr = 0x900000;
    w.wr.rdma.rkey = 0x301;
    CHECK_EQ(post_send(&a, &w, &bad), 0);
    lread = mr(&p->a, 0x400, RNIC_ACCESS_LOCAL_WRITE, 4);
    s = sge(lread, 4 * 4096, 0x400);
    w.wr_id = 2;
    w.opcode = IBV_WR_RDMA_READ;
    CHECK_EQ(post_send(&a, &w, &bad), 0);
    p_settle(p, 1000000000ull);
    CHECK_EQ(poll(&a, wc, 8), 2);
    CHECK_EQ(wc[0].status, IBV_WC_SUCCESS);
    CHECK_EQ(wc[1].status, IBV_WC_SUCCESS);
    CHECK_EQ(memcmp(p->b.h->mem + rb2, p->a.h->mem + la, 4 * 4096), 0);
    CHECK_EQ(memcmp(p->a.h->mem + lread, p->a.h->mem + la, 4 * 4096), 0);
    CHECK_EQ(memcmp(p->b.h->mem + rb, before, sizeof(before)), 0);
    /* The old STag: a Read through it fails, nothing moves anywhere. */
    s = sge(lread, 64, 0x400);
    w.wr_id = 3;
    w.opcode = IBV_WR_RDMA_READ;
    w.wr.rdma.remote_addr = rb;
    w.wr.rdma.rkey = 0x300;
    CHECK_EQ(post_send(&a, &w, &bad), 0);
    p_settle(p, 1000000000ull);
    got = poll(&a, wc, 8);
    CHECK(got >= 1 && wc[0].wr_id == 3 && wc[0].status != IBV_WC_SUCCESS);
    CHECK(p_qp_state(&p->b, P_QP) != RNIC_QPS_RTS);
    CHECK_EQ(memcmp(p->b.h->mem + rb, before, sizeof(before)), 0);
    CHECK_EQ(memcmp(p->b.h->mem + rb2, p->a.h->mem + lread, 4 * 4096), 0);
    printf("resize-rereg: %llu WRs, A carried %u, B carried %u\n",
           (unsigned long long)total, resized_a, resized_b - 1);
    p_free(p);
}

/* ERROR flushes the posted receives: each completion gives a slot back. */
static void test_flush(void)
{
    struct side a, b;
    struct pair *p = connected(RNIC_MPA_CRC, &a, &b);
    struct rnic_admin_cmd c;
    struct ibv_recv_wr r[5];
    struct ibv_sge s;
    struct ibv_wc wc[8];

    if (!p) {
        return;
    }
    s = sge(h_alloc(p->b.h, 1), 100, 0x100);
    CHECK_EQ(t_reg_mr(p->b.h, 0x100, 0, RNIC_ACCESS_LOCAL_WRITE, s.addr, 4096, s.addr),
             RNIC_STS_OK);
    memset(r, 0, sizeof(r));
    for (int i = 0; i < 5; i++) {
        r[i].wr_id = 500 + i;
        r[i].sg_list = &s;
        r[i].num_sge = 1;
        r[i].next = i < 4 ? &r[i + 1] : NULL;
    }
    CHECK_EQ(post_recv(&b, r), 0);
    c = t_mk(RNIC_CMD_MODIFY_QP);
    c.u.modify_qp.qpn = P_QP;
    c.u.modify_qp.attr_mask = RNIC_QP_ATTR_STATE;
    c.u.modify_qp.state = RNIC_QPS_ERROR;
    CHECK_EQ(h_cmd(p->b.h, &c), RNIC_STS_OK);
    h_run(p->b.h);
    CHECK_EQ(poll(&b, wc, 8), 5);
    for (int i = 0; i < 5; i++) {
        CHECK_EQ(wc[i].wr_id, 500 + i);
        CHECK_EQ(wc[i].status, IBV_WC_WR_FLUSH_ERR);
    }
    CHECK_EQ(rnic_wq_outstanding(&b.rq), 0);
    p_free(p);
}

/*
 * Memory windows through the provider's WQEs: B binds a type 2 window of
 * its MR (IBV_WR_BIND_MW with the rkey the consumer chose), A writes and
 * reads through the window's rkey, B revokes it with IBV_WR_LOCAL_INV and
 * A's next Read through it fails (the device's Terminate); B sees the bind
 * and the invalidate complete as IBV_WC_BIND_MW and IBV_WC_LOCAL_INV.
 */
static void test_mw(void)
{
    struct side a, b;
    struct pair *p = connected(RNIC_MPA_CRC, &a, &b);
    struct ibv_mr bmr = { .lkey = 0x400 };
    struct ibv_mw bmw = { .type = IBV_MW_TYPE_2 };
    struct ibv_send_wr w, *bad = NULL;
    struct ibv_sge s1, s2;
    struct ibv_wc wc[4];
    struct rnic_admin_cmd c;
    uint32_t rkey = RNIC_STAG(14, 0x3c);
    uint64_t la, rb;

    if (!p) {
        return;
    }
    CHECK(b.pol.features & RNIC_FEAT_MW);
    la = mr(&p->a, 0x200, RNIC_ACCESS_LOCAL_WRITE, 4);
    rb = mr(&p->b, 0x400, RNIC_ACCESS_LOCAL_WRITE | RNIC_ACCESS_MW_BIND, 4);
    fill(&p->a, la, 4096, 3);
    fill(&p->b, rb, 16384, 11);
    c = t_mk(RNIC_CMD_ALLOC_MW);
    c.u.alloc_mw.stag = RNIC_STAG(14, 0);
    c.u.alloc_mw.type = RNIC_MW_TYPE_2;
    CHECK_EQ(h_cmd(p->b.h, &c), RNIC_STS_OK);

    memset(&w, 0, sizeof(w));
    w.wr_id = 900;
    w.opcode = IBV_WR_BIND_MW;
    w.send_flags = IBV_SEND_SIGNALED;
    w.bind_mw.mw = &bmw;
    w.bind_mw.rkey = rkey;
    w.bind_mw.bind_info.mr = &bmr;
    w.bind_mw.bind_info.addr = rb + 4096;
    w.bind_mw.bind_info.length = 8192;
    w.bind_mw.bind_info.mw_access_flags = IBV_ACCESS_REMOTE_WRITE |
                                          IBV_ACCESS_REMOTE_READ;
    CHECK_EQ(post_send(&b, &w, &bad), 0);
    p_settle(p, 100000000ull);
    CHECK_EQ(poll(&b, wc, 4), 1);
    CHECK_EQ(wc[0].wr_id, 900);
    CHECK_EQ(wc[0].opcode, IBV_WC_BIND_MW);
    CHECK_EQ(wc[0].status, IBV_WC_SUCCESS);

    /* A: Write 1000 bytes into the window, Read 2000 back out of it. */
    s1 = sge(la, 1000, 0x200);
    memset(&w, 0, sizeof(w));
    w.wr_id = 901;
    w.opcode = IBV_WR_RDMA_WRITE;
    w.sg_list = &s1;
    w.num_sge = 1;
    w.wr.rdma.remote_addr = rb + 4096 + 8192 - 1000;
    w.wr.rdma.rkey = rkey;
    CHECK_EQ(post_send(&a, &w, &bad), 0);
    s2 = sge(la + 8192, 2000, 0x200);
    w.wr_id = 902;
    w.opcode = IBV_WR_RDMA_READ;
    w.send_flags = IBV_SEND_SIGNALED;
    w.sg_list = &s2;
    w.wr.rdma.remote_addr = rb + 4096;
    CHECK_EQ(post_send(&a, &w, &bad), 0);
    p_settle(p, 1000000000ull);
    CHECK(!memcmp(p->b.h->mem + rb + 4096 + 8192 - 1000, p->a.h->mem + la, 1000));
    CHECK(!memcmp(p->a.h->mem + la + 8192, p->b.h->mem + rb + 4096, 2000));
    CHECK_EQ(poll(&a, wc, 4), 1);
    CHECK_EQ(wc[0].wr_id, 902);
    CHECK_EQ(wc[0].status, IBV_WC_SUCCESS);

    /* B revokes the window; A's Read through it is refused. */
    memset(&w, 0, sizeof(w));
    w.wr_id = 903;
    w.opcode = IBV_WR_LOCAL_INV;
    w.send_flags = IBV_SEND_SIGNALED;
    w.invalidate_rkey = rkey;
    CHECK_EQ(post_send(&b, &w, &bad), 0);
    p_settle(p, 100000000ull);
    CHECK_EQ(poll(&b, wc, 4), 1);
    CHECK_EQ(wc[0].opcode, IBV_WC_LOCAL_INV);
    CHECK_EQ(wc[0].status, IBV_WC_SUCCESS);
    memset(&w, 0, sizeof(w));
    w.wr_id = 904;
    w.opcode = IBV_WR_RDMA_READ;
    w.send_flags = IBV_SEND_SIGNALED;
    w.sg_list = &s2;
    w.num_sge = 1;
    w.wr.rdma.remote_addr = rb + 4096;
    w.wr.rdma.rkey = rkey;
    CHECK_EQ(post_send(&a, &w, &bad), 0);
    p_settle(p, 1000000000ull);
    CHECK_EQ(poll(&a, wc, 4), 1);
    CHECK_EQ(wc[0].wr_id, 904);
    CHECK(wc[0].status != IBV_WC_SUCCESS);
    CHECK_EQ(p_qp_state(&p->b, P_QP), RNIC_QPS_ERROR);
    p_free(p);
}

int main(void)
{
    test_sends();
    test_mw();
    test_rdma_and_atomics();
    test_wrap();
    test_flush();
    test_resize_rereg();
    return t_report("test-provider-pair");
}
