/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Offload engines only for addresses the guest owns (issue 17, finding 2).
 * Device B's guest has announced its address (a gratuitous ARP through its
 * L2 TX ring, as any IP stack does) and listens on 0.0.0.0.  A peer sends
 * SYNs to B's MAC and the listener's port but to 12 made-up destination
 * IPs: B must not answer them nor create TCP engines (8 at most), and
 * CM_CONNECT from A to B's real address must still work.  An engine whose
 * address has no connection left is reclaimed: nine addresses the guest
 * announces in turn each get a connection, one after the other.
 */
#include <string.h>
#include "test-iw-pair.h"
#include "iwarp/iw.h"
#include "wire/net.h"

#define MADE_UP     12

static uint64_t tx_ring, tx_buf;
static uint32_t tx_pidx;

/* B's guest announces an IPv4 address through the L2 TX ring. */
static void announce(struct p_dev *d, const uint8_t *ip)
{
    static const uint8_t bcast[6] = { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff };
    struct rnic_l2_tx_desc desc;
    uint8_t *f;

    if (!tx_pidx) {
        struct rnic_admin_cmd c = t_mk(RNIC_CMD_CREATE_TXQ);

        tx_ring = h_alloc(d->h, 1);
        tx_buf = h_alloc(d->h, 1);
        c.u.create_l2q.eqn = T_COMP_EQ;
        c.u.create_l2q.log_depth = 6;
        h_pbl(d->h, &c.u.create_l2q.ring, tx_ring, 1);
        CHECK_EQ(h_cmd(d->h, &c), RNIC_STS_OK);
    }
    f = d->h->mem + tx_buf + (tx_pidx % 64) * 64;
    memset(f, 0, 60);
    memcpy(f, bcast, 6);
    memcpy(f + 6, d->mac, 6);
    f[12] = 0x08;
    f[13] = 0x06;                       /* ARP */
    f[15] = 1;                          /* Ethernet */
    f[16] = 0x08;                       /* IPv4 */
    f[18] = 6;
    f[19] = 4;
    f[21] = 1;                          /* request */
    memcpy(f + 22, d->mac, 6);
    memcpy(f + 28, ip, 4);              /* sender: our address */
    memcpy(f + 38, ip, 4);              /* target: the same (gratuitous) */
    memset(&desc, 0, sizeof(desc));
    desc.addr = tx_buf + (tx_pidx % 64) * 64;
    desc.len = 60;
    desc.flags = RNIC_L2_TX_EOP;
    memcpy(d->h->mem + tx_ring + (tx_pidx % 64) * sizeof(desc), &desc,
           sizeof(desc));
    tx_pidx++;
    h_doorbell(d->h, RNIC_DB_L2_TX, 0, 0, tx_pidx);
}

/* A SYN from 10.0.0.200 to dst_ip:port at B's MAC. */
static size_t syn(uint8_t *f, const uint8_t *dmac, const uint8_t *dst_ip,
                  uint16_t sport, uint16_t dport)
{
    static const uint8_t smac[6] = { 0x52, 0x54, 0x00, 0xaa, 0xbb, 0xcc };
    static const uint8_t src_ip[4] = { 10, 0, 0, 200 };
    size_t h = rne_ip4_build(f, dmac, smac, src_ip, dst_ip, 6, 20, 1);
    uint8_t *t = f + h;
    uint32_t sum;

    memset(t, 0, 20);
    rne_st_be16(t, sport);
    rne_st_be16(t + 2, dport);
    rne_st_be32(t + 4, 0x12345678);
    t[12] = 5 << 4;
    t[13] = 0x02;                       /* SYN */
    rne_st_be16(t + 14, 65535);
    sum = rne_csum_pseudo4(src_ip, dst_ip, 6, 20);
    sum = rne_csum_add(sum, t, 20);
    rne_st_be16(t + 16, rne_csum_fold(sum));
    return h + 20;
}

static void test_made_up(void)
{
    struct pair *p = p_new();
    struct rnic_admin_cmd c = t_mk(RNIC_CMD_CM_LISTEN);
    struct rnic_eqe e;
    uint8_t frame[128];
    uint32_t conn = 0;
    unsigned i, answered = 0, neng;

    tx_pidx = 0;
    announce(&p->b, p->b.ip);
    p_settle(p, 1000000);
    c.u.cm_listen.listen_id = 0;
    c.u.cm_listen.backlog = 8;
    c.u.cm_listen.family = RNIC_AF_IPV4;
    c.u.cm_listen.port = P_PORT;        /* 0.0.0.0 */
    CHECK_EQ(h_cmd(p->b.h, &c), RNIC_STS_OK);

    for (i = 0; i < MADE_UP; i++) {
        uint8_t ip[4] = { 10, 0, 0, (uint8_t)(100 + i) };
        unsigned long sent = p->b.h->sent_total;
        size_t len = syn(frame, p->b.mac, ip, (uint16_t)(30000 + i), P_PORT);

        rne_dev_receive(&p->b.h->dev, frame, len);
        answered += p->b.h->sent_total != sent;
    }
    neng = p->b.h->dev.iw->neng;
    printf("%u SYNs to made-up addresses: %u answered, %u TCP engines\n",
           MADE_UP, answered, neng);
    CHECK_EQ(answered, 0);
    CHECK_EQ(neng, 0);
    p_settle(p, 1000000);

    /* The real address still gets its connection. */
    p_make_qp(&p->a, P_QP);
    p_make_qp(&p->b, P_QP);
    CHECK_EQ(p_connect(p, P_QP, 2, RNIC_MPA_CRC, NULL, &conn), RNIC_STS_OK);
    p_settle(p, 1000000000ull);
    CHECK(p_cm_event(&p->b, &e, NULL) && e.code == RNIC_CM_CONNECT_REQUEST);
    CHECK_EQ(p_accept(&p->b, e.obj, P_QP, RNIC_MPA_CRC, NULL), RNIC_STS_OK);
    p_settle(p, 1000000000ull);
    CHECK(p_cm_event(&p->a, &e, NULL) && e.code == RNIC_CM_CONNECT_REPLY);
    CHECK_EQ(p_qp_state(&p->a, P_QP), RNIC_QPS_RTS);
    CHECK_EQ(p_qp_state(&p->b, P_QP), RNIC_QPS_RTS);
    printf("CM_CONNECT to the real address: A %s, B %s\n",
           p_qp_state(&p->a, P_QP) == RNIC_QPS_RTS ? "RTS" : "not RTS",
           p_qp_state(&p->b, P_QP) == RNIC_QPS_RTS ? "RTS" : "not RTS");
    p_free(p);
}

/* A connects to B at addr (QPs qpn on both), then aborts. */
static bool connect_abort(struct pair *p, const uint8_t *addr, uint32_t qpn)
{
    struct rnic_admin_cmd c = t_mk(RNIC_CMD_CM_CONNECT);
    struct rnic_cmd_cm_connect *k = &c.u.cm_connect;
    struct rnic_admin_cqe cqe;
    struct t_qp qa, qb;
    struct rnic_eqe e;
    bool ok = true;

    ok &= t_create_qp(p->a.h, &qa, qpn, 0, P_CQ, P_CQ, 4, 4) == RNIC_STS_OK;
    ok &= t_create_qp(p->b.h, &qb, qpn, 0, P_CQ, P_CQ, 4, 4) == RNIC_STS_OK;
    k->qpn = qpn;
    k->tuple.family = RNIC_AF_IPV4;
    memcpy(k->tuple.local_addr, p->a.ip, 4);
    memcpy(k->tuple.remote_addr, addr, 4);
    k->tuple.remote_port = P_PORT;
    memcpy(k->next_hop_mac, p->b.mac, 6);
    k->ird = 4;
    k->ord = 4;
    k->mpa_rev = 2;
    h_post(p->a.h, &c);
    h_ring_admin(p->a.h);
    h_run(p->a.h);
    ok &= h_poll(p->a.h, &cqe) && cqe.status == RNIC_STS_OK;
    p_settle(p, 1000000000ull);
    ok &= p_cm_event(&p->b, &e, NULL) && e.code == RNIC_CM_CONNECT_REQUEST;
    ok &= p_accept(&p->b, e.obj, qpn, 0, NULL) == RNIC_STS_OK;
    p_settle(p, 1000000000ull);
    ok &= p_cm_event(&p->a, &e, NULL) && e.code == RNIC_CM_CONNECT_REPLY;
    ok &= p_conn_cmd(&p->a, RNIC_CMD_CM_ABORT, cqe.result0) == RNIC_STS_OK;
    p_settle(p, 1000000000ull);
    while (p_cm_event(&p->a, &e, NULL) || p_cm_event(&p->b, &e, NULL)) {
    }
    ok &= t_cmd_obj(p->a.h, RNIC_CMD_DESTROY_QP, qpn) == RNIC_STS_OK;
    ok &= t_cmd_obj(p->b.h, RNIC_CMD_DESTROY_QP, qpn) == RNIC_STS_OK;
    p_settle(p, 1000000000ull);
    return ok;
}

static void test_reclaim(void)
{
    struct pair *p = p_new();
    struct rnic_admin_cmd c = t_mk(RNIC_CMD_CM_LISTEN);
    unsigned i, ok = 0;

    tx_pidx = 0;
    c.u.cm_listen.backlog = 8;
    c.u.cm_listen.family = RNIC_AF_IPV4;
    c.u.cm_listen.port = P_PORT;        /* 0.0.0.0 */
    CHECK_EQ(h_cmd(p->b.h, &c), RNIC_STS_OK);
    for (i = 0; i < RNE_IW_MAX_ADDR + 1; i++) {
        uint8_t ip[4] = { 10, 0, 0, (uint8_t)(50 + i) };

        announce(&p->b, ip);
        p_settle(p, 1000000);
        ok += connect_abort(p, ip, 20 + i);
    }
    printf("%u addresses announced in turn: %u connected, %u TCP engines\n",
           RNE_IW_MAX_ADDR + 1, ok, p->b.h->dev.iw->neng);
    CHECK_EQ(ok, RNE_IW_MAX_ADDR + 1);
    p_free(p);
}

int main(void)
{
    test_made_up();
    test_reclaim();
    return t_report("test-iw-made-up-addr");
}
