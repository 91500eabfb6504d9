// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Deterministic simulator: two offload-TCP engines joined by a simulated link
 * with seeded loss, reordering (jitter), duplication, corruption, delay,
 * bandwidth and a drop-tail queue. Each seed picks its own link and stack
 * parameters, opens a few connections, moves a random amount of data both
 * ways in random-size records, closes them and checks: byte-exact delivery,
 * no record that fits the EMSS split across segments, orderly close on both
 * ends, bounded simulated time, and that both engines end with no state.
 * Some connections are aborted mid-transfer (the peer must see the reset)
 * and some see the path MTU drop (the new EMSS must be reported and used).
 * Seed bit 0 / bit 1 turns on stretch ACKs (cfg.ack_batch) in engine A / B:
 * frames arriving within 200 us form a receive burst of random length,
 * ended by rne_tcp_rx_batch_end (drawn from a separate generator, so the
 * seeds keep their links and workloads).
 *
 *   tcp-sim                      run seeds 1..300
 *   tcp-sim --seed N [-v]        rerun one seed (-v summary, -v -v a frame trace)
 *   tcp-sim --seed N --seed M    run exactly these seeds
 *   tcp-sim --seeds A-B
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "tcp/tcp.h"
#include "splitmix64.h"

#define MAXC 4
#define MS 1000000ull
#define SEC 1000000000ull

static double rng_unit(uint64_t *s) { return (double)(splitmix64_next(s) >> 11) / 9007199254740992.0; }
static uint64_t rng_range(uint64_t *s, uint64_t lo, uint64_t hi)
{
    return lo + splitmix64_next(s) % (hi - lo + 1);
}

static inline uint8_t pattern(uint32_t stream, uint64_t i)
{
    return (uint8_t)((i * 0x9e37u) ^ (stream * 131u) ^ ((i >> 8) * 7u) ^ (i >> 16));
}

struct ev {
    uint64_t at, order;
    int dst;
    size_t len;
    uint8_t *frame;
};

struct link {
    double loss, dup, corrupt;
    uint64_t delay, jitter, bps, qlimit, busy_until;
};

struct side;
struct sim;

struct side {
    struct sim *sim;
    int eng, idx;
    struct rne_tcp_conn *c;
    uint32_t tx_stream, rx_stream;
    uint64_t to_send, sent, rcvd, expect;
    uint64_t *rec_end;          /* stream offsets where records end */
    size_t nrec, caprec;
    uint64_t rs;                /* record-size rng */
    uint64_t unread, stall_until;
    uint32_t iss;
    bool have_iss, connected, close_called, peer_fin, closed;
    uint64_t abort_at;          /* abort once this much was received (0: never) */
    uint64_t mtu_at;            /* lower the path MTU once this much was sent (0: never) */
    uint16_t new_mtu;
    uint32_t emss, emss_events;
    uint32_t emss_owed;         /* set_mtu's EMSS, to come as an event */
    bool aborted, reset_ok;
    int closed_err;
    uint16_t lport;
};

struct sim {
    uint64_t seed, rng, now, order;
    int verbose;
    struct rne_tcp *eng[2];
    uint8_t mac[2][6];
    struct rne_ipaddr ip[2];
    struct link link[2];        /* link[i]: frames sent by engine i */
    struct ev *heap;
    size_t nheap, capheap;
    struct side side[MAXC][2];  /* [conn][0 = A end, 1 = B end] */
    int nconn;
    double stall_p;
    uint64_t record_max;
    bool check_records;
    int fail;
    char why[256];
    uint64_t frames, drops;
    int naborts;
    uint64_t brng;              /* receive-burst boundaries only */
    uint32_t burst, burst_max;
};

static uint64_t g_conns, g_aborts, g_resets_seen, g_mtu_changes, g_deferred;

static void failf(struct sim *s, const char *fmt, const char *a, uint64_t x, uint64_t y)
{
    if (!s->fail) {
        s->fail = 1;
        snprintf(s->why, sizeof(s->why), fmt, a, x, y);
    }
}

static void heap_push(struct sim *s, struct ev e)
{
    if (s->nheap == s->capheap) {
        s->capheap = s->capheap ? 2 * s->capheap : 1024;
        s->heap = realloc(s->heap, s->capheap * sizeof(*s->heap));
    }
    size_t i = s->nheap++;
    while (i > 0) {
        size_t p = (i - 1) / 2;
        struct ev *pe = &s->heap[p];
        if (pe->at < e.at || (pe->at == e.at && pe->order < e.order)) {
            break;
        }
        s->heap[i] = *pe;
        i = p;
    }
    s->heap[i] = e;
}

static struct ev heap_pop(struct sim *s)
{
    struct ev top = s->heap[0];
    struct ev last = s->heap[--s->nheap];
    size_t i = 0;
    for (;;) {
        size_t l = 2 * i + 1, r = l + 1, m = i;
        struct ev *mv = &last;
        if (l < s->nheap && (s->heap[l].at < mv->at ||
                             (s->heap[l].at == mv->at && s->heap[l].order < mv->order))) {
            m = l;
            mv = &s->heap[l];
        }
        if (r < s->nheap && (s->heap[r].at < mv->at ||
                             (s->heap[r].at == mv->at && s->heap[r].order < mv->order))) {
            m = r;
        }
        if (m == i) {
            break;
        }
        s->heap[i] = s->heap[m];
        i = m;
    }
    if (s->nheap) {
        s->heap[i] = last;
    }
    return top;
}

/* Ends are told apart by the A end's (ephemeral) port. */
static struct side *side_by_port(struct sim *s, int eng, uint16_t lport, uint16_t rport)
{
    uint16_t aport = eng == 0 ? lport : rport;
    for (int i = 0; i < s->nconn; i++) {
        if (s->side[i][0].lport == aport) {
            return &s->side[i][eng];
        }
    }
    return NULL;
}

/* Wire-level check: a record no larger than the EMSS must never be split. */
static void check_segment(struct sim *s, int eng, const uint8_t *f, size_t len)
{
    if (len < 54 || f[12] != 0x08 || f[13] != 0 || f[23] != 6) {
        return;
    }
    const uint8_t *th = f + 14 + (f[14] & 0xf) * 4;
    uint16_t sport = rne_ld_be16(th), dport = rne_ld_be16(th + 2);
    size_t ipl = rne_ld_be16(f + 16);
    size_t doff = (size_t)(th[12] >> 4) * 4;
    size_t plen = ipl - (size_t)(th - f - 14) - doff;
    uint32_t seq = rne_ld_be32(th + 4);
    struct side *sd = side_by_port(s, eng, sport, dport);
    if (s->verbose > 1) {
        printf("%10.6f %c>%c %5u>%5u seq %u ack %u len %zu fl %02x win %u\n", (double)s->now / SEC,
               'A' + eng, 'B' - eng, sport, dport, seq, rne_ld_be32(th + 8), plen, th[13],
               rne_ld_be16(th + 14));
    }
    if (!sd) {
        return;
    }
    if (th[13] & 0x02) {
        sd->iss = seq;
        sd->have_iss = true;
        return;
    }
    if (!plen || !sd->have_iss || !s->check_records || !sd->c) {
        return;
    }
    struct rne_tcp_info inf;
    rne_tcp_get_info(sd->c, &inf);
    uint64_t a = (uint32_t)(seq - sd->iss - 1), b = a + plen;
    if (a >= sd->sent || plen > inf.emss) {
        failf(s, "%s: segment beyond data or above EMSS (off %" PRIu64 " len %" PRIu64 ")",
              "records", a, plen);
        return;
    }
    /* binary search the record containing a and the one containing b-1 */
    for (int k = 0; k < 2; k++) {
        uint64_t off = k ? b - 1 : a;
        size_t lo = 0, hi = sd->nrec;
        while (lo < hi) {
            size_t mid = (lo + hi) / 2;
            if (sd->rec_end[mid] > off) {
                hi = mid;
            } else {
                lo = mid + 1;
            }
        }
        if (lo == sd->nrec) {
            failf(s, "%s: no record for offset %" PRIu64 "%" PRIu64, "records", off, 0);
            return;
        }
        uint64_t rs = lo ? sd->rec_end[lo - 1] : 0, re = sd->rec_end[lo];
        if (re - rs <= inf.emss && (k ? re != b : rs != a)) {
            failf(s, "%s: record split by segment at offset %" PRIu64 " len %" PRIu64,
                  "records", a, plen);
        }
    }
}

static void sim_tx(void *opaque, uint8_t *frame, size_t len);

static void link_send(struct sim *s, int from, const uint8_t *frame, size_t len)
{
    struct link *L = &s->link[from];
    s->frames++;
    uint64_t start = L->busy_until > s->now ? L->busy_until : s->now;
    if ((start - s->now) * L->bps / (8 * SEC) > L->qlimit || rng_unit(&s->rng) < L->loss) {
        s->drops++;
        return;
    }
    uint64_t ser = (uint64_t)len * 8 * SEC / L->bps;
    L->busy_until = start + ser;
    int copies = rng_unit(&s->rng) < L->dup ? 2 : 1;
    for (int i = 0; i < copies; i++) {
        struct ev e;
        e.at = L->busy_until + L->delay + (L->jitter ? splitmix64_next(&s->rng) % L->jitter : 0);
        e.order = s->order++;
        e.dst = 1 - from;
        e.len = len;
        e.frame = malloc(len);
        memcpy(e.frame, frame, len);
        /* Corrupt past the Ethernet header: a damaged L2 header fails the FCS
         * on a real link; what gets through must be caught by IP/TCP checksums. */
        if (rng_unit(&s->rng) < L->corrupt && len > 14) {
            e.frame[14 + splitmix64_next(&s->rng) % (len - 14)] ^= (uint8_t)(1 + splitmix64_next(&s->rng) % 255);
        }
        heap_push(s, e);
    }
}

struct eng_ctx { struct sim *s; int idx; };
static struct eng_ctx g_ctx_unused;

static void sim_tx(void *opaque, uint8_t *frame, size_t len)
{
    struct eng_ctx *ec = opaque;
    check_segment(ec->s, ec->idx, frame, len);
    link_send(ec->s, ec->idx, frame, len);
}

static void *sim_accept(void *opaque, void *lu,
                        struct rne_tcp_conn *c)
{
    struct eng_ctx *ec = opaque;
    struct sim *s = ec->s;
    (void)lu;
    uint16_t lport, rport;
    rne_tcp_get_tuple(c, NULL, &lport, NULL, &rport);
    struct side *me = side_by_port(s, ec->idx, lport, rport);
    if (!me) {
        failf(s, "%s: accept for unknown port %" PRIu64 "%" PRIu64, "accept", rport, 0);
        return NULL;
    }
    if (me->c) {
        failf(s, "%s: second accept for conn %" PRIu64 "%" PRIu64, "accept", (uint64_t)me->idx, 0);
        return NULL;
    }
    me->c = c;
    me->lport = lport;
    me->connected = true;
    return me;
}

static void sim_connected(void *opaque, struct rne_tcp_conn *c, void *user)
{
    (void)opaque; (void)c;
    ((struct side *)user)->connected = true;
}

static void sim_recv(void *opaque, struct rne_tcp_conn *c, void *user,
                     const uint8_t *data, size_t len)
{
    struct eng_ctx *ec = opaque;
    struct side *sd = user;
    (void)c;
    if (sd->peer_fin) {
        failf(ec->s, "%s: data after FIN %" PRIu64 "%" PRIu64, "recv", len, 0);
    }
    for (size_t i = 0; i < len; i++) {
        if (data[i] != pattern(sd->rx_stream, sd->rcvd + i)) {
            failf(ec->s, "%s: byte mismatch at offset %" PRIu64 " (chunk %" PRIu64 ")",
                  "recv", sd->rcvd + i, len);
            break;
        }
    }
    sd->rcvd += len;
    if (sd->rcvd > sd->expect) {
        failf(ec->s, "%s: more data than sent: %" PRIu64 " > %" PRIu64, "recv", sd->rcvd, sd->expect);
    }
    sd->unread += len;
}

static void sim_peer_closed(void *opaque, struct rne_tcp_conn *c, void *user)
{
    struct eng_ctx *ec = opaque;
    struct side *sd = user;
    (void)c;
    sd->peer_fin = true;
    if (sd->rcvd != sd->expect) {
        failf(ec->s, "%s: FIN after %" PRIu64 " of %" PRIu64 " bytes", "fin", sd->rcvd, sd->expect);
    }
}

static void sim_closed(void *opaque, struct rne_tcp_conn *c, void *user, int err)
{
    struct eng_ctx *ec = opaque;
    struct side *sd = user;
    (void)c;
    sd->closed = true;
    sd->closed_err = err;
    sd->c = NULL;
    if (err == RNE_TCP_ECONNRESET && sd->reset_ok) {
        g_resets_seen++;
    }
    if (err && !(err == RNE_TCP_ECONNRESET && sd->reset_ok)) {
        failf(ec->s, "%s: connection closed with error %" PRIu64 " (conn %" PRIu64 ")", "close",
              (uint64_t)err, (uint64_t)sd->idx);
    }
}

static void sim_emss(void *opaque, struct rne_tcp_conn *c, void *user, uint32_t emss)
{
    struct side *sd = user;
    (void)opaque; (void)c;
    if (sd->emss_owed && emss != sd->emss_owed) {
        failf(sd->sim, "%s: EMSS %" PRIu64 " reported, %" PRIu64 " expected", "emss",
              emss, sd->emss_owed);
    }
    sd->emss_owed = 0;
    sd->emss = emss;
    sd->emss_events++;
}

static const struct rne_tcp_ops sim_ops = {
    .emss = sim_emss,
    .tx = sim_tx,
    .accept = sim_accept,
    .connected = sim_connected,
    .recv = sim_recv,
    .peer_closed = sim_peer_closed,
    .closed = sim_closed,
};

static uint64_t record_size(struct side *sd, uint64_t max)
{
    uint64_t r = splitmix64_next(&sd->rs);
    switch (r % 4) {
    case 0: return 1 + (r >> 8) % 64;             /* tiny: packed several per segment */
    case 1: return 200 + (r >> 8) % 1300;         /* around an MSS */
    case 2: return 1 + (r >> 8) % max;            /* anything up to the max */
    default: return 1442;                         /* MULPDU-like */
    }
}

/* Upper layer of one end: push records, consume with stalls, close when done. */
static void pump(struct sim *s, struct side *sd)
{
    if (!sd->c || !sd->connected) {
        return;
    }
    if (sd->abort_at && !sd->aborted && sd->rcvd >= sd->abort_at) {
        /* RST mid-transfer: the peer must see ECONNRESET (keepalive finds it if the RST is lost) */
        struct rne_tcp_conn *c = sd->c;
        sd->c = NULL;
        sd->aborted = true;
        s->side[sd->idx][1 - sd->eng].reset_ok = true;
        rne_tcp_abort(c, s->now);
        return;
    }
    if (sd->mtu_at && sd->sent >= sd->mtu_at) {
        /* path MTU drops mid-transfer: EMSS must be re-reported and used */
        sd->mtu_at = 0;
        g_mtu_changes++;
        rne_tcp_set_mtu(sd->c, sd->new_mtu);
        struct rne_tcp_info inf;
        rne_tcp_get_info(sd->c, &inf);
        if (inf.emss > (uint32_t)sd->new_mtu - 40) {
            failf(s, "%s: EMSS %" PRIu64 " after MTU change to %" PRIu64, "emss",
                  inf.emss, sd->new_mtu);
        }
        /* reported as an event, taken at the next pull */
        sd->emss_owed = inf.emss != sd->emss ? inf.emss : 0;
    }
    uint8_t buf[65536];
    while (sd->sent < sd->to_send) {
        size_t space = rne_tcp_send_space(sd->c);
        uint64_t n = record_size(sd, s->record_max);
        if (n > sd->to_send - sd->sent) {
            n = sd->to_send - sd->sent;
        }
        if (n > space) {
            sd->rs -= 0x9e3779b97f4a7c15ull;      /* retry the same size later */
            break;
        }
        for (uint64_t i = 0; i < n; i++) {
            buf[i] = pattern(sd->tx_stream, sd->sent + i);
        }
        /* book-keep first: the engine may put the record on the wire inside send() */
        if (sd->nrec == sd->caprec) {
            sd->caprec = sd->caprec ? 2 * sd->caprec : 256;
            sd->rec_end = realloc(sd->rec_end, sd->caprec * sizeof(*sd->rec_end));
        }
        sd->sent += n;
        sd->rec_end[sd->nrec++] = sd->sent;
        int r = rne_tcp_send(sd->c, buf, n, s->now);
        if (r != 0) {
            failf(s, "%s: send returned %" PRIu64 " for %" PRIu64, "send", (uint64_t)-r, n);
            return;
        }
        if (!sd->c) {
            return;
        }
    }
    if (sd->unread && s->now >= sd->stall_until) {
        if (rng_unit(&s->rng) < s->stall_p) {
            sd->stall_until = s->now + rng_range(&s->rng, 1, 3000) * MS;
        } else {
            uint64_t n = sd->unread;
            sd->unread = 0;
            rne_tcp_recv_done(sd->c, n, s->now);
            if (!sd->c) {
                return;
            }
        }
    }
    if (sd->sent == sd->to_send && !sd->close_called && sd->c) {
        sd->close_called = true;
        rne_tcp_close(sd->c, s->now);
    }
}

static void setup(struct sim *s)
{
    uint64_t *r = &s->rng;
    for (int i = 0; i < 2; i++) {
        struct link *L = &s->link[i];
        L->loss = splitmix64_next(r) % 4 == 0 ? 0 : rng_unit(r) * 0.05;
        L->dup = splitmix64_next(r) % 3 == 0 ? rng_unit(r) * 0.02 : 0;
        L->corrupt = splitmix64_next(r) % 3 == 0 ? rng_unit(r) * 0.02 : 0;
        L->delay = rng_range(r, 50, 20000) * 1000;
        L->jitter = splitmix64_next(r) % 3 == 0 ? rng_range(r, 0, 2 * L->delay / 1000) * 1000 : 0;
        L->bps = rng_range(r, 10, 10000) * 1000000ull;
        L->qlimit = rng_range(r, 16, 1024) * 1024;
    }
    uint16_t mtu = (uint16_t)(splitmix64_next(r) % 3 == 0 ? rng_range(r, 576, 9000) : 1500);
    uint32_t rcvbuf = (uint32_t)rng_range(r, 16, 1024) * 1024;
    for (int i = 0; i < 2; i++) {
        struct rne_tcp_config cfg;
        rne_tcp_config_default(&cfg);
        memcpy(cfg.mac, s->mac[i], 6);
        cfg.addr = s->ip[i];
        cfg.mtu = mtu;
        cfg.sndbuf = (uint32_t)rng_range(r, 16, 1024) * 1024;
        cfg.rcvbuf = i ? rcvbuf : (uint32_t)rng_range(r, 16, 1024) * 1024;
        cfg.no_sack = splitmix64_next(r) % 4 == 0;
        cfg.no_timestamps = splitmix64_next(r) % 4 == 0;
        cfg.no_wscale = splitmix64_next(r) % 6 == 0;
        cfg.max_conns = 16;
        cfg.keepalive = true;           /* also how a lost RST is discovered */
        cfg.keep_idle_ms = 5000;
        cfg.keep_intvl_ms = 1000;
        cfg.keep_probes = 8;
        cfg.msl_ms = 10000;             /* TIME_WAIT must outlast the peer's FIN retries */
        cfg.rto_min_ms = 200;
        cfg.data_retries = 30;
        cfg.syn_retries = 12;
        cfg.ack_batch = (s->seed >> i) & 1;
        for (int k = 0; k < 16; k++) {
            cfg.isn_secret[k] = (uint8_t)splitmix64_next(r);
        }
        static struct eng_ctx ctx[2];
        (void)g_ctx_unused;
        ctx[i].s = s;
        ctx[i].idx = i;
        s->eng[i] = rne_tcp_new(&cfg, &sim_ops, &ctx[i]);
    }
    s->stall_p = splitmix64_next(r) % 3 == 0 ? rng_unit(r) * 0.05 : 0;
    s->record_max = rng_range(r, 1, 8000);
    s->nconn = (int)rng_range(r, 1, MAXC);
    s->check_records = true;
}

static void free_sim(struct sim *s)
{
    for (int i = 0; i < 2; i++) {
        rne_tcp_free(s->eng[i]);
    }
    while (s->nheap) {
        struct ev e = heap_pop(s);
        free(e.frame);
    }
    free(s->heap);
    for (int i = 0; i < MAXC; i++) {
        free(s->side[i][0].rec_end);
        free(s->side[i][1].rec_end);
    }
}

/*
 * The embedder's end of a receive burst: when nothing more arrives within
 * 200 us, or after a random number of frames.
 */
static void burst_end(struct sim *s, bool force)
{
    if (!force && s->burst < s->burst_max && s->nheap && s->heap[0].at <= s->now + 200000) {
        return;
    }
    for (int e = 0; e < 2; e++) {
        rne_tcp_rx_batch_end(s->eng[e], s->now);
    }
    s->burst = 0;
    s->burst_max = (uint32_t)(1 + splitmix64_next(&s->brng) % 64);
}

static int run_seed(uint64_t seed, int verbose, uint64_t *sim_ns)
{
    static struct sim S;
    struct sim *s = &S;
    memset(s, 0, sizeof(*s));
    s->seed = seed;
    s->rng = seed * 0x2545f4914f6cdd1dull + 1;
    s->verbose = verbose;
    s->brng = seed ^ 0x6a09e667f3bcc908ull;
    s->burst_max = 1;
    for (int i = 0; i < 2; i++) {
        uint8_t m[6] = { 0x02, 0, 0, 0, 0, (uint8_t)(i + 1) };
        memcpy(s->mac[i], m, 6);
        rne_ipaddr_v4(&s->ip[i], 10, 0, 0, (uint8_t)(i + 1));
    }
    setup(s);
    if (!s->eng[0] || !s->eng[1]) {
        printf("seed %" PRIu64 ": engine creation failed\n", seed);
        return 1;
    }
    struct rne_tcp_listener *l = rne_tcp_listen(s->eng[1], 4791, 16, s);
    if (!l) {
        printf("seed %" PRIu64 ": listen failed\n", seed);
        return 1;
    }
    for (int i = 0; i < s->nconn; i++) {
        for (int e = 0; e < 2; e++) {
            struct side *sd = &s->side[i][e];
            sd->sim = s;
            sd->eng = e;
            sd->idx = i;
            sd->rs = splitmix64_next(&s->rng);
            sd->tx_stream = (uint32_t)(i * 2 + e);
            sd->rx_stream = (uint32_t)(i * 2 + 1 - e);
            sd->to_send = splitmix64_next(&s->rng) % 5 == 0 ? 0 : rng_range(&s->rng, 1, 384 << 10);
        }
        s->side[i][0].expect = s->side[i][1].to_send;
        s->side[i][1].expect = s->side[i][0].to_send;
        if (splitmix64_next(&s->rng) % 4 == 0) {
            int e = (int)(splitmix64_next(&s->rng) & 1);
            if (s->side[i][e].to_send > 1) {
                s->side[i][e].mtu_at = 1 + splitmix64_next(&s->rng) % (s->side[i][e].to_send - 1);
                s->side[i][e].new_mtu = (uint16_t)rng_range(&s->rng, 576, 1500);
            }
        }
        if (splitmix64_next(&s->rng) % 8 == 0) {
            int e = (int)(splitmix64_next(&s->rng) & 1);
            if (s->side[i][e].expect > 1) {
                s->side[i][e].abort_at = 1 + splitmix64_next(&s->rng) % (s->side[i][e].expect - 1);
                s->naborts++;
            }
        }
        struct side *a = &s->side[i][0];
        s->now += rng_range(&s->rng, 0, 50) * MS;
        a->c = rne_tcp_connect(s->eng[0], &s->ip[1], 4791, 0, s->mac[1], a, s->now);
        if (!a->c) {
            printf("seed %" PRIu64 ": connect failed\n", seed);
            return 1;
        }
        rne_tcp_get_tuple(a->c, NULL, &a->lport, NULL, NULL);
    }
    const uint64_t limit = 600 * SEC;
    const uint64_t stall_limit = 200 * SEC;    /* no byte delivered anywhere for this long */
    uint64_t steps = 0, last_progress = s->now, last_total = 0;
    for (;;) {
        uint64_t total = 0;
        for (int i = 0; i < s->nconn; i++) {
            total += s->side[i][0].rcvd + s->side[i][1].rcvd + s->side[i][0].closed +
                     s->side[i][1].closed + s->side[i][0].connected + s->side[i][1].connected;
        }
        if (total != last_total) {
            last_total = total;
            last_progress = s->now;
        } else if (s->now - last_progress > stall_limit) {
            failf(s, "%s: no progress for %" PRIu64 " s simulated (since %" PRIu64 " s)", "progress",
                  stall_limit / SEC, last_progress / SEC);
            break;
        }
        bool all_done = true;
        for (int i = 0; i < s->nconn; i++) {
            for (int e = 0; e < 2; e++) {
                struct side *sd = &s->side[i][e];
                if (sd->aborted || (sd->reset_ok && sd->closed)) {
                    continue;
                }
                if (sd->closed && sd->emss_owed) {
                    failf(s, "%s: EMSS %" PRIu64 " never reported (conn %" PRIu64 ")",
                          "emss", sd->emss_owed, (uint64_t)sd->idx);
                }
                all_done &= sd->closed && sd->rcvd == sd->expect && sd->peer_fin;
            }
        }
        if (all_done || s->fail) {
            break;
        }
        uint64_t next = UINT64_MAX;
        if (s->nheap) {
            next = s->heap[0].at;
        }
        for (int e = 0; e < 2; e++) {
            uint64_t d = rne_tcp_next_deadline(s->eng[e]);
            if (d < next) {
                next = d;
            }
        }
        for (int i = 0; i < s->nconn; i++) {
            for (int e = 0; e < 2; e++) {
                struct side *sd = &s->side[i][e];
                if (sd->unread && sd->stall_until > s->now && sd->stall_until < next) {
                    next = sd->stall_until;
                }
            }
        }
        if (next == UINT64_MAX) {
            failf(s, "%s: deadlock: no events, no timers (step %" PRIu64 ")%" PRIu64, "sim", steps, 0);
            break;
        }
        if (next > limit) {
            failf(s, "%s: no completion within %" PRIu64 " s simulated%" PRIu64, "progress",
                  limit / SEC, 0);
            break;
        }
        if (next > s->now) {
            s->now = next;
        }
        while (s->nheap && s->heap[0].at <= s->now) {
            struct ev e = heap_pop(s);
            if (verbose > 1) {
                printf("%10.6f deliver %zu bytes to %c\n", (double)s->now / SEC, e.len, 'A' + e.dst);
            }
            rne_tcp_input(s->eng[e.dst], e.frame, e.len, s->now);
            rne_tcp_deliver(s->eng[e.dst]);
            free(e.frame);
            s->burst++;
        }
        burst_end(s, false);
        for (int e = 0; e < 2; e++) {
            if (rne_tcp_next_deadline(s->eng[e]) <= s->now) {
                rne_tcp_tick(s->eng[e], s->now);
                rne_tcp_deliver(s->eng[e]);
            }
        }
        for (int i = 0; i < s->nconn; i++) {
            pump(s, &s->side[i][0]);
            pump(s, &s->side[i][1]);
        }
        steps++;
    }
    /* Let TIME_WAIT expire: both engines must end with no connection state. */
    if (!s->fail) {
        uint64_t end = s->now + 30 * SEC;
        while (s->now < end) {
            uint64_t d = rne_tcp_next_deadline(s->eng[0]);
            uint64_t d1 = rne_tcp_next_deadline(s->eng[1]);
            uint64_t ev = s->nheap ? s->heap[0].at : UINT64_MAX;
            uint64_t n = d < d1 ? d : d1;
            n = n < ev ? n : ev;
            if (n == UINT64_MAX || n > end) {
                break;
            }
            s->now = n > s->now ? n : s->now;
            while (s->nheap && s->heap[0].at <= s->now) {
                struct ev e = heap_pop(s);
                rne_tcp_input(s->eng[e.dst], e.frame, e.len, s->now);
                rne_tcp_deliver(s->eng[e.dst]);
                free(e.frame);
            }
            burst_end(s, true);
            for (int e = 0; e < 2; e++) {
                rne_tcp_tick(s->eng[e], s->now);
                rne_tcp_deliver(s->eng[e]);
            }
        }
        for (int e = 0; e < 2; e++) {
            uint64_t left = rne_tcp_get_stats(s->eng[e])->conns_now;
            if (left) {
                failf(s, "%s: engine %" PRIu64 " still holds %" PRIu64 " connections", "cleanup",
                      (uint64_t)e, left);
            }
        }
    }
    if (verbose || s->fail) {
        printf("seed %" PRIu64 ": %s  conns %d aborts %d  sim %.3f s  frames %" PRIu64 " drops %" PRIu64
               "  loss %.3f/%.3f dup %.3f corrupt %.3f delay %" PRIu64 "us bw %" PRIu64 "Mb/s"
               " stall %.3f\n",
               seed, s->fail ? "FAIL" : "ok", s->nconn, s->naborts, (double)s->now / SEC, s->frames, s->drops,
               s->link[0].loss, s->link[1].loss, s->link[0].dup, s->link[0].corrupt,
               s->link[0].delay / 1000, s->link[0].bps / 1000000, s->stall_p);
        for (int e = 0; e < 2; e++) {
            const struct rne_tcp_stats *st = rne_tcp_get_stats(s->eng[e]);
            printf("  engine %c: tx %" PRIu64 " rexmit %" PRIu64 " rto %" PRIu64 " fastrx %" PRIu64
                   " ooo %" PRIu64 " csum_err %" PRIu64 " probes %" PRIu64 " challenge %" PRIu64
                   " ack_deferred %" PRIu64 "\n",
                   'A' + e, st->tx_frames, st->tx_rexmit_segs, st->rto_fired, st->fast_rexmit,
                   st->rx_ooo, st->rx_csum_err, st->persist_probes, st->tx_challenge_ack,
                   st->rx_ack_deferred);
        }
        for (int i = 0; i < s->nconn && s->fail; i++) {
            for (int e = 0; e < 2; e++) {
                struct side *sd = &s->side[i][e];
                printf("  conn %d %c: sent %" PRIu64 "/%" PRIu64 " rcvd %" PRIu64 "/%" PRIu64
                       " fin %d closed %d err %d", i, 'A' + e, sd->sent, sd->to_send, sd->rcvd,
                       sd->expect, sd->peer_fin, sd->closed, sd->closed_err);
                if (sd->c) {
                    struct rne_tcp_info inf;
                    rne_tcp_get_info(sd->c, &inf);
                    printf(" %s cwnd %u wnd %u rto %u ms una %u nxt %u unacked %u unsent %u rcv_nxt %u ws %u/%u rwnd %u",
                           rne_tcp_state_name(inf.state), inf.cwnd, inf.snd_wnd, inf.rto_ms,
                           inf.snd_una, inf.snd_nxt, inf.unacked, inf.unsent, inf.rcv_nxt,
                           inf.snd_wscale, inf.rcv_wscale, inf.rcv_wnd);
                }
                printf("\n");
            }
        }
        if (s->fail) {
            printf("  FAILED: %s\n  rerun: tests/sim/tcp-sim --seed %" PRIu64 " -v\n", s->why, seed);
        }
    }
    *sim_ns = s->now;
    g_deferred += rne_tcp_get_stats(s->eng[0])->rx_ack_deferred +
                  rne_tcp_get_stats(s->eng[1])->rx_ack_deferred;
    g_conns += (uint64_t)s->nconn;
    g_aborts += (uint64_t)s->naborts;
    int f = s->fail;
    free_sim(s);
    return f;
}

int main(int argc, char **argv)
{
    uint64_t lo = 1, hi = 300;
    uint64_t list[64];
    int nlist = 0;
    int verbose = 0;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--seed") && i + 1 < argc) {
            lo = hi = strtoull(argv[++i], NULL, 0);
            if (nlist < 64) {
                list[nlist++] = lo;     /* --seed may repeat: run exactly those */
            }
        } else if (!strcmp(argv[i], "--seeds") && i + 1 < argc) {
            char *end;
            lo = strtoull(argv[++i], &end, 0);
            hi = *end == '-' ? strtoull(end + 1, NULL, 0) : lo;
        } else if (!strcmp(argv[i], "-v")) {
            verbose++;
        } else {
            fprintf(stderr, "usage: %s [--seed N]... | [--seeds A-B] [-v]\n", argv[0]);
            return 2;
        }
    }
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    int fails = 0;
    uint64_t simtime = 0;
    if (nlist > 1) {
        for (int k = 0; k < nlist; k++) {
            uint64_t ns = 0;
            fails += run_seed(list[k], verbose, &ns);
            simtime += ns;
        }
        lo = list[0];
        hi = list[nlist - 1];
    } else {
        for (uint64_t seed = lo; seed <= hi; seed++) {
            uint64_t ns = 0;
            fails += run_seed(seed, verbose, &ns);
            simtime += ns;
        }
    }
    clock_gettime(CLOCK_MONOTONIC, &t1);
    double wall = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
    printf("tcp-sim: seeds %" PRIu64 "-%" PRIu64 ": %d failed, %" PRIu64 " connections (%" PRIu64
           " aborted mid-transfer, peer saw the reset on %" PRIu64 "; %" PRIu64 " path-MTU drops),"
           " %" PRIu64 " segments ACKed at a burst's end, %.1f s simulated, %.2f s wall\n",
           lo, hi, fails, g_conns, g_aborts, g_resets_seen, g_mtu_changes, g_deferred,
           (double)simtime / SEC, wall);
    return fails ? 1 : 0;
}
