// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Connection management between two simulated rnics, through the CM
 * commands and CM events of hw.h only:
 *   reject       CM_REJECT with private data: the active side gets REJECTED
 *                carrying that private data;
 *   abort        CM_ABORT on an established connection: the peer gets RESET,
 *                its posted receives are flushed and its QP is in ERROR;
 *   no-listener  CONNECT to a port nobody listens on ends in REJECTED (the
 *                TCP RST), or RESET/TIMEOUT, never ESTABLISHED;
 *   loopback-no-listener  CONNECT to the device's own address (next hop its
 *                own MAC) on a port nobody listens on: refused (RESET,
 *                ECONNREFUSED, from the device's own RST) at once, nothing
 *                on the wire;
 *   pdata-limits the largest private data each MPA revision carries (512,
 *                508 with the RFC 6581 block) arrives intact both ways, one
 *                byte more is refused with BAD_PARAM;
 *   bad-commands LISTEN twice on one port, CONNECT of an unknown QP, ACCEPT
 *                of an unknown connection: a status, nothing else; VLAN
 *                TCIs no interface has (VID 0, 4095, DEI), a VLAN on the
 *                wildcard LISTEN, unknown flags: BAD_PARAM; one address
 *                and port may be listened on per VLAN.
 *   nudge        the initiator wakes a silent responder (Linux siw's accept
 *                race) with zero-length Writes: none before it sent anything,
 *                some after its Send while the responder stays silent, none
 *                5 s after the Reply; the responder places nothing for them;
 *   nudge-answered a responder that answers in time gets no nudge at all.
 *   rev1-ird-ord a revision 1 Request (no IRD/ORD on the wire): the
 *                CONNECT_REQUEST offers IRD/ORD a responder can accept with
 *                (as rdma_accept(id, NULL) does), Reads work both ways;
 *   rtr-send, rtr-write, rtr-read  RFC 6581 peer-to-peer with one RTR kind
 *                offered and none named by the responder's driver: the RTR
 *                completes the connection, no ULP sees it, Sends and Reads
 *                flow both ways;
 *   timer-reply  the responder never answers the Request: the initiator's
 *                MPA timer (10 s) gives TIMEOUT, the RST gives the responder
 *                RESET, no connection memory is left;
 *   timer-request the Request never arrives: the responder's timer (5 s)
 *                resets silently, the initiator sees RESET, nothing left;
 *   timer-rtr    the RTR never arrives: the responder's timer (10 s) gives
 *                TIMEOUT, the initiator RESET, nothing left.
 *
 *   iwarp-cm [--case NAME]...
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "wire/mpa.h"
#include "cmpair.h"

#define PORT 7000


static void connect_cmd(struct cmpair *p, struct rnic_cmd_cm_connect *c,
                        uint16_t port, uint8_t rev, uint16_t pdata_len)
{
    cp_connect_cmd(p, c, 45000, port);
    c->mpa_rev = rev;
    c->pdata_len = pdata_len;
}

/* Step until side has a CM event; false after max_ns. */
static void fill(uint8_t *b, size_t n, uint8_t seed)
{
    size_t i;

    for (i = 0; i < n; i++) {
        b[i] = (uint8_t)(i * 31 + seed);
    }
}

/* CONNECT with pd, the passive side ACCEPTs with its own; both checked. */
static bool establish(struct cmpair *p, uint8_t rev, uint16_t len_req,
                      uint16_t len_rep, uint32_t *conn, uint32_t *aconn)
{
    struct rnic_cmd_cm_connect c;
    struct sd_cm_event ev;
    uint8_t req[RNIC_MPA_MAX_PDATA], rep[RNIC_MPA_MAX_PDATA];

    fill(req, sizeof(req), 1);
    fill(rep, sizeof(rep), 2);
    if (sd_cm_listen(p->sd[1], 0, PORT)) {
        return cp_fail(p, p->sd[1]->err, NULL);
    }
    connect_cmd(p, &c, PORT, rev, len_req);
    if (sd_cm_connect(p->sd[0], &c, req, aconn)) {
        return cp_fail(p, p->sd[0]->err, NULL);
    }
    if (!cp_next_event(p, 1, &ev, 10 * SL_SEC) ||
        ev.code != RNIC_CM_CONNECT_REQUEST) {
        return cp_fail(p, "no CONNECT_REQUEST", NULL);
    }
    if (ev.cm.pdata_len != len_req || memcmp(ev.pdata, req, len_req)) {
        return cp_fail(p, "CONNECT_REQUEST private data differs", NULL);
    }
    *conn = ev.conn_id;
    if (sd_cm_accept(p->sd[1], ev.conn_id, p->qp[1].qpn, 4, 4, RNIC_MPA_CRC,
                     rep, len_rep)) {
        return cp_fail(p, p->sd[1]->err, NULL);
    }
    if (!cp_next_event(p, 0, &ev, 10 * SL_SEC) ||
        ev.code != RNIC_CM_CONNECT_REPLY) {
        return cp_fail(p, "no CONNECT_REPLY at the active side",
                    sd_cm_name(ev.code));
    }
    if (ev.cm.pdata_len != len_rep || memcmp(ev.pdata, rep, len_rep)) {
        return cp_fail(p, "CONNECT_REPLY private data differs", NULL);
    }
    if (!cp_next_event(p, 1, &ev, 10 * SL_SEC) ||
        ev.code != RNIC_CM_ESTABLISHED) {
        return cp_fail(p, "no ESTABLISHED at the passive side", NULL);
    }
    return true;
}

static bool case_reject(struct cmpair *p)
{
    struct rnic_cmd_cm_connect c;
    struct sd_cm_event ev;
    static const char why[] = "no thanks: private data of a REJECT";
    uint32_t conn;

    if (sd_cm_listen(p->sd[1], 0, PORT)) {
        return cp_fail(p, p->sd[1]->err, NULL);
    }
    connect_cmd(p, &c, PORT, 2, 4);
    if (sd_cm_connect(p->sd[0], &c, "hey!", &conn)) {
        return cp_fail(p, p->sd[0]->err, NULL);
    }
    if (!cp_next_event(p, 1, &ev, 10 * SL_SEC) ||
        ev.code != RNIC_CM_CONNECT_REQUEST) {
        return cp_fail(p, "no CONNECT_REQUEST", NULL);
    }
    if (sd_cm_reject(p->sd[1], ev.conn_id, why, sizeof(why))) {
        return cp_fail(p, p->sd[1]->err, NULL);
    }
    if (!cp_next_event(p, 0, &ev, 10 * SL_SEC)) {
        return cp_fail(p, "no CM event at the active side after REJECT", NULL);
    }
    if (ev.code != RNIC_CM_REJECTED || ev.conn_id != conn) {
        return cp_fail(p, "active side got", sd_cm_name(ev.code));
    }
    if (ev.cm.pdata_len != sizeof(why) || memcmp(ev.pdata, why, sizeof(why))) {
        return cp_fail(p, "REJECTED without the rejecting private data", NULL);
    }
    return true;
}

static bool case_abort(struct cmpair *p)
{
    struct sd_cm_event ev;
    struct rnic_qp_attr at;
    struct rnic_cqe cqe;
    uint32_t conn, aconn, i, flushed = 0;
    struct sd_mr mr;

    if (!establish(p, 2, 16, 16, &conn, &aconn)) {
        return false;
    }
    if (sd_reg_mr(p->sd[1], &mr, RNIC_STAG(5, 1), 1, RNIC_ACCESS_LOCAL_WRITE,
                  0x10000, 4096, 1)) {
        return cp_fail(p, p->sd[1]->err, NULL);
    }
    for (i = 0; i < 3; i++) {
        struct rnic_rq_wqe w;

        memset(&w, 0, sizeof(w));
        w.wr_id = 0x70 + i;
        w.num_sge = 1;
        w.sge[0].addr = 0x10000;
        w.sge[0].length = 4096;
        w.sge[0].lkey = mr.stag;
        sd_post_recv(p->sd[1], &p->qp[1], &w);
    }
    if (sd_cm_simple(p->sd[0], RNIC_CMD_CM_ABORT, aconn)) {
        return cp_fail(p, p->sd[0]->err, NULL);
    }
    if (!cp_next_event(p, 1, &ev, 10 * SL_SEC)) {
        return cp_fail(p, "the passive side saw nothing after CM_ABORT", NULL);
    }
    if (ev.code != RNIC_CM_RESET) {
        return cp_fail(p, "passive side got", sd_cm_name(ev.code));
    }
    for (i = 0; i < 1000 && flushed < 3; i++) {
        while (sd_poll_cq(p->sd[1], &p->cq[1][1], &cqe)) {
            if (cqe.status != RNIC_WC_WR_FLUSH_ERR) {
                return cp_fail(p, "receive completed with",
                            sd_wc_status_name(cqe.status));
            }
            flushed++;
        }
        sl_step(&p->sl);
    }
    if (flushed != 3) {
        return cp_fail(p, "posted receives not flushed after RESET", NULL);
    }
    if (sd_query_qp(p->sd[1], p->qp[1].qpn, &at) ||
        at.state != RNIC_QPS_ERROR) {
        return cp_fail(p, "passive QP not in ERROR after RESET", NULL);
    }
    return true;
}

static bool case_no_listener(struct cmpair *p)
{
    struct rnic_cmd_cm_connect c;
    struct sd_cm_event ev;
    uint32_t conn;

    connect_cmd(p, &c, PORT + 1, 2, 0);
    if (sd_cm_connect(p->sd[0], &c, NULL, &conn)) {
        return cp_fail(p, p->sd[0]->err, NULL);
    }
    if (!cp_next_event(p, 0, &ev, 300 * SL_SEC)) {
        return cp_fail(p, "no CM event for a connect nobody answers", NULL);
    }
    if (ev.code != RNIC_CM_REJECTED && ev.code != RNIC_CM_RESET &&
        ev.code != RNIC_CM_TIMEOUT) {
        return cp_fail(p, "connect to no listener ended in", sd_cm_name(ev.code));
    }
    return true;
}

static bool case_loopback_no_listener(struct cmpair *p)
{
    uint64_t wire = p->sl.st[0].sent, t0 = p->sl.now;
    struct rnic_cmd_cm_connect c;
    struct sd_cm_event ev;
    uint32_t conn;

    connect_cmd(p, &c, PORT + 1, 2, 0);
    memcpy(c.tuple.remote_addr, cp_ip[0], 4);
    memcpy(c.next_hop_mac, p->sd[0]->mac, 6);
    if (sd_cm_connect(p->sd[0], &c, NULL, &conn)) {
        return cp_fail(p, p->sd[0]->err, NULL);
    }
    if (!cp_next_event(p, 0, &ev, 300 * SL_SEC)) {
        return cp_fail(p, "no CM event for a connect to ourselves", NULL);
    }
    if (ev.code != RNIC_CM_RESET || ev.cm.status != ECONNREFUSED) {
        return cp_fail(p, "connect to our own closed port ended in",
                    sd_cm_name(ev.code));
    }
    if (p->sl.now - t0 > SL_SEC / 10) {
        return cp_fail(p, "refusal took more than 100 ms simulated", NULL);
    }
    if (p->sl.st[0].sent != wire || !p->sd[0]->dev.loop_frames) {
        return cp_fail(p, "looped frames reached the wire (or none looped)",
                    NULL);
    }
    return true;
}

static bool case_pdata_limits(struct cmpair *p)
{
    struct rnic_cmd_cm_connect c;
    uint8_t big[RNIC_MPA_MAX_PDATA + 1];
    uint32_t conn;
    int s;

    /* one over the limit is refused before anything goes on the wire */
    fill(big, sizeof(big), 3);
    connect_cmd(p, &c, PORT, 1, RNIC_MPA_MAX_PDATA + 1);
    s = sd_cm_connect(p->sd[0], &c, big, &conn);
    if (s != RNIC_STS_BAD_PARAM) {
        return cp_fail(p, "CONNECT with 513 bytes of private data answered",
                    sd_sts_name(s));
    }
    connect_cmd(p, &c, PORT, 2, RNIC_MPA_MAX_PDATA - RNE_MPA_V2_LEN + 1);
    s = sd_cm_connect(p->sd[0], &c, big, &conn);
    if (s != RNIC_STS_BAD_PARAM) {
        return cp_fail(p, "rev 2 CONNECT with 509 bytes of private data answered",
                    sd_sts_name(s));
    }
    /* the largest each way (rev 2: the RFC 6581 block takes 4 bytes) */
    return establish(p, 2, RNIC_MPA_MAX_PDATA - RNE_MPA_V2_LEN,
                     RNIC_MPA_MAX_PDATA - RNE_MPA_V2_LEN, &conn, &conn);
}

static bool case_pdata_rev1(struct cmpair *p)
{
    uint32_t conn, aconn;

    return establish(p, 1, RNIC_MPA_MAX_PDATA, RNIC_MPA_MAX_PDATA, &conn,
                     &aconn);
}

/*
 * VLAN TCIs no interface has (VID 0 or 4095, DEI set), a VLAN on the
 * wildcard listener and unknown flags: BAD_PARAM, nothing created.
 */
static bool bad_vlans(struct cmpair *p)
{
    static const uint16_t bad_tci[] = { 0x0000, 0xa000, 0x0fff, 0x1064 };
    static const uint8_t any[4];
    struct rnic_cmd_cm_connect c;
    uint32_t conn;
    unsigned i;
    int s;

    for (i = 0; i < sizeof(bad_tci) / sizeof(bad_tci[0]); i++) {
        connect_cmd(p, &c, PORT, 2, 0);
        c.flags = RNIC_CONNECT_F_VLAN;
        c.vlan = bad_tci[i];
        s = sd_cm_connect(p->sd[0], &c, NULL, &conn);
        if (s != RNIC_STS_BAD_PARAM) {
            return cp_fail(p, "CONNECT with a bad VLAN TCI: not BAD_PARAM",
                           sd_sts_name(s));
        }
        s = sd_cm_listen_vlan(p->sd[1], 2, PORT + 7, cp_ip[1], bad_tci[i]);
        if (s != RNIC_STS_BAD_PARAM) {
            return cp_fail(p, "LISTEN with a bad VLAN TCI: not BAD_PARAM",
                           sd_sts_name(s));
        }
    }
    connect_cmd(p, &c, PORT, 2, 0);
    c.flags = 2;
    s = sd_cm_connect(p->sd[0], &c, NULL, &conn);
    if (s != RNIC_STS_BAD_PARAM) {
        return cp_fail(p, "CONNECT with an unknown flag: not BAD_PARAM",
                       sd_sts_name(s));
    }
    s = sd_cm_listen_vlan(p->sd[1], 2, PORT + 7, any, 0x0064);
    if (s != RNIC_STS_BAD_PARAM) {
        return cp_fail(p, "a VLAN on the wildcard LISTEN: not BAD_PARAM",
                       sd_sts_name(s));
    }
    /* a good one on the same port and address but another VLAN: fine */
    s = sd_cm_listen_vlan(p->sd[1], 2, PORT + 7, cp_ip[1], 0x0064);
    if (s == RNIC_STS_OK) {
        s = sd_cm_listen_vlan(p->sd[1], 3, PORT + 7, cp_ip[1], 0x0065);
    }
    if (s == RNIC_STS_OK &&
        sd_cm_listen_vlan(p->sd[1], 4, PORT + 7, cp_ip[1], 0x2064) ==
        RNIC_STS_OK) {
        return cp_fail(p, "two LISTENs on one address, port and VLAN", NULL);
    }
    return s == RNIC_STS_OK ? true : cp_fail(p, "VLAN LISTEN", sd_sts_name(s));
}

static bool case_bad_commands(struct cmpair *p)
{
    struct rnic_cmd_cm_connect c;
    uint32_t conn;
    int s;

    if (sd_cm_listen(p->sd[1], 0, PORT)) {
        return cp_fail(p, p->sd[1]->err, NULL);
    }
    s = sd_cm_listen(p->sd[1], 1, PORT);
    if (s == RNIC_STS_OK) {
        return cp_fail(p, "a second LISTEN on the same port was accepted", NULL);
    }
    s = sd_cm_listen(p->sd[1], 0, PORT + 5);
    if (s == RNIC_STS_OK) {
        return cp_fail(p, "LISTEN reusing a live listen_id was accepted", NULL);
    }
    connect_cmd(p, &c, PORT, 2, 0);
    c.qpn = 77;
    s = sd_cm_connect(p->sd[0], &c, NULL, &conn);
    if (s == RNIC_STS_OK) {
        return cp_fail(p, "CONNECT of a QP that does not exist was accepted",
                    NULL);
    }
    s = sd_cm_accept(p->sd[1], 12345, p->qp[1].qpn, 4, 4, 0, NULL, 0);
    if (s == RNIC_STS_OK) {
        return cp_fail(p, "ACCEPT of an unknown connection was accepted", NULL);
    }
    s = sd_cm_simple(p->sd[1], RNIC_CMD_CM_ABORT, 54321);
    if (s == RNIC_STS_OK) {
        return cp_fail(p, "ABORT of an unknown connection was accepted", NULL);
    }
    return bad_vlans(p);
}

/* Zero-length RDMA Writes (the nudges) side 0 sent, and when. */
static struct {
    unsigned n;
    uint64_t first, last;
} nudges;

/* An MPA FPDU alone in a TCP segment: 2 + 14 (tagged, T L DV 1, RV 1 Write) + CRC. */
static bool nudge_tap(void *opaque, int from, uint8_t *f, size_t *len)
{
    static const uint8_t zw[4] = { 0x00, 0x0e, 0xc1, 0x40 };
    struct simlink *sl = opaque;
    size_t ihl, off;

    if (from != 0 || *len < 14 + 20 + 20 || f[12] != 0x08 || f[13] != 0x00 ||
        f[23] != 6) {
        return true;
    }
    ihl = (size_t)(f[14] & 0x0f) * 4;
    off = 14 + ihl + (size_t)(f[14 + ihl + 12] >> 4) * 4;
    if (*len == off + 20 && !memcmp(f + off, zw, sizeof(zw))) {
        if (!nudges.n++) {
            nudges.first = sl->now;
        }
        nudges.last = sl->now;
    }
    return true;
}

/* A Send of 64 bytes from side `from`, the other side's receive posted. */
static bool send_one(struct cmpair *p, int from, uint64_t wr_id)
{
    int to = 1 - from;
    struct sd_mr mr[2];
    struct rnic_sq_wqe w;
    struct rnic_rq_wqe r;
    struct rnic_cqe cqe;
    uint64_t end = p->sl.now + SL_SEC;
    int i;

    for (i = 0; i < 2; i++) {
        if (sd_reg_mr(p->sd[i], &mr[i], RNIC_STAG(6 + (uint32_t)wr_id, 1), 1,
                      RNIC_ACCESS_LOCAL_WRITE, 0x20000 + wr_id * 0x1000, 4096,
                      1)) {
            return cp_fail(p, p->sd[i]->err, NULL);
        }
    }
    memset(&r, 0, sizeof(r));
    r.wr_id = wr_id;
    r.num_sge = 1;
    r.sge[0].addr = 0x20000 + wr_id * 0x1000;
    r.sge[0].length = 4096;
    r.sge[0].lkey = mr[to].stag;
    sd_post_recv(p->sd[to], &p->qp[to], &r);
    memset(&w, 0, sizeof(w));
    w.hdr.wr_id = wr_id;
    w.hdr.opcode = RNIC_WR_SEND;
    w.hdr.flags = RNIC_WQE_SIGNALED;
    w.hdr.count = 1;
    w.data.sge[0].addr = 0x20000 + wr_id * 0x1000;
    w.data.sge[0].length = 64;
    w.data.sge[0].lkey = mr[from].stag;
    sd_post_send(p->sd[from], &p->qp[from], &w);
    while (!sd_poll_cq(p->sd[to], &p->cq[to][1], &cqe)) {
        if (p->sl.now > end || !sl_step(&p->sl)) {
            return cp_fail(p, "the Send was not received", NULL);
        }
    }
    if (cqe.status != RNIC_WC_SUCCESS || cqe.byte_len != 64) {
        return cp_fail(p, "the Send completed with",
                    sd_wc_status_name(cqe.status));
    }
    return true;
}

/* Nothing else happened at either side: no CM event, QPs in RTS. */
static bool quiet_rts(struct cmpair *p)
{
    struct sd_cm_event ev;
    struct rnic_qp_attr at;
    struct rnic_cqe cqe;
    int i;

    for (i = 0; i < 2; i++) {
        if (sd_cm_next(p->sd[i], &ev)) {
            return cp_fail(p, "unexpected CM event", sd_cm_name(ev.code));
        }
        if (sd_poll_cq(p->sd[i], &p->cq[i][1], &cqe)) {
            return cp_fail(p, "a nudge completed a receive", NULL);
        }
        if (sd_query_qp(p->sd[i], p->qp[i].qpn, &at) ||
            at.state != RNIC_QPS_RTS) {
            return cp_fail(p, "a QP left RTS", NULL);
        }
    }
    return true;
}

static bool case_nudge(struct cmpair *p)
{
    uint32_t conn, aconn;
    uint64_t t0, t_send;

    memset(&nudges, 0, sizeof(nudges));
    p->sl.tap = nudge_tap;
    p->sl.tap_opaque = &p->sl;
    if (!establish(p, 2, 0, 0, &conn, &aconn)) {
        return false;
    }
    t0 = p->sl.now;
    /* Nothing sent after the Reply: nothing for the responder to miss. */
    cp_run_for(p, SL_SEC / 4);
    if (nudges.n) {
        return cp_fail(p, "nudged before sending anything", NULL);
    }
    t_send = p->sl.now;
    if (!send_one(p, 0, 1)) {
        return false;
    }
    cp_run_for(p, 8 * SL_SEC);
    if (!nudges.n) {
        return cp_fail(p, "no zero-length Write to the silent responder", NULL);
    }
    if (nudges.first < t_send + 50000000ull || nudges.last > t0 + 5 * SL_SEC) {
        return cp_fail(p, "nudges outside 50 ms after the Send .. 5 s", NULL);
    }
    if (nudges.n > 7) {
        return cp_fail(p, "too many nudges", NULL);
    }
    printf("%u nudge(s), %.3f .. %.3f s after the Send\n", nudges.n,
           (double)(nudges.first - t_send) / SL_SEC,
           (double)(nudges.last - t_send) / SL_SEC);
    if (!quiet_rts(p)) {
        return false;
    }
    /* Both ways still work. */
    return send_one(p, 1, 2) && send_one(p, 0, 3) && quiet_rts(p);
}

static bool case_nudge_answered(struct cmpair *p)
{
    uint32_t conn, aconn;

    memset(&nudges, 0, sizeof(nudges));
    p->sl.tap = nudge_tap;
    p->sl.tap_opaque = &p->sl;
    if (!establish(p, 2, 0, 0, &conn, &aconn)) {
        return false;
    }
    if (!send_one(p, 0, 1) || !send_one(p, 1, 2)) {
        return false;
    }
    cp_run_for(p, 8 * SL_SEC);
    if (nudges.n) {
        return cp_fail(p, "nudged a responder that had answered", NULL);
    }
    return quiet_rts(p);
}

/* One RDMA Read of 256 bytes by side `from` from the other side's memory. */
static bool read_one(struct cmpair *p, int from, uint64_t wr_id)
{
    int to = 1 - from;
    uint64_t src = 0x40000 + wr_id * 0x1000, dst = 0x60000 + wr_id * 0x1000;
    uint8_t want[256], got[256];
    struct sd_mr smr, dmr;
    struct rnic_sq_wqe w;
    struct rnic_cqe cqe;
    uint64_t end = p->sl.now + SL_SEC;

    if (sd_reg_mr(p->sd[to], &smr, RNIC_STAG(20 + (uint32_t)wr_id, 1), 1,
                  RNIC_ACCESS_REMOTE_READ, src, 4096, 1) ||
        sd_modify_qp_access(p->sd[to], p->qp[to].qpn,
                            RNIC_ACCESS_REMOTE_READ)) {
        return cp_fail(p, p->sd[to]->err, NULL);
    }
    if (sd_reg_mr(p->sd[from], &dmr, RNIC_STAG(40 + (uint32_t)wr_id, 1), 1,
                  RNIC_ACCESS_LOCAL_WRITE, dst, 4096, 1)) {
        return cp_fail(p, p->sd[from]->err, NULL);
    }
    fill(want, sizeof(want), (uint8_t)wr_id);
    sd_write(p->sd[to], sd_mr_addr(&smr, src), want, sizeof(want));
    memset(&w, 0, sizeof(w));
    w.hdr.wr_id = wr_id;
    w.hdr.opcode = RNIC_WR_READ;
    w.hdr.flags = RNIC_WQE_SIGNALED;
    w.hdr.count = 1;
    w.op.rdma.remote_addr = src;
    w.op.rdma.rkey = smr.stag;
    w.data.sge[0].addr = dst;
    w.data.sge[0].length = sizeof(got);
    w.data.sge[0].lkey = dmr.stag;
    sd_post_send(p->sd[from], &p->qp[from], &w);
    /* Earlier Sends of this side completed here too, unpolled. */
    do {
        while (!sd_poll_cq(p->sd[from], &p->cq[from][0], &cqe)) {
            if (p->sl.now > end || !sl_step(&p->sl)) {
                return cp_fail(p, "the RDMA Read did not complete", NULL);
            }
        }
    } while (cqe.wr_id != wr_id && cqe.status == RNIC_WC_SUCCESS);
    if (cqe.status != RNIC_WC_SUCCESS) {
        return cp_fail(p, "the RDMA Read completed with",
                    sd_wc_status_name(cqe.status));
    }
    sd_read(p->sd[from], sd_mr_addr(&dmr, dst), got, sizeof(got));
    if (memcmp(got, want, sizeof(got))) {
        return cp_fail(p, "the RDMA Read brought other bytes", NULL);
    }
    return true;
}

/*
 * CONNECT with MPA revision rev and flags cflags; the passive side accepts
 * with aflags and, like rdma_accept(id, NULL) in librdmacm, the IRD/ORD the
 * CONNECT_REQUEST offered (its ORD is our IRD and the reverse). *rep gets
 * the active side's CONNECT_REPLY.
 */
static bool establish_as(struct cmpair *p, uint8_t rev, uint8_t cflags,
                         uint8_t aflags, struct sd_cm_event *rep)
{
    struct rnic_cmd_cm_connect c;
    struct sd_cm_event ev;
    uint32_t aconn;
    int s;

    if (sd_cm_listen(p->sd[1], 0, PORT)) {
        return cp_fail(p, p->sd[1]->err, NULL);
    }
    connect_cmd(p, &c, PORT, rev, 0);
    c.mpa_flags = cflags;
    if (sd_cm_connect(p->sd[0], &c, NULL, &aconn)) {
        return cp_fail(p, p->sd[0]->err, NULL);
    }
    if (!cp_next_event(p, 1, &ev, 10 * SL_SEC) ||
        ev.code != RNIC_CM_CONNECT_REQUEST) {
        return cp_fail(p, "no CONNECT_REQUEST", NULL);
    }
    s = sd_cm_accept(p->sd[1], ev.conn_id, p->qp[1].qpn, ev.cm.ord,
                     ev.cm.ird, aflags, NULL, 0);
    if (s) {
        return cp_fail(p, "CM_ACCEPT answered", sd_sts_name(s));
    }
    if (!cp_next_event(p, 0, rep, 10 * SL_SEC) ||
        rep->code != RNIC_CM_CONNECT_REPLY) {
        return cp_fail(p, "no CONNECT_REPLY at the active side",
                    sd_cm_name(rep->code));
    }
    if (!cp_next_event(p, 1, &ev, 10 * SL_SEC) ||
        ev.code != RNIC_CM_ESTABLISHED) {
        return cp_fail(p, "no ESTABLISHED at the passive side",
                    sd_cm_name(ev.code));
    }
    return true;
}

/*
 * An MPA revision 1 Request carries no IRD/ORD: the CONNECT_REQUEST must
 * still offer usable ones (what the device can do, as cxgb4 reports), or a
 * responder that accepts with them (rping's rdma_accept(id, NULL)) has ORD 0
 * and its first RDMA Read fails locally.
 */
static bool case_rev1_ird_ord(struct cmpair *p)
{
    struct sd_cm_event rep;

    if (!establish_as(p, 1, RNIC_MPA_CRC, RNIC_MPA_CRC, &rep)) {
        return false;
    }
    if (rep.cm.mpa_rev != 1) {
        return cp_fail(p, "the connection is not MPA revision 1", NULL);
    }
    return send_one(p, 0, 1) && read_one(p, 1, 2) && read_one(p, 0, 3) &&
           send_one(p, 1, 4) && quiet_rts(p);
}

/*
 * RFC 6581 peer-to-peer: the initiator offers one RTR kind, the responder's
 * driver names none (the Linux driver's default), the device picks the one
 * offered; the RTR completes the connection and is invisible to both ULPs:
 * the first real messages each way, and a Read, flow as without an RTR.
 */
static bool rtr_case(struct cmpair *p, uint8_t offer)
{
    struct sd_cm_event rep;
    uint8_t rtr_flags = RNIC_MPA_P2P_WRITE | RNIC_MPA_P2P_READ |
                        RNIC_MPA_P2P_SEND;

    if (!establish_as(p, 2, RNIC_MPA_CRC | offer, RNIC_MPA_CRC, &rep)) {
        return false;
    }
    if ((rep.cm.mpa_flags & rtr_flags) != offer) {
        return cp_fail(p, "the CONNECT_REPLY names another RTR", NULL);
    }
    return send_one(p, 0, 1) && send_one(p, 1, 2) && read_one(p, 1, 3) &&
           read_one(p, 0, 4) && quiet_rts(p);
}

static bool case_rtr_send(struct cmpair *p)
{
    return rtr_case(p, RNIC_MPA_P2P_SEND);
}

static bool case_rtr_write(struct cmpair *p)
{
    return rtr_case(p, RNIC_MPA_P2P_WRITE);
}

static bool case_rtr_read(struct cmpair *p)
{
    return rtr_case(p, RNIC_MPA_P2P_READ);
}

/* TCP payload of an IPv4 frame from side 0, or NULL. */
static const uint8_t *a_payload(int from, const uint8_t *f, size_t len,
                                size_t *plen)
{
    size_t ihl, off;

    if (from != 0 || len < 14 + 20 + 20 || f[12] != 0x08 || f[13] != 0x00 ||
        f[23] != 6) {
        return NULL;
    }
    ihl = (size_t)(f[14] & 0x0f) * 4;
    off = 14 + ihl + (size_t)(f[14 + ihl + 12] >> 4) * 4;
    if (off > len) {
        return NULL;
    }
    *plen = len - off;
    return f + off;
}

/* Drops every segment of side 0 that carries its MPA Request. */
static bool drop_request(void *opaque, int from, uint8_t *f, size_t *len)
{
    size_t n;
    const uint8_t *pl = a_payload(from, f, *len, &n);

    (void)opaque;
    return !(pl && n >= 16 && !memcmp(pl, rne_mpa_key_req, 16));
}

/* Drops every segment of side 0 that carries a zero-length Write (RTR). */
static bool drop_rtr_write(void *opaque, int from, uint8_t *f, size_t *len)
{
    static const uint8_t zw[4] = { 0x00, 0x0e, 0xc1, 0x40 };
    size_t n;
    const uint8_t *pl = a_payload(from, f, *len, &n);

    (void)opaque;
    return !(pl && n == 20 && !memcmp(pl, zw, sizeof(zw)));
}

/* Both QPs destroyed, the devices hold no connection memory any more. */
static bool no_conn_mem(struct cmpair *p)
{
    struct rnic_port_stats ps;
    char msg[96];
    int i;

    for (i = 0; i < 2; i++) {
        if (sd_destroy(p->sd[i], RNIC_CMD_DESTROY_QP, p->qp[i].qpn)) {
            return cp_fail(p, p->sd[i]->err, NULL);
        }
    }
    cp_run_for(p, 2 * SL_SEC);
    for (i = 0; i < 2; i++) {
        if (sd_query_stats(p->sd[i], &ps)) {
            return cp_fail(p, p->sd[i]->err, NULL);
        }
        if (ps.conn_mem_bytes) {
            snprintf(msg, sizeof(msg), "device %c holds %llu bytes", 'A' + i,
                     (unsigned long long)ps.conn_mem_bytes);
            return cp_fail(p, "connection memory left after the failure", msg);
        }
    }
    return true;
}

/* side's next CM event is code with status, at t0 + [lo, hi] ns. */
static bool expect_event(struct cmpair *p, int side, uint8_t code,
                         uint16_t status, uint64_t t0, uint64_t lo,
                         uint64_t hi)
{
    struct sd_cm_event ev;
    char msg[128];

    if (!cp_next_event(p, side, &ev, hi - (p->sl.now - t0) + SL_SEC)) {
        snprintf(msg, sizeof(msg), "side %c: no %s within %.1f s", 'A' + side,
                 sd_cm_name(code), (double)hi / SL_SEC);
        return cp_fail(p, msg, NULL);
    }
    if (ev.code != code || ev.cm.status != status ||
        p->sl.now - t0 < lo || p->sl.now - t0 > hi) {
        snprintf(msg, sizeof(msg), "side %c: %s status %u at %.3f s, want %s "
                 "status %u in %.1f .. %.1f s", 'A' + side,
                 sd_cm_name(ev.code), ev.cm.status,
                 (double)(p->sl.now - t0) / SL_SEC, sd_cm_name(code), status,
                 (double)lo / SL_SEC, (double)hi / SL_SEC);
        return cp_fail(p, msg, NULL);
    }
    return true;
}

static bool qp_in_error(struct cmpair *p, int side)
{
    struct rnic_qp_attr at;

    if (sd_query_qp(p->sd[side], p->qp[side].qpn, &at) ||
        at.state != RNIC_QPS_ERROR) {
        return cp_fail(p, side ? "B's QP is not in ERROR" :
                    "A's QP is not in ERROR", NULL);
    }
    return true;
}

/*
 * The responder takes the Request and never answers (its host does not
 * accept): the initiator's Reply timer (10 s) ends the connect with
 * TIMEOUT/ETIMEDOUT and a RST, which the responder reports as RESET.
 */
static bool case_timer_reply(struct cmpair *p)
{
    struct rnic_cmd_cm_connect c;
    struct sd_cm_event ev;
    uint64_t t0;
    uint32_t aconn;

    if (sd_cm_listen(p->sd[1], 0, PORT)) {
        return cp_fail(p, p->sd[1]->err, NULL);
    }
    connect_cmd(p, &c, PORT, 2, 0);
    if (sd_cm_connect(p->sd[0], &c, NULL, &aconn)) {
        return cp_fail(p, p->sd[0]->err, NULL);
    }
    if (!cp_next_event(p, 1, &ev, 10 * SL_SEC) ||
        ev.code != RNIC_CM_CONNECT_REQUEST) {
        return cp_fail(p, "no CONNECT_REQUEST", NULL);
    }
    t0 = p->sl.now;
    return expect_event(p, 0, RNIC_CM_TIMEOUT, ETIMEDOUT, t0,
                        9 * SL_SEC, 11 * SL_SEC) &&
           expect_event(p, 1, RNIC_CM_RESET, ECONNRESET, t0, 9 * SL_SEC,
                        12 * SL_SEC) &&
           qp_in_error(p, 0) && no_conn_mem(p);
}

/*
 * The initiator's Request never arrives (the link drops it, and every
 * retransmission): the responder's Request timer (5 s) resets the TCP
 * connection without telling its host (it never saw a CONNECT_REQUEST);
 * the initiator reports RESET.
 */
static bool case_timer_request(struct cmpair *p)
{
    struct rnic_cmd_cm_connect c;
    struct sd_cm_event ev;
    uint32_t aconn;
    uint64_t t0 = p->sl.now;

    p->sl.tap = drop_request;
    if (sd_cm_listen(p->sd[1], 0, PORT)) {
        return cp_fail(p, p->sd[1]->err, NULL);
    }
    connect_cmd(p, &c, PORT, 2, 0);
    if (sd_cm_connect(p->sd[0], &c, NULL, &aconn)) {
        return cp_fail(p, p->sd[0]->err, NULL);
    }
    /*
     * The Request rides on the handshake's last ACK: B accepts the TCP
     * connection when its SYN-ACK retransmission (1 s) is answered, then
     * waits 5 s.
     */
    if (!expect_event(p, 0, RNIC_CM_RESET, ECONNRESET, t0, 5 * SL_SEC,
                      7 * SL_SEC)) {
        return false;
    }
    if (sd_cm_next(p->sd[1], &ev)) {
        return cp_fail(p, "the responder's host saw", sd_cm_name(ev.code));
    }
    return qp_in_error(p, 0) && no_conn_mem(p);
}

/*
 * RFC 6581: the responder sent its Reply choosing the Write RTR, and the
 * RTR never arrives (the link drops it, and every retransmission): the
 * responder's RTR timer (10 s) ends it with TIMEOUT/ETIMEDOUT and a RST,
 * the initiator (in RTS since the Reply) reports RESET; no ESTABLISHED.
 */
static bool case_timer_rtr(struct cmpair *p)
{
    struct rnic_cmd_cm_connect c;
    struct sd_cm_event ev;
    uint32_t aconn;
    uint64_t t0;

    p->sl.tap = drop_rtr_write;
    if (sd_cm_listen(p->sd[1], 0, PORT)) {
        return cp_fail(p, p->sd[1]->err, NULL);
    }
    connect_cmd(p, &c, PORT, 2, 0);
    c.mpa_flags = RNIC_MPA_CRC | RNIC_MPA_P2P_WRITE;
    if (sd_cm_connect(p->sd[0], &c, NULL, &aconn)) {
        return cp_fail(p, p->sd[0]->err, NULL);
    }
    if (!cp_next_event(p, 1, &ev, 10 * SL_SEC) ||
        ev.code != RNIC_CM_CONNECT_REQUEST) {
        return cp_fail(p, "no CONNECT_REQUEST", NULL);
    }
    if (sd_cm_accept(p->sd[1], ev.conn_id, p->qp[1].qpn, 4, 4, RNIC_MPA_CRC,
                     NULL, 0)) {
        return cp_fail(p, p->sd[1]->err, NULL);
    }
    t0 = p->sl.now;
    if (!cp_next_event(p, 0, &ev, SL_SEC) || ev.code != RNIC_CM_CONNECT_REPLY) {
        return cp_fail(p, "no CONNECT_REPLY at the active side",
                    sd_cm_name(ev.code));
    }
    return expect_event(p, 1, RNIC_CM_TIMEOUT, ETIMEDOUT, t0, 9 * SL_SEC,
                        11 * SL_SEC) &&
           expect_event(p, 0, RNIC_CM_RESET, ECONNRESET, t0, 9 * SL_SEC,
                        12 * SL_SEC) &&
           qp_in_error(p, 1) && no_conn_mem(p);
}

/*
 * RFC 7306, negotiated in the MPA exchange: flags the active side sets in
 * CM_CONNECT and the passive side in CM_ACCEPT; want: on for the connection.
 * CONNECT_REQUEST must report the offer, CONNECT_REPLY and ESTABLISHED the
 * outcome; then a FetchAdd from the active side returns the old value and
 * adds (on), or completes with LOC_QP_OP_ERR, nothing sent (off).
 */
static bool rfc7306_case(struct cmpair *p, bool offer, bool agree, bool want)
{
    uint64_t tgt = 0x40000, sink = 0x60000, v = 1000, got = 0;
    struct rnic_cmd_cm_connect c;
    struct sd_cm_event ev, rep;
    struct sd_mr tmr, smr;
    struct rnic_sq_wqe w;
    struct rnic_cqe cqe;
    uint64_t end;
    uint32_t aconn;
    uint8_t f = RNIC_MPA_RFC7306;

    if (sd_cm_listen(p->sd[1], 0, PORT)) {
        return cp_fail(p, p->sd[1]->err, NULL);
    }
    connect_cmd(p, &c, PORT, 2, 0);
    c.mpa_flags = RNIC_MPA_CRC | (offer ? f : 0);
    if (sd_cm_connect(p->sd[0], &c, NULL, &aconn)) {
        return cp_fail(p, p->sd[0]->err, NULL);
    }
    if (!cp_next_event(p, 1, &ev, 10 * SL_SEC) ||
        ev.code != RNIC_CM_CONNECT_REQUEST) {
        return cp_fail(p, "no CONNECT_REQUEST", NULL);
    }
    if (!(ev.cm.mpa_flags & f) != !offer) {
        return cp_fail(p, "CONNECT_REQUEST misreports the offer", NULL);
    }
    if (sd_cm_accept(p->sd[1], ev.conn_id, p->qp[1].qpn, ev.cm.ord,
                     ev.cm.ird, RNIC_MPA_CRC | (agree ? f : 0), NULL, 0)) {
        return cp_fail(p, "CM_ACCEPT failed", NULL);
    }
    if (!cp_next_event(p, 0, &rep, 10 * SL_SEC) ||
        rep.code != RNIC_CM_CONNECT_REPLY ||
        !cp_next_event(p, 1, &ev, 10 * SL_SEC) ||
        ev.code != RNIC_CM_ESTABLISHED) {
        return cp_fail(p, "the connection was not established", NULL);
    }
    if (!(rep.cm.mpa_flags & f) != !want || !(ev.cm.mpa_flags & f) != !want) {
        return cp_fail(p, want ? "RFC 7306 is off at an end" :
                       "RFC 7306 is on though an end did not ask", NULL);
    }
    if (sd_reg_mr(p->sd[1], &tmr, RNIC_STAG(21, 1), 1,
                  RNIC_ACCESS_LOCAL_WRITE | RNIC_ACCESS_REMOTE_ATOMIC, tgt,
                  4096, 1) ||
        sd_modify_qp_access(p->sd[1], p->qp[1].qpn,
                            RNIC_ACCESS_REMOTE_ATOMIC) ||
        sd_reg_mr(p->sd[0], &smr, RNIC_STAG(41, 1), 1,
                  RNIC_ACCESS_LOCAL_WRITE, sink, 4096, 1)) {
        return cp_fail(p, "MR set-up failed", NULL);
    }
    sd_write(p->sd[1], sd_mr_addr(&tmr, tgt), &v, 8);
    memset(&w, 0, sizeof(w));
    w.hdr.wr_id = 77;
    w.hdr.opcode = RNIC_WR_ATOMIC_FADD;
    w.hdr.flags = RNIC_WQE_SIGNALED;
    w.hdr.count = 1;
    w.op.atomic.remote_addr = tgt;
    w.op.atomic.rkey = tmr.stag;
    w.op.atomic.compare_add = 5;
    w.data.sge[0].addr = sink;
    w.data.sge[0].length = 8;
    w.data.sge[0].lkey = smr.stag;
    sd_post_send(p->sd[0], &p->qp[0], &w);
    end = p->sl.now + SL_SEC;
    while (!sd_poll_cq(p->sd[0], &p->cq[0][0], &cqe)) {
        if (p->sl.now > end || !sl_step(&p->sl)) {
            return cp_fail(p, "the FetchAdd did not complete", NULL);
        }
    }
    sd_read(p->sd[0], sd_mr_addr(&smr, sink), &got, 8);
    sd_read(p->sd[1], sd_mr_addr(&tmr, tgt), &v, 8);
    if (want && (cqe.status != RNIC_WC_SUCCESS || got != 1000 || v != 1005)) {
        return cp_fail(p, "FetchAdd: wrong status or values",
                       sd_wc_status_name(cqe.status));
    }
    if (!want && (cqe.status != RNIC_WC_LOC_QP_OP_ERR || v != 1000)) {
        return cp_fail(p, "an unnegotiated FetchAdd was not refused",
                       sd_wc_status_name(cqe.status));
    }
    return true;
}

static bool case_rfc7306_both(struct cmpair *p)
{
    return rfc7306_case(p, true, true, true);
}

static bool case_rfc7306_responder_off(struct cmpair *p)
{
    return rfc7306_case(p, true, false, false);
}

static bool case_rfc7306_initiator_off(struct cmpair *p)
{
    return rfc7306_case(p, false, true, false);
}

static const struct {
    const char *name;
    bool (*fn)(struct cmpair *p);
} cases[] = {
    { "reject", case_reject },
    { "abort", case_abort },
    { "no-listener", case_no_listener },
    { "loopback-no-listener", case_loopback_no_listener },
    { "pdata-limits", case_pdata_limits },
    { "pdata-rev1", case_pdata_rev1 },
    { "bad-commands", case_bad_commands },
    { "nudge", case_nudge },
    { "nudge-answered", case_nudge_answered },
    { "rev1-ird-ord", case_rev1_ird_ord },
    { "rtr-send", case_rtr_send },
    { "rtr-write", case_rtr_write },
    { "rtr-read", case_rtr_read },
    { "rfc7306-both", case_rfc7306_both },
    { "rfc7306-responder-off", case_rfc7306_responder_off },
    { "rfc7306-initiator-off", case_rfc7306_initiator_off },
    { "timer-reply", case_timer_reply },
    { "timer-request", case_timer_request },
    { "timer-rtr", case_timer_rtr },
};

int main(int argc, char **argv)
{
    static struct cmpair P;
    int fails = 0, ran = 0;
    size_t k;

    for (k = 0; k < sizeof(cases) / sizeof(cases[0]); k++) {
        bool ok;

        if (!cp_wants(argc, argv, cases[k].name)) {
            continue;
        }
        ran++;
        ok = cp_up(&P, 5, NULL, NULL, NULL) && cases[k].fn(&P);
        ok = ok && sd_check_guards(P.sd[0]) == 0 &&
             sd_check_guards(P.sd[1]) == 0;
        printf("%-14s %s%s\n", cases[k].name, ok ? "ok" : "FAIL: ",
               ok ? "" : P.err);
        fails += !ok;
        cp_down(&P);
    }
    if (!ran) {
        fprintf(stderr, "usage: %s [--case NAME]...\n", argv[0]);
        return 2;
    }
    printf("iwarp-cm: %d case(s), %d failed\n", ran, fails);
    return fails ? 1 : 0;
}
