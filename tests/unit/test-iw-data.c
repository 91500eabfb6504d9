/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The iWARP data path between two devices: Send (multi-SGE, in-line,
 * solicited), Write, Read, Send with Invalidate, Write with Immediate and
 * Atomics (RFC 7306), a 1 MiB Write, a Write interleaved with Read
 * Responses, and errors: a bad MPA CRC and a bad
 * STag each end in a Terminate with nothing placed, a Write-with-Immediate
 * stream that outruns the receives ends in a "no buffer" Terminate.
 */
#include <string.h>
#include "test-iw-pair.h"
#include "iwarp/iw.h"

#define ALL_ACCESS (RNIC_ACCESS_LOCAL_WRITE | RNIC_ACCESS_REMOTE_WRITE | \
                    RNIC_ACCESS_REMOTE_READ | RNIC_ACCESS_REMOTE_ATOMIC)

/* A registered buffer of pages 4 KiB pages, iova = its address. */
static uint64_t mr(struct p_dev *d, uint32_t stag, uint32_t access,
                   uint32_t pages)
{
    uint64_t a = h_alloc(d->h, pages);

    CHECK_EQ(t_reg_mr(d->h, stag, 0, access, a, (uint64_t)pages * 4096, a),
             RNIC_STS_OK);
    return a;
}

static void fill(struct p_dev *d, uint64_t a, size_t n, unsigned seed)
{
    size_t i;

    for (i = 0; i < n; i++) {
        d->h->mem[a + i] = (uint8_t)(i * 131 + seed + (i >> 8));
    }
}

static void wqe(struct rnic_sq_wqe *w, uint8_t op, uint8_t flags,
                uint64_t wr_id)
{
    memset(w, 0, sizeof(*w));
    w->hdr.wr_id = wr_id;
    w->hdr.opcode = op;
    w->hdr.flags = flags | RNIC_WQE_SIGNALED;
}

/* A one-SGE RDMA Write or Read: remote (ra, rkey), local (la, len, lkey). */
static void rdma_wqe(struct rnic_sq_wqe *w, uint8_t op, uint8_t flags,
                     uint64_t wr_id, uint64_t ra, uint32_t rkey,
                     uint64_t la, uint32_t len, uint32_t lkey)
{
    wqe(w, op, flags, wr_id);
    w->hdr.count = 1;
    w->op.rdma.remote_addr = ra;
    w->op.rdma.rkey = rkey;
    t_sge(&w->data.sge[0], la, len, lkey);
}

static void post_recv(struct p_dev *d, uint64_t wr_id, uint64_t a,
                      uint32_t len, uint32_t stag)
{
    struct rnic_rq_wqe r;

    memset(&r, 0, sizeof(r));
    r.wr_id = wr_id;
    r.num_sge = 1;
    t_sge(&r.sge[0], a, len, stag);
    t_post_recv(d->h, &d->qp, &r);
    p_ring_rq(d);
}

static void test_send(void)
{
    struct pair *p = p_new();
    struct rnic_sq_wqe w;
    struct rnic_rq_wqe r;
    struct rnic_cqe cqe;
    uint64_t src, dst;

    if (!p_connect_pair(p, 2, RNIC_MPA_CRC)) {
        p_free(p);
        return;
    }
    src = mr(&p->a, 0x100, RNIC_ACCESS_LOCAL_WRITE, 4);
    dst = mr(&p->b, 0x100, RNIC_ACCESS_LOCAL_WRITE, 4);
    fill(&p->a, src, 16384, 1);
    /* three gather pieces into two scatter pieces */
    memset(&r, 0, sizeof(r));
    r.wr_id = 11;
    r.num_sge = 2;
    t_sge(&r.sge[0], dst + 100, 4000, 0x100);
    t_sge(&r.sge[1], dst + 8192, 4000, 0x100);
    t_post_recv(p->b.h, &p->b.qp, &r);
    post_recv(&p->b, 12, dst + 12288, 1000, 0x100);
    p_ring_rq(&p->b);
    wqe(&w, RNIC_WR_SEND, RNIC_WQE_SOLICITED, 21);
    w.hdr.count = 3;
    t_sge(&w.data.sge[0], src + 10, 100, 0x100);
    t_sge(&w.data.sge[1], src + 5000, 3000, 0x100);
    t_sge(&w.data.sge[2], src + 9000, 2000, 0x100);
    t_post_send(p->a.h, &p->a.qp, &w);
    /* in-line data */
    wqe(&w, RNIC_WR_SEND, RNIC_WQE_INLINE, 22);
    w.hdr.count = 50;
    memset(w.data.inline_data, 0xab, 50);
    t_post_send(p->a.h, &p->a.qp, &w);
    p_ring_sq(&p->a);
    p_settle(p, 1000000000ull);

    CHECK(t_poll_cq(p->b.h, &p->b.cq, &cqe));
    CHECK_EQ(cqe.wr_id, 11);
    CHECK_EQ(cqe.opcode, RNIC_WC_RECV);
    CHECK_EQ(cqe.status, RNIC_WC_SUCCESS);
    CHECK_EQ(cqe.byte_len, 5100);
    CHECK_EQ(cqe.flags, RNIC_CQE_F_SOLICITED);
    CHECK_EQ(cqe.qpn, P_QP);
    CHECK(!memcmp(p->b.h->mem + dst + 100, p->a.h->mem + src + 10, 100));
    CHECK(!memcmp(p->b.h->mem + dst + 200, p->a.h->mem + src + 5000, 3000));
    CHECK(!memcmp(p->b.h->mem + dst + 3200, p->a.h->mem + src + 9000, 900));
    CHECK(!memcmp(p->b.h->mem + dst + 8192, p->a.h->mem + src + 9900, 1100));
    CHECK(t_poll_cq(p->b.h, &p->b.cq, &cqe));
    CHECK_EQ(cqe.wr_id, 12);
    CHECK_EQ(cqe.byte_len, 50);
    CHECK_EQ(p->b.h->mem[dst + 12288 + 49], 0xab);
    CHECK(t_poll_cq(p->a.h, &p->a.cq, &cqe));
    CHECK_EQ(cqe.wr_id, 21);
    CHECK_EQ(cqe.opcode, RNIC_WC_SEND);
    CHECK_EQ(cqe.byte_len, 5100);
    CHECK(t_poll_cq(p->a.h, &p->a.cq, &cqe));
    CHECK_EQ(cqe.wr_id, 22);
    CHECK(!t_poll_cq(p->a.h, &p->a.cq, &cqe));
    p_free(p);
}

static void test_write_read(void)
{
    struct pair *p = p_new();
    struct rnic_sq_wqe w;
    struct rnic_cqe cqe;
    uint64_t la, rb;

    if (!p_connect_pair(p, 2, 0)) {
        p_free(p);
        return;
    }
    la = mr(&p->a, 0x200, RNIC_ACCESS_LOCAL_WRITE, 8);
    rb = mr(&p->b, 0x300, ALL_ACCESS, 8);
    fill(&p->a, la, 10000, 3);
    fill(&p->b, rb + 16384, 7000, 9);
    rdma_wqe(&w, RNIC_WR_WRITE, 0, 31, rb + 5, 0x300, la, 10000, 0x200);
    t_post_send(p->a.h, &p->a.qp, &w);
    /* Read 7000 bytes into two pieces of the local buffer */
    wqe(&w, RNIC_WR_READ, 0, 32);
    w.hdr.count = 2;
    w.op.rdma.remote_addr = rb + 16384;
    w.op.rdma.rkey = 0x300;
    t_sge(&w.data.sge[0], la + 16384, 3000, 0x200);
    t_sge(&w.data.sge[1], la + 24576, 4000, 0x200);
    t_post_send(p->a.h, &p->a.qp, &w);
    /* fenced: starts after the Read completed */
    rdma_wqe(&w, RNIC_WR_WRITE, RNIC_WQE_FENCE, 33, rb + 30000, 0x300,
             la + 16384, 1000, 0x200);
    t_post_send(p->a.h, &p->a.qp, &w);
    p_ring_sq(&p->a);
    p_settle(p, 1000000000ull);
    CHECK(!memcmp(p->b.h->mem + rb + 5, p->a.h->mem + la, 10000));
    CHECK(!memcmp(p->a.h->mem + la + 16384, p->b.h->mem + rb + 16384, 3000));
    CHECK(!memcmp(p->a.h->mem + la + 24576, p->b.h->mem + rb + 19384, 4000));
    CHECK(!memcmp(p->b.h->mem + rb + 30000, p->b.h->mem + rb + 16384, 1000));
    CHECK(t_poll_cq(p->a.h, &p->a.cq, &cqe));
    CHECK_EQ(cqe.wr_id, 31);
    CHECK_EQ(cqe.opcode, RNIC_WC_WRITE);
    CHECK(t_poll_cq(p->a.h, &p->a.cq, &cqe));
    CHECK_EQ(cqe.wr_id, 32);
    CHECK_EQ(cqe.opcode, RNIC_WC_READ);
    CHECK_EQ(cqe.status, RNIC_WC_SUCCESS);
    CHECK_EQ(cqe.byte_len, 7000);
    CHECK(t_poll_cq(p->a.h, &p->a.cq, &cqe));
    CHECK_EQ(cqe.wr_id, 33);
    /* Writes complete nothing at the data sink */
    CHECK(!t_poll_cq(p->b.h, &p->b.cq, &cqe));
    p_free(p);
}

static void test_send_inv(void)
{
    struct pair *p = p_new();
    struct rnic_admin_cmd c;
    struct rnic_sq_wqe w;
    struct rnic_cqe cqe;
    struct rnic_eqe e;
    uint64_t src, dst, fr;
    uint32_t stag = RNIC_STAG(7, 0x42);

    if (!p_connect_pair(p, 2, RNIC_MPA_CRC)) {
        p_free(p);
        return;
    }
    src = mr(&p->a, 0x100, RNIC_ACCESS_LOCAL_WRITE, 1);
    dst = mr(&p->b, 0x100, RNIC_ACCESS_LOCAL_WRITE, 1);
    /* B: a fast-register MR bound by a REG_MR WQE */
    c = t_mk(RNIC_CMD_ALLOC_MR);
    c.u.alloc_mr.stag = RNIC_STAG(7, 0);
    c.u.alloc_mr.max_pages = 4;
    CHECK_EQ(h_cmd(p->b.h, &c), RNIC_STS_OK);
    fr = h_alloc(p->b.h, 2);
    wqe(&w, RNIC_WR_REG_MR, 0, 40);
    w.op.reg_mr.iova = fr;
    w.op.reg_mr.length = 8192;
    w.op.reg_mr.stag = stag;
    w.op.reg_mr.access = RNIC_ACCESS_LOCAL_WRITE | RNIC_ACCESS_REMOTE_WRITE;
    h_pbl(p->b.h, &w.op.reg_mr.pages, fr, 2);
    t_post_send(p->b.h, &p->b.qp, &w);
    p_ring_sq(&p->b);
    CHECK(t_poll_cq(p->b.h, &p->b.cq, &cqe));
    CHECK_EQ(cqe.opcode, RNIC_WC_REG_MR);
    CHECK_EQ(cqe.status, RNIC_WC_SUCCESS);
    /* A writes through it, then invalidates it with a Send */
    fill(&p->a, src, 4096, 5);
    post_recv(&p->b, 41, dst, 4096, 0x100);
    rdma_wqe(&w, RNIC_WR_WRITE, 0, 42, fr + 4000, stag, src, 300, 0x100);
    t_post_send(p->a.h, &p->a.qp, &w);
    wqe(&w, RNIC_WR_SEND_INV, 0, 43);
    w.hdr.count = 1;
    w.hdr.ex = stag;
    t_sge(&w.data.sge[0], src + 1000, 64, 0x100);
    t_post_send(p->a.h, &p->a.qp, &w);
    p_ring_sq(&p->a);
    p_settle(p, 1000000000ull);
    CHECK(!memcmp(p->b.h->mem + fr + 4000, p->a.h->mem + src, 300));
    CHECK(t_poll_cq(p->b.h, &p->b.cq, &cqe));
    CHECK_EQ(cqe.wr_id, 41);
    CHECK_EQ(cqe.flags, RNIC_CQE_F_INV);
    CHECK_EQ(cqe.ex, stag);
    CHECK_EQ(cqe.byte_len, 64);
    /* The STag is invalid now: a Write to it is a Terminate, nothing lands */
    memset(p->b.h->mem + fr, 0, 8192);
    rdma_wqe(&w, RNIC_WR_WRITE, 0, 44, fr, stag, src, 100, 0x100);
    t_post_send(p->a.h, &p->a.qp, &w);
    p_ring_sq(&p->a);
    p_settle(p, 1000000000ull);
    CHECK_EQ(p->b.h->mem[fr], 0);
    CHECK_EQ(p->b.h->mem[fr + 99], 0);
    CHECK_EQ(p_qp_state(&p->b, P_QP), RNIC_QPS_ERROR);
    CHECK_EQ(p_qp_state(&p->a, P_QP), RNIC_QPS_ERROR);
    /* the peer that received the Terminate learns it was an access error */
    CHECK(t_poll_eq(p->a.h, &p->a.async, &e));
    CHECK_EQ(e.code, RNIC_ASYNC_QP_ACCESS_ERR);
    CHECK_EQ(e.obj, P_QP);
    CHECK(t_poll_eq(p->b.h, &p->b.async, &e));
    CHECK_EQ(e.code, RNIC_ASYNC_QP_ACCESS_ERR);
    p_free(p);
}

/*
 * Post a Write with Immediate of len bytes: a's la (lkey 0x100) to b's rb
 * (rkey 0x200).
 */
static void post_write_imm(struct pair *p, uint64_t wr_id, uint32_t imm,
                           uint64_t la, uint32_t len, uint64_t rb)
{
    struct rnic_sq_wqe w;

    rdma_wqe(&w, RNIC_WR_WRITE_IMM, 0, wr_id, rb, 0x200, la, len, 0x100);
    w.hdr.ex = imm;
    t_post_send(p->a.h, &p->a.qp, &w);
}

static void test_rfc7306(void)
{
    struct pair *p = p_new();
    struct rnic_sq_wqe w;
    struct rnic_cqe cqe;
    uint64_t la, rb, v;

    if (!p_connect_pair(p, 2, RNIC_MPA_CRC | RNIC_MPA_RFC7306)) {
        p_free(p);
        return;
    }
    la = mr(&p->a, 0x100, RNIC_ACCESS_LOCAL_WRITE, 1);
    rb = mr(&p->b, 0x200, ALL_ACCESS, 1);
    fill(&p->a, la, 4096, 8);
    post_recv(&p->b, 51, rb + 2048, 64, 0x200);
    post_write_imm(p, 52, 0x12345678, la, 1500, rb);
    /* Send-Imm: one receive completion with the data and the immediate */
    post_recv(&p->b, 56, rb + 2560, 512, 0x200);
    wqe(&w, RNIC_WR_SEND_IMM, RNIC_WQE_SOLICITED, 57);
    w.hdr.count = 1;
    w.hdr.ex = 0xcafe0001;
    t_sge(&w.data.sge[0], la + 100, 300, 0x100);
    t_post_send(p->a.h, &p->a.qp, &w);
    v = 40;
    memcpy(p->b.h->mem + rb + 4000, &v, 8);
    wqe(&w, RNIC_WR_ATOMIC_FADD, 0, 53);
    w.hdr.count = 1;
    w.op.atomic.remote_addr = rb + 4000;
    w.op.atomic.rkey = 0x200;
    w.op.atomic.compare_add = 2;
    t_sge(&w.data.sge[0], la + 3000, 8, 0x100);
    t_post_send(p->a.h, &p->a.qp, &w);
    wqe(&w, RNIC_WR_ATOMIC_CSWAP, 0, 54);
    w.hdr.count = 1;
    w.op.atomic.remote_addr = rb + 4000;
    w.op.atomic.rkey = 0x200;
    w.op.atomic.compare_add = 42;
    w.op.atomic.swap = 7;
    t_sge(&w.data.sge[0], la + 3008, 8, 0x100);
    t_post_send(p->a.h, &p->a.qp, &w);
    p_ring_sq(&p->a);
    p_settle(p, 1000000000ull);
    CHECK(!memcmp(p->b.h->mem + rb, p->a.h->mem + la, 1500));
    CHECK(t_poll_cq(p->b.h, &p->b.cq, &cqe));
    CHECK_EQ(cqe.wr_id, 51);
    CHECK_EQ(cqe.opcode, RNIC_WC_RECV_WRITE_IMM);
    CHECK_EQ(cqe.flags, RNIC_CQE_F_IMM);
    CHECK_EQ(cqe.ex, 0x12345678);
    CHECK_EQ(cqe.byte_len, 1500);
    CHECK(t_poll_cq(p->b.h, &p->b.cq, &cqe));
    CHECK_EQ(cqe.wr_id, 56);
    CHECK_EQ(cqe.opcode, RNIC_WC_RECV);
    CHECK_EQ(cqe.flags, RNIC_CQE_F_IMM | RNIC_CQE_F_SOLICITED);
    CHECK_EQ(cqe.ex, 0xcafe0001);
    CHECK_EQ(cqe.byte_len, 300);
    CHECK(!memcmp(p->b.h->mem + rb + 2560, p->a.h->mem + la + 100, 300));
    CHECK(!t_poll_cq(p->b.h, &p->b.cq, &cqe));
    memcpy(&v, p->b.h->mem + rb + 4000, 8);
    CHECK_EQ(v, 7);
    memcpy(&v, p->a.h->mem + la + 3000, 8);
    CHECK_EQ(v, 40);
    memcpy(&v, p->a.h->mem + la + 3008, 8);
    CHECK_EQ(v, 42);
    CHECK(t_poll_cq(p->a.h, &p->a.cq, &cqe));
    CHECK_EQ(cqe.wr_id, 52);
    CHECK(t_poll_cq(p->a.h, &p->a.cq, &cqe));
    CHECK_EQ(cqe.wr_id, 57);
    CHECK(t_poll_cq(p->a.h, &p->a.cq, &cqe));
    CHECK_EQ(cqe.wr_id, 53);
    CHECK_EQ(cqe.opcode, RNIC_WC_ATOMIC_FADD);
    CHECK_EQ(cqe.byte_len, 8);
    CHECK(t_poll_cq(p->a.h, &p->a.cq, &cqe));
    CHECK_EQ(cqe.wr_id, 54);
    CHECK_EQ(cqe.status, RNIC_WC_SUCCESS);
    p_free(p);

    /* Without the flag both are refused locally, nothing goes out */
    p = p_new();
    if (!p_connect_pair(p, 2, 0)) {
        p_free(p);
        return;
    }
    la = mr(&p->a, 0x100, RNIC_ACCESS_LOCAL_WRITE, 1);
    post_write_imm(p, 55, 0, la, 10, 0);
    p_ring_sq(&p->a);
    p_settle(p, 1000000000ull);
    CHECK(t_poll_cq(p->a.h, &p->a.cq, &cqe));
    CHECK_EQ(cqe.wr_id, 55);
    CHECK_EQ(cqe.status, RNIC_WC_LOC_QP_OP_ERR);
    CHECK_EQ(p_qp_state(&p->a, P_QP), RNIC_QPS_ERROR);
    p_free(p);
}

/*
 * qperf's rc_rdma_write_bw: Write-with-Immediate back to back into one
 * buffer, one receive each. Its server stops reposting receives when its
 * timer ends: the next Immediate Data finds none, so the receiver sends a
 * DDP "no buffer" Terminate (iWARP has no RNR retry) and both QPs end.
 */
static void test_write_imm_stream(void)
{
    struct pair *p = p_new();
    struct rnic_cqe cqe;
    struct rnic_eqe e;
    uint64_t la, rb;
    int i;

    if (!p_connect_pair(p, 2, RNIC_MPA_CRC | RNIC_MPA_RFC7306)) {
        p_free(p);
        return;
    }
    la = mr(&p->a, 0x100, RNIC_ACCESS_LOCAL_WRITE, 4);
    rb = mr(&p->b, 0x200, ALL_ACCESS, 4);
    fill(&p->a, la, 16384, 9);
    for (i = 0; i < 2; i++) {
        post_recv(&p->b, 60 + i, rb, 16384, 0x200);
    }
    for (i = 0; i < 3; i++) {
        post_write_imm(p, 70 + i, 0x1000 + i, la, 16384, rb);
    }
    p_ring_sq(&p->a);
    p_settle(p, 1000000000ull);
    CHECK(!memcmp(p->b.h->mem + rb, p->a.h->mem + la, 16384));
    for (i = 0; i < 2; i++) {
        CHECK(t_poll_cq(p->b.h, &p->b.cq, &cqe));
        CHECK_EQ(cqe.wr_id, 60 + i);
        CHECK_EQ(cqe.status, RNIC_WC_SUCCESS);
        CHECK_EQ(cqe.opcode, RNIC_WC_RECV_WRITE_IMM);
        CHECK_EQ(cqe.flags, RNIC_CQE_F_IMM);
        CHECK_EQ(cqe.ex, 0x1000 + i);
        CHECK_EQ(cqe.byte_len, 16384);
    }
    CHECK(!t_poll_cq(p->b.h, &p->b.cq, &cqe));
    CHECK_EQ(p_qp_state(&p->b, P_QP), RNIC_QPS_ERROR);
    CHECK_EQ(p_qp_state(&p->a, P_QP), RNIC_QPS_ERROR);
    CHECK(t_poll_eq(p->b.h, &p->b.async, &e));
    CHECK_EQ(e.code, RNIC_ASYNC_QP_FATAL);
    CHECK(t_poll_eq(p->a.h, &p->a.async, &e));
    CHECK_EQ(e.code, RNIC_ASYNC_QP_FATAL);
    CHECK_EQ(e.obj, P_QP);
    /* The sender completed what it had sent, in order */
    for (i = 0; i < 3; i++) {
        CHECK(t_poll_cq(p->a.h, &p->a.cq, &cqe));
        CHECK_EQ(cqe.wr_id, 70 + i);
        CHECK_EQ(cqe.opcode, RNIC_WC_WRITE);
        CHECK_EQ(cqe.status, RNIC_WC_SUCCESS);
    }
    CHECK(!t_poll_cq(p->a.h, &p->a.cq, &cqe));
    p_free(p);
}

static void test_big_write(void)
{
    struct pair *p = p_new();
    struct rnic_sq_wqe w;
    struct rnic_cqe cqe;
    uint64_t la, rb;
    unsigned long frames;

    if (!p_connect_pair(p, 2, RNIC_MPA_CRC)) {
        p_free(p);
        return;
    }
    la = mr(&p->a, 0x100, RNIC_ACCESS_LOCAL_WRITE, 256);
    rb = mr(&p->b, 0x200, ALL_ACCESS, 256);
    fill(&p->a, la, 1 << 20, 77);
    frames = p->a.h->sent_total;
    rdma_wqe(&w, RNIC_WR_WRITE, 0, 61, rb, 0x200, la, 1 << 20, 0x100);
    t_post_send(p->a.h, &p->a.qp, &w);
    p_ring_sq(&p->a);
    p_settle(p, 10000000000ull);
    CHECK(!memcmp(p->b.h->mem + rb, p->a.h->mem + la, 1 << 20));
    CHECK(t_poll_cq(p->a.h, &p->a.cq, &cqe));
    CHECK_EQ(cqe.wr_id, 61);
    CHECK_EQ(cqe.status, RNIC_WC_SUCCESS);
    CHECK_EQ(cqe.byte_len, 1 << 20);
    frames = p->a.h->sent_total - frames;
    /* 1 MiB in FPDUs of at most MULPDU: about 1 MiB / 1424 segments */
    CHECK(frames >= 730 && frames < 800);
    printf("1 MiB Write: %lu frames A->B, %llu ns virtual\n", frames,
           (unsigned long long)p->now);
    p_free(p);
}

/*
 * The transmit side reads an SGL ahead, many segments at a time, into the
 * buffer its Read Responses also use: a Write over three odd SGEs while the
 * peer Reads from this side (responses interleave with the Write segment by
 * segment) must arrive byte-exact both ways.
 */
static void test_write_during_read(void)
{
    static const uint32_t off[3] = { 1, 102405, 307207 };
    static const uint32_t len[3] = { 100001, 200003, 300007 };
    struct pair *p = p_new();
    struct rnic_sq_wqe w;
    struct rnic_cqe cqe;
    uint64_t la, lr, rb, rl, at;
    unsigned i;

    if (!p_connect_pair(p, 2, RNIC_MPA_CRC)) {
        p_free(p);
        return;
    }
    la = mr(&p->a, 0x100, RNIC_ACCESS_LOCAL_WRITE, 160);
    lr = mr(&p->a, 0x300, ALL_ACCESS, 8);
    rb = mr(&p->b, 0x200, ALL_ACCESS, 150);
    rl = mr(&p->b, 0x400, RNIC_ACCESS_LOCAL_WRITE, 8);
    fill(&p->a, la, 160 * 4096, 21);
    fill(&p->a, lr, 8 * 4096, 22);
    /* B reads 30000 octets of A while A's window-limited Write goes out */
    rdma_wqe(&w, RNIC_WR_READ, 0, 81, lr + 3, 0x300, rl, 30000, 0x400);
    t_post_send(p->b.h, &p->b.qp, &w);
    p_ring_sq(&p->b);
    wqe(&w, RNIC_WR_WRITE, 0, 82);
    w.hdr.count = 3;
    w.op.rdma.remote_addr = rb;
    w.op.rdma.rkey = 0x200;
    for (i = 0; i < 3; i++) {
        t_sge(&w.data.sge[i], la + off[i], len[i], 0x100);
    }
    t_post_send(p->a.h, &p->a.qp, &w);
    p_ring_sq(&p->a);
    p_settle(p, 1000000000ull);
    for (at = rb, i = 0; i < 3; at += len[i], i++) {
        CHECK(!memcmp(p->b.h->mem + at, p->a.h->mem + la + off[i], len[i]));
    }
    CHECK(!p->b.h->mem[at]);
    CHECK(!memcmp(p->b.h->mem + rl, p->a.h->mem + lr + 3, 30000));
    CHECK(t_poll_cq(p->a.h, &p->a.cq, &cqe));
    CHECK_EQ(cqe.wr_id, 82);
    CHECK_EQ(cqe.status, RNIC_WC_SUCCESS);
    CHECK_EQ(cqe.byte_len, 100001 + 200003 + 300007);
    CHECK(t_poll_cq(p->b.h, &p->b.cq, &cqe));
    CHECK_EQ(cqe.wr_id, 81);
    CHECK_EQ(cqe.status, RNIC_WC_SUCCESS);
    CHECK_EQ(cqe.byte_len, 30000);
    p_free(p);
}

/* A busy wire holds offload frames in order; resume sends them at once. */
static void test_wire_busy(void)
{
    struct pair *p = p_new();
    struct rnic_sq_wqe w;
    struct rnic_cqe cqe;
    uint64_t la, rb, rto0;
    unsigned long sent;

    if (!p_connect_pair(p, 2, RNIC_MPA_CRC)) {
        p_free(p);
        return;
    }
    la = mr(&p->a, 0x100, RNIC_ACCESS_LOCAL_WRITE, 16);
    rb = mr(&p->b, 0x200, ALL_ACCESS, 16);
    fill(&p->a, la, 65536, 5);
    p->a.h->wire_busy = true;
    sent = p->a.h->sent_total;
    rdma_wqe(&w, RNIC_WR_WRITE, 0, 81, rb, 0x200, la, 65536, 0x100);
    t_post_send(p->a.h, &p->a.qp, &w);
    p_ring_sq(&p->a);
    /* one frame went (the wire queued it), the rest waits in the device */
    CHECK_EQ(p->a.h->sent_total - sent, 1);
    CHECK(p->a.h->dev.tx_paused);
    p->a.h->wire_busy = false;
    rto0 = rne_tcp_get_stats(p->a.h->dev.iw->eng[0].tcp)->rto_fired;
    rne_dev_tx_resume(&p->a.h->dev);
    CHECK(p->a.h->dev.tx_held >= 2);
    CHECK_EQ(p->a.h->sent_total - sent, 1 + p->a.h->dev.tx_held);
    printf("wire busy: %lu frames held, sent on resume\n",
           (unsigned long)p->a.h->dev.tx_held);
    p_settle(p, 1000000000ull);
    CHECK(!memcmp(p->b.h->mem + rb, p->a.h->mem + la, 65536));
    CHECK(t_poll_cq(p->a.h, &p->a.cq, &cqe));
    CHECK_EQ(cqe.wr_id, 81);
    /* no retransmission timeout was needed (the clock also runs CM timers) */
    CHECK_EQ(rne_tcp_get_stats(p->a.h->dev.iw->eng[0].tcp)->rto_fired, rto0);
    CHECK_EQ(p->a.h->dev.tx_dropped, 0);
    p_free(p);
}

static void test_bad_crc(void)
{
    struct pair *p = p_new();
    struct rnic_sq_wqe w;
    struct rnic_cqe cqe;
    struct rnic_eqe e;
    uint64_t la, rb;
    unsigned i, nz = 0;

    if (!p_connect_pair(p, 2, RNIC_MPA_CRC)) {
        p_free(p);
        return;
    }
    la = mr(&p->a, 0x100, RNIC_ACCESS_LOCAL_WRITE, 1);
    rb = mr(&p->b, 0x200, ALL_ACCESS, 1);
    fill(&p->a, la, 4096, 1);
    p->a.corrupt_next = true;
    rdma_wqe(&w, RNIC_WR_WRITE, 0, 71, rb, 0x200, la, 1000, 0x100);
    t_post_send(p->a.h, &p->a.qp, &w);
    p_ring_sq(&p->a);
    p_settle(p, 1000000000ull);
    CHECK_EQ(p->a.corrupted, 1);
    for (i = 0; i < 4096; i++) {
        nz += p->b.h->mem[rb + i] != 0;
    }
    CHECK_EQ(nz, 0);
    CHECK_EQ(p_qp_state(&p->b, P_QP), RNIC_QPS_ERROR);
    CHECK_EQ(p_qp_state(&p->a, P_QP), RNIC_QPS_ERROR);
    CHECK(t_poll_eq(p->b.h, &p->b.async, &e));
    CHECK_EQ(e.code, RNIC_ASYNC_QP_FATAL);
    CHECK(t_poll_eq(p->a.h, &p->a.async, &e));
    CHECK_EQ(e.code, RNIC_ASYNC_QP_FATAL);
    CHECK(t_poll_cq(p->a.h, &p->a.cq, &cqe));
    CHECK_EQ(cqe.wr_id, 71);
    /* the connection closes after the Terminate: both drivers are told */
    p_settle(p, 200000000000ull);
    CHECK(p_cm_event(&p->a, &e, NULL));
    CHECK(e.code == RNIC_CM_CLOSED || e.code == RNIC_CM_RESET);
    CHECK(p_cm_event(&p->b, &e, NULL));
    CHECK(e.code == RNIC_CM_CLOSED || e.code == RNIC_CM_RESET);
    p_free(p);
}

int main(void)
{
    test_send();
    test_write_read();
    test_send_inv();
    test_rfc7306();
    test_write_imm_stream();
    test_big_write();
    test_write_during_read();
    test_wire_busy();
    test_bad_crc();
    return t_report("test-iw-data");
}
