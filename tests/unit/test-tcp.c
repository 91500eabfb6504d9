// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Unit tests for the offload TCP: one engine against a scripted peer that
 * crafts segments byte by byte and parses everything the engine sends.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "tcp/tcp.h"

#include "check.h"

#define MS 1000000ull
#define TH_FIN 0x01
#define TH_SYN 0x02
#define TH_RST 0x04
#define TH_PSH 0x08
#define TH_ACK 0x10

struct seg {
    uint32_t seq, ack, len;
    uint8_t flags;
    uint16_t win, sport, dport;
    const uint8_t *data;
    int mss, ws;
    bool sackok, has_ts;
    uint32_t tsval, tsecr;
    int nsack;
    uint32_t sack[4][2];
};

#define MAXOUT 4096
struct h {
    struct rne_tcp *t;
    uint64_t now;
    uint8_t out[MAXOUT][1600];
    size_t outlen[MAXOUT];
    int nout;
    struct rne_tcp_conn *conn;
    int accepted, connected, closed, closed_err, peer_closed, emss_events, acked_bytes;
    uint32_t last_emss;
    uint8_t rx[1 << 16];
    size_t rxlen;
    const uint8_t *last_rx_ptr;
    const uint8_t *in_frame;    /* frame being fed, to check zero-copy delivery */
    size_t in_len;
    bool refuse;
    bool manual;                /* inject leaves the events to the test */
    bool abort_in_recv;         /* h_recv aborts the connection */
    int after_abort;            /* callbacks for a connection after that */
    struct rne_tcp_conn *aborted;
    struct rne_tcp_conn *accepted_conns[4096];
};

static struct h H;
static const uint8_t MAC_E[6] = { 2, 0, 0, 0, 0, 1 }, MAC_P[6] = { 2, 0, 0, 0, 0, 2 };

static void h_tx(void *o, uint8_t *f, size_t len)
{
    struct h *h = o;
    if (h->nout < MAXOUT && len <= 1600) {
        memcpy(h->out[h->nout], f, len);
        h->outlen[h->nout++] = len;
    }
}
static void *h_accept(void *o, void *lu, struct rne_tcp_conn *c)
{
    struct h *h = o;
    (void)lu;
    if (h->refuse) {
        return NULL;
    }
    if (h->accepted < 4096) {
        h->accepted_conns[h->accepted] = c;
    }
    h->accepted++;
    h->conn = c;
    return h;
}
static void h_connected(void *o, struct rne_tcp_conn *c, void *u)
{
    (void)c; (void)u;
    ((struct h *)o)->connected++;
}
static void h_recv(void *o, struct rne_tcp_conn *c, void *u, const uint8_t *d, size_t n)
{
    struct h *h = o;
    (void)u;
    if (c == h->aborted) {
        h->after_abort++;
    }
    if (h->abort_in_recv) {
        h->abort_in_recv = false;
        h->aborted = c;
        rne_tcp_abort(c, h->now);
    }
    if (h->rxlen + n <= sizeof(h->rx)) {
        memcpy(h->rx + h->rxlen, d, n);
    }
    h->rxlen += n;
    h->last_rx_ptr = d;
}
static void h_acked(void *o, struct rne_tcp_conn *c, void *u, uint32_t n)
{
    (void)u;
    ((struct h *)o)->after_abort += c == ((struct h *)o)->aborted;
    ((struct h *)o)->acked_bytes += (int)n;
}
static void h_emss(void *o, struct rne_tcp_conn *c, void *u, uint32_t e)
{
    struct h *h = o;
    (void)c; (void)u;
    h->emss_events++;
    h->last_emss = e;
}
static void h_peer_closed(void *o, struct rne_tcp_conn *c, void *u)
{
    (void)u;
    ((struct h *)o)->after_abort += c == ((struct h *)o)->aborted;
    ((struct h *)o)->peer_closed++;
}
static void h_closed(void *o, struct rne_tcp_conn *c, void *u, int err)
{
    struct h *h = o;
    (void)u;
    h->after_abort += c == h->aborted;
    h->closed++;
    h->closed_err = err;
    if (h->conn == c) {
        h->conn = NULL;
    }
}
static const struct rne_tcp_ops OPS = {
    .tx = h_tx, .accept = h_accept, .connected = h_connected, .recv = h_recv, .acked = h_acked,
    .emss = h_emss, .peer_closed = h_peer_closed, .closed = h_closed,
};

static void setup_cfg(struct rne_tcp_config *cfg)
{
    rne_tcp_config_default(cfg);
    memcpy(cfg->mac, MAC_E, 6);
    rne_ipaddr_v4(&cfg->addr, 10, 0, 0, 1);
    cfg->max_conns = 4096;
    cfg->sndbuf = 64 * 1024;
    cfg->rcvbuf = 64 * 1024;
    cfg->msl_ms = 1000;
    memcpy(cfg->isn_secret, "0123456789abcdef", 16);
}

static void h_init_cfg(const struct rne_tcp_config *cfg)
{
    if (H.t) {
        rne_tcp_free(H.t);
    }
    memset(&H, 0, sizeof(H));
    H.now = 5000 * MS;
    H.t = rne_tcp_new(cfg, &OPS, &H);
    if (!H.t) {
        fprintf(stderr, "engine creation failed\n");
        exit(1);
    }
}

static void h_init(void)
{
    struct rne_tcp_config cfg;
    setup_cfg(&cfg);
    h_init_cfg(&cfg);
}

/* Parse frame i of the engine's output; checksums must be right. */
static bool parse(int i, struct seg *s)
{
    struct rne_ip4_pkt ip;
    memset(s, 0, sizeof(*s));
    if (i >= H.nout || rne_ip4_parse(H.out[i], H.outlen[i], &ip) != RNE_IP4_OK) {
        return false;
    }
    uint32_t sum = rne_csum_pseudo4(ip.src, ip.dst, 6, ip.l4_len);
    if (rne_csum_fold(rne_csum_add(sum, ip.l4, ip.l4_len)) != 0) {
        return false;
    }
    const uint8_t *th = ip.l4;
    size_t doff = (size_t)(th[12] >> 4) * 4;
    s->sport = rne_ld_be16(th);
    s->dport = rne_ld_be16(th + 2);
    s->seq = rne_ld_be32(th + 4);
    s->ack = rne_ld_be32(th + 8);
    s->flags = th[13];
    s->win = rne_ld_be16(th + 14);
    s->data = th + doff;
    s->len = (uint32_t)(ip.l4_len - doff);
    s->mss = s->ws = -1;
    for (size_t o = 20; o < doff;) {
        uint8_t k = th[o];
        if (k == 0) {
            break;
        }
        if (k == 1) {
            o++;
            continue;
        }
        uint8_t l = th[o + 1];
        if (k == 2) s->mss = rne_ld_be16(th + o + 2);
        if (k == 3) s->ws = th[o + 2];
        if (k == 4) s->sackok = true;
        if (k == 8) { s->has_ts = true; s->tsval = rne_ld_be32(th + o + 2); s->tsecr = rne_ld_be32(th + o + 6); }
        if (k == 5) {
            s->nsack = (l - 2) / 8;
            for (int j = 0; j < s->nsack && j < 4; j++) {
                s->sack[j][0] = rne_ld_be32(th + o + 2 + 8 * j);
                s->sack[j][1] = rne_ld_be32(th + o + 6 + 8 * j);
            }
        }
        o += l;
    }
    return true;
}

struct opts {
    int mss, ws;
    bool sackok, ts;
    uint32_t tsval, tsecr;
    int nsack;
    uint32_t sack[4][2];
    bool bad_csum;
    int doff_override;
};

/* The scripted peer: 10.0.0.2:sport -> 10.0.0.1:dport. */
static void inject(uint16_t sport, uint16_t dport, uint8_t flags, uint32_t seq, uint32_t ack,
                   uint16_t win, const struct opts *o, const void *data, size_t len)
{
    static uint8_t f[2000];
    uint8_t opt[40];
    size_t ol = 0;
    if (o) {
        if (o->mss >= 0 && (flags & TH_SYN)) { opt[ol++] = 2; opt[ol++] = 4; rne_st_be16(opt + ol, (uint16_t)o->mss); ol += 2; }
        if (o->ws >= 0 && (flags & TH_SYN)) { opt[ol++] = 1; opt[ol++] = 3; opt[ol++] = 3; opt[ol++] = (uint8_t)o->ws; }
        if (o->sackok && (flags & TH_SYN)) { opt[ol++] = 1; opt[ol++] = 1; opt[ol++] = 4; opt[ol++] = 2; }
        if (o->ts) { opt[ol++] = 1; opt[ol++] = 1; opt[ol++] = 8; opt[ol++] = 10;
                     rne_st_be32(opt + ol, o->tsval); rne_st_be32(opt + ol + 4, o->tsecr); ol += 8; }
        if (o->nsack) { opt[ol++] = 1; opt[ol++] = 1; opt[ol++] = 5; opt[ol++] = (uint8_t)(2 + 8 * o->nsack);
                        for (int j = 0; j < o->nsack; j++) { rne_st_be32(opt + ol, o->sack[j][0]);
                            rne_st_be32(opt + ol + 4, o->sack[j][1]); ol += 8; } }
    }
    uint8_t si[4] = { 10, 0, 0, 2 }, di[4] = { 10, 0, 0, 1 };
    size_t l4 = 20 + ol + len;
    rne_ip4_build(f, MAC_E, MAC_P, si, di, 6, (uint16_t)l4, 1);
    uint8_t *th = f + 34;
    rne_st_be16(th, sport);
    rne_st_be16(th + 2, dport);
    rne_st_be32(th + 4, seq);
    rne_st_be32(th + 8, ack);
    th[12] = (uint8_t)(((20 + ol) / 4) << 4);
    if (o && o->doff_override) {
        th[12] = (uint8_t)(o->doff_override << 4);
    }
    th[13] = flags;
    rne_st_be16(th + 14, win);
    rne_st_be16(th + 16, 0);
    rne_st_be16(th + 18, 0);
    memcpy(th + 20, opt, ol);
    if (len) {
        memcpy(th + 20 + ol, data, len);
    }
    uint32_t sum = rne_csum_pseudo4(si, di, 6, (uint16_t)l4);
    uint16_t cs = rne_csum_fold(rne_csum_add(sum, th, l4));
    rne_st_be16(th + 16, (o && o->bad_csum) ? (uint16_t)(cs + 1) : cs);
    H.in_frame = f;
    H.in_len = 34 + l4;
    rne_tcp_input(H.t, f, 34 + l4, H.now);
    if (!H.manual) {
        rne_tcp_deliver(H.t);
    }
}

static void advance(uint64_t ns)
{
    H.now += ns;
    rne_tcp_tick(H.t, H.now);
    rne_tcp_deliver(H.t);
}

/* Passive open on port 80 from peer port 5000, peer ISN 1000. Returns engine ISN. */
static const struct opts SYNO = { 1460, 7, true, true, 100, 0, 0, {{0, 0}}, false, 0 };
static uint32_t P_SEQ;          /* peer's next seq */
static uint32_t E_SEQ;          /* engine's next seq */
static uint32_t P_TS = 100;

static struct opts tso(void)
{
    struct opts o = { -1, -1, false, true, ++P_TS, 0, 0, {{0, 0}}, false, 0 };
    struct seg s;
    if (H.nout && parse(H.nout - 1, &s) && s.has_ts) {
        o.tsecr = s.tsval;
    }
    return o;
}

static bool establish(const struct opts *synopt)
{
    rne_tcp_listen(H.t, 80, 16, NULL);
    H.nout = 0;
    inject(5000, 80, TH_SYN, 1000, 0, 65535, synopt ? synopt : &SYNO, NULL, 0);
    struct seg s;
    if (!parse(0, &s) || s.flags != (TH_SYN | TH_ACK) || s.ack != 1001) {
        return false;
    }
    E_SEQ = s.seq + 1;
    P_SEQ = 1001;
    struct opts o = tso();
    if (synopt && !synopt->ts) {
        o.ts = false;
    }
    inject(5000, 80, TH_ACK, P_SEQ, E_SEQ, 2048, &o, NULL, 0);
    return H.accepted == 1 && H.conn != NULL;
}

static int state(void)
{
    struct rne_tcp_info inf;
    if (!H.conn) {
        return -1;
    }
    rne_tcp_get_info(H.conn, &inf);
    return inf.state;
}

static void test_handshake_options(void)
{
    h_init();
    struct opts syn = SYNO;
    syn.mss = 1000;
    syn.ws = 5;
    rne_tcp_listen(H.t, 80, 16, NULL);
    inject(5000, 80, TH_SYN, 1000, 0, 65535, &syn, NULL, 0);
    struct seg s;
    CHECK(H.nout == 1 && parse(0, &s));
    CHECK(s.flags == (TH_SYN | TH_ACK) && s.ack == 1001);
    CHECK(s.mss == 1460 && s.sackok && s.has_ts && s.tsecr == 100);
    CHECK(s.ws == 1);                   /* 65536 bytes does not fit 16 bits: shift 1 */
    CHECK(s.win == 65535);              /* SYN windows are not scaled */
    CHECK(H.accepted == 0);
    struct opts o = tso();
    inject(5000, 80, TH_ACK, 1001, s.seq + 1, 100, &o, NULL, 0);
    CHECK(H.accepted == 1 && state() == RNE_TCP_ESTABLISHED);
    struct rne_tcp_info inf;
    rne_tcp_get_info(H.conn, &inf);
    CHECK(inf.emss == 1000 - 12);       /* peer MSS minus timestamps */
    CHECK(H.emss_events == 1 && H.last_emss == 988);
    CHECK(inf.sack && inf.timestamps && inf.snd_wscale == 5);
    CHECK(inf.snd_wnd == 100u << 5);    /* window scaling applied after the SYN */

    /* peer without any options: 536 MSS default, no ts/sack/ws */
    h_init();
    struct opts none = { -1, -1, false, false, 0, 0, 0, {{0, 0}}, false, 0 };
    CHECK(establish(&none));
    rne_tcp_get_info(H.conn, &inf);
    CHECK(inf.emss == 536 && !inf.sack && !inf.timestamps && inf.snd_wscale == 0 &&
          inf.rcv_wscale == 0);
    /* a large receive buffer asks for scaling */
    struct rne_tcp_config cfg;
    setup_cfg(&cfg);
    cfg.rcvbuf = 4 << 20;
    h_init_cfg(&cfg);
    rne_tcp_listen(H.t, 80, 16, NULL);
    inject(5000, 80, TH_SYN, 1000, 0, 65535, &SYNO, NULL, 0);
    CHECK(parse(0, &s) && s.ws == 7);
}

static void test_data_in_order_zero_copy(void)
{
    h_init();
    CHECK(establish(NULL));
    uint8_t d[300];
    for (int i = 0; i < 300; i++) {
        d[i] = (uint8_t)i;
    }
    H.nout = 0;
    struct opts o = tso();
    inject(5000, 80, TH_ACK | TH_PSH, P_SEQ, E_SEQ, 2048, &o, d, 100);
    CHECK(H.rxlen == 100 && !memcmp(H.rx, d, 100));
    /* delivered straight out of the received frame */
    CHECK(H.last_rx_ptr >= H.in_frame && H.last_rx_ptr + 100 <= H.in_frame + H.in_len);
    CHECK(H.nout == 0);                 /* first segment: ACK is delayed */
    advance(39 * MS);
    CHECK(H.nout == 0);
    advance(2 * MS);
    struct seg s;
    CHECK(H.nout == 1 && parse(0, &s) && s.ack == P_SEQ + 100 && s.len == 0);
    P_SEQ += 100;
    /* two segments: ACK right after the second */
    H.nout = 0;
    o = tso();
    inject(5000, 80, TH_ACK, P_SEQ, E_SEQ, 2048, &o, d + 100, 100);
    CHECK(H.nout == 0);
    o = tso();
    inject(5000, 80, TH_ACK, P_SEQ + 100, E_SEQ, 2048, &o, d + 200, 100);
    CHECK(H.nout == 1 && parse(0, &s) && s.ack == P_SEQ + 200);
    CHECK(H.rxlen == 300 && !memcmp(H.rx, d, 300));
    P_SEQ += 200;
    /* a duplicate is not delivered twice and is acked at once */
    H.nout = 0;
    o = tso();
    inject(5000, 80, TH_ACK, P_SEQ - 100, E_SEQ, 2048, &o, d + 200, 100);
    CHECK(H.rxlen == 300 && H.nout == 1);
}

/* Take every event; their union for H.conn. */
static unsigned pull_all(void)
{
    struct rne_tcp_event ev;
    unsigned evs = 0;

    while (rne_tcp_pull(H.t, &ev)) {
        if (ev.conn == H.conn) {
            evs |= ev.events;
        }
    }
    return evs;
}

/* The readable octets, concatenated; returns how many spans they were in. */
static int peek_all(uint8_t *buf, size_t *len)
{
    struct rne_iov sp[4];
    int n = rne_tcp_peek(H.conn, sp, 4);

    *len = 0;
    for (int i = 0; i < n; i++) {
        memcpy(buf + *len, sp[i].base, sp[i].len);
        *len += sp[i].len;
    }
    return n;
}

/*
 * The pull read API: READABLE, then rne_tcp_peek/consume over the frame
 * itself, over the out-of-order ring after a gap fills, and over a copy when
 * the upper layer left octets unread past the end of its pull.
 */
static void test_read_pull(void)
{
    h_init();
    CHECK(establish(NULL));
    uint8_t d[1000], got[1000];
    struct rne_iov sp[4];
    struct rne_tcp_event ev;
    size_t n;
    for (int i = 0; i < 1000; i++) {
        d[i] = (uint8_t)(i * 7 + 1);
    }
    H.manual = true;
    /* in order: read in the frame, consumed in two steps */
    struct opts o = tso();
    inject(5000, 80, TH_ACK, P_SEQ, E_SEQ, 2048, &o, d, 100);
    CHECK(rne_tcp_pull(H.t, &ev) && ev.conn == H.conn &&
          ev.events == RNE_TCP_EV_READABLE);
    CHECK(rne_tcp_peek(H.conn, sp, 4) == 1 && sp[0].len == 100 &&
          (const uint8_t *)sp[0].base >= H.in_frame &&
          (const uint8_t *)sp[0].base + 100 <= H.in_frame + H.in_len &&
          !memcmp(sp[0].base, d, 100));
    rne_tcp_consume(H.conn, 60, H.now);
    CHECK(rne_tcp_peek(H.conn, sp, 4) == 1 && sp[0].len == 40 &&
          !memcmp(sp[0].base, d + 60, 40));
    rne_tcp_consume(H.conn, 40, H.now);
    CHECK(rne_tcp_peek(H.conn, sp, 4) == 0);
    pull_all();
    P_SEQ += 100;
    /* left unread when the pull ends: copied, the frame may go */
    o = tso();
    inject(5000, 80, TH_ACK, P_SEQ, E_SEQ, 2048, &o, d + 100, 200);
    CHECK(pull_all() == RNE_TCP_EV_READABLE);
    memset((void *)H.in_frame, 0xee, H.in_len);
    CHECK(peek_all(got, &n) == 1 && n == 200 && !memcmp(got, d + 100, 200));
    P_SEQ += 200;
    /* and what follows it is kept behind it, in order */
    o = tso();
    inject(5000, 80, TH_ACK, P_SEQ, E_SEQ, 2048, &o, d + 300, 100);
    CHECK(peek_all(got, &n) >= 1 && n == 300 && !memcmp(got, d + 100, 300));
    rne_tcp_consume(H.conn, 300, H.now);
    CHECK(rne_tcp_peek(H.conn, sp, 4) == 0);
    pull_all();
    P_SEQ += 100;
    /* a gap filled: the frame's octets, then those the ring held */
    o = tso();
    inject(5000, 80, TH_ACK, P_SEQ + 100, E_SEQ, 2048, &o, d + 500, 100);
    CHECK(pull_all() == 0 && rne_tcp_peek(H.conn, sp, 4) == 0);
    o = tso();
    inject(5000, 80, TH_ACK, P_SEQ, E_SEQ, 2048, &o, d + 400, 100);
    CHECK(rne_tcp_pull(H.t, &ev) && (ev.events & RNE_TCP_EV_READABLE));
    CHECK(peek_all(got, &n) == 2 && n == 200 && !memcmp(got, d + 400, 200));
    rne_tcp_consume(H.conn, 200, H.now);
    pull_all();
    P_SEQ += 200;
    /* data and FIN in one segment: one event, the data read first */
    o = tso();
    inject(5000, 80, TH_ACK | TH_FIN, P_SEQ, E_SEQ, 2048, &o, d + 600, 50);
    CHECK(rne_tcp_pull(H.t, &ev) && ev.events ==
          (RNE_TCP_EV_READABLE | RNE_TCP_EV_PEER_CLOSED));
    CHECK(peek_all(got, &n) == 1 && n == 50 && !memcmp(got, d + 600, 50));
    rne_tcp_consume(H.conn, 50, H.now);
    pull_all();
    CHECK(state() == RNE_TCP_CLOSE_WAIT);
    H.manual = false;
}

/*
 * Accept is an event, not a call from inside rne_tcp_input: the connection
 * reaches ESTABLISHED, the upper layer learns it at its pull (with the data
 * and the EMSS that came with it) and takes it, or refuses it with a RST.
 */
static void test_accept_pull(void)
{
    h_init();
    H.manual = true;
    static int lis_user;
    uint8_t d[100];
    struct rne_iov sp[4];
    struct rne_tcp_event ev;
    struct seg s;
    for (int i = 0; i < 100; i++) {
        d[i] = (uint8_t)(i + 3);
    }
    CHECK(rne_tcp_listen(H.t, 80, 16, &lis_user));
    inject(5000, 80, TH_SYN, 1000, 0, 65535, &SYNO, NULL, 0);
    CHECK(!rne_tcp_pull(H.t, &ev));
    CHECK(parse(H.nout - 1, &s) && s.flags == (TH_SYN | TH_ACK));
    E_SEQ = s.seq + 1;
    struct opts o = tso();
    inject(5000, 80, TH_ACK, 1001, E_SEQ, 2048, &o, d, 100);
    CHECK(H.accepted == 0);                 /* no call into the upper layer */
    CHECK(rne_tcp_pull(H.t, &ev));
    CHECK(ev.events == (RNE_TCP_EV_ACCEPTED | RNE_TCP_EV_EMSS |
                        RNE_TCP_EV_READABLE));
    CHECK(ev.user == NULL && ev.listen_user == &lis_user &&
          ev.emss == 1460 - 12);
    H.conn = ev.conn;
    rne_tcp_set_user(ev.conn, &H);
    CHECK(rne_tcp_peek(ev.conn, sp, 4) == 1 && sp[0].len == 100 &&
          !memcmp(sp[0].base, d, 100));
    rne_tcp_consume(ev.conn, 100, H.now);
    CHECK(!rne_tcp_pull(H.t, &ev));
    CHECK(state() == RNE_TCP_ESTABLISHED);
    /* the next one is refused at its pull: RST, its data dropped */
    inject(5001, 80, TH_SYN, 7000, 0, 65535, &SYNO, NULL, 0);
    CHECK(!rne_tcp_pull(H.t, &ev));
    CHECK(parse(H.nout - 1, &s) && s.flags == (TH_SYN | TH_ACK));
    uint32_t e2 = s.seq + 1;
    o = tso();
    inject(5001, 80, TH_ACK, 7001, e2, 2048, &o, d, 50);
    CHECK(rne_tcp_pull(H.t, &ev) && (ev.events & RNE_TCP_EV_ACCEPTED) &&
          ev.conn != H.conn);
    int nout = H.nout;
    rne_tcp_abort(ev.conn, H.now);
    CHECK(!rne_tcp_pull(H.t, &ev));
    CHECK(H.nout == nout + 1 && parse(nout, &s) && (s.flags & TH_RST) &&
          s.sport == 80 && s.dport == 5001 && s.seq == e2);
    CHECK(rne_tcp_get_stats(H.t)->conns_now == 1);
    /* a connection reset before its pull is never shown */
    inject(5002, 80, TH_SYN, 9000, 0, 65535, &SYNO, NULL, 0);
    CHECK(parse(H.nout - 1, &s) && s.flags == (TH_SYN | TH_ACK));
    uint32_t e3 = s.seq + 1;
    o = tso();
    inject(5002, 80, TH_ACK, 9001, e3, 2048, &o, NULL, 0);
    inject(5002, 80, TH_RST, 9001, 0, 0, NULL, NULL, 0);
    CHECK(!rne_tcp_pull(H.t, &ev));
    CHECK(rne_tcp_get_stats(H.t)->conns_now == 1);
    H.manual = false;
}

static void test_ooo_sack(void)
{
    h_init();
    CHECK(establish(NULL));
    uint8_t d[300];
    for (int i = 0; i < 300; i++) {
        d[i] = (uint8_t)(i * 3);
    }
    H.nout = 0;
    struct opts o = tso();
    inject(5000, 80, TH_ACK, P_SEQ + 200, E_SEQ, 2048, &o, d + 200, 100);  /* third first */
    struct seg s;
    CHECK(H.rxlen == 0);
    CHECK(H.nout == 1 && parse(0, &s) && s.ack == P_SEQ && s.nsack == 1 &&
          s.sack[0][0] == P_SEQ + 200 && s.sack[0][1] == P_SEQ + 300);
    o = tso();
    inject(5000, 80, TH_ACK, P_SEQ + 100, E_SEQ, 2048, &o, d + 100, 100);
    CHECK(H.nout == 2 && parse(1, &s) && s.nsack == 1 && s.sack[0][0] == P_SEQ + 100 &&
          s.sack[0][1] == P_SEQ + 300);
    o = tso();
    inject(5000, 80, TH_ACK, P_SEQ, E_SEQ, 2048, &o, d, 100);              /* fills the hole */
    CHECK(H.rxlen == 300 && !memcmp(H.rx, d, 300));
    CHECK(H.nout == 3 && parse(2, &s) && s.ack == P_SEQ + 300 && s.nsack == 0);
}

static void test_record_segmentation(void)
{
    h_init();
    struct opts syn = SYNO;
    syn.mss = 1012;                     /* EMSS 1000 with timestamps */
    CHECK(establish(&syn));
    struct rne_tcp_info inf;
    rne_tcp_get_info(H.conn, &inf);
    CHECK(inf.emss == 1000);
    /* open the peer window wide */
    struct opts o = tso();
    inject(5000, 80, TH_ACK, P_SEQ, E_SEQ, 65535, &o, NULL, 0);
    H.nout = 0;
    static uint8_t r[4000];
    memset(r, 7, sizeof(r));
    CHECK(rne_tcp_send(H.conn, r, 400, H.now) == 0);    /* goes out at once (cwnd allows) */
    CHECK(rne_tcp_send(H.conn, r, 400, H.now) == 0);
    CHECK(rne_tcp_send(H.conn, r, 400, H.now) == 0);
    struct seg s;
    CHECK(H.nout == 3 && parse(0, &s) && s.len == 400);
    /* Now queue several before output can run: stop the window, queue, reopen. */
    h_init();
    CHECK(establish(&syn));
    o = tso();
    inject(5000, 80, TH_ACK, P_SEQ, E_SEQ, 0, &o, NULL, 0);                /* zero window */
    H.nout = 0;
    CHECK(rne_tcp_send(H.conn, r, 400, H.now) == 0);
    CHECK(rne_tcp_send(H.conn, r, 400, H.now) == 0);
    CHECK(rne_tcp_send(H.conn, r, 400, H.now) == 0);
    CHECK(rne_tcp_send(H.conn, r, 2500, H.now) == 0);
    CHECK(rne_tcp_send(H.conn, r, 1000, H.now) == 0);
    CHECK(H.nout == 0);
    o = tso();
    inject(5000, 80, TH_ACK, P_SEQ, E_SEQ, 60000, &o, NULL, 0);
    /* initial cwnd 4*1000 bytes: two small records share a segment, the 2500-byte
     * record is cut at the EMSS, the next 1000-byte record is not packed after its tail */
    uint32_t lens[8] = { 0 };
    int n = 0;
    for (int i = 0; i < H.nout && n < 8; i++) {
        if (parse(i, &s) && s.len) {
            lens[n++] = s.len;
        }
    }
    CHECK(n == 5 && lens[0] == 800 && lens[1] == 400 && lens[2] == 1000 && lens[3] == 1000 &&
          lens[4] == 500);
    /* ACK all: the last record goes out whole */
    parse(H.nout - 1, &s);
    H.nout = 0;
    o = tso();
    inject(5000, 80, TH_ACK, P_SEQ, s.seq + s.len, 60000, &o, NULL, 0);
    CHECK(H.nout == 1 && parse(0, &s) && s.len == 1000);
    /* EMSS change: an event for the upper layer, used for new segments */
    rne_tcp_set_mtu(H.conn, 800);
    CHECK(H.emss_events == 1);
    rne_tcp_deliver(H.t);
    CHECK(H.last_emss == 800 - 40 - 12 && H.emss_events == 2);
    /* records larger than the send buffer are refused, full buffer gives EAGAIN */
    CHECK(rne_tcp_send(H.conn, r, 0, H.now) == RNE_TCP_EINVAL);
    static uint8_t big[70000];
    CHECK(rne_tcp_send(H.conn, big, sizeof(big), H.now) == RNE_TCP_EMSGSIZE);
}

/*
 * A record written in place: reserve hands out the ring's tail as two spans
 * when it wraps (here at an odd offset, so a segment's checksum joins two
 * odd-length pieces), nothing is queued until commit, an uncommitted reserve
 * is forgotten, and the segments carry the bytes with good checksums.
 */
static void test_reserve_commit(void)
{
    h_init();
    struct opts syn = SYNO;
    syn.mss = 1012;                     /* EMSS 1000 with timestamps */
    CHECK(establish(&syn));
    struct opts o = tso();
    inject(5000, 80, TH_ACK, P_SEQ, E_SEQ, 65535, &o, NULL, 0);
    static uint8_t r[64001], pat[3000], got[3000];
    memset(r, 0x3c, sizeof(r));
    for (size_t i = 0; i < sizeof(pat); i++) {
        pat[i] = (uint8_t)(i * 13 + 5);
    }
    /* 64001 octets sent and acked: the ring's head sits at an odd offset */
    CHECK(rne_tcp_send(H.conn, r, sizeof(r), H.now) == RNE_TCP_OK);
    struct seg s;
    uint32_t end = E_SEQ + (uint32_t)sizeof(r);
    for (int i = 0; i < 200 && H.nout; i++) {
        CHECK(parse(H.nout - 1, &s));
        H.nout = 0;
        o = tso();
        inject(5000, 80, TH_ACK, P_SEQ, s.seq + s.len, 65535, &o, NULL, 0);
    }
    CHECK(rne_tcp_send_space(H.conn) == 64 * 1024);
    struct rne_span sp[2];
    CHECK(rne_tcp_reserve(H.conn, 0, sp) == RNE_TCP_EINVAL);
    CHECK(rne_tcp_reserve(H.conn, 64 * 1024 + 1, sp) == RNE_TCP_EMSGSIZE);
    CHECK(rne_tcp_reserve(H.conn, 3000, sp) == RNE_TCP_OK);
    CHECK(sp[0].len == 64 * 1024 - sizeof(r) && sp[1].len == 3000 - sp[0].len);
    rne_span_put(sp, 0, r, 3000);
    /* not committed: nothing queued, the same spans again */
    CHECK(H.nout == 0 && rne_tcp_send_space(H.conn) == 64 * 1024);
    struct rne_span sp2[2];
    CHECK(rne_tcp_reserve(H.conn, 3000, sp2) == RNE_TCP_OK);
    CHECK(sp2[0].base == sp[0].base && sp2[1].base == sp[1].base);
    /* written in three pieces across the wrap, then queued */
    rne_span_put(sp2, 0, pat, 1000);
    rne_span_put(sp2, 1000, pat + 1000, 1001);
    rne_span_put(sp2, 2001, pat + 2001, 999);
    rne_tcp_commit(H.conn, 3000, H.now);
    CHECK(rne_tcp_send_space(H.conn) == 64 * 1024 - 3000);
    uint32_t n = 0;
    for (int i = 0; i < H.nout; i++) {
        CHECK(parse(i, &s));        /* parse() checks the TCP checksum */
        if (s.len && s.seq - end + s.len <= sizeof(got)) {
            memcpy(got + (s.seq - end), s.data, s.len);
            n += s.len;
        }
    }
    CHECK(n == sizeof(pat) && !memcmp(got, pat, sizeof(pat)));
}

/*
 * rne_span_gather: the part before the wrap, then the part after, each
 * with its offset into the source; a failed first part stops the second.
 */
struct fill_log {
    const uint8_t *src;
    int calls, fail;
    size_t off[2], len[2];
};

static int fill_from(void *ctx, size_t off, uint8_t *dst, size_t len)
{
    struct fill_log *f = ctx;

    if (f->calls < 2) {
        f->off[f->calls] = off;
        f->len[f->calls] = len;
    }
    f->calls++;
    if (f->fail) {
        return f->fail;
    }
    memcpy(dst, f->src + off, len);
    return 0;
}

static void test_span_gather(void)
{
    uint8_t a[10], b[10], src[20];
    struct rne_span sp[2] = { { a, sizeof(a) }, { b, sizeof(b) } };
    struct fill_log f;

    for (size_t i = 0; i < sizeof(src); i++) {
        src[i] = (uint8_t)(0xa0 + i);
    }
    memset(a, 0, sizeof(a));
    memset(b, 0, sizeof(b));
    /* across the wrap: 6 octets at a + 4, then 6 at b */
    f = (struct fill_log){ .src = src };
    CHECK(rne_span_gather(sp, 4, 12, fill_from, &f) == 0);
    CHECK(f.calls == 2 && f.off[0] == 0 && f.len[0] == 6 &&
          f.off[1] == 6 && f.len[1] == 6);
    CHECK(!memcmp(a + 4, src, 6) && !memcmp(b, src + 6, 6) && a[3] == 0 &&
          b[6] == 0);
    /* wholly before or wholly after the wrap: one call */
    f = (struct fill_log){ .src = src };
    CHECK(rne_span_gather(sp, 0, 10, fill_from, &f) == 0);
    CHECK(f.calls == 1 && f.len[0] == 10 && !memcmp(a, src, 10));
    f = (struct fill_log){ .src = src + 10 };
    CHECK(rne_span_gather(sp, 12, 5, fill_from, &f) == 0);
    CHECK(f.calls == 1 && f.off[0] == 0 && f.len[0] == 5 &&
          !memcmp(b + 2, src + 10, 5));
    /* nothing to fill: no call */
    f = (struct fill_log){ .src = src };
    CHECK(rne_span_gather(sp, 3, 0, fill_from, &f) == 0 && f.calls == 0);
    /* the first part fails: its error, and the second part is not read */
    f = (struct fill_log){ .src = src, .fail = 7 };
    CHECK(rne_span_gather(sp, 8, 4, fill_from, &f) == 7 && f.calls == 1);
    /* rne_span_put splits the same way; n 0 with no source is allowed */
    memset(a, 0, sizeof(a));
    memset(b, 0, sizeof(b));
    rne_span_put(sp, 7, src, 5);
    CHECK(!memcmp(a + 7, src, 3) && !memcmp(b, src + 3, 2) && b[2] == 0);
    rne_span_put(sp, 5, NULL, 0);
}

/* Drive the passive connection into the named state. */
static bool reach(int st)
{
    h_init();
    if (!establish(NULL)) {
        return false;
    }
    struct opts o;
    struct seg s;
    switch (st) {
    case RNE_TCP_ESTABLISHED:
        break;
    case RNE_TCP_FIN_WAIT_1:
        rne_tcp_close(H.conn, H.now);
        E_SEQ++;
        break;
    case RNE_TCP_FIN_WAIT_2:
        rne_tcp_close(H.conn, H.now);
        E_SEQ++;
        o = tso();
        inject(5000, 80, TH_ACK, P_SEQ, E_SEQ, 2048, &o, NULL, 0);
        break;
    case RNE_TCP_CLOSE_WAIT:
        o = tso();
        inject(5000, 80, TH_FIN | TH_ACK, P_SEQ, E_SEQ, 2048, &o, NULL, 0);
        P_SEQ++;
        break;
    case RNE_TCP_LAST_ACK:
        o = tso();
        inject(5000, 80, TH_FIN | TH_ACK, P_SEQ, E_SEQ, 2048, &o, NULL, 0);
        P_SEQ++;
        rne_tcp_close(H.conn, H.now);
        E_SEQ++;
        break;
    case RNE_TCP_CLOSING:
        rne_tcp_close(H.conn, H.now);
        o = tso();
        inject(5000, 80, TH_FIN | TH_ACK, P_SEQ, E_SEQ, 2048, &o, NULL, 0);   /* ours not acked */
        P_SEQ++;
        E_SEQ++;
        break;
    case RNE_TCP_TIME_WAIT:
        rne_tcp_close(H.conn, H.now);
        E_SEQ++;
        o = tso();
        inject(5000, 80, TH_FIN | TH_ACK, P_SEQ, E_SEQ, 2048, &o, NULL, 0);
        P_SEQ++;
        break;
    }
    (void)s;
    if (st == RNE_TCP_TIME_WAIT) {
        return H.closed == 1 && H.closed_err == 0 && H.conn == NULL;
    }
    return state() == st;
}

static void test_rst_every_state(void)
{
    static const int states[] = { RNE_TCP_ESTABLISHED, RNE_TCP_FIN_WAIT_1, RNE_TCP_FIN_WAIT_2,
                                  RNE_TCP_CLOSE_WAIT, RNE_TCP_CLOSING, RNE_TCP_LAST_ACK };
    for (size_t i = 0; i < sizeof(states) / sizeof(states[0]); i++) {
        CHECK(reach(states[i]));
        /* in window but not exactly rcv_nxt: challenge ACK, connection stays (RFC 5961 §3.2) */
        H.nout = 0;
        inject(5000, 80, TH_RST, P_SEQ + 10, 0, 0, NULL, NULL, 0);
        struct seg s;
        CHECK(state() == states[i] && H.nout == 1 && parse(0, &s) && s.flags == TH_ACK &&
              s.ack == P_SEQ);
        /* outside the window: silently dropped */
        H.nout = 0;
        inject(5000, 80, TH_RST, P_SEQ + 1000000, 0, 0, NULL, NULL, 0);
        CHECK(state() == states[i] && H.nout == 0);
        /* exact: the connection is reset */
        inject(5000, 80, TH_RST, P_SEQ, 0, 0, NULL, NULL, 0);
        CHECK(H.closed == 1 && H.closed_err == RNE_TCP_ECONNRESET && H.conn == NULL);
        CHECK(rne_tcp_get_stats(H.t)->conns_now == 0);
    }
    /* TIME_WAIT ignores RST (RFC 1337) and expires after 2*MSL */
    CHECK(reach(RNE_TCP_TIME_WAIT));
    inject(5000, 80, TH_RST, P_SEQ, 0, 0, NULL, NULL, 0);
    CHECK(rne_tcp_get_stats(H.t)->conns_now == 1);
    /* a retransmitted FIN in TIME_WAIT is acked again */
    H.nout = 0;
    struct opts o = tso();
    inject(5000, 80, TH_FIN | TH_ACK, P_SEQ - 1, E_SEQ, 2048, &o, NULL, 0);
    struct seg s;
    CHECK(H.nout == 1 && parse(0, &s) && s.ack == P_SEQ);
    advance(1999 * MS);
    CHECK(rne_tcp_get_stats(H.t)->conns_now == 1);
    advance(2 * MS);
    CHECK(rne_tcp_get_stats(H.t)->conns_now == 0);
    /* SYN_RCVD: RST returns quietly to LISTEN */
    h_init();
    rne_tcp_listen(H.t, 80, 16, NULL);
    inject(5000, 80, TH_SYN, 1000, 0, 65535, &SYNO, NULL, 0);
    CHECK(rne_tcp_get_stats(H.t)->conns_now == 1);
    inject(5000, 80, TH_RST, 1001, 0, 0, NULL, NULL, 0);
    CHECK(rne_tcp_get_stats(H.t)->conns_now == 0 && H.closed == 0 && H.accepted == 0);
    /* SYN_SENT: RST without ACK ignored; RST acking our SYN refuses */
    h_init();
    struct rne_ipaddr pa;
    rne_ipaddr_v4(&pa, 10, 0, 0, 2);
    H.conn = rne_tcp_connect(H.t, &pa, 5000, 80, MAC_P, &H, H.now);
    CHECK(H.conn && parse(0, &s) && s.flags == TH_SYN && s.mss == 1460 && s.sackok && s.has_ts);
    inject(5000, 80, TH_RST, 0, 0, 0, NULL, NULL, 0);
    CHECK(H.closed == 0);
    inject(5000, 80, TH_RST | TH_ACK, 0, s.seq + 5, 0, NULL, NULL, 0);    /* bad ack: ignored */
    CHECK(H.closed == 0);
    inject(5000, 80, TH_RST | TH_ACK, 0, s.seq + 1, 0, NULL, NULL, 0);
    CHECK(H.closed == 1 && H.closed_err == RNE_TCP_ECONNREFUSED);
}

static void test_orderly_close(void)
{
    /* passive close: FIN -> CLOSE_WAIT -> close -> LAST_ACK -> ACK -> closed(0) */
    CHECK(reach(RNE_TCP_LAST_ACK));
    CHECK(H.peer_closed == 1);
    struct seg s;
    CHECK(parse(H.nout - 1, &s) && (s.flags & TH_FIN) && s.seq == E_SEQ - 1);
    struct opts o = tso();
    inject(5000, 80, TH_ACK, P_SEQ, E_SEQ, 2048, &o, NULL, 0);
    CHECK(H.closed == 1 && H.closed_err == 0 && rne_tcp_get_stats(H.t)->conns_now == 0);
    /* FIN after data that is still missing: held until the gap fills */
    h_init();
    CHECK(establish(NULL));
    o = tso();
    inject(5000, 80, TH_ACK | TH_FIN, P_SEQ + 10, E_SEQ, 2048, &o, "0123456789", 10);
    CHECK(H.peer_closed == 0);
    o = tso();
    inject(5000, 80, TH_ACK, P_SEQ, E_SEQ, 2048, &o, "abcdefghij", 10);
    CHECK(H.rxlen == 20 && !memcmp(H.rx, "abcdefghij0123456789", 20));
    CHECK(H.peer_closed == 1 && state() == RNE_TCP_CLOSE_WAIT);
    /* simultaneous close: CLOSING -> ACK of our FIN -> TIME_WAIT */
    CHECK(reach(RNE_TCP_CLOSING));
    o = tso();
    inject(5000, 80, TH_ACK, P_SEQ, E_SEQ, 2048, &o, NULL, 0);
    CHECK(H.closed == 1 && H.closed_err == 0 && rne_tcp_get_stats(H.t)->conns_now == 1);
    /* the upper layer may refuse a connection: the peer gets a RST */
    h_init();
    H.refuse = true;
    rne_tcp_listen(H.t, 80, 16, NULL);
    inject(5000, 80, TH_SYN, 1000, 0, 65535, &SYNO, NULL, 0);
    CHECK(parse(0, &s));
    H.nout = 0;
    o = tso();
    inject(5000, 80, TH_ACK, 1001, s.seq + 1, 2048, &o, NULL, 0);
    CHECK(H.nout == 1 && parse(0, &s) && (s.flags & TH_RST));
    CHECK(rne_tcp_get_stats(H.t)->conns_now == 0);
}

/*
 * The receiver aborts the connection from inside its recv callback while
 * the same event still carries an ACK of our data and the peer's FIN:
 * rne_tcp_deliver tells it nothing more about that connection (before,
 * peer_closed and acked were called on the aborted handle, whose slot was
 * back in the pool).  The same with the data after a gap filled, so the
 * stream is read in two spans.
 */
static void test_abort_in_delivery(void)
{
    for (int gap = 0; gap < 2; gap++) {
        struct opts o;
        struct seg s;

        h_init();
        CHECK(establish(NULL));
        CHECK(rne_tcp_send(H.conn, "x", 1, H.now) == RNE_TCP_OK);
        E_SEQ++;
        if (gap) {
            o = tso();
            inject(5000, 80, TH_ACK, P_SEQ + 5, E_SEQ - 1, 2048, &o, "world", 5);
        }
        H.nout = 0;
        H.abort_in_recv = true;
        o = tso();
        inject(5000, 80, TH_ACK | (gap ? 0 : TH_FIN), P_SEQ, E_SEQ, 2048, &o,
               "hello", 5);
        CHECK(H.aborted != NULL && !H.abort_in_recv);
        CHECK(H.after_abort == 0);
        CHECK(H.peer_closed == 0 && H.closed == 0 && H.acked_bytes == 0);
        CHECK(H.nout >= 1 && parse(H.nout - 1, &s) && (s.flags & TH_RST));
        CHECK(rne_tcp_get_stats(H.t)->conns_now == 0);
        /* the engine goes on: a new connection on the same port works */
        H.aborted = NULL;
        H.accepted = 0;
        H.nout = 0;
        inject(5001, 80, TH_SYN, 7000, 0, 65535, &SYNO, NULL, 0);
        CHECK(H.nout == 1 && parse(0, &s) && s.flags == (TH_SYN | TH_ACK));
    }
}

/* Peer sequence numbers that wrap through zero, in order and out of order. */
static void test_seq_wrap(void)
{
    h_init();
    rne_tcp_listen(H.t, 80, 16, NULL);
    const uint32_t pisn = 0xffffff00u;
    inject(5000, 80, TH_SYN, pisn, 0, 65535, &SYNO, NULL, 0);
    struct seg s;
    CHECK(parse(0, &s) && s.ack == pisn + 1);
    E_SEQ = s.seq + 1;
    struct opts o = tso();
    inject(5000, 80, TH_ACK, pisn + 1, E_SEQ, 2048, &o, NULL, 0);
    CHECK(H.accepted == 1);
    static uint8_t d[1200];
    for (int i = 0; i < 1200; i++) {
        d[i] = (uint8_t)(i * 13 + 1);
    }
    uint32_t p = pisn + 1;          /* 255 bytes before the wrap */
    o = tso();
    inject(5000, 80, TH_ACK, p + 600, E_SEQ, 2048, &o, d + 600, 600);     /* after the wrap, OOO */
    o = tso();
    inject(5000, 80, TH_ACK, p, E_SEQ, 2048, &o, d, 600);                 /* crosses zero */
    CHECK(H.rxlen == 1200 && !memcmp(H.rx, d, 1200));
    CHECK(parse(H.nout - 1, &s) && s.ack == p + 1200 && s.ack < 0x1000);
}

static void test_rfc5961(void)
{
    h_init();
    CHECK(establish(NULL));
    /* SYN on an established connection: challenge ACK, no reset */
    H.nout = 0;
    struct opts syn = SYNO;
    syn.tsval = ++P_TS;
    inject(5000, 80, TH_SYN, P_SEQ, 0, 2048, &syn, NULL, 0);
    struct seg s;
    CHECK(state() == RNE_TCP_ESTABLISHED && H.nout == 1 && parse(0, &s) && s.flags == TH_ACK);
    /* ACK for data never sent: challenge ACK, data not accepted */
    H.nout = 0;
    struct opts o = tso();
    inject(5000, 80, TH_ACK, P_SEQ, E_SEQ + 5000, 2048, &o, "zz", 2);
    CHECK(H.nout == 1 && H.rxlen == 0);
    CHECK(rne_tcp_get_stats(H.t)->tx_challenge_ack == 2);
    /* RFC 5961 §7: at most challenge_ack_limit per second */
    struct rne_tcp_config cfg;
    setup_cfg(&cfg);
    cfg.challenge_ack_limit = 3;
    h_init_cfg(&cfg);
    CHECK(establish(NULL));
    H.nout = 0;
    for (int i = 0; i < 5; i++) {
        inject(5000, 80, TH_RST, P_SEQ + 1 + (uint32_t)i, 0, 0, NULL, NULL, 0);
    }
    CHECK(H.nout == 3 && state() == RNE_TCP_ESTABLISHED);
    advance(1000 * MS);
    inject(5000, 80, TH_RST, P_SEQ + 1, 0, 0, NULL, NULL, 0);
    CHECK(H.nout == 4);
}

static void test_paws(void)
{
    h_init();
    CHECK(establish(NULL));
    struct opts o = tso();
    inject(5000, 80, TH_ACK, P_SEQ, E_SEQ, 2048, &o, "new", 3);
    CHECK(H.rxlen == 3);
    P_SEQ += 3;
    H.nout = 0;
    o = tso();
    o.tsval = 5;                        /* older than ts_recent */
    inject(5000, 80, TH_ACK, P_SEQ, E_SEQ, 2048, &o, "old", 3);
    CHECK(H.rxlen == 3 && H.nout == 1 && rne_tcp_get_stats(H.t)->paws_drop == 1);
}

static void test_no_listener_and_backlog(void)
{
    h_init();
    inject(5000, 81, TH_SYN, 1000, 0, 65535, NULL, NULL, 0);
    struct seg s;
    CHECK(H.nout == 1 && parse(0, &s) && s.flags == (TH_RST | TH_ACK) && s.ack == 1001 &&
          s.seq == 0);
    inject(5000, 81, TH_ACK, 1000, 777, 65535, NULL, NULL, 0);
    CHECK(H.nout == 2 && parse(1, &s) && s.flags == TH_RST && s.seq == 777);
    inject(5000, 81, TH_RST, 1000, 0, 0, NULL, NULL, 0);
    CHECK(H.nout == 2);                 /* never a RST for a RST */
    /* backlog 2: the third embryonic connection is dropped */
    h_init();
    rne_tcp_listen(H.t, 80, 2, NULL);
    for (uint16_t p = 0; p < 3; p++) {
        inject((uint16_t)(6000 + p), 80, TH_SYN, 1000, 0, 65535, &SYNO, NULL, 0);
    }
    CHECK(H.nout == 2 && rne_tcp_get_stats(H.t)->conns_now == 2);
    /* a SYN-ACK lost: the peer's repeated SYN gets it again */
    inject(6000, 80, TH_SYN, 1000, 0, 65535, &SYNO, NULL, 0);
    CHECK(H.nout == 3 && parse(2, &s) && s.flags == (TH_SYN | TH_ACK));
    /* bad TCP checksum and bad data offset are dropped */
    h_init();
    rne_tcp_listen(H.t, 80, 2, NULL);
    struct opts bad = SYNO;
    bad.bad_csum = true;
    inject(5000, 80, TH_SYN, 1000, 0, 65535, &bad, NULL, 0);
    CHECK(H.nout == 0 && rne_tcp_get_stats(H.t)->rx_csum_err == 1);
    struct opts doff = { -1, -1, false, false, 0, 0, 0, {{0, 0}}, false, 3 };
    inject(5000, 80, TH_SYN, 1000, 0, 65535, &doff, NULL, 0);
    doff.doff_override = 15;
    inject(5000, 80, TH_SYN, 1000, 0, 65535, &doff, NULL, 0);
    CHECK(H.nout == 0 && rne_tcp_get_stats(H.t)->rx_bad == 2);
}

static void test_rto_backoff(void)
{
    h_init();
    CHECK(establish(NULL));
    struct opts o = tso();
    inject(5000, 80, TH_ACK, P_SEQ, E_SEQ, 65535, &o, NULL, 0);
    H.nout = 0;
    uint8_t r[100] = { 0 };
    rne_tcp_send(H.conn, r, 100, H.now);
    struct seg s;
    CHECK(H.nout == 1 && parse(0, &s) && s.seq == E_SEQ && s.len == 100);
    struct rne_tcp_info inf;
    rne_tcp_get_info(H.conn, &inf);
    uint64_t rto = inf.rto_ms * MS;
    CHECK(inf.rto_ms >= 200);
    /* retransmissions at rto, then 2*rto later, then 4*rto later */
    uint64_t gap = rto;
    for (int k = 0; k < 3; k++) {
        advance(gap - MS);
        CHECK(H.nout == 1 + k);
        advance(MS);
        CHECK(H.nout == 2 + k && parse(1 + k, &s) && s.seq == E_SEQ && s.len == 100);
        gap *= 2;
    }
    /* an ACK stops it */
    o = tso();
    inject(5000, 80, TH_ACK, P_SEQ, E_SEQ + 100, 65535, &o, NULL, 0);
    int before = H.nout;
    advance(120000 * MS);
    CHECK(H.nout == before && H.acked_bytes == 100);
    /* give-up after data_retries: RST and ETIMEDOUT */
    struct rne_tcp_config cfg;
    setup_cfg(&cfg);
    cfg.data_retries = 3;
    h_init_cfg(&cfg);
    CHECK(establish(NULL));
    rne_tcp_send(H.conn, r, 100, H.now);
    for (int k = 0; k < 10 && H.closed == 0; k++) {
        advance(70000 * MS);
    }
    CHECK(H.closed == 1 && H.closed_err == RNE_TCP_ETIMEDOUT);
    CHECK(parse(H.nout - 1, &s) && (s.flags & TH_RST));
    /* SYN retransmission with backoff, then ETIMEDOUT */
    h_init();
    struct rne_ipaddr pa;
    rne_ipaddr_v4(&pa, 10, 0, 0, 2);
    H.conn = rne_tcp_connect(H.t, &pa, 5000, 0, MAC_P, &H, H.now);
    advance(999 * MS);
    CHECK(H.nout == 1);
    advance(1 * MS);
    CHECK(H.nout == 2);
    advance(2000 * MS);
    CHECK(H.nout == 3);
    for (int k = 0; k < 10; k++) {
        advance(60000 * MS);
    }
    CHECK(H.nout == 7 && H.closed == 1 && H.closed_err == RNE_TCP_ETIMEDOUT);
}

static void test_fast_retransmit(void)
{
    for (int sack = 0; sack < 2; sack++) {
        h_init();
        struct opts syn = SYNO;
        syn.sackok = sack;
        CHECK(establish(&syn));
        struct opts o = tso();
        inject(5000, 80, TH_ACK, P_SEQ, E_SEQ, 65535, &o, NULL, 0);
        H.nout = 0;
        static uint8_t r[1448];
        for (int i = 0; i < 3; i++) {
            rne_tcp_send(H.conn, r, 1448, H.now);
        }
        CHECK(H.nout == 3);
        /* segment 1 lost; segments 2, 3 arrive: dup ACKs, then one more for new data */
        for (int i = 0; i < 3; i++) {
            o = tso();
            if (sack) {
                o.nsack = 1;
                o.sack[0][0] = E_SEQ + 1448;
                o.sack[0][1] = E_SEQ + 1448 * (uint32_t)(i < 2 ? i + 2 : 3);
            }
            inject(5000, 80, TH_ACK, P_SEQ, E_SEQ, 65535, &o, NULL, 0);
            rne_tcp_send(H.conn, r, 1448, H.now);       /* limited by cwnd, may queue */
        }
        struct seg s;
        bool rexmit = false;
        for (int i = 3; i < H.nout; i++) {
            if (parse(i, &s) && s.seq == E_SEQ && s.len == 1448) {
                rexmit = true;
            }
        }
        CHECK(rexmit);                  /* before any RTO */
        CHECK(rne_tcp_get_stats(H.t)->fast_rexmit == 1 && rne_tcp_get_stats(H.t)->rto_fired == 0);
        struct rne_tcp_info inf;
        rne_tcp_get_info(H.conn, &inf);
        CHECK(inf.ssthresh == 2 * 1448u);       /* max(flight/2, 2*SMSS) */
    }
}

static void test_zero_window_probe(void)
{
    h_init();
    CHECK(establish(NULL));
    struct opts o = tso();
    inject(5000, 80, TH_ACK, P_SEQ, E_SEQ, 0, &o, NULL, 0);
    H.nout = 0;
    uint8_t r[500] = { 1 };
    rne_tcp_send(H.conn, r, 500, H.now);
    CHECK(H.nout == 0);
    advance(1100 * MS);                 /* persist timer (>= RTO) */
    struct seg s;
    CHECK(H.nout >= 1 && parse(0, &s) && s.len == 0 && s.seq == E_SEQ - 1);
    CHECK(rne_tcp_get_stats(H.t)->persist_probes >= 1);
    /* probes back off; the connection is never dropped for a zero window */
    advance(600000 * MS);
    CHECK(H.closed == 0 && H.conn != NULL);
    int n = H.nout;
    o = tso();
    inject(5000, 80, TH_ACK, P_SEQ, E_SEQ, 2048, &o, NULL, 0);
    CHECK(H.nout == n + 1 && parse(n, &s) && s.len == 500 && s.seq == E_SEQ);
}

static void test_receive_window(void)
{
    h_init();
    CHECK(establish(NULL));
    static uint8_t d[1448];
    /* the upper layer does not consume: 64 KiB window fills and closes */
    uint32_t sent = 0;
    for (int i = 0; i < 60; i++) {
        struct opts o = tso();
        inject(5000, 80, TH_ACK, P_SEQ + sent, E_SEQ, 2048, &o, d, sizeof(d));
        sent += sizeof(d);
    }
    CHECK(H.rxlen == 65536);            /* window 65535 rounded to the buffer: 64 KiB */
    struct seg s;
    parse(H.nout - 1, &s);
    CHECK(s.win == 0 && s.ack == P_SEQ + 65536);
    /* consuming reopens the window with an update */
    H.nout = 0;
    rne_tcp_recv_done(H.conn, 65536, H.now);
    CHECK(H.nout == 1 && parse(0, &s) && s.win == 65536 >> 1);
}

/*
 * Octets nobody will read do not hold the receive window: once the upper
 * layer lets go of a connection TCP still closes (iWARP after a Terminate
 * or an abort of its side), what it left unconsumed and what comes after
 * count as consumed, and the peer is offered the window again.
 */
static void test_unread_after_release(void)
{
    h_init();
    CHECK(establish(NULL));
    static uint8_t d[1448];
    struct seg s;
    uint32_t sent = 0;
    H.manual = true;
    for (int i = 0; i < 30; i++) {
        struct opts o = tso();
        inject(5000, 80, TH_ACK, P_SEQ + sent, E_SEQ, 2048, &o, d, sizeof(d));
        sent += sizeof(d);
        pull_all();                     /* read, never consumed */
    }
    CHECK(parse(H.nout - 1, &s) && s.ack == P_SEQ + sent &&
          (uint32_t)s.win << 1 < 65536 - 40000);
    H.nout = 0;
    rne_tcp_set_user(H.conn, NULL);
    pull_all();
    /* the window reopens at once: the peer may be waiting for it */
    CHECK(H.nout == 1 && parse(0, &s) && s.win == 65536 >> 1);
    /* and stays open for what arrives afterwards */
    for (int i = 0; i < 30; i++) {
        struct opts o = tso();
        inject(5000, 80, TH_ACK, P_SEQ + sent, E_SEQ, 2048, &o, d, sizeof(d));
        sent += sizeof(d);
        pull_all();
    }
    CHECK(parse(H.nout - 1, &s) && s.ack == P_SEQ + sent &&
          s.win == 65536 >> 1);
    H.manual = false;
}

static void test_isn_and_demux(void)
{
    h_init();
    rne_tcp_listen(H.t, 80, 4096, NULL);
    uint32_t isn[3];
    struct seg s;
    for (int i = 0; i < 2; i++) {
        inject((uint16_t)(7000 + i), 80, TH_SYN, 1000, 0, 65535, &SYNO, NULL, 0);
        parse(H.nout - 1, &s);
        isn[i] = s.seq;
    }
    CHECK(isn[0] != isn[1]);
    /* same secret, same time, same tuple: same ISN (determinism) */
    h_init();
    rne_tcp_listen(H.t, 80, 4096, NULL);
    inject(7000, 80, TH_SYN, 1000, 0, 65535, &SYNO, NULL, 0);
    parse(0, &s);
    CHECK(s.seq == isn[0]);
    /* another secret: another ISN */
    struct rne_tcp_config cfg;
    setup_cfg(&cfg);
    cfg.isn_secret[0] ^= 1;
    h_init_cfg(&cfg);
    rne_tcp_listen(H.t, 80, 4096, NULL);
    inject(7000, 80, TH_SYN, 1000, 0, 65535, &SYNO, NULL, 0);
    parse(0, &s);
    isn[2] = s.seq;
    CHECK(isn[2] != isn[0]);
    /* 3000 connections: each handshake and a byte of data lands on the right one */
    h_init();
    rne_tcp_listen(H.t, 80, 4096, NULL);
    const int N = 3000;
    static uint32_t eiss[3000];
    for (int i = 0; i < N; i++) {
        H.nout = 0;
        inject((uint16_t)(10000 + i), 80, TH_SYN, (uint32_t)i * 7, 0, 65535, &SYNO, NULL, 0);
        parse(0, &s);
        eiss[i] = s.seq + 1;
    }
    for (int i = 0; i < N; i++) {
        struct opts o = { -1, -1, false, true, 200, 0, 0, {{0, 0}}, false, 0 };
        inject((uint16_t)(10000 + i), 80, TH_ACK, (uint32_t)i * 7 + 1, eiss[i], 2048, &o, NULL, 0);
    }
    CHECK(H.accepted == N && rne_tcp_get_stats(H.t)->conns_now == (uint64_t)N);
    int right = 0;
    for (int i = N - 1; i >= 0; i--) {
        struct opts o = { -1, -1, false, true, 201, 0, 0, {{0, 0}}, false, 0 };
        uint8_t b = (uint8_t)i;
        H.rxlen = 0;
        inject((uint16_t)(10000 + i), 80, TH_ACK, (uint32_t)i * 7 + 1, eiss[i], 2048, &o, &b, 1);
        struct rne_tcp_info inf;
        rne_tcp_get_info(H.accepted_conns[i], &inf);
        right += H.rxlen == 1 && H.rx[0] == b && inf.rcv_nxt == (uint32_t)i * 7 + 2;
    }
    CHECK(right == N);
}

static void test_keepalive(void)
{
    h_init();
    CHECK(establish(NULL));
    H.nout = 0;
    advance(3 * 3600 * 1000 * MS);      /* off by default: nothing */
    CHECK(H.nout == 0 && H.closed == 0);
    struct rne_tcp_config cfg;
    setup_cfg(&cfg);
    cfg.keepalive = true;
    cfg.keep_idle_ms = 10000;
    cfg.keep_intvl_ms = 1000;
    cfg.keep_probes = 3;
    h_init_cfg(&cfg);
    CHECK(establish(NULL));
    H.nout = 0;
    advance(10001 * MS);
    struct seg s;
    CHECK(H.nout == 1 && parse(0, &s) && s.seq == E_SEQ - 1 && s.len == 0);
    /* the peer answers: idle timer restarts */
    struct opts o = tso();
    inject(5000, 80, TH_ACK, P_SEQ, E_SEQ, 2048, &o, NULL, 0);
    advance(5000 * MS);
    CHECK(H.nout == 1);
    for (int i = 0; i < 10; i++) {
        advance(2000 * MS);
    }
    CHECK(H.closed == 1 && H.closed_err == RNE_TCP_ETIMEDOUT);
}

static void test_active_and_simultaneous_open(void)
{
    h_init();
    struct rne_ipaddr pa;
    rne_ipaddr_v4(&pa, 10, 0, 0, 2);
    H.conn = rne_tcp_connect(H.t, &pa, 5000, 0, MAC_P, &H, H.now);
    struct seg s;
    CHECK(parse(0, &s) && s.flags == TH_SYN && s.sport >= 32768);
    uint16_t lport = s.sport;
    /* data queued before establishment goes out after */
    CHECK(rne_tcp_send(H.conn, "hello", 5, H.now) == 0);
    CHECK(H.nout == 1);
    struct opts o = SYNO;
    o.tsecr = s.tsval;
    inject(5000, lport, TH_SYN | TH_ACK, 9000, s.seq + 1, 65535, &o, NULL, 0);
    CHECK(H.connected == 1 && H.emss_events == 1);
    CHECK(H.nout == 2 && parse(1, &s) && s.ack == 9001 && s.len == 5 && !memcmp(s.data, "hello", 5));
    /* simultaneous open: SYN crosses our SYN */
    h_init();
    H.conn = rne_tcp_connect(H.t, &pa, 5000, 4000, MAC_P, &H, H.now);
    parse(0, &s);
    uint32_t iss = s.seq;
    inject(5000, 4000, TH_SYN, 9000, 0, 65535, &SYNO, NULL, 0);
    CHECK(H.nout == 2 && parse(1, &s) && s.flags == (TH_SYN | TH_ACK) && s.seq == iss &&
          s.ack == 9001);
    o = tso();
    inject(5000, 4000, TH_ACK, 9001, iss + 1, 65535, &o, NULL, 0);
    CHECK(H.connected == 1 && state() == RNE_TCP_ESTABLISHED);
    /* close() in SYN_RCVD is held until ESTABLISHED, then the FIN goes out */
    h_init();
    H.conn = rne_tcp_connect(H.t, &pa, 5000, 4001, MAC_P, &H, H.now);
    parse(0, &s);
    iss = s.seq;
    inject(5000, 4001, TH_SYN, 9000, 0, 65535, &SYNO, NULL, 0);
    CHECK(state() == RNE_TCP_SYN_RCVD);
    CHECK(rne_tcp_close(H.conn, H.now) == 0 && state() == RNE_TCP_SYN_RCVD && H.nout == 2);
    o = tso();
    inject(5000, 4001, TH_ACK, 9001, iss + 1, 65535, &o, NULL, 0);
    CHECK(state() == RNE_TCP_FIN_WAIT_1 && parse(H.nout - 1, &s) && (s.flags & TH_FIN) &&
          s.seq == iss + 1);
    h_init();
    H.conn = rne_tcp_connect(H.t, &pa, 5000, 4000, MAC_P, &H, H.now);
    parse(0, &s);
    iss = s.seq;
    inject(5000, 4000, TH_SYN | TH_ACK, 9000, iss + 1, 65535, &SYNO, NULL, 0);
    /* abort sends RST and frees without an event */
    H.nout = 0;
    rne_tcp_abort(H.conn, H.now);
    CHECK(H.nout == 1 && parse(0, &s) && (s.flags & TH_RST) && H.closed == 0);
    CHECK(rne_tcp_get_stats(H.t)->conns_now == 0);
}

static void test_limits_and_unlisten(void)
{
    /* invalid configurations are refused */
    struct rne_tcp_config cfg;
    setup_cfg(&cfg);
    cfg.mtu = 100;
    CHECK(rne_tcp_new(&cfg, &OPS, &H) == NULL);
    setup_cfg(&cfg);
    cfg.addr.family = RNE_AF_INET6;
    CHECK(rne_tcp_new(&cfg, &OPS, &H) == NULL);
    setup_cfg(&cfg);
    cfg.rto_min_ms = 0;
    CHECK(rne_tcp_new(&cfg, &OPS, &H) == NULL);
    /* connection pool exhausted: connect fails, SYNs are dropped, nothing leaks */
    setup_cfg(&cfg);
    cfg.max_conns = 2;
    h_init_cfg(&cfg);
    struct rne_ipaddr pa;
    rne_ipaddr_v4(&pa, 10, 0, 0, 2);
    CHECK(rne_tcp_connect(H.t, &pa, 5000, 0, MAC_P, &H, H.now) != NULL);
    CHECK(rne_tcp_connect(H.t, &pa, 5001, 0, MAC_P, &H, H.now) != NULL);
    CHECK(rne_tcp_connect(H.t, &pa, 5002, 0, MAC_P, &H, H.now) == NULL);
    rne_tcp_listen(H.t, 80, 16, NULL);
    H.nout = 0;
    inject(6000, 80, TH_SYN, 1, 0, 65535, &SYNO, NULL, 0);
    CHECK(H.nout == 0 && rne_tcp_get_stats(H.t)->conns_now == 2);
    /* duplicate listen and port 0 are refused */
    CHECK(rne_tcp_listen(H.t, 80, 16, NULL) == NULL && rne_tcp_listen(H.t, 0, 16, NULL) == NULL);
    /* unlisten resets embryonic children; later SYNs get RST */
    h_init();
    struct rne_tcp_listener *l = rne_tcp_listen(H.t, 80, 16, NULL);
    inject(6000, 80, TH_SYN, 1, 0, 65535, &SYNO, NULL, 0);
    CHECK(rne_tcp_get_stats(H.t)->conns_now == 1);
    H.nout = 0;
    rne_tcp_unlisten(H.t, l);
    struct seg s;
    CHECK(H.nout == 1 && parse(0, &s) && (s.flags & TH_RST));
    CHECK(rne_tcp_get_stats(H.t)->conns_now == 0);
    inject(6001, 80, TH_SYN, 1, 0, 65535, &SYNO, NULL, 0);
    CHECK(H.nout == 2 && parse(1, &s) && s.flags == (TH_RST | TH_ACK));
    /* frames that are not ours are left to the embedder */
    uint8_t arp[60] = { 0 };
    memcpy(arp, MAC_E, 6);
    rne_st_be16(arp + 12, RNE_ETHERTYPE_ARP);
    CHECK(!rne_tcp_input(H.t, arp, sizeof(arp), H.now));
}

/* Feed n full in-order segments, consumed at once (the window stays open). */
static void feed(int n)
{
    static uint8_t d[1448];
    for (int i = 0; i < n; i++) {
        struct opts o = tso();
        inject(5000, 80, TH_ACK, P_SEQ, E_SEQ, 2048, &o, d, sizeof(d));
        P_SEQ += sizeof(d);
        rne_tcp_recv_done(H.conn, sizeof(d), H.now);
    }
}

/* cfg.ack_batch: one ACK per receive burst, after the quick-ACK start. */
static void test_ack_batch(void)
{
    struct rne_tcp_config cfg;
    struct seg s;
    setup_cfg(&cfg);
    cfg.ack_batch = true;
    h_init_cfg(&cfg);
    CHECK(establish(NULL));
    /* the first 2 * rcvbuf octets: every 2nd segment, no batch needed */
    H.nout = 0;
    feed(2 * 65536 / 1448 + 1);
    CHECK(H.nout == (2 * 65536 / 1448 + 1) / 2);
    CHECK(!rne_tcp_ack_owed(H.t) && rne_tcp_get_stats(H.t)->rx_ack_deferred == 0);
    rne_tcp_rx_batch_end(H.t, H.now);
    /* the odd one out waits for the delayed-ACK timer, as before */
    advance(41 * MS);
    CHECK(H.nout == (2 * 65536 / 1448 + 1) / 2 + 1 && parse(H.nout - 1, &s) && s.ack == P_SEQ);
    /* past it: a burst of 4 owes one ACK, sent at the burst's end */
    H.nout = 0;
    feed(4);
    CHECK(H.nout == 0 && rne_tcp_ack_owed(H.t));
    CHECK(rne_tcp_get_stats(H.t)->rx_ack_deferred == 4);
    rne_tcp_rx_batch_end(H.t, H.now);
    CHECK(H.nout == 1 && parse(0, &s) && s.ack == P_SEQ && s.len == 0 && s.flags == TH_ACK);
    CHECK(!rne_tcp_ack_owed(H.t));
    rne_tcp_rx_batch_end(H.t, H.now);           /* nothing owed: nothing sent */
    CHECK(H.nout == 1);
    /* a long burst is still ACKed every rcvbuf / 4 octets (11 segments) */
    H.nout = 0;
    feed(24);
    CHECK(H.nout == 2 && parse(1, &s) && s.ack == P_SEQ - 2 * 1448);
    rne_tcp_rx_batch_end(H.t, H.now);
    CHECK(H.nout == 3 && parse(2, &s) && s.ack == P_SEQ);
    /* a burst of one segment waits for the next one or the timer */
    H.nout = 0;
    feed(1);
    rne_tcp_rx_batch_end(H.t, H.now);
    CHECK(H.nout == 0);
    advance(39 * MS);
    CHECK(H.nout == 0);
    advance(2 * MS);
    CHECK(H.nout == 1 && parse(0, &s) && s.ack == P_SEQ);
    /* a hole is reported at once, and the sender's recovery gets quick ACKs */
    static uint8_t d[1448];
    H.nout = 0;
    struct opts o = tso();
    inject(5000, 80, TH_ACK, P_SEQ + 1448, E_SEQ, 2048, &o, d, sizeof(d));
    CHECK(H.nout == 1 && parse(0, &s) && s.ack == P_SEQ && s.nsack == 1);
    o = tso();
    inject(5000, 80, TH_ACK, P_SEQ, E_SEQ, 2048, &o, d, sizeof(d));
    CHECK(H.nout == 2 && parse(1, &s) && s.ack == P_SEQ + 2896 && s.nsack == 0);
    P_SEQ += 2896;
    rne_tcp_recv_done(H.conn, 2896, H.now);
    feed(2);
    CHECK(H.nout == 3 && parse(2, &s) && s.ack == P_SEQ && !rne_tcp_ack_owed(H.t));
    /* an ACK owed by a connection gone since is dropped with it */
    feed(2 * 65536 / 1448);
    rne_tcp_rx_batch_end(H.t, H.now);
    advance(41 * MS);
    H.nout = 0;
    feed(3);
    CHECK(H.nout == 0 && rne_tcp_ack_owed(H.t));
    rne_tcp_abort(H.conn, H.now);
    H.nout = 0;
    rne_tcp_rx_batch_end(H.t, H.now);
    CHECK(H.nout == 0 && !rne_tcp_ack_owed(H.t));
}

int main(void)
{
    test_handshake_options();
    test_data_in_order_zero_copy();
    test_read_pull();
    test_accept_pull();
    test_unread_after_release();
    test_abort_in_delivery();
    test_ooo_sack();
    test_record_segmentation();
    test_reserve_commit();
    test_span_gather();
    test_rst_every_state();
    test_orderly_close();
    test_rfc5961();
    test_seq_wrap();
    test_paws();
    test_no_listener_and_backlog();
    test_rto_backoff();
    test_fast_retransmit();
    test_zero_window_probe();
    test_receive_window();
    test_ack_batch();
    test_isn_and_demux();
    test_keepalive();
    test_active_and_simultaneous_open();
    test_limits_and_unlisten();
    rne_tcp_free(H.t);
    return check_report("test-tcp");
}
