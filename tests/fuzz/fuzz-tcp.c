// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * libFuzzer harness over the offload TCP's input path (and the API calls
 * that shape its state). The input is a little program of ops:
 *
 *   00xxxxxx  segment: flags, fixups, window, seq, ack, option length (in
 *             words), options, payload length, [dport if fixup bit 3], payload.
 *             Eth/IP headers come from a template; fixups can take seq/ack from
 *             what the engine last sent on that tuple so the fuzzer gets past the
 *             handshake; the checksum is right unless the fixup says otherwise.
 *   01xxxxxx  raw frame (header parsing, bad lengths, fragments, options)
 *   10xxxxxx  advance time by N ms and run timers
 *   11xxxxxx  upper layer: connect, send a record, close, abort, consume, MTU
 *
 * Mode bit 4 takes the events by hand (rne_tcp_pull) instead of through
 * rne_tcp_deliver, and reads only part of what is readable (rne_tcp_peek,
 * every octet touched, then rne_tcp_consume of a fuzzed length): the rest
 * must outlive its frame, which is freed once the pull ended.
 *
 * Every frame the engine emits is parsed back and sanity-checked.
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "tcp/tcp.h"

#define NTUP 4
#define LPORT 80

struct tup {
    uint16_t rport;             /* the fuzzer's port */
    uint16_t lport;             /* engine port: LPORT, or the active open's port */
    uint32_t eng_nxt;           /* engine's seq + seglen on its last frame */
    uint32_t eng_ack;           /* engine's last ack field */
    struct rne_tcp_conn *c;
};

struct fz {
    struct rne_tcp *eng;
    uint64_t now;
    struct tup tup[NTUP];
    uint8_t mac[6], rmac[6];
    struct rne_ipaddr ip, rip;
    const uint8_t *p, *end;
    uint64_t unread;
    bool pull;                  /* events by hand, partial reads */
};

static uint8_t rd8(struct fz *f)
{
    return f->p < f->end ? *f->p++ : 0;
}
static uint16_t rd16(struct fz *f)
{
    uint16_t v = (uint16_t)(rd8(f) << 8);
    return v | rd8(f);
}
static uint32_t rd32(struct fz *f)
{
    uint32_t v = (uint32_t)rd16(f) << 16;
    return v | rd16(f);
}

static struct tup *tup_by_port(struct fz *f, uint16_t rport)
{
    for (int i = 0; i < NTUP; i++) {
        if (f->tup[i].rport == rport) {
            return &f->tup[i];
        }
    }
    return NULL;
}

/* Check what the engine sends: well-formed, right checksums, and remember seq/ack. */
static void fz_tx(void *opaque, uint8_t *frame, size_t len)
{
    struct fz *f = opaque;
    struct rne_ip4_pkt ip;
    if (rne_ip4_parse(frame, len, &ip) != RNE_IP4_OK || ip.proto != RNE_IPPROTO_TCP ||
        ip.l4_len < 20) {
        abort();
    }
    uint32_t sum = rne_csum_pseudo4(ip.src, ip.dst, RNE_IPPROTO_TCP, ip.l4_len);
    if (rne_csum_fold(rne_csum_add(sum, ip.l4, ip.l4_len)) != 0) {
        abort();
    }
    const uint8_t *th = ip.l4;
    size_t doff = (size_t)(th[12] >> 4) * 4;
    if (doff < 20 || doff > ip.l4_len || len > 14 + 1500) {
        abort();
    }
    struct tup *t = tup_by_port(f, rne_ld_be16(th + 2));
    if (t) {
        uint32_t seglen = (uint32_t)(ip.l4_len - doff) + !!(th[13] & 2) + !!(th[13] & 1);
        t->eng_nxt = rne_ld_be32(th + 4) + seglen;
        t->eng_ack = rne_ld_be32(th + 8);
    }
}

static void *fz_accept(void *opaque, void *lu, struct rne_tcp_conn *c)
{
    struct fz *f = opaque;
    (void)lu;
    uint16_t rport;
    rne_tcp_get_tuple(c, NULL, NULL, NULL, &rport);
    struct tup *t = tup_by_port(f, rport);
    if (!t || t->c) {
        return NULL;
    }
    t->c = c;
    return t;
}

static void fz_recv(void *opaque, struct rne_tcp_conn *c, void *user, const uint8_t *d, size_t n)
{
    struct fz *f = opaque;
    (void)c; (void)user;
    volatile uint8_t x = 0;
    for (size_t i = 0; i < n; i++) {
        x ^= d[i];              /* touch every byte: ASan checks the pointer we got */
    }
    (void)x;
    f->unread += n;
}

static void fz_closed(void *opaque, struct rne_tcp_conn *c, void *user, int err)
{
    (void)opaque; (void)c; (void)err;
    ((struct tup *)user)->c = NULL;
}

static const struct rne_tcp_ops fz_ops = {
    .tx = fz_tx, .accept = fz_accept, .recv = fz_recv, .closed = fz_closed,
};

/* Touch the readable octets (ASan checks every span) and consume up to most. */
static void fz_read(struct fz *f, struct rne_tcp_conn *c, size_t most)
{
    struct rne_iov sp[4];
    int n = rne_tcp_peek(c, sp, 4);
    size_t total = 0;
    volatile uint8_t x = 0;
    for (int i = 0; i < n; i++) {
        const uint8_t *b = sp[i].base;
        for (size_t k = 0; k < sp[i].len; k++) {
            x ^= b[k];
        }
        total += sp[i].len;
    }
    (void)x;
    rne_tcp_consume(c, most < total ? most : total, f->now);
}

/* After each call into the engine: its events, by callbacks or by hand. */
static void fz_events(struct fz *f)
{
    struct rne_tcp_event ev;
    if (!f->pull) {
        rne_tcp_deliver(f->eng);
        return;
    }
    while (rne_tcp_pull(f->eng, &ev)) {
        if (ev.events & RNE_TCP_EV_ACCEPTED) {
            ev.user = fz_accept(f, ev.listen_user, ev.conn);
            if (!ev.user) {
                rne_tcp_abort(ev.conn, f->now);
                continue;
            }
            rne_tcp_set_user(ev.conn, ev.user);
        }
        if (ev.events & RNE_TCP_EV_READABLE) {
            fz_read(f, ev.conn, (size_t)rd8(f) * 37);
        }
        if (ev.events & RNE_TCP_EV_CLOSED) {
            ((struct tup *)ev.user)->c = NULL;
        }
    }
}

static void op_segment(struct fz *f, uint8_t op)
{
    uint8_t frame[14 + 1500];
    struct tup *t = &f->tup[op & (NTUP - 1)];
    uint8_t flags = rd8(f);
    uint8_t fix = rd8(f);
    uint16_t win = rd16(f);
    uint32_t seq = rd32(f), ack = rd32(f);
    size_t olen = (rd8(f) % 11) * 4;
    uint8_t opt[40];
    for (size_t i = 0; i < olen; i++) {
        opt[i] = rd8(f);
    }
    size_t plen = rd16(f) % 1200;
    if (fix & 1) {
        seq = t->eng_ack + (uint32_t)(int8_t)(fix & 0xf0);
    }
    if (fix & 2) {
        ack = t->eng_nxt;
    }
    uint16_t dport = (fix & 8) ? (uint16_t)(rd8(f) | 0x100) : t->lport;
    size_t l4 = 20 + olen + plen;
    rne_ip4_build(frame, f->mac, f->rmac, f->rip.u.v4, f->ip.u.v4, RNE_IPPROTO_TCP,
                  (uint16_t)l4, 1);
    uint8_t *th = frame + 34;
    rne_st_be16(th, t->rport);
    rne_st_be16(th + 2, dport);
    rne_st_be32(th + 4, seq);
    rne_st_be32(th + 8, ack);
    th[12] = (uint8_t)(((20 + olen) / 4) << 4);
    th[13] = flags;
    rne_st_be16(th + 14, win);
    rne_st_be16(th + 16, 0);
    rne_st_be16(th + 18, 0);
    memcpy(th + 20, opt, olen);
    for (size_t i = 0; i < plen; i++) {
        th[20 + olen + i] = f->p < f->end ? rd8(f) : (uint8_t)i;
    }
    uint32_t sum = rne_csum_pseudo4(f->rip.u.v4, f->ip.u.v4, RNE_IPPROTO_TCP, (uint16_t)l4);
    uint16_t cs = rne_csum_fold(rne_csum_add(sum, th, l4));
    rne_st_be16(th + 16, (fix & 4) ? (uint16_t)(cs ^ 1) : cs);
    /* exact size, freed after the pull: ASan sees a read of it after that */
    uint8_t *fr = malloc(34 + l4);
    memcpy(fr, frame, 34 + l4);
    rne_tcp_input(f->eng, fr, 34 + l4, f->now);
    fz_events(f);
    free(fr);
}

static void op_raw(struct fz *f)
{
    size_t n = rd16(f) % 1600;
    uint8_t *buf = malloc(n ? n : 1);       /* exact size: ASan catches over-reads */
    for (size_t i = 0; i < n; i++) {
        buf[i] = rd8(f);
    }
    if (n >= 6) {
        memcpy(buf, f->mac, n >= 6 ? 6 : n);
    }
    rne_tcp_input(f->eng, buf, n, f->now);
    fz_events(f);
    free(buf);
}

static void op_app(struct fz *f, uint8_t op)
{
    struct tup *t = &f->tup[(op >> 3) & (NTUP - 1)];
    static uint8_t rec[70000];
    switch (op & 7) {
    case 0:
        if (!t->c) {
            t->lport = (uint16_t)(2000 + (t - f->tup));
            t->c = rne_tcp_connect(f->eng, &f->rip, t->rport, t->lport, f->rmac, t, f->now);
            if (!t->c) {
                t->lport = LPORT;
            }
        }
        break;
    case 1:
        if (t->c) {
            size_t n = rd16(f) % 5000 + 1;
            memset(rec, (int)n, n);
            rne_tcp_send(t->c, rec, n, f->now);
        }
        break;
    case 2:
        if (t->c) {
            rne_tcp_close(t->c, f->now);
        }
        break;
    case 3:
        if (t->c) {
            struct rne_tcp_conn *c = t->c;
            t->c = NULL;
            rne_tcp_abort(c, f->now);
        }
        break;
    case 4:
        if (t->c && f->pull) {
            fz_read(f, t->c, rd16(f));
        } else if (t->c) {
            rne_tcp_recv_done(t->c, f->unread, f->now);
        }
        f->unread = 0;
        break;
    case 5:
        if (t->c) {
            rne_tcp_set_mtu(t->c, (uint16_t)(576 + rd16(f) % 1000));
        }
        break;
    default:
        if (t->c) {
            struct rne_tcp_info inf;
            rne_tcp_get_info(t->c, &inf);
        }
        break;
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct fz F;
    struct fz *f = &F;
    memset(f, 0, sizeof(*f));
    f->p = data;
    f->end = data + size;
    uint8_t m0[6] = { 2, 0, 0, 0, 0, 1 }, m1[6] = { 2, 0, 0, 0, 0, 2 };
    memcpy(f->mac, m0, 6);
    memcpy(f->rmac, m1, 6);
    rne_ipaddr_v4(&f->ip, 10, 0, 0, 1);
    rne_ipaddr_v4(&f->rip, 10, 0, 0, 2);
    for (int i = 0; i < NTUP; i++) {
        f->tup[i].rport = (uint16_t)(1000 + i);
        f->tup[i].lport = LPORT;
    }
    struct rne_tcp_config cfg;
    rne_tcp_config_default(&cfg);
    memcpy(cfg.mac, f->mac, 6);
    cfg.addr = f->ip;
    cfg.max_conns = 6;
    cfg.sndbuf = 16384;
    cfg.rcvbuf = 16384 << (rd8(f) % 4);
    uint8_t mode = rd8(f);
    cfg.no_sack = mode & 1;
    cfg.no_timestamps = mode & 2;
    cfg.no_wscale = mode & 4;
    cfg.keepalive = mode & 8;
    f->pull = mode & 16;
    cfg.keep_idle_ms = 1000;
    cfg.keep_intvl_ms = 100;
    cfg.msl_ms = 500;
    f->now = 1000000000ull;
    f->eng = rne_tcp_new(&cfg, &fz_ops, f);
    if (!f->eng) {
        abort();
    }
    rne_tcp_listen(f->eng, LPORT, 2, NULL);
    int steps = 0;
    while (f->p < f->end && steps++ < 200) {
        uint8_t op = rd8(f);
        switch (op >> 6) {
        case 0:
            op_segment(f, op);
            break;
        case 1:
            op_raw(f);
            break;
        case 2:
            f->now += (uint64_t)(rd16(f) & 0x3fff) * 1000000ull;
            rne_tcp_tick(f->eng, f->now);
            fz_events(f);
            break;
        default:
            op_app(f, op);
            break;
        }
    }
    /* drain: let every timer run out, the engine must end up empty */
    for (int i = 0; i < 200 && rne_tcp_next_deadline(f->eng) != UINT64_MAX; i++) {
        f->now = rne_tcp_next_deadline(f->eng) + 1;
        rne_tcp_tick(f->eng, f->now);
        fz_events(f);
    }
    rne_tcp_free(f->eng);
    return 0;
}
