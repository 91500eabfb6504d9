// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Congestion control: RFC 5681 slow start / congestion avoidance, fast
 * retransmit, NewReno recovery (RFC 6582) without SACK and RFC 6675
 * SACK-based loss recovery with it.
 */
#include "tcp_int.h"

#define CWND_MAX (1u << 30)

static uint32_t flight(const struct rne_tcp_conn *c)
{
    return c->snd_max - c->snd_una;
}

static uint32_t half_flight(const struct rne_tcp_conn *c)
{
    uint32_t h = flight(c) / 2;
    return h > 2 * c->emss ? h : 2 * c->emss;
}

void tcp_cc_init(struct rne_tcp_conn *c)
{
    /* RFC 5681 §3.1 initial window */
    uint32_t n = c->emss > 2190 ? 2 : c->emss > 1095 ? 3 : 4;
    c->cwnd = n * c->emss;
    c->ssthresh = CWND_MAX;
    c->recover = c->iss;
    c->high_rxt = c->snd_una;
}

static void rexmit_first(struct rne_tcp_conn *c)
{
    uint32_t len = tcp_rexmit_len(c, c->snd_una);
    bool fin = c->fin_queued && c->snd_una + len == c->fin_seq &&
        SEQ_GT(c->snd_max, c->fin_seq);
    if (!len && !fin) {
        return;
    }
    tcp_xmit(c, c->snd_una, len, fin ? TH_FIN : 0);
    c->t->st.tx_rexmit_segs++;
    c->rexmits++;
    if (SEQ_GT(c->snd_una + len + fin, c->high_rxt)) {
        c->high_rxt = c->snd_una + len + fin;
    }
    c->rtt_timing = false;              /* Karn */
}

/* New data acknowledged (snd_una already advanced by acked bytes). */
void tcp_cc_ack(struct rne_tcp_conn *c, uint32_t acked, uint32_t prev_una)
{
    (void)prev_una;
    if (c->in_recovery) {
        if (SEQ_GEQ(c->snd_una, c->recover)) {
            /* full ACK: leave recovery (RFC 6582 §3.2 step 3, option 1) */
            uint32_t f = flight(c) + c->emss;
            c->cwnd = c->ssthresh < f ? c->ssthresh : f;
            c->in_recovery = false;
            c->dupacks = 0;
            c->bytes_acked = 0;
            return;
        }
        if (SEQ_LT(c->high_rxt, c->snd_una)) {
            c->high_rxt = c->snd_una;
        }
        if (!c->sack_ok) {
            /*
             * partial ACK: retransmit the next hole, deflate by what was acked
             */
            rexmit_first(c);
            c->cwnd = c->cwnd > acked ? c->cwnd - acked : 0;
            c->cwnd += c->emss;
            tcp_timer_clear(c, T_REXMT);
            tcp_rexmt_arm(c);
        }
        return;
    }
    c->dupacks = 0;
    if (c->cwnd < c->ssthresh) {
        /* slow start, L = 1 SMSS */
        c->cwnd += acked < c->emss ? acked : c->emss;
    } else {
        c->bytes_acked += acked;
        /* ~1 SMSS per RTT */
        if (c->bytes_acked >= c->cwnd) {
            c->bytes_acked -= c->cwnd;
            c->cwnd += c->emss;
        }
    }
    if (c->cwnd > CWND_MAX) {
        c->cwnd = CWND_MAX;
    }
}

void tcp_cc_dupack(struct rne_tcp_conn *c, bool sack_new)
{
    (void)sack_new;
    if (c->in_recovery) {
        if (!c->sack_ok) {
            c->cwnd += c->emss;         /* NewReno inflation */
        }
        return;
    }
    c->dupacks++;
    bool enter = c->dupacks >= TCP_DUPTHRESH;
    if (c->sack_ok && tcp_sack_is_lost(c, c->snd_una)) {
        enter = true;                   /* RFC 6675 §5 step 2 */
    }
    /*
     * RFC 6582 §3.2 step 2: no new recovery for losses from the previous one.
     */
    if (!enter || !SEQ_GT(c->snd_una, c->recover)) {
        return;
    }
    c->t->st.fast_rexmit++;
    tcp_trace_rexmit(c, RNE_TCP_REXMIT_FAST);
    c->in_recovery = true;
    c->recover = c->snd_max;
    c->ssthresh = half_flight(c);
    c->high_rxt = c->snd_una;
    c->cwnd = c->sack_ok ? c->ssthresh : c->ssthresh + TCP_DUPTHRESH * c->emss;
    rexmit_first(c);
}

void tcp_cc_rto(struct rne_tcp_conn *c)
{
    c->ssthresh = half_flight(c);
    c->cwnd = c->emss;                  /* loss window */
    c->in_recovery = false;
    c->dupacks = 0;
    c->bytes_acked = 0;
    c->recover = c->snd_max;
    c->high_rxt = c->snd_una;
    tcp_sack_clear(c);
}

/* RFC 6675 §5 step 4/5: while cwnd - pipe >= 1 SMSS, retransmit lost holes. */
void tcp_cc_output_recovery(struct rne_tcp_conn *c)
{
    for (int guard = 0; guard < 1024; guard++) {
        uint32_t pipe = tcp_sack_pipe(c);
        if (pipe >= c->cwnd || c->cwnd - pipe < c->emss) {
            break;
        }
        uint32_t seq, len;
        if (!tcp_sack_next_lost(c, &seq, &len)) {
            /* rule 2 (new data) is tcp_output's loop */
            break;
        }
        bool fin = c->fin_queued && seq + len == c->fin_seq &&
            SEQ_GT(c->snd_max, c->fin_seq);
        tcp_xmit(c, seq, len, fin ? TH_FIN : 0);
        c->t->st.tx_rexmit_segs++;
        c->rexmits++;
        c->high_rxt = seq + len + fin;
        c->rtt_timing = false;
    }
}
