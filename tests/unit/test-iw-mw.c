/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Memory windows on the wire, two devices back to back: B binds a window
 * of its MR (BIND_MW WQE) and A reaches B's memory through the window
 * STag alone.  Writes and Reads inside the window land; outside it, with
 * rights it lacks, after a local invalidate, after A's own Send with
 * Invalidate, after a zero-length bind (type 1) or DEALLOC_MW, B answers
 * with the Terminate RFC 5040/5041 name and both QPs end with an access
 * error.  The MR under the window keeps its bytes outside the window.
 */
#include <string.h>
#include "test-iw-pair.h"
#include "iwarp/iw.h"

#define A_MR    0x100                   /* A: local buffer */
#define B_MR    RNIC_STAG(3, 0x33)      /* B: MW_BIND, no remote rights */
#define B_RECV  RNIC_STAG(4, 0x44)
#define B_MW    12                      /* B: the window's index */
#define RW      (RNIC_ACCESS_REMOTE_READ | RNIC_ACCESS_REMOTE_WRITE)

struct term_rec {
    bool seen;
    uint8_t layer, etype, code;
};

static struct term_rec term_tx_b, term_rx_a;
static struct rne_host_ops ops_a, ops_b;
static void *host_b;

static void record(void *opaque, const struct rne_trace *ev)
{
    struct term_rec *t;

    if (ev->id == RNE_TRACE_TERM_TX && opaque == host_b) {
        t = &term_tx_b;
    } else if (ev->id == RNE_TRACE_TERM_RX && opaque != host_b) {
        t = &term_rx_a;
    } else {
        return;
    }
    if (!t->seen) {
        t->seen = true;
        t->layer = ev->u.term.layer;
        t->etype = ev->u.term.etype;
        t->code = ev->u.term.code;
    }
}

struct mw_env {
    struct pair *p;
    uint64_t la;        /* A: 4 pages */
    uint64_t rb;        /* B: 4 pages under B_MR; the window in page 1-2 */
    uint64_t win;       /* window start */
    uint32_t mw;        /* window STag */
};

static void wqe(struct rnic_sq_wqe *w, uint8_t op, uint64_t wr_id)
{
    memset(w, 0, sizeof(*w));
    w->hdr.wr_id = wr_id;
    w->hdr.opcode = op;
    w->hdr.flags = RNIC_WQE_SIGNALED;
}

static unsigned b_alloc_mw(struct mw_env *e, uint8_t type)
{
    struct rnic_admin_cmd c = t_mk(RNIC_CMD_ALLOC_MW);

    c.u.alloc_mw.stag = RNIC_STAG(B_MW, 0);
    c.u.alloc_mw.pdn = 0;
    c.u.alloc_mw.type = type;
    return h_cmd(e->p->b.h, &c);
}

/* B binds the window over [va, va + len) with a new key; its CQE status. */
static unsigned b_bind(struct mw_env *e, uint8_t key, uint64_t va,
                       uint64_t len, uint32_t access)
{
    struct rnic_sq_wqe w;
    struct rnic_cqe cqe;

    e->mw = RNIC_STAG(B_MW, key);
    wqe(&w, RNIC_WR_BIND_MW, 100 + key);
    w.op.bind_mw.mw_stag = e->mw;
    w.op.bind_mw.mr_stag = B_MR;
    w.op.bind_mw.va = va;
    w.op.bind_mw.length = len;
    w.op.bind_mw.access = access;
    t_post_send(e->p->b.h, &e->p->b.qp, &w);
    p_ring_sq(&e->p->b);
    p_settle(e->p, 100000000ull);
    if (!t_poll_cq(e->p->b.h, &e->p->b.cq, &cqe)) {
        CHECK(0);
        return 0xff;
    }
    CHECK_EQ(cqe.wr_id, 100 + key);
    CHECK_EQ(cqe.opcode, RNIC_WC_BIND_MW);
    return cqe.status;
}

static bool env_new(struct mw_env *e, uint8_t type)
{
    uint32_t lw = RNIC_ACCESS_LOCAL_WRITE;
    size_t i;

    memset(e, 0, sizeof(*e));
    memset(&term_tx_b, 0, sizeof(term_tx_b));
    memset(&term_rx_a, 0, sizeof(term_rx_a));
    e->p = p_new();
    if (!p_connect_pair(e->p, 2, RNIC_MPA_CRC)) {
        p_free(e->p);
        return false;
    }
    ops_a = *e->p->a.h->dev.host.ops;
    ops_a.trace = record;
    e->p->a.h->dev.host.ops = &ops_a;
    ops_b = *e->p->b.h->dev.host.ops;
    ops_b.trace = record;
    e->p->b.h->dev.host.ops = &ops_b;
    host_b = e->p->b.h->dev.host.opaque;
    e->la = h_alloc(e->p->a.h, 4);
    CHECK_EQ(t_reg_mr(e->p->a.h, A_MR, 0, lw, e->la, 4 * 4096, e->la),
             RNIC_STS_OK);
    e->rb = h_alloc(e->p->b.h, 4);
    CHECK_EQ(t_reg_mr(e->p->b.h, B_MR, 0, lw | RNIC_ACCESS_MW_BIND, e->rb,
                      4 * 4096, e->rb), RNIC_STS_OK);
    for (i = 0; i < 4 * 4096; i++) {
        e->p->a.h->mem[e->la + i] = (uint8_t)(i * 13 + 7);
        e->p->b.h->mem[e->rb + i] = (uint8_t)(i * 29 + 1);
    }
    e->win = e->rb + 4096;
    CHECK_EQ(b_alloc_mw(e, type), RNIC_STS_OK);
    CHECK_EQ(b_bind(e, 0x5a, e->win, 8192, RW), RNIC_WC_SUCCESS);
    return true;
}

static void a_rdma(struct mw_env *e, uint8_t op, uint64_t wr_id,
                   uint64_t ra, uint64_t la, uint32_t len)
{
    struct rnic_sq_wqe w;

    wqe(&w, op, wr_id);
    w.hdr.count = 1;
    w.op.rdma.remote_addr = ra;
    w.op.rdma.rkey = e->mw;
    t_sge(&w.data.sge[0], la, len, A_MR);
    t_post_send(e->p->a.h, &e->p->a.qp, &w);
    p_ring_sq(&e->p->a);
    p_settle(e->p, 1000000000ull);
}

/* B terminated with (layer, etype, code), A took it, both QPs ended. */
static void check_term(struct mw_env *e, uint8_t layer, uint8_t etype,
                       uint8_t code)
{
    struct rnic_eqe ev;

    CHECK(term_tx_b.seen);
    CHECK_EQ(term_tx_b.layer, layer);
    CHECK_EQ(term_tx_b.etype, etype);
    CHECK_EQ(term_tx_b.code, code);
    CHECK(term_rx_a.seen);
    CHECK_EQ(term_rx_a.layer, layer);
    CHECK_EQ(term_rx_a.etype, etype);
    CHECK_EQ(term_rx_a.code, code);
    CHECK_EQ(p_qp_state(&e->p->a, P_QP), RNIC_QPS_ERROR);
    CHECK_EQ(p_qp_state(&e->p->b, P_QP), RNIC_QPS_ERROR);
    CHECK(t_poll_eq(e->p->a.h, &e->p->a.async, &ev));
    CHECK_EQ(ev.code, RNIC_ASYNC_QP_ACCESS_ERR);
    CHECK(t_poll_eq(e->p->b.h, &e->p->b.async, &ev));
    CHECK_EQ(ev.code, RNIC_ASYNC_QP_ACCESS_ERR);
}

/*
 * A's failed Read: an error CQE.  (A Write completes once sent, before
 * the peer judges it: the Terminate and A's QP error tell.)
 */
static void check_a_failed(struct mw_env *e, uint64_t wr_id)
{
    struct rnic_cqe cqe;

    CHECK(t_poll_cq(e->p->a.h, &e->p->a.cq, &cqe));
    CHECK_EQ(cqe.wr_id, wr_id);
    CHECK(cqe.status != RNIC_WC_SUCCESS);
}

static void test_in_range(uint8_t type)
{
    struct mw_env e;
    struct rnic_cqe cqe;
    uint8_t before[4096];

    if (!env_new(&e, type)) {
        return;
    }
    memcpy(before, e.p->b.h->mem + e.rb, 4096);
    /* Write 3000 bytes at the window's end, Read 5000 from its start. */
    a_rdma(&e, RNIC_WR_WRITE, 1, e.win + 8192 - 3000, e.la, 3000);
    CHECK(t_poll_cq(e.p->a.h, &e.p->a.cq, &cqe));
    CHECK_EQ(cqe.wr_id, 1);
    CHECK_EQ(cqe.status, RNIC_WC_SUCCESS);
    CHECK(!memcmp(e.p->b.h->mem + e.win + 8192 - 3000, e.p->a.h->mem + e.la,
                  3000));
    a_rdma(&e, RNIC_WR_READ, 2, e.win, e.la + 8192, 5000);
    CHECK(t_poll_cq(e.p->a.h, &e.p->a.cq, &cqe));
    CHECK_EQ(cqe.wr_id, 2);
    CHECK_EQ(cqe.status, RNIC_WC_SUCCESS);
    CHECK_EQ(cqe.byte_len, 5000);
    CHECK(!memcmp(e.p->a.h->mem + e.la + 8192, e.p->b.h->mem + e.win, 5000));
    /* The MR's STag itself grants A nothing; its first page is intact. */
    CHECK(!memcmp(e.p->b.h->mem + e.rb, before, 4096));
    CHECK_EQ(p_qp_state(&e.p->b, P_QP), RNIC_QPS_RTS);
    /* The MR is held by the window. */
    CHECK_EQ(t_cmd_obj(e.p->b.h, RNIC_CMD_DEREG_MR, B_MR), RNIC_STS_BUSY);
    p_free(e.p);
}

static void test_out_of_range(void)
{
    struct mw_env e;
    uint8_t before[16];

    if (!env_new(&e, RNIC_MW_TYPE_2)) {
        return;
    }
    /* One byte past the window, still inside the MR. */
    memcpy(before, e.p->b.h->mem + e.win + 8192 - 8, 16);
    a_rdma(&e, RNIC_WR_WRITE, 3, e.win + 8192 - 8, e.la, 9);
    check_term(&e, RNE_TERM_LAYER_DDP, RNE_DDP_ETYPE_TAGGED,
               RNE_DDP_EC_T_BASE_BOUNDS);
    CHECK(!memcmp(e.p->b.h->mem + e.win + 8192 - 8, before, 16));
    p_free(e.p);
}

static void test_read_before_window(void)
{
    struct mw_env e;

    if (!env_new(&e, RNIC_MW_TYPE_1)) {
        return;
    }
    a_rdma(&e, RNIC_WR_READ, 4, e.win - 1, e.la, 16);
    check_term(&e, RNE_TERM_LAYER_RDMAP, RNE_RDMAP_ETYPE_REMOTE_PROTECTION,
               RNE_RDMAP_EC_BASE_BOUNDS);
    check_a_failed(&e, 4);
    p_free(e.p);
}

static void test_wrong_access(void)
{
    struct mw_env e;
    struct rnic_cqe cqe;
    uint8_t before[64];

    if (!env_new(&e, RNIC_MW_TYPE_1)) {
        return;
    }
    /* Type 1: bound again, read-only, with a new key. */
    CHECK_EQ(b_bind(&e, 0x5b, e.win, 4096, RNIC_ACCESS_REMOTE_READ),
             RNIC_WC_SUCCESS);
    a_rdma(&e, RNIC_WR_READ, 5, e.win, e.la, 64);
    CHECK(t_poll_cq(e.p->a.h, &e.p->a.cq, &cqe));
    CHECK_EQ(cqe.status, RNIC_WC_SUCCESS);
    memcpy(before, e.p->b.h->mem + e.win, 64);
    a_rdma(&e, RNIC_WR_WRITE, 6, e.win, e.la + 100, 64);
    check_term(&e, RNE_TERM_LAYER_RDMAP, RNE_RDMAP_ETYPE_REMOTE_PROTECTION,
               RNE_RDMAP_EC_ACCESS_RIGHTS);
    CHECK(!memcmp(e.p->b.h->mem + e.win, before, 64));
    p_free(e.p);
}

/* The old key after a type 1 rebind is an invalid STag. */
static void test_old_key(void)
{
    struct mw_env e;
    uint32_t old;

    if (!env_new(&e, RNIC_MW_TYPE_1)) {
        return;
    }
    old = e.mw;
    CHECK_EQ(b_bind(&e, 0x5c, e.win, 4096, RW), RNIC_WC_SUCCESS);
    e.mw = old;
    a_rdma(&e, RNIC_WR_WRITE, 7, e.win, e.la, 64);
    check_term(&e, RNE_TERM_LAYER_DDP, RNE_DDP_ETYPE_TAGGED,
               RNE_DDP_EC_T_INVALID_STAG);
    p_free(e.p);
}

static void test_local_inv(void)
{
    struct mw_env e;
    struct rnic_sq_wqe w;
    struct rnic_cqe cqe;

    if (!env_new(&e, RNIC_MW_TYPE_2)) {
        return;
    }
    wqe(&w, RNIC_WR_LOCAL_INV, 8);
    w.hdr.ex = e.mw;
    t_post_send(e.p->b.h, &e.p->b.qp, &w);
    p_ring_sq(&e.p->b);
    p_settle(e.p, 100000000ull);
    CHECK(t_poll_cq(e.p->b.h, &e.p->b.cq, &cqe));
    CHECK_EQ(cqe.opcode, RNIC_WC_LOCAL_INV);
    CHECK_EQ(cqe.status, RNIC_WC_SUCCESS);
    /* The MR is free to go now: the window let go of it. */
    CHECK_EQ(e.p->b.h->dev.rdma->mr[RNIC_STAG_INDEX(B_MR)].mw_bound, 0);
    a_rdma(&e, RNIC_WR_WRITE, 9, e.win, e.la, 64);
    check_term(&e, RNE_TERM_LAYER_DDP, RNE_DDP_ETYPE_TAGGED,
               RNE_DDP_EC_T_INVALID_STAG);
    p_free(e.p);
}

static void test_remote_inv(void)
{
    struct mw_env e;
    struct rnic_rq_wqe r;
    struct rnic_sq_wqe w;
    struct rnic_cqe cqe;
    uint64_t rbuf;

    if (!env_new(&e, RNIC_MW_TYPE_2)) {
        return;
    }
    rbuf = h_alloc(e.p->b.h, 1);
    CHECK_EQ(t_reg_mr(e.p->b.h, B_RECV, 0, RNIC_ACCESS_LOCAL_WRITE, rbuf,
                      4096, rbuf), RNIC_STS_OK);
    memset(&r, 0, sizeof(r));
    r.wr_id = 50;
    r.num_sge = 1;
    t_sge(&r.sge[0], rbuf, 4096, B_RECV);
    t_post_recv(e.p->b.h, &e.p->b.qp, &r);
    p_ring_rq(&e.p->b);
    /* A writes through the window, then Sends with Invalidate of it. */
    a_rdma(&e, RNIC_WR_WRITE, 10, e.win + 10, e.la, 100);
    CHECK(t_poll_cq(e.p->a.h, &e.p->a.cq, &cqe));
    CHECK_EQ(cqe.status, RNIC_WC_SUCCESS);
    wqe(&w, RNIC_WR_SEND_INV, 11);
    w.hdr.count = 1;
    w.hdr.ex = e.mw;
    t_sge(&w.data.sge[0], e.la, 32, A_MR);
    t_post_send(e.p->a.h, &e.p->a.qp, &w);
    p_ring_sq(&e.p->a);
    p_settle(e.p, 1000000000ull);
    CHECK(t_poll_cq(e.p->a.h, &e.p->a.cq, &cqe));
    CHECK_EQ(cqe.wr_id, 11);
    CHECK_EQ(cqe.status, RNIC_WC_SUCCESS);
    CHECK(t_poll_cq(e.p->b.h, &e.p->b.cq, &cqe));
    CHECK_EQ(cqe.wr_id, 50);
    CHECK_EQ(cqe.status, RNIC_WC_SUCCESS);
    CHECK_EQ(cqe.flags & RNIC_CQE_F_INV, RNIC_CQE_F_INV);
    CHECK_EQ(cqe.ex, e.mw);
    CHECK_EQ(e.p->b.h->dev.rdma->mr[RNIC_STAG_INDEX(B_MR)].mw_bound, 0);
    /* A Read through it now: an invalid STag, said by RDMAP. */
    a_rdma(&e, RNIC_WR_READ, 12, e.win, e.la, 64);
    check_term(&e, RNE_TERM_LAYER_RDMAP, RNE_RDMAP_ETYPE_REMOTE_PROTECTION,
               RNE_RDMAP_EC_INVALID_STAG);
    check_a_failed(&e, 12);
    p_free(e.p);
}

/* A Send with Invalidate of a type 1 window: RDMAP "cannot invalidate". */
static void test_remote_inv_type1(void)
{
    struct mw_env e;
    struct rnic_rq_wqe r;
    struct rnic_sq_wqe w;
    struct rnic_cqe cqe;
    uint64_t rbuf;

    if (!env_new(&e, RNIC_MW_TYPE_1)) {
        return;
    }
    rbuf = h_alloc(e.p->b.h, 1);
    CHECK_EQ(t_reg_mr(e.p->b.h, B_RECV, 0, RNIC_ACCESS_LOCAL_WRITE, rbuf,
                      4096, rbuf), RNIC_STS_OK);
    memset(&r, 0, sizeof(r));
    r.wr_id = 60;
    r.num_sge = 1;
    t_sge(&r.sge[0], rbuf, 4096, B_RECV);
    t_post_recv(e.p->b.h, &e.p->b.qp, &r);
    p_ring_rq(&e.p->b);
    wqe(&w, RNIC_WR_SEND_INV, 13);
    w.hdr.count = 1;
    w.hdr.ex = e.mw;
    t_sge(&w.data.sge[0], e.la, 32, A_MR);
    t_post_send(e.p->a.h, &e.p->a.qp, &w);
    p_ring_sq(&e.p->a);
    p_settle(e.p, 1000000000ull);
    CHECK(term_tx_b.seen);
    CHECK_EQ(term_tx_b.layer, RNE_TERM_LAYER_RDMAP);
    CHECK_EQ(term_tx_b.etype, RNE_RDMAP_ETYPE_REMOTE_PROTECTION);
    CHECK_EQ(term_tx_b.code, RNE_RDMAP_EC_CANNOT_INVALIDATE);
    CHECK(t_poll_cq(e.p->b.h, &e.p->b.cq, &cqe));
    CHECK_EQ(cqe.wr_id, 60);
    CHECK_EQ(cqe.status, RNIC_WC_REM_INV_REQ_ERR);
    /* The window is still bound: B's MR stays held. */
    CHECK_EQ(e.p->b.h->dev.rdma->mr[RNIC_STAG_INDEX(B_MR)].mw_bound, 1);
    p_free(e.p);
}

/* Type 1 unbound by a zero-length bind; DEALLOC_MW of a bound window. */
static void test_unbind_and_dealloc(void)
{
    struct mw_env e;

    if (!env_new(&e, RNIC_MW_TYPE_1)) {
        return;
    }
    CHECK_EQ(b_bind(&e, 0x61, 0, 0, 0), RNIC_WC_SUCCESS);
    a_rdma(&e, RNIC_WR_WRITE, 14, e.win, e.la, 64);
    check_term(&e, RNE_TERM_LAYER_DDP, RNE_DDP_ETYPE_TAGGED,
               RNE_DDP_EC_T_INVALID_STAG);
    p_free(e.p);

    if (!env_new(&e, RNIC_MW_TYPE_2)) {
        return;
    }
    CHECK_EQ(t_cmd_obj(e.p->b.h, RNIC_CMD_DEALLOC_MW, e.mw), RNIC_STS_OK);
    CHECK_EQ(t_cmd_obj(e.p->b.h, RNIC_CMD_DEREG_MR, B_MR), RNIC_STS_OK);
    a_rdma(&e, RNIC_WR_WRITE, 15, e.win, e.la, 64);
    check_term(&e, RNE_TERM_LAYER_DDP, RNE_DDP_ETYPE_TAGGED,
               RNE_DDP_EC_T_INVALID_STAG);
    p_free(e.p);
}

int main(void)
{
    test_in_range(RNIC_MW_TYPE_1);
    test_in_range(RNIC_MW_TYPE_2);
    test_out_of_range();
    test_read_before_window();
    test_wrong_access();
    test_old_key();
    test_local_inv();
    test_remote_inv();
    test_remote_inv_type1();
    test_unbind_and_dealloc();
    return t_report("test-iw-mw");
}
