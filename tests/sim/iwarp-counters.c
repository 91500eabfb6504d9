// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The protocol counters of QUERY_STATS (struct rnic_proto_stats) between two
 * simulated rnics: each case makes one event happen on the wire through the
 * link's tap and requires every counter of both devices to move by exactly
 * what that event explains, and by nothing else:
 *   clean     a lossless Send each way: segments and FPDUs balance across
 *             the link (A's sent = B's received and back), no error counted;
 *   rto       A's one data segment lost: one RTO, one retransmission;
 *   ooo       the first of A's three segments lost: B holds the other two
 *             out of order (2), A retransmits the hole once;
 *   csum      a payload octet of A's segment flipped: B drops it for its
 *             TCP checksum, A retransmits it after an RTO, the data arrives;
 *   crc       the same octet flipped and the TCP checksum made good again:
 *             B finds the bad CRC32c, sends a Terminate, A receives it;
 *   mpa-neg   the key of A's MPA Request damaged (checksum made good): B
 *             counts a failed negotiation, no connection reaches RTS;
 *   reset     a device reset zeroes every counter; a QUERY_STATS buffer of
 *             the old size gets the port block alone (stats_len 128).
 *
 *   iwarp-counters [--case NAME]...
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "wire/net.h"
#include "cmpair.h"

#define PORT 7100

struct pair {
    struct cmpair c;
    struct sd_mr mr[2];
    struct rnic_proto_stats base[2];
};

#define CTR(f) { #f, offsetof(struct rnic_proto_stats, f) }
static const struct {
    const char *name;
    size_t off;
} ctrs[] = {
    CTR(tcp_tx_segs), CTR(tcp_rx_segs), CTR(tcp_tx_data_segs),
    CTR(tcp_rexmit_segs), CTR(tcp_rto), CTR(tcp_fast_rexmit),
    CTR(tcp_rx_csum_err), CTR(tcp_rx_bad), CTR(tcp_rx_ooo), CTR(tcp_rx_dup),
    CTR(tcp_rx_no_conn), CTR(tcp_tx_rst), CTR(tcp_paws_drop),
    CTR(tcp_conns_opened), CTR(mpa_crc_err), CTR(mpa_frame_err),
    CTR(mpa_neg_fail), CTR(term_tx), CTR(term_rx), CTR(fpdu_tx),
    CTR(fpdu_rx), CTR(conns_rts),
};
#define NCTR (sizeof(ctrs) / sizeof(ctrs[0]))

/* What the tap does to the Nth TCP segment with data that `from` sends. */
enum tap_act { TAP_NONE, TAP_DROP, TAP_FLIP, TAP_FLIP_FIX };
static struct {
    enum tap_act act;
    int from;
    unsigned nth, seen, hit;
    size_t at;                  /* payload octet to flip */
} tap;

static uint64_t get(const struct rnic_proto_stats *s, size_t i)
{
    uint64_t v;

    memcpy(&v, (const uint8_t *)s + ctrs[i].off, sizeof(v));
    return v;
}

static bool query(struct pair *p, int side, struct rnic_proto_stats *out)
{
    struct rnic_dev_stats ds;

    if (sd_query_dev_stats(p->c.sd[side], &ds)) {
        return cp_fail(&p->c, "QUERY_STATS", p->c.sd[side]->err);
    }
    if (ds.port.stats_len != sizeof(ds)) {
        return cp_fail(&p->c, "QUERY_STATS wrote no protocol counters", NULL);
    }
    *out = ds.proto;
    return true;
}

/* Recompute the TCP checksum of an IPv4 frame (no options assumed). */
static void tcp_csum_fix(uint8_t *f, size_t len)
{
    size_t ihl = (size_t)(f[14] & 0x0f) * 4;
    uint16_t tot = (uint16_t)(f[16] << 8 | f[17]);
    uint16_t tl = (uint16_t)(tot - ihl);
    uint8_t *t = f + 14 + ihl;
    uint16_t c;

    (void)len;
    t[16] = t[17] = 0;
    c = rne_csum_fold(rne_csum_pseudo4(f + 26, f + 30, 6, tl) +
                      rne_csum_add(0, t, tl));
    t[16] = (uint8_t)(c >> 8);
    t[17] = (uint8_t)c;
}

static bool tap_fn(void *opaque, int from, uint8_t *f, size_t *len)
{
    size_t ihl, off, plen;

    (void)opaque;
    if (tap.act == TAP_NONE || from != tap.from || *len < 14 + 20 + 20 ||
        f[12] != 0x08 || f[13] != 0x00 || f[23] != 6) {
        return true;
    }
    ihl = (size_t)(f[14] & 0x0f) * 4;
    off = 14 + ihl + (size_t)(f[14 + ihl + 12] >> 4) * 4;
    plen = 14 + (size_t)(f[16] << 8 | f[17]) - off;
    if (!plen || off + plen > *len || ++tap.seen != tap.nth) {
        return true;
    }
    tap.hit++;
    switch (tap.act) {
    case TAP_DROP:
        return false;
    case TAP_FLIP:
    case TAP_FLIP_FIX:
        f[off + (tap.at < plen ? tap.at : plen - 1)] ^= 0x20;
        if (tap.act == TAP_FLIP_FIX) {
            tcp_csum_fix(f, *len);
        }
        return true;
    default:
        return true;
    }
}

static void tap_arm(enum tap_act act, int from, unsigned nth, size_t at)
{
    memset(&tap, 0, sizeof(tap));
    tap.act = act;
    tap.from = from;
    tap.nth = nth;
    tap.at = at;
}

static bool pair_up(struct pair *p)
{
    int i;

    memset(p, 0, sizeof(*p));
    if (!cp_up(&p->c, 7, NULL, tap_fn, NULL)) {
        return false;
    }
    for (i = 0; i < 2; i++) {
        if (sd_reg_mr(p->c.sd[i], &p->mr[i], RNIC_STAG(6, 1), 1,
                      RNIC_ACCESS_LOCAL_WRITE, 0x20000, 16384, 1)) {
            return cp_fail(&p->c, p->c.sd[i]->err, NULL);
        }
    }
    return true;
}

/*
 * Connect A to B, then let 6 s pass (A's nudges of a silent responder end
 * 5 s after the Reply) and take both devices' counters as the base.
 */
static bool establish(struct pair *p)
{
    if (!cp_establish(&p->c, 45000, PORT)) {
        return false;
    }
    cp_run_for(&p->c, 6 * SL_SEC);
    return query(p, 0, &p->base[0]) && query(p, 1, &p->base[1]);
}

/* A Send of len octets from `from`, a receive posted at the other side. */
static void post_send(struct pair *p, int from, uint32_t len, uint64_t wr_id)
{
    int to = 1 - from;
    struct rnic_sq_wqe w;
    struct rnic_rq_wqe r;

    memset(&r, 0, sizeof(r));
    r.wr_id = wr_id;
    r.num_sge = 1;
    r.sge[0].addr = 0x20000;
    r.sge[0].length = 16384;
    r.sge[0].lkey = p->mr[to].stag;
    sd_post_recv(p->c.sd[to], &p->c.qp[to], &r);
    memset(&w, 0, sizeof(w));
    w.hdr.wr_id = wr_id;
    w.hdr.opcode = RNIC_WR_SEND;
    w.hdr.flags = RNIC_WQE_SIGNALED;
    w.hdr.count = 1;
    w.data.sge[0].addr = 0x20000;
    w.data.sge[0].length = len;
    w.data.sge[0].lkey = p->mr[from].stag;
    sd_post_send(p->c.sd[from], &p->c.qp[from], &w);
}

/* The Send arrives whole (within 10 s: an RTO may come first). */
static bool send_ok(struct pair *p, int from, uint32_t len)
{
    uint64_t end = p->c.sl.now + 10 * SL_SEC;
    struct rnic_cqe cqe;

    post_send(p, from, len, 1);
    while (!sd_poll_cq(p->c.sd[1 - from], &p->c.cq[1 - from][1], &cqe)) {
        if (p->c.sl.now > end || !sl_step(&p->c.sl)) {
            return cp_fail(&p->c, "the Send was not received", NULL);
        }
    }
    if (cqe.status != RNIC_WC_SUCCESS || cqe.byte_len != len) {
        return cp_fail(&p->c, "the Send completed with",
                    sd_wc_status_name(cqe.status));
    }
    return true;
}

/*
 * After the link went quiet: every counter of side moved from the base by
 * exactly the delta `want` names ("name=N,..."), every other one by 0.
 */
static bool expect(struct pair *p, int side, const char *want)
{
    struct rnic_proto_stats now;
    char buf[160];
    size_t i;

    if (!query(p, side, &now)) {
        return false;
    }
    for (i = 0; i < NCTR; i++) {
        uint64_t d = get(&now, i) - get(&p->base[side], i), w = 0;
        const char *m = strstr(want, ctrs[i].name);
        size_t n = strlen(ctrs[i].name);

        while (m && m[n] != '=') {
            m = strstr(m + n, ctrs[i].name);
        }
        if (m) {
            w = strtoull(m + n + 1, NULL, 10);
        }
        if (d != w) {
            snprintf(buf, sizeof(buf), "device %c %s moved by %" PRIu64
                     ", expected %" PRIu64, 'A' + side, ctrs[i].name, d, w);
            return cp_fail(&p->c, buf, NULL);
        }
    }
    return true;
}

/* Delta of one counter of side since the base. */
static uint64_t moved(struct pair *p, int side, size_t off)
{
    struct rnic_proto_stats now;
    uint64_t a, b;

    if (!query(p, side, &now)) {
        return UINT64_MAX;
    }
    memcpy(&a, (const uint8_t *)&now + off, 8);
    memcpy(&b, (const uint8_t *)&p->base[side] + off, 8);
    return a - b;
}

/* Segments balance across the link but for `lost` frames A sent. */
static bool balanced(struct pair *p, uint64_t lost)
{
    uint64_t atx = moved(p, 0, offsetof(struct rnic_proto_stats, tcp_tx_segs));
    uint64_t brx = moved(p, 1, offsetof(struct rnic_proto_stats, tcp_rx_segs));
    uint64_t btx = moved(p, 1, offsetof(struct rnic_proto_stats, tcp_tx_segs));
    uint64_t arx = moved(p, 0, offsetof(struct rnic_proto_stats, tcp_rx_segs));
    char buf[160];

    printf("    A sent %" PRIu64 " segments, B received %" PRIu64 "; B sent %"
           PRIu64 ", A received %" PRIu64 "\n", atx, brx, btx, arx);
    if (atx != brx + lost || btx != arx) {
        snprintf(buf, sizeof(buf), "segments do not balance: A tx %" PRIu64
                 " B rx %" PRIu64 " (%" PRIu64 " lost), B tx %" PRIu64
                 " A rx %" PRIu64, atx, brx, lost, btx, arx);
        return cp_fail(&p->c, buf, NULL);
    }
    return true;
}

static bool tap_hit_once(struct pair *p)
{
    return tap.hit == 1 || cp_fail(&p->c, "the tap did not hit exactly one frame",
                                NULL);
}

/*
 * Segment counts are whatever the ACK clock made them: they are checked
 * for balance across the link and copied into the expectation.
 */
static bool expect_with_segs(struct pair *p, int side, const char *rest)
{
    char want[512];

    snprintf(want, sizeof(want), "%s,tcp_tx_segs=%" PRIu64
             ",tcp_rx_segs=%" PRIu64, rest,
             moved(p, side, offsetof(struct rnic_proto_stats, tcp_tx_segs)),
             moved(p, side, offsetof(struct rnic_proto_stats, tcp_rx_segs)));
    return expect(p, side, want);
}

static bool case_clean(struct pair *p)
{
    if (!establish(p) || !send_ok(p, 0, 64) || !send_ok(p, 1, 64)) {
        return false;
    }
    cp_run_for(&p->c, 2 * SL_SEC);
    return balanced(p, 0) &&
           expect_with_segs(p, 0, "tcp_tx_data_segs=1,fpdu_tx=1,fpdu_rx=1") &&
           expect_with_segs(p, 1, "tcp_tx_data_segs=1,fpdu_tx=1,fpdu_rx=1");
}

static bool case_rto(struct pair *p)
{
    if (!establish(p)) {
        return false;
    }
    tap_arm(TAP_DROP, 0, 1, 0);
    if (!send_ok(p, 0, 64)) {
        return false;
    }
    cp_run_for(&p->c, 2 * SL_SEC);
    return tap_hit_once(p) && balanced(p, 1) &&
           expect_with_segs(p, 0, "tcp_tx_data_segs=2,tcp_rexmit_segs=1,"
                            "tcp_rto=1,fpdu_tx=1") &&
           expect_with_segs(p, 1, "fpdu_rx=1");
}

static bool case_ooo(struct pair *p)
{
    if (!establish(p)) {
        return false;
    }
    tap_arm(TAP_DROP, 0, 1, 0);
    if (!send_ok(p, 0, 4000)) {
        return false;
    }
    cp_run_for(&p->c, 2 * SL_SEC);
    return tap_hit_once(p) && balanced(p, 1) &&
           expect_with_segs(p, 0, "tcp_tx_data_segs=4,tcp_rexmit_segs=1,"
                            "tcp_rto=1,fpdu_tx=3") &&
           expect_with_segs(p, 1, "tcp_rx_ooo=2,fpdu_rx=3");
}

static bool case_csum(struct pair *p)
{
    if (!establish(p)) {
        return false;
    }
    tap_arm(TAP_FLIP, 0, 1, 20);
    if (!send_ok(p, 0, 64)) {
        return false;
    }
    cp_run_for(&p->c, 2 * SL_SEC);
    return tap_hit_once(p) && balanced(p, 0) &&
           expect_with_segs(p, 0, "tcp_tx_data_segs=2,tcp_rexmit_segs=1,"
                            "tcp_rto=1,fpdu_tx=1") &&
           expect_with_segs(p, 1, "tcp_rx_csum_err=1,fpdu_rx=1");
}

static bool case_crc(struct pair *p)
{
    struct rnic_qp_attr at;

    if (!establish(p)) {
        return false;
    }
    tap_arm(TAP_FLIP_FIX, 0, 1, 20);
    post_send(p, 0, 64, 1);
    cp_run_for(&p->c, 3 * SL_SEC);
    if (sd_query_qp(p->c.sd[0], p->c.qp[0].qpn, &at) ||
        at.state != RNIC_QPS_ERROR) {
        return cp_fail(&p->c, "A's QP is not in ERROR after B's Terminate", NULL);
    }
    /* A sends its Send, B its Terminate: one data segment each. */
    return tap_hit_once(p) && balanced(p, 0) &&
           expect_with_segs(p, 0, "tcp_tx_data_segs=1,fpdu_tx=1,term_rx=1,"
                            "fpdu_rx=1") &&
           expect_with_segs(p, 1, "tcp_tx_data_segs=1,mpa_crc_err=1,"
                            "term_tx=1,fpdu_tx=1");
}

static bool case_mpa_neg(struct pair *p)
{
    struct rnic_cmd_cm_connect c;
    struct sd_cm_event ev;
    uint32_t aconn;
    int i;

    for (i = 0; i < 2; i++) {
        if (!query(p, i, &p->base[i])) {
            return false;
        }
    }
    if (sd_cm_listen(p->c.sd[1], 0, PORT)) {
        return cp_fail(&p->c, p->c.sd[1]->err, NULL);
    }
    tap_arm(TAP_FLIP_FIX, 0, 1, 3);     /* "MPA ID Req Frame": the key */
    cp_connect_cmd(&p->c, &c, 45000, PORT);
    if (sd_cm_connect(p->c.sd[0], &c, NULL, &aconn)) {
        return cp_fail(&p->c, p->c.sd[0]->err, NULL);
    }
    if (!cp_next_event(&p->c, 0, &ev, 10 * SL_SEC)) {
        return cp_fail(&p->c, "no CM event at A", NULL);
    }
    if (ev.code == RNIC_CM_CONNECT_REPLY) {
        return cp_fail(&p->c, "a damaged MPA Request was accepted", NULL);
    }
    if (sd_cm_next(p->c.sd[1], &ev)) {
        return cp_fail(&p->c, "B posted", sd_cm_name(ev.code));
    }
    cp_run_for(&p->c, 2 * SL_SEC);
    return tap_hit_once(p) && balanced(p, 0) &&
           expect_with_segs(p, 0, "tcp_tx_data_segs=1,tcp_conns_opened=1") &&
           expect_with_segs(p, 1, "tcp_conns_opened=1,mpa_neg_fail=1,"
                            "tcp_tx_rst=1");
}

static bool case_reset(struct pair *p)
{
    struct rnic_dev_stats ds;
    struct rnic_port_stats ps;
    size_t i;

    if (!establish(p) || !send_ok(p, 0, 64)) {
        return false;
    }
    /* The old buffer size: the port block alone, told by stats_len. */
    memset(&ds, 0xa5, sizeof(ds));
    sd_write(p->c.sd[0], p->c.sd[0]->scratch_query, &ds, sizeof(ds));
    if (sd_query_stats(p->c.sd[0], &ps) || ps.stats_len != sizeof(ps)) {
        return cp_fail(&p->c, "QUERY_STATS with 128 octets: stats_len is not 128",
                    NULL);
    }
    sd_read(p->c.sd[0], p->c.sd[0]->scratch_query, &ds, sizeof(ds));
    for (i = 0; i < sizeof(ds.proto); i++) {
        if (((uint8_t *)&ds.proto)[i] != 0xa5) {
            return cp_fail(&p->c, "QUERY_STATS with 128 octets wrote beyond them",
                        NULL);
        }
    }
    if (!query(p, 0, &ds.proto) || !ds.proto.tcp_tx_segs ||
        !ds.proto.fpdu_tx) {
        return cp_fail(&p->c, "no traffic counted before the reset", NULL);
    }
    rne_dev_reg_write(&p->c.sd[0]->dev, RNIC_REG_DEV_CTRL, RNIC_CTRL_RESET);
    sd_run(p->c.sd[0]);
    if (sd_enable(p->c.sd[0], 1500) || !query(p, 0, &ds.proto)) {
        return cp_fail(&p->c, "device A after its reset", p->c.sd[0]->err);
    }
    memset(&p->base[0], 0, sizeof(p->base[0]));
    return expect(p, 0, "");
}

static const struct {
    const char *name;
    bool (*fn)(struct pair *p);
} cases[] = {
    { "clean", case_clean },
    { "rto", case_rto },
    { "ooo", case_ooo },
    { "csum", case_csum },
    { "crc", case_crc },
    { "mpa-neg", case_mpa_neg },
    { "reset", case_reset },
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
        memset(&tap, 0, sizeof(tap));
        printf("%s:\n", cases[k].name);
        ok = pair_up(&P) && cases[k].fn(&P);
        ok = ok && sd_check_guards(P.c.sd[0]) == 0 &&
             sd_check_guards(P.c.sd[1]) == 0;
        printf("%-8s %s%s\n", cases[k].name, ok ? "ok" : "FAIL: ",
               ok ? "" : P.c.err);
        fails += !ok;
        cp_down(&P.c);
    }
    if (!ran) {
        fprintf(stderr, "usage: %s [--case NAME]...\n", argv[0]);
        return 2;
    }
    printf("iwarp-counters: %d case(s), %d failed\n", ran, fails);
    return fails ? 1 : 0;
}
