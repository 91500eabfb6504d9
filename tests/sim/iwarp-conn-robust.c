// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * How an offloaded connection learns that its peer is gone, between two
 * simulated rnics (A 10.0.0.1 connects, B 10.0.0.2 accepts; one QP each):
 *   reset-initiator  A's driver resets its device (DEV_CTRL.RESET) with the
 *                    connection established and both sides idle: A must put
 *                    a TCP RST on the wire, and B, which sends nothing, must
 *                    get RESET (ECONNRESET), its receives flushed, its QP in
 *                    ERROR, within a second;
 *   reset-responder  the same with B resetting and A idle;
 *   reset-hold       the same through rne_dev_reset() outside a dispatch
 *                    (QEMU's device reset: system_reset, a bus reset);
 *   reset-200        200 idle connections (simpair): A's reset sends 200
 *                    RSTs and B gets 200 RESET events within a second;
 *   keepalive-alive  default device config, both sides idle for 3 x 7875 s of
 *                    virtual time: the first keepalive probe leaves 7200 s
 *                    after the last frame, is answered, nothing else
 *                    happens, the QPs stay in RTS and a Send works both ways;
 *   keepalive-vanish default config, the link cut silently once idle: each
 *                    side sends 9 probes 75 s apart and at 7200 + 9 x 75 s
 *                    gets TIMEOUT (ETIMEDOUT), receives flushed, QP in ERROR;
 *   keepalive-custom the same with tcp-keepalive-idle=60, -interval=5,
 *                    -probes=3: TIMEOUT at 75 s after 3 probes;
 *   keepalive-off    tcp-keepalive-idle=0: 4 h idle, not one frame, RTS;
 *   pmtu             a router on the path with MTU 1280 drops A's larger
 *                    frames and answers each with ICMP "fragmentation
 *                    needed" quoting it (RFC 1191): A's connection lowers
 *                    its MSS to fit, a 256 KiB Send arrives intact, and A
 *                    sends no frame too big 1 ms after the first ICMP;
 *   pmtu-floor       the router claims MTU 300: A goes down to 576, no lower;
 *   pmtu-forged      ICMPs for A's first 3 dropped frames that quote a
 *                    sequence outside the send window, another port, or
 *                    carry a bad checksum change nothing (MSS stays 1448).
 *
 * A connection ended inside the pass that delivers its data, while the same
 * TCP event still carries more (the wire sets FIN on a data frame, so the
 * data, the ACK and the peer's close arrive as one event):
 *   fin-bad-request  B reads a damaged MPA Request with A's FIN: B aborts
 *                    (RST, no CM event) and nothing after the data reaches
 *                    the connection; A gets RESET; no connection is left;
 *   fin-bad-reply    A reads a damaged MPA Reply with B's FIN and the ACK of
 *                    its Request: A aborts (MPA_ERROR, QP in ERROR), B gets
 *                    RESET; no connection is left on either side;
 *   fin-terminate    B, with no receive posted, reads a Send with A's FIN:
 *                    B sends one Terminate from inside the stream and its
 *                    QP goes to ERROR (A, which sent no FIN, takes B's ACK
 *                    of it as one for data never sent and ignores B).
 *
 *   iwarp-conn-robust [--case NAME]...
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "wire/be.h"
#include "wire/net.h"
#include "cmpair.h"
#include "simpair.h"
#include "iwarp/iw.h"

#define PORT 7100
#define NRECV 3

/* What each side put on the wire (the link's tap sees every frame sent). */
struct wire {
    uint64_t frames[2], rst[2];
    uint64_t first_at[2], last_at[2];   /* first_at: since wire_mark */
};

/* The A->B path's router: drop larger frames, answer with ICMP 3/4. */
struct router {
    unsigned mtu;               /* 0: no router */
    unsigned says;              /* next-hop MTU in the ICMP */
    unsigned forge;             /* pmtu-forged: which lie to tell */
    uint64_t dropped, icmps, big_after;
    uint64_t first_icmp_at;
};

/* Set FIN on side `from`'s nth frame with payload (damage: flip octet at). */
struct fin_tap {
    int from;
    unsigned nth, seen, hit;
    bool damage;
    size_t at;
};

struct pair {
    struct cmpair c;
    struct router rt;
    struct wire w;
    struct fin_tap fin;
    bool mute[2];               /* drop everything this side sends */
};

/* TCP flags of an IPv4/TCP frame, -1 for anything else. */
static int tcp_flags(const uint8_t *f, size_t len)
{
    size_t ihl;

    if (len < 14 + 20 + 20 || rne_ld_be16(f + 12) != 0x0800 ||
        f[14 + 9] != 6) {
        return -1;
    }
    ihl = (size_t)(f[14] & 15) * 4;
    if (len < 14 + ihl + 20) {
        return -1;
    }
    return f[14 + ihl + 13];
}

static bool router_tap(struct pair *p, const uint8_t *frame, size_t len);

/* Recompute the TCP checksum of an IPv4 frame. */
static void tcp_csum_fix(uint8_t *f)
{
    size_t ihl = (size_t)(f[14] & 0x0f) * 4;
    uint16_t tl = (uint16_t)(rne_ld_be16(f + 16) - ihl);
    uint8_t *t = f + 14 + ihl;

    t[16] = t[17] = 0;
    rne_st_be16(t + 16, rne_csum_fold(rne_csum_pseudo4(f + 26, f + 30, 6, tl) +
                                      rne_csum_add(0, t, tl)));
}

static void fin_tap(struct pair *p, int from, uint8_t *f, size_t len)
{
    struct fin_tap *k = &p->fin;
    size_t ihl, off, plen;

    if (!k->nth || from != k->from || tcp_flags(f, len) < 0) {
        return;
    }
    ihl = (size_t)(f[14] & 0x0f) * 4;
    off = 14 + ihl + (size_t)(f[14 + ihl + 12] >> 4) * 4;
    plen = 14 + (size_t)rne_ld_be16(f + 16) - off;
    if (!plen || off + plen > len || ++k->seen != k->nth) {
        return;
    }
    k->hit++;
    if (k->damage) {
        f[off + (k->at < plen ? k->at : plen - 1)] ^= 0x20;
    }
    f[14 + ihl + 13] |= 0x01;
    tcp_csum_fix(f);
}

static void fin_arm(struct pair *p, int from, unsigned nth, bool damage,
                    size_t at)
{
    memset(&p->fin, 0, sizeof(p->fin));
    p->fin.from = from;
    p->fin.nth = nth;
    p->fin.damage = damage;
    p->fin.at = at;
}

static bool wire_tap(void *opaque, int from, uint8_t *frame, size_t *len)
{
    struct pair *p = opaque;
    int fl;

    fin_tap(p, from, frame, *len);
    fl = tcp_flags(frame, *len);

    if (from == 0 && p->rt.mtu && !router_tap(p, frame, *len)) {
        return false;
    }
    p->w.frames[from]++;
    if (!p->w.first_at[from]) {
        p->w.first_at[from] = p->c.sl.now;
    }
    p->w.last_at[from] = p->c.sl.now;
    if (fl >= 0 && (fl & 0x04)) {
        p->w.rst[from]++;
    }
    return !p->mute[from];
}

static bool pair_up(struct pair *p, const struct rne_dev_config *base)
{
    memset(p, 0, sizeof(*p));
    return cp_up(&p->c, 7, base, wire_tap, p);
}

/* A connects to B, B accepts: both QPs in RTS. */
static bool establish(struct pair *p)
{
    if (!cp_establish(&p->c, 45100, PORT)) {
        return false;
    }
    /* let the last ACKs settle: both sides idle from here on */
    cp_run_for(&p->c, SL_SEC);
    return true;
}

/* Receives for side's QP, into one MR (flushed when the QP errors). */
static bool post_recvs(struct pair *p, int side)
{
    struct sd_mr mr;
    int i;

    if (sd_reg_mr(p->c.sd[side], &mr, RNIC_STAG(5, 1), 1,
                  RNIC_ACCESS_LOCAL_WRITE, 0x10000, 4096, 1)) {
        return cp_fail(&p->c, p->c.sd[side]->err, NULL);
    }
    for (i = 0; i < NRECV; i++) {
        struct rnic_rq_wqe w;

        memset(&w, 0, sizeof(w));
        w.wr_id = 0x70 + i;
        w.num_sge = 1;
        w.sge[0].addr = 0x10000;
        w.sge[0].length = 4096;
        w.sge[0].lkey = mr.stag;
        sd_post_recv(p->c.sd[side], &p->c.qp[side], &w);
    }
    return true;
}

/*
 * side's connection is gone: event `code` with `status`, the posted
 * receives flushed, the QP in ERROR.
 */
static bool torn_down_at(struct pair *p, int side, uint8_t code,
                         uint16_t status, uint64_t not_before,
                         uint64_t not_after)
{
    struct sd_cm_event ev;
    struct rnic_qp_attr at;
    struct rnic_cqe cqe;
    unsigned flushed = 0, i;
    char why[128];

    if (!cp_next_event(&p->c, side, &ev, not_after - p->c.sl.now) ||
        p->c.sl.now > not_after) {
        snprintf(why, sizeof(why), "side %c saw no CM event by %.3f s",
                 'A' + side, (double)not_after / SL_SEC);
        return cp_fail(&p->c, why, NULL);
    }
    if (p->c.sl.now < not_before) {
        snprintf(why, sizeof(why), "side %c got %s at %.3f s, before %.3f s",
                 'A' + side, sd_cm_name(ev.code), (double)p->c.sl.now / SL_SEC,
                 (double)not_before / SL_SEC);
        return cp_fail(&p->c, why, NULL);
    }
    if (ev.code != code || ev.cm.status != status) {
        snprintf(why, sizeof(why), "side %c got %s status %u, want %s %u",
                 'A' + side, sd_cm_name(ev.code), ev.cm.status,
                 sd_cm_name(code), status);
        return cp_fail(&p->c, why, NULL);
    }
    for (i = 0; i < 1000 && flushed < NRECV; i++) {
        while (sd_poll_cq(p->c.sd[side], &p->c.cq[side][1], &cqe)) {
            if (cqe.status != RNIC_WC_WR_FLUSH_ERR) {
                return cp_fail(&p->c, "receive completed with",
                            sd_wc_status_name(cqe.status));
            }
            flushed++;
        }
        sl_step(&p->c.sl);
    }
    if (flushed != NRECV) {
        return cp_fail(&p->c, "posted receives not flushed", NULL);
    }
    if (sd_query_qp(p->c.sd[side], p->c.qp[side].qpn, &at) ||
        at.state != RNIC_QPS_ERROR) {
        return cp_fail(&p->c, "QP not in ERROR", NULL);
    }
    return true;
}

static bool torn_down(struct pair *p, int side, uint8_t code,
                      uint16_t status, uint64_t within_ns)
{
    return torn_down_at(p, side, code, status, 0, p->c.sl.now + within_ns);
}

/* Reset side `r` (how: 0 register, 1 rne_dev_reset); the other learns. */
static bool reset_case(struct pair *p, int r, int how)
{
    int o = 1 - r;
    uint64_t sent_before;

    if (!pair_up(p, NULL) || !establish(p) || !post_recvs(p, o)) {
        return false;
    }
    sent_before = p->w.frames[o];
    if (how == 0) {
        rne_dev_reg_write(&p->c.sd[r]->dev, RNIC_REG_DEV_CTRL,
                          RNIC_CTRL_RESET);
        sd_run(p->c.sd[r]);
    } else if (!rne_dev_reset(&p->c.sd[r]->dev)) {
        return cp_fail(&p->c, "rne_dev_reset deferred outside a dispatch", NULL);
    }
    if (rne_dev_reg_read(&p->c.sd[r]->dev, RNIC_REG_DEV_STATUS) &
        (RNIC_STATUS_READY | RNIC_STATUS_RESETTING)) {
        return cp_fail(&p->c, "the reset did not complete", NULL);
    }
    if (!torn_down(p, o, RNIC_CM_RESET, 104, SL_SEC)) {
        return false;
    }
    if (p->w.rst[r] != 1) {
        return cp_fail(&p->c, "the reset side did not send exactly one RST", NULL);
    }
    /* learnt from the RST alone, not from a send of its own */
    if (p->w.frames[o] != sent_before) {
        return cp_fail(&p->c, "the idle side sent before it learnt", NULL);
    }
    return true;
}

static uint64_t many_rst[2];

static bool many_tap(void *opaque, int from, uint8_t *frame, size_t *len)
{
    int fl = tcp_flags(frame, *len);

    (void)opaque;
    if (fl >= 0 && (fl & 0x04)) {
        many_rst[from]++;
    }
    return true;
}

static bool case_reset_200(struct pair *p)
{
    enum { N = 200 };
    struct rne_dev_config cfg;
    struct simpair sp;
    struct sp_opts o;
    struct sd_cm_event ev;
    unsigned resets = 0, other = 0;
    uint64_t end;
    bool ok = false;
    char why[128];

    rne_dev_config_default(&cfg);
    cfg.max_qp = N + 1;
    cfg.max_cq = 2 * N + 2;
    memset(&o, 0, sizeof(o));
    o.nqp = N;
    o.mpa_rev = 2;
    o.mpa_flags = RNIC_MPA_CRC;
    o.ird = o.ord = 4;
    o.sq_log = 4;
    o.rq_log = 4;
    o.cq_log = 5;
    o.mem_size = (16ull << 20) + (uint64_t)N * 64 * 4096;
    o.batch = 100;
    o.cfg = &cfg;
    memset(many_rst, 0, sizeof(many_rst));
    memset(&sp, 0, sizeof(sp));
    if (!sp_init(&sp, &o, 11) || !sp_connect(&sp)) {
        snprintf(why, sizeof(why), "simpair: %.100s", sp.err);
        cp_fail(&p->c, why, NULL);
        goto out;
    }
    sp.sl.tap = many_tap;
    end = sp.sl.now + 2 * SL_SEC;
    while (sp.sl.now < end && sl_step(&sp.sl)) {
    }
    rne_dev_reg_write(&sp.sd[0]->dev, RNIC_REG_DEV_CTRL, RNIC_CTRL_RESET);
    sd_run(sp.sd[0]);
    end = sp.sl.now + SL_SEC;
    while (resets + other < N && sp.sl.now < end) {
        while (sd_cm_next(sp.sd[1], &ev)) {
            if (ev.code == RNIC_CM_RESET) {
                resets++;
            } else {
                other++;
            }
        }
        if (!sl_step(&sp.sl)) {
            sd_poll_events(sp.sd[1]);
            if (!sd_cm_next(sp.sd[1], &ev)) {
                break;
            }
            resets += ev.code == RNIC_CM_RESET;
            other += ev.code != RNIC_CM_RESET;
        }
    }
    snprintf(why, sizeof(why), "%" PRIu64 " RSTs from A, %u RESET and %u "
             "other events at B", many_rst[0], resets, other);
    printf("%s\n", why);
    ok = many_rst[0] == N && resets == N && !other;
    if (!ok) {
        cp_fail(&p->c, "reset-200", why);
    }
out:
    sp_fini(&sp);
    return ok;
}

static bool case_reset_initiator(struct pair *p)
{
    return reset_case(p, 0, 0);
}

static bool case_reset_responder(struct pair *p)
{
    return reset_case(p, 1, 0);
}

static bool case_reset_hold(struct pair *p)
{
    return reset_case(p, 0, 1);
}

/* Count frames from now on (first_at: the first one after this). */
static void wire_mark(struct pair *p, uint64_t frames[2])
{
    int i;

    for (i = 0; i < 2; i++) {
        frames[i] = p->w.frames[i];
        p->w.first_at[i] = 0;
    }
}

/* No CM event, no completion, both QPs in RTS. */
static bool quiet_rts(struct pair *p)
{
    struct sd_cm_event ev;
    struct rnic_qp_attr at;
    struct rnic_cqe cqe;
    int i;

    for (i = 0; i < 2; i++) {
        if (sd_cm_next(p->c.sd[i], &ev)) {
            return cp_fail(&p->c, "unexpected CM event", sd_cm_name(ev.code));
        }
        if (sd_poll_cq(p->c.sd[i], &p->c.cq[i][1], &cqe)) {
            return cp_fail(&p->c, "a receive completed while idle", NULL);
        }
        if (sd_query_qp(p->c.sd[i], p->c.qp[i].qpn, &at) ||
            at.state != RNIC_QPS_RTS) {
            return cp_fail(&p->c, "a QP left RTS", NULL);
        }
    }
    return true;
}

/* A Send of 64 bytes from side `from` into a receive posted now. */
static bool send_one(struct pair *p, int from, uint64_t wr_id)
{
    int to = 1 - from;
    uint64_t addr = 0x20000 + wr_id * 0x1000;
    uint64_t end = p->c.sl.now + SL_SEC;
    struct sd_mr mr[2];
    struct rnic_sq_wqe w;
    struct rnic_rq_wqe r;
    struct rnic_cqe cqe;
    int i;

    for (i = 0; i < 2; i++) {
        if (sd_reg_mr(p->c.sd[i], &mr[i], RNIC_STAG(6 + (uint32_t)wr_id, 1), 1,
                      RNIC_ACCESS_LOCAL_WRITE, addr, 4096, 1)) {
            return cp_fail(&p->c, p->c.sd[i]->err, NULL);
        }
    }
    memset(&r, 0, sizeof(r));
    r.wr_id = wr_id;
    r.num_sge = 1;
    r.sge[0].addr = addr;
    r.sge[0].length = 4096;
    r.sge[0].lkey = mr[to].stag;
    sd_post_recv(p->c.sd[to], &p->c.qp[to], &r);
    memset(&w, 0, sizeof(w));
    w.hdr.wr_id = wr_id;
    w.hdr.opcode = RNIC_WR_SEND;
    w.hdr.flags = RNIC_WQE_SIGNALED;
    w.hdr.count = 1;
    w.data.sge[0].addr = addr;
    w.data.sge[0].length = 64;
    w.data.sge[0].lkey = mr[from].stag;
    sd_post_send(p->c.sd[from], &p->c.qp[from], &w);
    while (!sd_poll_cq(p->c.sd[to], &p->c.cq[to][1], &cqe)) {
        if (p->c.sl.now > end || !sl_step(&p->c.sl)) {
            return cp_fail(&p->c, "the Send was not received", NULL);
        }
    }
    if (cqe.status != RNIC_WC_SUCCESS || cqe.byte_len != 64) {
        return cp_fail(&p->c, "the Send completed with",
                    sd_wc_status_name(cqe.status));
    }
    return true;
}

static bool case_keepalive_alive(struct pair *p)
{
    uint64_t base[2], t_idle, first;
    uint64_t period = (7200 + 9 * 75) * SL_SEC;
    char why[128];

    if (!pair_up(p, NULL) || !establish(p)) {
        return false;
    }
    t_idle = p->w.last_at[0] > p->w.last_at[1] ? p->w.last_at[0] :
                                                 p->w.last_at[1];
    wire_mark(p, base);
    cp_run_for(&p->c, 3 * period);
    if (p->w.frames[0] == base[0] || p->w.frames[1] == base[1]) {
        return cp_fail(&p->c, "no keepalive probe (or no answer) in 3 x 7875 s",
                    NULL);
    }
    first = p->w.first_at[0] < p->w.first_at[1] ? p->w.first_at[0] :
                                                  p->w.first_at[1];
    if (first < t_idle + 7200 * SL_SEC - SL_SEC ||
        first > t_idle + 7200 * SL_SEC + SL_SEC) {
        snprintf(why, sizeof(why), "first probe %.3f s after the last frame, "
                 "want 7200", (double)(first - t_idle) / SL_SEC);
        return cp_fail(&p->c, why, NULL);
    }
    printf("idle %.0f s: %" PRIu64 " + %" PRIu64 " keepalive frames\n",
           (double)(3 * period) / SL_SEC, p->w.frames[0] - base[0],
           p->w.frames[1] - base[1]);
    if (p->w.rst[0] || p->w.rst[1]) {
        return cp_fail(&p->c, "a RST while both peers were alive", NULL);
    }
    return quiet_rts(p) && send_one(p, 0, 1) && send_one(p, 1, 2) &&
           quiet_rts(p);
}

/*
 * The link goes silently dead once both sides are idle: each side must
 * time out at idle + probes x interval after the last frame it received,
 * having sent `probes` probes (and one RST nobody hears).
 */
static bool vanish(struct pair *p, const struct rne_dev_config *cfg,
                   uint32_t idle, uint32_t intvl, uint32_t probes)
{
    uint64_t base[2], due[2], at[2], last[2];
    char why[128];
    int i;

    if (!pair_up(p, cfg) || !establish(p) || !post_recvs(p, 0) ||
        !post_recvs(p, 1)) {
        return false;
    }
    for (i = 0; i < 2; i++) {
        last[i] = p->w.last_at[i];
        due[i] = p->w.last_at[1 - i] +
                 (uint64_t)(idle + probes * intvl) * SL_SEC;
    }
    p->mute[0] = p->mute[1] = true;
    wire_mark(p, base);
    for (i = 0; i < 2; i++) {
        if (!torn_down_at(p, i, RNIC_CM_TIMEOUT, 110, due[i] - SL_SEC,
                          due[i] + SL_SEC)) {
            return false;
        }
        at[i] = p->c.sl.now;
    }
    for (i = 0; i < 2; i++) {
        if (p->w.frames[i] - base[i] != probes + 1 || p->w.rst[i] != 1) {
            snprintf(why, sizeof(why), "side %c sent %" PRIu64 " frames "
                     "(%" PRIu64 " RST), want %u probes and one RST",
                     'A' + i, p->w.frames[i] - base[i], p->w.rst[i], probes);
            return cp_fail(&p->c, why, NULL);
        }
    }
    printf("A and B timed out %.3f and %.3f s after the last frame each "
           "received, %u probes each\n",
           (double)(at[0] - last[1]) / SL_SEC,
           (double)(at[1] - last[0]) / SL_SEC, probes);
    return true;
}

static bool case_keepalive_vanish(struct pair *p)
{
    return vanish(p, NULL, 7200, 75, 9);
}

static bool case_keepalive_custom(struct pair *p)
{
    struct rne_dev_config cfg;

    rne_dev_config_default(&cfg);
    cfg.keep_idle_s = 60;
    cfg.keep_intvl_s = 5;
    cfg.keep_probes = 3;
    return vanish(p, &cfg, 60, 5, 3);
}

static bool case_keepalive_off(struct pair *p)
{
    struct rne_dev_config cfg;
    uint64_t base[2];

    rne_dev_config_default(&cfg);
    cfg.keep_idle_s = 0;
    if (!pair_up(p, &cfg) || !establish(p)) {
        return false;
    }
    wire_mark(p, base);
    cp_run_for(&p->c, 4 * 3600 * SL_SEC);
    if (p->w.frames[0] != base[0] || p->w.frames[1] != base[1]) {
        return cp_fail(&p->c, "frames on an idle link with keepalive off", NULL);
    }
    return quiet_rts(p) && send_one(p, 0, 1) && quiet_rts(p);
}

/*
 * The router: a frame from A over its MTU is dropped and answered with
 * ICMP type 3 code 4 from 10.0.0.254, quoting the frame's IP header and
 * 8 octets of TCP (RFC 792's minimum).  Forged variants lie about the
 * sequence, the port or the checksum.
 */
static bool router_tap(struct pair *p, const uint8_t *frame, size_t len)
{
    static const uint8_t rtr[4] = { 10, 0, 0, 254 };
    uint8_t icmp_frame[14 + 20 + 8 + 60 + 8];
    uint8_t *icmp = icmp_frame + 14 + 20;
    size_t ihl = (size_t)(frame[14] & 15) * 4, qlen = ihl + 8;
    uint16_t ck;

    if (len <= 14 + p->rt.mtu) {
        return true;
    }
    if (p->rt.forge && p->rt.dropped >= 3) {
        return true;            /* lies told: the path opens again */
    }
    /* A had the first ICMP for 1 ms and still sends frames too big */
    if (p->rt.icmps && p->c.sl.now > p->rt.first_icmp_at + SL_MS) {
        p->rt.big_after++;
    }
    p->rt.dropped++;
    if (tcp_flags(frame, len) < 0 || qlen > 68) {
        return false;
    }
    rne_ip4_build(icmp_frame, p->c.sd[0]->mac, p->c.sd[1]->mac, rtr, cp_ip[0],
                  1, (uint16_t)(8 + qlen), (uint16_t)p->rt.icmps);
    memset(icmp, 0, 8);
    icmp[0] = 3;
    icmp[1] = 4;
    rne_st_be16(icmp + 6, (uint16_t)p->rt.says);
    memcpy(icmp + 8, frame + 14, qlen);
    if (p->rt.forge == 1) {         /* a sequence far outside the window */
        uint8_t *seq = icmp + 8 + ihl + 4;

        rne_st_be32(seq, rne_ld_be32(seq) + 0x40000000u);
    } else if (p->rt.forge == 2) {  /* a port of no connection */
        rne_st_be16(icmp + 8 + ihl, 45999);
    }
    ck = rne_csum_fold(rne_csum_add(0, icmp, 8 + qlen));
    if (p->rt.forge == 3) {
        ck ^= 0x0101;               /* a bad ICMP checksum */
    }
    rne_st_be16(icmp + 2, ck);
    if (!p->rt.icmps++) {
        p->rt.first_icmp_at = p->c.sl.now;
    }
    sl_send(&p->c.sl, 1, icmp_frame, 14 + 20 + 8 + qlen);
    return false;
}

/* One Send of len octets from A to B, checked byte for byte. */
static bool send_big(struct pair *p, uint32_t len, uint64_t max_ns)
{
    uint64_t end = p->c.sl.now + max_ns;
    uint8_t *src = malloc(len), *dst = malloc(len);
    struct sd_mr mr[2];
    struct rnic_sq_wqe w;
    struct rnic_rq_wqe r;
    struct rnic_cqe cqe;
    bool ok = false;
    uint32_t i;

    for (i = 0; i < 2; i++) {
        if (sd_reg_mr(p->c.sd[i], &mr[i], RNIC_STAG(9, 1), 1,
                      RNIC_ACCESS_LOCAL_WRITE, 0x100000, len, 0)) {
            cp_fail(&p->c, p->c.sd[i]->err, NULL);
            goto out;
        }
    }
    for (i = 0; i < len; i++) {
        src[i] = (uint8_t)(i * 7 + (i >> 9));
    }
    sd_mr_write(p->c.sd[0], &mr[0], 0, src, len);
    memset(&r, 0, sizeof(r));
    r.wr_id = 0x99;
    r.num_sge = 1;
    r.sge[0].addr = 0x100000;
    r.sge[0].length = len;
    r.sge[0].lkey = mr[1].stag;
    sd_post_recv(p->c.sd[1], &p->c.qp[1], &r);
    memset(&w, 0, sizeof(w));
    w.hdr.wr_id = 0x99;
    w.hdr.opcode = RNIC_WR_SEND;
    w.hdr.flags = RNIC_WQE_SIGNALED;
    w.hdr.count = 1;
    w.data.sge[0].addr = 0x100000;
    w.data.sge[0].length = len;
    w.data.sge[0].lkey = mr[0].stag;
    sd_post_send(p->c.sd[0], &p->c.qp[0], &w);
    while (!sd_poll_cq(p->c.sd[1], &p->c.cq[1][1], &cqe)) {
        if (p->c.sl.now > end || !sl_step(&p->c.sl)) {
            cp_fail(&p->c, "the Send did not arrive", NULL);
            goto out;
        }
    }
    if (cqe.status != RNIC_WC_SUCCESS || cqe.byte_len != len) {
        cp_fail(&p->c, "the Send completed with", sd_wc_status_name(cqe.status));
        goto out;
    }
    sd_mr_read(p->c.sd[1], &mr[1], 0, dst, len);
    if (memcmp(src, dst, len)) {
        cp_fail(&p->c, "the Send's data differs", NULL);
        goto out;
    }
    ok = true;
out:
    free(src);
    free(dst);
    return ok;
}

/* A's connection's MSS as QUERY_QP reports it. */
static unsigned mss_of(struct pair *p, int side)
{
    struct rnic_qp_attr at;

    if (sd_query_qp(p->c.sd[side], p->c.qp[side].qpn, &at)) {
        return 0;
    }
    return at.tcp.mss;
}

/* Router with MTU mtu saying says; A's MSS must end in [lo, hi]. */
static bool pmtu_case(struct pair *p, unsigned mtu, unsigned says,
                      unsigned forge, unsigned lo, unsigned hi)
{
    unsigned before, after;
    char why[160];

    if (!pair_up(p, NULL) || !establish(p)) {
        return false;
    }
    before = mss_of(p, 0);
    p->rt.mtu = mtu;
    p->rt.says = says;
    p->rt.forge = forge;
    if (!send_big(p, 256 << 10, 30 * SL_SEC)) {
        return false;
    }
    after = mss_of(p, 0);
    snprintf(why, sizeof(why), "MSS %u -> %u (want %u..%u), %" PRIu64
             " frames dropped, %" PRIu64 " ICMPs, %" PRIu64
             " too big after the first ICMP", before, after, lo, hi,
             p->rt.dropped, p->rt.icmps, p->rt.big_after);
    printf("%s\n", why);
    if (!p->rt.icmps) {
        return cp_fail(&p->c, "the router sent no ICMP", why);
    }
    if (after < lo || after > hi) {
        return cp_fail(&p->c, "A's MSS", why);
    }
    if (!forge && p->rt.big_after) {
        return cp_fail(&p->c, "frames beyond the path MTU went on", why);
    }
    return quiet_rts(p);
}

static bool case_pmtu(struct pair *p)
{
    /* 1280 - 40, less 12 for timestamps */
    return pmtu_case(p, 1280, 1280, 0, 1228, 1240);
}

static bool case_pmtu_floor(struct pair *p)
{
    return pmtu_case(p, 576, 300, 0, 524, 536);
}

static bool case_pmtu_forged(struct pair *p)
{
    unsigned f;

    for (f = 1; f <= 3; f++) {
        if (f > 1) {
            cp_down(&p->c);
        }
        if (!pmtu_case(p, 1000, 1000, f, 1436, 1460)) {
            return false;
        }
    }
    return true;
}

/* Neither device holds a connection any more. */
static bool no_conns(struct pair *p)
{
    int i;

    for (i = 0; i < 2; i++) {
        if (p->c.sd[i]->dev.iw->nlive) {
            char why[64];

            snprintf(why, sizeof(why), "side %c still has %u connections",
                     'A' + i, p->c.sd[i]->dev.iw->nlive);
            return cp_fail(&p->c, why, NULL);
        }
    }
    return true;
}

static bool case_fin_bad_request(struct pair *p)
{
    struct rnic_cmd_cm_connect c;
    struct sd_cm_event ev;
    uint32_t aconn;

    if (!pair_up(p, NULL)) {
        return false;
    }
    if (sd_cm_listen(p->c.sd[1], 0, PORT)) {
        return cp_fail(&p->c, p->c.sd[1]->err, NULL);
    }
    fin_arm(p, 0, 1, true, 3);          /* "MPA ID Req Frame": the key */
    cp_connect_cmd(&p->c, &c, 45100, PORT);
    if (sd_cm_connect(p->c.sd[0], &c, NULL, &aconn)) {
        return cp_fail(&p->c, p->c.sd[0]->err, NULL);
    }
    if (!cp_next_event(&p->c, 0, &ev, 10 * SL_SEC)) {
        return cp_fail(&p->c, "no CM event at A", NULL);
    }
    if (ev.code != RNIC_CM_RESET || p->fin.hit != 1) {
        return cp_fail(&p->c, "A got", sd_cm_name(ev.code));
    }
    cp_run_for(&p->c, 2 * SL_SEC);
    if (sd_cm_next(p->c.sd[1], &ev)) {
        return cp_fail(&p->c, "B posted", sd_cm_name(ev.code));
    }
    if (p->w.rst[1] != 1) {
        return cp_fail(&p->c, "B did not send exactly one RST", NULL);
    }
    return no_conns(p);
}

static bool case_fin_bad_reply(struct pair *p)
{
    struct rnic_cmd_cm_connect c;
    struct sd_cm_event ev;
    struct rnic_qp_attr at;
    uint32_t aconn;

    if (!pair_up(p, NULL)) {
        return false;
    }
    if (sd_cm_listen(p->c.sd[1], 0, PORT)) {
        return cp_fail(&p->c, p->c.sd[1]->err, NULL);
    }
    fin_arm(p, 1, 1, true, 3);          /* "MPA ID Rep Frame": the key */
    cp_connect_cmd(&p->c, &c, 45100, PORT);
    if (sd_cm_connect(p->c.sd[0], &c, NULL, &aconn)) {
        return cp_fail(&p->c, p->c.sd[0]->err, NULL);
    }
    if (!cp_next_event(&p->c, 1, &ev, 10 * SL_SEC) ||
        ev.code != RNIC_CM_CONNECT_REQUEST) {
        return cp_fail(&p->c, "no CONNECT_REQUEST", NULL);
    }
    if (sd_cm_accept(p->c.sd[1], ev.conn_id, p->c.qp[1].qpn, 4, 4,
                     RNIC_MPA_CRC, NULL, 0)) {
        return cp_fail(&p->c, p->c.sd[1]->err, NULL);
    }
    if (!cp_next_event(&p->c, 0, &ev, 10 * SL_SEC)) {
        return cp_fail(&p->c, "no CM event at A", NULL);
    }
    if (ev.code != RNIC_CM_MPA_ERROR || p->fin.hit != 1) {
        return cp_fail(&p->c, "A got", sd_cm_name(ev.code));
    }
    if (sd_query_qp(p->c.sd[0], p->c.qp[0].qpn, &at) ||
        at.state != RNIC_QPS_ERROR) {
        return cp_fail(&p->c, "A's QP not in ERROR", NULL);
    }
    /* B saw its side established (no RTR) before A's RST */
    do {
        if (!cp_next_event(&p->c, 1, &ev, 10 * SL_SEC)) {
            return cp_fail(&p->c, "B got no RESET", NULL);
        }
    } while (ev.code == RNIC_CM_ESTABLISHED);
    if (ev.code != RNIC_CM_RESET) {
        return cp_fail(&p->c, "B got", sd_cm_name(ev.code));
    }
    cp_run_for(&p->c, 2 * SL_SEC);
    if (p->w.rst[0] != 1) {
        return cp_fail(&p->c, "A did not send exactly one RST", NULL);
    }
    return no_conns(p);
}

static bool case_fin_terminate(struct pair *p)
{
    struct rnic_dev_stats ds;
    struct rnic_qp_attr at;
    struct rnic_sq_wqe w;
    struct rnic_cqe cqe;
    struct sd_mr mr;
    uint64_t end;

    if (!pair_up(p, NULL) || !establish(p)) {
        return false;
    }
    if (sd_reg_mr(p->c.sd[0], &mr, RNIC_STAG(6, 1), 1,
                  RNIC_ACCESS_LOCAL_WRITE, 0x20000, 4096, 1)) {
        return cp_fail(&p->c, p->c.sd[0]->err, NULL);
    }
    fin_arm(p, 0, 1, false, 0);
    memset(&w, 0, sizeof(w));
    w.hdr.wr_id = 0x51;
    w.hdr.opcode = RNIC_WR_SEND;
    w.hdr.flags = RNIC_WQE_SIGNALED;
    w.hdr.count = 1;
    w.data.sge[0].addr = 0x20000;
    w.data.sge[0].length = 64;
    w.data.sge[0].lkey = mr.stag;
    sd_post_send(p->c.sd[0], &p->c.qp[0], &w);
    end = p->c.sl.now + 10 * SL_SEC;
    while (!sd_poll_cq(p->c.sd[0], &p->c.cq[0][0], &cqe)) {
        if (p->c.sl.now > end || !sl_step(&p->c.sl)) {
            return cp_fail(&p->c, "A's Send never completed", NULL);
        }
    }
    if (p->fin.hit != 1) {
        return cp_fail(&p->c, "the Send's frame was not seen", NULL);
    }
    cp_run_for(&p->c, 2 * SL_SEC);
    if (sd_query_qp(p->c.sd[1], p->c.qp[1].qpn, &at) ||
        at.state != RNIC_QPS_ERROR) {
        return cp_fail(&p->c, "B's QP not in ERROR", NULL);
    }
    if (sd_query_dev_stats(p->c.sd[1], &ds) || ds.proto.term_tx != 1) {
        return cp_fail(&p->c, "B did not send exactly one Terminate", NULL);
    }
    return true;
}

static const struct {
    const char *name;
    bool (*fn)(struct pair *p);
} cases[] = {
    { "reset-initiator", case_reset_initiator },
    { "reset-responder", case_reset_responder },
    { "reset-hold", case_reset_hold },
    { "reset-200", case_reset_200 },
    { "keepalive-alive", case_keepalive_alive },
    { "keepalive-vanish", case_keepalive_vanish },
    { "keepalive-custom", case_keepalive_custom },
    { "keepalive-off", case_keepalive_off },
    { "pmtu", case_pmtu },
    { "pmtu-floor", case_pmtu_floor },
    { "pmtu-forged", case_pmtu_forged },
    { "fin-bad-request", case_fin_bad_request },
    { "fin-bad-reply", case_fin_bad_reply },
    { "fin-terminate", case_fin_terminate },
};

int main(int argc, char **argv)
{
    static struct pair P;
    int fails = 0, ran = 0;
    size_t k;

    for (k = 0; k < sizeof(cases) / sizeof(cases[0]); k++) {
        bool ok;

        if (!cp_wants(argc, argv, cases[k].name)) {
            continue;
        }
        ran++;
        memset(P.c.sd, 0, sizeof(P.c.sd));
        ok = cases[k].fn(&P);
        ok = ok && (!P.c.sd[0] || (sd_check_guards(P.c.sd[0]) == 0 &&
                                 sd_check_guards(P.c.sd[1]) == 0));
        printf("%-18s %s%s\n", cases[k].name, ok ? "ok" : "FAIL: ",
               ok ? "" : P.c.err);
        fflush(stdout);
        fails += !ok;
        if (P.c.sd[0]) {
            cp_down(&P.c);
        }
    }
    if (!ran) {
        fprintf(stderr, "usage: %s [--case NAME]...\n", argv[0]);
        return 2;
    }
    return fails ? 1 : 0;
}
