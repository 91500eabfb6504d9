/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The engine's trace events (host.h struct rne_trace) as two devices
 * back to back report them through a recording trace op: a connection and
 * its MPA negotiation, retransmission timeouts, a Terminate both ways, a
 * peer's reject, a Reply we refuse, a fast retransmit, and SYNs that are
 * never answered.
 * Checked: which events come, in which order, with which fields.
 */
#include <string.h>
#include "test-iw-pair.h"
#include "iwarp/iw.h"
#include "wire/net.h"

#define MAX_EV 512

struct rec {
    const char *name;
    struct harness *h;
    struct rne_trace ev[MAX_EV];
    unsigned n, lost;
};

static struct rec rec_a = { .name = "A" }, rec_b = { .name = "B" };
static struct rne_host_ops ops_a, ops_b;

static void print_ev(const struct rec *r, const struct rne_trace *ev)
{
    printf("  %s conn %d qpn %d ", r->name, (int)ev->conn, (int)ev->qpn);
    switch (ev->id) {
    case RNE_TRACE_CONN_STATE:
        printf("conn_state %s -> %s\n",
               rne_trace_conn_state_name(ev->u.state.from),
               rne_trace_conn_state_name(ev->u.state.to));
        break;
    case RNE_TRACE_QP_STATE:
        printf("qp_state %s -> %s\n",
               rne_trace_qp_state_name(ev->u.state.from),
               rne_trace_qp_state_name(ev->u.state.to));
        break;
    case RNE_TRACE_CM_EVENT:
        printf("cm_event %s status %u\n", rne_trace_cm_name(ev->u.cm.code),
               ev->u.cm.status);
        break;
    case RNE_TRACE_MPA:
        printf("mpa result %u code 0x%x %s rev %u crc %u markers %u/%u "
               "ird %u ord %u rtr 0x%x pdata %u\n", ev->u.mpa.result,
               ev->u.mpa.code, ev->u.mpa.active ? "initiator" : "responder",
               ev->u.mpa.rev, ev->u.mpa.crc, ev->u.mpa.markers_tx,
               ev->u.mpa.markers_rx, ev->u.mpa.ird, ev->u.mpa.ord,
               ev->u.mpa.rtr, ev->u.mpa.pd_len);
        break;
    case RNE_TRACE_TERM_TX:
    case RNE_TRACE_TERM_RX:
        printf("term_%s layer %s etype 0x%x code 0x%x queued %u\n",
               ev->id == RNE_TRACE_TERM_TX ? "sent" : "received",
               rne_trace_layer_name(ev->u.term.layer), ev->u.term.etype,
               ev->u.term.code, ev->u.term.queued);
        break;
    case RNE_TRACE_REXMIT:
        printf("rexmit %s seq %u backoff %u rto %u ms\n",
               rne_trace_rexmit_name(ev->u.rexmit.kind), ev->u.rexmit.seq,
               ev->u.rexmit.backoff, ev->u.rexmit.rto_ms);
        break;
    default:
        printf("unknown id %d\n", (int)ev->id);
        CHECK(0);
    }
}

static void record(void *opaque, const struct rne_trace *ev)
{
    struct rec *r = opaque == rec_a.h ? &rec_a : &rec_b;

    CHECK(opaque == r->h);
    /* events come from the engine at work, never from outside it */
    CHECK(r->h->dev.dispatching);
    print_ev(r, ev);
    if (r->n < MAX_EV) {
        r->ev[r->n++] = *ev;
    } else {
        r->lost++;
    }
}

/* Record what both devices of p report from now on. */
static void trace_on(struct pair *p)
{
    ops_a = *p->a.h->dev.host.ops;
    ops_a.trace = record;
    p->a.h->dev.host.ops = &ops_a;
    ops_b = *p->b.h->dev.host.ops;
    ops_b.trace = record;
    p->b.h->dev.host.ops = &ops_b;
    memset(rec_a.ev, 0, sizeof(rec_a.ev));
    memset(rec_b.ev, 0, sizeof(rec_b.ev));
    rec_a.n = rec_b.n = rec_a.lost = rec_b.lost = 0;
    rec_a.h = p->a.h;
    rec_b.h = p->b.h;
}

/*
 * The next event id of r at or after *pos (and, for state events, from ->
 * to); *pos moves past it.  NULL (a failed check) if there is none.
 */
static const struct rne_trace *next(struct rec *r, unsigned *pos,
                                    enum rne_trace_id id, uint32_t from,
                                    uint32_t to, int line)
{
    unsigned i;

    for (i = *pos; i < r->n; i++) {
        const struct rne_trace *ev = &r->ev[i];

        if (ev->id != id) {
            continue;
        }
        if ((id == RNE_TRACE_CONN_STATE || id == RNE_TRACE_QP_STATE) &&
            (ev->u.state.from != from || ev->u.state.to != to)) {
            continue;
        }
        *pos = i + 1;
        return ev;
    }
    fprintf(stderr, "line %d: %s: no event %d (%u -> %u) after #%u\n",
            line, r->name, (int)id, from, to, *pos);
    test_failures++;
    return NULL;
}

#define NEXT(r, pos, id) next(r, pos, id, 0, 0, __LINE__)
#define NEXT_ST(r, pos, id, f, t) next(r, pos, id, f, t, __LINE__)

static void check_no_lost(void)
{
    CHECK_EQ(rec_a.lost, 0);
    CHECK_EQ(rec_b.lost, 0);
}

/* An accepted MPA exchange on one side: the values both sides asked for. */
static void check_mpa_ok(const struct rne_trace *ev, uint32_t conn,
                         bool active)
{
    if (!ev) {
        return;
    }
    CHECK_EQ(ev->conn, conn);
    CHECK_EQ(ev->qpn, P_QP);
    CHECK_EQ(ev->u.mpa.result, RNE_TRACE_MPA_ACCEPTED);
    CHECK_EQ(ev->u.mpa.active, active);
    CHECK_EQ(ev->u.mpa.rev, 2);
    CHECK_EQ(ev->u.mpa.crc, 1);
    CHECK_EQ(ev->u.mpa.markers_tx, 0);
    CHECK_EQ(ev->u.mpa.markers_rx, 0);
    CHECK_EQ(ev->u.mpa.ird, 4);
    CHECK_EQ(ev->u.mpa.ord, 4);
    CHECK_EQ(ev->u.mpa.rtr, 0);
    CHECK_EQ(ev->u.mpa.pd_len, 0);
}

static void check_cm(const struct rne_trace *ev, uint32_t conn, uint8_t code,
                     uint16_t status)
{
    if (ev) {
        CHECK_EQ(ev->conn, conn);
        CHECK_EQ(ev->u.cm.code, code);
        CHECK_EQ(ev->u.cm.status, status);
    }
}

static void check_term(const struct rne_trace *ev, uint32_t conn,
                       uint8_t layer, uint8_t etype, uint8_t code)
{
    if (ev) {
        CHECK_EQ(ev->conn, conn);
        CHECK_EQ(ev->u.term.layer, layer);
        CHECK_EQ(ev->u.term.etype, etype);
        CHECK_EQ(ev->u.term.code, code);
        CHECK(ev->u.term.queued);
    }
}

/*
 * Connect (MPA rev 2, CRC), then a Send while A's frames are lost: A's
 * RTO fires and backs off; once the wire works the Send arrives at B,
 * which has no receive posted: B sends a Terminate, A receives it, both
 * QPs go TERMINATE -> ERROR and the connections close.
 */
static void test_connect_rto_terminate(void)
{
    struct pair *p = p_new();
    const struct rne_trace *ev, *rto1, *rto2;
    unsigned pa = 0, pb = 0;
    uint32_t ca, cb, seq;
    struct rne_iw_conn *ic;
    struct rne_tcp_info ti;
    uint64_t src;

    printf("connect, RTO, Terminate:\n");
    trace_on(p);
    if (!p_connect_pair(p, 2, RNIC_MPA_CRC)) {
        p_free(p);
        return;
    }
    /* A, the initiator */
    ev = NEXT_ST(&rec_a, &pa, RNE_TRACE_CONN_STATE, RNE_TRACE_NONE,
                 IWC_SYN_SENT);
    ca = ev ? ev->conn : 0;
    ev = NEXT_ST(&rec_a, &pa, RNE_TRACE_CONN_STATE, IWC_SYN_SENT,
                 IWC_REP_WAIT);
    CHECK(ev && ev->conn == ca && ev->qpn == P_QP);
    check_mpa_ok(NEXT(&rec_a, &pa, RNE_TRACE_MPA), ca, true);
    NEXT_ST(&rec_a, &pa, RNE_TRACE_CONN_STATE, IWC_REP_WAIT, IWC_RTS);
    ev = NEXT_ST(&rec_a, &pa, RNE_TRACE_QP_STATE, RNIC_QPS_IDLE,
                 RNIC_QPS_RTS);
    CHECK(ev && ev->qpn == P_QP);
    check_cm(NEXT(&rec_a, &pa, RNE_TRACE_CM_EVENT), ca,
             RNIC_CM_CONNECT_REPLY, 0);
    /* B, the responder */
    ev = NEXT_ST(&rec_b, &pb, RNE_TRACE_CONN_STATE, RNE_TRACE_NONE,
                 IWC_REQ_WAIT);
    cb = ev ? ev->conn : 0;
    CHECK(ev && ev->qpn == RNE_TRACE_NONE);
    NEXT_ST(&rec_b, &pb, RNE_TRACE_CONN_STATE, IWC_REQ_WAIT,
            IWC_ACCEPT_WAIT);
    check_cm(NEXT(&rec_b, &pb, RNE_TRACE_CM_EVENT), cb,
             RNIC_CM_CONNECT_REQUEST, 0);
    check_mpa_ok(NEXT(&rec_b, &pb, RNE_TRACE_MPA), cb, false);
    NEXT_ST(&rec_b, &pb, RNE_TRACE_CONN_STATE, IWC_ACCEPT_WAIT, IWC_RTS);
    NEXT_ST(&rec_b, &pb, RNE_TRACE_QP_STATE, RNIC_QPS_IDLE, RNIC_QPS_RTS);
    check_cm(NEXT(&rec_b, &pb, RNE_TRACE_CM_EVENT), cb,
             RNIC_CM_ESTABLISHED, 0);
    CHECK_EQ(pa, rec_a.n);  /* nothing else happened */
    CHECK_EQ(pb, rec_b.n);

    /* A Send whose segments are lost: the first sequence number it uses */
    ic = rne_iw_conn_find(&p->a.h->dev, ca);
    CHECK(ic && ic->tc);
    if (!ic || !ic->tc) {
        p_free(p);
        return;
    }
    rne_tcp_get_info(ic->tc, &ti);
    seq = ti.snd_nxt;
    src = h_alloc(p->a.h, 1);
    CHECK_EQ(t_reg_mr(p->a.h, 0x100, 0, RNIC_ACCESS_LOCAL_WRITE, src, 4096,
                      src), RNIC_STS_OK);
    p->a.mute = true;
    p_post_send1(&p->a, 31, src, 1000, 0x100);
    p_ring_sq(&p->a);
    p_settle(p, 700000000ull);     /* RTO 200 ms, then 400 ms */
    rto1 = NEXT(&rec_a, &pa, RNE_TRACE_REXMIT);
    rto2 = NEXT(&rec_a, &pa, RNE_TRACE_REXMIT);
    if (rto1 && rto2) {
        CHECK_EQ(rto1->conn, ca);
        CHECK_EQ(rto1->qpn, P_QP);
        CHECK_EQ(rto1->u.rexmit.kind, RNE_TRACE_REXMIT_RTO);
        CHECK_EQ(rto1->u.rexmit.seq, seq);
        CHECK_EQ(rto1->u.rexmit.backoff, 1);
        CHECK_EQ(rto1->u.rexmit.rto_ms, 400);   /* rto_min 200, doubled */
        CHECK_EQ(rto2->u.rexmit.kind, RNE_TRACE_REXMIT_RTO);
        CHECK_EQ(rto2->u.rexmit.seq, seq);
        CHECK_EQ(rto2->u.rexmit.backoff, 2);
        CHECK_EQ(rto2->u.rexmit.rto_ms, 2 * rto1->u.rexmit.rto_ms);
    }
    CHECK_EQ(pb, rec_b.n);  /* B heard nothing */

    /* The wire works again: the next RTO delivers the Send to B */
    p->a.mute = false;
    p_settle(p, 2000000000ull);
    ev = NEXT(&rec_a, &pa, RNE_TRACE_REXMIT);
    CHECK(ev && ev->u.rexmit.backoff == 3 && ev->u.rexmit.seq == seq);
    /* B: no receive posted -> DDP untagged "no buffer" Terminate */
    check_term(NEXT(&rec_b, &pb, RNE_TRACE_TERM_TX), cb,
               RNE_TERM_LAYER_DDP, RNE_DDP_ETYPE_UNTAGGED,
               RNE_DDP_EC_U_INVALID_MSN_NOBUF);
    NEXT_ST(&rec_b, &pb, RNE_TRACE_QP_STATE, RNIC_QPS_RTS,
            RNIC_QPS_TERMINATE);
    NEXT_ST(&rec_b, &pb, RNE_TRACE_CONN_STATE, IWC_RTS, IWC_CLOSING);
    NEXT_ST(&rec_b, &pb, RNE_TRACE_QP_STATE, RNIC_QPS_TERMINATE,
            RNIC_QPS_ERROR);
    /* A: the same Terminate received */
    check_term(NEXT(&rec_a, &pa, RNE_TRACE_TERM_RX), ca,
               RNE_TERM_LAYER_DDP, RNE_DDP_ETYPE_UNTAGGED,
               RNE_DDP_EC_U_INVALID_MSN_NOBUF);
    NEXT_ST(&rec_a, &pa, RNE_TRACE_QP_STATE, RNIC_QPS_RTS,
            RNIC_QPS_TERMINATE);
    NEXT_ST(&rec_a, &pa, RNE_TRACE_CONN_STATE, IWC_RTS, IWC_CLOSING);
    NEXT_ST(&rec_a, &pa, RNE_TRACE_QP_STATE, RNIC_QPS_TERMINATE,
            RNIC_QPS_ERROR);
    /* both FINs: CLOSED to each driver */
    check_cm(NEXT(&rec_a, &pa, RNE_TRACE_CM_EVENT), ca, RNIC_CM_CLOSED, 0);
    check_cm(NEXT(&rec_b, &pb, RNE_TRACE_CM_EVENT), cb, RNIC_CM_CLOSED, 0);
    CHECK_EQ(p_qp_state(&p->a, P_QP), RNIC_QPS_ERROR);
    CHECK_EQ(p_qp_state(&p->b, P_QP), RNIC_QPS_ERROR);
    check_no_lost();
    p_free(p);
}

/* B rejects with private data; then a Reply that A must refuse. */
static void test_reject_and_refuse(void)
{
    struct pair *p = p_new();
    const struct rne_trace *ev;
    unsigned pa = 0, pb = 0;
    struct rnic_eqe e;
    uint32_t conn;

    printf("reject, refused Reply:\n");
    trace_on(p);
    p_make_qp(&p->a, P_QP);
    CHECK_EQ(p_listen(&p->b, 0, P_PORT), RNIC_STS_OK);
    CHECK_EQ(p_connect(p, P_QP, 2, 0, NULL, &conn), RNIC_STS_OK);
    p_settle(p, 1000000000ull);
    CHECK(p_cm_event(&p->b, &e, NULL));
    CHECK_EQ(p_reject(&p->b, e.obj, "busy"), RNIC_STS_OK);
    p_settle(p, 1000000000ull);
    ev = NEXT(&rec_a, &pa, RNE_TRACE_MPA);
    if (ev) {
        CHECK_EQ(ev->conn, conn);
        CHECK_EQ(ev->u.mpa.result, RNE_TRACE_MPA_REJECTED);
        CHECK_EQ(ev->u.mpa.rev, 2);
        CHECK_EQ(ev->u.mpa.pd_len, 4);
    }
    check_cm(NEXT(&rec_a, &pa, RNE_TRACE_CM_EVENT), conn, RNIC_CM_REJECTED,
             RNE_IW_ST_ECONNREFUSED);
    NEXT_ST(&rec_a, &pa, RNE_TRACE_QP_STATE, RNIC_QPS_IDLE, RNIC_QPS_ERROR);
    NEXT_ST(&rec_a, &pa, RNE_TRACE_CONN_STATE, IWC_REP_WAIT, IWC_LINGER);
    NEXT_ST(&rec_b, &pb, RNE_TRACE_CONN_STATE, IWC_ACCEPT_WAIT, IWC_LINGER);
    check_no_lost();
    p_free(p);

    /* A offers only a Read RTR; the Reply (written by hand) picks Write */
    p = p_new();
    trace_on(p);
    pa = 0;
    if (!p_reply_unoffered_rtr(p, &conn)) {
        p_free(p);
        return;
    }
    ev = NEXT(&rec_a, &pa, RNE_TRACE_MPA);
    if (ev) {
        CHECK_EQ(ev->conn, conn);
        CHECK_EQ(ev->u.mpa.result, RNE_TRACE_MPA_REFUSED);
        CHECK_EQ(ev->u.mpa.code, RNE_MPA_EC_NO_MATCHING_RTR);
        CHECK_EQ(ev->u.mpa.rev, 2);
    }
    check_term(NEXT(&rec_a, &pa, RNE_TRACE_TERM_TX), conn,
               RNE_TERM_LAYER_LLP, RNE_LLP_ETYPE_MPA,
               RNE_MPA_EC_NO_MATCHING_RTR);
    check_cm(NEXT(&rec_a, &pa, RNE_TRACE_CM_EVENT), conn,
             RNIC_CM_MPA_ERROR, RNE_IW_ST_EPROTO);
    NEXT_ST(&rec_a, &pa, RNE_TRACE_CONN_STATE, IWC_REP_WAIT, IWC_LINGER);
    check_no_lost();
    p_free(p);
}

/*
 * Take the first frame with TCP payload off w (lost on the wire); returns
 * its sequence number, 0 if there was none.
 */
static uint32_t drop_first_data(struct p_wire *w)
{
    unsigned i;

    for (i = 0; i < w->n; i++) {
        const uint8_t *f = w->q[i].data;
        size_t ihl, thl;
        uint32_t seq;

        if (w->q[i].len < 54 || f[12] != 0x08 || f[13] != 0x00 ||
            f[23] != 6) {
            continue;
        }
        ihl = (size_t)(f[14] & 0xf) * 4;
        thl = (size_t)(f[14 + ihl + 12] >> 4) * 4;
        if (rne_ld_be16(f + 16) <= ihl + thl) {
            continue;
        }
        seq = rne_ld_be32(f + 14 + ihl + 4);
        free(w->q[i].data);
        memmove(&w->q[i], &w->q[i + 1], (w->n - i - 1) * sizeof(w->q[0]));
        w->n--;
        return seq;
    }
    return 0;
}

/* One RDMA Write of len octets from A's MR 0x100 to B's MR 0x200. */
static void write_ab(struct pair *p, uint64_t wr_id, uint64_t src,
                     uint64_t dst, uint32_t len)
{
    struct rnic_sq_wqe w;

    memset(&w, 0, sizeof(w));
    w.hdr.wr_id = wr_id;
    w.hdr.opcode = RNIC_WR_WRITE;
    w.hdr.flags = RNIC_WQE_SIGNALED;
    w.hdr.count = 1;
    w.op.rdma.remote_addr = dst;
    w.op.rdma.rkey = 0x200;
    t_sge(&w.data.sge[0], src, len, 0x100);
    t_post_send(p->a.h, &p->a.qp, &w);
    p_ring_sq(&p->a);
    h_run(p->a.h);
}

/*
 * A segment lost in the middle of a large window: the later ones draw
 * duplicate ACKs (SACK) and A retransmits the lost one at once.
 */
static void test_fast_rexmit(void)
{
    const uint32_t len = 256 * 1024;
    struct pair *p = p_new();
    const struct rne_trace *ev;
    uint64_t src, dst;
    unsigned pa, i;
    uint32_t lost;

    printf("fast retransmit:\n");
    if (!p_connect_pair(p, 2, RNIC_MPA_CRC)) {
        p_free(p);
        return;
    }
    src = h_alloc(p->a.h, len / 4096);
    dst = h_alloc(p->b.h, len / 4096);
    for (i = 0; i < len; i++) {
        p->a.h->mem[src + i] = (uint8_t)(i * 131 + (i >> 9));
    }
    CHECK_EQ(t_reg_mr(p->a.h, 0x100, 0, RNIC_ACCESS_LOCAL_WRITE, src, len,
                      src), RNIC_STS_OK);
    CHECK_EQ(t_reg_mr(p->b.h, 0x200, 0, RNIC_ACCESS_LOCAL_WRITE |
                      RNIC_ACCESS_REMOTE_WRITE, dst, len, dst), RNIC_STS_OK);
    /* open the congestion window first */
    write_ab(p, 1, src, dst, len);
    p_settle(p, 1000000000ull);
    memset(p->b.h->mem + dst, 0, len);
    trace_on(p);
    pa = 0;
    write_ab(p, 2, src, dst, len);
    lost = drop_first_data(&p->a.out);
    CHECK(lost != 0);
    CHECK(p->a.out.n >= 3);     /* enough behind it for three dup ACKs */
    p_settle(p, 1000000000ull);
    ev = NEXT(&rec_a, &pa, RNE_TRACE_REXMIT);
    if (ev) {
        CHECK_EQ(ev->u.rexmit.kind, RNE_TRACE_REXMIT_FAST);
        CHECK_EQ(ev->u.rexmit.seq, lost);
        CHECK_EQ(ev->u.rexmit.backoff, 0);
        CHECK_EQ(ev->qpn, P_QP);
    }
    /* recovered without a timeout: no other retransmission event */
    for (i = pa; i < rec_a.n; i++) {
        CHECK(rec_a.ev[i].id != RNE_TRACE_REXMIT);
    }
    CHECK(!memcmp(p->a.h->mem + src, p->b.h->mem + dst, len));
    check_no_lost();
    p_free(p);
}

/* Nobody answers A's SYNs: they back off, then the connection gives up. */
static void test_syn_giveup(void)
{
    struct pair *p = p_new();
    const struct rne_trace *ev;
    uint32_t conn, prev_rto = 0;
    unsigned pa = 0, i;

    printf("SYN retries:\n");
    trace_on(p);
    p_make_qp(&p->a, P_QP);
    p->b.mute = true;
    CHECK_EQ(p_connect(p, P_QP, 2, 0, NULL, &conn), RNIC_STS_OK);
    p_settle(p, 200 * 1000000000ull);
    for (i = 1; i <= 6; i++) {
        ev = NEXT(&rec_a, &pa, RNE_TRACE_REXMIT);
        if (!ev) {
            break;
        }
        CHECK_EQ(ev->conn, conn);
        CHECK_EQ(ev->u.rexmit.kind, RNE_TRACE_REXMIT_SYN);
        CHECK_EQ(ev->u.rexmit.backoff, i);
        CHECK(ev->u.rexmit.rto_ms > prev_rto ||
              ev->u.rexmit.rto_ms == 60000);
        prev_rto = ev->u.rexmit.rto_ms;
    }
    ev = NEXT(&rec_a, &pa, RNE_TRACE_REXMIT);
    CHECK(ev && ev->u.rexmit.kind == RNE_TRACE_REXMIT_GIVEUP &&
          ev->u.rexmit.backoff == 7);
    NEXT_ST(&rec_a, &pa, RNE_TRACE_QP_STATE, RNIC_QPS_IDLE, RNIC_QPS_ERROR);
    check_cm(NEXT(&rec_a, &pa, RNE_TRACE_CM_EVENT), conn, RNIC_CM_TIMEOUT,
             RNE_IW_ST_ETIMEDOUT);
    NEXT_ST(&rec_a, &pa, RNE_TRACE_CONN_STATE, IWC_SYN_SENT,
            RNE_TRACE_NONE);
    check_no_lost();
    p_free(p);
}

int main(void)
{
    test_connect_rto_terminate();
    test_reject_and_refuse();
    test_fast_rexmit();
    test_syn_giveup();
    return t_report("test-iw-trace");
}
