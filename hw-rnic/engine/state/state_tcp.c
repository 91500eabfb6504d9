/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * One offloaded TCP connection in the state stream (docs/migration.md):
 * sequence space, windows, the unacknowledged send ring with its record
 * ends, the received octets not yet read and the out-of-order ranges,
 * RTT/RTO, congestion and SACK state, timestamps and the timers.  Times
 * are written relative to the saving engine's clock and re-based on the
 * loading one's, so a timer due in 30 ms is due 30 ms after the load.
 *
 * This file reads the offload TCP's internals (tcp_int.h) on purpose: the
 * stream must carry what only TCP knows, and the loader rebuilds the
 * connection with TCP's own pool, hash, timer heap and counted memory.
 * Only ESTABLISHED connections with no event pending are carried.
 */
#include <stdio.h>
#include <string.h>
#include "state_int.h"
#include "tcp/tcp_int.h"

/* |relative time| a stream may hold: 2^50 ns, about 13 days. */
#define ST_TIME_SPAN    (1ll << 50)

void rne_st_save_time(struct rne_sw *w, uint64_t t, uint64_t none,
                      uint64_t now)
{
    if (t == none) {
        rne_sw_u8(w, 0);
        return;
    }
    rne_sw_u8(w, 1);
    rne_sw_u64(w, t - now);
}

bool rne_st_load_time(struct rne_st_ld *ld, uint64_t *t, uint64_t none,
                      uint64_t now, const char *what)
{
    uint8_t kind;
    uint64_t v;
    int64_t rel;

    if (!rne_sr_u8(ld->r, &kind)) {
        return false;
    }
    if (kind == 0) {
        *t = none;
        return true;
    }
    if (kind != 1 || !rne_sr_u64(ld->r, &v)) {
        return kind == 1 ? false :
               rne_sr_fail(ld->r, "%s: time kind %u", what, kind);
    }
    rel = (int64_t)v;
    if (rel > ST_TIME_SPAN || rel < -ST_TIME_SPAN) {
        return rne_sr_fail(ld->r, "%s: %lld ns from now is out of range",
                           what, (long long)rel);
    }
    if (rel < 0 && (uint64_t)-rel >= now) {
        *t = 1;                 /* before this engine's epoch: long past */
    } else {
        *t = now + (uint64_t)rel;
    }
    if (*t == none || *t == 0) {
        *t = 1;
    }
    return true;
}

const char *rne_st_tcp_unsaved(const struct rne_tcp_conn *c, char *buf,
                               size_t n)
{
    if (c->state != RNE_TCP_ESTABLISHED) {
        snprintf(buf, n, "TCP is %s, not ESTABLISHED",
                 rne_tcp_state_name(c->state));
    } else if (c->in_ready || c->out_owed || c->ack_queued ||
               c->rd_frame_len || c->dead || c->fin_queued) {
        snprintf(buf, n, "TCP has events or output pending (mid-dispatch)");
    } else {
        return NULL;
    }
    return buf;
}

/* n octets of a ring of size bytes from position pos (wrapping). */
static void ring_save(struct rne_sw *w, const uint8_t *ring, uint32_t size,
                      uint32_t pos, uint32_t n)
{
    uint32_t k = size - pos;

    if (k >= n) {
        rne_sw_bytes(w, ring + pos, n);
    } else {
        rne_sw_bytes(w, ring + pos, k);
        rne_sw_bytes(w, ring, n - k);
    }
}

static bool ring_load(struct rne_sr *r, uint8_t *ring, uint32_t size,
                      uint32_t pos, uint32_t n)
{
    uint32_t k = size - pos;

    if (k >= n) {
        return rne_sr_bytes(r, ring + pos, n);
    }
    return rne_sr_bytes(r, ring + pos, k) && rne_sr_bytes(r, ring, n - k);
}

static void save_range(struct rne_sw *w, const struct tcp_range *g)
{
    rne_sw_u32(w, g->s);
    rne_sw_u32(w, g->e);
}

void rne_st_save_tcp(struct rne_sw *w, const struct rne_tcp_conn *c,
                     uint64_t now)
{
    const struct rne_tcp *t = c->t;
    int i;

    rne_sw_u8(w, c->fin_rcvd_ooo);
    rne_sw_u8(w, c->ack_now);
    rne_sw_u8(w, c->sack_ok);
    rne_sw_u8(w, c->ts_ok);
    rne_sw_u8(w, c->ws_ok);
    rne_sw_u8(w, c->in_recovery);
    rne_sw_u8(w, c->rtt_timing);
    rne_sw_u8(w, c->snd_ws);
    rne_sw_u8(w, c->rcv_ws);
    rne_sw_bytes(w, c->rmac, sizeof(c->rmac));
    rne_sw_u16(w, c->tci);
    /* send sequence space and the unacknowledged ring */
    rne_sw_u32(w, c->iss);
    rne_sw_u32(w, c->snd_una);
    rne_sw_u32(w, c->snd_nxt);
    rne_sw_u32(w, c->snd_max);
    rne_sw_u32(w, c->snd_wnd);
    rne_sw_u32(w, c->snd_wl1);
    rne_sw_u32(w, c->snd_wl2);
    rne_sw_u32(w, c->max_sndwnd);
    rne_sw_u32(w, c->sb_head);
    rne_sw_u32(w, c->sb_seq);
    rne_sw_u32(w, c->sb_len);
    if (c->sb_len) {
        ring_save(w, c->sb, c->sb_size, c->sb_head, c->sb_len);
    }
    rne_sw_u32(w, c->rec_head);
    rne_sw_u32(w, c->rec_cnt);
    for (i = 0; i < (int)c->rec_cnt; i++) {
        rne_sw_u32(w, c->rec[(c->rec_head + i) % c->rec_cap]);
    }
    /* receive sequence space, unread octets, out-of-order ranges */
    rne_sw_u32(w, c->irs);
    rne_sw_u32(w, c->rcv_nxt);
    rne_sw_u32(w, c->rcv_adv);
    rne_sw_u32(w, c->fin_rcv_seq);
    rne_sw_u32(w, c->ob_head);
    rne_sw_u32(w, c->rd_pos);
    rne_sw_u32(w, c->rd_len);
    if (c->rd_len) {
        ring_save(w, c->ob, c->rcv_buf, c->rd_pos, c->rd_len);
    }
    rne_sw_u32(w, (uint32_t)c->n_ooo);
    for (i = 0; i < c->n_ooo; i++) {
        save_range(w, &c->ooo[i]);
        ring_save(w, c->ob, c->rcv_buf,
                  (c->ob_head + (c->ooo[i].s - c->rcv_nxt)) % c->rcv_buf,
                  c->ooo[i].e - c->ooo[i].s);
    }
    rne_sw_u32(w, c->last_ooo_seq);
    rne_sw_u32(w, c->segs_unacked);
    rne_sw_u32(w, c->quick_left);
    /* options */
    rne_sw_u16(w, c->peer_mss);
    rne_sw_u16(w, c->mtu);
    rne_sw_u32(w, c->emss);
    rne_sw_u32(w, c->emss_reported);
    rne_sw_u32(w, c->ts_recent);
    rne_sw_u32(w, t->now_ms + c->ts_offset);     /* our timestamp clock */
    rne_sw_u32(w, c->last_ack_sent);
    rne_st_save_time(w, c->ts_recent_age, 0, now);
    /* RTT / RTO */
    rne_sw_u64(w, c->srtt);
    rne_sw_u64(w, c->rttvar);
    rne_sw_u64(w, c->rto);
    rne_st_save_time(w, c->rtt_start, 0, now);
    rne_sw_u32(w, c->rtt_seq);
    rne_sw_u32(w, c->nrexmit);
    rne_sw_u32(w, c->persist_backoff);
    rne_sw_u32(w, c->keep_probes);
    /* congestion control and the SACK scoreboard */
    rne_sw_u32(w, c->cwnd);
    rne_sw_u32(w, c->ssthresh);
    rne_sw_u32(w, c->recover);
    rne_sw_u32(w, c->dupacks);
    rne_sw_u32(w, c->high_rxt);
    rne_sw_u32(w, c->bytes_acked);
    rne_sw_u32(w, (uint32_t)c->n_sacked);
    for (i = 0; i < c->n_sacked; i++) {
        save_range(w, &c->sacked[i]);
    }
    /* timers */
    for (i = 0; i < T_NTIMERS; i++) {
        rne_st_save_time(w, c->tm[i], 0, now);
    }
    rne_st_save_time(w, c->last_rx, 0, now);
    rne_sw_u64(w, c->rexmits);
}

/* [s, e) non-empty and within [lo, lo + span]. */
static bool range_in(const struct tcp_range *g, uint32_t lo, uint32_t span)
{
    return SEQ_LT(g->s, g->e) && SEQ_GEQ(g->s, lo) &&
           g->e - lo <= span;
}

/* Everything read into c; now check it as TCP would never produce less. */
static bool tcp_check(struct rne_st_ld *ld, struct rne_tcp_conn *c,
                      const char *who)
{
    struct rne_sr *r = ld->r;
    const struct rne_tcp *t = c->t;
    uint32_t inflight = c->snd_max - c->snd_una;
    uint32_t i;

    if (c->snd_ws > TCP_MAX_WSCALE || c->rcv_ws > TCP_MAX_WSCALE ||
        (!c->ws_ok && (c->snd_ws || c->rcv_ws))) {
        return rne_sr_fail(r, "%s: window scale %u/%u", who, c->snd_ws,
                           c->rcv_ws);
    }
    if ((c->sack_ok && t->cfg.no_sack) || (c->ts_ok && t->cfg.no_timestamps) ||
        (c->ws_ok && t->cfg.no_wscale)) {
        return rne_sr_fail(r, "%s: an option this engine is configured "
                           "without", who);
    }
    if ((c->rmac[0] & 1) || (t->cfg.vlan ?
        RNE_VLAN_VID(c->tci) != RNE_VLAN_VID(t->cfg.vlan_tci) : c->tci)) {
        return rne_sr_fail(r, "%s: next-hop MAC or 802.1Q TCI", who);
    }
    /* una <= nxt <= max; the ring holds exactly [una, una + sb_len) */
    /* ISS/IRS are not compared: after 2^31 octets sequence space wraps */
    if (SEQ_GT(c->snd_una, c->snd_nxt) || SEQ_GT(c->snd_nxt, c->snd_max) ||
        c->sb_seq != c->snd_una || c->sb_len > c->sb_size ||
        inflight > c->sb_len || c->sb_head >= c->sb_size) {
        return rne_sr_fail(r, "%s: send sequence space (una %u nxt %u max "
                           "%u, %u queued of %u)", who, c->snd_una,
                           c->snd_nxt, c->snd_max, c->sb_len, c->sb_size);
    }
    if (c->rec_cnt > c->rec_cap || c->rec_head >= c->rec_cap ||
        (c->rec_cnt && !c->sb_len)) {
        return rne_sr_fail(r, "%s: %u record ends of %u", who, c->rec_cnt,
                           c->rec_cap);
    }
    for (i = 0; i < c->rec_cnt; i++) {
        uint32_t e = c->rec[(c->rec_head + i) % c->rec_cap];
        uint32_t prev = i ? c->rec[(c->rec_head + i - 1) % c->rec_cap] :
                        c->sb_seq;

        if (!SEQ_GT(e, prev) || e - c->sb_seq > c->sb_len) {
            return rne_sr_fail(r, "%s: record end %u outside the queue",
                               who, e);
        }
    }
    if (c->snd_wnd > (65535u << c->snd_ws) ||
        c->max_sndwnd > (65535u << c->snd_ws)) {
        return rne_sr_fail(r, "%s: send window %u", who, c->snd_wnd);
    }
    /* the receive side: unread octets and held ranges fit the buffer */
    if (c->rd_len > c->rcv_buf || c->rd_pos >= c->rcv_buf ||
        c->ob_head >= c->rcv_buf ||
        (c->rd_pos + c->rd_len) % c->rcv_buf != c->ob_head ||
        !SEQ_GEQ(c->rcv_adv, c->rcv_nxt) ||
        c->rcv_adv - c->rcv_nxt + c->rd_len > c->rcv_buf) {
        return rne_sr_fail(r, "%s: receive sequence space (nxt %u adv %u, "
                           "%u unread of %u)", who, c->rcv_nxt, c->rcv_adv,
                           c->rd_len, c->rcv_buf);
    }
    for (i = 0; i < (uint32_t)c->n_ooo; i++) {
        if (!range_in(&c->ooo[i], c->rcv_nxt + 1, c->rcv_buf - c->rd_len -
                      1) ||
            (i && !SEQ_GT(c->ooo[i].s, c->ooo[i - 1].e))) {
            return rne_sr_fail(r, "%s: out-of-order range %u..%u", who,
                               c->ooo[i].s, c->ooo[i].e);
        }
    }
    if (c->fin_rcvd_ooo && !c->n_ooo) {
        return rne_sr_fail(r, "%s: an out-of-order FIN without data", who);
    }
    for (i = 0; i < (uint32_t)c->n_sacked; i++) {
        if (!range_in(&c->sacked[i], c->snd_una, inflight)) {
            return rne_sr_fail(r, "%s: SACKed range %u..%u", who,
                               c->sacked[i].s, c->sacked[i].e);
        }
    }
    if (c->mtu < RNE_TCP_MIN_PMTU || c->mtu > t->cfg.mtu ||
        c->emss < 64 || c->emss > (uint32_t)c->mtu - 40 ||
        c->emss_reported > c->emss || c->peer_mss < 64) {
        return rne_sr_fail(r, "%s: MTU %u, EMSS %u", who, c->mtu, c->emss);
    }
    if (c->rto < (uint64_t)t->cfg.rto_min_ms * NS_PER_MS ||
        c->rto > (uint64_t)t->cfg.rto_max_ms * NS_PER_MS ||
        c->srtt > c->rto * 64 || c->rttvar > c->rto * 64 ||
        c->nrexmit > t->cfg.data_retries || c->persist_backoff > 64 ||
        c->keep_probes > t->cfg.keep_probes + 1) {
        return rne_sr_fail(r, "%s: RTO %llu ns or retry counts", who,
                           (unsigned long long)c->rto);
    }
    if (!c->cwnd || c->dupacks > c->sb_size ||
        c->bytes_acked > c->sb_size + c->cwnd) {
        return rne_sr_fail(r, "%s: congestion window %u", who, c->cwnd);
    }
    return true;
}

struct rne_tcp_conn *rne_st_load_tcp(struct rne_st_ld *ld, struct rne_tcp *t,
                                     const struct rne_ipaddr *raddr,
                                     uint16_t lport, uint16_t rport,
                                     uint64_t now, const char *who)
{
    struct rne_sr *r = ld->r;
    struct rne_tcp_conn *c;
    uint32_t n_ooo, n_sacked, i, tsnow;
    uint64_t tm[T_NTIMERS];

    if (tcp_lookup(t, raddr, lport, rport)) {
        rne_sr_fail(r, "%s: its TCP tuple is taken", who);
        return NULL;
    }
    c = tcp_conn_alloc(t);
    if (!c) {
        rne_sr_fail(r, "%s: the TCP engine has no free connection", who);
        return NULL;
    }
    tcp_begin(t, now);
    c->raddr = *raddr;
    c->lport = lport;
    c->rport = rport;
    c->state = RNE_TCP_ESTABLISHED;
    tcp_hash_insert(c);
    rne_sr_bool(r, &c->fin_rcvd_ooo);
    rne_sr_bool(r, &c->ack_now);
    rne_sr_bool(r, &c->sack_ok);
    rne_sr_bool(r, &c->ts_ok);
    rne_sr_bool(r, &c->ws_ok);
    rne_sr_bool(r, &c->in_recovery);
    rne_sr_bool(r, &c->rtt_timing);
    rne_sr_u8(r, &c->snd_ws);
    rne_sr_u8(r, &c->rcv_ws);
    rne_sr_bytes(r, c->rmac, sizeof(c->rmac));
    rne_sr_u16(r, &c->tci);
    rne_sr_u32(r, &c->iss);
    rne_sr_u32(r, &c->snd_una);
    rne_sr_u32(r, &c->snd_nxt);
    rne_sr_u32(r, &c->snd_max);
    rne_sr_u32(r, &c->snd_wnd);
    rne_sr_u32(r, &c->snd_wl1);
    rne_sr_u32(r, &c->snd_wl2);
    rne_sr_u32(r, &c->max_sndwnd);
    rne_sr_u32(r, &c->sb_head);
    rne_sr_u32(r, &c->sb_seq);
    if (!rne_sr_u32(r, &c->sb_len)) {
        return NULL;
    }
    if (c->sb_len > c->sb_size || c->sb_head >= c->sb_size) {
        rne_sr_fail(r, "%s: %u queued at %u of a %u-octet send buffer", who,
                    c->sb_len, c->sb_head, c->sb_size);
        return NULL;
    }
    if (c->sb_len) {
        if (!tcp_sb_get(c)) {
            rne_sr_fail(r, "%s: no memory for the send buffer", who);
            return NULL;
        }
        if (!ring_load(r, c->sb, c->sb_size, c->sb_head, c->sb_len)) {
            return NULL;
        }
    }
    rne_sr_u32(r, &c->rec_head);
    if (!rne_sr_u32(r, &c->rec_cnt)) {
        return NULL;
    }
    if (c->rec_cnt > c->rec_cap || c->rec_head >= c->rec_cap ||
        (c->rec_cnt && !c->sb_len)) {
        rne_sr_fail(r, "%s: %u record ends of %u (%u octets queued)", who,
                    c->rec_cnt, c->rec_cap, c->sb_len);
        return NULL;
    }
    for (i = 0; i < c->rec_cnt; i++) {
        rne_sr_u32(r, &c->rec[(c->rec_head + i) % c->rec_cap]);
    }
    rne_sr_u32(r, &c->irs);
    rne_sr_u32(r, &c->rcv_nxt);
    rne_sr_u32(r, &c->rcv_adv);
    rne_sr_u32(r, &c->fin_rcv_seq);
    rne_sr_u32(r, &c->ob_head);
    rne_sr_u32(r, &c->rd_pos);
    if (!rne_sr_u32(r, &c->rd_len)) {
        return NULL;
    }
    if (c->rd_len > c->rcv_buf || c->rd_pos >= c->rcv_buf ||
        c->ob_head >= c->rcv_buf) {
        rne_sr_fail(r, "%s: %u unread octets at %u of %u", who, c->rd_len,
                    c->rd_pos, c->rcv_buf);
        return NULL;
    }
    c->rcv_unread = c->rd_len;
    if (c->rd_len && (!tcp_ob_get(c) ||
                      !ring_load(r, c->ob, c->rcv_buf, c->rd_pos,
                                 c->rd_len))) {
        rne_sr_fail(r, "%s: unread octets (no memory or truncated)", who);
        return NULL;
    }
    if (!rne_sr_u32(r, &n_ooo)) {
        return NULL;
    }
    if (n_ooo > TCP_OOO_MAX) {
        rne_sr_fail(r, "%s: %u out-of-order ranges (at most %u)", who, n_ooo,
                    TCP_OOO_MAX);
        return NULL;
    }
    c->n_ooo = (int)n_ooo;
    for (i = 0; i < n_ooo; i++) {
        struct tcp_range *g = &c->ooo[i];

        rne_sr_u32(r, &g->s);
        if (!rne_sr_u32(r, &g->e)) {
            return NULL;
        }
        /* only its placement here; tcp_check judges the range itself */
        if (!SEQ_GT(g->s, c->rcv_nxt) || g->e - g->s > c->rcv_buf ||
            g->e - c->rcv_nxt > c->rcv_buf || !SEQ_LT(g->s, g->e)) {
            rne_sr_fail(r, "%s: out-of-order range %u..%u", who, g->s, g->e);
            return NULL;
        }
        if (!tcp_ob_get(c) ||
            !ring_load(r, c->ob, c->rcv_buf,
                       (c->ob_head + (g->s - c->rcv_nxt)) % c->rcv_buf,
                       g->e - g->s)) {
            rne_sr_fail(r, "%s: out-of-order data (no memory or "
                        "truncated)", who);
            return NULL;
        }
    }
    rne_sr_u32(r, &c->last_ooo_seq);
    rne_sr_u32(r, &c->segs_unacked);
    rne_sr_u32(r, &c->quick_left);
    rne_sr_u16(r, &c->peer_mss);
    rne_sr_u16(r, &c->mtu);
    rne_sr_u32(r, &c->emss);
    rne_sr_u32(r, &c->emss_reported);
    rne_sr_u32(r, &c->ts_recent);
    rne_sr_u32(r, &tsnow);
    c->ts_offset = tsnow - (uint32_t)(now / NS_PER_MS);
    rne_sr_u32(r, &c->last_ack_sent);
    if (!rne_st_load_time(ld, &c->ts_recent_age, 0, now, who)) {
        return NULL;
    }
    rne_sr_u64(r, &c->srtt);
    rne_sr_u64(r, &c->rttvar);
    rne_sr_u64(r, &c->rto);
    if (!rne_st_load_time(ld, &c->rtt_start, 0, now, who)) {
        return NULL;
    }
    rne_sr_u32(r, &c->rtt_seq);
    rne_sr_u32(r, &c->nrexmit);
    rne_sr_u32(r, &c->persist_backoff);
    rne_sr_u32(r, &c->keep_probes);
    rne_sr_u32(r, &c->cwnd);
    rne_sr_u32(r, &c->ssthresh);
    rne_sr_u32(r, &c->recover);
    rne_sr_u32(r, &c->dupacks);
    rne_sr_u32(r, &c->high_rxt);
    rne_sr_u32(r, &c->bytes_acked);
    if (!rne_sr_u32(r, &n_sacked)) {
        return NULL;
    }
    if (n_sacked > TCP_SACK_MAX) {
        rne_sr_fail(r, "%s: %u SACKed ranges (at most %u)", who, n_sacked,
                    TCP_SACK_MAX);
        return NULL;
    }
    c->n_sacked = (int)n_sacked;
    for (i = 0; i < n_sacked; i++) {
        rne_sr_u32(r, &c->sacked[i].s);
        rne_sr_u32(r, &c->sacked[i].e);
    }
    for (i = 0; i < T_NTIMERS; i++) {
        if (!rne_st_load_time(ld, &tm[i], 0, now, who)) {
            return NULL;
        }
    }
    if (!rne_st_load_time(ld, &c->last_rx, 0, now, who) ||
        !rne_sr_u64(r, &c->rexmits) || !tcp_check(ld, c, who)) {
        return NULL;
    }
    if (tm[T_2MSL] || (tm[T_REXMT] && tm[T_PERSIST])) {
        rne_sr_fail(r, "%s: timers an ESTABLISHED connection never runs "
                    "together", who);
        return NULL;
    }
    for (i = 0; i < T_NTIMERS; i++) {
        if (tm[i]) {
            tcp_timer_set(c, (enum tcp_timer)i, tm[i]);
        }
    }
    return c;
}
