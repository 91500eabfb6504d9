/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A raw iWARP peer on a simlink port (see rawpeer.h).
 */
#include <stdio.h>
#include <string.h>
#include "rawpeer.h"


static void a_tx(void *opaque, uint8_t *frame, size_t len)
{
    struct rawpeer *p = opaque;

    sl_send(p->sl, p->side, frame, len);
}

static void a_connected(void *opaque, struct rne_tcp_conn *c, void *user)
{
    struct rawpeer *p = opaque;

    (void)user;
    if (c == p->c) {
        p->connected = true;
    }
}

static void a_parse_fpdus(struct rawpeer *a, const uint8_t *data, size_t len)
{

    while (len) {
        struct rne_mpa_rx_ev ev;
        size_t n = rne_mpa_rx_feed(&a->rx, data, len, &ev);

        data += n;
        len -= n;
        if (ev.type == RNE_MPA_RX_ERROR) {
            snprintf(a->err, sizeof(a->err), "victim's FPDU stream broken: "
                     "MPA error %u", ev.code);
            return;
        }
        if (ev.type == RNE_MPA_RX_FPDU) {
            struct rne_rdmap_msg m;
            struct rne_term_cause cause;

            a->fpdus++;
            if (rne_rdmap_decode(ev.ulpdu, ev.len, RNE_RDMAP_F_RFC7306, &m,
                                 &cause)) {
                snprintf(a->err, sizeof(a->err), "victim sent an undecodable "
                         "DDP segment (cause %u/%u/0x%02x)", cause.layer,
                         cause.etype, cause.code);
                return;
            }
            if (m.opcode == RNE_RDMAP_TERMINATE && !a->got_term) {
                a->got_term = true;
                a->term = m.u.term;
            } else if (m.opcode == RNE_RDMAP_READ_RESP) {
                a->read_resp_segs++;
            }
        }
        if (!n) {
            return;
        }
    }
}

static void a_recv(void *opaque, struct rne_tcp_conn *c, void *user,
                   const uint8_t *data, size_t len)
{
    struct rawpeer *a = opaque;

    (void)user;
    if (c != a->c) {
        rne_tcp_recv_done(c, len, a->sl->now);      /* an extra connection */
        return;
    }
    a->unread += len;
    if (!a->have_reply) {
        size_t used = 0;
        int r = rne_mpa_rr_rx_feed(&a->rr_rx, data, len, &used, &a->rep);

        if (r < 0) {
            snprintf(a->err, sizeof(a->err), "bad MPA Reply (%d)", r);
            return;
        }
        if (r == 0) {
            return;
        }
        a->have_reply = true;
        r = rne_mpa_check_reply(&a->req, &a->rep, &a->neg);
        if (r) {
            snprintf(a->err, sizeof(a->err), "MPA Reply refused (%d)", r);
            return;
        }
        rne_mpa_tx_init(&a->tx, a->neg.crc, a->neg.markers_tx);
        rne_mpa_rx_init(&a->rx, a->neg.crc, a->neg.markers_rx, a->rxbuf,
                        sizeof(a->rxbuf) - 1);
        data += used;
        len -= used;
    }
    a_parse_fpdus(a, data, len);
    if (!a->hold_window && a->c == c) {
        rne_tcp_recv_done(c, a->unread, a->sl->now);
        a->unread = 0;
    }
}

static void a_closed(void *opaque, struct rne_tcp_conn *c, void *user,
                     int err)
{
    struct rawpeer *p = opaque;
    unsigned i;

    (void)user;
    for (i = 0; i < p->nextra; i++) {
        if (p->extra[i] == c) {
            p->extra[i] = NULL;
            return;
        }
    }
    if (c != p->c) {
        return;
    }
    p->closed = true;
    p->reset = err == RNE_TCP_ECONNRESET;
    p->c = NULL;
}

static void a_peer_closed(void *opaque, struct rne_tcp_conn *c, void *user)
{
    struct rawpeer *p = opaque;
    unsigned i;

    (void)user;
    for (i = 0; i < p->nextra; i++) {
        if (p->extra[i] == c) {
            rne_tcp_close(c, p->sl->now);
        }
    }
    if (p->c == c) {
        rne_tcp_close(c, p->sl->now);
    }
}

static const struct rne_tcp_ops a_ops = {
    .tx = a_tx,
    .connected = a_connected,
    .recv = a_recv,
    .peer_closed = a_peer_closed,
    .closed = a_closed,
};

static bool port_deliver(void *o, const uint8_t *f, size_t len)
{
    struct rawpeer *p = o;

    rne_tcp_input(p->t, f, len, p->sl->now);
    rne_tcp_deliver(p->t);
    return true;
}

static uint64_t port_deadline(void *o)
{
    return rne_tcp_next_deadline(((struct rawpeer *)o)->t);
}

static void port_tick(void *o)
{
    struct rawpeer *p = o;

    rne_tcp_tick(p->t, p->sl->now);
    rne_tcp_deliver(p->t);
}

bool rp_send(struct rawpeer *p, const uint8_t *buf, size_t len)
{
    if (!p->c || rne_tcp_send(p->c, buf, len, p->sl->now)) {
        snprintf(p->err, sizeof(p->err), "raw peer could not send %zu bytes",
                 len);
        return false;
    }
    return true;
}

bool rp_fpdu(struct rawpeer *p, const uint8_t *hdr, size_t hlen,
             const uint8_t *pay, size_t plen, int corrupt)
{
    static uint8_t out[70000];
    uint32_t n = rne_mpa_fpdu_build(&p->tx, out, sizeof(out), hdr, hlen,
                                    pay, plen);

    if (!n) {
        snprintf(p->err, sizeof(p->err), "FPDU build failed");
        return false;
    }
    if (corrupt == 1) {
        out[n - 1] ^= 0x20;     /* CRC */
    } else if (corrupt == 2) {
        out[3] ^= 0x40;         /* FPDUPTR of the marker at offset 0 */
    }
    return rp_send(p, out, n);
}

size_t rp_hdr_read_req(uint8_t *buf, uint32_t msn, uint32_t src_stag,
                       uint64_t src_to, uint32_t size)
{
    struct rne_rdmap_msg m;

    memset(&m, 0, sizeof(m));
    m.opcode = RNE_RDMAP_READ_REQ;
    m.rv = RNE_RDMAP_VERSION;
    m.ddp.dv = RNE_DDP_VERSION;
    m.ddp.last = true;
    m.ddp.qn = RNE_RDMAP_QN_READ_REQ;
    m.ddp.msn = msn;
    m.u.rr.sink_stag = 0x12345601;
    m.u.rr.sink_to = 0x1000;
    m.u.rr.size = size;
    m.u.rr.src_stag = src_stag;
    m.u.rr.src_to = src_to;
    return rne_rdmap_hdr_encode(&m, buf, 64);
}

bool rp_init(struct rawpeer *p, struct simlink *sl, int side,
             const uint8_t mac[6], const uint8_t ip[4], uint32_t rcvbuf)
{
    struct rne_tcp_config tc;

    memset(p, 0, sizeof(*p));
    p->sl = sl;
    p->side = side;
    rne_tcp_config_default(&tc);
    memcpy(tc.mac, mac, 6);
    rne_ipaddr_v4(&tc.addr, ip[0], ip[1], ip[2], ip[3]);
    tc.max_conns = RP_MAX_EXTRA + 4;
    if (rcvbuf) {
        tc.rcvbuf = rcvbuf;
    }
    p->t = rne_tcp_new(&tc, &a_ops, p);
    if (!p->t) {
        return false;
    }
    sl->port[side].opaque = p;
    sl->port[side].deliver = port_deliver;
    sl->port[side].deadline = port_deadline;
    sl->port[side].tick = port_tick;
    sl->port[side].poll = NULL;
    return true;
}

void rp_fini(struct rawpeer *p)
{
    if (p->t) {
        rne_tcp_free(p->t);
    }
    p->t = NULL;
    p->c = NULL;
}

/* TCP-connect from lport; true once established. */
static struct rne_tcp_conn *tcp_open(struct rawpeer *p, const uint8_t ip[4],
                                     uint16_t port, const uint8_t mac[6],
                                     uint16_t lport)
{
    struct rne_ipaddr vip;
    struct rne_tcp_conn *c;
    uint64_t end = p->sl->now + 10 * SL_SEC;

    rne_ipaddr_v4(&vip, ip[0], ip[1], ip[2], ip[3]);
    c = rne_tcp_connect(p->t, &vip, port, lport, mac, p, p->sl->now);
    if (!c) {
        return NULL;
    }
    p->c = c;
    while (p->c && !p->connected && p->sl->now < end && sl_step(p->sl)) {
    }
    return p->connected ? c : NULL;
}

bool rp_connect_raw(struct rawpeer *p, const uint8_t ip[4], uint16_t port,
                    const uint8_t mac[6], uint16_t lport,
                    const uint8_t *req, size_t len)
{
    struct rne_mpa_rr_rx rx;
    size_t used = 0;

    if (!tcp_open(p, ip, port, mac, lport)) {
        snprintf(p->err, sizeof(p->err), "raw peer: TCP connect failed");
        return false;
    }
    /* What the device will take as the Request, to check its Reply by. */
    rne_mpa_rr_rx_init(&rx, false);
    if (rne_mpa_rr_rx_feed(&rx, req, len, &used, &p->req) == 1) {
        p->req_len = used < sizeof(p->req_copy) ? used : sizeof(p->req_copy);
        memcpy(p->req_copy, req, p->req_len);
        p->req.pd = p->req.pd_len ? p->req_copy + (used - p->req.pd_len) :
                    NULL;
    } else {
        memset(&p->req, 0, sizeof(p->req));
    }
    rne_mpa_rr_rx_init(&p->rr_rx, true);
    /* Nothing to send is a Request that never comes, not a failure. */
    return !len || rp_send(p, req, len);
}

bool rp_open_extra(struct rawpeer *p, const uint8_t ip[4], uint16_t port,
                   const uint8_t mac[6], uint16_t lport)
{
    struct rne_tcp_conn *primary = p->c;
    bool was = p->connected;
    struct rne_tcp_conn *c;
    struct rne_mpa_rr req = p->req;
    uint8_t rr[RNE_MPA_RR_MAX];
    int n;

    if (p->nextra >= RP_MAX_EXTRA) {
        return false;
    }
    p->connected = false;
    c = tcp_open(p, ip, port, mac, lport);
    p->c = primary;
    p->connected = was;
    if (!c) {
        return false;
    }
    p->extra[p->nextra++] = c;
    req.reply = false;
    n = rne_mpa_rr_encode(&req, rr, sizeof(rr));
    return n > 0 && !rne_tcp_send(c, rr, (size_t)n, p->sl->now);
}

bool rp_connect(struct rawpeer *p, const uint8_t ip[4], uint16_t port,
                const uint8_t mac[6], uint16_t lport, uint8_t rev, bool crc,
                bool want_markers)
{
    struct rne_mpa_local loc;
    struct rne_ipaddr vip;
    uint8_t rr[RNE_MPA_RR_MAX];
    uint64_t end = p->sl->now + 10 * SL_SEC;
    int n;

    rne_ipaddr_v4(&vip, ip[0], ip[1], ip[2], ip[3]);
    p->c = rne_tcp_connect(p->t, &vip, port, lport, mac, p, p->sl->now);
    memset(&loc, 0, sizeof(loc));
    loc.rev = rev;
    loc.crc = crc;
    loc.markers = want_markers;
    loc.ird = 4;
    loc.ord = 4;
    rne_mpa_make_request(&loc, &p->req);
    p->req.pd = (const uint8_t *)"attacker";
    p->req.pd_len = 8;
    rne_mpa_rr_rx_init(&p->rr_rx, true);
    while (p->c && !p->connected && p->sl->now < end && sl_step(p->sl)) {
    }
    n = rne_mpa_rr_encode(&p->req, rr, sizeof(rr));
    if (!p->connected || n <= 0) {
        snprintf(p->err, sizeof(p->err), "raw peer: TCP connect failed");
        return false;
    }
    return rp_send(p, rr, (size_t)n);
}
