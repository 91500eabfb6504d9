// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Runs the offload TCP engine as an IP host on a TAP device, for interop
 * tests against Linux's own TCP (tests/interop/tcp-linux.sh). The tool
 * answers ARP for its address, drops frames at random in both directions
 * (--loss) to exercise recovery against a real stack, and moves a
 * deterministic byte pattern each way, verifying what it receives.
 *
 *   tcp-tap-peer --tap DEV --ip A.B.C.D --peer-ip A.B.C.D --peer-mac xx:..
 *                (--connect PORT | --listen PORT) --send N --recv N
 *                [--loss P] [--seed S] [--end close|abort|expect-reset]
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <linux/if.h>
#include <linux/if_tun.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>
#include "tcp/tcp.h"

#define PERIOD 65521u           /* prime: a misplaced chunk cannot match by accident */

static uint8_t pattern_byte(unsigned dir, uint64_t i)
{
    uint64_t k = i % PERIOD;
    return (uint8_t)(k * 31 + (k >> 8) * 7 + dir * 101);
}

struct peer {
    int fd;
    struct rne_tcp *eng;
    struct rne_tcp_conn *c;
    uint8_t mac[6], peer_mac[6];
    uint8_t ip[4];
    double loss;
    uint64_t rng;
    uint64_t to_send, sent, to_recv, rcvd, unread, nrec;
    bool connected, peer_fin, closed, bad;
    int closed_err;
    uint64_t t_start, t_done;
    uint64_t dropped_tx, dropped_rx, frames_tx, frames_rx;
    uint8_t pat[2][PERIOD + 65536];
};

static uint64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static bool lose(struct peer *p)
{
    if (p->loss <= 0) {
        return false;
    }
    p->rng ^= p->rng << 13;
    p->rng ^= p->rng >> 7;
    p->rng ^= p->rng << 17;
    return (double)(p->rng >> 11) / 9007199254740992.0 < p->loss;
}

static void wire_write(struct peer *p, const uint8_t *f, size_t len)
{
    for (int tries = 0; tries < 100; tries++) {
        if (write(p->fd, f, len) >= 0) {
            p->frames_tx++;
            return;
        }
        if (errno != EAGAIN && errno != EINTR) {
            perror("tap write");
            return;
        }
        struct pollfd pf = { .fd = p->fd, .events = POLLOUT };
        poll(&pf, 1, 10);
    }
}

static void op_tx(void *opaque, uint8_t *frame, size_t len)
{
    struct peer *p = opaque;
    if (lose(p)) {
        p->dropped_tx++;
        return;
    }
    wire_write(p, frame, len);
}

static void *op_accept(void *opaque, void *lu, struct rne_tcp_conn *c)
{
    struct peer *p = opaque;
    (void)lu;
    if (p->c) {
        return NULL;            /* one connection per run */
    }
    p->c = c;
    p->connected = true;
    p->t_start = now_ns();
    return p;
}

static void op_connected(void *opaque, struct rne_tcp_conn *c, void *user)
{
    struct peer *p = opaque;
    (void)c; (void)user;
    p->connected = true;
    p->t_start = now_ns();
}

static void op_recv(void *opaque, struct rne_tcp_conn *c, void *user, const uint8_t *d, size_t n)
{
    struct peer *p = opaque;
    (void)c; (void)user;
    if (p->rcvd + n > p->to_recv) {
        fprintf(stderr, "tcp-tap-peer: received more than expected\n");
        p->bad = true;
    } else {
        for (size_t off = 0; off < n; off += 65536) {
            size_t k = n - off < 65536 ? n - off : 65536;
            if (memcmp(d + off, p->pat[0] + (p->rcvd + off) % PERIOD, k) != 0) {
                fprintf(stderr, "tcp-tap-peer: data mismatch near offset %" PRIu64 "\n",
                        p->rcvd + off);
                p->bad = true;
                break;
            }
        }
    }
    p->rcvd += n;
    p->unread += n;
}

static void op_peer_closed(void *opaque, struct rne_tcp_conn *c, void *user)
{
    struct peer *p = opaque;
    (void)c; (void)user;
    p->peer_fin = true;
}

static void op_closed(void *opaque, struct rne_tcp_conn *c, void *user, int err)
{
    struct peer *p = opaque;
    (void)c; (void)user;
    p->closed = true;
    p->closed_err = err;
    p->c = NULL;
}

static void op_emss(void *opaque, struct rne_tcp_conn *c, void *user, uint32_t emss)
{
    (void)opaque; (void)c; (void)user;
    fprintf(stderr, "tcp-tap-peer: EMSS %u\n", emss);
}

static const struct rne_tcp_ops ops = {
    .tx = op_tx, .accept = op_accept, .connected = op_connected, .recv = op_recv,
    .peer_closed = op_peer_closed, .closed = op_closed, .emss = op_emss,
};

/* ARP: answer requests for our address; everything else is not ours. */
static void arp_input(struct peer *p, const uint8_t *f, size_t len)
{
    if (len < 42 || rne_ld_be16(f + 12) != RNE_ETHERTYPE_ARP || rne_ld_be16(f + 20) != 1 ||
        memcmp(f + 38, p->ip, 4) != 0) {
        return;
    }
    uint8_t r[42];
    memcpy(r, f + 6, 6);
    memcpy(r + 6, p->mac, 6);
    rne_st_be16(r + 12, RNE_ETHERTYPE_ARP);
    memcpy(r + 14, f + 14, 6);          /* htype, ptype, hlen, plen */
    rne_st_be16(r + 20, 2);
    memcpy(r + 22, p->mac, 6);
    memcpy(r + 28, p->ip, 4);
    memcpy(r + 32, f + 22, 6);
    memcpy(r + 38, f + 28, 4);
    wire_write(p, r, sizeof(r));
}

static int tap_open(const char *name)
{
    int fd = open("/dev/net/tun", O_RDWR | O_NONBLOCK);
    if (fd < 0) {
        perror("/dev/net/tun");
        return -1;
    }
    struct ifreq ifr;
    memset(&ifr, 0, sizeof(ifr));
    ifr.ifr_flags = IFF_TAP | IFF_NO_PI;
    snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", name);
    if (ioctl(fd, TUNSETIFF, &ifr) < 0) {
        perror("TUNSETIFF");
        close(fd);
        return -1;
    }
    return fd;
}

static bool parse_ip(const char *s, uint8_t *ip)
{
    unsigned a, b, c, d;
    if (sscanf(s, "%u.%u.%u.%u", &a, &b, &c, &d) != 4 || a > 255 || b > 255 || c > 255 || d > 255) {
        return false;
    }
    ip[0] = (uint8_t)a; ip[1] = (uint8_t)b; ip[2] = (uint8_t)c; ip[3] = (uint8_t)d;
    return true;
}

static bool parse_mac(const char *s, uint8_t *m)
{
    unsigned v[6];
    if (sscanf(s, "%x:%x:%x:%x:%x:%x", &v[0], &v[1], &v[2], &v[3], &v[4], &v[5]) != 6) {
        return false;
    }
    for (int i = 0; i < 6; i++) {
        m[i] = (uint8_t)v[i];
    }
    return true;
}

static void pump(struct peer *p, uint64_t now)
{
    if (!p->c || !p->connected) {
        return;
    }
    if (p->unread) {
        uint64_t n = p->unread;
        p->unread = 0;
        rne_tcp_recv_done(p->c, n, now);
        if (!p->c) {
            return;
        }
    }
    /* Records sized like MPA FPDUs at MULPDU 1442, with some variety. */
    static const uint32_t sizes[] = { 1442, 1442, 1442, 600, 1442, 64, 1442, 3000 };
    while (p->sent < p->to_send && p->c) {
        uint64_t n = sizes[p->nrec % 8];
        if (n > p->to_send - p->sent) {
            n = p->to_send - p->sent;
        }
        if (rne_tcp_send_space(p->c) < n) {
            break;
        }
        if (rne_tcp_send(p->c, p->pat[1] + p->sent % PERIOD, n, now) != 0) {
            break;
        }
        p->sent += n;
        p->nrec++;
    }
}

int main(int argc, char **argv)
{
    static struct peer P;
    struct peer *p = &P;
    const char *tap = NULL, *end = "close";
    uint8_t peer_ip[4] = { 0 };
    int connect_port = 0, listen_port = 0;
    bool have_mac = false;
    uint64_t seed = 1;
    double timeout_s = 300;
    uint16_t mtu = 1500;
    uint8_t mymac[6] = { 0x02, 0x52, 0x4e, 0x49, 0x43, 0x01 };
    memcpy(p->mac, mymac, 6);
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!v) {
            fprintf(stderr, "missing value for %s\n", a);
            return 2;
        }
        i++;
        if (!strcmp(a, "--tap")) tap = v;
        else if (!strcmp(a, "--ip")) { if (!parse_ip(v, p->ip)) return 2; }
        else if (!strcmp(a, "--peer-ip")) { if (!parse_ip(v, peer_ip)) return 2; }
        else if (!strcmp(a, "--peer-mac")) { have_mac = parse_mac(v, p->peer_mac); }
        else if (!strcmp(a, "--mac")) { if (!parse_mac(v, p->mac)) return 2; }
        else if (!strcmp(a, "--connect")) connect_port = atoi(v);
        else if (!strcmp(a, "--listen")) listen_port = atoi(v);
        else if (!strcmp(a, "--send")) p->to_send = strtoull(v, NULL, 0);
        else if (!strcmp(a, "--recv")) p->to_recv = strtoull(v, NULL, 0);
        else if (!strcmp(a, "--loss")) p->loss = atof(v);
        else if (!strcmp(a, "--seed")) seed = strtoull(v, NULL, 0);
        else if (!strcmp(a, "--end")) end = v;
        else if (!strcmp(a, "--timeout")) timeout_s = atof(v);
        else if (!strcmp(a, "--mtu")) mtu = (uint16_t)atoi(v);
        else { fprintf(stderr, "unknown option %s\n", a); return 2; }
    }
    if (!tap || (!connect_port == !listen_port) || (connect_port && !have_mac)) {
        fprintf(stderr, "usage: see the header of tcp-tap-peer.c\n");
        return 2;
    }
    p->rng = seed * 0x9e3779b97f4a7c15ull | 1;
    for (unsigned d = 0; d < 2; d++) {
        for (uint64_t i = 0; i < sizeof(p->pat[d]); i++) {
            p->pat[d][i] = pattern_byte(d, i);
        }
    }
    p->fd = tap_open(tap);
    if (p->fd < 0) {
        return 1;
    }
    struct rne_tcp_config cfg;
    rne_tcp_config_default(&cfg);
    memcpy(cfg.mac, p->mac, 6);
    rne_ipaddr_v4(&cfg.addr, p->ip[0], p->ip[1], p->ip[2], p->ip[3]);
    cfg.mtu = mtu;
    cfg.max_conns = 64;
    cfg.sndbuf = 4 << 20;
    cfg.rcvbuf = 4 << 20;
    int ufd = open("/dev/urandom", O_RDONLY);
    if (ufd < 0 || read(ufd, cfg.isn_secret, 16) != 16) {
        perror("urandom");
        return 1;
    }
    close(ufd);
    p->eng = rne_tcp_new(&cfg, &ops, p);
    if (!p->eng) {
        fprintf(stderr, "engine creation failed\n");
        return 1;
    }
    uint64_t t0 = now_ns();
    if (listen_port) {
        rne_tcp_listen(p->eng, (uint16_t)listen_port, 8, p);
    } else {
        struct rne_ipaddr ra;
        rne_ipaddr_v4(&ra, peer_ip[0], peer_ip[1], peer_ip[2], peer_ip[3]);
        p->c = rne_tcp_connect(p->eng, &ra, (uint16_t)connect_port, 0, p->peer_mac, p, t0);
        if (!p->c) {
            fprintf(stderr, "connect failed\n");
            return 1;
        }
    }
    static uint8_t buf[65536 + 64];
    bool ended = false;
    uint64_t deadline = t0 + (uint64_t)(timeout_s * 1e9);
    int rc = 1;
    for (;;) {
        uint64_t now = now_ns();
        if (now > deadline) {
            fprintf(stderr, "tcp-tap-peer: timeout (sent %" PRIu64 "/%" PRIu64 ", received %" PRIu64
                    "/%" PRIu64 ")\n", p->sent, p->to_send, p->rcvd, p->to_recv);
            break;
        }
        if (p->bad) {
            break;
        }
        bool xfer_done = p->connected && p->sent == p->to_send && p->rcvd == p->to_recv;
        if (xfer_done && !p->t_done) {
            p->t_done = now;
        }
        if (xfer_done && !ended && p->c) {
            if (!strcmp(end, "close")) {
                /* wait until our data is acked before closing: keeps the measurement honest */
                rne_tcp_close(p->c, now);
                ended = true;
            } else if (!strcmp(end, "abort")) {
                struct rne_tcp_info inf;
                rne_tcp_get_info(p->c, &inf);
                if (inf.unacked || inf.unsent) {
                    goto io;            /* reset only once the peer has all our data */
                }
                rne_tcp_abort(p->c, now);
                p->c = NULL;
                ended = true;
                rc = 0;
                break;
            } else {
                ended = true;           /* expect-reset: wait for the peer's RST */
            }
        }
        if (p->closed) {
            if (!strcmp(end, "expect-reset")) {
                rc = p->closed_err == RNE_TCP_ECONNRESET && xfer_done ? 0 : 1;
                fprintf(stderr, "tcp-tap-peer: connection reset by peer: %s\n", rc ? "UNEXPECTED" : "as expected");
            } else {
                rc = p->closed_err == 0 && xfer_done && p->peer_fin ? 0 : 1;
                fprintf(stderr, "tcp-tap-peer: closed err=%d peer_fin=%d\n", p->closed_err, p->peer_fin);
            }
            break;
        }
    io:;
        uint64_t d = rne_tcp_next_deadline(p->eng);
        int to = 100;
        if (d != UINT64_MAX) {
            to = d <= now ? 0 : (int)((d - now) / 1000000 + 1);
            if (to > 100) {
                to = 100;
            }
        }
        struct pollfd pf = { .fd = p->fd, .events = POLLIN };
        poll(&pf, 1, to);
        now = now_ns();
        for (int k = 0; k < 256; k++) {
            ssize_t n = read(p->fd, buf, sizeof(buf));
            if (n <= 0) {
                break;
            }
            p->frames_rx++;
            if (lose(p)) {
                p->dropped_rx++;
                continue;
            }
            if (!rne_tcp_input(p->eng, buf, (size_t)n, now)) {
                arp_input(p, buf, (size_t)n);
            }
            rne_tcp_deliver(p->eng);
            pump(p, now);
        }
        if (rne_tcp_next_deadline(p->eng) <= now) {
            rne_tcp_tick(p->eng, now);
            rne_tcp_deliver(p->eng);
        }
        pump(p, now);
    }
    const struct rne_tcp_stats *st = rne_tcp_get_stats(p->eng);
    double secs = p->t_done && p->t_start ? (double)(p->t_done - p->t_start) / 1e9 : 0;
    fprintf(stderr, "tcp-tap-peer: sent %" PRIu64 " received %" PRIu64 " bytes in %.2f s"
            " (%.1f MB/s each way max), frames tx %" PRIu64 " (data %" PRIu64 ") rx %" PRIu64 ", dropped by relay tx %"
            PRIu64 " rx %" PRIu64 ", rexmit %" PRIu64 ", rto %" PRIu64 ", fast-rexmit %" PRIu64
            ", csum_err %" PRIu64 ", ooo %" PRIu64 "\n",
            p->sent, p->rcvd, secs, secs > 0 ? (double)(p->sent > p->rcvd ? p->sent : p->rcvd) / 1e6 / secs : 0,
            p->frames_tx, st->tx_data_segs, p->frames_rx, p->dropped_tx, p->dropped_rx, st->tx_rexmit_segs,
            st->rto_fired, st->fast_rexmit, st->rx_csum_err, st->rx_ooo);
    rne_tcp_free(p->eng);
    close(p->fd);
    return rc;
}
