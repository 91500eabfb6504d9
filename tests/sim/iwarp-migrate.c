/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Live migration of one end of a connection under RDMA traffic, at engine
 * level (issue 19).  A and B, connected, each post RDMA Writes, Reads and
 * Sends to the other at once (so each is requester and responder) over a
 * link that reorders and loses frames.  In the middle of the transfer --
 * at a moment when the side has frames in flight and a message half sent
 * or half received, out-of-order data held where the link made some -- one
 * side is saved, its engine destroyed, and for the switch-over pause every
 * frame that reaches it is dropped; then a fresh engine is made from the
 * stream on the same guest memory and the run goes on.  Every transfer
 * completes with every byte checked; the peer sees no RST, Terminate, CM
 * event or error, only the retransmissions that recover the dropped frames.
 * Rounds alternate the migrated side, several migrations per round.
 *
 * usage: iwarp-migrate [--seed N] [--rounds N] [--mpa crc|markers|nocrc]
 *                      [--corrupt 1]
 * --corrupt 1: before the first migration, the refusal checks (corrupted,
 * flipped and cut streams) as well.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "cmpair.h"
#include "iwarp/iw.h"
#include "rdma/rdma_int.h"
#include "state/state.h"
#include "state/state_int.h"
#include "tcp/tcp_int.h"

#define CHUNK       (64u << 10)
#define NOPS        4                   /* of each kind per side per round */
#define AREA        (NOPS * CHUNK)
#define MR_LEN      (3 * AREA)          /* source, Write sink, Read sink */
#define IOVA        0x10000000ull
#define IOVA_RX     0x20000000ull
#define STAG_MR     RNIC_STAG(10, 0x21)
#define STAG_RX     RNIC_STAG(11, 0x42)
#define ACC_ALL     (RNIC_ACCESS_LOCAL_WRITE | RNIC_ACCESS_REMOTE_WRITE | \
                     RNIC_ACCESS_REMOTE_READ)
#define PAUSE_NS    (3 * SL_MS)         /* switch-over: frames to it lost */

struct mg {
    struct cmpair cp;
    struct sd_mr mr[2], rx[2];
    uint8_t *src[2];                    /* what each side's source held */
    struct sl_port saved_port;
    int paused;                         /* side in switch-over, -1: none */
    uint64_t resume_at;
    uint64_t dropped;                   /* frames lost in switch-overs */
    unsigned migrations, with_ooo, with_partial_rx, with_cur, with_inflight;
    unsigned with_orq, with_irq;
    bool corrupt;                       /* --corrupt: the refusal checks */
    unsigned flip_refused, flip_loaded, targeted;
    size_t stream_min, stream_max;
    uint64_t pause_total_ns;
};

static void fill(uint8_t *b, size_t n, uint64_t seed)
{
    size_t i;

    for (i = 0; i < n; i++) {
        seed = seed * 6364136223846793005ull + 1442695040888963407ull;
        b[i] = (uint8_t)(seed >> 56);
    }
}

static bool fail(struct mg *t, const char *what, const char *detail)
{
    return cp_fail(&t->cp, what, detail);
}

/* The migrated side's port while it has no engine: frames to it are lost. */
static bool paused_deliver(void *opaque, const uint8_t *frame, size_t len)
{
    struct mg *t = opaque;

    (void)frame;
    (void)len;
    t->dropped++;
    return true;
}

static uint64_t paused_deadline(void *opaque)
{
    struct mg *t = opaque;

    return t->resume_at;
}

static void paused_noop(void *opaque)
{
    (void)opaque;
}

/* The one connection's state on side s, for picking the moment. */
static struct rne_iw_conn *conn_of(struct mg *t, int s)
{
    struct rne_iw *iw = t->cp.sd[s]->dev.iw;

    return iw->nlive == 1 ? iw->live[0] : NULL;
}

static bool interesting(struct mg *t, int s, bool need_ooo)
{
    struct rne_iw_conn *c = conn_of(t, s);

    if (!c || !c->iq || !c->tc || !sl_in_flight(&t->cp.sl)) {
        return false;
    }
    if (need_ooo) {
        return c->tc->n_ooo > 0;
    }
    return c->iq->cur_active || c->iq->rx_active || c->rx.in_fpdu;
}

/* Save side s, drop its engine, lose what reaches it for the pause. */
static bool migrate_out(struct mg *t, int s, uint8_t **buf, size_t *len)
{
    struct simdev *sd = t->cp.sd[s];
    struct rne_iw_conn *c = conn_of(t, s);
    char err[RNE_STATE_ERR_LEN];
    int tries;

    for (tries = 0; rne_state_save(&sd->dev, buf, len, err, sizeof(err));
         tries++) {
        /* events of the last frames still to be taken: one step more */
        if (tries > 200 || !sl_step(&t->cp.sl)) {
            return fail(t, "save", err);
        }
        c = conn_of(t, s);
    }
    t->with_inflight += sl_in_flight(&t->cp.sl) > 0;
    if (c) {
        t->with_ooo += c->tc->n_ooo > 0;
        t->with_partial_rx += c->rx.in_fpdu || c->iq->rx_active;
        t->with_cur += c->iq->cur_active;
        t->with_orq += c->iq->orq_cnt > 0;
        t->with_irq += c->iq->irq_cnt > 0;
    }
    if (!t->stream_min || *len < t->stream_min) {
        t->stream_min = *len;
    }
    if (*len > t->stream_max) {
        t->stream_max = *len;
    }
    rne_dev_fini(&sd->dev);
    sd->timer_deadline = UINT64_MAX;
    t->saved_port = t->cp.sl.port[s];
    t->cp.sl.port[s].opaque = t;
    t->cp.sl.port[s].deliver = paused_deliver;
    t->cp.sl.port[s].deadline = paused_deadline;
    t->cp.sl.port[s].tick = paused_noop;
    t->cp.sl.port[s].poll = paused_noop;
    t->paused = s;
    t->resume_at = t->cp.sl.now + PAUSE_NS;
    return true;
}

/* A fresh engine from the stream, on the same guest memory, then on. */
static bool migrate_in(struct mg *t, uint8_t *buf, size_t len)
{
    int s = t->paused;
    struct simdev *sd = t->cp.sd[s];
    const struct rne_host_ops *ops = sd->dev.host.ops;
    struct rne_dev_config cfg = sd->dev.cfg;
    char err[RNE_STATE_ERR_LEN];
    uint8_t *again;
    size_t n2;

    if (rne_dev_init(&sd->dev, &cfg, ops, sd)) {
        return fail(t, "rne_dev_init", NULL);
    }
    if (rne_state_load(&sd->dev, buf, len, err, sizeof(err))) {
        return fail(t, "load", err);
    }
    /* save right after the load: the same bytes but for the times */
    if (rne_state_save(&sd->dev, &again, &n2, err, sizeof(err))) {
        return fail(t, "save after load", err);
    }
    free(again);
    if (n2 != len) {
        return fail(t, "save, load, save: the lengths differ", NULL);
    }
    t->cp.sl.port[s] = t->saved_port;
    t->paused = -1;
    t->migrations++;
    t->pause_total_ns += PAUSE_NS;
    sd_run(sd);
    return true;
}

/* A truncated copy of the stream is refused and sends nothing. */
static bool refuse_truncated(struct mg *t, int s, const uint8_t *buf,
                             size_t len)
{
    struct simdev *sd = t->cp.sd[s];
    const struct rne_host_ops *ops = sd->dev.host.ops;
    struct rne_dev_config cfg = sd->dev.cfg;
    char err[RNE_STATE_ERR_LEN];
    uint64_t sent = t->cp.sl.st[s].sent;

    if (rne_dev_init(&sd->dev, &cfg, ops, sd)) {
        return fail(t, "rne_dev_init", NULL);
    }
    if (!rne_state_load(&sd->dev, buf, len - len / 3, err, sizeof(err))) {
        return fail(t, "a truncated stream loaded", NULL);
    }
    sd_run(sd);
    rne_dev_fini(&sd->dev);
    sd->timer_deadline = UINT64_MAX;
    if (t->cp.sl.st[s].sent != sent) {
        return fail(t, "a refused load sent frames to the peer", err);
    }
    return true;
}

/* Offset and length of the first section id in stream b. */
static bool find_sec(const uint8_t *b, size_t n, uint16_t id, size_t *at,
                     size_t *len)
{
    size_t p = 8;

    while (p + 8 <= n) {
        uint16_t sid = (uint16_t)(b[p] | b[p + 1] << 8);
        uint32_t l = (uint32_t)(b[p + 4] | b[p + 5] << 8 | b[p + 6] << 16 |
                                (uint32_t)b[p + 7] << 24);

        if (sid == id) {
            *at = p + 8;
            *len = l;
            return true;
        }
        p += 8 + (size_t)l;
    }
    return false;
}

/*
 * Load b into a fresh engine of paused side s.  Refused: the sentence must
 * hold want (NULL: any), and nothing is left or sent.  Loaded (want NULL
 * only): it must save again.  1 refused, 0 loaded, -1 failed.
 */
static int try_load(struct mg *t, int s, const uint8_t *b, size_t n,
                    const char *want, const char *what)
{
    struct simdev *sd = t->cp.sd[s];
    const struct rne_host_ops *ops = sd->dev.host.ops;
    struct rne_dev_config cfg = sd->dev.cfg;
    char err[RNE_STATE_ERR_LEN], msg[RNE_STATE_ERR_LEN + 64];
    uint64_t sent = t->cp.sl.st[s].sent;
    uint8_t *again;
    size_t n2;
    int res;

    if (rne_dev_init(&sd->dev, &cfg, ops, sd)) {
        return fail(t, "rne_dev_init", NULL) - 1;
    }
    err[0] = 0;
    if (rne_state_load(&sd->dev, b, n, err, sizeof(err))) {
        struct rne_mem_usage u;

        rne_dev_mem_usage(&sd->dev, &u);
        res = 1;
        snprintf(msg, sizeof(msg), "%s: %s", what, err);
        if (!err[0] || (want && !strstr(err, want))) {
            res = fail(t, "refused with the wrong sentence", msg) - 1;
        } else if (u.conn_total || sd->dev.iw->nlive || sd->dev.iw->neng ||
                   sd->dev.egress.count) {
            res = fail(t, "a refused load left something", msg) - 1;
        }
    } else if (want) {
        res = fail(t, "a corrupted stream loaded", what) - 1;
    } else {
        res = rne_state_save(&sd->dev, &again, &n2, err, sizeof(err)) ?
              fail(t, "a loaded stream does not save", err) - 1 : 0;
        if (!res) {
            free(again);
        }
    }
    rne_dev_fini(&sd->dev);
    sd->timer_deadline = UINT64_MAX;
    if (res >= 0 && t->cp.sl.st[s].sent != sent) {
        return fail(t, "a load sent frames to the peer", what) - 1;
    }
    return res;
}

/* The live state of side s made wrong for one save, then put back. */
struct corrupt {
    const char *what, *want;
    uint8_t *buf;
    size_t len;
};

#define MAX_CORRUPT 16

static void corrupt_save(struct mg *t, int s, struct corrupt *cs, int *nc,
                         const char *what, const char *want)
{
    char err[RNE_STATE_ERR_LEN];
    struct corrupt *c = &cs[*nc];

    c->what = what;
    c->want = want;
    if (!rne_state_save(&t->cp.sd[s]->dev, &c->buf, &c->len, err,
                        sizeof(err))) {
        (*nc)++;
    }
}

/*
 * Before the first save: streams with one connection field out of what
 * the device keeps true, each refused with the sentence that names it.
 */
static int corrupt_streams(struct mg *t, int s, struct corrupt *cs)
{
    struct rne_iw_conn *c = conn_of(t, s);
    struct rne_tcp_conn *tc = c->tc;
    int n = 0;

#define BAD(field, value, what, want) do { \
        __typeof__(field) keep_ = (field); \
        (field) = (value); \
        corrupt_save(t, s, cs, &n, what, want); \
        (field) = keep_; \
    } while (0)
    BAD(tc->snd_nxt, tc->snd_una - 1, "snd_nxt before snd_una",
        "send sequence space");
    BAD(tc->snd_max, tc->snd_una + tc->sb_len + 1, "snd_max beyond the "
        "queue", "send sequence space");
    BAD(tc->snd_ws, 15, "window scale 15", "window scale");
    BAD(tc->rcv_adv, tc->rcv_nxt - 1, "rcv_adv before rcv_nxt",
        "receive sequence space");
    BAD(tc->rto, 0, "RTO 0", "RTO");
    BAD(tc->cwnd, 0, "cwnd 0", "congestion window");
    BAD(tc->mtu, 100, "MTU 100", "MTU");
    BAD(tc->rmac[0], 0x01, "multicast next hop", "next-hop MAC");
    BAD(tc->tm[T_2MSL], t->cp.sl.now + 1, "2MSL timer", "never runs "
        "together");
    BAD(tc->tm[T_KEEP], t->cp.sl.now + (1ull << 52), "keepalive in 52 "
        "days", "out of range");
    BAD(c->neg.rev, 3, "MPA revision 3", "MPA negotiation");
    BAD(c->emss, 20, "EMSS 20", "EMSS");
    BAD(c->rx.state, 9, "MPA receive state 9", "MPA receive state");
    BAD(c->iq->ord, 200, "ORD 200", "ORD");
    BAD(c->iq->ird, 200, "IRD 200", "IRD");
    if (tc->n_ooo) {
        BAD(tc->ooo[0].s, tc->rcv_nxt, "out-of-order range at rcv_nxt",
            "out-of-order range");
    }
#undef BAD
    return n;
}

/*
 * A connection that has moved 2.4 GB each way: ISS and IRS more than 2^31
 * behind, as sequence space wraps.  Its stream must load.
 */
static bool long_lived(struct mg *t, int s, uint8_t **buf, size_t *len)
{
    struct rne_tcp_conn *tc = conn_of(t, s)->tc;
    uint32_t iss = tc->iss, irs = tc->irs;
    char err[RNE_STATE_ERR_LEN];
    int rc;

    tc->iss = tc->snd_una - 0x90000000u;
    tc->irs = tc->rcv_nxt - 0x90000000u;
    rc = rne_state_save(&t->cp.sd[s]->dev, buf, len, err, sizeof(err));
    tc->iss = iss;
    tc->irs = irs;
    return rc ? fail(t, "save of a long-lived connection", err) : true;
}

/* Every byte of the CONN section's head flipped: refused or consistent. */
static bool flip_conn(struct mg *t, int s, const uint8_t *b, size_t n,
                      unsigned *refused, unsigned *loaded)
{
    uint8_t *m = malloc(n);
    size_t at, len, i, span;
    int r;

    if (!find_sec(b, n, RNE_SEC_CONN, &at, &len)) {
        free(m);
        return fail(t, "no CONN section in the stream", NULL);
    }
    span = len < 160 ? len : 160;
    memcpy(m, b, n);
    for (i = 0; i < span; i++) {
        m[at + i] ^= 0xff;
        r = try_load(t, s, m, n, NULL, "flipped CONN byte");
        m[at + i] ^= 0xff;
        if (r < 0) {
            free(m);
            return false;
        }
        *refused += r == 1;
        *loaded += r == 0;
    }
    /* every cut inside the section's head: truncated, refused */
    for (i = 0; i < span; i += 16) {
        r = try_load(t, s, b, at + i, NULL, "cut in CONN");
        if (r != 1) {
            free(m);
            return r ? false : fail(t, "a cut stream loaded", NULL);
        }
    }
    free(m);
    return true;
}

static void post_recv(struct mg *t, int s, uint64_t wr_id, uint64_t iova)
{
    struct rnic_rq_wqe r;

    memset(&r, 0, sizeof(r));
    r.wr_id = wr_id;
    r.num_sge = 1;
    r.sge[0].addr = iova;
    r.sge[0].length = CHUNK;
    r.sge[0].lkey = STAG_RX;
    sd_post_recv(t->cp.sd[s], &t->cp.qp[s], &r);
}

static void post_op(struct mg *t, int s, uint8_t op, uint64_t wr_id,
                    uint64_t laddr, uint64_t raddr)
{
    struct rnic_sq_wqe w;

    memset(&w, 0, sizeof(w));
    w.hdr.wr_id = wr_id;
    w.hdr.opcode = op;
    w.hdr.flags = RNIC_WQE_SIGNALED;
    w.hdr.count = 1;
    w.op.rdma.remote_addr = raddr;
    w.op.rdma.rkey = STAG_MR;
    w.data.sge[0].addr = laddr;
    w.data.sge[0].length = CHUNK;
    w.data.sge[0].lkey = STAG_MR;
    sd_post_send(t->cp.sd[s], &t->cp.qp[s], &w);
}

struct round {
    struct mg *t;
    unsigned want[2][2];                /* [side][send CQ, recv CQ] */
    unsigned got[2][2];
    uint8_t bad;
    char msg[160];
};

static bool round_done(void *ctx)
{
    struct round *rd = ctx;
    struct rnic_cqe c;
    int s, k;

    if (rd->t->paused >= 0) {
        return false;
    }
    for (s = 0; s < 2; s++) {
        for (k = 0; k < 2; k++) {
            while (sd_poll_cq(rd->t->cp.sd[s], &rd->t->cp.cq[s][k], &c)) {
                if (c.status != RNIC_WC_SUCCESS || c.byte_len != CHUNK) {
                    snprintf(rd->msg, sizeof(rd->msg), "side %d wr_id %llu: "
                             "%s, %u bytes", s,
                             (unsigned long long)c.wr_id,
                             sd_wc_status_name(c.status), c.byte_len);
                    rd->bad = 1;
                    return true;
                }
                rd->got[s][k]++;
            }
        }
    }
    return !memcmp(rd->got, rd->want, sizeof(rd->got));
}

/* Bytes of side s's MR at off equal want. */
static bool same(struct mg *t, int s, const struct sd_mr *mr, uint64_t off,
                 const uint8_t *want, uint32_t len, const char *what)
{
    uint8_t *got = malloc(len);
    bool ok;

    sd_mr_read(t->cp.sd[s], mr, off, got, len);
    ok = !memcmp(got, want, len);
    free(got);
    return ok ? true : fail(t, "data differs", what);
}

/* One round: both sides Write, Read and Send; side m migrates mid-way. */
static bool run_round(struct mg *t, unsigned r, int m, unsigned nmig)
{
    struct round rd;
    uint8_t *buf = NULL;
    size_t len = 0;
    struct corrupt cs[MAX_CORRUPT];
    uint8_t *longb = NULL;
    size_t longn = 0;
    unsigned i, k, steps;
    int s, ncs = 0;

    memset(&rd, 0, sizeof(rd));
    rd.t = t;
    for (s = 0; s < 2; s++) {
        fill(t->src[s], AREA, r * 4 + s + 1);
        sd_mr_write(t->cp.sd[s], &t->mr[s], 0, t->src[s], AREA);
        for (i = 0; i < NOPS; i++) {
            post_recv(t, s, 100 + i, IOVA_RX + i * CHUNK);
        }
    }
    for (i = 0; i < NOPS; i++) {
        for (s = 0; s < 2; s++) {
            post_op(t, s, RNIC_WR_WRITE, 10 + i, IOVA + i * CHUNK,
                    IOVA + AREA + i * CHUNK);
            post_op(t, s, RNIC_WR_READ, 20 + i, IOVA + 2 * AREA + i * CHUNK,
                    IOVA + i * CHUNK);
            post_op(t, s, RNIC_WR_SEND, 30 + i, IOVA + i * CHUNK, 0);
        }
    }
    for (s = 0; s < 2; s++) {
        rd.want[s][0] = 3 * NOPS;
        rd.want[s][1] = NOPS;
    }
    for (k = 0; k < nmig; k++) {
        /* into the transfer, then a moment worth migrating at */
        steps = 40 + (unsigned)((r * 7 + k * 13) % 200);
        for (i = 0; i < steps && sl_step(&t->cp.sl); i++) {
        }
        for (i = 0; i < 20000 && !interesting(t, m, k % 2 == 1); i++) {
            if (!sl_step(&t->cp.sl)) {
                break;
            }
        }
        for (i = 0; i < 20000 && !interesting(t, m, false); i++) {
            if (!sl_step(&t->cp.sl)) {
                break;
            }
        }
        if (round_done(&rd)) {
            break;              /* the round ended first: nothing to move */
        }
        if (r == 0 && k == 0 && t->corrupt) {
            ncs = corrupt_streams(t, m, cs);
            if (!long_lived(t, m, &longb, &longn)) {
                return false;
            }
        }
        if (!migrate_out(t, m, &buf, &len)) {
            return false;
        }
        if (r == 0 && k == 0 && t->corrupt) {
            bool ok = refuse_truncated(t, m, buf, len) &&
                      flip_conn(t, m, buf, len, &t->flip_refused,
                                &t->flip_loaded);
            int j;

            for (j = 0; j < ncs; j++) {
                if (ok && try_load(t, m, cs[j].buf, cs[j].len, cs[j].want,
                                   cs[j].what) != 1) {
                    ok = false;
                }
                free(cs[j].buf);
            }
            t->targeted = (unsigned)ncs;
            if (ok && try_load(t, m, longb, longn, NULL, "long-lived") != 0) {
                ok = t->cp.err[0] ? false :
                     fail(t, "a connection past 2^31 octets is refused",
                          NULL);
            }
            free(longb);
            if (!ok) {
                free(buf);
                return false;
            }
        }
        while (t->cp.sl.now < t->resume_at && sl_step(&t->cp.sl)) {
        }
        if (t->cp.sl.now < t->resume_at) {
            t->cp.sl.now = t->resume_at;
        }
        if (!migrate_in(t, buf, len)) {
            free(buf);
            return false;
        }
        free(buf);
        buf = NULL;
    }
    if (!sl_run(&t->cp.sl, round_done, &rd, 30 * SL_SEC) || rd.bad) {
        snprintf(rd.msg + strlen(rd.msg), sizeof(rd.msg) - strlen(rd.msg),
                 " (round %u: A %u/%u B %u/%u)", r, rd.got[0][0],
                 rd.got[0][1], rd.got[1][0], rd.got[1][1]);
        return fail(t, "the transfer did not complete", rd.msg);
    }
    for (s = 0; s < 2; s++) {
        int p = 1 - s;

        if (!same(t, s, &t->mr[s], AREA, t->src[p], AREA, "peer's Writes") ||
            !same(t, s, &t->mr[s], 2 * AREA, t->src[p], AREA, "Reads") ||
            !same(t, s, &t->rx[s], 0, t->src[p], AREA, "peer's Sends")) {
            return false;
        }
    }
    return true;
}

/* Nobody noticed: no CM event, async error, RST, Terminate or bad CRC. */
static bool nobody_noticed(struct mg *t)
{
    struct rnic_dev_stats st;
    struct sd_cm_event ev;
    int s;

    for (s = 0; s < 2; s++) {
        struct simdev *sd = t->cp.sd[s];

        sd_poll_events(sd);
        if (sd_cm_next(sd, &ev)) {
            return fail(t, "a CM event after the migrations",
                        sd_cm_name(ev.code));
        }
        if (sd->async_n) {
            char m[64];

            snprintf(m, sizeof(m), "side %d: code %u object %u info %u", s,
                     sd->asyncq[0].code, sd->asyncq[0].obj,
                     sd->asyncq[0].info);
            return fail(t, "an async event after the migrations", m);
        }
        if (sd_query_dev_stats(sd, &st)) {
            return fail(t, sd->err, NULL);
        }
        if (st.proto.tcp_tx_rst || st.proto.term_tx || st.proto.term_rx ||
            st.proto.mpa_crc_err || st.proto.mpa_frame_err) {
            return fail(t, "RST, Terminate or MPA error counted", NULL);
        }
        if (s == 1 && (!st.proto.tcp_rexmit_segs)) {
            return fail(t, "the peer never retransmitted", NULL);
        }
    }
    return true;
}

/* cp_establish with MPA revision rev and flags asked by both ends. */
static bool establish(struct mg *t, uint8_t rev, uint8_t flags)
{
    struct rnic_cmd_cm_connect c;
    struct sd_cm_event ev;
    uint32_t aconn;

    if (sd_cm_listen(t->cp.sd[1], 0, 5000)) {
        return fail(t, t->cp.sd[1]->err, NULL);
    }
    cp_connect_cmd(&t->cp, &c, 40000, 5000);
    c.mpa_rev = rev;
    c.mpa_flags = flags;
    if (sd_cm_connect(t->cp.sd[0], &c, NULL, &aconn)) {
        return fail(t, t->cp.sd[0]->err, NULL);
    }
    if (!cp_next_event(&t->cp, 1, &ev, 10 * SL_SEC) ||
        ev.code != RNIC_CM_CONNECT_REQUEST ||
        sd_cm_accept(t->cp.sd[1], ev.conn_id, t->cp.qp[1].qpn, 4, 4, flags,
                     NULL, 0) ||
        !cp_next_event(&t->cp, 0, &ev, 10 * SL_SEC) ||
        ev.code != RNIC_CM_CONNECT_REPLY ||
        !cp_next_event(&t->cp, 1, &ev, 10 * SL_SEC) ||
        ev.code != RNIC_CM_ESTABLISHED) {
        return fail(t, "the connection did not come up", NULL);
    }
    for (aconn = 0; aconn < 2; aconn++) {
        struct rne_iw_conn *ic = conn_of(t, (int)aconn);

        if (!ic || ic->neg.rev != rev ||
            ic->neg.crc != !!(flags & RNIC_MPA_CRC) ||
            ic->neg.markers_tx != !!(flags & RNIC_MPA_MARKERS) ||
            ic->neg.markers_rx != !!(flags & RNIC_MPA_MARKERS)) {
            return fail(t, "MPA did not negotiate what was asked", NULL);
        }
    }
    return true;
}

int main(int argc, char **argv)
{
    struct mg *t = calloc(1, sizeof(*t));
    uint64_t seed = 1;
    unsigned rounds = 6, r;
    uint8_t rev = 2, flags = RNIC_MPA_CRC;
    bool ok;
    int i;

    for (i = 1; i + 1 < argc; i += 2) {
        if (!strcmp(argv[i], "--seed")) {
            seed = strtoull(argv[i + 1], NULL, 0);
        } else if (!strcmp(argv[i], "--rounds")) {
            rounds = (unsigned)strtoul(argv[i + 1], NULL, 0);
        } else if (!strcmp(argv[i], "--corrupt")) {
            t->corrupt = atoi(argv[i + 1]) != 0;
        } else if (!strcmp(argv[i], "--mpa")) {
            /* markers: rev 1, markers and CRC both ways; nocrc: rev 2 */
            rev = strcmp(argv[i + 1], "markers") ? 2 : 1;
            flags = !strcmp(argv[i + 1], "markers") ?
                    RNIC_MPA_CRC | RNIC_MPA_MARKERS :
                    !strcmp(argv[i + 1], "nocrc") ? 0 : RNIC_MPA_CRC;
        }
    }
    t->paused = -1;
    t->src[0] = malloc(AREA);
    t->src[1] = malloc(AREA);
    ok = cp_up(&t->cp, seed, NULL, NULL, NULL);
    for (i = 0; ok && i < 2; i++) {
        struct simdev *sd = t->cp.sd[i];

        ok = !sd_reg_mr(sd, &t->mr[i], STAG_MR, 1, ACC_ALL, IOVA, MR_LEN,
                        i + 1) &&
             !sd_reg_mr(sd, &t->rx[i], STAG_RX, 1, RNIC_ACCESS_LOCAL_WRITE,
                        IOVA_RX, AREA, 1) &&
             !sd_modify_qp_access(sd, t->cp.qp[i].qpn, ACC_ALL);
        if (!ok) {
            fail(t, sd->err, NULL);
        }
    }
    ok = ok && establish(t, rev, flags);
    if (ok) {
        /* a link that reorders and loses: out-of-order data to carry */
        for (i = 0; i < 2; i++) {
            /* bring-up's PORT_UP: from here on, no async event at all */
            sd_poll_events(t->cp.sd[i]);
            t->cp.sd[i]->async_n = 0;
            t->cp.sl.p[i].reorder = 0.02;
            t->cp.sl.p[i].reorder_ns = 200000;
            t->cp.sl.p[i].loss = 0.002;
            t->cp.sl.p[i].rate_bps = 2000000000ull;
            t->cp.sl.p[i].qlimit_bytes = 1u << 20;
        }
    }
    for (r = 0; ok && r < rounds; r++) {
        ok = run_round(t, r, (int)(r % 2), 2 + r % 2);
    }
    ok = ok && nobody_noticed(t);
    for (i = 0; ok && i < 2; i++) {
        if (sd_check_guards(t->cp.sd[i]) || t->cp.sd[i]->st.dma_faults) {
            ok = fail(t, "guard bytes changed or DMA outside memory", NULL);
        }
    }
    if (ok && (!t->with_ooo || !t->with_partial_rx || !t->with_cur)) {
        ok = fail(t, "no migration caught out-of-order data, a message "
                  "half received and one half sent", NULL);
    }
    if (ok && t->corrupt) {
        printf("first stream: %u targeted corruptions refused by name; CONN "
               "head bytes flipped: %u refused, %u loaded and saved; every "
               "cut refused; nothing sent by a refused load\n", t->targeted,
               t->flip_refused, t->flip_loaded);
    }
    if (ok) {
        printf("MPA revision %u, flags 0x%x\n", rev, flags);
        printf("iwarp-migrate: %u migrations (%u rounds, both sides), "
               "stream %zu..%zu bytes, %llu frames lost in switch-overs; "
               "saved with frames in flight %u, out-of-order data %u, "
               "a message half received %u / half sent %u, Reads "
               "outstanding %u / being answered %u; all data verified: ok\n",
               t->migrations, rounds, t->stream_min, t->stream_max,
               (unsigned long long)t->dropped, t->with_inflight, t->with_ooo,
               t->with_partial_rx, t->with_cur, t->with_orq, t->with_irq);
    } else {
        printf("iwarp-migrate: FAILED: %s (rerun: iwarp-migrate --seed %llu)"
               "\n", t->cp.err, (unsigned long long)seed);
    }
    cp_down(&t->cp);
    free(t->src[0]);
    free(t->src[1]);
    free(t);
    return ok ? 0 : 1;
}
