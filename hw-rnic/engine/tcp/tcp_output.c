// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Output: the record-aware segmenter, segment/frame construction with
 * checksums, pure ACKs, probes and RSTs.
 */
#include <string.h>
#include "tcp_int.h"

static uint8_t *frame_buf(struct rne_tcp *t, size_t maxlen)
{
    if (t->ops->tx_buf) {
        return t->ops->tx_buf(t->opaque, maxlen);
    }
    return t->scratch;
}

/*
 * Ring slot of the i-th queued record: rec_head < rec_cap and i < rec_cap,
 * so one conditional subtraction instead of a division (several per segment).
 */
static uint32_t rec_idx(const struct rne_tcp_conn *c, uint32_t i)
{
    uint32_t j = c->rec_head + i;

    return j >= c->rec_cap ? j - c->rec_cap : j;
}

static uint32_t rec_at(const struct rne_tcp_conn *c, uint32_t i)
{
    return c->rec[rec_idx(c, i)];
}

/*
 * Index of the first record that ends after seq (rec_cnt if none). New
 * data goes out from near the tail, so the last few records are looked at
 * first; a retransmission further back is found by bisection.
 */
static uint32_t rec_find(const struct rne_tcp_conn *c, uint32_t seq)
{
    uint32_t lo = 0, hi = c->rec_cnt;
    int n = 0;
    while (n < 4 && hi > 0 && SEQ_GT(rec_at(c, hi - 1), seq)) {
        hi--;
        n++;
    }
    if (n < 4) {
        return hi;
    }
    /* rec_at(hi) > seq still holds: the answer is at or before hi */
    while (lo < hi) {
        uint32_t mid = (lo + hi) / 2;
        if (SEQ_GT(rec_at(c, mid), seq)) {
            hi = mid;
        } else {
            lo = mid + 1;
        }
    }
    return lo;
}

/*
 * Payload length of the segment that starts at seq: whole records packed up
 * to the EMSS; a record larger than the EMSS goes out in EMSS-sized pieces.
 */
uint32_t tcp_seg_len_at(const struct rne_tcp_conn *c, uint32_t seq)
{
    uint32_t end = c->sb_seq + c->sb_len;
    if (!SEQ_LT(seq, end) || SEQ_LT(seq, c->sb_seq)) {
        return 0;
    }
    uint32_t lo = rec_find(c, seq);
    if (lo == c->rec_cnt) {
        return end - seq < c->emss ? end - seq : c->emss;
    }
    uint32_t e = rec_at(c, lo);
    if (e - seq >= c->emss) {
        return c->emss;
    }
    for (uint32_t i = lo + 1; i < c->rec_cnt; i++) {
        uint32_t r = rec_at(c, i);
        if (r - seq > c->emss) {
            break;
        }
        e = r;
    }
    return e - seq;
}

/*
 * Length of a retransmission at seq: records packed as usual, but never past
 * snd_max. Everything below snd_max was inside the peer's window when first
 * sent and ends on a segment (so record) boundary; new data would not be.
 */
uint32_t tcp_rexmit_len(const struct rne_tcp_conn *c, uint32_t seq)
{
    uint32_t len = tcp_seg_len_at(c, seq);
    if (SEQ_GT(seq + len, c->snd_max)) {
        len = SEQ_GT(c->snd_max, seq) ? c->snd_max - seq : 0;
    }
    return len;
}

/*
 * Window we can advertise: never shrinks what was offered, grows in useful
 * steps.
 */
uint32_t tcp_rcv_window(struct rne_tcp_conn *c)
{
    uint32_t avail = c->rcv_unread < c->rcv_buf ?
                     c->rcv_buf - c->rcv_unread : 0;
    uint32_t cur = SEQ_GT(c->rcv_adv, c->rcv_nxt) ? c->rcv_adv - c->rcv_nxt : 0;
    uint32_t step = c->rcv_buf / 2 < c->emss ? c->rcv_buf / 2 : c->emss;
    /*
     * RFC 1122 receiver SWS avoidance, except that an empty buffer is always
     * offered whole: a record-aware sender waits for room for a whole segment,
     * and holding a small window would then deadlock both sides.
     */
    if (avail < cur || (avail - cur < step && c->rcv_unread)) {
        avail = cur;
    }
    uint32_t max = 65535u << (c->ws_ok ? c->rcv_ws : 0);
    return avail > max ? max : avail;
}

/*
 * Copy the payload [seq, seq + len) into the frame and return its checksum,
 * summed in the same pass unless offloaded (the ring holds bytes only: a
 * record's sum cannot be taken when it is queued, its payload may be DMA'd
 * straight in).
 */
static uint64_t copy_payload(const struct rne_tcp_conn *c, uint8_t *dst,
                             uint32_t seq, uint32_t len)
{
    uint32_t pos = (c->sb_head + (seq - c->sb_seq)) % c->sb_size;
    uint32_t k = c->sb_size - pos;      /* octets before the ring wraps */
    uint64_t sum;
    if (k > len) {
        k = len;
    }
    if (c->t->cfg.tx_csum_offload) {
        memcpy(dst, c->sb + pos, k);
        memcpy(dst + k, c->sb, len - k);
        return 0;
    }
    sum = rne_csum_copy(dst, c->sb + pos, k);
    if (k == len) {
        return sum;
    }
    return sum + rne_csum_at(rne_csum_copy(dst + k, c->sb, len - k), k);
}

/*
 * Build and send one segment of this connection; payload comes from the send
 * ring.
 */
void tcp_xmit(struct rne_tcp_conn *c, uint32_t seq, uint32_t len,
              uint8_t flags)
{
    struct rne_tcp *t = c->t;
    size_t l2 = tcp_l2_hlen(t);
    uint8_t *f = frame_buf(t, l2 + (size_t)c->mtu);
    if (!f) {
        /* embedder out of buffers: as if lost */
        return;
    }
    if (c->state != RNE_TCP_SYN_SENT) {
        flags |= TH_ACK;
    }
    uint8_t *th = f + l2 + RNE_IP4_HLEN;
    size_t room = c->mtu - 40u > len ? c->mtu - 40u - len : 0;
    if (room > TCP_MAXOPT) {
        room = TCP_MAXOPT;
    }
    size_t olen = tcp_build_options(c, th + TCP_HLEN, flags, room);
    size_t thlen = TCP_HLEN + olen;
    uint16_t l4len = (uint16_t)(thlen + len);
    rne_ip4_build_vlan(f, c->rmac, t->cfg.mac,
                       t->cfg.vlan ? c->tci : RNE_NO_VLAN,
                       t->cfg.addr.u.v4, c->raddr.u.v4, RNE_IPPROTO_TCP,
                       l4len, t->ip_id++);
    rne_st_be16(th, c->lport);
    rne_st_be16(th + 2, c->rport);
    rne_st_be32(th + 4, seq);
    rne_st_be32(th + 8, (flags & TH_ACK) ? c->rcv_nxt : 0);
    th[12] = (uint8_t)((thlen / 4) << 4);
    th[13] = flags | (len ? TH_PSH : 0);
    uint32_t win;
    if (flags & TH_SYN) {
        /* never scaled in SYNs */
        win = c->rcv_buf > 65535 ? 65535 : c->rcv_buf;
        rne_st_be16(th + 14, (uint16_t)win);
        c->rcv_adv = c->rcv_nxt + win;
    } else {
        uint8_t ws = c->ws_ok ? c->rcv_ws : 0;
        win = tcp_rcv_window(c);
        /* round up: never shrink */
        uint32_t field = (win + (1u << ws) - 1) >> ws;
        if (field > 65535) {
            field = 65535;
        }
        rne_st_be16(th + 14, (uint16_t)field);
        uint32_t adv = c->rcv_nxt + (field << ws);
        if (SEQ_GT(adv, c->rcv_adv)) {
            c->rcv_adv = adv;
        }
    }
    rne_st_be16(th + 16, 0);
    rne_st_be16(th + 18, 0);
    uint32_t psum = 0;
    if (len) {
        psum = rne_csum_fold16(copy_payload(c, th + thlen, seq, len));
    }
    if (!t->cfg.tx_csum_offload) {
        uint32_t sum = rne_csum_pseudo4(t->cfg.addr.u.v4, c->raddr.u.v4,
                                        RNE_IPPROTO_TCP, l4len);
        /* pseudo header + psum stay far below 2^32 */
        sum = rne_csum_add(sum + psum, th, thlen);
        rne_st_be16(th + 16, rne_csum_fold(sum));
    }
    /*
     * A retransmission can carry more than was sent before (records queued
     * since get packed in): whatever goes out extends snd_max, or its ACK would
     * look like an ACK for unsent data.
     */
    if (!(flags & TH_RST)) {
        uint32_t end = seq + len + !!(flags & TH_SYN) + !!(flags & TH_FIN);
        if (SEQ_GT(end, c->snd_max)) {
            c->snd_max = end;
        }
    }
    if (flags & TH_ACK) {
        c->last_ack_sent = c->rcv_nxt;
        c->ack_now = false;
        c->segs_unacked = 0;
        tcp_timer_clear(c, T_DELACK);
    }
    t->st.tx_frames++;
    if (len) {
        t->st.tx_data_segs++;
    }
    if (flags & TH_RST) {
        t->st.tx_rst++;
    }
    t->ops->tx(t->opaque, f, l2 + RNE_IP4_HLEN + l4len);
}

/*
 * snd_max, not snd_nxt: after an RTO rewinds snd_nxt, a bare ACK below what the
 * peer already has would be unacceptable to it and its ACK field ignored.
 */
void tcp_send_ack(struct rne_tcp_conn *c)
{
    tcp_xmit(c, c->snd_max, 0, TH_ACK);
}

/*
 * Zero-window probe / keepalive: an old sequence number elicits an ACK with the
 * current window without splitting a record (as Linux does).
 */
void tcp_send_probe(struct rne_tcp_conn *c)
{
    tcp_xmit(c, c->snd_una - 1, 0, TH_ACK);
}

void tcp_send_syn(struct rne_tcp_conn *c)
{
    uint8_t fl = c->state == RNE_TCP_SYN_SENT ? TH_SYN : TH_SYN | TH_ACK;
    tcp_xmit(c, c->iss, 0, fl);
    c->snd_nxt = c->iss + 1;
    if (SEQ_GT(c->snd_nxt, c->snd_max)) {
        c->snd_max = c->snd_nxt;
    }
    tcp_rexmt_arm(c);
}

void tcp_send_rst_conn(struct rne_tcp_conn *c)
{
    tcp_xmit(c, c->snd_max, 0, TH_RST | TH_ACK);
}

/* RFC 9293 §3.10.7.1: reset for a segment that matches no connection. */
void tcp_send_rst(struct rne_tcp *t, const struct rne_ip4_pkt *ip,
                  const struct tcp_seg *s)
{
    if (s->flags & TH_RST) {
        return;
    }
    size_t l2 = tcp_l2_hlen(t);
    uint8_t *f = frame_buf(t, l2 + 40);
    if (!f) {
        return;
    }
    uint8_t *th = f + l2 + RNE_IP4_HLEN;
    /* on the segment's VLAN, the only one this engine takes */
    rne_ip4_build_vlan(f, ip->src_mac, t->cfg.mac,
                       t->cfg.vlan ? t->cfg.vlan_tci : RNE_NO_VLAN,
                       t->cfg.addr.u.v4, ip->src, RNE_IPPROTO_TCP, TCP_HLEN,
                       t->ip_id++);
    memset(th, 0, TCP_HLEN);
    rne_st_be16(th, s->dport);
    rne_st_be16(th + 2, s->sport);
    if (s->flags & TH_ACK) {
        rne_st_be32(th + 4, s->ack);
        th[13] = TH_RST;
    } else {
        uint32_t seglen = s->len + !!(s->flags & TH_SYN) +
            !!(s->flags & TH_FIN);
        rne_st_be32(th + 8, s->seq + seglen);
        th[13] = TH_RST | TH_ACK;
    }
    th[12] = 5 << 4;
    uint32_t sum = rne_csum_pseudo4(t->cfg.addr.u.v4, ip->src,
                                    RNE_IPPROTO_TCP, TCP_HLEN);
    rne_st_be16(th + 16, rne_csum_fold(rne_csum_add(sum, th, TCP_HLEN)));
    t->st.tx_frames++;
    t->st.tx_rst++;
    t->ops->tx(t->opaque, f, l2 + 40);
}

/* Release acknowledged bytes and whole records from the send ring. */
void tcp_sb_ack(struct rne_tcp_conn *c, uint32_t ack)
{
    uint32_t end = c->sb_seq + c->sb_len;
    uint32_t upto = SEQ_LT(ack, end) ? ack : end;
    if (!SEQ_GT(upto, c->sb_seq)) {
        return;
    }
    uint32_t n = upto - c->sb_seq;
    c->sb_head = (c->sb_head + n) % c->sb_size;
    c->sb_len -= n;
    c->sb_seq = upto;
    while (c->rec_cnt && SEQ_LEQ(c->rec[c->rec_head], upto)) {
        c->rec_head = (c->rec_head + 1) % c->rec_cap;
        c->rec_cnt--;
    }
    tcp_sb_put_if_empty(c);
    if (tcp_has_reader(c)) {
        c->ev_acked += n;
        tcp_conn_event(c, RNE_TCP_EV_ACKED);
    }
}

static bool fin_pending_at(const struct rne_tcp_conn *c, uint32_t seq,
                           uint32_t len)
{
    return c->fin_queued && seq + len == c->fin_seq;
}

/* Send whatever the windows allow, then a bare ACK if one is owed. */
void tcp_output(struct rne_tcp_conn *c)
{
    if (c->dead) {
        return;
    }
    bool sent = false;
    if (c->state == RNE_TCP_SYN_SENT || c->state == RNE_TCP_SYN_RCVD) {
        if (c->ack_now && c->state == RNE_TCP_SYN_RCVD) {
            tcp_send_syn(c);
        }
        return;
    }
    if (c->state == RNE_TCP_TIME_WAIT || c->state == RNE_TCP_CLOSED) {
        if (c->ack_now) {
            tcp_send_ack(c);
        }
        return;
    }
    uint32_t before = c->snd_max;
    if (c->in_recovery && c->sack_ok) {
        tcp_cc_output_recovery(c);
    }
    for (;;) {
        uint32_t len = tcp_seg_len_at(c, c->snd_nxt);
        bool fin = fin_pending_at(c, c->snd_nxt, len);
        if (len == 0 && !fin) {
            break;
        }
        /*
         * The peer's right edge is the ACK + window of the segment that last
         * updated the window (snd_wl2), not snd_una; cwnd is measured against
         * what is in flight (the RFC 6675 pipe during SACK recovery).
         */
        uint32_t right = c->snd_wl2 + c->snd_wnd;
        uint32_t usable = SEQ_GT(right, c->snd_nxt) ? right - c->snd_nxt : 0;
        uint32_t flight = c->in_recovery && c->sack_ok ?
                          tcp_sack_pipe(c) : c->snd_nxt - c->snd_una;
        uint32_t cw = c->cwnd > flight ? c->cwnd - flight : 0;
        if (cw < usable) {
            usable = cw;
        }
        if (len > usable) {
            /*
             * Split a record only if the peer has never offered a window that
             * could hold this segment; otherwise wait for the window to open
             * (ACKs, or the persist timer's probe) and keep records whole.
             */
            if (c->snd_max == c->snd_una && usable > 0 && c->snd_wnd < len &&
                c->max_sndwnd < len) {
                len = usable;
                fin = false;
            } else {
                /*
                 * window-limited with nothing in flight: only the persist timer
                 * (zero-window probe) can learn that the window opened
                 */
                if (c->snd_max == c->snd_una && !c->tm[T_PERSIST]) {
                    c->persist_backoff = 0;
                    tcp_timer_set(c, T_PERSIST, c->t->now + c->rto);
                }
                break;
            }
        }
        bool rexmit = SEQ_LT(c->snd_nxt, c->snd_max);
        tcp_xmit(c, c->snd_nxt, len, fin ? TH_FIN : 0);
        if (rexmit) {
            c->t->st.tx_rexmit_segs++;
            c->rexmits++;
        } else if (!c->rtt_timing && !c->ts_ok && len) {
            c->rtt_timing = true;       /* Karn: time only new data */
            c->rtt_seq = c->snd_nxt;
            c->rtt_start = c->t->now;
        }
        c->snd_nxt += len + fin;
        if (SEQ_GT(c->snd_nxt, c->snd_max)) {
            c->snd_max = c->snd_nxt;
        }
        sent = true;
        tcp_rexmt_arm(c);
    }
    if (sent || c->snd_max != before) {
        tcp_timer_clear(c, T_PERSIST);
    }
    if (c->ack_now) {
        tcp_send_ack(c);
    }
}
