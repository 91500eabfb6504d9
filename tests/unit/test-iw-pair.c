/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Two devices back to back for the iWARP engine tests (test-iw-pair.h).
 */
#include <string.h>
#include "test-iw-pair.h"
#include "iwarp/iw.h"
#include "wire/mpa.h"
#include "wire/net.h"

static void wire_push(struct p_wire *w, const void *f, size_t len)
{
    if (w->n == w->cap) {
        w->cap = w->cap ? w->cap * 2 : 64;
        w->q = realloc(w->q, w->cap * sizeof(*w->q));
        if (!w->q) {
            abort();
        }
    }
    w->q[w->n].data = malloc(len);
    if (!w->q[w->n].data) {
        abort();
    }
    memcpy(w->q[w->n].data, f, len);
    w->q[w->n].len = len;
    w->n++;
}

/* Flip one ULPDU byte and fix the TCP checksum: only MPA's CRC sees it. */
static bool corrupt(uint8_t *f, size_t len)
{
    size_t ihl, thl, plen;
    uint16_t iplen;
    uint32_t sum;
    uint8_t *tcp;

    if (len < 54 || f[12] != 0x08 || f[13] != 0x00 || f[23] != 6) {
        return false;
    }
    ihl = (size_t)(f[14] & 0xf) * 4;
    iplen = rne_ld_be16(f + 16);
    tcp = f + 14 + ihl;
    thl = (size_t)(tcp[12] >> 4) * 4;
    plen = iplen - ihl - thl;
    if (plen < 16) {
        return false;
    }
    tcp[thl + 8] ^= 0x5a;
    tcp[16] = tcp[17] = 0;
    sum = rne_csum_pseudo4(f + 26, f + 30, 6, (uint16_t)(iplen - ihl));
    sum = rne_csum_add(sum, tcp, iplen - ihl);
    rne_st_be16(tcp + 16, rne_csum_fold(sum));
    return true;
}

static void on_frame(void *ctx, const void *frame, size_t len)
{
    struct p_dev *d = ctx;

    if (d->mute) {
        return;
    }
    wire_push(&d->out, frame, len);
    if (d->corrupt_next &&
        corrupt(d->out.q[d->out.n - 1].data, d->out.q[d->out.n - 1].len)) {
        d->corrupt_next = false;
        d->corrupted++;
    }
}

void p_dev_enable(struct p_dev *d)
{
    struct rnic_admin_cmd c;
    uint64_t ring;

    memset(&d->async, 0, sizeof(d->async));
    memset(&d->comp, 0, sizeof(d->comp));
    memset(&d->cm, 0, sizeof(d->cm));
    memset(&d->cq, 0, sizeof(d->cq));
    memset(&d->qp, 0, sizeof(d->qp));
    if (!h_enable(d->h, 5, 5)) {
        abort();
    }
    d->async.eqn = T_ASYNC_EQ;
    d->async.depth = 64;
    d->async.ring = h_create_eq(d->h, T_ASYNC_EQ, 6, RNIC_EQ_F_ASYNC);
    d->comp.eqn = T_COMP_EQ;
    d->comp.depth = 64;
    d->comp.ring = h_create_eq(d->h, T_COMP_EQ, 6, 0);
    h_run(d->h);
    t_drain_eq(d->h, &d->async, 0);
    CHECK_EQ(t_create_pd(d->h, 0, 0), RNIC_STS_OK);
    /* CM EQ: 64 entries and 64 private-data slots of 512 bytes */
    ring = h_alloc(d->h, 1);
    d->cm_pdata = h_alloc(d->h, 8);
    c = t_mk(RNIC_CMD_CREATE_EQ);
    c.u.create_eq.eqn = P_CM_EQ;
    c.u.create_eq.log_depth = 6;
    c.u.create_eq.flags = RNIC_EQ_F_CM;
    h_pbl(d->h, &c.u.create_eq.ring, ring, 1);
    h_pbl(d->h, &c.u.create_eq.pdata, d->cm_pdata, 8);
    CHECK_EQ(h_cmd(d->h, &c), RNIC_STS_OK);
    d->cm.eqn = P_CM_EQ;
    d->cm.depth = 64;
    d->cm.ring = ring;
    CHECK_EQ(t_create_cq(d->h, &d->cq, P_CQ, 0, 8), RNIC_STS_OK);
}

static void dev_setup(struct p_dev *d, uint8_t last)
{
    struct rne_dev_config cfg;

    rne_dev_config_default(&cfg);
    cfg.mac[5] = last;
    memcpy(d->mac, cfg.mac, 6);
    d->ip[0] = 10;
    d->ip[1] = 0;
    d->ip[2] = 0;
    d->ip[3] = last;
    d->h = h_new(&cfg);
    d->h->on_frame = on_frame;
    d->h->on_frame_ctx = d;
    p_dev_enable(d);
}

struct pair *p_new(void)
{
    struct pair *p = calloc(1, sizeof(*p));

    if (!p) {
        abort();
    }
    dev_setup(&p->a, 0x0a);
    dev_setup(&p->b, 0x0b);
    return p;
}

static void wire_free(struct p_wire *w)
{
    unsigned i;

    for (i = 0; i < w->n; i++) {
        free(w->q[i].data);
    }
    free(w->q);
}

void p_free(struct pair *p)
{
    h_free(p->a.h);
    h_free(p->b.h);
    wire_free(&p->a.out);
    wire_free(&p->b.out);
    free(p);
}

/* Deliver what src sent to dst; false if there was nothing. */
static bool deliver(struct p_dev *src, struct p_dev *dst)
{
    struct p_wire w = src->out;
    unsigned i;

    if (!w.n) {
        return false;
    }
    memset(&src->out, 0, sizeof(src->out));
    for (i = 0; i < w.n; i++) {
        rne_dev_receive(&dst->h->dev, w.q[i].data, w.q[i].len);
        h_run(dst->h);
        free(w.q[i].data);
    }
    free(w.q);
    return true;
}

void p_settle(struct pair *p, uint64_t max_ns)
{
    uint64_t end = p->now + max_ns;
    unsigned guard;

    for (guard = 0; guard < 200000; guard++) {
        bool moved = deliver(&p->a, &p->b);
        uint64_t t;

        moved |= deliver(&p->b, &p->a);
        if (moved) {
            continue;
        }
        t = p->a.h->timer_deadline < p->b.h->timer_deadline ?
            p->a.h->timer_deadline : p->b.h->timer_deadline;
        if (t > end) {
            return;
        }
        if (t > p->now) {
            p->now = t;
        }
        p->a.h->now_ns = p->b.h->now_ns = p->now;
        if (p->a.h->timer_deadline <= p->now) {
            rne_dev_timer(&p->a.h->dev);
            h_run(p->a.h);
        }
        if (p->b.h->timer_deadline <= p->now) {
            rne_dev_timer(&p->b.h->dev);
            h_run(p->b.h);
        }
    }
}

void p_make_qp(struct p_dev *d, uint32_t qpn)
{
    struct rnic_admin_cmd c;

    CHECK_EQ(t_create_qp(d->h, &d->qp, qpn, 0, P_CQ, P_CQ, 6, 6),
             RNIC_STS_OK);
    c = t_mk(RNIC_CMD_MODIFY_QP);
    c.u.modify_qp.qpn = qpn;
    c.u.modify_qp.attr_mask = RNIC_QP_ATTR_ACCESS;
    c.u.modify_qp.access = RNIC_ACCESS_REMOTE_WRITE | RNIC_ACCESS_REMOTE_READ |
                           RNIC_ACCESS_REMOTE_ATOMIC;
    CHECK_EQ(h_cmd(d->h, &c), RNIC_STS_OK);
}

unsigned p_listen(struct p_dev *d, uint32_t id, uint16_t port)
{
    struct rnic_admin_cmd c = t_mk(RNIC_CMD_CM_LISTEN);

    c.u.cm_listen.listen_id = id;
    c.u.cm_listen.backlog = 8;
    c.u.cm_listen.family = RNIC_AF_IPV4;
    c.u.cm_listen.port = port;
    memcpy(c.u.cm_listen.addr, d->ip, 4);
    return h_cmd(d->h, &c);
}

static uint64_t put_pdata(struct harness *h, const char *pdata, uint16_t *len)
{
    uint64_t a;

    *len = pdata ? (uint16_t)strlen(pdata) : 0;
    if (!*len) {
        return 0;
    }
    a = h_alloc(h, 1);
    memcpy(h->mem + a, pdata, *len);
    return a;
}

unsigned p_connect(struct pair *p, uint32_t qpn, uint8_t rev, uint8_t flags,
                   const char *pdata, uint32_t *conn)
{
    return p_connect_port(p, qpn, P_PORT, rev, flags, pdata, conn);
}

unsigned p_connect_port(struct pair *p, uint32_t qpn, uint16_t port,
                        uint8_t rev, uint8_t flags, const char *pdata,
                        uint32_t *conn)
{
    struct rnic_admin_cmd c = t_mk(RNIC_CMD_CM_CONNECT);
    struct rnic_cmd_cm_connect *k = &c.u.cm_connect;
    struct rnic_admin_cqe cqe;
    unsigned sts;

    k->qpn = qpn;
    k->tuple.family = RNIC_AF_IPV4;
    memcpy(k->tuple.local_addr, p->a.ip, 4);
    memcpy(k->tuple.remote_addr, p->b.ip, 4);
    k->tuple.remote_port = port;
    memcpy(k->next_hop_mac, p->b.mac, 6);
    k->ird = 4;
    k->ord = 4;
    k->mpa_rev = rev;
    k->mpa_flags = flags;
    k->pdata_addr = put_pdata(p->a.h, pdata, &k->pdata_len);
    h_post(p->a.h, &c);
    h_ring_admin(p->a.h);
    h_run(p->a.h);
    if (!h_poll(p->a.h, &cqe)) {
        return 0xff;
    }
    CHECK_EQ(cqe.tag, p->a.h->next_tag);
    CHECK_EQ(cqe.opcode, RNIC_CMD_CM_CONNECT);
    sts = cqe.status;
    *conn = cqe.result0;
    return sts;
}

unsigned p_accept(struct p_dev *d, uint32_t conn, uint32_t qpn, uint8_t flags,
                  const char *pdata)
{
    struct rnic_admin_cmd c = t_mk(RNIC_CMD_CM_ACCEPT);

    c.u.cm_accept.conn_id = conn;
    c.u.cm_accept.qpn = qpn;
    c.u.cm_accept.ird = 4;
    c.u.cm_accept.ord = 4;
    c.u.cm_accept.mpa_flags = flags;
    c.u.cm_accept.pdata_addr = put_pdata(d->h, pdata,
                                         &c.u.cm_accept.pdata_len);
    return h_cmd(d->h, &c);
}

unsigned p_reject(struct p_dev *d, uint32_t conn, const char *pdata)
{
    struct rnic_admin_cmd c = t_mk(RNIC_CMD_CM_REJECT);

    c.u.cm_reject.conn_id = conn;
    c.u.cm_reject.pdata_addr = put_pdata(d->h, pdata,
                                         &c.u.cm_reject.pdata_len);
    return h_cmd(d->h, &c);
}

unsigned p_conn_cmd(struct p_dev *d, uint8_t opcode, uint32_t conn)
{
    return t_cmd_obj(d->h, opcode, conn);
}

bool p_cm_event(struct p_dev *d, struct rnic_eqe *e, uint8_t *pd)
{
    uint32_t slot = d->cm.cons & (d->cm.depth - 1);

    if (!t_poll_eq(d->h, &d->cm, e)) {
        return false;
    }
    if (pd) {
        memcpy(pd, d->h->mem + d->cm_pdata + (uint64_t)slot * 512, 512);
    }
    return true;
}

bool p_connect_pair(struct pair *p, uint8_t rev, uint8_t flags)
{
    p_make_qp(&p->a, P_QP);
    p_make_qp(&p->b, P_QP);
    return p_connect_made(p, rev, flags);
}

bool p_connect_made(struct pair *p, uint8_t rev, uint8_t flags)
{
    struct rnic_eqe e;
    uint32_t conn = 0;
    bool ok = true;

    ok &= p_listen(&p->b, 0, P_PORT) == RNIC_STS_OK;
    ok &= p_connect(p, P_QP, rev, flags, NULL, &conn) == RNIC_STS_OK;
    p_settle(p, 1000000000ull);
    ok &= p_cm_event(&p->b, &e, NULL) && e.code == RNIC_CM_CONNECT_REQUEST;
    ok &= p_accept(&p->b, e.obj, P_QP, flags, NULL) == RNIC_STS_OK;
    p_settle(p, 1000000000ull);
    ok &= p_cm_event(&p->a, &e, NULL) && e.code == RNIC_CM_CONNECT_REPLY;
    ok &= p_cm_event(&p->b, &e, NULL) && e.code == RNIC_CM_ESTABLISHED;
    ok &= p_qp_state(&p->a, P_QP) == RNIC_QPS_RTS;
    ok &= p_qp_state(&p->b, P_QP) == RNIC_QPS_RTS;
    CHECK(ok);
    return ok;
}

/*
 * A connects offering only a Read RTR; B's Reply, written by hand into
 * B's TCP, picks a Write RTR A did not offer.  conn: A's connection.
 * false if B never saw the request.
 */
bool p_reply_unoffered_rtr(struct pair *p, uint32_t *conn)
{
    uint8_t buf[RNE_MPA_RR_MAX];
    struct rne_iw_conn *bc;
    struct rne_mpa_rr rep;
    struct rnic_eqe e;
    int n;

    p_make_qp(&p->a, P_QP);
    CHECK_EQ(p_listen(&p->b, 0, P_PORT), RNIC_STS_OK);
    CHECK_EQ(p_connect(p, P_QP, 2, RNIC_MPA_P2P_READ, NULL, conn),
             RNIC_STS_OK);
    p_settle(p, 1000000000ull);
    CHECK(p_cm_event(&p->b, &e, NULL));
    bc = rne_iw_conn_find(&p->b.h->dev, e.obj);
    CHECK(bc && bc->tc);
    if (!bc || !bc->tc) {
        return false;
    }
    memset(&rep, 0, sizeof(rep));
    rep.reply = true;
    rep.rev = 2;
    rep.enhanced = true;
    rep.p2p = true;
    rep.rtr = RNE_MPA_RTR_WRITE;
    rep.ird = rep.ord = 1;
    n = rne_mpa_rr_encode(&rep, buf, sizeof(buf));
    CHECK(n > 0);
    /* engine code runs inside the device's dispatch (its frames too) */
    CHECK(rne_dev_dispatch_begin(&p->b.h->dev));
    CHECK_EQ(rne_tcp_send(bc->tc, buf, (size_t)n, p->now), RNE_TCP_OK);
    rne_dev_dispatch_end(&p->b.h->dev);
    p_settle(p, 1000000000ull);
    return true;
}

void p_post_send1(struct p_dev *d, uint64_t wr_id, uint64_t addr,
                  uint32_t len, uint32_t lkey)
{
    struct rnic_sq_wqe w;

    memset(&w, 0, sizeof(w));
    w.hdr.wr_id = wr_id;
    w.hdr.opcode = RNIC_WR_SEND;
    w.hdr.flags = RNIC_WQE_SIGNALED;
    w.hdr.count = 1;
    t_sge(&w.data.sge[0], addr, len, lkey);
    t_post_send(d->h, &d->qp, &w);
}

void p_ring_sq(struct p_dev *d)
{
    h_doorbell(d->h, RNIC_DB_SQ, d->qp.qpn, 0, d->qp.sq_prod);
}

void p_ring_rq(struct p_dev *d)
{
    h_doorbell(d->h, RNIC_DB_RQ, d->qp.qpn, 0, d->qp.rq_prod);
}

uint8_t p_qp_state(struct p_dev *d, uint32_t qpn)
{
    struct rne_qp *qp = rne_qp_get(&d->h->dev, qpn);

    return qp ? qp->state : 0xff;
}
