/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * iWARP engine core: offload TCP engines (one per local IPv4 address),
 * frames to and from the wire, time, the TCP callbacks, connection slots,
 * and the device entry points of rdma.h.
 */
#include <stdlib.h>
#include <string.h>
#include "iw.h"
#include "wire/le.h"

uint64_t rnic_iw_now(struct rnic_dev *d)
{
    return d->host.ops->now_ns ? d->host.ops->now_ns(d->host.opaque) : 0;
}

void rnic_iw_rearm(struct rnic_dev *d)
{
    struct rnic_iw *iw = d->iw;
    uint64_t dl = UINT64_MAX;
    uint32_t i;

    if (!d->host.ops->timer_mod) {
        return;
    }
    for (i = 0; i < iw->neng; i++) {
        uint64_t t = rnic_tcp_next_deadline(iw->eng[i].tcp);
        dl = t < dl ? t : dl;
    }
    for (i = 0; i < iw->nlive; i++) {
        if (iw->live[i]->deadline < dl) {
            dl = iw->live[i]->deadline;
        }
    }
    /* QEMU's timer_mod takes a lock and may wake the main loop */
    if (iw->armed_ok && iw->armed == dl) {
        return;
    }
    iw->armed = dl;
    iw->armed_ok = true;
    d->host.ops->timer_mod(d->host.opaque, dl);
}

void rnic_iw_timer_fired(struct rnic_dev *d)
{
    if (d->iw) {
        d->iw->armed_ok = false;
    }
}

/*
 * Offload TCP frames share the device's wire through its egress queue;
 * while the link is down, or beyond the queue, they are dropped and TCP
 * retransmits them.
 */
static void eng_tx(void *opaque, uint8_t *frame, size_t len)
{
    struct rnic_iw_eng *e = opaque;
    struct rnic_dev *d = e->d;

    if (d->port.link_up && !rnic_dev_send(d, frame, len)) {
        d->tx_dropped++;
    }
}

static void *eng_accept(void *opaque, struct rnic_tcp_listener *l,
                        void *listen_user, struct rnic_tcp_conn *c)
{
    struct rnic_iw_eng *e = opaque;

    (void)l;
    return rnic_iw_cm_accept(e->d, e, (uint32_t)(uintptr_t)listen_user - 1, c);
}

static void eng_connected(void *opaque, struct rnic_tcp_conn *c, void *user)
{
    struct rnic_iw_eng *e = opaque;

    (void)c;
    rnic_iw_cm_connected(e->d, user);
}

static void eng_recv(void *opaque, struct rnic_tcp_conn *c, void *user,
                     const uint8_t *data, size_t len)
{
    struct rnic_iw_eng *e = opaque;

    rnic_iw_cm_recv(e->d, user, data, len);
    /* Everything is placed or copied by now: reopen the window. */
    rnic_tcp_recv_done(c, len, rnic_iw_now(e->d));
}

static void eng_acked(void *opaque, struct rnic_tcp_conn *c, void *user,
                      uint32_t bytes)
{
    struct rnic_iw_eng *e = opaque;
    struct rnic_iw_conn *ic = user;
    struct rnic_qp *qp;

    (void)c;
    (void)bytes;
    if (!ic || ic->zombie || ic->qpn == RNIC_IW_NO_QP) {
        return;
    }
    qp = rnic_qp_get(e->d, ic->qpn);
    if (qp && qp->iw) {
        rnic_iw_tx_pump(e->d, qp);
        rnic_iw_conn_maybe_fin(e->d, ic);
    }
}

static void eng_emss(void *opaque, struct rnic_tcp_conn *c, void *user,
                     uint32_t emss)
{
    struct rnic_iw_conn *ic = user;

    (void)opaque;
    (void)c;
    if (!ic) {
        return;
    }
    ic->emss = emss;
    ic->mulpdu = rnic_mpa_mulpdu(emss, ic->tx.markers);
}

static void eng_peer_closed(void *opaque, struct rnic_tcp_conn *c, void *user)
{
    struct rnic_iw_eng *e = opaque;

    (void)c;
    rnic_iw_cm_peer_closed(e->d, user);
}

static void eng_closed(void *opaque, struct rnic_tcp_conn *c, void *user,
                       int err)
{
    struct rnic_iw_eng *e = opaque;
    struct rnic_iw_conn *ic = user;

    if (ic) {
        struct rnic_tcp_info ti;

        rnic_tcp_get_info(c, &ti);
        ic->tc = NULL;
        rnic_iw_cm_closed(e->d, ic, err, ti.state == RNIC_TCP_TIME_WAIT);
    }
}

struct rnic_iw_eng *rnic_iw_eng_get(struct rnic_dev *d, const uint8_t *addr,
                                    bool create)
{
    struct rnic_iw *iw = d->iw;
    struct rnic_tcp_config cfg;
    struct rnic_iw_eng *e;
    uint64_t now = rnic_iw_now(d);
    uint32_t i;

    for (i = 0; i < iw->neng; i++) {
        if (!memcmp(iw->eng[i].addr, addr, 4)) {
            /* SET_PORT may have given the port a new address since. */
            rnic_tcp_set_mac(iw->eng[i].tcp, d->port.mac);
            return &iw->eng[i];
        }
    }
    if (!create || iw->neng == RNIC_IW_MAX_ADDR ||
        !(addr[0] | addr[1] | addr[2] | addr[3])) {
        return NULL;
    }
    rnic_tcp_config_default(&cfg);
    memcpy(cfg.mac, d->port.mac, sizeof(cfg.mac));
    rnic_ipaddr_v4(&cfg.addr, addr[0], addr[1], addr[2], addr[3]);
    /*
     * The largest MTU the device takes: each connection is then set to the
     * port MTU of its time (rnic_iw_conn_mtu), so SET_PORT applies to the
     * connections opened after it.
     */
    cfg.mtu = (uint16_t)d->cfg.max_mtu;
    cfg.max_conns = d->cfg.max_conn;
    cfg.ack_batch = d->cfg.ack_batch;
    /* RFC 6528 wants a secret: the MAC, the address and the clock. */
    memcpy(cfg.isn_secret, d->port.mac, 6);
    memcpy(cfg.isn_secret + 6, addr, 4);
    iw->isn_seq += now + 0x9e3779b97f4a7c15ull;
    memcpy(cfg.isn_secret + 8, &iw->isn_seq, 8);
    e = &iw->eng[iw->neng];
    e->d = d;
    memcpy(e->addr, addr, 4);
    e->tcp = rnic_tcp_new(&cfg, &iw->ops, e);
    if (!e->tcp) {
        return NULL;
    }
    iw->neng++;
    /* Wildcard listeners listen on every local address. */
    for (i = 0; i < d->cfg.max_listen; i++) {
        struct rnic_iw_listener *l = &iw->lis[i];

        if (l->live && !(l->addr[0] | l->addr[1] | l->addr[2] | l->addr[3])) {
            l->tl[iw->neng - 1] = rnic_tcp_listen(e->tcp, l->port, l->backlog,
                                                  (void *)(uintptr_t)(i + 1));
        }
    }
    return e;
}

void rnic_iw_conn_mtu(struct rnic_dev *d, struct rnic_tcp_conn *tc,
                      uint16_t mss)
{
    uint32_t mtu = d->port.mtu;

    if (mss && mss + 40u < mtu) {
        mtu = mss + 40u;
    }
    rnic_tcp_set_mtu(tc, (uint16_t)(mtu < 576 ? 576 : mtu));
}

struct rnic_iw_conn *rnic_iw_conn_alloc(struct rnic_dev *d)
{
    struct rnic_iw *iw = d->iw;
    struct rnic_iw_conn *c;
    uint32_t i, id;

    for (i = 0; i < d->cfg.max_conn; i++) {
        id = (iw->next_conn + i) % d->cfg.max_conn;
        if (!iw->conn[id]) {
            break;
        }
    }
    if (i == d->cfg.max_conn) {
        return NULL;
    }
    c = calloc(1, sizeof(*c));
    if (!c) {
        return NULL;
    }
    c->rxbuf = malloc(RNIC_IW_RX_ULPDU_MAX);
    c->txbuf = malloc(RNIC_IW_TX_BUF);
    c->pbuf = malloc(RNIC_IW_TX_BUF);
    if (!c->rxbuf || !c->txbuf || !c->pbuf) {
        free(c->rxbuf);
        free(c->txbuf);
        free(c->pbuf);
        free(c);
        return NULL;
    }
    c->id = id;
    c->qpn = RNIC_IW_NO_QP;
    c->listen_id = 0xffffffffu;
    c->deadline = UINT64_MAX;
    iw->conn[id] = c;
    c->live_idx = iw->nlive;
    iw->live[iw->nlive++] = c;
    iw->next_conn = id + 1;
    return c;
}

struct rnic_iw_conn *rnic_iw_conn_find(struct rnic_dev *d, uint32_t id)
{
    struct rnic_iw_conn *c;

    if (id >= d->cfg.max_conn) {
        return NULL;
    }
    c = d->iw->conn[id];
    return c && !c->zombie ? c : NULL;
}

static void conn_release(struct rnic_dev *d, struct rnic_iw_conn *c)
{
    struct rnic_iw *iw = d->iw;

    iw->conn[c->id] = NULL;
    iw->live[c->live_idx] = iw->live[--iw->nlive];
    iw->live[c->live_idx]->live_idx = c->live_idx;
    if (c->zombie) {
        iw->nzombie--;
    }
    rnic_iw_qp_destroy(c->iq);
    free(c->rxbuf);
    free(c->txbuf);
    free(c->pbuf);
    free(c);
}

/*
 * Forget c.  Its memory lives until the device's dispatch ends: callers up
 * the stack may still hold it (they check c->zombie).
 */
void rnic_iw_conn_free(struct rnic_dev *d, struct rnic_iw_conn *c)
{
    if (c->steered) {
        rnic_iw_steer_conn(d, c, false);
    }
    if (c->tc) {
        rnic_tcp_set_user(c->tc, NULL);
        c->tc = NULL;
    }
    c->deadline = UINT64_MAX;
    if (c->zombie) {
        return;
    }
    c->zombie = true;
    d->iw->nzombie++;
    if (!d->dispatching) {
        conn_release(d, c);
    }
}

void rnic_iw_steer_conn(struct rnic_dev *d, struct rnic_iw_conn *c, bool add)
{
    if (add) {
        c->steered = !rnic_steer_add_conn(d->steer, &c->key, c->id);
    } else if (c->steered) {
        rnic_steer_del_conn(d->steer, &c->key);
        c->steered = false;
    }
}

void rnic_iw_dispatch_end(struct rnic_dev *d)
{
    struct rnic_iw *iw = d->iw;
    uint32_t i;

    if (!iw->neng && !iw->nlive) {
        return;
    }
    /* backwards: a release moves the last one into the hole */
    for (i = iw->nlive; iw->nzombie && i-- > 0;) {
        if (iw->live[i]->zombie) {
            conn_release(d, iw->live[i]);
        }
    }
    rnic_iw_rearm(d);
}

int rnic_iw_init(struct rnic_dev *d)
{
    struct rnic_iw *iw = calloc(1, sizeof(*iw));

    if (!iw) {
        return -1;
    }
    d->iw = iw;
    iw->lis = calloc(d->cfg.max_listen, sizeof(*iw->lis));
    iw->conn = calloc(d->cfg.max_conn, sizeof(*iw->conn));
    iw->live = calloc(d->cfg.max_conn, sizeof(*iw->live));
    if (!iw->lis || !iw->conn || !iw->live) {
        return -1;
    }
    iw->ops.tx = eng_tx;
    iw->ops.accept = eng_accept;
    iw->ops.connected = eng_connected;
    iw->ops.recv = eng_recv;
    iw->ops.acked = eng_acked;
    iw->ops.emss = eng_emss;
    iw->ops.peer_closed = eng_peer_closed;
    iw->ops.closed = eng_closed;
    return 0;
}

void rnic_iw_fini(struct rnic_dev *d)
{
    if (!d->iw) {
        return;
    }
    if (d->iw->conn && d->iw->lis && d->iw->live) {
        rnic_iw_reset(d);
    }
    free(d->iw->lis);
    free(d->iw->conn);
    free(d->iw->live);
    free(d->iw);
    d->iw = NULL;
}

void rnic_iw_reset(struct rnic_dev *d)
{
    struct rnic_iw *iw = d->iw;
    uint32_t i;

    for (i = 0; i < d->cfg.max_conn; i++) {
        struct rnic_iw_conn *c = iw->conn[i];

        if (!c) {
            continue;
        }
        if (c->qpn != RNIC_IW_NO_QP) {
            struct rnic_qp *qp = rnic_qp_get(d, c->qpn);

            if (qp && qp->iw) {
                qp->iw = NULL;
            }
        }
        conn_release(d, c);
    }
    for (i = 0; i < iw->neng; i++) {
        rnic_tcp_free(iw->eng[i].tcp);
    }
    memset(iw->eng, 0, sizeof(iw->eng));
    iw->neng = 0;
    memset(iw->lis, 0, d->cfg.max_listen * sizeof(*iw->lis));
    iw->armed_ok = false;
    if (d->host.ops->timer_mod) {
        d->host.ops->timer_mod(d->host.opaque, UINT64_MAX);
    }
}

unsigned rnic_iw_admin(struct rnic_dev *d, const struct rnic_admin_cmd *cmd,
                       struct rnic_admin_cqe *cqe)
{
    return rnic_iw_cm_admin(d, cmd, cqe);
}

static bool any_wildcard_listener(struct rnic_dev *d, uint16_t port)
{
    uint32_t i;

    for (i = 0; i < d->cfg.max_listen; i++) {
        struct rnic_iw_listener *l = &d->iw->lis[i];

        if (l->live && l->port == port &&
            !(l->addr[0] | l->addr[1] | l->addr[2] | l->addr[3])) {
            return true;
        }
    }
    return false;
}

void rnic_iw_receive(struct rnic_dev *d, const uint8_t *frame, size_t len,
                     const struct rnic_flow_key *k)
{
    struct rnic_iw_eng *e;

    if (k->family != RNIC_AF_IPV4) {
        return;
    }
    /* the listener table is walked only when no engine has the address */
    e = rnic_iw_eng_get(d, k->laddr, false);
    if (!e && any_wildcard_listener(d, k->lport)) {
        e = rnic_iw_eng_get(d, k->laddr, true);
    }
    if (e) {
        rnic_tcp_input(e->tcp, frame, len, rnic_iw_now(d));
    }
}

void rnic_iw_timer(struct rnic_dev *d)
{
    struct rnic_iw *iw = d->iw;
    uint64_t now = rnic_iw_now(d);
    uint32_t i;

    for (i = 0; i < iw->neng; i++) {
        rnic_tcp_tick(iw->eng[i].tcp, now);
    }
    for (i = 0; i < iw->nlive; i++) {
        struct rnic_iw_conn *c = iw->live[i];

        if (!c->zombie && c->deadline <= now) {
            c->deadline = UINT64_MAX;
            rnic_iw_cm_timer(d, c, now);
        }
    }
}

void rnic_iw_sq_kick(struct rnic_dev *d, struct rnic_qp *qp)
{
    if (!qp->iw) {
        return;
    }
    rnic_iw_tx_pump(d, qp);
    if (qp->iw) {
        rnic_iw_conn_maybe_fin(d, qp->iw->conn);
    }
}

void rnic_iw_qp_error(struct rnic_dev *d, struct rnic_qp *qp)
{
    struct rnic_iw_conn *c;

    if (!qp->iw) {
        return;
    }
    c = qp->iw->conn;
    qp->iw = NULL;
    c->qpn = RNIC_IW_NO_QP;
    if (c->tc) {
        rnic_tcp_abort(c->tc, rnic_iw_now(d));
        c->tc = NULL;
    }
    if (c->state != IWC_LINGER) {
        rnic_iw_cm_event(d, c, RNIC_CM_RESET, RNIC_IW_ST_ECONNABORTED, NULL, 0);
    }
    rnic_iw_conn_free(d, c);
}

void rnic_iw_qp_close(struct rnic_dev *d, struct rnic_qp *qp)
{
    if (!qp->iw) {
        return;
    }
    rnic_iw_conn_close(d, qp->iw->conn);
}

/* Placeholder from the resources half (QUERY_QP); conn_id stays unset. */
void rnic_iw_qp_query(struct rnic_dev *d, struct rnic_qp *qp,
                      struct rnic_qp_attr *attr)
{
    struct rnic_iw_conn *c;
    struct rnic_tcp_info ti;

    (void)d;
    if (!qp->iw) {
        return;
    }
    c = qp->iw->conn;
    attr->conn_id = rnic_st32(c->id);
    attr->ird = (uint8_t)qp->iw->ird;
    attr->ord = (uint8_t)qp->iw->ord;
    attr->mpa_rev = c->neg.rev;
    attr->mpa_flags = (c->neg.crc ? RNIC_MPA_CRC : 0) |
                      (c->neg.markers_tx || c->neg.markers_rx ?
                       RNIC_MPA_MARKERS : 0) |
                      (qp->iw->rfc7306 ? RNIC_MPA_RFC7306 : 0);
    attr->tuple = c->tuple;
    if (!c->tc) {
        return;
    }
    rnic_tcp_get_info(c->tc, &ti);
    attr->tcp.snd_una = rnic_st32(ti.snd_una);
    attr->tcp.snd_nxt = rnic_st32(ti.snd_nxt);
    attr->tcp.rcv_nxt = rnic_st32(ti.rcv_nxt);
    attr->tcp.snd_wnd = rnic_st32(ti.snd_wnd);
    attr->tcp.rcv_wnd = rnic_st32(ti.rcv_wnd);
    attr->tcp.mss = rnic_st16((uint16_t)ti.emss);
    attr->tcp.snd_wscale = (uint8_t)ti.snd_wscale;
    attr->tcp.rcv_wscale = (uint8_t)ti.rcv_wscale;
    attr->tcp.srtt_us = rnic_st32(ti.srtt_us);
    attr->tcp.retransmits = rnic_st32((uint32_t)ti.rexmits);
}
