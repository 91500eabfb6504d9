// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Segment arrival (RFC 9293 §3.10.7): frame validation, demux, the
 * LISTEN / SYN-SENT / synchronized-state processing, with RFC 5961
 * challenge ACKs, RFC 7323 PAWS and RTTM, and the FIN/RST handling of every
 * state.
 */
#include <string.h>
#include "tcp_int.h"

#define PAWS_IDLE_NS (24ull * 24 * 3600 * 1000000000ull)   /* RFC 7323 §5.5 */

/*
 * RFC 5961 §7: a global budget per second keeps challenge ACKs from being a
 * reflector.
 */
static void challenge_ack(struct rne_tcp_conn *c)
{
    struct rne_tcp *t = c->t;
    if (t->now - t->chal_start >= 1000 * NS_PER_MS) {
        t->chal_start = t->now;
        t->chal_count = 0;
    }
    if (t->cfg.challenge_ack_limit &&
        t->chal_count >= t->cfg.challenge_ack_limit) {
        return;
    }
    t->chal_count++;
    t->st.tx_challenge_ack++;
    tcp_send_ack(c);
}

static void take_syn_options(struct rne_tcp_conn *c, const struct tcp_seg *s)
{
    const struct rne_tcp_config *cfg = &c->t->cfg;
    c->peer_mss = s->has_mss ? s->mss : 536;
    c->sack_ok = s->sack_ok && !cfg->no_sack;
    c->ts_ok = s->has_ts && !cfg->no_timestamps;
    c->ws_ok = s->has_ws && !cfg->no_wscale;
    c->snd_ws = c->ws_ok ? s->ws : 0;
    if (c->ts_ok) {
        c->ts_recent = s->tsval;
        c->ts_recent_age = c->t->now;
    }
}

static void keep_arm(struct rne_tcp_conn *c)
{
    if (c->t->cfg.keepalive) {
        tcp_timer_set(c, T_KEEP,
                      c->t->now + (uint64_t)c->t->cfg.keep_idle_ms * NS_PER_MS);
    }
}

static void listen_input(struct rne_tcp *t, struct rne_tcp_listener *l,
                         const struct rne_ip4_pkt *ip, struct tcp_seg *s)
{
    if (s->flags & TH_RST) {
        return;
    }
    if (s->flags & TH_ACK) {
        tcp_send_rst(t, ip, s);
        return;
    }
    if (!(s->flags & TH_SYN) || (s->flags & TH_FIN)) {
        return;
    }
    if (l->pending >= l->backlog) {
        /* backlog full: drop, the peer retries */
        return;
    }
    struct rne_tcp_conn *c = tcp_conn_alloc(t);
    if (!c) {
        return;
    }
    c->lis = l;
    /* the engine's VID, the listener's priority */
    c->tci = (uint16_t)((t->cfg.vlan_tci & 0x0fff) | (l->tci & 0xf000));
    l->pending++;
    rne_ipaddr_v4(&c->raddr, ip->src[0], ip->src[1], ip->src[2], ip->src[3]);
    c->lport = s->dport;
    c->rport = s->sport;
    memcpy(c->rmac, ip->src_mac, RNE_ETH_ALEN);
    c->irs = s->seq;
    c->rcv_nxt = s->seq + 1;
    take_syn_options(c, s);
    c->snd_wnd = s->wnd;                /* SYN windows are never scaled */
    c->max_sndwnd = c->snd_wnd;
    c->snd_wl1 = s->seq;
    c->iss = tcp_isn(t, c->lport, &c->raddr, c->rport);
    c->snd_una = c->snd_nxt = c->snd_max = c->iss;
    c->snd_wl2 = c->iss;
    c->sb_seq = c->iss + 1;
    c->ts_offset = (uint32_t)tcp_tuple_hash(t, &c->raddr, c->lport ^ 0x5a5a,
                                            c->rport);
    tcp_conn_set_state(c, RNE_TCP_SYN_RCVD);
    tcp_hash_insert(c);
    tcp_conn_update_emss(c);
    tcp_send_syn(c);
}

/* Both directions synchronized: set up CC and tell the upper layer. */
static void established(struct rne_tcp_conn *c)
{
    tcp_conn_set_state(c, RNE_TCP_ESTABLISHED);
    tcp_timer_clear(c, T_REXMT);
    /*
     * RFC 6298 §5.7: SYN retransmitted and no RTT sample taken: start data
     * at 3 s
     */
    if (c->syn_rexmit && !c->srtt) {
        c->rto = 3000 * NS_PER_MS;
    }
    c->nrexmit = 0;
    if (c->fin_queued) {
        /* close() came in SYN_RCVD */
        tcp_conn_set_state(c, RNE_TCP_FIN_WAIT_1);
    }
    if (c->lis) {
        /* the upper layer takes it, or not, when it pulls the event */
        c->lis->pending--;
        c->listen_user = c->lis->user;
        c->lis = NULL;
        tcp_conn_event(c, RNE_TCP_EV_ACCEPTED);
    } else {
        tcp_conn_event(c, RNE_TCP_EV_CONNECTED);
    }
    tcp_conn_update_emss(c);
    tcp_cc_init(c);
    keep_arm(c);
}

static void syn_sent_input(struct rne_tcp_conn *c, struct tcp_seg *s)
{
    struct rne_tcp *t = c->t;
    if ((s->flags & TH_ACK) &&
        (SEQ_LEQ(s->ack, c->iss) || SEQ_GT(s->ack, c->snd_max))) {
        if (!(s->flags & TH_RST)) {
            tcp_send_rst(t, s->ip, s);
        }
        return;
    }
    if (s->flags & TH_RST) {
        if (s->flags & TH_ACK) {
            tcp_conn_drop(c, RNE_TCP_ECONNREFUSED);
        }
        return;
    }
    if (!(s->flags & TH_SYN)) {
        return;
    }
    c->irs = s->seq;
    c->rcv_nxt = s->seq + 1;
    c->rcv_adv = c->rcv_nxt + (c->rcv_buf > 65535 ? 65535 : c->rcv_buf);
    take_syn_options(c, s);
    c->snd_wnd = s->wnd;
    c->max_sndwnd = c->snd_wnd;
    c->snd_wl1 = s->seq;
    c->snd_wl2 = s->ack;
    if (s->flags & TH_ACK) {
        if (c->ts_ok && s->tsecr && c->nrexmit == 0) {
            tcp_rtt_sample(c, (uint64_t)(uint32_t)(tcp_ts_now(c) - s->tsecr) *
                              NS_PER_MS);
        }
        c->snd_una = s->ack;
        c->ack_now = true;
        /* the upper layer's first record may carry the ACK */
        established(c);
        tcp_conn_output_owed(c);
    } else {
        /* simultaneous open */
        tcp_conn_set_state(c, RNE_TCP_SYN_RCVD);
        tcp_conn_update_emss(c);
        tcp_send_syn(c);
    }
}

void tcp_fin_arrived(struct rne_tcp_conn *c)
{
    tcp_rcv_advance(c, 1);
    c->ack_now = true;
    if (tcp_has_reader(c)) {
        tcp_conn_event(c, RNE_TCP_EV_PEER_CLOSED);
    }
    bool fin_acked = c->fin_queued && SEQ_GT(c->snd_una, c->fin_seq);
    switch (c->state) {
    case RNE_TCP_SYN_RCVD:
    case RNE_TCP_ESTABLISHED:
        tcp_conn_set_state(c, RNE_TCP_CLOSE_WAIT);
        break;
    case RNE_TCP_FIN_WAIT_1:
        if (fin_acked) {
            tcp_send_ack(c);
            tcp_conn_enter_time_wait(c);
        } else {
            tcp_conn_set_state(c, RNE_TCP_CLOSING);
        }
        break;
    case RNE_TCP_FIN_WAIT_2:
        tcp_send_ack(c);
        tcp_conn_enter_time_wait(c);
        break;
    default:
        break;
    }
}

static bool seq_acceptable(const struct rne_tcp_conn *c,
                           const struct tcp_seg *s)
{
    uint32_t wnd = SEQ_GT(c->rcv_adv, c->rcv_nxt) ? c->rcv_adv - c->rcv_nxt : 0;
    uint32_t seglen = s->len + !!(s->flags & TH_SYN) + !!(s->flags & TH_FIN);
    bool in_first = SEQ_GEQ(s->seq, c->rcv_nxt) &&
        SEQ_LT(s->seq, c->rcv_nxt + wnd);
    if (seglen == 0) {
        return wnd == 0 ? s->seq == c->rcv_nxt : in_first;
    }
    if (wnd == 0) {
        return false;
    }
    uint32_t last = s->seq + seglen - 1;
    return in_first ||
        (SEQ_GEQ(last, c->rcv_nxt) && SEQ_LT(last, c->rcv_nxt + wnd));
}

/* Cut what lies before rcv_nxt or beyond the window we offered. */
static void trim(struct rne_tcp_conn *c, struct tcp_seg *s)
{
    if (SEQ_LT(s->seq, c->rcv_nxt)) {
        if (s->flags & TH_SYN) {
            s->flags &= (uint8_t)~TH_SYN;
            s->seq++;
        }
        uint32_t skip = c->rcv_nxt - s->seq;
        if (skip > s->len) {
            s->flags &= (uint8_t)~TH_FIN;
            skip = s->len;
        }
        s->data += skip;
        s->len -= skip;
        s->seq += skip;
        c->t->st.rx_dup++;
    }
    uint32_t right = SEQ_GT(c->rcv_adv, c->rcv_nxt) ? c->rcv_adv : c->rcv_nxt;
    if (SEQ_GT(s->seq + s->len, right)) {
        s->len = SEQ_GT(right, s->seq) ? right - s->seq : 0;
        s->flags &= (uint8_t)~TH_FIN;
    }
}

static void ack_input(struct rne_tcp_conn *c, struct tcp_seg *s)
{
    struct rne_tcp *t = c->t;
    uint32_t swnd = s->wnd << c->snd_ws;
    if (SEQ_GT(s->ack, c->snd_una)) {
        uint32_t acked = s->ack - c->snd_una;
        if (c->ts_ok && s->has_ts && s->tsecr) {
            uint32_t d = tcp_ts_now(c) - s->tsecr;
            if (d < 0x7fffffffu / 2) {
                tcp_rtt_sample(c, (uint64_t)d * NS_PER_MS);
            }
        } else if (c->rtt_timing && SEQ_GT(s->ack, c->rtt_seq)) {
            c->rtt_timing = false;
            tcp_rtt_sample(c, t->now - c->rtt_start);
        }
        uint32_t prev = c->snd_una;
        c->snd_una = s->ack;
        if (SEQ_LT(c->snd_nxt, c->snd_una)) {
            c->snd_nxt = c->snd_una;
        }
        if (c->sack_ok) {
            tcp_sack_update(c, s);
            tcp_sack_ack(c);
        }
        c->nrexmit = 0;
        tcp_cc_ack(c, acked, prev);
        tcp_sb_ack(c, s->ack);
        tcp_timer_clear(c, T_REXMT);
        /* RFC 6298 5.3: restart for what remains */
        tcp_rexmt_arm(c);
    } else if (s->ack == c->snd_una) {
        bool sack_new = false;
        if (c->sack_ok && s->nsack) {
            int before = c->n_sacked;
            uint32_t pipe0 = tcp_sack_pipe(c);
            tcp_sack_update(c, s);
            sack_new = c->n_sacked != before || tcp_sack_pipe(c) != pipe0;
        }
        bool dup = s->len == 0 && !(s->flags & (TH_SYN | TH_FIN)) &&
                   swnd == c->snd_wnd && c->snd_max != c->snd_una;
        if (dup || (sack_new && c->snd_max != c->snd_una)) {
            tcp_cc_dupack(c, sack_new);
        }
    }
    if (SEQ_LT(c->snd_wl1, s->seq) ||
        (c->snd_wl1 == s->seq && SEQ_LEQ(c->snd_wl2, s->ack))) {
        c->snd_wnd = swnd;
        c->snd_wl1 = s->seq;
        c->snd_wl2 = s->ack;
        if (swnd > c->max_sndwnd) {
            c->max_sndwnd = swnd;
        }
        if (swnd) {
            c->persist_backoff = 0;
        }
    }
}

/*
 * Every 2nd full segment ACKs at once, a lone one within the delayed-ACK
 * time (RFC 1122 4.2.3.2). True when the ACK is due now.
 */
static bool ack_or_delay(struct rne_tcp_conn *c)
{
    struct rne_tcp *t = c->t;

    if (c->segs_unacked >= 2) {
        c->ack_now = true;
    } else if (!c->tm[T_DELACK]) {
        tcp_timer_set(c, T_DELACK,
                      t->now + (uint64_t)t->cfg.delack_ms * NS_PER_MS);
    }
    return c->segs_unacked >= 2;
}

/*
 * cfg.ack_batch: let the ACK for this in-order segment wait for the end of
 * the receive burst (rne_tcp_rx_batch_end), which ACKs once what the burst
 * brought. Each ACK is a frame through the host's net layer on both sides,
 * and one per two segments is a third of a bulk transfer's frames. Not while
 * the peer may still be in slow start (quick_left), nor past rcvbuf / 4
 * octets.
 */
static bool ack_defer(struct rne_tcp_conn *c, uint32_t len)
{
    struct rne_tcp *t = c->t;
    if (!t->cfg.ack_batch) {
        return false;
    }
    if (c->quick_left) {
        c->quick_left -= len < c->quick_left ? len : c->quick_left;
        return false;
    }
    uint32_t most = c->rcv_buf / 4 / (c->emss ? c->emss : 536);
    if (c->segs_unacked + 1 >= (most > 2 ? most : 2)) {
        return false;
    }
    if (!c->ack_queued) {
        if (t->ackq_n == TCP_ACKQ_MAX) {
            return false;
        }
        t->ackq[t->ackq_n++] = c;
        c->ack_queued = true;
    }
    c->segs_unacked++;
    return true;
}

static void conn_input(struct rne_tcp_conn *c, struct tcp_seg *s)
{
    struct rne_tcp *t = c->t;
    c->last_rx = t->now;
    c->keep_probes = 0;

    if (c->state == RNE_TCP_SYN_SENT) {
        syn_sent_input(c, s);
        return;
    }
    /* Our SYN-ACK was lost and the peer repeats its SYN: repeat the SYN-ACK. */
    if (c->state == RNE_TCP_SYN_RCVD &&
        (s->flags & (TH_SYN | TH_ACK | TH_RST)) == TH_SYN &&
        s->seq == c->irs) {
        /* next hop may have changed */
        memcpy(c->rmac, s->ip->src_mac, RNE_ETH_ALEN);
        tcp_send_syn(c);
        return;
    }
    /* PAWS (RFC 7323 §5.3) */
    if (c->ts_ok && s->has_ts && !(s->flags & TH_RST) &&
        SEQ_LT(s->tsval, c->ts_recent)) {
        if (t->now - c->ts_recent_age > PAWS_IDLE_NS) {
            c->ts_recent = s->tsval;    /* ts_recent too old to trust */
        } else {
            t->st.paws_drop++;
            tcp_send_ack(c);
            return;
        }
    }
    if (!seq_acceptable(c, s)) {
        if (!(s->flags & TH_RST)) {
            if (c->state == RNE_TCP_TIME_WAIT && (s->flags & TH_FIN)) {
                tcp_timer_set(c, T_2MSL,
                              t->now + 2ull * t->cfg.msl_ms * NS_PER_MS);
            }
            tcp_send_ack(c);
        }
        return;
    }
    /*
     * RST is judged on the segment's own SEQ, before any trimming (RFC 5961
     * §3.2)
     */
    if (s->flags & TH_RST) {
        if (s->seq != c->rcv_nxt) {
            challenge_ack(c);           /* RFC 5961 §3.2 */
            return;
        }
        if (c->state == RNE_TCP_TIME_WAIT) {
            /* RFC 1337: no TIME-WAIT assassination */
            return;
        }
        tcp_conn_drop(c, RNE_TCP_ECONNRESET);
        return;
    }
    trim(c, s);
    if (s->flags & TH_SYN) {
        challenge_ack(c);               /* RFC 5961 §4.2 */
        return;
    }
    if (!(s->flags & TH_ACK)) {
        return;
    }
    if (c->state == RNE_TCP_SYN_RCVD) {
        if (!(SEQ_LT(c->snd_una, s->ack) && SEQ_LEQ(s->ack, c->snd_max))) {
            tcp_send_rst(t, s->ip, s);
            return;
        }
        c->snd_wnd = s->wnd << c->snd_ws;
        c->max_sndwnd = c->snd_wnd;
        c->snd_wl1 = s->seq;
        c->snd_wl2 = s->ack;
        if (c->ts_ok && s->has_ts && s->tsecr) {
            tcp_rtt_sample(c, (uint64_t)(uint32_t)(tcp_ts_now(c) - s->tsecr) *
                              NS_PER_MS);
        }
        established(c);
    }
    /* RFC 5961 §5.2: ACKs for data never sent or far in the past */
    if (SEQ_GT(s->ack, c->snd_max) ||
        SEQ_LT(s->ack,
               c->snd_una - (c->max_sndwnd > 65535 ? c->max_sndwnd : 65535))) {
        challenge_ack(c);
        return;
    }
    /*
     * RFC 7323 §4.3: remember the timestamp of the segment that matches our
     * last ACK.
     */
    if (c->ts_ok && s->has_ts && SEQ_LEQ(s->seq, c->last_ack_sent) &&
        SEQ_GEQ(s->tsval, c->ts_recent)) {
        c->ts_recent = s->tsval;
        c->ts_recent_age = t->now;
    }
    ack_input(c, s);
    bool fin_acked = c->fin_queued && SEQ_GT(c->snd_una, c->fin_seq);
    switch (c->state) {
    case RNE_TCP_FIN_WAIT_1:
        if (fin_acked) {
            tcp_conn_set_state(c, RNE_TCP_FIN_WAIT_2);
            tcp_timer_set(c, T_2MSL,
                          t->now + (uint64_t)t->cfg.fin_wait2_ms * NS_PER_MS);
        }
        break;
    case RNE_TCP_CLOSING:
        if (fin_acked) {
            tcp_conn_enter_time_wait(c);
        } else {
            /* data before our FIN may still be queued */
            tcp_conn_output_owed(c);
        }
        return;
    case RNE_TCP_LAST_ACK:
        if (fin_acked) {
            tcp_conn_drop(c, RNE_TCP_OK);
        } else {
            tcp_conn_output_owed(c);
        }
        return;
    case RNE_TCP_TIME_WAIT:
        if (s->flags & TH_FIN) {
            tcp_send_ack(c);
            tcp_timer_set(c, T_2MSL, t->now + 2ull * t->cfg.msl_ms * NS_PER_MS);
        }
        return;
    default:
        break;
    }

    bool can_rcv = c->state == RNE_TCP_ESTABLISHED ||
                   c->state == RNE_TCP_FIN_WAIT_1 ||
                   c->state == RNE_TCP_FIN_WAIT_2;
    if (s->len && can_rcv) {
        if (s->seq == c->rcv_nxt) {
            /* read in place by the upper layer after this call (no copy) */
            tcp_rd_add(c, s->data, s->len);
            tcp_rcv_advance(c, s->len);
            if (c->n_ooo) {
                /* a hole filled: ACK at once (RFC 5681 §4.2) */
                tcp_ooo_deliver(c);
                c->ack_now = true;
            } else if (ack_defer(c, s->len)) {
                t->st.rx_ack_deferred++;
            } else {
                c->segs_unacked++;
                ack_or_delay(c);
            }
        } else {
            t->st.rx_ooo++;
            tcp_ooo_insert(c, s->seq, s->data, s->len);
            c->ack_now = true;          /* duplicate ACK with SACK right away */
            /* and every 2nd segment while the sender recovers */
            c->quick_left = c->rcv_buf;
        }
    }
    if ((s->flags & TH_FIN) && c->state != RNE_TCP_CLOSE_WAIT &&
        c->state != RNE_TCP_CLOSING && c->state != RNE_TCP_LAST_ACK) {
        uint32_t fseq = s->seq + s->len;
        if (fseq == c->rcv_nxt) {
            tcp_fin_arrived(c);
        } else if (SEQ_GT(fseq, c->rcv_nxt) && can_rcv) {
            c->fin_rcvd_ooo = true;
            c->fin_rcv_seq = fseq;
            c->ack_now = true;
        }
    }
    /* after the upper layer took the events: its data carries the ACK */
    tcp_conn_output_owed(c);
}

void tcp_input_segment(struct rne_tcp *t, const struct rne_ip4_pkt *ip,
                       struct tcp_seg *s)
{
    struct rne_ipaddr raddr;
    rne_ipaddr_v4(&raddr, ip->src[0], ip->src[1], ip->src[2], ip->src[3]);
    struct rne_tcp_conn *c = tcp_lookup(t, &raddr, s->dport, s->sport);
    /*
     * A new SYN may reuse a TIME_WAIT tuple if it is clearly newer (RFC 6191).
     */
    if (c && c->state == RNE_TCP_TIME_WAIT &&
        (s->flags & (TH_SYN | TH_ACK | TH_RST)) == TH_SYN &&
        (SEQ_GT(s->seq, c->rcv_nxt) ||
         (c->ts_ok && s->has_ts && SEQ_GT(s->tsval, c->ts_recent))) &&
        tcp_listener_find(t, s->dport)) {
        tcp_conn_drop(c, RNE_TCP_OK);
        tcp_hash_remove(c);
        c = NULL;
    }
    if (!c) {
        struct rne_tcp_listener *l = tcp_listener_find(t, s->dport);
        if (!l) {
            t->st.rx_no_conn++;
            tcp_send_rst(t, ip, s);
            return;
        }
        listen_input(t, l, ip, s);
        return;
    }
    conn_input(c, s);
}

bool rne_tcp_input(struct rne_tcp *t, const uint8_t *frame, size_t len,
                   uint64_t now_ns)
{
    struct rne_ip4_pkt ip;
    enum rne_ip4_err e = rne_ip4_parse(frame, len, &ip);
    if (e == RNE_IP4_NOT_IP) {
        return false;
    }
    t->st.rx_frames++;
    if (e != RNE_IP4_OK) {
        t->st.rx_bad++;
        return true;
    }
    if (memcmp(ip.dst, t->cfg.addr.u.v4, 4) != 0 ||
        ip.proto != RNE_IPPROTO_TCP) {
        return false;
    }
    /* another VLAN's (or none's) frame: not ours, even for our address */
    if ((ip.tagged ? RNE_VLAN_VID(ip.tci) : 0) !=
        (t->cfg.vlan ? RNE_VLAN_VID(t->cfg.vlan_tci) : 0)) {
        return false;
    }
    if (memcmp(frame, t->cfg.mac, RNE_ETH_ALEN) != 0) {
        /* our IP, someone else's MAC: not for us */
        t->st.rx_bad++;
        return true;
    }
    const uint8_t *th = ip.l4;
    if (ip.l4_len < TCP_HLEN) {
        t->st.rx_bad++;
        return true;
    }
    size_t doff = (size_t)(th[12] >> 4) * 4;
    if (doff < TCP_HLEN || doff > ip.l4_len) {
        t->st.rx_bad++;
        return true;
    }
    if (!t->cfg.rx_csum_offload) {
        uint32_t sum = rne_csum_pseudo4(ip.src, ip.dst, RNE_IPPROTO_TCP,
                                        ip.l4_len);
        if (rne_csum_fold(rne_csum_add(sum, th, ip.l4_len)) != 0) {
            t->st.rx_csum_err++;
            return true;
        }
    }
    struct tcp_seg s;
    memset(&s, 0, sizeof(s));
    s.sport = rne_ld_be16(th);
    s.dport = rne_ld_be16(th + 2);
    s.seq = rne_ld_be32(th + 4);
    s.ack = rne_ld_be32(th + 8);
    s.flags = th[13] & 0x3f;
    s.wnd = rne_ld_be16(th + 14);
    s.data = th + doff;
    s.len = (uint32_t)(ip.l4_len - doff);
    s.ip = &ip;
    if (s.sport == 0 || s.dport == 0) {
        t->st.rx_bad++;
        return true;
    }
    tcp_parse_options(&s, th + TCP_HLEN, doff - TCP_HLEN);
    tcp_rd_frame_end(t);
    tcp_begin(t, now_ns);
    tcp_input_segment(t, &ip, &s);
    tcp_end(t);
    return true;
}

void rne_tcp_rx_batch_end(struct rne_tcp *t, uint64_t now_ns)
{
    if (!t->ackq_n) {
        return;
    }
    tcp_begin(t, now_ns);
    /* a connection freed and reused since is not queued (memset) */
    for (uint32_t i = 0; i < t->ackq_n; i++) {
        struct rne_tcp_conn *c = t->ackq[i];
        if (!c->ack_queued) {
            continue;
        }
        c->ack_queued = false;
        if (c->dead || !c->segs_unacked) {
            continue;
        }
        /*
         * A burst of one segment (a datagram wire reads one frame per wake)
         * waits as before: for the next segment or the delayed-ACK timer.
         */
        if (ack_or_delay(c)) {
            tcp_output(c);
        }
    }
    t->ackq_n = 0;
    tcp_end(t);
}

bool rne_tcp_ack_owed(const struct rne_tcp *t)
{
    return t->ackq_n != 0;
}
