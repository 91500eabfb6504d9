/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Offload connection management between two devices: MPA Request/Reply
 * with private data both ways, rev 1 and 2, CRC and markers, the RFC 6581
 * RTR, reject, graceful disconnect and abort, and their CM events.
 */
#include <string.h>
#include "test-iw-pair.h"
#include "iwarp/iw.h"

static void test_accept_pdata(void)
{
    struct pair *p = p_new();
    uint8_t pd[512];
    struct rnic_eqe e;
    uint32_t conn = 0;

    p_make_qp(&p->a, P_QP);
    p_make_qp(&p->b, P_QP);
    CHECK_EQ(p_listen(&p->b, 3, P_PORT), RNIC_STS_OK);
    CHECK_EQ(p_listen(&p->b, 3, P_PORT), RNIC_STS_EXISTS);
    CHECK_EQ(p_connect(p, P_QP, 2, RNIC_MPA_CRC, "hello from A", &conn),
             RNIC_STS_OK);
    p_settle(p, 1000000000ull);
    CHECK(p_cm_event(&p->b, &e, pd));
    CHECK_EQ(e.type, RNIC_EQE_CM);
    CHECK_EQ(e.code, RNIC_CM_CONNECT_REQUEST);
    CHECK_EQ(e.u.cm.listen_id, 3);
    CHECK_EQ(e.u.cm.mpa_rev, 2);
    CHECK_EQ(e.u.cm.mpa_flags, RNIC_MPA_CRC);
    CHECK_EQ(e.u.cm.ird, 4);
    CHECK_EQ(e.u.cm.ord, 4);
    CHECK_EQ(e.u.cm.pdata_len, 12);
    CHECK(!memcmp(pd, "hello from A", 12));
    CHECK(!memcmp(e.u.cm.tuple.local_addr, p->b.ip, 4));
    CHECK(!memcmp(e.u.cm.tuple.remote_addr, p->a.ip, 4));
    CHECK_EQ(e.u.cm.tuple.local_port, P_PORT);
    /* The QP is still IDLE: no CONNECT_REPLY before the accept. */
    CHECK_EQ(p_qp_state(&p->a, P_QP), RNIC_QPS_IDLE);
    CHECK(!p_cm_event(&p->a, &e, NULL));
    CHECK_EQ(p_accept(&p->b, e.obj, 77, 0, NULL), RNIC_STS_NOT_FOUND);
    CHECK_EQ(p_accept(&p->b, e.obj, P_QP, 0, "welcome, A"), RNIC_STS_OK);
    CHECK_EQ(p_accept(&p->b, e.obj, P_QP, 0, NULL), RNIC_STS_BAD_STATE);
    p_settle(p, 1000000000ull);
    CHECK(p_cm_event(&p->b, &e, NULL));
    CHECK_EQ(e.code, RNIC_CM_ESTABLISHED);
    CHECK_EQ(e.u.cm.qpn, P_QP);
    CHECK(p_cm_event(&p->a, &e, pd));
    CHECK_EQ(e.code, RNIC_CM_CONNECT_REPLY);
    CHECK_EQ(e.obj, conn);
    CHECK_EQ(e.u.cm.pdata_len, 10);
    CHECK(!memcmp(pd, "welcome, A", 10));
    CHECK_EQ(e.u.cm.mpa_rev, 2);
    CHECK_EQ(e.u.cm.mpa_flags, RNIC_MPA_CRC);   /* CRC if either asks */
    CHECK_EQ(p_qp_state(&p->a, P_QP), RNIC_QPS_RTS);
    CHECK_EQ(p_qp_state(&p->b, P_QP), RNIC_QPS_RTS);
    p_free(p);
}

static void test_reject(void)
{
    struct pair *p = p_new();
    uint8_t pd[512];
    struct rnic_eqe e;
    uint32_t conn = 0;

    p_make_qp(&p->a, P_QP);
    CHECK_EQ(p_listen(&p->b, 0, P_PORT), RNIC_STS_OK);
    CHECK_EQ(p_connect(p, P_QP, 1, 0, "may I?", &conn), RNIC_STS_OK);
    p_settle(p, 1000000000ull);
    CHECK(p_cm_event(&p->b, &e, pd));
    CHECK_EQ(e.code, RNIC_CM_CONNECT_REQUEST);
    CHECK_EQ(e.u.cm.mpa_rev, 1);
    CHECK(!memcmp(pd, "may I?", 6));
    CHECK_EQ(p_reject(&p->b, e.obj, "no, go away"), RNIC_STS_OK);
    CHECK_EQ(p_reject(&p->b, e.obj, NULL), RNIC_STS_NOT_FOUND);
    p_settle(p, 5000000000ull);
    CHECK(p_cm_event(&p->a, &e, pd));
    CHECK_EQ(e.code, RNIC_CM_REJECTED);
    CHECK_EQ(e.u.cm.pdata_len, 11);
    CHECK(!memcmp(pd, "no, go away", 11));
    CHECK_EQ(p_qp_state(&p->a, P_QP), RNIC_QPS_ERROR);
    CHECK(!p_cm_event(&p->a, &e, NULL));
    CHECK(!p_cm_event(&p->b, &e, NULL));
    p_free(p);
}

/* Rev 1 / 2 x CRC on/off x markers on/off: a Send must get through. */
static void test_variants(void)
{
    static const uint8_t fl[] = { 0, RNIC_MPA_CRC, RNIC_MPA_MARKERS,
                                  RNIC_MPA_CRC | RNIC_MPA_MARKERS };
    unsigned rev, i;

    for (rev = 1; rev <= 2; rev++) {
        for (i = 0; i < sizeof(fl); i++) {
            struct pair *p = p_new();
            struct rnic_rq_wqe r;
            struct rnic_cqe cqe;
            struct rnic_eqe e;
            uint64_t src, dst;
            unsigned k;

            if (!p_connect_pair(p, (uint8_t)rev, fl[i])) {
                fprintf(stderr, "variant rev %u flags %u\n", rev, fl[i]);
                p_free(p);
                continue;
            }
            /* markers are on in both directions when both ask */
            src = h_alloc(p->a.h, 2);
            dst = h_alloc(p->b.h, 2);
            for (k = 0; k < 5000; k++) {
                p->a.h->mem[src + k] = (uint8_t)(k * 7 + rev + i);
            }
            CHECK_EQ(t_reg_mr(p->a.h, 0x100, 0, RNIC_ACCESS_LOCAL_WRITE, src,
                              8192, src), RNIC_STS_OK);
            CHECK_EQ(t_reg_mr(p->b.h, 0x100, 0, RNIC_ACCESS_LOCAL_WRITE, dst,
                              8192, dst), RNIC_STS_OK);
            memset(&r, 0, sizeof(r));
            r.wr_id = 0xbeef;
            r.num_sge = 1;
            t_sge(&r.sge[0], dst, 8192, 0x100);
            t_post_recv(p->b.h, &p->b.qp, &r);
            p_ring_rq(&p->b);
            p_post_send1(&p->a, 0xfeed, src, 5000, 0x100);
            p_ring_sq(&p->a);
            p_settle(p, 1000000000ull);
            CHECK(t_poll_cq(p->b.h, &p->b.cq, &cqe));
            CHECK_EQ(cqe.status, RNIC_WC_SUCCESS);
            CHECK_EQ(cqe.opcode, RNIC_WC_RECV);
            CHECK_EQ(cqe.byte_len, 5000);
            CHECK(!memcmp(p->a.h->mem + src, p->b.h->mem + dst, 5000));
            CHECK(t_poll_cq(p->a.h, &p->a.cq, &cqe));
            CHECK_EQ(cqe.wr_id, 0xfeed);
            CHECK_EQ(cqe.status, RNIC_WC_SUCCESS);
            CHECK(!p_cm_event(&p->a, &e, NULL));
            p_free(p);
        }
    }
}

/* RFC 6581 peer-to-peer: the initiator offers Read and Write RTRs. */
static void test_rtr(void)
{
    static const uint8_t offer[] = { RNIC_MPA_P2P_READ | RNIC_MPA_P2P_WRITE,
                                     RNIC_MPA_P2P_WRITE };
    unsigned i;

    for (i = 0; i < sizeof(offer); i++) {
        struct pair *p = p_new();
        struct rnic_eqe e;
        uint32_t conn;

        p_make_qp(&p->a, P_QP);
        p_make_qp(&p->b, P_QP);
        CHECK_EQ(p_listen(&p->b, 0, P_PORT), RNIC_STS_OK);
        CHECK_EQ(p_connect(p, P_QP, 2, offer[i], NULL, &conn), RNIC_STS_OK);
        p_settle(p, 1000000000ull);
        CHECK(p_cm_event(&p->b, &e, NULL));
        CHECK_EQ(e.u.cm.mpa_flags, offer[i]);
        CHECK_EQ(p_accept(&p->b, e.obj, P_QP, 0, NULL), RNIC_STS_OK);
        p_settle(p, 1000000000ull);
        CHECK(p_cm_event(&p->a, &e, NULL));
        CHECK_EQ(e.code, RNIC_CM_CONNECT_REPLY);
        /* Read preferred when offered */
        CHECK_EQ(e.u.cm.mpa_flags, i == 0 ? RNIC_MPA_P2P_READ :
                                            RNIC_MPA_P2P_WRITE);
        CHECK(p_cm_event(&p->b, &e, NULL));
        CHECK_EQ(e.code, RNIC_CM_ESTABLISHED);
        CHECK_EQ(p_qp_state(&p->b, P_QP), RNIC_QPS_RTS);
        CHECK(!p_cm_event(&p->a, &e, NULL));
        p_free(p);
    }
}

static void test_disconnect(void)
{
    struct pair *p = p_new();
    struct rnic_eqe e;

    if (!p_connect_pair(p, 2, 0)) {
        p_free(p);
        return;
    }
    CHECK_EQ(p_conn_cmd(&p->a, RNIC_CMD_CM_DISCONNECT, 0), RNIC_STS_OK);
    CHECK_EQ(p_qp_state(&p->a, P_QP), RNIC_QPS_CLOSING);
    p_settle(p, 120000000000ull);
    CHECK(p_cm_event(&p->a, &e, NULL));
    CHECK_EQ(e.code, RNIC_CM_CLOSED);
    CHECK(p_cm_event(&p->b, &e, NULL));
    CHECK_EQ(e.code, RNIC_CM_CLOSED);
    CHECK_EQ(p_qp_state(&p->a, P_QP), RNIC_QPS_ERROR);
    CHECK_EQ(p_qp_state(&p->b, P_QP), RNIC_QPS_ERROR);
    CHECK_EQ(p_conn_cmd(&p->a, RNIC_CMD_CM_DISCONNECT, 0),
             RNIC_STS_NOT_FOUND);
    p_free(p);
}

/* The passive side closes; QUERY_QP shows the connection before. */
static void test_passive_close_and_query(void)
{
    struct pair *p = p_new();
    struct rnic_admin_cmd c;
    struct rnic_qp_attr a;
    struct rnic_eqe e;
    uint64_t buf;

    if (!p_connect_pair(p, 2, RNIC_MPA_CRC)) {
        p_free(p);
        return;
    }
    buf = h_alloc(p->a.h, 1);
    c = t_mk(RNIC_CMD_QUERY_QP);
    c.u.query_qp.qpn = P_QP;
    c.u.query_qp.buf_len = sizeof(a);
    c.u.query_qp.buf_addr = buf;
    CHECK_EQ(h_cmd(p->a.h, &c), RNIC_STS_OK);
    memcpy(&a, p->a.h->mem + buf, sizeof(a));
    CHECK_EQ(a.state, RNIC_QPS_RTS);
    CHECK_EQ(a.conn_id, 0);
    CHECK_EQ(a.mpa_rev, 2);
    CHECK_EQ(a.mpa_flags, RNIC_MPA_CRC);
    CHECK_EQ(a.ird, 4);
    CHECK_EQ(a.ord, 4);
    CHECK(!memcmp(a.tuple.remote_addr, p->b.ip, 4));
    CHECK_EQ(a.tuple.remote_port, P_PORT);
    CHECK_EQ(a.tcp.mss, 1460 - 12);    /* timestamps on */
    CHECK(a.tcp.snd_nxt != 0);
    CHECK(p_cm_event(&p->b, &e, NULL) == false);
    /* B's id of the connection: the first slot as well */
    CHECK_EQ(p_conn_cmd(&p->b, RNIC_CMD_CM_DISCONNECT, 0), RNIC_STS_OK);
    p_settle(p, 120000000000ull);
    CHECK(p_cm_event(&p->a, &e, NULL));
    CHECK_EQ(e.code, RNIC_CM_CLOSED);
    CHECK(p_cm_event(&p->b, &e, NULL));
    CHECK_EQ(e.code, RNIC_CM_CLOSED);
    CHECK_EQ(p_qp_state(&p->a, P_QP), RNIC_QPS_ERROR);
    CHECK_EQ(p_qp_state(&p->b, P_QP), RNIC_QPS_ERROR);
    p_free(p);
}

static void test_abort(void)
{
    struct pair *p = p_new();
    struct rnic_eqe e;

    if (!p_connect_pair(p, 2, RNIC_MPA_CRC)) {
        p_free(p);
        return;
    }
    CHECK_EQ(p_conn_cmd(&p->a, RNIC_CMD_CM_ABORT, 0), RNIC_STS_OK);
    CHECK(p_cm_event(&p->a, &e, NULL));
    CHECK_EQ(e.code, RNIC_CM_RESET);
    CHECK_EQ(e.u.cm.status, 103);
    CHECK_EQ(p_qp_state(&p->a, P_QP), RNIC_QPS_ERROR);
    p_settle(p, 1000000000ull);
    CHECK(p_cm_event(&p->b, &e, NULL));
    CHECK_EQ(e.code, RNIC_CM_RESET);
    CHECK_EQ(e.u.cm.status, 104);
    CHECK_EQ(p_qp_state(&p->b, P_QP), RNIC_QPS_ERROR);
    p_free(p);
}

static void set_mtu(struct p_dev *d, uint16_t mtu)
{
    struct rnic_admin_cmd c = t_mk(RNIC_CMD_SET_PORT);

    memcpy(c.u.set_port.mac, d->mac, 6);
    c.u.set_port.mtu = mtu;
    CHECK_EQ(h_cmd(d->h, &c), RNIC_STS_OK);
}

/* SET_PORT MTU after the engines exist applies to the next connection. */
static void test_mtu_change(void)
{
    struct pair *p = p_new();
    struct rnic_admin_cmd c;
    struct rnic_qp_attr a;
    struct rnic_sq_wqe w;
    struct rnic_eqe e;
    uint64_t buf, la, rb;
    uint32_t conn;

    p_make_qp(&p->a, P_QP);
    p_make_qp(&p->b, P_QP);
    CHECK_EQ(p_listen(&p->b, 0, P_PORT), RNIC_STS_OK);
    set_mtu(&p->a, 9000);
    set_mtu(&p->b, 9000);
    CHECK_EQ(p_connect(p, P_QP, 2, 0, NULL, &conn), RNIC_STS_OK);
    p_settle(p, 1000000000ull);
    CHECK(p_cm_event(&p->b, &e, NULL));
    CHECK_EQ(p_accept(&p->b, e.obj, P_QP, 0, NULL), RNIC_STS_OK);
    p_settle(p, 1000000000ull);
    CHECK(p_cm_event(&p->a, &e, NULL));
    CHECK_EQ(e.code, RNIC_CM_CONNECT_REPLY);
    buf = h_alloc(p->a.h, 1);
    c = t_mk(RNIC_CMD_QUERY_QP);
    c.u.query_qp.qpn = P_QP;
    c.u.query_qp.buf_len = sizeof(a);
    c.u.query_qp.buf_addr = buf;
    CHECK_EQ(h_cmd(p->a.h, &c), RNIC_STS_OK);
    memcpy(&a, p->a.h->mem + buf, sizeof(a));
    CHECK_EQ(a.tcp.mss, 9000 - 40 - 12);
    /* jumbo FPDUs carry a 20000-byte Write in 3 frames */
    la = h_alloc(p->a.h, 5);
    rb = h_alloc(p->b.h, 5);
    CHECK_EQ(t_reg_mr(p->a.h, 0x100, 0, RNIC_ACCESS_LOCAL_WRITE, la, 20480,
                      la), RNIC_STS_OK);
    CHECK_EQ(t_reg_mr(p->b.h, 0x100, 0, RNIC_ACCESS_LOCAL_WRITE |
                      RNIC_ACCESS_REMOTE_WRITE, rb, 20480, rb), RNIC_STS_OK);
    memset(p->a.h->mem + la, 0x3c, 20000);
    memset(&w, 0, sizeof(w));
    w.hdr.opcode = RNIC_WR_WRITE;
    w.hdr.count = 1;
    w.op.rdma.remote_addr = rb;
    w.op.rdma.rkey = 0x100;
    t_sge(&w.data.sge[0], la, 20000, 0x100);
    t_post_send(p->a.h, &p->a.qp, &w);
    p_ring_sq(&p->a);
    p_settle(p, 1000000000ull);
    CHECK(!memcmp(p->a.h->mem + la, p->b.h->mem + rb, 20000));
    p_free(p);
}

/* A Reply choosing an RTR we did not offer: Terminate + MPA_ERROR. */
static void test_bad_reply(void)
{
    struct pair *p = p_new();
    struct rnic_eqe e;
    uint32_t conn;

    if (!p_reply_unoffered_rtr(p, &conn)) {
        p_free(p);
        return;
    }
    CHECK(p_cm_event(&p->a, &e, NULL));
    CHECK_EQ(e.code, RNIC_CM_MPA_ERROR);
    CHECK_EQ(p_qp_state(&p->a, P_QP), RNIC_QPS_ERROR);
    /* B got the Terminate while it waited for its own accept */
    CHECK(p_cm_event(&p->b, &e, NULL));
    CHECK_EQ(e.code, RNIC_CM_MPA_ERROR);
    p_free(p);
}

/* Nobody listens: B's guest stack has no L2 ring here, the SYNs go
 * unanswered and TCP gives up. */
static void test_refused_and_bad_commands(void)
{
    struct pair *p = p_new();
    struct rnic_eqe e;
    uint32_t conn;

    p_make_qp(&p->a, P_QP);
    CHECK_EQ(p_connect(p, 99, 2, 0, NULL, &conn), RNIC_STS_NOT_FOUND);
    CHECK_EQ(p_connect(p, P_QP, 3, 0, NULL, &conn), RNIC_STS_BAD_PARAM);
    CHECK_EQ(p_connect(p, P_QP, 2, 0x80, NULL, &conn), RNIC_STS_BAD_PARAM);
    CHECK_EQ(p_listen(&p->b, 1000, P_PORT), RNIC_STS_BAD_INDEX);
    CHECK_EQ(p_conn_cmd(&p->b, RNIC_CMD_CM_DESTROY_LISTEN, 0),
             RNIC_STS_NOT_FOUND);
    CHECK_EQ(p_connect(p, P_QP, 2, 0, NULL, &conn), RNIC_STS_OK);
    p_settle(p, 300000000000ull);
    CHECK(p_cm_event(&p->a, &e, NULL));
    CHECK_EQ(e.code, RNIC_CM_TIMEOUT);
    CHECK_EQ(e.u.cm.status, 110);
    CHECK_EQ(p_qp_state(&p->a, P_QP), RNIC_QPS_ERROR);
    p_free(p);
}

int main(void)
{
    test_accept_pdata();
    test_reject();
    test_variants();
    test_rtr();
    test_disconnect();
    test_abort();
    test_passive_close_and_query();
    test_bad_reply();
    test_mtu_change();
    test_refused_and_bad_commands();
    return t_report("test-iw-cm");
}
